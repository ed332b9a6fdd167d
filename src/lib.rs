//! # kiln_serde
//!
//! Kiln v2: a positional, little-endian, canonical serde binary format that
//! also carries numeric arrays (tensors) zero-copy.
//!
//! A `#[derive(Serialize, Deserialize)]` type becomes bytes with no names and
//! no tags; map keys are sorted; floats keep every bit; a decoder accepts only
//! canonical bytes, so the same value always has the same bytes. A hostile
//! length never allocates more than the bytes that remain.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Point {
//!     x: i32,
//!     y: i32,
//! }
//!
//! let bytes = kiln_serde::to_vec(&Point { x: 9, y: -4 }).unwrap();
//! assert_eq!(bytes, [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
//! let back: Point = kiln_serde::from_slice(&bytes).unwrap();
//! assert_eq!(back, Point { x: 9, y: -4 });
//! ```
//!
//! Coming from bincode 1.x: `use kiln_serde::bincode;` gives the bincode 1.3
//! API (see [`bincode`]), and the `bincode` package in `compat/bincode1`
//! gives it with no source change at all. Either way the bytes are Kiln's.
//!
//! Errors carry one of the spec's codes and the byte offset of the fault:
//!
//! ```
//! let err = kiln_serde::from_slice::<Option<u8>>(&[7]).unwrap_err();
//! assert_eq!(err.code(), kiln_serde::ErrorCode::Type);
//! assert_eq!(err.offset(), Some(0));
//! assert_eq!(err.to_string(), "TYPE at byte 0: option tag 0x07 is not 0 or 1");
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

// The serde traits come from `serde_core` (see Cargo.toml); the crate says
// `serde::` throughout, as serde's own users do.
extern crate serde_core as serde;

pub mod bincode;
pub mod checkpoint;
pub mod de;
pub mod error;
pub mod frame;
pub mod framed;
pub mod limits;
pub mod options;
#[allow(unsafe_code)]
mod raw;
mod read;
pub mod schema;
mod ser;
pub mod sorted;
pub mod tensors;
mod token;

#[cfg(feature = "mmap")]
pub use checkpoint::TensorsFile;
pub use checkpoint::{Checkpoint, CheckpointView};
pub use framed::Schema;
pub use tensors::{Dtype, Tensors, TensorsBuilder, TensorsView};

/// The README's examples, compiled and run as doctests (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

use serde::{de::DeserializeOwned, Deserialize, Serialize};

pub use error::{Error, ErrorCode, Result};
pub use limits::Limits;
pub use options::Options;

/// Encodes `value` as a standalone Frozen buffer.
///
/// Like bincode 1's `serialize`, it calls `value.serialize` twice: a
/// counting pass sizes the buffer, so the bytes are written into one
/// allocation. Its capacity is the length, except above 64 KiB, where it
/// is 512 bytes more: room that lets the write test the room for a
/// struct's fields once, not field by field. A `Serialize` impl that can
/// run only once (one that drains an iterator, say) must go through
/// [`to_writer`], which calls it once (or [`to_extend`] into a buffer that
/// has room for the value or no spare capacity at all).
///
/// # Errors
/// LIMIT for a seq/map/str/bytes longer than the wire maximum; TYPE for
/// duplicate map keys; MESSAGE for errors raised by the value's `Serialize`.
///
/// # Examples
/// ```
/// assert_eq!(kiln_serde::to_vec(&(1u8, 2u16)).unwrap(), [1, 2, 0]);
/// ```
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    ser::to_vec(value, &Limits::DEFAULT)
}

/// Encodes `value` into a writer, calling its `Serialize` once. The bytes
/// are buffered and written in chunks, except into a `&mut Vec<u8>`,
/// which gets them appended directly (as [`to_extend`] into a full `Vec`).
/// The buffer is kept between calls on a thread when it is at most 8 KiB,
/// so small messages into a `BufWriter` or socket allocate nothing.
///
/// # Errors
/// As [`to_vec`], plus IO when the writer fails. Offsets count from the
/// value's first byte, whatever the writer held before; a `&mut Vec<u8>`
/// is left as it was.
///
/// # Examples
/// ```
/// let mut out = Vec::new();
/// kiln_serde::to_writer(&mut out, &"hi").unwrap();
/// assert_eq!(out, [2, 0, 0, 0, b'h', b'i']);
/// ```
#[inline]
pub fn to_writer<W: std::io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    ser::to_writer(writer, value, &Limits::DEFAULT)
}

/// Encodes `value`, appending its bytes to `out`: the reused-buffer form
/// of [`to_vec`] (like postcard's `to_extend`). On error `out` keeps its
/// old contents.
///
/// It calls `value.serialize` once when `out` has room for the value (a
/// reused buffer) or no spare capacity at all (it then grows). With some
/// spare capacity but too little, the first call stops storing where the
/// room runs out, and a second writes the value into the grown `Vec`; a
/// second call that writes no more than the room held (less than the
/// first needed) is an error, never wrong bytes.
///
/// # Errors
/// As [`to_vec`]; MESSAGE when a second call writes less than the first
/// needed; LIMIT when that much cannot be allocated.
///
/// # Examples
/// ```
/// let mut buf = vec![0xAA];
/// kiln_serde::to_extend(&mut buf, &1u16).unwrap();
/// assert_eq!(buf, [0xAA, 1, 0]);
/// ```
pub fn to_extend<T: ?Sized + Serialize>(out: &mut Vec<u8>, value: &T) -> Result<()> {
    ser::to_extend(out, value, &Limits::DEFAULT)
}

