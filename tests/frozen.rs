//! The Frozen table of spec section 2, row by row: exact bytes, round trip
//! through every input path, and every error code with its offset.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;

use kiln_serde::{ErrorCode, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

#[path = "support/dup_map.rs"]
mod dup_map;
#[path = "support/spec_dir.rs"]
mod spec_dir;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Exact bytes, and the same value back through every path.
#[track_caller]
fn the_same<T>(value: T, expected_hex: &str)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let expected = hex(expected_hex);
    let bytes = kiln_serde::to_vec(&value).unwrap();
    assert_eq!(bytes, expected, "bytes of {value:?}");
    assert_eq!(
        kiln_serde::serialized_size(&value).unwrap(),
        bytes.len() as u64
    );
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &value).unwrap();
    assert_eq!(w, expected, "to_writer bytes of {value:?}");
    let back: T = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, value);
    let back: T = kiln_serde::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, value);
    // Streamed through a reader that hands out one byte at a time.
    let back: T = kiln_serde::from_reader(OneByte(&bytes)).unwrap();
    assert_eq!(back, value);
    let mut tail = bytes.clone();
    tail.push(0xAA);
    let (back, rest): (T, &[u8]) = kiln_serde::take_from_slice(&tail).unwrap();
    assert_eq!(back, value);
    assert_eq!(rest, &[0xAAu8][..]);
    // Trailing byte on a standalone buffer.
    let err = kiln_serde::from_slice::<T>(&tail).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Trailing);
    assert_eq!(err.offset(), Some(bytes.len() as u64));
    // Every strict prefix fails as EOF (never panics).
    for cut in 0..bytes.len() {
        let err = kiln_serde::from_slice::<T>(&bytes[..cut]).unwrap_err();
        assert_eq!(
            err.code(),
            ErrorCode::Eof,
            "prefix {cut} of {value:?}: {err}"
        );
        let err = kiln_serde::from_reader::<_, T>(&bytes[..cut]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Eof, "stream prefix {cut}: {err}");
    }
}

struct OneByte<'a>(&'a [u8]);

impl std::io::Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() || buf.is_empty() {
            return Ok(0);
        }
        buf[0] = self.0[0];
        self.0 = &self.0[1..];
        Ok(1)
    }
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Unit;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Meters(u16);

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Pair(u8, i8);

#[derive(Serialize, Deserialize, PartialEq, Debug)]
enum E {
    A,
    B(u8),
    C(u8, u16),
    D { x: bool },
}

#[test]
fn point_is_the_golden_eight_bytes() {
    the_same(Point { x: 9, y: -4 }, "09000000 fcffffff");
}

#[test]
fn integers_are_little_endian() {
    the_same(true, "01");
    the_same(false, "00");
    the_same(0x7fu8, "7f");
    the_same(-2i8, "fe");
    the_same(0x1234u16, "3412");
    the_same(-2i16, "feff");
    the_same(0x12345678u32, "78563412");
    the_same(-1i32, "ffffffff");
    the_same(0x0102030405060708u64, "0807060504030201");
    the_same(i64::MIN, "0000000000000080");
    the_same(1u128, "01000000000000000000000000000000");
    the_same(-1i128, "ffffffffffffffffffffffffffffffff");
}

#[test]
fn floats_keep_every_bit() {
    the_same(1.0f32, "0000803f");
    the_same(-0.0f64, "0000000000000080");
    the_same(1.5f64, "000000000000f83f");
    // NaN payloads survive: compare bits, since NaN != NaN.
    for bits in [0x7fc0_0001u32, 0xffc0_1234, 0x7f80_0001] {
        let b = kiln_serde::to_vec(&f32::from_bits(bits)).unwrap();
        assert_eq!(b, bits.to_le_bytes());
        let back: f32 = kiln_serde::from_slice(&b).unwrap();
        assert_eq!(back.to_bits(), bits);
    }
    let bits = 0x7ff8_0000_dead_beefu64;
    let b = kiln_serde::to_vec(&f64::from_bits(bits)).unwrap();
    let back: f64 = kiln_serde::from_slice(&b).unwrap();
    assert_eq!(back.to_bits(), bits);
}

