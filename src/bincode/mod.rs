//! The API of bincode 1.3 over Kiln's bytes, for moving a bincode user to
//! Kiln without touching the code that calls it.
//!
//! Replace the `bincode` dependency with `kiln_serde` and add one line per
//! file that uses it (or turn `use bincode::{..}` into
//! `use kiln_serde::bincode::{..}`):
//!
//! ```
//! use kiln_serde::bincode;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Serialize, Deserialize, PartialEq, Debug)]
//! # struct Entity { x: f32, y: f32 }
//!
//! // Everything below is bincode 1.3 code, unchanged.
//! let world = vec![Entity { x: 0.0, y: 4.0 }, Entity { x: 10.0, y: 20.5 }];
//! let encoded: Vec<u8> = bincode::serialize(&world).unwrap();
//! assert_eq!(bincode::serialized_size(&world).unwrap(), encoded.len() as u64);
//! let decoded: Vec<Entity> = bincode::deserialize(&encoded[..]).unwrap();
//! assert_eq!(world, decoded);
//! ```
//!
//! What stays: the functions ([`serialize`], [`deserialize`],
//! [`serialize_into`], [`deserialize_from`], [`serialized_size`],
//! [`options`]), the [`Options`] builder and its types (module [`config`](mod@config)),
//! [`Error`] = `Box<`[`ErrorKind`]`>` with bincode's variants, round trips,
//! zero-copy `&str`/`&[u8]`, byte limits, trailing-bytes behaviour, and
//! `Io(UnexpectedEof)` when a reader (or a slice) ends inside a value.
//!
//! What changes: **the bytes**. They are Kiln's (spec section 2: fixed-width
//! little-endian integers, u32 counts, option and bool bytes checked, map
//! keys sorted), whatever endianness or integer encoding the options name.
//! Data written by bincode cannot be read here, and the other way round.
//! For a store of 1,000 small records, bincode's free functions wrote
//! 40,898 bytes, its varint `DefaultOptions` 20,889, Kiln 32,894, so a
//! `with_limit` sized for varint data trips earlier. Maps are written with
//! sorted keys (duplicate keys are an error), nesting past the depth cap is
//! `SizeLimit`, and `Custom` messages carry Kiln's code and byte offset. The
//! README's "Coming from bincode 1.x" has the full list.
//!
//! ## Switching without touching any source
//!
//! The package in the repository's `compat/bincode1/` is named `bincode`,
//! version `1.3.3+kiln` (feature `i128`), and re-exports this module. With
//!
//! ```toml
//! [patch.crates-io]
//! bincode = { path = "../kiln_serde/compat/bincode1" }
//! ```
//!
//! your code and every crate in the graph that uses bincode 1.3 switch.
//! `cargo tree -i bincode` shows the path when the patch took; a
//! "patch ... was not used" warning means Cargo kept the real crate (see the
//! README, "Coming from bincode 1.x"). Renaming the package
//! (`bincode = { package = "kiln_serde", .. }`) does not work: the crate
//! root has no bincode functions.
//!
//! ## Defaults
//!
//! As in bincode 1.3, the free functions and [`DefaultOptions`] differ:
//!
//! | | byte limit | trailing bytes after a slice's value |
//! |---|---|---|
//! | free functions | none | allowed |
//! | [`DefaultOptions::new()`] / [`options()`] | none | rejected: `Custom("Slice had bytes remaining after deserialization")` |
//!
//! (Kiln's own crate-level functions reject trailing bytes; this module
//! follows bincode instead.)
//!
//! A byte limit (`with_limit`) applies to serializing, `serialized_size`,
//! and deserializing from readers **and slices**; bincode 1.3 ignored it
//! for slices. Endianness and integer-encoding choices are accepted and
//! have no effect on the bytes. See the [`config`](mod@config) module for the details.
//!
//! ## Reading a stream of values
//!
//! ```
//! use std::io;
//! use kiln_serde::bincode;
//!
//! let mut wire = Vec::new();
//! for i in 0..3u32 {
//!     bincode::serialize_into(&mut wire, &(i, format!("msg {i}"))).unwrap();
//! }
//! let mut reader = &wire[..];
//! let mut seen = Vec::new();
//! loop {
//!     match bincode::deserialize_from::<_, (u32, String)>(&mut reader) {
//!         Ok(msg) => seen.push(msg),
//!         Err(e) => match *e {
//!             bincode::ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof => break,
//!             _ => panic!("{e}"),
//!         },
//!     }
//! }
//! assert_eq!(seen.len(), 3);
//! ```
//!
//! ## Errors
//!
//! Every Kiln error becomes the closest [`ErrorKind`] (table in
//! [`ErrorKind`]'s module docs); `Custom` messages keep Kiln's code and byte
//! offset. Kiln encodes sequences of unknown length, so
//! `SequenceMustHaveLength` never happens.
//!
//! ## The rest of bincode 1.3's API
//!
//! The public [`Serializer`] and [`Deserializer`], [`BincodeRead`] with
//! [`de::read::SliceReader`] and [`de::read::IoReader`],
//! [`deserialize_from_custom`], `deserialize_in_place`, the `Options`
//! methods built on them, and the deprecated `config()` / [`Config`]. A
//! custom `BincodeRead` that lends bytes with `visit_borrowed_bytes` gives
//! zero-copy `&str`/`&[u8]`; an error it returns comes back unchanged
//! (`Io(UnexpectedEof)` with Kiln's message, which names the offset).
//! bincode 1.3.3's own `tests/test.rs` compiles unchanged against this
//! module and passes, except the 8 tests that assert bincode's byte layout.

