//! [`TensorsFile`]: a tensor file mapped into memory (feature `mmap`).

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::OnceLock;

use super::kind::{check_named, prefix, FileKind};
use super::model::CheckpointView;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use crate::tensors::{check_meta, Layout, TensorView, TensorsView, FULL};

/// A tensor file of any kind (checkpoint, framed or bare directory) mapped
/// read-only, so that its tensors are borrowed from the page cache with no
/// copy.
///
/// [`open`](Self::open) validates everything before the payload region
/// exactly as [`CheckpointView::from_bytes`] does: the frame, the metadata,
/// the header, every descriptor, the name heap and the pad (the first
/// pages of the file). It reads no byte of the payload region, so opening
/// is flat in payload size and maps no payload page.
///
/// The payload region holds two kinds of bytes a decoder must still check
/// (spec 5.7 and 5.3): the zero gaps between payloads (each under 64
/// bytes) and the unused high nibble of an odd packed 4-bit tensor. They
/// are checked before any tensor is handed out:
///
/// * [`by_name`](Self::by_name) checks the one tensor it returns: the gap
///   before it and its nibble, read through the mapping (the gap ends where
///   the tensor's payload starts, on a page the caller is about to read);
/// * [`view`](Self::view) and [`checkpoint`](Self::checkpoint) check every
///   gap once (the result is kept), with a positioned read (`pread`) of
///   those few bytes rather than through the mapping: a page fault there
///   makes the kernel map up to 16 neighbouring cached pages
///   ("fault-around"), so 1,000 gaps would cost 1,000 faults and up to
///   64 MiB of resident memory. A file with a nonzero gap anywhere yields
///   no view, as [`CheckpointView::from_bytes`] yields none.
///
/// A `TensorsFile` keeps its file open (one descriptor, for the positioned
/// reads of `view`) as well as mapped, and can be shared between threads.
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
/// let w = file.by_name("w").unwrap().expect("a tensor named w");
/// assert_eq!(w.try_as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0]);
/// assert_eq!(file.view().unwrap().len(), 1);
/// assert!(file.metadata().is_empty());
/// ```
pub struct TensorsFile {
    map: memmap2::Mmap,
    kind: FileKind,
    metadata: BTreeMap<String, String>,
    dir_start: usize,
    layout: Layout,
    /// Kept open for the positioned reads of the gap bytes.
    file: File,
    /// The whole-file gap scan, once: `None` when every gap is zero.
    scanned: OnceLock<Option<Error>>,
}

