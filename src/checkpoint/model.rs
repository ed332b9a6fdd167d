//! [`Checkpoint`] (owned) and [`CheckpointView`] (borrowed): string
//! metadata and a directory of named tensors (spec 9).

use std::collections::BTreeMap;
use std::io::Write;

use super::kind::{check_named, parse, FileKind};
use super::CHECKPOINT_HASH;
use crate::error::{Error, ErrorCode, Result};
use crate::frame;
use crate::limits::Limits;
use crate::tensors::{Tensors, TensorsView};

/// An owned checkpoint: string metadata and a directory whose every tensor
/// is named. Written as a framed `struct
/// Checkpoint{metadata:map<str,str>,tensors:tensors}`.
///
/// # Examples
///
/// ```
/// use std::collections::BTreeMap;
/// use kiln_serde::{tensors::{TensorSpec, TensorsBuilder}, Checkpoint, Limits};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::from_slice(&[1], &[7u8]).named("step"));
/// let meta = BTreeMap::from([("epoch".to_string(), "3".to_string())]);
/// let ckpt = Checkpoint::new(meta, b.build().unwrap()).unwrap();
///
/// let bytes = ckpt.to_vec().unwrap();
/// let back = Checkpoint::from_bytes(&bytes, &Limits::default()).unwrap();
/// assert_eq!(back, ckpt);
/// assert_eq!(back.metadata()["epoch"], "3");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    metadata: BTreeMap<String, String>,
    tensors: Tensors,
}

impl Checkpoint {
    /// A checkpoint of `tensors` with `metadata`.
    ///
    /// # Errors
    ///
    /// TYPE (no offset) when a tensor has no name.
    pub fn new(metadata: BTreeMap<String, String>, tensors: Tensors) -> Result<Self> {
        check_named(&tensors.view(), 0).map_err(unlocated)?;
        Ok(Checkpoint { metadata, tensors })
    }

    /// Reads a tensor file of any kind (checkpoint, framed or bare
    /// directory; the last two give empty metadata) and copies it.
    ///
    /// # Errors
    ///
    /// As [`CheckpointView::from_bytes`].
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Self> {
        CheckpointView::from_bytes(bytes, limits).map(|v| v.to_checkpoint())
    }

    /// The metadata.
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The metadata, to change it (its values are free; the tensors are not).
    pub fn metadata_mut(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.metadata
    }

    /// The tensors.
    pub fn tensors(&self) -> &Tensors {
        &self.tensors
    }

    /// A borrowed view.
    pub fn view(&self) -> CheckpointView<'_> {
        CheckpointView {
            kind: FileKind::Checkpoint,
            metadata: self
                .metadata
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect(),
            tensors: self.tensors.view(),
        }
    }

    /// The metadata and the tensors.
    pub fn into_parts(self) -> (BTreeMap<String, String>, Tensors) {
        (self.metadata, self.tensors)
    }

    /// The framed checkpoint file.
    ///
    /// # Errors
    ///
    /// LIMIT when a metadata string or the map is longer than the wire
    /// allows.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        self.view().to_vec()
    }

    /// Writes the framed checkpoint file to `w`.
    ///
    /// # Errors
    ///
    /// As [`to_vec`](Self::to_vec); IO for a writer error.
    pub fn write_to<W: Write>(&self, w: W) -> Result<()> {
        self.view().write_to(w)
    }
}

/// A checkpoint borrowed from a buffer: metadata as `&str` pairs in key
/// order, and a [`TensorsView`]. Also reads framed and bare directories
/// (empty metadata), so one reader serves every tensor file.
///
/// # Examples
///
/// ```
/// use kiln_serde::{checkpoint::FileKind, tensors::{TensorSpec, TensorsBuilder}, CheckpointView, Limits};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::from_slice(&[2], &[1u16, 2]).named("ids"));
/// let t = b.build().unwrap();
///
/// // A bare directory is a tensor file with empty metadata.
/// let v = CheckpointView::from_bytes(t.as_bytes(), &Limits::default()).unwrap();
/// assert_eq!(v.kind(), FileKind::Bare);
/// assert!(v.metadata().is_empty());
/// assert_eq!(v.tensors().len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointView<'a> {
    pub(crate) kind: FileKind,
    pub(crate) metadata: BTreeMap<&'a str, &'a str>,
    pub(crate) tensors: TensorsView<'a>,
}

