//! Telling the three kinds of tensor file apart (spec 9) and judging a
//! whole buffer as `kiln check` does.

use std::collections::BTreeMap;
use std::fmt;

use super::{CHECKPOINT_HASH, TENSORS_HASH};
use crate::error::{Error, ErrorCode, Result};
use crate::frame;
use crate::limits::Limits;
use crate::options::Options;
use crate::tensors::{desc_off, TensorsView, D_NAME_LEN};

/// Which of the three kinds of tensor file a buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A bare directory (starts with `KDIR`).
    Bare,
    /// A frame whose hash is that of `tensors` (or absent), then a directory.
    Framed,
    /// A framed `struct Checkpoint{metadata:map<str,str>,tensors:tensors}`.
    Checkpoint,
}

impl FileKind {
    /// `bare`, `framed` or `checkpoint`.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Bare => "bare",
            FileKind::Framed => "framed",
            FileKind::Checkpoint => "checkpoint",
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parsed file: its kind, metadata and directory.
pub(crate) struct Parsed<'a> {
    pub kind: FileKind,
    pub metadata: BTreeMap<&'a str, &'a str>,
    pub tensors: TensorsView<'a>,
}

/// What comes before the directory: the kind, the metadata and where the
/// directory starts.
pub(crate) struct Prefix<'a> {
    pub kind: FileKind,
    pub metadata: BTreeMap<&'a str, &'a str>,
    pub dir_start: usize,
}

/// Reads the frame and a checkpoint's metadata (never the directory).
///
/// A buffer that starts with `KILN` is a frame: with the hash of
/// `tensors`, or no hash, a directory follows; with [`CHECKPOINT_HASH`] the
/// metadata map and then a directory; any other hash is SCHEMA at 8. Any
/// other buffer is a bare directory. Offsets count from the start of
/// `bytes`.
pub(crate) fn prefix<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Prefix<'a>> {
    if !bytes.starts_with(&frame::MAGIC) {
        return Ok(Prefix {
            kind: FileKind::Bare,
            metadata: BTreeMap::new(),
            dir_start: 0,
        });
    }
    let header = frame::parse(bytes)?;
    let body = bytes.get(frame::FRAME_LEN..).unwrap_or_default();
    match header.hash {
        None | Some(TENSORS_HASH) => Ok(Prefix {
            kind: FileKind::Framed,
            metadata: BTreeMap::new(),
            dir_start: frame::FRAME_LEN,
        }),
        Some(CHECKPOINT_HASH) => {
            let (metadata, rest): (BTreeMap<&'a str, &'a str>, &'a [u8]) = Options::new()
                .with_limits(*limits)
                .take_from_slice(body)
                .map_err(|e| e.shifted(frame::FRAME_LEN as u64))?;
            Ok(Prefix {
                kind: FileKind::Checkpoint,
                metadata,
                dir_start: bytes.len() - rest.len().min(bytes.len()),
            })
        }
        Some(h) => Err(Error::at(
            ErrorCode::Schema,
            8,
            format!(
                "frame hash {h:#018x} is neither the hash of `tensors` ({TENSORS_HASH:#018x}) \
                 nor that of a checkpoint ({CHECKPOINT_HASH:#018x})"
            ),
        )),
    }
}

/// Parses a standalone buffer of any of the three kinds: [`prefix`], then
/// the directory, which must end the buffer (TRAILING otherwise), then
/// (for a checkpoint) the name rule.
pub(crate) fn parse<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Parsed<'a>> {
    let p = prefix(bytes, limits)?;
    let dir = bytes.get(p.dir_start..).unwrap_or_default();
    let tensors =
        TensorsView::from_bytes(dir, limits).map_err(|e| e.shifted(p.dir_start as u64))?;
    if p.kind == FileKind::Checkpoint {
        check_named(&tensors, p.dir_start as u64)?;
    }
    Ok(Parsed {
        kind: p.kind,
        metadata: p.metadata,
        tensors,
    })
}

/// TYPE at the name_len field of the first unnamed tensor (spec 9: every
/// tensor of a checkpoint is named). `dir_start` is where the directory
/// starts, for the offset.
pub(crate) fn check_named(tensors: &TensorsView<'_>, dir_start: u64) -> Result<()> {
    match tensors.first_unnamed() {
        None => Ok(()),
        Some(i) => Err(Error::new(
            ErrorCode::Type,
            dir_start.checked_add(desc_off(i) + D_NAME_LEN),
            format!("checkpoint tensor {i} has no name: every tensor of a checkpoint is named"),
        )),
    }
}

