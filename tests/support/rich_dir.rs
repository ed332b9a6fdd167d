//! The rich base directory of `tests/tensors.rs` (eight tensors: named
//! and unnamed, per-block and outer-scale quantization, an opaque layout
//! used twice, a scalar, an empty tensor), written by the spec-derived
//! writer, and the table of single faults in it with the code and offset
//! spec 7 gives each.

use kiln_serde::tensors::{Dtype, Quant, TensorSpec, Tensors, TensorsBuilder};
use kiln_serde::ErrorCode;

use super::d;
use super::spec_dir::{self, canonical, get32, get64, put16, put32, put64, t, T};

pub const SCALE: [f32; 2] = [0.5, 0.25];
pub const OUTER: [half::f16; 1] = [half::f16::from_f32_const(2.0)];
pub const BF: [half::bf16; 1] = [half::bf16::from_f32_const(1.0)];

pub fn rich_specs() -> Vec<TensorSpec<'static>> {
    vec![
        // 0
        TensorSpec::from_slice(&[2], &SCALE).named("scale"),
        // 1: u8 [4] per block of 2, scale = tensor 0 (2 elements)
        TensorSpec::new(Dtype::U8, &[4], &[1u8, 2, 3, 4][..])
            .named("q")
            .with_quant(Quant::PerBlock {
                scale: 0,
                block_elems: 2,
            }),
        // 2: f16 scalar (outer scale)
        TensorSpec::from_pod_slice(Dtype::F16, &[], &OUTER).named("outer"),
        // 3: i4 [3] per block of 3 with outer, scale = 4
        TensorSpec::new(Dtype::I4, &[3], &[0x21u8, 0x03][..])
            .named("q3")
            .with_quant(Quant::PerBlockOuter {
                scale: 4,
                outer: 2,
                block_elems: 3,
            }),
        // 4: unnamed bf16 [1]
        TensorSpec::from_pod_slice(Dtype::Bf16, &[1], &BF),
        // 5, 6: opaque 5000 "q4_k" 256 elems in 144 bytes
        TensorSpec::opaque(5000, "q4_k", 256, 144, &[512], vec![0xAB; 288]).named("k"),
        TensorSpec::opaque(5000, "q4_k", 256, 144, &[256], vec![0xCD; 144]).named("k2"),
        // 7: empty f64 [0, 3]
        TensorSpec::new(Dtype::F64, &[0, 3], &[][..]).named("e"),
    ]
}

pub fn rich() -> Tensors {
    let mut b = TensorsBuilder::new();
    for s in rich_specs() {
        b.push(s);
    }
    b.build().unwrap()
}

/// [`rich_specs`] as the spec-derived writer sees them.
pub fn rich_ts() -> Vec<T> {
    use spec_dir::{le16, BF16, F16, F32, F64, I4, U8};
    let f32s: Vec<u8> = SCALE.iter().flat_map(|x| x.to_le_bytes()).collect();
    vec![
        t(F32, &[2], f32s).named("scale"),
        t(U8, &[4], [1, 2, 3, 4]).named("q").quant(2, 0, 0, 2),
        t(F16, &[], le16(&[OUTER[0].to_bits()])).named("outer"),
        t(I4, &[3], [0x21, 0x03]).named("q3").quant(3, 4, 2, 3),
        t(BF16, &[1], le16(&[BF[0].to_bits()])),
        t(5000, &[512], vec![0xAB; 288])
            .named("k")
            .layout(b"q4_k", 256, 144),
        t(5000, &[256], vec![0xCD; 144])
            .named("k2")
            .layout(b"q4_k", 256, 144),
        t(F64, &[0, 3], []).named("e"),
    ]
}

/// The rich directory as the spec-derived writer writes it (equal to the
/// builder's bytes, checked in `rich_directory_validates_and_views`), with
/// offsets into it computed from the spec.
pub struct Rich {
    pub bytes: Vec<u8>,
    pub ts: Vec<T>,
    pub p: usize,
}

