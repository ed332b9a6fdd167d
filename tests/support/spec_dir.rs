//! The test oracle for tensor directories: a writer derived from spec
//! section 5 alone (the header and descriptor tables, 5.4's heap, 5.7's
//! greedy placement), plain byte pushing that knows nothing of the
//! implementation. Tests build valid blocks with [`canonical`], and faulty
//! ones with the knobs below: tensors placed by hand ([`place`], [`meta`]),
//! a descriptor's `byte_length` or a header field overridden
//! ([`T::length`], [`Header`]), or one field patched afterwards
//! ([`set`], [`put32`], ...) at the offsets named by the `H_*` and `F_*`
//! constants. [`frozen`] has the few Frozen pieces (counts, strings, tags)
//! that tests write by hand.
//!
//! Included with `#[path = "support/spec_dir.rs"] mod spec_dir;` (from
//! `tests/support/golden_cases.rs` as `#[path = "spec_dir.rs"]`).

#![allow(dead_code)]

// Header field offsets (spec 5.1).
pub const H_MAGIC: u64 = 0;
pub const H_VERSION: u64 = 4;
pub const H_FLAGS: u64 = 6;
pub const H_COUNT: u64 = 8;
pub const H_HEAP: u64 = 12;
pub const H_PAYLOAD: u64 = 16;
pub const H_RESERVED: u64 = 24;
/// Header length.
pub const HEADER: u64 = 32;

/// Header flag bit 0 (little-endian, always set) and bit 1 (names).
pub const FLAG_LE: u16 = 1;
pub const FLAG_NAMES: u16 = 2;

// Descriptor field offsets, from the descriptor start (spec 5.2).
pub const F_DTYPE: u64 = 0;
pub const F_RANK: u64 = 2;
pub const F_SCHEME: u64 = 3;
pub const F_NAME_LEN: u64 = 4;
pub const F_LAYOUT_LEN: u64 = 8;
pub const F_RESERVED1: u64 = 12;
pub const F_SHAPE: u64 = 16;
pub const F_OFFSET: u64 = 80;
pub const F_LENGTH: u64 = 88;
pub const F_SCALE: u64 = 96;
pub const F_OUTER: u64 = 100;
pub const F_BLOCK_ELEMS: u64 = 104;
pub const F_BLOCK_BYTES: u64 = 108;
pub const F_RESERVED2: u64 = 112;
/// Descriptor length.
pub const DESC: u64 = 128;

// Dtype codes (spec 5.3).
pub const BOOL: u16 = 1;
pub const U8: u16 = 2;
pub const I8: u16 = 3;
pub const U16: u16 = 4;
pub const I16: u16 = 5;
pub const U32: u16 = 6;
pub const I32: u16 = 7;
pub const U64: u16 = 8;
pub const I64: u16 = 9;
pub const F16: u16 = 10;
pub const BF16: u16 = 11;
pub const F32: u16 = 12;
pub const F64: u16 = 13;
pub const F8E4M3: u16 = 14;
pub const F8E5M2: u16 = 15;
pub const F8E8M0: u16 = 16;
pub const F4E2M1: u16 = 17;
pub const I4: u16 = 18;
pub const U4: u16 = 19;

/// Start of descriptor `i` from the directory start.
pub const fn d(i: u64) -> u64 {
    HEADER + DESC * i
}

pub const fn align64(x: u64) -> u64 {
    x.div_ceil(64) * 64
}

/// The 32-byte header (spec 5.1), every field settable. [`Header::new`]
/// gives the valid values for the counts it is handed.
#[derive(Clone, Debug)]
pub struct Header {
    pub magic: [u8; 4],
    pub version: u16,
    pub flags: u16,
    pub count: u32,
    pub heap_bytes: u32,
    pub payload_bytes: u64,
    pub reserved: [u8; 8],
}

impl Header {
    /// Magic `KDIR`, version 2, reserved 0, and the given fields.
    pub fn new(flags: u16, count: u32, heap_bytes: u32, payload_bytes: u64) -> Header {
        Header {
            magic: *b"KDIR",
            version: 2,
            flags,
            count,
            heap_bytes,
            payload_bytes,
            reserved: [0; 8],
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER as usize);
        b.extend_from_slice(&self.magic);
        b.extend_from_slice(&self.version.to_le_bytes());
        b.extend_from_slice(&self.flags.to_le_bytes());
        b.extend_from_slice(&self.count.to_le_bytes());
        b.extend_from_slice(&self.heap_bytes.to_le_bytes());
        b.extend_from_slice(&self.payload_bytes.to_le_bytes());
        b.extend_from_slice(&self.reserved);
        b
    }
}

