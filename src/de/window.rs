//! A plain struct's fields read from a window of the input.
//!
//! When a struct (or tuple) of the types [`worth`] takes opens with at
//! least [`WINDOW`] bytes left in a slice, those bytes are borrowed as an
//! array, and its fixed-width fields (numbers, `bool`, and structs and
//! tuples of them) are read from it at offsets that are constants in the
//! derived code: the room tests fold away, and the reader moves once, when
//! the struct closes. A `mesh` triangle (12 `f32` in 4 `Vector3`) had 12
//! room tests and 12 position updates; it now has one test, when the
//! triangle opens (callgrind, LTO: 87 -> 45 instructions a triangle).
//!
//! Any other field (an enum, an option, a `char`, a string) moves the
//! reader up to what the window read and is read by the decoder; the
//! window then starts again after it with what remains, at most
//! [`WINDOW`] bytes. A read the window cannot hold is EOF (or LIMIT) at
//! its first byte, as the decoder's own read would be, completed when the
//! decode stops. It is a returned value, not a call: with a call to the
//! decoder on that path, the window's address went to code out of line,
//! the derived `Vector3::visit_seq` was no longer inlined into
//! `Triangle`'s, and `mesh` decode took 44 M instructions, not 8.4 (no
//! LTO). The types taken have at most 64 bytes of fixed-width fields (none
//! is wider on the wire than in memory), so with 256 bytes at the open a
//! read of the window fails only after the decoder's reads took the rest:
//! zero-sized enums, 4 bytes each on the wire (`tests/window.rs` has one).
//!
//! An element of a seq (`mesh`'s `Vec<Triangle>`) opens its window in
//! the seq's access, before its `Deserialize` runs ([`Element`]): the
//! derive's function for it then holds the window's path alone, which a
//! build without LTO inlines into serde's `Vec` loop (ThinLTO imports
//! only functions of under 100 IR instructions from the codegen unit
//! where they were built). With the careful path beside it, it was a call
//! per triangle whose 52-byte result the loop read back in 16-byte loads
//! across its 8- and 4-byte stores, a failed store forward each: `mesh`
//! decode without LTO 8.38 -> 5.63 M instructions, and in the profile
//! binary 1.6-1.8 ms -> 0.9-1.6 (the floor, `serde_bound`, 0.6-1.1; one
//! machine, quiet and loaded). `E` keeps that path's derived
//! `visit_seq`s apart from the struct's own: called from both, LLVM
//! inlined them into neither (48.7 -> 253.7 instructions a triangle with
//! LTO, session 48).
//!
//! That path's error is the zero-sized [`Abort`] ([`Mode`]), as is the
//! seq access's (`seq.rs`): serde's `Vec` loop takes each element through
//! a `Result<Option<T>, E>`, and with kiln's 8-byte [`Error`] there LLVM
//! moved a triangle as eight 8- and 4-byte pieces, five of them through
//! the stack; with `Abort`, as two 16-byte and two 8-byte ones. `mesh`
//! decode: 5.00 / 5.63 -> 3.50 / 4.00 M instructions (LTO / no LTO),
//! below `benches/bound.rs`'s floor with an error of kiln's shape (4.25
//! / 4.75); the profile binary without LTO, 9 alternated runs, 0.96-1.38
//! -> 0.77-1.07 ms. The other datasets' decode counts are unchanged
//! (within 0.01 M).
//!
//! There is no `unsafe` here: the window is a `&[u8; 256]` (then a
//! `&[u8]`), indexed through `get`. Every value and every error, code and
//! offset, is the decoder's; `tests/window.rs` compares the slice with a
//! stream (which has no window) for every cut, every changed byte and
//! every total size limit.

use serde::de::{self, DeserializeSeed, Visitor};

use super::abort::Abort;
use super::fail::{bad_bool, left_unread};
use super::Decoder;
use crate::error::{Error, Result};
use crate::read::{Read, WINDOW};
use crate::token;