#[test]
fn chars_strings_bytes() {
    the_same('A', "41000000");
    the_same('\u{10FFFF}', "ffff1000");
    the_same(String::from("hé"), "03000000 68c3a9");
    the_same(String::new(), "00000000");
    the_same(serde_bytes::ByteBuf::from(vec![1, 2]), "02000000 0102");
    // bytes and a list of u8 have the same wire
    the_same(vec![1u8, 2], "02000000 0102");
}

#[test]
fn options_units_newtypes() {
    the_same(None::<u8>, "00");
    the_same(Some(5u8), "0105");
    the_same(Some(None::<u8>), "0100");
    the_same((), "");
    the_same(Unit, "");
    the_same(Meters(500), "f401");
}

#[test]
fn sequences_tuples_structs() {
    the_same(vec![1u16, 2, 3], "03000000 0100 0200 0300");
    the_same(Vec::<u64>::new(), "00000000");
    the_same((1u8, 2u32), "01 02000000");
    the_same([7u8; 3], "070707");
    the_same(Pair(1, -1), "01ff");
    the_same(vec![vec![1u8], vec![]], "02000000 01000000 01 00000000");
    let set: BTreeSet<u8> = [3, 1].into_iter().collect();
    the_same(set, "02000000 0103");
}

#[test]
fn enums_are_index_then_content() {
    the_same(E::A, "00000000");
    the_same(E::B(7), "01000000 07");
    the_same(E::C(1, 2), "02000000 01 0200");
    the_same(E::D { x: true }, "03000000 01");
    the_same(Ok::<u8, u8>(3), "00000000 03");
}

#[test]
fn maps_are_sorted_by_key_sort_bytes() {
    let mut m = BTreeMap::new();
    m.insert(String::from("b"), 2u8);
    m.insert(String::from("a"), 1u8);
    m.insert(String::from("ab"), 3u8);
    // "a" < "ab" < "b" by content bytes (no count).
    the_same(
        m.clone(),
        "03000000 01000000 61 01 02000000 6162 03 01000000 62 02",
    );
    let h: HashMap<String, u8> = m.clone().into_iter().collect();
    assert_eq!(
        kiln_serde::to_vec(&h).unwrap(),
        kiln_serde::to_vec(&m).unwrap()
    );

    // String content order differs from Frozen order here: "zz" (len 2) vs
    // "b" (len 1): content order puts "b" first.
    let h: HashMap<String, u8> = [("zz".into(), 1), ("b".into(), 2)].into_iter().collect();
    let bytes = kiln_serde::to_vec(&h).unwrap();
    assert_eq!(bytes, hex("02000000 01000000 62 02 02000000 7a7a 01"));

    // Content order ("aa" < "b") is not count-prefixed order: decoders
    // must compare without the count, on every input path.
    let bytes = hex("02000000 02000000 6161 01 01000000 62 02");
    let m: BTreeMap<String, u8> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(kiln_serde::to_vec(&m).unwrap(), bytes);
    let m2: BTreeMap<String, u8> = kiln_serde::from_reader(&bytes[..]).unwrap();
    assert_eq!(m2, m);

    // Integer keys sort by their LE bytes: 256 (00 01) before 1 (01 00).
    let h: HashMap<u16, u8> = [(1, 1), (256, 2)].into_iter().collect();
    let bytes = kiln_serde::to_vec(&h).unwrap();
    assert_eq!(bytes, hex("02000000 0001 02 0100 01"));
    let back: HashMap<u16, u8> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, h);
    let back: BTreeMap<u16, u8> = kiln_serde::from_reader(&bytes[..]).unwrap();
    assert_eq!(back.len(), 2);
}

