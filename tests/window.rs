//! Plain structs of 24 to 64 bytes decoded from a slice read their
//! fixed-width fields through a window of the input (`src/de/window.rs`)
//! when 256 bytes or more remain. A stream has no window, so the two
//! must give the same value, or the same error code at the same offset,
//! for every cut of the input and every one-byte change, wherever the
//! window starts, ends, or starts again after a field the decoder reads
//! (an enum, an option).

use kiln_serde::ErrorCode;
use serde::{Deserialize, Serialize};

#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct V3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum Kind {
    Solid,
    Glass,
}

/// A percentage: its own `Deserialize` refuses a byte above 100 (a
/// visitor's error, which takes the field's offset).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(try_from = "u8", into = "u8")]
struct Pct(u8);

impl TryFrom<u8> for Pct {
    type Error = String;
    fn try_from(v: u8) -> Result<Self, String> {
        if v <= 100 {
            Ok(Pct(v))
        } else {
            Err(format!("{v} is above 100"))
        }
    }
}

impl From<Pct> for u8 {
    fn from(p: Pct) -> u8 {
        p.0
    }
}

/// Plain (nothing to drop), 4-aligned, within 24..=64 bytes: read through
/// the window. Fixed fields, a nested struct and tuple, a bool, a field
/// with its own check, then an enum and an option (the decoder's reads)
/// with fixed fields after them (the window started again).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Tri {
    a: V3,
    flag: bool,
    id: u32,
    small: (u8, i16),
    pct: Pct,
    kind: Kind,
    b: V3,
    opt: Option<u16>,
    c: V3,
    last: bool,
}

fn tri(i: u32) -> Tri {
    let f = i as f32;
    Tri {
        a: V3 {
            x: f,
            y: -f,
            z: 0.5,
        },
        flag: i % 2 == 0,
        id: i,
        small: (i as u8, -(i as i16)),
        pct: Pct((i % 101) as u8),
        kind: if i % 3 == 0 { Kind::Glass } else { Kind::Solid },
        b: V3 {
            x: 1.0,
            y: f,
            z: 2.0,
        },
        opt: if i % 4 == 0 { None } else { Some(i as u16) },
        c: V3 { x: f, y: f, z: f },
        last: i % 5 == 0,
    }
}

/// A value (as its bytes: a changed byte can make a NaN), or an error's
/// code and offset.
type Outcome = Result<Vec<u8>, (ErrorCode, Option<u64>)>;

fn outcome<T: Serialize>(r: kiln_serde::Result<T>) -> Outcome {
    r.map(|v| kiln_serde::to_vec(&v).unwrap())
        .map_err(|e| (e.code(), e.offset()))
}

fn slice<T: Serialize + for<'de> Deserialize<'de>>(bytes: &[u8]) -> Outcome {
    outcome(kiln_serde::from_slice::<T>(bytes))
}

fn stream<T: Serialize + for<'de> Deserialize<'de>>(bytes: &[u8]) -> Outcome {
    outcome(kiln_serde::from_reader::<_, T>(Stream(bytes)))
}

/// `from_reader` of a `&mut &[u8]`: decoded in place, with the window.
fn in_place<T: Serialize + for<'de> Deserialize<'de>>(bytes: &[u8]) -> Outcome {
    outcome(kiln_serde::from_reader::<_, T>(&mut &bytes[..]))
}

/// The test's premise: `Tri` is in the window's range of types.
#[test]
fn tri_is_plain_and_in_range() {
    let size = std::mem::size_of::<Tri>();
    assert!((24..=64).contains(&size), "{size}");
    assert!(std::mem::align_of::<Tri>() < 8);
    assert!(!std::mem::needs_drop::<Tri>());
}

#[test]
fn a_vec_of_plain_structs_round_trips() {
    let v: Vec<Tri> = (0..40).map(tri).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    assert!(bytes.len() > 4 * 256, "{}", bytes.len());
    assert_eq!(kiln_serde::from_slice::<Vec<Tri>>(&bytes).unwrap(), v);
    assert_eq!(
        kiln_serde::from_reader::<_, Vec<Tri>>(Stream(&bytes)).unwrap(),
        v
    );
}

/// Every cut: the slice (windows while 256 bytes remain) and the stream
/// (none) fail with the same code at the same offset.
#[test]
fn every_cut_fails_as_the_stream_does() {
    let v: Vec<Tri> = (0..12).map(tri).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    for cut in 0..bytes.len() {
        let s = slice::<Vec<Tri>>(&bytes[..cut]);
        assert_eq!(s, stream::<Vec<Tri>>(&bytes[..cut]), "cut {cut}");
        assert_eq!(s, in_place::<Vec<Tri>>(&bytes[..cut]), "cut {cut}");
        assert!(
            matches!(s, Err((ErrorCode::Eof, Some(_)))),
            "cut {cut}: {s:?}"
        );
    }
}

/// Three `V3`: 36 bytes, every field read through the window.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Flat {
    a: V3,
    b: V3,
    c: V3,
}

