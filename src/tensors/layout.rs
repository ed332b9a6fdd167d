//! The fixed parts of a directory block: header and descriptor layouts
//! (spec 5.1, 5.2), their parsing and writing, and the header length check
//! that a stream reader needs before it reads the rest of a block.

use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;

/// Length of the directory header.
pub const HEADER_LEN: usize = 32;
/// Length of one descriptor.
pub const DESC_LEN: usize = 128;
/// Payload alignment, from the directory start.
pub const ALIGN: u64 = 64;
/// Directory magic, ASCII `KDIR`.
pub const MAGIC: [u8; 4] = *b"KDIR";
/// Directory version.
pub const VERSION: u16 = 2;
/// Header flag bit 0: little-endian (must be set).
pub const FLAG_LE: u16 = 1;
/// Header flag bit 1: some tensor has a name.
pub const FLAG_NAMES: u16 = 2;
/// The largest rank.
pub const MAX_RANK: usize = 8;

// Header field offsets.
pub(crate) const H_VERSION: u64 = 4;
pub(crate) const H_FLAGS: u64 = 6;
pub(crate) const H_COUNT: u64 = 8;
pub(crate) const H_HEAP: u64 = 12;
pub(crate) const H_PAYLOAD: u64 = 16;
pub(crate) const H_RESERVED: u64 = 24;

// Descriptor field offsets (from the descriptor start).
pub(crate) const D_DTYPE: u64 = 0;
pub(crate) const D_RANK: u64 = 2;
pub(crate) const D_SCHEME: u64 = 3;
pub(crate) const D_NAME_LEN: u64 = 4;
pub(crate) const D_LAYOUT_LEN: u64 = 8;
pub(crate) const D_RESERVED1: u64 = 12;
pub(crate) const D_SHAPE: u64 = 16;
pub(crate) const D_OFFSET: u64 = 80;
pub(crate) const D_LENGTH: u64 = 88;
pub(crate) const D_SCALE: u64 = 96;
pub(crate) const D_OUTER: u64 = 100;
pub(crate) const D_BLOCK_ELEMS: u64 = 104;
pub(crate) const D_BLOCK_BYTES: u64 = 108;
pub(crate) const D_RESERVED2: u64 = 112;

/// `align64(x)`, or `None` on overflow.
pub(crate) const fn align64(x: u64) -> Option<u64> {
    match x.checked_add(ALIGN - 1) {
        Some(v) => Some(v & !(ALIGN - 1)),
        None => None,
    }
}

/// Copies `N` bytes at `off` out of `b`; zeros when out of range (only used
/// on fixed-size arrays at constant offsets, where it is always in range).
fn arr<const N: usize>(b: &[u8], off: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(s) = off.checked_add(N).and_then(|end| b.get(off..end)) {
        out.copy_from_slice(s);
    }
    out
}

fn put(b: &mut [u8], off: usize, v: &[u8]) {
    if let Some(s) = off.checked_add(v.len()).and_then(|end| b.get_mut(off..end)) {
        s.copy_from_slice(v);
    }
}

/// The header fields as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RawHeader {
    pub magic: [u8; 4],
    pub version: u16,
    pub flags: u16,
    pub count: u32,
    pub heap_bytes: u32,
    pub payload_bytes: u64,
    pub reserved: u64,
}

impl RawHeader {
    /// `128 * count + heap_bytes`: the descriptors and name heap. Both terms
    /// come from u32 fields, so the sum cannot overflow u64.
    pub fn meta_bytes(&self) -> u64 {
        DESC_LEN as u64 * u64::from(self.count) + u64::from(self.heap_bytes)
    }

    pub fn parse(b: &[u8; HEADER_LEN]) -> Self {
        RawHeader {
            magic: arr(b, 0),
            version: u16::from_le_bytes(arr(b, 4)),
            flags: u16::from_le_bytes(arr(b, 6)),
            count: u32::from_le_bytes(arr(b, 8)),
            heap_bytes: u32::from_le_bytes(arr(b, 12)),
            payload_bytes: u64::from_le_bytes(arr(b, 16)),
            reserved: u64::from_le_bytes(arr(b, 24)),
        }
    }

