//! The serde `Deserializer` for Frozen values (spec section 2).
//!
//! Canonical input only: bool and option tags other than 0/1, variant
//! indexes the type lacks, and maps whose keys do not strictly increase are
//! TYPE. Counts are checked against the caps and the bytes that remain
//! before anything is allocated (spec section 6).
//!
//! Depth (spec 6) counts seqs, maps, `Some` contents and enum variant
//! contents, the levels input data can repeat; structs, tuples, tuple
//! structs, newtype structs, unit values and unit variants add none, exactly
//! as on encode (`ser.rs`). Nesting that does not count is bounded by the
//! type for every derived `Deserialize` (a recursive type must pass through
//! an option, enum, seq or map to end), so no second, all-nesting cap is
//! kept: it would cost a counter on every struct on the hot paths. A
//! hand-written `Deserialize` that recurses through structs or tuples on
//! its own data must bound that recursion itself.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::error::{Error, ErrorCode, ErrorDetail, Result};
use crate::limits::Limits;
use crate::read::{InPlace, Read, Reference};
use crate::token;

pub use crate::read::{BufIoRead, IoRead, SliceRead};

mod abort;
mod bytes;
mod fail;
mod fields;
mod key;
mod map;
mod public;
mod seq;
mod window;

use fail::{bad_bool, bad_option_tag, left_unread, over_cap, unknown_variant};
use fields::visit_fields;
use map::MapAccess;
pub(crate) use public::forward_settled;
pub use public::Deserializer;
use seq::visit_seq_exact;

/// Size hint for a stream, where the bytes that remain are unknown.
const STREAM_HINT_CAP: usize = 4096;

/// The decoder behind [`Deserializer`] and the crate's entry points. Its
/// slice reads leave a short read's error pending (`Error::short_pending`):
/// whoever holds the decoder completes it with [`Decoder::settle`] when the
/// decode stops, so nothing the decoder drives is ever handed the
/// decoder's address on a failing path.
pub(crate) struct Decoder<R> {
    read: R,
    scratch: Vec<u8>,
    depth: u32,
    /// Elements promised by the size hints of the seqs and maps now open;
    /// together they stay within the bytes that remain.
    hinted: usize,
    limits: Limits,
    /// Capture marks of the most recent str/bytes content (map-key sorting).
    last_str: (usize, usize),
    /// Map keys being read (str/bytes positions are tracked only then).
    in_key: u32,
    /// A str/bytes count at or above this takes [`Self::bytes_slow`]:
    /// `max_bytes + 1` outside map keys, 0 inside one (every count), so a
    /// value outside keys tests its count once for both (`map.rs`).
    str_bar: u64,
    /// The open seq access's elements left, written back when the access
    /// is dropped (and, from a slice, before an element that may open a
    /// seq of its own): the access itself is passed by value and keeps
    /// its count in a register (`seq.rs`).
    seq_left: usize,
    /// The open seq access's size hint.
    seq_hint: usize,
}

impl<'de> Decoder<SliceRead<'de>> {
    /// A decoder reading from a slice (zero-copy for `&str`/`&[u8]`).
    #[inline]
    pub(crate) fn from_slice(slice: &'de [u8], limits: &Limits) -> Self {
        Decoder::new(SliceRead::new(slice, limits.limit), limits)
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'de [u8] {
        self.read.rest()
    }
}

impl<R: std::io::Read, const LIMITED: bool> Decoder<IoRead<R, LIMITED>> {
    /// A decoder reading from a stream; `LIMITED` false only where the
    /// caller's type says `limits` has no limit.
    pub(crate) fn from_stream(reader: R, limits: &Limits) -> Self {
        Decoder::new(IoRead::with_limit(reader, limits.limit), limits)
    }
}

const ANY_MSG: &str = "Kiln is not self-describing, so deserialize_any is not supported: \
     the type uses #[serde(untagged)], #[serde(flatten)], an internally or adjacently \
     tagged enum, or a dynamic value type (serde_json::Value); give it a concrete shape";

