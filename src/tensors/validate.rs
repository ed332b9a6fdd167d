//! Directory validation (spec 5 and the precedence of section 7 steps 1-3).
//!
//! One pass over the descriptors, one over the heap, then a scan of the pad
//! and the payload gaps: the payload itself is never read, except the last
//! byte of a packed 4-bit tensor with an odd element count.

use std::collections::BTreeMap;

use super::dtype::{Dtype, QuantScheme};
use super::layout::{
    align64, check_header, desc_field, desc_off, desc_u16, desc_u32, desc_u64, packed_len, RawDesc,
    RawHeader, DESC_LEN, D_BLOCK_BYTES, D_BLOCK_ELEMS, D_DTYPE, D_LAYOUT_LEN, D_LENGTH, D_NAME_LEN,
    D_OFFSET, D_OUTER, D_RANK, D_RESERVED1, D_RESERVED2, D_SCALE, D_SCHEME, D_SHAPE, FLAG_NAMES,
    HEADER_LEN, H_COUNT, H_FLAGS, H_HEAP, H_PAYLOAD, MAX_RANK,
};
use super::placement::{HeapRef, Layout, NameRef};
use super::plain_desc::plain_end;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// Which optional checks run. The trusted reader skips UTF-8 and the
/// quantization arithmetic, never a bounds check.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Checks {
    pub utf8: bool,
    pub quant: bool,
}

pub(crate) const FULL: Checks = Checks {
    utf8: true,
    quant: true,
};
pub(crate) const TRUSTED: Checks = Checks {
    utf8: false,
    quant: false,
};

/// Limits for the trusted reader: no caps beyond the wire's own.
pub(crate) const TRUSTED_LIMITS: Limits = Limits::new()
    .with_max_count(u64::MAX)
    .with_max_bytes(u64::MAX);

/// Validates the directory that starts at `buf[0]` and returns its layout.
///
/// `buf` may continue past the block (the next struct field starts right
/// after it): the block length is [`Layout::block_len`]. Checks run in the
/// order of spec section 7 steps 1-3 and stop at the first fault. Nothing is
/// allocated before the header's lengths are known to fit in `buf`.
///
/// # Errors
///
/// FRAME, LIMIT, EOF, TYPE or UTF8 with the offset, from `buf[0]`, of the
/// first byte of the faulty field: for example TYPE at `32 + 128*i` for a
/// bad dtype in descriptor `i`, at `32 + 128*i + 16 + 8*k` for a nonzero
/// shape slot `k` past the rank, at its own offset for a nonzero pad or gap
/// byte, and at the heap offset of a bad or duplicate name. EOF for a short
/// header is at 0, for descriptors and heap that do not fit at 8 (count), for
/// a payload that does not fit at 16 (payload_bytes).
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{validate, Dtype, TensorSpec, TensorsBuilder}, Limits};
/// let mut b = TensorsBuilder::new();
/// b.push(TensorSpec::new(Dtype::U8, &[2], &[1u8, 2][..]));
/// let t = b.build().unwrap();
/// let mut buf = t.as_bytes().to_vec();
/// buf.extend_from_slice(b"next field");
/// let layout = validate(&buf, &Limits::default()).unwrap();
/// assert_eq!(layout.block_len(), t.as_bytes().len());
/// ```
pub fn validate(buf: &[u8], limits: &Limits) -> Result<Layout> {
    validate_with(buf, limits, FULL)
}

pub(crate) fn validate_with(buf: &[u8], limits: &Limits, checks: Checks) -> Result<Layout> {
    let layout = check_meta(buf, buf.len() as u64, limits, checks)?;
    check_payload(buf, &layout)?;
    Ok(layout)
}

#[cold]
fn err(code: ErrorCode, at: u64, msg: impl Into<String>) -> Error {
    Error::at(code, at, msg)
}

#[cold]
fn ty(at: u64, msg: impl Into<String>) -> Error {
    Error::at(ErrorCode::Type, at, msg)
}

fn first_nonzero(b: &[u8]) -> Option<usize> {
    b.iter().position(|&x| x != 0)
}

