//! Sharded checkpoints (spec 9; feature `shards`): an index file
//! `<stem>.safetensors.index.json` or `<stem>.kiln.index.json` beside its
//! shard files.
//!
//! The index is JSON: `{"metadata": {...}, "weight_map": {"<tensor>":
//! "<shard file>", ...}}`. [`ShardIndex`] keeps the whole object as it is
//! (the `metadata` values are any JSON) and reads the weight map out of
//! it. A shard name must be a plain file name in the index's directory:
//! empty, `.`, `..`, an absolute path or a path separator is an error, so
//! nothing is read outside that directory. [`ShardedFile`] maps every shard
//! of a Kiln index and checks each against the index.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::file::TensorsFile;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use crate::tensors::TensorView;

/// The largest index file read (model hubs' indexes are well under 1 MiB).
pub const MAX_INDEX: u64 = 64 << 20;

/// The two kinds of shard an index can list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShardFormat {
    /// safetensors shards, `<stem>.safetensors.index.json`.
    Safetensors,
    /// Kiln checkpoint shards, `<stem>.kiln.index.json`.
    Kiln,
}

impl ShardFormat {
    /// The shard file extension with its dot: `.safetensors` or `.kiln`.
    pub fn extension(self) -> &'static str {
        match self {
            ShardFormat::Safetensors => ".safetensors",
            ShardFormat::Kiln => ".kiln",
        }
    }

    /// The end of an index file name: `.safetensors.index.json` or
    /// `.kiln.index.json`.
    pub fn index_suffix(self) -> &'static str {
        match self {
            ShardFormat::Safetensors => ".safetensors.index.json",
            ShardFormat::Kiln => ".kiln.index.json",
        }
    }

    /// The format of an index file name, and its stem.
    fn of_index(file_name: &str) -> Option<(Self, &str)> {
        [ShardFormat::Safetensors, ShardFormat::Kiln]
            .into_iter()
            .find_map(|f| Some((f, file_name.strip_suffix(f.index_suffix())?)))
    }
}

/// True when the file name of `path` names a sharded checkpoint's index.
pub fn is_index(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(ShardFormat::of_index)
        .is_some()
}

/// A fault of an index or of a shard against it: TYPE, no offset.
fn fault(message: String) -> Error {
    Error::new(ErrorCode::Type, None, message)
}

/// Checks that `name` is a plain file name with the extension of `format`.
///
/// # Errors
///
/// TYPE when it is empty, `.`, `..`, absolute, holds a path separator or
/// NUL, or does not end with the extension (after at least one byte).
pub fn check_shard_name(name: &str, format: ShardFormat) -> Result<()> {
    let plain = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !Path::new(name).is_absolute();
    if !plain {
        return Err(fault(format!(
            "shard name {name:?} is not a plain file name in the index's directory"
        )));
    }
    let ext = format.extension();
    if !name.ends_with(ext) || name.len() == ext.len() {
        return Err(fault(format!(
            "shard name {name:?} does not end with {ext}"
        )));
    }
    Ok(())
}

/// A parsed index: its format and stem (from the file name), the whole
/// JSON object, and the weight map read out of it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardIndex {
    format: ShardFormat,
    stem: String,
    json: Map<String, Value>,
    weight_map: BTreeMap<String, String>,
}

impl ShardIndex {
    /// Parses the text of an index whose file name is `file_name`.
    ///
    /// # Errors
    ///
    /// TYPE: a file name not ending in an index suffix, text that is not
    /// JSON or not an object, no `weight_map` object, a value that is not a
    /// string, or a shard name that is not a plain file name with the
    /// format's extension.
    pub fn parse(file_name: &str, text: &[u8]) -> Result<Self> {
        let Some((format, stem)) = ShardFormat::of_index(file_name) else {
            return Err(fault(format!(
                "{file_name:?} is not named <stem>{} or <stem>{}",
                ShardFormat::Safetensors.index_suffix(),
                ShardFormat::Kiln.index_suffix()
            )));
        };
        let json: Value =
            serde_json::from_slice(text).map_err(|e| fault(format!("invalid JSON: {e}")))?;
        let Value::Object(json) = json else {
            return Err(fault("the index is not a JSON object".to_string()));
        };
        let Some(Value::Object(wm)) = json.get("weight_map") else {
            return Err(fault("the index has no \"weight_map\" object".to_string()));
        };
        let mut weight_map = BTreeMap::new();
        for (tensor, shard) in wm {
            let Value::String(shard) = shard else {
                return Err(fault(format!(
                    "weight_map: tensor {tensor:?} maps to {shard}, not a file name"
                )));
            };
            check_shard_name(shard, format)
                .map_err(|e| fault(format!("tensor {tensor:?}: {}", e.message())))?;
            weight_map.insert(tensor.clone(), shard.clone());
        }
        Ok(ShardIndex {
            format,
            stem: stem.to_string(),
            json,
            weight_map,
        })
    }

