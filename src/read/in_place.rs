//! [`InPlace`]: the slice reader under a type of its own, for `from_reader`
//! over a `&[u8]` (decoded in place).

use super::{private, KeyRead, Read, Reference, SliceRead, WINDOW};
use crate::error::{Error, Result};

/// A [`SliceRead`] for `from_reader`'s in-place decode: the same reads,
/// forwarded, under another type, so that a value's `deserialize` for it is
/// a function of its own. Sharing `SliceRead`'s, `from_slice` and
/// `from_reader` of one type in one program were two callers of one
/// function, and LTO no longer inlined it into `from_slice` (callgrind,
/// `mesh` decode 10.88 -> 14.25 M).
pub(crate) struct InPlace<'de>(pub(crate) SliceRead<'de>);

impl private::Sealed for InPlace<'_> {}

impl<'de> Read<'de> for InPlace<'de> {
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.0.offset()
    }

    #[inline(always)]
    fn remaining(&self) -> Option<usize> {
        self.0.remaining()
    }

    #[inline(always)]
    fn trailing(&self) -> usize {
        self.0.trailing()
    }

    #[inline(always)]
    fn settle(&mut self, e: Error) -> Error {
        self.0.settle(e)
    }

    const WINDOWED: bool = true;

    // The window (`de/window.rs`) too: without it `from_reader` of a
    // `&mut &[u8]` read `mesh` in 10.88 / 14.88 M instructions (LTO / no
    // LTO), then 5.00 / 5.63 as `from_slice` (3.50 / 4.00 since the seq
    // access's zero-sized error, session 50).
    #[inline(always)]
    fn window(&self) -> &'de [u8] {
        self.0.window()
    }

    #[inline(always)]
    fn full_window(&self) -> Option<&'de [u8; WINDOW]> {
        self.0.full_window()
    }

    #[inline(always)]
    fn advance(&mut self, n: usize) {
        self.0.advance(n);
    }

    #[inline(always)]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.0.read_array()
    }

    #[inline(always)]
    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.0.take(n, at, scratch)
    }

    #[inline(always)]
    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.0.tensors_block(limits, scratch)
    }

    #[inline(always)]
    fn take_elements<'s>(
        &'s mut self,
        len: usize,
        w: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Option<&'s [u8]>> {
        self.0.take_elements(len, w, at, scratch)
    }

    type Key<'k>
        = KeyRead<'k, Self>
    where
        Self: 'k;
    const KEYS_APART: bool = SliceRead::KEYS_APART;

    fn key_reader(&mut self) -> Self::Key<'_> {
        KeyRead::new(self)
    }

    #[inline(always)]
    fn record(&mut self, bytes: &[u8]) {
        self.0.record(bytes);
    }

    #[inline(always)]
    fn mark(&self) -> usize {
        self.0.mark()
    }

    #[inline(always)]
    fn captured(&self, from: usize, to: usize) -> &[u8] {
        self.0.captured(from, to)
    }

    #[inline(always)]
    fn map_open(&mut self) {
        self.0.map_open();
    }

    #[inline(always)]
    fn map_close(&mut self) {
        self.0.map_close();
    }
}
