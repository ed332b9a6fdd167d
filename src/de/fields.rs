//! The fields of a struct, tuple or variant (and the elements of a seq of
//! strings), read in order, with `&str`, `String`, `Option` of a number,
//! `bool`, `&str` or `String`, and `Vec` of a number fields decoded inline.
//!
//! serde's `<&str>::deserialize` and `<String>::deserialize` are small
//! generic functions without `#[inline]`, so LLVM keeps them out of line
//! once a type has a few such fields, and the whole deserializer then
//! lives in memory (its read position stored after every field).
//! [`Fields`]' `next_element` recognizes the two types by their type id (a
//! compile-time constant, so every other field type pays nothing), reads
//! the string here, and hands it to the type's own `Deserialize` through
//! serde's trivial string deserializers, so the value and every error are
//! the ones `deserialize_str` gives. callgrind (LTO / no LTO), decode:
//! borrowed `log` 2.91M -> 2.20M / 3.24M -> 2.52M, owned `log` 15.83M ->
//! 14.96M / 16.96M -> 16.05M, `savedata` 12.64M -> 12.58M / 13.40M ->
//! 13.28M. Always inlined only without `debug_assertions`: at opt-level 0
//! the inlined bodies made every recursion level's stack frame larger
//! (`tests/bincode_depth.rs`).
//!
//! `Option<P>` fields the same way ([`Decoder::option_field`]: serde's
//! `Option` impl stayed out of line, a call per field): `updates` decode
//! 29.66M -> 29.00M / 30.99M -> 30.42M, `savedata` 12.37M -> 12.31M /
//! 13.05M -> 13.01M. A `Vec<E>` field, `E` a bulk type, goes to
//! `bytes::KnownVec`.
//!
//! The access is passed to the visitor by value (so derived code calls
//! this `next_element` directly, not through serde's `&mut A` forwarding
//! impl, which LLVM would not inline either); the count left is behind a
//! pointer so that [`visit_fields`] can still check it afterwards. Seqs
//! keep their own access in `seq.rs` (there the pointer costs an
//! instruction per element: `mesh`, no LTO; that access writes its count
//! back to the decoder instead), except seqs of strings
//! ([`string_seq`], with the seq's budgeted size hint): `savedata` decode
//! 12.58M -> 12.39M / 13.28M -> 13.06M.

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::abort::Abort;
use super::window;
use super::Decoder;
use crate::error::{Error, Result};
use crate::read::{Read, Reference};

/// Visits exactly `n` fields; a visitor that stops early is an error.
///
/// `KEY` is true for a struct, tuple or variant inside a map key's seq
/// (`key.rs`): the same code, but a distinct access type, so the visitor's
/// `visit_seq` it calls is a distinct function. Were the key path to call
/// the same one, every struct's decode would have two callers, and LLVM
/// would not inline a struct of a dozen fields into the loop of a `Vec` of
/// it (a call per element, its result copied through memory: criterion
/// `mesh` decode, LTO, 1.6 ms -> 2.5 ms).
/// Always inlined, so that `n` is the derive's constant and the test on it
/// below is gone (`savedata` decode, LTO: 12.41 -> 12.36 M). Not with
/// debug assertions: at opt-level 0 its temporaries (672 bytes) would sit
/// in the frame of every caller, a seq's among them, once for each level
/// of a recursive type (`tests/bincode_depth.rs`).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline)]
pub(super) fn visit_fields<'de, R: Read<'de>, V: Visitor<'de>, const KEY: bool>(
    de: &mut Decoder<R>,
    n: usize,
    hint: usize,
    at: u64,
    visitor: V,
) -> Result<V::Value> {
    // A plain struct of 24 to 64 bytes with 256 bytes or more left in a
    // slice reads its fixed-width fields through a window of the input
    // (`window.rs`): callgrind `mesh` decode 10.88 -> 5.63 M (LTO), 14.88
    // -> 8.38 M (no LTO); every other dataset's decode and the 32-byte
    // `Tick`'s unchanged. The type tests are constants; so is `hint == n`
    // on a struct's or tuple's path (the derive's field count twice): the
    // window's size hint is its count, which a seq's, read from the input,
    // must not be (string seqs come here, but own memory: not `worth`).
    if !KEY && window::worth::<V::Value>() && hint == n {
        if let Some(bytes) = window::full(&de.read) {
            return window::visit::<R, V, false>(de, bytes, n, visitor);
        }
    }
    let mut left = n;
    // Plain data of at most 64 bytes aligned to 8 (a small message with a
    // `u64` or `f64` field) gets the zero-sized field error ([`Abort`]):
    // with `Error` (4-aligned, bytes 4..12 of `Result<Option<u64>, Error>`)
    // LLVM split each `u64` field in halves and, across a later branch
    // (`from_slice`'s trailing-bytes test), reread them from memory: a
    // 32-byte `Tick`, one API per program, `from_slice` 7.9 -> 2.2 ns with
    // LTO, 8.6 -> 2.2 without. Everything else keeps `Error`: for every
    // struct, `updates` decode went +8% / +15% (LTO / no LTO: `Contact`'s
    // small results reassembled through memory), for every struct aligned
    // to 8 +8% / +10%, and with owned data excluded but not the size cap,
    // borrowed `log` (`&str` fields) +6% with LTO. The tests are constants.
    // As now, the datasets' instruction counts are unchanged (profile
    // binary, both profiles) and a 32-byte `Tick` decodes in 41.8 / 47.6
    // instructions (43.6 / 106.0 before).
    let r = if std::mem::align_of::<V::Value>() >= 8
        && std::mem::size_of::<V::Value>() <= 64
        && !std::mem::needs_drop::<V::Value>()
    {
        let access = Fields::<R, KEY, true> {
            de: &mut *de,
            left: &mut left,
            hint,
        };
        visitor.visit_seq(access).map_err(Abort::take)
    } else {
        let access = Fields::<R, KEY, false> {
            de: &mut *de,
            left: &mut left,
            hint,
        };
        visitor.visit_seq(access)
    };
    // A short read's error is a constant word (src/raw.rs, piece 1), which
    // takes no offset: tested inline, LLVM drops the struct's start offset
    // from the paths where it sees one, which in a `Vec` of small structs
    // is a second induction variable (`mesh` decode, LTO: 11.63 -> 10.88
    // M). Only for 4 fields or fewer: taken for every struct, the branch
    // cost `log` the inlining of its string reads (14.64 -> 16.27 M).
    // The value is matched here, not moved into `all_read`: moved, a small
    // struct of bytes (`log`'s `Address`, four `u8`) was stored a byte at
    // a time and reloaded as one word, a store the load cannot forward
    // from. Borrowed `log` without LTO 194 -> 160 µs (bitcode 182), with
    // LTO 128 -> 116 µs. (Matched so for every struct, `updates` slowed
    // by 6% with LTO and owned `log` lost inlining without.)
    if n <= 4 {
        match r {
            Ok(v) if left == 0 => Ok(v),
            Ok(_) => Err(super::left_unread(left, n, at)),
            Err(e) => Err(e.or_offset_of_fields(at)),
        }
    } else {
        super::all_read(r, left, n, at)
    }
}

