//! bincode 1.3's option builder: the [`Options`] trait, [`DefaultOptions`],
//! and the types the builder methods return, so code that names them
//! (`WithOtherLimit<DefaultOptions, Bounded>`) compiles unchanged.
//!
//! What each choice does here:
//!
//! | builder method | effect with Kiln |
//! |---|---|
//! | `with_limit(n)` / `with_no_limit()` | honoured: serializing, `serialized_size` and deserializing (slices and readers) fail with `SizeLimit` past `n` bytes (bincode 1.3 ignored the limit when deserializing a slice; here it applies) |
//! | `allow_trailing_bytes()` / `reject_trailing_bytes()` | honoured for slices |
//! | `with_little_endian()` / `with_big_endian()` / `with_native_endian()` | accepted, **no effect**: Kiln is always little-endian |
//! | `with_fixint_encoding()` / `with_varint_encoding()` | accepted, **no effect**: Kiln integers are fixed-width, counts are u32 |
//!
//! Defaults, as in bincode 1.3 (the two differ, for bincode's historical
//! reasons; this module keeps them so behaviour does not change under you):
//!
//! | | limit | trailing bytes |
//! |---|---|---|
//! | [`DefaultOptions`] / [`options()`](super::options) | none | rejected |
//! | the free functions ([`serialize`](super::serialize), [`deserialize`](super::deserialize), ...) | none | allowed |
//!
//! Kiln's per-value caps are raised to the wire maximum in this module (a
//! str, bytes, seq or map may hold up to 4,294,967,295 bytes or elements,
//! as bincode allows): a length is still compared with the bytes that remain
//! before anything is allocated, and a stream grows its buffer only as bytes
//! arrive, so a hostile length costs no more than the input really holds.
//! Nesting (spec 6: seqs, maps, `Some`s and enum variants with content) is
//! capped at [`BINCODE_MAX_DEPTH`] levels, on encode and decode alike
//! (`SizeLimit`), where bincode would overflow the stack on hostile input;
//! [`KilnOptionsExt::with_max_depth`] sets another cap.

use std::io::{Read, Write};
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde::{Deserialize, Serialize};

use super::Result;

#[allow(deprecated)]
pub use super::legacy::Config;

mod sealed {
    /// Only this module's option types implement `Options`.
    pub trait Sealed {}

    /// A byte-limit choice: [`Bounded`](super::Bounded) or [`Infinite`](super::Infinite).
    pub trait Limit: Copy {
        /// The limit in bytes, if any.
        fn bytes(&self) -> Option<u64>;

        /// `deserialize_from`'s decode: with [`Infinite`](super::Infinite)
        /// (the default), the stream's reads make no limit test at all.
        fn seed_from_reader<'a, R: std::io::Read, T: serde::de::DeserializeSeed<'a>>(
            opts: &crate::Options,
            seed: T,
            reader: R,
        ) -> super::Result<T::Value>;
    }

    /// A trailing-bytes choice.
    pub trait Trailing: Copy {
        /// True when bytes after a value in a slice are accepted.
        const ALLOW: bool;
    }

    /// An endianness choice (no effect on Kiln's bytes).
    pub trait Endian: Copy {}

    /// An integer-encoding choice (no effect on Kiln's bytes).
    pub trait IntEncoding: Copy {}
}

/// The configuration builder of bincode 1.3. Implemented by
/// [`DefaultOptions`] and the `WithOther*` types its methods return (the
/// trait is sealed).
///
/// Every method takes `self` by value; the types are `Copy`, so keep one
/// around and reuse it.
///
/// # Examples
///
/// ```
/// use kiln_serde::bincode::{self, Options};
///
/// let opts = bincode::DefaultOptions::new()
///     .with_limit(1024)
///     .with_little_endian()
///     .with_fixint_encoding()
///     .allow_trailing_bytes();
/// let bytes = opts.serialize(&(7u16, "seven")).unwrap();
/// let back: (u16, String) = opts.deserialize(&bytes).unwrap();
/// assert_eq!(back, (7, "seven".to_string()));
/// ```
pub trait Options: sealed::Sealed + Sized {
    /// The Kiln options these settings stand for (limit, trailing-bytes
    /// choice and this module's raised caps). Not part of bincode's API.
    #[doc(hidden)]
    fn kiln_options(&self) -> crate::Options;

