//! The depth rule of spec section 6: seqs, maps, `Some` contents and enum
//! variant contents each add one level; structs, tuples, newtypes, unit
//! values and unit variants add none. Every encoder applies the same rule
//! with the same cap as the decoder, so what one set of options writes it
//! can always read: checked at the boundary (cap, cap + 1) for three
//! recursive shapes on every entry point, Kiln's and the bincode module's.

use kiln_serde::bincode::{self, KilnOptionsExt, Options as _};
use kiln_serde::error::ErrorDetail;
use kiln_serde::{ErrorCode, Options, Schema};
use serde::{Deserialize, Serialize};

#[path = "support/deep_shapes.rs"]
mod deep_shapes;
use deep_shapes::{list, node, tree, List, Node, Tree};

/// A value with that many levels of one shape, and where the level after
/// the last one starts (the offset of the LIMIT fault one level deeper).
trait Shape: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + 'static {
    fn build(levels: usize) -> Self;
    /// Offset of level `k + 1`'s first byte (its count, tag or index).
    fn level_at(k: usize) -> u64;
}

impl Shape for Tree {
    fn build(levels: usize) -> Self {
        tree(levels)
    }
    fn level_at(k: usize) -> u64 {
        4 * k as u64
    }
}

impl Shape for Node {
    fn build(levels: usize) -> Self {
        node(levels)
    }
    fn level_at(k: usize) -> u64 {
        k as u64
    }
}

impl Shape for List {
    fn build(levels: usize) -> Self {
        list(levels)
    }
    fn level_at(k: usize) -> u64 {
        8 * k as u64
    }
}

fn assert_limit(r: kiln_serde::Result<impl std::fmt::Debug>, at: u64, cap: u32, what: &str) {
    match r {
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::Limit, "{what}: {e}");
            assert_eq!(e.offset(), Some(at), "{what}: {e}");
            assert_eq!(e.detail(), ErrorDetail::TooDeep(cap), "{what}: {e}");
            assert_eq!(
                e.message(),
                format!("nesting deeper than the depth cap {cap}"),
                "{what}"
            );
        }
        Ok(v) => panic!("{what}: expected LIMIT at {at}, got {v:?}"),
    }
}

/// Kiln's own entry points at the boundary: `cap` levels write and read
/// back; `cap + 1` levels fail on every encoder with LIMIT at the first
/// byte of the extra level, and the bytes a higher cap wrote fail on every
/// decoder at that same offset.
fn kiln_boundary<S: Shape>(cap: u32) {
    let opts = Options::new().with_max_depth(cap);
    let levels = cap as usize;
    let ok = S::build(levels);
    let bytes = opts.to_vec(&ok).unwrap();
    assert_eq!(opts.from_slice::<S>(&bytes).unwrap(), ok);
    assert_eq!(opts.from_reader::<_, S>(&bytes[..]).unwrap(), ok);
    assert_eq!(opts.take_from_slice::<S>(&bytes).unwrap().0, ok);
    assert_eq!(opts.serialized_size(&ok).unwrap(), bytes.len() as u64);
    let mut out = vec![7];
    opts.to_extend(&mut out, &ok).unwrap();
    assert_eq!(out[1..], bytes[..]);
    let mut w = Vec::new();
    opts.to_writer(&mut w, &ok).unwrap();
    assert_eq!(w, bytes);
    let schema = Schema::<S>::new().unwrap().with_options(opts);
    let f = schema.to_vec(&ok).unwrap();
    assert_eq!(schema.from_slice(&f).unwrap(), ok);
    assert_eq!(schema.from_reader(&f[..]).unwrap(), ok);

    let bad = S::build(levels + 1);
    let at = S::level_at(levels);
    assert_limit(opts.to_vec(&bad), at, cap, "to_vec");
    assert_limit(opts.serialized_size(&bad), at, cap, "serialized_size");
    let mut out = vec![7];
    assert_limit(opts.to_extend(&mut out, &bad), at + 1, cap, "to_extend");
    assert_eq!(out, [7], "to_extend leaves the buffer as it was");
    let mut w = Vec::new();
    assert_limit(opts.to_writer(&mut w, &bad), at, cap, "to_writer");
    assert!(w.is_empty(), "nothing written");
    let head = kiln_serde::frame::FRAME_LEN as u64;
    assert_limit(schema.to_vec(&bad), head + at, cap, "framed::to_vec");
    let mut w = Vec::new();
    assert_limit(
        schema.to_writer(&mut w, &bad),
        head + at,
        cap,
        "framed::to_writer",
    );
    let mut out = Vec::new();
    assert_limit(
        schema.to_extend(&mut out, &bad),
        head + at,
        cap,
        "framed::to_extend",
    );

    let more = Options::new().with_max_depth(cap + 1);
    let bytes = more.to_vec(&bad).unwrap();
    assert_eq!(more.from_slice::<S>(&bytes).unwrap(), bad);
    assert_limit(opts.from_slice::<S>(&bytes), at, cap, "from_slice");
    assert_limit(
        opts.take_from_slice::<S>(&bytes),
        at,
        cap,
        "take_from_slice",
    );
    assert_limit(opts.from_reader::<_, S>(&bytes[..]), at, cap, "from_reader");
    let f = schema.clone().with_options(more).to_vec(&bad).unwrap();
    assert_limit(schema.from_slice(&f), head + at, cap, "framed::from_slice");
    assert_limit(
        schema.from_reader(&f[..]),
        head + at,
        cap,
        "framed::from_reader",
    );
}

