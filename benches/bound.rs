//! `serde_bound`: the floor for any serde format on `mesh` decode. A
//! `Deserializer` over kiln's `mesh` bytes with no room test, no error
//! path (a zero-sized error) and no offsets, driven by serde's own `Vec`
//! visitor and the derive, as every serde format is. Not a format: it
//! reads only `Mesh`, and checks the length of the whole input once, up
//! front, so that each read after is in bounds without a test of its own.
//!
//! `serde_bound_handle` is the same floor with an error of kiln's shape
//! (8 bytes, aligned to 4, with a niche: [`Handle`]) in place of the
//! zero-sized one, the floor for a format whose error says what failed
//! and where. Its `Result<Option<Triangle>, _>` is laid out as kiln's, so
//! the loop moves each triangle as LLVM moves kiln's, not as three
//! 16-byte copies.

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::Deserialize;

use super::datasets::mesh::Mesh;

/// Decodes kiln's bytes of a [`Mesh`]: a `u32` count, then 12 `f32` a
/// triangle. `None` when `bytes` is not exactly that long.
pub fn mesh(bytes: &[u8]) -> Option<Mesh> {
    mesh_with::<Never>(bytes)
}

/// [`mesh`] with the error of kiln's shape ([`Handle`]).
pub fn mesh_handle(bytes: &[u8]) -> Option<Mesh> {
    mesh_with::<Handle>(bytes)
}

fn mesh_with<E: de::Error>(bytes: &[u8]) -> Option<Mesh> {
    let count = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    if bytes.len() != count.checked_mul(48)?.checked_add(4)? {
        return None;
    }
    let mut d = Bound::<E> {
        p: bytes.as_ptr(),
        _e: std::marker::PhantomData,
    };
    Mesh::deserialize(&mut d).ok()
}

/// `Display` ("not a mesh"), `Error` and serde's `de::Error` for an
/// error type, each error being `$value`.
macro_rules! floor_error {
    ($ty:ident, $value:expr) => {
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("not a mesh")
            }
        }

        impl std::error::Error for $ty {}

        impl de::Error for $ty {
            fn custom<T: std::fmt::Display>(_: T) -> Self {
                $value
            }
        }
    };
}

/// The zero-sized error.
#[derive(Debug)]
struct Never;

floor_error!(Never, Never);

/// An error of the size, alignment and niche of `kiln_serde::Error` (a
/// `NonZeroU64` in a `repr(packed(4))` struct, as its handle is).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
struct Handle(#[allow(dead_code)] std::num::NonZeroU64);

floor_error!(Handle, Handle(std::num::NonZeroU64::MIN));

const _: () = assert!(std::mem::size_of::<Handle>() == 8 && std::mem::align_of::<Handle>() == 4);

struct Bound<E> {
    p: *const u8,
    _e: std::marker::PhantomData<E>,
}

impl<E> Bound<E> {
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

struct Fields<'a, E> {
    de: &'a mut Bound<E>,
    left: usize,
}

impl<'de, E: de::Error> SeqAccess<'de> for Fields<'_, E> {
    type Error = E;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, E> {
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

impl<'de, E: de::Error> de::Deserializer<'de> for &mut Bound<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::custom("not a mesh"))
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        v.visit_f32(f32::from_le_bytes(self.take::<4>()))
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, E> {
        let left = fields.len();
        v.visit_seq(Fields { de: self, left })
    }

    #[inline(always)]
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, E> {
        let left = u32::from_le_bytes(self.take::<4>()) as usize;
        v.visit_seq(Fields { de: self, left })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct tuple tuple_struct map
        enum identifier ignored_any
    }
}