    pub fn to_bytes(self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        put(&mut b, 0, &self.magic);
        put(&mut b, 4, &self.version.to_le_bytes());
        put(&mut b, 6, &self.flags.to_le_bytes());
        put(&mut b, 8, &self.count.to_le_bytes());
        put(&mut b, 12, &self.heap_bytes.to_le_bytes());
        put(&mut b, 16, &self.payload_bytes.to_le_bytes());
        put(&mut b, 24, &self.reserved.to_le_bytes());
        b
    }
}

/// The descriptor fields as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RawDesc {
    pub dtype: u16,
    pub rank: u8,
    pub scheme: u8,
    pub name_len: u32,
    pub layout_len: u32,
    pub reserved1: u32,
    pub shape: [u64; MAX_RANK],
    pub byte_offset: u64,
    pub byte_length: u64,
    pub scale: u32,
    pub outer: u32,
    pub block_elems: u32,
    pub block_bytes: u32,
    pub reserved2: [u8; 16],
}

impl RawDesc {
    pub fn parse(b: &[u8; DESC_LEN]) -> Self {
        let mut shape = [0u64; MAX_RANK];
        for (k, s) in shape.iter_mut().enumerate() {
            *s = u64::from_le_bytes(arr(b, 16 + 8 * k));
        }
        RawDesc {
            dtype: u16::from_le_bytes(arr(b, 0)),
            rank: u8::from_le_bytes(arr(b, 2)),
            scheme: u8::from_le_bytes(arr(b, 3)),
            name_len: u32::from_le_bytes(arr(b, 4)),
            layout_len: u32::from_le_bytes(arr(b, 8)),
            reserved1: u32::from_le_bytes(arr(b, 12)),
            shape,
            byte_offset: u64::from_le_bytes(arr(b, 80)),
            byte_length: u64::from_le_bytes(arr(b, 88)),
            scale: u32::from_le_bytes(arr(b, 96)),
            outer: u32::from_le_bytes(arr(b, 100)),
            block_elems: u32::from_le_bytes(arr(b, 104)),
            block_bytes: u32::from_le_bytes(arr(b, 108)),
            reserved2: arr(b, 112),
        }
    }

    /// Reads descriptor `i` of a block whose metadata is in `buf`.
    pub fn read(buf: &[u8], i: u32) -> Option<Self> {
        desc_bytes(buf, i).map(Self::parse)
    }

    pub fn to_bytes(self) -> [u8; DESC_LEN] {
        let mut b = [0u8; DESC_LEN];
        put(&mut b, 0, &self.dtype.to_le_bytes());
        put(&mut b, 2, &[self.rank, self.scheme]);
        put(&mut b, 4, &self.name_len.to_le_bytes());
        put(&mut b, 8, &self.layout_len.to_le_bytes());
        put(&mut b, 12, &self.reserved1.to_le_bytes());
        for (k, s) in self.shape.iter().enumerate() {
            put(&mut b, 16 + 8 * k, &s.to_le_bytes());
        }
        put(&mut b, 80, &self.byte_offset.to_le_bytes());
        put(&mut b, 88, &self.byte_length.to_le_bytes());
        put(&mut b, 96, &self.scale.to_le_bytes());
        put(&mut b, 100, &self.outer.to_le_bytes());
        put(&mut b, 104, &self.block_elems.to_le_bytes());
        put(&mut b, 108, &self.block_bytes.to_le_bytes());
        put(&mut b, 112, &self.reserved2);
        b
    }

    /// The dims in use (`rank` clamped to 8).
    pub fn dims(&self) -> &[u64] {
        let r = usize::from(self.rank).min(MAX_RANK);
        self.shape.get(..r).unwrap_or(&[])
    }

    /// The exact element count, or `None` when a nonzero product overflows.
    pub fn elements(&self) -> Option<u64> {
        let dims = self.dims();
        if dims.contains(&0) {
            return Some(0);
        }
        dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))
    }
}

