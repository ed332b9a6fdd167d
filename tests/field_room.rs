//! `to_extend` into a reused buffer tests the room for a struct's or
//! tuple's fields once, before them (16 bytes a field, the widest
//! fixed-width write; up to 32 fields), so that their fixed-width writes
//! need no test of their own. When the spare capacity holds the value but
//! not that room, the first pass ends there, and a second, into the
//! growing `Vec`, writes the same bytes; room past what was asked is
//! reserved, so the next call into the cleared buffer fits at once. A
//! growing `Vec` (`serialize_into`) grows at the room test instead.

#[path = "support/dup_map.rs"]
mod dup_map;

#[path = "support/counting.rs"]
mod counting;

use std::cell::Cell;

use counting::Counting;
use dup_map::Dup;
use kiln_serde::Options;
use serde::ser::{SerializeStruct, SerializeTuple, Serializer};
use serde::Serialize;

/// 8 one-byte fields: 8 bytes, for which the room test asks 128.
#[derive(Serialize, Clone, Copy)]
struct Flags {
    a: u8,
    b: u8,
    c: u8,
    d: u8,
    e: u8,
    f: u8,
    g: u8,
    h: bool,
}

fn flags(i: u8) -> Flags {
    Flags {
        a: i,
        b: i + 1,
        c: 2,
        d: 3,
        e: 4,
        f: 5,
        g: 6,
        h: true,
    }
}

/// Spare capacity for the value but not the room asked for its fields:
/// `to_vec`'s bytes after the old ones, in two calls; the buffer then has
/// that room, and the next value of the same shape goes in one call.
#[test]
fn a_buffer_that_holds_the_value_but_not_the_room_asked() {
    let calls = Cell::new(0);
    let want = kiln_serde::to_vec(&flags(1)).unwrap();
    assert_eq!(want, [1, 2, 2, 3, 4, 5, 6, 1]);
    for spare in 8..130 {
        let mut out = Vec::with_capacity(2 + spare);
        out.extend_from_slice(&[0xAA, 0xBB]);
        let room = out.capacity() - out.len();
        kiln_serde::to_extend(&mut out, &Counting(&calls, flags(1))).unwrap();
        assert_eq!((&out[..2], &out[2..]), (&[0xAA, 0xBB][..], &want[..]));
        assert_eq!(
            calls.replace(0),
            if room < 128 { 2 } else { 1 },
            "spare {room}"
        );
        // The room asked for is kept: cleared and reused, one call.
        assert!(out.capacity() >= 128, "spare {room}");
        out.clear();
        kiln_serde::to_extend(&mut out, &Counting(&calls, flags(7))).unwrap();
        assert_eq!(out, kiln_serde::to_vec(&flags(7)).unwrap());
        assert_eq!(calls.replace(0), 1, "spare {room}");
    }
}

/// An entry point that appends to a `Vec`.
type Encode = fn(&mut Vec<u8>, &Counting<'_, Flags>);

/// Into a growing `Vec` (`bincode::serialize_into(&mut Vec)`, so
/// `to_writer`; `to_extend` into a `Vec` without spare capacity) the room
/// test grows the `Vec` instead of ending a pass: one call, the same
/// bytes, and the room asked for (128 bytes for `Flags`) is there.
#[test]
fn a_growing_vec_makes_the_room_asked_in_one_call() {
    let calls = Cell::new(0);
    let want = kiln_serde::to_vec(&flags(3)).unwrap();
    for pre in 0..70usize {
        let old: Vec<u8> = (0..pre).map(|i| i as u8).collect();
        let entries: [(&str, Encode); 2] = [
            ("serialize_into", |out, v| {
                kiln_serde::bincode::serialize_into(out, v).unwrap()
            }),
            ("to_extend", |out, v| kiln_serde::to_extend(out, v).unwrap()),
        ];
        for (name, encode) in entries {
            let mut out = old.clone();
            out.shrink_to_fit();
            assert_eq!(out.capacity(), out.len());
            encode(&mut out, &Counting(&calls, flags(3)));
            assert_eq!(
                (&out[..pre], &out[pre..]),
                (&old[..], &want[..]),
                "{name} {pre}"
            );
            assert_eq!(calls.replace(0), 1, "{name} {pre}");
            assert!(
                out.capacity() >= pre + 128,
                "{name} {pre}: {}",
                out.capacity()
            );
            if pre == 0 {
                // README "What differs" 10: 128 bytes, where growing at
                // each write leaves 8 (std's smallest `Vec<u8>`).
                assert_eq!(out.capacity(), 128, "{name}");
            }
        }
    }
}

/// Any other writer gets the bytes through a staging buffer drained at
/// every 64 KiB, which a struct's room test grows instead: structs on
/// both sides of each drain, and after a growth inside one, give
/// `to_slice`'s bytes (a pass without room tests), in several writes.
#[test]
fn structs_across_the_staging_buffers_drains() {
    struct Chunks(Vec<u8>, usize);
    impl std::io::Write for Chunks {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.extend_from_slice(b);
            self.1 += 1;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // 8-byte structs (128 bytes of room asked each), 3 bytes of count
    // skew per step so the drains fall at every offset in a struct.
    for skew in 0..4usize {
        let value: (Vec<u8>, Vec<Flags>) = (
            vec![7; skew * 3],
            (0..30_000u32).map(|i| flags((i % 200) as u8)).collect(),
        );
        let mut want = vec![0u8; kiln_serde::serialized_size(&value).unwrap() as usize];
        assert_eq!(kiln_serde::to_slice(&mut want, &value).unwrap(), want.len());
        assert!(want.len() > 3 * 65536);
        let mut w = Chunks(Vec::new(), 0);
        kiln_serde::to_writer(&mut w, &value).unwrap();
        assert_eq!(w.0, want, "skew {skew}");
        assert!(w.1 > 3, "skew {skew}: {} writes", w.1);
    }
}

/// A sequence of small structs whose last ones fall where the room test
/// asks more than is left: the same bytes as `to_vec`, into every spare
/// capacity, with at most two calls.
#[test]
fn structs_near_the_end_of_the_spare_capacity() {
    let value: Vec<(Flags, u16)> = (0..20).map(|i| (flags(i), u16::from(i) * 300)).collect();
    let want = kiln_serde::to_vec(&value).unwrap();
    let calls = Cell::new(0);
    for spare in 0..want.len() + 140 {
        let mut out = Vec::with_capacity(spare);
        let room = out.capacity();
        kiln_serde::to_extend(&mut out, &Counting(&calls, &value)).unwrap();
        assert_eq!(out, want, "spare {room}");
        assert!(calls.replace(0) <= 2, "spare {room}");
    }
}

/// First call: a `u64`, then a struct of 4 one-byte fields (the room test
/// asks 64 bytes); every later call: `later` bytes of `u8`s.
struct Shrinks {
    calls: Cell<u32>,
    later: usize,
}
impl Serialize for Shrinks {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let first = self.calls.get() == 0;
        self.calls.set(self.calls.get() + 1);
        if first {
            let mut t = s.serialize_tuple(2)?;
            t.serialize_element(&u64::MAX)?;
            t.serialize_element(&Four)?;
            t.end()
        } else {
            let mut t = s.serialize_tuple(self.later)?;
            for _ in 0..self.later {
                t.serialize_element(&9u8)?;
            }
            t.end()
        }
    }
}

struct Four;
impl Serialize for Four {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Four", 4)?;
        for name in ["a", "b", "c", "d"] {
            st.serialize_field(name, &1u8)?;
        }
        st.end()
    }
}

