//! A seq's element errors reach the caller as they were raised: code and
//! offset, from a slice (where a plain element of 24 to 64 bytes reads
//! through a window of the input while 256 bytes remain, and through the
//! decoder after) and from a reader, in nested seqs, on many threads at
//! once. The seq's access hands its visitor the zero-sized error, the
//! element's [`kiln_serde::Error`] kept in a per-thread slot until the
//! seq's decode ends (src/de/abort.rs); a visitor's own error, made after
//! an element's, is the one reported, and an element error a visitor
//! swallows does not come back later.

use std::io::BufReader;

use kiln_serde::ErrorCode;
use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

#[path = "support/even.rs"]
mod even;
use even::Even;

/// Plain data, 24 bytes on the wire and in memory, aligned to 4: a type a
/// seq's access reads through the window.
#[derive(Deserialize, Debug, PartialEq, Clone, Copy)]
struct Cell {
    a: u32,
    flag: bool,
    b: u16,
    c: f32,
    d: [u8; 5],
    e: Even,
    f: u32,
}

const WIRE: usize = 24;
const N: usize = 20;

fn cell(k: usize) -> Vec<u8> {
    let k32 = k as u32;
    let mut b = (k32 + 1).to_le_bytes().to_vec(); // a
    b.push(u8::from(k % 2 == 0)); // flag
    b.extend_from_slice(&(k as u16).to_le_bytes()); // b
    b.extend_from_slice(&(k as f32 / 2.0).to_le_bytes()); // c
    b.extend_from_slice(&[k as u8; 5]); // d
    b.extend_from_slice(&(2 * k32).to_le_bytes()); // e
    b.extend_from_slice(&(k32 ^ 0xa5).to_le_bytes()); // f
    assert_eq!(b.len(), WIRE);
    b
}

/// `Vec<Cell>` of `N` cells: a `u32` count, then the cells.
fn good() -> Vec<u8> {
    let mut b = (N as u32).to_le_bytes().to_vec();
    for k in 0..N {
        b.extend_from_slice(&cell(k));
    }
    b
}

/// The offset of field byte `field` of element `k` in [`good`].
fn at(k: usize, field: usize) -> usize {
    4 + WIRE * k + field
}

fn with_byte(g: &[u8], at: usize, b: u8) -> Vec<u8> {
    let mut v = g.to_vec();
    v[at] = b;
    v
}

/// (input, code, offset): element 0 and 5 are read through the window
/// (more than 256 bytes follow them), 12 and 19 by the decoder.
fn faults() -> Vec<(Vec<u8>, ErrorCode, u64)> {
    let g = good();
    let mut v = Vec::new();
    for k in [0, 5, 12, 19] {
        v.push((with_byte(&g, at(k, 4), 2), ErrorCode::Type, at(k, 4))); // flag
                                                                         // `e` odd: the conversion's error, made after the field's read
                                                                         // ended, has the offset of the struct it is in.
        v.push((with_byte(&g, at(k, 16), 1), ErrorCode::Message, at(k, 0)));
        v.push((g[..at(k, 9)].to_vec(), ErrorCode::Eof, at(k, 7))); // inside c
    }
    // One element more than the bytes hold: EOF at the first missing one.
    v.push((with_byte(&g, 0, N as u8 + 1), ErrorCode::Eof, at(N, 0)));
    v.into_iter()
        .map(|(input, code, offset)| (input, code, offset as u64))
        .collect()
}

#[test]
fn the_cells_are_window_sized() {
    // The window takes plain data of 24 to 64 bytes aligned below 8
    // (src/de/window.rs); this test file relies on `Cell` being one.
    assert!((24..=64).contains(&std::mem::size_of::<Cell>()));
    assert!(std::mem::align_of::<Cell>() < 8);
    assert!(!std::mem::needs_drop::<Cell>());
}

