//! A serializer that only counts bytes: the length `to_vec` is about to
//! produce, so that `to_vec` allocates its buffer once instead of doubling
//! it (bincode 1's `serialize` does the same pre-pass).
//!
//! As a hint it adds up sizes by the same rules as `ser.rs` (spec section
//! 2) and validates nothing (counts above the wire maximum, duplicate map
//! keys, a size limit): the real pass reports those.
//!
//! [`serialized_size`](crate::serialized_size) must fail exactly where
//! `to_vec` fails, so it takes the count only when the counter can vouch
//! for it ([`exact`]): no map (a duplicate key is an error only the bytes
//! show), no unknown-length sequence, every count and length within the
//! u32 wire maximum, every tensor newtype around bytes, nesting within the
//! depth cap (spec 6, counted as `ser.rs` counts it). Otherwise it runs
//! the real serializer.

use std::fmt;

use serde::ser::{self, Serialize};

use super::block::BlockOnly;
use crate::token;

/// The number of bytes `value` encodes to, when its `Serialize` impl
/// succeeds; `None` if it fails (the real pass will say why).
#[inline]
pub(crate) fn hint<T: ?Sized + Serialize>(value: &T) -> Option<usize> {
    let mut c = Counter::<false>::new(u32::MAX);
    value.serialize(&mut c).ok().map(|()| c.n)
}

/// The number of bytes `value` encodes to, when the real serializer would
/// certainly produce exactly that many without an error (see the module
/// docs) under the depth cap `max_depth`; `None` when only the real pass
/// can tell.
pub(crate) fn exact<T: ?Sized + Serialize>(value: &T, max_depth: u32) -> Option<u64> {
    let mut c = Counter::<true>::new(max_depth);
    match value.serialize(&mut c) {
        Ok(()) if c.exact => u64::try_from(c.n).ok(),
        _ => None,
    }
}

/// `EXACT`: also track whether the count can be vouched for (`exact`);
/// without it (the `to_vec` hint) those tests compile away.
struct Counter<const EXACT: bool> {
    /// Bytes so far. For the hint, wrapping, not saturating: consecutive
    /// constant adds then fold into one (`saturating_add` kept an add +
    /// cmov chain per field, a third of `updates`' to_vec time). Only a
    /// value repeating one borrowed slice ~2^64 bytes' worth could wrap
    /// it, and then the hint is just wrong (a reservation that fails or is
    /// too small). With `EXACT` a wrap withdraws the vouch instead.
    n: usize,
    /// With `EXACT`: nothing seen that only the real pass can judge.
    exact: bool,
    /// With `EXACT`: open seqs, `Some`s and non-unit variants (spec 6; a
    /// map withdraws the vouch anyway), and the cap.
    depth: u32,
    max_depth: u32,
}

impl<const EXACT: bool> Counter<EXACT> {
    fn new(max_depth: u32) -> Self {
        Counter {
            n: 0,
            exact: true,
            depth: 0,
            max_depth,
        }
    }

    /// With `EXACT`: one more level; past the cap the real pass must say
    /// where it fails.
    #[inline]
    fn enter(&mut self) {
        if EXACT {
            self.vouch(self.depth < self.max_depth);
            self.depth = self.depth.saturating_add(1);
        }
    }

    #[inline]
    fn leave(&mut self) {
        if EXACT {
            self.depth = self.depth.saturating_sub(1);
        }
    }

    #[inline]
    fn add(&mut self, k: usize) {
        let (n, wrapped) = self.n.overflowing_add(k);
        self.n = n;
        self.vouch(!wrapped);
    }

    /// With `EXACT`: `ok` must hold for the count to be vouched for.
    #[inline]
    fn vouch(&mut self, ok: bool) {
        if EXACT {
            self.exact &= ok;
        }
    }
}

/// Counts and lengths the wire carries (a u32).
#[inline]
fn fits(n: usize) -> bool {
    u32::try_from(n).is_ok()
}

/// The counter's error: the value's own `Serialize` impl failed.
#[derive(Debug)]
pub(crate) struct Failed;

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("serialize failed")
    }
}

impl std::error::Error for Failed {}

impl ser::Error for Failed {
    fn custom<M: fmt::Display>(_msg: M) -> Self {
        Failed
    }
}

type R = Result<(), Failed>;

macro_rules! fixed {
    ($($fn:ident: $t:ty),*) => {
        $(
            #[inline]
            fn $fn(self, _v: $t) -> R {
                self.add(std::mem::size_of::<$t>());
                Ok(())
            }
        )*
    };
}

