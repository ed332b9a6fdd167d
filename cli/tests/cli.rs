//! The `kiln` binary, run for real: `check`'s output and exit status for a
//! valid file and for each error code, `inspect`'s table and JSON, and
//! `hash` (`convert` through the `safetensors` crate: `tests/convert.rs`;
//! checkpoints and sharded checkpoints: `tests/checkpoints.rs`).

use std::path::Path;

use kiln_serde::checkpoint::{check_buffer, TENSORS_HASH};
use kiln_serde::schema::hash_text;
use kiln_serde::Limits;
use tempfile::TempDir;

mod support;
use support::{framed, kiln, path_str, rich, run, small, write};

// ---------------------------------------------------------------- check

#[test]
fn check_ok_bare_and_framed() {
    let dir = TempDir::new().unwrap();
    let t = small();
    let bare = write(&dir, "bare.kiln", t.as_bytes());
    let r = run(&["check", path_str(&bare)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let payload = t.layout().payload_bytes();
    let block = t.as_bytes().len();
    assert_eq!(
        r.stdout,
        format!("ok\n2 tensors, {payload} payload bytes (bare directory, {block}-byte block)\n")
    );
    assert_eq!(r.stderr, "");

    let f = write(
        &dir,
        "framed.kiln",
        &framed(t.as_bytes(), Some(TENSORS_HASH)),
    );
    let r = run(&["check", path_str(&f)]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "ok\n2 tensors, {payload} payload bytes (framed, hash = tensors, {block}-byte block)\n"
        )
    );

    let f = write(&dir, "nohash.kiln", &framed(t.as_bytes(), None));
    let r = run(&["check", path_str(&f)]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("(framed, no hash,"), "{}", r.stdout);

    // Standard input.
    let out = kiln()
        .args(["check", "-"])
        .write_stdin(t.as_bytes().to_vec())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .starts_with("ok\n2 tensors"));
}

/// Each spec code, from a valid directory with one byte changed (or cut,
/// or added). The CLI prints exactly what `check_buffer` judges.
#[test]
fn check_reports_each_code_with_offset() {
    let dir = TempDir::new().unwrap();
    let t = small();
    let good = t.as_bytes().to_vec();
    let heap = t.layout().heap_start();

    let mut cases: Vec<(&str, Vec<u8>, &str, u64)> = Vec::new();
    let mut v = good.clone();
    v[0] = b'X';
    cases.push(("frame", v, "FRAME", 0));
    let mut v = good.clone();
    v[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(("limit", v, "LIMIT", 8));
    cases.push(("eof-header", good[..20].to_vec(), "EOF", 0));
    cases.push(("eof-payload", good[..good.len() - 1].to_vec(), "EOF", 16));
    let mut v = good.clone();
    v[32] = 0; // dtype code 0 of descriptor 0
    cases.push(("type", v, "TYPE", 32));
    let mut v = good.clone();
    v[heap] = 0xff; // the first byte of the first name
    cases.push(("utf8", v, "UTF8", heap as u64));
    let mut v = good.clone();
    v.push(0);
    cases.push(("trailing", v, "TRAILING", good.len() as u64));
    let point = hash_text("struct Point{x:i32,y:i32}");
    cases.push(("schema", framed(&good, Some(point)), "SCHEMA", 8));
    let mut v = framed(&good, Some(TENSORS_HASH));
    v[16 + 32] = 0;
    cases.push(("type-framed", v, "TYPE", 48));

    for (name, bytes, code, offset) in cases {
        let e = check_buffer(&bytes, &Limits::default()).unwrap_err();
        assert_eq!(
            (e.code().as_str(), e.offset()),
            (code, Some(offset)),
            "{name}"
        );
        let p = write(&dir, &format!("{name}.kiln"), &bytes);
        let r = run(&["check", path_str(&p)]);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        assert_eq!(
            r.stdout,
            format!(
                "{code}\nat byte {offset}: {}\n",
                kiln_cli::inspect::readable_bytes(e.message())
            ),
            "{name}"
        );
        assert!(
            !r.stdout.contains(", 44, "),
            "bytes shown readably: {}",
            r.stdout
        );
        assert_eq!(r.stderr, "", "{name}");
    }
}

#[test]
fn check_golden_f8_pair_when_present() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/golden/kiln-v2-f8-pair.kiln");
    if !p.exists() {
        eprintln!("skipped: {} is not there yet", p.display());
        return;
    }
    let r = run(&["check", path_str(&p)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with("ok\n2 tensors, 65 payload bytes"),
        "{}",
        r.stdout
    );
}

#[test]
fn io_and_usage_errors_exit_2() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("missing.kiln");
    let r = run(&["check", path_str(&missing)]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.starts_with("kiln: cannot read ") && r.stderr.contains("missing.kiln"),
        "{}",
        r.stderr
    );
    let r = run(&["inspect", path_str(&missing)]);
    assert_eq!(r.code, 2);
    let r = run(&["check", path_str(dir.path())]);
    assert_eq!(r.code, 2, "a directory");

    for args in [
        &[][..],
        &["check"][..],
        &["check", "a", "b"][..],
        &["frobnicate"][..],
        &["inspect", "--yaml", "x"][..],
        &["hash"][..],
        &["convert", "only-one"][..],
        &["convert", "a.kiln", "b.kiln", "--to", "parquet"][..],
    ] {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(!r.stderr.is_empty(), "{args:?}");
        assert!(!r.stderr.contains("panicked"), "{args:?}");
    }
    assert_eq!(run(&["--help"]).code, 0);
    assert_eq!(run(&["check", "--help"]).code, 0);
}

