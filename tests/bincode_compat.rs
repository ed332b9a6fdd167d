//! `kiln_serde::bincode` against bincode 1.3's usage patterns: every serde
//! shape through the free functions and the `Options` chains, limits,
//! trailing bytes, zero-copy, streams, and each `ErrorKind` a user can hit.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Debug;
use std::io;
use std::marker::PhantomData;
use std::time::Duration;

use kiln_serde::bincode::{self, DefaultOptions, ErrorKind, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------- helpers

#[path = "support/chunky.rs"]
mod chunky;
use chunky::Chunky;

fn is_eof(err: &bincode::Error) -> bool {
    matches!(**err, ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::UnexpectedEof)
}

/// The value through one options chain: same bytes as the free functions,
/// same value back through every entry point.
#[track_caller]
fn through<O, T>(opts: O, value: &T, bytes: &[u8])
where
    O: Options + Copy,
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    assert_eq!(opts.serialize(value).unwrap(), bytes, "{value:?}");
    assert_eq!(opts.serialized_size(value).unwrap(), bytes.len() as u64);
    let mut w = Vec::new();
    opts.serialize_into(&mut w, value).unwrap();
    assert_eq!(w, bytes);
    let back: T = opts.deserialize(bytes).unwrap();
    assert_eq!(&back, value);
    let back: T = opts.deserialize_seed(PhantomData::<T>, bytes).unwrap();
    assert_eq!(&back, value);
    let back: T = opts.deserialize_from(bytes).unwrap();
    assert_eq!(&back, value);
    let back: T = opts.deserialize_from(Chunky::new(bytes)).unwrap();
    assert_eq!(&back, value);
    let back: T = opts
        .deserialize_from_seed(PhantomData::<T>, Chunky::new(bytes))
        .unwrap();
    assert_eq!(&back, value);
}

/// bincode's `the_same`: every path, every option chain, one wire.
#[track_caller]
fn the_same<T>(value: T)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let bytes = bincode::serialize(&value).unwrap();
    assert_eq!(bytes, kiln_serde::to_vec(&value).unwrap(), "one wire");
    assert_eq!(
        bincode::serialized_size(&value).unwrap(),
        bytes.len() as u64
    );
    let mut w = Vec::new();
    bincode::serialize_into(&mut w, &value).unwrap();
    assert_eq!(w, bytes);
    let back: T = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back, value);
    // The free functions allow trailing bytes.
    let mut padded = bytes.clone();
    padded.extend_from_slice(&[0xee, 0xff]);
    let back: T = bincode::deserialize(&padded).unwrap();
    assert_eq!(back, value);
    let back: T = bincode::deserialize_from(&bytes[..]).unwrap();
    assert_eq!(back, value);
    let back: T = bincode::deserialize_from(Chunky::new(&bytes)).unwrap();
    assert_eq!(back, value);

    let len = bytes.len() as u64;
    through(DefaultOptions::new(), &value, &bytes);
    through(bincode::options(), &value, &bytes);
    through(
        DefaultOptions::new()
            .with_limit(len)
            .with_little_endian()
            .with_fixint_encoding()
            .allow_trailing_bytes(),
        &value,
        &bytes,
    );
    through(
        bincode::options()
            .with_varint_encoding()
            .with_big_endian()
            .reject_trailing_bytes(),
        &value,
        &bytes,
    );
    through(
        bincode::options()
            .with_native_endian()
            .with_limit(0)
            .with_no_limit(),
        &value,
        &bytes,
    );
    through(
        bincode::options()
            .with_limit(len + 1000)
            .with_varint_encoding(),
        &value,
        &bytes,
    );
}

// ---------------------------------------------------------------- shapes

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct UnitStruct;

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Newtype(u32);

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct TupleStruct(i8, String, Option<u16>);

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Record {
    id: u64,
    name: String,
    tags: Vec<String>,
    score: f64,
    flags: [bool; 3],
    parent: Option<Box<Record>>,
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Shape {
    Empty,
    Circle(f32),
    Rect(u16, u16),
    Poly {
        points: Vec<(i32, i32)>,
        closed: bool,
    },
}

#[test]
fn primitives() {
    the_same(());
    the_same(true);
    the_same(false);
    the_same(0x7fu8);
    the_same(-5i8);
    the_same(0xbeefu16);
    the_same(-30_000i16);
    the_same(0xdead_beefu32);
    the_same(i32::MIN);
    the_same(u64::MAX);
    the_same(i64::MIN);
    the_same(u128::MAX - 7);
    the_same(i128::MIN + 3);
    the_same(1.5f32);
    the_same(-0.0f64);
    the_same(f64::INFINITY);
    the_same('a');
    the_same('\u{10ffff}');
    the_same('é');
    the_same(usize::MAX);
    the_same(isize::MIN);
}

#[test]
fn nan_bits_survive() {
    let nan = f64::from_bits(0x7ff8_0000_dead_beef);
    let bytes = bincode::serialize(&nan).unwrap();
    let back: f64 = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back.to_bits(), nan.to_bits());
    let back: f64 = DefaultOptions::new().deserialize(&bytes).unwrap();
    assert_eq!(back.to_bits(), nan.to_bits());
}

