//! [`Cursor`]: the slice reader's position (piece 3 of the module docs).

/// The bytes [`Cursor::window`] lends: what a slice reader hands a small
/// struct's fields at once (`de/window.rs`).
pub(crate) const WINDOW: usize = 256;

/// A read position in a byte slice that never passes its end. Only
/// `read_array`, `take` and `rewind_short` move it, each within the data, so
/// `unread` can skip the `pos <= len` test that `data.get(pos..)` makes on
/// every read (the decoder's fixed-width reads then make one length test,
/// not two).
#[derive(Clone, Copy)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    /// Invariant: `pos <= data.len()`.
    pos: usize,
    /// Where the last short `read_array` started (`pos` before it moved
    /// to the end); 0 before any.
    short: usize,
    /// A full window opens at `pos` when `pos < win_lim`: `data.len() + 1
    /// - WINDOW`, or 0 when `data` is shorter than a window.
    win_lim: usize,
}

impl<'a> Cursor<'a> {
    /// At the start of `data`.
    #[inline]
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Cursor {
            data,
            pos: 0,
            short: 0,
            win_lim: data.len().checked_sub(WINDOW).map_or(0, |l| l + 1),
        }
    }

    /// Bytes before the position.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes from the position to the end.
    #[inline]
    pub(crate) fn unread(&self) -> &'a [u8] {
        // SAFETY: `pos <= data.len()` (the field's invariant: 0 in `new`;
        // `read_array` and `take` add only a length they just took from
        // `unread()`, a short `read_array` sets `data.len()`, and
        // `rewind_short` only lowers it), so the range is in bounds.
        unsafe { self.data.get_unchecked(self.pos..) }
    }

    /// The next `N` bytes, moving past them. Fewer left: `None`, and the
    /// cursor moves to the end ([`Self::rewind_short`] moves it back).
    ///
    /// Moving to the end on a short read, where it used to stay put, lets
    /// LLVM keep the position in a register through a run of reads: when
    /// a short read left the position as it was, every read before it had
    /// to store its own end, since one that fails next returns with the
    /// position in memory (12 stores per `mesh` triangle without LTO,
    /// where the derived `Triangle::deserialize` is a call per element).
    /// Now every exit stores the position (the end, or the next read's
    /// end) and the stores in between are dead. The reader puts the
    /// position back at the short read's start when it completes the
    /// error ([`Self::rewind_short`]). callgrind, `mesh` decode without
    /// LTO 16.63 -> 14.88 M instructions (1.52-1.62 -> 1.29-1.40 ms in the
    /// profile binary), with LTO 10.88 M either way.
    #[inline]
    pub(crate) fn read_array<const N: usize>(&mut self) -> Option<[u8; N]> {
        // `pos + N` cannot overflow: `pos <= data.len() <= isize::MAX`.
        let end = self.pos + N;
        if end > self.data.len() {
            self.short = self.pos;
            self.pos = self.data.len();
            return None;
        }
        // SAFETY: `pos + N <= data.len()` was just checked, so the `N`
        // bytes at `pos` are in bounds; `[u8; N]` has alignment 1.
        let head = unsafe { self.data.as_ptr().add(self.pos).cast::<[u8; N]>().read() };
        self.pos = end;
        Some(head)
    }

    /// The next [`WINDOW`] bytes, without moving, when that many remain.
    #[inline(always)]
    pub(crate) fn window(&self) -> Option<&'a [u8; WINDOW]> {
        if self.pos < self.win_lim {
            // SAFETY: `pos < win_lim` means `data.len() >= WINDOW` and
            // `pos + WINDOW <= data.len()` (`win_lim` is `data.len() + 1 -
            // WINDOW` then, 0 otherwise), so the `WINDOW` bytes at `pos` are
            // in bounds; `[u8; WINDOW]` has alignment 1, and the borrow is
            // of `data`, for `'a`. The branch tells the code after the call
            // the same fact (`advance`'s bound then folds away); it is never
            // taken, for that reason.
            unsafe {
                if self.data.len() - self.pos < WINDOW {
                    std::hint::unreachable_unchecked();
                }
                Some(&*self.data.as_ptr().add(self.pos).cast::<[u8; WINDOW]>())
            }
        } else {
            None
        }
    }

    /// Where the last short `read_array` started.
    #[inline]
    pub(crate) fn short(&self) -> usize {
        self.short
    }

    /// Moves the position back to where the last short `read_array`
    /// started (never forward).
    #[inline]
    pub(crate) fn rewind_short(&mut self) {
        self.pos = self.pos.min(self.short);
    }

    /// Moves past the next `n` bytes (no further than the end).
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos += n.min(self.data.len() - self.pos);
    }

    /// The next `n` bytes, moving past them.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let head = self.unread().get(..n)?;
        self.pos += n;
        Some(head)
    }
}
