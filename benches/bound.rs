//! `serde_bound`: the floor for any serde format on `mesh` decode. A
//! `Deserializer` over kiln's `mesh` bytes with no room test, no error
//! path (a zero-sized error) and no offsets, driven by serde's own `Vec`
//! visitor and the derive, as every serde format is. Not a format: it
//! reads only `Mesh`, and checks the length of the whole input once, up
//! front, so that each read after is in bounds without a test of its own.

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::Deserialize;

use super::datasets::mesh::Mesh;

/// Decodes kiln's bytes of a [`Mesh`]: a `u32` count, then 12 `f32` a
/// triangle. `None` when `bytes` is not exactly that long.
pub fn mesh(bytes: &[u8]) -> Option<Mesh> {
    let count = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    if bytes.len() != count.checked_mul(48)?.checked_add(4)? {
        return None;
    }
    let mut d = Bound { p: bytes.as_ptr() };
    Mesh::deserialize(&mut d).ok()
}

#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a mesh")
    }
}

impl std::error::Error for Never {}

impl de::Error for Never {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Never
    }
}

struct Bound {
    p: *const u8,
}

impl Bound {
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> [u8; N] {
        // SAFETY: `mesh` checked that the input holds the count and 48
        // bytes for each triangle it counts, and `Mesh`'s derive reads
        // exactly that: the count, then 12 `f32` per element.
        unsafe {
            let a = std::ptr::read_unaligned(self.p.cast::<[u8; N]>());
            self.p = self.p.add(N);
            a
        }
    }
}

struct Fields<'a> {
    de: &'a mut Bound,
    left: usize,
}

impl<'de> SeqAccess<'de> for Fields<'_> {
    type Error = Never;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Never> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline(always)]
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::Deserializer<'de> for &mut Bound {
    type Error = Never;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Never> {
        Err(Never)
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Never> {
        v.visit_f32(f32::from_le_bytes(self.take::<4>()))
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Never> {
        let left = fields.len();
        v.visit_seq(Fields { de: self, left })
    }

    #[inline(always)]
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Never> {
        let left = u32::from_le_bytes(self.take::<4>()) as usize;
        v.visit_seq(Fields { de: self, left })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct tuple tuple_struct map
        enum identifier ignored_any
    }
}
