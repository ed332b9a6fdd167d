//! Spec 2.1: `list<u8>` map keys sort by content without the count, whether
//! serde writes them as bytes (`serde_bytes`, `&[u8]` read borrowed) or as
//! a seq of u8 (`Vec<u8>`, `&[u8]` written by serde's slice impl), also
//! through a newtype or a one-element tuple; other keys (`Vec<u16>`,
//! `Vec<i8>`, `(u8, u8)`, `Vec<Vec<u8>>`, `Option<Vec<u8>>`) sort by their
//! whole encoding, as do struct keys with a `Vec` field after another
//! field. And the `sorted` helper for sets.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use kiln_serde::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

/// The keys, given in an order that is neither content nor count order.
const KEYS: [&[u8]; 7] = [&[1, 1], &[0xff], &[], &[0, 2, 0], &[1], &[0], &[0, 0xff]];

fn le(n: u32) -> [u8; 4] {
    n.to_le_bytes()
}

/// The expected bytes: entries in content order (empty key first), each
/// key with its count, value = the key's index in `KEYS`.
fn expected() -> Vec<u8> {
    let mut keys: Vec<(usize, &[u8])> = KEYS.iter().copied().enumerate().collect();
    keys.sort_by_key(|&(_, k)| k);
    assert_eq!(keys[0].1, &[] as &[u8]);
    let mut out = le(KEYS.len() as u32).to_vec();
    for (i, k) in keys {
        out.extend_from_slice(&le(k.len() as u32));
        out.extend_from_slice(k);
        out.push(i as u8);
    }
    out
}

fn vec_map() -> BTreeMap<Vec<u8>, u8> {
    KEYS.iter()
        .enumerate()
        .map(|(i, k)| (k.to_vec(), i as u8))
        .collect()
}

fn buf_map() -> BTreeMap<ByteBuf, u8> {
    KEYS.iter()
        .enumerate()
        .map(|(i, k)| (ByteBuf::from(k.to_vec()), i as u8))
        .collect()
}

fn slice_map() -> BTreeMap<&'static [u8], u8> {
    KEYS.iter()
        .enumerate()
        .map(|(i, k)| (*k, i as u8))
        .collect()
}

#[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
struct Wrapped(Vec<u8>);

/// A `list<u8>` key whose count is not given up front (as an iterator's
/// `collect_seq` without an exact size): the count patched in at the end.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Streamed(Vec<u8>);

impl Serialize for Streamed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for b in &self.0 {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
}

#[test]
fn the_three_key_types_write_the_same_bytes() {
    let want = expected();
    assert_eq!(kiln_serde::to_vec(&vec_map()).unwrap(), want);
    assert_eq!(kiln_serde::to_vec(&buf_map()).unwrap(), want);
    assert_eq!(kiln_serde::to_vec(&slice_map()).unwrap(), want);
    // A HashMap, a newtype and a one-element tuple around the key, and
    // every encoder entry point: the same bytes.
    let hash: HashMap<Vec<u8>, u8> = vec_map().into_iter().collect();
    assert_eq!(kiln_serde::to_vec(&hash).unwrap(), want);
    let wrapped: BTreeMap<Wrapped, u8> = vec_map()
        .into_iter()
        .map(|(k, v)| (Wrapped(k), v))
        .collect();
    assert_eq!(kiln_serde::to_vec(&wrapped).unwrap(), want);
    let tupled: BTreeMap<(Vec<u8>,), u8> = vec_map().into_iter().map(|(k, v)| ((k,), v)).collect();
    assert_eq!(kiln_serde::to_vec(&tupled).unwrap(), want);
    let streamed: BTreeMap<Streamed, u8> = vec_map()
        .into_iter()
        .map(|(k, v)| (Streamed(k), v))
        .collect();
    assert_eq!(kiln_serde::to_vec(&streamed).unwrap(), want);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &slice_map()).unwrap();
    assert_eq!(w, want);
    let mut out = Vec::new();
    kiln_serde::to_extend(&mut out, &hash).unwrap();
    assert_eq!(out, want);
    assert_eq!(
        kiln_serde::serialized_size(&vec_map()).unwrap(),
        want.len() as u64
    );
}

