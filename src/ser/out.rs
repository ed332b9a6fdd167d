//! Where the serializer's bytes go: a caller's fixed `&mut [u8]`
//! (`to_slice`), a `Vec`'s spare capacity written the same way (`to_vec`,
//! and `to_extend` when its buffer has spare capacity), or a growing `Vec`
//! (`to_extend` into a buffer without spare capacity, and the buffer of
//! the streaming sinks).
//!
//! A full slice stops storing bytes. A float that does not fit
//! ([`Out::put_float`]) ends the pass; any other write goes on (storing
//! nothing), and while it is full there are no bytes to patch or to sort,
//! so map sorting and count patches are skipped. Either way the entry
//! point then finds what the value needs, or its own error, with a pass
//! of its own (`ser/entry.rs`).

use super::{Serializer, Sink};
use crate::error::{Error, Result};
use crate::raw::{VecCursor, WriteCursor};

/// The serializer's output buffer.
pub trait Out {
    /// Whether the buffer is drained into a writer or a counter as it
    /// fills (`to_writer`, `serialized_size`): the flush checks compile
    /// away when false.
    const STREAM: bool;

    /// Bytes written so far (a full slice: its length).
    fn len(&self) -> usize;

    /// Appends `b`.
    fn put(&mut self, b: &[u8]);

    /// Appends an `f32`'s or `f64`'s bytes `b`, as [`put`](Self::put); a
    /// slice that cannot hold them: [`Error::full_pending`] (it stores
    /// nothing more from then on).
    #[inline]
    fn put_float(&mut self, b: &[u8]) -> Result<()> {
        self.put(b);
        Ok(())
    }

    /// Appends one byte.
    fn push(&mut self, b: u8);

    /// A hint that about `n` bytes of small writes follow (a struct's or
    /// tuple's fields), so that the writes it covers need no room test of
    /// their own: a growing `Vec` ([`VecOut`], [`StreamOut`]) makes the
    /// room; a [`SliceOut`] of a pass with room tests ([`pass::room`])
    /// says they fit, or ends the pass with [`Error::full_pending`]; the
    /// other passes do nothing.
    #[inline]
    fn room_for(&mut self, n: usize) -> Result<()> {
        let _ = n;
        Ok(())
    }

    /// Appends a 4-byte count and then `b`; `SHORT`: a str's bytes, copied
    /// inline, not by a call of `memcpy` (`raw::copy`).
    fn put_counted<const SHORT: bool>(&mut self, count: u32, b: &[u8]);

    /// Appends `head` (a frame header, or nothing: no room test then,
    /// which LLVM could not drop on its own).
    #[inline]
    fn put_head<const N: usize>(&mut self, head: &[u8; N]) {
        if N > 0 {
            self.put(head);
        }
    }

    /// Cuts the output back to `n` bytes (`n <= len`).
    fn truncate(&mut self, n: usize);

    /// Whether a refused room test is retried where a value can be
    /// written again (a sequence element, a map value:
    /// [`Serializer::element`](super::Serializer)), by
    /// [`retry`](Self::retry) (`to_slice`'s pass, `ser/retry.rs`).
    const RETRY: bool = false;

    /// Where a value written from here could be written again from (for
    /// [`retry`](Self::retry)), in the output's own terms (a slice's
    /// cursor counts it from the end: `WriteCursor::mark`).
    #[inline]
    fn mark(&self) -> isize {
        0
    }

    /// With [`RETRY`](Self::RETRY): writes `value` again from `mark`,
    /// where writing it ended with `e`, when `e` was a room test's
    /// refusal; else `Err(e)`.
    #[inline]
    fn retry<R: Rewrite>(
        ser: &mut Serializer<'_, Self>,
        mark: Mark,
        value: R,
        e: Error,
    ) -> Result<()>
    where
        Self: Sized,
    {
        let _ = (ser, mark, value);
        Err(e)
    }

    /// Every byte written, or `None` when some were not stored.
    fn written(&self) -> Option<&[u8]>;

    /// As [`written`](Self::written), to patch in place.
    fn written_mut(&mut self) -> Option<&mut [u8]>;
}

