//! The serializer for a map key: the Frozen encoding as usual, but a str or
//! bytes value records where its content lies, because a key that is exactly
//! one str/bytes value sorts by its content without the count (spec 2.1).
//!
//! Keeping this out of the plain serializer means a string outside a key
//! pays for no "am I in a key?" test.
//!
//! Which strings need tracking: the key's sort bytes drop the count only
//! when the last str/bytes content runs from 4 bytes after the key's start
//! to its end, so only zero bytes may come before that count and after that
//! content. Tuples, structs and newtype structs add no bytes of their own,
//! so their fields are serialized with `KeySer` again. A seq, map, option,
//! enum variant or tensor block writes bytes before its content, so a string
//! inside one can never qualify; those go to the plain serializer. (A later
//! untracked string would end past a tracked one, so the tracked range can
//! only match when it is the key's last string: the same keys sort by
//! content as when every string inside a key was tracked.)
//!
//! A seq whose elements are all u8 (`Vec<u8>`, `&[u8]` through serde's
//! slice impl) is `list<u8>` like bytes (spec 2.1): a key's seq records its
//! content range too when each of its elements went to `serialize_u8`
//! ([`U8Probe`] tells). An empty seq counts as `list<u8>`: its sort bytes
//! are then empty instead of a zero count, which orders it first among keys
//! of its type either way.

use serde::ser::{self, Serialize};

use super::out::Out;
use super::{MapSer, SeqSer, Serializer};

use crate::error::{Error, Result};

/// A map key's serializer over the plain one.
pub(super) struct KeySer<'a, 'w, O: Out>(pub(super) &'a mut Serializer<'w, O>);

macro_rules! plain {
    ($($fn:ident: $t:ty),*) => {
        $(
            #[inline]
            fn $fn(self, v: $t) -> Result<()> {
                ser::Serializer::$fn(self.0, v)
            }
        )*
    };
}

impl<'a, 'w, O: Out> ser::Serializer for KeySer<'a, 'w, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = KeySeqSer<'a, 'w, O>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = &'a mut Serializer<'w, O>;
    type SerializeMap = MapSer<'a, 'w, O>;
    type SerializeStruct = Self;
    type SerializeStructVariant = &'a mut Serializer<'w, O>;

    plain!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_unit_struct: &'static str);

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.serialize_bytes(v.as_bytes())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        // The content starts after the 4-byte count.
        let start = self.0.out.len() + 4;
        self.0.last_str = (start, start + v.len());
        self.0.plain_bytes(v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        ser::Serializer::serialize_none(self.0)
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        ser::Serializer::serialize_some(self.0, value)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        ser::Serializer::serialize_unit(self.0)
    }

    #[inline]
    fn serialize_unit_variant(self, name: &'static str, idx: u32, v: &'static str) -> Result<()> {
        ser::Serializer::serialize_unit_variant(self.0, name, idx, v)
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if crate::token::is_tensors(name) {
            // A tensor block: the plain serializer writes it raw.
            return ser::Serializer::serialize_newtype_struct(self.0, name, value);
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::Serializer::serialize_newtype_variant(self.0, name, idx, variant, value)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<KeySeqSer<'a, 'w, O>> {
        let seq = ser::Serializer::serialize_seq(self.0, len)?;
        // The count (or its placeholder) is written: the content starts here.
        let start = seq.ser.out.len();
        Ok(KeySeqSer {
            seq,
            start,
            all_u8: true,
        })
    }

    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<&'a mut Serializer<'w, O>> {
        ser::Serializer::serialize_tuple_variant(self.0, name, idx, variant, len)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 'w, O>> {
        ser::Serializer::serialize_map(self.0, len)
    }

    #[inline]
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<&'a mut Serializer<'w, O>> {
        ser::Serializer::serialize_struct_variant(self.0, name, idx, variant, len)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.serialize_str(&super::display(value)?)
    }
}

/// The fields of a tuple, tuple struct or struct key: each one a key
/// serializer again (they add no bytes of their own).
macro_rules! fields {
    ($tr:ident, $method:ident $(, $key:ident)?) => {
        impl<O: Out> ser::$tr for KeySer<'_, '_, O> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: ?Sized + Serialize>(&mut self, $($key: &'static str,)? value: &T) -> Result<()> {
                value.serialize(KeySer(&mut *self.0))
            }

            #[inline]
            fn end(self) -> Result<()> {
                Ok(())
            }
        }
    };
}

fields!(SerializeTuple, serialize_element);
fields!(SerializeTupleStruct, serialize_field);
fields!(SerializeStruct, serialize_field, _key);

/// A map key's seq: the plain one, noting whether every element was a u8.
pub(super) struct KeySeqSer<'a, 'w, O: Out> {
    seq: SeqSer<'a, 'w, O>,
    /// Where the content starts in `out`.
    start: usize,
    all_u8: bool,
}

impl<O: Out> ser::SerializeSeq for KeySeqSer<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.seq.n += 1;
        let mut is_u8 = false;
        value.serialize(U8Probe {
            ser: &mut *self.seq.ser,
            is_u8: &mut is_u8,
        })?;
        self.all_u8 &= is_u8;
        // Nothing to flush: a map is open.
        Ok(())
    }

    #[inline]
    fn end(self) -> Result<()> {
        if self.all_u8 {
            let end = self.seq.ser.out.len();
            self.seq.ser.last_str = (self.start, end);
        }
        ser::SerializeSeq::end(self.seq)
    }
}