impl<'de, R: Read<'de>> Decoder<R> {
    /// A decoder over any reader.
    #[inline]
    pub(crate) fn new(read: R, limits: &Limits) -> Self {
        Decoder {
            read,
            scratch: Vec::new(),
            depth: 0,
            hinted: 0,
            limits: *limits,
            last_str: (usize::MAX, usize::MAX),
            in_key: 0,
            str_bar: limits.max_bytes.saturating_add(1),
            seq_left: 0,
            seq_hint: 0,
        }
    }

    /// Byte offset of the next byte to read.
    pub(crate) fn offset(&self) -> u64 {
        self.read.offset()
    }

    /// `e` as it leaves the decoder: a read's pending error completed
    /// ([`Read::settle`]), and the current offset on an error without one.
    #[inline(always)]
    pub(crate) fn settle(&mut self, e: Error) -> Error {
        self.read.settle(e).or_offset(self.read.offset())
    }

    /// Fails with TRAILING unless every byte was consumed (slices only; a
    /// stream cannot tell).
    pub(crate) fn end(&mut self) -> Result<()> {
        match self.read.trailing() {
            0 => Ok(()),
            n => Err(Error::at_fmt(
                ErrorCode::Trailing,
                self.read.offset(),
                format_args!("{n} bytes follow the value"),
            )),
        }
    }

    /// Gives the reader back.
    pub(crate) fn into_reader(self) -> R {
        self.read
    }

    #[inline]
    fn u8(&mut self) -> Result<u8> {
        Ok(self.read.read_array::<1>()?[0])
    }

