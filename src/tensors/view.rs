//! [`TensorsView`]: a validated directory in the caller's buffer, handing
//! out [`TensorView`]s.

use std::borrow::Cow;
use std::fmt;

use super::dtype::{Dtype, Quant, QuantScheme};
use super::layout::{desc_u32, RawDesc, D_NAME_LEN, MAX_RANK};
use super::placement::Layout;
use super::table;
use super::tensor::{OpaqueLayout, TensorView};
use super::validate::{validate_with, FULL, TRUSTED, TRUSTED_LIMITS};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// A validated tensor directory borrowing its buffer. Building one is
/// O(count) plus a scan of the gap bytes; payloads are never copied.
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{Dtype, TensorSpec, TensorsBuilder, TensorsView}, Limits};
/// let w = [1.0f32, 2.0, 3.0];
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::from_slice(&[3], &w).named("w"));
/// let bytes = b.build().unwrap().as_bytes().to_vec();
///
/// let view = TensorsView::from_bytes(&bytes, &Limits::default()).unwrap();
/// let t = view.by_name("w").unwrap();
/// assert_eq!(t.dtype(), Dtype::F32);
/// assert_eq!(t.shape(), &[3]);
/// assert_eq!(t.to_vec::<f32>().unwrap(), w);
/// ```
#[derive(Clone)]
pub struct TensorsView<'a> {
    block: &'a [u8],
    layout: Cow<'a, Layout>,
}

impl<'a> TensorsView<'a> {
    /// Validates `buf`, which must be exactly one directory block.
    ///
    /// # Errors
    ///
    /// Any fault of [`validate`](fn@super::validate), then TRAILING at the
    /// block's end when `buf` continues past it.
    pub fn from_bytes(buf: &'a [u8], limits: &Limits) -> Result<Self> {
        Self::exact(Self::take_with(buf, limits, false)?)
    }

    /// Validates the directory at the start of `buf` and returns it with
    /// the bytes after it.
    ///
    /// # Errors
    ///
    /// Any fault of [`validate`](fn@super::validate).
    pub fn take_from_bytes(buf: &'a [u8], limits: &Limits) -> Result<(Self, &'a [u8])> {
        Self::take_with(buf, limits, false)
    }

    /// The trusted reader for a buffer this process just wrote: skips UTF-8
    /// validation and the quantization arithmetic (counts of scale tensors,
    /// divisibility by block_elems) and the count and name caps, but still
    /// checks every length and offset against the buffer, so it never reads
    /// out of range. `buf` must be exactly one block.
    ///
    /// A name that is not UTF-8 is then reported by [`TensorView::name`] as
    /// `None` (its bytes stay available from [`TensorView::name_bytes`]).
    ///
    /// # Errors
    ///
    /// FRAME, EOF, TYPE or LIMIT as in [`validate`](fn@super::validate) for the
    /// checks that remain; TRAILING when `buf` continues past the block.
    pub fn from_bytes_trusted(buf: &'a [u8]) -> Result<Self> {
        Self::exact(Self::take_with(buf, &TRUSTED_LIMITS, true)?)
    }

    /// TRAILING when bytes follow the block in a standalone buffer.
    fn exact((view, rest): (Self, &[u8])) -> Result<Self> {
        if rest.is_empty() {
            Ok(view)
        } else {
            Err(Error::at(
                ErrorCode::Trailing,
                view.block.len() as u64,
                format!("{} bytes after the directory block", rest.len()),
            ))
        }
    }

    fn take_with(buf: &'a [u8], limits: &Limits, trusted: bool) -> Result<(Self, &'a [u8])> {
        let layout = validate_with(buf, limits, if trusted { TRUSTED } else { FULL })?;
        let (block, rest) = buf.split_at(layout.block_len().min(buf.len()));
        Ok((
            TensorsView {
                block,
                layout: Cow::Owned(layout),
            },
            rest,
        ))
    }

    /// A view of a block validated by the caller (used by [`Tensors`](super::owned::Tensors)).
    pub(crate) fn from_parts(block: &'a [u8], layout: &'a Layout) -> Self {
        TensorsView {
            block,
            layout: Cow::Borrowed(layout),
        }
    }

    /// Number of tensors.
    pub fn len(&self) -> usize {
        self.layout.count() as usize
    }

    /// True when the directory has no tensors.
    pub fn is_empty(&self) -> bool {
        self.layout.count() == 0
    }