/// What a retry writes again, from its mark, through a pass with a test
/// per write (`ser/retry.rs`: one sequence element or map value, or a
/// sequence's refused element and the ones after it).
pub trait Rewrite {
    /// Writes it into `ser`.
    fn rewrite<P: Out>(self, ser: &mut Serializer<'_, P>) -> Result<()>;
}

/// Where a value started, to write it again from: the output's
/// [`Out::mark`], and the nesting depth then (spec 6: the levels the
/// first try entered and did not leave are not open).
///
/// The rest of the serializer's state needs no mark. `pending` (open maps
/// and unknown-length seqs) holds back a stream's flushes only, and a
/// retrying output is never a stream; a first try's unclosed ones leave
/// it high, never low, so no later `-= 1` wraps. `last_str` is read only
/// right after the map key that sets it (`ser/map.rs`), and a map's end
/// clears it, so the retry's final value is the first try's.
#[derive(Clone, Copy)]
pub struct Mark {
    pub(super) at: isize,
    pub(super) depth: u32,
}

/// A `Vec` that is the result (`to_extend` without spare capacity; with
/// `WRITER`, `to_writer` into a `&mut Vec<u8>`, so bincode's
/// `serialize_into`). `WRITER` changes no write: the writer's path is
/// inlined into the caller, and as a type of its own its serializer does
/// not share the value's `serialize` with the out-of-line `to_extend` /
/// `to_vec` path; shared, the value's `serialize` had two callers, was
/// inlined into neither and wrote through a cursor in memory (`mesh`
/// `serialize_into` with LTO, profile binary: 9.9 -> 11.4 M instructions,
/// 0.6 -> 1.2 ms).
pub struct VecOut<'a, const WRITER: bool = false>(VecCursor<'a, false>);

/// A `Vec` drained into a writer or a counter (`to_writer`,
/// `serialized_size`).
pub struct StreamOut<'a>(VecCursor<'a, true>);

impl<'a, const WRITER: bool> VecOut<'a, WRITER> {
    /// Writes through `cur` ([`raw::append`](crate::raw::append)'s cursor).
    #[inline]
    pub(crate) fn from_cursor(cur: VecCursor<'a, false>) -> Self {
        VecOut(cur)
    }

    /// The cursor, handed back to `raw::append`.
    #[inline]
    pub(crate) fn into_cursor(self) -> VecCursor<'a, false> {
        self.0
    }
}

impl<'a> StreamOut<'a> {
    /// Writes after `v`'s bytes.
    #[inline]
    pub(crate) fn new(v: &'a mut Vec<u8>) -> Self {
        StreamOut(VecCursor::stream(v))
    }

    /// Brings the `Vec`'s length up to date (every byte written).
    #[inline]
    pub(crate) fn finish(&mut self) {
        self.0.finish();
    }
}

macro_rules! vec_out {
    ($t:ident, $stream:literal $(, $w:ident)?) => {
        impl$(<const $w: bool>)? Out for $t<'_ $(, $w)?> {
            const STREAM: bool = $stream;

            #[inline]
            fn len(&self) -> usize {
                self.0.len()
            }

            #[inline]
            fn put(&mut self, b: &[u8]) {
                self.0.put(b);
            }

            #[inline]
            fn push(&mut self, b: u8) {
                self.0.push(b);
            }

            /// Grows the `Vec` if it has less than `n` bytes of room
            /// (`VecCursor::room`): never a refusal, so the value's
            /// `Serialize` still runs once.
            #[inline]
            fn room_for(&mut self, n: usize) -> Result<()> {
                self.0.room(n);
                Ok(())
            }

            #[inline]
            fn put_counted<const SHORT: bool>(&mut self, count: u32, b: &[u8]) {
                self.0.put_counted::<SHORT>(count, b);
            }

            #[inline]
            fn truncate(&mut self, n: usize) {
                self.0.truncate(n);
            }

            #[inline]
            fn written(&self) -> Option<&[u8]> {
                Some(self.0.written())
            }

            #[inline]
            fn written_mut(&mut self) -> Option<&mut [u8]> {
                Some(self.0.written_mut())
            }
        }
    };
}

vec_out!(VecOut, false, W);
vec_out!(StreamOut, true);

/// A caller's fixed buffer. A write that does not fit is not stored, and
/// from then on nothing is: the output has no bytes to show
/// ([`Out::written`] is `None`), and [`Out::len`] stays at the buffer's
/// length: what the value needs, the entry point counts with a pass of its
/// own.
///
/// `PASS` is the entry point it writes for ([`pass`]): the same writes,
/// but a type for each, so that a value's `Serialize` code is compiled
/// apart for each and can be inlined into its one caller (`to_slice`'s
/// shared with `to_extend`'s: `updates` `to_slice` 4.26 -> 5.74 M; a large
/// `to_vec`'s shared with `to_extend`'s: `updates` `to_extend` 3.74 ->
/// 4.13 M, LTO).
///
/// With room tests ([`pass::room`]), [`Out::room_for`] tests the room and
/// a refusal ends the pass: only where the buffer has room past the value
/// for them (a large `to_vec`'s) or a pass that ends early costs little
/// and is run again (`to_extend`'s reused buffer), or where the values it
/// ends in are written again (`to_slice`'s, `pass::SLICE_ROOM`: the
/// nearest sequence element or map value, `ser/retry.rs`). A new `Vec`
/// sized to fit the value exactly would have its last struct refused, and
/// its spare capacity is not initialized, which a retry's cursor needs.
pub struct SliceOut<'s, const PASS: u8 = { pass::SLICE }> {
    cur: WriteCursor<'s>,
}

