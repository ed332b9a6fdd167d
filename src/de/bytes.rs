//! `Vec<u8>` and `Vec<bool>` decoded with one copy. serde reads a
//! `Vec<T>` through its own (private) visitor, one `next_element` per
//! byte. When the visitor handed to `deserialize_seq` is exactly that
//! visitor for `u8` or `bool` (its `TypeId`, learnt once by running
//! `Vec::<u8>::deserialize` against a probe), the decoder takes the bytes
//! at once: the same value, and for a `bool` byte that is not 0 or 1 the
//! same error at the same offset. A user's visitor with the same output
//! type is a different type and keeps the element path.

use std::any::TypeId;
use std::sync::OnceLock;

use serde::de::{self, Deserialize, Visitor};

use super::Deserializer;
use crate::error::{Error, Result};
use crate::read::Read;

/// Whether `V` is serde's visitor for `Vec<u8>` or `Vec<bool>`. Free for
/// every other output type (the first test folds to a constant).
#[inline]
pub(super) fn is_byte_vec_visitor<'de, V: Visitor<'de>>() -> bool {
    let value = typeid::of::<V::Value>();
    // A constant index, so one `TypeId` compare at run time.
    let i = if value == typeid::of::<Vec<u8>>() {
        0
    } else if value == typeid::of::<Vec<bool>>() {
        1
    } else {
        return false;
    };
    static IDS: OnceLock<[TypeId; 2]> = OnceLock::new();
    IDS.get_or_init(|| [probe::<Vec<u8>>(), probe::<Vec<bool>>()])[i] == typeid::of::<V>()
}

/// The type of the visitor `T::deserialize` hands to `deserialize_seq`
/// (the probe's own type, which no visitor has, if it hands none).
fn probe<T: for<'a> Deserialize<'a>>() -> TypeId {
    let mut p = Probe(None);
    let _ = T::deserialize(&mut p);
    p.0.unwrap_or_else(typeid::of::<Probe>)
}

struct Probe(Option<TypeId>);

impl<'de> de::Deserializer<'de> for &mut Probe {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Self::Error> {
        Err(de::Error::custom("probe"))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Self::Error> {
        self.0 = Some(typeid::of::<V>());
        Err(de::Error::custom("probe"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de, R: Read<'de>> Deserializer<R> {
    /// The `n` elements of a `Vec<u8>` / `Vec<bool>` (`T`) whose count was
    /// just read, with one copy: `None` (nothing read) when the input may
    /// not hold them all, so that the element path reports where it ends.
    #[inline(always)]
    pub(super) fn byte_vec<T>(&mut self, n: usize) -> Result<Option<T>> {
        if !self.read.remaining().is_some_and(|r| r >= n) {
            return Ok(None);
        }
        let at = self.read.offset();
        let bytes = self
            .read
            .take(n, at, &mut self.scratch)?
            .as_slice()
            .to_vec();
        match crate::raw::byte_vec_as::<T>(bytes) {
            Ok(v) => Ok(Some(v)),
            // A `Vec<bool>` with a byte above 1: the element path's error.
            Err(bytes) => match bytes.iter().enumerate().find(|&(_, &b)| b > 1) {
                Some((i, &b)) => Err(super::bad_bool(b, at + i as u64)),
                None => Err(Error::at(
                    crate::error::ErrorCode::Message,
                    at,
                    "byte sequence read as a type other than Vec<u8> or Vec<bool>",
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records whether the visitor handed to `deserialize_seq` is taken
    /// for serde's byte-`Vec` visitor.
    struct Asks(Option<bool>);

    impl<'de> de::Deserializer<'de> for &mut Asks {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(
            self,
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            Err(de::Error::custom("asks"))
        }

        fn deserialize_seq<V: Visitor<'de>>(
            self,
            _: V,
        ) -> std::result::Result<V::Value, Self::Error> {
            self.0 = Some(is_byte_vec_visitor::<V>());
            Err(de::Error::custom("asks"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct tuple
            tuple_struct map struct enum identifier ignored_any
        }
    }

    fn asks<T: for<'a> Deserialize<'a>>() -> Option<bool> {
        let mut a = Asks(None);
        let _ = T::deserialize(&mut a);
        a.0
    }

    /// A user's visitor with serde's output type: not serde's visitor.
    struct Mine;
    impl<'de> Deserialize<'de> for Mine {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Vec<u8>;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
            }
            d.deserialize_seq(V).map(|_| Mine)
        }
    }

    #[test]
    fn only_serdes_byte_vec_visitors_are_recognised() {
        // Each output type against its own visitor (an index that mixed up
        // `u8` and `bool` would answer false for both).
        assert_eq!(asks::<Vec<u8>>(), Some(true));
        assert_eq!(asks::<Vec<bool>>(), Some(true));
        assert_eq!(asks::<Vec<u16>>(), Some(false));
        assert_eq!(asks::<Vec<i8>>(), Some(false));
        assert_eq!(asks::<Mine>(), Some(false));
    }
}
