//! `to_vec` of a value over 64 KiB allocates 512 bytes more than its
//! counted size (`FIELDS_ROOM`), and writes it as `to_extend` writes into
//! a reused buffer: one room test for a struct's or tuple's fields (up to
//! 32 of them, 16 bytes each). That room is past every such test when the
//! count was right, so no test refuses: the value's `Serialize` runs twice
//! (the count, the write), the bytes are `to_slice`'s, and the spare
//! capacity is exactly 512. Smaller values keep an exact buffer.

#[path = "support/dup_map.rs"]
mod dup_map;

#[path = "support/counting.rs"]
mod counting;

use std::cell::Cell;

use counting::Counting;
use dup_map::Dup;
use kiln_serde::Options;
use serde::{Serialize, Serializer};

/// Above this, `to_vec`'s buffer has room past the value.
const SMALL: usize = 64 * 1024;
/// The room past the value: the most one room test asks for.
const ROOM: usize = 512;

type Rows = (Vec<[u16; 32]>, [(); 32]);

/// `n` rows of 32 `u16` (a 32-element tuple: its room test asks 512
/// bytes, eight times the 64 it writes), then a tuple of 32 units, which
/// writes nothing and asks 512 bytes at the value's very end.
fn rows(n: usize) -> Rows {
    let rows = (0..n)
        .map(|i| std::array::from_fn(|j| (i * 32 + j) as u16))
        .collect();
    (rows, [(); 32])
}

/// The reference bytes: `to_slice` into a buffer of exactly their size,
/// a pass with a test per write and no room tests (since session 44 every
/// growing `Vec`, `to_writer`'s included, has them too).
fn by_slice<T: Serialize>(value: &T) -> Vec<u8> {
    let mut buf = vec![0u8; kiln_serde::serialized_size(value).unwrap() as usize];
    let n = kiln_serde::to_slice(&mut buf, value).unwrap();
    assert_eq!(n, buf.len());
    buf
}

#[test]
fn a_large_value_is_written_once_after_the_count_with_512_bytes_spare() {
    let calls = Cell::new(0);
    let schema = kiln_serde::Schema::<Counting<'_, &Rows>>::from_text("rows");
    // 4 + 64 * n bytes: from 63,940 to 66,564, across 64 KiB.
    for n in 999..1040 {
        let value = rows(n);
        let want = by_slice(&value);
        let got = kiln_serde::to_vec(&Counting(&calls, &value)).unwrap();
        assert!(got == want, "{n} rows: not to_slice's bytes");
        // A refused room test would take a third pass.
        assert_eq!(calls.replace(0), 2, "{n} rows");
        let spare = if got.len() > SMALL { ROOM } else { 0 };
        assert_eq!(got.capacity() - got.len(), spare, "{n} rows");
        // bincode's `serialize` is the same call.
        let b = kiln_serde::bincode::serialize(&value).unwrap();
        assert!(b == want, "{n} rows: bincode's bytes");
        assert_eq!(b.capacity(), got.capacity(), "{n} rows");

        // Framed: the header's room test asks 16 + 512 at the start.
        let framed = schema.to_vec(&Counting(&calls, &value)).unwrap();
        assert!(framed[16..] == want[..], "{n} rows: framed bytes");
        assert_eq!(calls.replace(0), 2, "{n} rows");
        let spare = if framed.len() > SMALL { ROOM } else { 0 };
        assert_eq!(framed.capacity() - framed.len(), spare, "{n} rows");
    }
}

/// The error of `r`, which must fail (its bytes are not printed).
fn err<T>(r: kiln_serde::Result<T>) -> kiln_serde::Error {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// A large value's own errors, after room tests: `to_writer`'s code,
/// offset and detail (TYPE for duplicate keys, spec 2.1; LIMIT for depth,
/// spec 6, and for the size limit), past 64 KiB; and `to_slice`'s into a
/// buffer with room for it, a pass without room tests.
#[test]
fn a_large_values_own_error_is_to_writers() {
    let same = |a: kiln_serde::Error, b: kiln_serde::Error| {
        assert_eq!(
            (a.code(), a.offset(), a.detail()),
            (b.code(), b.offset(), b.detail())
        );
    };
    let mut buf = vec![0u8; 1 << 20];
    let dup = (rows(1100), Dup);
    let e = err(kiln_serde::to_vec(&dup));
    assert!(e.offset() > Some(SMALL as u64), "{e}");
    same(
        err(kiln_serde::to_vec(&dup)),
        err(kiln_serde::to_writer(Vec::new(), &dup)),
    );
    same(e, err(kiln_serde::to_slice(&mut buf, &dup)));

    // `rows` is 1 deep (its `Vec`; tuples add none), the options 3.
    let deep = (rows(1100), Some(Some(Some(1u8))));
    let opts = Options::new().with_max_depth(2);
    let e = err(opts.to_vec(&deep));
    assert!(e.offset() > Some(SMALL as u64), "{e}");
    same(
        err(opts.to_vec(&deep)),
        err(opts.to_writer(Vec::new(), &deep)),
    );
    same(e, err(opts.to_slice(&mut buf, &deep)));

    // A limit above 64 KiB but below the value (no offset): the buffer is
    // sized to the limit, with room past it.
    let opts = Options::new().with_limit(70_000);
    let big = rows(1200);
    same(
        err(opts.to_vec(&big)),
        err(opts.to_writer(Vec::new(), &big)),
    );
    same(err(opts.to_vec(&big)), err(opts.to_slice(&mut buf, &big)));
}

/// `extra` bytes more on every call after the first.
struct Grows {
    calls: Cell<usize>,
    extra: usize,
}
impl Serialize for Grows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = 70_000 + self.calls.get() * self.extra;
        self.calls.set(self.calls.get() + 1);
        s.collect_seq(std::iter::repeat(3u8).take(n))
    }
}

/// A count that was short: the write that fits in the room past the
/// value is taken (two calls); one that does not is written by a third
/// pass into the growing `Vec`. Either way the bytes are the last call's.
#[test]
fn a_short_count_of_a_large_value() {
    for (extra, calls) in [(0, 2), (1, 2), (ROOM, 2), (ROOM + 1, 3), (5000, 3)] {
        let g = Grows {
            calls: Cell::new(0),
            extra,
        };
        let got = kiln_serde::to_vec(&g).unwrap();
        assert_eq!(g.calls.get(), calls, "extra {extra}");
        let n = 70_000 + (calls - 1) * extra;
        assert_eq!(&got[..4], &(n as u32).to_le_bytes(), "extra {extra}");
        assert_eq!(got.len(), 4 + n, "extra {extra}");
        assert!(got[4..].iter().all(|&b| b == 3), "extra {extra}");
    }
}

/// The large pass has room tests: a count short by 10 bytes, then a
/// tuple of 32 units (no bytes, 512 asked) at the end. Without room tests
/// the 10 bytes fit in the 512 past the counted size (two calls); the
/// tuple's room test, 10 bytes past that room, refuses, and a third pass
/// writes the bytes. A buffer of 64 KiB or less has none of that room,
/// and takes the third pass either way.
#[test]
fn the_large_pass_tests_room_for_a_structs_fields() {
    let g = Grows {
        calls: Cell::new(0),
        extra: 10,
    };
    let got = kiln_serde::to_vec(&(&g, [(); 32])).unwrap();
    assert_eq!(g.calls.get(), 3);
    assert_eq!(got.len(), 4 + 70_020);
}