#[test]
fn strings_and_bytes() {
    the_same(String::new());
    the_same("hello world".to_string());
    the_same("ünïcödé ✓ 🦀".to_string());
    the_same(Cow::<str>::Owned("cow".into()));
    the_same(vec![0u8, 1, 2, 255]);
    the_same(serde_bytes::ByteBuf::from(vec![9u8; 300]));
    the_same(Vec::<u8>::new());
}

#[test]
fn options_and_units() {
    the_same(None::<u8>);
    the_same(Some(7u8));
    the_same(Some(None::<u32>));
    the_same(Some(Some("x".to_string())));
    the_same(UnitStruct);
    the_same(Newtype(42));
    the_same(Some(Newtype(1)));
}

#[test]
fn tuples_arrays_structs() {
    the_same((1u8, 2u16, 3u32, 4u64));
    the_same(((), (1u8,), ("a".to_string(), 'b')));
    the_same([1u32, 2, 3, 4]);
    the_same([[0u8; 3]; 2]);
    the_same(TupleStruct(-1, "t".into(), Some(9)));
    let leaf = Record {
        id: 1,
        name: "leaf".into(),
        tags: vec!["a".into(), "".into()],
        score: 0.25,
        flags: [true, false, true],
        parent: None,
    };
    the_same(leaf.clone());
    the_same(Record {
        id: u64::MAX,
        name: "root".into(),
        tags: vec![],
        score: -1e300,
        flags: [false; 3],
        parent: Some(Box::new(leaf)),
    });
}

#[test]
fn enums() {
    the_same(Shape::Empty);
    the_same(Shape::Circle(2.5));
    the_same(Shape::Rect(3, 4));
    the_same(Shape::Poly {
        points: vec![(0, 0), (-1, 5), (7, i32::MAX)],
        closed: true,
    });
    the_same(vec![Shape::Empty, Shape::Circle(1.0), Shape::Rect(0, 0)]);
    the_same(Ok::<u8, String>(3));
    the_same(Err::<u8, String>("bad".into()));
}

#[test]
fn collections() {
    the_same(vec![vec![1u16], vec![], vec![2, 3]]);
    let mut h = HashMap::new();
    for (i, k) in ["zeta", "alpha", "mid", ""].iter().enumerate() {
        h.insert(k.to_string(), i as u32);
    }
    the_same(h);
    let b: BTreeMap<u32, Vec<u8>> = (0..20)
        .map(|i| (i * 7, vec![i as u8; i as usize]))
        .collect();
    the_same(b);
    let s: BTreeSet<i64> = [-3, 0, 9].into_iter().collect();
    the_same(s);
    let hs: HashSet<u8> = [1, 2, 3, 200].into_iter().collect();
    the_same(hs);
    the_same(HashMap::<String, Shape>::new());
    the_same(Duration::new(5, 999));
    the_same(Box::new([1u8, 2]));
}

// ---------------------------------------------------------------- zero-copy

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Borrowed<'a> {
    name: &'a str,
    #[serde(with = "serde_bytes")]
    blob: &'a [u8],
    plain: &'a [u8],
    id: u32,
}

#[test]
fn borrowed_str_and_bytes_point_into_the_input() {
    let value = Borrowed {
        name: "zero-copy",
        blob: &[1, 2, 3, 4, 5],
        plain: b"plain",
        id: 77,
    };
    let bytes = bincode::serialize(&value).unwrap();
    assert_eq!(
        bincode::serialized_size(&value).unwrap(),
        bytes.len() as u64
    );
    let inside = |p: *const u8| bytes.as_ptr_range().contains(&p);

    let back: Borrowed = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back, value);
    assert!(
        inside(back.name.as_ptr()) && inside(back.blob.as_ptr()) && inside(back.plain.as_ptr())
    );

    let opts = DefaultOptions::new()
        .with_limit(1 << 20)
        .with_fixint_encoding();
    let back: Borrowed = opts.deserialize(&bytes).unwrap();
    assert!(inside(back.name.as_ptr()) && inside(back.blob.as_ptr()));
    let back: Borrowed = opts
        .deserialize_seed(PhantomData::<Borrowed>, &bytes)
        .unwrap();
    assert!(inside(back.name.as_ptr()) && inside(back.plain.as_ptr()));

    let abc = bincode::serialize("abc").unwrap();
    let s: &str = bincode::deserialize(&abc).unwrap();
    assert_eq!(s, "abc");
}

