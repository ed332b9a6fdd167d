//! A `Vec` of fixed-width elements (`u8`, `bool`, the other integers up
//! to 128 bits, `f32`, `f64`) decoded with one copy. serde reads a
//! `Vec<T>` through its own (private) visitor, one `next_element` per
//! element. When the visitor handed to `deserialize_seq` is exactly that
//! visitor for one of these types (its `TypeId`, learnt once by running
//! `Vec::<T>::deserialize` against a probe), the decoder takes the bytes
//! at once: the same value (spec 2: little-endian, floats bit for bit),
//! and for a `bool` byte that is not 0 or 1 the same error at the same
//! offset. A user's visitor with the same output type is a different type
//! and keeps the element path; so does input that may end early (a
//! stream, or fewer bytes left than the elements need), so that the
//! element path reports where it ends.

use std::any::TypeId;
use std::sync::OnceLock;

use serde::de::{self, Deserialize, Visitor};

use super::Decoder;
use crate::error::{Error, Result};
use crate::read::{Read, Reference, SliceRead};

/// The element types read in bulk; an element's kind is its index here.
macro_rules! bulk_kinds {
    ($($t:ty),*) => {
        const KINDS: usize = [$(stringify!($t)),*].len();

        /// The type of serde's `Vec` visitor for each kind (probed once).
        fn visitor_ids() -> &'static [TypeId; KINDS] {
            static IDS: OnceLock<[TypeId; KINDS]> = OnceLock::new();
            IDS.get_or_init(|| [$(probe::<Vec<$t>>()),*])
        }

        /// The kind of `T`'s element when `T` is a `Vec` of one of these
        /// types (a constant after monomorphization).
        #[inline]
        pub(super) fn vec_kind<T>() -> Option<usize> {
            let value = typeid::of::<T>();
            let mut i = 0;
            $(
                if value == typeid::of::<Vec<$t>>() {
                    return Some(i);
                }
                i += 1;
            )*
            let _ = i;
            None
        }
    };
}

bulk_kinds!(u8, bool, i8, u16, i16, u32, i32, u64, i64, u128, i128, f32, f64);

/// The kind of the element of the `Vec` that serde's visitor `V` builds,
/// when `V` is that visitor. Free for every other output type; a probed
/// `TypeId` and a compare at run time otherwise (what [`KnownVec`] saves).
#[inline]
pub(super) fn bulk_kind<'de, V: Visitor<'de>>() -> Option<usize> {
    let i = vec_kind::<V::Value>()?;
    (visitor_ids().get(i) == Some(&typeid::of::<V>())).then_some(i)
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

/// The deserializer a field of type `Vec<E>`, `E` a bulk kind, is read
/// with ([`super::fields`]). Only serde implements `Deserialize` for
/// `Vec`, so the visitor it hands to `deserialize_seq` is serde's own:
/// the seq is read as [`bulk_kind`] would, without its run-time check
/// (a lock's state and a `TypeId` per `Vec`: callgrind, `updates` decode).
pub(super) struct KnownVec<'a, R>(pub(super) &'a mut Decoder<R>);

impl<'de, R: Read<'de>> de::Deserializer<'de> for KnownVec<'_, R> {
    type Error = Error;

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.0.seq::<V, true>(visitor)
    }

    #[cold]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self.0, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Below this many elements a stream's `Vec` is read element by element:
/// a copy through the scratch buffer costs more than a few reads.
const STREAM_BULK_MIN: usize = 32;

