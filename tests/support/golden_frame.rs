//! The frame cases (spec section 3): a framed Frozen `Point` (form
//! `framed-value`) and framed tensor directories (form `framed`).

use serde_json::{json, Value};

use super::golden_digest::fnv1a64;
use super::golden_dir::{empty_block, err, f8_pair_block};
use super::Case;

/// The type text of the golden `Point` and its hash (spec 3 check value).
pub const POINT_TEXT: &str = "struct Point{x:i32,y:i32}";
/// The type text of a `Point` declared with `y` before `x` (spec 4).
pub const POINT_SWAPPED_TEXT: &str = "struct Point{y:i32,x:i32}";
/// The type text of a tensor directory.
pub const TENSORS_TEXT: &str = "tensors";

/// The Frozen bytes of Point {x: 9, y: -4} (the seed).
const POINT: [u8; 8] = [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];

/// A 16-byte frame: magic, version, profile, flags, reserved, hash.
fn frame(version: u8, profile: u8, flags: u8, reserved: u8, hash: u64) -> Vec<u8> {
    let mut b = b"KILN".to_vec();
    b.extend_from_slice(&[version, profile, flags, reserved]);
    b.extend_from_slice(&hash.to_le_bytes());
    b
}

/// A well-formed frame, with the hash when given.
fn good(hash: Option<u64>) -> Vec<u8> {
    match hash {
        Some(h) => frame(2, 0, 1, 0, h),
        None => frame(2, 0, 0, 0, 0),
    }
}

fn cat(a: Vec<u8>, b: &[u8]) -> Vec<u8> {
    let mut a = a;
    a.extend_from_slice(b);
    a
}

fn value_ok(name: &str, about: &str, bytes: Vec<u8>) -> Case {
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: json!({"name": name, "file": format!("{name}.kiln"), "form": "framed-value",
                      "type": "Point", "description": about, "expect": "ok",
                      "value": {"x": 9, "y": -4}}),
    }
}

fn value_err(name: &str, about: &str, bytes: Vec<u8>, code: &str, offset: u64) -> Case {
    let mut c = err(name, "framed-value", about, bytes, code, offset);
    c.entry["type"] = json!("Point");
    c
}

/// Framed `Point` cases.
pub fn framed_value_cases() -> Vec<Case> {
    let point = fnv1a64(POINT_TEXT);
    let framed = cat(good(Some(point)), &POINT);
    let mut v = vec![
        value_ok(
            "point.framed",
            "frame with the hash of struct Point{x:i32,y:i32} (0x5e8fcc49ab06d825), then the \
             8 bytes of Point {x: 9, y: -4}",
            framed.clone(),
        ),
        value_ok(
            "point.framed-no-hash",
            "frame with flags 0 and hash 0 (no schema hash: accepted), then the point",
            cat(good(None), &POINT),
        ),
        value_err(
            "frame-short",
            "12 bytes: a frame is 16 (the length is checked before any content)",
            framed[..12].to_vec(),
            "EOF",
            0,
        ),
        value_err(
            "frame-bad-magic",
            "magic \"KILM\"",
            cat([b"KILM".as_slice(), &framed[4..16]].concat(), &POINT),
            "FRAME",
            0,
        ),
        value_err(
            "frame-bad-version",
            "version 1",
            cat(frame(1, 0, 1, 0, point), &POINT),
            "FRAME",
            4,
        ),
        value_err(
            "frame-bad-version-3",
            "version 3",
            cat(frame(3, 0, 1, 0, point), &POINT),
            "FRAME",
            4,
        ),
        value_err(
            "frame-bad-profile",
            "profile 1 (only 0, Frozen, exists)",
            cat(frame(2, 1, 1, 0, point), &POINT),
            "FRAME",
            5,
        ),
    ];
    for bit in 1..8u8 {
        v.push(value_err(
            &format!("frame-flag-bit-{bit}"),
            &format!(
                "flags {:#04x}: the hash bit and bit {bit}",
                1u8 | (1 << bit)
            ),
            cat(frame(2, 0, 1 | (1 << bit), 0, point), &POINT),
            "FRAME",
            6,
        ));
    }
    v.extend([
        value_err(
            "frame-reserved",
            "reserved byte 7 is 0x01",
            cat(frame(2, 0, 1, 1, point), &POINT),
            "FRAME",
            7,
        ),
        value_err(
            "frame-hash-without-flag",
            "flags 0 (no hash) but the hash field holds the hash of Point",
            cat(frame(2, 0, 0, 0, point), &POINT),
            "FRAME",
            8,
        ),
        value_err(
            "frame-schema-swapped",
            "hash of struct Point{y:i32,x:i32} (a writer that declared y first), read as \
             Point{x,y}: SCHEMA before the first field",
            cat(good(Some(fnv1a64(POINT_SWAPPED_TEXT))), &POINT),
            "SCHEMA",
            8,
        ),
        value_err(
            "frame-value-short",
            "the framed point without its last byte: y at 20 does not fit",
            framed[..23].to_vec(),
            "EOF",
            20,
        ),
        value_err(
            "frame-value-trailing",
            "the framed point and one 0x00 byte after it",
            cat(framed, &[0]),
            "TRAILING",
            24,
        ),
    ]);
    v
}

