//! `kiln convert`: safetensors -> Kiln and Kiln -> safetensors with the
//! `safetensors` crate, payloads borrowed from the (mapped) input.

use std::borrow::Cow;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use kiln_serde::checkpoint::{check_buffer, TENSORS_HASH};
use kiln_serde::frame;
use kiln_serde::tensors::{Dtype, Quant, TensorSpec, TensorsBuilder};
use kiln_serde::{Error, Limits};
use safetensors::tensor::{SafeTensors, View};

use crate::mmap::Input;
use crate::{out, Failure, Format};

/// Conversions larger than this show a progress bar (on a terminal).
const PROGRESS_MIN: u64 = 256 << 20;

/// The reserved safetensors header key.
const METADATA_KEY: &str = "__metadata__";

/// `kiln convert IN OUT [--from F] [--to F] [--bare]`.
pub fn convert(
    input: &Path,
    output: &Path,
    from: Option<Format>,
    to: Option<Format>,
    bare: bool,
) -> Result<(), Failure> {
    let data = Input::open(input)
        .map_err(|e| Failure::io(format!("cannot read {}", input.display()), &e))?;
    let bytes = data.bytes();
    let from = match from.or_else(|| by_extension(input)) {
        Some(f) => f,
        None => sniff(bytes),
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
    let summary = match to {
        Format::Kiln => safetensors_to_kiln(input, bytes, output, bare)?,
        Format::Safetensors => kiln_to_safetensors(input, bytes, output)?,
    };
    out(&format!(
        "{} ({from}) -> {} ({to}): {summary}\n",
        input.display(),
        output.display()
    ))
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
fn sniff(bytes: &[u8]) -> Format {
    if bytes.starts_with(&frame::MAGIC) || bytes.starts_with(&kiln_serde::tensors::MAGIC) {
        Format::Kiln
    } else {
        Format::Safetensors
    }
}

/// The Kiln dtype of a safetensors dtype, or why there is none.
fn kiln_dtype(d: safetensors::Dtype) -> Result<Dtype, &'static str> {
    use safetensors::Dtype as S;
    Ok(match d {
        S::BOOL => Dtype::Bool,
        S::U8 => Dtype::U8,
        S::I8 => Dtype::I8,
        S::U16 => Dtype::U16,
        S::I16 => Dtype::I16,
        S::U32 => Dtype::U32,
        S::I32 => Dtype::I32,
        S::U64 => Dtype::U64,
        S::I64 => Dtype::I64,
        S::F16 => Dtype::F16,
        S::BF16 => Dtype::Bf16,
        S::F32 => Dtype::F32,
        S::F64 => Dtype::F64,
        S::F8_E4M3 => Dtype::F8E4M3,
        S::F8_E5M2 => Dtype::F8E5M2,
        S::F8_E8M0 => Dtype::F8E8M0,
        S::F4 => {
            return Err(
                "safetensors F4 does not define the order of the two values in a \
                        byte, so it is not mapped to Kiln's f4e2m1",
            )
        }
        S::F8_E4M3FNUZ | S::F8_E5M2FNUZ => {
            return Err("Kiln has no FNUZ float8 dtype (its f8e4m3/f8e5m2 are the OCP formats)")
        }
        S::F6_E2M3 | S::F6_E3M2 => return Err("Kiln has no 6-bit float dtype"),
        S::C64 => return Err("Kiln has no complex dtype"),
        _ => return Err("Kiln has no dtype with this code"),
    })
}

/// The safetensors dtype of a Kiln dtype, or why there is none.
fn safetensors_dtype(d: Dtype) -> Result<safetensors::Dtype, &'static str> {
    use safetensors::Dtype as S;
    Ok(match d {
        Dtype::Bool => S::BOOL,
        Dtype::U8 => S::U8,
        Dtype::I8 => S::I8,
        Dtype::U16 => S::U16,
        Dtype::I16 => S::I16,
        Dtype::U32 => S::U32,
        Dtype::I32 => S::I32,
        Dtype::U64 => S::U64,
        Dtype::I64 => S::I64,
        Dtype::F16 => S::F16,
        Dtype::Bf16 => S::BF16,
        Dtype::F32 => S::F32,
        Dtype::F64 => S::F64,
        Dtype::F8E4M3 => S::F8_E4M3,
        Dtype::F8E5M2 => S::F8_E5M2,
        Dtype::F8E8M0 => S::F8_E8M0,
        Dtype::F4E2M1 => {
            return Err(
                "safetensors F4 does not define the order of the two values in a \
                        byte, so Kiln's packed f4e2m1 is not mapped to it",
            )
        }
        Dtype::I4 | Dtype::U4 => return Err("safetensors has no 4-bit integer dtype"),
        Dtype::Opaque(_) => return Err("safetensors has no opaque block layouts"),
    })
}

