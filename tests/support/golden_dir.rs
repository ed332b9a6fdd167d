//! The tensor directory cases (spec sections 5, 6, 7 and 8).
//!
//! Every block here is written by the small hand writer below, which knows
//! the wire layout from the spec and nothing of the implementation: the
//! implementation's builder is checked against it (the runner re-encodes
//! every `ok` case). An invalid case is a valid block with exactly one
//! field changed, or one placed by hand ([`place`]), so it holds one fault;
//! its `offset` is the first byte of the field or value at fault (spec 7).

use serde_json::{json, Value};

use super::golden_digest::sha256_hex;
use super::Case;

// Header field offsets (spec 5.1).
const H_VERSION: u64 = 4;
const H_FLAGS: u64 = 6;
const H_COUNT: u64 = 8;
const H_HEAP: u64 = 12;
const H_PAYLOAD: u64 = 16;
const H_RESERVED: u64 = 24;

// Descriptor field offsets, from the descriptor start (spec 5.2).
const F_DTYPE: u64 = 0;
const F_RANK: u64 = 2;
const F_SCHEME: u64 = 3;
const F_NAME_LEN: u64 = 4;
const F_LAYOUT_LEN: u64 = 8;
const F_RESERVED1: u64 = 12;
const F_SHAPE: u64 = 16;
const F_OFFSET: u64 = 80;
const F_LENGTH: u64 = 88;
const F_SCALE: u64 = 96;
const F_OUTER: u64 = 100;
const F_BLOCK_ELEMS: u64 = 104;
const F_BLOCK_BYTES: u64 = 108;
const F_RESERVED2: u64 = 112;

// Dtype codes (spec 5.3).
const BOOL: u16 = 1;
const U8: u16 = 2;
const I8: u16 = 3;
const U16: u16 = 4;
const I16: u16 = 5;
const U32: u16 = 6;
const I32: u16 = 7;
const U64: u16 = 8;
const I64: u16 = 9;
const F16: u16 = 10;
const BF16: u16 = 11;
const F32: u16 = 12;
const F64: u16 = 13;
const F8E4M3: u16 = 14;
const F8E5M2: u16 = 15;
const F8E8M0: u16 = 16;
const F4E2M1: u16 = 17;
const I4: u16 = 18;
const U4: u16 = 19;

/// Spec names of codes 1..=19, in code order.
const DTYPE_NAMES: [&str; 19] = [
    "bool", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16", "f32", "f64",
    "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "i4", "u4",
];

/// The manifest name of a dtype code: the spec name, or `opaque(CODE)`.
fn dtype_name(code: u16) -> String {
    match code {
        1..=19 => DTYPE_NAMES[usize::from(code - 1)].to_string(),
        _ => format!("opaque({code})"),
    }
}

/// Start of descriptor `i` from the directory start.
const fn d(i: u64) -> u64 {
    32 + 128 * i
}

const fn align64(x: u64) -> u64 {
    x.div_ceil(64) * 64
}

/// One tensor for the hand writer. `byte_length` is `data.len()`.
#[derive(Clone)]
struct T {
    dtype: u16,
    shape: Vec<u64>,
    name: Vec<u8>,
    layout: Vec<u8>,
    scheme: u8,
    scale: u32,
    outer: u32,
    block_elems: u32,
    block_bytes: u32,
    data: Vec<u8>,
}

fn t(dtype: u16, shape: &[u64], data: impl Into<Vec<u8>>) -> T {
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
    }
}

impl T {
    fn named(mut self, name: &str) -> T {
        self.name = name.as_bytes().to_vec();
        self
    }

    fn name_bytes(mut self, name: &[u8]) -> T {
        self.name = name.to_vec();
        self
    }

    /// Quant scheme, scale index, outer index, block_elems (as written).
    fn quant(mut self, scheme: u8, scale: u32, outer: u32, block_elems: u32) -> T {
        self.scheme = scheme;
        self.scale = scale;
        self.outer = outer;
        self.block_elems = block_elems;
        self
    }

    /// Layout name, block_elems, block_bytes (as written).
    fn layout(mut self, name: &[u8], block_elems: u32, block_bytes: u32) -> T {
        self.layout = name.to_vec();
        self.block_elems = block_elems;
        self.block_bytes = block_bytes;
        self
    }

    fn desc(&self, offset: u64) -> [u8; 128] {
        let mut b = [0u8; 128];
        let mut put = |at: usize, v: &[u8]| b[at..at + v.len()].copy_from_slice(v);
        put(0, &self.dtype.to_le_bytes());
        put(2, &[self.shape.len() as u8, self.scheme]);
        put(4, &(self.name.len() as u32).to_le_bytes());
        put(8, &(self.layout.len() as u32).to_le_bytes());
        for (k, s) in self.shape.iter().enumerate() {
            put(16 + 8 * k, &s.to_le_bytes());
        }
        put(80, &offset.to_le_bytes());
        put(88, &(self.data.len() as u64).to_le_bytes());
        put(96, &self.scale.to_le_bytes());
        put(100, &self.outer.to_le_bytes());
        put(104, &self.block_elems.to_le_bytes());
        put(108, &self.block_bytes.to_le_bytes());
        b
    }

    /// The manifest description of this tensor when it decodes.
    fn json(&self) -> Value {
        let name = if self.name.is_empty() {
            Value::Null
        } else {
            Value::String(String::from_utf8(self.name.clone()).expect("ok names are UTF-8"))
        };
        let mut o = json!({
            "name": name,
            "dtype": dtype_name(self.dtype),
            "shape": self.shape,
            "sha256": sha256_hex(&self.data),
        });
        match self.scheme {
            0 => {}
            1 => o["quant"] = json!({"scheme": 1, "scale": self.scale}),
            2 => {
                o["quant"] =
                    json!({"scheme": 2, "scale": self.scale, "block_elems": self.block_elems})
            }
            _ => {
                o["quant"] = json!({"scheme": self.scheme, "scale": self.scale,
                                    "outer": self.outer, "block_elems": self.block_elems})
            }
        }
        if !self.layout.is_empty() {
            o["layout"] = json!({
                "name": String::from_utf8(self.layout.clone()).expect("ok layouts are UTF-8"),
                "block_elems": self.block_elems,
                "block_bytes": self.block_bytes,
            });
        }
        o
    }
}

