//! [`BufIoRead`]: a stream that is an `io::BufRead`, read from a copy of
//! the front of its buffer.
//!
//! [`IoRead`] calls the stream's `read_exact` for every value: from a
//! `BufReader`, a call (std's, not inlined into kiln's decode without LTO)
//! and a `memcpy` of a few bytes in it, per `f32`. A `BufRead` shows its
//! buffer without consuming it, so this reader copies up to [`LOCAL`]
//! bytes of it at once and reads values from that copy as a slice reader
//! would (a compare, a copy of a constant width, an add); it tells the
//! stream to consume what it read when it copies again, when it hands a
//! read to [`IoRead`] (a value that straddles the stream's buffer, a
//! string longer than the copy, the end of the stream, an error), and when
//! it is dropped. So the stream is left exactly past the bytes read, as
//! `IoRead` leaves it, and every value and every error (code and offset)
//! is `IoRead`'s.
//!
//! No `unsafe`: the copy is a plain array, and the stream is not touched
//! between the copy and the `consume` that follows it.

use std::io::{self, BufRead};

use super::{private, stream_error, IoRead, Read, Reference};
use crate::error::Result;

/// Bytes of the stream's buffer copied at once: at most 255, so that the
/// count of bytes read from the copy is a `u8`.
const LOCAL: usize = 255;
const _: () = assert!(LOCAL <= u8::MAX as usize, "the count of bytes read is a u8");

/// Room after the copy for the widest fixed-width read (a `u128`): with
/// the count a `u8`, a read of `N <= PAD` bytes from the copy is always
/// within the array, and only its test against the bytes copied is left
/// (without it, each read also tested the array's end: `mesh` from a
/// `BufReader`, 3 instructions a value).
const PAD: usize = 16;

/// Reads from an `io::BufRead` (a `BufReader` over a file or a socket), a
/// copy of its buffer at a time, exactly as many bytes as the value needs:
/// the stream is consumed past them when the reader is dropped (and on
/// the way). Values and errors are [`IoRead`]'s.
pub struct BufIoRead<'r, R: ?Sized + BufRead, const LIMITED: bool = true> {
    inner: IoRead<Fill<'r, R>, LIMITED>,
    /// A copy of the first `len` bytes of the stream's buffer, which the
    /// stream has not consumed.
    local: [u8; LOCAL + PAD],
    /// Bytes of `local` read: the stream consumes them, and the tally's
    /// position moves past them, at [`Self::sync`]. At most `len`.
    used: u8,
    /// Bytes of `local` that may be read: those copied, and no more than
    /// the total size limit leaves (so a read from the copy tests nothing
    /// for the limit).
    len: usize,
}

impl<'r, R: ?Sized + BufRead> BufIoRead<'r, R> {
    /// A reader over a `BufRead`, optionally with a total size limit.
    pub fn new(reader: &'r mut R, limit: Option<u64>) -> Self {
        BufIoRead::with_limit(reader, limit)
    }
}

impl<'r, R: ?Sized + BufRead, const LIMITED: bool> BufIoRead<'r, R, LIMITED> {
    /// A reader over `reader`; `limit` must be `None` when not `LIMITED`.
    pub(crate) fn with_limit(reader: &'r mut R, limit: Option<u64>) -> Self {
        BufIoRead {
            inner: IoRead::with_limit(Fill(reader), limit),
            local: [0; LOCAL + PAD],
            used: 0,
            len: 0,
        }
    }

    /// The stream consumes the bytes read from the copy, which is then
    /// empty: the stream's own position is the reader's.
    #[inline]
    fn sync(&mut self) {
        self.inner.reader.0.consume(usize::from(self.used));
        self.inner.tally.skip(usize::from(self.used));
        self.used = 0;
        self.len = 0;
    }

