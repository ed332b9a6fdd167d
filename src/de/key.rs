//! A seq inside a map key: `list<u8>` when every element is a u8 (spec
//! 2.1), so it sorts by its content without the count, as bytes do.
//!
//! `Vec<u8>` (and `&[u8]` written by serde's slice impl) is a seq of u8 on
//! the wire, `serde_bytes` and `&[u8]` read borrowed are bytes: the same
//! wire and the same type text, so keys written one way and read the other
//! must sort the same. A key's seq hands each element a [`U8Probe`], the
//! plain deserializer that notes whether the element was read with
//! `deserialize_u8`; when all were, the content range becomes the key's
//! `last_str`, exactly as the encoder's key serializer records it
//! (`ser/key.rs`). An empty seq counts as `list<u8>` on both sides.
//!
//! Only seqs read while a map key is open come here (`in_key > 0`), so a
//! seq anywhere else pays one test.

use serde::de::{self, DeserializeSeed, Visitor};

use super::Decoder;
use crate::error::{Error, Result};
use crate::read::Read;

impl<'de, R: Read<'de>> Decoder<R> {
    /// `deserialize_seq` inside a map key.
    #[inline(never)]
    pub(super) fn key_seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let (n, at) = self.count()?;
        self.enter(at)?;
        let hint = self.hint(n);
        let start = self.read.mark();
        let mut access = KeySeqAccess {
            de: &mut *self,
            left: n,
            hint,
            all_u8: true,
        };
        let r = visitor.visit_seq(&mut access);
        let (left, all_u8) = (access.left, access.all_u8);
        self.unhint(hint);
        self.depth -= 1;
        let v = super::all_read(r, left, n, at)?;
        if all_u8 {
            self.last_str = (start, self.read.mark());
        }
        Ok(v)
    }
}

struct KeySeqAccess<'a, R> {
    de: &'a mut Decoder<R>,
    left: usize,
    hint: usize,
    all_u8: bool,
}

impl<'de, R: Read<'de>> de::SeqAccess<'de> for KeySeqAccess<'_, R> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let mut is_u8 = false;
        let v = seed.deserialize(U8Probe {
            de: &mut *self.de,
            is_u8: &mut is_u8,
        })?;
        self.all_u8 &= is_u8;
        Ok(Some(v))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.hint.min(self.left))
    }
}

/// The deserializer of one element of a key's seq: the plain one, noting
/// whether the element was exactly one `deserialize_u8`.
struct U8Probe<'a, R> {
    de: &'a mut Decoder<R>,
    is_u8: &'a mut bool,
}

/// Forwards deserializer methods that take only a visitor.
macro_rules! forward {
    ($($fn:ident),*) => {
        $(
            fn $fn<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                de::Deserializer::$fn(self.de, visitor)
            }
        )*
    };
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for U8Probe<'_, R> {
    type Error = Error;

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        *self.is_u8 = true;
        de::Deserializer::deserialize_u8(self.de, visitor)
    }

    forward!(
        deserialize_any,
        deserialize_ignored_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_unit_struct(self.de, name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_newtype_struct(self.de, name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        // The plain deserializer's `deserialize_tuple`, through an access
        // type of its own (see `fields::visit_fields`).
        let at = self.de.read.offset();
        super::fields::visit_fields::<R, V, true>(self.de, len, len, at, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(fields.len(), visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // As the plain deserializer's, through an access type of its own
        // (see `fields::visit_fields`).
        let at = self.de.read.offset();
        visitor
            .visit_enum(KeyEnum(self.de))
            .map_err(|e: Error| e.or_offset(at))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// An enum inside a key's seq: the plain deserializer's `EnumAccess` and
/// `VariantAccess`, with the variant's fields read by `fields::visit_fields`.
struct KeyEnum<'a, R>(&'a mut Decoder<R>);

impl<'de, R: Read<'de>> de::EnumAccess<'de> for KeyEnum<'_, R> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let (v, de) = de::EnumAccess::variant_seed(self.0, seed)?;
        Ok((v, KeyEnum(de)))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for KeyEnum<'_, R> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::VariantAccess::unit_variant(self.0)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        de::VariantAccess::newtype_variant_seed(self.0, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        super::fields::variant_fields::<R, V, true>(self.0, len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        super::fields::variant_fields::<R, V, true>(self.0, fields.len(), visitor)
    }
}