/// The greedy offsets of spec 5.7 and the running end after the last tensor.
fn greedy(ts: &[T]) -> (Vec<u64>, u64) {
    let mut running = 0u64;
    let mut offsets = Vec::new();
    for t in ts {
        let off = align64(running);
        offsets.push(off);
        running = off + t.data.len() as u64;
    }
    (offsets, running)
}

/// A block with the tensors at the given offsets and a payload region of
/// `payload_bytes` (each payload copied in order, cut at the region's end).
/// Header flags: little-endian, plus the names bit when a tensor has a name.
fn place(ts: &[T], offsets: &[u64], payload_bytes: u64) -> Vec<u8> {
    let count = ts.len() as u64;
    let mut heap: Vec<u8> = Vec::new();
    for t in ts {
        heap.extend_from_slice(&t.name);
    }
    for t in ts {
        heap.extend_from_slice(&t.layout);
    }
    let named = ts.iter().any(|t| !t.name.is_empty());
    let mut b = Vec::new();
    b.extend_from_slice(b"KDIR");
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&(1u16 | if named { 2 } else { 0 }).to_le_bytes());
    b.extend_from_slice(&(count as u32).to_le_bytes());
    b.extend_from_slice(&(heap.len() as u32).to_le_bytes());
    b.extend_from_slice(&payload_bytes.to_le_bytes());
    b.extend_from_slice(&[0u8; 8]);
    for (t, &off) in ts.iter().zip(offsets) {
        b.extend_from_slice(&t.desc(off));
    }
    b.extend_from_slice(&heap);
    let p = align64(b.len() as u64) as usize;
    b.resize(p, 0);
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
fn canonical(ts: &[T]) -> Vec<u8> {
    let (offsets, end) = greedy(ts);
    place(ts, &offsets, end)
}

/// `P`, the payload region start of the canonical block of `ts`.
fn payload_start(ts: &[T]) -> u64 {
    let heap: usize = ts.iter().map(|t| t.name.len() + t.layout.len()).sum();
    align64(d(ts.len() as u64) + heap as u64)
}

/// `bytes` with `v` written at `at`.
fn set(mut bytes: Vec<u8>, at: u64, v: &[u8]) -> Vec<u8> {
    let at = at as usize;
    bytes[at..at + v.len()].copy_from_slice(v);
    bytes
}

fn set16(bytes: Vec<u8>, at: u64, v: u16) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

fn set32(bytes: Vec<u8>, at: u64, v: u32) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

fn set64(bytes: Vec<u8>, at: u64, v: u64) -> Vec<u8> {
    set(bytes, at, &v.to_le_bytes())
}

fn cut(mut bytes: Vec<u8>, len: usize) -> Vec<u8> {
    bytes.truncate(len);
    bytes
}

fn append(mut bytes: Vec<u8>, more: &[u8]) -> Vec<u8> {
    bytes.extend_from_slice(more);
    bytes
}

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le32(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le64(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn entry(name: &str, form: &str, about: &str) -> Value {
    json!({"name": name, "file": format!("{name}.kiln"), "form": form, "description": about})
}

/// A decoding case whose file is `bytes`; `ts` describe its tensors.
fn ok_bytes(name: &str, form: &str, about: &str, bytes: Vec<u8>, ts: &[T]) -> Case {
    let mut e = entry(name, form, about);
    e["expect"] = json!("ok");
    e["tensors"] = Value::Array(ts.iter().map(T::json).collect());
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: e,
    }
}

/// A failing case: `code` at `offset` (from the start of the file).
pub(super) fn err(
    name: &str,
    form: &str,
    about: &str,
    bytes: Vec<u8>,
    code: &str,
    offset: u64,
) -> Case {
    let mut e = entry(name, form, about);
    e["expect"] = json!(code);
    e["offset"] = json!(offset);
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: e,
    }
}

fn ok(name: &str, about: &str, ts: &[T]) -> Case {
    ok_bytes(name, "directory", about, canonical(ts), ts)
}

fn bad(name: &str, about: &str, bytes: Vec<u8>, code: &str, offset: u64) -> Case {
    err(name, "directory", about, bytes, code, offset)
}

// ---------------------------------------------------------------------------
// Shared blocks.

/// `kiln-v2-f8-pair`'s tensors (spec 8).
fn f8_pair() -> Vec<T> {
    vec![t(F8E4M3, &[1], [0x38]), t(F8E5M2, &[1], [0x3c])]
}

/// One u8 [4]: descriptor at 32, P = 192, 196 bytes.
fn one_u8() -> Vec<T> {
    vec![t(U8, &[4], [1, 2, 3, 4])]
}

/// The f8-pair block, bare or inside a frame (for the frame cases).
pub(super) fn f8_pair_block() -> (Vec<u8>, Vec<Value>) {
    let ts = f8_pair();
    (canonical(&ts), ts.iter().map(T::json).collect())
}

/// The f8-pair with names `a` and `b`, or unnamed (for the checkpoint
/// cases): the block and its tensors as JSON.
pub(super) fn named_pair_block(named: bool) -> (Vec<u8>, Vec<Value>) {
    let ts = if named {
        f8_pair()
            .into_iter()
            .zip(["a", "b"])
            .map(|(t, n)| t.named(n))
            .collect()
    } else {
        f8_pair()
    };
    (canonical(&ts), ts.iter().map(T::json).collect())
}

