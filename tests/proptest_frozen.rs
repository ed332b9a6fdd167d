//! Property tests: round trips of a rich type, canonical decoding (any
//! buffer that decodes re-encodes to the identical bytes), and no panics on
//! mutated or truncated input.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use kiln_serde::tensors::{Dtype, TensorSpec, TensorsBuilder};
use kiln_serde::Tensors;
use proptest::test_runner::{Config, TestRunner};
use serde::de::DeserializeOwned;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Inner {
    a: u8,
    b: Option<i64>,
    c: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Kind {
    Unit,
    New(u32),
    Tup(i16, bool),
    Rec { name: String, inner: Inner },
}

#[derive(Serialize, Deserialize, Debug, Clone)]
struct Rich {
    id: u64,
    big: i128,
    flag: bool,
    ch: char,
    f: f32,
    d: f64,
    kinds: Vec<Kind>,
    by_name: BTreeMap<String, Inner>,
    by_id: HashMap<u16, Vec<u8>>,
    pair: (i8, Option<Box<Kind>>),
    arr: [u16; 3],
    #[serde(with = "serde_bytes")]
    blob: Vec<u8>,
    nested: Option<Vec<BTreeMap<i32, String>>>,
}

/// Equality that compares floats by bits (NaN payloads, -0.0).
fn same(a: &Rich, b: &Rich) -> bool {
    a.id == b.id
        && a.big == b.big
        && a.flag == b.flag
        && a.ch == b.ch
        && a.f.to_bits() == b.f.to_bits()
        && a.d.to_bits() == b.d.to_bits()
        && a.kinds == b.kinds
        && a.by_name == b.by_name
        && a.by_id == b.by_id
        && a.pair == b.pair
        && a.arr == b.arr
        && a.blob == b.blob
        && a.nested == b.nested
}

fn inner() -> impl Strategy<Value = Inner> {
    (any::<u8>(), any::<Option<i64>>(), ".{0,8}").prop_map(|(a, b, c)| Inner { a, b, c })
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Unit),
        any::<u32>().prop_map(Kind::New),
        (any::<i16>(), any::<bool>()).prop_map(|(a, b)| Kind::Tup(a, b)),
        (".{0,6}", inner()).prop_map(|(name, inner)| Kind::Rec { name, inner }),
    ]
}