/// Steps 1-3 except the payload scan. `buf` must hold the block at least up
/// to `P` (the builder passes only that); `avail` is how many bytes the
/// block may use in total (for the EOF checks).
pub(crate) fn check_meta(
    buf: &[u8],
    avail: u64,
    limits: &Limits,
    checks: Checks,
) -> Result<Layout> {
    // Step 1: header.
    let hdr: &[u8; HEADER_LEN] = match buf.get(..HEADER_LEN).map(<&[u8; HEADER_LEN]>::try_from) {
        Some(Ok(h)) if avail >= HEADER_LEN as u64 => h,
        _ => {
            return Err(err(
                ErrorCode::Eof,
                0,
                format!(
                    "directory header needs 32 bytes, {} remain",
                    avail.min(buf.len() as u64)
                ),
            ))
        }
    };
    let h = RawHeader::parse(hdr);
    let (meta_end, block_len) = check_header(&h, limits)?;
    if meta_end > avail {
        return Err(err(
            ErrorCode::Eof,
            H_COUNT,
            format!(
                "directory of {} tensors with a {}-byte heap needs {} bytes, {} remain",
                h.count, h.heap_bytes, meta_end, avail
            ),
        ));
    }
    let too_long = || {
        err(
            ErrorCode::Eof,
            H_PAYLOAD,
            format!(
                "directory block needs {} bytes (payload_bytes {}), {avail} remain",
                block_len.map_or_else(|| "more than 2^64".to_string(), |b| b.to_string()),
                h.payload_bytes
            ),
        )
    };
    let block_len = match block_len {
        Some(b) if b <= avail => b,
        _ => return Err(too_long()),
    };
    let len = usize::try_from(block_len).map_err(|_| too_long())?;
    // align64(meta_end) <= block_len, so neither fails once block_len fitted.
    let p64 = align64(meta_end).ok_or_else(too_long)?;
    let p = usize::try_from(p64).map_err(|_| too_long())?;
    let meta_end_us = usize::try_from(meta_end).map_err(|_| too_long())?;
    if buf.len() < p {
        return Err(too_long());
    }
    let count = h.count;
    let max_bytes = limits.max_bytes();

    // Step 2: each descriptor in order; the common case from the bytes.
    let mut running: u64 = 0;
    let mut any_name = false;
    let mut heap_sum: u64 = 0;
    let mut all_plain = true;
    let mut opaque: BTreeMap<u16, (u32, u32)> = BTreeMap::new();
    // meta_end = 32 + 128 * count + heap_bytes fits in `buf` (above).
    let descs = buf
        .get(HEADER_LEN..)
        .unwrap_or_default()
        .chunks_exact(DESC_LEN);
    if descs.len() < count as usize {
        return Err(too_long());
    }
    for (i, raw) in (0..count).zip(descs) {
        let raw: &[u8; DESC_LEN] = raw.try_into().map_err(|_| too_long())?;
        let (name_len, layout_len) = match plain_end(raw, running, h.payload_bytes, max_bytes) {
            Some((end, name_len)) => {
                running = end;
                (u64::from(name_len), 0)
            }
            None => {
                all_plain = false;
                let d = RawDesc::parse(raw);
                running = check_desc(
                    &d,
                    i,
                    desc_off(i),
                    count,
                    running,
                    h.payload_bytes,
                    &mut opaque,
                    limits,
                    checks,
                )?;
                (u64::from(d.name_len), u64::from(d.layout_len))
            }
        };
        any_name |= name_len != 0;
        heap_sum = heap_sum.saturating_add(name_len).saturating_add(layout_len);
    }

    // Step 3: after the descriptors.
    if (h.flags & FLAG_NAMES != 0) != any_name {
        return Err(err(
            ErrorCode::Frame,
            H_FLAGS,
            if any_name {
                "directory names flag (bit 1) is clear but a tensor has a name"
            } else {
                "directory names flag (bit 1) is set but no tensor has a name"
            },
        ));
    }
    if heap_sum != u64::from(h.heap_bytes) {
        return Err(ty(
            H_HEAP,
            format!(
                "heap_bytes {} is not the sum of name and layout lengths {heap_sum}",
                h.heap_bytes
            ),
        ));
    }
    if running != h.payload_bytes {
        return Err(ty(
            H_PAYLOAD,
            format!(
                "payload_bytes {} is not the end of the last tensor {running}",
                h.payload_bytes
            ),
        ));
    }
    // A plain descriptor has scheme 0, which check_links passes over, and
    // no layout name, which check_heap's second loop passes over.
    if checks.quant && !all_plain {
        check_links(buf, count)?;
    }
    // meta_end = heap_start + heap_bytes and fits in usize.
    let heap_start = meta_end_us
        .checked_sub(h.heap_bytes as usize)
        .ok_or_else(too_long)?;
    let (heap_index, by_name) =
        check_heap(buf, count, heap_start, h.heap_bytes, checks, !all_plain)?;
    if let Some(pad) = buf.get(meta_end_us..p) {
        if let Some(k) = first_nonzero(pad) {
            return Err(ty(
                meta_end + k as u64,
                "nonzero byte in the pad before the payload region",
            ));
        }
    }
    Ok(Layout {
        len,
        count,
        heap_start,
        heap_bytes: h.heap_bytes,
        payload_start: p,
        payload_bytes: h.payload_bytes,
        heap_index,
        by_name,
    })
}

