//! Property tests: round trips of a rich type, canonical decoding (any
//! buffer that decodes re-encodes to the identical bytes), and no panics on
//! mutated or truncated input.

use std::collections::{BTreeMap, HashMap};

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
        // allocation and no slack (a wrong count shows here as spare room).
        prop_assert_eq!(bytes.capacity(), bytes.len());
        let framed = kiln_serde::framed::to_vec(&v).unwrap();
        prop_assert_eq!(framed.capacity(), framed.len());
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
    fn any_buffer_that_decodes_reencodes_identically(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        // Small types where random bytes often decode.
        if let Ok(v) = kiln_serde::from_slice::<(Option<bool>, Kind)>(&bytes) {
            prop_assert_eq!(kiln_serde::to_vec(&v).unwrap(), bytes.clone());
        }
        if let Ok(v) = kiln_serde::from_slice::<BTreeMap<u8, Option<u8>>>(&bytes) {
            prop_assert_eq!(kiln_serde::to_vec(&v).unwrap(), bytes.clone());
        }
        if let Ok(v) = kiln_serde::from_slice::<HashMap<String, u8>>(&bytes) {
            prop_assert_eq!(kiln_serde::to_vec(&v).unwrap(), bytes.clone());
        }
        if let Ok(v) = kiln_serde::from_slice::<Vec<(char, u8)>>(&bytes) {
            prop_assert_eq!(kiln_serde::to_vec(&v).unwrap(), bytes.clone());
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
