//! `kiln convert`: safetensors -> Kiln and Kiln -> safetensors, one file or
//! a sharded checkpoint, streamed with bounded memory.
//!
//! Neither direction holds a payload in memory: the safetensors header is
//! parsed from the file's first bytes ([`crate::st_header`]), the Kiln
//! input is validated through a mapping that touches only its metadata and
//! gap pages ([`kiln_serde::TensorsFile`]), and every payload is copied
//! from the input file to the output by `io::copy` of exactly its length
//! (the kernel's file-to-file copy on Linux, bounded chunks elsewhere). The output is a
//! temporary file renamed over OUT at the end, so a failed conversion
//! leaves nothing behind.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use indicatif::ProgressBar;
use kiln_serde::checkpoint::{write_head, FileKind, TENSORS_HASH};
use kiln_serde::tensors::{Quant, TensorSpec, TensorsWriter};
use kiln_serde::{frame, Error, Limits, TensorsFile};

use crate::dtypes::{kiln_dtype, safetensors_dtype};
use crate::progress::progress;
use crate::st_header::{read_header, write_header, METADATA_KEY};
use crate::tempout::TempOut;
use crate::{out, Failure, Format};

/// `kiln convert IN OUT [--from F] [--to F] [--bare]` for one file (an
/// index goes to [`crate::shard::convert_sharded`]).
pub fn convert(
    input: &Path,
    output: &Path,
    from: Option<Format>,
    to: Option<Format>,
    bare: bool,
) -> Result<(), Failure> {
    let to_stdout = is_std(output);
    // `-` as input: standard input is spooled to a temporary file (next to
    // OUT, or in the temporary directory when OUT is `-` too), removed at
    // the end, so that the conversion streams from a file as usual.
    let spool = if is_std(input) {
        Some(spool_stdin(output)?)
    } else {
        None
    };
    let input = spool.as_ref().map_or(input, |s| s.path.as_path());
    let shown_in = if spool.is_some() {
        Path::new("-")
    } else {
        input
    };
    let from = match from.or_else(|| by_extension(input)) {
        Some(f) => f,
        None => sniff(input)?,
    };
    let to = match to.or_else(|| by_extension(output)) {
        Some(f) => f,
        None => {
            return Err(Failure::Usage(format!(
                "cannot tell the output format of {}: use a .kiln or .safetensors \
                 extension, or --to kiln|safetensors",
                output.display()
            )))
        }
    };
    if from == to {
        return Err(Failure::Usage(format!(
            "input and output are both {from}: convert changes the format \
             (use --from/--to to override an extension)"
        )));
    }
    if bare && to != Format::Kiln {
        return Err(Failure::Usage(
            "--bare applies only when writing Kiln".to_string(),
        ));
    }
    // `-` as output: the conversion is written to a temporary file as
    // usual, then copied to standard output; the summary goes to stderr.
    let staged = if to_stdout {
        Some(TempOut::create(&temp_target(output, "out"))?)
    } else {
        None
    };
    let target = staged.as_ref().map_or(output, |t| t.path.as_path());
    let summary = match to {
        Format::Kiln => safetensors_to_kiln(input, target, bare, None)?.summary(),
        Format::Safetensors => kiln_to_safetensors(input, target, None)?.summary(),
    };
    let line = format!(
        "{} ({from}) -> {} ({to}): {summary}\n",
        shown_in.display(),
        output.display()
    );
    match staged {
        Some(t) => {
            let mut f = File::open(&t.path)
                .map_err(|e| Failure::io(format!("cannot read {}", t.path.display()), &e))?;
            let mut o = io::stdout().lock();
            io::copy(&mut f, &mut o)
                .and_then(|_| o.flush())
                .map_err(|e| match e.kind() {
                    io::ErrorKind::BrokenPipe => Failure::BrokenPipe,
                    _ => Failure::io("cannot write to standard output", &e),
                })?;
            eprint!("{line}");
            Ok(())
        }
        None => out(&line),
    }
}

