//! Writes the seed corpora under `fuzz/seeds/<target>/` from the golden
//! files of `spec/golden/` (selector byte of the manifest type in front)
//! and from sample values of every fuzzed type.
//!
//! Run: `cargo run --manifest-path fuzz/Cargo.toml --example gen_seeds`.
//! The output is deterministic; the seeds are committed.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use kiln_fuzz::*;
use kiln_serde::tensors::{Dtype, Quant, TensorSpec, Tensors, TensorsBuilder};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_bytes::ByteBuf;
use serde_json::Value;

struct Seeds {
    dir: PathBuf,
    n: usize,
}

impl Seeds {
    /// The target's seed directory, emptied of generated seeds; inputs a
    /// fuzz run found (`regress-*.bin`, committed by hand) are kept.
    fn new(root: &Path, target: &str) -> Self {
        let dir = root.join(target);
        fs::create_dir_all(&dir).expect("seed dir");
        for entry in fs::read_dir(&dir).expect("seed dir") {
            let path = entry.expect("seed entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.starts_with("regress-") {
                fs::remove_file(&path).expect("clear seed");
            }
        }
        Seeds { dir, n: 0 }
    }

    fn put(&mut self, name: &str, bytes: &[u8]) {
        fs::write(self.dir.join(name), bytes).expect("write seed");
        self.n += 1;
    }
}

fn enc<T: Serialize>(v: &T) -> Vec<u8> {
    kiln_serde::to_vec(v).expect("sample encodes")
}

fn rich(depth: u32) -> Rich {
    let inner = Inner {
        a: 7,
        b: Some(-3),
        c: "héllo".into(),
        f: -0.0,
        pair: Pair(-2, Some('€')),
    };
    let mut tree = Tree::Leaf(1);
    for i in 0..depth {
        tree = match i % 3 {
            0 => Tree::Node(vec![tree, Tree::Leaf(i as i32)]),
            1 => Tree::Named(BTreeMap::from([("k".to_string(), tree)])),
            _ => Tree::Maybe(Some(Box::new(tree))),
        };
    }
    Rich {
        id: u64::MAX,
        big: i128::MIN,
        ubig: u128::MAX - 1,
        flag: true,
        ch: '\u{10FFFF}',
        f: f32::from_bits(0x7fc0_0001),
        d: f64::NEG_INFINITY,
        unit: Unit,
        small: (-1, 2, -3),
        arr: [1, 2, 3],
        kinds: vec![
            Kind::Empty,
            Kind::Newtype(5),
            Kind::Wrapped(Meters(1.5)),
            Kind::Tuple(-8, "t".into(), false),
            Kind::Record {
                name: "r".into(),
                inner: inner.clone(),
                tags: vec![Tag::A, Tag::B(1), Tag::C { s: "c".into() }],
            },
            Kind::Nested(Box::new(Kind::Nested(Box::new(Kind::Empty)))),
            Kind::UnitStruct(Unit),
        ],
        by_name: BTreeMap::from([("a".into(), inner.clone()), ("ab".into(), inner)]),
        by_id: HashMap::from([
            (-1, None),
            (1, Some("one".into())),
            (256, Some(String::new())),
        ]),
        by_tag: BTreeMap::from([(Tag::A, 1), (Tag::B(9), 2), (Tag::C { s: "z".into() }, 3)]),
        by_pair: BTreeMap::from([((1, "b".into()), true), ((1, "a".into()), false)]),
        by_bytes: BTreeMap::from([
            (ByteBuf::from(vec![2u8]), 1),
            (ByteBuf::from(vec![1u8, 1]), 2),
        ]),
        by_char: HashMap::from([('a', ()), ('é', ())]),
        blob: ByteBuf::from(vec![0u8, 255, 128]),
        list_bytes: vec![1, 2, 3],
        maybe: Some(None),
        nested: Some(vec![BTreeMap::from([(-1, "m".into()), (2, "n".into())])]),
        tree,
    }
}

/// Bulk `Vec`s (16 or more elements are written as one block, fewer one by
/// one: both sizes), options of each kind, a map keyed by `Parts`.
fn fields() -> Fields {
    Fields {
        words: (0..20).map(|i| i * 0x0101_0101).collect(),
        halves: vec![-1, 2, -3],
        floats: (0..16).map(|i| i as f32 - 0.5).collect(),
        doubles: vec![f64::NAN, -0.0, 1e300],
        flags: vec![true, false, true],
        wide: vec![u128::MAX, 1],
        name: Some("name".into()),
        big: Some(i128::MIN),
        flag: Some(false),
        d: None,
        n: Some(0xbeef),
        by_parts: BTreeMap::from([
            (
                Parts {
                    tag: 0,
                    parts: vec![2],
                },
                0,
            ),
            (
                Parts {
                    tag: 0,
                    parts: vec![1, 1],
                },
                1,
            ),
            (
                Parts {
                    tag: 1,
                    parts: vec![],
                },
                2,
            ),
        ]),
    }
}

fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let borrowed = Borrowed {
        s: "zero-copy",
        b: &[1, 2, 3],
        names: BTreeMap::from([("a", "x"), ("b", "y")]),
        list: vec!["p", "q"],
        opt: Some("o"),
        raw: BTreeMap::from([(serde_bytes::Bytes::new(&[1u8]), 1)]),
        seq_keys: BTreeMap::from([(&[1u8][..], 0), (&[0u8, 0][..], 1)]),
        point: Point { x: 1, y: 2 },
    };
    let keys = Keys {
        list: BTreeMap::from([(vec![1u8], 1), (vec![0u8, 0], 2)]),
        opt: BTreeMap::from([(None, 0), (Some("a".into()), 1)]),
        tuple: BTreeMap::from([(("a".into(), 2), 0), (("b".into(), 1), 1)]),
        strs: BTreeMap::from([(("a".into(),), 0), (("ab".into(),), 1)]),
        maps: BTreeMap::from([
            (BTreeMap::new(), 0),
            (BTreeMap::from([("k".to_string(), 1u8)]), 1),
        ]),
    };
    let numbers: Numbers = (
        -1,
        255,
        -2,
        65535,
        -3,
        7,
        i64::MIN,
        u64::MAX,
        -5,
        6,
        f32::NAN,
        -0.0,
    );
    vec![
        ("Point", enc(&Point { x: 9, y: -4 })),
        ("Shape", enc(&Shape::Dot)),
        ("Shape", enc(&Shape::Rect { w: 1.0, h: 2.0 })),
        ("bool", enc(&true)),
        ("char", enc(&'€')),
        ("str", enc(&"kiln")),
        ("option<u8>", enc(&Some(3u8))),
        ("list<u64>", enc(&vec![1u64, 2, 3])),
        (
            "map<str,u8>",
            enc(&BTreeMap::from([
                ("a".to_string(), 0u8),
                ("ab".to_string(), 1u8),
            ])),
        ),
        ("Rich", enc(&rich(0))),
        ("Rich", enc(&rich(12))),
        ("Borrowed", enc(&borrowed)),
        ("Tree", enc(&rich(40).tree)),
        ("Keys", enc(&keys)),
        ("numbers", enc(&numbers)),
        ("Fields", enc(&fields())),
        ("list<Plain>", enc(&plains())),
    ]
}

/// Enough [`Plain`]s that the first ones open a window (256 bytes left).
fn plains() -> Vec<Plain> {
    (0..12)
        .map(|i| Plain {
            a: Point { x: i, y: -i },
            b: (i as u8, -(i as i16), i as f32 / 2.0),
            flag: i % 2 == 0,
            side: if i % 3 == 0 { Side::Left } else { Side::Right },
            c: Point { x: 1, y: i },
            opt: if i % 4 == 0 { None } else { Some(i as u16) },
            d: i as u32 * 7,
        })
        .collect()
}

/// Directories that exercise every part of the layout.
fn directories() -> Vec<(&'static str, Tensors)> {
    let build = |specs: Vec<TensorSpec<'static>>| {
        let mut b = TensorsBuilder::new();
        for sp in specs {
            b.push(sp);
        }
        b.build().expect("sample directory builds")
    };
    let f32s: &'static [f32] = &[1.0, -2.0, 0.5, 3.25, -0.0, 7.0];
    vec![
        ("empty", build(vec![])),
        (
            "kiln-v2-f8-pair",
            build(vec![
                TensorSpec::new(Dtype::F8E4M3, &[1], &[0x38u8][..]),
                TensorSpec::new(Dtype::F8E5M2, &[1], &[0x3cu8][..]),
            ]),
        ),
        (
            "named-mixed",
            build(vec![
                TensorSpec::from_slice(&[2, 3], f32s).named("w"),
                TensorSpec::new(Dtype::U8, &[5], &[1u8, 2, 3, 4, 5][..]).named("bytes"),
                TensorSpec::new(Dtype::I4, &[3], &[0x21u8, 0x03][..]).named("nib"),
                TensorSpec::new(Dtype::Bf16, &[], &[0x80u8, 0x3f][..]).named("scalar"),
                TensorSpec::new(Dtype::Bool, &[0, 4], &[][..]).named("none"),
                TensorSpec::new(Dtype::U8, &[1], &[9u8][..]),
            ]),
        ),
        (
            "quantized",
            build(vec![
                TensorSpec::new(Dtype::F32, &[2], &[0u8, 0, 0, 0x3f, 0, 0, 0x80, 0x3e][..])
                    .named("s"),
                TensorSpec::new(Dtype::F16, &[1], &[0u8, 0x3c][..]).named("o"),
                TensorSpec::new(Dtype::I8, &[4], &[1u8, 2, 3, 4][..])
                    .named("q2")
                    .with_quant(Quant::PerBlock {
                        scale: 0,
                        block_elems: 2,
                    }),
                TensorSpec::new(Dtype::U4, &[4], &[0x21u8, 0x43][..])
                    .named("q3")
                    .with_quant(Quant::PerBlockOuter {
                        scale: 0,
                        outer: 1,
                        block_elems: 2,
                    }),
                TensorSpec::new(Dtype::U8, &[3], &[7u8, 8, 9][..])
                    .named("q1")
                    .with_quant(Quant::PerTensor { scale: 1 }),
            ]),
        ),
        (
            "opaque",
            build(vec![
                TensorSpec::opaque(4096, "q4_k", 256, 144, &[512], vec![0u8; 288]).named("k"),
                TensorSpec::opaque(4096, "q4_k", 256, 144, &[256], vec![1u8; 144]),
                TensorSpec::new(Dtype::F64, &[1], &[0u8, 0, 0, 0, 0, 0, 0xf0, 0x3f][..]),
            ]),
        ),
    ]
}

