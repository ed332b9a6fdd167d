//! [`TensorsBuilder`]: writes the one canonical layout of spec 5.7, either
//! into an owned [`Tensors`] or streamed to an `io::Write`.

use std::borrow::Cow;
use std::fmt;
use std::io::Write;

use super::aligned::AlignedBuf;
use super::dtype::{Dtype, Element, Quant};
use super::layout::{
    align64, desc_off, RawDesc, RawHeader, DESC_LEN, D_RANK, FLAG_LE, FLAG_NAMES, HEADER_LEN,
    MAGIC, MAX_RANK, VERSION,
};
use super::owned::Tensors;
use super::placement::Layout;
use super::tensor::TensorView;
use super::validate::{check_meta, FULL};
use super::view::TensorsView;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// One tensor to be written: name (optional), dtype, shape, payload bytes,
/// quantization and, for an opaque dtype, its block layout. The payload is
/// borrowed when it can be.
#[derive(Clone)]
pub struct TensorSpec<'a> {
    name: Cow<'a, str>,
    dtype: Dtype,
    shape: Vec<u64>,
    data: Cow<'a, [u8]>,
    quant: Quant,
    layout: Option<(Cow<'a, str>, u32, u32)>,
    /// A payload length declared without the bytes (for
    /// [`TensorsWriter`](super::TensorsWriter)); `data` is then empty.
    declared: Option<u64>,
}

impl<'a> TensorSpec<'a> {
    /// An unnamed, unquantized tensor from its little-endian payload bytes
    /// (`ceil(elements * bits / 8)` of them; packed 4-bit dtypes two
    /// elements per byte, low nibble first).
    pub fn new(dtype: Dtype, shape: &[u64], data: impl Into<Cow<'a, [u8]>>) -> Self {
        TensorSpec {
            name: Cow::Borrowed(""),
            dtype,
            shape: shape.to_vec(),
            data: data.into(),
            quant: Quant::None,
            layout: None,
            declared: None,
        }
    }

    /// A tensor described without its payload: the dtype, shape and payload
    /// length `byte_length`. Such a spec is for
    /// [`TensorsWriter`](super::TensorsWriter), which takes the payload
    /// later from any source; [`TensorsBuilder::build`] and
    /// [`TensorsBuilder::write_to`] reject it.
    ///
    /// # Examples
    ///
    /// ```
    /// use kiln_serde::tensors::{Dtype, TensorSpec};
    /// let s = TensorSpec::declared(Dtype::F32, &[1024, 1024], 4 << 20).named("w");
    /// assert_eq!(s.byte_length(), 4 << 20);
    /// assert!(s.data().is_empty());
    /// ```
    pub fn declared(dtype: Dtype, shape: &[u64], byte_length: u64) -> Self {
        let mut s = Self::new(dtype, shape, &[][..]);
        s.declared = Some(byte_length);
        s
    }

    /// The payload length: the declared one, or that of the bytes given.
    pub fn byte_length(&self) -> u64 {
        self.declared.unwrap_or(self.data.len() as u64)
    }

    /// The same tensor without its payload bytes (length kept), for
    /// [`TensorsWriter`](super::TensorsWriter).
    pub fn without_data(mut self) -> TensorSpec<'a> {
        self.declared = Some(self.byte_length());
        self.data = Cow::Borrowed(&[]);
        self
    }

    /// An unnamed tensor from a typed slice; the dtype follows `T`
    /// (`f32` -> f32, `half::bf16` -> bf16, ...). Borrowed, no copy, on a
    /// little-endian target.
    pub fn from_slice<T: Element>(shape: &[u64], data: &'a [T]) -> Self {
        Self::from_pod_slice(T::DTYPE, shape, data)
    }

    /// An unnamed tensor of `dtype` from a slice of any plain type whose
    /// bytes are the payload (for example `&[u8]` holding f8e4m3 values, or
    /// `&[u16]` holding bf16 bits). Each `T` is written little-endian.
    pub fn from_pod_slice<T: bytemuck::Pod>(dtype: Dtype, shape: &[u64], data: &'a [T]) -> Self {
        let bytes: &'a [u8] = bytemuck::cast_slice(data);
        let data = if cfg!(target_endian = "big") && std::mem::size_of::<T>() > 1 {
            let mut v = bytes.to_vec();
            for c in v.chunks_exact_mut(std::mem::size_of::<T>()) {
                c.reverse();
            }
            Cow::Owned(v)
        } else {
            Cow::Borrowed(bytes)
        };
        Self::new(dtype, shape, data)
    }

    /// An opaque-layout tensor (spec 5.6): `code` in `4096..=32767`, the
    /// layout name, elements per block and bytes per block; `data` is
    /// `elements / block_elems * block_bytes` bytes.
    pub fn opaque(
        code: u16,
        layout_name: impl Into<Cow<'a, str>>,
        block_elems: u32,
        block_bytes: u32,
        shape: &[u64],
        data: impl Into<Cow<'a, [u8]>>,
    ) -> Self {
        let mut t = Self::new(Dtype::Opaque(code), shape, data);
        t.layout = Some((layout_name.into(), block_elems, block_bytes));
        t
    }

    /// The same tensor with a name (an empty name means unnamed).
    pub fn named(mut self, name: impl Into<Cow<'a, str>>) -> Self {
        self.name = name.into();
        self
    }

    /// The same tensor with quantization metadata; the indices refer to the
    /// directory's final order (after sorting, for [`TensorsBuilder::from_map`]).
    pub fn with_quant(mut self, quant: Quant) -> Self {
        self.quant = quant;
        self
    }

    /// A spec that rewrites a viewed tensor, borrowing its payload.
    pub fn from_view(t: &TensorView<'a>) -> Self {
        let mut s = Self::new(t.dtype(), t.shape(), t.data());
        s.name = String::from_utf8_lossy(t.name_bytes());
        s.quant = t.quant();
        if let Some(l) = t.layout() {
            s.layout = Some((
                String::from_utf8_lossy(l.name_bytes()),
                l.block_elems(),
                l.block_bytes(),
            ));
        }
        s
    }

    /// The name, if any.
    pub fn name(&self) -> Option<&str> {
        Some(self.name.as_ref()).filter(|n| !n.is_empty())
    }

    /// The dtype.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// The payload bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The quantization.
    pub fn quant(&self) -> Quant {
        self.quant
    }
}