/// Start of descriptor `i` from the directory start.
pub(crate) fn desc_start(i: u32) -> Option<usize> {
    usize::try_from(i)
        .ok()?
        .checked_mul(DESC_LEN)?
        .checked_add(HEADER_LEN)
}

/// The 128 bytes of descriptor `i` of a block whose metadata is in `buf`.
pub(crate) fn desc_bytes(buf: &[u8], i: u32) -> Option<&[u8; DESC_LEN]> {
    let start = desc_start(i)?;
    buf.get(start..start.checked_add(DESC_LEN)?)?
        .try_into()
        .ok()
}

/// One field of descriptor `i`, `N` bytes at `field` from its start.
pub(crate) fn desc_field<const N: usize>(buf: &[u8], i: u32, field: u64) -> Option<[u8; N]> {
    let at = desc_start(i)?.checked_add(usize::try_from(field).ok()?)?;
    buf.get(at..at.checked_add(N)?)?.try_into().ok()
}

pub(crate) fn desc_u16(buf: &[u8], i: u32, field: u64) -> Option<u16> {
    desc_field(buf, i, field).map(u16::from_le_bytes)
}

pub(crate) fn desc_u32(buf: &[u8], i: u32, field: u64) -> Option<u32> {
    desc_field(buf, i, field).map(u32::from_le_bytes)
}

pub(crate) fn desc_u64(buf: &[u8], i: u32, field: u64) -> Option<u64> {
    desc_field(buf, i, field).map(u64::from_le_bytes)
}

/// Same as [`desc_start`] in u64, for error offsets (never overflows).
pub(crate) fn desc_off(i: u32) -> u64 {
    HEADER_LEN as u64 + DESC_LEN as u64 * u64::from(i)
}

/// `ceil(elements * bits / 8)`, exactly; `None` when above u64.
pub(crate) fn packed_len(elements: u64, bits: u32) -> Option<u64> {
    let bits128 = u128::from(elements) * u128::from(bits);
    u64::try_from(bits128.div_ceil(8)).ok()
}

/// The lengths a header promises, after the header checks of spec section 7
/// step 1 (FRAME, then the count cap as LIMIT).
///
/// Returns `(meta_end, block_len)`: `meta_end = 32 + 128*count + heap_bytes`
/// is where descriptors and heap end; `block_len = P + payload_bytes`, with
/// `P = align64(meta_end)`, is the length of the whole block. A stream
/// reader reads `block_len - 32` more bytes (in bounded chunks) and then
/// calls [`validate`](fn@super::validate) on the whole block.
///
/// # Errors
///
/// In this order: FRAME at 0 (magic), 4 (version), 6 (flags bit 0 clear or
/// a bit in 2..15 set), 24 (reserved); LIMIT at 8 when `count` is above
/// `limits.max_count()`; EOF at 16 when `P + payload_bytes` overflows u64
/// (it cannot fit in any buffer).
///
/// # Examples
///
/// ```
/// use kiln_serde::{tensors::{header_lens, TensorsBuilder}, Limits};
/// let t = TensorsBuilder::new().build().unwrap();
/// let header: [u8; 32] = t.as_bytes()[..32].try_into().unwrap();
/// assert_eq!(header_lens(&header, &Limits::default()).unwrap(), (32, 64));
/// ```
pub fn header_lens(header: &[u8; HEADER_LEN], limits: &Limits) -> Result<(u64, u64)> {
    let h = RawHeader::parse(header);
    let (meta_end, block) = check_header(&h, limits)?;
    match block {
        Some(b) => Ok((meta_end, b)),
        None => Err(payload_overflow(&h)),
    }
}

/// Bytes of descriptors and name heap after the header (`128 * count +
/// heap_bytes`, no overflow in u64). When `P + payload_bytes` overflows, a
/// stream reads these first, so a short one is EOF at the count field
/// (spec 7 step 1), as on a slice.
pub(crate) fn meta_bytes(header: &[u8; HEADER_LEN]) -> u64 {
    RawHeader::parse(header).meta_bytes()
}