pub mod config;
pub mod de;
mod error;
mod legacy;
mod ser;

use std::io::{Read, Write};
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed};
use serde::{Deserialize, Serialize};

#[allow(deprecated)]
pub use self::config::Config;
pub use self::config::{DefaultOptions, KilnOptionsExt, Options};
pub use self::de::read::BincodeRead;
pub use self::de::Deserializer;
pub use self::error::{Error, ErrorKind, Result};
pub use self::ser::Serializer;

use self::error::{from_kiln, TRAILING_MSG};

/// bincode 1.3's `options()`: a [`DefaultOptions`] to build on. Its
/// defaults differ from the free functions' (it rejects trailing bytes).
///
/// # Examples
/// ```
/// use kiln_serde::bincode::{self, Options};
///
/// let opts = bincode::options().with_limit(64).allow_trailing_bytes();
/// let v: u16 = opts.deserialize(&[1, 0, 0xff]).unwrap();
/// assert_eq!(v, 1);
/// ```
#[inline]
pub fn options() -> DefaultOptions {
    DefaultOptions::new()
}

/// bincode 1.3's deprecated `config()`: a [`Config`] with the free
/// functions' settings (no limit, trailing bytes allowed).
///
/// # Examples
/// ```
/// # #![allow(deprecated)]
/// let v: u8 = kiln_serde::bincode::config().deserialize(&[7, 0xff]).unwrap();
/// assert_eq!(v, 7);
/// ```
#[inline]
#[deprecated(since = "1.3.0", note = "please use `options()` instead")]
#[allow(deprecated)]
pub fn config() -> Config {
    Config::new()
}

/// The options of the free functions: bincode 1.3's
/// `DefaultOptions::new().with_fixint_encoding().allow_trailing_bytes()`.
const FREE: crate::Options = config::BASE.allow_trailing_bytes(true);

/// Encodes `value` into a new `Vec`.
///
/// # Errors
/// `SizeLimit` for a str/bytes/seq/map longer than 4,294,967,295; `Custom`
/// for errors raised by the value's `Serialize` and for duplicate map keys.
///
/// # Examples
/// ```
/// use kiln_serde::bincode;
///
/// assert_eq!(bincode::serialize(&(1u8, 2u16)).unwrap(), [1, 2, 0]);
/// ```
#[inline]
pub fn serialize<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    serialize_with(&FREE, value)
}

/// Encodes `value` into a writer.
///
/// # Errors
/// As [`serialize`], plus `Io` when the writer fails.
///
/// # Examples
/// ```
/// use kiln_serde::bincode;
///
/// let mut out = Vec::new();
/// bincode::serialize_into(&mut out, &"hi").unwrap();
/// assert_eq!(out, [2, 0, 0, 0, b'h', b'i']);
/// ```
#[inline]
pub fn serialize_into<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    serialize_into_with(&FREE, writer, value)
}

/// The number of bytes [`serialize`] would produce.
///
/// # Errors
/// As [`serialize`].
///
/// # Examples
/// ```
/// use kiln_serde::bincode;
///
/// assert_eq!(bincode::serialized_size(&vec![1u32, 2]).unwrap(), 12);
/// ```
pub fn serialized_size<T: ?Sized + Serialize>(value: &T) -> Result<u64> {
    serialized_size_with(&FREE, value)
}

