//! The input abstraction: a borrowed slice or an `io::Read` stream.
//!
//! One sealed trait, two readers. Bytes come back either borrowed from the
//! input for `'de` ([`Reference::Borrowed`]) or copied, into the caller's
//! scratch space or a copy the reader holds ([`Reference::Copied`]), so one
//! deserializer serves both.
//! A stream's map keys are read through a third, [`KeyRead`], which also
//! records their bytes (a stream cannot look back to compare two keys).
//!
//! Allocation safety lives here: a slice refuses a length larger than the
//! bytes that remain before anything is allocated; a stream grows its
//! scratch buffer in bounded chunks, so a lying length costs only what the
//! stream really delivers.

use std::io;

use crate::error::{Error, ErrorCode, Result};

mod buffered;
mod in_place;
mod key;
mod slice;

pub use buffered::BufIoRead;
pub(crate) use in_place::InPlace;
pub use key::KeyRead;
pub use slice::SliceRead;

/// Bytes a slice reader lends at once to a small struct's fields
/// (`de/window.rs`); the slice cursor's window (`raw/cursor.rs`).
pub(crate) use crate::raw::WINDOW;

/// Largest single growth of a stream's scratch buffer.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Bytes handed out by a reader.
pub enum Reference<'b, 'c> {
    /// Borrowed from the input for the deserializer's lifetime.
    Borrowed(&'b [u8]),
    /// A copy (in scratch space, or held by the reader), valid until the
    /// next read.
    Copied(&'c [u8]),
}

impl<'b> Reference<'b, '_> {
    /// The bytes when borrowed from the input (`None` for a copy).
    fn borrowed(&self) -> Option<&'b [u8]> {
        match self {
            Reference::Borrowed(b) => Some(b),
            Reference::Copied(_) => None,
        }
    }

    /// The bytes, whichever way they came.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Reference::Borrowed(b) => b,
            Reference::Copied(c) => c,
        }
    }
}

/// The [`Read`] methods a stream reader (a `reader: impl io::Read` and a
/// `tally: Tally`) shares: one definition for [`IoRead`] and the bincode
/// module's reader, and the map-key ones (`@keys`) for [`BufIoRead`] too.
/// Its map keys are read through a [`KeyRead`], which records them.
macro_rules! stream_read_methods {
    // The map-key methods alone, over the tally at `self.$tally` (also
    // `BufIoRead`'s, whose tally is its `IoRead`'s).
    (@keys $($tally:ident).+) => {
        type Key<'k>
            = $crate::read::KeyRead<'k, Self>
        where
            Self: 'k;
        const KEYS_APART: bool = true;

        fn key_reader(&mut self) -> Self::Key<'_> {
            $crate::read::KeyRead::new(self)
        }

        fn record(&mut self, bytes: &[u8]) {
            self.$($tally).+.record(bytes);
        }

        #[inline]
        fn mark(&self) -> usize {
            self.$($tally).+.mark()
        }

        fn captured(&self, from: usize, to: usize) -> &[u8] {
            self.$($tally).+.captured(from, to)
        }

        fn map_open(&mut self) {
            self.$($tally).+.map_open();
        }

        fn map_close(&mut self) {
            self.$($tally).+.map_close();
        }
    };
    () => {
        /// The limit test (an exit to LIMIT), the read, the count: small
        /// enough to be inlined into every field's decode. Nothing here
        /// returns to the fast path from a call (the record of a map key
        /// is [`KeyRead`](crate::read::KeyRead)'s), so LLVM keeps the reader in registers across
        /// fields (see `Tally::within`).
        #[inline]
        fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
            let at = self.tally.pos();
            if !self.tally.within(N) {
                return Err(self.tally.over_limit(N, at));
            }
            let mut out = [0u8; N];
            if let Err(e) = std::io::Read::read_exact(&mut self.reader, &mut out) {
                return Err($crate::read::stream_error(e, at));
            }
            self.tally.skip(N);
            Ok(out)
        }

        fn take_elements<'s>(
            &'s mut self,
            len: usize,
            w: usize,
            at: u64,
            scratch: &'s mut Vec<u8>,
        ) -> Result<Option<&'s [u8]>> {
            $crate::read::read_elements(&mut self.reader, &mut self.tally, len, w, at, scratch)
        }

        $crate::read::stream_read_methods!(@keys tally);
    };
}
pub(crate) use stream_read_methods;

