//! The parts of bincode 1.3's API beyond the free functions: the public
//! `Serializer` and `Deserializer`, `BincodeRead` (custom readers, zero
//! copy), `deserialize_from_custom[_seed]`, `deserialize_in_place`, and the
//! deprecated `config()`. Each must give Kiln's bytes and Kiln's checks.
#![allow(deprecated)]

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{peak_during, SERIAL};

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io;

use kiln_serde::bincode::de::read::{IoReader, SliceReader};
use kiln_serde::bincode::{self, BincodeRead, DefaultOptions, Deserializer, ErrorKind, Options};
use kiln_serde::bincode::{Result, Serializer};
use kiln_serde::tensors::{TensorSpec, TensorsBuilder};
use kiln_serde::Tensors;
use serde::de::{DeserializeSeed, Visitor};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Shape {
    Dot,
    Circle(f32),
    Pair(u8, i64),
    Rect { w: u16, h: u16 },
}

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
struct Record {
    id: u64,
    name: String,
    tags: Vec<String>,
    scores: HashMap<String, i32>,
    nested: BTreeMap<(u8, String), Option<Vec<u8>>>,
    shapes: Vec<Shape>,
    unit: (),
    maybe: Option<char>,
    #[serde(with = "serde_bytes")]
    raw: Vec<u8>,
}

fn record() -> Record {
    // Enough keys that HashMap's order is not sorted order.
    let scores = (0..40).map(|i| (format!("k{i}"), i * 3 - 50)).collect();
    let nested = [
        ((2, "b".to_string()), Some(vec![1, 2])),
        ((1, "zz".to_string()), None),
        ((1, "a".to_string()), Some(vec![])),
    ]
    .into_iter()
    .collect();
    Record {
        id: 0x0102_0304_0506_0708,
        name: "kiln".into(),
        tags: vec!["a".into(), "".into(), "ü".into()],
        scores,
        nested,
        shapes: vec![
            Shape::Dot,
            Shape::Circle(1.5),
            Shape::Pair(9, -1),
            Shape::Rect { w: 3, h: 4 },
        ],
        unit: (),
        maybe: Some('☺'),
        raw: vec![0, 255, 7],
    }
}

/// A sequence of unknown length (`serialize_seq(None)`), as iterators give.
struct Unsized(Vec<u32>);

impl Serialize for Unsized {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().filter(|_| true))
    }
}

#[test]
fn serializer_writes_what_serialize_writes() {
    let rec = record();
    let mut out = Vec::new();
    let mut ser = Serializer::new(&mut out, DefaultOptions::new());
    rec.serialize(&mut ser).unwrap();
    5u8.serialize(&mut ser).unwrap();
    Unsized(vec![1, 2, 3]).serialize(&mut ser).unwrap();
    "tail".serialize(&mut ser).unwrap();
    let mut expected = bincode::serialize(&rec).unwrap();
    expected.push(5);
    expected.extend_from_slice(&bincode::serialize(&Unsized(vec![1, 2, 3])).unwrap());
    expected.extend_from_slice(&[4, 0, 0, 0, b't', b'a', b'i', b'l']);
    assert_eq!(out, expected);
    // And the bytes are Kiln's own.
    assert_eq!(
        bincode::serialize(&rec).unwrap(),
        kiln_serde::to_vec(&rec).unwrap()
    );
    let back: Record = bincode::deserialize(&out).unwrap();
    assert_eq!(back, rec);
}