impl fmt::Debug for TensorSpec<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TensorSpec")
            .field("name", &self.name)
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("quant", &self.quant)
            .field("layout", &self.layout)
            .field("data_len", &self.data.len())
            .finish()
    }
}

/// Writes a tensor directory in its canonical layout (spec 5.7).
///
/// Tensors keep the order they are pushed in; [`TensorsBuilder::from_map`]
/// sorts by name bytes first. The builder rejects everything a decoder
/// would reject, with the same error codes (offsets are those the fault
/// would have in the written block, or `None` for what cannot be written
/// at all).
///
/// # Examples
///
/// The spec's `kiln-v2-f8-pair`:
///
/// ```
/// use kiln_serde::tensors::{Dtype, TensorSpec, TensorsBuilder};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::new(Dtype::F8E4M3, &[1], &[0x38u8][..]));
/// b.push(TensorSpec::new(Dtype::F8E5M2, &[1], &[0x3cu8][..]));
/// let t = b.build().unwrap();
/// let bytes = t.as_bytes();
/// assert_eq!(bytes.len(), 320 + 65);
/// assert_eq!(bytes[320], 0x38);
/// assert_eq!(bytes[320 + 64], 0x3c);
/// ```
#[derive(Clone, Debug, Default)]
pub struct TensorsBuilder<'a> {
    specs: Vec<TensorSpec<'a>>,
    limits: Limits,
}

/// What the builder computed before writing anything: the bytes up to the
/// payload region, the layout, each tensor's byte_offset and the block
/// length. Shared with [`TensorsWriter`](super::TensorsWriter).
pub(crate) struct Plan {
    pub meta: Vec<u8>,
    pub layout: Layout,
    pub offsets: Vec<u64>,
    pub total: u64,
}

#[cold]
fn limit(msg: impl Into<String>) -> Error {
    Error::new(ErrorCode::Limit, None, msg)
}

impl<'a> TensorsBuilder<'a> {
    /// An empty builder with the default [`Limits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses these caps (count, name bytes) for the checks at build time.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Appends a tensor and returns its index (for quantization links).
    pub fn push(&mut self, spec: TensorSpec<'a>) -> usize {
        self.specs.push(spec);
        self.specs.len() - 1
    }

    /// Number of tensors pushed.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// True when no tensor was pushed.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The tensors pushed so far.
    pub fn specs(&self) -> &[TensorSpec<'a>] {
        &self.specs
    }

