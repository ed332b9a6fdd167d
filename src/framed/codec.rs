//! The frame around a value: writing the header then the value, reading
//! and checking the header then the value. Every framed entry point
//! ([`Schema`](super::Schema)'s methods and the free functions) comes
//! through here with its options and the hash to write or expect.

use std::io::{BufRead, Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::frame::{self, FrameHeader, FRAME_LEN};
use crate::options::Options;

/// The header, then the value.
#[inline(always)]
pub(super) fn write_vec<T: ?Sized + Serialize>(
    opts: &Options,
    head: &[u8; FRAME_LEN],
    value: &T,
) -> Result<Vec<u8>> {
    let out = crate::ser::buffer_for(value, opts.limits(), FRAME_LEN);
    crate::ser::fill_new(out, head, value, opts.limits())
}

/// The hashed header: the constant first 8 bytes, then the hash, built as
/// one 16-byte integer, so that it is written as one append with one
/// capacity check (two 8-byte appends cost 6 instructions more). (Copying a
/// `[u8; 16]` built on the stack byte by byte reloaded it as one 16-byte
/// value before the small stores had landed: a store-forwarding stall that
/// cost ~10 ns on a 32-byte message.)
#[inline(always)]
pub(super) fn header(hash: u64) -> [u8; FRAME_LEN] {
    (u128::from(u64::from_le_bytes(HASHED_HEAD)) | (u128::from(hash) << 64)).to_le_bytes()
}

/// The hash in a [`header`].
#[inline]
pub(super) fn header_hash(head: &[u8; FRAME_LEN]) -> u64 {
    let [.., a, b, c, d, e, f, g, h] = *head;
    u64::from_le_bytes([a, b, c, d, e, f, g, h])
}

/// The header, then the value, appended to `out`.
#[inline(always)]
pub(super) fn write_extend<T: ?Sized + Serialize>(
    opts: &Options,
    head: &[u8; FRAME_LEN],
    out: &mut Vec<u8>,
    value: &T,
) -> Result<()> {
    crate::ser::extend_with(out, head, value, opts.limits())
}

/// The header, then the value, into the front of `buf`.
#[inline(always)]
pub(super) fn write_slice<T: ?Sized + Serialize>(
    opts: &Options,
    head: &[u8; FRAME_LEN],
    buf: &mut [u8],
    value: &T,
) -> Result<usize> {
    crate::ser::fill_slice(buf, head, value, opts.limits())
}

pub(super) fn write_to<W: Write, T: ?Sized + Serialize>(
    opts: &Options,
    head: &[u8; FRAME_LEN],
    mut writer: W,
    value: &T,
) -> Result<()> {
    writer.write_all(head).map_err(|e| Error::io(e, Some(0)))?;
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
    expected: &impl Fn() -> Result<u64>,
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
pub(super) const HASHED_HEAD: [u8; 8] = [
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
pub(super) fn read_slice<'de, T: Deserialize<'de>>(
    opts: &Options,
    bytes: &'de [u8],
    expected: impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    // One decode call for both header paths: two would meet as one
    // `Result<T>` in memory, and with LTO the caller reloaded it wider than
    // it was stored (a failed store forward: a 32-byte message took 6-7
    // ns, now 2.7).
    let body = checked_body(opts, bytes, &expected, type_name)?;
    opts.from_slice(body)
        .map_err(|e| e.shifted(FRAME_LEN as u64))
}

/// The body of the frame at the front of `bytes`, its header checked.
/// Fast path: a hashed header whose first 8 bytes are exactly
/// [`HASHED_HEAD`] passes every FRAME check, so only the hash is left to
/// compare; anything else takes the full parse ([`slow_body`]: the same
/// errors).
#[inline(always)]
fn checked_body<'de>(
    opts: &Options,
    bytes: &'de [u8],
    expected: &impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<&'de [u8]> {
    match fast_body(bytes) {
        Some((found, body)) => {
            let want = expected()?;
            if want != found {
                return Err(mismatch(found, want, type_name));
            }
            Ok(body)
        }
        None => slow_body(opts, bytes, expected, type_name),
    }
}

/// The hash and the body of a frame whose first 8 bytes are exactly
/// [`HASHED_HEAD`]; `None` for anything else.
#[inline(always)]
fn fast_body(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let (head, body) = crate::raw::split_first_chunk::<FRAME_LEN>(bytes)?;
    let (fixed, hash) = crate::raw::split_first_chunk::<8>(head)?;
    if *fixed != HASHED_HEAD {
        return None;
    }
    let found = u64::from_le_bytes(*crate::raw::first_chunk::<8>(hash)?);
    Some((found, body))
}

/// The body of any other frame, after the full parse and hash check (the
/// errors of [`frame::parse`] and [`check_hash`]).
#[inline(never)]
fn slow_body<'de>(
    opts: &Options,
    bytes: &'de [u8],
    expected: &impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<&'de [u8]> {
    let header = frame::parse(bytes)?;
    check_hash(opts, &header, expected, type_name)?;
    Ok(bytes.get(FRAME_LEN..).unwrap_or_default())
}

/// One framed value from the front of `bytes`, for a reader that is a
/// slice or a cursor over one (`raw::with_slice_reader`): the header
/// checked as [`read_slice`] checks it ([`checked_body`]), the value decoded in place as
/// `from_reader` decodes a slice's (`de::take_in_place`, whose `?` it
/// keeps); the value, with `used` set to the bytes of the frame and value,
/// or the error, `used` left as it was (and the reader with it).
#[inline(always)]
fn take_framed<T: DeserializeOwned>(
    opts: &Options,
    bytes: &[u8],
    expected: &impl Fn() -> Result<u64>,
    type_name: &str,
    used: &mut usize,
) -> Result<T> {
    let body = checked_body(opts, bytes, expected, type_name)?;
    let v = crate::de::take_in_place::<T>(body, opts.limits(), used)
        .map_err(|e| e.shifted(FRAME_LEN as u64))?;
    *used += FRAME_LEN;
    Ok(v)
}

/// `LIMITED` false (no limit test on any read) only where the options
/// have no limit (the free functions; `Schema::from_reader` tests).
///
/// A slice or cursor reader (`raw::with_slice_reader`), with or without a
/// total size limit, is read in place, header and value ([`read_in_place`]):
/// the same value or error code and offset as a stream, and the reader
/// left where it was after an error. Inlined, so that the value is decoded
/// where the caller uses it (returned through an out-of-line call, a
/// 32-byte value came back in memory and was copied on in loads wider
/// than the stores: `framed::from_reader(&mut &[u8])` without LTO, one
/// API per program, 36 ns against `framed::from_slice`'s 11); other
/// readers go on to [`read_from_stream`], out of line.
#[inline]
pub(super) fn read_stream<R: Read, T: DeserializeOwned, const LIMITED: bool>(
    opts: &Options,
    mut reader: R,
    expected: impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    match read_in_place(opts, &mut reader, &expected, type_name) {
        Some(r) => r,
        None => read_from_stream::<R, T, LIMITED>(opts, reader, expected, type_name),
    }
}

/// [`read_stream`] for a slice or cursor reader, moved past the frame;
/// `None` for any other reader.
#[inline(always)]
pub(super) fn read_in_place<R: Read, T: DeserializeOwned>(
    opts: &Options,
    reader: &mut R,
    expected: &impl Fn() -> Result<u64>,
    type_name: &str,
) -> Option<Result<T>> {
    crate::raw::with_slice_reader(reader, |bytes| {
        let mut used = 0;
        let r = take_framed(opts, bytes, expected, type_name, &mut used);
        (r, used)
    })
}

/// [`read_stream`] for a reader that is not a slice: the header, then the
/// value.
pub(super) fn read_from_stream<R: Read, T: DeserializeOwned, const LIMITED: bool>(
    opts: &Options,
    reader: R,
    expected: impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    after_header(opts, reader, &expected, type_name, |r, limits| {
        crate::de::from_reader::<_, T, LIMITED>(r, limits)
    })
}

/// The header from a stream, its hash checked, then the value by
/// `decode`, its error offsets counted from the frame's start.
#[inline(always)]
fn after_header<R: Read, T>(
    opts: &Options,
    mut reader: R,
    expected: &impl Fn() -> Result<u64>,
    type_name: &str,
    decode: impl FnOnce(R, &crate::limits::Limits) -> Result<T>,
) -> Result<T> {
    let header = frame::read_header(&mut reader)?;
    check_hash(opts, &header, expected, type_name)?;
    decode(reader, opts.limits()).map_err(|e| e.shifted(FRAME_LEN as u64))
}

/// [`read_stream`] for an `io::BufRead`: a slice or cursor in place, else
/// the header, then the value through [`crate::de::from_bufread`].
#[inline]
pub(super) fn read_bufread<R: BufRead, T: DeserializeOwned, const LIMITED: bool>(
    opts: &Options,
    mut reader: R,
    expected: impl Fn() -> Result<u64>,
    type_name: &str,
) -> Result<T> {
    if let Some(r) = read_in_place(opts, &mut reader, &expected, type_name) {
        return r;
    }
    after_header(opts, reader, &expected, type_name, |r, limits| {
        crate::de::from_bufread::<_, T, LIMITED>(r, limits)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame;

    #[test]
    fn the_fast_header_is_the_encoded_header() {
        for hash in [0, 1, 0x5e8f_cc49_ab06_d825, u64::MAX] {
            assert_eq!(header(hash), frame::encode(Some(hash)));
            assert_eq!(header(hash)[..8], HASHED_HEAD);
            assert_eq!(header_hash(&header(hash)), hash);
            // Appended after existing bytes, with the value after it.
            let mut out = vec![0xEE];
            write_extend(&Options::DEFAULT, &header(hash), &mut out, &7u8).unwrap();
            assert_eq!(out[0], 0xEE);
            assert_eq!(out[1..17], frame::encode(Some(hash)));
            assert_eq!(out[17..], [7]);
        }
    }
}