/// A float's write into a slice: one that did not fit ends the value's
/// pass there ([`Error::full_pending`]). Ending it, not going on as the
/// cursor does for other writes, lets LLVM know the position after each
/// write: a run
/// of floats then stores at constant offsets from one position, each room
/// test on its own, where every test and store waited for the previous
/// field's new position (a `mesh` triangle: a chain of 12, one cycle each).
/// Profile binary, `mesh`, LTO / no LTO: `to_slice` 368 -> 226 / 369 ->
/// 289 µs, `to_extend` into a reused buffer 360 -> 285 / 358 -> 277 µs,
/// `to_vec` 378 -> 294 / 379 -> 290 µs, in more instructions (7.88 -> 8.13
/// / 9.75 M). Floats only: with integers ending the pass too, each
/// integer's way out kept more of the serializer in memory (`updates`
/// `to_slice` 4.23 -> 5.78 M instructions, +17% time with LTO); with
/// floats alone the other datasets' counts are as they were.
#[inline(always)]
fn stored(ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::full_pending())
    }
}

/// The entry points a [`SliceOut`] writes for.
pub(crate) mod pass {
    /// `to_slice`: a caller's buffer.
    pub(crate) const SLICE: u8 = 0;
    /// `to_vec`: a new `Vec` of the value's exact size.
    pub(crate) const NEW: u8 = 1;
    /// `to_vec`: a new `Vec` with `FIELDS_ROOM` bytes past the value (one
    /// of over 64 KiB). Room tests.
    pub(crate) const NEW_ROOMY: u8 = 2;
    /// `to_extend`: a reused `Vec`'s spare capacity. Room tests.
    pub(crate) const REUSED: u8 = 3;
    /// `to_slice`: a caller's buffer, with room tests, a refusal retried
    /// where it can be (`ser/retry.rs`), else the value written again by
    /// a [`SLICE`] pass.
    pub(crate) const SLICE_ROOM: u8 = 4;

    /// Whether the pass tests room for a run of fields
    /// ([`super::Out::room_for`]).
    #[inline(always)]
    pub(crate) const fn room(pass: u8) -> bool {
        pass == NEW_ROOMY || pass == REUSED || pass == SLICE_ROOM
    }
}

impl<'s> SliceOut<'s> {
    /// An empty output over `buf`.
    #[inline]
    pub fn new(buf: &'s mut [u8]) -> Self {
        Self::over(buf)
    }
}

impl<'s, const PASS: u8> SliceOut<'s, PASS> {
    /// An empty output over `buf`, for a pass of kind `PASS`.
    #[inline]
    pub(crate) fn over(buf: &'s mut [u8]) -> Self {
        SliceOut {
            cur: WriteCursor::new(buf),
        }
    }

    /// An output over a cursor on a `Vec`'s spare capacity
    /// ([`crate::raw::fill_spare`]'s).
    #[inline]
    pub(crate) fn from_cursor(cur: WriteCursor<'s>) -> Self {
        SliceOut { cur }
    }

    /// The cursor back, for `fill_spare` to take what it wrote.
    #[inline]
    pub(crate) fn into_cursor(self) -> WriteCursor<'s> {
        self.cur
    }
}

impl<'s, const PASS: u8> SliceOut<'s, PASS> {
    /// Whether some bytes did not fit.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.cur.is_full()
    }

    /// Whether it is full because a room test refused (no write did).
    #[inline]
    pub(crate) fn is_asked(&self) -> bool {
        self.cur.asked()
    }

    /// The cursor, for a retry ([`again`]).
    #[inline]
    fn cursor(&mut self) -> &mut WriteCursor<'s> {
        &mut self.cur
    }
}

