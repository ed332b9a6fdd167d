//! Piece 6: [`WriteCursor`], `to_slice`'s position in the caller's
//! buffer, counted from its end, and [`fill_spare`], which runs it over a
//! `Vec`'s spare capacity (`to_vec`, `to_extend`). Why it is written this
//! way, with the counts: piece 6 of the `raw` module's docs.

use std::mem::MaybeUninit;

use super::copy::copy_to;

/// A write position in a caller's buffer, counted from the buffer's end
/// (`at = pos - len`, at most 0). Only the writes move it, each by its
/// length after one test of its end, `at + n <= 0`, which for a
/// fixed-width write is one compare of `at` with a constant. A write that
/// does not fit is not stored, and the cursor is full: its position is
/// the end, and it stores nothing more (every later write of a byte or
/// more is refused too), as after a refused [`room`](Self::room) test.
/// What the bytes asked for came to is not counted:
/// the entry points find it with a pass of their own (raw.rs piece 6).
pub(crate) struct WriteCursor<'a> {
    /// Invariant: the first `buf.len() + at` bytes are initialized (the
    /// writes initialize what they pass).
    buf: &'a mut [MaybeUninit<u8>],
    /// The position counted from the buffer's end: `pos - buf.len()`,
    /// from `-buf.len()` (nothing written) to 0 (all of it, or full).
    /// Invariant: `-buf.len() <= at <= 0`.
    at: isize,
    /// A write did not fit, or a [`room`](Self::room) test refused. From
    /// then on the position is the end, and nothing more is stored (every
    /// later write of a byte or more is refused too).
    full: bool,
    /// A room test made it full, before any write did: the value may fit.
    asked: bool,
    /// Every byte of the buffer is initialized (made by [`new`](Self::new)
    /// over a `[u8]`), so that [`reopen`](Self::reopen) may move the
    /// position to any point of it.
    init: bool,
}

/// A [`WriteCursor`]'s position and state, apart from its borrow
/// ([`WriteCursor::spot`]). Its invariant holds for the buffer it names.
#[derive(Clone, Copy)]
pub(crate) struct Spot {
    /// The buffer's address and length.
    buf: (usize, usize),
    at: isize,
    full: bool,
    asked: bool,
}

/// What a pass that did not fit in a `Vec`'s spare capacity showed
/// ([`fill_spare`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Short {
    /// A write did not fit: the value needs at least these bytes (one
    /// more than the spare capacity), which a second pass of the same
    /// value must reach.
    Need(usize),
    /// A room test refused: the value may fit in the spare capacity (the
    /// position then is not kept: below).
    Asked,
}

