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
use serde::Serialize;
use serde_bytes::ByteBuf;
use serde_json::Value;

struct Seeds {
    dir: PathBuf,
    n: usize,
}

impl Seeds {
    fn new(root: &Path, target: &str) -> Self {
        let dir = root.join(target);
        if dir.exists() {
            fs::remove_dir_all(&dir).expect("clear seed dir");
        }
        fs::create_dir_all(&dir).expect("seed dir");
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

fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let borrowed = Borrowed {
        s: "zero-copy",
        b: &[1, 2, 3],
        names: BTreeMap::from([("a", "x"), ("b", "y")]),
        list: vec!["p", "q"],
        opt: Some("o"),
        raw: BTreeMap::from([(serde_bytes::Bytes::new(&[1u8]), 1)]),
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
    ]
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

    // Other forms (directory, framed) once their golden cases exist: the
    // file as is.
    for (form, cases) in &other_golden {
        let target = match form.as_str() {
            "directory" => "tensors",
            other => other,
        };
        let mut s = Seeds::new(&seeds_root, target);
        for (name, bytes) in cases {
            s.put(&format!("{name}.bin"), bytes);
        }
        println!("{target}: {} seeds", s.n);
    }
    println!("frozen: {} seeds", frozen.n);
    println!("reader_chunks: {} seeds", chunks.n);
}
