//! bincode 1.3's `de` module: the public [`Deserializer`] and the
//! [`read`] module with [`BincodeRead`].
//!
//! The `Deserializer` is a thin wrapper: `&mut Deserializer<R, O>`
//! implements `serde::Deserializer` by forwarding every method to Kiln's
//! [`crate::de::Deserializer`] running over `R`, and translates its errors
//! to [`ErrorKind`]s.

mod bridge;
pub mod read;

use std::io;

use self::bridge::Bridge;
use self::read::{BincodeRead, IoReader, SliceReader};
use super::config::Options;
use super::error::from_kiln;
use super::{Error, ErrorKind};

/// bincode 1.3's deserializer: reads Kiln's bytes from a [`BincodeRead`].
///
/// Rarely needed: prefer [`deserialize`](super::deserialize),
/// [`deserialize_from`](super::deserialize_from) or the [`Options`] methods.
/// It applies the byte limit of `O` and never checks for trailing bytes.
///
/// # Examples
/// ```
/// use kiln_serde::bincode::{self, DefaultOptions, Deserializer};
/// use serde::Deserialize;
///
/// let bytes = bincode::serialize(&(7u8, "seven")).unwrap();
/// let mut de = Deserializer::from_slice(&bytes, DefaultOptions::new());
/// let v: (u8, &str) = Deserialize::deserialize(&mut de).unwrap();
/// assert_eq!(v, (7, "seven"));
/// ```
pub struct Deserializer<R, O: Options> {
    de: crate::de::Decoder<Bridge<R>>,
    _options: O,
}

impl<IR: io::Read, O: Options> Deserializer<IoReader<IR>, O> {
    /// A deserializer reading from an `io::Read`.
    pub fn with_reader(r: IR, options: O) -> Self {
        Deserializer::with_bincode_read(IoReader::new(r), options)
    }
}

impl<'de, O: Options> Deserializer<SliceReader<'de>, O> {
    /// A deserializer reading from a slice; `&str` and `&[u8]` borrow from it.
    pub fn from_slice(slice: &'de [u8], options: O) -> Self {
        Deserializer::with_bincode_read(SliceReader::new(slice), options)
    }
}

impl<'de, R: BincodeRead<'de>, O: Options> Deserializer<R, O> {
    /// A deserializer reading from a [`BincodeRead`]; bytes it lends for
    /// `'de` (`visit_borrowed_bytes`) are borrowed by the value.
    pub fn with_bincode_read(r: R, options: O) -> Deserializer<R, O> {
        let kiln = options.kiln_options();
        let limits = kiln.limits();
        Deserializer {
            de: crate::de::Decoder::new(Bridge::new(r, limits.limit()), limits),
            _options: options,
        }
    }
}

/// A Kiln error as a bincode [`Error`]; an error raised by the user's
/// `BincodeRead` (carried through Kiln as IO) comes back as it was.
#[cold]
pub(crate) fn passing(err: crate::Error) -> Error {
    let ours = err
        .io_error()
        .and_then(io::Error::get_ref)
        .is_some_and(|inner| inner.is::<ErrorKind>());
    if ours {
        if let Some(kind) = err
            .into_io_error()
            .and_then(io::Error::into_inner)
            .and_then(|inner| inner.downcast::<ErrorKind>().ok())
        {
            return kind;
        }
        return Box::new(ErrorKind::Custom("error of the BincodeRead".to_string()));
    }
    from_kiln(err)
}

/// [`crate::de::Decoder::settle`], then bincode's error for it.
fn settle<'de, R: crate::read::Read<'de>>(
    de: &mut crate::de::Decoder<R>,
    e: crate::Error,
) -> Error {
    passing(de.settle(e))
}

impl<'de, R: BincodeRead<'de>, O: Options> serde::Deserializer<'de> for &mut Deserializer<R, O> {
    type Error = Error;

    crate::de::forward_settled!(settle);
}