impl<'a> WriteCursor<'a> {
    /// At the start of `buf`.
    #[inline]
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        // SAFETY: `MaybeUninit<u8>` has `u8`'s layout, and the cursor only
        // ever stores initialized bytes through it, so `buf` stays a valid
        // `[u8]` for its owner.
        let buf = unsafe { &mut *(buf as *mut [u8] as *mut [MaybeUninit<u8>]) };
        WriteCursor {
            init: true,
            ..Self::new_uninit(buf)
        }
    }

    /// At the start of `buf`, whose bytes need not be initialized (a
    /// `Vec`'s spare capacity).
    #[inline]
    pub(crate) fn new_uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        if buf.len() > isize::MAX as usize {
            // SAFETY: a slice of bytes is at most `isize::MAX` long (the
            // rule of `slice::from_raw_parts`). Said to LLVM, which drops
            // a sign test it made on every `to_extend`.
            unsafe { std::hint::unreachable_unchecked() }
        }
        let at = -(buf.len() as isize);
        WriteCursor {
            buf,
            at,
            full: false,
            asked: false,
            init: false,
        }
    }

    /// Bytes written; once full, the buffer's length (what a write that
    /// did not fit would have needed is not counted: the entry points
    /// count it with a pass of their own).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        // `-len <= at <= 0` (the field's invariant): `len + at` is in
        // `0..=len`, and the wrapping addition exact.
        self.buf.len().wrapping_add(self.at as usize)
    }

    /// Whether a write did not fit.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.full
    }

    /// The bytes written; `None` once full.
    #[inline]
    pub(crate) fn written(&self) -> Option<&[u8]> {
        if self.full {
            return None;
        }
        let w = self.buf.get(..self.len())?;
        // SAFETY: the bytes written are initialized (the field's
        // invariant), and `MaybeUninit<u8>` has `u8`'s layout.
        Some(unsafe { &*(w as *const [MaybeUninit<u8>] as *const [u8]) })
    }

    /// As [`written`](Self::written), to patch in place.
    #[inline]
    pub(crate) fn written_mut(&mut self) -> Option<&mut [u8]> {
        if self.full {
            return None;
        }
        let pos = self.len();
        let w = self.buf.get_mut(..pos)?;
        // SAFETY: as in `written`; only initialized bytes are stored back.
        Some(unsafe { &mut *(w as *mut [MaybeUninit<u8>] as *mut [u8]) })
    }

    /// Where the next write goes: `-at` bytes before the buffer's end.
    #[inline(always)]
    fn dst(&mut self) -> *mut u8 {
        let len = self.buf.len();
        // SAFETY: `-len <= at <= 0` (the field's invariant), so `len + at`
        // is inside the buffer or at its end; `len <= isize::MAX`, so the
        // offsets fit an `isize`.
        unsafe { self.buf.as_mut_ptr().cast::<u8>().add(len).offset(self.at) }
    }

    /// A write that does not fit: not stored; the cursor is full and its
    /// position the end. The same state whichever write it was, so that
    /// LLVM joins every refusal into one path (a count of the bytes asked
    /// for kept each refusal's position apart: raw.rs piece 6).
    #[cold]
    #[inline]
    fn refuse(&mut self) -> bool {
        self.at = 0;
        self.full = true;
        false
    }

    /// Writes `b` when it fits; false (nothing written, full) when not.
    #[inline]
    pub(crate) fn put(&mut self, b: &[u8]) -> bool {
        // A slice is at most `isize::MAX` bytes: no wrap.
        let n = b.len() as isize;
        if self.at > -n {
            return self.refuse();
        }
        // SAFETY: `at + b.len() <= 0`, so the destination is in the
        // buffer; `b` is a shared borrow and `buf` a unique one, so they
        // do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), self.dst(), b.len()) };
        self.at += n;
        true
    }

    /// Writes a frame header's two 8-byte halves after one room test, as
    /// two stores from registers. As one 16-byte copy of halves just
    /// stored to the stack it stalled store forwarding (piece 6).
    #[inline]
    pub(crate) fn put_halves(&mut self, lo: [u8; 8], hi: [u8; 8]) -> bool {
        if self.at > -16 {
            return self.refuse();
        }
        // SAFETY: `at + 16 <= 0`, so both 8-byte destinations are in the
        // buffer; unaligned writes of plain bytes.
        unsafe {
            let dst = self.dst();
            dst.cast::<[u8; 8]>().write_unaligned(lo);
            dst.add(8).cast::<[u8; 8]>().write_unaligned(hi);
        }
        self.at += 16;
        true
    }

    /// Whether `n` more bytes fit; when not, the cursor is full, as after
    /// a write that does not fit. Not a write: a hint that a run of small
    /// writes follows (a struct's or tuple's fields), so that LLVM,
    /// knowing `at + n <= 0` here, drops the room tests of the writes it
    /// covers. The caller then ends its pass, or
    /// the path that knows the room would join the one that does not, and
    /// the tests would stay. A refusal here says less than one of a
    /// write: the value may need fewer than `n` more bytes ([`Short`]).
    #[inline]
    pub(crate) fn room(&mut self, n: usize) -> bool {
        // At most `isize::MAX`: compared as a negative offset.
        let n = n.min(isize::MAX as usize) as isize;
        if self.at > -n {
            return self.refuse_room();
        }
        true
    }

    /// Whether it is full because a room test refused (no write did).
    #[inline]
    pub(crate) fn asked(&self) -> bool {
        self.full && self.asked
    }

    /// The position, as [`reopen`](Self::reopen) takes it back: counted
    /// from the buffer's end (`len - buf.len()`, at most 0), so that
    /// taking it reads no field but the position (`to_slice` takes one
    /// before every sequence element).
    #[inline]
    pub(crate) fn mark(&self) -> isize {
        self.at
    }

    /// Undoes a refused room test: the cursor writes again from `mark`, a
    /// [`mark`](Self::mark) it had before the refusal, and true. False,
    /// nothing changed, unless the cursor is full by room tests alone
    /// ([`asked`](Self::asked)), its bytes are all initialized (made by
    /// [`new`](Self::new): the field's invariant then holds at any
    /// position) and `mark` is before the buffer's end. A full cursor's
    /// position is the end (it is not kept), so a mark taken once full (a
    /// `Serialize` impl that went on past a refusal it was handed) is
    /// refused too; one taken at the end while not full loses nothing by
    /// it (the value then fits only if it writes nothing, and the caller
    /// writes it again by other means).
    #[inline]
    pub(crate) fn reopen(&mut self, mark: isize) -> bool {
        // `len <= isize::MAX`, so `-len` does not overflow.
        if !self.asked() || !self.init || mark >= 0 || mark < -(self.buf.len() as isize) {
            return false;
        }
        // `-len <= mark < 0`: the field's invariant.
        self.at = mark;
        self.full = false;
        self.asked = false;
        true
    }

    /// A cursor over the same buffer in the same state, for a pass of its
    /// own; [`resume`](Self::resume) takes its state back.
    #[inline]
    pub(crate) fn reborrow(&mut self) -> WriteCursor<'_> {
        WriteCursor {
            buf: &mut *self.buf,
            at: self.at,
            full: self.full,
            asked: self.asked,
            init: self.init,
        }
    }

    /// The position and state of a [`reborrow`](Self::reborrow), ended,
    /// for [`resume`](Self::resume).
    #[inline]
    pub(crate) fn spot(&self) -> Spot {
        Spot {
            buf: (self.buf.as_ptr() as usize, self.buf.len()),
            at: self.at,
            full: self.full,
            asked: self.asked,
        }
    }

    /// Takes the position and state of a [`reborrow`](Self::reborrow) of
    /// this cursor that has written since (its [`spot`](Self::spot)):
    /// false, nothing changed, when it was over another buffer.
    #[inline]
    pub(crate) fn resume(&mut self, spot: Spot) -> bool {
        if spot.buf != (self.buf.as_ptr() as usize, self.buf.len()) {
            return false;
        }
        self.at = spot.at;
        self.full = spot.full;
        self.asked = spot.asked;
        true
    }

    /// [`room`](Self::room)'s refusal: full, as a write's, and `asked`
    /// (unless a write was refused before). The position is not kept.
    /// Kept as a field of its own, the cursor a word larger, a no-LTO
    /// `to_extend` of a type whose `serialize` is a call moved the cursor
    /// back in pieces that stalled the reload (90-byte orders, 4.1 -> 7.4
    /// ns); in a word shared with the flag, LLVM inlined differently
    /// (`updates` `to_slice` with LTO 4.23 -> 5.28 M instructions); left
    /// in `at`, `mesh` stored it after every `Vector3` without LTO, for
    /// the way out of the pass to find (3.38 M, 163 -> 185 µs; now 2.88
    /// M). The buffer itself is never changed, so that [`fill_spare`]'s
    /// tests of it fold away.
    #[cold]
    #[inline]
    fn refuse_room(&mut self) -> bool {
        if !self.full {
            self.asked = true;
        }
        self.refuse()
    }

    /// What the cursor, over a buffer of `room` bytes and full, shows the
    /// value needs ([`Short`]).
    pub(super) fn short(&self, room: usize) -> Short {
        if self.asked {
            Short::Asked
        } else {
            Short::Need(room.saturating_add(1))
        }
    }

    /// Writes one byte when it fits.
    #[inline]
    pub(crate) fn push(&mut self, b: u8) -> bool {
        if self.at == 0 {
            return self.refuse();
        }
        // SAFETY: `at < 0`, so the byte at `dst` is in the buffer.
        unsafe { self.dst().write(b) };
        self.at += 1;
        true
    }

    /// Writes a 4-byte count and then `b` when both fit, with one test.
    #[inline]
    pub(crate) fn put_counted<const SHORT: bool>(&mut self, count: u32, b: &[u8]) -> bool {
        // Longer than any buffer: refused before the sum, which then
        // cannot wrap (`at <= 0`). (A test LLVM drops where the caller
        // has checked the length against `u32::MAX` on a 64-bit target.)
        if b.len() > isize::MAX as usize - 4 {
            return self.refuse();
        }
        let end = self.at + 4 + b.len() as isize;
        if end > 0 {
            return self.refuse();
        }
        // SAFETY: `at + 4 + b.len() <= 0`, so both destinations are in
        // the buffer; `b` is a shared borrow and `buf` a unique one, so
        // they do not overlap.
        unsafe {
            let dst = self.dst();
            dst.cast::<[u8; 4]>().write_unaligned(count.to_le_bytes());
            if SHORT {
                copy_to(b, dst.add(4));
            } else {
                std::ptr::copy_nonoverlapping(b.as_ptr(), dst.add(4), b.len());
            }
        }
        self.at = end;
        true
    }

    /// Moves the position back to `n` (no effect when `n` is at or past
    /// it, or once full: the position stays the end, so no later write is
    /// stored whoever calls this).
    #[inline]
    pub(crate) fn truncate(&mut self, n: usize) {
        if self.full {
            return;
        }
        // `n - len`, at most 0 (and `len <= isize::MAX`).
        let at_n = -(self.buf.len().saturating_sub(n) as isize);
        self.at = self.at.min(at_n);
    }
}