fn rich() -> impl Strategy<Value = Rich> {
    (
        (any::<u64>(), any::<i128>(), any::<bool>(), any::<char>()),
        (
            any::<u32>().prop_map(f32::from_bits),
            any::<u64>().prop_map(f64::from_bits),
        ),
        prop::collection::vec(kind(), 0..5),
        prop::collection::btree_map("[a-z]{0,4}", inner(), 0..5),
        prop::collection::hash_map(any::<u16>(), prop::collection::vec(any::<u8>(), 0..6), 0..6),
        (any::<i8>(), prop::option::of(kind().prop_map(Box::new))),
        any::<[u16; 3]>(),
        prop::collection::vec(any::<u8>(), 0..16),
        prop::option::of(prop::collection::vec(
            prop::collection::btree_map(any::<i32>(), ".{0,4}", 0..4),
            0..3,
        )),
    )
        .prop_map(
            |(h, (f, d), kinds, by_name, by_id, pair, arr, blob, nested)| Rich {
                id: h.0,
                big: h.1,
                flag: h.2,
                ch: h.3,
                f,
                d,
                kinds,
                by_name,
                by_id,
                pair,
                arr,
                blob,
                nested,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trip_every_path(v in rich()) {
        let bytes = kiln_serde::to_vec(&v).unwrap();
        prop_assert_eq!(kiln_serde::serialized_size(&v).unwrap(), bytes.len() as u64);
        // to_vec sizes its buffer by a counting pre-pass: exact, so one
        // allocation and no slack up to 64 KiB, 512 bytes above (a wrong
        // count shows here as other spare room).
        let slack = |n: usize| if n > 64 * 1024 { 512 } else { 0 };
        prop_assert_eq!(bytes.capacity(), bytes.len() + slack(bytes.len()));
        let framed = kiln_serde::framed::to_vec(&v).unwrap();
        prop_assert_eq!(framed.capacity(), framed.len() + slack(framed.len()));
        let mut w = Vec::new();
        kiln_serde::to_writer(&mut w, &v).unwrap();
        prop_assert_eq!(&w, &bytes);
        let back: Rich = kiln_serde::from_slice(&bytes).unwrap();
        prop_assert!(same(&back, &v));
        let back: Rich = kiln_serde::from_reader(&bytes[..]).unwrap();
        prop_assert!(same(&back, &v));
        // Canonical: re-encoding the decoded value gives the same bytes.
        prop_assert_eq!(kiln_serde::to_vec(&back).unwrap(), bytes);
    }

    /// `to_slice` writes `to_vec`'s bytes into a buffer of exactly that
    /// size (HashMap keys arrive out of order, so maps are sorted in the
    /// slice), and into any shorter buffer it reports LIMIT at the buffer's
    /// end with the size needed, never a panic or a short write.
    #[test]
    fn to_slice_is_to_vec_or_reports_the_size_needed(v in rich(), cut in any::<prop::sample::Index>()) {
        let bytes = kiln_serde::to_vec(&v).unwrap();
        let mut buf = vec![0xA5u8; bytes.len() + 3];
        let n = kiln_serde::to_slice(&mut buf, &v).unwrap();
        prop_assert_eq!(&buf[..n], &bytes[..]);
        prop_assert_eq!(&buf[n..], &[0xA5; 3][..]);
        let short = cut.index(bytes.len());
        let e = kiln_serde::to_slice(&mut buf[..short], &v).unwrap_err();
        prop_assert_eq!(e.code(), kiln_serde::ErrorCode::Limit);
        prop_assert_eq!(e.offset(), Some(short as u64));
        prop_assert_eq!(
            e.detail(),
            kiln_serde::error::ErrorDetail::BufferFull(bytes.len() as u64)
        );
    }

    /// In a slice over 1 KiB `to_slice` tests a struct's room once, and a
    /// value whose test refused near the slice's end is written again
    /// (`ser/retry.rs`): `to_vec`'s bytes at any slack, and one byte
    /// short, LIMIT with the size needed.
    #[test]
    fn a_large_to_slice_ending_near_its_slice_end_is_to_vec(
        vs in prop::collection::vec(rich(), 1..6),
        pad in 1000usize..1400,
        slack in 0usize..600,
    ) {
        let v = ("p".repeat(pad), vs);
        let bytes = kiln_serde::to_vec(&v).unwrap();
        let mut buf = vec![0xA5u8; bytes.len() + slack];
        let n = kiln_serde::to_slice(&mut buf, &v).unwrap();
        prop_assert_eq!(&buf[..n], &bytes[..]);
        let short = bytes.len() - 1;
        let e = kiln_serde::to_slice(&mut buf[..short], &v).unwrap_err();
        prop_assert_eq!(
            e.detail(),
            kiln_serde::error::ErrorDetail::BufferFull(bytes.len() as u64)
        );
    }

    /// Without maps `serialized_size` takes the counting pass alone: it
    /// must agree with the bytes (`Rich` has maps, so the test above runs
    /// the encoding fallback).
    #[test]
    fn serialized_size_without_maps(
        kinds in prop::collection::vec(kind(), 0..6),
        inner in inner(),
        pair in (any::<i8>(), prop::option::of(kind().prop_map(Box::new))),
        arr in any::<[u16; 3]>(),
        blob in prop::collection::vec(any::<u8>(), 0..16),
        ch in any::<char>(),
    ) {
        let v = (kinds, inner, pair, arr, serde_bytes::ByteBuf::from(blob), ch, 0i128);
        let bytes = kiln_serde::to_vec(&v).unwrap();
        prop_assert_eq!(kiln_serde::serialized_size(&v).unwrap(), bytes.len() as u64);
    }

    #[test]
    fn mutations_never_panic_and_decodes_are_canonical(
        v in rich(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = kiln_serde::to_vec(&v).unwrap();
        for (i, b) in flips {
            if !bytes.is_empty() {
                let i = i.index(bytes.len());
                bytes[i] = b;
            }
        }
        if let Ok(d) = kiln_serde::from_slice::<Rich>(&bytes) {
            prop_assert_eq!(kiln_serde::to_vec(&d).unwrap(), bytes.clone());
        }
        let s = kiln_serde::from_slice::<Rich>(&bytes).map(|_| ()).map_err(|e| e.code());
        let r = kiln_serde::from_reader::<_, Rich>(&bytes[..]).map(|_| ()).map_err(|e| e.code());
        // Slice and stream agree on success (a stream cannot see TRAILING).
        if s.is_ok() { prop_assert!(r.is_ok()); }
    }

    #[test]
    fn truncations_fail_with_eof(v in rich(), cut in any::<prop::sample::Index>()) {
        let bytes = kiln_serde::to_vec(&v).unwrap();
        if !bytes.is_empty() {
            let cut = cut.index(bytes.len());
            let err = kiln_serde::from_slice::<Rich>(&bytes[..cut]).unwrap_err();
            prop_assert_eq!(err.code(), kiln_serde::ErrorCode::Eof);
        }
    }

    #[test]
    fn hashmap_and_btreemap_write_the_same_bytes(m in prop::collection::btree_map(".{0,6}", any::<u32>(), 0..20)) {
        let h: HashMap<String, u32> = m.clone().into_iter().collect();
        prop_assert_eq!(kiln_serde::to_vec(&h).unwrap(), kiln_serde::to_vec(&m).unwrap());
        let k: BTreeMap<i64, u8> = m.values().map(|v| (i64::from(*v) - (1 << 31), 0u8)).collect();
        let hk: HashMap<i64, u8> = k.clone().into_iter().collect();
        let bytes = kiln_serde::to_vec(&hk).unwrap();
        let back: BTreeMap<i64, u8> = kiln_serde::from_slice(&bytes).unwrap();
        prop_assert_eq!(back, k);
    }
}

// ------------------------------------------ mutated valid encodings (spec 1.2)

/// A value with a little of everything Frozen has: strings, lists, a map,
/// options, every enum variant kind, floats, chars, and bools in bulk (so
/// that a mutation often lands on a tag byte).
#[derive(Serialize, Deserialize, Debug, Clone)]
enum Shape {
    Empty,
    Circle(f32),
    Rect { w: f64, h: f64 },
    Poly(Vec<(i16, i16)>),
}

#[derive(Serialize, Deserialize, Debug)]
struct Doc {
    id: u32,
    title: String,
    tags: Vec<String>,
    scores: BTreeMap<String, f64>,
    parent: Option<u64>,
    shape: Shape,
    bits: Vec<bool>,
    maybe: Vec<Option<u8>>,
    ch: char,
    samples: Vec<f32>,
}

/// A record with a tensor directory in place and a field after it.
#[derive(Serialize, Deserialize, Debug)]
struct Step {
    step: u16,
    weights: Tensors,
    done: Option<bool>,
    note: String,
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Empty),
        any::<u32>().prop_map(|b| Shape::Circle(f32::from_bits(b))),
        (any::<u64>(), any::<u64>()).prop_map(|(w, h)| Shape::Rect {
            w: f64::from_bits(w),
            h: f64::from_bits(h)
        }),
        prop::collection::vec(any::<(i16, i16)>(), 0..4).prop_map(Shape::Poly),
    ]
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        (
            any::<u32>(),
            "[a-zé]{0,6}",
            prop::collection::vec("[a-c]{0,3}", 0..4),
        ),
        prop::collection::btree_map("[a-d]{0,2}", any::<f64>(), 0..4),
        (any::<Option<u64>>(), shape()),
        prop::collection::vec(any::<bool>(), 0..8),
        prop::collection::vec(any::<Option<u8>>(), 0..6),
        (any::<char>(), prop::collection::vec(any::<f32>(), 0..16)),
    )
        .prop_map(
            |((id, title, tags), scores, (parent, shape), bits, maybe, (ch, samples))| Doc {
                id,
                title,
                tags,
                scores,
                parent,
                shape,
                bits,
                maybe,
                ch,
                samples,
            },
        )
}