    /// Reads and parses the index file at `path` (at most [`MAX_INDEX`]
    /// bytes).
    ///
    /// # Errors
    ///
    /// IO when it cannot be read; LIMIT when it is larger than
    /// [`MAX_INDEX`]; otherwise as [`parse`](Self::parse).
    pub fn read(path: &Path) -> Result<Self> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let mut text = Vec::new();
        File::open(path)
            .and_then(|f| f.take(MAX_INDEX + 1).read_to_end(&mut text))
            .map_err(|e| Error::io(e, None))?;
        if text.len() as u64 > MAX_INDEX {
            return Err(Error::new(
                ErrorCode::Limit,
                None,
                format!("the index is larger than {MAX_INDEX} bytes"),
            ));
        }
        Self::parse(name, &text)
    }

    /// The format of the shards it lists.
    pub fn format(&self) -> ShardFormat {
        self.format
    }

    /// The file name without its index suffix (`model`).
    pub fn stem(&self) -> &str {
        &self.stem
    }

    /// The index's file name: the stem and the format's index suffix.
    pub fn file_name(&self) -> String {
        format!("{}{}", self.stem, self.format.index_suffix())
    }

    /// The whole JSON object, every key as read.
    pub fn json(&self) -> &Map<String, Value> {
        &self.json
    }

    /// The `metadata` value, when there is one (any JSON).
    pub fn metadata(&self) -> Option<&Value> {
        self.json.get("metadata")
    }

    /// Tensor name -> shard file name.
    pub fn weight_map(&self) -> &BTreeMap<String, String> {
        &self.weight_map
    }

    /// The shard file names, each once, in byte order.
    pub fn shards(&self) -> BTreeSet<&str> {
        self.weight_map.values().map(String::as_str).collect()
    }

    /// The first tensor (in name order) the index puts in `shard`, for
    /// messages; empty when none.
    pub fn first_tensor_of(&self, shard: &str) -> &str {
        self.weight_map
            .iter()
            .find(|(_, s)| s.as_str() == shard)
            .map_or("", |(t, _)| t.as_str())
    }

    /// The name `shard` gets in the other format: its extension swapped.
    pub fn converted_shard_name(&self, shard: &str) -> String {
        let base = shard.strip_suffix(self.format.extension()).unwrap_or(shard);
        format!("{base}{}", self.other().extension())
    }

    fn other(&self) -> ShardFormat {
        match self.format {
            ShardFormat::Safetensors => ShardFormat::Kiln,
            ShardFormat::Kiln => ShardFormat::Safetensors,
        }
    }

    /// The index of the same checkpoint in the other format: every key
    /// kept as it is, each `weight_map` value's extension swapped.
    pub fn converted(&self) -> ShardIndex {
        let mut json = self.json.clone();
        if let Some(Value::Object(wm)) = json.get_mut("weight_map") {
            for v in wm.values_mut() {
                if let Value::String(s) = v {
                    *s = self.converted_shard_name(s);
                }
            }
        }
        ShardIndex {
            format: self.other(),
            stem: self.stem.clone(),
            json,
            weight_map: self
                .weight_map
                .iter()
                .map(|(t, s)| (t.clone(), self.converted_shard_name(s)))
                .collect(),
        }
    }

    /// The index as pretty JSON text with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.json).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Checks one shard's tensor `names` against the index: every tensor
    /// it holds is mapped to it, it holds every tensor mapped to it, and
    /// none was seen in an earlier shard (`seen`: tensor -> shard, updated).
    ///
    /// # Errors
    ///
    /// TYPE naming the tensor and the shard.
    pub fn check_shard<'n>(
        &self,
        shard: &str,
        names: impl IntoIterator<Item = &'n str>,
        seen: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        let mut here = BTreeSet::new();
        for n in names {
            if let Some(other) = seen.get(n) {
                return Err(fault(format!(
                    "tensor {n:?} is in shard {other:?} and again in shard {shard:?}"
                )));
            }
            match self.weight_map.get(n) {
                None => {
                    return Err(fault(format!(
                        "shard {shard:?} holds tensor {n:?}, which the index does not list"
                    )))
                }
                Some(s) if s != shard => {
                    return Err(fault(format!(
                        "tensor {n:?} is in shard {shard:?}, but the index puts it in {s:?}"
                    )))
                }
                Some(_) => {}
            }
            here.insert(n);
            seen.insert(n.to_string(), shard.to_string());
        }
        for (t, s) in &self.weight_map {
            if s == shard && !here.contains(t.as_str()) {
                return Err(fault(format!(
                    "tensor {t:?}: the index puts it in shard {shard:?}, which does not hold it"
                )));
            }
        }
        Ok(())
    }
}

