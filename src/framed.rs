//! Framed values: the 16-byte [frame] with the schema hash of
//! the type, then one Frozen value.
//!
//! Writing puts the FNV-1a 64 hash of the type's canonical
//! [type text](crate::schema) in the header. Reading checks the header, then
//! compares the hash with the reader's type *before the first field is read*:
//! a different hash is SCHEMA at offset 8. A frame without a hash is accepted,
//! unless [`Options::require_hash`] is set, in which case it is SCHEMA at
//! offset 6 (the flags byte that says no hash follows). Offsets in errors
//! count from the start of the frame, so a fault in the value's first byte is
//! reported at 16. The caps of [`Options`] apply to the value; the total
//! `limit` does not count the 16 header bytes.
//!
//! The free functions need a `'static` type, whose text and hash are traced
//! once and cached. For a type that borrows from the input (`Msg<'a>` with
//! `&'a str` fields), keep a [`Schema`] and use its methods of the same names.
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
use std::io::{Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::frame::{self, FrameHeader, FRAME_LEN};
use crate::options::Options;
use crate::schema::{self, Schema};

/// Encodes `value` as a framed buffer with the hash of `T`.
///
/// # Errors
///
/// MESSAGE when the type text of `T` cannot be traced (see
/// [`schema`]); otherwise as [`to_vec`](crate::to_vec), with
/// offsets counted from the start of the frame.
pub fn to_vec<T>(value: &T) -> Result<Vec<u8>>
where
    T: Serialize + DeserializeOwned + 'static,
{
    to_vec_with(&Options::DEFAULT, value)
}

/// [`to_vec`] with options.
///
/// # Errors
///
/// As [`to_vec`]; LIMIT past a cap.
pub fn to_vec_with<T>(opts: &Options, value: &T) -> Result<Vec<u8>>
where
    T: Serialize + DeserializeOwned + 'static,
{
    write_vec(opts, schema::hash::<T>()?, value)
}

/// Writes `value` as a framed value into `writer`.
///
/// # Errors
///
/// As [`to_vec`], plus IO when the writer fails.
pub fn to_writer<W, T>(writer: W, value: &T) -> Result<()>
where
    W: Write,
    T: Serialize + DeserializeOwned + 'static,
{
    to_writer_with(&Options::DEFAULT, writer, value)
}

/// [`to_writer`] with options.
///
/// # Errors
///
/// As [`to_writer`]; LIMIT past a cap.
pub fn to_writer_with<W, T>(opts: &Options, writer: W, value: &T) -> Result<()>
where
    W: Write,
    T: Serialize + DeserializeOwned + 'static,
{
    write_to(opts, schema::hash::<T>()?, writer, value)
}

/// Encodes `value` framed (header with the hash of `T`, then the value),
/// appending to `out`: the reused-buffer form of [`to_vec`]. On error `out`
/// keeps its old contents.
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
pub fn to_extend<T>(out: &mut Vec<u8>, value: &T) -> Result<()>
where
    T: Serialize + DeserializeOwned + 'static,
{
    to_extend_with(&Options::DEFAULT, out, value)
}

/// [`to_extend`] with options.
///
/// # Errors
///
/// As [`to_extend`]; LIMIT past the total limit (which does not count the
/// header).
pub fn to_extend_with<T>(opts: &Options, out: &mut Vec<u8>, value: &T) -> Result<()>
where
    T: Serialize + DeserializeOwned + 'static,
{
    write_extend(opts, schema::hash::<T>()?, out, value)
}

/// Decodes a framed buffer holding exactly one value of `T`.
///
/// # Errors
///
/// EOF (offset 0) for fewer than 16 bytes; FRAME for a wrong header byte;
/// SCHEMA at 8 when the frame's hash is not the hash of `T` (at 6 when the
/// frame has no hash and the options require one), before any field is read;
/// MESSAGE when `T` cannot be traced; then as [`from_slice`](crate::from_slice)
/// with offsets counted from the start of the frame.
pub fn from_slice<T>(bytes: &[u8]) -> Result<T>
where
    T: DeserializeOwned + 'static,
{
    from_slice_with(&Options::DEFAULT, bytes)
}

/// [`from_slice`] with options.
///
/// # Errors
///
/// As [`from_slice`]; LIMIT past a cap.
pub fn from_slice_with<T>(opts: &Options, bytes: &[u8]) -> Result<T>
where
    T: DeserializeOwned + 'static,
{
    read_slice(opts, bytes, schema::hash::<T>, type_name::<T>())
}

/// Decodes one framed value of `T` from a stream, reading exactly its bytes.
///
/// # Errors
///
/// As [`from_slice`] (EOF at 0 when the stream ends inside the header), plus IO.
pub fn from_reader<R, T>(reader: R) -> Result<T>
where
    R: Read,
    T: DeserializeOwned + 'static,
{
    from_reader_with(&Options::DEFAULT, reader)
}

/// [`from_reader`] with options.
///
/// # Errors
///
/// As [`from_reader`]; LIMIT past a cap.
pub fn from_reader_with<R, T>(opts: &Options, reader: R) -> Result<T>
where
    R: Read,
    T: DeserializeOwned + 'static,
{
    read_stream(opts, reader, schema::hash::<T>, type_name::<T>())
}

/// The header, then the value.
#[inline(always)]
fn write_vec<T: ?Sized + Serialize>(opts: &Options, hash: u64, value: &T) -> Result<Vec<u8>> {
    let out = crate::ser::buffer_for(value, opts.limits(), FRAME_LEN);
    crate::ser::fill_new(out, header(hash), value, opts.limits())
}

/// The hashed header: the constant first 8 bytes, then the hash, built as
/// one 16-byte integer, so that it is written as one append with one
/// capacity check (two 8-byte appends cost 6 instructions more). (Copying a
/// `[u8; 16]` built on the stack byte by byte reloaded it as one 16-byte
/// value before the small stores had landed: a store-forwarding stall that
/// cost ~10 ns on a 32-byte message.)
#[inline(always)]
fn header(hash: u64) -> [u8; FRAME_LEN] {
    (u128::from(u64::from_le_bytes(HASHED_HEAD)) | (u128::from(hash) << 64)).to_le_bytes()
}

/// The header, then the value, appended to `out`.
#[inline(always)]
fn write_extend<T: ?Sized + Serialize>(
    opts: &Options,
    hash: u64,
    out: &mut Vec<u8>,
    value: &T,
) -> Result<()> {
    crate::ser::extend_with(out, header(hash), value, opts.limits())
}

fn write_to<W: Write, T: ?Sized + Serialize>(
    opts: &Options,
    hash: u64,
    mut writer: W,
    value: &T,
) -> Result<()> {
    writer
        .write_all(&frame::encode(Some(hash)))
        .map_err(|e| Error::io(e, Some(0)))?;
    opts.to_writer(&mut writer, value)
        .map_err(|e| e.shifted(FRAME_LEN as u64))
}

/// Compares the frame's hash with the reader's, computing the reader's only
/// when the frame has one.
#[cold]
#[inline(never)]
fn mismatch(found: u64, want: u64, type_name: &str) -> Error {
    Error::at(
        ErrorCode::Schema,
        8,
        format!(
            "the frame's schema hash {found:#018x} is not {want:#018x}, the hash of \
             the type text of `{type_name}`: the writer's type differs"
        ),
    )
}

fn check_hash(
    opts: &Options,
    header: &FrameHeader,
    expected: impl FnOnce() -> Result<u64>,
    type_name: &str,
) -> Result<()> {
    match header.hash {
        Some(found) => {
            let want = expected()?;
            if found == want {
                Ok(())
            } else {
                Err(mismatch(found, want, type_name))
            }
        }
        None if opts.requires_hash() => Err(Error::at(
            ErrorCode::Schema,
            6,
            format!(
                "the frame carries no schema hash and the reader of `{type_name}` requires one"
            ),
        )),
        None => Ok(()),
    }
}

/// The first 8 bytes of every valid frame that carries a hash.
const HASHED_HEAD: [u8; 8] = [
    frame::MAGIC[0],
    frame::MAGIC[1],
    frame::MAGIC[2],
    frame::MAGIC[3],
    frame::VERSION,
    frame::PROFILE_FROZEN,
    frame::FLAG_HASH,
    0,
];

#[inline]
fn read_slice<'de, T: Deserialize<'de>>(
    opts: &Options,
    bytes: &'de [u8],
    expected: impl FnOnce() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    // Fast path: a hashed header whose first 8 bytes are exactly
    // the valid ones passes every FRAME check; only the hash is left to
    // compare. Anything else takes the full parse (same errors as before).
    if let Some((head, body)) = crate::raw::split_first_chunk::<FRAME_LEN>(bytes) {
        if let Some((fixed, hash)) = crate::raw::split_first_chunk::<8>(head) {
            if *fixed == HASHED_HEAD {
                let found =
                    u64::from_le_bytes(*crate::raw::first_chunk::<8>(hash).unwrap_or(&[0; 8]));
                let want = expected()?;
                if want != found {
                    return Err(mismatch(found, want, type_name));
                }
                return opts
                    .from_slice(body)
                    .map_err(|e| e.shifted(FRAME_LEN as u64));
            }
        }
    }
    let header = frame::parse(bytes)?;
    check_hash(opts, &header, expected, type_name)?;
    let body = bytes.get(FRAME_LEN..).unwrap_or_default();
    opts.from_slice(body)
        .map_err(|e| e.shifted(FRAME_LEN as u64))
}

fn read_stream<R: Read, T: DeserializeOwned>(
    opts: &Options,
    mut reader: R,
    expected: impl FnOnce() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    let header = frame::read_header(&mut reader)?;
    check_hash(opts, &header, expected, type_name)?;
    opts.from_reader(&mut reader)
        .map_err(|e| e.shifted(FRAME_LEN as u64))
}

/// Framed reading and writing with a kept [`Schema`]: the way to frame types
/// that borrow from the input, or types whose text was given by hand.
///
/// A `Schema<Msg<'static>>` can be kept for the life of the program and used
/// to read a `Msg<'a>` from a shorter-lived buffer.
///
/// ```
/// use kiln_serde::schema::Schema;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Msg<'a> { id: u32, text: &'a str }
///
/// let schema: Schema<Msg<'static>> = Schema::new().unwrap();
/// let bytes = schema.to_vec(&Msg { id: 1, text: "hi" }).unwrap();
/// let buffer = bytes.clone(); // a buffer that does not live for 'static
/// let msg: Msg<'_> = schema.from_slice(&buffer).unwrap();
/// assert_eq!(msg, Msg { id: 1, text: "hi" });
/// ```
impl<T> Schema<T> {
    /// Encodes `value` as a framed buffer with this schema's hash.
    ///
    /// # Errors
    ///
    /// As [`to_vec`](crate::to_vec), offsets counted from the frame start.
    pub fn to_vec(&self, value: &T) -> Result<Vec<u8>>
    where
        T: Serialize,
    {
        write_vec(&Options::DEFAULT, self.hash(), value)
    }

    /// [`Schema::to_vec`] with options.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`]; LIMIT past a cap.
    pub fn to_vec_with(&self, opts: &Options, value: &T) -> Result<Vec<u8>>
    where
        T: Serialize,
    {
        write_vec(opts, self.hash(), value)
    }

    /// Encodes `value` framed with this schema's hash, appending to `out`
    /// (the reused-buffer form of [`Schema::to_vec`]; on error `out` keeps
    /// its old contents).
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`]; error offsets count from the start of `out`.
    pub fn to_extend(&self, out: &mut Vec<u8>, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        write_extend(&Options::DEFAULT, self.hash(), out, value)
    }

    /// [`Schema::to_extend`] with options.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_extend`]; LIMIT past the total limit (not counting
    /// the header).
    pub fn to_extend_with(&self, opts: &Options, out: &mut Vec<u8>, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        write_extend(opts, self.hash(), out, value)
    }

    /// Writes `value` framed with this schema's hash into `writer`.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`], plus IO when the writer fails.
    pub fn to_writer<W: Write>(&self, writer: W, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        write_to(&Options::DEFAULT, self.hash(), writer, value)
    }

    /// [`Schema::to_writer`] with options.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_writer`]; LIMIT past a cap.
    pub fn to_writer_with<W: Write>(&self, opts: &Options, writer: W, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        write_to(opts, self.hash(), writer, value)
    }

    /// Decodes a framed buffer; `&str` and `&[u8]` fields borrow from it.
    ///
    /// # Errors
    ///
    /// As [`from_slice`], with this schema's hash.
    pub fn from_slice<'de>(&self, bytes: &'de [u8]) -> Result<T>
    where
        T: Deserialize<'de>,
    {
        self.from_slice_with(&Options::DEFAULT, bytes)
    }

    /// [`Schema::from_slice`] with options.
    ///
    /// # Errors
    ///
    /// As [`Schema::from_slice`]; LIMIT past a cap.
    pub fn from_slice_with<'de>(&self, opts: &Options, bytes: &'de [u8]) -> Result<T>
    where
        T: Deserialize<'de>,
    {
        read_slice(opts, bytes, || Ok(self.hash()), type_name::<T>())
    }

    /// Decodes one framed value from a stream, reading exactly its bytes.
    ///
    /// # Errors
    ///
    /// As [`from_reader`], with this schema's hash.
    pub fn from_reader<R: Read>(&self, reader: R) -> Result<T>
    where
        T: DeserializeOwned,
    {
        self.from_reader_with(&Options::DEFAULT, reader)
    }

    /// [`Schema::from_reader`] with options.
    ///
    /// # Errors
    ///
    /// As [`Schema::from_reader`]; LIMIT past a cap.
    pub fn from_reader_with<R: Read>(&self, opts: &Options, reader: R) -> Result<T>
    where
        T: DeserializeOwned,
    {
        read_stream(opts, reader, || Ok(self.hash()), type_name::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_header_is_the_encoded_header() {
        for hash in [0, 1, 0x5e8f_cc49_ab06_d825, u64::MAX] {
            assert_eq!(header(hash), frame::encode(Some(hash)));
            assert_eq!(header(hash)[..8], HASHED_HEAD);
            // Appended after existing bytes, with the value after it.
            let mut out = vec![0xEE];
            write_extend(&Options::DEFAULT, hash, &mut out, &7u8).unwrap();
            assert_eq!(out[0], 0xEE);
            assert_eq!(out[1..17], frame::encode(Some(hash)));
            assert_eq!(out[17..], [7]);
        }
    }
}