#[test]
fn each_key_type_reads_the_others_bytes() {
    for bytes in [
        kiln_serde::to_vec(&vec_map()).unwrap(),
        kiln_serde::to_vec(&buf_map()).unwrap(),
        kiln_serde::to_vec(&slice_map()).unwrap(),
    ] {
        assert_eq!(
            kiln_serde::from_slice::<BTreeMap<Vec<u8>, u8>>(&bytes).unwrap(),
            vec_map()
        );
        assert_eq!(
            kiln_serde::from_slice::<BTreeMap<ByteBuf, u8>>(&bytes).unwrap(),
            buf_map()
        );
        assert_eq!(
            kiln_serde::from_slice::<BTreeMap<&[u8], u8>>(&bytes).unwrap(),
            slice_map()
        );
        let r: BTreeMap<Vec<u8>, u8> = kiln_serde::from_reader(&bytes[..]).unwrap();
        assert_eq!(r, vec_map());
        let r: BTreeMap<ByteBuf, u8> = kiln_serde::from_reader(&bytes[..]).unwrap();
        assert_eq!(r, buf_map());
        let r: BTreeMap<Wrapped, u8> = kiln_serde::from_slice(&bytes).unwrap();
        assert_eq!(r.len(), KEYS.len());
        let r: BTreeMap<(Vec<u8>,), u8> = kiln_serde::from_slice(&bytes).unwrap();
        assert_eq!(r.len(), KEYS.len());
    }
}

/// Two entries with keys `a` then `b` (values 0).
fn two(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = le(2).to_vec();
    for k in [a, b] {
        out.extend_from_slice(&le(k.len() as u32));
        out.extend_from_slice(k);
        out.push(0);
    }
    out
}

fn type_at(r: kiln_serde::Result<impl std::fmt::Debug>, at: u64, what: &str) {
    let e = r.expect_err(what);
    assert_eq!(
        (e.code(), e.offset()),
        (ErrorCode::Type, Some(at)),
        "{what}: {e}"
    );
}

#[test]
fn keys_out_of_content_order_are_type_for_each_key_type() {
    // [01] before [00 02 00]: count order, not content order.
    let count_order = two(&[1], &[0, 2, 0]);
    let dup = two(&[5], &[5]);
    let empty_last = two(&[0], &[]);
    for (bytes, at) in [(&count_order, 10), (&dup, 10), (&empty_last, 10)] {
        type_at(
            kiln_serde::from_slice::<BTreeMap<Vec<u8>, u8>>(bytes),
            at,
            "Vec<u8>",
        );
        type_at(
            kiln_serde::from_slice::<BTreeMap<ByteBuf, u8>>(bytes),
            at,
            "ByteBuf",
        );
        type_at(
            kiln_serde::from_slice::<BTreeMap<&[u8], u8>>(bytes),
            at,
            "&[u8]",
        );
        type_at(
            kiln_serde::from_slice::<BTreeMap<Wrapped, u8>>(bytes),
            at,
            "newtype",
        );
        type_at(
            kiln_serde::from_slice::<BTreeMap<(Vec<u8>,), u8>>(bytes),
            at,
            "tuple",
        );
        type_at(
            kiln_serde::from_reader::<_, BTreeMap<Vec<u8>, u8>>(&bytes[..]),
            at,
            "Vec<u8> from a reader",
        );
    }
    // The content order is accepted by all.
    let ok = two(&[0, 2, 0], &[1]);
    assert_eq!(
        kiln_serde::from_slice::<BTreeMap<Vec<u8>, u8>>(&ok)
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        kiln_serde::from_slice::<BTreeMap<ByteBuf, u8>>(&ok)
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        kiln_serde::from_slice::<BTreeMap<&[u8], u8>>(&ok)
            .unwrap()
            .len(),
        2
    );
}