/// Progress is reported at least this often (bytes), so a single large
/// tensor moves the bar too.
const CHUNK: u64 = 64 << 20;

/// Copies up to `len` bytes from `src` (at its position) to `dst` in
/// chunks of [`CHUNK`], advancing `bar` after each; stops early at the end
/// of `src` and returns the bytes copied. Each chunk is one `io::copy` of
/// a `Take<File>`, which is the kernel's file-to-file copy on Linux.
fn copy_len<W: Write>(
    src: &mut File,
    dst: &mut W,
    len: u64,
    bar: Option<&ProgressBar>,
) -> io::Result<u64> {
    copy_chunked(src, dst, len, CHUNK, bar)
}

/// [`copy_len`] with the chunk size given (tests use small ones).
fn copy_chunked<W: Write>(
    src: &mut File,
    dst: &mut W,
    len: u64,
    chunk: u64,
    bar: Option<&ProgressBar>,
) -> io::Result<u64> {
    let mut done = 0;
    while done < len {
        let n = io::copy(&mut src.take(chunk.min(len - done)), dst)?;
        if let Some(b) = bar {
            b.inc(n);
        }
        done += n;
        if n == 0 {
            break;
        }
    }
    Ok(done)
}

/// Whether a command-line path is `-` (standard input or output).
fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Where a temporary file for `output` goes: next to it, or in the
/// temporary directory when it is `-`.
fn temp_target(output: &Path, what: &str) -> std::path::PathBuf {
    if is_std(output) {
        std::env::temp_dir().join(format!("kiln-{what}"))
    } else {
        output.with_file_name(format!(
            "{}.{what}",
            output.file_name().unwrap_or_default().to_string_lossy()
        ))
    }
}

/// Copies standard input into a new temporary file (removed when the
/// returned handle drops), in bounded chunks.
fn spool_stdin(output: &Path) -> Result<TempOut, Failure> {
    let mut spool = TempOut::create(&temp_target(output, "stdin"))?;
    let path = spool.path.clone();
    let f = spool.file()?;
    io::copy(&mut io::stdin().lock(), f)
        .and_then(|_| f.flush())
        .map_err(|e| {
            Failure::io(
                format!("cannot copy standard input to {}", path.display()),
                &e,
            )
        })?;
    Ok(spool)
}

/// What one file's conversion wrote: the tensor names, the bytes and
/// whether the output carries metadata.
#[derive(Debug, Default)]
pub struct Written {
    /// Tensor names, in name order.
    pub names: Vec<String>,
    /// Bytes of the output file.
    pub bytes: u64,
    /// Whether the output is a checkpoint (or has `__metadata__`).
    pub metadata: Option<usize>,
    /// Whether the output is a bare directory.
    pub bare: bool,
}

impl Written {
    fn summary(&self) -> String {
        let meta = match self.metadata {
            Some(n) => format!(
                ", {n} metadata entr{} kept",
                if n == 1 { "y" } else { "ies" }
            ),
            None => String::new(),
        };
        format!(
            "{}, {} bytes{meta}{}",
            crate::plural(self.names.len(), "tensor"),
            self.bytes,
            if self.bare { " (bare directory)" } else { "" }
        )
    }
}

fn by_extension(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()? {
        "safetensors" => Some(Format::Safetensors),
        "kiln" => Some(Format::Kiln),
        _ => None,
    }
}

/// A file that starts with a Kiln frame or directory magic is Kiln; any
/// other is taken to be safetensors (whose first 8 bytes are a length).
fn sniff(path: &Path) -> Result<Format, Failure> {
    let mut head = Vec::with_capacity(4);
    File::open(path)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .map_err(|e| Failure::io(format!("cannot read {}", path.display()), &e))?;
    Ok(
        if head.starts_with(&frame::MAGIC) || head.starts_with(&kiln_serde::tensors::MAGIC) {
            Format::Kiln
        } else {
            Format::Safetensors
        },
    )
}

/// How a tensor is named in messages.
fn label(name: &str) -> String {
    format!("{name:?}")
}