/// A header alone: `Header::new(..).bytes()`.
pub fn header(flags: u16, count: u32, heap_bytes: u32, payload_bytes: u64) -> Vec<u8> {
    Header::new(flags, count, heap_bytes, payload_bytes).bytes()
}

/// One tensor as the writer sees it: every descriptor field as written,
/// so a test can write an inconsistent one. `byte_length` is `data.len()`
/// unless [`T::length`] overrides it.
#[derive(Clone, Debug)]
pub struct T {
    pub dtype: u16,
    pub shape: Vec<u64>,
    pub name: Vec<u8>,
    pub layout: Vec<u8>,
    pub scheme: u8,
    pub scale: u32,
    pub outer: u32,
    pub block_elems: u32,
    pub block_bytes: u32,
    pub data: Vec<u8>,
    pub length: Option<u64>,
}

/// An unnamed, unquantized tensor.
pub fn t(dtype: u16, shape: &[u64], data: impl Into<Vec<u8>>) -> T {
    T {
        dtype,
        shape: shape.to_vec(),
        name: Vec::new(),
        layout: Vec::new(),
        scheme: 0,
        scale: 0,
        outer: 0,
        block_elems: 0,
        block_bytes: 0,
        data: data.into(),
        length: None,
    }
}

impl T {
    pub fn named(mut self, name: &str) -> T {
        self.name = name.as_bytes().to_vec();
        self
    }

    /// A name given as raw bytes (not necessarily UTF-8).
    pub fn name_bytes(mut self, name: &[u8]) -> T {
        self.name = name.to_vec();
        self
    }

    /// Quant scheme, scale index, outer index, block_elems (as written).
    pub fn quant(mut self, scheme: u8, scale: u32, outer: u32, block_elems: u32) -> T {
        self.scheme = scheme;
        self.scale = scale;
        self.outer = outer;
        self.block_elems = block_elems;
        self
    }

    /// Layout name, block_elems, block_bytes (as written).
    pub fn layout(mut self, name: &[u8], block_elems: u32, block_bytes: u32) -> T {
        self.layout = name.to_vec();
        self.block_elems = block_elems;
        self.block_bytes = block_bytes;
        self
    }

    /// A `byte_length` other than `data.len()` (for lengths whose payload
    /// is not there).
    pub fn length(mut self, byte_length: u64) -> T {
        self.length = Some(byte_length);
        self
    }

    /// The descriptor's `byte_length`.
    pub fn byte_length(&self) -> u64 {
        self.length.unwrap_or(self.data.len() as u64)
    }

    /// The 128-byte descriptor (spec 5.2) with this `byte_offset`; the
    /// shape slots past the rank and the reserved bytes are 0.
    pub fn desc(&self, offset: u64) -> [u8; 128] {
        let mut b = [0u8; 128];
        let mut put = |at: u64, v: &[u8]| {
            let at = at as usize;
            b[at..at + v.len()].copy_from_slice(v)
        };
        put(F_DTYPE, &self.dtype.to_le_bytes());
        put(F_RANK, &[self.shape.len() as u8]);
        put(F_SCHEME, &[self.scheme]);
        put(F_NAME_LEN, &(self.name.len() as u32).to_le_bytes());
        put(F_LAYOUT_LEN, &(self.layout.len() as u32).to_le_bytes());
        for (k, s) in self.shape.iter().enumerate() {
            put(F_SHAPE + 8 * k as u64, &s.to_le_bytes());
        }
        put(F_OFFSET, &offset.to_le_bytes());
        put(F_LENGTH, &self.byte_length().to_le_bytes());
        put(F_SCALE, &self.scale.to_le_bytes());
        put(F_OUTER, &self.outer.to_le_bytes());
        put(F_BLOCK_ELEMS, &self.block_elems.to_le_bytes());
        put(F_BLOCK_BYTES, &self.block_bytes.to_le_bytes());
        b
    }
}

/// The name heap (spec 5.4): every name in descriptor order, then every
/// layout name in descriptor order.
pub fn heap(ts: &[T]) -> Vec<u8> {
    let mut h: Vec<u8> = ts.iter().flat_map(|t| t.name.iter().copied()).collect();
    h.extend(ts.iter().flat_map(|t| t.layout.iter().copied()));
    h
}

/// Where the heap starts: right after the descriptors.
pub fn heap_start(ts: &[T]) -> u64 {
    d(ts.len() as u64)
}

/// Where tensor `i`'s name starts in the canonical block of `ts`.
pub fn name_at(ts: &[T], i: usize) -> u64 {
    heap_start(ts) + ts[..i].iter().map(|t| t.name.len() as u64).sum::<u64>()
}