/// Step 2 for one descriptor. Returns the new running end. `opaque_sizes` holds
/// the block sizes of the first tensor of each opaque code seen so far.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_desc(
    d: &RawDesc,
    i: u32,
    d0: u64,
    count: u32,
    running: u64,
    payload_bytes: u64,
    opaque_sizes: &mut BTreeMap<u16, (u32, u32)>,
    limits: &Limits,
    checks: Checks,
) -> Result<u64> {
    // FRAME: reserved.
    if d.reserved1 != 0 {
        return Err(err(
            ErrorCode::Frame,
            d0 + D_RESERVED1,
            format!("tensor {i}: descriptor reserved bytes 12..16 are not 0"),
        ));
    }
    if d.reserved2 != [0u8; 16] {
        return Err(err(
            ErrorCode::Frame,
            d0 + D_RESERVED2,
            format!("tensor {i}: descriptor reserved bytes 112..128 are not 0"),
        ));
    }
    // dtype.
    let dtype = Dtype::from_code(d.dtype).ok_or_else(|| {
        ty(
            d0 + D_DTYPE,
            format!("tensor {i}: dtype code {} is not defined", d.dtype),
        )
    })?;
    let opaque = dtype.is_opaque();
    // rank.
    let rank = usize::from(d.rank);
    if rank > MAX_RANK {
        return Err(ty(
            d0 + D_RANK,
            format!("tensor {i}: rank {rank} is above 8"),
        ));
    }
    // shape tail.
    for (k, &s) in d.shape.iter().enumerate().skip(rank) {
        if s != 0 {
            return Err(ty(
                d0 + D_SHAPE + 8 * k as u64,
                format!("tensor {i}: shape slot {k} is {s} but the rank is {rank}"),
            ));
        }
    }
    // element count.
    let elements = d.elements().ok_or_else(|| {
        err(
            ErrorCode::Limit,
            d0 + D_SHAPE,
            format!(
                "tensor {i}: element count of shape {:?} overflows u64",
                d.dims()
            ),
        )
    })?;
    // quant scheme and data dtype.
    let scheme = QuantScheme::from_code(d.scheme).ok_or_else(|| {
        ty(
            d0 + D_SCHEME,
            format!("tensor {i}: quant scheme {} is not defined", d.scheme),
        )
    })?;
    if scheme != QuantScheme::None && !dtype.is_quant_data() {
        return Err(ty(
            d0 + D_SCHEME,
            format!(
                "tensor {i}: dtype {dtype} cannot carry quant scheme {}",
                d.scheme
            ),
        ));
    }
    // name_len / layout_len.
    if u64::from(d.name_len) > limits.max_bytes() {
        return Err(err(
            ErrorCode::Limit,
            d0 + D_NAME_LEN,
            format!(
                "tensor {i}: name of {} bytes is above the cap {}",
                d.name_len,
                limits.max_bytes()
            ),
        ));
    }
    if u64::from(d.layout_len) > limits.max_bytes() {
        return Err(err(
            ErrorCode::Limit,
            d0 + D_LAYOUT_LEN,
            format!(
                "tensor {i}: layout name of {} bytes is above the cap {}",
                d.layout_len,
                limits.max_bytes()
            ),
        ));
    }
    if opaque && d.layout_len == 0 {
        return Err(ty(
            d0 + D_LAYOUT_LEN,
            format!("tensor {i}: opaque dtype {dtype} has no layout name"),
        ));
    }
    // unused fields.
    if !opaque && d.layout_len != 0 {
        return Err(ty(
            d0 + D_LAYOUT_LEN,
            format!("tensor {i}: layout_len is set on non-opaque dtype {dtype}"),
        ));
    }
    if scheme == QuantScheme::None && d.scale != 0 {
        return Err(ty(
            d0 + D_SCALE,
            format!("tensor {i}: scale is set without quantization"),
        ));
    }
    if scheme != QuantScheme::PerBlockOuter && d.outer != 0 {
        return Err(ty(
            d0 + D_OUTER,
            format!("tensor {i}: outer is set without quant scheme 3"),
        ));
    }
    if !opaque && matches!(scheme, QuantScheme::None | QuantScheme::PerTensor) && d.block_elems != 0
    {
        return Err(ty(
            d0 + D_BLOCK_ELEMS,
            format!("tensor {i}: block_elems is set but unused"),
        ));
    }
    if !opaque && d.block_bytes != 0 {
        return Err(ty(
            d0 + D_BLOCK_BYTES,
            format!("tensor {i}: block_bytes is set on non-opaque dtype {dtype}"),
        ));
    }
    // quant indices and block sizes.
    if scheme != QuantScheme::None && (d.scale >= count || d.scale == i) {
        return Err(ty(
            d0 + D_SCALE,
            format!(
                "tensor {i}: scale index {} is not another tensor of {count}",
                d.scale
            ),
        ));
    }
    if scheme == QuantScheme::PerBlockOuter && (d.outer >= count || d.outer == i) {
        return Err(ty(
            d0 + D_OUTER,
            format!(
                "tensor {i}: outer index {} is not another tensor of {count}",
                d.outer
            ),
        ));
    }
    let blocked = matches!(scheme, QuantScheme::PerBlock | QuantScheme::PerBlockOuter);
    if (blocked || opaque) && d.block_elems == 0 {
        return Err(ty(
            d0 + D_BLOCK_ELEMS,
            format!("tensor {i}: block_elems is 0"),
        ));
    }
    if opaque && d.block_bytes == 0 {
        return Err(ty(
            d0 + D_BLOCK_BYTES,
            format!("tensor {i}: block_bytes is 0"),
        ));
    }
    if ((blocked && checks.quant) || opaque) && elements % u64::from(d.block_elems.max(1)) != 0 {
        return Err(ty(
            d0 + D_BLOCK_ELEMS,
            format!(
                "tensor {i}: {elements} elements are not a multiple of block_elems {}",
                d.block_elems
            ),
        ));
    }
    // byte_length.
    let expected = match dtype.bits() {
        Some(bits) => packed_len(elements, bits),
        None => {
            let blocks = elements / u64::from(d.block_elems.max(1));
            u64::try_from(u128::from(blocks) * u128::from(d.block_bytes)).ok()
        }
    }
    .ok_or_else(|| {
        err(
            ErrorCode::Limit,
            d0 + D_LENGTH,
            format!("tensor {i}: byte size of {elements} {dtype} elements overflows u64"),
        )
    })?;
    if d.byte_length != expected {
        return Err(ty(
            d0 + D_LENGTH,
            format!(
                "tensor {i}: byte_length {} is not {expected} for {elements} {dtype} elements",
                d.byte_length
            ),
        ));
    }
    // opaque consistency: the block sizes of the first tensor of this code
    // (the layout names are compared with the heap, in step 3).
    if let Dtype::Opaque(code) = dtype {
        let first = *opaque_sizes
            .entry(code)
            .or_insert((d.block_elems, d.block_bytes));
        if first.0 != d.block_elems {
            return Err(ty(
                d0 + D_BLOCK_ELEMS,
                format!(
                    "tensor {i}: opaque dtype {code} has block_elems {} here and {} before",
                    d.block_elems, first.0
                ),
            ));
        }
        if first.1 != d.block_bytes {
            return Err(ty(
                d0 + D_BLOCK_BYTES,
                format!(
                    "tensor {i}: opaque dtype {code} has block_bytes {} here and {} before",
                    d.block_bytes, first.1
                ),
            ));
        }
    }
    // greedy byte_offset and range.
    let want = align64(running);
    if want != Some(d.byte_offset) {
        return Err(ty(
            d0 + D_OFFSET,
            format!(
                "tensor {i}: byte_offset {} is not the canonical offset {}",
                d.byte_offset,
                want.unwrap_or(u64::MAX)
            ),
        ));
    }
    match d.byte_offset.checked_add(d.byte_length) {
        Some(end) if end <= payload_bytes => Ok(end),
        _ => Err(ty(
            d0 + D_OFFSET,
            format!(
                "tensor {i}: range {}+{} is past payload_bytes {payload_bytes}",
                d.byte_offset, d.byte_length
            ),
        )),
    }
}