#[test]
fn serializer_sorts_maps_and_rejects_duplicate_keys() {
    struct Dup;
    impl Serialize for Dup {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            use serde::ser::SerializeMap;
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("a", &1u8)?;
            m.serialize_entry("a", &2u8)?;
            m.end()
        }
    }
    let mut out = Vec::new();
    let mut ser = Serializer::new(&mut out, DefaultOptions::new());
    let e = Dup.serialize(&mut ser).unwrap_err();
    assert!(
        matches!(*e, ErrorKind::Custom(ref s) if s.contains("duplicate map key")),
        "{e}"
    );
    assert!(out.is_empty());

    let map: HashMap<&str, u8> = [("b", 2), ("a", 1), ("aa", 3)].into_iter().collect();
    let mut out = Vec::new();
    map.serialize(&mut Serializer::new(&mut out, DefaultOptions::new()))
        .unwrap();
    // Keys by content: "a" < "aa" < "b".
    assert_eq!(
        out,
        [3, 0, 0, 0, 1, 0, 0, 0, b'a', 1, 2, 0, 0, 0, b'a', b'a', 3, 1, 0, 0, 0, b'b', 2]
    );
}

#[test]
fn serializer_limit_and_errors() {
    let mut out = Vec::new();
    let mut ser = Serializer::new(&mut out, DefaultOptions::new().with_limit(6));
    assert!(matches!(
        *"abc".serialize(&mut ser).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert!(matches!(
        *vec![1u8; 3].serialize(&mut ser).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    "ab".serialize(&mut ser).unwrap();
    assert_eq!(out, [2, 0, 0, 0, b'a', b'b']);

    struct BadDisplay;
    impl fmt::Display for BadDisplay {
        fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
            Err(fmt::Error)
        }
    }
    struct Collects;
    impl Serialize for Collects {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            s.collect_str(&BadDisplay)
        }
    }
    let mut out = Vec::new();
    let e = vec![Collects]
        .serialize(&mut Serializer::new(&mut out, DefaultOptions::new()))
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::Custom(_)));
    let e = Collects
        .serialize(&mut Serializer::new(&mut out, DefaultOptions::new()))
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::Custom(_)));
}

#[test]
fn deserializer_from_slice_reader_and_custom() {
    let rec = record();
    let bytes = bincode::serialize(&rec).unwrap();

    let mut de = Deserializer::from_slice(&bytes, DefaultOptions::new());
    assert_eq!(Record::deserialize(&mut de).unwrap(), rec);

    let mut de = Deserializer::with_reader(&bytes[..], DefaultOptions::new());
    assert_eq!(Record::deserialize(&mut de).unwrap(), rec);

    let back: Record = bincode::deserialize_from_custom(Lender::new(&bytes)).unwrap();
    assert_eq!(back, rec);
    let back: Record = bincode::deserialize_from_custom(Copier(&bytes[..])).unwrap();
    assert_eq!(back, rec);
}

#[derive(Deserialize, Debug, PartialEq)]
struct Borrowing<'a> {
    s: &'a str,
    #[serde(with = "serde_bytes")]
    b: &'a [u8],
}

#[test]
fn borrowed_bytes_come_from_the_readers_storage() {
    let bytes = bincode::serialize(&("hi", serde_bytes::Bytes::new(&[1, 2, 3]))).unwrap();
    let range = bytes.as_ptr_range();
    let mut de = Deserializer::from_slice(&bytes, DefaultOptions::new());
    let v = Borrowing::deserialize(&mut de).unwrap();
    assert_eq!((v.s, v.b), ("hi", &[1u8, 2, 3][..]));
    assert!(range.contains(&v.s.as_ptr()) && range.contains(&v.b.as_ptr()));

    let mut target = Borrowing { s: "old", b: &[] };
    bincode::deserialize_in_place(Lender::new(&bytes), &mut target).unwrap();
    assert!(range.contains(&target.s.as_ptr()) && range.contains(&target.b.as_ptr()));

    // A reader that only lends copies cannot give a `&str`.
    let e = DefaultOptions::new()
        .deserialize_from_custom_seed(std::marker::PhantomData::<Borrowing>, Copier(&bytes[..]))
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::Custom(_)), "{e}");
}

/// Lends borrowed slices of its storage, like bincode's test reader.
struct Lender<'a> {
    slice: &'a [u8],
}

impl<'a> Lender<'a> {
    fn new(slice: &'a [u8]) -> Self {
        Lender { slice }
    }

