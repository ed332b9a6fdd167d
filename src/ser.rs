//! The serde `Serializer` for Frozen values (spec section 2).
//!
//! Output always goes into one `Vec<u8>`. When the destination is an
//! `io::Write` (or a byte counter for [`serialized_size`](crate::serialized_size)),
//! the buffer is flushed whenever no map or unknown-length sequence is open,
//! so memory stays bounded while maps can still be sorted in place and
//! unknown counts patched after the fact.

use std::io;

use serde::ser::{self, Serialize};

use crate::error::{Error, ErrorCode, ErrorDetail, Result};
use crate::limits::Limits;
use crate::token;

mod block;
mod entry;
mod key;
mod map;
mod out;
mod retry;
mod size;

use block::BlockOnly;
pub(crate) use entry::{
    buffer_for, extend_with, fill_new, fill_slice, serialized_size, to_extend, to_vec, to_writer,
};
use key::KeySer;
pub use map::MapSer;
use out::{Out, StreamOut};

/// Flush to the sink once this many bytes are buffered (outside maps).
const FLUSH_AT: usize = 64 * 1024;

/// The room [`Serializer::fields`] asks for a field: the widest
/// fixed-width write (a `u128`).
const FIELD_ROOM: usize = 16;

/// The most fields [`Serializer::fields`] asks room for.
const FIELDS_MAX: usize = 32;

/// The most room [`Serializer::fields`] asks for.
pub(crate) const FIELDS_ROOM: usize = FIELD_ROOM * FIELDS_MAX;

/// `last_str` when no key string is a candidate: no content range starts
/// at 0 (a count precedes it). Zero, so it is stored with the other
/// zeroed fields of a new serializer.
const NO_STR: (usize, usize) = (0, 0);

enum Sink<'w> {
    /// `to_vec`: the buffer is the result.
    None,
    /// `to_writer`.
    Writer(&'w mut dyn io::Write),
    /// `serialized_size`: bytes are counted and dropped.
    Count,
}

/// The Frozen serializer. Use [`to_vec`](crate::to_vec),
/// [`to_writer`](crate::to_writer) or the [`Options`](crate::Options) methods rather than
/// building one directly.
///
/// `O` is where the bytes go ([`out`]): for `to_vec` and friends the buffer
/// is the result and never flushed (`O::STREAM` false), so the flush check
/// per sequence element and per string compiles away.
///
/// `repr(C)`, the output first and the depth next. In the order rustc
/// chose once the map entries left (they are each map's own,
/// `ser/map.rs`), LLVM with LTO kept `depth` in memory through `updates`'
/// `to_slice` (4.20 -> 4.53 M instructions; 4.23 M laid out so). The
/// output first puts a growing `Vec`'s reference (`raw::VecCursor`, its
/// first field) at the serializer's own address, so the growth path of
/// each write reads it with no address computed: one use of the address
/// fewer a field, of the 100 within which LLVM proves that the bytes
/// written miss the serializer (`raw/vec_cursor.rs`, `Buf`). A 24-field
/// order (154 bytes) through `bincode::serialize_into` with LTO, a call:
/// 11.7 -> 6.2 ns (bincode 1.3: 9.1); the datasets' counts as they were.
#[repr(C)]
pub struct Serializer<'w, O: Out = StreamOut<'w>> {
    out: O,
    /// Open seqs, maps, `Some`s and non-unit variants (spec 6), and the cap.
    depth: u32,
    max_depth: u32,
    /// Bytes already handed to the sink.
    flushed: u64,
    sink: Sink<'w>,
    /// Open maps / unknown-length seqs: while > 0 nothing is flushed.
    pending: u32,
    /// Start and end (in `out`) of the most recent str/bytes *content*
    /// written by a map key's [`KeySer`] (plain strings do not track it).
    last_str: (usize, usize),
    limit: Option<u64>,
    /// Bytes at the front of `out` that are not part of the value (a frame
    /// header): counted in offsets, not against the limit.
    prefix: u64,
}