/// Every total size limit on the whole input: the slice's window never
/// lends a byte past the limit, so the slice fails as the stream does
/// (LIMIT at the same offset), for a type whose fields are all read
/// through the window and for one with fields the decoder reads.
#[test]
fn every_limit_fails_as_the_stream_does() {
    fn check<T: Serialize + for<'de> Deserialize<'de>>(v: &T) {
        let bytes = kiln_serde::to_vec(v).unwrap();
        assert!(bytes.len() > 2 * 256, "{}", bytes.len());
        for limit in 0..=bytes.len() {
            let opts = kiln_serde::Options::new().with_limit(limit as u64);
            let s = outcome(opts.from_slice::<T>(&bytes));
            let st = outcome(opts.from_reader::<_, T>(Stream(&bytes)));
            let ip = outcome(opts.from_reader::<_, T>(&bytes[..]));
            assert_eq!(s, st, "limit {limit}");
            assert_eq!(s, ip, "limit {limit}");
            if limit < bytes.len() {
                assert!(
                    matches!(s, Err((ErrorCode::Limit, Some(_)))),
                    "limit {limit}: {s:?}"
                );
            } else {
                assert!(s.is_ok(), "limit {limit}: {s:?}");
            }
        }
    }
    let f = |i: u32| V3 {
        x: i as f32,
        y: 1.0,
        z: -(i as f32),
    };
    check(
        &(0..20)
            .map(|i| Flat {
                a: f(i),
                b: f(i + 1),
                c: f(i + 2),
            })
            .collect::<Vec<_>>(),
    );
    check(&(0..12).map(tri).collect::<Vec<_>>());
}

/// Every byte set to 2, then to 0xff: a bad bool, option tag or variant
/// index, a percentage above 100, or another value. Same outcome both
/// ways, and every kind of fault is met.
#[test]
fn every_changed_byte_gives_the_streams_outcome() {
    let v: Vec<Tri> = (0..12).map(tri).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    let mut codes = std::collections::BTreeSet::new();
    for at in 0..bytes.len() {
        for b in [2u8, 0xff] {
            let mut changed = bytes.clone();
            changed[at] = b;
            let s = slice::<Vec<Tri>>(&changed);
            let st = stream::<Vec<Tri>>(&changed);
            assert_eq!(in_place::<Vec<Tri>>(&changed), st, "byte {at} set to {b}");
            match (&s, st) {
                // A stream cannot tell that bytes follow the value.
                (Err((ErrorCode::Trailing, Some(_))), Ok(_)) => {}
                (s, st) => assert_eq!(*s, st, "byte {at} set to {b}"),
            }
            if let Err((code, _)) = s {
                codes.insert(format!("{code:?}"));
            }
        }
    }
    for code in ["Type", "Message", "Eof", "Trailing"] {
        assert!(codes.contains(code), "{code} not met: {codes:?}");
    }
}

/// The offsets themselves, for two faults in the 3rd element (inside a
/// window): a bad bool at its byte; a percentage above 100 at the
/// struct's first byte (a type's own message takes the offset of the
/// value the decoder was reading, here the struct).
#[test]
fn faults_in_a_window_are_at_their_bytes() {
    let v: Vec<Tri> = (0..12).map(tri).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    let len = |i| kiln_serde::to_vec(&tri(i)).unwrap().len();
    // The count (4 bytes), two whole elements, then `a` (12 bytes).
    let flag = 4 + len(0) + len(1) + 12;
    let mut bad = bytes.clone();
    bad[flag] = 7;
    assert_eq!(
        slice::<Vec<Tri>>(&bad),
        Err((ErrorCode::Type, Some(flag as u64)))
    );
    // `flag`, `id` (4), `small` (1 + 2): then the percentage.
    let pct = flag + 1 + 4 + 3;
    let mut bad = bytes.clone();
    bad[pct] = 101;
    let start = 4 + len(0) + len(1);
    assert_eq!(
        slice::<Vec<Tri>>(&bad),
        Err((ErrorCode::Message, Some(start as u64)))
    );
    // A bad option tag (the decoder's read), and a bad bool after it
    // (the window started again after the option).
    let opt = pct + 1 + 4 + 12;
    let mut bad = bytes.clone();
    bad[opt] = 2;
    assert_eq!(
        slice::<Vec<Tri>>(&bad),
        Err((ErrorCode::Type, Some(opt as u64)))
    );
    let last = opt + 3 + 12;
    let mut bad = bytes.clone();
    bad[last] = 2;
    assert_eq!(
        slice::<Vec<Tri>>(&bad),
        Err((ErrorCode::Type, Some(last as u64)))
    );
}

/// One variant: nothing in memory, a 4-byte index on the wire.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
enum One {
    A,
}

/// In the window's range (28 bytes), but 412 bytes on the wire: the
/// window starts again after each `One` (the decoder's read) with fewer
/// bytes each time, and a cut inside `tail` is a short read of the window
/// itself.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Odd {
    head: [u32; 6],
    ones: [[One; 32]; 3],
    tail: u32,
}

