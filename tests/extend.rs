//! `to_extend` (and `framed::to_extend`, `Schema::to_extend`) into a reused
//! buffer: the bytes go into the `Vec`'s spare capacity when it has any,
//! with a second, writing pass when the first finds too little room; into
//! the growing `Vec` in one pass when it has none. Every case gives
//! `to_vec`'s bytes after the old contents, and errors leave `out` as it
//! was.

#[path = "support/dup_map.rs"]
mod dup_map;

use std::cell::Cell;
use std::collections::BTreeMap;

use dup_map::Dup;
use kiln_serde::ErrorCode;
use serde::Serialize;

#[derive(Serialize)]
struct Record {
    id: u32,
    name: String,
    tags: BTreeMap<String, u16>,
    data: Vec<u8>,
    scores: Vec<f32>,
    more: Unknown,
}

/// A sequence of unknown length (its count is patched in at the end).
struct Unknown(u8);
impl Serialize for Unknown {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.0).filter(|x| x % 3 != 0))
    }
}

/// For the frame (whose hash needs `Deserialize` too).
#[derive(Serialize, serde::Deserialize)]
struct Plain {
    name: String,
    tags: BTreeMap<String, u16>,
    scores: Vec<f32>,
}

fn record() -> Record {
    Record {
        id: 7,
        name: "kiln".repeat(5),
        tags: [("zeta".into(), 1), ("alpha".into(), 2), ("mid".into(), 3)].into(),
        data: (0..40).collect(),
        scores: vec![1.5, -0.0, f32::NAN],
        more: Unknown(20),
    }
}

/// Buffers holding `prefix` with every kind of room for `need` more bytes:
/// none, one byte, one short, exactly, plenty.
fn buffers(prefix: &[u8], need: usize) -> Vec<Vec<u8>> {
    [None, Some(1), Some(need - 1), Some(need), Some(need + 100)]
        .into_iter()
        .map(|spare| {
            let mut v = match spare {
                None => prefix.to_vec(),
                Some(n) => Vec::with_capacity(prefix.len() + n),
            };
            if spare.is_some() {
                v.extend_from_slice(prefix);
            }
            assert!(v.capacity() - v.len() >= spare.unwrap_or(0));
            v
        })
        .collect()
}

#[test]
fn every_room_gives_the_to_vec_bytes_after_the_old_ones() {
    let v = record();
    let want = kiln_serde::to_vec(&v).unwrap();
    let p = Plain {
        name: "frame".into(),
        tags: [("b".into(), 1), ("a".into(), 2)].into(),
        scores: vec![0.25; 9],
    };
    let framed_want = kiln_serde::framed::to_vec(&p).unwrap();
    for prefix in [&[][..], &[0xAA, 0xBB, 0xCC][..]] {
        for mut out in buffers(prefix, want.len()) {
            kiln_serde::to_extend(&mut out, &v).unwrap();
            assert_eq!(out[..prefix.len()], prefix[..]);
            assert_eq!(out[prefix.len()..], want[..]);
        }
        for mut out in buffers(prefix, framed_want.len()) {
            kiln_serde::framed::to_extend(&mut out, &p).unwrap();
            assert_eq!(out[..prefix.len()], prefix[..]);
            assert_eq!(out[prefix.len()..], framed_want[..]);
        }
    }
}

#[test]
fn errors_count_the_old_bytes_and_leave_them_alone() {
    // A duplicate map key: TYPE at the map's entries, plus the old bytes.
    let dup = (5u8, Dup);
    let want = kiln_serde::to_vec(&dup).unwrap_err();
    assert_eq!((want.code(), want.offset()), (ErrorCode::Type, Some(5)));
    // Too deep: LIMIT at the level's offset, plus the old bytes.
    let deep = (9u32, Some(Some(Some(vec![1u8]))));
    let opts = kiln_serde::Options::new().with_max_depth(3);
    let deep_want = opts.to_vec(&deep).unwrap_err();
    assert_eq!(deep_want.offset(), Some(7));
    let prefix = [1u8, 2, 3, 4, 5];
    // (`buffers` anew for each: a clone would drop the spare capacity.)
    for mut o in buffers(&prefix, 40) {
        let e = kiln_serde::to_extend(&mut o, &dup).unwrap_err();
        assert_eq!((e.code(), e.offset()), (ErrorCode::Type, Some(5 + 5)));
        assert_eq!(o, prefix);
    }
    for mut o in buffers(&prefix, 40) {
        let e = opts.to_extend(&mut o, &deep).unwrap_err();
        assert_eq!((e.code(), e.offset()), (deep_want.code(), Some(7 + 5)));
        assert_eq!(e.detail(), deep_want.detail());
        assert_eq!(o, prefix);
    }
}

/// Counts its calls; writes `len` bytes as a byte sequence.
struct Counted<'a> {
    calls: &'a Cell<u32>,
    len: usize,
}
impl Serialize for Counted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.calls.set(self.calls.get() + 1);
        s.collect_seq(std::iter::repeat(7u8).take(self.len))
    }
}