// ---------------------------------------------------------------- inspect

#[test]
fn inspect_prints_frame_and_table() {
    let dir = TempDir::new().unwrap();
    let t = rich();
    let p = write(&dir, "rich.kiln", &framed(t.as_bytes(), Some(TENSORS_HASH)));
    let r = run(&["inspect", path_str(&p)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let l = t.layout();
    let head = format!(
        "file: {} ({} bytes)\n\
         frame: KILN version 2, profile 0 (frozen), hash 0x91b48d411a259b35 (= hash of `tensors`)\n\
         directory: at byte 16, {} bytes, 5 tensors; name heap {} bytes at byte {}; \
         payload region {} bytes at byte {}\n\n",
        p.display(),
        16 + t.as_bytes().len(),
        t.as_bytes().len(),
        l.heap_bytes(),
        16 + l.heap_start(),
        l.payload_bytes(),
        16 + l.payload_start()
    );
    assert_eq!(r.stdout, format!("{head}{}", t.table()));
    // The table rows the issue asks for.
    assert!(
        r.stdout.contains(
            "2  q        u4            [64]       128     32  per_block      1      -     32  -"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("q4_K [256/144]"));
    assert!(r.stdout.contains("\n4  -        f8e4m3"));

    // Bare: no frame.
    let p = write(&dir, "bare.kiln", t.as_bytes());
    let r = run(&["inspect", path_str(&p)]);
    assert!(r
        .stdout
        .contains("\nframe: none (bare directory)\ndirectory: at byte 0,"));

    // A faulty file is reported as check does.
    let mut bad = t.as_bytes().to_vec();
    bad.push(1);
    let p = write(&dir, "bad.kiln", &bad);
    let r = run(&["inspect", "--json", path_str(&p)]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, run(&["check", path_str(&p)]).stdout);
    assert!(r.stdout.starts_with("TRAILING\nat byte "));
}

#[test]
fn inspect_json_fields() {
    let dir = TempDir::new().unwrap();
    let t = rich();
    let p = write(&dir, "rich.kiln", &framed(t.as_bytes(), Some(TENSORS_HASH)));
    let r = run(&["inspect", "--json", path_str(&p)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["format"], "kiln-inspect");
    assert_eq!(v["version"], 1);
    assert_eq!(v["file"], path_str(&p));
    assert_eq!(v["file_bytes"], 16 + t.as_bytes().len() as u64);
    assert_eq!(v["frame"]["version"], 2);
    assert_eq!(v["frame"]["profile"], 0);
    assert_eq!(v["frame"]["flags"], 1);
    assert_eq!(v["frame"]["hash"], "0x91b48d411a259b35");
    assert_eq!(v["frame"]["hash_is_tensors"], true);
    let l = t.layout();
    assert_eq!(v["directory"]["start"], 16);
    assert_eq!(v["directory"]["bytes"], t.as_bytes().len() as u64);
    assert_eq!(v["directory"]["count"], 5);
    assert_eq!(
        v["directory"]["payload_start"],
        16 + l.payload_start() as u64
    );
    assert_eq!(v["directory"]["payload_bytes"], l.payload_bytes());

    let ts = v["tensors"].as_array().unwrap();
    assert_eq!(ts.len(), 5);
    let w = &ts[0];
    assert_eq!(w["index"], 0);
    assert_eq!(w["name"], "w");
    assert_eq!(w["dtype"], "f32");
    assert_eq!(w["dtype_code"], 12);
    assert_eq!(w["shape"], serde_json::json!([2, 3]));
    assert_eq!(w["elements"], 6);
    assert_eq!(w["byte_offset"], 0);
    assert_eq!(w["byte_length"], 24);
    assert_eq!(w["file_offset"], 16 + l.payload_start() as u64);
    assert_eq!(w["quant"]["scheme"], "none");
    assert!(w["quant"]["scale"].is_null());
    assert!(w["layout"].is_null());

    let q = &ts[2];
    assert_eq!(q["name"], "q");
    assert_eq!(q["dtype"], "u4");
    assert_eq!(q["byte_offset"], 128);
    assert_eq!(q["byte_length"], 32);
    assert_eq!(q["quant"]["scheme"], "per_block");
    assert_eq!(q["quant"]["scale"], 1);
    assert!(q["quant"]["outer"].is_null());
    assert_eq!(q["quant"]["block_elems"], 32);

    // The payload at file_offset is the tensor's.
    let file = std::fs::read(&p).unwrap();
    let at = q["file_offset"].as_u64().unwrap() as usize;
    assert_eq!(&file[at..at + 32], &[0x31u8; 32]);

    let k = &ts[3];
    assert_eq!(k["dtype"], "opaque");
    assert_eq!(k["dtype_code"], 4096);
    assert_eq!(
        k["layout"],
        serde_json::json!({"name": "q4_K", "block_elems": 256, "block_bytes": 144})
    );
    assert!(ts[4]["name"].is_null());

    assert_eq!(v["totals"]["tensors"], 5);
    assert_eq!(v["totals"]["elements"], 6 + 2 + 64 + 256 + 1);
    assert_eq!(v["totals"]["tensor_bytes"], 24 + 4 + 32 + 144 + 1);
    assert_eq!(v["totals"]["block_bytes"], t.as_bytes().len() as u64);

    // Bare: frame is null, starts are from 0.
    let p = write(&dir, "bare.kiln", t.as_bytes());
    let r = run(&["inspect", path_str(&p), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["frame"].is_null());
    assert_eq!(v["directory"]["start"], 0);
}

// ---------------------------------------------------------------- hash

#[test]
fn hash_prints_the_spec_check_values() {
    for (text, want) in [
        ("struct Point{x:i32,y:i32}", "0x5e8fcc49ab06d825\n"),
        ("tensors", "0x91b48d411a259b35\n"),
        (
            "struct Checkpoint{metadata:map<str,str>,tensors:tensors}",
            "0xa16f22b5f4281eb1\n",
        ),
    ] {
        let r = run(&["hash", text]);
        assert_eq!((r.code, r.stdout.as_str()), (0, want), "{text:?}");
    }
    // Not type text: exit 1, the column on stderr, nothing on stdout.
    for (text, col) in [
        ("a", 1),
        ("", 1),
        ("struct Point{x:i32, y:i32}", 20),
        ("(u8,u8)", 1),
    ] {
        let r = run(&["hash", text]);
        assert_eq!((r.code, r.stdout.as_str()), (1, ""), "{text:?}");
        assert!(
            r.stderr.contains(&format!("column {col}: ")),
            "{}",
            r.stderr
        );
    }
}