/// Seals [`Read`]; `pub(crate)` so that `bincode`'s adapter over a user's
/// `BincodeRead` can be a third reader.
pub(crate) mod private {
    pub trait Sealed {}
}

/// The input of a [`Deserializer`](crate::de::Deserializer). Sealed: use
/// [`SliceRead`], [`IoRead`] or [`BufIoRead`].
pub trait Read<'de>: private::Sealed {
    /// Bytes consumed so far (the offset of the next byte).
    fn offset(&self) -> u64;

    /// Bytes that remain readable, when known (slices), else `None` (streams).
    fn remaining(&self) -> Option<usize>;

    /// Bytes after the current position up to the real end of the input,
    /// ignoring any total size limit (0 for streams, which cannot tell).
    fn trailing(&self) -> usize;

    /// `e` completed: an error a read of this reader left pending
    /// ([`Error::short_pending`], [`Error::short_read_pending`]) gets its
    /// code, offset and wording, and a slice reader that a short
    /// fixed-width read moved to its end goes back to that read's start.
    /// Entry points call it once the decode has stopped.
    #[doc(hidden)]
    #[inline(always)]
    fn settle(&mut self, e: Error) -> Error {
        e
    }

    /// Whether [`Self::window`] can hold bytes (a slice; not a stream).
    #[doc(hidden)]
    const WINDOWED: bool = false;

    /// Up to [`WINDOW`] bytes from the position on, without moving (a
    /// slice; none for a stream).
    #[doc(hidden)]
    #[inline(always)]
    fn window(&self) -> &'de [u8] {
        &[]
    }

    /// [`Self::window`] when it holds all [`WINDOW`] bytes.
    #[doc(hidden)]
    #[inline(always)]
    fn full_window(&self) -> Option<&'de [u8; WINDOW]> {
        self.window().try_into().ok()
    }

    /// Moves past `n` bytes read from [`Self::window`] (`n <= WINDOW`;
    /// never past the end).
    #[doc(hidden)]
    #[inline(always)]
    fn advance(&mut self, _n: usize) {}

    /// Reads exactly `N` bytes. Short input: EOF at the offset of the first
    /// of them (or LIMIT when the total limit is what stops it).
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]>;

    /// Reads `n` bytes: borrowed for `'de` when possible, else copied (into
    /// `scratch`, or held by the reader itself until its next read). `at`
    /// is the offset reported if they are not there.
    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>>;

    /// [`Self::take`], with copied bytes always all of `scratch`: a map
    /// key's record is made from them ([`KeyRead`]), after the borrow of
    /// the reader ends.
    #[inline]
    fn take_in_scratch<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.take(n, at, scratch)
    }

    /// Reads a tensor directory block starting here (validated, with error
    /// offsets from the start of the input).
    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>>;

    /// A stream's `len` bytes of `w`-byte elements (a `Vec` of numbers or
    /// bools) copied into `scratch` in bounded chunks. A stream that ends
    /// or fails inside them is EOF / IO at the first element not read
    /// whole, as the element path gives, and `scratch` then holds the
    /// bytes that did arrive. `None` (nothing read) leaves them to the
    /// element path: a slice's are in place, and a total limit inside
    /// them is LIMIT at an element.
    fn take_elements<'s>(
        &'s mut self,
        _len: usize,
        _w: usize,
        _at: u64,
        _scratch: &'s mut Vec<u8>,
    ) -> Result<Option<&'s [u8]>> {
        Ok(None)
    }

    /// The reader a map key is read with when [`Self::KEYS_APART`]: a
    /// stream cannot look back to compare a key with the one before it, so
    /// its keys are read through a [`KeyRead`], which records their bytes.
    /// Only the keys pay for the record: a stream's own reads test nothing
    /// for it.
    type Key<'k>: Read<'de>
    where
        Self: 'k;

    /// Whether map keys are read through [`Self::Key`] (streams); a slice,
    /// and a key's own reader, read them as any other value.
    const KEYS_APART: bool;

    /// The reader for one map key.
    fn key_reader(&mut self) -> Self::Key<'_>;

    /// Appends bytes just read to the map-key record (a slice's keys are
    /// in the input already: nothing to do).
    fn record(&mut self, bytes: &[u8]);

    /// Position in capture space (for map-key comparison).
    fn mark(&self) -> usize;

    /// Bytes captured between two marks.
    fn captured(&self, from: usize, to: usize) -> &[u8];

    /// A map opens (captured keys must be kept until it closes).
    fn map_open(&mut self);

    /// A map closes.
    fn map_close(&mut self);
}