    /// Whether these options can carry a byte limit ([`Bounded`]) or
    /// cannot ([`Infinite`]): a stream read without one makes no limit
    /// test. Not part of bincode's API.
    #[doc(hidden)]
    type KilnLimit: sealed::Limit;

    /// No byte limit (the default).
    fn with_no_limit(self) -> WithOtherLimit<Self, Infinite> {
        WithOtherLimit::new(self, Infinite)
    }

    /// At most `limit` bytes are written or read by one call; past it the
    /// call fails with [`ErrorKind::SizeLimit`](super::ErrorKind::SizeLimit).
    fn with_limit(self, limit: u64) -> WithOtherLimit<Self, Bounded> {
        WithOtherLimit::new(self, Bounded(limit))
    }

    /// Little-endian (the default). Kiln is always little-endian.
    fn with_little_endian(self) -> WithOtherEndian<Self, LittleEndian> {
        WithOtherEndian::new(self)
    }

    /// Accepted for source compatibility; **no effect**: Kiln's bytes are
    /// always little-endian.
    fn with_big_endian(self) -> WithOtherEndian<Self, BigEndian> {
        WithOtherEndian::new(self)
    }

    /// Accepted for source compatibility; **no effect**: Kiln's bytes are
    /// always little-endian.
    fn with_native_endian(self) -> WithOtherEndian<Self, NativeEndian> {
        WithOtherEndian::new(self)
    }

    /// Accepted for source compatibility; **no effect**: Kiln's integers are
    /// fixed-width and its counts are u32.
    fn with_varint_encoding(self) -> WithOtherIntEncoding<Self, VarintEncoding> {
        WithOtherIntEncoding::new(self)
    }

    /// Accepted for source compatibility; Kiln's integers are always
    /// fixed-width (its counts are u32, not bincode's u64).
    fn with_fixint_encoding(self) -> WithOtherIntEncoding<Self, FixintEncoding> {
        WithOtherIntEncoding::new(self)
    }

    /// Deserializing a slice fails when bytes follow the value (the default
    /// of [`DefaultOptions`]).
    fn reject_trailing_bytes(self) -> WithOtherTrailing<Self, RejectTrailing> {
        WithOtherTrailing::new(self)
    }

    /// Deserializing a slice ignores bytes after the value (the setting of
    /// the free functions).
    fn allow_trailing_bytes(self) -> WithOtherTrailing<Self, AllowTrailing> {
        WithOtherTrailing::new(self)
    }

    /// Encodes `value` into a new `Vec`.
    ///
    /// # Errors
    /// `SizeLimit` past the byte limit or for a str/bytes/seq/map longer
    /// than 4,294,967,295; `Custom` for errors raised by the value's
    /// `Serialize` and for duplicate map keys.
    #[inline]
    fn serialize<S: ?Sized + Serialize>(self, value: &S) -> Result<Vec<u8>> {
        super::serialize_with(&self.kiln_options(), value)
    }

    /// The number of bytes [`serialize`](Options::serialize) would produce.
    ///
    /// # Errors
    /// As [`serialize`](Options::serialize) (`SizeLimit` past the limit).
    fn serialized_size<T: ?Sized + Serialize>(self, value: &T) -> Result<u64> {
        super::serialized_size_with(&self.kiln_options(), value)
    }

    /// Encodes `value` into a writer. Under a byte limit the size is checked
    /// first, so nothing is written when the value is too big.
    ///
    /// # Errors
    /// As [`serialize`](Options::serialize), plus `Io` when the writer fails.
    #[inline]
    fn serialize_into<W: Write, T: ?Sized + Serialize>(self, writer: W, value: &T) -> Result<()> {
        super::serialize_into_with(&self.kiln_options(), writer, value)
    }