/// The empty directory: the header and 32 zero bytes.
pub(super) fn empty_block() -> Vec<u8> {
    canonical(&[])
}

// ---------------------------------------------------------------------------
// The cases.

/// The seed-named cases of spec section 8.
pub fn seed_cases() -> Vec<Case> {
    let pair = f8_pair();
    let mut big = vec![0x38u8; 100];
    big[99] = 0x39;
    let overlap = [t(F8E4M3, &[100], big), t(F8E5M2, &[16], vec![0x3c; 16])];
    vec![
        ok(
            "kiln-v2-f8-pair",
            "unnamed f8e4m3 [1] byte 0x38 at payload offset 0, 63 zero bytes, f8e5m2 [1] \
             byte 0x3c at offset 64, payload_bytes 65 (P = 320)",
            &pair,
        ),
        bad(
            "kiln-v2-unaligned",
            "f8-pair with the second tensor at offset 1 and payload_bytes 2: the greedy \
             offset is 64; TYPE at descriptor 1's byte_offset (160 + 80)",
            place(&pair, &[0, 1], 2),
            "TYPE",
            d(1) + F_OFFSET,
        ),
        bad(
            "kiln-v2-nonzero-pad",
            "f8-pair with byte 0xA5 at payload offset 32 (file offset 320 + 32), inside the \
             gap between the two tensors",
            set(canonical(&pair), 320 + 32, &[0xa5]),
            "TYPE",
            352,
        ),
        bad(
            "kiln-v2-overlap",
            "f8e4m3 [100] at 0 and f8e5m2 [16] at 64 (inside the first range), payload_bytes \
             100: the greedy offset of tensor 1 is 128; TYPE at its byte_offset (160 + 80)",
            place(&overlap, &[0, 64], 100),
            "TYPE",
            d(1) + F_OFFSET,
        ),
    ]
}

/// One decoding case per dtype 1..=19.
fn dtype_cases() -> Vec<Case> {
    let nan32 = 0x7fc0_0001u32;
    let table: Vec<(u16, Vec<u64>, Vec<u8>)> = vec![
        (BOOL, vec![3], vec![1, 0, 7]),
        (U8, vec![4], vec![0, 1, 0x7f, 0xff]),
        (I8, vec![2, 2], vec![0x80, 0xff, 0, 0x7f]),
        (U16, vec![3], le16(&[1, 0x1234, 0xffff])),
        (I16, vec![2], le16(&[0xffff, 0x8000])),
        (U32, vec![2], le32(&[0xdead_beef, 7])),
        (I32, vec![3], le32(&[(-4i32) as u32, 9, i32::MIN as u32])),
        (U64, vec![1], le64(&[u64::MAX])),
        (I64, vec![2], le64(&[(-1i64) as u64, 1 << 40])),
        (F16, vec![3], le16(&[0x3c00, 0x8000, 0x7e01])),
        (BF16, vec![2], le16(&[0x3f80, 0x7fc1])),
        (
            F32,
            vec![2, 3],
            le32(&[
                1.0f32.to_bits(),
                (-0.0f32).to_bits(),
                nan32,
                f32::INFINITY.to_bits(),
                1e-45f32.to_bits(),
                (-2.5f32).to_bits(),
            ]),
        ),
        (
            F64,
            vec![2],
            le64(&[std::f64::consts::PI.to_bits(), 0x7ff8_0000_0000_0001]),
        ),
        (F8E4M3, vec![4], vec![0x38, 0x7f, 0x80, 0x01]),
        (F8E5M2, vec![2], vec![0x3c, 0x7c]),
        (F8E8M0, vec![3], vec![0x7f, 0xff, 0x00]),
        (F4E2M1, vec![4], vec![0x21, 0xf7]),
        (I4, vec![2, 2], vec![0x8f, 0x71]),
        (U4, vec![6], vec![0x10, 0x32, 0xfe]),
    ];
    table
        .into_iter()
        .map(|(code, shape, data)| {
            let name = format!("dir-dtype-{code:02}-{}", dtype_name(code));
            let about = format!(
                "one unnamed {} {:?} tensor ({} payload bytes); values are never interpreted",
                dtype_name(code),
                shape,
                data.len()
            );
            ok(&name, &about, &[t(code, &shape, data)])
        })
        .collect()
}

