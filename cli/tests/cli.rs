//! The `kiln` binary, run for real: `check`'s output and exit status for a
//! valid file and for each error code, `inspect`'s table and JSON, `hash`,
//! and `convert` round trips through the `safetensors` crate (checkpoints
//! and sharded checkpoints: `tests/checkpoints.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use kiln_serde::checkpoint::{check_buffer, TENSORS_HASH};
use kiln_serde::frame;
use kiln_serde::schema::hash_text;
use kiln_serde::tensors::{Dtype, Quant, TensorSpec, Tensors, TensorsBuilder};
use kiln_serde::Limits;
use safetensors::tensor::TensorView as StView;
use safetensors::{Dtype as St, SafeTensors};
use tempfile::TempDir;

fn kiln() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let out = kiln().args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn framed(block: &[u8], hash: Option<u64>) -> Vec<u8> {
    let mut v = frame::encode(hash).to_vec();
    v.extend_from_slice(block);
    v
}

/// Two named tensors: an f32 matrix and a bf16 vector.
fn small() -> Tensors {
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [half::bf16::from_f32(0.5), half::bf16::from_f32(-2.0)];
    let mut builder = TensorsBuilder::new();
    builder.push(TensorSpec::from_slice(&[2, 3], &w).named("w"));
    builder.push(TensorSpec::from_slice(&[2], &b).named("b"));
    builder.build().unwrap()
}

/// A directory with a quantized u4 block, its f16 scale, an opaque layout
/// and an unnamed tensor.
fn rich() -> Tensors {
    let w = [0.25f32; 6];
    let scale = [half::f16::from_f32(0.5), half::f16::from_f32(0.125)];
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2, 3], &w).named("w"));
    let s = b.push(TensorSpec::from_slice(&[2], &scale).named("q.scale"));
    b.push(
        TensorSpec::new(Dtype::U4, &[64], vec![0x31u8; 32])
            .named("q")
            .with_quant(Quant::PerBlock {
                scale: s as u32,
                block_elems: 32,
            }),
    );
    b.push(TensorSpec::opaque(4096, "q4_K", 256, 144, &[256], vec![9u8; 144]).named("k"));
    b.push(TensorSpec::new(Dtype::F8E4M3, &[1], vec![0x38u8]));
    b.build().unwrap()
}

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

// ---------------------------------------------------------------- convert

/// Deterministic pseudo-random bytes.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

const DTYPES: [St; 16] = [
    St::F32,
    St::F16,
    St::BF16,
    St::I64,
    St::U8,
    St::BOOL,
    St::F64,
    St::I32,
    St::I8,
    St::I16,
    St::U16,
    St::U32,
    St::U64,
    St::F8_E4M3,
    St::F8_E5M2,
    St::F8_E8M0,
];

/// 64 tensors of every shared dtype and assorted shapes (a scalar, empty
/// ones, one large enough for the input to be memory-mapped), named so
/// that name order and safetensors' own order differ.
fn model() -> Vec<(String, St, Vec<usize>, Vec<u8>)> {
    let shapes: [&[usize]; 8] = [
        &[],
        &[1],
        &[7],
        &[3, 5],
        &[2, 3, 4],
        &[0],
        &[4, 0, 2],
        &[1, 1, 1, 9],
    ];
    let mut out = Vec::new();
    for i in 0..64usize {
        let dt = DTYPES[i % DTYPES.len()];
        let shape: Vec<usize> = if i == 6 {
            vec![700, 400] // 280,000 x f64 = 2.24 MB: the file is mapped
        } else {
            shapes[i % shapes.len()].to_vec()
        };
        let n: usize = shape.iter().product::<usize>() * dt.bitsize() / 8;
        let name = format!("layers.{}.{}", 63 - i, ["w", "b", "Z", "ä"][i % 4]);
        out.push((name, dt, shape, bytes(i as u64, n)));
    }
    out
}