    #[inline]
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.read.read_array()?))
    }

    /// One more level of nesting (spec 6): a seq, a map, a `Some`'s content
    /// or a variant's content; `at` is that value's offset, where the level
    /// past the cap is LIMIT. Pair with `self.depth -= 1`.
    #[inline]
    fn enter(&mut self, at: u64) -> Result<()> {
        if self.depth >= self.limits.max_depth {
            return Err(self.too_deep(at));
        }
        self.depth += 1;
        Ok(())
    }

    /// The offset of the enum value whose variant index was just read (the
    /// 4 bytes before the current position): a variant's level is the
    /// enum value's.
    #[inline]
    fn variant_at(&self) -> u64 {
        self.read.offset().saturating_sub(4)
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, at: u64) -> Error {
        // The cap is copied out before it is formatted: `format_args!` of
        // the field itself would capture a pointer into the deserializer,
        // and a captured address keeps the whole deserializer (its read
        // position too) in memory on every path that can fail (callgrind,
        // LTO, `mesh` de: a store per `f32`).
        let cap = self.limits.max_depth;
        Error::detailed(
            ErrorCode::Limit,
            at,
            ErrorDetail::TooDeep(cap),
            format_args!("nesting deeper than the depth cap {cap}"),
        )
    }

    /// A seq/map count, checked against the count cap.
    #[inline]
    fn count(&mut self) -> Result<(usize, u64)> {
        let at = self.read.offset();
        let n = self.u32()?;
        if u64::from(n) > self.limits.max_count {
            return Err(over_cap("count", n, self.limits.max_count, at));
        }
        Ok((n as usize, at))
    }

    /// The size hint for `n` elements: the hints of all open seqs and maps
    /// together are never more than the bytes remaining (a stream: never
    /// more than `STREAM_HINT_CAP`), so nested containers that all claim a
    /// large count cannot each preallocate. Pair with [`Self::unhint`].
    #[inline]
    fn hint(&mut self, n: usize) -> usize {
        let budget = self.read.remaining().unwrap_or(STREAM_HINT_CAP);
        let hint = n.min(budget.saturating_sub(self.hinted));
        self.hinted += hint;
        hint
    }

    /// Returns a closed container's hint to the budget.
    #[inline]
    fn unhint(&mut self, hint: usize) {
        self.hinted -= hint;
    }

    /// Reads a str/bytes value: count, caps, then the bytes.
    #[inline]
    fn bytes_value(&mut self) -> Result<(Reference<'de, '_>, u64)> {
        let at = self.read.offset();
        let n = self.u32()?;
        if u64::from(n) >= self.str_bar {
            self.bytes_slow(n, at)?;
        }
        let r = self.read.take(n as usize, at, &mut self.scratch)?;
        Ok((r, at))
    }

    /// A str/bytes count past [`Self::str_bar`]: over `max_bytes`, or
    /// inside a map key.
    #[inline]
    fn bytes_slow(&mut self, n: u32, at: u64) -> Result<()> {
        if u64::from(n) > self.limits.max_bytes {
            return Err(over_cap("length", n, self.limits.max_bytes, at));
        }
        if self.in_key > 0 {
            // Inside a map key: remember where the content lies, so a key
            // that is one str/bytes sorts without its count (spec 2.1).
            let start = self.read.mark();
            self.last_str = (start, start + n as usize);
        }
        Ok(())
    }

    #[cold]
    fn utf8_error(at: u64, e: std::str::Utf8Error) -> Error {
        Error::detailed(
            ErrorCode::Utf8,
            at,
            ErrorDetail::InvalidUtf8(e),
            format_args!("invalid UTF-8 at byte {} of the string", e.valid_up_to()),
        )
    }

    #[cold]
    #[inline(never)]
    fn any_error(&self) -> Error {
        Error::at(ErrorCode::Message, self.read.offset(), ANY_MSG)
            .with_detail(ErrorDetail::DeserializeAnyNotSupported)
    }

    fn tensors<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        match self.read.tensors_block(&self.limits, &mut self.scratch)? {
            Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
            Reference::Copied(c) => visitor.visit_bytes(c),
        }
        .map_err(|e: Error| e.or_offset(at))
    }

    /// A seq; `KNOWN` when `V` is serde's own visitor of a `Vec` (its
    /// output type says which: `bytes::KnownVec`), else asked of `V`.
    #[inline]
    fn seq<V: Visitor<'de>, const KNOWN: bool>(&mut self, visitor: V) -> Result<V::Value> {
        if self.in_key > 0 {
            // Maybe a list<u8> key, which sorts by content (spec 2.1).
            return self.key_seq(visitor);
        }
        let (n, at) = self.count()?;
        self.enter(at)?;
        let kind = if KNOWN {
            bytes::vec_kind::<V::Value>()
        } else {
            bytes::bulk_kind::<V>()
        };
        if let Some(r) = kind.and_then(|kind| self.bulk_vec::<_, false>(n, kind).transpose()) {
            self.depth -= 1;
            return r;
        }
        let hint = self.hint(n);
        let r = if fields::string_seq::<V::Value>() {
            visit_fields::<R, V, false>(self, n, hint, at, visitor)
        } else {
            visit_seq_exact(self, n, hint, at, visitor)
        };
        self.unhint(hint);
        self.depth -= 1;
        r
    }
}

/// Reads one value from a slice; trailing bytes are TRAILING unless allowed.
///
/// Always inlined, as bincode 1.3's `deserialize` is by LLVM: the
/// decoder then lives in its caller's frame. callgrind, `tick32`, each
/// loop in its own function, LTO / no LTO: 96.0 / 140.0 out of line, 93.0
/// / 135.2 with `#[inline]` (declined with LTO), 62.9 / 119.0 always
/// inlined; the datasets' decode unchanged. (In one shared bench function
/// forcing it had cost: 103 -> 120.)
#[inline(always)]
pub(crate) fn from_slice<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    limits: &Limits,
    allow_trailing: bool,
) -> Result<T> {
    let mut de = Decoder::from_slice(bytes, limits);
    let v = T::deserialize(&mut de).map_err(|e: Error| de.settle(e))?;
    if !allow_trailing {
        de.end()?;
    }
    Ok(v)
}