impl Rich {
    pub fn new() -> Self {
        let ts = rich_ts();
        Rich {
            bytes: canonical(&ts),
            p: spec_dir::payload_start(&ts) as usize,
            ts,
        }
    }
    /// Heap offset (absolute) of the name of tensor `i`.
    pub fn name_at(&self, i: usize) -> usize {
        spec_dir::name_at(&self.ts, i) as usize
    }
    pub fn layout_name_at(&self, i: usize) -> usize {
        spec_dir::layout_name_at(&self.ts, i) as usize
    }
    pub fn off(&self, i: usize) -> usize {
        self.p + spec_dir::greedy(&self.ts).0[i] as usize
    }
}

pub type Mutation = fn(&mut Rich);
pub type Case = (&'static str, Mutation, ErrorCode, fn(&Rich) -> usize);

/// (what, mutation, code, offset) over the rich directory.
pub fn table() -> Vec<Case> {
    vec![
        // ---- step 1: header
        ("magic", |r| r.bytes[1] = b'X', ErrorCode::Frame, |_| 0),
        ("version", |r| r.bytes[4] = 3, ErrorCode::Frame, |_| 4),
        (
            "flags le bit",
            |r| r.bytes[6] &= !1,
            ErrorCode::Frame,
            |_| 6,
        ),
        ("flags bit 2", |r| r.bytes[6] |= 4, ErrorCode::Frame, |_| 6),
        (
            "flags bit 15",
            |r| r.bytes[7] |= 0x80,
            ErrorCode::Frame,
            |_| 6,
        ),
        (
            "header reserved",
            |r| r.bytes[31] = 1,
            ErrorCode::Frame,
            |_| 24,
        ),
        (
            "heap_bytes past the end",
            |r| put32(&mut r.bytes, 12, 1 << 30),
            ErrorCode::Eof,
            |_| 8,
        ),
        (
            "payload_bytes past the end",
            |r| {
                let v = get64(&r.bytes, 16);
                put64(&mut r.bytes, 16, v + 1)
            },
            ErrorCode::Eof,
            |_| 16,
        ),
        (
            "payload_bytes overflows",
            |r| put64(&mut r.bytes, 16, u64::MAX - 10),
            ErrorCode::Eof,
            |_| 16,
        ),
        // ---- step 2: descriptors
        (
            "desc reserved 12",
            |r| r.bytes[d(1) + 13] = 1,
            ErrorCode::Frame,
            |_| d(1) + 12,
        ),
        (
            "desc reserved 112",
            |r| r.bytes[d(2) + 127] = 1,
            ErrorCode::Frame,
            |_| d(2) + 112,
        ),
        (
            "dtype 0",
            |r| put16(&mut r.bytes, d(0), 0),
            ErrorCode::Type,
            |_| d(0),
        ),
        (
            "dtype 20",
            |r| put16(&mut r.bytes, d(0), 20),
            ErrorCode::Type,
            |_| d(0),
        ),
        (
            "dtype 4095",
            |r| put16(&mut r.bytes, d(0), 4095),
            ErrorCode::Type,
            |_| d(0),
        ),
        (
            "dtype 32768",
            |r| put16(&mut r.bytes, d(0), 32768),
            ErrorCode::Type,
            |_| d(0),
        ),
        (
            "rank 9",
            |r| r.bytes[d(0) + 2] = 9,
            ErrorCode::Type,
            |_| d(0) + 2,
        ),
        (
            "shape slot 3 past rank 1",
            |r| put64(&mut r.bytes, d(0) + 16 + 24, 1),
            ErrorCode::Type,
            |_| d(0) + 16 + 24,
        ),
        (
            "shape slot 7 past rank 1",
            |r| put64(&mut r.bytes, d(0) + 16 + 56, 1),
            ErrorCode::Type,
            |_| d(0) + 16 + 56,
        ),
        (
            "element count overflows",
            |r| {
                r.bytes[d(0) + 2] = 2;
                put64(&mut r.bytes, d(0) + 16, 1 << 32);
                put64(&mut r.bytes, d(0) + 24, 1 << 32);
            },
            ErrorCode::Limit,
            |_| d(0) + 16,
        ),
        (
            "quant scheme 4",
            |r| r.bytes[d(0) + 3] = 4,
            ErrorCode::Type,
            |_| d(0) + 3,
        ),
        (
            "quant on an f32",
            |r| r.bytes[d(0) + 3] = 1,
            ErrorCode::Type,
            |_| d(0) + 3,
        ),
        (
            "quant on an opaque dtype",
            |r| r.bytes[d(5) + 3] = 1,
            ErrorCode::Type,
            |_| d(5) + 3,
        ),
        (
            "opaque without a layout name",
            |r| put32(&mut r.bytes, d(5) + 8, 0),
            ErrorCode::Type,
            |_| d(5) + 8,
        ),
        (
            "layout_len on a non-opaque dtype",
            |r| put32(&mut r.bytes, d(0) + 8, 1),
            ErrorCode::Type,
            |_| d(0) + 8,
        ),
        (
            "scale without quant",
            |r| put32(&mut r.bytes, d(0) + 96, 1),
            ErrorCode::Type,
            |_| d(0) + 96,
        ),
        (
            "outer with scheme 2",
            |r| put32(&mut r.bytes, d(1) + 100, 2),
            ErrorCode::Type,
            |_| d(1) + 100,
        ),
        (
            "block_elems without quant",
            |r| put32(&mut r.bytes, d(0) + 104, 1),
            ErrorCode::Type,
            |_| d(0) + 104,
        ),
        (
            "block_elems with scheme 1",
            |r| r.bytes[d(1) + 3] = 1,
            ErrorCode::Type,
            |_| d(1) + 104,
        ),
        (
            "block_bytes on a non-opaque dtype",
            |r| put32(&mut r.bytes, d(0) + 108, 1),
            ErrorCode::Type,
            |_| d(0) + 108,
        ),
        (
            "scale index past count",
            |r| put32(&mut r.bytes, d(1) + 96, 8),
            ErrorCode::Type,
            |_| d(1) + 96,
        ),
        (
            "scale index is itself",
            |r| put32(&mut r.bytes, d(1) + 96, 1),
            ErrorCode::Type,
            |_| d(1) + 96,
        ),
        (
            "outer index past count",
            |r| put32(&mut r.bytes, d(3) + 100, 99),
            ErrorCode::Type,
            |_| d(3) + 100,
        ),
        (
            "outer index is itself",
            |r| put32(&mut r.bytes, d(3) + 100, 3),
            ErrorCode::Type,
            |_| d(3) + 100,
        ),
        (
            "block_elems 0 with scheme 2",
            |r| put32(&mut r.bytes, d(1) + 104, 0),
            ErrorCode::Type,
            |_| d(1) + 104,
        ),
        (
            "elements not a multiple of block_elems",
            |r| put32(&mut r.bytes, d(1) + 104, 3),
            ErrorCode::Type,
            |_| d(1) + 104,
        ),
        (
            "opaque block_elems 0",
            |r| put32(&mut r.bytes, d(5) + 104, 0),
            ErrorCode::Type,
            |_| d(5) + 104,
        ),
        (
            "opaque block_bytes 0",
            |r| put32(&mut r.bytes, d(5) + 108, 0),
            ErrorCode::Type,
            |_| d(5) + 108,
        ),
        (
            "opaque elements not a multiple of block_elems",
            |r| put32(&mut r.bytes, d(5) + 104, 500),
            ErrorCode::Type,
            |_| d(5) + 104,
        ),
        (
            "byte_length mismatch",
            |r| put64(&mut r.bytes, d(0) + 88, 9),
            ErrorCode::Type,
            |_| d(0) + 88,
        ),
        (
            "byte size overflows u64",
            |r| put64(&mut r.bytes, d(0) + 16, 1 << 62),
            ErrorCode::Limit,
            |_| d(0) + 88,
        ),
        (
            "opaque byte size overflows u64",
            |r| {
                put64(&mut r.bytes, d(5) + 16, u64::MAX / 256 * 256);
                put32(&mut r.bytes, d(5) + 108, u32::MAX);
            },
            ErrorCode::Limit,
            |_| d(5) + 88,
        ),
        (
            "4-bit byte_length rounds up",
            |r| put64(&mut r.bytes, d(3) + 88, 1),
            ErrorCode::Type,
            |_| d(3) + 88,
        ),
        (
            "opaque block_elems disagree",
            |r| {
                put32(&mut r.bytes, d(6) + 104, 128);
                put32(&mut r.bytes, d(6) + 108, 72);
            },
            ErrorCode::Type,
            |_| d(6) + 104,
        ),
        (
            "opaque block_bytes disagree",
            |r| {
                put64(&mut r.bytes, d(6) + 16, 512);
                put32(&mut r.bytes, d(6) + 108, 72);
            },
            ErrorCode::Type,
            |_| d(6) + 108,
        ),
        (
            "offset not greedy (packed tight)",
            |r| put64(&mut r.bytes, d(1) + 80, 8),
            ErrorCode::Type,
            |_| d(1) + 80,
        ),
        (
            "offset not greedy (overlap)",
            |r| put64(&mut r.bytes, d(1) + 80, 0),
            ErrorCode::Type,
            |_| d(1) + 80,
        ),
        (
            "range past payload_bytes",
            |r| {
                let v = get64(&r.bytes, 16);
                put64(&mut r.bytes, 16, v - 1);
            },
            ErrorCode::Type,
            // the trailing empty tensor sits at the aligned end
            |_| d(7) + 80,
        ),
        // ---- step 3: after the descriptors
        (
            "names flag clear",
            |r| r.bytes[6] &= !2,
            ErrorCode::Frame,
            |_| 6,
        ),
        (
            "heap_bytes not the sum",
            |r| {
                let v = get32(&r.bytes, 12);
                put32(&mut r.bytes, 12, v - 1);
            },
            ErrorCode::Type,
            |_| 12,
        ),
        (
            "payload_bytes not the running end",
            |r| {
                let v = get64(&r.bytes, 16);
                put64(&mut r.bytes, 16, v + 1);
                r.bytes.push(0);
            },
            ErrorCode::Type,
            |_| 16,
        ),
        (
            "scale dtype not allowed",
            |r| put32(&mut r.bytes, d(1) + 96, 7),
            ErrorCode::Type,
            |_| d(1) + 96,
        ),
        (
            "scale element count",
            |r| put32(&mut r.bytes, d(1) + 96, 4),
            ErrorCode::Type,
            |_| d(1) + 96,
        ),
        (
            "scale dtype is a data dtype",
            |r| put32(&mut r.bytes, d(1) + 96, 3),
            ErrorCode::Type,
            |_| d(1) + 96,
        ),
        (
            "outer dtype not allowed",
            |r| put32(&mut r.bytes, d(3) + 100, 1),
            ErrorCode::Type,
            |_| d(3) + 100,
        ),
        (
            "outer element count",
            |r| put32(&mut r.bytes, d(3) + 100, 0),
            ErrorCode::Type,
            |_| d(3) + 100,
        ),
        (
            "name not UTF-8",
            |r| {
                let at = r.name_at(2);
                r.bytes[at] = 0xFF;
            },
            ErrorCode::Utf8,
            |r| r.name_at(2),
        ),
        (
            "duplicate name",
            |r| {
                let at = r.name_at(6);
                r.bytes[at..at + 2].copy_from_slice(b"q3");
            },
            ErrorCode::Type,
            |r| r.name_at(6),
        ),
        (
            "layout name not UTF-8",
            |r| {
                let at = r.layout_name_at(5);
                r.bytes[at + 1] = 0xC0;
            },
            ErrorCode::Utf8,
            |r| r.layout_name_at(5),
        ),
        (
            "layout names disagree",
            |r| {
                let at = r.layout_name_at(6);
                r.bytes[at + 1] = b'5';
            },
            ErrorCode::Type,
            |r| r.layout_name_at(6),
        ),
        (
            "nonzero pad before P",
            |r| {
                let p = r.p;
                r.bytes[p - 1] = 1;
            },
            ErrorCode::Type,
            |r| r.p - 1,
        ),
        (
            "nonzero payload gap",
            |r| {
                let at = r.off(0) + 8;
                r.bytes[at] = 1;
            },
            ErrorCode::Type,
            |r| r.off(0) + 8,
        ),
        (
            "nonzero last gap byte",
            |r| {
                let at = r.off(1) - 1;
                r.bytes[at] = 0x80;
            },
            ErrorCode::Type,
            |r| r.off(1) - 1,
        ),
        (
            "4-bit tail nibble",
            |r| {
                let at = r.off(3) + 1;
                r.bytes[at] |= 0x10;
            },
            ErrorCode::Type,
            |r| r.off(3) + 1,
        ),
    ]
}