/// What [`fill_spare`] runs: writes through the cursor and hands it back
/// (a trait, not a closure, so that it can be always inlined: as a
/// closure a 32-byte `to_extend` went 52 -> 100 instructions).
pub(crate) trait FillSpare {
    type Error;
    fn fill<'s>(self, cur: WriteCursor<'s>) -> Result<WriteCursor<'s>, Self::Error>;
}

/// Runs `f` on a cursor over `out`'s spare capacity, then takes what it
/// wrote into `out`'s length when all of it fit: `None`; else
/// `Some(short)`, `out` unchanged, with what the pass showed the value
/// needs ([`Short`]: one more byte than the spare capacity when a write
/// did not fit; nothing known when a [`WriteCursor::room`] test refused).
/// A cursor handed back over another buffer changes nothing either
/// (`Some`, one byte more than the spare capacity). Where the spare
/// capacity starts and its length are read before `f` runs and trusted
/// after: `out` stays borrowed here, and `f` reaches it only through the
/// cursor's borrow of its spare capacity, which cannot move it. (Reading
/// them again cost 9 of the 50 instructions of a 32-byte `to_extend`:
/// LLVM cannot tell that the cursor's stores leave the `Vec` alone. With
/// `f` inlined, the tests below fold into the cursor's own `n <= len`.)
#[inline(always)]
pub(crate) fn fill_spare<F: FillSpare>(out: &mut Vec<u8>, f: F) -> Result<Option<Short>, F::Error> {
    let cur = WriteCursor::new_uninit(out.spare_capacity_mut());
    let (at, room) = (cur.buf.as_ptr(), cur.buf.len());
    let cur = f.fill(cur)?;
    // Over the same buffer (so `n <= room`), and not full; else the
    // value needs more than the room, or may (a room test refused).
    if cur.buf.as_ptr() != at || cur.buf.len() != room {
        return Ok(Some(Short::Need(room.saturating_add(1))));
    }
    if cur.is_full() {
        return Ok(Some(cur.short(room)));
    }
    let n = cur.len();
    // SAFETY: the cursor is not full, so its first `n <= buf.len()` bytes
    // are initialized (the field's invariant), and its buffer is `out`'s
    // spare capacity (it starts at `at` and is `room` long): they are the
    // first `n` bytes of that spare capacity (`n > 0` bytes there are
    // reachable only through the cursor's borrow of it). `out` is
    // unchanged since `at` was read, so `out[..len + n]` is initialized
    // and within the allocation.
    unsafe { out.set_len(out.len() + n) };
    Ok(None)
}
