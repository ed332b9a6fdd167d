//! `kiln convert` between safetensors and Kiln, run for real: lossless
//! round trips over every shared dtype, the tensor named when one side has
//! no counterpart, bad inputs and usage, and a converted file inspected.

use std::collections::HashMap;
use std::path::Path;

use kiln_serde::checkpoint::check_buffer;
use kiln_serde::tensors::{Dtype, Quant, TensorSpec, TensorsBuilder};
use kiln_serde::Limits;
use safetensors::tensor::TensorView as StView;
use safetensors::{Dtype as St, SafeTensors};
use tempfile::TempDir;

mod support;
use support::{path_str, run, small, write};

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
