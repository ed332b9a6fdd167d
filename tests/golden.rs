//! The golden conformance suite: every case in `spec/golden/cases.json`
//! decodes (or fails) exactly as the manifest says, and the files on disk
//! are exactly what the generator writes.

#[path = "support/golden_cases.rs"]
mod golden_cases;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kiln_serde::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum Shape {
    Dot,
    Rect { w: f32, h: f32 },
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/golden")
}

/// Decodes a standalone Frozen buffer as the named type, re-encodes it, and
/// returns the value as JSON.
fn decode_frozen(ty: &str, bytes: &[u8]) -> Result<Value, Error> {
    fn go<'a, T: Deserialize<'a> + Serialize>(bytes: &'a [u8]) -> Result<Value, Error> {
        let v: T = kiln_serde::from_slice(bytes)?;
        // Canonical: decode then encode is the identity.
        assert_eq!(kiln_serde::to_vec(&v)?, bytes, "re-encoding differs");
        Ok(serde_json::to_value(&v).expect("json"))
    }
    match ty {
        "Point" => go::<Point>(bytes),
        "Shape" => go::<Shape>(bytes),
        "bool" => go::<bool>(bytes),
        "char" => go::<char>(bytes),
        "str" => go::<String>(bytes),
        "option<u8>" => go::<Option<u8>>(bytes),
        "list<u64>" => go::<Vec<u64>>(bytes),
        "map<str,u8>" => go::<BTreeMap<String, u8>>(bytes),
        other => panic!("manifest names an unknown frozen type {other}"),
    }
}

fn run_case(case: &Value, bytes: &[u8]) -> Result<Value, Error> {
    match case["form"].as_str().expect("form") {
        "frozen" => decode_frozen(case["type"].as_str().expect("type"), bytes),
        other => panic!("unknown form {other}"),
    }
}

#[test]
fn every_manifest_case_behaves_as_stated() {
    let text = std::fs::read_to_string(dir().join("cases.json")).expect("manifest");
    let manifest: Value = serde_json::from_str(&text).expect("manifest json");
    let cases = manifest["cases"].as_array().expect("cases");
    assert!(!cases.is_empty());
    let mut seen = std::collections::HashSet::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        assert!(seen.insert(name.to_string()), "duplicate case {name}");
        let bytes = std::fs::read(dir().join(case["file"].as_str().expect("file")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let expect = case["expect"].as_str().expect("expect");
        match (expect, run_case(case, &bytes)) {
            ("ok", Ok(v)) => {
                if let Some(want) = case.get("value") {
                    assert_eq!(&v, want, "{name}: value");
                }
                if let Some(want) = case.get("tensors") {
                    assert_eq!(&v, want, "{name}: tensors");
                }
            }
            ("ok", Err(e)) => panic!("{name}: expected ok, got {e}"),
            (code, Ok(_)) => panic!("{name}: expected {code}, decoded fine"),
            (code, Err(e)) => {
                assert_eq!(e.code().as_str(), code, "{name}: {e}");
                if let Some(off) = case.get("offset").and_then(Value::as_u64) {
                    assert_eq!(e.offset(), Some(off), "{name}: offset of {e}");
                }
            }
        }
    }
    // The seed-named cases must be present.
    assert!(seen.contains("point"));
}

#[test]
fn point_is_the_seed_bytes() {
    let bytes = std::fs::read(dir().join("point.kiln")).expect("point.kiln");
    assert_eq!(bytes, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
}

#[test]
fn files_on_disk_equal_a_fresh_generation() {
    let cases = golden_cases::all_cases();
    for c in &cases {
        let on_disk =
            std::fs::read(dir().join(&c.file)).unwrap_or_else(|e| panic!("{}: {e}", c.file));
        assert_eq!(
            on_disk, c.bytes,
            "{} differs: run `cargo run --example gen_golden`",
            c.file
        );
    }
    let manifest = std::fs::read_to_string(dir().join("cases.json")).expect("manifest");
    assert_eq!(
        manifest,
        golden_cases::manifest(&cases),
        "cases.json differs: regenerate"
    );
}