/// How a tensor is named in messages.
fn label(name: &str) -> String {
    format!("{name:?}")
}

fn kiln_fault(input: &Path, e: &Error) -> Failure {
    Failure::Fault(format!("{}: {e}", input.display()))
}

/// A progress bar for a conversion of `total` bytes, when stderr is a
/// terminal and the conversion is large.
fn progress(total: u64, what: &str) -> Option<ProgressBar> {
    if total <= PROGRESS_MIN || !io::stderr().is_terminal() {
        return None;
    }
    let style = ProgressStyle::with_template(
        "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
    .map(|s| s.progress_chars("=> "))
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = ProgressBar::new(total).with_style(style);
    bar.set_message(what.to_string());
    Some(bar)
}

fn safetensors_to_kiln(
    input: &Path,
    bytes: &[u8],
    output: &Path,
    bare: bool,
) -> Result<String, Failure> {
    let st_fault = |e: safetensors::SafeTensorError| {
        Failure::Fault(format!(
            "{}: not a valid safetensors file: {e}",
            input.display()
        ))
    };
    let (_, header) = SafeTensors::read_metadata(bytes).map_err(st_fault)?;
    if let Some(meta) = header.metadata() {
        if !meta.is_empty() {
            let mut keys: Vec<&str> = meta.keys().map(String::as_str).collect();
            keys.sort_unstable();
            eprintln!(
                "kiln: warning: {}: {METADATA_KEY} ({} entr{}: {}) has no place in Kiln and is dropped",
                input.display(),
                meta.len(),
                if meta.len() == 1 { "y" } else { "ies" },
                keys.join(", ")
            );
        }
    }
    let st = SafeTensors::deserialize(bytes).map_err(st_fault)?;
    // Kiln order: by name bytes, as a map of tensors is.
    let mut tensors: Vec<(&str, safetensors::tensor::TensorView<'_>)> = st.iter().collect();
    tensors.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));

    // The default caps: the output must pass `kiln check`.
    let mut builder = TensorsBuilder::new();
    for (name, t) in &tensors {
        if name.is_empty() {
            return Err(Failure::Fault(format!(
                "{}: a tensor has an empty name, which Kiln reads as unnamed",
                input.display()
            )));
        }
        let dtype = kiln_dtype(t.dtype()).map_err(|why| {
            Failure::Fault(format!(
                "{}: tensor {} has dtype {:?}, which has no Kiln counterpart: {why}",
                input.display(),
                label(name),
                t.dtype()
            ))
        })?;
        let shape: Vec<u64> = t.shape().iter().map(|&d| d as u64).collect();
        builder.push(TensorSpec::new(dtype, &shape, t.data()).named(*name));
    }
    let block_len = builder.encoded_len().map_err(|e| {
        Failure::Fault(format!("{}: cannot write it as Kiln: {e}", input.display()))
    })?;
    let total = block_len + if bare { 0 } else { frame::FRAME_LEN as u64 };

    let mut tmp = TempOut::create(output)?;
    let tmp_path = tmp.path.clone();
    let write_err = |e: &io::Error| Failure::io(format!("cannot write {}", tmp_path.display()), e);
    let bar = progress(total, "writing Kiln");
    {
        let mut w = Counting {
            inner: BufWriter::with_capacity(1 << 20, tmp.file()?),
            bar: bar.as_ref(),
        };
        if !bare {
            w.write_all(&frame::encode(Some(TENSORS_HASH)))
                .map_err(|e| write_err(&e))?;
        }
        builder.write_to(&mut w).map_err(|e| match e.io_error() {
            Some(io) => write_err(io),
            None => Failure::Fault(format!("{}: cannot write it as Kiln: {e}", input.display())),
        })?;
        w.flush().map_err(|e| write_err(&e))?;
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    tmp.commit()?;
    Ok(format!(
        "{}, {total} bytes{}",
        crate::plural(tensors.len(), "tensor"),
        if bare { " (bare directory)" } else { "" }
    ))
}

/// A Kiln tensor as a safetensors [`View`]: the payload is borrowed.
struct StTensor<'a> {
    dtype: safetensors::Dtype,
    shape: Vec<usize>,
    data: &'a [u8],
    bar: Option<&'a ProgressBar>,
}

