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

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Map, Value};

use crate::convert::{kiln_to_safetensors, safetensors_to_kiln, Written};
use crate::progress::progress;
use crate::tempout::TempOut;
use crate::{out, plural, Failure, Format};

/// The largest index file read (model hubs' indexes are well under 1 MiB).
pub const MAX_INDEX: u64 = 64 << 20;

const ST_INDEX: &str = ".safetensors.index.json";
const KILN_INDEX: &str = ".kiln.index.json";

/// True when `path` names a sharded checkpoint's index.
pub fn is_index(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(ST_INDEX) || n.ends_with(KILN_INDEX))
}

/// A parsed index: its format, stem, the whole JSON object and the weight map.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// The format of its shards.
    pub format: Format,
    /// The file name without `.safetensors.index.json` / `.kiln.index.json`.
    pub stem: String,
    /// The whole JSON object.
    pub json: Map<String, Value>,
    /// Tensor name -> shard file name.
    pub weight_map: BTreeMap<String, String>,
}

impl Index {
    /// The shard file names, each once, in byte order.
    pub fn shards(&self) -> BTreeSet<&str> {
        self.weight_map.values().map(String::as_str).collect()
    }

    /// The first tensor the index puts in `shard`.
    fn first_tensor_of(&self, shard: &str) -> &str {
        self.weight_map
            .iter()
            .find(|(_, s)| s.as_str() == shard)
            .map_or("", |(t, _)| t.as_str())
    }
}

fn ext(format: Format) -> &'static str {
    match format {
        Format::Safetensors => ".safetensors",
        Format::Kiln => ".kiln",
    }
}

/// Checks that `name` is a plain file name with the shard extension.
pub fn check_shard_name(name: &str, format: Format) -> Result<(), String> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !Path::new(name).is_absolute();
    if !plain {
        return Err(format!(
            "shard name {name:?} is not a plain file name in the index's directory"
        ));
    }
    if !name.ends_with(ext(format)) || name.len() == ext(format).len() {
        return Err(format!(
            "shard name {name:?} does not end with {}",
            ext(format)
        ));
    }
    Ok(())
}

/// Parses the text of an index whose file name is `file_name`.
///
/// # Errors
///
/// A sentence: not JSON, not an object, no `weight_map` object, a value
/// that is not a string, or a shard name that is not a plain file name
/// with the right extension.
pub fn parse_index(file_name: &str, text: &[u8]) -> Result<Index, String> {
    let (format, stem) = if let Some(s) = file_name.strip_suffix(ST_INDEX) {
        (Format::Safetensors, s)
    } else if let Some(s) = file_name.strip_suffix(KILN_INDEX) {
        (Format::Kiln, s)
    } else {
        return Err(format!(
            "{file_name:?} is not named <stem>{ST_INDEX} or <stem>{KILN_INDEX}"
        ));
    };
    let json: Value = serde_json::from_slice(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let Value::Object(json) = json else {
        return Err("the index is not a JSON object".to_string());
    };
    let Some(Value::Object(wm)) = json.get("weight_map") else {
        return Err("the index has no \"weight_map\" object".to_string());
    };
    let mut weight_map = BTreeMap::new();
    for (tensor, shard) in wm {
        let Value::String(shard) = shard else {
            return Err(format!(
                "weight_map: tensor {tensor:?} maps to {shard}, not a file name"
            ));
        };
        check_shard_name(shard, format).map_err(|e| format!("tensor {tensor:?}: {e}"))?;
        weight_map.insert(tensor.clone(), shard.clone());
    }
    Ok(Index {
        format,
        stem: stem.to_string(),
        json,
        weight_map,
    })
}

/// Reads and parses the index at `path`.
fn read_index(path: &Path) -> Result<(Index, PathBuf), Failure> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Failure::Usage(format!("{}: not a file name", path.display())))?;
    let mut text = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_INDEX + 1).read_to_end(&mut text))
        .map_err(|e| Failure::io(format!("cannot read {}", path.display()), &e))?;
    if text.len() as u64 > MAX_INDEX {
        return Err(Failure::Fault(format!(
            "{}: the index is larger than {MAX_INDEX} bytes",
            path.display()
        )));
    }
    let index = parse_index(name, &text)
        .map_err(|why| Failure::Fault(format!("{}: {why}", path.display())))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((index, dir))
}

