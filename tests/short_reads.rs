//! A read past the end of a slice (or past a total size limit) fails at
//! the first byte of the field it was reading, with the same code, offset
//! and sentence whichever way the decode was started: the crate's
//! functions, `Options`, `take_from_slice`, a seed, a `Deserializer`
//! driven by hand, the framed functions and a `Schema`.
//!
//! The slice reader completes such an error only when the decode stops
//! (src/read.rs, `settle`), so every way in must do it; a field's offset is
//! computed here from the layout, not from the decoder.

use std::marker::PhantomData;

use kiln_serde::de::Deserializer;
use kiln_serde::{ErrorCode, Limits, Options, Schema};
use serde::{Deserialize, Serialize};

/// Fixed-width fields only: every byte belongs to one field, whose start
/// is the offset of a read that the input's end cuts.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Tick {
    id: u64,
    price: f32,
    pair: (u16, i8),
    inner: Inner,
    flag: bool,
    last: u32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Inner {
    a: u8,
    b: f64,
}

/// The field starts of `Tick`'s encoding, and its length.
const STARTS: [usize; 8] = [0, 8, 12, 14, 15, 16, 24, 25];
const LEN: usize = 29;

fn tick() -> Tick {
    Tick {
        id: 0x0123_4567_89ab_cdef,
        price: 1.5,
        pair: (7, -3),
        inner: Inner { a: 9, b: -0.25 },
        flag: true,
        last: 42,
    }
}

/// The start of the field that holds byte `cut` (the one a decode cut
/// there is reading).
fn field_at(cut: usize) -> u64 {
    *STARTS.iter().rev().find(|&&s| s <= cut).unwrap() as u64
}

type Outcome = Result<(), (ErrorCode, Option<u64>, String)>;

fn outcome<T>(r: kiln_serde::Result<T>) -> Outcome {
    r.map(|_| ())
        .map_err(|e| (e.code(), e.offset(), e.to_string()))
}

/// Every slice way in, at `input`; all must agree.
fn every_way(input: &[u8], limits: &Limits) -> Outcome {
    every_way_as::<Tick>(input, limits)
}

fn every_way_as<T: for<'de> Deserialize<'de>>(input: &[u8], limits: &Limits) -> Outcome {
    let opts = Options::new().with_limits(*limits);
    let by_hand = {
        let mut de = Deserializer::from_slice(input, limits);
        outcome(T::deserialize(&mut de).and_then(|v| de.end().map(|()| v)))
    };
    let ways = [
        ("Options::from_slice", outcome(opts.from_slice::<T>(input))),
        (
            "Options::take_from_slice",
            outcome(opts.take_from_slice::<T>(input)),
        ),
        (
            "Options::from_slice_seed",
            outcome(opts.from_slice_seed(PhantomData::<T>, input)),
        ),
        ("Deserializer by hand", by_hand),
    ];
    let first = ways[0].1.clone();
    for (name, got) in &ways {
        assert_eq!(got, &first, "{name} at {input:02x?}");
    }
    first
}

#[test]
fn a_short_read_fails_at_its_fields_first_byte_every_way_in() {
    let bytes = kiln_serde::to_vec(&tick()).unwrap();
    assert_eq!(bytes.len(), LEN);
    for cut in 0..LEN {
        let input = &bytes[..cut];
        let got = every_way(input, &Limits::DEFAULT);
        let (code, at, text) = got.clone().unwrap_err();
        assert_eq!(
            (code, at),
            (ErrorCode::Eof, Some(field_at(cut))),
            "cut {cut}"
        );
        assert!(text.contains("only"), "cut {cut}: {text}");
        assert_eq!(
            outcome(kiln_serde::from_slice::<Tick>(input)),
            got,
            "cut {cut}"
        );
        assert_eq!(
            outcome(kiln_serde::take_from_slice::<Tick>(input)),
            got,
            "cut {cut}"
        );

        // The bincode module: an `UnexpectedEof` carrying the same sentence.
        match *kiln_serde::bincode::deserialize::<Tick>(input).unwrap_err() {
            kiln_serde::bincode::ErrorKind::Io(e) => {
                assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
                assert_eq!(e.to_string(), text, "cut {cut}");
            }
            other => panic!("cut {cut}: {other:?}"),
        }

        // Framed: the same fault 16 bytes further on.
        let framed = kiln_serde::framed::to_vec(&tick()).unwrap();
        let want = Err((ErrorCode::Eof, Some(16 + field_at(cut))));
        let code_at = |o: Outcome| o.map_err(|(c, at, _)| (c, at));
        let cut16 = &framed[..16 + cut];
        assert_eq!(
            code_at(outcome(kiln_serde::framed::from_slice::<Tick>(cut16))),
            want,
            "cut {cut}"
        );
        let schema: Schema<Tick> = Schema::new().unwrap();
        assert_eq!(
            code_at(outcome(schema.from_slice(cut16))),
            want,
            "cut {cut}"
        );
    }
    assert_eq!(every_way(&bytes, &Limits::DEFAULT), Ok(()));
}