/// The spec's named faulty directories, from the f8 pair (spec 8).
fn faulty(pair: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let d1 = 32 + 128;
    let mut unaligned = pair.to_vec();
    unaligned[d1 + 80..d1 + 88].copy_from_slice(&1u64.to_le_bytes());
    unaligned[16..24].copy_from_slice(&2u64.to_le_bytes());
    unaligned.truncate(320);
    unaligned.extend_from_slice(&[0x38, 0x3c]);
    let mut pad = pair.to_vec();
    pad[320 + 32] = 0xa5;
    vec![
        ("kiln-v2-unaligned", unaligned),
        ("kiln-v2-nonzero-pad", pad),
    ]
}

fn framed<T: Serialize + DeserializeOwned + 'static>(v: &T) -> Vec<u8> {
    kiln_serde::framed::to_vec(v).expect("sample frames")
}

/// Framed samples of the owned types: (name, selector, frame).
fn framed_samples() -> Vec<(String, u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut put = |ty: &str, frame: Vec<u8>| {
        let sel = selector(ty).expect("selector");
        out.push((format!("framed-{:02}-{ty}", out.len()), sel, frame));
    };
    put("Point", framed(&Point { x: 9, y: -4 }));
    put("Shape", framed(&Shape::Rect { w: 1.0, h: 2.0 }));
    put("bool", framed(&true));
    put("char", framed(&'€'));
    put("str", framed(&"kiln".to_string()));
    put("option<u8>", framed(&Some(3u8)));
    put("list<u64>", framed(&vec![1u64, 2, 3]));
    put(
        "map<str,u8>",
        framed(&BTreeMap::from([
            ("a".to_string(), 0u8),
            ("ab".to_string(), 1u8),
        ])),
    );
    put("Rich", framed(&rich(3)));
    put("Tree", framed(&rich(20).tree));
    put(
        "numbers",
        framed(&(
            0i8, 1u8, 2i16, 3u16, 4i32, 5u32, 6i64, 7u64, 8i128, 9u128, 1.5f32, 2.5f64,
        )),
    );
    put("Fields", framed(&fields()));
    put("list<Plain>", framed(&plains()));
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("../spec/golden");
    let manifest: Value =
        serde_json::from_str(&fs::read_to_string(golden.join("cases.json")).expect("manifest"))
            .expect("manifest json");
    let seeds_root = root.join("seeds");

    // Golden files, by form.
    let mut frozen_golden = Vec::new();
    let mut framed_golden = Vec::new();
    let mut other_golden: BTreeMap<String, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    for case in manifest["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name").to_string();
        let bytes = fs::read(golden.join(case["file"].as_str().expect("file"))).expect("case");
        match case["form"].as_str().expect("form") {
            "frozen" => {
                let ty = case["type"].as_str().expect("type");
                let sel = selector(ty).unwrap_or_else(|| panic!("no selector for type {ty}"));
                frozen_golden.push((name, sel, bytes));
            }
            "framed-value" => {
                // Types the framed target knows get their selector; others
                // are still useful frames (they reach the hash check).
                let ty = case["type"].as_str().unwrap_or("");
                let sel = selector(ty).unwrap_or(0);
                framed_golden.push((name, sel, bytes));
            }
            form => other_golden
                .entry(form.to_string())
                .or_default()
                .push((name, bytes)),
        }
    }
    let samples: Vec<(String, u8, Vec<u8>)> = samples()
        .into_iter()
        .enumerate()
        .map(|(i, (ty, bytes))| {
            let sel = selector(ty).expect("sample selector");
            (format!("sample-{i:02}-{ty}"), sel, bytes)
        })
        .collect();

    // frozen: [selector, bytes...]
    let mut frozen = Seeds::new(&seeds_root, "frozen");
    for (name, sel, bytes) in frozen_golden.iter().chain(&samples) {
        let mut seed = vec![*sel];
        seed.extend_from_slice(bytes);
        frozen.put(&format!("{name}.bin"), &seed);
    }

    // reader_chunks: [selector, k, plan..., payload...]; one plain, one in
    // 1-byte chunks with an Interrupted, one with two values back to back.
    let mut chunks = Seeds::new(&seeds_root, "reader_chunks");
    for (name, sel, bytes) in frozen_golden.iter().chain(&samples) {
        let mut plain = vec![*sel, 0];
        plain.extend_from_slice(bytes);
        chunks.put(&format!("{name}.bin"), &plain);
        let mut short = vec![*sel, 3, 0x81, 2, 3];
        short.extend_from_slice(bytes);
        chunks.put(&format!("{name}-short.bin"), &short);
        let mut twice = vec![*sel, 2, 5, 0x87];
        twice.extend_from_slice(bytes);
        twice.extend_from_slice(bytes);
        chunks.put(&format!("{name}-twice.bin"), &twice);
    }

    // tensors: [mode, k, plan..., bytes...]; mode 0 bare, 1 record, 2 file.
    let mut tens = Seeds::new(&seeds_root, "tensors");
    let dirs = directories();
    let pair = dirs[1].1.as_bytes().to_vec();
    let mut blocks: Vec<(String, Vec<u8>)> = dirs
        .iter()
        .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec()))
        .collect();
    blocks.extend(faulty(&pair).into_iter().map(|(n, b)| (n.to_string(), b)));
    for (name, block) in &blocks {
        let mut bare = vec![0, 0];
        bare.extend_from_slice(block);
        tens.put(&format!("{name}-bare.bin"), &bare);
        let mut chunked = vec![0, 2, 0x8f, 3];
        chunked.extend_from_slice(block);
        tens.put(&format!("{name}-chunked.bin"), &chunked);
        let mut rec = vec![1, 1, 7, 42];
        rec.extend_from_slice(block);
        rec.extend_from_slice(&kiln_serde::to_vec(&"tail").unwrap());
        tens.put(&format!("{name}-record.bin"), &rec);
        let mut file = vec![2, 0];
        file.extend_from_slice(block);
        tens.put(&format!("{name}-file.bin"), &file);
    }
    for (name, t) in &dirs {
        let mut file = vec![2, 0];
        file.extend_from_slice(&framed(t));
        tens.put(&format!("{name}-framed-file.bin"), &file);
    }
    // Golden directories: bare and inside a record; golden framed
    // directory files: as files.
    for (name, bytes) in other_golden.get("directory").into_iter().flatten() {
        let mut bare = vec![0, 0];
        bare.extend_from_slice(bytes);
        tens.put(&format!("golden-{name}-bare.bin"), &bare);
        let mut rec = vec![1, 1, 7, 42];
        rec.extend_from_slice(bytes);
        rec.extend_from_slice(&kiln_serde::to_vec(&"tail").unwrap());
        tens.put(&format!("golden-{name}-record.bin"), &rec);
    }
    let files = ["framed", "checkpoint"].map(|f| other_golden.get(f));
    for (name, bytes) in files.into_iter().flatten().flatten() {
        let mut file = vec![2, 0];
        file.extend_from_slice(bytes);
        tens.put(&format!("golden-{name}-file.bin"), &file);
    }

    // framed: [selector, k (bit 4: require_hash), plan..., frame...]
    let mut fr = Seeds::new(&seeds_root, "framed");
    let owned = framed_samples();
    for (name, sel, frame) in &owned {
        let mut plain = vec![*sel, 0];
        plain.extend_from_slice(frame);
        fr.put(&format!("{name}.bin"), &plain);
        let mut strict = vec![*sel, 0x12, 1, 0x85];
        strict.extend_from_slice(frame);
        fr.put(&format!("{name}-require-hash.bin"), &strict);
        let mut nohash = vec![*sel, 0];
        let mut f = frame.clone();
        f[6] = 0;
        f[8..16].fill(0);
        nohash.extend_from_slice(&f);
        fr.put(&format!("{name}-no-hash.bin"), &nohash);
    }
    for (case, sel, bytes) in &framed_golden {
        let mut seed = vec![*sel, 0];
        seed.extend_from_slice(bytes);
        fr.put(&format!("golden-{case}.bin"), &seed);
    }

    println!("tensors: {} seeds", tens.n);
    println!("framed: {} seeds", fr.n);
    println!("frozen: {} seeds", frozen.n);
    println!("reader_chunks: {} seeds", chunks.n);
}