fn is_size_limit<T: std::fmt::Debug>(r: bincode::Result<T>, what: &str) {
    match r {
        Err(e) => assert!(matches!(*e, bincode::ErrorKind::SizeLimit), "{what}: {e:?}"),
        Ok(v) => panic!("{what}: expected SizeLimit, got {v:?}"),
    }
}

/// The bincode module's entry points at a cap set with `with_max_depth`.
fn bincode_boundary<S: Shape>(cap: u32) {
    let opts = bincode::options().with_max_depth(cap);
    let levels = cap as usize;
    let ok = S::build(levels);
    let bytes = opts.serialize(&ok).unwrap();
    assert_eq!(opts.deserialize::<S>(&bytes).unwrap(), ok);
    assert_eq!(opts.deserialize_from::<_, S>(&bytes[..]).unwrap(), ok);
    assert_eq!(opts.serialized_size(&ok).unwrap(), bytes.len() as u64);
    let limited = opts.with_limit(1 << 20);
    assert_eq!(
        limited
            .deserialize::<S>(&limited.serialize(&ok).unwrap())
            .unwrap(),
        ok
    );

    let bad = S::build(levels + 1);
    is_size_limit(opts.serialize(&bad), "serialize");
    is_size_limit(limited.serialize(&bad), "serialize, limited");
    is_size_limit(opts.serialized_size(&bad), "serialized_size");
    let mut w = Vec::new();
    is_size_limit(opts.serialize_into(&mut w, &bad), "serialize_into");
    assert!(w.is_empty());
    let bytes = bincode::options()
        .with_max_depth(cap + 1)
        .serialize(&bad)
        .unwrap();
    is_size_limit(opts.deserialize::<S>(&bytes), "deserialize");
    is_size_limit(
        opts.deserialize_from::<_, S>(&bytes[..]),
        "deserialize_from",
    );
}

fn all_shapes(cap: u32) {
    kiln_boundary::<Tree>(cap);
    kiln_boundary::<Node>(cap);
    kiln_boundary::<List>(cap);
    bincode_boundary::<Tree>(cap);
    bincode_boundary::<Node>(cap);
    bincode_boundary::<List>(cap);
}

#[test]
fn small_caps_at_the_boundary_on_every_entry_point() {
    for cap in [1, 2, 7] {
        all_shapes(cap);
    }
}

#[test]
fn the_default_cap_at_the_boundary() {
    let cap = kiln_serde::limits::DEFAULT_MAX_DEPTH;
    assert_eq!(Options::DEFAULT.max_depth(), cap);
    all_shapes(cap);
    // The crate-level functions use the default cap.
    let e = kiln_serde::to_vec(&node(cap as usize + 1)).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (ErrorCode::Limit, Some(u64::from(cap)))
    );
    let bytes = kiln_serde::to_vec(&node(cap as usize)).unwrap();
    assert_eq!(
        kiln_serde::from_slice::<Node>(&bytes).unwrap(),
        node(cap as usize)
    );
}