/// `to_vec` calls `Serialize` twice (a counting pass sizes the buffer);
/// `to_writer` once; `to_extend` once unless its buffer has some spare
/// capacity but not enough (then twice), as their docs say.
#[test]
fn serialize_calls_per_entry_point() {
    let calls = Cell::new(0);
    let v = Counted {
        calls: &calls,
        len: 10,
    };
    let want = kiln_serde::to_vec(&v).unwrap();
    assert_eq!(want.len(), 14);
    assert_eq!(calls.replace(0), 2);
    let mut w = Vec::new();
    kiln_serde::to_writer(&mut w, &v).unwrap();
    assert_eq!(calls.replace(0), 1);
    for (spare, n) in [
        (None, 1),
        (Some(1), 2),
        (Some(13), 2),
        (Some(14), 1),
        (Some(99), 1),
    ] {
        let mut out = match spare {
            None => vec![0xEE],
            Some(s) => {
                let mut o = Vec::with_capacity(1 + s);
                o.push(0xEE);
                o
            }
        };
        kiln_serde::to_extend(&mut out, &v).unwrap();
        assert_eq!((calls.replace(0), &out[1..]), (n, &want[..]), "{spare:?}");
    }
}

/// Writes its bytes once; on later calls, an empty sequence.
struct Drains(Cell<Option<Vec<u8>>>);
impl Serialize for Drains {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.take().unwrap_or_default())
    }
}

#[test]
fn a_second_pass_of_another_size_is_an_error_not_wrong_bytes() {
    let drains = || Drains(Cell::new(Some(vec![1, 2, 3, 4, 5, 6])));
    let want = [6, 0, 0, 0, 1, 2, 3, 4, 5, 6];
    // One pass: into a buffer without spare capacity, or with room.
    let mut out = vec![9];
    kiln_serde::to_extend(&mut out, &drains()).unwrap();
    assert_eq!(out[1..], want);
    let mut out = Vec::with_capacity(64);
    kiln_serde::to_extend(&mut out, &drains()).unwrap();
    assert_eq!(out, want);
    // Some room but too little: the second pass writes 4 bytes where the
    // first needed 10, and that is an error; `out` is as it was.
    let mut out = Vec::with_capacity(8);
    out.push(9);
    let e = kiln_serde::to_extend(&mut out, &drains()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Message);
    assert!(e.to_string().contains("to_writer"), "{e}");
    assert_eq!(out, [9]);
}

/// Writes one more byte on every call.
struct Grows(Cell<usize>);
impl Serialize for Grows {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.set(self.0.get() + 1);
        s.collect_seq(std::iter::repeat(1u8).take(self.0.get()))
    }
}

#[test]
fn to_vec_after_a_short_count_writes_its_last_calls_bytes() {
    // The counting pass sees one element, the write two (does not fit in
    // the room counted), and a third pass grows the `Vec`: the bytes are
    // that call's.
    let g = Grows(Cell::new(0));
    assert_eq!(kiln_serde::to_vec(&g).unwrap(), [3, 0, 0, 0, 1, 1, 1]);
    assert_eq!(g.0.get(), 3);
    // to_extend into some room but too little: the first call's 5 bytes
    // do not fit, and the second, which writes more, goes into the grown
    // `Vec`: its bytes, as `to_vec`'s last call's.
    let g = Grows(Cell::new(0));
    let mut out = Vec::with_capacity(2);
    kiln_serde::to_extend(&mut out, &g).unwrap();
    assert_eq!((g.0.get(), &out[..]), (2, &[2, 0, 0, 0, 1, 1][..]));
}