/// Reads one value from the front of a slice and returns the rest.
pub(crate) fn take_from_slice<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    limits: &Limits,
) -> Result<(T, &'de [u8])> {
    let mut de = Decoder::from_slice(bytes, limits);
    let v = T::deserialize(&mut de).map_err(|e: Error| de.settle(e))?;
    Ok((v, de.rest()))
}

/// Reads one value from a stream, consuming exactly its bytes. `LIMITED`
/// false (no test for a total size limit on any read) only where the
/// caller's type says `limits` has none.
///
/// Inlined, so that for a slice reader the value is decoded where the
/// caller uses it: returned through an out-of-line call, a small value
/// came back in memory and was copied on in loads wider than the
/// callee's stores (kiln's `bincode::deserialize_from(&mut &[u8])` of a
/// 32-byte message without LTO, one API per program: 26 -> 12 ns).
/// Other readers go on to [`from_stream`], out of line.
#[inline]
pub(crate) fn from_reader<R: std::io::Read, T: de::DeserializeOwned, const LIMITED: bool>(
    mut reader: R,
    limits: &Limits,
) -> Result<T> {
    if let Some(r) = from_slice_reader(&mut reader, limits) {
        return r;
    }
    from_stream::<R, T, LIMITED>(reader, limits)
}

/// [`from_reader`] for a reader that is not a slice.
fn from_stream<R: std::io::Read, T: de::DeserializeOwned, const LIMITED: bool>(
    reader: R,
    limits: &Limits,
) -> Result<T> {
    let mut de = Decoder::<IoRead<R, LIMITED>>::from_stream(reader, limits);
    T::deserialize(&mut de).map_err(|e: Error| de.settle(e))
}

/// Reads one value from an `io::BufRead`, consuming exactly its bytes,
/// through a copy of the front of its buffer ([`BufIoRead`]). A slice
/// or a cursor over one is decoded in place, as [`from_reader`] does.
#[inline]
pub(crate) fn from_bufread<R: std::io::BufRead, T: de::DeserializeOwned, const LIMITED: bool>(
    mut reader: R,
    limits: &Limits,
) -> Result<T> {
    if let Some(r) = from_slice_reader(&mut reader, limits) {
        return r;
    }
    from_buffered::<R, T, LIMITED>(&mut reader, limits)
}

/// [`from_bufread`] for a reader that is not a slice.
fn from_buffered<R: std::io::BufRead, T: de::DeserializeOwned, const LIMITED: bool>(
    reader: &mut R,
    limits: &Limits,
) -> Result<T> {
    let read = BufIoRead::<R, LIMITED>::with_limit(reader, limits.limit);
    let mut de = Decoder::new(read, limits);
    T::deserialize(&mut de).map_err(|e: Error| de.settle(e))
}

/// [`from_reader`] when the reader is a byte slice (`&[u8]` or
/// `&mut &[u8]`) or a cursor over one (`raw::with_slice_reader` names
/// them): decoded as [`take_from_slice`] and the slice (the cursor's
/// position) moved past the value; after an error it is left where it was
/// (a stream's position then depends on how far it read ahead; a slice
/// can keep its own).
/// `None` for any other reader. Both give the same value or the same
/// error code and offset, with or without a total size limit (the
/// `reader_chunks` fuzz target, tests/slice_reader.rs,
/// tests/limit_agreement.rs).
#[inline(always)]
pub(crate) fn from_slice_reader<R, T: de::DeserializeOwned>(
    reader: &mut R,
    limits: &Limits,
) -> Option<Result<T>> {
    crate::raw::with_slice_reader(reader, |bytes| {
        let mut used = 0;
        let r = take_in_place(bytes, limits, &mut used);
        (r, used)
    })
}

