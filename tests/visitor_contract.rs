//! A `Deserialize` impl whose visitor stops before the elements its count
//! promised: the rest would be read as the next field, so the decoder
//! stops with MESSAGE at the sequence's offset (spec 7: implementations'
//! own kind for a type's own faults), for seqs, tuples, maps and map keys.

use std::fmt;
use std::marker::PhantomData;

use kiln_serde::ErrorCode;
use serde::de::{
    Deserialize, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// What asks for the elements.
const SEQ: u8 = 0;
const TUPLE3: u8 = 1;
const MAP: u8 = 2;
/// A map whose keys are `FirstOnly<SEQ>`.
const KEY_MAP: u8 = 3;
/// A map whose keys are seqs of `FirstOnly<TUPLE3>`.
const KEY_TUPLES: u8 = 4;
/// An enum's tuple variant of 3 u8.
const VARIANT3: u8 = 5;
/// A map whose keys are seqs of `FirstOnly<VARIANT3>`.
const KEY_VARIANTS: u8 = 6;

/// Reads the first element (or entry) of the shape `S` and stops; a
/// `KEY_MAP` reads every entry, each key a `FirstOnly<SEQ>`.
#[derive(Debug)]
struct FirstOnly<const S: u8>;

impl<'de, const S: u8> Deserialize<'de> for FirstOnly<S> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match S {
            SEQ => d.deserialize_seq(FirstVisitor),
            TUPLE3 => d.deserialize_tuple(3, FirstVisitor),
            VARIANT3 => d.deserialize_enum("E", &["V"], FirstVisitor),
            _ => d.deserialize_map(FirstVisitor),
        }
    }
}

struct FirstVisitor<const S: u8>;
impl<'de, const S: u8> Visitor<'de> for FirstVisitor<S> {
    type Value = FirstOnly<S>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("elements")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let _: Option<u8> = s.next_element()?;
        Ok(FirstOnly)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, e: A) -> Result<Self::Value, A::Error> {
        let (_, v): (u32, _) = e.variant()?;
        v.tuple_variant(3, FirstVisitor::<TUPLE3>)
            .map(|_| FirstOnly)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        if S == KEY_MAP {
            while m.next_entry::<FirstOnly<SEQ>, u8>()?.is_some() {}
        } else if S == KEY_TUPLES {
            while m.next_entry::<Vec<FirstOnly<TUPLE3>>, u8>()?.is_some() {}
        } else if S == KEY_VARIANTS {
            while m.next_entry::<Vec<FirstOnly<VARIANT3>>, u8>()?.is_some() {}
        } else {
            let _: Option<(u8, u8)> = m.next_entry()?;
        }
        Ok(FirstOnly)
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
    unread::<FirstOnly<SEQ>>(&[3, 0, 0, 0, 1, 2, 3], 0, "left 2 of 3 elements unread");
    // A tuple of 3 u8 (no count).
    unread::<FirstOnly<TUPLE3>>(&[1, 2, 3], 0, "left 2 of 3 elements unread");
    // A map of 2 (u8, u8) entries.
    unread::<FirstOnly<MAP>>(&[2, 0, 0, 0, 1, 10, 2, 20], 0, "left 1 of 2 entries unread");
    // A map of one entry whose key is a seq of 2 u8: the key's offset.
    unread::<FirstOnly<KEY_MAP>>(
        &[1, 0, 0, 0, 2, 0, 0, 0, 5, 6, 7],
        4,
        "left 1 of 2 elements unread",
    );
    // A map of one entry whose key is a seq of one tuple of 3 u8 (a
    // struct or tuple inside a key's seq has an access of its own): the
    // tuple's offset.
    unread::<FirstOnly<KEY_TUPLES>>(
        &[1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 3, 9],
        8,
        "left 2 of 3 elements unread",
    );
    // A tuple variant of 3 u8 (variant index, then 1 2 3): the fields'
    // offset, alone and inside a key's seq.
    unread::<FirstOnly<VARIANT3>>(&[0, 0, 0, 0, 1, 2, 3], 4, "left 2 of 3 elements unread");
    unread::<FirstOnly<KEY_VARIANTS>>(
        &[1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 9],
        12,
        "left 2 of 3 elements unread",
    );
}