/// Depth 0: only values without a seq, map, `Some` or non-unit variant.
#[test]
fn structs_tuples_newtypes_and_unit_variants_add_no_level() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Inner(u8, (u16, [u8; 2]));
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Outer {
        a: Inner,
        b: ((), Wrap),
        c: Option<u8>,
        d: List,
    }
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Wrap(Inner);
    let v = Outer {
        a: Inner(1, (2, [3, 4])),
        b: ((), Wrap(Inner(5, (6, [7, 8])))),
        c: None,
        d: List::Nil,
    };
    let zero = Options::new().with_max_depth(0);
    let bytes = zero.to_vec(&v).unwrap();
    assert_eq!(zero.from_slice::<Outer>(&bytes).unwrap(), v);
    assert_eq!(zero.serialized_size(&v).unwrap(), bytes.len() as u64);
    // Each of these is one level.
    let e = zero.to_vec(&Some(1u8)).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(0)));
    assert_limit(zero.from_slice::<Option<u8>>(&[1, 1]), 0, 0, "Some");
    assert_limit(zero.from_slice::<Vec<u8>>(&[0; 4]), 0, 0, "seq");
    assert_limit(zero.to_vec(&Vec::<u8>::new()), 0, 0, "seq");
    assert_limit(
        zero.to_vec(&std::collections::BTreeMap::<u8, u8>::new()),
        0,
        0,
        "map",
    );
    assert_limit(
        zero.to_vec(&List::Cons(1, Box::new(List::Nil))),
        0,
        0,
        "variant",
    );
    assert_limit(
        zero.from_slice::<std::collections::BTreeMap<u8, u8>>(&[0; 4]),
        0,
        0,
        "map",
    );
    assert_limit(zero.from_slice::<List>(&[0; 8]), 0, 0, "variant");
    // The unit variant: no level on either side.
    assert_eq!(zero.from_slice::<List>(&[1, 0, 0, 0]).unwrap(), List::Nil);
}

/// A map key's seq (a `list<u8>` key, spec 2.1) is a level too, on both
/// sides, like any seq.
#[test]
fn a_map_keys_seq_is_a_level() {
    let map = std::collections::BTreeMap::from([(vec![1u8], 0u8)]);
    let two = Options::new().with_max_depth(2);
    let bytes = two.to_vec(&map).unwrap();
    assert_eq!(bytes, [1, 0, 0, 0, 1, 0, 0, 0, 1, 0]);
    assert_eq!(
        two.from_slice::<std::collections::BTreeMap<Vec<u8>, u8>>(&bytes)
            .unwrap(),
        map
    );
    let one = Options::new().with_max_depth(1);
    assert_limit(one.to_vec(&map), 4, 1, "key seq on encode");
    assert_limit(
        one.from_slice::<std::collections::BTreeMap<Vec<u8>, u8>>(&bytes),
        4,
        1,
        "key seq on decode",
    );
    assert_limit(
        one.from_reader::<_, std::collections::BTreeMap<Vec<u8>, u8>>(&bytes[..]),
        4,
        1,
        "key seq on decode, stream",
    );
}

/// A tuple variant inside a map key's seq takes its level as anywhere else
/// (the key path reads variants through its own access).
#[test]
fn a_variant_in_a_map_keys_seq_is_a_level() {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Eq, PartialOrd, Ord, Debug)]
    enum E {
        T(u8, u8),
    }
    type M = std::collections::BTreeMap<Vec<E>, u8>;
    let map = M::from([(vec![E::T(1, 2)], 0u8)]);
    let three = Options::new().with_max_depth(3);
    let bytes = three.to_vec(&map).unwrap();
    assert_eq!(bytes, [1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0]);
    assert_eq!(three.from_slice::<M>(&bytes).unwrap(), map);
    let two = Options::new().with_max_depth(2);
    assert_limit(two.to_vec(&map), 8, 2, "key variant on encode");
    assert_limit(two.from_slice::<M>(&bytes), 8, 2, "key variant on decode");
    assert_limit(
        two.from_reader::<_, M>(&bytes[..]),
        8,
        2,
        "key variant on decode, stream",
    );
}
