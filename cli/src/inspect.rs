//! `kiln check` and `kiln inspect` of one file: the judgement of
//! [`CheckpointView::from_bytes`] (the same as `check_buffer`), the frame,
//! a checkpoint's metadata and the directory table.

use std::path::Path;
use std::process::ExitCode;

use kiln_serde::checkpoint::{FileKind, CHECKPOINT_HASH, TENSORS_HASH};
use kiln_serde::frame::{self, FrameHeader};
use kiln_serde::tensors::AlignedBuf;
use kiln_serde::tensors::TensorsView;
use kiln_serde::{CheckpointView, Error, Limits, TensorsFile};
use serde::Serialize;

use crate::{out, plural, Failure};

/// The `--json` document, for `kiln inspect --help`.
pub const JSON_HELP: &str = "\
With --json, one JSON object (format version 1; fields are only ever added):
  format          \"kiln-inspect\"
  version         1
  file            the path as given
  file_bytes      the file's length
  frame           null for a bare directory, else an object:
    version, profile, flags   the frame's bytes 4, 5 and 6
    hash          \"0x%016x\", or null when the frame has no hash
    hash_is_tensors  true when hash is the hash of `tensors` (0x91b48d411a259b35)
  kind            \"bare\", \"framed\" or \"checkpoint\" (frame hash 0xa16f22b5f4281eb1)
  metadata        a checkpoint's string metadata as an object, else null
  directory       start (byte offset of the directory in the file), bytes
                  (block length), count, heap_start, heap_bytes,
                  payload_start, payload_bytes (starts are file offsets)
  tensors         one object per tensor, in descriptor order:
    index, name (null when unnamed), dtype (spec name, \"opaque\" for an
    opaque layout), dtype_code, shape (array), elements, byte_offset (from
    the payload region start), byte_length, file_offset (from the file
    start), quant {scheme (\"none\", \"per_tensor\", \"per_block\",
    \"per_block_outer\"), scale, outer, block_elems (null when unused)},
    layout (null, or {name, block_elems, block_bytes} for an opaque dtype)
  totals          tensors, elements, tensor_bytes (sum of byte_length),
                  payload_bytes (payload region), block_bytes
A faulty file prints the error as `kiln check` does (not JSON), exit 1.";

/// A tensor file: mapped and validated by [`TensorsFile::open`] (so no
/// payload page is mapped), or standard input read into memory.
pub enum Loaded {
    /// A mapped, validated file.
    File(TensorsFile),
    /// Standard input, not yet validated.
    Stdin(AlignedBuf),
}

impl Loaded {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Loaded::File(f) => f.as_bytes(),
            Loaded::Stdin(b) => b.as_slice(),
        }
    }

    /// The validated checkpoint (metadata and directory).
    ///
    /// # Errors
    ///
    /// The first fault of standard input's bytes.
    pub fn checkpoint(&self) -> Result<CheckpointView<'_>, Error> {
        match self {
            Loaded::File(f) => f.checkpoint(),
            Loaded::Stdin(b) => CheckpointView::from_bytes(b.as_slice(), &Limits::default()),
        }
    }
}

/// Opens `path` (`-` is standard input): the outer error is exit status 2
/// (I/O), the inner one a fault of the bytes.
///
/// # Errors
///
/// [`Failure::Usage`] when the file cannot be read or mapped.
pub fn load(path: &Path) -> Result<Result<Loaded, Error>, Failure> {
    let cannot = |e: &std::io::Error| Failure::io(format!("cannot read {}", path.display()), e);
    if path.as_os_str() == "-" {
        return AlignedBuf::read_to_end_from(&mut std::io::stdin().lock())
            .map(|b| Ok(Loaded::Stdin(b)))
            .map_err(|e| cannot(&e));
    }
    if path.is_dir() {
        return Err(cannot(&std::io::Error::other("is a directory")));
    }
    match TensorsFile::open(path) {
        Ok(f) => Ok(Ok(Loaded::File(f))),
        Err(e) => match e.io_error() {
            Some(io) => Err(cannot(io)),
            None => Ok(Err(e)),
        },
    }
}

/// [`load`] and [`Loaded::checkpoint`] in one: `Ok(Err(code))` is the exit
/// status of a reported fault.
fn load_checked(path: &Path) -> Result<Result<Loaded, ExitCode>, Failure> {
    match load(path)? {
        Ok(l) => match l.checkpoint() {
            Ok(_) => Ok(Ok(l)),
            Err(e) => report_fault(path, &e).map(Err),
        },
        Err(e) => report_fault(path, &e).map(Err),
    }
}

/// The two lines `kiln check` prints for a fault: the code word, then
/// `at byte N: sentence`, with byte lists shown readably.
pub fn fault_lines(e: &Error) -> String {
    let msg = readable_bytes(e.message());
    match e.offset() {
        Some(n) => format!("{}\nat byte {n}: {msg}\n", e.code().as_str()),
        None => format!("{}\n{msg}\n", e.code().as_str()),
    }
}