// ---------------------------------------------------------------- streams

#[test]
fn several_messages_back_to_back_then_eof() {
    let msgs: Vec<(u32, Shape, String)> = (0..25)
        .map(|i| (i, Shape::Rect(i as u16, 2), "m".repeat(i as usize)))
        .collect();
    let mut wire = Vec::new();
    for m in &msgs {
        bincode::serialize_into(&mut wire, m).unwrap();
    }
    let mut reader = Chunky::new(&wire);
    let mut got = Vec::new();
    let err = loop {
        assert!(got.len() <= msgs.len(), "no end seen");
        match bincode::deserialize_from::<_, (u32, Shape, String)>(&mut reader) {
            Ok(m) => got.push(m),
            Err(e) => break e,
        }
    };
    assert_eq!(got, msgs);
    assert!(is_eof(&err), "{err:?}");

    // Same through an options chain and a plain slice reader.
    let opts = bincode::options().with_limit(4096).with_varint_encoding();
    let mut reader: &[u8] = &wire;
    for m in &msgs {
        let back: (u32, Shape, String) = opts.deserialize_from(&mut reader).unwrap();
        assert_eq!(&back, m);
    }
    assert!(reader.is_empty());
    let err = opts.deserialize_from::<_, u8>(&mut reader).unwrap_err();
    assert!(is_eof(&err));
}

#[test]
fn stream_ending_inside_a_value_is_unexpected_eof() {
    let bytes = bincode::serialize(&("abcdef".to_string(), 9u64)).unwrap();
    for cut in 0..bytes.len() {
        let err =
            bincode::deserialize_from::<_, (String, u64)>(Chunky::new(&bytes[..cut])).unwrap_err();
        assert!(is_eof(&err), "cut {cut}: {err:?}");
        // bincode 1.3 reports a short slice the same way.
        let err = bincode::deserialize::<(String, u64)>(&bytes[..cut]).unwrap_err();
        assert!(is_eof(&err), "cut {cut}: {err:?}");
        let err = DefaultOptions::new()
            .deserialize::<(String, u64)>(&bytes[..cut])
            .unwrap_err();
        assert!(is_eof(&err), "cut {cut}: {err:?}");
    }
    // The io::Error's text keeps Kiln's code and offset.
    let err = bincode::deserialize::<(String, u64)>(&bytes[..7]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("EOF at byte"), "{text}");
}

#[test]
fn hostile_length_costs_only_the_input() {
    // A count of 4 GiB followed by nothing: no giant allocation, just EOF.
    let bytes = [0xff, 0xff, 0xff, 0xff, b'x'];
    assert!(is_eof(&bincode::deserialize::<String>(&bytes).unwrap_err()));
    assert!(is_eof(
        &bincode::deserialize::<Vec<u64>>(&bytes).unwrap_err()
    ));
    assert!(is_eof(
        &bincode::deserialize_from::<_, Vec<u8>>(Chunky::new(&bytes)).unwrap_err()
    ));
    assert!(is_eof(
        &bincode::deserialize_from::<_, serde_bytes::ByteBuf>(&bytes[..]).unwrap_err()
    ));
}

#[test]
fn values_larger_than_kilns_default_caps_round_trip() {
    // bincode has no per-value cap; this module allows what the wire allows.
    let big = vec![7u8; 17 * 1024 * 1024];
    let bytes = bincode::serialize(&serde_bytes::ByteBuf::from(big.clone())).unwrap();
    let back: serde_bytes::ByteBuf = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back.len(), big.len());
    let back: serde_bytes::ByteBuf = DefaultOptions::new().deserialize_from(&bytes[..]).unwrap();
    assert_eq!(back.len(), big.len());
}

// ---------------------------------------------------------------- limits