/// Opens an input file and its length, or fails with exit status 2.
fn open_input(input: &Path) -> Result<(File, u64), Failure> {
    let err = |e: &io::Error| Failure::io(format!("cannot read {}", input.display()), e);
    let f = File::open(input).map_err(|e| err(&e))?;
    let meta = f.metadata().map_err(|e| err(&e))?;
    if meta.is_dir() {
        return Err(err(&io::Error::other("is a directory")));
    }
    Ok((f, meta.len()))
}

/// An I/O error while copying is exit 2, any other error a fault (1).
fn copy_failure(input: &Path, tmp: &Path, e: &Error) -> Failure {
    match e.io_error() {
        Some(io) => Failure::io(
            format!("cannot copy {} to {}", input.display(), tmp.display()),
            io,
        ),
        None => Failure::Fault(format!("{}: cannot write it as Kiln: {e}", input.display())),
    }
}

/// safetensors -> Kiln. A file with `__metadata__` (even `{}`) becomes a
/// checkpoint, one without a framed (or, with `bare`, bare) directory.
pub fn safetensors_to_kiln(
    input: &Path,
    output: &Path,
    bare: bool,
    bar: Option<&ProgressBar>,
) -> Result<Written, Failure> {
    let (file, file_len) = open_input(input)?;
    let mut r = BufReader::with_capacity(1 << 16, file);
    let h = read_header(&mut r, file_len).map_err(|why| {
        Failure::Fault(format!(
            "{}: not a valid safetensors file: {why}",
            input.display()
        ))
    })?;
    if bare && h.metadata.is_some() {
        return Err(Failure::Usage(format!(
            "{}: has {METADATA_KEY}, which a bare directory cannot keep: drop --bare \
             to write a checkpoint",
            input.display()
        )));
    }
    let mut specs = Vec::with_capacity(h.tensors.len());
    for t in &h.tensors {
        if t.name.is_empty() {
            return Err(Failure::Fault(format!(
                "{}: a tensor has an empty name, which Kiln reads as unnamed",
                input.display()
            )));
        }
        let dtype = kiln_dtype(t.dtype).map_err(|why| {
            Failure::Fault(format!(
                "{}: tensor {} has dtype {:?}, which has no Kiln counterpart: {why}",
                input.display(),
                label(&t.name),
                t.dtype
            ))
        })?;
        let shape: Vec<u64> = t.shape.iter().map(|&d| d as u64).collect();
        specs.push(TensorSpec::declared(dtype, &shape, t.end - t.begin).named(t.name.clone()));
    }
    let head = match (&h.metadata, bare) {
        (Some(m), _) => write_head(m).map_err(|e| {
            Failure::Fault(format!(
                "{}: cannot keep {METADATA_KEY}: {e}",
                input.display()
            ))
        })?,
        (None, false) => frame::encode(Some(TENSORS_HASH)).to_vec(),
        (None, true) => Vec::new(),
    };
    let total: u64 = h.tensors.iter().map(|t| t.end - t.begin).sum();
    let own_bar = match bar {
        Some(_) => None,
        None => progress(total, "writing Kiln"),
    };
    let bar = bar.or(own_bar.as_ref());

    let mut tmp = TempOut::create(output)?;
    let tmp_path = tmp.path.clone();
    let write_err = |e: &io::Error| Failure::io(format!("cannot write {}", tmp_path.display()), e);
    // Unbuffered: the metadata is one write, each payload one `io::copy`
    // from a `Take<File>` to a `File` (the kernel's file-to-file copy on
    // Linux), so no payload byte needs to pass through this process.
    let w = tmp.file()?;
    w.write_all(&head).map_err(|e| write_err(&e))?;
    let mut tw = TensorsWriter::new(w, specs, &Limits::default()).map_err(|e| {
        Failure::Fault(format!("{}: cannot write it as Kiln: {e}", input.display()))
    })?;
    let block_len = tw.block_len();
    let mut src = r.into_inner();
    for t in &h.tensors {
        src.seek(SeekFrom::Start(h.data_start + t.begin))
            .map_err(|e| Failure::io(format!("cannot read {}", input.display()), &e))?;
        tw.write_payload_with(|w, n| copy_len(&mut src, w, n, bar))
            .map_err(|e| copy_failure(input, &tmp_path, &e))?;
    }
    tw.finish()
        .map_err(|e| copy_failure(input, &tmp_path, &e))?;
    if let Some(b) = own_bar {
        b.finish_and_clear();
    }
    tmp.commit()?;
    Ok(Written {
        names: h.tensors.into_iter().map(|t| t.name).collect(),
        bytes: head.len() as u64 + block_len,
        metadata: h.metadata.as_ref().map(BTreeMap::len),
        bare,
    })
}