/// Rewrites every debug-printed byte list `[72, 6f, 6f, 74]` in `msg` as
/// `"root" (72 6f 6f 74)`: the text with escapes, then the hex bytes.
pub fn readable_bytes(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len());
    let mut rest = msg;
    while let Some(i) = rest.find('[') {
        let (before, from) = rest.split_at(i);
        out.push_str(before);
        let parsed = from.find(']').and_then(|j| {
            let inner = from.get(1..j)?;
            let bytes: Option<Vec<u8>> = inner
                .split(", ")
                .map(|h| {
                    (h.len() == 2)
                        .then(|| u8::from_str_radix(h, 16).ok())
                        .flatten()
                })
                .collect();
            Some((bytes?, j))
        });
        match parsed {
            Some((bytes, j)) => {
                let text: String = bytes
                    .iter()
                    .flat_map(|&b| std::ascii::escape_default(b))
                    .map(char::from)
                    .collect();
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                out.push_str(&format!("\"{}\" ({})", text, hex.join(" ")));
                rest = from.get(j + 1..).unwrap_or("");
            }
            None => {
                out.push('[');
                rest = from.get(1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

/// Prints a fault as `kiln check` does and picks the exit status: 1 for a
/// spec code (a fault of the bytes), 2 for anything else (I/O).
fn report_fault(path: &Path, e: &Error) -> Result<ExitCode, Failure> {
    if e.code().is_spec_code() {
        out(&fault_lines(e))?;
        Ok(ExitCode::from(1))
    } else {
        Err(Failure::Usage(format!("{}: {e}", path.display())))
    }
}

/// The frame header of a framed file, `None` for a bare directory.
pub fn frame_of(bytes: &[u8]) -> Option<FrameHeader> {
    if bytes.starts_with(&frame::MAGIC) {
        frame::parse(bytes).ok()
    } else {
        None
    }
}

/// `kiln check FILE`.
pub fn check(path: &Path) -> Result<ExitCode, Failure> {
    let input = match load_checked(path)? {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let bytes = input.bytes();
    match input.checkpoint() {
        Ok(ck) => {
            let view = ck.tensors();
            let framing = match (ck.kind(), frame_of(bytes)) {
                (FileKind::Checkpoint, _) => format!(
                    "checkpoint, {} metadata entr{}",
                    ck.metadata().len(),
                    if ck.metadata().len() == 1 { "y" } else { "ies" }
                ),
                (_, Some(FrameHeader { hash: Some(_), .. })) => "framed, hash = tensors".into(),
                (_, Some(_)) => "framed, no hash".into(),
                (_, None) => "bare directory".into(),
            };
            out(&format!(
                "ok\n{}, {} payload bytes ({framing}, {}-byte block)\n",
                plural(view.len(), "tensor"),
                view.layout().payload_bytes(),
                view.layout().block_len()
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => report_fault(path, &e),
    }
}

/// `kiln inspect FILE [--json]`.
pub fn inspect(path: &Path, json: bool) -> Result<ExitCode, Failure> {
    let input = match load_checked(path)? {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let bytes = input.bytes();
    let ck = match input.checkpoint() {
        Ok(v) => v,
        Err(e) => return report_fault(path, &e),
    };
    if json {
        let doc = document(path, bytes, &ck);
        let mut text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Failure::Usage(format!("cannot write JSON: {e}")))?;
        text.push('\n');
        out(&text)?;
    } else {
        out(&text_report(path, bytes, &ck))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the directory starts: it is the last thing in the file.
fn dir_start(bytes: &[u8], view: &TensorsView<'_>) -> usize {
    bytes.len() - view.as_bytes().len().min(bytes.len())
}

/// The `kiln inspect` text of one valid file.
pub fn text_report(path: &Path, bytes: &[u8], ck: &CheckpointView<'_>) -> String {
    let view = ck.tensors();
    let file_len = bytes.len();
    let start = dir_start(bytes, view);
    let frame_line = match frame_of(bytes) {
        None => "none (bare directory)".to_string(),
        Some(h) => {
            let hash = match h.hash {
                Some(x) if x == TENSORS_HASH => format!("hash {x:#018x} (= hash of `tensors`)"),
                Some(x) if x == CHECKPOINT_HASH => format!("hash {x:#018x} (= hash of Checkpoint)"),
                Some(x) => format!("hash {x:#018x} (not the hash of `tensors`)"),
                None => "no hash".to_string(),
            };
            format!(
                "KILN version {}, profile {} (frozen), {hash}",
                h.version, h.profile
            )
        }
    };
    let l = view.layout();
    let mut meta = String::new();
    if ck.kind() == FileKind::Checkpoint {
        meta.push_str(&format!(
            "metadata: {} entr{}\n",
            ck.metadata().len(),
            if ck.metadata().len() == 1 { "y" } else { "ies" }
        ));
        for (k, v) in ck.metadata() {
            meta.push_str(&format!("  {k:?}: {v:?}\n"));
        }
    }
    format!(
        "file: {} ({file_len} bytes)\n\
         frame: {frame_line}\n{meta}\
         directory: at byte {start}, {} bytes, {}; name heap {} bytes at byte {}; \
         payload region {} bytes at byte {}\n\n{}",
        path.display(),
        l.block_len(),
        plural(view.len(), "tensor"),
        l.heap_bytes(),
        start + l.heap_start(),
        l.payload_bytes(),
        start + l.payload_start(),
        view.table()
    )
}

/// The `--json` document of one file.
#[derive(Serialize)]
pub struct Doc {
    format: &'static str,
    version: u32,
    file: String,
    file_bytes: u64,
    frame: Option<FrameDoc>,
    kind: &'static str,
    metadata: Option<std::collections::BTreeMap<String, String>>,
    directory: DirDoc,
    tensors: Vec<TensorDoc>,
    totals: Totals,
}

#[derive(Serialize)]
struct FrameDoc {
    version: u8,
    profile: u8,
    flags: u8,
    hash: Option<String>,
    hash_is_tensors: bool,
}

#[derive(Serialize)]
struct DirDoc {
    start: u64,
    bytes: u64,
    count: u64,
    heap_start: u64,
    heap_bytes: u64,
    payload_start: u64,
    payload_bytes: u64,
}

#[derive(Serialize)]
struct TensorDoc {
    index: u64,
    name: Option<String>,
    dtype: &'static str,
    dtype_code: u16,
    shape: Vec<u64>,
    elements: u64,
    byte_offset: u64,
    byte_length: u64,
    file_offset: u64,
    quant: QuantDoc,
    layout: Option<LayoutDoc>,
}

#[derive(Serialize)]
struct QuantDoc {
    scheme: &'static str,
    scale: Option<u32>,
    outer: Option<u32>,
    block_elems: Option<u32>,
}

#[derive(Serialize)]
struct LayoutDoc {
    name: String,
    block_elems: u32,
    block_bytes: u32,
}

#[derive(Serialize)]
struct Totals {
    tensors: u64,
    elements: u128,
    tensor_bytes: u128,
    payload_bytes: u64,
    block_bytes: u64,
}

/// The `--json` document of one valid file.
pub fn document(path: &Path, bytes: &[u8], ck: &CheckpointView<'_>) -> Doc {
    let view = ck.tensors();
    let file_len = bytes.len();
    let frame = frame_of(bytes);
    let start = dir_start(bytes, view);
    let l = view.layout();
    let start = start as u64;
    let payload_start = start + l.payload_start() as u64;
    let tensors: Vec<TensorDoc> = view
        .iter()
        .map(|t| {
            let q = t.quant();
            TensorDoc {
                index: t.index() as u64,
                name: t.name().map(str::to_string),
                dtype: t.dtype().name(),
                dtype_code: t.dtype().code(),
                shape: t.shape().to_vec(),
                elements: t.elements(),
                byte_offset: t.byte_offset(),
                byte_length: t.byte_length(),
                file_offset: payload_start.saturating_add(t.byte_offset()),
                quant: QuantDoc {
                    scheme: q.scheme().name(),
                    scale: q.scale(),
                    outer: q.outer(),
                    block_elems: q.block_elems(),
                },
                layout: t.layout().map(|o| LayoutDoc {
                    name: String::from_utf8_lossy(o.name_bytes()).into_owned(),
                    block_elems: o.block_elems(),
                    block_bytes: o.block_bytes(),
                }),
            }
        })
        .collect();
    let totals = Totals {
        tensors: view.len() as u64,
        elements: tensors.iter().map(|t| u128::from(t.elements)).sum(),
        tensor_bytes: tensors.iter().map(|t| u128::from(t.byte_length)).sum(),
        payload_bytes: l.payload_bytes(),
        block_bytes: l.block_len() as u64,
    };
    Doc {
        format: "kiln-inspect",
        version: 1,
        file: path.display().to_string(),
        file_bytes: file_len as u64,
        frame: frame.map(|h| FrameDoc {
            version: h.version,
            profile: h.profile,
            flags: h.flags,
            hash: h.hash.map(|x| format!("{x:#018x}")),
            hash_is_tensors: h.hash == Some(TENSORS_HASH),
        }),
        kind: ck.kind().name(),
        metadata: (ck.kind() == FileKind::Checkpoint).then(|| {
            ck.metadata()
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        }),
        directory: DirDoc {
            start,
            bytes: l.block_len() as u64,
            count: view.len() as u64,
            heap_start: start + l.heap_start() as u64,
            heap_bytes: u64::from(l.heap_bytes()),
            payload_start,
            payload_bytes: l.payload_bytes(),
        },
        tensors,
        totals,
    }
}

#[cfg(test)]
mod tests {
    use super::readable_bytes;

    #[test]
    fn byte_lists_become_text_and_hex() {
        assert_eq!(
            readable_bytes("directory magic is [72, 6f, 6f, 74], expected \"KDIR\""),
            "directory magic is \"root\" (72 6f 6f 74), expected \"KDIR\""
        );
        assert_eq!(readable_bytes("[00, ff]"), "\"\\x00\\xff\" (00 ff)");
        assert_eq!(
            readable_bytes("shape [1, 2] and [x]"),
            "shape [1, 2] and [x]"
        );
        assert_eq!(readable_bytes("a [22] b"), "a \"\\\"\" (22) b");
    }
}