impl TensorsFile {
    /// Maps and validates `path` with the default [`Limits`].
    ///
    /// # Errors
    ///
    /// IO when the file cannot be opened or mapped; otherwise as
    /// [`CheckpointView::from_bytes`] for every byte before the payload
    /// region (offsets from the file start).
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
        let bytes: &[u8] = &map;
        let p = prefix(bytes, limits)?;
        let dir_start = p.dir_start;
        let shift = |e: Error| e.shifted(dir_start as u64);
        let dir = bytes.get(dir_start..).unwrap_or_default();
        let layout = check_meta(dir, dir.len() as u64, limits, FULL).map_err(shift)?;
        if layout.block_len() != dir.len() {
            return Err(Error::at(
                ErrorCode::Trailing,
                (dir_start + layout.block_len()) as u64,
                format!(
                    "{} bytes after the directory block",
                    dir.len().saturating_sub(layout.block_len())
                ),
            ));
        }
        if p.kind == FileKind::Checkpoint {
            check_named(&TensorsView::from_parts(dir, &layout), dir_start as u64)?;
        }
        let kind = p.kind;
        let metadata = p
            .metadata
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Ok(TensorsFile {
            kind,
            metadata,
            dir_start,
            layout,
            map,
            file,
            scanned: OnceLock::new(),
        })
    }

    /// The directory block (the file from the directory's first byte).
    pub(crate) fn block(&self) -> &[u8] {
        self.map.get(self.dir_start..).unwrap_or_default()
    }

    /// The validated placement of the directory.
    #[cfg(feature = "shards")]
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The tensor named `name` (`Ok(None)` when there is none), after
    /// checking the payload-region bytes that belong to it: the gap before
    /// its payload and, for an odd packed 4-bit tensor, the unused nibble
    /// (through the mapping). The rest of its payload is borrowed, not read.
    ///
    /// # Errors
    ///
    /// TYPE at the first nonzero gap or nibble byte (offset from the file
    /// start).
    pub fn by_name(&self, name: &str) -> Result<Option<TensorView<'_>>> {
        let view = TensorsView::from_parts(self.block(), &self.layout);
        let Some(t) = view.by_name(name) else {
            return Ok(None);
        };
        let before = match t.index().checked_sub(1).and_then(|i| view.get(i)) {
            Some(prev) => prev.byte_offset() + prev.byte_length(),
            None => 0,
        };
        // Through the mapping: the gap ends where the tensor's payload
        // starts, on the page a caller of `by_name` is about to read (or
        // the one before), so a fault here is one the caller would take.
        let block = self.block();
        let mut read = |at: u64, out: &mut [u8]| read_mapped(block, at, out);
        check_tensor(&mut read, &self.layout, &t, before)
            .map_err(|e| e.shifted(self.dir_start as u64))?;
        Ok(Some(t))
    }

    /// The directory (payloads borrowed from the mapping), after checking
    /// every gap and nibble of the payload region once. Payload addresses
    /// are 64-aligned in memory when the directory starts at a multiple of
    /// 64 in the file (a bare directory does; a framed one starts at 16, a
    /// checkpoint after its metadata), so typed access may need
    /// [`TensorView::to_vec`].
    ///
    /// # Errors
    ///
    /// As [`by_name`](Self::by_name), for the first faulty tensor, or IO
    /// when a positioned read fails; the same error again on every later
    /// call.
    pub fn view(&self) -> Result<TensorsView<'_>> {
        let base = self.dir_start as u64;
        let scanned = self.scanned.get_or_init(|| {
            scan_gaps(&self.file, base, self.block(), &self.layout)
                .err()
                .map(|e| e.shifted(base))
        });
        match scanned {
            None => Ok(TensorsView::from_parts(self.block(), &self.layout)),
            Some(e) => Err(Error::new(e.code(), e.offset(), e.message())),
        }
    }

    /// The metadata and the directory.
    ///
    /// # Errors
    ///
    /// As [`view`](Self::view).
    pub fn checkpoint(&self) -> Result<CheckpointView<'_>> {
        Ok(CheckpointView {
            kind: self.kind,
            metadata: self
                .metadata
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            tensors: self.view()?,
        })
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

/// The payload scan of spec 5.7 (zero gaps) and 5.3 (the unused nibble of
/// an odd packed 4-bit tensor), on a directory whose metadata `check_meta`
/// has validated, reading those bytes from `file` at `base` (where the
/// directory starts) instead of through the mapping. Offsets in errors are
/// from the directory start, as the in-memory validator reports them.
fn scan_gaps(file: &File, base: u64, dir: &[u8], layout: &Layout) -> Result<()> {
    let mut before = 0u64;
    let mut read = |at: u64, out: &mut [u8]| read_at(file, dir, base, at, out);
    for t in TensorsView::from_parts(dir, layout).iter() {
        check_tensor(&mut read, layout, &t, before)?;
        before = t.byte_offset() + t.byte_length();
    }
    Ok(())
}

/// The payload-region bytes of one tensor: the gap from `before` (where
/// the previous payload ends) to its own payload, and its unused nibble.
/// `read(at, out)` fills `out` from directory offset `at`.
fn check_tensor(
    read: &mut dyn FnMut(u64, &mut [u8]) -> Result<()>,
    layout: &Layout,
    t: &TensorView<'_>,
    before: u64,
) -> Result<()> {
    let p = layout.payload_start() as u64;
    let (off, len) = (t.byte_offset(), t.byte_length());
    // check_meta placed every offset greedily: gaps are under 64 bytes.
    let mut buf = [0u8; 64];
    let mut at = before;
    while at < off {
        let n = usize::try_from(off - at).unwrap_or(64).min(64);
        let chunk = buf.get_mut(..n).unwrap_or_default();
        read(p + at, chunk)?;
        if let Some(k) = chunk.iter().position(|&b| b != 0) {
            return Err(Error::at(
                ErrorCode::Type,
                p + at + k as u64,
                format!(
                    "nonzero byte in the payload gap before tensor {}",
                    t.index()
                ),
            ));
        }
        at += n as u64;
    }
    if t.dtype().is_packed4() && t.elements() % 2 == 1 && len > 0 {
        let last = p + off + len - 1;
        let mut b = [0u8; 1];
        read(last, &mut b)?;
        if b[0] & 0xF0 != 0 {
            return Err(Error::at(
                ErrorCode::Type,
                last,
                format!(
                    "tensor {}: the unused high nibble of the last byte is not 0",
                    t.index()
                ),
            ));
        }
    }
    Ok(())
}

