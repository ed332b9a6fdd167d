//! A float written into a slice (`to_slice`) or a `Vec`'s spare capacity
//! (`to_vec`, `to_extend`) that does not fit ends that pass at once; the
//! entry point then finds what the value needs with another pass. Every
//! outcome must be the one a pass that goes on counting gives: the same
//! bytes, `BufferFull` with the same size, the value's own error (code and
//! offset) before `BufferFull`, and `out` as it was after an error.

#[path = "support/dup_map.rs"]
mod dup_map;

#[path = "support/counting.rs"]
mod counting;

use std::cell::Cell;

use counting::Counting;
use dup_map::Dup;
use kiln_serde::error::ErrorDetail;
use kiln_serde::{ErrorCode, Options};
use serde::ser::{SerializeTuple, Serializer};
use serde::Serialize;

#[derive(Serialize, Clone, Copy)]
struct V3 {
    x: f32,
    y: f32,
    z: f32,
}

#[derive(Serialize)]
struct Shape {
    id: u16,
    corners: Vec<[V3; 2]>,
    name: String,
    weight: f64,
    tail: (u8, f32, bool),
}

fn shape() -> Shape {
    let v = |i: u8| V3 {
        x: f32::from(i),
        y: -f32::from(i) / 3.0,
        z: f32::NAN,
    };
    Shape {
        id: 9,
        corners: (0..5).map(|i| [v(i), v(i + 1)]).collect(),
        name: "corners".into(),
        weight: -0.0,
        tail: (7, 1.5, true),
    }
}

/// `to_slice` into every buffer shorter than the value: LIMIT at the
/// buffer's length with the size `to_vec` gives; into an exact one, its
/// bytes (and the bytes after it untouched).
#[test]
fn to_slice_into_every_size() {
    let want = kiln_serde::to_vec(&shape()).unwrap();
    for cap in 0..want.len() {
        let mut buf = vec![0xEE; cap];
        let e = kiln_serde::to_slice(&mut buf, &shape()).unwrap_err();
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (
                ErrorCode::Limit,
                Some(cap as u64),
                ErrorDetail::BufferFull(want.len() as u64)
            ),
            "cap {cap}"
        );
    }
    let mut buf = vec![0xEE; want.len() + 3];
    let n = kiln_serde::to_slice(&mut buf, &shape()).unwrap();
    assert_eq!((&buf[..n], &buf[n..]), (&want[..], &[0xEE; 3][..]));
}

/// `to_extend` into every amount of spare capacity (and none), after old
/// bytes: `to_vec`'s bytes after them, with at most two `Serialize` calls.
#[test]
fn to_extend_into_every_room() {
    let want = kiln_serde::to_vec(&shape()).unwrap();
    let calls = Cell::new(0);
    let counted = Counting(&calls, shape());
    for spare in 0..want.len() + 2 {
        let mut out = Vec::with_capacity(3 + spare);
        out.extend_from_slice(&[1, 2, 3]);
        kiln_serde::to_extend(&mut out, &counted).unwrap();
        assert_eq!((&out[..3], &out[3..]), (&[1u8, 2, 3][..], &want[..]));
        assert!(calls.replace(0) <= 2, "spare {spare}");
    }
}

/// The value's own error, after floats that did not fit: the error (code,
/// offset, detail) `to_vec` gives, never `BufferFull`; `to_extend` leaves
/// `out` as it was and counts the old bytes in the offset.
#[test]
fn the_values_own_error_comes_first() {
    let dup = (1.5f32, 2.5f64, Dup);
    let want = kiln_serde::to_vec(&dup).unwrap_err();
    assert_eq!((want.code(), want.offset()), (ErrorCode::Type, Some(16)));
    let deep = (1.5f32, Some(Some(Some(1u8))));
    let opts = Options::new().with_max_depth(2);
    let deep_want = opts.to_vec(&deep).unwrap_err();
    assert_eq!(deep_want.code(), ErrorCode::Limit);
    for cap in 0..4 {
        let mut buf = vec![0; cap];
        let e = kiln_serde::to_slice(&mut buf, &dup).unwrap_err();
        assert_eq!((e.code(), e.offset()), (want.code(), want.offset()));
        let e = opts.to_slice(&mut buf, &deep).unwrap_err();
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (deep_want.code(), deep_want.offset(), deep_want.detail())
        );
    }
    for spare in 0..4 {
        let mut out = Vec::with_capacity(2 + spare);
        out.extend_from_slice(&[8, 9]);
        let e = kiln_serde::to_extend(&mut out, &dup).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(16 + 2)));
        assert_eq!(out, [8, 9]);
        let e = opts.to_extend(&mut out, &deep).unwrap_err();
        assert_eq!(e.offset(), deep_want.offset().map(|o| o + 2));
        assert_eq!(out, [8, 9]);
    }
}