/// With a total size limit at `cut`, the whole input present: the same
/// field fails, with LIMIT instead of EOF.
#[test]
fn a_read_past_the_limit_fails_at_its_fields_first_byte_every_way_in() {
    let bytes = kiln_serde::to_vec(&tick()).unwrap();
    for cut in 0..LEN {
        let limits = Limits::DEFAULT.with_limit(cut as u64);
        let (code, at, text) = every_way(&bytes, &limits).unwrap_err();
        assert_eq!(
            (code, at),
            (ErrorCode::Limit, Some(field_at(cut))),
            "cut {cut}"
        );
        assert!(text.contains("size limit"), "cut {cut}: {text}");
    }
    let limits = Limits::DEFAULT.with_limit(LEN as u64);
    assert_eq!(every_way(&bytes, &limits), Ok(()));
}

/// A `Deserializer` driven by hand over several values: each error is the
/// one of its own value, at the offset in the whole input.
#[test]
fn a_deserializer_by_hand_places_a_short_read_in_the_whole_input() {
    let mut bytes = kiln_serde::to_vec(&tick()).unwrap();
    bytes.extend(kiln_serde::to_vec(&tick()).unwrap());
    for cut in LEN..2 * LEN {
        let mut de = Deserializer::from_slice(&bytes[..cut], &Limits::DEFAULT);
        assert_eq!(Tick::deserialize(&mut de).unwrap(), tick());
        let e = Tick::deserialize(&mut de).unwrap_err();
        let want = (ErrorCode::Eof, Some(LEN as u64 + field_at(cut - LEN)));
        assert_eq!((e.code(), e.offset()), want, "cut {cut}");
        // A bare primitive at the top, too.
        let mut de = Deserializer::from_slice(&bytes[..cut], &Limits::DEFAULT);
        assert_eq!(Tick::deserialize(&mut de).unwrap(), tick());
        if cut - LEN < 8 {
            let e = u64::deserialize(&mut de).unwrap_err();
            assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(LEN as u64)));
        }
    }
}

/// A visitor that turns the reader's error into one of its own sees a
/// worded EOF without an offset (not the offset of a struct it passed
/// through: the reader's position is not known there); the enclosing
/// value's offset is added to the new error as to any error of a
/// visitor's own.
#[test]
fn a_visitor_wrapping_a_short_read_sees_a_worded_eof() {
    #[derive(Deserialize)]
    struct Two {
        _a: u8,
        _b: u32,
    }
    #[derive(Debug)]
    struct Wrapped;
    impl<'de> Deserialize<'de> for Wrapped {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            use serde::de::Error as _;
            match Two::deserialize(d) {
                Ok(_) => Ok(Wrapped),
                Err(e) => Err(D::Error::custom(format!("wrapped: {e}"))),
            }
        }
    }
    let e = kiln_serde::from_slice::<(u8, Wrapped)>(&[1, 2, 3]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Message);
    assert_eq!(e.offset(), Some(0));
    assert_eq!(e.message(), "wrapped: EOF: needs 4 bytes, more than remain");
}