/// Which keys sort by content without the count (spec 2.1): a key whose
/// encoding is exactly one str/bytes value, also through wrappers that add no
/// bytes (newtype, one-field tuple or struct, unit fields); a string after
/// an option tag, a seq count, a variant index or another field sorts by its
/// whole encoding. "aa" < "b" by content, "b" < "aa" by count. Encoder and
/// both decoder paths must agree.
#[test]
fn key_shapes_that_sort_by_content() {
    fn check<K>(aa: K, b: K, by_content: bool)
    where
        K: Serialize + DeserializeOwned + Ord + std::hash::Hash + Debug + Clone,
    {
        let h: HashMap<K, u8> = [(aa.clone(), 1), (b.clone(), 2)].into_iter().collect();
        let bytes = kiln_serde::to_vec(&h).unwrap();
        let (first, second) = if by_content {
            ((aa.clone(), 1u8), (b.clone(), 2u8))
        } else {
            ((b.clone(), 2u8), (aa.clone(), 1u8))
        };
        let entry = |(k, v): (K, u8)| {
            let mut e = kiln_serde::to_vec(&k).unwrap();
            e.push(v);
            e
        };
        let (first, second) = (entry(first), entry(second));
        let count = 2u32.to_le_bytes();
        assert_eq!(
            bytes,
            [&count[..], &first, &second].concat(),
            "{aa:?} / {b:?}"
        );
        let m: BTreeMap<K, u8> = h.clone().into_iter().collect();
        assert_eq!(kiln_serde::to_vec(&m).unwrap(), bytes);
        let mut w = Vec::new();
        kiln_serde::to_writer(&mut w, &h).unwrap();
        assert_eq!(w, bytes);
        assert_eq!(kiln_serde::serialized_size(&h).unwrap(), bytes.len() as u64);
        assert_eq!(
            kiln_serde::from_slice::<BTreeMap<K, u8>>(&bytes).unwrap(),
            m
        );
        assert_eq!(
            kiln_serde::from_reader::<_, BTreeMap<K, u8>>(&bytes[..]).unwrap(),
            m
        );
        // The other order is not canonical.
        let swapped = [&count[..], &second, &first].concat();
        let e = kiln_serde::from_slice::<BTreeMap<K, u8>>(&swapped).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Type, "{aa:?}");
    }
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Clone)]
    struct Name(String);
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Clone)]
    struct Field {
        unit: (),
        s: String,
    }
    #[derive(Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Clone)]
    enum Tagged {
        V(String),
    }
    let (aa, b) = (String::from("aa"), String::from("b"));
    check(aa.clone(), b.clone(), true);
    check((aa.clone(),), (b.clone(),), true);
    check(Name(aa.clone()), Name(b.clone()), true);
    check(((), aa.clone(), ()), ((), b.clone(), ()), true);
    check(
        Field {
            unit: (),
            s: aa.clone(),
        },
        Field {
            unit: (),
            s: b.clone(),
        },
        true,
    );
    check(((Name(aa.clone()),),), ((Name(b.clone()),),), true);
    check(
        serde_bytes::ByteBuf::from(aa.clone().into_bytes()),
        serde_bytes::ByteBuf::from(b.clone().into_bytes()),
        true,
    );
    check(Some(aa.clone()), Some(b.clone()), false);
    check(vec![aa.clone()], vec![b.clone()], false);
    check(Tagged::V(aa.clone()), Tagged::V(b.clone()), false);
    check((0u8, aa.clone()), (0u8, b.clone()), false);
    check((aa.clone(), 0u8), (b.clone(), 0u8), false);
}

#[test]
fn nested_maps_sort_inside_out() {
    let mut inner1 = HashMap::new();
    inner1.insert(9u8, 1u8);
    inner1.insert(3u8, 2u8);
    let mut outer: HashMap<String, HashMap<u8, u8>> = HashMap::new();
    outer.insert("y".into(), inner1.clone());
    outer.insert("x".into(), HashMap::new());
    let bytes = kiln_serde::to_vec(&outer).unwrap();
    assert_eq!(
        bytes,
        hex("02000000 01000000 78 00000000 01000000 79 02000000 0302 0901")
    );
    let back: HashMap<String, HashMap<u8, u8>> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, outer);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &outer).unwrap();
    assert_eq!(w, bytes);
}

#[test]
fn duplicate_keys_on_encode_are_type() {
    use dup_map::Dup;
    assert_eq!(
        kiln_serde::to_vec(&Dup).unwrap_err().code(),
        ErrorCode::Type
    );
    assert_eq!(
        kiln_serde::serialized_size(&Dup).unwrap_err().code(),
        ErrorCode::Type
    );
    let mut buf = [0u8; 64];
    let e = kiln_serde::to_slice(&mut buf, &Dup).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(4)));
    // A buffer too small to hold the keys: the value's own error all the
    // same (the size it needs comes from a counting pass, which compares
    // them), as into a larger one.
    for cap in 0..8 {
        let e = kiln_serde::to_slice(&mut buf[..cap], &Dup).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(4)), "{cap}");
    }
}

