//! [`Tensors`]: an owned, validated directory block in an [`AlignedBuf`].

use std::fmt;
use std::io::{self, Read};

use super::aligned::AlignedBuf;
use super::layout::{header_lens, HEADER_LEN, H_COUNT, H_PAYLOAD};
use super::placement::Layout;
use super::tensor::TensorView;
use super::validate::validate;
use super::view::{debug_directory, TensorsView};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// An owned tensor directory: the canonical block, 64-byte aligned in
/// memory so that every typed view of a payload is aligned.
///
/// Two `Tensors` are equal exactly when their blocks are equal (the layout
/// is canonical, so this is equality of the tensors).
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{TensorSpec, TensorsBuilder, Tensors}, Limits};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::from_slice(&[2, 2], &[1.0f32, 2.0, 3.0, 4.0]).named("m"));
/// let t = b.build().unwrap();
/// let back = Tensors::from_bytes(t.as_bytes(), &Limits::default()).unwrap();
/// assert_eq!(back, t);
/// let m = back.view().by_name("m").unwrap();
/// assert_eq!(m.try_as_slice::<f32>().unwrap(), &[1.0, 2.0, 3.0, 4.0]);
/// ```
#[derive(Clone)]
pub struct Tensors {
    buf: AlignedBuf,
    layout: Layout,
}

impl Tensors {
    /// Validates `bytes` (exactly one block) and copies it once into an
    /// aligned buffer. Nothing is allocated before validation succeeds.
    ///
    /// # Errors
    ///
    /// Any fault of [`validate`](fn@super::validate); TRAILING at the block's
    /// end when `bytes` continues past it.
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Self> {
        let view = TensorsView::from_bytes(bytes, limits)?;
        Ok(Tensors::from(&view))
    }

    /// Validates an aligned buffer in place (no copy).
    ///
    /// # Errors
    ///
    /// As [`Tensors::from_bytes`].
    pub fn from_aligned(buf: AlignedBuf, limits: &Limits) -> Result<Self> {
        let layout = validate(buf.as_slice(), limits)?;
        if layout.block_len() != buf.len() {
            return Err(Error::at(
                ErrorCode::Trailing,
                layout.block_len() as u64,
                format!(
                    "{} bytes after the directory block",
                    buf.len().saturating_sub(layout.block_len())
                ),
            ));
        }
        Ok(Tensors { buf, layout })
    }

    /// Reads one directory block from a stream: the 32-byte header, then
    /// the rest in bounded chunks (a lying header costs at most what the
    /// stream delivers), then validates it. The stream is left just past
    /// the block.
    ///
    /// # Errors
    ///
    /// EOF at 0 when the stream ends inside the header, at 8 inside the
    /// descriptors or heap, at 16 inside the payload region; IO for a
    /// reader error; any fault of [`validate`](fn@super::validate).
    pub fn read_from<R: Read + ?Sized>(r: &mut R, limits: &Limits) -> Result<Self> {
        let mut buf = AlignedBuf::new();
        let map = |e: io::Error, at: u64, what: &str| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                Error::at(
                    ErrorCode::Eof,
                    at,
                    format!("the stream ended inside the {what}"),
                )
            } else {
                Error::io(e, None)
            }
        };
        buf.read_exact_from(r, HEADER_LEN as u64)
            .map_err(|e| map(e, 0, "directory header"))?;
        let header: [u8; HEADER_LEN] = buf
            .as_slice()
            .try_into()
            .map_err(|_| Error::at(ErrorCode::Eof, 0, "short directory header"))?;
        let (meta_end, block_len) = match header_lens(&header, limits) {
            Ok(lens) => lens,
            Err(e) if e.code() == ErrorCode::Eof => {
                // `P + payload_bytes` overflows: the descriptors and heap
                // first, as a slice checks them (EOF at the count).
                buf.read_exact_from(r, super::layout::meta_bytes(&header))
                    .map_err(|e| map(e, H_COUNT, "descriptors or name heap"))?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        buf.read_exact_from(r, meta_end.saturating_sub(HEADER_LEN as u64))
            .map_err(|e| map(e, H_COUNT, "descriptors or name heap"))?;
        buf.read_exact_from(r, block_len.saturating_sub(meta_end))
            .map_err(|e| map(e, H_PAYLOAD, "payload region"))?;
        Self::from_aligned(buf, limits)
    }

    /// Builds from a block validated by the caller; copies it once.
    pub(crate) fn from_validated(block: &[u8], layout: Layout) -> Self {
        Tensors {
            buf: AlignedBuf::from_slice(block),
            layout,
        }
    }

    /// Wraps a buffer that holds exactly a validated block.
    pub(crate) fn from_parts(buf: AlignedBuf, layout: Layout) -> Self {
        Tensors { buf, layout }
    }

    /// A borrowed view of the tensors.
    pub fn view(&self) -> TensorsView<'_> {
        TensorsView::from_parts(self.buf.as_slice(), &self.layout)
    }

    /// The canonical block.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.as_slice()
    }

    /// The block's aligned buffer.
    pub fn into_aligned(self) -> AlignedBuf {
        self.buf
    }

    /// The layout of the block.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Number of tensors.
    pub fn len(&self) -> usize {
        self.layout.count() as usize
    }

    /// True when there are no tensors.
    pub fn is_empty(&self) -> bool {
        self.layout.count() == 0
    }

    /// Tensor `i` (see [`TensorsView::get`]).
    pub fn get(&self, i: usize) -> Option<TensorView<'_>> {
        self.view().get(i)
    }

    /// The tensor named `name` (see [`TensorsView::by_name`]).
    pub fn by_name(&self, name: &str) -> Option<TensorView<'_>> {
        self.view().by_name(name)
    }

    /// [`TensorsView::table`] of this directory.
    pub fn table(&self) -> String {
        self.view().table()
    }
}

impl Default for Tensors {
    /// The empty directory: 64 bytes, the header and 32 zero bytes.
    fn default() -> Self {
        let mut buf = AlignedBuf::zeroed(64);
        if let Some(h) = buf.as_mut_slice().get_mut(..8) {
            h.copy_from_slice(&[b'K', b'D', b'I', b'R', 2, 0, 1, 0]);
        }
        Tensors {
            buf,
            layout: Layout::empty(),
        }
    }
}

impl PartialEq for Tensors {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Tensors {}

impl std::hash::Hash for Tensors {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl fmt::Debug for Tensors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_directory(f, "Tensors", &self.view())
    }
}

impl<'a> From<&TensorsView<'a>> for Tensors {
    fn from(v: &TensorsView<'a>) -> Self {
        Tensors::from_validated(v.as_bytes(), v.layout().clone())
    }
}

impl AsRef<[u8]> for Tensors {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}