    /// After [`Self::sync`]: copies the front of the stream's buffer
    /// (filling it when empty). An error of the stream is IO at `at` (EOF
    /// is an empty copy, left to [`IoRead`]).
    fn refill(&mut self, at: u64) -> Result<()> {
        loop {
            match self.inner.reader.0.fill_buf() {
                Ok(buf) => {
                    // A whole copy has a constant width (still a `memcpy`
                    // call of 255 bytes: callgrind, `mesh`).
                    let whole = buf
                        .get(..LOCAL)
                        .and_then(|b| <&[u8; LOCAL]>::try_from(b).ok());
                    let mut n = 0;
                    let to = self
                        .local
                        .get_mut(..LOCAL)
                        .and_then(|t| <&mut [u8; LOCAL]>::try_from(t).ok());
                    if let (Some(whole), Some(to)) = (whole, to) {
                        *to = *whole;
                        n = LOCAL;
                    } else if let Some(to) = self.local.get_mut(..buf.len()) {
                        to.copy_from_slice(buf);
                        n = buf.len();
                    }
                    let room = self.inner.tally.limit_left();
                    self.len = room.map_or(n, |r| n.min(usize::try_from(r).unwrap_or(n)));
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(stream_error(e, at)),
            }
        }
    }

    /// [`Read::read_array`] past the copy: copy again, or leave the read
    /// to [`IoRead`] (a value that straddles the stream's buffer, the end
    /// of the stream, the total size limit).
    #[inline(never)]
    fn read_array_slow<const N: usize>(&mut self) -> Result<[u8; N]> {
        self.sync();
        if self.inner.tally.within(N) {
            let at = self.inner.tally.pos();
            self.refill(at)?;
            if let Some(out) = self.take_copied::<N>() {
                return Ok(out);
            }
            // Too short a copy: `IoRead` reads past it, so it is stale.
            self.len = 0;
        }
        self.inner.read_array()
    }

    /// Claims the next `n` bytes of the copy if it holds them (within the
    /// limit: [`Self::len`]): their place in `local`, with `used` past them.
    #[inline(always)]
    fn claim(&mut self, n: usize) -> Option<std::ops::Range<usize>> {
        let used = usize::from(self.used);
        let end = used.saturating_add(n);
        if end > self.len {
            return None;
        }
        // `end <= len <= LOCAL <= u8::MAX` (asserted at `LOCAL`): it fits,
        // and `local` holds it.
        self.used = end as u8;
        Some(used..end)
    }

    /// [`Self::claim`] past the copy (a string that straddles its end):
    /// copy again and claim from the new copy, as [`Self::read_array_slow`]
    /// does for a value. `None` (synced, the copy empty) leaves the read to
    /// [`IoRead`]: a string longer than a copy, one that straddles the
    /// stream's buffer, the end of the stream, the total size limit; the
    /// stream is then consumed exactly up to the string, so its bytes,
    /// errors and offsets are `IoRead`'s. An error of the stream's
    /// `fill_buf` is IO at `at`, as `IoRead`'s read would give.
    #[inline(never)]
    fn claim_slow(&mut self, n: usize, at: u64) -> Result<Option<std::ops::Range<usize>>> {
        self.sync();
        if n > LOCAL || !self.inner.tally.within(n) {
            return Ok(None);
        }
        self.refill(at)?;
        let b = self.claim(n);
        if b.is_none() {
            // Too short a copy: `IoRead` reads past it, so it is stale.
            self.len = 0;
        }
        Ok(b)
    }

    /// The claimed bytes `b` of the copy, copied into `scratch`.
    fn copy_in_scratch<'s>(
        &self,
        b: std::ops::Range<usize>,
        scratch: &'s mut Vec<u8>,
    ) -> Reference<'static, 's> {
        scratch.clear();
        scratch.extend_from_slice(self.local.get(b).unwrap_or(&[]));
        Reference::Copied(scratch)
    }