/// Other decoding cases: ranks, empty tensors, odd 4-bit counts, names,
/// opaque layouts, quantization, the empty directory.
fn ok_cases() -> Vec<Case> {
    let f = |x: f32| x.to_le_bytes().to_vec();
    vec![
        ok(
            "dir-empty",
            "the empty directory: the header and 32 zero bytes (64 bytes)",
            &[],
        ),
        ok(
            "dir-rank-0",
            "an f32 scalar: rank 0, every shape slot 0, one element",
            &[t(F32, &[], f(1.5))],
        ),
        ok(
            "dir-rank-8",
            "u8 of rank 8, shape [1,2,1,2,1,2,1,2]: 16 elements",
            &[t(
                U8,
                &[1, 2, 1, 2, 1, 2, 1, 2],
                (0..16).collect::<Vec<u8>>(),
            )],
        ),
        ok(
            "dir-multi-offsets",
            "f32 [4,5] (80 bytes) then i64 [3]: the second offset is 128, payload_bytes 152",
            &[
                t(
                    F32,
                    &[4, 5],
                    (0..20).flat_map(|i| f(i as f32)).collect::<Vec<u8>>(),
                ),
                t(I64, &[3], le64(&[1, 2, 3])),
            ],
        ),
        ok(
            "dir-empty-tensor",
            "f32 [0]: zero elements, byte_length 0 at offset 0, payload_bytes 0",
            &[t(F32, &[0], [])],
        ),
        ok(
            "dir-zero-dim",
            "f32 [3,0,5]: any zero slot makes the element count 0",
            &[t(F32, &[3, 0, 5], [])],
        ),
        ok(
            "dir-zero-dim-beats-overflow",
            "u8 [2^40, 0, 2^40]: zero elements even though the other slots would overflow",
            &[t(U8, &[1 << 40, 0, 1 << 40], [])],
        ),
        ok(
            "dir-byte-then-empty",
            "u8 [1] then f32 [0]: offsets 0 and 64, payload_bytes 64 (spec 5.7)",
            &[t(U8, &[1], [9]), t(F32, &[0], [])],
        ),
        ok(
            "dir-empty-then-byte",
            "f32 [0] then u8 [1]: both at offset 0 (an empty tensor shares its offset), \
             payload_bytes 1",
            &[t(F32, &[0], []), t(U8, &[1], [9])],
        ),
        ok(
            "dir-u4-odd",
            "u4 [3] in 2 bytes (0x21, 0x03): the unused high nibble is 0",
            &[t(U4, &[3], [0x21, 0x03])],
        ),
        ok(
            "dir-i4-odd",
            "i4 [5] in 3 bytes: ceil(5*4/8) = 3, unused high nibble 0",
            &[t(I4, &[5], [0x21, 0x43, 0x0f])],
        ),
        ok(
            "dir-f4e2m1-one",
            "f4e2m1 [1] in 1 byte (0x07)",
            &[t(F4E2M1, &[1], [0x07])],
        ),
        ok(
            "dir-names-unicode",
            "names in Chinese, German and an emoji (multi-byte UTF-8), names flag set",
            &[
                t(F32, &[1], f(1.0)).named("权重"),
                t(U8, &[1], [2]).named("gewicht.ü"),
                t(I8, &[1], [3]).named("🔥"),
            ],
        ),
        ok(
            "dir-names-mixed",
            "unnamed, \"a\", unnamed, \"ab\": empty names are not duplicates; a prefix is a \
             different name",
            &[
                t(U8, &[1], [1]),
                t(U8, &[1], [2]).named("a"),
                t(U8, &[1], [3]),
                t(U8, &[1], [4]).named("ab"),
            ],
        ),
        ok(
            "dir-names-nfc-nfd",
            "\"é\" as U+00E9 and as e + U+0301: names compare as raw bytes, no normalization",
            &[
                t(U8, &[1], [1]).named("\u{e9}"),
                t(U8, &[1], [2]).named("e\u{301}"),
            ],
        ),
        ok(
            "dir-names-unsorted",
            "names \"z\" then \"a\": descriptor order is the caller's, never re-sorted",
            &[t(U8, &[1], [1]).named("z"), t(U8, &[1], [2]).named("a")],
        ),
        ok(
            "dir-opaque",
            "opaque code 4096, layout \"ggml.q4_0\" (32 elements in 18 bytes), shape [2,32]: \
             2 blocks, 36 bytes; named, so the heap is the name then the layout name",
            &[t(4096, &[2, 32], (0..36).collect::<Vec<u8>>())
                .named("blk.0.w")
                .layout(b"ggml.q4_0", 32, 18)],
        ),
        ok(
            "dir-opaque-shared",
            "two tensors of opaque code 4096 with the same layout, an f32 between them, and \
             code 32767 (the last opaque code): heap = names a, b, c, then layout names in \
             descriptor order q4_0, q4_0, x3",
            &[
                t(4096, &[32], vec![0x11; 18])
                    .named("a")
                    .layout(b"q4_0", 32, 18),
                t(F32, &[2], [f(1.0), f(2.0)].concat()).named("b"),
                t(4096, &[64], vec![0x22; 36])
                    .named("c")
                    .layout(b"q4_0", 32, 18),
                t(32767, &[2], [1, 2, 3, 4, 5, 6]).layout(b"x3", 1, 3),
            ],
        ),
        ok(
            "dir-quant-per-tensor",
            "u8 [4] quant scheme 1 with scale tensor 1, f32 [1]",
            &[
                t(U8, &[4], [1, 2, 3, 4]).named("w").quant(1, 1, 0, 0),
                t(F32, &[1], f(0.5)).named("w.scale"),
            ],
        ),
        ok(
            "dir-quant-per-block",
            "f16 [2] scale first, then i8 [4] quant scheme 2, block 2, scale index 0",
            &[
                t(F16, &[2], le16(&[0x3800, 0x3400])),
                t(I8, &[4], [0xff, 1, 2, 0xfe]).quant(2, 0, 0, 2),
            ],
        ),
        ok(
            "dir-quant-per-block-outer",
            "i4 [8] quant scheme 3, block 4: scale f8e8m0 [2], outer f32 [1]",
            &[
                t(I4, &[8], [0x21, 0x43, 0x65, 0x87]).quant(3, 1, 2, 4),
                t(F8E8M0, &[2], [0x7f, 0x80]),
                t(F32, &[1], f(0.25)),
            ],
        ),
        ok(
            "dir-quant-mx-fp4",
            "f4e2m1 [64] quant scheme 2, block 32, scale f8e8m0 [2] (an MX block)",
            &[
                t(F4E2M1, &[64], (0..32).collect::<Vec<u8>>())
                    .named("x")
                    .quant(2, 1, 0, 32),
                t(F8E8M0, &[2], [0x7f, 0x7e]).named("x.scale"),
            ],
        ),
        ok(
            "dir-quant-shared-scale",
            "u8 [2] and i8 [3], both quant scheme 1 with the same scale tensor bf16 [1]",
            &[
                t(U8, &[2], [1, 2]).quant(1, 2, 0, 0),
                t(I8, &[3], [3, 4, 5]).quant(1, 2, 0, 0),
                t(BF16, &[1], le16(&[0x3f80])),
            ],
        ),
        ok(
            "dir-quant-scale-is-outer",
            "u8 [4] quant scheme 3, block 4, scale and outer both tensor 1 (f32 [1])",
            &[
                t(U8, &[4], [1, 2, 3, 4]).quant(3, 1, 1, 4),
                t(F32, &[1], f(2.0)),
            ],
        ),
    ]
}