/// Reads from an `io::Read`, exactly as many bytes as the value needs (so
/// several values can be read back to back from one stream).
///
/// Reads go straight to the reader, a `read_exact` call per value: wrap a
/// file or socket in a `std::io::BufReader` and read it with
/// [`BufIoRead`] (`from_bufread`) for speed.
///
/// `LIMITED` is false only for the crate's functions that never take a
/// total size limit (`kiln_serde::from_reader`, `framed::from_reader`, the
/// bincode module's configurations without one): their reads test
/// nothing for it.
pub struct IoRead<R, const LIMITED: bool = true> {
    reader: R,
    tally: Tally<LIMITED>,
}

impl<R: io::Read> IoRead<R> {
    /// A reader over a stream, optionally with a total size limit.
    pub fn new(reader: R, limit: Option<u64>) -> Self {
        IoRead::with_limit(reader, limit)
    }
}

impl<R: io::Read, const LIMITED: bool> IoRead<R, LIMITED> {
    /// [`IoRead::new`] for either kind; `limit` must be `None` when not
    /// `LIMITED` (the callers' option types say so: tests/stream_limits).
    pub(crate) fn with_limit(reader: R, limit: Option<u64>) -> Self {
        debug_assert!(
            LIMITED || limit.is_none(),
            "a limit for an unlimited reader"
        );
        IoRead {
            reader,
            tally: Tally::new(limit),
        }
    }

    /// Gives the underlying reader back.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// Appends exactly `n` bytes to `buf`, in bounded chunks.
    fn fill(&mut self, buf: &mut Vec<u8>, mut n: usize, at: u64) -> Result<()> {
        while n > 0 {
            let step = n.min(CHUNK);
            let old = buf.len();
            buf.resize(old + step, 0);
            if let Err(e) = self.reader.read_exact(&mut buf[old..]) {
                buf.truncate(old);
                return Err(stream_error(e, at));
            }
            self.tally.consumed(&buf[old..]);
            n -= step;
        }
        Ok(())
    }
}

impl<R, const LIMITED: bool> private::Sealed for IoRead<R, LIMITED> {}

impl<'de, R: io::Read, const LIMITED: bool> Read<'de> for IoRead<R, LIMITED> {
    #[inline]
    fn offset(&self) -> u64 {
        self.tally.pos()
    }

    #[inline]
    fn remaining(&self) -> Option<usize> {
        None
    }