    /// The layout of the block (lengths and region starts).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The whole directory block.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.block
    }

    /// Tensor `i` in descriptor order.
    pub fn get(&self, i: usize) -> Option<TensorView<'a>> {
        let i = u32::try_from(i).ok()?;
        if i >= self.layout.count() {
            return None;
        }
        let d = RawDesc::read(self.block, i)?;
        let dtype = Dtype::from_code(d.dtype)?;
        let href = self.layout.heap_ref(i);
        let heap = self.layout.heap_start();
        let name = slice(self.block, heap, href.name, d.name_len)?;
        let layout = if dtype.is_opaque() {
            Some(OpaqueLayout {
                name: slice(self.block, heap, href.layout, d.layout_len)?,
                block_elems: d.block_elems,
                block_bytes: d.block_bytes,
            })
        } else {
            None
        };
        let p = self.layout.payload_start() as u64;
        let start = usize::try_from(p.checked_add(d.byte_offset)?).ok()?;
        let end = start.checked_add(usize::try_from(d.byte_length).ok()?)?;
        let data = self.block.get(start..end)?;
        let scheme = QuantScheme::from_code(d.scheme)?;
        Some(TensorView {
            index: i,
            name,
            dtype,
            rank: d.rank.min(MAX_RANK as u8),
            shape: d.shape,
            quant: Quant::from_wire(scheme, d.scale, d.outer, d.block_elems),
            layout,
            offset: d.byte_offset,
            data,
        })
    }

    /// The index of the first tensor without a name (name_len 0), read
    /// from the descriptors alone: a checkpoint's open tests every tensor
    /// for one. Through [`Self::iter`], which builds each tensor's view,
    /// opening a 1,000-tensor checkpoint took 140 instructions a tensor
    /// there (callgrind, LTO: 638 k -> 493 k instructions for the whole open).
    pub(crate) fn first_unnamed(&self) -> Option<u32> {
        (0..self.layout.count()).find(|&i| desc_u32(self.block, i, D_NAME_LEN) == Some(0))
    }

    /// The tensor named `name` (names are unique), by a binary search over
    /// the named tensors sorted at validation; each step reads one name.
    pub fn by_name(&self, name: &str) -> Option<TensorView<'a>> {
        if name.is_empty() {
            return None;
        }
        let start = self.layout.heap_start();
        let heap = self
            .block
            .get(start..start.checked_add(self.layout.heap_bytes() as usize)?)?;
        let sorted = &self.layout.by_name;
        let k = sorted
            .binary_search_by(|r| r.name(heap).cmp(name.as_bytes()))
            .ok()?;
        self.get(sorted.get(k)?.index as usize)
    }

    /// The tensors in descriptor order.
    pub fn iter(&self) -> Iter<'_, 'a> {
        Iter {
            view: self,
            next: 0,
            end: self.len(),
        }
    }

    /// The directory as a plain-text table, one row per tensor in
    /// descriptor order, then a totals line (what `kiln inspect` prints).
    /// Columns: index, name (`-` when unnamed), dtype, shape, `offset` (the
    /// descriptor's byte_offset, from the start of the payload region),
    /// `bytes` (byte_length), the quantization scheme and its scale index,
    /// outer index and block_elems (`-` when unused), and the opaque layout
    /// as `name [block_elems/block_bytes]`. A name with control characters,
    /// or one that is not UTF-8, is printed quoted and escaped.
    ///
    /// # Examples
    ///
    /// ```
    /// use kiln_serde::tensors::{TensorSpec, TensorsBuilder};
    /// let mut b = TensorsBuilder::new();
    /// b.push(TensorSpec::from_slice(&[2, 3], &[0f32; 6]).named("w"));
    /// let t = b.build().unwrap();
    /// let table = t.view().table();
    /// assert_eq!(
    ///     table,
    ///     "#  name  dtype  shape   offset  bytes  quant  scale  outer  block  layout\n\
    ///      0  w     f32    [2, 3]       0     24  none       -      -      -  -\n\
    ///      total: 1 tensor, 6 elements, 24 tensor bytes, payload region 24 bytes, block 216 bytes\n"
    /// );
    /// ```
    pub fn table(&self) -> String {
        table::render(self.iter(), &self.layout)
    }
}

fn slice(block: &[u8], heap: usize, off: u32, len: u32) -> Option<&[u8]> {
    if len == 0 {
        return Some(&[]);
    }
    let start = heap.checked_add(off as usize)?;
    block.get(start..start.checked_add(len as usize)?)
}

impl PartialEq for TensorsView<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.block == other.block
    }
}

impl Eq for TensorsView<'_> {}

impl fmt::Debug for TensorsView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_directory(f, "TensorsView", self)
    }
}

/// The concise Debug of a directory: count, bytes and up to 16 tensors.
pub(crate) fn debug_directory(
    f: &mut fmt::Formatter<'_>,
    what: &str,
    v: &TensorsView<'_>,
) -> fmt::Result {
    struct Entries<'v, 'a>(&'v TensorsView<'a>);
    impl fmt::Debug for Entries<'_, '_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut l = f.debug_list();
            for t in self.0.iter().take(16) {
                l.entry(&format_args!("{}", Short(&t)));
            }
            if self.0.len() > 16 {
                l.entry(&format_args!("... {} more", self.0.len() - 16));
            }
            l.finish()
        }
    }
    f.debug_struct(what)
        .field("len", &v.len())
        .field("bytes", &v.block.len())
        .field("tensors", &Entries(v))
        .finish()
}

struct Short<'t, 'a>(&'t TensorView<'a>);

impl fmt::Display for Short<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.0;
        match t.name() {
            Some(n) => write!(f, "{n:?}: ")?,
            None => write!(f, "#{}: ", t.index)?,
        }
        match t.layout {
            Some(l) => write!(f, "{}", String::from_utf8_lossy(l.name))?,
            None => write!(f, "{}", t.dtype)?,
        }
        write!(f, "{:?}", t.shape())?;
        if t.quant != Quant::None {
            write!(f, " {:?}", t.quant)?;
        }
        Ok(())
    }
}

/// Iterator over the tensors of a [`TensorsView`].
#[derive(Clone, Debug)]
pub struct Iter<'v, 'a> {
    view: &'v TensorsView<'a>,
    next: usize,
    end: usize,
}

impl<'a> Iterator for Iter<'_, 'a> {
    type Item = TensorView<'a>;

    fn next(&mut self) -> Option<TensorView<'a>> {
        while self.next < self.end {
            let i = self.next;
            self.next += 1;
            if let Some(t) = self.view.get(i) {
                return Some(t);
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next.min(self.end);
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_, '_> {}

impl<'v, 'a> IntoIterator for &'v TensorsView<'a> {
    type Item = TensorView<'a>;
    type IntoIter = Iter<'v, 'a>;
    fn into_iter(self) -> Iter<'v, 'a> {
        self.iter()
    }
}