#[test]
fn a_short_read_of_the_window_is_the_streams_eof() {
    let v = Odd {
        head: [1, 2, 3, 4, 5, 6],
        ones: [[One::A; 32]; 3],
        tail: 7,
    };
    assert!(std::mem::size_of::<Odd>() >= 24 && std::mem::align_of::<Odd>() < 8);
    let bytes = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(bytes.len(), 24 + 3 * 32 * 4 + 4);
    assert_eq!(kiln_serde::from_slice::<Odd>(&bytes).unwrap(), v);
    for cut in 0..bytes.len() {
        let s = slice::<Odd>(&bytes[..cut]);
        assert_eq!(s, stream::<Odd>(&bytes[..cut]), "cut {cut}");
        // The offset of the read that found too few bytes.
        let at = if cut < 24 {
            cut / 4 * 4
        } else if cut < 408 {
            (cut - 24) / 4 * 4 + 24
        } else {
            408
        };
        assert_eq!(s, Err((ErrorCode::Eof, Some(at as u64))), "cut {cut}");
    }
}

/// The same, with each `Odd` an element of a seq: an element opens on
/// its own window (`window::Element`, while 256 bytes remain), which
/// starts again after each `One` as a struct's does.
#[test]
fn a_seq_of_plain_structs_opens_each_on_its_own_window() {
    let odd = |i: u32| Odd {
        head: [i, 2, 3, 4, 5, 6],
        ones: [[One::A; 32]; 3],
        tail: 7 + i,
    };
    let v: Vec<Odd> = (0..3).map(odd).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(kiln_serde::from_slice::<Vec<Odd>>(&bytes).unwrap(), v);
    for cut in 0..bytes.len() {
        let s = slice::<Vec<Odd>>(&bytes[..cut]);
        assert_eq!(s, stream::<Vec<Odd>>(&bytes[..cut]), "cut {cut}");
    }
}

/// 288 bytes of fixed-width fields: wider than a window.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Wide {
    a: [u32; 32],
    b: [u32; 32],
    c: [u32; 8],
}

/// In the window's range itself (24 bytes), but read as a `Wide`: the
/// struct an element's `Deserialize` asks for is read through the window
/// only if it is in the range too, else by the decoder.
#[derive(Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(from = "Wide")]
struct Narrow {
    first: u32,
    last: u32,
    sums: [u32; 4],
}

impl From<Wide> for Narrow {
    fn from(w: Wide) -> Self {
        let sum = |s: &[u32]| s.iter().fold(0u32, |a, b| a.wrapping_add(*b));
        Narrow {
            first: w.a[0],
            last: w.c[7],
            sums: [sum(&w.a), sum(&w.b), sum(&w.c), 0],
        }
    }
}

#[test]
fn an_element_read_as_a_wider_struct_is_read_whole() {
    let wide = |i: u32| Wide {
        a: [i; 32],
        b: [2 * i; 32],
        c: [i, 0, 0, 0, 0, 0, 0, 3 * i],
    };
    let v: Vec<Wide> = (1..4).map(wide).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    let narrow: Vec<Narrow> = v.iter().map(|w| Narrow::from(*w)).collect();
    assert_eq!(
        kiln_serde::from_slice::<Vec<Narrow>>(&bytes).unwrap(),
        narrow
    );
    for cut in (0..bytes.len()).step_by(7) {
        let s = kiln_serde::from_slice::<Vec<Narrow>>(&bytes[..cut])
            .map_err(|e| (e.code(), e.offset()));
        let st = kiln_serde::from_reader::<_, Vec<Narrow>>(Stream(&bytes[..cut]))
            .map_err(|e| (e.code(), e.offset()));
        assert_eq!(s, st, "cut {cut}");
    }
}

/// A newtype and an array, each plain and in range, as seq elements:
/// the newtype is the decoder's read, the array (a tuple) the window's.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Wrapped(Tri);

#[test]
fn newtype_and_array_elements_read_as_the_stream_does() {
    let v: Vec<Wrapped> = (0..12).map(|i| Wrapped(tri(i))).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(kiln_serde::from_slice::<Vec<Wrapped>>(&bytes).unwrap(), v);
    for cut in 0..bytes.len() {
        let s = slice::<Vec<Wrapped>>(&bytes[..cut]);
        assert_eq!(s, stream::<Vec<Wrapped>>(&bytes[..cut]), "cut {cut}");
    }
    let v: Vec<[u32; 8]> = (0..20).map(|i| [i; 8]).collect();
    let bytes = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(kiln_serde::from_slice::<Vec<[u32; 8]>>(&bytes).unwrap(), v);
    for cut in 0..bytes.len() {
        let s = slice::<Vec<[u32; 8]>>(&bytes[..cut]);
        assert_eq!(s, stream::<Vec<[u32; 8]>>(&bytes[..cut]), "cut {cut}");
    }
}