    /// Decodes one value from a slice. `&str` and `&[u8]` borrow from it.
    ///
    /// # Errors
    /// `Io(UnexpectedEof)` when the slice ends inside the value; `SizeLimit`
    /// past the byte limit; `Custom("Slice had bytes remaining after
    /// deserialization")` for trailing bytes unless allowed; the other
    /// [`ErrorKind`](super::ErrorKind)s for bad bytes.
    #[inline]
    fn deserialize<'a, T: Deserialize<'a>>(self, bytes: &'a [u8]) -> Result<T> {
        super::deserialize_seed_with(&self.kiln_options(), PhantomData, bytes)
    }

    /// Decodes one value from a slice with a `DeserializeSeed`.
    ///
    /// # Errors
    /// As [`deserialize`](Options::deserialize).
    fn deserialize_seed<'a, T: DeserializeSeed<'a>>(
        self,
        seed: T,
        bytes: &'a [u8],
    ) -> Result<T::Value> {
        super::deserialize_seed_with(&self.kiln_options(), seed, bytes)
    }

    /// Decodes one value from a reader, consuming exactly its bytes (values
    /// written back to back are read one by one). Without a byte limit, a
    /// `&[u8]` or `&mut &[u8]` reader, or a `Cursor` over bytes, is decoded
    /// in place and moved past the value (left where it was after an
    /// error).
    ///
    /// # Errors
    /// `Io(UnexpectedEof)` when the stream ends (before or inside the
    /// value); `Io` for other read errors; `SizeLimit` past the byte limit;
    /// the other [`ErrorKind`](super::ErrorKind)s for bad bytes.
    #[inline]
    fn deserialize_from<R: Read, T: DeserializeOwned>(self, mut reader: R) -> Result<T> {
        let opts = self.kiln_options();
        // A `&[u8]` reader is decoded in place (and moved past the value),
        // with or without a byte limit.
        if let Some(r) = crate::de::from_slice_reader(&mut reader, opts.limits()) {
            return r.map_err(super::error::from_kiln);
        }
        <Self::KilnLimit as sealed::Limit>::seed_from_reader(&opts, PhantomData, reader)
    }

    /// Decodes one value from a reader with a `DeserializeSeed`.
    ///
    /// # Errors
    /// As [`deserialize_from`](Options::deserialize_from).
    fn deserialize_from_seed<'a, R: Read, T: DeserializeSeed<'a>>(
        self,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        <Self::KilnLimit as sealed::Limit>::seed_from_reader(&self.kiln_options(), seed, reader)
    }

    /// Decodes one value from a custom [`BincodeRead`](super::BincodeRead);
    /// bytes it lends for `'a` can be borrowed. No trailing-bytes check.
    ///
    /// # Errors
    /// As [`deserialize_from`](Options::deserialize_from); an error the
    /// reader returns comes back unchanged (`Io(UnexpectedEof)` with Kiln's
    /// message, which names the offset).
    fn deserialize_from_custom<'a, R: super::BincodeRead<'a>, T: DeserializeOwned>(
        self,
        reader: R,
    ) -> Result<T> {
        super::deserialize_from_custom_with(&self.kiln_options(), PhantomData, reader)
    }

    /// Decodes one value from a custom [`BincodeRead`](super::BincodeRead)
    /// with a `DeserializeSeed`.
    ///
    /// # Errors
    /// As [`deserialize_from_custom`](Options::deserialize_from_custom).
    fn deserialize_from_custom_seed<'a, R: super::BincodeRead<'a>, T: DeserializeSeed<'a>>(
        self,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        super::deserialize_from_custom_with(&self.kiln_options(), seed, reader)
    }

    /// Decodes into an existing value (`Deserialize::deserialize_in_place`)
    /// from a custom [`BincodeRead`](super::BincodeRead).
    ///
    /// # Errors
    /// As [`deserialize_from_custom`](Options::deserialize_from_custom).
    fn deserialize_in_place<'a, R, T>(self, reader: R, place: &mut T) -> Result<()>
    where
        R: super::BincodeRead<'a>,
        T: Deserialize<'a>,
    {
        super::deserialize_in_place_with(&self.kiln_options(), reader, place)
    }
}

