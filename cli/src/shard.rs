//! Sharded checkpoints (spec 9): an index file `<stem>.safetensors.index.json`
//! or `<stem>.kiln.index.json` beside its shard files.
//!
//! The index is JSON: `{"metadata": {...}, "weight_map": {"<tensor>":
//! "<shard file>", ...}}`. Converting keeps `metadata` as it is (any JSON
//! values) and every other top-level key, and swaps the extension of each
//! shard name. A shard name must be a plain file name in the index's
//! directory: empty, `.`, `..`, an absolute path or a path separator is an
//! error, so nothing is read or written outside that directory (or OUT).
//! Every shard is converted to a temporary name in OUT; only when all of
//! them and the index are written are they renamed to their final names,
//! so a failed conversion leaves no partial output.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kiln_serde::checkpoint::{ShardFormat, ShardIndex};
use serde_json::Value;

use crate::convert::{kiln_to_safetensors, safetensors_to_kiln, Written};
use crate::progress::progress;
use crate::tempout::TempOut;
use crate::{out, plural, Failure, Format};

pub use kiln_serde::checkpoint::is_index;

/// Reads and parses the index at `path`, and the directory it is in.
fn read_index(path: &Path) -> Result<(ShardIndex, PathBuf), Failure> {
    let index = ShardIndex::read(path).map_err(|e| match e.io_error() {
        Some(io) => Failure::io(format!("cannot read {}", path.display()), io),
        None => Failure::Fault(format!("{}: {}", path.display(), e.message())),
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((index, dir))
}

/// Part files written so far, removed unless the conversion completes.
struct Parts {
    done: Vec<(PathBuf, PathBuf)>,
    created_dir: Option<PathBuf>,
    committed: bool,
}

impl Drop for Parts {
    fn drop(&mut self) {
        if !self.committed {
            for (part, _) in &self.done {
                let _ = fs::remove_file(part);
            }
            if let Some(d) = &self.created_dir {
                let _ = fs::remove_dir(d);
            }
        }
    }
}

/// `kiln convert INDEX OUT`: converts every shard and the index into the
/// directory OUT (created when missing).
pub fn convert_sharded(index_path: &Path, out_dir: &Path) -> Result<String, Failure> {
    let (index, dir) = read_index(index_path)?;
    let to = match index.format() {
        ShardFormat::Safetensors => Format::Kiln,
        ShardFormat::Kiln => Format::Safetensors,
    };
    let shards: Vec<String> = index.shards().into_iter().map(str::to_string).collect();
    let mut total = 0u64;
    for s in &shards {
        let p = dir.join(s);
        match fs::metadata(&p) {
            Ok(m) if m.is_file() => total += m.len(),
            _ => {
                return Err(Failure::Fault(format!(
                    "{}: tensor {:?}: shard {s:?} is missing",
                    index_path.display(),
                    index.first_tensor_of(s)
                )))
            }
        }
    }
    let created_dir = if out_dir.is_dir() {
        None
    } else {
        fs::create_dir(out_dir)
            .map_err(|e| Failure::io(format!("cannot create {}", out_dir.display()), &e))?;
        Some(out_dir.to_path_buf())
    };
    let mut parts = Parts {
        done: Vec::new(),
        created_dir,
        committed: false,
    };
    let bar = progress(total, "converting shards");
    let mut seen = BTreeMap::new();
    let mut written: Vec<Written> = Vec::new();
    let pid = std::process::id();
    for s in &shards {
        let new_name = index.converted_shard_name(s);
        let part = out_dir.join(format!(".{new_name}.kiln-part-{pid}"));
        let src = dir.join(s);
        // Listed before the write, so a failure half-way removes it too.
        parts.done.push((part.clone(), out_dir.join(&new_name)));
        let w = match to {
            Format::Kiln => safetensors_to_kiln(&src, &part, false, bar.as_ref())?,
            Format::Safetensors => kiln_to_safetensors(&src, &part, bar.as_ref())?,
        };
        index
            .check_shard(s, w.names.iter().map(String::as_str), &mut seen)
            .map_err(|e| Failure::Fault(format!("{}: {}", index_path.display(), e.message())))?;
        written.push(w);
    }
    // The index: every key kept, weight_map values renamed.
    let converted = index.converted();
    let text = converted.to_json();
    let index_name = converted.file_name();
    let index_out = out_dir.join(&index_name);
    let index_part = out_dir.join(format!(".{index_name}.kiln-part-{pid}"));
    parts.done.push((index_part.clone(), index_out));
    let mut tmp = TempOut::create(&index_part)?;
    std::io::Write::write_all(tmp.file()?, text.as_bytes())
        .map_err(|e| Failure::io(format!("cannot write {}", tmp.path.display()), &e))?;
    tmp.commit()?;
    for (part, target) in &parts.done {
        fs::rename(part, target).map_err(|e| {
            Failure::io(
                format!("cannot rename {} to {}", part.display(), target.display()),
                &e,
            )
        })?;
    }
    parts.committed = true;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let tensors: usize = written.iter().map(|w| w.names.len()).sum();
    let bytes: u64 = written.iter().map(|w| w.bytes).sum();
    Ok(format!(
        "{} in {}, {bytes} bytes; index {index_name}",
        plural(tensors, "tensor"),
        plural(shards.len(), "shard")
    ))
}

/// `kiln check INDEX` and `kiln inspect [--json] INDEX` of a Kiln index.
pub fn check_or_inspect(path: &Path, inspect: Option<bool>) -> Result<ExitCode, Failure> {
    let (index, dir) = read_index(path)?;
    if index.format() != ShardFormat::Kiln {
        return Err(Failure::Usage(format!(
            "{}: a safetensors index; convert it first, then check the .kiln.index.json",
            path.display()
        )));
    }
    let index_fault = |why: String| -> Result<ExitCode, Failure> {
        out(&format!("INDEX\n{why}\n"))?;
        Ok(ExitCode::from(1))
    };
    let mut seen = BTreeMap::new();
    let mut reports = Vec::new();
    let mut docs = Vec::new();
    let (mut tensors, mut payload) = (0usize, 0u64);
    for s in index.shards() {
        let p = dir.join(s);
        if !p.is_file() {
            return index_fault(format!(
                "tensor {:?}: shard {s:?} is missing",
                index.first_tensor_of(s)
            ));
        }
        let input = match crate::inspect::load(&p)? {
            Ok(l) => l,
            Err(e) => {
                out(&format!("{}shard: {s}\n", crate::inspect::fault_lines(&e)))?;
                return Ok(ExitCode::from(1));
            }
        };
        let bytes = input.bytes();
        let ck = match input.checkpoint() {
            Ok(ck) => ck,
            Err(e) if e.code().is_spec_code() => {
                let lines = crate::inspect::fault_lines(&e);
                out(&format!("{}shard: {s}\n", lines))?;
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(Failure::Usage(format!("{}: {e}", p.display()))),
        };
        if let Some(t) = ck.tensors().iter().find(|t| t.name().is_none()) {
            return index_fault(format!(
                "shard {s:?}: tensor #{} has no name, and every tensor of a sharded \
                 checkpoint is named",
                t.index()
            ));
        }
        let names = ck.tensors().iter().filter_map(|t| t.name());
        if let Err(e) = index.check_shard(s, names, &mut seen) {
            return index_fault(e.message().to_string());
        }
        tensors += ck.tensors().len();
        payload += ck.tensors().layout().payload_bytes();
        match inspect {
            Some(true) => docs.push(crate::inspect::document(&p, bytes, &ck)),
            Some(false) => reports.push(crate::inspect::text_report(&p, bytes, &ck)),
            None => {}
        }
    }
    let shards = index.shards().len();
    match inspect {
        None => out(&format!(
            "ok\n{} in {}, {payload} payload bytes (sharded checkpoint)\n",
            plural(tensors, "tensor"),
            plural(shards, "shard")
        ))?,
        Some(true) => {
            let doc = serde_json::json!({
                "format": "kiln-inspect-index",
                "version": 1,
                "index": path.display().to_string(),
                "metadata": index.metadata().cloned().unwrap_or(Value::Null),
                "tensors": tensors,
                "shards": docs,
            });
            let mut text = serde_json::to_string_pretty(&doc)
                .map_err(|e| Failure::Usage(format!("cannot write JSON: {e}")))?;
            text.push('\n');
            out(&text)?;
        }
        Some(false) => {
            let mut text = format!(
                "index: {} ({} in {})\n",
                path.display(),
                plural(tensors, "tensor"),
                plural(shards, "shard")
            );
            for r in reports {
                text.push('\n');
                text.push_str(&r);
            }
            out(&text)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