impl<const EXACT: bool> ser::Serializer for &mut Counter<EXACT> {
    type Ok = ();
    type Error = Failed;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fixed!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_f32: f32,
        serialize_f64: f64);

    #[inline]
    fn serialize_char(self, _v: char) -> R {
        self.add(4);
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> R {
        self.serialize_bytes(v.as_bytes())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> R {
        self.vouch(fits(v.len()));
        self.add(4);
        self.add(v.len());
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> R {
        self.add(1);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> R {
        self.enter();
        self.add(1);
        value.serialize(&mut *self)?;
        self.leave();
        Ok(())
    }

    #[inline]
    fn serialize_unit(self) -> R {
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> R {
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(self, _n: &'static str, _idx: u32, _v: &'static str) -> R {
        self.add(4);
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, name: &'static str, value: &T) -> R {
        if token::is_tensors(name) {
            // The block without a count; anything but bytes fails, as in
            // `ser.rs` (the same `BlockOnly`).
            return value.serialize(BlockOnly(|block: &[u8]| {
                self.add(block.len());
                Ok(())
            }));
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        _idx: u32,
        _v: &'static str,
        value: &T,
    ) -> R {
        self.enter();
        self.add(4);
        value.serialize(&mut *self)?;
        self.leave();
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, Failed> {
        // Unknown lengths: the count is checked when the sequence ends.
        self.vouch(len.is_some_and(fits));
        self.enter();
        self.add(4);
        Ok(self)
    }

    #[inline]
    fn serialize_tuple(self, _len: usize) -> Result<Self, Failed> {
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_struct(self, _n: &'static str, _len: usize) -> Result<Self, Failed> {
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        _idx: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Self, Failed> {
        self.enter();
        self.add(4);
        Ok(self)
    }

    #[inline]
    fn serialize_map(self, _len: Option<usize>) -> Result<Self, Failed> {
        // Only the key bytes can show a duplicate key.
        self.vouch(false);
        self.add(4);
        Ok(self)
    }

    #[inline]
    fn serialize_struct(self, _n: &'static str, _len: usize) -> Result<Self, Failed> {
        Ok(self)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        n: &'static str,
        idx: u32,
        v: &'static str,
        len: usize,
    ) -> Result<Self, Failed> {
        // The same bytes: the u32 variant index, then the fields.
        self.serialize_tuple_variant(n, idx, v, len)
    }

    #[inline]
    fn collect_seq<I>(self, iter: I) -> R
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        if let Some((n, v)) = crate::raw::fixed_seq(&iter) {
            // As `serialize_seq(Some(len))` and each element's bytes.
            self.vouch(fits(n));
            self.enter();
            self.add(4);
            self.add(v.len());
            self.leave();
            return Ok(());
        }
        super::collect_seq(self, iter)
    }

    fn collect_str<T: ?Sized + fmt::Display>(self, value: &T) -> R {
        struct Len(usize);
        impl fmt::Write for Len {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                self.0 = self.0.wrapping_add(s.len());
                Ok(())
            }
        }
        let mut len = Len(0);
        fmt::write(&mut len, format_args!("{value}")).map_err(|_| Failed)?;
        self.add(4);
        self.add(len.0);
        Ok(())
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// `$leave`: the compound holds a level (spec 6) that ends with it.
macro_rules! compound {
    ($tr:ident, $leave:literal, $method:ident $(, $key:ident)?) => {
        impl<const EXACT: bool> ser::$tr for &mut Counter<EXACT> {
            type Ok = ();
            type Error = Failed;

            #[inline]
            fn $method<T: ?Sized + Serialize>(&mut self, $($key: &'static str,)? value: &T) -> R {
                value.serialize(&mut **self)
            }

            #[inline]
            fn end(self) -> R {
                if $leave {
                    self.leave();
                }
                Ok(())
            }
        }
    };
}

compound!(SerializeSeq, true, serialize_element);
compound!(SerializeTuple, false, serialize_element);
compound!(SerializeTupleStruct, false, serialize_field);
compound!(SerializeTupleVariant, true, serialize_field);
compound!(SerializeStruct, false, serialize_field, _key);
compound!(SerializeStructVariant, true, serialize_field, _key);

impl<const EXACT: bool> ser::SerializeMap for &mut Counter<EXACT> {
    type Ok = ();
    type Error = Failed;

    #[inline]
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> R {
        key.serialize(&mut **self)
    }

    #[inline]
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> R {
        value.serialize(&mut **self)
    }

    #[inline]
    fn end(self) -> R {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Counter;

    #[test]
    fn an_exact_count_that_wraps_is_not_vouched_for() {
        let mut c = Counter::<true>::new(0);
        c.add(usize::MAX - 1);
        c.add(1);
        assert!(c.exact);
        c.add(4);
        assert!(!c.exact, "wrapped to {}", c.n);
        // The hint counter just wraps (its flag is never consulted).
        let mut h = Counter::<false>::new(0);
        h.add(usize::MAX);
        h.add(2);
        assert_eq!(h.n, 1);
    }
}