#[test]
fn with_limit_on_serialize() {
    let value = vec![0u8; 100]; // 4 + 100 bytes
    let at = DefaultOptions::new().with_limit(104);
    let under = DefaultOptions::new().with_limit(103);
    assert_eq!(at.serialize(&value).unwrap().len(), 104);
    assert_eq!(at.serialized_size(&value).unwrap(), 104);
    assert!(matches!(
        *under.serialize(&value).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert!(matches!(
        *under.serialized_size(&value).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    let mut out = Vec::new();
    let err = under.serialize_into(&mut out, &value).unwrap_err();
    assert!(matches!(*err, ErrorKind::SizeLimit));
    assert!(out.is_empty(), "nothing written past a limit");

    // Past Kiln's flush threshold too: still nothing written.
    let big = vec![1u32; 100_000];
    let mut out = Vec::new();
    let err = bincode::options()
        .with_limit(1000)
        .serialize_into(&mut out, &big)
        .unwrap_err();
    assert!(matches!(*err, ErrorKind::SizeLimit));
    assert!(out.is_empty());

    // A later with_no_limit wins.
    assert!(under.with_no_limit().serialize(&value).is_ok());
    assert!(DefaultOptions::new()
        .with_limit(1)
        .with_limit(104)
        .serialize(&value)
        .is_ok());
}

#[test]
fn with_limit_on_deserialize() {
    let value = vec![0u8; 100];
    let bytes = bincode::serialize(&value).unwrap();
    let under = bincode::options().with_limit(103);
    let at = bincode::options().with_limit(104);

    assert_eq!(at.deserialize::<Vec<u8>>(&bytes).unwrap(), value);
    assert!(matches!(
        *under.deserialize::<Vec<u8>>(&bytes).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert!(matches!(
        *under
            .deserialize_seed(PhantomData::<Vec<u8>>, &bytes)
            .unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert_eq!(
        at.deserialize_from::<_, Vec<u8>>(&bytes[..]).unwrap(),
        value
    );
    assert!(matches!(
        *under
            .deserialize_from::<_, Vec<u8>>(Chunky::new(&bytes))
            .unwrap_err(),
        ErrorKind::SizeLimit
    ));
    // A limit bigger than the input: a short input is still EOF.
    let err = bincode::options()
        .with_limit(1 << 30)
        .deserialize::<Vec<u8>>(&bytes[..50])
        .unwrap_err();
    assert!(is_eof(&err));
}

#[test]
fn limit_and_trailing_bytes_together() {
    // Value of 1 byte, limit 1, one more byte after it: still trailing.
    let bytes = [5u8, 6];
    let err = DefaultOptions::new()
        .with_limit(1)
        .deserialize::<u8>(&bytes)
        .unwrap_err();
    assert!(
        matches!(*err, ErrorKind::Custom(ref m) if m == "Slice had bytes remaining after deserialization")
    );
    let v: u8 = DefaultOptions::new()
        .with_limit(1)
        .allow_trailing_bytes()
        .deserialize(&bytes)
        .unwrap();
    assert_eq!(v, 5);
}

// ---------------------------------------------------------------- trailing

#[test]
fn trailing_bytes_follow_bincodes_defaults() {
    let bytes = [1u8, 0, 2];
    // Free functions: allowed.
    assert_eq!(bincode::deserialize::<u16>(&bytes).unwrap(), 1);
    // DefaultOptions / options(): rejected, with bincode's message.
    for err in [
        DefaultOptions::new()
            .deserialize::<u16>(&bytes)
            .unwrap_err(),
        bincode::options().deserialize::<u16>(&bytes).unwrap_err(),
        DefaultOptions::default()
            .deserialize_seed(PhantomData::<u16>, &bytes)
            .unwrap_err(),
        bincode::options()
            .allow_trailing_bytes()
            .reject_trailing_bytes()
            .deserialize::<u16>(&bytes)
            .unwrap_err(),
    ] {
        match *err {
            ErrorKind::Custom(ref m) => {
                assert_eq!(m, "Slice had bytes remaining after deserialization")
            }
            ref other => panic!("{other:?}"),
        }
    }
    // Allowed when asked.
    assert_eq!(
        bincode::options()
            .allow_trailing_bytes()
            .deserialize::<u16>(&bytes)
            .unwrap(),
        1
    );
    assert_eq!(
        DefaultOptions::new()
            .reject_trailing_bytes()
            .allow_trailing_bytes()
            .deserialize_seed(PhantomData::<u16>, &bytes)
            .unwrap(),
        1
    );
    // A reader is left right after the value, whatever the setting.
    let mut r: &[u8] = &bytes;
    let v: u16 = DefaultOptions::new().deserialize_from(&mut r).unwrap();
    assert_eq!((v, r), (1, &[2u8][..]));
}