/// Reads `out.len()` bytes at directory offset `at`: a positioned read of
/// the file on Unix, the mapping elsewhere.
fn read_at(file: &File, dir: &[u8], base: u64, at: u64, out: &mut [u8]) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let _ = dir;
        file.read_exact_at(out, base + at)
            .map_err(|e| Error::io(e, Some(at)))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, base);
        read_mapped(dir, at, out)
    }
}

/// Reads `out.len()` bytes at directory offset `at` through the mapping.
fn read_mapped(dir: &[u8], at: u64, out: &mut [u8]) -> Result<()> {
    let src = usize::try_from(at)
        .ok()
        .and_then(|a| dir.get(a..a.checked_add(out.len())?))
        .ok_or_else(|| Error::at(ErrorCode::Eof, at, "payload region past the file"))?;
    out.copy_from_slice(src);
    Ok(())
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

    /// A checkpoint whose second and fourth tensors have no name: TYPE at
    /// the second's name_len field (the first unnamed, not the first
    /// tensor), from the mapped file and from the bytes alike.
    #[test]
    fn the_first_unnamed_tensor_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[1], &[1u8]).named("a"));
        b.push(TensorSpec::from_slice(&[1], &[2u8]));
        b.push(TensorSpec::from_slice(&[1], &[3u8]).named("c"));
        b.push(TensorSpec::from_slice(&[1], &[4u8]));
        let t = b.build().unwrap();
        let head = write_head(&BTreeMap::new()).unwrap();
        let mut ck = head.clone();
        ck.extend_from_slice(t.as_bytes());
        // The directory's 32-byte header, then 128 bytes a descriptor.
        let want = Some((head.len() + 32 + 128 + 4) as u64);
        let e = TensorsFile::open(write(dir.path(), "u.kiln", &ck)).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, want), "{e}");
        assert!(e.to_string().contains("tensor 1 has no name"), "{e}");
        let e = crate::checkpoint::check_buffer(&ck, &crate::Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, want), "{e}");
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
        assert_eq!(f.by_name("x").unwrap().unwrap().data(), &[3, 4]);

        let mut framed = crate::frame::encode(Some(crate::checkpoint::TENSORS_HASH)).to_vec();
        framed.extend_from_slice(t.as_bytes());
        let f = TensorsFile::open(write(dir.path(), "f.kiln", &framed)).unwrap();
        assert_eq!(f.kind(), FileKind::Framed);
        assert_eq!(f.view().unwrap(), t.view());

        let meta = BTreeMap::from([("a".to_string(), "b".to_string())]);
        let mut ck = write_head(&meta).unwrap();
        ck.extend_from_slice(t.as_bytes());
        let f = TensorsFile::open(write(dir.path(), "c.kiln", &ck)).unwrap();
        assert_eq!(f.kind(), FileKind::Checkpoint);
        assert_eq!(f.metadata(), &meta);
        assert_eq!(f.checkpoint().unwrap().metadata().get("a"), Some(&"b"));
        assert_eq!(f.by_name("x").unwrap().unwrap().data(), &[3, 4]);

        // Faults carry the offset from the file start.
        ck[16 + 4 + 4 + 1 + 4 + 1 + 4] = b'X';
        let e = TensorsFile::open(write(dir.path(), "bad.kiln", &ck)).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Frame, Some(34)));
        let e = TensorsFile::open(write(dir.path(), "empty.kiln", &[])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Eof);
        let e = TensorsFile::open(dir.path().join("missing.kiln")).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
    }

    /// The unused high nibble of an odd packed 4-bit tensor (spec 5.3) is
    /// checked by `by_name` (through the mapping) and by `view` (by
    /// positioned read), at the same offset as the in-memory reader.
    #[test]
    fn a_nonzero_unused_nibble_is_reported_by_by_name_and_view() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::new(Dtype::U4, &[3], vec![0x21u8, 0x03]).named("q"));
        b.push(TensorSpec::from_slice(&[1], &[9u8]).named("r"));
        let mut bytes = b.build().unwrap().as_bytes().to_vec();
        let v = TensorsView::from_bytes(&bytes, &Limits::default()).unwrap();
        let at = v.layout().payload_start() + 1; // the last byte of "q"
        bytes[at] |= 0x50;
        let f = TensorsFile::open(write(dir.path(), "nib.kiln", &bytes)).unwrap();
        assert_eq!(f.by_name("r").unwrap().unwrap().data(), &[9]);
        let e = f.by_name("q").unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(at as u64)));
        let e = f.view().unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(at as u64)));
        let mem = TensorsView::from_bytes(&bytes, &Limits::default()).unwrap_err();
        assert_eq!(
            (mem.code(), mem.offset()),
            (ErrorCode::Type, Some(at as u64))
        );
    }

    /// A mapped file can be shared between threads (tensors looked up and
    /// read in parallel).
    #[test]
    fn tensors_file_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<TensorsFile>();
    }

    /// A nonzero gap byte does not stop `open` (it reads no payload-region
    /// byte), but no tensor after it and no view is handed out: `by_name`
    /// of the tensor it precedes and every `view` report it where it is.
    #[test]
    fn a_nonzero_gap_is_reported_before_its_tensor_is_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[3], &[1u8, 2, 3]).named("a"));
        b.push(TensorSpec::from_slice(&[2], &[4u8, 5]).named("b"));
        b.push(TensorSpec::from_slice(&[1], &[6u8]).named("c"));
        let mut bytes = b.build().unwrap().as_bytes().to_vec();
        let p = TensorsView::from_bytes(&bytes, &Limits::default())
            .unwrap()
            .layout()
            .payload_start();
        // "b" starts at 64: the gap before it is payload bytes 3..64.
        let at = p + 40;
        bytes[at] = 7;
        let f = TensorsFile::open(write(dir.path(), "gap.kiln", &bytes)).unwrap();
        assert_eq!(f.by_name("a").unwrap().unwrap().data(), &[1, 2, 3]);
        assert_eq!(f.by_name("c").unwrap().unwrap().data(), &[6]);
        assert!(f.by_name("z").unwrap().is_none());
        let e = f.by_name("b").unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(at as u64)));
        for _ in 0..2 {
            let e = f.view().unwrap_err();
            assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(at as u64)));
        }
        assert!(f.checkpoint().is_err());
        let mem = TensorsView::from_bytes(&bytes, &Limits::default()).unwrap_err();
        assert_eq!((mem.code(), mem.offset()), (e.code(), e.offset()));
    }

    /// The file reader (metadata through the mapping, gaps by positioned
    /// reads) and the in-memory reader agree on every golden file: the
    /// same kind and tensors, or the same code at the same offset.
    #[test]
    fn agrees_with_check_buffer_on_every_golden_file() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/golden");
        let mut n = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().and_then(|x| x.to_str()) != Some("kiln") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let mem = CheckpointView::from_bytes(&bytes, &Limits::default());
            let opened = TensorsFile::open(&path);
            let file = match &opened {
                Ok(f) => f.checkpoint(),
                Err(e) => Err(Error::new(e.code(), e.offset(), e.message())),
            };
            match (mem, file) {
                (Ok(m), Ok(f)) => {
                    assert_eq!(m, f, "{}", path.display());
                }
                (Err(a), Err(b)) => assert_eq!(
                    (a.code(), a.offset()),
                    (b.code(), b.offset()),
                    "{}: {a} / {b}",
                    path.display()
                ),
                (a, b) => panic!("{}: {:?} / {:?}", path.display(), a.err(), b.err()),
            }
            n += 1;
        }
        assert!(n > 150, "{n} golden files");
    }

    /// Resident set size of this process in KiB (Linux).
    fn rss_kib() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// A 1 GiB checkpoint of 1,000 tensors (sparse on disk: the payloads
    /// read as zeros), every gap 60 bytes, opens with a small growth of
    /// resident memory: no payload page is mapped.
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
        // `view` checks all 999 gaps by positioned reads, not the mapping.
        let v = f.view().unwrap();
        for i in (0..1000).step_by(7) {
            assert!(v.by_name(&format!("layer.{i:04}.weight")).is_some());
        }
        let after = rss_kib();
        if let (Some(a), Some(b)) = (before, after) {
            let grown = b.saturating_sub(a);
            eprintln!("open + view + 143 lookups of a {total}-byte file: RSS +{grown} KiB");
            // The metadata (about 160 KiB) and nothing of the payloads:
            // reading the 999 gaps through the mapping grew it by 4.6 MiB
            // here (one fault per boundary), by up to 64 MiB on a cached
            // file (fault-around).
            assert!(grown < 2 * 1024, "RSS grew by {grown} KiB");
        }
        assert_eq!(f.metadata()["format"], "pt");
        assert_eq!(v.len(), 1000);
        // `by_name` reads its one gap through the mapping (the page the
        // caller is about to read).
        assert!(f.by_name("layer.0500.weight").unwrap().is_some());
    }
}