    fn split(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.slice.len() {
            return Err(Box::new(ErrorKind::Io(io::ErrorKind::UnexpectedEof.into())));
        }
        let (head, rest) = self.slice.split_at(n);
        self.slice = rest;
        Ok(head)
    }
}

impl io::Read for Lender<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        io::Read::read(&mut self.slice, out)
    }
}

impl<'a> BincodeRead<'a> for Lender<'a> {
    fn forward_read_str<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        let s = std::str::from_utf8(self.split(n)?).map_err(ErrorKind::InvalidUtf8Encoding)?;
        v.visit_borrowed_str(s)
    }

    fn get_byte_buffer(&mut self, n: usize) -> Result<Vec<u8>> {
        Ok(self.split(n)?.to_vec())
    }

    fn forward_read_bytes<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        v.visit_borrowed_bytes(self.split(n)?)
    }
}

/// Lends only transient copies (`visit_bytes`).
struct Copier<'a>(&'a [u8]);

impl io::Read for Copier<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        io::Read::read(&mut self.0, out)
    }
}

impl<'a> BincodeRead<'a> for Copier<'_> {
    fn forward_read_str<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        let b = self.get_byte_buffer(n)?;
        v.visit_str(std::str::from_utf8(&b).map_err(ErrorKind::InvalidUtf8Encoding)?)
    }

    fn get_byte_buffer(&mut self, n: usize) -> Result<Vec<u8>> {
        let mut b = vec![0; n.min(self.0.len())];
        io::Read::read_exact(self, &mut b)?;
        if b.len() < n {
            return Err(Box::new(ErrorKind::Io(io::ErrorKind::UnexpectedEof.into())));
        }
        Ok(b)
    }

    fn forward_read_bytes<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        let b = self.get_byte_buffer(n)?;
        v.visit_bytes(&b)
    }
}

/// A reader whose lending fails with its own error, or lends short.
struct Failing {
    short: bool,
    head: &'static [u8],
}

impl io::Read for Failing {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        io::Read::read(&mut self.head, out)
    }
}

impl<'a> BincodeRead<'a> for Failing {
    fn forward_read_str<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        self.forward_read_bytes(n, v)
    }

    fn get_byte_buffer(&mut self, _: usize) -> Result<Vec<u8>> {
        Err(Box::new(ErrorKind::Custom("boom".into())))
    }

    fn forward_read_bytes<V: Visitor<'a>>(&mut self, _: usize, v: V) -> Result<V::Value> {
        if self.short {
            v.visit_borrowed_bytes(b"x")
        } else {
            Err(Box::new(ErrorKind::Custom("boom".into())))
        }
    }
}

#[test]
fn a_readers_own_error_comes_back_unchanged() {
    let head = &[3, 0, 0, 0];
    let e =
        bincode::deserialize_from_custom::<_, String>(Failing { short: false, head }).unwrap_err();
    assert!(matches!(*e, ErrorKind::Custom(ref s) if s == "boom"), "{e}");
    // Lending 1 byte where 3 were asked for is an error, not a short value.
    let e =
        bincode::deserialize_from_custom::<_, String>(Failing { short: true, head }).unwrap_err();
    assert!(
        matches!(*e, ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::InvalidData),
        "{e}"
    );
}

/// A reader whose `io::Read` fails with its own `io::Error`.
struct Denied;

impl io::Read for Denied {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::new(io::ErrorKind::PermissionDenied, "nope"))
    }
}

impl<'a> BincodeRead<'a> for Denied {
    fn forward_read_str<V: Visitor<'a>>(&mut self, n: usize, v: V) -> Result<V::Value> {
        self.forward_read_bytes(n, v)
    }

    fn get_byte_buffer(&mut self, _: usize) -> Result<Vec<u8>> {
        Err(Box::new(ErrorKind::Io(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "nope",
        ))))
    }

    fn forward_read_bytes<V: Visitor<'a>>(&mut self, n: usize, _: V) -> Result<V::Value> {
        self.get_byte_buffer(n).map(|_| unreachable!())
    }
}

