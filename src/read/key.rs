//! [`KeyRead`]: the reader of a stream's map keys, which records the bytes
//! it reads so that a key can be compared with the one before it.

use super::{private, Read, Reference};
use crate::error::Result;

/// The reader of a stream's map key (and of everything nested in it): the
/// stream's own reads, each also appended to its key record, so that the
/// key can be compared with the one before it (spec 2.1). A type of its
/// own, so that the test "inside a key?" is made once per key, not on
/// every read of the stream.
pub struct KeyRead<'k, S> {
    inner: &'k mut S,
}

impl<'k, S> KeyRead<'k, S> {
    pub(crate) fn new(inner: &'k mut S) -> Self {
        KeyRead { inner }
    }

    /// Records the bytes a read handed out: `lent` when borrowed, else the
    /// scratch buffer's contents (a stream's copies are always all of it).
    fn recorded<'de, 's>(
        &mut self,
        lent: Option<&'de [u8]>,
        scratch: &'s [u8],
    ) -> Reference<'de, 's>
    where
        S: Read<'de>,
    {
        match lent {
            Some(b) => {
                self.inner.record(b);
                Reference::Borrowed(b)
            }
            None => {
                self.inner.record(scratch);
                Reference::Copied(scratch)
            }
        }
    }
}

impl<S> private::Sealed for KeyRead<'_, S> {}

impl<'de, S: Read<'de>> Read<'de> for KeyRead<'_, S> {
    #[inline]
    fn offset(&self) -> u64 {
        self.inner.offset()
    }

    #[inline]
    fn remaining(&self) -> Option<usize> {
        self.inner.remaining()
    }

    fn trailing(&self) -> usize {
        self.inner.trailing()
    }

    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let out = self.inner.read_array::<N>()?;
        self.inner.record(&out);
        Ok(out)
    }

    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        let lent = self.inner.take_in_scratch(n, at, scratch)?.borrowed();
        Ok(self.recorded(lent, scratch))
    }

    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        let lent = self.inner.tensors_block(limits, scratch)?.borrowed();
        Ok(self.recorded(lent, scratch))
    }

    /// Keys inside a key are read by this same reader.
    type Key<'j>
        = KeyRead<'j, S>
    where
        Self: 'j;
    const KEYS_APART: bool = false;

    fn key_reader(&mut self) -> Self::Key<'_> {
        KeyRead::new(&mut *self.inner)
    }

    #[inline]
    fn record(&mut self, bytes: &[u8]) {
        self.inner.record(bytes);
    }

    #[inline]
    fn mark(&self) -> usize {
        self.inner.mark()
    }

    fn captured(&self, from: usize, to: usize) -> &[u8] {
        self.inner.captured(from, to)
    }

    fn map_open(&mut self) {
        self.inner.map_open();
    }

    fn map_close(&mut self) {
        self.inner.map_close();
    }
}
