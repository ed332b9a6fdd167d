//! The golden conformance suite: every case in `spec/golden/cases.json`
//! decodes (or fails) exactly as the manifest says, and the files on disk
//! are exactly what the generator writes.

#[path = "support/golden_cases.rs"]
mod golden_cases;
#[path = "support/stream.rs"]
mod stream;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use golden_cases::golden_checkpoint::CHECKPOINT_TEXT;
use golden_cases::golden_digest::{fnv1a64, sha256_hex};
use golden_cases::golden_frame::{POINT_SWAPPED_TEXT, POINT_TEXT, TENSORS_TEXT};
use kiln_serde::checkpoint::{check_buffer, FileKind};
use kiln_serde::tensors::{Quant, TensorView, Tensors, TensorsBuilder, TensorsView};
use kiln_serde::Limits;
use kiln_serde::{frame, Error};
use kiln_serde::{Checkpoint, CheckpointView};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use stream::Stream;

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

/// Decodes a framed Frozen value of the named type, re-encodes it behind the
/// same frame, and returns the value as JSON.
fn decode_framed_value(ty: &str, bytes: &[u8]) -> Result<Value, Error> {
    fn go<T: serde::de::DeserializeOwned + Serialize + 'static>(
        bytes: &[u8],
    ) -> Result<Value, Error> {
        let v: T = kiln_serde::framed::from_slice(bytes)?;
        let header = frame::parse(bytes)?;
        let mut again = frame::encode(header.hash).to_vec();
        again.extend_from_slice(&kiln_serde::to_vec(&v)?);
        assert_eq!(again, bytes, "re-encoding differs");
        Ok(serde_json::to_value(&v).expect("json"))
    }
    match ty {
        "Point" => go::<Point>(bytes),
        other => panic!("manifest names an unknown framed type {other}"),
    }
}

/// The manifest description of one decoded tensor.
fn tensor_json(t: &TensorView<'_>) -> Value {
    let mut o = json!({
        "name": t.name(),
        "dtype": t.dtype().to_string(),
        "shape": t.shape(),
        "sha256": sha256_hex(t.data()),
    });
    match t.quant() {
        Quant::None => {}
        Quant::PerTensor { scale } => o["quant"] = json!({"scheme": 1, "scale": scale}),
        Quant::PerBlock { scale, block_elems } => {
            o["quant"] = json!({"scheme": 2, "scale": scale, "block_elems": block_elems})
        }
        Quant::PerBlockOuter {
            scale,
            outer,
            block_elems,
        } => {
            o["quant"] =
                json!({"scheme": 3, "scale": scale, "outer": outer, "block_elems": block_elems})
        }
    }
    if let Some(l) = t.layout() {
        o["layout"] = json!({
            "name": l.name().expect("validated layout names are UTF-8"),
            "block_elems": l.block_elems(),
            "block_bytes": l.block_bytes(),
        });
    }
    o
}

/// Judges a directory file as `kiln check` does; for a valid one, checks
/// that the builder writes the same block from the view, and returns the
/// tensors as JSON.
fn decode_directory(bytes: &[u8], framed: bool) -> Result<Value, Error> {
    let view = check_buffer(bytes, &Limits::default())?;
    let block = if framed {
        bytes.get(frame::FRAME_LEN..).expect("framed")
    } else {
        bytes
    };
    assert_eq!(view.as_bytes(), block, "the view is not the whole block");
    // Canonical: rebuilding from the view writes the same bytes.
    let rebuilt = TensorsBuilder::from_view(&view).build()?;
    assert_eq!(rebuilt.as_bytes(), block, "re-encoding differs");
    Ok(Value::Array(view.iter().map(|t| tensor_json(&t)).collect()))
}