#[test]
fn element_errors_keep_their_code_and_offset() {
    let cells = kiln_serde::from_slice::<Vec<Cell>>(&good()).unwrap();
    assert_eq!(cells.len(), N);
    assert_eq!(cells[19].e, Even(38));
    for (input, code, offset) in faults() {
        let e = kiln_serde::from_slice::<Vec<Cell>>(&input).unwrap_err();
        assert_eq!((e.code(), e.offset()), (code, Some(offset)), "slice: {e}");
        let e = kiln_serde::from_reader::<_, Vec<Cell>>(&mut &input[..]).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (code, Some(offset)),
            "in place: {e}"
        );
        let e = kiln_serde::from_reader::<_, Vec<Cell>>(BufReader::with_capacity(7, &input[..]))
            .unwrap_err();
        assert_eq!((e.code(), e.offset()), (code, Some(offset)), "stream: {e}");
    }
    let e = kiln_serde::from_slice::<Vec<Cell>>(&with_byte(&good(), at(5, 16), 7)).unwrap_err();
    assert_eq!(e.message(), "7 is odd");
}

/// A seq of seqs: the inner seq's error is taken back at its end and
/// handed on by the outer element, code and offset unchanged.
#[test]
fn nested_seq_errors_keep_their_code_and_offset() {
    let inner = good();
    let mut outer = 2u32.to_le_bytes().to_vec();
    outer.extend_from_slice(&inner);
    outer.extend_from_slice(&inner);
    let back = kiln_serde::from_slice::<Vec<Vec<Cell>>>(&outer).unwrap();
    assert_eq!(back.len(), 2);
    let second = 4 + inner.len();
    for (k, field, b, code, off) in [
        (3, 4, 9, ErrorCode::Type, 4),
        (17, 16, 3, ErrorCode::Message, 0),
    ] {
        let bad = with_byte(&outer, second + at(k, field), b);
        let e = kiln_serde::from_slice::<Vec<Vec<Cell>>>(&bad).unwrap_err();
        let want = (second + at(k, off)) as u64;
        assert_eq!((e.code(), e.offset()), (code, Some(want)), "{e}");
    }
}

#[test]
fn element_errors_on_many_threads_do_not_mix() {
    let faults = faults();
    let want: Vec<String> = faults
        .iter()
        .map(|(input, _, _)| {
            kiln_serde::from_slice::<Vec<Cell>>(input)
                .unwrap_err()
                .to_string()
        })
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (faults, want) = (&faults, &want);
            s.spawn(move || {
                for i in 0..1_000 {
                    let k = (i + t) % faults.len();
                    let e = kiln_serde::from_slice::<Vec<Cell>>(&faults[k].0).unwrap_err();
                    assert_eq!(e.to_string(), want[k]);
                    assert_eq!((e.code(), e.offset()), (faults[k].1, Some(faults[k].2)));
                    assert!(kiln_serde::from_slice::<Vec<Cell>>(&good()).is_ok());
                }
            });
        }
    });
}

/// Reads a seq of cells. On an element's error, `Cells<true>` swallows
/// it and returns what it has (the seq is then left unread);
/// `Cells<false>` fails with its own error, which formats the element's.
#[derive(Debug)]
struct Cells<const SWALLOW: bool>(usize);

impl<'de, const SWALLOW: bool> Deserialize<'de> for Cells<SWALLOW> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const S: bool>;
        impl<'de, const S: bool> Visitor<'de> for V<S> {
            type Value = Cells<S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("cells")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Cells<S>, A::Error> {
                let mut n = 0;
                loop {
                    match seq.next_element::<Cell>() {
                        Ok(Some(_)) => n += 1,
                        Ok(None) => return Ok(Cells(n)),
                        Err(_) if S => return Ok(Cells(n)),
                        Err(e) => return Err(serde::de::Error::custom(format!("own, after: {e}"))),
                    }
                }
            }
        }
        d.deserialize_seq(V::<SWALLOW>)
    }
}