/// Header faults (spec 5.1, 6 and 7 step 1).
fn header_cases() -> Vec<Case> {
    let empty = canonical(&[]);
    let one = canonical(&one_u8());
    vec![
        bad("dir-empty-file", "a 0-byte file", Vec::new(), "EOF", 0),
        bad(
            "dir-header-short",
            "the first 31 bytes of the empty directory: under 32 bytes",
            cut(empty.clone(), 31),
            "EOF",
            0,
        ),
        bad(
            "dir-bad-magic",
            "magic \"XDIR\"",
            set(one.clone(), 0, b"X"),
            "FRAME",
            0,
        ),
        bad(
            "dir-bad-version",
            "version 3",
            set16(one.clone(), H_VERSION, 3),
            "FRAME",
            H_VERSION,
        ),
        bad(
            "dir-flags-le-clear",
            "flags 0: the little-endian bit 0 is clear",
            set16(one.clone(), H_FLAGS, 0),
            "FRAME",
            H_FLAGS,
        ),
        bad(
            "dir-flags-bit2",
            "flags 0x0005: bit 2 set",
            set16(one.clone(), H_FLAGS, 0x0005),
            "FRAME",
            H_FLAGS,
        ),
        bad(
            "dir-flags-bit15",
            "flags 0x8001: bit 15 set",
            set16(one.clone(), H_FLAGS, 0x8001),
            "FRAME",
            H_FLAGS,
        ),
        bad(
            "dir-header-reserved",
            "header reserved byte 31 is 0x01 (the field starts at 24)",
            set(one.clone(), 31, &[1]),
            "FRAME",
            H_RESERVED,
        ),
        bad(
            "dir-count-above-cap",
            "count 16,777,217 (cap + 1) in a 64-byte file: the cap is checked before the fit",
            set32(empty.clone(), H_COUNT, 16_777_217),
            "LIMIT",
            H_COUNT,
        ),
        bad(
            "dir-count-at-cap",
            "count 16,777,216 (the cap itself, allowed) in a 64-byte file: the descriptors \
             do not fit",
            set32(empty.clone(), H_COUNT, 16_777_216),
            "EOF",
            H_COUNT,
        ),
        bad(
            "dir-meta-short",
            "a one-tensor block cut to 100 bytes: 32 + 128*1 + 0 = 160 does not fit",
            cut(one.clone(), 100),
            "EOF",
            H_COUNT,
        ),
        bad(
            "dir-payload-short",
            "a one-tensor block without its last payload byte: P + payload_bytes = 196 > 195",
            cut(one.clone(), 195),
            "EOF",
            H_PAYLOAD,
        ),
        bad(
            "dir-empty-no-pad",
            "the 32-byte header of the empty directory alone: the pad to P = 64 is required",
            cut(empty.clone(), 32),
            "EOF",
            H_PAYLOAD,
        ),
        bad(
            "dir-payload-overflow",
            "empty directory with payload_bytes 2^64-1: P + payload_bytes overflows u64",
            set64(empty, H_PAYLOAD, u64::MAX),
            "EOF",
            H_PAYLOAD,
        ),
    ]
}