/// Step 3, quant links: the scale and outer tensors' dtype, scheme and count.
fn check_links(buf: &[u8], count: u32) -> Result<()> {
    for i in 0..count {
        let d0 = desc_off(i);
        if desc_field::<1>(buf, i, D_SCHEME) == Some([0]) {
            continue;
        }
        let Some(d) = RawDesc::read(buf, i) else {
            return Err(ty(d0, "descriptor out of range"));
        };
        let scheme = QuantScheme::from_code(d.scheme).unwrap_or(QuantScheme::None);
        let elements = d.elements().unwrap_or(0);
        let want_scale = match scheme {
            QuantScheme::PerTensor => 1,
            _ => elements / u64::from(d.block_elems.max(1)),
        };
        check_link(buf, i, d.scale, d0 + D_SCALE, "scale", want_scale, |t| {
            t.is_quant_scale()
        })?;
        if scheme == QuantScheme::PerBlockOuter {
            check_link(buf, i, d.outer, d0 + D_OUTER, "outer", 1, |t| {
                t.is_quant_outer()
            })?;
        }
    }
    Ok(())
}

fn check_link(
    buf: &[u8],
    i: u32,
    j: u32,
    at: u64,
    what: &str,
    want: u64,
    dtype_ok: impl Fn(Dtype) -> bool,
) -> Result<()> {
    let Some(s) = RawDesc::read(buf, j) else {
        return Err(ty(at, format!("tensor {i}: {what} index {j} out of range")));
    };
    match Dtype::from_code(s.dtype) {
        Some(t) if dtype_ok(t) => {}
        t => {
            let name = t.map_or_else(|| s.dtype.to_string(), |t| t.to_string());
            return Err(ty(
                at,
                format!("tensor {i}: {what} tensor {j} has dtype {name}, not allowed"),
            ));
        }
    }
    if s.scheme != 0 {
        return Err(ty(
            at,
            format!("tensor {i}: {what} tensor {j} is itself quantized"),
        ));
    }
    let have = s.elements().unwrap_or(u64::MAX);
    if have != want {
        return Err(ty(
            at,
            format!("tensor {i}: {what} tensor {j} has {have} elements, expected {want}"),
        ));
    }
    Ok(())
}