/// Reads a checkpoint; for a valid one, checks that writing the view
/// again gives the same bytes, and returns its metadata and tensors.
fn decode_checkpoint(bytes: &[u8]) -> Result<Value, Error> {
    let ck = CheckpointView::from_bytes(bytes, &Limits::default())?;
    assert_eq!(ck.kind(), FileKind::Checkpoint);
    assert_eq!(ck.to_vec()?, bytes, "re-encoding differs");
    let back: Checkpoint = kiln_serde::framed::from_slice(bytes)?;
    assert_eq!(back, ck.to_checkpoint(), "the serde reader agrees");
    Ok(json!({
        "metadata": ck.metadata(),
        "tensors": ck.tensors().iter().map(|t| tensor_json(&t)).collect::<Vec<_>>(),
    }))
}

fn run_case(case: &Value, bytes: &[u8]) -> Result<Value, Error> {
    match case["form"].as_str().expect("form") {
        "frozen" => decode_frozen(case["type"].as_str().expect("type"), bytes),
        "framed-value" => decode_framed_value(case["type"].as_str().expect("type"), bytes),
        "directory" => decode_directory(bytes, false),
        "framed" => decode_directory(bytes, true),
        "checkpoint" => decode_checkpoint(bytes),
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
                if case["form"] == "checkpoint" {
                    assert_eq!(v["metadata"], case["metadata"], "{name}: metadata");
                    assert_eq!(v["tensors"], case["tensors"], "{name}: tensors");
                } else if let Some(want) = case.get("tensors") {
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
    // The seed-named cases must be present (spec section 8).
    for seed in [
        "point",
        "kiln-v2-f8-pair",
        "kiln-v2-unaligned",
        "kiln-v2-nonzero-pad",
        "kiln-v2-overlap",
    ] {
        assert!(seen.contains(seed), "seed case {seed} is missing");
    }
}

/// Every error case carries an offset, every ok case what it decodes to,
/// and every file is exactly its manifest entry's file.
#[test]
fn manifest_entries_are_complete() {
    let cases = golden_cases::all_cases();
    for c in &cases {
        let e = &c.entry;
        let name = e["name"].as_str().expect("name");
        assert_eq!(e["file"].as_str(), Some(c.file.as_str()), "{name}");
        let form = e["form"].as_str().expect("form");
        match e["expect"].as_str().expect("expect") {
            "ok" => match form {
                "frozen" | "framed-value" => assert!(e.get("value").is_some(), "{name}"),
                "directory" | "framed" => assert!(e["tensors"].is_array(), "{name}"),
                "checkpoint" => assert!(
                    e["tensors"].is_array() && e["metadata"].is_object(),
                    "{name}"
                ),
                other => panic!("{name}: form {other}"),
            },
            code => {
                assert!(
                    ["FRAME", "LIMIT", "EOF", "TYPE", "UTF8", "TRAILING", "SCHEMA"].contains(&code),
                    "{name}: {code}"
                );
                assert!(e["offset"].is_u64(), "{name}: no offset");
            }
        }
        if form != "frozen" {
            assert!(e["description"].is_string(), "{name}: no description");
        }
    }
}

/// The seed picture of spec section 8, byte by byte.
#[test]
fn f8_pair_is_the_seed_picture() {
    let b = std::fs::read(dir().join("kiln-v2-f8-pair.kiln")).expect("f8-pair");
    assert_eq!(b.len(), 320 + 65);
    assert_eq!(&b[..4], b"KDIR");
    assert_eq!(b[8..12], 2u32.to_le_bytes());
    assert_eq!(b[16..24], 65u64.to_le_bytes());
    assert_eq!(b[320], 0x38);
    assert!(b[321..384].iter().all(|&x| x == 0));
    assert_eq!(b[384], 0x3c);
    // Descriptor 1: f8e5m2 (15) at payload offset 64.
    assert_eq!(b[160..162], 15u16.to_le_bytes());
    assert_eq!(b[240..248], 64u64.to_le_bytes());
}

/// The digests the generator uses are the spec's (FNV-1a check values of
/// section 3) and FIPS 180-4's (SHA-256 test vectors), and agree with the
/// implementation's schema hash.
#[test]
fn generator_digests_are_right() {
    assert_eq!(fnv1a64(""), 0xcbf29ce484222325);
    assert_eq!(fnv1a64("a"), 0xaf63dc4c8601ec8c);
    assert_eq!(fnv1a64(POINT_TEXT), 0x5e8fcc49ab06d825);
    assert_eq!(fnv1a64(TENSORS_TEXT), 0x91b48d411a259b35);
    assert_eq!(fnv1a64(TENSORS_TEXT), kiln_serde::checkpoint::TENSORS_HASH);
    assert_eq!(fnv1a64(CHECKPOINT_TEXT), 0xa16f22b5f4281eb1);
    assert_eq!(
        fnv1a64(CHECKPOINT_TEXT),
        kiln_serde::checkpoint::CHECKPOINT_HASH
    );
    assert_eq!(
        kiln_serde::schema::hash::<Point>().unwrap(),
        fnv1a64(POINT_TEXT)
    );
    assert_eq!(
        kiln_serde::schema::hash_text(POINT_SWAPPED_TEXT),
        fnv1a64(POINT_SWAPPED_TEXT)
    );
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
    assert_eq!(
        sha256_hex(&[b'a'; 1000]),
        "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"
    );
}

/// The other readers of a directory agree with `check_buffer` on every
/// directory case: the Frozen deserializer (borrowed view and owned copy,
/// slice and stream) for bare blocks, the framed reader for framed ones.
#[test]
fn every_directory_reader_agrees() {
    fn outcome<T>(r: Result<T, Error>) -> Result<(), (String, Option<u64>)> {
        r.map(|_| ())
            .map_err(|e| (e.code().as_str().to_string(), e.offset()))
    }
    let mut bad = Vec::new();
    for c in golden_cases::all_cases() {
        let name = c.entry["name"].as_str().expect("name");
        let bytes = &c.bytes;
        let form = c.entry["form"].as_str().expect("form");
        let want = outcome(check_buffer(bytes, &Limits::default()));
        let mut check = |path: &str, got| {
            if got != want {
                bad.push(format!(
                    "{name}: {path} gives {got:?}, check_buffer {want:?}"
                ));
            }
        };
        match form {
            "directory" => {
                check(
                    "from_slice::<TensorsView>",
                    outcome(kiln_serde::from_slice::<TensorsView<'_>>(bytes)),
                );
                check(
                    "from_slice::<Tensors>",
                    outcome(kiln_serde::from_slice::<Tensors>(bytes)),
                );
                // A stream reader reads one value and stops (spec 2.2): no
                // TRAILING. A block cut short is EOF at the same length field
                // a slice names.
                let want_stream = match &want {
                    Err((code, _)) if code == "TRAILING" => Ok(()),
                    other => other.clone(),
                };
                // Through a stream, and through a `&[u8]` reader (decoded
                // in place): the same outcome.
                let stream = outcome(kiln_serde::from_reader::<_, Tensors>(Stream(bytes)));
                let in_place = outcome(kiln_serde::from_reader::<_, Tensors>(&bytes[..]));
                for (how, got) in [("from_reader", stream), ("from_reader(&[u8])", in_place)] {
                    if got != want_stream {
                        bad.push(format!(
                            "{name}: {how}::<Tensors> gives {got:?}, expected {want_stream:?}"
                        ));
                    }
                }
            }
            "framed" => check(
                "framed::from_slice::<Tensors>",
                outcome(kiln_serde::framed::from_slice::<Tensors>(bytes)),
            ),
            _ => {}
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
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
    // No stale case file: every `.kiln` on disk is a case.
    for entry in std::fs::read_dir(dir()).expect("spec/golden") {
        let file = entry.expect("entry").file_name();
        let file = file.to_string_lossy();
        if file.ends_with(".kiln") {
            assert!(
                cases.iter().any(|c| c.file == file),
                "{file} is not a case: delete it or add it to the generator"
            );
        }
    }
    let manifest = std::fs::read_to_string(dir().join("cases.json")).expect("manifest");
    assert_eq!(
        manifest,
        golden_cases::manifest(&cases),
        "cases.json differs: regenerate"
    );
}
