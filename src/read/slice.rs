//! [`SliceRead`]: the reader over a borrowed slice, and the errors of its
//! short reads (completed when the decode stops).

use super::{private, KeyRead, Read, Reference, WINDOW};
use crate::error::{Error, ErrorCode, Result};
use crate::raw::Cursor;

/// Reads from a borrowed slice; str and bytes values borrow from it.
pub struct SliceRead<'de> {
    /// The whole input.
    full: &'de [u8],
    /// The readable bytes (`full`, cut at a total size limit) and the
    /// position in them. Only the position moves on a read (one store),
    /// where a shrinking `&[u8]` window stores pointer and length back; and
    /// the cursor knows it never passes the end, so a read makes one length
    /// test ([`crate::raw::Cursor`]).
    cur: Cursor<'de>,
    /// The total size limit, `u64::MAX` for none: read only when a read
    /// fails, to name the error as a stream would (LIMIT when the read
    /// passes the limit, whether or not it also passes the input's end).
    limit: u64,
}

impl<'de> SliceRead<'de> {
    /// A reader over the whole slice, optionally with a total size limit.
    #[inline]
    pub fn new(slice: &'de [u8], limit: Option<u64>) -> Self {
        let end = match limit {
            Some(l) => usize::try_from(l).map_or(slice.len(), |l| l.min(slice.len())),
            None => slice.len(),
        };
        SliceRead {
            full: slice,
            cur: Cursor::new(slice.get(..end).unwrap_or(slice)),
            limit: limit.unwrap_or(u64::MAX),
        }
    }

    #[inline]
    fn pos(&self) -> usize {
        self.cur.pos()
    }

    /// The readable bytes not read yet.
    #[inline]
    fn unread(&self) -> &'de [u8] {
        self.cur.unread()
    }

    /// The bytes not yet read (up to the real end of the slice).
    pub fn rest(&self) -> &'de [u8] {
        self.full.get(self.pos()..).unwrap_or(&[])
    }
}

/// The largest byte count a pending short read holds (its word keeps 8
/// bits for `back`, 1 for `moved` and 2 for the tag).
const PENDING_MAX: u64 = 1 << 53;

/// A slice read of `n` bytes at `at` that found too few: LIMIT when the
/// read passes the total size `limit` (as a stream, which tests the limit
/// before it reads, says even when the input ends first), else EOF: the
/// `full` input ends before it. `pos` is the reader's position.
/// Takes values, not the reader, so that an error path does not make the
/// reader's address escape.
#[cold]
#[inline(never)]
fn short_slice(n: usize, at: u64, pos: usize, full: usize, limit: u64) -> Error {
    if (pos as u64).saturating_add(n as u64) > limit {
        Error::at_fmt(
            ErrorCode::Limit,
            at,
            format_args!("reading {n} more bytes passes the size limit of {limit} bytes"),
        )
    } else {
        Error::at_fmt(
            ErrorCode::Eof,
            at,
            format_args!("needs {n} bytes, only {} remain", full.saturating_sub(pos)),
        )
    }
}

/// LIMIT (at 0, the directory's start in `rest`) where a stream's reads of
/// a tensor directory would pass the total size limit, `left` of `limit`
/// bytes: the same tests in the same order as [`IoRead`](crate::read::IoRead)'s
/// `tensors_block` (the header's 32 bytes; after the header's own errors,
/// the whole block, or when `P + payload_bytes` overflows, the
/// descriptors and heap), so that a slice under a limit names the error a
/// stream names. `None`: the slice's own checks decide.
#[cold]
#[inline(never)]
fn directory_over_limit(
    rest: &[u8],
    left: u64,
    limit: u64,
    limits: &crate::limits::Limits,
) -> Option<Error> {
    let over = |n: u64| {
        Error::at_fmt(
            ErrorCode::Limit,
            0,
            format_args!("reading {n} more bytes passes the size limit of {limit} bytes"),
        )
    };
    if left < 32 {
        return Some(over(32));
    }
    let header: &[u8; 32] = rest.get(..32)?.try_into().ok()?;
    match crate::tensors::header_lens(header, limits) {
        Ok((_, total)) if total > left => Some(over(total.saturating_sub(32))),
        Err(e) if e.code() == ErrorCode::Eof => {
            let meta = crate::tensors::meta_bytes(header);
            (meta > left - 32).then(|| over(meta))
        }
        _ => None,
    }
}

