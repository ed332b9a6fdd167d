//! Borrowed views: [`TensorsView`] (a validated directory in the caller's
//! buffer) and [`TensorView`] (one tensor, its payload borrowed).

use std::borrow::Cow;
use std::fmt;

use super::dtype::{Dtype, Quant, QuantScheme};
use super::layout::{RawDesc, MAX_RANK};
use super::owned::Tensors;
use super::validate::{validate_with, Layout, FULL, TRUSTED, TRUSTED_LIMITS};
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

    /// A view of a block validated by the caller (used by [`Tensors`]).
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

    /// The first tensor whose name is `name` (names are unique), by a scan.
    pub fn by_name(&self, name: &str) -> Option<TensorView<'a>> {
        if name.is_empty() || self.layout.heap_bytes() == 0 {
            return None;
        }
        // Binary search over the indices sorted by name.
        let heap = self.layout.heap_start();
        let sorted = &self.layout.by_name;
        let k = sorted
            .binary_search_by(|&i| {
                let n = RawDesc::read(self.block, i)
                    .and_then(|d| slice(self.block, heap, self.layout.heap_ref(i).name, d.name_len))
                    .unwrap_or(&[]);
                n.cmp(name.as_bytes())
            })
            .ok()?;
        self.get(*sorted.get(k)? as usize)
    }

    /// The tensors in descriptor order.
    pub fn iter(&self) -> Iter<'_, 'a> {
        Iter {
            view: self,
            next: 0,
            end: self.len(),
        }
    }

    /// An owned copy (the block is copied once into an aligned buffer).
    pub fn to_tensors(&self) -> Tensors {
        Tensors::from_validated(self.block, self.layout.clone().into_owned())
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

/// The block layout of an opaque-dtype tensor (spec 5.6).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpaqueLayout<'a> {
    name: &'a [u8],
    block_elems: u32,
    block_bytes: u32,
}

impl<'a> OpaqueLayout<'a> {
    /// The layout name (for example a ggml k-quant name); `None` only when a
    /// trusted read met a name that is not UTF-8.
    pub fn name(&self) -> Option<&'a str> {
        std::str::from_utf8(self.name).ok()
    }

    /// The layout name's raw bytes.
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name
    }

    /// Elements per block.
    pub fn block_elems(&self) -> u32 {
        self.block_elems
    }

    /// Bytes per block.
    pub fn block_bytes(&self) -> u32 {
        self.block_bytes
    }
}

impl fmt::Debug for OpaqueLayout<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpaqueLayout")
            .field("name", &String::from_utf8_lossy(self.name))
            .field("block_elems", &self.block_elems)
            .field("block_bytes", &self.block_bytes)
            .finish()
    }
}

/// One tensor of a validated directory; its payload borrows the buffer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TensorView<'a> {
    index: u32,
    name: &'a [u8],
    dtype: Dtype,
    rank: u8,
    shape: [u64; MAX_RANK],
    quant: Quant,
    layout: Option<OpaqueLayout<'a>>,
    offset: u64,
    data: &'a [u8],
}

impl<'a> TensorView<'a> {
    /// Position in the directory.
    pub fn index(&self) -> usize {
        self.index as usize
    }