/// Decodes one value from the front of a slice; bytes after it are
/// ignored, as in bincode 1.3. `&str` and `&[u8]` borrow from `bytes`.
///
/// # Errors
/// `Io(UnexpectedEof)` when the slice ends inside the value;
/// `InvalidBoolEncoding`, `InvalidTagEncoding`, `InvalidCharEncoding`,
/// `InvalidUtf8Encoding` for those bad bytes; `DeserializeAnyNotSupported`
/// for types that need a self-describing format; `Custom` for the rest.
///
/// # Examples
/// ```
/// use kiln_serde::bincode;
///
/// let s: &str = bincode::deserialize(&[2, 0, 0, 0, b'h', b'i', 0xff]).unwrap();
/// assert_eq!(s, "hi");
/// ```
#[inline]
pub fn deserialize<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T> {
    deserialize_seed_with(&FREE, PhantomData, bytes)
}

/// Decodes one value from a reader, consuming exactly its bytes, so values
/// written back to back are read one by one. A `&[u8]` or `&mut &[u8]`
/// reader, or a `std::io::Cursor` over a `&[u8]`, `Vec<u8>`, `&Vec<u8>`,
/// `Box<[u8]>`, `&mut [u8]` or `&mut Vec<u8>`, is decoded in place and
/// moved past the value (left where it was after an error).
///
/// # Errors
/// `Io(UnexpectedEof)` when the stream ends before or inside the value;
/// `Io` for other read errors; the other kinds as [`deserialize`].
///
/// # Examples
/// ```
/// use kiln_serde::bincode;
///
/// let mut input: &[u8] = &[1, 0, 0, 0, 2];
/// let a: u32 = bincode::deserialize_from(&mut input).unwrap();
/// let b: u8 = bincode::deserialize_from(&mut input).unwrap();
/// assert_eq!((a, b), (1, 2));
/// let end = bincode::deserialize_from::<_, u8>(&mut input).unwrap_err();
/// assert!(matches!(*end, bincode::ErrorKind::Io(ref e) if e.kind() == std::io::ErrorKind::UnexpectedEof));
/// ```
#[inline]
pub fn deserialize_from<R: Read, T: DeserializeOwned>(mut reader: R) -> Result<T> {
    // A `&[u8]` reader is decoded in place (and moved past the value).
    if let Some(r) = crate::de::from_slice_reader(&mut reader, FREE.limits()) {
        return r.map_err(from_kiln);
    }
    // The free functions have no byte limit: no limit test on any read.
    deserialize_from_seed_with::<R, PhantomData<T>, false>(&FREE, PhantomData, reader)
}

/// Decodes one value from a custom [`BincodeRead`] with the free
/// functions' settings; bytes the reader lends for `'a` can be borrowed.
///
/// # Errors
/// As [`deserialize_from`]; an error the reader returns comes back
/// unchanged (`Io(UnexpectedEof)` with Kiln's message, which names the
/// offset).
///
/// # Examples
/// ```
/// use kiln_serde::bincode::{self, DefaultOptions, Deserializer};
///
/// // `Deserializer::from_slice` builds on bincode's own slice reader.
/// let bytes = bincode::serialize(&5u32).unwrap();
/// let v: u32 = serde::Deserialize::deserialize(
///     &mut Deserializer::from_slice(&bytes, DefaultOptions::new()),
/// )
/// .unwrap();
/// assert_eq!(v, 5);
/// ```
pub fn deserialize_from_custom<'a, R: BincodeRead<'a>, T: DeserializeOwned>(
    reader: R,
) -> Result<T> {
    free().deserialize_from_custom(reader)
}

/// Decodes into an existing value from a custom [`BincodeRead`], with the
/// free functions' settings (bincode 1.3 marks it "only use this if you know
/// what you're doing").
///
/// # Errors
/// As [`deserialize_from_custom`].
#[doc(hidden)]
pub fn deserialize_in_place<'a, R: BincodeRead<'a>, T: Deserialize<'a>>(
    reader: R,
    place: &mut T,
) -> Result<()> {
    free().deserialize_in_place(reader, place)
}

/// The free functions' settings as [`Options`].
fn free() -> impl Options {
    DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
}