#[test]
fn a_full_slice_stores_nothing_after_a_refused_write_and_counts_every_byte() {
    let v = (serde_bytes::Bytes::new(&[7; 6]), 1u8, 2u8);
    let want = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(want, hex("06000000 070707070707 01 02"));
    for cap in 0..want.len() {
        let mut buf = vec![0u8; cap];
        let e = kiln_serde::to_slice(&mut buf, &v).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(cap as u64)));
        assert_eq!(e.detail(), kiln_serde::error::ErrorDetail::BufferFull(12));
        // Writes are stored up to the first that does not fit, and none
        // after it, even a byte that would fit in the room left.
        let stored = match cap {
            0..=9 => 0,
            10 => 10,
            _ => 11,
        };
        assert_eq!(buf[..stored], want[..stored], "cap {cap}");
        assert!(buf[stored..].iter().all(|&b| b == 0), "cap {cap}");
    }
    let mut buf = [0u8; 12];
    assert_eq!(kiln_serde::to_slice(&mut buf, &v).unwrap(), 12);
    assert_eq!(buf[..], want[..]);
    // Nesting past the depth cap after the buffer is full: the depth
    // error, at the offset to_vec gives it (not at the buffer's end).
    let deep = (7u64, Some(Some(Some(vec![5u32; 3]))));
    let opts = kiln_serde::Options::new().with_max_depth(3);
    let want = opts.to_vec(&deep).unwrap_err();
    assert_eq!(want.offset(), Some(11));
    let e = opts.to_slice(&mut [0u8; 2], &deep).unwrap_err();
    assert_eq!((e.code(), e.offset()), (want.code(), want.offset()));
    assert_eq!(e.detail(), want.detail());
    // With room to spare the first pass gives the same error.
    let e = opts.to_slice(&mut [0u8; 64], &deep).unwrap_err();
    assert_eq!((e.code(), e.offset()), (want.code(), want.offset()));
}

/// A `Serialize` that ignores its serializer's errors and goes on: after a
/// refused write nothing more is stored, not even what would fit, and the
/// error is still the size needed.
#[test]
fn a_full_slice_stays_full_when_the_value_ignores_the_refusal() {
    use serde::ser::SerializeTuple;
    struct Stubborn;
    impl Serialize for Stubborn {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut t = s.serialize_tuple(3)?;
            let _ = t.serialize_element(&0x0102_0304u32);
            let _ = t.serialize_element(&5u8);
            let _ = t.serialize_element(&6u8);
            t.end()
        }
    }
    assert_eq!(
        kiln_serde::to_vec(&Stubborn).unwrap(),
        hex("04030201 05 06")
    );
    for cap in [0, 1, 3, 4, 5] {
        let mut buf = vec![0u8; cap];
        let e = kiln_serde::to_slice(&mut buf, &Stubborn).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(cap as u64)));
        assert_eq!(e.detail(), kiln_serde::error::ErrorDetail::BufferFull(6));
        let stored = match cap {
            0..=3 => 0,
            4 => 4,
            _ => 5,
        };
        assert_eq!(buf[..stored], hex("04030201 05")[..stored], "cap {cap}");
        assert!(buf[stored..].iter().all(|&b| b == 0), "cap {cap}");
    }
}

#[test]
fn unknown_length_seq_is_count_prefixed() {
    struct Iter(u8);
    impl Serialize for Iter {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq((0..self.0).filter(|x| x % 2 == 0))
        }
    }
    let expected = hex("03000000 000204");
    assert_eq!(kiln_serde::to_vec(&Iter(5)).unwrap(), expected);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &Iter(5)).unwrap();
    assert_eq!(w, expected);
    assert_eq!(kiln_serde::serialized_size(&Iter(5)).unwrap(), 7);
    // Into a fixed slice, and appended after bytes already in the buffer:
    // the count is patched at its own position, not at the buffer's start.
    let mut buf = [0xaa; 9];
    assert_eq!(kiln_serde::to_slice(&mut buf, &Iter(5)).unwrap(), 7);
    assert_eq!(buf[..7], expected[..]);
    assert_eq!(buf[7..], [0xaa, 0xaa]);
    let mut out = vec![0xee, 0xff];
    kiln_serde::to_extend(&mut out, &Iter(5)).unwrap();
    assert_eq!(out[..2], [0xee, 0xff]);
    assert_eq!(out[2..], expected[..]);
    // Inside a struct, after a field: a patch that is not at offset 0.
    let nested = kiln_serde::to_vec(&(7u16, Iter(3))).unwrap();
    assert_eq!(nested, hex("0700 02000000 0002"));
}

