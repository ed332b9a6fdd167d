//! [`TensorView`]: one tensor of a validated directory, its payload
//! borrowed, with typed zero-copy access when the address is aligned; and
//! [`OpaqueLayout`], the block layout of an opaque-dtype tensor.

use std::fmt;

use super::dtype::{Dtype, Quant, QuantScheme};
use super::layout::MAX_RANK;
use crate::error::{Error, ErrorCode, Result};

/// The block layout of an opaque-dtype tensor (spec 5.6).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpaqueLayout<'a> {
    pub(super) name: &'a [u8],
    pub(super) block_elems: u32,
    pub(super) block_bytes: u32,
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
    pub(super) index: u32,
    pub(super) name: &'a [u8],
    pub(super) dtype: Dtype,
    pub(super) rank: u8,
    pub(super) shape: [u64; MAX_RANK],
    pub(super) quant: Quant,
    pub(super) layout: Option<OpaqueLayout<'a>>,
    pub(super) offset: u64,
    pub(super) data: &'a [u8],
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
    /// (use [`AlignedBuf`](super::AlignedBuf) or [`Tensors`](super::Tensors)).
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