impl<'a> CheckpointView<'a> {
    /// A view of `tensors` with `metadata`, to be written as a checkpoint.
    ///
    /// # Errors
    ///
    /// TYPE (no offset) when a tensor has no name.
    pub fn new(metadata: BTreeMap<&'a str, &'a str>, tensors: TensorsView<'a>) -> Result<Self> {
        check_named(&tensors, 0).map_err(unlocated)?;
        Ok(CheckpointView {
            kind: FileKind::Checkpoint,
            metadata,
            tensors,
        })
    }

    /// Validates a standalone tensor file of any kind (spec 9): a
    /// checkpoint, a directory framed with the hash of `tensors` (or no
    /// hash), or a bare directory. Nothing of the payloads is copied.
    ///
    /// # Errors
    ///
    /// As [`check_buffer`](super::check_buffer): the first fault in the
    /// order of spec 7, with its offset from the start of `bytes`.
    pub fn from_bytes(bytes: &'a [u8], limits: &Limits) -> Result<Self> {
        let p = parse(bytes, limits)?;
        Ok(CheckpointView {
            kind: p.kind,
            metadata: p.metadata,
            tensors: p.tensors,
        })
    }

    /// Which kind of file it was read from ([`FileKind::Checkpoint`] for
    /// one built by [`new`](Self::new)).
    pub fn kind(&self) -> FileKind {
        self.kind
    }

    /// The metadata (empty for a directory file).
    pub fn metadata(&self) -> &BTreeMap<&'a str, &'a str> {
        &self.metadata
    }

    /// The tensors.
    pub fn tensors(&self) -> &TensorsView<'a> {
        &self.tensors
    }

    /// The tensors, dropping the metadata.
    pub fn into_tensors(self) -> TensorsView<'a> {
        self.tensors
    }

    /// An owned copy.
    pub fn to_checkpoint(&self) -> Checkpoint {
        Checkpoint {
            metadata: self
                .metadata
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            tensors: Tensors::from(&self.tensors),
        }
    }

    /// The framed checkpoint file (whatever kind the view was read from).
    ///
    /// # Errors
    ///
    /// TYPE when a tensor has no name (a view of a directory file);
    /// LIMIT when a metadata string is longer than the wire allows.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.write_to(&mut out)?;
        Ok(out)
    }

    /// Writes the framed checkpoint file to `w`.
    ///
    /// # Errors
    ///
    /// As [`to_vec`](Self::to_vec); IO for a writer error.
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<()> {
        check_named(&self.tensors, 0).map_err(unlocated)?;
        let head = head(self.metadata.iter().map(|(k, v)| (*k, *v)))?;
        let at = head.len() as u64;
        w.write_all(&head).map_err(|e| Error::io(e, Some(0)))?;
        w.write_all(self.tensors.as_bytes())
            .map_err(|e| Error::io(e, Some(at)))
    }
}

/// The bytes of a checkpoint file before its directory: the frame with
/// [`CHECKPOINT_HASH`] and the Frozen metadata map (keys in byte order).
/// Write them, then the directory (for example with
/// [`TensorsWriter`](crate::tensors::TensorsWriter)), and the file is a
/// checkpoint; every tensor must be named.
///
/// # Errors
///
/// LIMIT when a string is longer than the wire allows (u32 lengths).
///
/// # Examples
///
/// ```
/// use std::collections::BTreeMap;
/// let head = kiln_serde::checkpoint::write_head(&BTreeMap::new()).unwrap();
/// assert_eq!(head.len(), 16 + 4);
/// ```
pub fn write_head(metadata: &BTreeMap<String, String>) -> Result<Vec<u8>> {
    head(metadata.iter().map(|(k, v)| (k.as_str(), v.as_str())))
}

