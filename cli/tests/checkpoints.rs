//! `kiln convert`, `check` and `inspect` on checkpoints (safetensors
//! `__metadata__` kept) and sharded checkpoints (index + shards), run for
//! real, including the faults that must name the tensor and the shard and
//! leave no partial output.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use kiln_serde::checkpoint::FileKind;
use kiln_serde::{CheckpointView, Limits};
use safetensors::tensor::TensorView as StView;
use safetensors::{Dtype as St, SafeTensors};
use serde_json::{json, Value};
use tempfile::TempDir;

mod support;
use support::{kiln, path_str as s, run};

type Model = Vec<(String, St, Vec<usize>, Vec<u8>)>;

fn model(prefix: &str, n: usize) -> Model {
    (0..n)
        .map(|i| {
            let (dt, shape) = [
                (St::F32, vec![3, 2]),
                (St::BF16, vec![5]),
                (St::U8, vec![7]),
            ][i % 3]
                .clone();
            let len = shape.iter().product::<usize>() * dt.bitsize() / 8;
            let data = (0..len).map(|k| (k * 31 + i * 7) as u8).collect();
            (format!("{prefix}.{i}"), dt, shape, data)
        })
        .collect()
}

fn write_st(path: &Path, m: &Model, meta: Option<HashMap<String, String>>) {
    let views: Vec<(String, StView<'_>)> = m
        .iter()
        .map(|(n, d, sh, b)| (n.clone(), StView::new(*d, sh.clone(), b).unwrap()))
        .collect();
    safetensors::serialize_to_file(views, meta, path).unwrap();
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn metadata_survives_both_ways() {
    let dir = TempDir::new().unwrap();
    let m = model("t", 5);
    for (case, meta) in [
        (
            "one",
            Some(HashMap::from([("format".to_string(), "pt".to_string())])),
        ),
        ("empty", Some(HashMap::new())),
        (
            "many",
            Some(HashMap::from([
                ("format".to_string(), "pt".to_string()),
                ("é".to_string(), "ü\n\"q\"".to_string()),
                (String::new(), String::new()),
            ])),
        ),
    ] {
        let st = dir.path().join(format!("{case}.safetensors"));
        write_st(&st, &m, meta.clone());
        let kp = dir.path().join(format!("{case}.kiln"));
        let r = run(&["convert", s(&st), s(&kp)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stderr, "", "no warning: nothing is dropped");

        let bytes = std::fs::read(&kp).unwrap();
        let ck = CheckpointView::from_bytes(&bytes, &Limits::default()).unwrap();
        assert_eq!(ck.kind(), FileKind::Checkpoint, "{case}");
        let got: HashMap<String, String> = ck
            .metadata()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(Some(got), meta, "{case}");
        let r = run(&["check", s(&kp)]);
        assert_eq!(r.code, 0);
        assert!(r.stdout.contains("(checkpoint, "), "{}", r.stdout);
        let r = run(&["inspect", "--json", s(&kp)]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["kind"], "checkpoint");
        assert_eq!(
            doc["metadata"].as_object().unwrap().len(),
            meta.as_ref().unwrap().len()
        );

        let back = dir.path().join(format!("{case}.back.safetensors"));
        let r = run(&["convert", s(&kp), s(&back)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let b = std::fs::read(&back).unwrap();
        let (_, h) = SafeTensors::read_metadata(&b).unwrap();
        assert_eq!(
            h.metadata(),
            &meta,
            "{case}: the whole map, `{{}}` included"
        );
        let st_b = SafeTensors::deserialize(&b).unwrap();
        for (name, dt, shape, data) in &m {
            let t = st_b.tensor(name).unwrap();
            assert_eq!(
                (t.dtype(), t.shape(), t.data()),
                (*dt, &shape[..], &data[..])
            );
        }
        if case != "many" {
            // One key or none: safetensors' own bytes, exactly.
            assert!(b == std::fs::read(&st).unwrap(), "{case}: byte-identical");
        }
    }
    // A bare directory has no place for metadata: usage error, no output.
    let st = dir.path().join("one.safetensors");
    let out = dir.path().join("bare.kiln");
    let r = run(&["convert", s(&st), s(&out), "--bare"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("__metadata__"), "{}", r.stderr);
    assert!(!out.exists());
}

/// Spec 9: a file without `__metadata__` becomes framed `tensors`, not a
/// checkpoint, and comes back without `__metadata__`: the round trip keeps
/// whether the map was there, as well as its contents.
#[test]
fn no_metadata_stays_no_metadata() {
    let dir = TempDir::new().unwrap();
    let m = model("n", 4);
    let st = dir.path().join("none.safetensors");
    write_st(&st, &m, None);
    let kp = dir.path().join("none.kiln");
    let r = run(&["convert", s(&st), s(&kp)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let bytes = std::fs::read(&kp).unwrap();
    let view = CheckpointView::from_bytes(&bytes, &Limits::default()).unwrap();
    assert_eq!(view.kind(), FileKind::Framed);
    assert!(view.metadata().is_empty());
    let back = dir.path().join("none.back.safetensors");
    let r = run(&["convert", s(&kp), s(&back)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let b = std::fs::read(&back).unwrap();
    let (_, h) = SafeTensors::read_metadata(&b).unwrap();
    assert_eq!(h.metadata(), &None);
    assert!(b == std::fs::read(&st).unwrap(), "byte-identical");
}

/// Three safetensors shards and their index, as model hubs publish them.
fn sharded(dir: &Path, index_meta: Value) -> (PathBuf, Vec<Model>) {
    let shards: Vec<Model> = (0..3).map(|k| model(&format!("layer{k}"), 4)).collect();
    let mut weight_map = serde_json::Map::new();
    for (k, m) in shards.iter().enumerate() {
        let name = format!("model-{:05}-of-00003.safetensors", k + 1);
        let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
        write_st(&dir.join(&name), m, Some(meta));
        for (t, ..) in m {
            weight_map.insert(t.clone(), Value::String(name.clone()));
        }
    }
    let index = json!({"metadata": index_meta, "weight_map": weight_map});
    let p = dir.join("model.safetensors.index.json");
    std::fs::write(&p, serde_json::to_string_pretty(&index).unwrap()).unwrap();
    (p, shards)
}

#[test]
fn sharded_round_trip_check_and_inspect() {
    let src = TempDir::new().unwrap();
    let meta = json!({"total_size": 1234, "extra": [1, {"a": null}], "s": "x"});
    let (index, _) = sharded(src.path(), meta.clone());
    let out = src.path().join("kiln");
    let r = run(&["convert", s(&index), s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("12 tensors in 3 shards"), "{}", r.stdout);
    assert_eq!(
        files(&out),
        [
            "model-00001-of-00003.kiln",
            "model-00002-of-00003.kiln",
            "model-00003-of-00003.kiln",
            "model.kiln.index.json"
        ]
    );
    let kindex = out.join("model.kiln.index.json");
    let j: Value = serde_json::from_slice(&std::fs::read(&kindex).unwrap()).unwrap();
    assert_eq!(j["metadata"], meta, "index metadata kept exactly");
    assert_eq!(j["weight_map"]["layer1.2"], "model-00002-of-00003.kiln");

    let r = run(&["check", s(&kindex)]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.starts_with("ok\n12 tensors in 3 shards"),
        "{}",
        r.stdout
    );
    let r = run(&["inspect", "--json", s(&kindex)]);
    assert_eq!(r.code, 0);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["shards"].as_array().unwrap().len(), 3);
    assert_eq!(doc["metadata"], meta);
    assert_eq!(doc["shards"][0]["metadata"]["format"], "pt");
    let r = run(&["inspect", s(&kindex)]);
    assert!(r.stdout.starts_with("index: ") && r.stdout.matches("\nfile: ").count() == 3);

    // And back: every shard byte-identical, the index the same JSON.
    let back = src.path().join("back");
    let r = run(&["convert", s(&kindex), s(&back)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for k in 1..=3 {
        let name = format!("model-{k:05}-of-00003.safetensors");
        assert!(
            std::fs::read(back.join(&name)).unwrap()
                == std::fs::read(src.path().join(&name)).unwrap(),
            "{name}"
        );
    }
    let a: Value = serde_json::from_slice(&std::fs::read(&index).unwrap()).unwrap();
    let b: Value =
        serde_json::from_slice(&std::fs::read(back.join("model.safetensors.index.json")).unwrap())
            .unwrap();
    assert_eq!(a, b);
}

/// Rewrites the index with `edit`, converts, and expects exit 1 with a
/// message containing every word of `want`, and no output directory.
fn expect_fault(edit: impl FnOnce(&mut Value, &Path), want: &[&str]) {
    let src = TempDir::new().unwrap();
    let (index, _) = sharded(src.path(), json!({}));
    let mut j: Value = serde_json::from_slice(&std::fs::read(&index).unwrap()).unwrap();
    edit(&mut j, src.path());
    std::fs::write(&index, serde_json::to_string(&j).unwrap()).unwrap();
    let out = src.path().join("out");
    let r = run(&["convert", s(&index), s(&out)]);
    assert_eq!(r.code, 1, "{want:?}: {}", r.stderr);
    for w in want {
        assert!(r.stderr.contains(w), "{w:?} not in {}", r.stderr);
    }
    assert!(!out.exists(), "{want:?}: partial output left");
    assert!(
        !files(src.path()).iter().any(|f| f.contains("kiln-")),
        "temporary files left"
    );
}

#[test]
fn sharded_faults_name_tensor_and_shard_and_leave_nothing() {
    // A missing shard.
    expect_fault(
        |_, dir| std::fs::remove_file(dir.join("model-00003-of-00003.safetensors")).unwrap(),
        &["layer2.0", "model-00003-of-00003.safetensors", "missing"],
    );
    // A tensor that is not where the index says (found in shard 1).
    expect_fault(
        |j, _| j["weight_map"]["layer0.1"] = json!("model-00002-of-00003.safetensors"),
        &["layer0.1", "model-00001-of-00003.safetensors", "puts it in"],
    );
    // A shard holding a tensor the index does not list.
    expect_fault(
        |j, _| {
            j["weight_map"].as_object_mut().unwrap().remove("layer2.3");
        },
        &[
            "layer2.3",
            "model-00003-of-00003.safetensors",
            "does not list",
        ],
    );
    // The same name in two shards.
    expect_fault(
        |_, dir| {
            let mut m = model("layer2", 4);
            m[0].0 = "layer0.0".to_string();
            write_st(&dir.join("model-00003-of-00003.safetensors"), &m, None);
        },
        &[
            "layer0.0",
            "again in shard",
            "model-00003-of-00003.safetensors",
        ],
    );
    // A shard name that leaves the directory, or is a path.
    for evil in [
        "../model-00001-of-00003.safetensors",
        "/tmp/x.safetensors",
        "a/b.safetensors",
    ] {
        expect_fault(
            |j, _| j["weight_map"]["layer0.0"] = json!(evil),
            &["layer0.0", "not a plain file name"],
        );
    }
}

#[test]
fn sharded_check_faults() {
    let src = TempDir::new().unwrap();
    let (index, _) = sharded(src.path(), json!({}));
    let out = src.path().join("k");
    assert_eq!(run(&["convert", s(&index), s(&out)]).code, 0);
    let kindex = out.join("model.kiln.index.json");
    let good = std::fs::read(&kindex).unwrap();
    let mut j: Value = serde_json::from_slice(&good).unwrap();
    j["weight_map"]["layer1.0"] = json!("model-00001-of-00003.kiln");
    std::fs::write(&kindex, serde_json::to_string(&j).unwrap()).unwrap();
    let r = run(&["check", s(&kindex)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with("INDEX\n") && r.stdout.contains("layer1.0"),
        "{}",
        r.stdout
    );

    // A damaged shard: its code, offset and name.
    std::fs::write(&kindex, &good).unwrap();
    let shard = out.join("model-00002-of-00003.kiln");
    let mut b = std::fs::read(&shard).unwrap();
    b[0] = b'X';
    std::fs::write(&shard, b).unwrap();
    let r = run(&["check", s(&kindex)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.starts_with("FRAME\nat byte 0: ")
            && r.stdout.ends_with("\nshard: model-00002-of-00003.kiln\n"),
        "{}",
        r.stdout
    );
    std::fs::remove_file(out.join("model-00001-of-00003.kiln")).unwrap();
    let r = run(&["check", s(&kindex)]);
    assert!(r.stdout.contains("missing"), "{}", r.stdout);

    // A bare shard with an unnamed tensor, even when the index lists "".
    let mut b = kiln_serde::TensorsBuilder::new();
    b.push(kiln_serde::tensors::TensorSpec::new(
        kiln_serde::Dtype::U8,
        &[1],
        vec![1u8],
    ));
    std::fs::write(out.join("bare.kiln"), b.build().unwrap().as_bytes()).unwrap();
    std::fs::write(&kindex, r#"{"weight_map":{"":"bare.kiln"}}"#).unwrap();
    let r = run(&["check", s(&kindex)]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.starts_with(
            "INDEX
"
        ) && r.stdout.contains("tensor #0 has no name"),
        "{}",
        r.stdout
    );
}

/// `-` is standard input and standard output: safetensors piped in comes
/// out as the same Kiln bytes a file conversion writes, and piped back
/// out as the original safetensors bytes, with the summary on stderr and
/// no temporary file left behind.
#[test]
fn convert_through_stdin_and_stdout() {
    let dir = TempDir::new().unwrap();
    let m = model("p", 5);
    let st = dir.path().join("m.safetensors");
    write_st(
        &st,
        &m,
        Some(HashMap::from([("format".into(), "pt".into())])),
    );
    let st_bytes = std::fs::read(&st).unwrap();
    let kp = dir.path().join("m.kiln");
    assert_eq!(run(&["convert", s(&st), s(&kp)]).code, 0);
    let kiln_bytes = std::fs::read(&kp).unwrap();

    // stdin -> file: the format is recognized by its first bytes.
    let piped = dir.path().join("piped.kiln");
    let out = kiln()
        .args(["convert", "-", s(&piped)])
        .write_stdin(st_bytes.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out);
    assert_eq!(std::fs::read(&piped).unwrap(), kiln_bytes);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("- (safetensors) ->"));

    // stdin -> stdout, the way back.
    let out = kiln()
        .current_dir(dir.path())
        .args(["convert", "-", "-", "--to", "safetensors"])
        .write_stdin(kiln_bytes)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out.stderr);
    assert!(out.stdout == st_bytes, "byte-identical on stdout");
    assert!(String::from_utf8_lossy(&out.stderr).contains("-> - (safetensors)"));

    // No output format for `-` without --to.
    let r = run(&["convert", s(&kp), "-"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let mut left = files(dir.path());
    left.sort();
    assert_eq!(left, ["m.kiln", "m.safetensors", "piped.kiln"]);
}