/// Keys that are not `list<u8>` sort by their whole encoding, count first:
/// a one-element key before a two-element one, whatever the elements.
#[test]
fn other_keys_sort_by_their_whole_encoding() {
    fn check<K: Serialize + for<'de> Deserialize<'de> + Ord + std::fmt::Debug>(
        short: K,
        long: K,
        what: &str,
    ) {
        let first = kiln_serde::to_vec(&(&short, 0u8)).unwrap();
        let map = BTreeMap::from([(short, 0u8), (long, 0u8)]);
        let bytes = kiln_serde::to_vec(&map).unwrap();
        let (a, b) = bytes[4..].split_at(first.len());
        assert_eq!(a, first, "{what}: the one-element key first");
        assert_eq!(
            kiln_serde::from_slice::<BTreeMap<K, u8>>(&bytes).unwrap(),
            map
        );
        // Swapping the two entries is out of order.
        let swapped = [&bytes[..4], b, a].concat();
        let e = kiln_serde::from_slice::<BTreeMap<K, u8>>(&swapped).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type, "{what}: {e}");
    }
    // Content order would put [0, 0] first.
    check(vec![0x0101u16], vec![0, 0], "Vec<u16>");
    check(vec![1i8], vec![0, 0], "Vec<i8>");
    check(vec![true], vec![false, false], "Vec<bool>");
    check(vec![vec![1u8]], vec![vec![], vec![]], "Vec<Vec<u8>>");
    // Tuples and enums with data inside a key's seq (read through the key
    // path's own accesses).
    check(vec![(1u8, 1u8)], vec![(0, 0), (0, 0)], "Vec<(u8, u8)>");
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    enum Shape {
        Dot,
        Line(u8, u8),
        Box { w: u8 },
    }
    check(
        vec![Shape::Box { w: 1 }],
        vec![Shape::Dot, Shape::Dot],
        "Vec<Shape>",
    );
    check(
        vec![Shape::Line(1, 2)],
        vec![Shape::Dot, Shape::Box { w: 0 }],
        "Vec<Shape> (tuple variant)",
    );
    // (u8, u8) has no count: its encoding is its content.
    let map = BTreeMap::from([((1u8, 0u8), 0u8), ((0, 2), 0)]);
    assert_eq!(
        kiln_serde::to_vec(&map).unwrap(),
        [2, 0, 0, 0, 0, 2, 0, 1, 0, 0]
    );
    // Option<Vec<u8>>: the tag and the count are part of the sort bytes.
    let map = BTreeMap::from([(Some(vec![1u8]), 0u8), (Some(vec![0, 0]), 0)]);
    let bytes = kiln_serde::to_vec(&map).unwrap();
    assert_eq!(bytes[4..10], [1, 1, 0, 0, 0, 1]);
    assert_eq!(
        kiln_serde::from_slice::<BTreeMap<Option<Vec<u8>>, u8>>(&bytes).unwrap(),
        map
    );
}

#[test]
fn decode_then_encode_is_the_identity_for_list_u8_keys() {
    let bytes = expected();
    let m: BTreeMap<&[u8], u8> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(kiln_serde::to_vec(&m).unwrap(), bytes);
    let m: BTreeMap<Vec<u8>, u8> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(kiln_serde::to_vec(&m).unwrap(), bytes);
}