#[test]
fn a_visitors_own_error_wins_and_a_swallowed_one_does_not_return() {
    let bad = with_byte(&good(), at(12, 4), 2);
    // The visitor's own error, made after the element's, is reported.
    let e = kiln_serde::from_slice::<Cells<false>>(&bad).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Message);
    assert!(
        e.message()
            .starts_with(&format!("own, after: TYPE at byte {}", at(12, 4))),
        "{e}"
    );
    // A swallowed element error: the seq is left unread (MESSAGE at the
    // seq's start), not the element's TYPE.
    let e = kiln_serde::from_slice::<Cells<true>>(&bad).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Message, Some(0)), "{e}");
    // Nor does it come back in a later decode on this thread.
    assert_eq!(kiln_serde::from_slice::<Cells<true>>(&good()).unwrap().0, N);
    let e = kiln_serde::from_slice::<Vec<Cell>>(&good()[..at(2, 1)]).unwrap_err();
    assert_eq!(
        (e.code(), e.offset()),
        (ErrorCode::Eof, Some(at(2, 0) as u64)),
        "{e}"
    );
}

/// A newtype element: its `Deserialize` asks the element's deserializer
/// for a newtype struct, which goes to the decoder.
#[derive(Deserialize, Debug, PartialEq)]
struct Wrapped(Cell);

/// A `char` among plain fields: the window hands it to the decoder and
/// opens again after it. `nz`'s visitor refuses 0 (an error of the
/// field's own visitor, at the field).
#[derive(Deserialize, Debug, PartialEq)]
struct CharCell {
    a: u32,
    ch: char,
    nz: std::num::NonZeroU32,
    rest: [u32; 4],
}

/// Every byte of elements 0, 5 and the last, set to each of a few values:
/// the `Vec`'s error (or value) is the lone element's, its offset moved by
/// the element's start. A lone element is too short for the window, so
/// its fields are read by the decoder: a path of its own.
fn agrees_with_lone<T>(elem: impl Fn(usize) -> Vec<u8>, n: usize)
where
    T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
{
    let elems: Vec<Vec<u8>> = (0..n).map(&elem).collect();
    let whole = |elems: &[Vec<u8>]| {
        let mut b = (n as u32).to_le_bytes().to_vec();
        elems.iter().for_each(|e| b.extend_from_slice(e));
        b
    };
    let mut checked = 0;
    for k in [0, 5, n - 1] {
        let start = 4 + elems[..k].iter().map(Vec::len).sum::<usize>() as u64;
        for i in 0..elems[k].len() {
            for b in [0x00, 0x01, 0x02, 0x80, 0xd8, 0xff] {
                let mut changed = elems.clone();
                changed[k][i] = b;
                let lone = kiln_serde::from_slice::<T>(&changed[k]);
                let input = whole(&changed);
                for (how, got) in [
                    ("slice", kiln_serde::from_slice::<Vec<T>>(&input)),
                    ("in place", kiln_serde::from_reader(&mut &input[..])),
                ] {
                    match (&lone, got) {
                        (Ok(_), Ok(v)) => assert_eq!(v.len(), n, "{how}"),
                        (Err(l), Err(e)) => {
                            let want = (l.code(), l.offset().map(|o| o + start), l.message());
                            assert_eq!((e.code(), e.offset(), e.message()), want, "{how}");
                            checked += 1;
                        }
                        (l, g) => panic!(
                            "{how}: element {k} byte {i} = {b}: lone {l:?}, in the Vec {g:?}"
                        ),
                    }
                }
            }
        }
    }
    assert!(checked > 0, "no byte made an error");
}

#[test]
fn each_element_error_is_the_lone_elements() {
    agrees_with_lone::<Cell>(cell, N);
    agrees_with_lone::<Wrapped>(cell, N);
    let char_cell = |k: usize| {
        let mut b = (k as u32).to_le_bytes().to_vec();
        b.extend_from_slice(&u32::from(char::from(b'a' + k as u8)).to_le_bytes());
        b.extend_from_slice(&(k as u32 + 1).to_le_bytes()); // nz
        (0..4).for_each(|j| b.extend_from_slice(&(k as u32 * j).to_le_bytes()));
        b
    };
    agrees_with_lone::<CharCell>(char_cell, N);
}