/// Validates a standalone buffer holding one tensor file of any kind: a
/// bare directory (starts with `KDIR`), a framed directory (starts with
/// `KILN`, the frame's hash absent or equal to [`TENSORS_HASH`]) or a
/// checkpoint (frame hash [`CHECKPOINT_HASH`]; its metadata is checked and
/// dropped here, see [`CheckpointView`](super::CheckpointView) to keep it).
/// A buffer that starts with neither magic is judged as a bare directory,
/// so a damaged magic is FRAME and a buffer under 32 bytes is EOF. Bytes
/// after the directory are TRAILING. Offsets count from the start of
/// `bytes`.
///
/// # Errors
///
/// The first fault found in the order of spec section 7; SCHEMA at 8 for
/// any other frame hash; TYPE at the name_len field of an unnamed tensor in
/// a checkpoint.
///
/// # Examples
///
/// ```
/// use kiln_serde::{checkpoint::check_buffer, tensors::TensorsBuilder};
/// let t = TensorsBuilder::new().build().unwrap();
/// let view = check_buffer(t.as_bytes(), &Default::default()).unwrap();
/// assert!(view.is_empty());
/// ```
pub fn check_buffer<'a>(bytes: &'a [u8], limits: &Limits) -> Result<TensorsView<'a>> {
    parse(bytes, limits).map(|p| p.tensors)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::{TensorSpec, TensorsBuilder};

    #[test]
    fn bare_framed_and_faults() {
        let t = TensorsBuilder::new().build().unwrap();
        let bare = t.as_bytes().to_vec();
        assert!(check_buffer(&bare, &Limits::default()).is_ok());

        let mut framed = frame::encode(Some(TENSORS_HASH)).to_vec();
        framed.extend_from_slice(&bare);
        assert!(check_buffer(&framed, &Limits::default()).is_ok());

        let mut unhashed = frame::encode(None).to_vec();
        unhashed.extend_from_slice(&bare);
        assert!(check_buffer(&unhashed, &Limits::default()).is_ok());

        let mut wrong = frame::encode(Some(1)).to_vec();
        wrong.extend_from_slice(&bare);
        let e = check_buffer(&wrong, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Schema, Some(8)));

        let mut trailing = framed.clone();
        trailing.push(0);
        let e = check_buffer(&trailing, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Trailing, Some(80)));

        // A damaged directory inside a frame: offsets from the file start.
        let mut bad = framed.clone();
        bad[16] = b'X';
        let e = check_buffer(&bad, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Frame, Some(16)));

        // Neither magic: a bare directory with a damaged magic, or short.
        let mut damaged = bare.clone();
        damaged[0] = b'Z';
        let code = |b: &[u8]| check_buffer(b, &Limits::default()).unwrap_err().code();
        assert_eq!(code(&damaged), ErrorCode::Frame);
        assert_eq!(code(b"KIL"), ErrorCode::Eof);
        assert_eq!(code(b"KILN"), ErrorCode::Eof);
    }

    /// A checkpoint frame around `{}` metadata and one directory.
    fn checkpoint_bytes(named: bool) -> Vec<u8> {
        let mut b = TensorsBuilder::new();
        let s = TensorSpec::new(crate::tensors::Dtype::U8, &[1], &[9u8][..]);
        b.push(if named { s.named("x") } else { s });
        let mut out = frame::encode(Some(CHECKPOINT_HASH)).to_vec();
        out.extend_from_slice(&[0; 4]); // an empty map: count 0 (u32 LE)
        out.extend_from_slice(b.build().unwrap().as_bytes());
        out
    }

    #[test]
    fn checkpoints_are_read_and_need_names() {
        let good = checkpoint_bytes(true);
        let p = parse(&good, &Limits::default()).unwrap();
        assert_eq!(p.kind, FileKind::Checkpoint);
        assert!(p.metadata.is_empty());
        assert_eq!(p.tensors.by_name("x").unwrap().data(), &[9]);

        let bad = checkpoint_bytes(false);
        let e = check_buffer(&bad, &Limits::default()).unwrap_err();
        // frame 16 + map count 4 + header 32 + name_len field 4.
        assert_eq!(
            (e.code(), e.offset()),
            (ErrorCode::Type, Some(16 + 4 + 32 + 4))
        );

        // A fault in the metadata is reported from the file start.
        let at = |n: usize| {
            let e = check_buffer(&good[..n], &Limits::default()).unwrap_err();
            (e.code(), e.offset())
        };
        assert_eq!(at(18), (ErrorCode::Eof, Some(16)));
        // ... and so is one in the directory.
        assert_eq!(at(20), (ErrorCode::Eof, Some(20)));
    }
}