// ---- kiln_serde::sorted

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct HashTags {
    #[serde(with = "kiln_serde::sorted")]
    tags: HashSet<String>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct TreeTags {
    #[serde(with = "kiln_serde::sorted")]
    tags: BTreeSet<String>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct VecTags {
    #[serde(with = "kiln_serde::sorted")]
    tags: Vec<u32>,
}

#[test]
fn sorted_sets_write_the_same_bytes_as_btree_sets() {
    let words = ["pear", "apple", "fig", "", "banana", "apples"];
    let hash = HashTags {
        tags: words.iter().map(|s| s.to_string()).collect(),
    };
    let tree = TreeTags {
        tags: words.iter().map(|s| s.to_string()).collect(),
    };
    let bytes = kiln_serde::to_vec(&hash).unwrap();
    assert_eq!(bytes, kiln_serde::to_vec(&tree).unwrap());
    assert_eq!(bytes, kiln_serde::to_vec(&tree.tags).unwrap());
    assert_eq!(kiln_serde::from_slice::<HashTags>(&bytes).unwrap(), hash);
    assert_eq!(kiln_serde::from_slice::<TreeTags>(&bytes).unwrap(), tree);
    // Another HashSet with another iteration order: the same bytes.
    let mut other = HashSet::with_capacity(1000);
    other.extend(words.iter().rev().map(|s| s.to_string()));
    assert_eq!(
        kiln_serde::to_vec(&HashTags { tags: other }).unwrap(),
        bytes
    );
    // Through serde_json as well (the helper is format-agnostic).
    let json = serde_json::to_string(&hash).unwrap();
    assert_eq!(
        json,
        r#"{"tags":["","apple","apples","banana","fig","pear"]}"#
    );
}

#[test]
fn sorted_rejects_unordered_and_repeated_elements() {
    let ok = kiln_serde::to_vec(&vec![1u32, 2, 3]).unwrap();
    assert_eq!(
        kiln_serde::from_slice::<VecTags>(&ok).unwrap().tags,
        [1, 2, 3]
    );
    for bad in [[2u32, 1, 3], [1, 1, 3]] {
        let bytes = kiln_serde::to_vec(&bad.to_vec()).unwrap();
        let e = kiln_serde::from_slice::<VecTags>(&bytes).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type, "{bad:?}: {e}");
    }
    let e = kiln_serde::from_slice::<HashTags>(&kiln_serde::to_vec(&vec!["b", "a"]).unwrap())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Type, "{e}");
    // A Vec with a repeat cannot be written (it could not be read back).
    let e = kiln_serde::to_vec(&VecTags {
        tags: vec![3, 1, 3],
    })
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Message, "{e}");
    // A Vec is written sorted.
    let v = VecTags {
        tags: vec![3, 1, 2],
    };
    assert_eq!(kiln_serde::to_vec(&v).unwrap(), ok);
}

/// Spec 2.1: an empty sequence key sorts first whatever its element type (a
/// zero count is the smallest encoding, and an empty `list<u8>` content the
/// smallest content), so both readings agree; after another key it is out
/// of order.
#[test]
fn an_empty_sequence_key_sorts_first_for_any_element_type() {
    let map = BTreeMap::from([(vec![0x0101u16], 1u8), (Vec::new(), 0u8)]);
    let bytes = kiln_serde::to_vec(&map).unwrap();
    // count 2, then the empty key (count 0) and its value first.
    assert_eq!(bytes[..9], [2, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        kiln_serde::from_slice::<BTreeMap<Vec<u16>, u8>>(&bytes).unwrap(),
        map
    );
    let empty_last = [&[2u8, 0, 0, 0][..], &bytes[9..], &bytes[4..9]].concat();
    let e = kiln_serde::from_slice::<BTreeMap<Vec<u16>, u8>>(&empty_last).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Type, "{e}");
}

/// A struct key with a `Vec` field: the field is read through the decoder's
/// known-`Vec` path (`de/bytes.rs`), which inside a key goes to the key's
/// seq as any seq does. A one-field struct has a one-element tuple's wire,
/// so a `Vec<u8>` or a `String` there sorts by content (spec 2.1, as
/// amended here: "or a one-field struct"); with a field before
/// it, or of another element type, the key sorts by its whole encoding.
#[test]
fn struct_keys_with_vec_fields_sort_as_the_encoder_wrote_them() {
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct One {
        v: Vec<u8>,
    }
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct Named {
        s: String,
    }
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct Tagged {
        tag: u8,
        v: Vec<u8>,
    }
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    struct Wide {
        v: Vec<u16>,
    }
    /// The two entries of `map` (keys `first` then `second` on the wire),
    /// read back; swapped, TYPE at the second key.
    fn check<K: Serialize + for<'de> Deserialize<'de> + Ord + std::fmt::Debug>(
        first: K,
        second: K,
        what: &str,
    ) {
        let a = kiln_serde::to_vec(&(&first, 0u8)).unwrap();
        let b = kiln_serde::to_vec(&(&second, 1u8)).unwrap();
        let map = BTreeMap::from([(first, 0u8), (second, 1u8)]);
        let bytes = kiln_serde::to_vec(&map).unwrap();
        assert_eq!(bytes, [&le(2)[..], &a, &b].concat(), "{what}: wire order");
        let back: BTreeMap<K, u8> = kiln_serde::from_slice(&bytes).unwrap();
        assert_eq!(back, map, "{what}");
        let r: kiln_serde::Result<BTreeMap<K, u8>> = kiln_serde::from_reader(&bytes[..]);
        assert_eq!(r.unwrap(), map, "{what}: from a reader");
        let swapped = [&le(2)[..], &b, &a].concat();
        let at = 4 + b.len() as u64;
        type_at(
            kiln_serde::from_slice::<BTreeMap<K, u8>>(&swapped),
            at,
            what,
        );
        type_at(
            kiln_serde::from_reader::<_, BTreeMap<K, u8>>(&swapped[..]),
            at,
            what,
        );
    }
    // Content order: [0, 0] before [1] (count order would put [1] first).
    check(One { v: vec![0, 0] }, One { v: vec![1] }, "One");
    let named = |s: &str| Named { s: s.into() };
    check(named("ab"), named("b"), "Named (a str, by content too)");
    // Whole encoding: the tag first, then the count.
    let t = |tag, v| Tagged { tag, v };
    check(t(0, vec![1]), t(0, vec![0, 0]), "Tagged");
    check(t(0, vec![9, 9]), t(1, vec![]), "Tagged by tag");
    check(Wide { v: vec![0x0101] }, Wide { v: vec![0, 0] }, "Wide");
}

