//! A struct's or tuple's `&str` and `String` fields are decoded inline
//! (src/de/fields.rs), not through serde's `<&str>::deserialize` and
//! `<String>::deserialize`. Each case here decodes the same bytes both
//! ways (the second type reads the string through `deserialize_with`,
//! which keeps serde's path) and requires the same value or the same
//! error: code, offset and text.

use std::fmt::Debug;

use kiln_serde::de::Deserializer;
use kiln_serde::{Error, Limits};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Deserialize)]
struct Inline<'a> {
    n: u8,
    #[serde(borrow)]
    s: &'a str,
    t: String,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Serde<'a> {
    n: u8,
    #[serde(borrow, deserialize_with = "serde_str")]
    s: &'a str,
    #[serde(deserialize_with = "serde_string")]
    t: String,
}

fn serde_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'de str, D::Error> {
    <&str>::deserialize(d)
}

fn serde_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    String::deserialize(d)
}

impl<'a> From<Serde<'a>> for Inline<'a> {
    fn from(v: Serde<'a>) -> Self {
        Inline {
            n: v.n,
            s: v.s,
            t: v.t,
        }
    }
}

/// The parts of a result that must agree.
fn outcome<T: Debug>(
    r: Result<T, Error>,
) -> Result<String, (kiln_serde::ErrorCode, Option<u64>, String)> {
    r.map(|v| format!("{v:?}"))
        .map_err(|e| (e.code(), e.offset(), e.to_string()))
}

/// `Inline` and `Serde` read from the deserializer `$make` builds.
macro_rules! agree {
    ($make:expr, $what:literal, $bytes:expr) => {{
        let inline = outcome(Inline::deserialize(&mut $make));
        let serde = outcome(Serde::deserialize(&mut $make).map(Inline::from));
        assert_eq!(inline, serde, "{} {:02x?}", $what, $bytes);
    }};
}

fn both_ways(bytes: &[u8], limits: &Limits) {
    agree!(Deserializer::from_slice(bytes, limits), "slice", bytes);
    agree!(Deserializer::from_reader(bytes, limits), "reader", bytes);
}

fn record(s: &[u8], t: &[u8]) -> Vec<u8> {
    let mut v = vec![7u8];
    for part in [s, t] {
        v.extend_from_slice(&(part.len() as u32).to_le_bytes());
        v.extend_from_slice(part);
    }
    v
}

#[test]
fn string_fields_decode_as_serde_decodes_them() {
    let cases: Vec<Vec<u8>> = vec![
        record(b"", b""),
        record(b"ascii", b"also ascii, and longer than thirty-two bytes"),
        record("héllo wörld".as_bytes(), "日本".as_bytes()),
        record(b"bad \xff byte", b"ok"),
        record(b"ok", b"\xc3"),
        record(b"\xe6\x97", b"x"),
    ];
    for bytes in &cases {
        both_ways(bytes, &Limits::DEFAULT);
        // Cut short at every length.
        for cut in 0..bytes.len() {
            both_ways(&bytes[..cut], &Limits::DEFAULT);
        }
        // Over a length cap, and under a total limit.
        both_ways(bytes, &Limits::DEFAULT.with_max_bytes(3));
        both_ways(bytes, &Limits::DEFAULT.with_limit(8));
    }
}

#[test]
fn a_borrowed_field_from_a_stream_is_the_type_error_serde_gives() {
    let bytes = record(b"abc", b"def");
    let mut de = Deserializer::from_reader(&bytes[..], &Limits::DEFAULT);
    let e = Inline::deserialize(&mut de).unwrap_err();
    assert_eq!(e.offset(), Some(1));
    assert!(e.to_string().contains("expected a borrowed string"), "{e}");
}

#[test]
fn string_fields_round_trip_in_tuples_and_variants() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum E<'a> {
        T(#[serde(borrow)] &'a str, String),
        S {
            #[serde(borrow)]
            a: &'a str,
            b: String,
        },
    }
    let v = (
        E::T("one", "two".to_owned()),
        E::S {
            a: "three",
            b: "four".to_owned(),
        },
        ("five", String::from("six")),
    );
    let bytes = kiln_serde::to_vec(&v).unwrap();
    let back: (E, E, (&str, String)) = kiln_serde::from_slice(&bytes).unwrap();
    assert_eq!(back, v);
}

/// Seqs of strings take the same path (`Vec<&str>`, `Vec<String>`); a
/// newtype element keeps serde's.
#[derive(Debug, PartialEq, Deserialize)]
struct Seqs<'a> {
    #[serde(borrow)]
    a: Vec<&'a str>,
    b: Vec<String>,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Str<'a>(&'a str);

#[derive(Debug, PartialEq, Deserialize)]
struct Owned(String);

#[derive(Debug, PartialEq, Deserialize)]
struct SerdeSeqs<'a> {
    #[serde(borrow)]
    a: Vec<Str<'a>>,
    b: Vec<Owned>,
}

#[test]
fn string_seqs_decode_as_serde_decodes_them() {
    let seq = |items: &[&[u8]]| {
        let mut v = (items.len() as u32).to_le_bytes().to_vec();
        for s in items {
            v.extend_from_slice(&(s.len() as u32).to_le_bytes());
            v.extend_from_slice(s);
        }
        v
    };
    let cases = [
        [seq(&[]), seq(&[])].concat(),
        [seq(&[b"a", b"bc"]), seq(&[b"def", "ghé".as_bytes()])].concat(),
        [seq(&[b"a", b"b\xff"]), seq(&[b"x"])].concat(),
        [seq(&[b"a"]), seq(&[b"\xc3"])].concat(),
        [&[9, 0, 0, 0][..], &seq(&[b"a"])[4..]].concat(),
    ];
    for bytes in &cases {
        for cut in 0..=bytes.len() {
            let input = &bytes[..cut];
            for limits in [Limits::DEFAULT, Limits::DEFAULT.with_max_bytes(2)] {
                let inline = outcome(Seqs::deserialize(&mut Deserializer::from_slice(
                    input, &limits,
                )));
                let serde = outcome(
                    SerdeSeqs::deserialize(&mut Deserializer::from_slice(input, &limits)).map(
                        |v| Seqs {
                            a: v.a.into_iter().map(|s| s.0).collect(),
                            b: v.b.into_iter().map(|s| s.0).collect(),
                        },
                    ),
                );
                assert_eq!(inline, serde, "{input:02x?}");
            }
        }
    }
}