#[test]
fn borrowed_str_and_bytes_are_zero_copy() {
    #[derive(Deserialize)]
    struct B<'a> {
        s: &'a str,
        #[serde(borrow, with = "serde_bytes")]
        b: &'a [u8],
    }
    let bytes = hex("02000000 6869 03000000 010203");
    let v: B<'_> = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(v.s, "hi");
    assert_eq!(v.b, [1, 2, 3]);
    let range = bytes.as_ptr_range();
    assert!(range.contains(&v.s.as_ptr()));
    assert!(range.contains(&v.b.as_ptr()));
}

/// (input hex, decoded as, expected code, expected offset)
#[test]
fn every_frozen_error_code_with_its_offset() {
    #[track_caller]
    fn fails<T: DeserializeOwned + Debug>(input: &str, code: ErrorCode, offset: u64) {
        let bytes = hex(input);
        let err = kiln_serde::from_slice::<T>(&bytes).unwrap_err();
        assert_eq!((err.code(), err.offset()), (code, Some(offset)), "{err}");
        if code != ErrorCode::Trailing {
            let err = kiln_serde::from_reader::<_, T>(&bytes[..]).unwrap_err();
            assert_eq!(
                (err.code(), err.offset()),
                (code, Some(offset)),
                "stream: {err}"
            );
        }
    }
    fails::<bool>("02", ErrorCode::Type, 0);
    fails::<(u8, bool)>("00 ff", ErrorCode::Type, 1);
    fails::<(u16, Option<u8>)>("0000 07", ErrorCode::Type, 2);
    fails::<E>("04000000", ErrorCode::Type, 0);
    fails::<(u8, E)>("00 ffffffff", ErrorCode::Type, 1);
    fails::<Result<u8, u8>>("02000000", ErrorCode::Type, 0);
    fails::<char>("00d80000", ErrorCode::Utf8, 0);
    fails::<char>("00001100", ErrorCode::Utf8, 0);
    fails::<(u8, String)>("00 02000000 c328", ErrorCode::Utf8, 1);
    fails::<u32>("010203", ErrorCode::Eof, 0);
    fails::<(u8, String)>("00 05000000 6869", ErrorCode::Eof, 1);
    fails::<Vec<u16>>("02000000 0100 02", ErrorCode::Eof, 6);
    fails::<u8>("0102", ErrorCode::Trailing, 1);
    fails::<Vec<u8>>("01000001 00", ErrorCode::Limit, 0);
    fails::<String>("01000001", ErrorCode::Limit, 0);
    // Map keys out of order / duplicate: TYPE at the offending key.
    fails::<BTreeMap<u8, u8>>("02000000 02 00 01 00", ErrorCode::Type, 6);
    fails::<BTreeMap<u8, u8>>("02000000 01 00 01 00", ErrorCode::Type, 6);
    fails::<BTreeMap<String, u8>>(
        "02000000 01000000 62 00 01000000 61 00",
        ErrorCode::Type,
        10,
    );
    // A shorter string key that is a prefix sorts first; reversed is TYPE.
    fails::<BTreeMap<String, u8>>(
        "02000000 02000000 6162 00 01000000 61 00",
        ErrorCode::Type,
        11,
    );
}

#[test]
fn caps_are_options() {
    let opts = Options::default().with_max_count(2);
    assert!(opts.from_slice::<Vec<u8>>(&hex("02000000 0102")).is_ok());
    let err = opts
        .from_slice::<Vec<u8>>(&hex("03000000 010203"))
        .unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Limit, Some(0)));
    let opts = Options::default().with_max_bytes(1);
    let err = opts
        .from_slice::<(u8, String)>(&hex("00 02000000 6869"))
        .unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Limit, Some(1)));
    let opts = Options::default().with_max_depth(2);
    assert!(opts
        .from_slice::<Option<Option<u8>>>(&hex("010100"))
        .is_ok());
    let err = opts
        .from_slice::<Option<Option<Option<u8>>>>(&hex("01010100"))
        .unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Limit, Some(2)));
}