/// A tuple or struct variant's fields: one level (spec 6), taken at the
/// enum value's offset.
#[inline]
pub(super) fn variant_fields<'de, R: Read<'de>, V: Visitor<'de>, const KEY: bool>(
    de: &mut Decoder<R>,
    n: usize,
    visitor: V,
) -> Result<V::Value> {
    de.enter(de.variant_at())?;
    let at = de.read.offset();
    let r = visit_fields::<R, V, KEY>(de, n, n, at, visitor);
    de.depth -= 1;
    r
}

/// The body of [`Fields::known_field`]: the field types read here rather
/// than through serde's impls, each value as `Ok(Some(value))`, and
/// `Ok(None)` for any other type (a macro for the `Option`s of the 13
/// number types).
macro_rules! field_body {
    ($self:ident, $T:ident) => {
        field_body!(@ $self, $T; bool, u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f32, f64)
    };
    (@ $self:ident, $T:ident; $($p:ty),*) => {{
        let id = typeid::of::<$T>();
        if id == typeid::of::<&str>() {
            let s = $self.de.str_field()?;
            return $T::deserialize(BorrowedStrDeserializer::<Error>::new(s)).map(Some);
        }
        if id == typeid::of::<String>() {
            let s = $self.de.string_field()?;
            return $T::deserialize(StringDeserializer::<Error>::new(s)).map(Some);
        }
        if super::bytes::vec_kind::<$T>().is_some() {
            return $T::deserialize(super::bytes::KnownVec(&mut *$self.de)).map(Some);
        }
        $(
            if id == typeid::of::<Option<$p>>() {
                return $self
                    .de
                    .option_field::<$T, $p>(|de| <$p as de::Deserialize>::deserialize(de))
                    .map(Some);
            }
        )*
        if id == typeid::of::<Option<&str>>() {
            let read = |de: &mut Decoder<R>| de.str_field().map(BorrowedStr);
            return $self.de.option_field::<$T, _>(read).map(Some);
        }
        if id == typeid::of::<Option<String>>() {
            return $self.de.option_field::<$T, String>(Decoder::string_field).map(Some);
        }
        Ok(None)
    }};
}

struct Fields<'a, R, const KEY: bool, const ABORT: bool> {
    de: &'a mut Decoder<R>,
    left: &'a mut usize,
    hint: usize,
}

impl<'de, R: Read<'de>, const KEY: bool> de::SeqAccess<'de> for Fields<'_, R, KEY, true> {
    type Error = Abort;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, Abort> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left -= 1;
        match seed.deserialize(&mut *self.de) {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(Abort::stash(e)),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> std::result::Result<Option<T>, Abort> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left -= 1;
        match self.element::<T>() {
            Ok(v) => Ok(Some(v)),
            Err(e) => Err(Abort::stash(e)),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.hint.min(*self.left))
    }
}

