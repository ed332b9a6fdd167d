//! [`Options`]: the [`Limits`] plus the choices that are not caps, and the
//! encode/decode entry points that take them.
//!
//! | option | default | error past it |
//! |---|---|---|
//! | the [`Limits`] (`max_count`, `max_bytes`, `max_depth`, total `limit`) | see [`crate::limits`] | LIMIT |
//! | `trailing` (bytes after a standalone value) | rejected | TRAILING |
//! | `require_hash` (framed reading: frame must carry a hash) | no | SCHEMA |
//!
//! The free functions of the crate root behave exactly as these methods on
//! [`Options::DEFAULT`].

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::de;
use crate::error::Result;
use crate::limits::Limits;
use crate::ser;

/// Caps and choices for encoding and decoding. Cheap to copy.
///
/// # Examples
///
/// ```
/// let opts = kiln_serde::Options::default().with_max_count(1000).with_max_depth(16);
/// let bytes = opts.to_vec(&vec![1u8, 2, 3]).unwrap();
/// let back: Vec<u8> = opts.from_slice(&bytes).unwrap();
/// assert_eq!(back, [1, 2, 3]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    limits: Limits,
    allow_trailing: bool,
    require_hash: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// `Options::new()` as a constant.
    pub const DEFAULT: Options = Options::new();

    /// The defaults of the table above.
    pub const fn new() -> Self {
        Options {
            limits: Limits::new(),
            allow_trailing: false,
            require_hash: false,
        }
    }

    /// Replaces all the caps at once.
    pub const fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Cap on the count of any list, map or tensor directory.
    pub const fn with_max_count(mut self, n: u64) -> Self {
        self.limits = self.limits.with_max_count(n);
        self
    }

    /// Cap on the bytes of one str/bytes value, tensor name or layout name.
    pub const fn with_max_bytes(mut self, n: u64) -> Self {
        self.limits = self.limits.with_max_bytes(n);
        self
    }

    /// Cap on nesting depth: seqs, maps, `Some` and enum variants (spec
    /// section 6), on encode and decode alike.
    pub const fn with_max_depth(mut self, n: u32) -> Self {
        self.limits = self.limits.with_max_depth(n);
        self
    }

    /// Cap on the total size of one encoded or decoded value (like bincode's
    /// `with_limit`). Past it: LIMIT.
    pub const fn with_limit(mut self, n: u64) -> Self {
        self.limits = self.limits.with_limit(n);
        self
    }

    /// Removes the total size cap (the default).
    pub const fn with_no_limit(mut self) -> Self {
        self.limits = self.limits.with_no_limit();
        self
    }

    /// Accept bytes after a standalone value instead of failing with TRAILING.
    pub const fn allow_trailing_bytes(mut self, allow: bool) -> Self {
        self.allow_trailing = allow;
        self
    }

    /// For framed reading: fail with SCHEMA when the frame carries no hash.
    pub const fn require_hash(mut self, require: bool) -> Self {
        self.require_hash = require;
        self
    }

    /// The caps.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Whether bytes after a standalone value are accepted.
    pub const fn allows_trailing_bytes(&self) -> bool {
        self.allow_trailing
    }

    /// Whether framed reading requires a hash.
    pub const fn requires_hash(&self) -> bool {
        self.require_hash
    }

    /// The count cap.
    pub const fn max_count(&self) -> u64 {
        self.limits.max_count
    }

    /// The byte cap for one str/bytes/name.
    pub const fn max_bytes(&self) -> u64 {
        self.limits.max_bytes
    }

    /// The depth cap.
    pub const fn max_depth(&self) -> u32 {
        self.limits.max_depth
    }

    /// The total size cap, if any.
    pub const fn limit(&self) -> Option<u64> {
        self.limits.limit
    }

    /// Encodes `value` as a standalone Frozen buffer.
    ///
    /// It calls `value.serialize` twice (as bincode 1's `serialize` does): a
    /// counting pass sizes the buffer, so the bytes are written into one
    /// allocation. A `Serialize` impl that can run only once (one that
    /// drains an iterator, say) must go through [`Options::to_writer`],
    /// which calls it once (or [`Options::to_extend`], as
    /// [`crate::to_extend`] says).
    ///
    /// # Errors
    /// LIMIT for a seq/map/str/bytes longer than the wire maximum, nesting
    /// past the depth cap or output past the total limit; TYPE for
    /// duplicate map keys; MESSAGE for errors raised by the value's
    /// `Serialize`.
    ///
    /// # Examples
    /// ```
    /// let opts = kiln_serde::Options::new();
    /// assert_eq!(opts.to_vec(&(1u8, 2u16)).unwrap(), [1, 2, 0]);
    /// ```
    #[inline]
    pub fn to_vec<T: ?Sized + Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        ser::to_vec(value, &self.limits)
    }

    /// Encodes `value`, appending its bytes to `out`: the reused-buffer
    /// form of [`Options::to_vec`] (like postcard's `to_extend`). On error
    /// `out` keeps its old contents. Calls `value.serialize` as
    /// [`crate::to_extend`] does.
    ///
    /// # Errors
    /// As [`Options::to_vec`]; MESSAGE when a second call writes less than
    /// the first needed; LIMIT when that much cannot be allocated.
    ///
    /// # Examples
    /// ```
    /// let mut buf = vec![0xAA];
    /// kiln_serde::Options::new().to_extend(&mut buf, &1u16).unwrap();
    /// assert_eq!(buf, [0xAA, 1, 0]);
    /// ```
    #[inline]
    pub fn to_extend<T: ?Sized + Serialize>(&self, out: &mut Vec<u8>, value: &T) -> Result<()> {
        ser::to_extend(out, value, &self.limits)
    }

    /// Encodes `value` into the front of `buf`, a fixed buffer, and returns
    /// the number of bytes written (see [`crate::to_slice`]).
    ///
    /// # Errors
    /// As [`Options::to_vec`]; LIMIT with
    /// [`ErrorDetail::BufferFull`](crate::error::ErrorDetail::BufferFull)
    /// when the value does not fit (see [`crate::to_slice`]).
    ///
    /// # Examples
    /// ```
    /// let mut buf = [0u8; 3];
    /// let n = kiln_serde::Options::new().to_slice(&mut buf, &(1u8, 2u16)).unwrap();
    /// assert_eq!(&buf[..n], [1, 2, 0]);
    /// ```
    #[inline]
    pub fn to_slice<T: ?Sized + Serialize>(&self, buf: &mut [u8], value: &T) -> Result<usize> {
        ser::fill_slice(buf, &[], value, &self.limits)
    }

    /// Encodes `value` into a writer, as [`crate::to_writer`] does (a
    /// `&mut Vec<u8>` gets the bytes appended directly).
    ///
    /// # Errors
    /// As [`Options::to_vec`], plus IO when the writer fails.
    ///
    /// # Examples
    /// ```
    /// let mut out = Vec::new();
    /// kiln_serde::Options::new().to_writer(&mut out, &"hi").unwrap();
    /// assert_eq!(out, [2, 0, 0, 0, b'h', b'i']);
    /// ```
    #[inline]
    pub fn to_writer<W: std::io::Write, T: ?Sized + Serialize>(
        &self,
        writer: W,
        value: &T,
    ) -> Result<()> {
        ser::to_writer(writer, value, &self.limits)
    }

    /// The number of bytes [`Options::to_vec`] would produce, without
    /// keeping them.
    ///
    /// A value without maps or sequences of unknown length is counted, not
    /// encoded. A map's duplicate keys only show in its bytes, and an
    /// unknown-length sequence's count only at its end, so such a value is
    /// encoded into a bounded buffer and dropped. Either way the result and
    /// the errors are `to_vec`'s.
    ///
    /// # Errors
    /// As [`Options::to_vec`].
    ///
    /// # Examples
    /// ```
    /// assert_eq!(kiln_serde::Options::new().serialized_size(&vec![1u32, 2]).unwrap(), 12);
    /// ```
    #[inline]
    pub fn serialized_size<T: ?Sized + Serialize>(&self, value: &T) -> Result<u64> {
        ser::serialized_size(value, &self.limits)
    }

    /// Decodes a standalone buffer holding exactly one value. `&str` and
    /// `&[u8]` fields borrow from `bytes`.
    ///
    /// # Errors
    /// Any spec code for a fault of the bytes (TRAILING when bytes follow
    /// the value, unless allowed), MESSAGE for errors from the type's own
    /// `Deserialize`.
    ///
    /// # Examples
    /// ```
    /// let s: &str = kiln_serde::Options::new().from_slice(&[2, 0, 0, 0, b'h', b'i']).unwrap();
    /// assert_eq!(s, "hi");
    /// ```
    #[inline]
    pub fn from_slice<'de, T: Deserialize<'de>>(&self, bytes: &'de [u8]) -> Result<T> {
        de::from_slice(bytes, &self.limits, self.allow_trailing)
    }

    /// Decodes one value from the front of `bytes` and returns the rest
    /// (for several values back to back).
    ///
    /// # Errors
    /// As [`Options::from_slice`], without TRAILING.
    ///
    /// # Examples
    /// ```
    /// let opts = kiln_serde::Options::new();
    /// let (a, rest): (u8, &[u8]) = opts.take_from_slice(&[1, 2]).unwrap();
    /// assert_eq!((a, rest), (1, &[2u8][..]));
    /// ```
    #[inline]
    pub fn take_from_slice<'de, T: Deserialize<'de>>(
        &self,
        bytes: &'de [u8],
    ) -> Result<(T, &'de [u8])> {
        de::take_from_slice(bytes, &self.limits)
    }

    /// Decodes one value from a stream, reading exactly its bytes (so
    /// values written back to back can be read one by one). Buffers grow in
    /// bounded chunks, so a lying length costs only what the stream
    /// delivers.
    ///
    /// A `&[u8]` or `&mut &[u8]` reader (or a `Cursor` over bytes) is
    /// decoded in place and moved past the value, as in
    /// [`crate::from_reader`], under a total size limit too (a slice and a
    /// stream name the same errors there).
    ///
    /// # Errors
    /// As [`Options::from_slice`] (EOF when the stream ends inside the
    /// value), plus IO.
    ///
    /// # Examples
    /// ```
    /// let mut input: &[u8] = &[1, 0, 0, 0, 2];
    /// let opts = kiln_serde::Options::new();
    /// let a: u32 = opts.from_reader(&mut input).unwrap();
    /// let b: u8 = opts.from_reader(&mut input).unwrap();
    /// assert_eq!((a, b), (1, 2));
    /// ```
    #[inline]
    pub fn from_reader<R: std::io::Read, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        // Without a total size limit no read tests one, as in
        // `crate::from_reader` (the stream decoder is then built twice for
        // `T`, once per kind, when both are used).
        if self.limits.limit.is_none() {
            de::from_reader::<R, T, false>(reader, &self.limits)
        } else {
            de::from_reader::<R, T, true>(reader, &self.limits)
        }
    }

    /// Reads one value from an `io::BufRead`, as [`Options::from_reader`]
    /// does, and faster: see [`crate::from_bufread`]. Values, errors and
    /// where the stream is left are [`Options::from_reader`]'s.
    ///
    /// # Errors
    /// As [`Options::from_reader`].
    ///
    /// # Examples
    /// ```
    /// let mut input = std::io::BufReader::new(&[1, 0, 0, 0, 2][..]);
    /// let opts = kiln_serde::Options::new().with_limit(4);
    /// let a: u32 = opts.from_bufread(&mut input).unwrap();
    /// assert_eq!(a, 1);
    /// ```
    #[inline]
    pub fn from_bufread<R: std::io::BufRead, T: DeserializeOwned>(&self, reader: R) -> Result<T> {
        if self.limits.limit.is_none() {
            de::from_bufread::<R, T, false>(reader, &self.limits)
        } else {
            de::from_bufread::<R, T, true>(reader, &self.limits)
        }
    }

    /// Decodes a standalone buffer with a `DeserializeSeed`.
    ///
    /// # Errors
    /// As [`Options::from_slice`].
    ///
    /// # Examples
    /// ```
    /// use std::marker::PhantomData;
    /// let v: u16 = kiln_serde::Options::new().from_slice_seed(PhantomData::<u16>, &[7, 0]).unwrap();
    /// assert_eq!(v, 7);
    /// ```
    #[inline]
    pub fn from_slice_seed<'de, S: serde::de::DeserializeSeed<'de>>(
        &self,
        seed: S,
        bytes: &'de [u8],
    ) -> Result<S::Value> {
        de::seed_from_slice(seed, bytes, &self.limits, self.allow_trailing)
    }
}