/// The options of [`options()`](super::options): no byte limit, trailing
/// bytes rejected (bincode 1.3's `DefaultOptions`; note that the free
/// functions of this module allow trailing bytes, as bincode's do).
///
/// # Examples
///
/// ```
/// use kiln_serde::bincode::{DefaultOptions, ErrorKind, Options};
///
/// let bytes = DefaultOptions::new().serialize(&5u8).unwrap();
/// let err = DefaultOptions::new().deserialize::<u8>(&[5, 0]).unwrap_err();
/// assert!(matches!(*err, ErrorKind::Custom(_)));
/// let v: u8 = DefaultOptions::new().allow_trailing_bytes().deserialize(&[5, 0]).unwrap();
/// assert_eq!((bytes, v), (vec![5], 5));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct DefaultOptions(Infinite);

impl DefaultOptions {
    /// No byte limit, trailing bytes rejected.
    pub fn new() -> DefaultOptions {
        DefaultOptions(Infinite)
    }
}

/// The Kiln options behind [`DefaultOptions`]: no limit, trailing bytes
/// rejected, counts and lengths capped only by the wire maximum, nesting
/// capped at [`BINCODE_MAX_DEPTH`].
pub(crate) const BASE: crate::Options = crate::Options::new()
    .with_max_count(u32::MAX as u64)
    .with_max_bytes(u32::MAX as u64)
    .with_max_depth(BINCODE_MAX_DEPTH);

/// The depth cap (spec 6) of this module's functions and options: bincode
/// 1.3 has none and round-trips recursive values thousands of levels deep
/// (until the stack overflows, also on hostile input), so this cap is far
/// above Kiln's default of 128 while hostile input still stops with
/// `SizeLimit` before the stack runs out.
///
/// Stack per level, measured with `tests/bincode_depth.rs`
/// (`measure_stack_per_level`): the smallest thread stack (bisected to
/// 1 KiB, one child process per try) on which a value 1,000 and 3,000
/// levels deep round-trips through `serialize` + `deserialize`, the
/// difference divided by 2,000 levels (x86-64 Linux, rustc 1.95; release
/// numbers move by a few bytes per level between builds, 256-304 B for
/// `Tree`):
///
/// | shape | debug | release |
/// |---|---|---|
/// | `struct Tree { kids: Vec<Tree> }` | 2,464 B | 256 B |
/// | `struct Node { next: Option<Box<Node>> }` | 1,584 B | 96 B |
/// | `enum List { Cons(u32, Box<List>), Nil }` | 1,680 B | 96 B |
/// | hostile `[1; n]` read as `Node`, stopped at the cap | 1,584 B | 96 B |
///
/// So 2,048 levels of the deepest-framed shape take about 5 MiB in a
/// debug build (0.5 MiB in release): inside the 8 MiB of a Linux main
/// thread with 2 MiB left for the caller's own frames (the tests run on
/// 6 MiB), but not inside the 2 MiB
/// of a spawned thread's default stack in debug. Types with bigger frames
/// per level take more; lower the cap with
/// [`KilnOptionsExt::with_max_depth`] for small stacks.
pub const BINCODE_MAX_DEPTH: u32 = 2048;