/// Step 3, heap contents: names (UTF-8, duplicates), then layout names
/// (UTF-8, one name per opaque code), unless `layouts_possible` is false
/// (every descriptor is plain: no layout names). Returns the heap index.
fn check_heap(
    buf: &[u8],
    count: u32,
    heap_start: usize,
    heap_bytes: u32,
    checks: Checks,
    layouts_possible: bool,
) -> Result<(Vec<HeapRef>, Vec<NameRef>)> {
    if heap_bytes == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let oob = |at: usize| ty(at as u64, "name past the heap");
    // The count is backed by 128 bytes per descriptor already in `buf`.
    let mut index = Vec::with_capacity(count as usize);
    // Duplicates are found by sorting (name, index): O(n log n) whatever the
    // names, with no hash to attack. The first fault in heap order wins:
    // tensor j's UTF-8, then whether j repeats an earlier name. The sorted
    // list is the layout's, for `by_name`.
    let mut names: Vec<NameRef> = Vec::with_capacity(count as usize);
    let mut bad_utf8: Option<(u32, usize)> = None;
    // Whether the names so far are in strictly increasing order (as a
    // writer that sorts them leaves them): then they are sorted and
    // distinct already, and neither the sort nor the duplicate scan runs.
    let mut in_order = true;
    let mut last: &[u8] = &[];
    let mut cursor = heap_start;
    for i in 0..count {
        let len32 = desc_u32(buf, i, D_NAME_LEN).ok_or_else(|| oob(cursor))?;
        let end = cursor
            .checked_add(len32 as usize)
            .ok_or_else(|| oob(cursor))?;
        let name = buf.get(cursor..end).ok_or_else(|| oob(cursor))?;
        if checks.utf8 && bad_utf8.is_none() && crate::raw::str_from_utf8(name).is_err() {
            bad_utf8 = Some((i, cursor));
        }
        let rel = u32::try_from(cursor - heap_start).map_err(|_| oob(cursor))?;
        if !name.is_empty() {
            in_order &= last < name;
            last = name;
            names.push(NameRef {
                off: rel,
                len: len32,
                index: i,
            });
        }
        index.push(HeapRef {
            name: rel,
            layout: 0,
        });
        cursor = end;
    }
    let dup = if in_order {
        None
    } else {
        let heap = buf.get(heap_start..).unwrap_or_default();
        names.sort_unstable_by(|a, b| a.name(heap).cmp(b.name(heap)).then(a.index.cmp(&b.index)));
        names
            .windows(2)
            .filter_map(|w| match w {
                [a, b] if a.name(heap) == b.name(heap) => Some(b.index),
                _ => None,
            })
            .min()
    };
    let dup_first = match (bad_utf8, dup) {
        (Some((u, _)), Some(d)) => d < u,
        (None, Some(_)) => true,
        _ => false,
    };
    if dup_first {
        let i = dup.unwrap_or(0);
        let at = heap_start + index.get(i as usize).map_or(0, |h| h.name as usize);
        let len = desc_u32(buf, i, D_NAME_LEN).unwrap_or(0) as usize;
        let name = buf.get(at..at.saturating_add(len)).unwrap_or(&[]);
        return Err(ty(
            at as u64,
            format!(
                "tensor {i}: duplicate name {:?}",
                String::from_utf8_lossy(name)
            ),
        ));
    }
    if let Some((i, at)) = bad_utf8 {
        return Err(err(
            ErrorCode::Utf8,
            at as u64,
            format!("tensor {i}: name is not valid UTF-8"),
        ));
    }
    let mut layouts: BTreeMap<u16, &[u8]> = BTreeMap::new();
    let with_layouts = if layouts_possible { count } else { 0 };
    for (i, slot) in (0..with_layouts).zip(index.iter_mut()) {
        let layout_len = desc_u32(buf, i, D_LAYOUT_LEN).ok_or_else(|| oob(cursor))?;
        if layout_len == 0 {
            continue;
        }
        let dtype = desc_u16(buf, i, D_DTYPE).ok_or_else(|| oob(cursor))?;
        let end = cursor
            .checked_add(layout_len as usize)
            .ok_or_else(|| oob(cursor))?;
        let name = buf.get(cursor..end).ok_or_else(|| oob(cursor))?;
        if checks.utf8 && crate::raw::str_from_utf8(name).is_err() {
            return Err(err(
                ErrorCode::Utf8,
                cursor as u64,
                format!("tensor {i}: layout name is not valid UTF-8"),
            ));
        }
        let first = *layouts.entry(dtype).or_insert(name);
        if first != name {
            return Err(ty(
                cursor as u64,
                format!(
                    "tensor {i}: opaque dtype {} has layout name {:?} here and {:?} before",
                    dtype,
                    String::from_utf8_lossy(name),
                    String::from_utf8_lossy(first)
                ),
            ));
        }
        slot.layout = u32::try_from(cursor - heap_start).unwrap_or(u32::MAX);
        cursor = end;
    }
    Ok((index, names))
}

