//! `to_slice` tests the room for a struct's or tuple's fields once, before
//! them, as a reused buffer does. In a slice that cannot grow, the last
//! structs' tests refuse: the nearest sequence element or map value that
//! holds the refusal is written again from where it started, a test per
//! write, and a refusal outside any (a struct at the top) has the whole
//! value written again so. Either way the bytes are `to_vec`'s, the
//! errors are its own, and each value's `Serialize` runs at most twice.

#[path = "support/counting.rs"]
mod counting;

#[path = "support/dup_map.rs"]
mod dup_map;

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};

use counting::Counting;
use dup_map::Dup;
use kiln_serde::error::ErrorDetail;
use kiln_serde::{ErrorCode, Options};
use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

#[derive(Serialize, Clone, Copy)]
struct Vector3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize, Clone, Copy)]
struct Triangle {
    v0: Vector3,
    v1: Vector3,
    v2: Vector3,
    normal: Vector3,
}

fn triangle(i: u32) -> Triangle {
    let v = |k: u32| Vector3 {
        x: (i + k) as f32,
        y: (i * 2 + k) as f32 * 0.5,
        z: -((i + k) as f32),
    };
    Triangle {
        v0: v(0),
        v1: v(1),
        v2: v(2),
        normal: v(3),
    }
}

/// Mixed widths, an option, a vector and an enum with data.
#[derive(Serialize, Clone)]
struct Record {
    id: u32,
    flag: bool,
    name: String,
    tag: Option<(u16, u8)>,
    shape: Shape,
    weights: Vec<u16>,
    point: Vector3,
}

#[derive(Serialize, Clone)]
enum Shape {
    Dot,
    Circle { r: f64, at: (i8, i8) },
    Poly(Vec<Vector3>),
}

fn record(i: u32) -> Record {
    Record {
        id: i,
        flag: i % 3 == 0,
        name: "r".repeat((i % 7) as usize),
        tag: (i % 2 == 0).then_some((i as u16, 7)),
        shape: match i % 3 {
            0 => Shape::Dot,
            1 => Shape::Circle {
                r: f64::from(i) * 0.25,
                at: (1, -1),
            },
            _ => Shape::Poly(vec![triangle(i).v0; (i % 4) as usize]),
        },
        weights: (0..i % 5).map(|k| k as u16).collect(),
        point: triangle(i).normal,
    }
}

/// `value` into slices from its exact size to 600 bytes past it, each
/// with a prefix of old bytes behind it that must stay: `to_vec`'s bytes,
/// and `Serialize` called at most twice; one byte short: LIMIT with the
/// size needed.
fn fits_like_to_vec<T: Serialize>(value: &T) {
    let calls = Cell::new(0);
    let want = kiln_serde::to_vec(value).unwrap();
    for slack in 0..600 {
        let mut buf = vec![0xEEu8; want.len() + slack + 3];
        let n =
            kiln_serde::to_slice(&mut buf[..want.len() + slack], &Counting(&calls, value)).unwrap();
        assert_eq!(n, want.len(), "slack {slack}");
        assert_eq!(&buf[..n], &want[..], "slack {slack}");
        assert!(
            buf[want.len() + slack..].iter().all(|&b| b == 0xEE),
            "slack {slack}: a byte past the slice"
        );
        assert!(calls.replace(0) <= 2, "slack {slack}");
    }
    if !want.is_empty() {
        let mut buf = vec![0u8; want.len() - 1];
        let e = kiln_serde::to_slice(&mut buf, value).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit);
        assert_eq!(e.detail(), ErrorDetail::BufferFull(want.len() as u64));
    }
}

/// `value` into slices of each length in `lens`: `to_vec`'s error, code
/// and offset, every time.
fn errs_like_to_vec<T: Serialize>(value: &T, lens: std::ops::Range<usize>) {
    let want = kiln_serde::to_vec(value).unwrap_err();
    for len in lens {
        let mut buf = vec![0u8; len];
        let e = kiln_serde::to_slice(&mut buf, value).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (want.code(), want.offset()),
            "len {len}"
        );
    }
}

#[test]
fn a_sequence_of_structs_ending_anywhere_near_the_slice_end() {
    let mesh: Vec<Triangle> = (0..40).map(triangle).collect();
    fits_like_to_vec(&mesh);
}

#[test]
fn records_with_options_enums_strings_and_vectors() {
    let records: Vec<Record> = (0..60).map(record).collect();
    fits_like_to_vec(&records);
    // Nested: elements of elements.
    let nested: Vec<Vec<Record>> = (0..6).map(|k| (0..k * 3).map(record).collect()).collect();
    fits_like_to_vec(&nested);
}

