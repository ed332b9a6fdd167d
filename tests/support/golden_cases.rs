//! The golden conformance cases, defined in code so they can be regenerated.
//!
//! `cargo run --example gen_golden` writes every case to `spec/golden/` with
//! the manifest `spec/golden/cases.json`; `tests/golden.rs` checks that the
//! files on disk equal a fresh generation and runs every case in the
//! manifest through the decoder.
//!
//! Manifest entry fields (documented in `spec/golden/README.md`): `name`,
//! `file`, `form` (`frozen`, `framed-value`, `directory`, `framed`,
//! `checkpoint`),
//! `description`, `expect` (`ok` or a code word), `offset` (for errors), and
//! for `ok` cases either `type` + `value` (a Frozen value as JSON) or
//! `tensors` (a directory: name, dtype, shape, payload sha256, and quant or
//! layout when present), plus `metadata` for a checkpoint.
//!
//! The directory cases live in `golden_dir.rs` and `golden_dir_faults.rs`,
//! the frame cases in `golden_frame.rs`, beside this file; they write
//! directories with the spec-derived writer of `spec_dir.rs`, and
//! `golden_digest.rs` has the SHA-256 and FNV-1a 64 they need, so that
//! nothing here calls the implementation.

#![allow(dead_code)]

#[path = "golden_checkpoint.rs"]
pub mod golden_checkpoint;
#[path = "golden_digest.rs"]
pub mod golden_digest;
#[path = "golden_dir.rs"]
pub mod golden_dir;
#[path = "golden_dir_faults.rs"]
pub mod golden_dir_faults;
#[path = "golden_frame.rs"]
pub mod golden_frame;
#[path = "spec_dir.rs"]
pub mod spec_dir;

use serde_json::{json, Value};

/// One case: file name, bytes, manifest entry.
pub struct Case {
    pub file: String,
    pub bytes: Vec<u8>,
    pub entry: Value,
}

fn frozen_ok(name: &str, ty: &str, bytes: Vec<u8>, value: Value) -> Case {
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: json!({"name": name, "file": format!("{name}.kiln"), "form": "frozen",
                       "type": ty, "expect": "ok", "value": value}),
    }
}

fn frozen_err(name: &str, ty: &str, bytes: Vec<u8>, code: &str, offset: u64) -> Case {
    Case {
        file: format!("{name}.kiln"),
        bytes,
        entry: json!({"name": name, "file": format!("{name}.kiln"), "form": "frozen",
                       "type": ty, "expect": code, "offset": offset}),
    }
}

/// The Frozen cases (spec sections 2 and 8).
pub fn frozen_cases() -> Vec<Case> {
    let point = vec![0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff];
    let mut trailing = point.clone();
    trailing.push(0);
    vec![
        frozen_ok("point", "Point", point.clone(), json!({"x": 9, "y": -4})),
        frozen_err("point-short", "Point", point[..7].to_vec(), "EOF", 4),
        frozen_err("point-trailing", "Point", trailing, "TRAILING", 8),
        frozen_err("bool-bad-byte", "bool", vec![2], "TYPE", 0),
        frozen_err("option-bad-tag", "option<u8>", vec![7], "TYPE", 0),
        frozen_err("char-surrogate", "char", vec![0x00, 0xd8, 0, 0], "UTF8", 0),
        frozen_err(
            "str-bad-utf8",
            "str",
            vec![2, 0, 0, 0, 0xc3, 0x28],
            "UTF8",
            0,
        ),
        frozen_err(
            "str-length-above-cap",
            "str",
            vec![0xff, 0xff, 0xff, 0xff, 0x61],
            "LIMIT",
            0,
        ),
        frozen_err("str-count-short", "str", vec![5, 0, 0, 0, 0x61], "EOF", 0),
        frozen_err(
            "list-count-above-cap",
            "list<u64>",
            vec![0xff, 0xff, 0xff, 0xff, 0],
            "LIMIT",
            0,
        ),
        frozen_err(
            "map-keys-out-of-order",
            "map<str,u8>",
            vec![2, 0, 0, 0, 1, 0, 0, 0, b'b', 0, 1, 0, 0, 0, b'a', 0],
            "TYPE",
            10,
        ),
        frozen_err(
            "map-duplicate-key",
            "map<str,u8>",
            vec![2, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 1, 0, 0, 0, b'a', 1],
            "TYPE",
            10,
        ),
        frozen_ok(
            "map-sorted",
            "map<str,u8>",
            vec![2, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 2, 0, 0, 0, b'a', b'b', 1],
            json!({"a": 0, "ab": 1}),
        ),
        frozen_err("enum-bad-variant", "Shape", vec![9, 0, 0, 0], "TYPE", 0),
        frozen_ok(
            "enum-struct-variant",
            "Shape",
            vec![1, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40],
            json!({"Rect": {"w": 1.0, "h": 2.0}}),
        ),
    ]
}

/// Every case, in manifest order: Frozen, then directory (the seed-named
/// ones first), then framed values and framed directories.
pub fn all_cases() -> Vec<Case> {
    let mut cases = frozen_cases();
    cases.extend(extra_cases());
    cases
}

/// Cases from the other modules (tensor directory, frame).
fn extra_cases() -> Vec<Case> {
    let mut v = golden_dir::directory_cases();
    v.extend(golden_frame::framed_value_cases());
    v.extend(golden_frame::framed_dir_cases());
    v.extend(golden_checkpoint::checkpoint_cases());
    v
}

/// The manifest text for a list of cases.
pub fn manifest(cases: &[Case]) -> String {
    let entries: Vec<Value> = cases.iter().map(|c| c.entry.clone()).collect();
    let mut s = serde_json::to_string_pretty(&json!({
        "spec": "kiln-v2",
        "generator": "cargo run --example gen_golden",
        "cases": entries,
    }))
    .expect("manifest serializes");
    s.push('\n');
    s
}