/// A writer that is not a `Vec` (the staged path): `Vec`'s bytes, one
/// `write` at a time.
struct NotAVec(Vec<u8>);
impl std::io::Write for NotAVec {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `to_writer` into a `&mut Vec<u8>` appends in one pass (no staging): the
/// same bytes as into any other writer, one `Serialize` call at every
/// room, error offsets from the value's start (not the `Vec`'s), a limit
/// on the value's bytes only, and the `Vec` as it was on error. The same
/// through `Options`, `framed`, and bincode's `serialize_into`.
#[test]
fn to_writer_into_a_vec_is_to_writer() {
    let v = record();
    let want = kiln_serde::to_vec(&v).unwrap();
    let prefix = [0xAAu8, 0xBB, 0xCC];
    let calls = Cell::new(0);
    let counted = Counted {
        calls: &calls,
        len: 10,
    };
    for mut out in buffers(&prefix, want.len()) {
        let mut room = out.clone();
        room.reserve(out.capacity() - out.len());
        kiln_serde::to_writer(&mut out, &v).unwrap();
        assert_eq!((&out[..3], &out[3..]), (&prefix[..], &want[..]));
        kiln_serde::bincode::serialize_into(&mut room, &v).unwrap();
        assert_eq!(room, out);
    }
    for mut out in buffers(&prefix, 14) {
        kiln_serde::to_writer(&mut out, &counted).unwrap();
        assert_eq!((calls.replace(0), out.len()), (1, 3 + 14));
    }
    let p = Plain {
        name: "frame".into(),
        tags: [("b".into(), 1), ("a".into(), 2)].into(),
        scores: vec![0.25; 9],
    };
    let mut out = prefix.to_vec();
    kiln_serde::framed::to_writer(&mut out, &p).unwrap();
    assert_eq!(out[3..], kiln_serde::framed::to_vec(&p).unwrap()[..]);

    // Errors: the offsets a writer that is not a `Vec` gets, `out` as it was.
    let dup = (5u8, Dup);
    let deep = (9u32, Some(Some(Some(vec![1u8]))));
    let opts = kiln_serde::Options::new().with_max_depth(3);
    let mut other = NotAVec(Vec::new());
    let want_dup = kiln_serde::to_writer(&mut other, &dup).unwrap_err();
    let want_deep = opts.to_writer(&mut other, &deep).unwrap_err();
    assert_eq!((want_dup.offset(), want_deep.offset()), (Some(5), Some(7)));
    for mut out in buffers(&prefix, 40) {
        let e = kiln_serde::to_writer(&mut out, &dup).unwrap_err();
        assert_eq!((e.code(), e.offset()), (want_dup.code(), want_dup.offset()));
        let e = opts.to_writer(&mut out, &deep).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (want_deep.code(), want_deep.offset())
        );
        assert_eq!(e.detail(), want_deep.detail());
        assert_eq!(out, prefix);
    }
    // A limit counts the value's bytes, not the old ones.
    let fits = kiln_serde::Options::new().with_limit(want.len() as u64);
    let short = kiln_serde::Options::new().with_limit(want.len() as u64 - 1);
    for mut out in buffers(&prefix, want.len()) {
        let e = short.to_writer(&mut out, &v).unwrap_err();
        assert_eq!((e.code(), &out[..]), (ErrorCode::Limit, &prefix[..]));
        fits.to_writer(&mut out, &v).unwrap();
        assert_eq!(out[3..], want[..]);
    }
}

/// Calls `to_writer` from inside its own `Serialize` (a value that embeds
/// another value's encoding as bytes).
struct Nested(u32);
impl Serialize for Nested {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut inner = NotAVec(Vec::new());
        kiln_serde::to_writer(&mut inner, &(self.0, "inner")).map_err(serde::ser::Error::custom)?;
        s.serialize_bytes(&inner.0)
    }
}

/// The staged path (a writer that is not a `Vec`) keeps its buffer between
/// calls on a thread: every call still writes exactly its value's bytes,
/// after small and large values, an error, and a call from inside a
/// `Serialize` impl.
#[test]
fn to_writer_staging_is_reused_without_leaking_bytes() {
    let small = (7u8, "small");
    let large: Vec<u32> = (0..5_000).collect(); // 20 KB: over the kept size
    let nested = Nested(9);
    let mut order: Vec<Vec<u8>> = Vec::new();
    for round in 0..3 {
        let mut w = NotAVec(Vec::new());
        kiln_serde::to_writer(&mut w, &small).unwrap();
        order.push(std::mem::take(&mut w.0));
        assert!(kiln_serde::to_writer(&mut w, &(1u8, Dup)).is_err());
        w.0.clear();
        kiln_serde::to_writer(&mut w, &large).unwrap();
        order.push(std::mem::take(&mut w.0));
        kiln_serde::to_writer(&mut w, &nested).unwrap();
        order.push(std::mem::take(&mut w.0));
        kiln_serde::to_writer(&mut w, &small).unwrap();
        order.push(std::mem::take(&mut w.0));
        let want = [
            kiln_serde::to_vec(&small).unwrap(),
            kiln_serde::to_vec(&large).unwrap(),
            kiln_serde::to_vec(&nested).unwrap(),
            kiln_serde::to_vec(&small).unwrap(),
        ];
        assert_eq!(order[order.len() - 4..], want[..], "round {round}");
    }
    let inner = kiln_serde::to_vec(&(9u32, "inner")).unwrap();
    assert!(order[2].ends_with(&inner));
}

/// Writes a field, then panics.
struct Panics;
impl Serialize for Panics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&0xdead_beef_u32)?;
        panic!("a Serialize impl that panics halfway");
    }
}

/// A call that unwound out of `to_writer` (its `Serialize` panicked after
/// writing) leaves nothing behind for the thread's next call.
#[test]
fn to_writer_after_a_panicking_serialize_writes_only_its_value() {
    let small = (7u8, "small");
    let mut w = NotAVec(Vec::new());
    kiln_serde::to_writer(&mut w, &small).unwrap();
    w.0.clear();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut sink = NotAVec(Vec::new());
        let _ = kiln_serde::to_writer(&mut sink, &Panics);
    }));
    assert!(r.is_err());
    kiln_serde::to_writer(&mut w, &small).unwrap();
    assert_eq!(w.0, kiln_serde::to_vec(&small).unwrap());
}