/// The decoder, and a window of the input at its position. `E`: opened
/// by an [`Element`] (see the module's docs).
pub(super) struct Win<'a, 'de, R, const E: bool> {
    de: &'a mut Decoder<R>,
    /// At most [`WINDOW`] bytes from the decoder's position on.
    bytes: &'de [u8],
    /// Bytes of the window read (the decoder has not moved past them).
    used: usize,
    /// The input offset of the window's first byte.
    at0: u64,
    /// Fields left to read in the innermost struct open.
    left: usize,
}

/// Whether a struct that decodes to a `T` reads through a window: plain
/// data (nothing to drop) of 24 to 64 bytes, aligned to less than 8.
/// Smaller structs (a `Guidance` in `updates`) gained nothing and, with
/// the second path, were no longer inlined into the struct around them
/// (`updates` decode +2.7% instructions with LTO); a `u64` or `f64` inside
/// takes the zero-sized field error instead (`abort.rs`), and the window's
/// code around it made a 32-byte `Tick`'s decode 41.6 -> 114 instructions.
#[inline(always)]
pub(super) const fn worth<T>() -> bool {
    let size = std::mem::size_of::<T>();
    size >= 24 && size <= 64 && std::mem::align_of::<T>() < 8 && !std::mem::needs_drop::<T>()
}

/// [`worth`] as an associated constant, for the seq's access: a branch
/// on it is gone before LLVM weighs the function for inlining. With the
/// `const fn` called there, owned `log` decode (no element taken) went
/// 16.22 -> 18.95 M instructions without LTO.
pub(super) struct Worth<T>(std::marker::PhantomData<T>);

impl<T> Worth<T> {
    pub(super) const YES: bool = worth::<T>();
}

/// The error type of a window's reads, by who opened it (`E`): the
/// decoder's [`Error`] for a struct's own window, the zero-sized [`Abort`]
/// for a seq's element ([`Element`]; see the module's docs).
pub(super) trait Mode {
    type Err: de::Error;
    /// The decoder's error as this mode's.
    fn lift(e: Error) -> Self::Err;
    /// [`Error::or_offset`] of the error `e` stands for.
    fn or_offset(e: Self::Err, at: u64) -> Self::Err;
    /// [`Error::or_offset_of_fields`] of the error `e` stands for.
    fn or_offset_of_fields(e: Self::Err, at: u64) -> Self::Err;
}

/// The [`Mode`] of a window opened by an [`Element`] (`true`) or not.
pub(super) struct M<const E: bool>;

impl Mode for M<false> {
    type Err = Error;
    #[inline(always)]
    fn lift(e: Error) -> Error {
        e
    }
    #[inline(always)]
    fn or_offset(e: Error, at: u64) -> Error {
        e.or_offset(at)
    }
    #[inline(always)]
    fn or_offset_of_fields(e: Error, at: u64) -> Error {
        e.or_offset_of_fields(at)
    }
}

impl Mode for M<true> {
    type Err = Abort;
    #[inline(always)]
    fn lift(e: Error) -> Abort {
        Abort::stash(e)
    }
    #[cold]
    #[inline(never)]
    fn or_offset(e: Abort, at: u64) -> Abort {
        Abort::stash(e.take().or_offset(at))
    }
    #[cold]
    #[inline(never)]
    fn or_offset_of_fields(e: Abort, at: u64) -> Abort {
        Abort::stash(e.take().or_offset_of_fields(at))
    }
}

/// The reader's next [`WINDOW`] bytes, when that many remain. Out of line
/// without optimization, as [`visit`] (a recursion's stack frames).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(super) fn full<'de, R: Read<'de>>(read: &R) -> Option<&'de [u8; WINDOW]> {
    read.full_window()
}

/// Visits the `n` fields of a struct that opens at the decoder's position
/// through the window `bytes` there. Inlined only without
/// `debug_assertions`: at opt-level 0 its body would make every recursion
/// level's stack frame larger (`tests/bincode_depth.rs`).
#[cfg_attr(not(debug_assertions), inline(always))]
#[cfg_attr(debug_assertions, inline(never))]
pub(super) fn visit<'de, R: Read<'de>, V: Visitor<'de>, const E: bool>(
    de: &mut Decoder<R>,
    bytes: &'de [u8; WINDOW],
    n: usize,
    visitor: V,
) -> std::result::Result<V::Value, <M<E> as Mode>::Err>
where
    M<E>: Mode,
{
    let at0 = de.read.offset();
    let mut win = Win::<R, E> {
        de,
        bytes,
        used: 0,
        at0,
        left: 0,
    };
    let r = fields(&mut win, n, visitor);
    win.de.read.advance(win.used);
    r
}