/// Step 3, last: the payload gaps and the unused high nibble of an odd
/// packed 4-bit tensor. `block` holds the whole block.
pub(crate) fn check_payload(block: &[u8], layout: &Layout) -> Result<()> {
    let p = layout.payload_start;
    let eof = || ty(p as u64, "payload region past the buffer");
    let end = p
        .checked_add(layout.len - p.min(layout.len))
        .ok_or_else(eof)?;
    let payload = block.get(p..end).ok_or_else(eof)?;
    let mut running = 0usize;
    for i in 0..layout.count {
        let off = desc_u64(block, i, D_OFFSET).ok_or_else(eof)?;
        let len = desc_u64(block, i, D_LENGTH).ok_or_else(eof)?;
        let off = usize::try_from(off).map_err(|_| eof())?;
        let len = usize::try_from(len).map_err(|_| eof())?;
        let gap = payload.get(running..off).ok_or_else(eof)?;
        if let Some(k) = first_nonzero(gap) {
            return Err(ty(
                (p + running + k) as u64,
                format!("nonzero byte in the payload gap before tensor {i}"),
            ));
        }
        let tensor_end = off.checked_add(len).ok_or_else(eof)?;
        let packed = desc_u16(block, i, D_DTYPE)
            .and_then(Dtype::from_code)
            .is_some_and(Dtype::is_packed4);
        let odd = || {
            RawDesc::read(block, i)
                .and_then(|d| d.elements())
                .is_some_and(|n| n % 2 == 1)
        };
        if packed && odd() {
            let last = tensor_end.checked_sub(1).ok_or_else(eof)?;
            let byte = payload.get(last).copied().ok_or_else(eof)?;
            if byte & 0xF0 != 0 {
                return Err(ty(
                    (p + last) as u64,
                    format!("tensor {i}: the unused high nibble of the last byte is not 0"),
                ));
            }
        }
        running = tensor_end;
    }
    Ok(())
}