/// The directory an index file sits in.
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A sharded Kiln checkpoint: its index and every shard mapped with
/// [`TensorsFile`], each checked against the index when opened (one open
/// descriptor and one mapping per shard).
///
/// # Examples
///
/// ```
/// use std::collections::BTreeMap;
/// use kiln_serde::checkpoint::{Checkpoint, ShardedFile};
/// use kiln_serde::tensors::{TensorSpec, TensorsBuilder};
///
/// let dir = tempfile::tempdir().unwrap();
/// for (shard, name) in [("m-1.kiln", "a"), ("m-2.kiln", "b")] {
///     let mut b = TensorsBuilder::new();
///     b.push(TensorSpec::from_slice(&[2], &[1u8, 2]).named(name));
///     let ck = Checkpoint::new(BTreeMap::new(), b.build().unwrap()).unwrap();
///     std::fs::write(dir.path().join(shard), ck.to_vec().unwrap()).unwrap();
/// }
/// let index = r#"{"metadata":{"total_size":4},"weight_map":{"a":"m-1.kiln","b":"m-2.kiln"}}"#;
/// let path = dir.path().join("m.kiln.index.json");
/// std::fs::write(&path, index).unwrap();
///
/// let model = ShardedFile::open(&path).unwrap();
/// assert_eq!(model.len(), 2);
/// let b = model.by_name("b").unwrap().expect("tensor b");
/// assert_eq!(b.data(), &[1, 2]);
/// assert_eq!(model.index().metadata().unwrap()["total_size"], 4);
/// ```
pub struct ShardedFile {
    index: ShardIndex,
    shards: BTreeMap<String, TensorsFile>,
}

impl ShardedFile {
    /// Opens the Kiln index at `path` and every shard it lists, with the
    /// default [`Limits`].
    ///
    /// # Errors
    ///
    /// As [`open_with`](Self::open_with).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, &Limits::default())
    }

    /// Opens the Kiln index at `path` and maps every shard it lists (each
    /// validated as [`TensorsFile::open_with`] does), checking each
    /// shard's tensors against the weight map.
    ///
    /// # Errors
    ///
    /// As [`ShardIndex::read`]; TYPE for a safetensors index; IO naming a
    /// tensor and its shard when a shard file is missing; a shard's own
    /// fault (its code and offset in the shard) with the shard named in
    /// the message; TYPE naming the tensor
    /// and the shard when a tensor is in the wrong shard, in two shards,
    /// or in no shard the index lists.
    pub fn open_with(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let path = path.as_ref();
        let index = ShardIndex::read(path)?;
        if index.format != ShardFormat::Kiln {
            return Err(fault(format!(
                "{}: a safetensors index; convert it first (`kiln convert`)",
                index.file_name()
            )));
        }
        let dir = dir_of(path);
        let mut seen = BTreeMap::new();
        let mut shards = BTreeMap::new();
        for s in index.shards() {
            let file = TensorsFile::open_with(dir.join(s), limits).map_err(|e| {
                let what = format!("shard {s:?} (tensor {:?})", index.first_tensor_of(s));
                if e.code() == ErrorCode::Io {
                    if let Some(io) = e.into_io_error() {
                        let msg = format!("{what}: {io}");
                        return Error::io(io::Error::new(io.kind(), msg), None);
                    }
                    return fault(what);
                }
                // The shard's own fault, its code and offset kept.
                Error::new(e.code(), e.offset(), format!("{what}: {}", e.message()))
            })?;
            // The descriptors are validated: names come from the heap. A
            // shard is a checkpoint (spec 9), so every tensor is named; an
            // unnamed one in a bare or framed directory would otherwise
            // match a weight-map entry for "".
            let view = crate::tensors::TensorsView::from_parts(file.block(), file.layout());
            let mut names = Vec::with_capacity(view.len());
            for t in view.iter() {
                match t.name() {
                    Some(n) => names.push(n),
                    None => {
                        return Err(fault(format!(
                            "shard {s:?}: tensor #{} has no name, and every tensor of a \
                             sharded checkpoint is named",
                            t.index()
                        )))
                    }
                }
            }
            index.check_shard(s, names, &mut seen)?;
            shards.insert(s.to_string(), file);
        }
        Ok(ShardedFile { index, shards })
    }

    /// The index.
    pub fn index(&self) -> &ShardIndex {
        &self.index
    }

    /// The shards by file name, in byte order.
    pub fn shards(&self) -> &BTreeMap<String, TensorsFile> {
        &self.shards
    }

    /// The number of tensors over all shards.
    pub fn len(&self) -> usize {
        self.index.weight_map.len()
    }

    /// True when the index lists no tensor.
    pub fn is_empty(&self) -> bool {
        self.index.weight_map.is_empty()
    }

    /// The tensor named `name`, from the shard the index puts it in, as
    /// [`TensorsFile::by_name`] returns it (`Ok(None)` when there is none).
    ///
    /// # Errors
    ///
    /// As [`TensorsFile::by_name`].
    pub fn by_name(&self, name: &str) -> Result<Option<TensorView<'_>>> {
        let Some(file) = self
            .index
            .weight_map
            .get(name)
            .and_then(|s| self.shards.get(s))
        else {
            return Ok(None);
        };
        file.by_name(name)
    }
}

