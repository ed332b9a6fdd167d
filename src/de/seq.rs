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
    let mut access = SeqAccess {
        de: &mut *de,
        left: n,
        hint,
    };
    let r = visitor.visit_seq(&mut access).map_err(Abort::take);
    all_read(r, access.left, n, at)
}

struct SeqAccess<'a, R> {
    de: &'a mut Decoder<R>,
    left: usize,
    hint: usize,
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
        seed.deserialize(&mut *self.de)
            .map(Some)
            .map_err(Abort::stash)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.hint.min(self.left))
    }
}