/// One value from the front of `bytes` for a reader that is a slice
/// ([`from_slice_reader`], the framed reader's value): the value, with
/// `used` set to the bytes it took; or the error, `used` left as it was.
///
/// The error leaves by `?` and the value alone is returned: built as
/// `(Ok(v), used)` or `(Err(e), 0)` in two arms, the two met in memory,
/// and the caller read `Result<Tick, Error>` back in a load that spanned
/// the error's 4-aligned slot and half of the 8-byte `id` store, a failed
/// store forward on every message (`from_reader(&mut &[u8])` of a 32-byte
/// message, one API per program: with LTO 8.6 ns, now 1.9; without 12.1,
/// now 11.2-11.8; with the `(Result, usize)` kept and an early return for
/// the error, 15 without LTO).
#[inline(always)]
pub(crate) fn take_in_place<T: de::DeserializeOwned>(
    bytes: &[u8],
    limits: &Limits,
    used: &mut usize,
) -> Result<T> {
    // `InPlace`, not `SliceRead`: `T::deserialize` for it is not the one
    // `from_slice` calls (see `read::InPlace`).
    let mut de = Decoder::new(InPlace(SliceRead::new(bytes, limits.limit)), limits);
    let v = T::deserialize(&mut de).map_err(|e: Error| de.settle(e))?;
    *used = bytes.len() - de.read.0.rest().len();
    Ok(v)
}

/// Runs `seed` over a slice (for `deserialize_seed`-style APIs).
pub(crate) fn seed_from_slice<'de, S: DeserializeSeed<'de>>(
    seed: S,
    bytes: &'de [u8],
    limits: &Limits,
    allow_trailing: bool,
) -> Result<S::Value> {
    let mut de = Decoder::from_slice(bytes, limits);
    let v = seed.deserialize(&mut de).map_err(|e: Error| de.settle(e))?;
    if !allow_trailing {
        de.end()?;
    }
    Ok(v)
}

macro_rules! de_le {
    ($($fn:ident => $visit:ident: $t:ty),*) => {
        $(
            #[inline]
            fn $fn<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                let at = self.read.offset();
                let v = <$t>::from_le_bytes(self.read.read_array()?);
                visitor.$visit(v).map_err(|e: Error| e.or_offset(at))
            }
        )*
    };
}

