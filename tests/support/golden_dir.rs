//! The tensor directory cases (spec sections 5, 6, 7 and 8): the manifest
//! entries, the seed-named cases and the decoding ones; the faulty ones are
//! in `golden_dir_faults.rs`.
//!
//! Every block here is written by the spec-derived writer in `spec_dir.rs`,
//! which knows the wire layout from the spec and nothing of the implementation: the
//! implementation's builder is checked against it (the runner re-encodes
//! every `ok` case). An invalid case is a valid block with exactly one
//! field changed, or one placed by hand ([`place`]), so it holds one fault;
//! its `offset` is the first byte of the field or value at fault (spec 7).

use serde_json::{json, Value};

use super::golden_digest::sha256_hex;
use super::golden_dir_faults;
use super::spec_dir::*;
use super::Case;

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

impl T {
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

pub(super) fn bad(name: &str, about: &str, bytes: Vec<u8>, code: &str, offset: u64) -> Case {
    err(name, "directory", about, bytes, code, offset)
}

// ---------------------------------------------------------------------------
// Shared blocks.

/// `kiln-v2-f8-pair`'s tensors (spec 8).
fn f8_pair() -> Vec<T> {
    vec![t(F8E4M3, &[1], [0x38]), t(F8E5M2, &[1], [0x3c])]
}

/// One u8 [4]: descriptor at 32, P = 192, 196 bytes.
pub(super) fn one_u8() -> Vec<T> {
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

/// Every directory case: the seed-named ones first.
pub fn directory_cases() -> Vec<Case> {
    let mut v = seed_cases();
    v.extend(dtype_cases());
    v.extend(ok_cases());
    v.extend(golden_dir_faults::header_cases());
    v.extend(golden_dir_faults::descriptor_cases());
    v.extend(golden_dir_faults::placement_cases());
    v.extend(golden_dir_faults::name_cases());
    v.extend(golden_dir_faults::opaque_cases());
    v.extend(golden_dir_faults::quant_cases());
    v
}
