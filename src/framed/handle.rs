//! [`Schema<T>`]: one type's text and hash, and the options to frame its
//! values with.

use std::any::type_name;
use std::fmt;
use std::io::{BufRead, Read, Write};
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::codec;
use crate::error::Result;
use crate::frame::FRAME_LEN;
use crate::options::Options;
use crate::schema::{self, hash_text};

/// A type's text and hash, kept with the [`Options`] its values are framed
/// with: the way to frame with options other than the defaults, or with a
/// type text given by hand.
///
/// It is cheap to clone and `Send + Sync` whatever `T` is. A
/// `Schema<Msg<'static>>` can be kept for the life of the program and read
/// a `Msg<'a>` from a shorter-lived buffer.
///
/// # Examples
///
/// ```
/// use kiln_serde::{Options, Schema};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize, PartialEq, Debug)]
/// struct Msg<'a> { id: u32, text: &'a str }
///
/// let schema = Schema::<Msg<'static>>::new()
///     .unwrap()
///     .with_options(Options::new().require_hash(true).with_max_bytes(1024));
/// assert_eq!(schema.text(), "struct Msg{id:u32,text:str}");
///
/// let bytes = schema.to_vec(&Msg { id: 1, text: "hi" }).unwrap();
/// let buffer = bytes.clone(); // a buffer that does not live for 'static
/// let msg: Msg<'_> = schema.from_slice(&buffer).unwrap();
/// assert_eq!(msg, Msg { id: 1, text: "hi" });
///
/// let by_hand = Schema::<Msg<'static>>::from_text("struct Msg{id:u32,text:str}");
/// assert_eq!(by_hand.hash(), schema.hash());
/// ```
pub struct Schema<T> {
    text: Arc<str>,
    /// The frame header for the hash, kept whole: an encode copies it as
    /// one 16-byte value instead of building it from the hash per call
    /// (callgrind, a 32-byte message, `Schema::to_extend` LTO / no LTO:
    /// 66 -> 63 / 121 -> 120 instructions; `Schema::to_vec` 216 / 308 ->
    /// 216 / 298).
    head: [u8; FRAME_LEN],
    opts: Options,
    /// `opts == Options::DEFAULT`: `from_slice`, `to_vec` and `to_extend`
    /// then pass the constant, so that the caps and the limit fold into
    /// the code as in the free functions (callgrind, a 32-byte message,
    /// LTO / no LTO: `Schema::from_slice` 116.5 -> 113.0 / 167.0 -> 173.0
    /// instructions, and the unframed `from_slice` 103.5 -> 100.6 / 154.0
    /// -> 135.9, which no longer shares its out-of-line copy with a caller
    /// whose caps are not constants). The encoders take other options in a
    /// function of their own, out of line, and are `#[inline]`: with both
    /// paths inline, no-LTO `to_extend` was not inlined and went 120 ->
    /// 134; as now, `to_extend` 63.0 / 120.0 -> 57.6 / 120.0 and `to_vec`
    /// 216 / 298 -> 182 / 277.
    default: bool,
    marker: PhantomData<fn() -> T>,
}

impl<T> Schema<T> {
    /// The traced text and hash of `T` (cached per type, see
    /// [`schema::type_text`]), with the default options.
    ///
    /// # Errors
    ///
    /// As [`schema::type_text`].
    pub fn new<'de>() -> Result<Self>
    where
        T: Deserialize<'de>,
    {
        let (text, hash) = schema::cached::<T>()?;
        Ok(Schema {
            text,
            head: codec::header(hash),
            opts: Options::DEFAULT,
            default: true,
            marker: PhantomData,
        })
    }

    /// A schema with a text given by hand (spec section 4 grammar), with the
    /// default options. The text is taken as given.
    pub fn from_text(text: impl Into<String>) -> Self {
        let text: Arc<str> = Arc::from(text.into());
        Schema {
            head: codec::header(hash_text(&text)),
            text,
            opts: Options::DEFAULT,
            default: true,
            marker: PhantomData,
        }
    }

    /// The same schema with these options (caps, total limit, trailing
    /// bytes, `require_hash`).
    #[must_use]
    pub fn with_options(mut self, opts: Options) -> Self {
        self.opts = opts;
        self.default = opts == Options::DEFAULT;
        self
    }

    /// The options values are framed with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// The canonical type text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The FNV-1a 64 hash of the text.
    pub fn hash(&self) -> u64 {
        codec::header_hash(&self.head)
    }

    /// Encodes `value` as a framed buffer with this schema's hash.
    ///
    /// # Errors
    ///
    /// As [`Options::to_vec`], offsets counted from the frame start.
    #[inline]
    pub fn to_vec(&self, value: &T) -> Result<Vec<u8>>
    where
        T: Serialize,
    {
        if self.default {
            codec::write_vec(&Options::DEFAULT, &self.head, value)
        } else {
            self.vec_with_options(value)
        }
    }