/// One tensor to copy into a safetensors file.
struct Planned {
    name: String,
    dtype: safetensors::Dtype,
    shape: Vec<usize>,
    len: u64,
    /// Where its payload starts in the input file.
    at: u64,
}

/// Kiln -> safetensors. `__metadata__` is written exactly when the input
/// is a checkpoint.
pub fn kiln_to_safetensors(
    input: &Path,
    output: &Path,
    bar: Option<&ProgressBar>,
) -> Result<Written, Failure> {
    let (plan, metadata) = plan_kiln(input)?;
    let list = plan
        .iter()
        .map(|p| (p.name.clone(), p.dtype, p.shape.clone(), p.len))
        .collect();
    let (prefix, order) = write_header(metadata.as_ref(), list).map_err(|why| {
        Failure::Fault(format!(
            "{}: cannot write it as safetensors: {why}",
            input.display()
        ))
    })?;
    let at: BTreeMap<&str, u64> = plan.iter().map(|p| (p.name.as_str(), p.at)).collect();
    let total: u64 = plan.iter().map(|p| p.len).sum();
    let own_bar = match bar {
        Some(_) => None,
        None => progress(total, "writing safetensors"),
    };
    let bar = bar.or(own_bar.as_ref());

    let (mut src, _) = open_input(input)?;
    let mut tmp = TempOut::create(output)?;
    let tmp_path = tmp.path.clone();
    let io_err = |e: &io::Error| {
        Failure::io(
            format!("cannot copy {} to {}", input.display(), tmp_path.display()),
            e,
        )
    };
    let dst = tmp.file()?;
    dst.write_all(&prefix).map_err(|e| io_err(&e))?;
    for e in &order {
        let start = at.get(e.name.as_str()).copied().unwrap_or(0);
        let len = e.end - e.begin;
        src.seek(SeekFrom::Start(start)).map_err(|e| io_err(&e))?;
        // `io::copy` from a `Take<File>` to a `File` uses the kernel's
        // file-to-file copy where it can: no payload passes through here.
        let n = copy_len(&mut src, dst, len, bar).map_err(|e| io_err(&e))?;
        if n != len {
            return Err(Failure::Usage(format!(
                "{}: the file ended while copying tensor {} ({n} of {len} bytes): \
                 was it changed during the conversion?",
                input.display(),
                label(&e.name)
            )));
        }
    }
    if let Some(b) = own_bar {
        b.finish_and_clear();
    }
    let bytes = prefix.len() as u64 + total;
    tmp.commit()?;
    let meta_len = metadata.as_ref().map(BTreeMap::len);
    let mut names: Vec<String> = plan.into_iter().map(|p| p.name).collect();
    names.sort_unstable();
    Ok(Written {
        names,
        bytes,
        metadata: meta_len,
        bare: false,
    })
}

/// Validates a Kiln input and lists what a safetensors file of it holds,
/// or the first tensor that has no safetensors counterpart.
/// The tensors to copy and the metadata to write (for a checkpoint).
type KilnPlan = (Vec<Planned>, Option<BTreeMap<String, String>>);