fn write_safetensors(
    path: &Path,
    tensors: &[(String, St, Vec<usize>, Vec<u8>)],
    meta: Option<HashMap<String, String>>,
) {
    let views: Vec<(String, StView<'_>)> = tensors
        .iter()
        .map(|(n, d, s, b)| (n.clone(), StView::new(*d, s.clone(), b).unwrap()))
        .collect();
    safetensors::serialize_to_file(views, meta, path).unwrap();
}

fn kiln_dtype(d: St) -> Dtype {
    match d {
        St::F32 => Dtype::F32,
        St::F16 => Dtype::F16,
        St::BF16 => Dtype::Bf16,
        St::I64 => Dtype::I64,
        St::U8 => Dtype::U8,
        St::BOOL => Dtype::Bool,
        St::F64 => Dtype::F64,
        St::I32 => Dtype::I32,
        St::I8 => Dtype::I8,
        St::I16 => Dtype::I16,
        St::U16 => Dtype::U16,
        St::U32 => Dtype::U32,
        St::U64 => Dtype::U64,
        St::F8_E4M3 => Dtype::F8E4M3,
        St::F8_E5M2 => Dtype::F8E5M2,
        St::F8_E8M0 => Dtype::F8E8M0,
        other => panic!("no Kiln dtype for {other:?}"),
    }
}

/// No file but `keep` is left in the directory (no temporary files).
fn only_files(dir: &TempDir, keep: &[&str]) {
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = keep.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(names, want);
}

#[test]
fn convert_round_trip_is_lossless() {
    let dir = TempDir::new().unwrap();
    let model = model();
    let st_in = dir.path().join("model.safetensors");
    write_safetensors(&st_in, &model, None);
    let original = std::fs::read(&st_in).unwrap();
    assert!(
        original.len() as u64 >= 1 << 20,
        "large enough to be mapped"
    );

    // safetensors -> Kiln
    let kp = dir.path().join("model.kiln");
    let r = run(&["convert", path_str(&st_in), path_str(&kp)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    assert!(r.stdout.contains("(safetensors) -> ") && r.stdout.contains("64 tensors"));
    let r = run(&["check", path_str(&kp)]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("64 tensors") && r.stdout.contains("hash = tensors"));

    let file = std::fs::read(&kp).unwrap();
    let view = check_buffer(&file, &Limits::default()).unwrap();
    assert_eq!(view.len(), 64);
    let mut sorted = model.clone();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (t, (name, dt, shape, data)) in view.iter().zip(&sorted) {
        assert_eq!(t.name(), Some(name.as_str()), "Kiln keeps name order");
        assert_eq!(t.dtype(), kiln_dtype(*dt), "{name}");
        let s: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
        assert_eq!(t.shape(), &s[..], "{name}");
        assert_eq!(t.data(), &data[..], "{name}");
    }

    // Kiln -> safetensors: the same file the safetensors crate wrote.
    let st_out = dir.path().join("back.safetensors");
    let r = run(&["convert", path_str(&kp), path_str(&st_out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let back = std::fs::read(&st_out).unwrap();
    let st = SafeTensors::deserialize(&back).unwrap();
    assert_eq!(st.len(), 64);
    for (name, dt, shape, data) in &model {
        let t = st.tensor(name).unwrap();
        assert_eq!(
            (t.dtype(), t.shape(), t.data()),
            (*dt, &shape[..], &data[..])
        );
    }
    assert!(back == original, "byte-identical safetensors file");
    only_files(
        &dir,
        &["model.safetensors", "model.kiln", "back.safetensors"],
    );

    // A bare Kiln file, by explicit formats and odd extensions.
    let bare = dir.path().join("model.bin");
    let r = run(&[
        "convert",
        path_str(&st_in),
        path_str(&bare),
        "--to",
        "kiln",
        "--bare",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let b = std::fs::read(&bare).unwrap();
    assert_eq!(
        &b[..],
        &file[16..],
        "bare = the framed file without its frame"
    );
    let again = dir.path().join("again.data");
    let r = run(&[
        "convert",
        path_str(&bare),
        path_str(&again),
        "--from",
        "kiln",
        "--to",
        "safetensors",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read(&again).unwrap() == original);

    // Overwriting an existing output replaces it.
    let r = run(&["convert", path_str(&kp), path_str(&st_out)]);
    assert_eq!(r.code, 0);
    assert!(std::fs::read(&st_out).unwrap() == original);
}

#[test]
fn convert_names_the_tensor_without_counterpart() {
    let dir = TempDir::new().unwrap();
    let f32s = [1.0f32, 2.0];
    let cases: Vec<(&str, TensorSpec<'_>, &str)> = vec![
        (
            "u4",
            TensorSpec::new(Dtype::U4, &[4], vec![0x21u8, 0x43]).named("packed.weights"),
            "dtype u4",
        ),
        (
            "i4",
            TensorSpec::new(Dtype::I4, &[2], vec![0x21u8]).named("i4.w"),
            "dtype i4",
        ),
        (
            "f4",
            TensorSpec::new(Dtype::F4E2M1, &[2], vec![0x21u8]).named("fp4.w"),
            "dtype f4e2m1",
        ),
        (
            "opaque",
            TensorSpec::opaque(5000, "q8_0", 32, 34, &[32], vec![0u8; 34]).named("blk.0"),
            "dtype opaque(5000)",
        ),
        (
            "unnamed",
            TensorSpec::from_slice(&[2], &f32s),
            "tensor #1 has no name",
        ),
    ];
    for (case, spec, why) in cases {
        let mut b = TensorsBuilder::new();
        b.push(TensorSpec::from_slice(&[2], &f32s).named("fine"));
        let name = spec.name().map(str::to_string);
        b.push(spec);
        let t = b.build().unwrap();
        let kp = write(&dir, &format!("{case}.kiln"), t.as_bytes());
        let out = dir.path().join(format!("{case}.safetensors"));
        let r = run(&["convert", path_str(&kp), path_str(&out)]);
        assert_eq!(r.code, 1, "{case}: {}", r.stderr);
        assert!(
            r.stderr.starts_with("kiln: ") && r.stderr.contains(why),
            "{case}: {}",
            r.stderr
        );
        if let Some(n) = name {
            assert!(
                r.stderr.contains(&format!("tensor {n:?} (#1)")),
                "{}",
                r.stderr
            );
        }
        assert!(!out.exists(), "{case}: no output");
        std::fs::remove_file(&kp).unwrap();
        only_files(&dir, &[]);
    }

    // A quantization link: the data tensor is named.
    let scale = [0.5f32];
    let mut b = TensorsBuilder::new();
    let s = b.push(TensorSpec::from_slice(&[1], &scale).named("q.scale"));
    b.push(
        TensorSpec::new(Dtype::I8, &[4], vec![1u8, 2, 3, 4])
            .named("q")
            .with_quant(Quant::PerTensor { scale: s as u32 }),
    );
    let kp = write(&dir, "quant.kiln", b.build().unwrap().as_bytes());
    let out = dir.path().join("quant.safetensors");
    let r = run(&["convert", path_str(&kp), path_str(&out)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("tensor \"q\" (#1) is quantized (per_tensor, scale tensor #0)"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());

    // A safetensors dtype with no Kiln code.
    for (dt, why) in [
        (St::C64, "no complex dtype"),
        (St::F8_E4M3FNUZ, "FNUZ"),
        (St::F4, "F4"),
    ] {
        let n = 8 * 8 / dt.bitsize();
        let model = vec![
            ("a".to_string(), St::F32, vec![1], vec![0u8; 4]),
            ("odd.one".to_string(), dt, vec![n], vec![0u8; 8]),
        ];
        let st_in = dir.path().join("odd.safetensors");
        write_safetensors(&st_in, &model, None);
        let kp = dir.path().join("odd.kiln");
        let r = run(&["convert", path_str(&st_in), path_str(&kp)]);
        assert_eq!(r.code, 1, "{dt:?}");
        assert!(
            r.stderr.contains("tensor \"odd.one\" has dtype") && r.stderr.contains(why),
            "{}",
            r.stderr
        );
        assert!(!kp.exists());
    }
}

#[test]
fn convert_rejects_bad_inputs_and_usage() {
    let dir = TempDir::new().unwrap();
    // Not safetensors: exit 1 with the crate's reason, no panic.
    for (name, junk) in [
        ("empty.safetensors", Vec::new()),
        ("short.safetensors", vec![1u8, 2, 3]),
        ("huge-header.safetensors", u64::MAX.to_le_bytes().to_vec()),
        ("bad-json.safetensors", {
            let mut v = 4u64.to_le_bytes().to_vec();
            v.extend_from_slice(b"{{{{");
            v
        }),
    ] {
        let p = write(&dir, name, &junk);
        let out = dir.path().join("out.kiln");
        let r = run(&["convert", path_str(&p), path_str(&out)]);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        assert!(
            r.stderr.contains("not a valid safetensors file"),
            "{}",
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"));
        assert!(!out.exists());
    }
    // A faulty Kiln input: code, offset and sentence.
    let mut bad = small().as_bytes().to_vec();
    bad[32] = 0;
    let p = write(&dir, "bad.kiln", &bad);
    let out = dir.path().join("bad.safetensors");
    let r = run(&["convert", path_str(&p), path_str(&out)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("bad.kiln: TYPE at byte 32: "),
        "{}",
        r.stderr
    );

    // Usage: same format, unknown output format, --bare to safetensors.
    let good = write(&dir, "good.kiln", small().as_bytes());
    for args in [
        vec!["convert", path_str(&good), "x.kiln"],
        vec!["convert", path_str(&good), "x.unknown"],
        vec!["convert", path_str(&good), "x.safetensors", "--bare"],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("kiln: "), "{}", r.stderr);
    }
    // A missing input, and an output directory that does not exist.
    let r = run(&["convert", "no-such.kiln", "x.safetensors"]);
    assert_eq!(r.code, 2);
    let nowhere = dir.path().join("no/such/dir/x.safetensors");
    let r = run(&["convert", path_str(&good), path_str(&nowhere)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// `kiln inspect` of a file written by `convert` lists the tensors in name
/// order with their safetensors dtypes.
#[test]
fn converted_file_inspects() {
    let dir = TempDir::new().unwrap();
    let model = vec![
        ("b".to_string(), St::BF16, vec![2], vec![1u8, 2, 3, 4]),
        ("a".to_string(), St::F32, vec![1, 1], vec![0u8, 0, 128, 63]),
    ];
    let st_in = dir.path().join("ab.safetensors");
    write_safetensors(&st_in, &model, None);
    let kp = dir.path().join("ab.kiln");
    assert_eq!(run(&["convert", path_str(&st_in), path_str(&kp)]).code, 0);
    let r = run(&["inspect", path_str(&kp)]);
    assert_eq!(r.code, 0);
    let table: Vec<&str> = r.stdout.lines().skip(4).collect();
    assert_eq!(
        table,
        [
            "#  name  dtype  shape   offset  bytes  quant  scale  outer  block  layout",
            "0  a     f32    [1, 1]       0      4  none       -      -      -  -",
            "1  b     bf16   [2]         64      4  none       -      -      -  -",
            "total: 2 tensors, 3 elements, 8 tensor bytes, payload region 68 bytes, block 388 bytes",
        ]
    );
}