    #[inline(never)]
    fn vec_with_options(&self, value: &T) -> Result<Vec<u8>>
    where
        T: Serialize,
    {
        codec::write_vec(&self.opts, &self.head, value)
    }

    /// Encodes `value` framed with this schema's hash, appending to `out`
    /// (the reused-buffer form of [`Schema::to_vec`]; on error `out` keeps
    /// its old contents). Calls `value.serialize` as [`crate::to_extend`]
    /// does.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`]; error offsets count from the start of `out`;
    /// the total limit does not count the header.
    #[inline]
    pub fn to_extend(&self, out: &mut Vec<u8>, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        if self.default {
            codec::write_extend(&Options::DEFAULT, &self.head, out, value)
        } else {
            self.extend_with_options(out, value)
        }
    }

    #[inline(never)]
    fn extend_with_options(&self, out: &mut Vec<u8>, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        codec::write_extend(&self.opts, &self.head, out, value)
    }

    /// Encodes `value` framed with this schema's hash into the front of
    /// `buf`, a fixed buffer, and returns the bytes written.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`]; LIMIT with
    /// [`ErrorDetail::BufferFull`](crate::error::ErrorDetail::BufferFull)
    /// when the frame and value do not fit.
    pub fn to_slice(&self, buf: &mut [u8], value: &T) -> Result<usize>
    where
        T: Serialize,
    {
        codec::write_slice(&self.opts, &self.head, buf, value)
    }

    /// Writes `value` framed with this schema's hash into `writer`.
    ///
    /// # Errors
    ///
    /// As [`Schema::to_vec`], plus IO when the writer fails.
    pub fn to_writer<W: Write>(&self, writer: W, value: &T) -> Result<()>
    where
        T: Serialize,
    {
        codec::write_to(&self.opts, &self.head, writer, value)
    }

    /// Decodes a framed buffer; `&str` and `&[u8]` fields borrow from it.
    ///
    /// # Errors
    ///
    /// As [`super::from_slice`], with this schema's hash and options (SCHEMA
    /// at 6 for a frame without a hash when they require one).
    #[inline(always)]
    pub fn from_slice<'de>(&self, bytes: &'de [u8]) -> Result<T>
    where
        T: Deserialize<'de>,
    {
        // Always inlined, one path for all options. As a call, its result
        // came back through memory and the caller's 16-byte moves of it
        // stalled on the small stores that wrote it (32 bytes, LTO: 20 ns
        // against the unframed `from_slice`'s 13); with the default
        // options inlined and other options a call, the two results met
        // in memory and stalled the same way (16 vs 10 ns). Reading the
        // options from `self` costs 6 instructions (87 -> 93, LTO) and
        // runs in 10 ns.
        codec::read_slice(&self.opts, bytes, || Ok(self.hash()), type_name::<T>())
    }

    /// Decodes one framed value from a stream, reading exactly its bytes.
    ///
    /// # Errors
    ///
    /// As [`super::from_reader`], with this schema's hash and options.
    #[inline]
    pub fn from_reader<R: Read>(&self, mut reader: R) -> Result<T>
    where
        T: DeserializeOwned,
    {
        let hash = || Ok(self.hash());
        // A slice reader is read in place (one decode site, inlined: see
        // `codec::read_stream`).
        if let Some(r) = codec::read_in_place(&self.opts, &mut reader, &hash, type_name::<T>()) {
            return r;
        }
        // Without a total size limit no read tests one (see
        // `Options::from_reader`).
        if self.opts.limits().limit.is_none() {
            codec::read_from_stream::<R, T, false>(&self.opts, reader, hash, type_name::<T>())
        } else {
            codec::read_from_stream::<R, T, true>(&self.opts, reader, hash, type_name::<T>())
        }
    }

    /// [`Schema::from_reader`] for an `io::BufRead`, and faster (see
    /// [`crate::from_bufread`]): the same values, errors and stream
    /// position.
    ///
    /// # Errors
    ///
    /// As [`Schema::from_reader`].
    #[inline]
    pub fn from_bufread<R: BufRead>(&self, reader: R) -> Result<T>
    where
        T: DeserializeOwned,
    {
        let hash = || Ok(self.hash());
        if self.opts.limits().limit.is_none() {
            codec::read_bufread::<R, T, false>(&self.opts, reader, hash, type_name::<T>())
        } else {
            codec::read_bufread::<R, T, true>(&self.opts, reader, hash, type_name::<T>())
        }
    }
}

impl<T> Clone for Schema<T> {
    fn clone(&self) -> Self {
        Schema {
            text: Arc::clone(&self.text),
            head: self.head,
            opts: self.opts,
            default: self.default,
            marker: PhantomData,
        }
    }
}

impl<T> fmt::Debug for Schema<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schema")
            .field("text", &self.text)
            .field("hash", &format_args!("{:#018x}", self.hash()))
            .field("options", &self.opts)
            .finish()
    }
}