impl<'w, O: Out> Serializer<'w, O> {
    fn with_sink(out: O, sink: Sink<'w>, limits: &Limits) -> Self {
        debug_assert_eq!(O::STREAM, !matches!(sink, Sink::None));
        Serializer {
            out,
            flushed: 0,
            sink,
            pending: 0,
            last_str: NO_STR,
            limit: limits.limit,
            prefix: 0,
            depth: 0,
            max_depth: limits.max_depth,
        }
    }

    /// Opens one level of nesting (spec 6) for the value about to be
    /// written here: LIMIT before any of its bytes when that passes the cap,
    /// as the decoder does. Pair with `self.depth -= 1`.
    #[inline]
    fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(self.too_deep());
        }
        self.depth += 1;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Error {
        // Copied out before it is formatted, as in the decoder's: a
        // pointer into the serializer captured by `format_args!` would keep
        // the serializer in memory on every path that can fail.
        let cap = self.max_depth;
        Error::detailed(
            ErrorCode::Limit,
            self.total(),
            ErrorDetail::TooDeep(cap),
            format_args!("nesting deeper than the depth cap {cap}"),
        )
    }

    /// Before a run of `len` fields (a struct's, a tuple's): room for 16
    /// bytes each (the widest fixed-width write), up to 32 of them
    /// ([`Out::room_for`]), so that their fixed-width writes need no room
    /// test of their own: LLVM drops each test that the one here implies
    /// (`at + 16 * len <= 0` before them). Callgrind, `to_extend` into a
    /// reused buffer (`serw`), LTO / no LTO: `mesh` 6.63 / 6.63 -> 3.00 /
    /// 2.88 M instructions (216 / 213 -> 136 / 146 µs; a memcpy of its
    /// bytes 90-95), `updates` 5.17 / 5.34 -> 3.74 / 4.29 M, `savedata`
    /// 1.50 / 1.66 -> 1.36 / 1.48 M, `log` 1.30 / 1.53 -> 1.23 / 1.29 M; a
    /// 32-byte message 46.6 / 45.6 -> 28.5 / 27.8. With 8 bytes
    /// a field, `mesh` 3.63 M: a `Vector3`'s 12 bytes after another's
    /// were then outside its triangle's room.
    #[inline(always)]
    fn fields(&mut self, len: usize) -> Result<()> {
        if len > 1 {
            self.out.room_for(FIELD_ROOM * len.min(FIELDS_MAX))
        } else {
            Ok(())
        }
    }

    /// Bytes written so far (flushed and buffered).
    fn total(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    #[inline]
    fn put(&mut self, b: &[u8]) {
        self.out.put(b);
    }

    /// Flushes when the buffer is full and nothing needs patching. Nothing
    /// at all without a sink; else the hot part is one compare, and the
    /// `pending` test sits in the cold call, so that LLVM does not fold
    /// both tests into branch-free code on every element.
    #[inline]
    fn maybe_flush(&mut self) -> Result<()> {
        if O::STREAM && self.out.len() >= FLUSH_AT {
            self.flush_if_idle()
        } else {
            Ok(())
        }
    }

    #[cold]
    #[inline(never)]
    fn flush_if_idle(&mut self) -> Result<()> {
        if self.pending == 0 {
            self.flush()?;
        }
        Ok(())
    }

    /// LIMIT when the value's bytes pass `limit`. The entry points give
    /// their own copy of the options' limit rather than `self.limit`:
    /// after the value's `serialize`, out of line, a limit read back from
    /// the serializer is one LLVM cannot know, so a `None` known to the
    /// caller (the free functions) was tested on every call.
    #[inline]
    fn check_limit_of(&self, limit: Option<u64>) -> Result<()> {
        if let Some(limit) = limit {
            if self.total() - self.prefix > limit {
                return Err(Error::new_fmt(
                    ErrorCode::Limit,
                    None,
                    format_args!("encoded size exceeds the limit of {limit} bytes"),
                ));
            }
        }
        Ok(())
    }

    /// An entry point's pass: `head` (a frame header, or nothing), then
    /// `value`, then the limit test. `prefix` bytes come before the
    /// value's own (the header, and any the output held): counted in
    /// offsets, not against the limit.
    #[inline(always)]
    fn write_value<const N: usize, T: ?Sized + Serialize>(
        &mut self,
        prefix: usize,
        head: &[u8; N],
        value: &T,
        limit: Option<u64>,
    ) -> Result<()> {
        self.prefix = prefix as u64;
        self.out.put_head(head);
        value
            .serialize(&mut *self)
            .and_then(|()| self.check_limit_of(limit))
    }

    #[cold]
    fn flush(&mut self) -> Result<()> {
        self.check_limit_of(self.limit)?;
        match &mut self.sink {
            Sink::None => return Ok(()),
            Sink::Writer(w) => w
                .write_all(self.out.written().unwrap_or_default())
                .map_err(|e| Error::io(e, Some(self.flushed)))?,
            Sink::Count => {}
        }
        self.flushed += self.out.len() as u64;
        self.out.truncate(0);
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        self.check_limit_of(self.limit)?;
        if O::STREAM {
            self.flush()?;
        }
        Ok(self.total())
    }

    /// A str/bytes value: count, then the bytes.
    #[inline]
    fn plain_bytes(&mut self, v: &[u8]) -> Result<()> {
        let Ok(n) = u32::try_from(v.len()) else {
            return Err(self.count_too_big(v.len(), "length"));
        };
        self.out.put_counted::<true>(n, v);
        self.maybe_flush()
    }

    #[inline]
    fn put_count(&mut self, len: usize, what: &'static str) -> Result<()> {
        match u32::try_from(len) {
            Ok(n) => {
                self.put(&n.to_le_bytes());
                Ok(())
            }
            Err(_) => Err(self.count_too_big(len, what)),
        }
    }

    /// The error of [`Self::put_count`], out of line: as a `map_err`
    /// closure its captures were stored on the stack before every string's
    /// count, 4 instructions each.
    #[cold]
    #[inline(never)]
    fn count_too_big(&self, len: usize, what: &'static str) -> Error {
        Error::new_fmt(
            ErrorCode::Limit,
            Some(self.total()),
            format_args!("{what} of {len} is above the wire maximum 4,294,967,295"),
        )
    }

    /// A `Vec` or slice of `n` fixed-width elements given to
    /// `collect_seq` ([`crate::raw::fixed_seq`]): the bytes
    /// `serialize_seq` and one `serialize_*` per element write, errors
    /// included, with one copy.
    fn fixed_seq(&mut self, n: usize, v: &[u8]) -> Result<()> {
        self.enter()?;
        if !O::STREAM {
            // Count and bytes with one room test, as a str's.
            let Ok(count) = u32::try_from(n) else {
                return Err(self.count_too_big(n, "sequence count"));
            };
            self.out.put_counted::<false>(count, v);
        } else {
            self.put_count(n, "sequence count")?;
            self.write_raw_block(v)?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn write_raw_block(&mut self, v: &[u8]) -> Result<()> {
        // Bytes in place, no count (a tensor directory, or the elements of a
        // byte sequence after its count). Large blocks go straight to a
        // writer sink when nothing needs patching.
        if self.pending == 0 && v.len() >= FLUSH_AT && O::STREAM {
            self.flush()?;
            if let Some(limit) = self.limit {
                if self.flushed.saturating_add(v.len() as u64) > limit {
                    return Err(Error::new_fmt(
                        ErrorCode::Limit,
                        None,
                        format_args!("encoded size exceeds the limit of {limit} bytes"),
                    ));
                }
            }
            match &mut self.sink {
                Sink::Writer(w) => w
                    .write_all(v)
                    .map_err(|e| Error::io(e, Some(self.flushed)))?,
                Sink::Count | Sink::None => {}
            }
            self.flushed += v.len() as u64;
            return Ok(());
        }
        self.put(v);
        self.maybe_flush()
    }
}

macro_rules! put_le {
    ($($fn:ident: $t:ty),*) => {
        $(
            #[inline]
            fn $fn(self, v: $t) -> Result<()> {
                self.put(&v.to_le_bytes());
                Ok(())
            }
        )*
    };
}

impl<'a, 'w, O: Out> ser::Serializer for &'a mut Serializer<'w, O> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a, 'w, O>;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = MapSer<'a, 'w, O>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(v as u8);
        Ok(())
    }

    put_le!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_u128: u128);

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.out.push(v);
        Ok(())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.out.put_float(&v.to_bits().to_le_bytes())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.put_float(&v.to_bits().to_le_bytes())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        self.put(&(v as u32).to_le_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.serialize_bytes(v.as_bytes())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        // No state to test: map keys go through `KeySer` and tensor blocks
        // through `BlockOnly`, so a string is the count test and one
        // append of count and content (`raw::put_counted`).
        self.plain_bytes(v)
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.out.push(0);
        Ok(())
    }

    #[inline]
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.enter()?;
        self.out.push(1);
        // The level back on every path, a full slice's too (a float's
        // write ends the pass there, `Out::put_float`): then the
        // increment and the decrement can cancel, where a level left open
        // on that way out needs `depth` stored before the write.
        let r = value.serialize(&mut *self);
        self.depth -= 1;
        r
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(self, _n: &'static str, idx: u32, _v: &'static str) -> Result<()> {
        self.put(&idx.to_le_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if token::is_tensors(name) {
            // The block raw, without a count; anything but bytes: MESSAGE.
            return value.serialize(BlockOnly(|block: &[u8]| self.write_raw_block(block)));
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _n: &'static str,
        idx: u32,
        _v: &'static str,
        value: &T,
    ) -> Result<()> {
        self.enter()?;
        self.put(&idx.to_le_bytes());
        // The level back on every path (see `serialize_some`).
        let r = value.serialize(&mut *self);
        self.depth -= 1;
        r
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a, 'w, O>> {
        self.enter()?;
        match len {
            Some(n) => {
                self.put_count(n, "sequence count")?;
                Ok(SeqSer {
                    ser: self,
                    n: 0,
                    patch: None,
                })
            }
            None => {
                let at = self.out.len();
                self.put(&[0; 4]);
                self.pending += 1;
                Ok(SeqSer {
                    ser: self,
                    n: 0,
                    patch: Some(at),
                })
            }
        }
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Self> {
        self.fields(len)?;
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_struct(self, _n: &'static str, len: usize) -> Result<Self> {
        self.fields(len)?;
        Ok(self)
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        _n: &'static str,
        idx: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.enter()?;
        self.put(&idx.to_le_bytes());
        Ok(self)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<MapSer<'a, 'w, O>> {
        self.enter()?;
        if let Some(n) = len {
            // Fail early on counts the wire cannot carry.
            if u32::try_from(n).is_err() {
                return Err(Error::new_fmt(
                    ErrorCode::Limit,
                    Some(self.total()),
                    format_args!("map count {n} is above the wire maximum 4,294,967,295"),
                ));
            }
        }
        let count_at = self.out.len();
        self.put(&[0; 4]);
        self.pending += 1;
        Ok(MapSer::new(self, count_at))
    }

    #[inline]
    fn serialize_struct(self, _n: &'static str, len: usize) -> Result<Self> {
        self.fields(len)?;
        Ok(self)
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        _n: &'static str,
        idx: u32,
        _v: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.enter()?;
        self.put(&idx.to_le_bytes());
        Ok(self)
    }

    fn is_human_readable(&self) -> bool {
        false
    }

    fn collect_str<T: ?Sized + std::fmt::Display>(self, value: &T) -> Result<()> {
        self.serialize_str(&display(value)?)
    }

    #[inline]
    fn collect_seq<I>(self, iter: I) -> Result<()>
    where
        I: IntoIterator,
        I::Item: Serialize,
    {
        match crate::raw::fixed_seq(&iter) {
            Some((n, v)) => self.fixed_seq(n, v),
            None if O::RETRY => self.collect_seq_retrying(iter),
            None => collect_seq(self, iter),
        }
    }
}

/// serde's own default `collect_seq` body, with the inline hint that the
/// default lacks; the real serializer and the counting pass both use it.
/// Without LTO every `Vec`'s elements were otherwise written through an
/// out-of-line loop (callgrind, no LTO: `updates` to_vec 12.44 -> 10.47
/// M, `log` 2.01 -> 1.75 M, `mesh` 14.75 -> 13.88 M).
#[inline]
pub(super) fn collect_seq<S, I>(s: S, iter: I) -> std::result::Result<S::Ok, S::Error>
where
    S: ser::Serializer,
    I: IntoIterator,
    I::Item: Serialize,
{
    use ser::SerializeSeq as _;
    let mut iter = iter.into_iter();
    let mut seq = s.serialize_seq(exact_len(&iter))?;
    iter.try_for_each(|item| seq.serialize_element(&item))?;
    seq.end()
}

/// A sequence's count up front only when its iterator knows it exactly
/// (serde's private `iterator_len_hint`); otherwise patched in at the end.
#[inline]
fn exact_len<I: Iterator>(iter: &I) -> Option<usize> {
    match iter.size_hint() {
        (lo, Some(hi)) if lo == hi => Some(lo),
        _ => None,
    }
}

/// `collect_str`'s text; an error from the `Display` impl is MESSAGE (the
/// default `to_string` would panic).
fn display<T: ?Sized + std::fmt::Display>(value: &T) -> Result<String> {
    use std::fmt::Write as _;
    let mut s = String::new();
    write!(s, "{value}")
        .map_err(|_| Error::new(ErrorCode::Message, None, "a Display impl returned an error"))?;
    Ok(s)
}

/// Sequence state: a known count was already written, or the count is
/// patched in at the end.
pub struct SeqSer<'a, 'w, O: Out> {
    ser: &'a mut Serializer<'w, O>,
    /// Elements so far, counted on both paths by `serialize_element`: one
    /// add per element instead of a test of `patch` (measured: `to_slice`
    /// on `mesh` 14.00 -> 11.75 M instructions with LTO, where the test
    /// was not hoisted out of the loop). `to_slice`'s own sequence loop
    /// (`ser/retry.rs`) counts only when `patch` is set: only `end` reads
    /// it, and only then.
    n: u64,
    /// Position in `out` of the 4-byte placeholder for unknown lengths.
    patch: Option<usize>,
}

impl<O: Out> ser::SerializeSeq for SeqSer<'_, '_, O> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.n += 1;
        self.ser.element(value)?;
        // With a count to patch, `pending` holds the flush back.
        self.ser.maybe_flush()
    }

    #[inline]
    fn end(self) -> Result<()> {
        self.ser.depth -= 1;
        let Some(at) = self.patch else {
            return Ok(());
        };
        let n = u32::try_from(self.n).map_err(|_| {
            Error::new_fmt(
                ErrorCode::Limit,
                Some(self.ser.flushed + at as u64),
                format_args!(
                    "sequence count {} is above the wire maximum 4,294,967,295",
                    self.n
                ),
            )
        })?;
        if let Some(c) = self
            .ser
            .out
            .written_mut()
            .and_then(|w| w.get_mut(at..at + 4))
        {
            c.copy_from_slice(&n.to_le_bytes());
        }
        self.ser.pending -= 1;
        self.ser.maybe_flush()?;
        Ok(())
    }
}

/// The compound serializers that add no bytes at the end. `$leave`: the
/// compound is a variant's content, whose level (spec 6) ends here.
macro_rules! compound {
    ($tr:ident, $leave:literal, $method:ident $(, $key:ident)?) => {
        impl<O: Out> ser::$tr for &mut Serializer<'_, O> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: ?Sized + Serialize>(&mut self, $($key: &'static str,)? value: &T) -> Result<()> {
                value.serialize(&mut **self)
            }

            #[inline]
            fn end(self) -> Result<()> {
                if $leave {
                    self.depth -= 1;
                }
                Ok(())
            }
        }
    };
}

compound!(SerializeTuple, false, serialize_element);
compound!(SerializeTupleStruct, false, serialize_field);
compound!(SerializeTupleVariant, true, serialize_field);
compound!(SerializeStruct, false, serialize_field, _key);
compound!(SerializeStructVariant, true, serialize_field, _key);
