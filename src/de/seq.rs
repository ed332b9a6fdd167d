//! A seq's elements: [`visit_seq_exact`] hands the visitor a
//! [`SeqAccess`] for exactly `n` of them.

use serde::de::{self, DeserializeSeed, Visitor};

use super::abort::Abort;
use super::{all_read, window, Decoder};
use crate::error::Result;
use crate::read::Read;

/// Visits exactly `n` elements of a seq (fields: `fields.rs`); a visitor
/// that stops early is an error (the rest of the bytes would otherwise be
/// misread).
#[inline]
pub(super) fn visit_seq_exact<'de, R: Read<'de>, V: Visitor<'de>>(
    de: &mut Decoder<R>,
    n: usize,
    hint: usize,
    at: u64,
    visitor: V,
) -> Result<V::Value> {
    // The access is passed by value ([`SeqAccess`]); its count and hint
    // live in the decoder while it is open, the enclosing seq's here.
    let outer = (de.seq_left, de.seq_hint);
    de.seq_left = n;
    de.seq_hint = hint;
    let r = visitor
        .visit_seq(SeqAccess {
            de: &mut *de,
            left: n,
        })
        .map_err(Abort::take);
    let left = de.seq_left;
    (de.seq_left, de.seq_hint) = outer;
    all_read(r, left, n, at)
}

/// Passed to the visitor by value, not as `&mut`: serde's `Vec` loop then
/// keeps `left` in a register. Behind a `&mut` it was stored and loaded
/// for each element, since an element's out-of-line path may unwind and
/// the caller could see it. `mesh` decode without LTO, profile binary,
/// fastest 7 of 11 alternated runs: 0.79-0.86 -> 0.73-0.80 ms; criterion
/// 1.03-1.18 -> 0.80-0.94 ms (callgrind 4.00 -> 3.88 M; with LTO 3.50 M
/// either way). The count goes back to the decoder when
/// the access is dropped, where [`visit_seq_exact`] reads it, and, from a
/// slice, before an element that is not read through a window (such an
/// element may open a seq of its own, which keeps the decoder's count
/// while it is open). A visitor that forgets its access (`mem::forget`)
/// is then counted from that last write: still an error when elements
/// were left, an overstated count when elements read through a window,
/// or any element of a stream, came after it, and an error too when
/// every element was read so (no serde visitor forgets its access;
/// `tests/visitor_contract.rs`). Writing the count for every element took
/// 3.50 -> 3.88 M with LTO and lost the gain without; writing it for a
/// stream's elements (each comes that way) took `mesh` from a
/// `BufReader` 43.77 -> 44.52 M with LTO, `updates` 40.39 -> 40.66.
struct SeqAccess<'a, R> {
    de: &'a mut Decoder<R>,
    left: usize,
}

impl<R> Drop for SeqAccess<'_, R> {
    #[inline]
    fn drop(&mut self) {
        self.de.seq_left = self.left;
    }
}

/// The error is the zero-sized [`Abort`] (its [`Error`](crate::Error) waits in a
/// per-thread slot until [`visit_seq_exact`] takes it back): serde's `Vec`
/// loop moves each element through a `Result<Option<T>, Self::Error>`
/// (`window.rs` says what that cost `mesh`).
impl<'de, R: Read<'de>> de::SeqAccess<'de> for SeqAccess<'_, R> {
    type Error = Abort;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, Abort> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        // Plain data of 24 to 64 bytes opens on a window here, not in its
        // `Deserialize` (`window.rs`): without LTO that is then inlined.
        if window::Worth::<T::Value>::YES {
            if let Some(bytes) = window::full(&self.de.read) {
                let mut de = window::Element {
                    de: &mut *self.de,
                    bytes,
                };
                return seed.deserialize(&mut de).map(Some);
            }
        }
        // For a visitor that forgets this access (see above); a seq
        // inside the element puts this value back when it closes. Not
        // from a stream, where every element comes here.
        if R::WINDOWED {
            self.de.seq_left = self.left;
        }
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(Abort::stash)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.de.seq_hint.min(self.left))
    }
}
