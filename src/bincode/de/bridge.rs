//! Kiln's sealed `read::Read` over a user's [`BincodeRead`]: the third
//! reader (besides `SliceRead` and `IoRead`), so that Kiln's deserializer
//! runs on any bincode byte source and borrows what it lends.

use std::fmt;
use std::io;

use serde::de::Visitor;

use super::read::BincodeRead;
use crate::bincode::ErrorKind;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::read::{private, stream_error, IoRead, Read, Reference, Tally};

/// A [`BincodeRead`] as a Kiln reader, with the position, byte limit and
/// map-key record that every stream reader keeps ([`Tally`], as `IoRead`).
pub(crate) struct Bridge<R> {
    reader: R,
    tally: Tally,
}

impl<R> Bridge<R> {
    pub(crate) fn new(reader: R, limit: Option<u64>) -> Self {
        Bridge {
            reader,
            tally: Tally::new(limit),
        }
    }
}

/// An error of the user's `BincodeRead`: `Io` as Kiln's EOF/IO, any other
/// kind carried inside an IO error, so that [`super::passing`] hands the
/// reader's own error back to the caller unchanged.
fn from_user(e: ErrorKind, at: u64) -> Error {
    match e {
        ErrorKind::Io(io) => stream_error(io, at),
        other => Error::io(io::Error::other(other), Some(at)),
    }
}

/// Takes the bytes a `BincodeRead` lends: borrowed for `'de`, or copied
/// into the scratch buffer.
struct Grab<'s>(&'s mut Vec<u8>);

impl<'de> Visitor<'de> for Grab<'_> {
    type Value = Option<&'de [u8]>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("bytes")
    }

    fn visit_borrowed_bytes<E: serde::de::Error>(
        self,
        v: &'de [u8],
    ) -> std::result::Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_borrowed_str<E: serde::de::Error>(
        self,
        v: &'de str,
    ) -> std::result::Result<Self::Value, E> {
        Ok(Some(v.as_bytes()))
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> std::result::Result<Self::Value, E> {
        self.0.clear();
        self.0.extend_from_slice(v);
        Ok(None)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        self.visit_bytes(v.as_bytes())
    }

    fn visit_byte_buf<E: serde::de::Error>(
        self,
        v: Vec<u8>,
    ) -> std::result::Result<Self::Value, E> {
        *self.0 = v;
        Ok(None)
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
        self.visit_byte_buf(v.into_bytes())
    }
}

impl<R> private::Sealed for Bridge<R> {}

impl<'de, R: BincodeRead<'de>> Read<'de> for Bridge<R> {
    fn offset(&self) -> u64 {
        self.tally.pos()
    }

    fn remaining(&self) -> Option<usize> {
        None
    }

    fn trailing(&self) -> usize {
        0
    }

    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.tally.check_limit(n, at)?;
        let lent = self
            .reader
            .forward_read_bytes(n, Grab(&mut *scratch))
            .map_err(|e| from_user(*e, at))?;
        let bytes = match lent {
            Some(b) => Reference::Borrowed(b),
            None => Reference::Copied(&scratch[..]),
        };
        let got = bytes.as_slice().len();
        if got != n {
            return Err(Error::io(
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the BincodeRead handed out {got} bytes where {n} were asked for"),
                ),
                Some(at),
            ));
        }
        self.tally.consumed(bytes.as_slice());
        Ok(bytes)
    }

    fn tensors_block<'s>(
        &'s mut self,
        limits: &Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        // Kiln's stream reader does the work, over this reader's bytes.
        let base = self.tally.pos();
        let mut io = IoRead::new(&mut self.reader, self.tally.limit_left());
        <IoRead<&mut R> as Read<'de>>::tensors_block(&mut io, limits, scratch)
            .map_err(|e| e.shifted(base))?;
        self.tally.consumed(scratch);
        Ok(Reference::Copied(&scratch[..]))
    }

    crate::read::stream_read_methods!();
}