    fn trailing(&self) -> usize {
        0
    }

    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.tally.check_limit(n, at)?;
        scratch.clear();
        self.fill(scratch, n, at)?;
        Ok(Reference::Copied(scratch))
    }

    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        let base = self.tally.pos();
        scratch.clear();
        self.tally.check_limit(32, base)?;
        self.fill(scratch, 32, base)?;
        let mut header = [0u8; 32];
        header.copy_from_slice(scratch);
        let (meta_end, total) = match crate::tensors::header_lens(&header, limits) {
            Ok(lens) => lens,
            Err(e) if e.code() == ErrorCode::Eof => {
                // `P + payload_bytes` overflows u64: the descriptors and
                // heap first, as a slice checks them (EOF at the count).
                let meta = crate::tensors::meta_bytes(&header);
                let meta = usize::try_from(meta).unwrap_or(usize::MAX);
                self.tally.check_limit(meta, base)?;
                self.fill(scratch, meta, base + 8)?;
                return Err(e.shifted(base));
            }
            Err(e) => return Err(e.shifted(base)),
        };
        let rest = usize::try_from(total.saturating_sub(32))
            .map_err(|_| Error::at(ErrorCode::Eof, base, "directory larger than memory"))?;
        self.tally.check_limit(rest, base)?;
        // A stream that ends early is EOF at the header field that promised
        // the bytes, as on a slice (spec 7): `count` (offset 8) for the
        // descriptors and heap, `payload_bytes` (offset 16) for the payload.
        let meta = usize::try_from(meta_end.saturating_sub(32)).unwrap_or(rest);
        self.fill(scratch, meta, base + 8)?;
        self.fill(scratch, rest - meta, base + 16)?;
        crate::tensors::validate(scratch, limits).map_err(|e| e.shifted(base))?;
        Ok(Reference::Copied(scratch))
    }

    stream_read_methods!();
}

/// What a stream reader keeps besides its source ([`IoRead`], and the
/// bincode module's reader over a `BincodeRead`): the position, the total
/// size limit, and the bytes of the map keys read (a stream cannot look
/// back to compare a key with the one before it; [`KeyRead`] records them).
///
/// `LIMITED = false`: no limit, and no test for one on any read
/// (`from_reader` `mesh` 32.38M -> 29.38M LTO, 37.00M -> 23.75M without:
/// two instructions fewer per `f32`; without LTO `Vector3`'s decode is then
/// inlined into `Triangle`'s).
pub(crate) struct Tally<const LIMITED: bool = true> {
    pos: u64,
    limit: Option<u64>,
    /// The limit, or `u64::MAX`: one compare on the hot path
    /// ([`Tally::within`]).
    end: u64,
    /// Maps open (the record is kept until the outermost one closes).
    open_maps: u32,
    record: Vec<u8>,
}

impl<const LIMITED: bool> Tally<LIMITED> {
    /// A tally with `limit`; `None` for an unlimited one (`LIMITED = false`).
    pub(crate) fn new(limit: Option<u64>) -> Self {
        let limit = if LIMITED { limit } else { None };
        Tally {
            pos: 0,
            limit,
            end: limit.unwrap_or(u64::MAX),
            open_maps: 0,
            record: Vec::new(),
        }
    }

    /// Bytes consumed so far.
    #[inline]
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// The total size limit less what was read, if there is a limit.
    pub(crate) fn limit_left(&self) -> Option<u64> {
        self.limit.map(|l| l.saturating_sub(self.pos))
    }

    /// LIMIT (at `at`) when `n` more bytes pass the total size limit.
    #[inline]
    pub(crate) fn check_limit(&self, n: usize, at: u64) -> Result<()> {
        match self.limit {
            Some(limit) if LIMITED && self.pos.saturating_add(n as u64) > limit => {
                Err(self.over_limit(n, at))
            }
            _ => Ok(()),
        }
    }

    /// Whether `n` more bytes (a value's width) stay within the limit; if
    /// not, the read is [`Self::over_limit`]: an exit, never a path back
    /// into the read. (While the test also sent map keys' reads to an
    /// out-of-line read that came back, LLVM reloaded the reader from
    /// memory after every field: `mesh` `from_reader` LTO 37.9M
    /// instructions, bincode 1.3's `deserialize_from` 23.1M.)
    #[inline]
    pub(crate) fn within(&self, n: usize) -> bool {
        // No wrap: `pos` counts bytes read (2^64 of them is centuries of
        // reading), and `n` is a value's width.
        !LIMITED || self.pos.wrapping_add(n as u64) <= self.end
    }