impl View for StTensor<'_> {
    fn dtype(&self) -> safetensors::Dtype {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        &self.shape
    }

    fn data(&self) -> Cow<'_, [u8]> {
        // The writer asks for each payload once, just before writing it.
        if let Some(b) = self.bar {
            b.inc(self.data.len() as u64);
        }
        Cow::Borrowed(self.data)
    }

    fn data_len(&self) -> usize {
        self.data.len()
    }
}

fn kiln_to_safetensors(input: &Path, bytes: &[u8], output: &Path) -> Result<String, Failure> {
    let view = check_buffer(bytes, &Limits::default()).map_err(|e| kiln_fault(input, &e))?;
    let total: u64 = view.iter().map(|t| t.byte_length()).sum();
    let bar = progress(total, "writing safetensors");
    let mut tensors: Vec<(String, StTensor<'_>)> = Vec::with_capacity(view.len());
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
        tensors.push((
            name.to_string(),
            StTensor {
                dtype,
                shape,
                data: t.data(),
                bar: bar.as_ref(),
            },
        ));
    }
    if tensors.len() + problems.len() != view.len() {
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
    let count = tensors.len();
    let tmp = TempOut::create(output)?;
    // safetensors writes its own temporary file and renames it over
    // `tmp.path`; ours then gets the usual permissions and is renamed over
    // OUT, so OUT is never truncated in place.
    let perms = tmp.file_ref()?.metadata().map(|m| m.permissions()).ok();
    safetensors::serialize_to_file(tensors, None, &tmp.path).map_err(|e| match e {
        safetensors::SafeTensorError::IoError(io) => {
            Failure::io(format!("cannot write {}", tmp.path.display()), &io)
        }
        other => Failure::Fault(format!(
            "{}: cannot write it as safetensors: {other}",
            input.display()
        )),
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(p) = perms {
        let _ = fs::set_permissions(&tmp.path, p);
    }
    let written = fs::metadata(&tmp.path).map(|m| m.len()).unwrap_or(0);
    let mut tmp = tmp;
    tmp.commit()?;
    Ok(format!(
        "{}, {written} bytes",
        crate::plural(count, "tensor")
    ))
}

/// A writer that moves a progress bar.
struct Counting<'a, W> {
    inner: W,
    bar: Option<&'a ProgressBar>,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        if let Some(b) = self.bar {
            b.inc(n as u64);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A new file next to OUT, renamed over OUT by [`TempOut::commit`] and
/// removed if the conversion stops first.
struct TempOut {
    path: PathBuf,
    target: PathBuf,
    file: Option<File>,
    done: bool,
}

impl TempOut {
    fn create(target: &Path) -> Result<Self, Failure> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let base = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".to_string());
        let pid = std::process::id();
        let mut last = None;
        for k in 0..100u32 {
            let path = dir.join(format!(".{base}.kiln-tmp-{pid}-{k}"));
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => {
                    return Ok(TempOut {
                        path,
                        target: target.to_path_buf(),
                        file: Some(file),
                        done: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(Failure::io(
                        format!("cannot create a file next to {}", target.display()),
                        &e,
                    ))
                }
            }
        }
        let e = last.unwrap_or_else(|| io::Error::other("no free temporary name"));
        Err(Failure::io(
            format!("cannot create a file next to {}", target.display()),
            &e,
        ))
    }

    fn file_ref(&self) -> Result<&File, Failure> {
        self.file
            .as_ref()
            .ok_or_else(|| Failure::Usage("the temporary output is closed".to_string()))
    }

    fn file(&mut self) -> Result<&mut File, Failure> {
        self.file
            .as_mut()
            .ok_or_else(|| Failure::Usage("the temporary output is closed".to_string()))
    }

    /// Syncs the file and renames it over the target.
    fn commit(&mut self) -> Result<(), Failure> {
        let err = |what: &str, e: &io::Error| Failure::io(what.to_string(), e);
        // Reopen by path: safetensors may have replaced the file we created.
        drop(self.file.take());
        let f = File::open(&self.path)
            .map_err(|e| err(&format!("cannot reopen {}", self.path.display()), &e))?;
        f.sync_all()
            .map_err(|e| err(&format!("cannot sync {}", self.path.display()), &e))?;
        drop(f);
        fs::rename(&self.path, &self.target).map_err(|e| {
            err(
                &format!(
                    "cannot rename {} to {}",
                    self.path.display(),
                    self.target.display()
                ),
                &e,
            )
        })?;
        self.done = true;
        Ok(())
    }
}

impl Drop for TempOut {
    fn drop(&mut self) {
        if !self.done {
            drop(self.file.take());
            let _ = fs::remove_file(&self.path);
        }
    }
}