/// Kiln's addition to the bincode [`Options`] chain: the depth cap.
/// Implemented for every `Options` type.
///
/// # Examples
///
/// ```
/// use kiln_serde::bincode::{self, ErrorKind, KilnOptionsExt, Options};
///
/// let opts = bincode::options().with_max_depth(2);
/// let bytes = opts.serialize(&Some(Some(1u8))).unwrap();
/// assert_eq!(opts.deserialize::<Option<Option<u8>>>(&bytes).unwrap(), Some(Some(1)));
/// let err = opts.serialize(&Some(Some(Some(1u8)))).unwrap_err();
/// assert!(matches!(*err, ErrorKind::SizeLimit));
/// ```
pub trait KilnOptionsExt: Options {
    /// Caps nesting at `n` levels of seqs, maps, `Some`s and enum variants
    /// with content (spec 6), on encode and decode alike; one level more
    /// is [`ErrorKind::SizeLimit`](super::ErrorKind::SizeLimit). The
    /// default is [`BINCODE_MAX_DEPTH`]. A higher cap lets hostile input
    /// nest deeper, and each level takes stack (see [`BINCODE_MAX_DEPTH`]).
    fn with_max_depth(self, n: u32) -> WithMaxDepth<Self> {
        WithMaxDepth {
            options: self,
            max_depth: n,
        }
    }
}

impl<O: Options> KilnOptionsExt for O {}

/// Options with a depth cap of its own (from
/// [`KilnOptionsExt::with_max_depth`]).
#[derive(Clone, Copy, Debug)]
pub struct WithMaxDepth<O> {
    options: O,
    max_depth: u32,
}

impl<O: Options> sealed::Sealed for WithMaxDepth<O> {}
impl<O: Options> Options for WithMaxDepth<O> {
    type KilnLimit = O::KilnLimit;
    fn kiln_options(&self) -> crate::Options {
        self.options.kiln_options().with_max_depth(self.max_depth)
    }
}

/// Options already turned into Kiln's: what the `Options` methods that
/// build a [`Deserializer`](super::Deserializer) hand it.
pub(crate) struct Resolved(pub(crate) crate::Options);

impl sealed::Sealed for Resolved {}
impl Options for Resolved {
    type KilnLimit = Bounded;
    fn kiln_options(&self) -> crate::Options {
        self.0
    }
}

impl sealed::Sealed for DefaultOptions {}

impl Options for DefaultOptions {
    type KilnLimit = Infinite;
    fn kiln_options(&self) -> crate::Options {
        BASE
    }
}

impl<O: Options> sealed::Sealed for &mut O {}

impl<O: Options> Options for &mut O {
    type KilnLimit = O::KilnLimit;
    fn kiln_options(&self) -> crate::Options {
        (**self).kiln_options()
    }
}

/// Options with a byte limit of its own ([`Bounded`] or [`Infinite`]).
#[derive(Clone, Copy, Debug)]
pub struct WithOtherLimit<O, L> {
    options: O,
    limit: L,
}

/// Options with an endianness of its own (no effect on Kiln's bytes).
#[derive(Clone, Copy, Debug)]
pub struct WithOtherEndian<O, E> {
    options: O,
    _endian: PhantomData<E>,
}

/// Options with an integer encoding of its own (no effect on Kiln's bytes).
#[derive(Clone, Copy, Debug)]
pub struct WithOtherIntEncoding<O, I> {
    options: O,
    _encoding: PhantomData<I>,
}

/// Options with a trailing-bytes behaviour of its own.
#[derive(Clone, Copy, Debug)]
pub struct WithOtherTrailing<O, T> {
    options: O,
    _trailing: PhantomData<T>,
}

impl<O: Options, L> WithOtherLimit<O, L> {
    fn new(options: O, limit: L) -> Self {
        WithOtherLimit { options, limit }
    }
}

impl<O: Options, E> WithOtherEndian<O, E> {
    fn new(options: O) -> Self {
        WithOtherEndian {
            options,
            _endian: PhantomData,
        }
    }
}

impl<O: Options, I> WithOtherIntEncoding<O, I> {
    fn new(options: O) -> Self {
        WithOtherIntEncoding {
            options,
            _encoding: PhantomData,
        }
    }
}

impl<O: Options, T> WithOtherTrailing<O, T> {
    fn new(options: O) -> Self {
        WithOtherTrailing {
            options,
            _trailing: PhantomData,
        }
    }
}