/// The first pass ended at the room test after 8 bytes, which says
/// only that the value may not fit: the second pass's bytes are taken
/// whatever their length (after a write that did not fit, one that writes
/// no more than the spare capacity held is MESSAGE: `slice_stop.rs`).
#[test]
fn a_second_pass_after_a_room_test_is_taken_as_it_is() {
    for later in 0..12 {
        let mut out = Vec::with_capacity(48);
        out.push(5);
        let spare = out.capacity() - out.len();
        // Room for the tuple's (32 bytes asked), not for the struct's
        // after the `u64` (8 + 64).
        assert!((32..8 + 64).contains(&spare), "spare {spare}");
        let value = Shrinks {
            calls: Cell::new(0),
            later,
        };
        kiln_serde::to_extend(&mut out, &value).unwrap();
        assert_eq!(value.calls.get(), 2);
        assert_eq!((out[0], &out[1..]), (5, &vec![9; later][..]));
    }
}

/// A framed value: the header's room test asks for the value's first
/// fields too (16 + 512 bytes). Into a reused buffer cleared between
/// calls, a call takes two passes at most, and from the third on one (the
/// first, into a buffer without spare capacity, grows it as it writes,
/// without the room asked for).
#[test]
fn a_framed_value_into_a_cleared_buffer_takes_one_call_after_the_second() {
    let schema = kiln_serde::Schema::<Counting<'_, Flags>>::from_text("struct Flags{}");
    let calls = Cell::new(0);
    for cap in [0, 1, 16, 24, 100, 200, 527, 528, 600] {
        let mut out = Vec::with_capacity(cap);
        for i in 0..4 {
            out.clear();
            schema
                .to_extend(&mut out, &Counting(&calls, flags(i)))
                .unwrap();
            assert_eq!(&out[16..], &kiln_serde::to_vec(&flags(i)).unwrap()[..]);
            let n = calls.replace(0);
            assert!(n <= 2, "capacity {cap}, call {i}");
            if i > 1 {
                assert_eq!(n, 1, "capacity {cap}, call {i}");
            }
        }
    }
}

/// A value whose own error comes after structs: into every spare
/// capacity, whether a room test refused the first pass or not, the error
/// `to_vec` gives (code, offset counting the old bytes, detail), `out` as
/// it was.
#[test]
fn the_values_own_error_after_a_room_test() {
    let dup = ([flags(1), flags(2)], (7u16, 1.5f64), Dup);
    let want = kiln_serde::to_vec(&dup).unwrap_err();
    // Past the structs and the tuple (2 * 8 + 2 + 8 bytes).
    assert!(want.offset() >= Some(26), "{want}");
    let deep = ((flags(3), 2u8), Some(Some(Some(flags(4)))));
    let opts = Options::new().with_max_depth(2);
    let deep_want = opts.to_vec(&deep).unwrap_err();
    for spare in 0..200 {
        let mut out = Vec::with_capacity(3 + spare);
        out.extend_from_slice(&[1, 2, 3]);
        let e = kiln_serde::to_extend(&mut out, &dup).unwrap_err();
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (want.code(), want.offset().map(|o| o + 3), want.detail()),
            "spare {spare}"
        );
        assert_eq!(out, [1, 2, 3]);
        let e = opts.to_extend(&mut out, &deep).unwrap_err();
        assert_eq!(
            (e.code(), e.offset(), e.detail()),
            (
                deep_want.code(),
                deep_want.offset().map(|o| o + 3),
                deep_want.detail()
            ),
            "spare {spare}"
        );
        assert_eq!(out, [1, 2, 3]);
    }
}
