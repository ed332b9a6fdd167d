//! Framed values: the 16-byte [frame](crate::frame) with the schema hash of
//! the type, then one Frozen value.
//!
//! Writing puts the FNV-1a 64 hash of the type's canonical
//! [type text](crate::schema) in the header. Reading checks the header, then
//! compares the hash with the reader's type *before the first field is read*:
//! a different hash is SCHEMA at offset 8. A frame without a hash is accepted,
//! unless [`Options::require_hash`](crate::Options::require_hash) is set, in which case it is SCHEMA at
//! offset 6 (the flags byte that says no hash follows). Offsets in errors
//! count from the start of the frame, so a fault in the value's first byte is
//! reported at 16. The caps of [`Options`] apply to the
//! value; the total `limit` does not count the 16 header bytes.
//!
//! Two ways in, one job each:
//! - the free functions [`to_vec`], [`to_extend`], [`to_slice`],
//!   [`to_writer`], [`from_slice`], [`from_reader`] and [`from_bufread`] use the default options and the
//!   type's traced text, cached per type (types that borrow from the input,
//!   like `Msg<'a>` with `&'a str` fields, included);
//! - a [`Schema<T>`] carries a type's text and hash *and* the options to use
//!   ([`Schema::with_options`]), or a text given by hand
//!   ([`Schema::from_text`]); its methods have the same names.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! struct Point { x: i32, y: i32 }
//!
//! let bytes = kiln_serde::framed::to_vec(&Point { x: 9, y: -4 }).unwrap();
//! assert_eq!(&bytes[..8], b"KILN\x02\x00\x01\x00");
//! assert_eq!(bytes[8..16], 0x5e8fcc49ab06d825u64.to_le_bytes());
//! assert_eq!(bytes[16..], [0x09, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff]);
//!
//! let back: Point = kiln_serde::framed::from_slice(&bytes).unwrap();
//! assert_eq!(back, Point { x: 9, y: -4 });
//!
//! #[derive(Deserialize, Debug)]
//! #[serde(rename = "Point")]
//! struct Swapped { y: i32, x: i32 }
//!
//! let err = kiln_serde::framed::from_slice::<Swapped>(&bytes).unwrap_err();
//! assert_eq!(err.code(), kiln_serde::ErrorCode::Schema);
//! assert_eq!(err.offset(), Some(8));
//! ```

