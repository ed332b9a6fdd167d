//! A `Deserialize` impl whose visitor stops before the elements its count
//! promised: the rest would be read as the next field, so the decoder
//! stops with MESSAGE at the sequence's offset (spec 7: implementations'
//! own kind for a type's own faults), for seqs, tuples, maps and map keys.

use std::fmt;

use kiln_serde::ErrorCode;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Which shape asks for the elements.
#[derive(Debug)]
enum Ask {
    Seq,
    Tuple3,
}

/// Reads the first element and stops.
#[derive(Debug)]
struct FirstOnly;

struct FirstVisitor;
impl<'de> Visitor<'de> for FirstVisitor {
    type Value = FirstOnly;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("elements")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<FirstOnly, A::Error> {
        let _: Option<u8> = s.next_element()?;
        Ok(FirstOnly)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<FirstOnly, A::Error> {
        let _: Option<(u8, u8)> = m.next_entry()?;
        Ok(FirstOnly)
    }
}

fn first_only<'de, D: Deserializer<'de>>(d: D, ask: Ask) -> Result<FirstOnly, D::Error> {
    match ask {
        Ask::Seq => d.deserialize_seq(FirstVisitor),
        Ask::Tuple3 => d.deserialize_tuple(3, FirstVisitor),
    }
}

#[derive(Debug)]
struct SeqFirst;
impl<'de> Deserialize<'de> for SeqFirst {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        first_only(d, Ask::Seq).map(|_| SeqFirst)
    }
}

#[derive(Debug)]
struct TupleFirst;
impl<'de> Deserialize<'de> for TupleFirst {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        first_only(d, Ask::Tuple3).map(|_| TupleFirst)
    }
}

#[derive(Debug)]
struct MapFirst;
impl<'de> Deserialize<'de> for MapFirst {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(FirstVisitor).map(|_| MapFirst)
    }
}

/// A map of one entry whose key is a `SeqFirst`.
#[derive(Debug)]
struct KeyFirst;
impl<'de> Deserialize<'de> for KeyFirst {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyFirst;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<KeyFirst, A::Error> {
                while m.next_entry::<SeqFirst, u8>()?.is_some() {}
                Ok(KeyFirst)
            }
        }
        d.deserialize_map(V)
    }
}

fn unread<T: for<'a> Deserialize<'a> + fmt::Debug>(bytes: &[u8], at: u64, text: &str) {
    for e in [
        kiln_serde::from_slice::<T>(bytes).unwrap_err(),
        kiln_serde::from_reader::<_, T>(bytes).unwrap_err(),
    ] {
        assert_eq!(
            (e.code(), e.offset()),
            (ErrorCode::Message, Some(at)),
            "{e}"
        );
        assert!(e.to_string().contains(text), "{e}");
    }
}

#[test]
fn a_visitor_that_stops_early_is_an_error_at_the_sequence() {
    // seq of 3 u8: count, then 1 2 3.
    unread::<SeqFirst>(&[3, 0, 0, 0, 1, 2, 3], 0, "left 2 of 3 elements unread");
    // A tuple of 3 u8 (no count).
    unread::<TupleFirst>(&[1, 2, 3], 0, "left 2 of 3 elements unread");
    // A map of 2 (u8, u8) entries.
    unread::<MapFirst>(&[2, 0, 0, 0, 1, 10, 2, 20], 0, "left 1 of 2 entries unread");
    // A map of one entry whose key is a seq of 2 u8: the key's offset.
    unread::<KeyFirst>(
        &[1, 0, 0, 0, 2, 0, 0, 0, 5, 6, 7],
        4,
        "left 1 of 2 elements unread",
    );
}

#[test]
fn a_visitor_that_reads_every_element_decodes() {
    // The same shapes with one element: nothing left unread.
    assert!(kiln_serde::from_slice::<SeqFirst>(&[1, 0, 0, 0, 9]).is_ok());
    assert!(kiln_serde::from_slice::<MapFirst>(&[1, 0, 0, 0, 1, 10]).is_ok());
    assert!(kiln_serde::from_slice::<KeyFirst>(&[1, 0, 0, 0, 1, 0, 0, 0, 5, 7]).is_ok());
}