/// A `Serialize` impl that drops the error of a float it could not write
/// and goes on with smaller values, which would fit in the room left: the
/// slice stays full, so `to_slice` is still `BufferFull` (the size a
/// counting pass finds) and `to_extend` still writes `to_vec`'s bytes.
#[test]
fn an_impl_that_drops_the_error_does_not_get_bytes_out_of_order() {
    struct Swallows;
    impl Serialize for Swallows {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut t = s.serialize_tuple(4)?;
            t.serialize_element(&1u8)?;
            let _ = t.serialize_element(&2.5f64);
            t.serialize_element(&3u8)?;
            t.serialize_element(&4u8)?;
            t.end()
        }
    }
    let want = kiln_serde::to_vec(&Swallows).unwrap();
    assert_eq!(want, [1, 0, 0, 0, 0, 0, 0, 4, 0x40, 3, 4]);
    for cap in 1..want.len() {
        let mut buf = vec![0; cap];
        let e = kiln_serde::to_slice(&mut buf, &Swallows).unwrap_err();
        assert_eq!(
            e.detail(),
            ErrorDetail::BufferFull(want.len() as u64),
            "cap {cap}"
        );
        let mut out = Vec::with_capacity(cap);
        kiln_serde::to_extend(&mut out, &Swallows).unwrap();
        assert_eq!(out, want, "spare {cap}");
    }
}

/// The frame's header counts in what a framed value needs.
#[test]
fn a_framed_float_that_does_not_fit() {
    #[derive(Serialize, serde::Deserialize)]
    struct P {
        x: f32,
        y: f64,
    }
    let want = kiln_serde::framed::to_vec(&P { x: 1.0, y: 2.0 }).unwrap();
    assert_eq!(want.len(), 16 + 12);
    for cap in [0, 15, 16, 19, 20, 27] {
        let mut buf = vec![0; cap];
        let e = kiln_serde::framed::to_slice(&mut buf, &P { x: 1.0, y: 2.0 }).unwrap_err();
        assert_eq!(e.detail(), ErrorDetail::BufferFull(28), "cap {cap}");
    }
}

/// A size limit the value passes: LIMIT as `to_vec` under the same
/// options gives it (no detail), never `BufferFull`, into any buffer too
/// small; into one large enough, the same error.
#[test]
fn the_size_limit_comes_before_buffer_full() {
    let opts = Options::new().with_limit(20);
    let want = opts.to_vec(&shape()).unwrap_err();
    assert_eq!(
        (want.code(), want.detail()),
        (ErrorCode::Limit, ErrorDetail::None)
    );
    for cap in [0, 3, 19, 21, 60, 400] {
        let mut buf = vec![0; cap];
        let e = opts.to_slice(&mut buf, &shape()).unwrap_err();
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (want.code(), want.offset(), want.detail()),
            "cap {cap}"
        );
        let mut out = Vec::with_capacity(1 + cap);
        out.push(5);
        let e = opts.to_extend(&mut out, &shape()).unwrap_err();
        assert_eq!(
            (e.code(), e.detail()),
            (want.code(), want.detail()),
            "spare {cap}"
        );
        assert_eq!(out, [5]);
    }
}

/// A `Serialize` impl whose first call writes 12 bytes (a count and 8)
/// and every later one `4 + small`.
struct Shrinks {
    calls: Cell<u32>,
    small: usize,
}
impl Serialize for Shrinks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let first = self.calls.get() == 0;
        self.calls.set(self.calls.get() + 1);
        s.serialize_bytes(&vec![7; if first { 8 } else { self.small }])
    }
}

/// What a value that did not fit needs is more than the room it did not
/// fit in, whatever a later call of its `Serialize` writes: `to_slice`'s
/// `BufferFull` is at least the buffer's length plus one, and `to_extend`'s
/// second pass that writes no more than the spare capacity held is MESSAGE
/// (the first call needed more), `out` as it was.
#[test]
fn a_value_that_did_not_fit_needs_more_than_the_room() {
    for cap in 4..12 {
        let shrinks = Shrinks {
            calls: Cell::new(0),
            small: 0,
        };
        let mut buf = vec![0; cap];
        let e = kiln_serde::to_slice(&mut buf, &shrinks).unwrap_err();
        assert_eq!(
            e.detail(),
            ErrorDetail::BufferFull(cap as u64 + 1),
            "cap {cap}"
        );
        // The second call writes exactly the spare capacity (4 + small).
        let mut out = Vec::with_capacity(cap);
        let spare = out.capacity();
        let shrinks = Shrinks {
            calls: Cell::new(0),
            small: spare - 4,
        };
        let e = kiln_serde::to_extend(&mut out, &shrinks).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Message, "spare {spare}");
        assert!(out.is_empty());
    }
}
