//! bincode 1.3's `de::read`: the [`BincodeRead`] trait and its two readers.
//!
//! A [`BincodeRead`] hands the bytes of a str or bytes value to a serde
//! visitor, either borrowed for `'storage` (`visit_borrowed_bytes`: the
//! value can borrow them, zero-copy) or for the call only (`visit_bytes`).
//! Kiln's deserializer asks for every str and bytes value through
//! [`BincodeRead::forward_read_bytes`] and checks UTF-8 itself; integers,
//! tags and counts come through `io::Read::read_exact`.

use std::io;

use serde::de::Visitor;

use crate::bincode::{ErrorKind, Result};
use crate::read::CHUNK;

/// A byte source for [`Deserializer::with_bincode_read`](super::Deserializer::with_bincode_read)
/// and [`deserialize_from_custom`](crate::bincode::deserialize_from_custom),
/// with bincode 1.3's methods.
///
/// Implement it to hand out borrowed bytes from storage the deserializer
/// does not know about. The `length` passed in comes from the input and is
/// checked only against the byte limit of the options: a reader that
/// allocates `length` bytes up front should compare it with what it holds
/// first (the two readers here do).
pub trait BincodeRead<'storage>: io::Read {
    /// Checks that the next `length` bytes are a valid string and passes
    /// it on to the visitor.
    ///
    /// # Errors
    /// `Io(UnexpectedEof)` when fewer bytes remain; `InvalidUtf8Encoding`;
    /// the visitor's error.
    fn forward_read_str<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'storage>;

    /// Transfers ownership of the next `length` bytes to the caller.
    ///
    /// # Errors
    /// `Io(UnexpectedEof)` when fewer bytes remain.
    fn get_byte_buffer(&mut self, length: usize) -> Result<Vec<u8>>;

    /// Passes a slice of the next `length` bytes on to the visitor.
    ///
    /// # Errors
    /// `Io(UnexpectedEof)` when fewer bytes remain; the visitor's error.
    fn forward_read_bytes<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'storage>;
}

/// A [`BincodeRead`] over a byte slice: str and bytes values borrow from it.
pub struct SliceReader<'storage> {
    slice: &'storage [u8],
}

/// A [`BincodeRead`] over an `io::Read`: str and bytes values are copied
/// into a buffer that grows in 64 KiB steps as bytes arrive.
pub struct IoReader<R> {
    reader: R,
    temp_buffer: Vec<u8>,
}

impl<'storage> SliceReader<'storage> {
    /// A reader over `bytes`.
    pub(crate) fn new(bytes: &'storage [u8]) -> SliceReader<'storage> {
        SliceReader { slice: bytes }
    }

    fn get_byte_slice(&mut self, length: usize) -> Result<&'storage [u8]> {
        if length > self.slice.len() {
            return Err(unexpected_eof());
        }
        let (head, rest) = self.slice.split_at(length);
        self.slice = rest;
        Ok(head)
    }
}

impl<R> IoReader<R> {
    /// A reader over `r`.
    pub(crate) fn new(r: R) -> IoReader<R> {
        IoReader {
            reader: r,
            temp_buffer: Vec::new(),
        }
    }
}

fn unexpected_eof() -> crate::bincode::Error {
    Box::new(ErrorKind::Io(io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "the input ended inside a value",
    )))
}

impl io::Read for SliceReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.len() > self.slice.len() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let (head, rest) = self.slice.split_at(out.len());
        out.copy_from_slice(head);
        self.slice = rest;
        Ok(out.len())
    }

    fn read_exact(&mut self, out: &mut [u8]) -> io::Result<()> {
        self.read(out).map(|_| ())
    }
}

impl<R: io::Read> io::Read for IoReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.reader.read(out)
    }

    fn read_exact(&mut self, out: &mut [u8]) -> io::Result<()> {
        self.reader.read_exact(out)
    }
}

impl<'storage> BincodeRead<'storage> for SliceReader<'storage> {
    fn forward_read_str<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'storage>,
    {
        match std::str::from_utf8(self.get_byte_slice(length)?) {
            Ok(s) => visitor.visit_borrowed_str(s),
            Err(e) => Err(Box::new(ErrorKind::InvalidUtf8Encoding(e))),
        }
    }

    fn get_byte_buffer(&mut self, length: usize) -> Result<Vec<u8>> {
        self.get_byte_slice(length).map(<[u8]>::to_vec)
    }

    fn forward_read_bytes<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'storage>,
    {
        visitor.visit_borrowed_bytes(self.get_byte_slice(length)?)
    }
}

impl<R: io::Read> IoReader<R> {
    /// Reads exactly `length` bytes into the buffer, growing it only as
    /// bytes arrive (a lying length costs what the stream really holds).
    fn fill_buffer(&mut self, length: usize) -> Result<()> {
        self.temp_buffer.clear();
        let mut left = length;
        while left > 0 {
            let step = left.min(CHUNK);
            let old = self.temp_buffer.len();
            self.temp_buffer.resize(old + step, 0);
            self.reader.read_exact(&mut self.temp_buffer[old..])?;
            left -= step;
        }
        Ok(())
    }
}

impl<'a, R: io::Read> BincodeRead<'a> for IoReader<R> {
    fn forward_read_str<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'a>,
    {
        self.fill_buffer(length)?;
        match std::str::from_utf8(&self.temp_buffer) {
            Ok(s) => visitor.visit_str(s),
            Err(e) => Err(Box::new(ErrorKind::InvalidUtf8Encoding(e))),
        }
    }

    fn get_byte_buffer(&mut self, length: usize) -> Result<Vec<u8>> {
        self.fill_buffer(length)?;
        Ok(std::mem::take(&mut self.temp_buffer))
    }

    fn forward_read_bytes<V>(&mut self, length: usize, visitor: V) -> Result<V::Value>
    where
        V: Visitor<'a>,
    {
        self.fill_buffer(length)?;
        visitor.visit_bytes(&self.temp_buffer)
    }
}
