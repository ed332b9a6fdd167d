//! `to_slice`'s room tests (`pass::SLICE_ROOM`): a struct's fields follow
//! one test for all of them ([`Out::room_for`]), as in a reused buffer, in
//! a buffer that cannot grow and may be the value's exact size, where the
//! last structs' tests refuse.
//!
//! A refusal makes the cursor full and returns `Error::full_pending` up
//! through the value's `Serialize` code, so that the path past a test that
//! passed knows the room, and LLVM drops the fields' own tests. The
//! nearest sequence element or map value that holds the refusal
//! ([`Serializer::element`]) then writes its value again from where it
//! started, through a pass with a test per write (`pass::SLICE`) over a
//! reborrow of the same cursor. In a sequence given to `collect_seq` (a
//! `Vec` or a slice, not a map's values) the elements after the refused
//! one go through that pass too, in the same retry
//! ([`Serializer::collect_seq_retrying`]). The bytes are the same, and
//! only values within 512 bytes of the slice's end are written twice
//! (the first time up to a room test). A refusal outside any element (a
//! struct at the top, or a frame header's test) leaves the cursor full
//! and "asked", and `to_slice` writes the whole value again by the
//! `SLICE` pass (`ser/entry.rs`), as it does when a `Serialize` impl went
//! on past a refusal it was handed. The retry itself (`again`) and the
//! [`Mark`] are `SliceOut`'s, in `ser/out.rs`, so that this file only
//! uses that one.
//!
//! Only in a slice over 1 KiB (`ser/entry.rs`, `ROOMY_SLICE`). Callgrind,
//! `to_slice`, LTO / no LTO: `mesh` 6.50 / 6.63 -> 3.00 / 3.88 M,
//! `updates` 4.23 / 5.34 -> 3.67 / 4.44 M, `log` 1.34 / 1.53 -> 1.26 /
//! 1.39 M, `savedata` 1.50 / 1.66 -> 1.55 / 1.58 M. In time (A/B) `mesh`
//! 234 / 238 -> 157 / 202 µs, `log` 106 / 125 -> 103 / 103, `savedata` 87
//! / 88 -> 81 / 87, `updates` 357 / 407 -> 380 / 425 (BENCHMARKS.md).
//! The retry inlined (`#[inline(always)]`): as a call it took the
//! serializer's address, which then lived in memory through every
//! element (`mesh` in a crate of its own: 246 µs, inlined 131). The mark
//! is the position and the depth only, the position taken as is (a
//! `full` test there cost `savedata` 0.13 M): `WriteCursor::reopen`
//! refuses a mark taken once full instead.
//!
//! Tried first, and dropped: a refusal that moved the writes to a stack
//! scratch buffer and went on. The path past the test then joined the
//! switch's, the buffer's address became a loop-carried value, and kept
//! in memory it was reloaded around every write (`mesh` 222 -> 250-400
//! µs in a crate of its own).

use serde::ser::{SerializeSeq as _, Serializer as _};
use serde::Serialize;

use super::out::{Mark, Out, Rewrite};
use super::{exact_len, Serializer};
use crate::error::Result;

impl<O: Out> Serializer<'_, O> {
    /// Writes a sequence element or map value: `value.serialize`, and for
    /// an output with [`Out::RETRY`], its refused room test retried
    /// ([`Out::retry`]).
    #[inline(always)]
    pub(super) fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        if !O::RETRY {
            return value.serialize(&mut *self);
        }
        let mark = Mark {
            at: self.out.mark(),
            depth: self.depth,
        };
        match value.serialize(&mut *self) {
            Err(e) if e.is_full_pending() => O::retry(self, mark, One(value), e),
            r => r,
        }
    }
}

impl<O: Out> Serializer<'_, O> {
    /// `collect_seq` for an output with [`Out::RETRY`]: the elements'
    /// loop has no way back in from a retry. The first refusal leaves it
    /// for one retry of that element and every one after it ([`Tail`]).
    /// With the retry's path joining the loop again (each element by
    /// [`element`](Self::element)), the loop read the cursor's length and
    /// the depth again at every element, and stored its position (no LTO,
    /// `mesh` `to_slice` 205 -> 166 µs; 3.88 -> 3.25 M instructions).
    /// With the elements after the refused one written by `element`, out
    /// of the loop, each element's `serialize` had two calls, and LLVM
    /// inlined it at neither (`log`: 64 -> 79 µs with LTO).
    #[inline]
    pub(super) fn collect_seq_retrying<I>(&mut self, iter: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        let mut iter = iter.into_iter();
        let mut seq = self.serialize_seq(exact_len(&iter))?;
        // Counted only for a count patched in at the end.
        let counted = seq.patch.is_some();
        while let Some(item) = iter.next() {
            if counted {
                seq.n += 1;
            }
            let mark = Mark {
                at: seq.ser.out.mark(),
                depth: seq.ser.depth,
            };
            match item.serialize(&mut *seq.ser) {
                Ok(()) => seq.ser.maybe_flush()?,
                Err(e) if e.is_full_pending() => {
                    let tail = Tail {
                        first: item,
                        rest: iter,
                        n: counted.then_some(&mut seq.n),
                    };
                    O::retry(seq.ser, mark, tail, e)?;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        seq.end()
    }
}

/// One value: a sequence element or a map value ([`Serializer::element`]).
struct One<'v, T: ?Sized>(&'v T);

impl<T: ?Sized + Serialize> Rewrite for One<'_, T> {
    #[inline(always)]
    fn rewrite<P: Out>(self, ser: &mut Serializer<'_, P>) -> Result<()> {
        self.0.serialize(ser)
    }
}

/// A sequence's refused element and the elements after it, written
/// together by one retry, out of line (`updates` `to_slice` with LTO:
/// 3.68 -> 3.55 M instructions), with one call of the element's
/// `serialize` (the first element's call apart from the others' loop:
/// `updates` 3.61, `log` 1.40 M, against 3.55 and 1.38). A refusal is
/// within 512 bytes of the slice's end (a room test asks for 16 bytes a
/// field of one struct or tuple, at most 32 fields), so the bytes after
/// it are few, and they are written with a test per write as the refused
/// one's are.
struct Tail<'n, T, I> {
    first: T,
    rest: I,
    /// The sequence's count, for one patched in at the end.
    n: Option<&'n mut u64>,
}

impl<T: Serialize, I: Iterator<Item = T>> Rewrite for Tail<'_, T, I> {
    #[inline(never)]
    fn rewrite<P: Out>(self, ser: &mut Serializer<'_, P>) -> Result<()> {
        let Tail { first, rest, mut n } = self;
        for (i, item) in std::iter::once(first).chain(rest).enumerate() {
            if i > 0 {
                if let Some(n) = n.as_deref_mut() {
                    *n += 1;
                }
            }
            item.serialize(&mut *ser)?;
        }
        Ok(())
    }
}