#[test]
fn map_values_and_a_struct_at_the_top() {
    let map: BTreeMap<String, Triangle> =
        (0..30).map(|i| (format!("k{i:02}"), triangle(i))).collect();
    fits_like_to_vec(&map);
    // Keys that arrive out of order (spec 2: sorted in the slice, after
    // the values a refusal had written again), and keys whose own room
    // test refuses (a tuple: outside any map value, so the enclosing
    // element, the whole map, is written again).
    let unsorted: HashMap<u32, Triangle> =
        (0..40).map(|i| (i * 7919 % 1000, triangle(i))).collect();
    fits_like_to_vec(&unsorted);
    let tuple_keys: Vec<HashMap<(u32, u16), u8>> = (0..40)
        .map(|i| {
            (0..3u32)
                .map(|k| (((i * 31 + k) % 97, k as u16), k as u8))
                .collect()
        })
        .collect();
    fits_like_to_vec(&tuple_keys);
    // No element holds these structs' room tests: the whole value again
    // (in a slice over 1 KiB; a smaller one is written with a test per
    // write from the start).
    fits_like_to_vec(&triangle(9));
    fits_like_to_vec(&("s".repeat(1500), triangle(1), record(4), triangle(2)));
    // Slices from 1,000 to 1,600 bytes: both kinds of pass.
    let mesh: Vec<Triangle> = (0..20).map(triangle).collect();
    assert_eq!(kiln_serde::to_vec(&mesh).unwrap().len(), 964);
    fits_like_to_vec(&(mesh, "tail"));
}

/// The first `Serialize` call of an element ends at its room test, before
/// any of its bytes past where it started (a variant index, a `Some`):
/// the element is written again, and only those near the end.
#[test]
fn only_the_elements_near_the_end_are_written_twice() {
    let calls = Cell::new(0);
    let mesh: Vec<Counting<'_, Triangle>> =
        (0..200).map(|i| Counting(&calls, triangle(i))).collect();
    let want = kiln_serde::to_vec(&mesh).unwrap();
    calls.set(0);
    let mut buf = vec![0u8; want.len()];
    assert_eq!(kiln_serde::to_slice(&mut buf, &mesh).unwrap(), want.len());
    assert_eq!(buf, want);
    // 200 elements; a triangle's test asks 64 bytes, a vector's 48: only
    // the last triangle (48 bytes left) is refused, once.
    assert_eq!(calls.get(), 201);
    // The last triangle's last vector asks 48 bytes 36 into it, 12 more
    // than it writes: with 35 bytes to spare it is refused, with 36 none.
    for (spare, want_calls) in [(35, 201), (36, 200)] {
        calls.set(0);
        let mut buf = vec![0u8; want.len() + spare];
        kiln_serde::to_slice(&mut buf, &mesh).unwrap();
        assert_eq!(calls.get(), want_calls, "spare {spare}");
    }
}

/// The levels a refused first try entered and left open (a struct
/// variant's, whose field's room test refused) are not open for its
/// retry, which starts at the element's own depth: a value at exactly the
/// depth cap still fits (spec 6).
#[test]
fn a_retry_starts_at_the_elements_depth() {
    #[derive(Serialize)]
    enum Wrap {
        Pair { t: (u32, u32), c: u8 },
    }
    let v: Vec<Wrap> = (0..200)
        .map(|i| Wrap::Pair {
            t: (i, i + 1),
            c: 7,
        })
        .collect();
    // The list, the variant: depth 2.
    let opts = Options::new().with_max_depth(2);
    let want = opts.to_vec(&v).unwrap();
    assert!(Options::new().with_max_depth(1).to_vec(&v).is_err());
    for slack in 0..80 {
        let mut buf = vec![0u8; want.len() + slack];
        let n = opts.to_slice(&mut buf, &v).unwrap();
        assert_eq!(&buf[..n], &want[..], "slack {slack}");
    }
}

/// A value's own error found on a retry is the error `to_vec` gives: code
/// and offset.
#[test]
fn an_error_inside_a_retried_element_is_the_values_own() {
    #[derive(Serialize)]
    struct Item {
        a: u64,
        m: Option<Dup>,
    }
    let v: Vec<Item> = (0..200)
        .map(|i| Item {
            a: i,
            m: (i == 199).then_some(Dup),
        })
        .collect();
    assert_eq!(kiln_serde::to_vec(&v).unwrap_err().code(), ErrorCode::Type);
    // The bytes up to the last item's map, and a few more: its room test
    // (32 bytes) refuses, and the retry meets the duplicate key.
    let before = 4 + 199 * 9 + 8 + 1 + 4;
    errs_like_to_vec(&v, before..before + 40);
}