    /// LIMIT at `at`: `n` more bytes pass the total size limit.
    #[cold]
    #[inline(never)]
    pub(crate) fn over_limit(&self, n: usize, at: u64) -> Error {
        let limit = self.end;
        Error::at_fmt(
            ErrorCode::Limit,
            at,
            format_args!("reading {n} more bytes passes the size limit of {limit} bytes"),
        )
    }

    /// `n` bytes were read where [`Self::within`] allowed them.
    #[inline]
    pub(crate) fn skip(&mut self, n: usize) {
        self.pos = self.pos.wrapping_add(n as u64);
    }

    /// `bytes` were read: move past them.
    #[inline]
    pub(crate) fn consumed(&mut self, bytes: &[u8]) {
        self.pos += bytes.len() as u64;
    }

    /// Bytes of a map key, read through a [`KeyRead`].
    pub(crate) fn record(&mut self, bytes: &[u8]) {
        self.record.extend_from_slice(bytes);
    }

    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.record.len()
    }

    pub(crate) fn captured(&self, from: usize, to: usize) -> &[u8] {
        self.record.get(from..to).unwrap_or(&[])
    }

    pub(crate) fn map_open(&mut self) {
        self.open_maps += 1;
    }

    pub(crate) fn map_close(&mut self) {
        self.open_maps = self.open_maps.saturating_sub(1);
        if self.open_maps == 0 {
            self.record.clear();
        }
    }
}

/// [`Read::take_elements`] for a stream reader (`IoRead`, and the bincode
/// module's reader, whose `BincodeRead` is an `io::Read`).
pub(crate) fn read_elements<'s, const LIMITED: bool>(
    reader: &mut impl io::Read,
    tally: &mut Tally<LIMITED>,
    len: usize,
    w: usize,
    at: u64,
    scratch: &'s mut Vec<u8>,
) -> Result<Option<&'s [u8]>> {
    if tally.limit_left().is_some_and(|left| len as u64 > left) {
        return Ok(None);
    }
    scratch.clear();
    // `read_to_end` of at most a chunk at a time, not `read_exact`: it
    // says how many bytes arrived when the stream ends or fails (the error
    // is at the element cut), and it reads into the spare capacity
    // without zeroing it first.
    while scratch.len() < len {
        let got = scratch.len();
        // 4 KiB, then doubling up to `CHUNK`: a lying count costs at
        // most about twice the bytes that arrived.
        let step = (len - got).min(got.clamp(4096, CHUNK));
        let mut part = io::Read::take(&mut *reader, step as u64);
        match io::Read::read_to_end(&mut part, scratch) {
            Ok(k) if k == step => {}
            Ok(_) => {
                let e = io::Error::from(io::ErrorKind::UnexpectedEof);
                return Err(cut_elements(tally, e, scratch, w, at));
            }
            Err(e) => return Err(cut_elements(tally, e, scratch, w, at)),
        }
    }
    tally.consumed(scratch);
    Ok(Some(scratch))
}

/// [`read_elements`] cut short by `e`: the error at the first element not
/// read whole; `scratch` keeps the bytes that arrived, the position moves
/// past the whole elements.
#[cold]
fn cut_elements<const LIMITED: bool>(
    tally: &mut Tally<LIMITED>,
    e: io::Error,
    scratch: &[u8],
    w: usize,
    at: u64,
) -> Error {
    let filled = scratch.len();
    let whole = filled - filled % w.max(1);
    tally.consumed(&scratch[..whole]);
    stream_error(e, at + whole as u64)
}

/// An I/O error of a stream at `at`: the end of the stream inside a value
/// is the spec's EOF, anything else IO.
#[cold]
#[inline(never)]
pub(crate) fn stream_error(e: io::Error, at: u64) -> Error {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        Error::at(ErrorCode::Eof, at, "the stream ended inside a value")
    } else {
        Error::io(e, Some(at))
    }
}