use std::any::type_name;
use std::io::{BufRead, Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::options::Options;
use crate::schema;

mod codec;
mod handle;

pub use handle::Schema;

/// Encodes `value` as a framed buffer with the hash of `T`.
///
/// # Errors
///
/// MESSAGE when the type text of `T` cannot be traced (see
/// [`schema`]); otherwise as [`crate::to_vec`], with offsets
/// counted from the start of the frame.
///
/// # Examples
///
/// ```
/// let bytes = kiln_serde::framed::to_vec(&7u8).unwrap();
/// assert_eq!((bytes.len(), bytes[16]), (17, 7));
/// ```
// Always inlined: returned from a call, the `Vec` was stored as three
// words and reloaded by the caller in one 16-byte move, a store-forwarding
// stall (32 bytes, LTO: 22 ns against `Schema::to_vec`'s 12; 188 -> 176
// instructions). LLVM declined a plain `#[inline]`.
#[inline(always)]
pub fn to_vec<'de, T>(value: &T) -> Result<Vec<u8>>
where
    T: Serialize + Deserialize<'de>,
{
    codec::write_vec(
        &Options::DEFAULT,
        &codec::header(schema::hash::<T>()?),
        value,
    )
}

/// Encodes `value` framed (header with the hash of `T`, then the value),
/// appending to `out`: the reused-buffer form of [`to_vec`]. On error `out`
/// keeps its old contents. Calls `value.serialize` as [`crate::to_extend`]
/// does.
///
/// # Errors
///
/// As [`to_vec`]; error offsets count from the start of `out`.
///
/// # Examples
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Tick { seq: u32 }
///
/// let mut buf = Vec::new();
/// for seq in 0..3 {
///     buf.clear();
///     kiln_serde::framed::to_extend(&mut buf, &Tick { seq }).unwrap();
///     assert_eq!(buf.len(), 16 + 4);
///     assert_eq!(kiln_serde::framed::from_slice::<Tick>(&buf).unwrap(), Tick { seq });
/// }
/// ```
#[inline]
pub fn to_extend<'de, T>(out: &mut Vec<u8>, value: &T) -> Result<()>
where
    T: Serialize + Deserialize<'de>,
{
    codec::write_extend(
        &Options::DEFAULT,
        &codec::header(schema::hash::<T>()?),
        out,
        value,
    )
}

/// Encodes `value` framed (header with the hash of `T`, then the value)
/// into the front of `buf`, a fixed buffer, and returns the bytes written:
/// the fixed-buffer form of [`to_vec`] (see [`crate::to_slice`]).
///
/// # Errors
///
/// As [`to_vec`]; LIMIT at offset `buf.len()` with
/// [`ErrorDetail::BufferFull`](crate::error::ErrorDetail::BufferFull)
/// (the bytes the frame and value need) when they do not fit.
///
/// # Examples
///
/// ```
/// let mut buf = [0u8; 64];
/// let n = kiln_serde::framed::to_slice(&mut buf, &7u32).unwrap();
/// assert_eq!(&buf[..n], kiln_serde::framed::to_vec(&7u32).unwrap());
/// assert!(kiln_serde::framed::to_slice(&mut buf[..19], &7u32).is_err());
/// ```
pub fn to_slice<'de, T>(buf: &mut [u8], value: &T) -> Result<usize>
where
    T: Serialize + Deserialize<'de>,
{
    codec::write_slice(
        &Options::DEFAULT,
        &codec::header(schema::hash::<T>()?),
        buf,
        value,
    )
}

/// Writes `value` as a framed value into `writer`.
///
/// # Errors
///
/// As [`to_vec`], plus IO when the writer fails.
///
/// # Examples
///
/// ```
/// let mut out = Vec::new();
/// kiln_serde::framed::to_writer(&mut out, &7u8).unwrap();
/// assert_eq!(out, kiln_serde::framed::to_vec(&7u8).unwrap());
/// ```
pub fn to_writer<'de, W, T>(writer: W, value: &T) -> Result<()>
where
    W: Write,
    T: Serialize + Deserialize<'de>,
{
    codec::write_to(
        &Options::DEFAULT,
        &codec::header(schema::hash::<T>()?),
        writer,
        value,
    )
}

/// Decodes a framed buffer holding exactly one value of `T`. `&str` and
/// `&[u8]` fields borrow from `bytes`.
///
/// # Errors
///
/// EOF (offset 0) for fewer than 16 bytes; FRAME for a wrong header byte;
/// SCHEMA at 8 when the frame's hash is not the hash of `T`, before any field
/// is read; MESSAGE when `T` cannot be traced; then as [`crate::from_slice`]
/// with offsets counted from the start of the frame.
///
/// # Examples
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
/// struct Msg<'a> { id: u32, text: &'a str }
///
/// let bytes = kiln_serde::framed::to_vec(&Msg { id: 1, text: "hi" }).unwrap();
/// let msg: Msg<'_> = kiln_serde::framed::from_slice(&bytes).unwrap();
/// assert_eq!(msg, Msg { id: 1, text: "hi" });
/// ```
pub fn from_slice<'de, T>(bytes: &'de [u8]) -> Result<T>
where
    T: Deserialize<'de>,
{
    codec::read_slice(
        &Options::DEFAULT,
        bytes,
        schema::hash::<T>,
        type_name::<T>(),
    )
}

/// Decodes one framed value of `T` from a stream, reading exactly its bytes.
/// A `&[u8]` or `&mut &[u8]` reader, or a `Cursor` over bytes, is read in
/// place, header and value, as [`crate::from_reader`] reads one: moved past
/// the frame, or left where it was after an error.
///
/// # Errors
///
/// As [`from_slice`] (EOF at 0 when the stream ends inside the header), plus IO.
///
/// # Examples
///
/// ```
/// let bytes = kiln_serde::framed::to_vec(&"hi".to_string()).unwrap();
/// let s: String = kiln_serde::framed::from_reader(&bytes[..]).unwrap();
/// assert_eq!(s, "hi");
/// ```
#[inline]
pub fn from_reader<R, T>(reader: R) -> Result<T>
where
    R: Read,
    T: DeserializeOwned,
{
    // The default options have no total size limit: no test for one.
    codec::read_stream::<R, T, false>(
        &Options::DEFAULT,
        reader,
        schema::hash::<T>,
        type_name::<T>(),
    )
}

/// [`from_reader`] for an `io::BufRead`, and faster: the value is read as
/// [`crate::from_bufread`] reads one. The same values, errors and stream
/// position as [`from_reader`].
///
/// # Errors
///
/// As [`from_reader`].
///
/// # Examples
///
/// ```
/// let bytes = kiln_serde::framed::to_vec(&"hi".to_string()).unwrap();
/// let mut input = std::io::BufReader::new(&bytes[..]);
/// let s: String = kiln_serde::framed::from_bufread(&mut input).unwrap();
/// assert_eq!(s, "hi");
/// ```
#[inline]
pub fn from_bufread<R, T>(reader: R) -> Result<T>
where
    R: BufRead,
    T: DeserializeOwned,
{
    codec::read_bufread::<R, T, false>(
        &Options::DEFAULT,
        reader,
        schema::hash::<T>,
        type_name::<T>(),
    )
}