/// A `Serialize` impl that goes on past an error its field returned (the
/// room test's refusal) still gets `to_vec`'s bytes: once full, nothing
/// more is stored, no retry starts from a mark taken then, and the whole
/// value is written again.
#[test]
fn an_impl_that_swallows_the_refusal() {
    struct Careless(Triangle, u32);
    impl Serialize for Careless {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("Careless", 2)?;
            let _ = st.serialize_field("t", &self.0);
            st.serialize_field("n", &self.1)?;
            st.end()
        }
    }
    let v: Vec<Careless> = (0..30).map(|i| Careless(triangle(i), i)).collect();
    fits_like_to_vec(&v);
}

/// A frame header's room test asks for the value's first fields too.
#[test]
fn a_framed_value_near_the_slice_end() {
    let mesh = MeshOf((0..200).map(|i| triangle(i).into()).collect());
    let want = kiln_serde::framed::to_vec(&mesh).unwrap();
    for slack in 0..600 {
        let mut buf = vec![0u8; want.len() + slack];
        let n = kiln_serde::framed::to_slice(&mut buf, &mesh).unwrap();
        assert_eq!(&buf[..n], &want[..], "slack {slack}");
    }
}

#[derive(Serialize, serde::Deserialize, Clone)]
struct MeshOf(Vec<Tri>);

#[derive(Serialize, serde::Deserialize, Clone, Copy)]
struct Tri {
    a: f32,
    b: f32,
    c: f32,
}

impl From<Triangle> for Tri {
    fn from(t: Triangle) -> Self {
        Tri {
            a: t.v0.x,
            b: t.v1.y,
            c: t.normal.z,
        }
    }
}

/// A sequence whose count is patched in at the end (its iterator's length
/// is not exact), of elements whose room test asks far more than they
/// write: a 16-byte array asks 256 bytes, so a refusal comes with up to
/// 15 elements after it, written with the refused one by one retry. The
/// count patched in counts them, and each is written once.
#[test]
fn elements_after_a_refusal_are_written_once_and_counted() {
    struct Filtered<'a, T>(&'a [T]);
    impl<T: Serialize> Serialize for Filtered<'_, T> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().filter(|_| true))
        }
    }
    let wide: Vec<[u8; 16]> = (0..100u8).map(|i| [i; 16]).collect();
    let want = kiln_serde::to_vec(&Filtered(&wide)).unwrap();
    assert_eq!(want, kiln_serde::to_vec(&wide).unwrap());
    assert_eq!(want[..4], 100u32.to_le_bytes());
    fits_like_to_vec(&Filtered(&wide));
    fits_like_to_vec(&wide);
    let records: Vec<Record> = (0..60).map(record).collect();
    fits_like_to_vec(&Filtered(&records));
    let nested: Vec<Vec<[u8; 16]>> = (0..8).map(|k| wide[..k * 5].to_vec()).collect();
    fits_like_to_vec(&Filtered(&nested));

    let calls = Cell::new(0);
    let counted: Vec<Counting<'_, [u8; 16]>> = wide.iter().map(|w| Counting(&calls, *w)).collect();
    let want = kiln_serde::to_vec(&counted).unwrap();
    for spare in [0, 100, 255, 256, 300] {
        calls.set(0);
        let mut buf = vec![0u8; want.len() + spare];
        let n = kiln_serde::to_slice(&mut buf, &Filtered(&counted)).unwrap();
        assert_eq!(&buf[..n], &want[..], "spare {spare}");
        // 256 bytes asked 16 into the last element: refused with 239 to
        // spare, not with 240; one element is written twice.
        let twice = u32::from(spare < 240);
        assert_eq!(calls.get(), 100 + twice, "spare {spare}");
    }
}

/// An error in an element after the refused one, written by the same
/// retry, is the error `to_vec` gives: code and offset.
#[test]
fn an_error_after_the_refused_element_is_the_values_own() {
    #[derive(Serialize)]
    struct Item {
        w: [u8; 16],
        m: Option<Dup>,
    }
    let v: Vec<Item> = (0..100u8)
        .map(|i| Item {
            w: [i; 16],
            m: (i == 99).then_some(Dup),
        })
        .collect();
    let want = kiln_serde::to_vec(&v).unwrap_err();
    assert_eq!(want.code(), ErrorCode::Type);
    // The bytes up to the last item's map, and from 300 fewer (the
    // refusal, 256 bytes asked, is up to 15 items before it; a slice too
    // short for the bytes before the map is counted through to the
    // value's own error too) to a few more.
    let before = 4 + 99 * 17 + 16 + 1 + 4;
    assert_eq!(want.offset(), Some(before as u64));
    errs_like_to_vec(&v, before - 300..before + 40);
}
