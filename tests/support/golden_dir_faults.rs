//! The faulty tensor directory cases (spec 5.1-5.7, 6 and 7), in the
//! order of spec 7's precedence steps: header, descriptors, placement and
//! heap, names, opaque layouts, quantization. Each is a valid block from
//! the spec-derived writer (`spec_dir.rs`) with exactly one fault.

use super::golden_dir::{bad, one_u8};
use super::spec_dir::*;
use super::Case;

/// Header faults (spec 5.1, 6 and 7 step 1).
pub(super) fn header_cases() -> Vec<Case> {
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
pub(super) fn descriptor_cases() -> Vec<Case> {
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
pub(super) fn placement_cases() -> Vec<Case> {
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
pub(super) fn name_cases() -> Vec<Case> {
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
pub(super) fn opaque_cases() -> Vec<Case> {
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
pub(super) fn quant_cases() -> Vec<Case> {
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