impl std::fmt::Debug for ShardedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedFile")
            .field("index", &self.index.file_name())
            .field("shards", &self.shards.keys().collect::<Vec<_>>())
            .field("tensors", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::Checkpoint;
    use crate::tensors::{TensorSpec, TensorsBuilder};

    #[test]
    fn sharded_file_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<ShardedFile>();
        check::<ShardIndex>();
    }

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
            "a\0.kiln",
            ".kiln",
            "x.safetensors",
        ] {
            let e = check_shard_name(bad, ShardFormat::Kiln).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Type, "{bad:?}");
        }
        assert!(check_shard_name("model-00001-of-00002.kiln", ShardFormat::Kiln).is_ok());
        assert!(check_shard_name("..x.kiln", ShardFormat::Kiln).is_ok());
        assert!(check_shard_name("m.safetensors", ShardFormat::Safetensors).is_ok());
    }

    #[test]
    fn index_parsing_and_conversion() {
        let text = br#"{"metadata":{"total_size":8,"x":[1,{"y":null}]},"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors"},"extra":true}"#;
        let i = ShardIndex::parse("model.safetensors.index.json", text).unwrap();
        assert_eq!(i.stem(), "model");
        assert_eq!(i.format(), ShardFormat::Safetensors);
        assert_eq!(i.weight_map()["a"], "m-1.safetensors");
        assert_eq!(i.first_tensor_of("m-2.safetensors"), "b");
        assert_eq!(i.shards().len(), 2);
        let k = i.converted();
        assert_eq!(k.format(), ShardFormat::Kiln);
        assert_eq!(k.file_name(), "model.kiln.index.json");
        assert_eq!(k.weight_map()["b"], "m-2.kiln");
        assert_eq!(k.json()["weight_map"]["b"], "m-2.kiln");
        assert_eq!(k.metadata(), i.metadata());
        assert_eq!(k.json()["extra"], true);
        let back = ShardIndex::parse(&k.file_name(), k.to_json().as_bytes()).unwrap();
        assert_eq!(back.converted(), i);
        for (name, text) in [
            ("model.json", &b"{}"[..]),
            ("m.kiln.index.json", b"[]"),
            ("m.kiln.index.json", b"{\"weight_map\":{\"a\":1}}"),
            (
                "m.kiln.index.json",
                b"{\"weight_map\":{\"a\":\"../a.kiln\"}}",
            ),
            ("m.kiln.index.json", b"{\"weight_map\":{\"a\":\"/a.kiln\"}}"),
            ("m.kiln.index.json", b"{\"metadata\":{}}"),
            ("m.kiln.index.json", b"{"),
        ] {
            let e = ShardIndex::parse(name, text).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Type, "{name} {text:?}");
        }
        assert!(is_index(Path::new("a/b.kiln.index.json")));
        assert!(!is_index(Path::new("a/b.index.json")));
    }

    #[test]
    fn shard_contents_against_the_index() {
        let i = ShardIndex::parse(
            "m.kiln.index.json",
            br#"{"weight_map":{"a":"1.kiln","b":"1.kiln","c":"2.kiln"}}"#,
        )
        .unwrap();
        let msg = |r: Result<()>| r.unwrap_err().message().to_string();
        let mut seen = BTreeMap::new();
        assert!(i.check_shard("1.kiln", ["a", "b"], &mut seen).is_ok());
        let e = msg(i.check_shard("2.kiln", ["c", "a"], &mut seen));
        assert!(e.contains("\"a\" is in shard \"1.kiln\" and again"), "{e}");
        let e = msg(i.check_shard("2.kiln", ["d"], &mut BTreeMap::new()));
        assert!(e.contains("does not list"), "{e}");
        let e = msg(i.check_shard("2.kiln", ["a"], &mut BTreeMap::new()));
        assert!(e.contains("puts it in \"1.kiln\""), "{e}");
        let e = msg(i.check_shard("2.kiln", [], &mut BTreeMap::new()));
        assert!(e.contains("\"c\": the index puts it in shard"), "{e}");
    }

    fn shard(dir: &Path, file: &str, names: &[&str]) {
        let mut b = TensorsBuilder::new();
        for (k, n) in names.iter().enumerate() {
            b.push(TensorSpec::new(crate::tensors::Dtype::U8, &[1], vec![k as u8]).named(*n));
        }
        let ck = Checkpoint::new(BTreeMap::new(), b.build().unwrap()).unwrap();
        std::fs::write(dir.join(file), ck.to_vec().unwrap()).unwrap();
    }

    fn index(dir: &Path, map: &str) -> PathBuf {
        let p = dir.join("m.kiln.index.json");
        std::fs::write(&p, format!(r#"{{"metadata":{{}},"weight_map":{{{map}}}}}"#)).unwrap();
        p
    }

    #[test]
    fn sharded_file_opens_and_names_tensor_and_shard_in_faults() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        shard(d, "1.kiln", &["a", "b"]);
        shard(d, "2.kiln", &["c"]);
        let p = index(d, r#""a":"1.kiln","b":"1.kiln","c":"2.kiln""#);
        let f = ShardedFile::open(&p).unwrap();
        assert_eq!((f.len(), f.shards().len()), (3, 2));
        assert_eq!(f.by_name("b").unwrap().unwrap().data(), &[1]);
        assert_eq!(f.by_name("c").unwrap().unwrap().data(), &[0]);
        assert!(f.by_name("z").unwrap().is_none());

        let fault = |map: &str| {
            let e = ShardedFile::open(index(d, map)).unwrap_err();
            (e.code(), e.message().to_string())
        };
        let (code, m) = fault(r#""a":"1.kiln","b":"1.kiln","c":"3.kiln""#);
        assert_eq!(code, ErrorCode::Io, "{m}");
        assert!(m.contains("shard \"3.kiln\" (tensor \"c\")"), "{m}");
        let (code, m) = fault(r#""a":"1.kiln","b":"2.kiln","c":"2.kiln""#);
        assert_eq!(code, ErrorCode::Type);
        assert!(m.contains("tensor \"b\" is in shard \"1.kiln\""), "{m}");
        let (_, m) = fault(r#""a":"1.kiln","c":"2.kiln""#);
        assert!(
            m.contains("holds tensor \"b\", which the index does not list"),
            "{m}"
        );
        shard(d, "3.kiln", &["c"]);
        let (_, m) = fault(r#""a":"1.kiln","b":"1.kiln","c":"2.kiln","d":"3.kiln""#);
        assert!(
            m.contains("\"c\" is in shard \"2.kiln\" and again in shard \"3.kiln\""),
            "{m}"
        );
        let (code, _) = fault(r#""a":"../1.kiln""#);
        assert_eq!(code, ErrorCode::Type);
        // A shard's own fault keeps its code and offset, the shard named.
        std::fs::write(d.join("4.kiln"), b"KDIR").unwrap();
        let e = ShardedFile::open(index(d, r#""a":"4.kiln""#)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof);
        assert!(e.message().starts_with("shard \"4.kiln\""), "{e}");
        // An unnamed tensor in a (bare) shard is refused, even when the
        // weight map lists the empty name.
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::new(crate::tensors::Dtype::U8, &[1], vec![1u8]));
        std::fs::write(d.join("5.kiln"), b.build().unwrap().as_bytes()).unwrap();
        let (code, m) = fault(r#""":"5.kiln""#);
        assert_eq!(code, ErrorCode::Type);
        assert!(m.contains("shard \"5.kiln\": tensor #0 has no name"), "{m}");
        // A safetensors index is refused.
        let st = d.join("m.safetensors.index.json");
        std::fs::write(&st, r#"{"weight_map":{"a":"1.safetensors"}}"#).unwrap();
        assert_eq!(ShardedFile::open(&st).unwrap_err().code(), ErrorCode::Type);
    }
}
