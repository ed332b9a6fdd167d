//! [`TensorsFile`]: a tensor file mapped into memory (feature `mmap`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use super::kind::{parse, FileKind};
use super::model::CheckpointView;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::tensors::{Layout, TensorsView};

/// A tensor file of any kind (checkpoint, framed or bare directory) mapped
/// read-only and validated once, so that its tensors are borrowed from the
/// page cache with no copy.
///
/// [`open`](Self::open) validates the frame, the metadata, the header,
/// every descriptor and the name heap, and scans the pad and the gaps
/// between payloads (each under 64 bytes): it reads the first pages of the
/// file and at most the one or two pages around each payload boundary,
/// never a payload itself (except the last byte of an odd packed 4-bit
/// tensor). During validation the mapping is advised for random access, so
/// the kernel does not map neighbouring pages around each boundary; then it
/// is set back to normal (sequential read-ahead for the payloads).
///
/// # The mapped file must not change
///
/// Truncating or rewriting a file while a `TensorsFile` of it is open is
/// undefined behaviour: an access past a truncated end raises SIGBUS, and a
/// rewrite changes bytes that were validated (as with memmap2 and
/// safetensors). Writers in this crate and the `kiln` tool write a
/// temporary file and rename it over the target, which is safe: an open
/// mapping keeps the old file.
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{TensorSpec, TensorsBuilder}, TensorsFile};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::from_slice(&[3], &[1.0f32, 2.0, 3.0]).named("w"));
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("w.kiln");
/// std::fs::write(&path, b.build().unwrap().as_bytes()).unwrap();
///
/// let file = TensorsFile::open(&path).unwrap();
/// let w = file.view().by_name("w").unwrap();
/// assert_eq!(w.try_as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0]);
/// assert!(file.metadata().is_empty());
/// ```
pub struct TensorsFile {
    map: memmap2::Mmap,
    kind: FileKind,
    metadata: BTreeMap<String, String>,
    dir_start: usize,
    layout: Layout,
}

impl TensorsFile {
    /// Maps and validates `path` with the default [`Limits`].
    ///
    /// # Errors
    ///
    /// IO when the file cannot be opened or mapped; otherwise as
    /// [`CheckpointView::from_bytes`] (offsets from the file start).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, &Limits::default())
    }

    /// Maps and validates `path` with these caps.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let file = File::open(path.as_ref()).map_err(|e| Error::io(e, None))?;
        let map = crate::raw::map_file(&file).map_err(|e| Error::io(e, None))?;
        drop(file);
        advise(&map, true);
        let parsed = parse(&map, limits);
        advise(&map, false);
        let p = parsed?;
        let kind = p.kind;
        let metadata = p
            .metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let layout = p.tensors.layout().clone();
        let dir_start = map.len() - p.tensors.as_bytes().len().min(map.len());
        Ok(TensorsFile {
            kind,
            metadata,
            dir_start,
            layout,
            map,
        })
    }

    /// The directory (payloads borrowed from the mapping). Payload
    /// addresses are 64-aligned in memory when the directory starts at a
    /// multiple of 64 in the file (a bare directory does; a framed one
    /// starts at 16, a checkpoint after its metadata), so typed access may
    /// need [`TensorView::to_vec`](crate::tensors::TensorView::to_vec).
    pub fn view(&self) -> TensorsView<'_> {
        let block = self.map.get(self.dir_start..).unwrap_or_default();
        TensorsView::from_parts(block, &self.layout)
    }

    /// The metadata and the directory.
    pub fn checkpoint(&self) -> CheckpointView<'_> {
        CheckpointView {
            kind: self.kind,
            metadata: self
                .metadata
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            tensors: self.view(),
        }
    }

    /// The metadata (empty for a directory file).
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// Which kind of file it is.
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// The whole file.
    pub fn as_bytes(&self) -> &[u8] {
        &self.map
    }
}

impl std::fmt::Debug for TensorsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorsFile")
            .field("kind", &self.kind)
            .field("len", &self.map.len())
            .field("metadata", &self.metadata)
            .field("layout", &self.layout)
            .finish()
    }
}