/// The serializer of one element of a key's seq: the plain serializer,
/// noting whether the element was exactly one `serialize_u8`.
struct U8Probe<'p, 'w, O: Out> {
    ser: &'p mut Serializer<'w, O>,
    is_u8: &'p mut bool,
}

/// Forwards serializer methods that take only a value to the plain one.
macro_rules! forward {
    ($($fn:ident: $t:ty),*) => {
        $(
            #[inline]
            fn $fn(self, v: $t) -> Result<()> {
                ser::Serializer::$fn(self.ser, v)
            }
        )*
    };
}

impl<'p, 'w, O: Out> ser::Serializer for U8Probe<'p, 'w, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'p, 'w, O>;
    type SerializeTuple = &'p mut Serializer<'w, O>;
    type SerializeTupleStruct = &'p mut Serializer<'w, O>;
    type SerializeTupleVariant = &'p mut Serializer<'w, O>;
    type SerializeMap = MapSer<'p, 'w, O>;
    type SerializeStruct = &'p mut Serializer<'w, O>;
    type SerializeStructVariant = &'p mut Serializer<'w, O>;

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        *self.is_u8 = true;
        ser::Serializer::serialize_u8(self.ser, v)
    }

    forward!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128, serialize_f32: f32, serialize_f64: f64,
        serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str);

    #[inline]
    fn serialize_none(self) -> Result<()> {
        ser::Serializer::serialize_none(self.ser)
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        ser::Serializer::serialize_some(self.ser, value)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        ser::Serializer::serialize_unit(self.ser)
    }

    #[inline]
    fn serialize_unit_variant(self, name: &'static str, idx: u32, v: &'static str) -> Result<()> {
        ser::Serializer::serialize_unit_variant(self.ser, name, idx, v)
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::Serializer::serialize_newtype_struct(self.ser, name, value)
    }

    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        ser::Serializer::serialize_newtype_variant(self.ser, name, idx, variant, value)
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'p, 'w, O>> {
        ser::Serializer::serialize_seq(self.ser, len)
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        ser::Serializer::serialize_tuple(self.ser, len)
    }

    #[inline]
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTuple> {
        ser::Serializer::serialize_tuple_struct(self.ser, name, len)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTuple> {
        ser::Serializer::serialize_tuple_variant(self.ser, name, idx, variant, len)
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'p, 'w, O>> {
        ser::Serializer::serialize_map(self.ser, len)
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeTuple> {
        ser::Serializer::serialize_struct(self.ser, name, len)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        name: &'static str,
        idx: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTuple> {
        ser::Serializer::serialize_struct_variant(self.ser, name, idx, variant, len)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        ser::Serializer::collect_str(self.ser, value)
    }
}