#[test]
fn a_readers_io_error_comes_back_with_its_kind_and_text() {
    let e = bincode::deserialize_from_custom::<_, u32>(Denied).unwrap_err();
    match *e {
        ErrorKind::Io(ref io) => {
            assert_eq!(io.kind(), io::ErrorKind::PermissionDenied);
            assert_eq!(io.to_string(), "nope");
        }
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn custom_readers_get_kilns_checks() {
    let opts = DefaultOptions::new();
    // Unsorted map keys: TYPE (Custom), as for a slice.
    let unsorted = [2, 0, 0, 0, 1, 0, 0, 0, b'b', 1, 1, 0, 0, 0, b'a', 2];
    let e = opts
        .deserialize_from_custom::<_, BTreeMap<String, u8>>(Lender::new(&unsorted))
        .unwrap_err();
    assert!(
        matches!(*e, ErrorKind::Custom(ref s) if s.contains("TYPE")),
        "{e}"
    );
    let sorted = [2, 0, 0, 0, 1, 0, 0, 0, b'a', 1, 1, 0, 0, 0, b'b', 2];
    let m: BTreeMap<String, u8> = opts.deserialize_from_custom(Lender::new(&sorted)).unwrap();
    assert_eq!(m.len(), 2);
    // Bad bool and option bytes.
    let e = bincode::deserialize_from_custom::<_, bool>(Lender::new(&[2])).unwrap_err();
    assert!(matches!(*e, ErrorKind::InvalidBoolEncoding(2)));
    // The byte limit counts the reader's bytes.
    let bytes = bincode::serialize(&"abcdef").unwrap();
    let e = opts
        .with_limit(9)
        .deserialize_from_custom::<_, String>(Lender::new(&bytes))
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::SizeLimit));
    let s: String = opts
        .with_limit(10)
        .deserialize_from_custom(Lender::new(&bytes))
        .unwrap();
    assert_eq!(s, "abcdef");
    // Seeds.
    let v = opts
        .deserialize_from_custom_seed(std::marker::PhantomData::<u16>, Lender::new(&[1, 2]))
        .unwrap();
    assert_eq!(v, 0x0201);
    // EOF inside a value.
    let e = bincode::deserialize_from_custom::<_, u32>(Lender::new(&[1, 2])).unwrap_err();
    assert!(matches!(*e, ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof));
}

#[test]
fn tensors_through_a_bincode_read() {
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2], &[1.0f32, 2.0]).named("w"));
    let t: Tensors = b.build().unwrap();
    let value = (7u8, t.clone(), "after".to_string());
    let bytes = bincode::serialize(&value).unwrap();
    // The public Serializer writes the directory block in place too.
    let mut out = Vec::new();
    value
        .serialize(&mut Serializer::new(&mut out, DefaultOptions::new()))
        .unwrap();
    assert_eq!(out, bytes);
    let back: (u8, Tensors, String) =
        bincode::deserialize_from_custom(Lender::new(&bytes)).unwrap();
    assert_eq!(back, value);
    let mut de = Deserializer::with_reader(&bytes[..], DefaultOptions::new());
    assert_eq!(
        <(u8, Tensors, String)>::deserialize(&mut de).unwrap(),
        value
    );
    // A cut directory is EOF, with the offset counted from the start.
    let e = bincode::deserialize_from_custom::<_, (u8, Tensors, String)>(Lender::new(
        &bytes[..bytes.len() - 12],
    ))
    .unwrap_err();
    assert!(
        matches!(*e, ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof),
        "{e}"
    );
    // Under a limit that stops inside the block.
    let e = DefaultOptions::new()
        .with_limit(20)
        .deserialize_from_custom::<_, (u8, Tensors, String)>(Lender::new(&bytes))
        .unwrap_err();
    assert!(matches!(*e, ErrorKind::SizeLimit), "{e}");
}