#[test]
fn total_limit_both_ways() {
    let opts = Options::default().with_limit(4);
    assert!(opts.to_vec(&1u32).is_ok());
    assert_eq!(opts.to_vec(&1u64).unwrap_err().code(), ErrorCode::Limit);
    let mut w = Vec::new();
    assert_eq!(
        opts.to_writer(&mut w, &1u64).unwrap_err().code(),
        ErrorCode::Limit
    );
    assert!(w.is_empty(), "nothing past the limit reaches the writer");
    assert_eq!(opts.from_slice::<u32>(&[1, 0, 0, 0]).unwrap(), 1);
    let err = opts
        .from_slice::<u64>(&[1, 0, 0, 0, 0, 0, 0, 0])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Limit);
    let err = opts
        .from_reader::<_, u64>(&[1u8, 0, 0, 0, 0, 0, 0, 0][..])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Limit);
    // Short input under the limit is still EOF.
    let err = opts.from_slice::<u32>(&[1, 0]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Eof);
}

#[test]
fn deep_nesting_is_limit_not_a_stack_overflow() {
    use spec_dir::frozen::{repeat, variant};
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    enum Tree {
        Leaf,
        Node(Box<Tree>),
    }
    // 1,000,000 x "Node" then a Leaf.
    let bytes = repeat(&variant(1), 1_000_000, &variant(0));
    let err = kiln_serde::from_slice::<Tree>(&bytes).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Limit);
    assert_eq!(err.offset(), Some(128 * 4));
    // 127 levels are fine under the default cap of 128.
    let ok = repeat(&variant(1), 127, &variant(0));
    assert!(kiln_serde::from_slice::<Tree>(&ok).is_ok());
}

#[test]
fn deserialize_any_says_why() {
    #[derive(Deserialize, Debug)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum U {
        A(u8),
    }
    let err = kiln_serde::from_slice::<U>(&[1]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Message);
    assert!(err.to_string().contains("not self-describing"), "{err}");
    assert!(err.to_string().contains("untagged"), "{err}");
}

#[test]
fn type_errors_from_deserialize_impls_are_type_with_offset() {
    let err =
        kiln_serde::from_slice::<(u8, std::num::NonZeroU32)>(&hex("01 00000000")).unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Type, Some(1)));
    // [u8; 2] reading from a seq visitor uses tuple: fixed length, no count
    the_same([1u8, 2], "0102");
}

#[test]
fn sets_follow_iteration_order() {
    // Documented non-canonical case: a HashSet writes in iteration order;
    // a BTreeSet is sorted by Ord.
    let s: BTreeSet<i8> = [-1, 1].into_iter().collect();
    assert_eq!(kiln_serde::to_vec(&s).unwrap(), hex("02000000 ff01"));
}

#[test]
fn back_to_back_messages_on_one_stream() {
    let mut stream = Vec::new();
    for i in 0..5u32 {
        kiln_serde::to_writer(&mut stream, &(i, format!("msg{i}"))).unwrap();
    }
    let mut r = &stream[..];
    for i in 0..5u32 {
        let (n, s): (u32, String) = kiln_serde::from_reader(&mut r).unwrap();
        assert_eq!((n, s), (i, format!("msg{i}")));
    }
    let err = kiln_serde::from_reader::<_, (u32, String)>(&mut r).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Eof);
    assert!(err.is_eof());
}

#[test]
fn trailing_bytes_past_a_total_limit_are_still_trailing() {
    let opts = Options::default().with_limit(1);
    let err = opts.from_slice::<u8>(&[5, 6]).unwrap_err();
    assert_eq!((err.code(), err.offset()), (ErrorCode::Trailing, Some(1)));
}