fn step() -> impl Strategy<Value = Step> {
    (
        any::<u16>(),
        prop::collection::vec(any::<u8>(), 0..400),
        prop::option::of("[a-z]{1,3}"),
        any::<Option<bool>>(),
        "[a-z]{0,4}",
    )
        .prop_map(|(step, data, name, done, note)| {
            let mut b = TensorsBuilder::new();
            let len = data.len() as u64;
            let mut t = TensorSpec::new(Dtype::U8, &[len], data);
            if let Some(n) = name {
                t = t.named(n);
            }
            b.push(t);
            Step {
                step,
                weights: b.build().unwrap(),
                done,
                note,
            }
        })
}

/// One edit of an encoded buffer. Positions are taken modulo the length.
#[derive(Clone, Debug)]
enum Mutation {
    /// XOR a byte with a nonzero mask.
    Flip(prop::sample::Index, u8),
    /// Set a byte to 0x00, 0x01 or 0xFF.
    Set(prop::sample::Index, u8),
    /// Add -1 or +1 to a byte (a bool or option tag 1 becomes 2 or 0).
    Nudge(prop::sample::Index, bool),
    /// Keep only a prefix.
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Delete(prop::sample::Index),
    /// Add a small delta to the u32 LE at a position (a count, when it
    /// lands on one).
    Count(prop::sample::Index, i8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    use prop::sample::Index;
    // Edits that keep the length are weighted up: a truncation, insertion
    // or deletion almost never leaves a decodable buffer.
    prop_oneof![
        3 => (any::<Index>(), 1..=255u8).prop_map(|(i, m)| Mutation::Flip(i, m)),
        2 => (any::<Index>(), prop::sample::select(vec![0u8, 1, 0xff]))
            .prop_map(|(i, v)| Mutation::Set(i, v)),
        2 => (any::<Index>(), any::<bool>()).prop_map(|(i, up)| Mutation::Nudge(i, up)),
        1 => any::<Index>().prop_map(Mutation::Truncate),
        1 => (any::<Index>(), any::<u8>()).prop_map(|(i, v)| Mutation::Insert(i, v)),
        1 => any::<Index>().prop_map(Mutation::Delete),
        2 => (any::<Index>(), prop::sample::select(vec![-2i8, -1, 1, 2]))
            .prop_map(|(i, d)| Mutation::Count(i, d)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let n = bytes.len();
    match m {
        Mutation::Flip(i, mask) => bytes[i.index(n)] ^= mask,
        Mutation::Set(i, v) => bytes[i.index(n)] = *v,
        Mutation::Nudge(i, up) => {
            let b = &mut bytes[i.index(n)];
            *b = if *up {
                b.wrapping_add(1)
            } else {
                b.wrapping_sub(1)
            };
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(n)),
        Mutation::Insert(i, v) => bytes.insert(i.index(n + 1), *v),
        Mutation::Delete(i) => drop(bytes.remove(i.index(n))),
        Mutation::Count(i, d) => {
            if n >= 4 {
                let at = i.index(n - 3);
                let mut w = [0u8; 4];
                w.copy_from_slice(&bytes[at..at + 4]);
                let v = u32::from_le_bytes(w).wrapping_add_signed(i32::from(*d));
                bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// Spec property 2 on one mutated buffer: accepted bytes re-encode to
/// themselves (from a slice and from a stream), rejected bytes fail with a
/// spec code at an offset inside the buffer. Returns whether it decoded.
fn judge<T: Serialize + DeserializeOwned>(bytes: &[u8]) -> Result<bool, TestCaseError> {
    match kiln_serde::from_slice::<T>(bytes) {
        Ok(v) => {
            prop_assert_eq!(kiln_serde::to_vec(&v).unwrap(), bytes);
            let s = kiln_serde::from_reader::<_, T>(bytes).unwrap();
            prop_assert_eq!(kiln_serde::to_vec(&s).unwrap(), bytes);
            Ok(true)
        }
        Err(e) => {
            // One of the seven codes of spec 7: a fault of the bytes is
            // never IO or MESSAGE.
            prop_assert!(e.code().is_spec_code(), "not a spec code: {}", e);
            let at = e.offset().expect("a decode error has an offset");
            prop_assert!(
                at <= bytes.len() as u64,
                "{} past the end ({})",
                e,
                bytes.len()
            );
            Ok(false)
        }
    }
}

/// Runs `cases` mutated encodings of `strategy`'s values through [`judge`];
/// returns how many decoded.
fn mutate_and_judge<T: Serialize + DeserializeOwned + std::fmt::Debug>(
    strategy: impl Strategy<Value = T>,
    cases: u32,
) -> usize {
    let decoded = AtomicUsize::new(0);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let muts = prop::collection::vec(mutation(), 1..=3);
    TestRunner::new(config)
        .run(&(strategy, muts), |(v, muts)| {
            let mut bytes = kiln_serde::to_vec(&v).unwrap();
            for m in &muts {
                apply(&mut bytes, m);
            }
            if judge::<T>(&bytes)? {
                decoded.fetch_add(1, Relaxed);
            }
            Ok(())
        })
        .unwrap();
    decoded.into_inner()
}

/// Spec property 2 (`encode(decode(b)) == b` for every accepted `b`) on
/// mutated valid encodings. Random buffers almost never decode (a property
/// over them reached its comparison in 0 of 5,120 cases); 1 to 3 edits of
/// a valid encoding leave about a fifth decodable, so the comparison runs
/// often. Measured over 20 runs of 1,024 cases each: `Doc` decoded 226 to
/// 264 times (22-26%), `Step` 194 to 229 (19-22%); the threshold, 15%
/// (154), is more than four standard deviations below both.
#[test]
fn mutated_encodings_reencode_identically_or_fail_with_a_spec_code() {
    let n = 1024;
    let docs = mutate_and_judge(doc(), n);
    let steps = mutate_and_judge(step(), n);
    eprintln!("decoded after mutation: Doc {docs}/{n}, Step {steps}/{n}");
    let at_least = 15 * n as usize / 100;
    assert!(docs >= at_least, "Doc: only {docs} of {n} decoded");
    assert!(steps >= at_least, "Step: only {steps} of {n} decoded");
}