#[test]
fn io_reader_grows_only_as_bytes_arrive() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // A string claiming 4,000,000,000 bytes, followed by 10.
    let mut hostile = 4_000_000_000u32.to_le_bytes().to_vec();
    hostile.extend_from_slice(&[b'a'; 10]);
    let (r, peak) = peak_during(|| {
        let mut de = Deserializer::with_reader(&hostile[..], DefaultOptions::new());
        String::deserialize(&mut de)
    });
    let e = r.unwrap_err();
    assert!(matches!(*e, ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof));
    assert!(peak < 256 * 1024, "peak {peak}");
    // The reader types hand out what they hold.
    let (r, peak) = peak_during(|| {
        let mut de = Deserializer::from_slice(&hostile, DefaultOptions::new());
        String::deserialize(&mut de)
    });
    assert!(r.is_err());
    assert!(peak < 64 * 1024, "peak {peak}");
}

#[test]
fn reader_types_are_bincode_reads() {
    fn takes<'a, R: BincodeRead<'a>>(_: &R) {}
    let bytes = [1u8, 0, 0, 0, b'x'];
    let mut de = Deserializer::<SliceReader<'_>, _>::from_slice(&bytes, DefaultOptions::new());
    assert_eq!(String::deserialize(&mut de).unwrap(), "x");
    let mut de = Deserializer::<IoReader<&[u8]>, _>::with_reader(&bytes[..], bincode::options());
    assert_eq!(String::deserialize(&mut de).unwrap(), "x");
    takes(&Lender::new(&bytes));
}

#[test]
fn deprecated_config_keeps_its_settings() {
    let mut c = bincode::config();
    assert_eq!(c.serialize(&1u16).unwrap(), [1, 0]);
    // Trailing bytes allowed, as the free functions.
    assert_eq!(c.deserialize::<u8>(&[1, 2]).unwrap(), 1);
    c.limit(3).big_endian();
    // The endianness has no effect; the limit does.
    assert_eq!(c.serialize(&0x0102u16).unwrap(), [2, 1]);
    assert!(matches!(
        *c.serialize(&1u32).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert!(matches!(
        *c.deserialize_from::<_, u32>(&[1, 0, 0, 0][..]).unwrap_err(),
        ErrorKind::SizeLimit
    ));
    assert_eq!(c.serialized_size(&1u8).unwrap(), 1);
    c.no_limit().native_endian().little_endian();
    assert_eq!(c.deserialize_from::<_, u32>(&[1, 0, 0, 0][..]).unwrap(), 1);
    let mut out = Vec::new();
    c.serialize_into(&mut out, &"a").unwrap();
    assert_eq!(out, [1, 0, 0, 0, b'a']);
    assert_eq!(
        c.deserialize_seed(std::marker::PhantomData::<u8>, &[9])
            .unwrap(),
        9
    );
    assert_eq!(
        c.deserialize_from_seed(std::marker::PhantomData::<u8>, &[9][..])
            .unwrap(),
        9
    );
    let v: String = c.deserialize_from_custom(Lender::new(&out)).unwrap();
    assert_eq!(v, "a");
    let v = c
        .deserialize_from_custom_seed(std::marker::PhantomData::<&str>, Lender::new(&out))
        .unwrap();
    assert_eq!(v, "a");
    let mut place = String::new();
    c.deserialize_in_place(Lender::new(&out), &mut place)
        .unwrap();
    assert_eq!(place, "a");
}

struct Extend<'a>(&'a mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Extend<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        self.0.extend(Vec::<u8>::deserialize(d)?);
        Ok(())
    }
}

#[test]
fn seeds_through_the_deserializer() {
    let bytes = bincode::serialize(&vec![4u8, 5]).unwrap();
    let mut acc = vec![1];
    let mut de = Deserializer::from_slice(&bytes, DefaultOptions::new());
    Extend(&mut acc).deserialize(&mut de).unwrap();
    assert_eq!(acc, [1, 4, 5]);
    // deserialize_any is not supported, as in bincode.
    let e = serde_json::Value::deserialize(&mut Deserializer::from_slice(
        &bytes,
        DefaultOptions::new(),
    ))
    .unwrap_err();
    assert!(matches!(*e, ErrorKind::DeserializeAnyNotSupported), "{e}");
}