/// Spec 2: a count is a u32; an encoder given a longer seq or map fails
/// with LIMIT (checked on the announced length, before any element).
#[test]
fn counts_above_the_wire_maximum_are_limit_on_encode() {
    const TOO_MANY: usize = u32::MAX as usize + 1;
    struct Seq;
    impl Serialize for Seq {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            s.serialize_seq(Some(TOO_MANY))?.end()
        }
    }
    struct Map;
    impl Serialize for Map {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            s.serialize_map(Some(TOO_MANY))?.end()
        }
    }
    for err in [
        kiln_serde::to_vec(&Seq).unwrap_err(),
        kiln_serde::to_vec(&Map).unwrap_err(),
        kiln_serde::to_writer(std::io::sink(), &Seq).unwrap_err(),
        kiln_serde::serialized_size(&Seq).unwrap_err(),
        kiln_serde::serialized_size(&Map).unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::Limit, "{err}");
    }
    // The largest count the wire carries is still accepted.
    struct Max;
    impl Serialize for Max {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            s.serialize_seq(Some(u32::MAX as usize))?.end()
        }
    }
    assert_eq!(kiln_serde::to_vec(&Max).unwrap(), [0xff; 4]);
}

/// `serialized_size` counts without encoding when it can vouch for the
/// result (one call of the value's `Serialize`), and runs the real
/// serializer when only the bytes can tell (a map: a duplicate key; a
/// tensor newtype around something else than bytes), with `to_vec`'s error.
#[test]
fn serialized_size_counts_when_it_can_and_encodes_when_it_must() {
    use std::cell::Cell;
    struct Counted<'a, T>(&'a Cell<u32>, T);
    impl<T: Serialize> Serialize for Counted<'_, T> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.set(self.0.get() + 1);
            self.1.serialize(s)
        }
    }
    let calls = Cell::new(0);
    let plain = Counted(
        &calls,
        (7u16, "kiln", vec![Some(1u8), None], 'k', [1.5f64; 2]),
    );
    let n = kiln_serde::serialized_size(&plain).unwrap();
    assert_eq!((n, calls.get()), (2 + 8 + 4 + 3 + 4 + 16, 1));
    assert_eq!(n, kiln_serde::to_vec(&plain).unwrap().len() as u64);

    let calls = Cell::new(0);
    let map = Counted(&calls, BTreeMap::from([(1u8, 2u8), (3, 4)]));
    assert_eq!(kiln_serde::serialized_size(&map).unwrap(), 4 + 4);
    assert_eq!(calls.get(), 2, "a map: counted, then encoded");

    // A sequence of unknown length (its count is patched at the end).
    struct Unsized;
    impl Serialize for Unsized {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use serde::ser::SerializeSeq;
            let mut seq = s.serialize_seq(None)?;
            seq.serialize_element(&7u16)?;
            seq.end()
        }
    }
    let calls = Cell::new(0);
    let unsized_seq = Counted(&calls, Unsized);
    assert_eq!(kiln_serde::serialized_size(&unsized_seq).unwrap(), 4 + 2);
    assert_eq!(
        calls.get(),
        2,
        "an unknown-length seq: counted, then encoded"
    );

    struct NotBytes;
    impl Serialize for NotBytes {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_newtype_struct("$kiln_serde::Tensors", &5u32)
        }
    }
    let encode = kiln_serde::to_vec(&NotBytes).unwrap_err();
    let size = kiln_serde::serialized_size(&NotBytes).unwrap_err();
    assert_eq!(
        (size.code(), size.to_string()),
        (encode.code(), encode.to_string())
    );

    // The block must be the newtype's own value: bytes one wrapper further
    // in are refused the same way by both passes (and by to_writer).
    struct WrappedBytes;
    impl Serialize for WrappedBytes {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let inner = (serde_bytes::Bytes::new(b"KDIR"),);
            s.serialize_newtype_struct("$kiln_serde::Tensors", &inner)
        }
    }
    let encode = kiln_serde::to_vec(&WrappedBytes).unwrap_err();
    assert_eq!(encode.code(), ErrorCode::Message);
    assert!(encode.to_string().contains("as bytes"), "{encode}");
    let size = kiln_serde::serialized_size(&WrappedBytes).unwrap_err();
    assert_eq!(size.to_string(), encode.to_string());
    let write = kiln_serde::to_writer(Vec::new(), &WrappedBytes).unwrap_err();
    assert_eq!(write.to_string(), encode.to_string());
}