    /// The next `N` bytes from the copy, if it holds them.
    #[inline(always)]
    fn take_copied<const N: usize>(&mut self) -> Option<[u8; N]> {
        let b = self.claim(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(self.local.get(b)?);
        Some(out)
    }
}

/// The stream as [`IoRead`] reads it past the copy: through its `read`
/// only, so that std's default `read_exact` loop (over `read`) serves the
/// reads the copy does not, and the stream's own `read_exact` (for a
/// `BufReader`, what `from_reader` calls per value) has no caller here.
/// Without LTO, in one program with `from_reader`, sharing it moved
/// `from_reader`'s decode (callgrind, `mesh` from a `BufReader`: 100.26 ->
/// 116.76 M instructions; 100.26 with this). Same bytes, same errors: a
/// `BufReader`'s `read_exact` past its buffer is that same loop.
pub(crate) struct Fill<'r, R: ?Sized>(&'r mut R);

impl<R: ?Sized + io::Read> io::Read for Fill<'_, R> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: ?Sized + BufRead, const LIMITED: bool> Drop for BufIoRead<'_, R, LIMITED> {
    fn drop(&mut self) {
        self.sync();
    }
}

impl<R: ?Sized + BufRead, const LIMITED: bool> private::Sealed for BufIoRead<'_, R, LIMITED> {}

impl<'de, R: ?Sized + BufRead, const LIMITED: bool> Read<'de> for BufIoRead<'_, R, LIMITED> {
    #[inline]
    fn offset(&self) -> u64 {
        self.inner.tally.pos() + u64::from(self.used)
    }

    #[inline]
    fn remaining(&self) -> Option<usize> {
        None
    }

    fn trailing(&self) -> usize {
        0
    }

    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.take_copied::<N>() {
            Some(out) => Ok(out),
            None => self.read_array_slow(),
        }
    }

    /// From the copy when it holds the `n` bytes: handed out in place, for
    /// the visitor to copy (a `String`) or read (a `&str` it cannot
    /// borrow), not copied into `scratch` first. callgrind, from a
    /// `BufReader` (`from_bufread`), LTO / no LTO: `log` 19.82 / 20.93 ->
    /// 18.51 / 19.59 M, `savedata` 15.63 / 16.01 -> 14.36 / 15.02 (`mesh`
    /// and `updates`, with few strings, within 0.4 M). A string that
    /// straddles the copy's end is claimed from a new copy
    /// ([`Self::claim_slow`]), not read by `IoRead`: `log` 18.51 / 19.59 ->
    /// 18.22 / 19.24 M, `savedata` 14.36 / 15.02 -> 14.31 / 14.96.
    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        match self.claim(n) {
            Some(b) => Ok(Reference::Copied(self.local.get(b).unwrap_or(&[]))),
            None => match self.claim_slow(n, at)? {
                Some(b) => Ok(Reference::Copied(self.local.get(b).unwrap_or(&[]))),
                None => self.inner.take(n, at, scratch),
            },
        }
    }

    /// [`Self::take`] into `scratch` (a map key's record is made from it:
    /// `KeyRead`). The same two claims as `take`'s, not one helper that
    /// returns either: its `Result<Option<Range>>` cost the fast claim
    /// too (callgrind, `from_bufread`, LTO / no LTO: `log` 18.22 / 19.24
    /// -> 18.33 / 19.38 M, `savedata` 14.31 / 14.96 -> 14.36 / 15.06).
    fn take_in_scratch<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        match self.claim(n) {
            Some(b) => Ok(self.copy_in_scratch(b, scratch)),
            None => match self.claim_slow(n, at)? {
                Some(b) => Ok(self.copy_in_scratch(b, scratch)),
                None => self.inner.take(n, at, scratch),
            },
        }
    }

    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        self.sync();
        self.inner.tensors_block(limits, scratch)
    }

    fn take_elements<'s>(
        &'s mut self,
        len: usize,
        w: usize,
        at: u64,
        scratch: &'s mut Vec<u8>,
    ) -> Result<Option<&'s [u8]>> {
        self.sync();
        Read::take_elements(&mut self.inner, len, w, at, scratch)
    }

    super::stream_read_methods!(@keys inner.tally);
}