    /// A builder for a map of tensors: entries are sorted by key bytes (the
    /// Frozen map order) and each key becomes the tensor's name. Quant
    /// indices refer to the sorted order.
    ///
    /// # Errors
    ///
    /// TYPE for an empty key or a duplicate key.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use kiln_serde::tensors::{TensorSpec, TensorsBuilder};
    /// let (a, b) = ([1.0f32], [2.0f32]);
    /// let mut m = BTreeMap::new();
    /// m.insert("z".to_string(), TensorSpec::from_slice(&[1], &a));
    /// m.insert("a".to_string(), TensorSpec::from_slice(&[1], &b));
    /// let t = TensorsBuilder::from_map(m).unwrap().build().unwrap();
    /// assert_eq!(t.get(0).unwrap().name(), Some("a"));
    /// ```
    pub fn from_map<K, I>(entries: I) -> Result<Self>
    where
        K: Into<Cow<'a, str>>,
        I: IntoIterator<Item = (K, TensorSpec<'a>)>,
    {
        let mut v: Vec<(Cow<'a, str>, TensorSpec<'a>)> =
            entries.into_iter().map(|(k, s)| (k.into(), s)).collect();
        v.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        for w in v.windows(2) {
            if let [a, b] = w {
                if a.0 == b.0 {
                    return Err(Error::new(
                        ErrorCode::Type,
                        None,
                        format!("duplicate tensor name {:?}", a.0),
                    ));
                }
            }
        }
        let mut out = Self::new();
        for (k, s) in v {
            if k.is_empty() {
                return Err(Error::new(
                    ErrorCode::Type,
                    None,
                    "a map of tensors has an empty key",
                ));
            }
            out.push(s.named(k));
        }
        Ok(out)
    }

    /// A builder that rewrites every tensor of a view (payloads borrowed).
    pub fn from_view(view: &TensorsView<'a>) -> Self {
        let mut out = Self::new();
        for t in view.iter() {
            out.push(TensorSpec::from_view(&t));
        }
        out
    }

    /// The length of the block [`build`](Self::build) would write.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build).
    pub fn encoded_len(&self) -> Result<u64> {
        Ok(self.plan()?.total)
    }

    /// Writes the canonical block into a new 64-byte aligned buffer.
    ///
    /// # Errors
    ///
    /// LIMIT when a count, name, heap or size does not fit the wire or the
    /// caps; TYPE, UTF8 or LIMIT for anything a decoder would reject (bad
    /// dtype, rank, byte length, duplicate names, quant links, opaque
    /// layouts, a nonzero unused nibble), with the offset the fault would
    /// have in the block.
    pub fn build(&self) -> Result<Tensors> {
        self.no_declared()?;
        let plan = self.plan()?;
        let total =
            usize::try_from(plan.total).map_err(|_| limit("the block does not fit in memory"))?;
        let p = plan.layout.payload_start();
        let mut buf = AlignedBuf::zeroed(total);
        let out = buf.as_mut_slice();
        let oob = || limit("block layout out of range");
        out.get_mut(..plan.meta.len())
            .ok_or_else(oob)?
            .copy_from_slice(&plan.meta);
        for (spec, &off) in self.specs.iter().zip(&plan.offsets) {
            let start = usize::try_from(off)
                .ok()
                .and_then(|o| o.checked_add(p))
                .ok_or_else(oob)?;
            let end = start.checked_add(spec.data.len()).ok_or_else(oob)?;
            out.get_mut(start..end)
                .ok_or_else(oob)?
                .copy_from_slice(&spec.data);
        }
        Ok(Tensors::from_parts(buf, plan.layout))
    }

    /// Streams the canonical block to `w` without building it in memory:
    /// header, descriptors, heap and pad, then each payload after its zero
    /// gap. Returns the bytes written. All checks run before the first
    /// write.
    ///
    /// # Errors
    ///
    /// As [`build`](Self::build); IO for a writer error (with the block
    /// offset where it happened).
    pub fn write_to<W: Write>(&self, mut w: W) -> Result<u64> {
        self.no_declared()?;
        let plan = self.plan()?;
        let mut pos: u64 = 0;
        let put = |w: &mut W, b: &[u8], pos: &mut u64| -> Result<()> {
            w.write_all(b).map_err(|e| Error::io(e, Some(*pos)))?;
            *pos += b.len() as u64;
            Ok(())
        };
        put(&mut w, &plan.meta, &mut pos)?;
        let zeros = [0u8; 64];
        let mut running: u64 = 0;
        for (spec, &off) in self.specs.iter().zip(&plan.offsets) {
            let gap = usize::try_from(off.saturating_sub(running)).unwrap_or(0);
            put(&mut w, zeros.get(..gap).unwrap_or(&[]), &mut pos)?;
            put(&mut w, &spec.data, &mut pos)?;
            running = off.saturating_add(spec.data.len() as u64);
        }
        Ok(pos)
    }

    /// MESSAGE when a spec has a declared length and no bytes.
    fn no_declared(&self) -> Result<()> {
        match self.specs.iter().position(|s| s.declared.is_some()) {
            Some(i) => Err(Error::new(
                ErrorCode::Message,
                None,
                format!("tensor {i} was declared without its payload: write it with TensorsWriter"),
            )),
            None => Ok(()),
        }
    }

    fn plan(&self) -> Result<Plan> {
        plan(&self.specs, &self.limits)
    }
}

/// Computes the canonical layout of `specs` (spec 5.7) and checks
/// everything a decoder would check except the payload bytes of declared
/// specs. Nothing is written.
pub(crate) fn plan(specs: &[TensorSpec<'_>], limits: &Limits) -> Result<Plan> {
    let count = u32::try_from(specs.len())
        .map_err(|_| limit("more than 2^32-1 tensors in one directory"))?;
    let mut heap: u64 = 0;
    let mut running: u64 = 0;
    let mut offsets = Vec::with_capacity(specs.len());
    let mut descs = Vec::with_capacity(specs.len());
    let mut any_name = false;
    for (i, s) in (0..count).zip(specs) {
        let d0 = desc_off(i);
        let code = s.dtype.code();
        if Dtype::from_code(code) != Some(s.dtype) {
            return Err(Error::at(
                ErrorCode::Type,
                d0,
                format!("tensor {i}: opaque dtype code {code} is not in 4096..=32767"),
            ));
        }
        if s.shape.len() > MAX_RANK {
            return Err(Error::at(
                ErrorCode::Type,
                d0 + D_RANK,
                format!("tensor {i}: rank {} is above 8", s.shape.len()),
            ));
        }
        let mut shape = [0u64; MAX_RANK];
        for (slot, &d) in shape.iter_mut().zip(&s.shape) {
            *slot = d;
        }
        let name_len = u32::try_from(s.name.len())
            .map_err(|_| limit(format!("tensor {i}: name longer than 2^32-1 bytes")))?;
        let (layout_len, block_elems_l, block_bytes) = match &s.layout {
            Some((n, be, bb)) => (
                u32::try_from(n.len()).map_err(|_| {
                    limit(format!("tensor {i}: layout name longer than 2^32-1 bytes"))
                })?,
                *be,
                *bb,
            ),
            None => (0, 0, 0),
        };
        let (scheme, scale, outer, block_elems_q) = s.quant.wire();
        let byte_length = s.byte_length();
        let off = align64(running).ok_or_else(|| limit("payload offsets overflow u64"))?;
        running = off
            .checked_add(byte_length)
            .ok_or_else(|| limit("payload offsets overflow u64"))?;
        heap += u64::from(name_len) + u64::from(layout_len);
        any_name |= name_len != 0;
        offsets.push(off);
        descs.push(RawDesc {
            dtype: code,
            rank: s.shape.len() as u8,
            scheme,
            name_len,
            layout_len,
            reserved1: 0,
            shape,
            byte_offset: off,
            byte_length,
            scale,
            outer,
            block_elems: if s.layout.is_some() {
                block_elems_l
            } else {
                block_elems_q
            },
            block_bytes,
            reserved2: [0; 16],
        });
    }
    let heap_bytes = u32::try_from(heap)
        .map_err(|_| limit("names and layout names exceed 2^32-1 heap bytes"))?;
    let meta_end = HEADER_LEN as u64 + DESC_LEN as u64 * u64::from(count) + heap;
    let p = align64(meta_end).ok_or_else(|| limit("directory too large"))?;
    let total = p
        .checked_add(running)
        .ok_or_else(|| limit("directory block length overflows u64"))?;
    let meta_len = usize::try_from(p).map_err(|_| limit("directory too large"))?;
    let header = RawHeader {
        magic: MAGIC,
        version: VERSION,
        flags: FLAG_LE | if any_name { FLAG_NAMES } else { 0 },
        count,
        heap_bytes,
        payload_bytes: running,
        reserved: 0,
    };
    let mut meta = Vec::with_capacity(meta_len);
    meta.extend_from_slice(&header.to_bytes());
    for d in &descs {
        meta.extend_from_slice(&d.to_bytes());
    }
    for s in specs {
        meta.extend_from_slice(s.name.as_bytes());
    }
    // Layout names in descriptor order. One given for a non-opaque dtype
    // is written too, so that the decoder's check reports it (TYPE).
    for s in specs {
        if let Some((n, _, _)) = &s.layout {
            meta.extend_from_slice(n.as_bytes());
        }
    }
    meta.resize(meta_len, 0);
    let layout = check_meta(&meta, total, limits, FULL)?;
    // The payload checks the decoder would make: gaps are zero by
    // construction; the unused high nibble of an odd 4-bit tensor.
    for (i, (s, &off)) in specs.iter().zip(&offsets).enumerate() {
        if s.dtype.is_packed4() && s.declared.is_none() {
            let elements = descs.get(i).and_then(RawDesc::elements).unwrap_or(0);
            if elements % 2 == 1 {
                if let Some(&last) = s.data.last() {
                    if last & 0xF0 != 0 {
                        return Err(Error::at(
                            ErrorCode::Type,
                            (p + off + s.data.len() as u64).saturating_sub(1),
                            format!("tensor {i}: the unused high nibble of the last byte is not 0"),
                        ));
                    }
                }
            }
        }
    }
    Ok(Plan {
        meta,
        layout,
        offsets,
        total,
    })
}