#[cold]
pub(crate) fn payload_overflow(h: &RawHeader) -> Error {
    Error::at(
        ErrorCode::Eof,
        H_PAYLOAD,
        format!(
            "directory payload_bytes {} overflows the block length",
            h.payload_bytes
        ),
    )
}

/// Step 1's FRAME and LIMIT checks; returns `meta_end` and the block
/// length, `None` when `P + payload_bytes` overflows u64.
pub(crate) fn check_header(h: &RawHeader, limits: &Limits) -> Result<(u64, Option<u64>)> {
    if h.magic != MAGIC {
        return Err(Error::at(
            ErrorCode::Frame,
            0,
            format!("directory magic is {:02x?}, expected \"KDIR\"", h.magic),
        ));
    }
    if h.version != VERSION {
        return Err(Error::at(
            ErrorCode::Frame,
            H_VERSION,
            format!("directory version {} is not 2", h.version),
        ));
    }
    if h.flags & FLAG_LE == 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            H_FLAGS,
            "directory flags: the little-endian bit 0 is clear",
        ));
    }
    if h.flags & !(FLAG_LE | FLAG_NAMES) != 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            H_FLAGS,
            format!(
                "directory flags {:#06x} set a reserved bit (2..15)",
                h.flags
            ),
        ));
    }
    if h.reserved != 0 {
        return Err(Error::at(
            ErrorCode::Frame,
            H_RESERVED,
            "directory header reserved bytes are not 0",
        ));
    }
    if u64::from(h.count) > limits.max_count() {
        return Err(Error::at(
            ErrorCode::Limit,
            H_COUNT,
            format!(
                "directory count {} is above the cap {}",
                h.count,
                limits.max_count()
            ),
        ));
    }
    let meta_end = HEADER_LEN as u64 + h.meta_bytes();
    let block = align64(meta_end).and_then(|p| p.checked_add(h.payload_bytes));
    Ok((meta_end, block))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_desc_round_trip() {
        let h = RawHeader {
            magic: MAGIC,
            version: 2,
            flags: 3,
            count: 7,
            heap_bytes: 9,
            payload_bytes: 1 << 40,
            reserved: 0,
        };
        assert_eq!(RawHeader::parse(&h.to_bytes()), h);
        let d = RawDesc {
            dtype: 12,
            rank: 3,
            scheme: 2,
            name_len: 5,
            layout_len: 0,
            reserved1: 0,
            shape: [2, 3, 4, 0, 0, 0, 0, 0],
            byte_offset: 64,
            byte_length: 96,
            scale: 1,
            outer: 0,
            block_elems: 4,
            block_bytes: 0,
            reserved2: [0; 16],
        };
        let b = d.to_bytes();
        assert_eq!(RawDesc::parse(&b), d);
        assert_eq!(d.dims(), &[2, 3, 4]);
        assert_eq!(d.elements(), Some(24));
    }

    #[test]
    fn elements_edge_cases() {
        let mut d = RawDesc::default();
        assert_eq!(d.elements(), Some(1), "rank 0 is one element");
        d.rank = 2;
        d.shape[0] = u64::MAX;
        d.shape[1] = 0;
        assert_eq!(d.elements(), Some(0), "a zero dim wins over overflow");
        d.shape[1] = 2;
        assert_eq!(d.elements(), None);
    }

    #[test]
    fn packed_len_is_exact() {
        assert_eq!(packed_len(3, 4), Some(2));
        assert_eq!(packed_len(0, 4), Some(0));
        assert_eq!(packed_len(u64::MAX, 8), Some(u64::MAX));
        assert_eq!(packed_len(u64::MAX, 16), None);
        assert_eq!(packed_len(u64::MAX, 4), Some(u64::MAX / 2 + 1));
    }

    #[test]
    fn align() {
        assert_eq!(align64(0), Some(0));
        assert_eq!(align64(1), Some(64));
        assert_eq!(align64(64), Some(64));
        assert_eq!(align64(u64::MAX), None);
    }
}