impl<const PASS: u8> Out for SliceOut<'_, PASS> {
    const STREAM: bool = false;

    #[inline]
    fn len(&self) -> usize {
        self.cur.len()
    }

    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.cur.put(b);
    }

    #[inline]
    fn put_float(&mut self, b: &[u8]) -> Result<()> {
        stored(self.cur.put(b))
    }

    #[inline]
    fn room_for(&mut self, n: usize) -> Result<()> {
        if pass::room(PASS) {
            stored(self.cur.room(n))
        } else {
            Ok(())
        }
    }

    #[inline]
    fn push(&mut self, b: u8) {
        self.cur.push(b);
    }

    #[inline]
    fn put_counted<const SHORT: bool>(&mut self, count: u32, b: &[u8]) {
        self.cur.put_counted::<SHORT>(count, b);
    }

    #[inline]
    fn put_head<const N: usize>(&mut self, head: &[u8; N]) {
        // With room tests, a frame header's room test asks for the value's
        // first fields too (as `Out::room_for` does), so that LLVM drops
        // theirs: the frame then costs its two stores. Refused, the cursor
        // is full: nothing more is stored, and the value's first room
        // test or float ends the pass.
        if pass::room(PASS) && N > 0 && !self.cur.room(N + super::FIELDS_ROOM) {
            return;
        }
        // A frame header: its halves stored apart (`WriteCursor::put_halves`).
        if let (Ok(lo), Some(Ok(hi))) = (
            <[u8; 8]>::try_from(&head[..N.min(8)]),
            head.get(8..).map(<[u8; 8]>::try_from),
        ) {
            self.cur.put_halves(lo, hi);
        } else {
            self.cur.put(head);
        }
    }

    #[inline]
    fn truncate(&mut self, n: usize) {
        // Called while not full (sorting a map in place); once full it
        // changes nothing.
        self.cur.truncate(n);
    }

    const RETRY: bool = PASS == pass::SLICE_ROOM;

    #[inline]
    fn mark(&self) -> isize {
        self.cur.mark()
    }

    #[cold]
    #[inline(always)]
    fn retry<R: Rewrite>(
        ser: &mut Serializer<'_, Self>,
        mark: Mark,
        value: R,
        e: Error,
    ) -> Result<()> {
        if PASS == pass::SLICE_ROOM {
            again(ser, mark, value, e)
        } else {
            Err(e)
        }
    }

    #[inline]
    fn written(&self) -> Option<&[u8]> {
        self.cur.written()
    }

    #[inline]
    fn written_mut(&mut self) -> Option<&mut [u8]> {
        self.cur.written_mut()
    }
}

/// [`Out::retry`] for `pass::SLICE_ROOM`: when the cursor is full by a
/// room test alone and `mark` was taken before, writes `value` again from
/// `mark` with a test per write, over the same cursor; else `Err(e)`.
#[inline(always)]
fn again<const PASS: u8, R: Rewrite>(
    ser: &mut Serializer<'_, SliceOut<'_, PASS>>,
    mark: Mark,
    value: R,
    e: Error,
) -> Result<()> {
    if !ser.out.cursor().reopen(mark.at) {
        return Err(e);
    }
    let cur = ser.out.cursor();
    let mut careful = Serializer {
        out: SliceOut::<{ pass::SLICE }>::from_cursor(cur.reborrow()),
        depth: mark.depth,
        max_depth: ser.max_depth,
        flushed: ser.flushed,
        sink: Sink::None,
        pending: ser.pending,
        last_str: ser.last_str,
        limit: ser.limit,
        prefix: ser.prefix,
    };
    let r = value.rewrite(&mut careful);
    let (depth, pending, last_str) = (careful.depth, careful.pending, careful.last_str);
    let spot = careful.out.into_cursor().spot();
    if !ser.out.cursor().resume(spot) {
        return Err(e);
    }
    ser.depth = depth;
    ser.pending = pending;
    ser.last_str = last_str;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_slice_stores_nothing_more_and_shows_no_bytes() {
        let mut buf = [0u8; 6];
        let mut o = SliceOut::new(&mut buf);
        o.put(&[1, 2]);
        o.push(3);
        assert_eq!(o.written(), Some(&[1, 2, 3][..]));
        o.put_counted::<false>(1, &[9]);
        assert!(o.is_full());
        // Full: the position is the end (the entry points count what the
        // value needs with a pass of their own).
        assert_eq!((o.len(), o.written()), (6, None));
        // A write that would fit in the room left is not stored either.
        o.push(4);
        o.put(&[5; 2]);
        assert_eq!(o.len(), 6);
        assert!(o.written_mut().is_none());
        assert!(o.is_full());
        assert_eq!(buf, [1, 2, 3, 0, 0, 0]);

        let mut buf = [0u8; 7];
        let mut o = SliceOut::new(&mut buf);
        o.put_counted::<true>(2, &[7, 8]);
        o.push(1);
        o.truncate(6);
        assert_eq!(o.written(), Some(&[2, 0, 0, 0, 7, 8][..]));
        assert!(!o.is_full());
    }
}