/// Random access while validating (no fault-around, no read-ahead), then
/// normal. Advice is a hint: an error is ignored.
fn advise(map: &memmap2::Mmap, random: bool) {
    #[cfg(unix)]
    {
        let a = if random {
            memmap2::Advice::Random
        } else {
            memmap2::Advice::Normal
        };
        if !map.is_empty() {
            let _ = map.advise(a);
        }
    }
    #[cfg(not(unix))]
    let _ = (map, random);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::write_head;
    use crate::error::ErrorCode;
    use crate::tensors::{Dtype, TensorSpec, TensorsBuilder, TensorsWriter};

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn all_three_kinds_and_faults() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[2], &[3u8, 4]).named("x"));
        let t = b.build().unwrap();
        let bare = write(dir.path(), "bare.kiln", t.as_bytes());
        let f = TensorsFile::open(&bare).unwrap();
        assert_eq!(f.kind(), FileKind::Bare);
        assert_eq!(f.view().by_name("x").unwrap().data(), &[3, 4]);

        let mut framed = crate::frame::encode(Some(crate::checkpoint::TENSORS_HASH)).to_vec();
        framed.extend_from_slice(t.as_bytes());
        let f = TensorsFile::open(write(dir.path(), "f.kiln", &framed)).unwrap();
        assert_eq!(f.kind(), FileKind::Framed);
        assert_eq!(f.view(), t.view());

        let meta = BTreeMap::from([("a".to_string(), "b".to_string())]);
        let mut ck = write_head(&meta).unwrap();
        ck.extend_from_slice(t.as_bytes());
        let f = TensorsFile::open(write(dir.path(), "c.kiln", &ck)).unwrap();
        assert_eq!(f.kind(), FileKind::Checkpoint);
        assert_eq!(f.metadata(), &meta);
        assert_eq!(f.checkpoint().metadata().get("a"), Some(&"b"));
        assert_eq!(f.view().by_name("x").unwrap().data(), &[3, 4]);

        // Faults carry the offset from the file start.
        ck[16 + 4 + 4 + 1 + 4 + 1 + 4] = b'X';
        let e = TensorsFile::open(write(dir.path(), "bad.kiln", &ck)).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Frame, Some(34)));
        let e = TensorsFile::open(write(dir.path(), "empty.kiln", &[])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof);
        let e = TensorsFile::open(dir.path().join("missing.kiln")).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
    }

    /// Resident set size of this process in KiB (Linux).
    fn rss_kib() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// A 1 GiB checkpoint of 1,000 tensors (sparse on disk: the payloads
    /// read as zeros) opens with a small, bounded growth of resident
    /// memory: the payload pages are not touched.
    #[test]
    fn opening_a_large_file_touches_few_pages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.kiln");
        let specs: Vec<TensorSpec<'static>> = (0..1000u64)
            .map(|i| {
                // Odd lengths, so that every gap is nonempty and scanned.
                let n = 1_100_001 + (i % 63);
                TensorSpec::declared(Dtype::U8, &[n], n).named(format!("layer.{i:04}.weight"))
            })
            .collect();
        let head = write_head(&BTreeMap::from([("format".into(), "pt".into())])).unwrap();
        let mut file = File::create(&path).unwrap();
        std::io::Write::write_all(&mut file, &head).unwrap();
        let w = TensorsWriter::new(&mut file, specs, &Limits::default()).unwrap();
        let total = head.len() as u64 + w.block_len();
        drop(w);
        file.set_len(total).unwrap();
        drop(file);
        assert!(total > 1 << 30);

        let before = rss_kib();
        let f = TensorsFile::open(&path).unwrap();
        let v = f.view();
        for i in (0..1000).step_by(7) {
            assert!(v.by_name(&format!("layer.{i:04}.weight")).is_some());
        }
        let after = rss_kib();
        if let (Some(a), Some(b)) = (before, after) {
            let grown = b.saturating_sub(a);
            eprintln!("open + 143 lookups of a {total}-byte file: RSS +{grown} KiB");
            // 1,000 boundaries of at most two 4 KiB pages each, plus the
            // metadata: under 16 MiB even with the largest kernel pages.
            assert!(grown < 16 * 1024, "RSS grew by {grown} KiB");
        }
        assert_eq!(f.metadata()["format"], "pt");
        assert_eq!(v.len(), 1000);
    }
}