/// The documented edge (README, "What differs" 11): a short
/// fixed-width read moves the slice reader to the input's end, so a
/// `Deserialize` impl that catches it and reads on fails there (where
/// bincode 1.3's slice reader would read the bytes the short read left),
/// and the caught error, returned after that, is placed at the start of
/// the last short read, the input's end. Returned at once, it is placed
/// at its own start.
#[test]
fn a_caught_short_read_leaves_the_reader_at_the_end() {
    #[derive(Debug)]
    struct Stubborn<const READ_ON: bool>;
    impl<'de, const READ_ON: bool> Deserialize<'de> for Stubborn<READ_ON> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V<const READ_ON: bool>;
            impl<'de, const READ_ON: bool> serde::de::Visitor<'de> for V<READ_ON> {
                type Value = Stubborn<READ_ON>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a u64 or a u8")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Stubborn<READ_ON>, A::Error> {
                    let first = seq.next_element::<u64>().map(|_| ());
                    let e = first.expect_err("3 bytes hold no u64");
                    if READ_ON {
                        let next = seq.next_element::<u8>().map(|_| ());
                        next.expect_err("the short read moved to the end");
                    }
                    Err(e)
                }
            }
            d.deserialize_tuple(8, V)
        }
    }
    let input = [9u8, 1, 2, 3];
    let e = kiln_serde::from_slice::<(u8, Stubborn<false>)>(&input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(1)), "{e}");
    assert_eq!(e.message(), "needs 8 bytes, only 3 remain");
    let e = kiln_serde::from_slice::<(u8, Stubborn<true>)>(&input).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(4)), "{e}");
    assert_eq!(e.message(), "needs 8 bytes, only 0 remain");
    // Through `de::Deserializer`, the reader goes back to the short read's
    // start when the error leaves it: the bytes it found are read next.
    let mut de = kiln_serde::de::Deserializer::from_slice(&input, &kiln_serde::Limits::DEFAULT);
    assert_eq!(u8::deserialize(&mut de).unwrap(), 9);
    let e = u64::deserialize(&mut de).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(1)), "{e}");
    assert_eq!((de.offset(), de.rest()), (1, &[1u8, 2, 3][..]));
    let e = Stubborn::<false>::deserialize(&mut de).unwrap_err();
    assert_eq!((e.offset(), de.rest()), (Some(1), &[1u8, 2, 3][..]));
    assert_eq!(u16::deserialize(&mut de).unwrap(), 0x0201);
    assert_eq!(de.rest(), &[3u8][..]);
}

/// A str's content cut short fails at the str's first byte (its count),
/// as EOF on a short input and as LIMIT under a size limit, every way in.
#[test]
fn a_short_str_fails_at_its_count_every_way_in() {
    #[derive(Serialize, Deserialize)]
    struct Named {
        a: u8,
        name: String,
        text: &'static str,
        b: u16,
    }
    // `&'static str` cannot borrow: decode as an owned twin.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Owned {
        a: u8,
        name: String,
        text: String,
        b: u16,
    }
    let bytes = kiln_serde::to_vec(&Named {
        a: 1,
        name: "kiln".into(),
        text: "serde",
        b: 2,
    })
    .unwrap();
    // a at 0, name at 1 (content 5..9), text at 9 (content 13..18), b at 18.
    assert_eq!(bytes.len(), 20);
    let at = |cut: usize| match cut {
        0 => 0,
        1..=8 => 1,
        9..=17 => 9,
        _ => 18,
    };
    for cut in 0..bytes.len() {
        let (code, off, _) = every_way_as::<Owned>(&bytes[..cut], &Limits::DEFAULT).unwrap_err();
        assert_eq!((code, off), (ErrorCode::Eof, Some(at(cut))), "cut {cut}");
        let limits = Limits::DEFAULT.with_limit(cut as u64);
        let (code, off, _) = every_way_as::<Owned>(&bytes, &limits).unwrap_err();
        assert_eq!((code, off), (ErrorCode::Limit, Some(at(cut))), "cut {cut}");
    }
}

/// As above for a small plain value aligned to 8, decoded with the
/// zero-sized field error (src/de/abort.rs): the field errors wait in one
/// per-thread slot, so the caught error, returned after the second short
/// read, comes back as that one (same code and offset, its words).
#[test]
fn a_caught_short_read_in_a_plain_struct_reports_the_latest() {
    #[derive(Debug)]
    struct Stubborn(#[allow(dead_code)] u64);
    impl<'de> Deserialize<'de> for Stubborn {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Stubborn;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a u64 or a u8")
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Stubborn, A::Error> {
                    let e = seq
                        .next_element::<u64>()
                        .map(|_| ())
                        .expect_err("3 bytes hold no u64");
                    let next = seq.next_element::<u8>().map(|_| ());
                    next.expect_err("the short read moved to the end");
                    Err(e)
                }
            }
            d.deserialize_tuple(2, V)
        }
    }
    let e = kiln_serde::from_slice::<(u8, Stubborn)>(&[9u8, 1, 2, 3]).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Eof, Some(4)), "{e}");
    assert_eq!(e.message(), "needs 1 bytes, only 0 remain");
}