impl<'de, R: Read<'de>> de::Deserializer<'de> for &mut Decoder<R> {
    type Error = Error;

    #[cold]
    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(self.any_error())
    }

    #[cold]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(self.any_error())
    }

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        match self.u8()? {
            0 => visitor.visit_bool(false),
            1 => visitor.visit_bool(true),
            b => Err(bad_bool(b, at)),
        }
        .map_err(|e: Error| e.or_offset(at))
    }

    de_le!(deserialize_i8 => visit_i8: i8, deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32, deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128, deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16, deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64, deserialize_u128 => visit_u128: u128);

    #[inline]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        let v = f32::from_bits(u32::from_le_bytes(self.read.read_array()?));
        visitor.visit_f32(v).map_err(|e: Error| e.or_offset(at))
    }

    #[inline]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        let v = f64::from_bits(u64::from_le_bytes(self.read.read_array()?));
        visitor.visit_f64(v).map_err(|e: Error| e.or_offset(at))
    }

    #[inline]
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        let v = self.u32()?;
        match char::from_u32(v) {
            Some(c) => visitor.visit_char(c).map_err(|e: Error| e.or_offset(at)),
            None => Err(Error::detailed(
                ErrorCode::Utf8,
                at,
                ErrorDetail::BadChar(v),
                format_args!("char 0x{v:x} is not a Unicode scalar value"),
            )),
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (r, at) = self.bytes_value()?;
        match r {
            Reference::Borrowed(b) => match crate::raw::str_from_utf8(b) {
                Ok(s) => visitor.visit_borrowed_str(s),
                Err(e) => Err(Decoder::<R>::utf8_error(at, e)),
            },
            Reference::Copied(b) => match crate::raw::str_from_utf8(b) {
                Ok(s) => visitor.visit_str(s),
                Err(e) => Err(Decoder::<R>::utf8_error(at, e)),
            },
        }
        .map_err(|e: Error| e.or_offset(at))
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (r, at) = self.bytes_value()?;
        match r {
            Reference::Borrowed(b) => visitor.visit_borrowed_bytes(b),
            Reference::Copied(b) => visitor.visit_bytes(b),
        }
        .map_err(|e: Error| e.or_offset(at))
    }

    #[inline]
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.read.offset();
        match self.u8()? {
            0 => visitor.visit_none().map_err(|e: Error| e.or_offset(at)),
            1 => {
                self.enter(at)?;
                let r = visitor.visit_some(&mut *self);
                self.depth -= 1;
                r.map_err(|e: Error| e.or_offset(at))
            }
            t => Err(bad_option_tag(t, at)),
        }
    }

    #[inline]
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_unit()
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if token::is_tensors(name) {
            return self.tensors(visitor);
        }
        // No level of its own (spec 6): its nesting is fixed by the type.
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.seq::<V, false>(visitor)
    }

    #[inline]
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        // No level of its own (spec 6), as for structs and tuple structs.
        let at = self.read.offset();
        visit_fields::<R, V, false>(self, len, len, at, visitor)
    }

    #[inline]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let (n, at) = self.count()?;
        self.enter(at)?;
        self.read.map_open();
        let hint = self.hint(n);
        let mut access = MapAccess {
            de: &mut *self,
            left: n,
            hint,
            prev: None,
        };
        let r = visitor.visit_map(&mut access);
        let left = access.left;
        self.unhint(hint);
        self.read.map_close();
        self.last_str = (usize::MAX, usize::MAX);
        self.depth -= 1;
        let v = r.map_err(|e: Error| e.or_offset(at))?;
        if left != 0 {
            return Err(Error::at_fmt(
                ErrorCode::Message,
                at,
                format_args!("the map's visitor left {left} of {n} entries unread"),
            ));
        }
        Ok(v)
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_tuple(fields.len(), visitor)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        // The level is taken by the variant's content (`VariantAccess`): a
        // unit variant has none and adds no level, on encode as here.
        let at = self.read.offset();
        visitor.visit_enum(self).map_err(|e: Error| e.or_offset(at))
    }

    #[inline]
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u32(visitor)
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// A seq visitor's result `r`, with the seq's offset `at` on an error
/// that has none, or MESSAGE when it left `left` of the `n` elements
/// unread (the rest of the bytes would be misread).
#[inline]
fn all_read<T>(r: Result<T>, left: usize, n: usize, at: u64) -> Result<T> {
    let v = match r {
        Ok(v) => v,
        Err(e) => return Err(e.or_offset(at)),
    };
    if left != 0 {
        return Err(left_unread(left, n, at));
    }
    Ok(v)
}

impl<'de, R: Read<'de>> de::EnumAccess<'de> for &mut Decoder<R> {
    type Error = Error;
    type Variant = Self;

    #[inline]
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let at = self.read.offset();
        let idx = self.u32()?;
        let v = seed
            .deserialize(IntoDeserializer::<Error>::into_deserializer(idx))
            .map_err(|e| unknown_variant(idx, &e, at))?;
        Ok((v, self))
    }
}

impl<'de, R: Read<'de>> de::VariantAccess<'de> for &mut Decoder<R> {
    type Error = Error;

    #[inline]
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.enter(self.variant_at())?;
        let r = seed.deserialize(&mut *self);
        self.depth -= 1;
        r
    }

    #[inline]
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        fields::variant_fields::<R, V, false>(self, len, visitor)
    }

    #[inline]
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        fields::variant_fields::<R, V, false>(self, fields.len(), visitor)
    }
}