/// A reader handing out at most `n` bytes per call.
struct Chunks<'a>(&'a [u8], usize);

impl std::io::Read for Chunks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(self.1).min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// A stream reads its map keys through a reader of their own that records
/// them (`read::KeyRead`); maps inside a key, and maps inside the values,
/// are read and checked as a slice reads them, whatever the chunking.
#[test]
fn maps_inside_keys_read_from_a_stream_as_from_a_slice() {
    type Inner = BTreeMap<u16, String>;
    type M = BTreeMap<(Inner, u8), BTreeMap<String, u32>>;
    let inner = |k: &[(u16, &str)]| -> Inner { k.iter().map(|&(a, b)| (a, b.into())).collect() };
    let value =
        |n: u32| -> BTreeMap<String, u32> { (0..n).map(|i| (format!("v{i}"), i)).collect() };
    let m: M = BTreeMap::from([
        ((inner(&[(1, "a"), (2, "bb")]), 0), value(3)),
        ((inner(&[(1, "a"), (3, "")]), 0), value(0)),
        ((inner(&[(1, "b")]), 7), value(2)),
        ((inner(&[(2, "a")]), 0), value(1)),
    ]);
    let bytes = kiln_serde::to_vec(&m).unwrap();
    assert_eq!(kiln_serde::from_slice::<M>(&bytes).unwrap(), m);
    for chunk in [1, 3, bytes.len()] {
        let back: M = kiln_serde::from_reader(Chunks(&bytes, chunk)).unwrap();
        assert_eq!(back, m, "chunks of {chunk}");
    }
    // Two entries of a key's inner map swapped, then two entries of a
    // value's map (no key reader there): TYPE at the second entry, from a
    // slice and from a stream in every chunking alike.
    let key_entries = (
        kiln_serde::to_vec(&(1u16, "a")),
        kiln_serde::to_vec(&(2u16, "bb")),
    );
    let value_entries = (
        kiln_serde::to_vec(&("v0", 0u32)),
        kiln_serde::to_vec(&("v1", 1u32)),
    );
    for (what, (a, b)) in [("key", key_entries), ("value", value_entries)] {
        let (a, b) = (a.unwrap(), b.unwrap());
        let start = find(&bytes, &[&a[..], &b].concat());
        let mut swapped = bytes.clone();
        swapped[start..start + a.len() + b.len()].copy_from_slice(&[&b[..], &a].concat());
        let at = (start + b.len()) as u64;
        type_at(kiln_serde::from_slice::<M>(&swapped), at, what);
        for chunk in [1, 3, bytes.len()] {
            type_at(
                kiln_serde::from_reader::<_, M>(Chunks(&swapped, chunk)),
                at,
                &format!("{what}, stream in chunks of {chunk}"),
            );
        }
    }
}

/// Where `part` first occurs in `all`.
fn find(all: &[u8], part: &[u8]) -> usize {
    all.windows(part.len())
        .position(|w| w == part)
        .expect("the bytes are there")
}