impl<'de, R: Read<'de>, const E: bool> Win<'_, 'de, R, E> {
    /// The next `N` bytes of the window. Fewer left: EOF (or LIMIT) at
    /// them, as the decoder's read would give, and every later read of
    /// the window fails too (the decoder moves up to them at the close).
    #[inline(always)]
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.used + N;
        // `TryFrom`, not `copy_from_slice`: that calls a function of
        // core's, which a build without LTO inlines only after its
        // codegen units are linked, so each read stayed a call in the
        // size that decides whether a struct's decode is inlined there.
        match self.bytes.get(self.used..end).map(<[u8; N]>::try_from) {
            Some(Ok(a)) => {
                self.used = end;
                Ok(a)
            }
            _ => {
                self.bytes = &[];
                Err(Error::short_pending(N, 0))
            }
        }
    }

    /// The input offset of the next byte.
    #[inline(always)]
    fn offset(&self) -> u64 {
        self.at0 + self.used as u64
    }

    /// The decoder, moved past what the window read; [`Self::reopen`]
    /// must follow its read.
    #[inline(always)]
    fn decoder(&mut self) -> &mut Decoder<R> {
        self.de.read.advance(self.used);
        &mut *self.de
    }

    /// The window again at the decoder's position, after a read of the
    /// decoder's own.
    #[inline(always)]
    fn reopen(&mut self) {
        self.bytes = self.de.read.window();
        self.used = 0;
        self.at0 = self.de.read.offset();
    }
}

/// Visits exactly `n` fields through the window (as `visit_fields`).
#[inline(always)]
fn fields<'de, R: Read<'de>, V: Visitor<'de>, const E: bool>(
    win: &mut Win<'_, 'de, R, E>,
    n: usize,
    visitor: V,
) -> std::result::Result<V::Value, <M<E> as Mode>::Err>
where
    M<E>: Mode,
{
    let at = win.offset();
    let outer = std::mem::replace(&mut win.left, n);
    let r = visitor.visit_seq(WinFields { win: &mut *win });
    let left = std::mem::replace(&mut win.left, outer);
    match r {
        Ok(v) if left == 0 => Ok(v),
        Ok(_) => Err(M::<E>::lift(left_unread(left, n, at))),
        Err(e) => Err(M::<E>::or_offset_of_fields(e, at)),
    }
}

struct WinFields<'w, 'a, 'de, R, const E: bool> {
    win: &'w mut Win<'a, 'de, R, E>,
}

impl<'de, R: Read<'de>, const E: bool> de::SeqAccess<'de> for WinFields<'_, '_, 'de, R, E>
where
    M<E>: Mode,
{
    type Error = <M<E> as Mode>::Err;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, Self::Error> {
        if self.win.left == 0 {
            return Ok(None);
        }
        self.win.left -= 1;
        seed.deserialize(&mut *self.win).map(Some)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        Some(self.win.left)
    }
}

/// Fixed-width numbers, from the window.
macro_rules! fixed {
    ($($fn:ident => $visit:ident: $from:expr;)*) => {
        $(
            #[inline(always)]
            fn $fn<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, Self::Error> {
                let at = self.offset();
                let v = $from(self.take().map_err(M::<E>::lift)?);
                visitor.$visit(v).map_err(|e| M::<E>::or_offset(e, at))
            }
        )*
    };
}

/// Everything else: the decoder's read, and the window after it.
macro_rules! decoder {
    ($($fn:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[inline]
            fn $fn<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> std::result::Result<V::Value, Self::Error> {
                let r = de::Deserializer::$fn(self.decoder(), $($arg,)* visitor);
                self.reopen();
                r.map_err(M::<E>::lift)
            }
        )*
    };
}