fn plan_kiln(input: &Path) -> Result<KilnPlan, Failure> {
    let fail = |e: Error| match e.io_error() {
        Some(io) => Failure::io(format!("cannot read {}", input.display()), io),
        None => Failure::Fault(format!("{}: {e}", input.display())),
    };
    let file = TensorsFile::open(input).map_err(fail)?;
    let view = file.view().map_err(fail)?;
    let dir_start = (file.as_bytes().len() - view.as_bytes().len()) as u64;
    let payload_start = dir_start + view.layout().payload_start() as u64;
    let mut plan: Vec<Planned> = Vec::with_capacity(view.len());
    let mut problems: Vec<String> = Vec::new();
    for t in view.iter() {
        let Some(name) = t.name() else {
            problems.push(format!(
                "tensor #{} has no name, and every safetensors tensor needs one",
                t.index()
            ));
            continue;
        };
        let who = format!("tensor {} (#{})", label(name), t.index());
        if name == METADATA_KEY {
            problems.push(format!(
                "{who}: this name is reserved for the safetensors metadata"
            ));
            continue;
        }
        let dtype = match safetensors_dtype(t.dtype()) {
            Ok(d) => d,
            Err(why) => {
                problems.push(format!(
                    "{who} has dtype {}, which has no safetensors counterpart: {why}",
                    t.dtype()
                ));
                continue;
            }
        };
        if t.quant() != Quant::None {
            problems.push(format!(
                "{who} is quantized ({}, scale tensor #{}): safetensors has no quantization links",
                t.quant().scheme().name(),
                t.quant().scale().unwrap_or(0)
            ));
            continue;
        }
        let shape: Result<Vec<usize>, _> = t.shape().iter().map(|&d| usize::try_from(d)).collect();
        let Ok(shape) = shape else {
            problems.push(format!(
                "{who}: its shape does not fit this machine's usize"
            ));
            continue;
        };
        plan.push(Planned {
            name: name.to_string(),
            dtype,
            shape,
            len: t.byte_length(),
            at: payload_start + t.byte_offset(),
        });
    }
    if plan.len() + problems.len() != view.len() {
        problems.push("the directory could not be read in full".to_string());
    }
    if let Some(first) = problems.first() {
        let more = match problems.len() - 1 {
            0 => String::new(),
            n => format!(
                " (and {n} more tensor{} with no counterpart)",
                if n == 1 { "" } else { "s" }
            ),
        };
        return Err(Failure::Fault(format!(
            "{}: cannot convert to safetensors: {first}{more}",
            input.display()
        )));
    }
    let metadata = (file.kind() == FileKind::Checkpoint).then(|| file.metadata().clone());
    Ok((plan, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunk loop (which only runs more than once for tensors above
    /// 64 MiB in real use): exact lengths across chunk boundaries, the bar
    /// advanced by every byte, and an early stop at the end of the source.
    #[test]
    fn chunked_copy_copies_exactly_and_stops_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("src.bin");
        let data: Vec<u8> = (0..100u8).collect();
        std::fs::write(&path, &data).unwrap();
        for (start, len, chunk) in [(0u64, 100u64, 7u64), (10, 30, 3), (5, 95, 95), (0, 0, 4)] {
            let mut src = File::open(&path).unwrap();
            src.seek(SeekFrom::Start(start)).unwrap();
            let mut out = Vec::new();
            let bar = ProgressBar::hidden();
            let n = copy_chunked(&mut src, &mut out, len, chunk, Some(&bar)).unwrap();
            assert_eq!(n, len);
            assert_eq!(out, &data[start as usize..(start + len) as usize]);
            assert_eq!(bar.position(), len);
        }
        // Asking for more than the file holds stops at its end.
        let mut src = File::open(&path).unwrap();
        src.seek(SeekFrom::Start(90)).unwrap();
        let mut out = Vec::new();
        assert_eq!(copy_chunked(&mut src, &mut out, 50, 4, None).unwrap(), 10);
        assert_eq!(out, &data[90..]);
    }

    #[test]
    fn summary_words() {
        let w = Written {
            names: vec!["a".into()],
            bytes: 9,
            metadata: Some(1),
            bare: false,
        };
        assert_eq!(w.summary(), "1 tensor, 9 bytes, 1 metadata entry kept");
    }
}
