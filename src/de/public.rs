//! The public [`Deserializer`]: the decoder behind a boundary that
//! completes every error leaving it.
//!
//! A slice read that finds too few bytes does not build its error from the
//! reader (that would hand the reader's address to a call on every read
//! that can fail, and keep the whole decoder in memory): it leaves the
//! error pending (a fixed-width read also moves the reader to the input's
//! end), and whoever holds the decoder completes it, and moves the reader
//! back to the failed read's start, once the decode stops
//! (`Decoder::settle`). The crate's entry points do that
//! themselves; this type does it for a caller who drives the decoder by
//! hand, on every value it is asked for, so its errors are the entry
//! points' errors.

use serde::de;

use super::Decoder;
use crate::error::Result;
use crate::limits::Limits;
use crate::read::{BufIoRead, IoRead, Read, SliceRead};

/// The Frozen deserializer, over a slice ([`Deserializer::from_slice`],
/// zero-copy for `&str` and `&[u8]`) or a stream
/// ([`Deserializer::from_reader`]).
///
/// The crate's functions ([`crate::from_slice`], [`Options`](crate::Options)'s
/// methods) build one for you; build one yourself to drive a
/// `DeserializeSeed`, or to read several values from one input and see
/// where each ends. Its errors carry the same code and offset as the
/// crate's functions give for the same bytes.
///
/// # Examples
///
/// ```
/// use kiln_serde::{de::Deserializer, Limits};
/// use serde::Deserialize;
///
/// let mut de = Deserializer::from_slice(&[1, 2, 0], &Limits::DEFAULT);
/// let a = u8::deserialize(&mut de).unwrap();
/// let b = u16::deserialize(&mut de).unwrap();
/// de.end().unwrap(); // TRAILING if bytes were left
/// assert_eq!((a, b), (1, 2));
/// ```
pub struct Deserializer<R> {
    de: Decoder<R>,
}

impl<'de> Deserializer<SliceRead<'de>> {
    /// A deserializer reading from a slice (zero-copy for `&str`/`&[u8]`).
    pub fn from_slice(slice: &'de [u8], limits: &Limits) -> Self {
        Deserializer {
            de: Decoder::from_slice(slice, limits),
        }
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'de [u8] {
        self.de.rest()
    }
}

impl<R: std::io::Read> Deserializer<IoRead<R>> {
    /// A deserializer reading from a stream.
    pub fn from_reader(reader: R, limits: &Limits) -> Self {
        Deserializer {
            de: Decoder::from_stream(reader, limits),
        }
    }
}

impl<'r, R: std::io::BufRead + ?Sized> Deserializer<BufIoRead<'r, R>> {
    /// A deserializer reading from an `io::BufRead`, through a copy of
    /// the front of its buffer ([`crate::from_bufread`]); the stream is
    /// consumed past the bytes read when the deserializer is dropped.
    ///
    /// # Examples
    ///
    /// ```
    /// use kiln_serde::{de::Deserializer, Limits};
    /// use serde::Deserialize;
    /// use std::io::{BufRead, BufReader};
    ///
    /// let mut input = BufReader::new(&[1, 2, 0, 9][..]);
    /// let mut de = Deserializer::from_bufread(&mut input, &Limits::DEFAULT);
    /// let a = u8::deserialize(&mut de).unwrap();
    /// let b = u16::deserialize(&mut de).unwrap();
    /// assert_eq!((a, b, de.offset()), (1, 2, 3));
    /// drop(de);
    /// assert_eq!(input.fill_buf().unwrap(), [9]);
    /// ```
    pub fn from_bufread(reader: &'r mut R, limits: &Limits) -> Self {
        Deserializer {
            de: Decoder::new(BufIoRead::new(reader, limits.limit), limits),
        }
    }
}

impl<'de, R: Read<'de>> Deserializer<R> {
    /// A deserializer over any reader.
    pub fn new(read: R, limits: &Limits) -> Self {
        Deserializer {
            de: Decoder::new(read, limits),
        }
    }

    /// Byte offset of the next byte to read.
    pub fn offset(&self) -> u64 {
        self.de.offset()
    }

    /// Fails with TRAILING unless every byte was consumed (slices only; a
    /// stream cannot tell).
    pub fn end(&mut self) -> Result<()> {
        self.de.end()
    }

    /// Gives the reader back.
    pub fn into_reader(self) -> R {
        self.de.into_reader()
    }
}

/// The body of a `serde::Deserializer` impl for a wrapper whose field `de`
/// is a [`Decoder`]: every method forwarded, each error passed through
/// `$settle(&self.de, e)`. Shared with the bincode module's deserializer.
macro_rules! forward_settled {
    // Every method but the three a struct or tuple is read by (the seq
    // element's window, `window::Element`, reads those itself).
    (@leaves $settle:path) => {
        $crate::de::forward_settled! {
            $settle;
            deserialize_any();
            deserialize_bool();
            deserialize_i8();
            deserialize_i16();
            deserialize_i32();
            deserialize_i64();
            deserialize_i128();
            deserialize_u8();
            deserialize_u16();
            deserialize_u32();
            deserialize_u64();
            deserialize_u128();
            deserialize_f32();
            deserialize_f64();
            deserialize_char();
            deserialize_str();
            deserialize_string();
            deserialize_bytes();
            deserialize_byte_buf();
            deserialize_option();
            deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_seq();
            deserialize_map();
            deserialize_enum(name: &'static str, variants: &'static [&'static str]);
            deserialize_identifier();
            deserialize_ignored_any();
        }
    };
    ($settle:path) => {
        $crate::de::forward_settled!(@leaves $settle);
        $crate::de::forward_settled! {
            $settle;
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        }

        fn is_human_readable(&self) -> bool {
            false
        }
    };
    ($settle:path; $($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: serde::de::Visitor<'de>>(
                self,
                $($arg: $ty,)*
                visitor: V,
            ) -> std::result::Result<V::Value, Self::Error> {
                let r = (&mut self.de).$method($($arg,)* visitor);
                r.map_err(|e| $settle(&mut self.de, e))
            }
        )*
    };
}
pub(crate) use forward_settled;

/// [`Decoder::settle`], as [`forward_settled`] calls it.
fn settle<'de, R: Read<'de>>(de: &mut Decoder<R>, e: crate::error::Error) -> crate::error::Error {
    de.settle(e)
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Deserializer<R> {
    type Error = crate::error::Error;

    forward_settled!(settle);
}