/// Encodes `value` into the front of `buf`, a fixed buffer (like
/// postcard's `to_slice`), and returns the number of bytes written.
/// Nothing is allocated unless the value has a map whose keys arrive out
/// of order (sorted through one temporary buffer).
///
/// # Errors
/// As [`to_vec`] (the value's own errors come first, whatever the size of
/// `buf`); and LIMIT at offset `buf.len()` when the value does not fit,
/// with [`ErrorDetail::BufferFull`](error::ErrorDetail::BufferFull)
/// holding the bytes it needs (the bytes in `buf` are then unspecified).
/// A value that does not fit is then encoded a second time, by a
/// counting pass, for its size and its own errors.
///
/// # Examples
/// ```
/// use kiln_serde::error::ErrorDetail;
///
/// let mut buf = [0u8; 8];
/// let n = kiln_serde::to_slice(&mut buf, &(9i32, -4i32)).unwrap();
/// assert_eq!(&buf[..n], [9, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
///
/// let e = kiln_serde::to_slice(&mut buf[..5], &"hello").unwrap_err();
/// assert_eq!(e.detail(), ErrorDetail::BufferFull(9));
/// ```
pub fn to_slice<T: ?Sized + Serialize>(buf: &mut [u8], value: &T) -> Result<usize> {
    ser::fill_slice(buf, &[], value, &Limits::DEFAULT)
}

/// The number of bytes [`to_vec`] would produce, without keeping them.
///
/// A value without maps or sequences of unknown length is counted, not
/// encoded. A map's duplicate keys only show in its bytes, and an
/// unknown-length sequence's count only at its end, so such a value is
/// encoded into a bounded buffer and dropped. Either way the result and
/// the errors are `to_vec`'s.
///
/// # Errors
/// As [`to_vec`].
///
/// # Examples
/// ```
/// assert_eq!(kiln_serde::serialized_size(&vec![1u32, 2]).unwrap(), 12);
/// ```
pub fn serialized_size<T: ?Sized + Serialize>(value: &T) -> Result<u64> {
    ser::serialized_size(value, &Limits::DEFAULT)
}

/// Decodes a standalone buffer holding exactly one value. `&str` and
/// `&[u8]` fields borrow from `bytes`.
///
/// # Errors
/// Any spec code for a fault of the bytes (TRAILING when bytes follow the
/// value), MESSAGE for errors from the type's own `Deserialize`.
///
/// # Examples
/// ```
/// let s: &str = kiln_serde::from_slice(&[2, 0, 0, 0, b'h', b'i']).unwrap();
/// assert_eq!(s, "hi");
/// ```
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    de::from_slice(bytes, &Limits::DEFAULT, false)
}

/// Decodes one value from the front of `bytes` and returns the rest (for
/// several values back to back).
///
/// # Errors
/// As [`from_slice`], without TRAILING.
///
/// # Examples
/// ```
/// let (a, rest): (u8, &[u8]) = kiln_serde::take_from_slice(&[1, 2]).unwrap();
/// assert_eq!((a, rest), (1, &[2u8][..]));
/// ```
pub fn take_from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<(T, &'de [u8])> {
    de::take_from_slice(bytes, &Limits::DEFAULT)
}

/// Decodes one value from a stream, reading exactly its bytes (so values
/// written back to back can be read one by one). Buffers grow in bounded
/// chunks, so a lying length costs only what the stream delivers.
///
/// A `&[u8]` or `&mut &[u8]` reader, or a `std::io::Cursor` over a
/// `&[u8]`, `Vec<u8>`, `&Vec<u8>`, `Box<[u8]>`, `&mut [u8]` or `&mut Vec<u8>`
/// (by value or `&mut`), is decoded in
/// place, as [`take_from_slice`] decodes it (no copy per field), from the
/// cursor's position on, and moved past the value; after an error it is
/// left where it was. Any other reader gets a `read_exact` call per
/// value: from a `BufReader`, [`from_bufread`] is faster.
///
/// # Errors
/// As [`from_slice`] (EOF when the stream ends inside the value), plus IO.
///
/// # Examples
/// ```
/// let mut input: &[u8] = &[1, 0, 0, 0, 2];
/// let a: u32 = kiln_serde::from_reader(&mut input).unwrap();
/// let b: u8 = kiln_serde::from_reader(&mut input).unwrap();
/// assert_eq!((a, b), (1, 2));
/// ```
#[inline]
pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(reader: R) -> Result<T> {
    // The default limits have no total size limit: no test for one.
    de::from_reader::<R, T, false>(reader, &Limits::DEFAULT)
}

/// Reads one value from an `io::BufRead` (a `BufReader` over a file or a
/// socket), consuming exactly its bytes, as [`from_reader`] does, and
/// faster: values are read from a copy of the front of the stream's
/// buffer, not with a `read_exact` call each. Values and errors are
/// [`from_reader`]'s, and so is where the stream is left.
///
/// # Errors
/// As [`from_reader`].
///
/// # Examples
/// ```
/// use std::io::BufReader;
///
/// let bytes = [1, 0, 0, 0, 2];
/// let mut input = BufReader::new(&bytes[..]);
/// let a: u32 = kiln_serde::from_bufread(&mut input).unwrap();
/// let b: u8 = kiln_serde::from_bufread(&mut input).unwrap();
/// assert_eq!((a, b), (1, 2));
/// ```
#[inline]
pub fn from_bufread<R: std::io::BufRead, T: DeserializeOwned>(reader: R) -> Result<T> {
    de::from_bufread::<R, T, false>(reader, &Limits::DEFAULT)
}