/// Where tensor `i`'s layout name starts in the canonical block of `ts`.
pub fn layout_name_at(ts: &[T], i: usize) -> u64 {
    let names: u64 = ts.iter().map(|t| t.name.len() as u64).sum();
    let before: u64 = ts[..i].iter().map(|t| t.layout.len() as u64).sum();
    heap_start(ts) + names + before
}

/// `P`, the payload region start: `align64(32 + 128*count + heap_bytes)`.
pub fn payload_start(ts: &[T]) -> u64 {
    align64(heap_start(ts) + heap(ts).len() as u64)
}

/// The header flags spec 5.7 asks for: little-endian, plus the names bit
/// when a tensor has a name.
pub fn flags(ts: &[T]) -> u16 {
    let named = ts.iter().any(|t| !t.name.is_empty());
    FLAG_LE | if named { FLAG_NAMES } else { 0 }
}

/// The greedy offsets of spec 5.7 and the running end after the last tensor.
pub fn greedy(ts: &[T]) -> (Vec<u64>, u64) {
    let mut running = 0u64;
    let mut offsets = Vec::new();
    for t in ts {
        let off = align64(running);
        offsets.push(off);
        running = off + t.byte_length();
    }
    (offsets, running)
}

/// Everything before the payload region: the header (flags from
/// [`flags`], count, heap_bytes and `payload_bytes` as given), the
/// descriptors with the given offsets, the heap, and the zero pad to `P`.
pub fn meta(ts: &[T], offsets: &[u64], payload_bytes: u64) -> Vec<u8> {
    let heap = heap(ts);
    let h = Header::new(flags(ts), ts.len() as u32, heap.len() as u32, payload_bytes);
    let mut b = h.bytes();
    for (t, &off) in ts.iter().zip(offsets) {
        b.extend_from_slice(&t.desc(off));
    }
    b.extend_from_slice(&heap);
    pad64(b)
}

/// A block with the tensors at the given offsets and a payload region of
/// `payload_bytes` (each payload copied in order, cut at the region's end).
pub fn place(ts: &[T], offsets: &[u64], payload_bytes: u64) -> Vec<u8> {
    let mut b = meta(ts, offsets, payload_bytes);
    let mut payload = vec![0u8; payload_bytes as usize];
    for (t, &off) in ts.iter().zip(offsets) {
        for (k, &byte) in t.data.iter().enumerate() {
            if let Some(slot) = payload.get_mut(off as usize + k) {
                *slot = byte;
            }
        }
    }
    b.extend_from_slice(&payload);
    b
}

/// The one canonical block of these tensors (spec 5.7).
pub fn canonical(ts: &[T]) -> Vec<u8> {
    let (offsets, end) = greedy(ts);
    place(ts, &offsets, end)
}

// ------------------------------------------------------ patching a block

/// `bytes` zero-padded to a multiple of 64.
pub fn pad64(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.resize(align64(bytes.len() as u64) as usize, 0);
    bytes
}

/// `bytes` with `v` written at `at`.
pub fn set(mut bytes: Vec<u8>, at: u64, v: &[u8]) -> Vec<u8> {
    let at = at as usize;
    bytes[at..at + v.len()].copy_from_slice(v);
    bytes
}

pub fn set16(bytes: Vec<u8>, at: u64, v: u16) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

pub fn set32(bytes: Vec<u8>, at: u64, v: u32) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

pub fn set64(bytes: Vec<u8>, at: u64, v: u64) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

/// The first `len` bytes.
pub fn cut(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes.truncate(len);
    bytes
}

pub fn append(mut bytes: Vec<u8>, more: &[u8]) -> Vec<u8> {
    bytes.extend_from_slice(more);
    bytes
}

/// In place: a u16/u32/u64 LE at byte `at`.
pub fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A u32/u64 LE read at byte `at`.
pub fn get32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

pub fn get64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

pub fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Frozen pieces written by hand (spec 2).
pub mod frozen {
    /// A count (seq, map, str or bytes length): u32 LE.
    pub fn count(n: u32) -> [u8; 4] {
        n.to_le_bytes()
    }

    /// A str: its byte count, then the bytes.
    pub fn str(s: &str) -> Vec<u8> {
        let mut b = count(s.len() as u32).to_vec();
        b.extend_from_slice(s.as_bytes());
        b
    }

    /// An enum variant index: u32 LE.
    pub fn variant(i: u32) -> [u8; 4] {
        i.to_le_bytes()
    }

    /// Option tags.
    pub const NONE: u8 = 0;
    pub const SOME: u8 = 1;

    /// The parts, one after the other.
    pub fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    /// `unit` `n` times, then `tail`.
    pub fn repeat(unit: &[u8], n: usize, tail: &[u8]) -> Vec<u8> {
        let mut v = unit.repeat(n);
        v.extend_from_slice(tail);
        v
    }
}