/// Frame and map from entries in key order.
fn head<'k>(entries: impl ExactSizeIterator<Item = (&'k str, &'k str)>) -> Result<Vec<u8>> {
    let mut out = frame::encode(Some(CHECKPOINT_HASH)).to_vec();
    let count = u32::try_from(entries.len())
        .map_err(|_| Error::new(ErrorCode::Limit, None, "more than 2^32-1 metadata entries"))?;
    out.extend_from_slice(&count.to_le_bytes());
    for (k, v) in entries {
        for s in [k, v] {
            let n = u32::try_from(s.len()).map_err(|_| {
                Error::new(
                    ErrorCode::Limit,
                    None,
                    "a metadata string is longer than 2^32-1 bytes",
                )
            })?;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    Ok(out)
}

/// The same error without an offset (for values not read from a buffer).
fn unlocated(e: Error) -> Error {
    Error::new(e.code(), None, e.message())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensors::{Dtype, TensorSpec, TensorsBuilder};

    fn sample() -> Checkpoint {
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[2], &[1.5f32, -2.0]).named("b"));
        b.push(TensorSpec::new(Dtype::U8, &[3], &[1u8, 2, 3][..]).named("a"));
        let meta = BTreeMap::from([
            ("z".to_string(), "last".to_string()),
            ("format".to_string(), "pt".to_string()),
            (String::new(), "empty key".to_string()),
        ]);
        Checkpoint::new(meta, b.build().unwrap()).unwrap()
    }

    #[test]
    fn head_is_the_serde_encoding() {
        // The hand-written head and the serde path write the same bytes,
        // and both are the framed encoding of the traced type.
        let c = sample();
        let by_hand = c.to_vec().unwrap();
        let by_serde = crate::framed::to_vec(&c).unwrap();
        assert_eq!(by_hand, by_serde);
        let back: Checkpoint = crate::framed::from_slice(&by_hand).unwrap();
        assert_eq!(back, c);
        let view: CheckpointView<'_> = crate::options::Options::new()
            .from_slice(&by_hand[16..])
            .unwrap();
        assert_eq!(view.to_checkpoint(), c);
        assert_eq!(
            Checkpoint::from_bytes(&by_hand, &Limits::default()).unwrap(),
            c
        );
    }

    #[test]
    fn exact_bytes_of_a_small_checkpoint() {
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::new(Dtype::U8, &[1], &[5u8][..]).named("t"));
        let meta = BTreeMap::from([("k".to_string(), "v".to_string())]);
        let c = Checkpoint::new(meta, b.build().unwrap()).unwrap();
        let bytes = c.to_vec().unwrap();
        let mut want = b"KILN\x02\x00\x01\x00".to_vec();
        want.extend_from_slice(&0xa16f22b5f4281eb1u64.to_le_bytes());
        want.extend_from_slice(&[1, 0, 0, 0, 1, 0, 0, 0, b'k', 1, 0, 0, 0, b'v']);
        assert_eq!(bytes[..want.len()], want);
        assert_eq!(&bytes[want.len()..want.len() + 4], b"KDIR");
    }

    #[test]
    fn unnamed_tensors_are_refused_on_write_and_read() {
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::new(Dtype::U8, &[1], &[5u8][..]));
        let t = b.build().unwrap();
        let e = Checkpoint::new(BTreeMap::new(), t.clone()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, None));
        let v = CheckpointView::from_bytes(t.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(v.to_vec().unwrap_err().code(), ErrorCode::Type);
        assert!(CheckpointView::new(BTreeMap::new(), t.view()).is_err());

        // Through serde: the Deserialize impls refuse it too.
        let mut bytes = write_head(&BTreeMap::new()).unwrap();
        bytes.extend_from_slice(t.as_bytes());
        let e = crate::framed::from_slice::<Checkpoint>(&bytes).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type, "{e}");
        let e = crate::framed::from_slice::<CheckpointView<'_>>(&bytes).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type, "{e}");
        let e = Checkpoint::from_bytes(&bytes, &Limits::default()).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(20 + 32 + 4)));
    }

    #[test]
    fn metadata_order_and_caps_are_the_decoders() {
        let c = sample();
        let bytes = c.to_vec().unwrap();
        // Swap the map's first two keys' order by hand: not canonical.
        let v = CheckpointView::from_bytes(&bytes, &Limits::default()).unwrap();
        let keys: Vec<&str> = v.metadata().keys().copied().collect();
        assert_eq!(keys, ["", "format", "z"]);
        let mut swapped = frame::encode(Some(CHECKPOINT_HASH)).to_vec();
        swapped.extend_from_slice(&2u32.to_le_bytes());
        for s in ["b", "1", "a", "2"] {
            swapped.extend_from_slice(&1u32.to_le_bytes());
            swapped.extend_from_slice(s.as_bytes());
        }
        swapped.extend_from_slice(c.tensors().as_bytes());
        let e = CheckpointView::from_bytes(&swapped, &Limits::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type);
        // A metadata string above the byte cap is LIMIT.
        let small = Limits::default().with_max_bytes(3);
        let e = CheckpointView::from_bytes(&bytes, &small).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit);
    }
}
