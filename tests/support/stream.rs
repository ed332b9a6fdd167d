//! A reader that is not a byte slice, for tests of the stream path.
//!
//! `from_reader` (and bincode's `deserialize_from`) decode a `&[u8]` or
//! `&mut &[u8]` reader in place, as `take_from_slice` does; a test that
//! means the stream decoder reads through `Stream` instead, which hands
//! out the same bytes through `io::Read` alone.

use std::io::{self, Read};

/// The bytes of a slice, read through `io::Read` only.
pub struct Stream<'a>(pub &'a [u8]);

impl Read for Stream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}