/// The shard's tensors against the index: every tensor it holds is mapped
/// to it, and none was seen in an earlier shard.
fn check_shard(
    index: &Index,
    shard: &str,
    names: &[String],
    seen: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    let mut here = BTreeSet::new();
    for n in names {
        if let Some(other) = seen.get(n) {
            return Err(format!(
                "tensor {n:?} is in shard {other:?} and again in shard {shard:?}"
            ));
        }
        match index.weight_map.get(n) {
            None => {
                return Err(format!(
                    "shard {shard:?} holds tensor {n:?}, which the index does not list"
                ))
            }
            Some(s) if s != shard => {
                return Err(format!(
                    "tensor {n:?} is in shard {shard:?}, but the index puts it in {s:?}"
                ))
            }
            Some(_) => {}
        }
        here.insert(n.as_str());
        seen.insert(n.clone(), shard.to_string());
    }
    for (t, s) in &index.weight_map {
        if s == shard && !here.contains(t.as_str()) {
            return Err(format!(
                "tensor {t:?}: the index puts it in shard {shard:?}, which does not hold it"
            ));
        }
    }
    Ok(())
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
    let to = match index.format {
        Format::Safetensors => Format::Kiln,
        Format::Kiln => Format::Safetensors,
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
    let mut rename = BTreeMap::new();
    let mut written: Vec<Written> = Vec::new();
    let pid = std::process::id();
    for s in &shards {
        let base = s.strip_suffix(ext(index.format)).unwrap_or(s);
        let new_name = format!("{base}{}", ext(to));
        let part = out_dir.join(format!(".{new_name}.kiln-part-{pid}"));
        let src = dir.join(s);
        // Listed before the write, so a failure half-way removes it too.
        parts.done.push((part.clone(), out_dir.join(&new_name)));
        let w = match to {
            Format::Kiln => safetensors_to_kiln(&src, &part, false, bar.as_ref())?,
            Format::Safetensors => kiln_to_safetensors(&src, &part, bar.as_ref())?,
        };
        check_shard(&index, s, &w.names, &mut seen)
            .map_err(|why| Failure::Fault(format!("{}: {why}", index_path.display())))?;
        rename.insert(s.clone(), new_name);
        written.push(w);
    }
    // The index: every key kept, weight_map values renamed.
    let mut json = index.json.clone();
    if let Some(Value::Object(wm)) = json.get_mut("weight_map") {
        for v in wm.values_mut() {
            if let Value::String(s) = v {
                if let Some(n) = rename.get(s.as_str()) {
                    *s = n.clone();
                }
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(json))
        .map_err(|e| Failure::Usage(format!("cannot write JSON: {e}")))?;
    text.push('\n');
    let index_name = format!(
        "{}{}",
        index.stem,
        match to {
            Format::Kiln => KILN_INDEX,
            Format::Safetensors => ST_INDEX,
        }
    );
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
    if index.format != Format::Kiln {
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
        let names: Vec<String> = ck
            .tensors()
            .iter()
            .map(|t| t.name().unwrap_or("").to_string())
            .collect();
        if let Err(why) = check_shard(&index, s, &names, &mut seen) {
            return index_fault(why);
        }
        tensors += names.len();
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
                "metadata": index.json.get("metadata").cloned().unwrap_or(Value::Null),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names_are_plain_file_names() {
        for bad in [
            "",
            ".",
            "..",
            "../x.kiln",
            "/etc/x.kiln",
            "a/b.kiln",
            "a\\b.kiln",
            ".kiln",
            "x.safetensors",
        ] {
            assert!(check_shard_name(bad, Format::Kiln).is_err(), "{bad:?}");
        }
        assert!(check_shard_name("model-00001-of-00002.kiln", Format::Kiln).is_ok());
        assert!(check_shard_name("..x.kiln", Format::Kiln).is_ok());
    }

    #[test]
    fn index_parsing() {
        let text = br#"{"metadata":{"total_size":8,"x":[1,{"y":null}]},"weight_map":{"a":"m-1.safetensors"}}"#;
        let i = parse_index("model.safetensors.index.json", text).unwrap();
        assert_eq!(i.stem, "model");
        assert_eq!(i.format, Format::Safetensors);
        assert_eq!(i.weight_map["a"], "m-1.safetensors");
        for (name, text) in [
            ("model.json", &b"{}"[..]),
            ("m.kiln.index.json", b"[]"),
            ("m.kiln.index.json", b"{\"weight_map\":{\"a\":1}}"),
            (
                "m.kiln.index.json",
                b"{\"weight_map\":{\"a\":\"../a.kiln\"}}",
            ),
            ("m.kiln.index.json", b"{\"metadata\":{}}"),
            ("m.kiln.index.json", b"{"),
        ] {
            assert!(parse_index(name, text).is_err(), "{name} {text:?}");
        }
    }

    #[test]
    fn shard_contents_against_the_index() {
        let i = parse_index(
            "m.kiln.index.json",
            br#"{"weight_map":{"a":"1.kiln","b":"1.kiln","c":"2.kiln"}}"#,
        )
        .unwrap();
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let mut seen = BTreeMap::new();
        assert!(check_shard(&i, "1.kiln", &s(&["a", "b"]), &mut seen).is_ok());
        let e = check_shard(&i, "2.kiln", &s(&["c", "a"]), &mut seen).unwrap_err();
        assert!(e.contains("\"a\" is in shard \"1.kiln\" and again"), "{e}");
        let e = check_shard(&i, "2.kiln", &s(&["d"]), &mut BTreeMap::new()).unwrap_err();
        assert!(e.contains("does not list"), "{e}");
        let e = check_shard(&i, "2.kiln", &s(&["a"]), &mut BTreeMap::new()).unwrap_err();
        assert!(e.contains("puts it in \"1.kiln\""), "{e}");
        let e = check_shard(&i, "2.kiln", &s(&[]), &mut BTreeMap::new()).unwrap_err();
        assert!(e.contains("\"c\": the index puts it in shard"), "{e}");
    }
}