impl<O: Options, L: sealed::Limit> sealed::Sealed for WithOtherLimit<O, L> {}
impl<O: Options, L: sealed::Limit> Options for WithOtherLimit<O, L> {
    type KilnLimit = L;
    fn kiln_options(&self) -> crate::Options {
        let opts = self.options.kiln_options();
        match self.limit.bytes() {
            Some(n) => opts.with_limit(n),
            None => opts.with_no_limit(),
        }
    }
}

impl<O: Options, E: sealed::Endian> sealed::Sealed for WithOtherEndian<O, E> {}
impl<O: Options, E: sealed::Endian> Options for WithOtherEndian<O, E> {
    type KilnLimit = O::KilnLimit;
    fn kiln_options(&self) -> crate::Options {
        self.options.kiln_options()
    }
}

impl<O: Options, I: sealed::IntEncoding> sealed::Sealed for WithOtherIntEncoding<O, I> {}
impl<O: Options, I: sealed::IntEncoding> Options for WithOtherIntEncoding<O, I> {
    type KilnLimit = O::KilnLimit;
    fn kiln_options(&self) -> crate::Options {
        self.options.kiln_options()
    }
}

impl<O: Options, T: sealed::Trailing> sealed::Sealed for WithOtherTrailing<O, T> {}
impl<O: Options, T: sealed::Trailing> Options for WithOtherTrailing<O, T> {
    type KilnLimit = O::KilnLimit;
    fn kiln_options(&self) -> crate::Options {
        self.options.kiln_options().allow_trailing_bytes(T::ALLOW)
    }
}

/// A byte limit of `.0` bytes (from [`Options::with_limit`]).
#[derive(Clone, Copy, Debug)]
pub struct Bounded(pub u64);

/// No byte limit (from [`Options::with_no_limit`]; the default).
#[derive(Clone, Copy, Debug, Default)]
pub struct Infinite;

impl sealed::Limit for Bounded {
    fn bytes(&self) -> Option<u64> {
        Some(self.0)
    }

    fn seed_from_reader<'a, R: Read, T: DeserializeSeed<'a>>(
        opts: &crate::Options,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        super::deserialize_from_seed_with::<R, T, true>(opts, seed, reader)
    }
}

impl sealed::Limit for Infinite {
    fn bytes(&self) -> Option<u64> {
        None
    }

    /// Only option types without a limit name `Infinite` as their
    /// `KilnLimit` (tests/stream_limits).
    fn seed_from_reader<'a, R: Read, T: DeserializeSeed<'a>>(
        opts: &crate::Options,
        seed: T,
        reader: R,
    ) -> Result<T::Value> {
        super::deserialize_from_seed_with::<R, T, false>(opts, seed, reader)
    }
}

/// Little-endian (Kiln's only byte order).
#[derive(Clone, Copy, Debug)]
pub struct LittleEndian;

/// Big-endian: accepted, no effect (Kiln is always little-endian).
#[derive(Clone, Copy, Debug)]
pub struct BigEndian;

/// Native endian: accepted, no effect (Kiln is always little-endian).
#[derive(Clone, Copy, Debug)]
pub struct NativeEndian;

impl sealed::Endian for LittleEndian {}
impl sealed::Endian for BigEndian {}
impl sealed::Endian for NativeEndian {}

/// Fixed-width integers (what Kiln always writes).
#[derive(Clone, Copy, Debug)]
pub struct FixintEncoding;

/// Variable-length integers: accepted, no effect (Kiln is fixed-width).
#[derive(Clone, Copy, Debug)]
pub struct VarintEncoding;

impl sealed::IntEncoding for FixintEncoding {}
impl sealed::IntEncoding for VarintEncoding {}

/// Bytes after a value in a slice are ignored.
#[derive(Clone, Copy, Debug)]
pub struct AllowTrailing;

/// Bytes after a value in a slice are an error.
#[derive(Clone, Copy, Debug)]
pub struct RejectTrailing;

impl sealed::Trailing for AllowTrailing {
    const ALLOW: bool = true;
}

impl sealed::Trailing for RejectTrailing {
    const ALLOW: bool = false;
}