/// An error from a slice read, with a pending one completed: a short
/// fixed-width read's ([`Error::short_read_pending`]) at `short`, where it
/// started, and a short take's `back` bytes before the reader's position
/// `pos`, where it started (the decode stops at the first error). `true`
/// with a short fixed-width read's: the reader goes back to `short`.
#[cold]
#[inline(never)]
fn settle_slice(e: Error, pos: usize, short: usize, full: usize, limit: u64) -> (Error, bool) {
    match e.pending() {
        None => (e, false),
        Some((n, _, true)) => (short_slice(n, short as u64, short, full, limit), true),
        Some((n, back, false)) => {
            let at = (pos as u64).saturating_sub(back);
            (short_slice(n, at, pos, full, limit), false)
        }
    }
}

impl private::Sealed for SliceRead<'_> {}

impl<'de> Read<'de> for SliceRead<'de> {
    #[inline]
    fn offset(&self) -> u64 {
        self.pos() as u64
    }

    #[inline]
    fn remaining(&self) -> Option<usize> {
        Some(self.unread().len())
    }

    #[inline(always)]
    fn settle(&mut self, e: Error) -> Error {
        let (e, moved) = settle_slice(e, self.pos(), self.cur.short(), self.full.len(), self.limit);
        if moved {
            // Back to the short fixed-width read's start (it moved to the end).
            self.cur.rewind_short();
        }
        e
    }

    fn trailing(&self) -> usize {
        self.full.len() - self.pos()
    }

    const WINDOWED: bool = true;

    #[inline(always)]
    fn window(&self) -> &'de [u8] {
        let rest = self.unread();
        rest.get(..WINDOW).unwrap_or(rest)
    }

    #[inline(always)]
    fn full_window(&self) -> Option<&'de [u8; WINDOW]> {
        self.cur.window()
    }

    #[inline(always)]
    fn advance(&mut self, n: usize) {
        self.cur.advance(n);
    }

    #[inline]
    fn read_array<const N: usize>(&mut self) -> Result<[u8; N]> {
        match self.cur.read_array::<N>() {
            Some(head) => Ok(head),
            None => Err(Error::short_read_pending(N)),
        }
    }

    #[inline]
    fn take<'s>(
        &'s mut self,
        n: usize,
        at: u64,
        _scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        match self.cur.take(n) {
            Some(head) => Ok(Reference::Borrowed(head)),
            None => {
                // `at` is the value's start, a few bytes back at most (a
                // str's count), so the error is pending as a read's is.
                let pos = self.pos();
                let back = (pos as u64).wrapping_sub(at);
                Err(match u8::try_from(back) {
                    Ok(back) if (n as u64) < PENDING_MAX => Error::short_pending(n, back),
                    _ => short_slice(n, at, pos, self.full.len(), self.limit),
                })
            }
        }
    }

    fn tensors_block<'s>(
        &'s mut self,
        limits: &crate::limits::Limits,
        _scratch: &'s mut Vec<u8>,
    ) -> Result<Reference<'de, 's>> {
        let base = self.pos();
        if self.limit != u64::MAX {
            let left = self.limit.saturating_sub(base as u64);
            if let Some(e) = directory_over_limit(self.rest(), left, self.limit, limits) {
                return Err(e.shifted(base as u64));
            }
        }
        // Within the limit (tested above), the whole input: a directory
        // that passes its end is EOF as on a stream.
        let len = crate::tensors::validate(self.rest(), limits)
            .map_err(|e| e.shifted(base as u64))?
            .block_len();
        match self.cur.take(len) {
            Some(block) => Ok(Reference::Borrowed(block)),
            None => Err(Error::at(
                ErrorCode::Eof,
                base as u64,
                "directory block is short",
            )),
        }
    }

    type Key<'k>
        = KeyRead<'k, Self>
    where
        Self: 'k;
    const KEYS_APART: bool = false;

    fn key_reader(&mut self) -> Self::Key<'_> {
        KeyRead::new(self)
    }

    #[inline]
    fn record(&mut self, _bytes: &[u8]) {}

    #[inline]
    fn mark(&self) -> usize {
        self.pos()
    }

    #[inline]
    fn captured(&self, from: usize, to: usize) -> &[u8] {
        self.full.get(from..to).unwrap_or(&[])
    }

    #[inline]
    fn map_open(&mut self) {}
    #[inline]
    fn map_close(&mut self) {}
}