impl<'de, R: Read<'de>, const KEY: bool> de::SeqAccess<'de> for Fields<'_, R, KEY, false> {
    type Error = Error;

    #[inline]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    /// The types `field_body!` knows are read in [`Fields::known_field`],
    /// always inlined in an optimized build (the same instruction counts
    /// as the body written out here) and a call of its own at opt-level 0:
    /// written out, their temporaries made this frame 1,296 bytes there,
    /// on the stack once for each level of a recursive type
    /// (`tests/bincode_depth.rs`).
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        if *self.left == 0 {
            return Ok(None);
        }
        *self.left -= 1;
        match self.known_field::<T>()? {
            Some(v) => Ok(Some(v)),
            None => T::deserialize(&mut *self.de).map(Some),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.hint.min(*self.left))
    }
}

impl<'de, R: Read<'de>, const KEY: bool, const ABORT: bool> Fields<'_, R, KEY, ABORT> {
    /// A field of a type `field_body!` reads itself (`Ok(Some)`), or
    /// `Ok(None)` for any other.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn known_field<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        field_body!(self, T)
    }
}

impl<'de, R: Read<'de>, const KEY: bool> Fields<'_, R, KEY, true> {
    /// One field of type `T`, its error an [`Error`].
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn element<T: de::Deserialize<'de>>(&mut self) -> Result<T> {
        match self.known_field::<T>()? {
            Some(v) => Ok(v),
            None => T::deserialize(&mut *self.de),
        }
    }
}

impl<'de, R: Read<'de>> Decoder<R> {
    /// An `Option<P>` field (`T`), `P` read by `read`: `deserialize_option`
    /// inlined (serde's `Option` impl is not: a call and five registers
    /// saved per field), the value handed to `T`'s `Deserialize` through
    /// [`Given`]. The tag, the level of `Some` (spec 6) and every error
    /// and its offset are `deserialize_option`'s.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn option_field<T: de::Deserialize<'de>, P: IntoDeserializer<'de, Error>>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<P>,
    ) -> Result<T> {
        let at = self.read.offset();
        let value = match self.u8()? {
            0 => None,
            1 => {
                self.enter(at)?;
                let r = read(self);
                self.depth -= 1;
                Some(r.map_err(|e| e.or_offset(at))?)
            }
            t => return Err(super::bad_option_tag(t, at)),
        };
        T::deserialize(Given(value)).map_err(|e| e.or_offset(at))
    }

    /// A `&str` field: `deserialize_str` with serde's borrowed-str visitor.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn str_field(&mut self) -> Result<&'de str> {
        let (r, at) = self.bytes_value()?;
        match r {
            Reference::Borrowed(b) => {
                crate::raw::str_from_utf8(b).map_err(|e| Decoder::<R>::utf8_error(at, e))
            }
            Reference::Copied(b) => Err(match crate::raw::str_from_utf8(b) {
                // What serde's visitor says of a string it cannot borrow.
                Ok(s) => de::Error::invalid_type(de::Unexpected::Str(s), &"a borrowed string"),
                Err(e) => Decoder::<R>::utf8_error(at, e),
            }
            .or_offset(at)),
        }
    }

    /// A `String` field: `deserialize_string` with serde's string visitor.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[cfg_attr(debug_assertions, inline)]
    fn string_field(&mut self) -> Result<String> {
        let (r, at) = self.bytes_value()?;
        let b = match r {
            Reference::Borrowed(b) => b,
            Reference::Copied(b) => b,
        };
        match crate::raw::str_from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(e) => Err(Decoder::<R>::utf8_error(at, e)),
        }
    }
}

/// Whether a seq decoded into `T` is one of strings (`Vec<String>`,
/// `Vec<&str>`), which [`Fields`] reads faster than the plain access.
#[inline]
pub(super) fn string_seq<T>() -> bool {
    let id = typeid::of::<T>();
    id == typeid::of::<Vec<String>>() || id == typeid::of::<Vec<&str>>()
}

/// An option already read: `None`, or `Some` of a value serde's own
/// deserializer for it hands on (`visit_some` of `P`'s).
struct Given<P>(Option<P>);

impl<'de, P: IntoDeserializer<'de, Error>> de::Deserializer<'de> for Given<P> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            None => visitor.visit_none(),
            Some(p) => visitor.visit_some(p.into_deserializer()),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A `&str` read in place, handed on as serde's borrowed-str deserializer
/// hands it (`IntoDeserializer` of a `&str` would give the copying one).
struct BorrowedStr<'de>(&'de str);

impl<'de> IntoDeserializer<'de, Error> for BorrowedStr<'de> {
    type Deserializer = BorrowedStrDeserializer<'de, Error>;

    #[inline]
    fn into_deserializer(self) -> Self::Deserializer {
        BorrowedStrDeserializer::new(self.0)
    }
}