/// Descriptor faults (spec 5.2, 5.3 and 7 step 2).
fn descriptor_cases() -> Vec<Case> {
    let one = canonical(&one_u8());
    let d0 = d(0);
    let mut v = vec![
        bad(
            "dir-desc-reserved-12",
            "descriptor 0 byte 12 (reserved 12..16) is 0x01",
            set(one.clone(), d0 + F_RESERVED1, &[1]),
            "FRAME",
            d0 + F_RESERVED1,
        ),
        bad(
            "dir-desc-reserved-127",
            "descriptor 0 byte 127 (reserved 112..128) is 0x80; the field starts at 112",
            set(one.clone(), d0 + 127, &[0x80]),
            "FRAME",
            d0 + F_RESERVED2,
        ),
    ];
    for code in [0u16, 20, 4095, 32768, 65535] {
        v.push(bad(
            &format!("dir-dtype-code-{code}"),
            &format!("u8 [4] with its dtype changed to {code}, not a defined code"),
            set16(one.clone(), d0 + F_DTYPE, code),
            "TYPE",
            d0 + F_DTYPE,
        ));
    }
    let rank8 = canonical(&[t(U8, &[1; 8], [7])]);
    let scalar = canonical(&[t(F32, &[], 1.0f32.to_le_bytes())]);
    v.extend([
        bad(
            "dir-rank-9",
            "u8 of shape [1;8] with rank 9",
            set(rank8, d0 + F_RANK, &[9]),
            "TYPE",
            d0 + F_RANK,
        ),
        bad(
            "dir-shape-tail",
            "u8 [4] (rank 1) with shape slot 7 = 1",
            set64(one.clone(), d0 + F_SHAPE + 8 * 7, 1),
            "TYPE",
            d0 + F_SHAPE + 8 * 7,
        ),
        bad(
            "dir-shape-tail-rank-0",
            "f32 scalar (rank 0) with shape slot 0 = 1",
            set64(scalar, d0 + F_SHAPE, 1),
            "TYPE",
            d0 + F_SHAPE,
        ),
        bad(
            "dir-elements-overflow",
            "u8 [2^32, 2^32]: the element count 2^64 overflows u64",
            canonical(&[t(U8, &[1 << 32, 1 << 32], [])]),
            "LIMIT",
            d0 + F_SHAPE,
        ),
        bad(
            "dir-bytes-overflow",
            "f32 [2^62]: 2^62 elements fit, their 2^64 bytes do not",
            canonical(&[t(F32, &[1 << 62], [])]),
            "LIMIT",
            d0 + F_LENGTH,
        ),
        bad(
            "dir-byte-length-short",
            "f32 [2] with byte_length 7 (and 7 payload bytes): 8 expected",
            canonical(&[t(F32, &[2], [0, 0, 0x80, 0x3f, 0, 0, 0])]),
            "TYPE",
            d0 + F_LENGTH,
        ),
        bad(
            "dir-byte-length-packed-floor",
            "u4 [3] with byte_length 1: ceil(3*4/8) = 2 expected",
            canonical(&[t(U4, &[3], [0x21])]),
            "TYPE",
            d0 + F_LENGTH,
        ),
        bad(
            "dir-unused-layout-len",
            "u8 [4] with layout_len 3 (layout name \"abc\" in the heap, heap_bytes 3): \
             layout_len is for opaque dtypes only",
            canonical(&[t(U8, &[4], [1, 2, 3, 4]).layout(b"abc", 0, 0)]),
            "TYPE",
            d0 + F_LAYOUT_LEN,
        ),
        bad(
            "dir-unused-scale",
            "u8 [4], quant scheme 0, scale index 1 (tensor 1 is f32 [1])",
            canonical(&[
                t(U8, &[4], [1, 2, 3, 4]).quant(0, 1, 0, 0),
                t(F32, &[1], 1.0f32.to_le_bytes()),
            ]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-unused-outer",
            "u8 [4], quant scheme 0, outer index 1 (tensor 1 is f32 [1])",
            canonical(&[
                t(U8, &[4], [1, 2, 3, 4]).quant(0, 0, 1, 0),
                t(F32, &[1], 1.0f32.to_le_bytes()),
            ]),
            "TYPE",
            d0 + F_OUTER,
        ),
        bad(
            "dir-unused-outer-scheme-2",
            "i8 [4], quant scheme 2 (block 2, scale f16 [2]) with outer index 1: outer is \
             for scheme 3 only",
            canonical(&[
                t(I8, &[4], [1, 2, 3, 4]).quant(2, 1, 1, 2),
                t(F16, &[2], le16(&[0x3c00, 0x3c00])),
            ]),
            "TYPE",
            d0 + F_OUTER,
        ),
        bad(
            "dir-unused-block-elems",
            "u8 [4], quant scheme 0, block_elems 2",
            canonical(&[t(U8, &[4], [1, 2, 3, 4]).quant(0, 0, 0, 2)]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-unused-block-elems-scheme-1",
            "u8 [4], quant scheme 1 (scale f32 [1]) with block_elems 4: block_elems is for \
             schemes 2 and 3",
            canonical(&[
                t(U8, &[4], [1, 2, 3, 4]).quant(1, 1, 0, 4),
                t(F32, &[1], 1.0f32.to_le_bytes()),
            ]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-unused-block-bytes",
            "u8 [4] with block_bytes 2: block_bytes is for opaque dtypes only",
            canonical(&[t(U8, &[4], [1, 2, 3, 4]).layout(b"", 0, 2)]),
            "TYPE",
            d0 + F_BLOCK_BYTES,
        ),
    ]);
    v
}

/// Placement, heap and payload faults (spec 5.1, 5.4, 5.7 and 7 step 3).
fn placement_cases() -> Vec<Case> {
    let u1 = |b: u8| t(U8, &[1], [b]);
    let three = [u1(1), u1(2), u1(3)];
    let byte_empty = [u1(9), t(F32, &[0], [])];
    let named = [t(U8, &[4], [1, 2, 3, 4]).named("w")];
    let i4 = [t(I4, &[5], [0x21, 0x43, 0x15])];
    vec![
        bad(
            "dir-first-offset-64",
            "u8 [4] at offset 64 with payload_bytes 68 (64 zero bytes first): the first \
             offset must be 0",
            place(&one_u8(), &[64], 68),
            "TYPE",
            d(0) + F_OFFSET,
        ),
        bad(
            "dir-offset-past-greedy",
            "u8 [1] at 0 and u8 [1] at 128 (payload_bytes 129): the greedy offset is 64",
            place(&[u1(1), u1(2)], &[0, 128], 129),
            "TYPE",
            d(1) + F_OFFSET,
        ),
        bad(
            "dir-range-past-payload",
            "u8 [2] at 0 with payload_bytes 1: the range ends past the payload region",
            place(&[t(U8, &[2], [1, 2])], &[0], 1),
            "TYPE",
            d(0) + F_OFFSET,
        ),
        bad(
            "dir-payload-bytes-not-end",
            "u8 [1] with payload_bytes 2 (one zero byte after it): the running end is 1",
            place(&[u1(7)], &[0], 2),
            "TYPE",
            H_PAYLOAD,
        ),
        bad(
            "dir-names-flag-clear",
            "a tensor named \"w\" with header flags 0x0001 (names bit clear)",
            set16(canonical(&named), H_FLAGS, 1),
            "FRAME",
            H_FLAGS,
        ),
        bad(
            "dir-names-flag-set",
            "an unnamed u8 [4] with header flags 0x0003 (names bit set)",
            set16(canonical(&one_u8()), H_FLAGS, 3),
            "FRAME",
            H_FLAGS,
        ),
        bad(
            "dir-heap-bytes-mismatch",
            "name \"ab\" with heap_bytes 3 (the third heap byte is 0, P stays 192)",
            set32(canonical(&[u1(1).named("ab")]), H_HEAP, 3),
            "TYPE",
            H_HEAP,
        ),
        bad(
            "dir-nonzero-pad-before-p",
            "tensor named \"w\": heap 160..161, pad 161..192; byte 191 is 0x01",
            set(canonical(&named), 191, &[1]),
            "TYPE",
            191,
        ),
        bad(
            "dir-empty-nonzero-pad",
            "the empty directory with byte 32 (first pad byte) 0xA5",
            set(canonical(&[]), 32, &[0xa5]),
            "TYPE",
            32,
        ),
        bad(
            "dir-nonzero-gap",
            "three u8 [1] at 0, 64, 128 (P = 448); payload byte 127, the last of the gap \
             before tensor 2, is 0x01",
            set(canonical(&three), payload_start(&three) + 127, &[1]),
            "TYPE",
            payload_start(&three) + 127,
        ),
        bad(
            "dir-nonzero-gap-before-empty",
            "u8 [1] then f32 [0] at 64 (payload_bytes 64, P = 320); payload byte 63 is 0x01",
            set(
                canonical(&byte_empty),
                payload_start(&byte_empty) + 63,
                &[1],
            ),
            "TYPE",
            payload_start(&byte_empty) + 63,
        ),
        bad(
            "dir-i4-odd-tail-nibble",
            "i4 [5] in 3 bytes, last byte 0x15: the unused high nibble is 1",
            canonical(&i4),
            "TYPE",
            payload_start(&i4) + 2,
        ),
        bad(
            "dir-u4-odd-tail-nibble",
            "u4 [1] in 1 byte 0xF0: the unused high nibble is 0xF",
            canonical(&[t(U4, &[1], [0xf0])]),
            "TYPE",
            192,
        ),
        bad(
            "dir-trailing",
            "the empty directory and one 0x00 byte after it",
            append(canonical(&[]), &[0]),
            "TRAILING",
            64,
        ),
        bad(
            "dir-trailing-after-payload",
            "a one-tensor block (196 bytes) and one 0xFF byte after it",
            append(canonical(&one_u8()), &[0xff]),
            "TRAILING",
            196,
        ),
    ]
}

/// Name faults (spec 5.4).
fn name_cases() -> Vec<Case> {
    let dup = [
        t(U8, &[1], [1]).named("a"),
        t(U8, &[1], [2]).named("b"),
        t(U8, &[1], [3]).named("a"),
    ];
    let bad_utf8 = [
        t(U8, &[1], [1]).named("ok"),
        t(U8, &[1], [2]).name_bytes(&[0x61, 0xff]),
    ];
    vec![
        bad(
            "dir-names-duplicate",
            "names \"a\", \"b\", \"a\": heap at 416, the second \"a\" at 418",
            canonical(&dup),
            "TYPE",
            418,
        ),
        bad(
            "dir-names-bad-utf8",
            "names \"ok\" and 61 FF: heap at 288, the bad name at 290",
            canonical(&bad_utf8),
            "UTF8",
            290,
        ),
        bad(
            "dir-names-surrogate",
            "name ED A0 80 (an encoded surrogate, not UTF-8) at heap offset 160",
            canonical(&[t(U8, &[1], [1]).name_bytes(&[0xed, 0xa0, 0x80])]),
            "UTF8",
            160,
        ),
    ]
}

/// Opaque layout faults (spec 5.6).
fn opaque_cases() -> Vec<Case> {
    let d0 = d(0);
    let d1 = d(1);
    vec![
        bad(
            "dir-opaque-layout-mismatch",
            "two tensors of code 4096, layout names \"q4_0\" and \"q4_1\" (same block sizes): \
             heap at 288, the second layout name at 292",
            canonical(&[
                t(4096, &[32], vec![0; 18]).layout(b"q4_0", 32, 18),
                t(4096, &[32], vec![0; 18]).layout(b"q4_1", 32, 18),
            ]),
            "TYPE",
            292,
        ),
        bad(
            "dir-opaque-block-elems-mismatch",
            "two tensors of code 4096, layout \"q\", block_elems 32 then 64 (each byte_length \
             consistent with its own)",
            canonical(&[
                t(4096, &[32], vec![0; 18]).layout(b"q", 32, 18),
                t(4096, &[64], vec![0; 18]).layout(b"q", 64, 18),
            ]),
            "TYPE",
            d1 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-opaque-block-bytes-mismatch",
            "two tensors of code 4096, layout \"q\", block_bytes 18 then 20",
            canonical(&[
                t(4096, &[32], vec![0; 18]).layout(b"q", 32, 18),
                t(4096, &[32], vec![0; 20]).layout(b"q", 32, 20),
            ]),
            "TYPE",
            d1 + F_BLOCK_BYTES,
        ),
        bad(
            "dir-opaque-byte-length",
            "code 4096 (32 elements in 18 bytes) shape [64] with byte_length 35: 36 expected",
            canonical(&[t(4096, &[64], vec![0; 35]).layout(b"q4_0", 32, 18)]),
            "TYPE",
            d0 + F_LENGTH,
        ),
        bad(
            "dir-opaque-no-layout",
            "code 4096 with layout_len 0",
            canonical(&[t(4096, &[32], vec![0; 18]).layout(b"", 32, 18)]),
            "TYPE",
            d0 + F_LAYOUT_LEN,
        ),
        bad(
            "dir-opaque-not-dividing",
            "code 4096 with block_elems 32, shape [48] (byte_length 18)",
            canonical(&[t(4096, &[48], vec![0; 18]).layout(b"q", 32, 18)]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-opaque-block-elems-zero",
            "code 4096 with block_elems 0",
            canonical(&[t(4096, &[32], vec![0; 18]).layout(b"q", 0, 18)]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-opaque-block-bytes-zero",
            "code 4096 with block_bytes 0 (byte_length 0)",
            canonical(&[t(4096, &[32], []).layout(b"q", 32, 0)]),
            "TYPE",
            d0 + F_BLOCK_BYTES,
        ),
        bad(
            "dir-opaque-quant",
            "code 4096 with quant scheme 1 (scale f32 [1]): opaque dtypes have scheme 0",
            canonical(&[
                t(4096, &[32], vec![0; 18])
                    .layout(b"q", 32, 18)
                    .quant(1, 1, 0, 32),
                t(F32, &[1], 1.0f32.to_le_bytes()),
            ]),
            "TYPE",
            d0 + F_SCHEME,
        ),
        bad(
            "dir-opaque-layout-bad-utf8",
            "code 4096 with layout name FF at heap offset 160",
            canonical(&[t(4096, &[32], vec![0; 18]).layout(&[0xff], 32, 18)]),
            "UTF8",
            160,
        ),
    ]
}

/// Quantization faults (spec 5.5).
fn quant_cases() -> Vec<Case> {
    let d0 = d(0);
    let u8x4 = || t(U8, &[4], [1, 2, 3, 4]);
    let i8x4 = || t(I8, &[4], [1, 2, 3, 4]);
    let f32x = |n: u64| t(F32, &[n], vec![0; 4 * n as usize]);
    let f16x = |n: u64| t(F16, &[n], vec![0; 2 * n as usize]);
    let i4x8 = || t(I4, &[8], [0x21, 0x43, 0x65, 0x87]);
    let mx = || t(F8E8M0, &[2], [0x7f, 0x7f]);
    vec![
        bad(
            "dir-quant-scheme-4",
            "u8 [4] with quant scheme 4",
            canonical(&[u8x4().quant(4, 0, 0, 0)]),
            "TYPE",
            d0 + F_SCHEME,
        ),
        bad(
            "dir-quant-data-dtype",
            "f32 [4] with quant scheme 1 (scale f32 [1]): f32 cannot be quantized data",
            canonical(&[f32x(4).quant(1, 1, 0, 0), f32x(1)]),
            "TYPE",
            d0 + F_SCHEME,
        ),
        bad(
            "dir-quant-scale-out-of-range",
            "u8 [4] scheme 1 with scale index 2 in a directory of 2",
            canonical(&[u8x4().quant(1, 2, 0, 0), f32x(1)]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-scale-self",
            "u8 [4] scheme 1 with scale index 0 (itself)",
            canonical(&[u8x4().quant(1, 0, 0, 0), f32x(1)]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-scale-dtype",
            "u8 [4] scheme 1 whose scale tensor is u8 [1]",
            canonical(&[u8x4().quant(1, 1, 0, 0), t(U8, &[1], [1])]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-scale-quantized",
            "u8 [4] scheme 1 whose scale tensor (f8e4m3 [1]) is itself quant scheme 1 \
             (with a valid f32 [1] scale)",
            canonical(&[
                u8x4().quant(1, 1, 0, 0),
                t(F8E4M3, &[1], [0x38]).quant(1, 2, 0, 0),
                f32x(1),
            ]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-per-tensor-scale-count",
            "u8 [4] scheme 1 whose scale tensor is f32 [2]: exactly 1 element required",
            canonical(&[u8x4().quant(1, 1, 0, 0), f32x(2)]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-scale-count",
            "i8 [4] scheme 2, block 2, whose scale tensor is f16 [3]: 4/2 = 2 required",
            canonical(&[i8x4().quant(2, 1, 0, 2), f16x(3)]),
            "TYPE",
            d0 + F_SCALE,
        ),
        bad(
            "dir-quant-block-not-dividing",
            "i8 [5] scheme 2, block 2 (scale f16 [2]): 5 % 2 != 0",
            canonical(&[t(I8, &[5], [1, 2, 3, 4, 5]).quant(2, 1, 0, 2), f16x(2)]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-quant-block-zero",
            "i8 [4] scheme 2 with block_elems 0 (scale f16 [2])",
            canonical(&[i8x4().quant(2, 1, 0, 0), f16x(2)]),
            "TYPE",
            d0 + F_BLOCK_ELEMS,
        ),
        bad(
            "dir-quant-outer-dtype",
            "i4 [8] scheme 3, block 4, scale f8e8m0 [2], outer f8e4m3 [1]: the outer dtype \
             must be f32, f16 or bf16",
            canonical(&[i4x8().quant(3, 1, 2, 4), mx(), t(F8E4M3, &[1], [0x38])]),
            "TYPE",
            d0 + F_OUTER,
        ),
        bad(
            "dir-quant-outer-count",
            "i4 [8] scheme 3, block 4, scale f8e8m0 [2], outer f32 [2]: exactly 1 element \
             required",
            canonical(&[i4x8().quant(3, 1, 2, 4), mx(), f32x(2)]),
            "TYPE",
            d0 + F_OUTER,
        ),
        bad(
            "dir-quant-outer-out-of-range",
            "i4 [8] scheme 3 with outer index 3 in a directory of 3",
            canonical(&[i4x8().quant(3, 1, 3, 4), mx(), f32x(1)]),
            "TYPE",
            d0 + F_OUTER,
        ),
        bad(
            "dir-quant-outer-self",
            "i4 [8] scheme 3 with outer index 0 (itself)",
            canonical(&[i4x8().quant(3, 1, 0, 4), mx(), f32x(1)]),
            "TYPE",
            d0 + F_OUTER,
        ),
    ]
}

/// Every directory case: the seed-named ones first.
pub fn directory_cases() -> Vec<Case> {
    let mut v = seed_cases();
    v.extend(dtype_cases());
    v.extend(ok_cases());
    v.extend(header_cases());
    v.extend(descriptor_cases());
    v.extend(placement_cases());
    v.extend(name_cases());
    v.extend(opaque_cases());
    v.extend(quant_cases());
    v
}