/// Fails with `SizeLimit` when a byte limit is set and `value` is bigger,
/// before anything is built or written (as bincode does).
#[inline]
fn check_limit<T: ?Sized + Serialize>(opts: &crate::Options, value: &T) -> Result<()> {
    if opts.limit().is_some() {
        serialized_size_with(opts, value)?;
    }
    Ok(())
}

#[inline(always)]
fn serialize_with<T: ?Sized + Serialize>(opts: &crate::Options, value: &T) -> Result<Vec<u8>> {
    check_limit(opts, value)?;
    crate::ser::to_vec(value, opts.limits()).map_err(from_kiln)
}

#[inline(always)]
fn serialize_into_with<W: Write, T: ?Sized + Serialize>(
    opts: &crate::Options,
    writer: W,
    value: &T,
) -> Result<()> {
    check_limit(opts, value)?;
    crate::ser::to_writer(writer, value, opts.limits()).map_err(from_kiln)
}

fn serialized_size_with<T: ?Sized + Serialize>(opts: &crate::Options, value: &T) -> Result<u64> {
    crate::ser::serialized_size(value, opts.limits()).map_err(from_kiln)
}

#[inline(always)]
fn deserialize_seed_with<'a, T: DeserializeSeed<'a>>(
    opts: &crate::Options,
    seed: T,
    bytes: &'a [u8],
) -> Result<T::Value> {
    let mut de = crate::de::Decoder::from_slice(bytes, opts.limits());
    let value = seed_in(seed, &mut de).map_err(from_kiln)?;
    // `rest()` runs to the real end of the slice, also under a byte limit.
    if !opts.allows_trailing_bytes() && !de.rest().is_empty() {
        return Err(Box::new(ErrorKind::Custom(TRAILING_MSG.to_string())));
    }
    Ok(value)
}

/// `seed` over `de`, the error settled: the value rebuilt as `Ok(v)` after
/// the `?`, so that the caller's conversion to `bincode::Error` (8-aligned)
/// meets a value and not `Result<T, Error>`, whose 4-aligned error slot
/// sits across a `u64` at bytes 8..16 of `T`. Matched in place with the
/// conversion there, the caller reread that slot wider than it was stored
/// (a failed store forward): `bincode::deserialize` of a 32-byte message
/// with LTO, one API per program, 8.0 -> 2.2 ns (without LTO 11.7 ->
/// 11.0-11.6); written as one chain of `map_err`s, 8.0 still.
#[inline(always)]
fn seed_in<'a, T: DeserializeSeed<'a>>(
    seed: T,
    de: &mut crate::de::Decoder<crate::read::SliceRead<'a>>,
) -> crate::Result<T::Value> {
    let v = seed.deserialize(&mut *de).map_err(|e| de.settle(e))?;
    Ok(v)
}

/// `LIMITED` false (no limit test on any read) only for options whose type
/// says they have no byte limit (`Options::KilnLimit`).
fn deserialize_from_seed_with<'a, R: Read, T: DeserializeSeed<'a>, const LIMITED: bool>(
    opts: &crate::Options,
    seed: T,
    reader: R,
) -> Result<T::Value> {
    let mut de =
        crate::de::Decoder::<crate::read::IoRead<R, LIMITED>>::from_stream(reader, opts.limits());
    match seed.deserialize(&mut de) {
        Ok(v) => Ok(v),
        Err(e) => Err(from_kiln(de.settle(e))),
    }
}

/// `Options::deserialize_from_custom[_seed]`: `seed` over a `BincodeRead`,
/// no trailing-bytes check (as bincode).
fn deserialize_from_custom_with<'a, R: BincodeRead<'a>, T: DeserializeSeed<'a>>(
    opts: &crate::Options,
    seed: T,
    reader: R,
) -> Result<T::Value> {
    let mut de = Deserializer::with_bincode_read(reader, config::Resolved(*opts));
    seed.deserialize(&mut de)
}

/// `Options::deserialize_in_place`: `T::deserialize_in_place` over a
/// `BincodeRead`.
fn deserialize_in_place_with<'a, R: BincodeRead<'a>, T: Deserialize<'a>>(
    opts: &crate::Options,
    reader: R,
    place: &mut T,
) -> Result<()> {
    let mut de = Deserializer::with_bincode_read(reader, config::Resolved(*opts));
    T::deserialize_in_place(&mut de, place)
}