impl<'de, R: Read<'de>, const E: bool> de::Deserializer<'de> for &mut Win<'_, 'de, R, E>
where
    M<E>: Mode,
{
    type Error = <M<E> as Mode>::Err;

    fixed! {
        deserialize_i8 => visit_i8: i8::from_le_bytes;
        deserialize_i16 => visit_i16: i16::from_le_bytes;
        deserialize_i32 => visit_i32: i32::from_le_bytes;
        deserialize_i64 => visit_i64: i64::from_le_bytes;
        deserialize_i128 => visit_i128: i128::from_le_bytes;
        deserialize_u8 => visit_u8: u8::from_le_bytes;
        deserialize_u16 => visit_u16: u16::from_le_bytes;
        deserialize_u32 => visit_u32: u32::from_le_bytes;
        deserialize_u64 => visit_u64: u64::from_le_bytes;
        deserialize_u128 => visit_u128: u128::from_le_bytes;
        deserialize_f32 => visit_f32: |b| f32::from_bits(u32::from_le_bytes(b));
        deserialize_f64 => visit_f64: |b| f64::from_bits(u64::from_le_bytes(b));
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        let at = self.offset();
        let v = match self.take::<1>().map_err(M::<E>::lift)? {
            [0] => false,
            [1] => true,
            [b] => return Err(M::<E>::lift(bad_bool(b, at))),
        };
        visitor.visit_bool(v).map_err(|e| M::<E>::or_offset(e, at))
    }

    decoder! {
        deserialize_any();
        deserialize_ignored_any();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_seq();
        deserialize_map();
        deserialize_identifier();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(
        self,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        if token::is_tensors(name) {
            let r = de::Deserializer::deserialize_newtype_struct(self.decoder(), name, visitor);
            self.reopen();
            return r.map_err(M::<E>::lift);
        }
        visitor.visit_newtype_struct(self)
    }

    #[inline(always)]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        fields(self, len, visitor)
    }

    #[inline(always)]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        fields(self, len, visitor)
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, Self::Error> {
        fields(self, names.len(), visitor)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A seq's element of a type [`worth`] takes, with a full window at its
/// position: a struct or tuple of such a type is read through it as in
/// `visit_fields` (by a path of its own, `E`), with no careful path
/// beside it. Anything else the element's `Deserialize` asks for, and a
/// struct outside the range (one it converts from), is the decoder's.
pub(super) struct Element<'a, 'de, R> {
    pub(super) de: &'a mut Decoder<R>,
    pub(super) bytes: &'de [u8; WINDOW],
}

/// [`Element`]'s errors are the decoder's, put in [`Abort`]'s slot (the
/// seq's access takes them back).
fn stashed<R>(_: &mut &mut Decoder<R>, e: Error) -> Abort {
    Abort::stash(e)
}

impl<'de, R: Read<'de>> Element<'_, 'de, R> {
    /// A struct or tuple of `n` fields: through the window when its type
    /// is in range, else by the decoder (`by_decoder`).
    #[inline(always)]
    fn open<V: Visitor<'de>>(
        &mut self,
        n: usize,
        visitor: V,
        by_decoder: impl FnOnce(&mut Decoder<R>, V) -> Result<V::Value>,
    ) -> std::result::Result<V::Value, Abort> {
        if !worth::<V::Value>() {
            return by_decoder(&mut *self.de, visitor).map_err(Abort::stash);
        }
        visit::<R, V, true>(&mut *self.de, self.bytes, n, visitor)
    }
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Element<'_, 'de, R> {
    type Error = Abort;

    crate::de::forward_settled!(@leaves stashed);

    #[inline(always)]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, Abort> {
        self.open(len, visitor, |de, v| {
            de::Deserializer::deserialize_tuple(de, len, v)
        })
    }

    #[inline(always)]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> std::result::Result<V::Value, Abort> {
        self.open(len, visitor, |de, v| {
            de::Deserializer::deserialize_tuple_struct(de, name, len, v)
        })
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        names: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, Abort> {
        self.open(names.len(), visitor, |de, v| {
            de::Deserializer::deserialize_struct(de, name, names, v)
        })
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}