fn dir_ok(name: &str, about: &str, bytes: Vec<u8>, tensors: &[Value]) -> Case {
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: json!({"name": name, "file": format!("{name}.kiln"), "form": "framed",
                      "description": about, "expect": "ok", "tensors": tensors}),
    }
}

fn dir_err(name: &str, about: &str, bytes: Vec<u8>, code: &str, offset: u64) -> Case {
    err(name, "framed", about, bytes, code, offset)
}

/// Framed directory cases (a `KILN` frame in front of a `KDIR` block).
pub fn framed_dir_cases() -> Vec<Case> {
    let tensors = fnv1a64(TENSORS_TEXT);
    let (pair, pair_tensors) = f8_pair_block();
    let framed = cat(good(Some(tensors)), &pair);
    let mut unaligned = framed.clone();
    // Descriptor 1's byte_offset (16 + 160 + 80) from 64 to 1, the second
    // payload byte moved to offset 1 and payload_bytes 2: kiln-v2-unaligned.
    unaligned[16 + 160 + 80] = 1;
    unaligned[16 + 16] = 2;
    unaligned[16 + 320 + 1] = 0x3c;
    unaligned.truncate(16 + 322);
    vec![
        dir_ok(
            "framed-dir",
            "frame with the hash of `tensors` (0x91b48d411a259b35), then kiln-v2-f8-pair",
            framed.clone(),
            &pair_tensors,
        ),
        dir_ok(
            "framed-dir-no-hash",
            "frame with no hash, then kiln-v2-f8-pair",
            cat(good(None), &pair),
            &pair_tensors,
        ),
        dir_ok(
            "framed-dir-empty",
            "frame with the hash of `tensors`, then the empty directory (80 bytes)",
            cat(good(Some(tensors)), &empty_block()),
            &[],
        ),
        dir_err(
            "framed-dir-wrong-hash",
            "frame with the hash of struct Point{x:i32,y:i32}, then kiln-v2-f8-pair",
            cat(good(Some(fnv1a64(POINT_TEXT))), &pair),
            "SCHEMA",
            8,
        ),
        dir_err(
            "framed-dir-trailing",
            "framed kiln-v2-f8-pair (16 + 385 bytes) and one 0x00 byte after it",
            cat(framed, &[0]),
            "TRAILING",
            16 + 385,
        ),
        dir_err(
            "framed-dir-unaligned",
            "framed kiln-v2-unaligned: offsets count from the file start (16 + 240)",
            unaligned,
            "TYPE",
            16 + 240,
        ),
        dir_err(
            "framed-dir-short-frame",
            "\"KILN\" and one byte: under 16 bytes",
            b"KILN\x02".to_vec(),
            "EOF",
            0,
        ),
        dir_err(
            "framed-dir-short-body",
            "a good frame, then 31 bytes of the empty directory: the header is at 16",
            cat(good(Some(tensors)), &empty_block()[..31]),
            "EOF",
            16,
        ),
        dir_err(
            "framed-dir-bad-profile",
            "frame with profile 1, then the empty directory",
            cat(frame(2, 1, 1, 0, tensors), &empty_block()),
            "FRAME",
            5,
        ),
        dir_err(
            "framed-dir-hash-without-flag",
            "frame with flags 0 and the hash of `tensors`, then the empty directory",
            cat(frame(2, 0, 0, 0, tensors), &empty_block()),
            "FRAME",
            8,
        ),
        dir_err(
            "framed-dir-bad-dir-magic",
            "a good frame, then the empty directory with magic \"KDIX\"",
            cat(
                good(Some(tensors)),
                &[b"KDIX".as_slice(), &empty_block()[4..]].concat(),
            ),
            "FRAME",
            16,
        ),
    ]
}