    /// The name; `None` for an unnamed tensor (or, after a trusted read, a
    /// name that is not UTF-8).
    pub fn name(&self) -> Option<&'a str> {
        if self.name.is_empty() {
            None
        } else {
            std::str::from_utf8(self.name).ok()
        }
    }

    /// The name's raw bytes (empty for an unnamed tensor).
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name
    }

    /// The element type.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The rank (0..=8).
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }

    /// The dimensions (`rank` of them; empty for a scalar).
    pub fn shape(&self) -> &[u64] {
        self.shape.get(..usize::from(self.rank)).unwrap_or(&[])
    }

    /// The element count (1 for a scalar, 0 with any zero dimension).
    pub fn elements(&self) -> u64 {
        let dims = self.shape();
        if dims.contains(&0) {
            return 0;
        }
        // Validated: the product fits.
        dims.iter().fold(1u64, |a, &d| a.saturating_mul(d))
    }

    /// The quantization (scheme, scale and outer indices, block size).
    pub fn quant(&self) -> Quant {
        self.quant
    }

    /// The quantization scheme alone.
    pub fn quant_scheme(&self) -> QuantScheme {
        self.quant.scheme()
    }

    /// The block layout, for an opaque dtype.
    pub fn layout(&self) -> Option<OpaqueLayout<'a>> {
        self.layout
    }

    /// The descriptor's `byte_offset`: where the payload starts, counted
    /// from the start of the directory's payload region (a multiple of 64).
    pub fn byte_offset(&self) -> u64 {
        self.offset
    }

    /// The descriptor's `byte_length` (the length of [`data`](Self::data)).
    pub fn byte_length(&self) -> u64 {
        self.data.len() as u64
    }

    /// The payload bytes (little-endian elements; packed 4-bit dtypes two
    /// per byte, low nibble first).
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    fn check_width<T>(&self) -> Result<()> {
        let want = std::mem::size_of::<T>() as u64 * 8;
        match self.dtype.bits() {
            Some(bits) if u64::from(bits) == want && want > 0 => Ok(()),
            _ => Err(Error::new(
                ErrorCode::Type,
                None,
                format!(
                    "tensor {}: dtype {} is not {want} bits wide ({})",
                    self.index,
                    self.dtype,
                    std::any::type_name::<T>()
                ),
            )),
        }
    }

    /// The payload as a typed slice, without a copy: only when `T` is as
    /// wide as the dtype (for example `f32` for f32, `half::bf16` or `u16`
    /// for bf16, `u8` for f8e4m3) and the payload address is aligned for `T`.
    /// Payloads are 64-aligned in memory when the block starts 64-aligned
    /// (use [`AlignedBuf`](super::AlignedBuf) or [`Tensors`]).
    ///
    /// # Errors
    ///
    /// TYPE when the widths differ (always for packed 4-bit and opaque
    /// dtypes); MESSAGE when the address is not aligned for `T` (use
    /// [`to_vec`](Self::to_vec) instead) or, on a big-endian target, for
    /// any multi-byte `T`.
    pub fn try_as_slice<T: bytemuck::Pod>(&self) -> Result<&'a [T]> {
        self.check_width::<T>()?;
        if cfg!(target_endian = "big") && std::mem::size_of::<T>() > 1 {
            return Err(Error::new(
                ErrorCode::Message,
                None,
                "typed views of multi-byte elements need a little-endian target; use to_vec",
            ));
        }
        bytemuck::try_cast_slice(self.data).map_err(|e| {
            Error::new(
                ErrorCode::Message,
                None,
                format!(
                    "tensor {}: payload at address {:#x} cannot be viewed as [{}] ({e}); \
                     use to_vec, or place the block in an AlignedBuf",
                    self.index,
                    self.data.as_ptr() as usize,
                    std::any::type_name::<T>()
                ),
            )
        })
    }

    /// The payload copied into a `Vec<T>`; works at any address.
    ///
    /// # Errors
    ///
    /// TYPE when `T` is not as wide as the dtype.
    pub fn to_vec<T: bytemuck::Pod>(&self) -> Result<Vec<T>> {
        self.check_width::<T>()?;
        let mut v: Vec<T> = bytemuck::pod_collect_to_vec(self.data);
        if cfg!(target_endian = "big") {
            let size = std::mem::size_of::<T>();
            for c in bytemuck::cast_slice_mut::<T, u8>(&mut v).chunks_exact_mut(size) {
                c.reverse();
            }
        }
        Ok(v)
    }
}

impl fmt::Debug for TensorView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorView")
            .field("index", &self.index)
            .field("name", &String::from_utf8_lossy(self.name))
            .field("dtype", &self.dtype)
            .field("shape", &self.shape())
            .field("quant", &self.quant)
            .field("layout", &self.layout)
            .field("byte_offset", &self.offset)
            .field("data_len", &self.data.len())
            .finish()
    }
}