#[test]
fn a_visitor_that_reads_every_element_decodes() {
    // The same shapes with one element: nothing left unread.
    assert!(kiln_serde::from_slice::<FirstOnly<SEQ>>(&[1, 0, 0, 0, 9]).is_ok());
    assert!(kiln_serde::from_slice::<FirstOnly<MAP>>(&[1, 0, 0, 0, 1, 10]).is_ok());
    let key_map = [1, 0, 0, 0, 1, 0, 0, 0, 5, 7];
    assert!(kiln_serde::from_slice::<FirstOnly<KEY_MAP>>(&key_map).is_ok());
}

/// A seq of `E`s: the visitor reads the first element, notes its
/// access's size hint, then forgets the access (`FORGET`, never dropped)
/// or reads the rest.
#[derive(Debug)]
struct Nested<E, const FORGET: bool> {
    hint: Option<usize>,
    rest: usize,
    _e: PhantomData<E>,
}

/// `Nested`'s elements: each a seq of its own.
type Pairs = Vec<(u8, u8)>;

impl<'de, E: Deserialize<'de>, const FORGET: bool> Deserialize<'de> for Nested<E, FORGET> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(NestedVisitor::<E, FORGET>(PhantomData))
    }
}

struct NestedVisitor<E, const FORGET: bool>(PhantomData<E>);
impl<'de, E: Deserialize<'de>, const FORGET: bool> Visitor<'de> for NestedVisitor<E, FORGET> {
    type Value = Nested<E, FORGET>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("seqs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let _: Option<E> = s.next_element()?;
        let hint = s.size_hint();
        let mut rest = 0;
        if FORGET {
            std::mem::forget(s);
        } else {
            while s.next_element::<E>()?.is_some() {
                rest += 1;
            }
        }
        Ok(Nested {
            hint,
            rest,
            _e: PhantomData,
        })
    }
}

/// Three elements: two empty seqs, then one of one pair.
const NESTED: [u8; 18] = [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 2];

#[test]
fn a_seq_inside_leaves_the_outer_seqs_hint_and_count() {
    // The first element's own seq (hint 0) is closed when the outer
    // visitor asks: the outer hint is 2 (3 promised, 1 read), not the
    // inner's 0.
    let v = kiln_serde::from_slice::<Nested<Pairs, false>>(&NESTED).unwrap();
    assert_eq!((v.hint, v.rest), (Some(2), 2));
    let v = kiln_serde::from_reader::<_, Nested<Pairs, false>>(&NESTED[..]).unwrap();
    assert_eq!((v.hint, v.rest), (Some(2), 2));
    // A stream (a `BufReader` is not decoded in place) too.
    let v =
        kiln_serde::from_reader::<_, Nested<Pairs, false>>(std::io::BufReader::new(&NESTED[..]))
            .unwrap();
    assert_eq!((v.hint, v.rest), (Some(2), 2));
}

#[test]
fn an_access_the_visitor_forgets_counts_as_unread() {
    // Forgotten after one element, the access still counts the two left:
    // the first element's own seq (read whole) must not stand in for it.
    unread::<Nested<Pairs, true>>(&NESTED, 0, "left 2 of 3 elements unread");
    // From a stream (a `BufReader` is not decoded in place) no element
    // writes its count back: still an error, its count the whole seq's.
    let e = kiln_serde::from_reader::<_, Nested<Pairs, true>>(std::io::BufReader::new(&NESTED[..]))
        .unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Message, Some(0)), "{e}");
    assert!(e.to_string().contains("left 3 of 3 elements unread"), "{e}");
}

#[test]
fn an_access_forgotten_after_plain_data_elements_is_an_error() {
    // 20 elements of 24 bytes: each read through a window of the input
    // (`de/window.rs`), where the access does not write its count back
    // for each element. Forgotten after one, the seq is still an error;
    // its count of unread elements is the last one written back, here
    // the whole seq's (the message's count is exact only for an access
    // that is dropped, as every serde visitor's is).
    let mut bytes = 20u32.to_le_bytes().to_vec();
    bytes.extend((0..20 * 6).flat_map(|i: u32| i.to_le_bytes()));
    unread::<Nested<[u32; 6], true>>(&bytes, 0, "left 20 of 20 elements unread");
    let v = kiln_serde::from_slice::<Nested<[u32; 6], false>>(&bytes).unwrap();
    assert_eq!((v.hint, v.rest), (Some(19), 19));
}