impl<'de, R: Read<'de>> Decoder<R> {
    /// The `n` elements, whose count was just read, of the `Vec` (`T`)
    /// of [`bulk_kind`]'s element `kind`, with one copy: `None` (nothing
    /// read) when the input may not hold them all.
    ///
    /// `S` is true only in [`Self::stream_vec`], which decodes a stream's
    /// copied bytes as a slice: its own instances of the element loops,
    /// so that the slice decode's have one caller each (sharing them, LLVM
    /// left a `Vec<u16>`'s `collect` out of line: `updates` decode LTO
    /// 29.00M -> 30.73M).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    pub(super) fn bulk_vec<T, const S: bool>(
        &mut self,
        n: usize,
        kind: usize,
    ) -> Result<Option<T>> {
        if self.read.remaining().is_none() {
            if n < STREAM_BULK_MIN {
                return Ok(None);
            }
            return self.stream_vec(n, kind);
        }
        match kind {
            0 | 1 => self.byte_vec(n),
            2 => self.le_vec::<T, i8, 1, S>(n, i8::from_le_bytes),
            3 => self.le_vec::<T, u16, 2, S>(n, u16::from_le_bytes),
            4 => self.le_vec::<T, i16, 2, S>(n, i16::from_le_bytes),
            5 => self.le_vec::<T, u32, 4, S>(n, u32::from_le_bytes),
            6 => self.le_vec::<T, i32, 4, S>(n, i32::from_le_bytes),
            7 => self.le_vec::<T, u64, 8, S>(n, u64::from_le_bytes),
            8 => self.le_vec::<T, i64, 8, S>(n, i64::from_le_bytes),
            9 => self.le_vec::<T, u128, 16, S>(n, u128::from_le_bytes),
            10 => self.le_vec::<T, i128, 16, S>(n, i128::from_le_bytes),
            11 => self.le_vec::<T, f32, 4, S>(n, f32::from_le_bytes),
            _ => self.le_vec::<T, f64, 8, S>(n, f64::from_le_bytes),
        }
    }

    /// A stream's `Vec` of a bulk kind: its bytes copied in bounded
    /// chunks ([`Read::take_elements`]; a lying count costs what the
    /// stream delivers), then decoded as a slice of them is, the errors
    /// moved to the stream's offsets. A stream cut inside the elements is
    /// EOF / IO at the first element not read whole, unless a `Vec<bool>`
    /// had a bad byte before it: what the element path meets first.
    /// Out of line and cold: the call sits in every `Vec`'s decode, and
    /// marked cold it leaves the element loops their registers (`updates`
    /// from a stream 38.89M -> 38.81M, LTO).
    /// callgrind, a struct of a 1 MiB `Vec<u8>` and 64 Ki `f32` from a
    /// `BufReader`: 78.3M -> 2.4M; `floats` from a `&[u8]` (LTO) 6.10M,
    /// bincode 1.3 18.00M; `updates` from a stream (LTO) 41.43M ->
    /// 38.71M. Fewer than
    /// `STREAM_BULK_MIN` elements stay on the element path.
    #[cold]
    #[inline(never)]
    fn stream_vec<T>(&mut self, n: usize, kind: usize) -> Result<Option<T>> {
        const WIDTHS: [usize; 13] = [1, 1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 4, 8];
        let w = WIDTHS.get(kind).copied().unwrap_or(1);
        let Some(len) = n.checked_mul(w) else {
            return Ok(None);
        };
        let at = self.read.offset();
        match self.read.take_elements(len, w, at, &mut self.scratch) {
            Ok(Some(_)) => {}
            Ok(None) => return Ok(None),
            Err(e) if typeid::of::<T>() == typeid::of::<Vec<bool>>() => {
                return Err(match self.scratch.iter().position(|&b| b > 1) {
                    Some(i) => super::bad_bool(self.scratch[i], at + i as u64),
                    None => e,
                });
            }
            Err(e) => return Err(e),
        }
        // `scratch` holds exactly the `len` bytes, so the slice decode
        // below takes its bulk path (never `None`).
        let mut bytes = Decoder::new(SliceRead::new(&self.scratch, None), &self.limits);
        bytes
            .bulk_vec::<T, true>(n, kind)
            .map_err(|e| bytes.settle(e).shifted(at))
    }

    /// `f` of the bytes of `n` elements of `w` bytes each and their
    /// offset, when the input holds them all.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn bulk_bytes<U>(
        &mut self,
        n: usize,
        w: usize,
        f: impl FnOnce(&[u8], u64) -> Result<U>,
    ) -> Result<Option<U>> {
        let Some(len) = n.checked_mul(w) else {
            return Ok(None);
        };
        if !self.read.remaining().is_some_and(|r| r >= len) {
            return Ok(None);
        }
        let at = self.read.offset();
        match self.read.take(len, at, &mut self.scratch)? {
            Reference::Borrowed(b) => f(b, at),
            Reference::Copied(c) => f(c, at),
        }
        .map(Some)
    }

    /// A `Vec<E>` of `W`-byte little-endian elements, as `T`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn le_vec<T, E: 'static, const W: usize, const S: bool>(
        &mut self,
        n: usize,
        from_le: impl Fn([u8; W]) -> E,
    ) -> Result<Option<T>> {
        self.bulk_bytes(n, W, |bytes, at| {
            let v: Vec<E> = bytes
                .chunks_exact(W)
                .map(|c| from_le(<[u8; W]>::try_from(c).unwrap_or([0; W])))
                .collect();
            crate::raw::vec_as::<E, T>(v).map_err(|_| not_the_vec(at))
        })
    }

    /// A `Vec<u8>` / `Vec<bool>` (`T`): [`Self::bulk_bytes`]'s checks, the
    /// bytes handed back rather than to a closure. As a closure, the
    /// conversion was the same code for every reader, and LLVM merged the
    /// copies (a slice's and `from_reader`'s in-place reader's) into one
    /// function with two callers that it no longer inlined (LTO, `updates`
    /// decode 28.29 -> 29.28 M). `le_vec` keeps its closure: without it
    /// the `f32` loop was unrolled half as far without LTO (`floats`
    /// decode 0.66 -> 1.31 M).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn byte_vec<T>(&mut self, n: usize) -> Result<Option<T>> {
        if !self.read.remaining().is_some_and(|r| r >= n) {
            return Ok(None);
        }
        let at = self.read.offset();
        let bytes = self.read.take(n, at, &mut self.scratch)?;
        byte_vec_from::<T>(bytes.as_slice(), at).map(Some)
    }
}

/// [`Decoder::byte_vec`]'s bytes as the `Vec`.
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
fn byte_vec_from<T>(bytes: &[u8], at: u64) -> Result<T> {
    match crate::raw::byte_vec_as::<T>(bytes.to_vec()) {
        Ok(v) => Ok(v),
        // A `Vec<bool>` with a byte above 1: the element path's error.
        Err(bytes) => match bytes.iter().enumerate().find(|&(_, &b)| b > 1) {
            Some((i, &b)) => Err(super::bad_bool(b, at + i as u64)),
            None => Err(not_the_vec(at)),
        },
    }
}

/// A bulk read whose output is not the `Vec` `bulk_kind` said: cannot
/// happen (the kind comes from the output type), but an error, not a panic.
#[cold]
fn not_the_vec(at: u64) -> Error {
    Error::at(
        crate::error::ErrorCode::Message,
        at,
        "a Vec read in bulk as a type other than its own",
    )
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
            self.0 = Some(bulk_kind::<V>().is_some());
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
        assert_eq!(asks::<Vec<u16>>(), Some(true));
        assert_eq!(asks::<Vec<i8>>(), Some(true));
        assert_eq!(asks::<Vec<f64>>(), Some(true));
        assert_eq!(asks::<Vec<char>>(), Some(false));
        assert_eq!(asks::<Vec<String>>(), Some(false));
        assert_eq!(asks::<std::collections::VecDeque<u16>>(), Some(false));
        assert_eq!(asks::<Mine>(), Some(false));
    }
}
