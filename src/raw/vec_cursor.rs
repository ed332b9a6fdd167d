//! Piece 11: [`VecCursor`], a growing `Vec` written through a position
//! kept apart from the `Vec` (`to_writer` into a `&mut Vec<u8>`, so
//! bincode's `serialize_into`; `to_extend` into a buffer without spare
//! capacity; `to_writer`'s staging buffer).
//!
//! Appending through `&mut Vec<u8>` (piece 4's `append` and its siblings,
//! which this replaces) hands the `Vec` to the out-of-line
//! `reserve` on the rare path, so LLVM keeps its length in memory: every
//! write loaded the length, the capacity and the pointer and stored the
//! length back. Here the position is a value of its own, the pointer and
//! the capacity another ([`Buf`]), and the rare path gets the `Vec` alone
//! and hands back the new pointer and capacity, so they stay in registers
//! through a run of writes, as in [`WriteCursor`](super::WriteCursor) over
//! spare capacity. The `Vec`'s length is brought up to date when it grows and
//! when the writing is done ([`VecCursor::finish`]).
//!
//! As in `WriteCursor`, the position is counted from the end of the
//! capacity, and [`VecCursor::room`] makes room for a struct's fields
//! before them, so that their writes need no room test of their own.

use std::ptr;

use super::copy::copy_to;

/// A `Vec<u8>` written at `pos` (`cap + at`); `STREAM` for a buffer drained as it fills
/// (it at least doubles when it grows, as `reserve` does anyway, in a body
/// of its own: one shared grow function merged a stream's and a `Vec`'s
/// serializer into one that LLVM did not inline).
///
/// The position is an offset from the capacity's end, `at = pos - cap`
/// (at most 0), as `WriteCursor`'s from its buffer's: a room test is one
/// compare of `at` with a constant, and after [`room`](Self::room)'s
/// `at <= -n` LLVM drops the tests of the fixed-width writes it covers (a
/// fact about one value, which range analysis carries; `pos + n <= cap`,
/// a fact relating two, left every test in place: `mesh` through
/// `bincode::serialize_into` 10.00 -> 12.63 M instructions). callgrind,
/// `kiln_bincode` `serw`, LTO / no LTO: `mesh` 10.00 / 10.25 -> 3.50 /
/// 4.00 M, `updates` 4.56 / 5.58 -> 3.80 / 4.45 M, `savedata` 1.96 / 1.99
/// -> 1.61 / 1.67 M, `log` 1.56 / 1.50 -> 1.44 / 1.47 M; `tick32` 88.6 /
/// 90.6 -> 26.0 / 62.1 instructions, and through `to_writer`'s staging
/// buffer (`serio`) 85.4 / 137.4 -> 61.3 / 107.4.
///
/// It is an offset, not a pointer: a run of fixed-width writes stores at
/// constant offsets from one base. As a pointer (with the end as a second
/// one), each write's address waited on the previous write's across the
/// growth path: a `mesh` of 1.5 M `f32` through `bincode::serialize_into`,
/// LTO, 284 -> 362 µs (profile binary, session 41), though the 16-field
/// order of `benches/alone` went 7.9 -> 6.1 ns there (fewer uses of the
/// serializer's address: [`Buf`]).
///
/// `repr(C)`, the `Vec`'s reference first: at the serializer's own
/// address (its output comes first), where the growth path reads it with
/// no address computed (`Serializer`'s docs).
#[repr(C)]
pub(crate) struct VecCursor<'a, const STREAM: bool> {
    /// The buffer, borrowed rather than owned: a `Vec` owned inside the
    /// serializer and handed to the rare path by address kept the whole
    /// serializer in memory (LLVM promotes no part of a value whose
    /// address escapes). Its length is stale while writing (where the last
    /// growth or [`finish`](Self::finish) left it; its first `len` bytes
    /// stay initialized, as a `Vec` requires), and it is borrowed uniquely
    /// here, so no slice handed to a write can point into it.
    vec: &'a mut Vec<u8>,
    /// The position counted from the capacity's end: `pos - cap`.
    /// Invariant: `-cap <= at <= 0`, and the first `pos = cap + at` bytes
    /// at `ptr` are initialized.
    at: isize,
    /// `vec`'s pointer and capacity (`ptr` and `cap` below), read again
    /// whenever `vec` grows.
    buf: Buf,
}

impl<'a> VecCursor<'a, true> {
    /// A drained buffer's cursor, after `vec`'s bytes.
    #[inline]
    pub(crate) fn stream(vec: &'a mut Vec<u8>) -> Self {
        VecCursor::new(vec)
    }
}

impl<'a, const STREAM: bool> VecCursor<'a, STREAM> {
    /// Writes after `vec`'s bytes. Outside this module (and its tests)
    /// only through [`append`] or [`VecCursor::stream`], so that `append`
    /// knows the one cursor of its kind a pass can hand back.
    #[inline]
    pub(super) fn new(vec: &'a mut Vec<u8>) -> Self {
        // `as_mut_ptr` makes no reference to the elements, so the pointer
        // stays valid while only the `Vec` itself is touched (`set_len`),
        // until the buffer moves (a growth, which reads it again).
        let buf = Buf::of(vec);
        let at = from_end(vec.len(), buf.cap());
        VecCursor { vec, buf, at }
    }

    /// Bytes written (including those the `Vec` held before).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.pos()
    }

    /// `pos`: `cap + at`, in `0..=cap` (the field's invariant), so the
    /// wrapping addition is exact.
    #[inline(always)]
    fn pos(&self) -> usize {
        self.buf.cap().wrapping_add(self.at as usize)
    }

    /// Where the next write goes: `-at` bytes before the capacity's end.
    #[inline(always)]
    fn dst(&self) -> *mut u8 {
        // SAFETY: `ptr + cap` is the end of `vec`'s allocation (or `ptr`
        // itself when `cap` is 0), and `-cap <= at <= 0` (the field's
        // invariant) keeps `ptr + cap + at` inside it or at its end;
        // `cap <= isize::MAX`, so the offsets fit an `isize`.
        unsafe { self.buf.ptr().add(self.buf.cap()).offset(self.at) }
    }

    /// Brings the `Vec`'s length up to date: every byte written.
    #[inline]
    pub(crate) fn finish(&mut self) {
        // SAFETY: `pos <= cap` and the first `pos` bytes are initialized
        // (the field's invariant).
        unsafe { self.vec.set_len(self.pos()) };
    }

    /// The bytes written.
    #[inline]
    pub(crate) fn written(&self) -> &[u8] {
        // SAFETY: the first `pos` bytes at `ptr` are initialized and inside
        // `vec`'s allocation (`pos <= cap`); `ptr` is non-null and aligned
        // (a `Vec`'s pointer, dangling only when `cap`, so `pos`, is 0);
        // the borrow of `self` keeps them unchanged.
        unsafe { std::slice::from_raw_parts(self.buf.ptr(), self.pos()) }
    }

    /// As [`written`](Self::written), to patch in place.
    #[inline]
    pub(crate) fn written_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `written`; the unique borrow of `self` makes this
        // the only access to them while it lives.
        unsafe { std::slice::from_raw_parts_mut(self.buf.ptr(), self.pos()) }
    }

    /// Moves the position back to `n` (no effect when `n >= pos`).
    #[inline]
    pub(crate) fn truncate(&mut self, n: usize) {
        self.at = from_end(self.pos().min(n), self.buf.cap());
    }

    /// Makes room for `n` more bytes after `pos` (`pos + n > cap`): on
    /// return `at <= -n` (the growth's promise), the position unchanged.
    #[cold]
    #[inline]
    fn grow(&mut self, n: usize) {
        let pos = self.pos();
        self.buf = grow::<STREAM>(self.vec, pos, n);
        self.at = from_end(pos, self.buf.cap());
    }

    /// Makes room for `n` more bytes: a hint that a run of small writes
    /// follows (a struct's or tuple's fields), so that LLVM, knowing
    /// `at <= -n` after it, drops the room tests of the writes it covers.
    /// It grows the `Vec` as a write would (a growing `Vec` has no pass to
    /// end), at most `n` bytes before a write needs them.
    #[inline]
    pub(crate) fn room(&mut self, n: usize) {
        // Compared as a negative offset; a larger `n` asks for less than
        // it means, which only keeps more of the writes' own tests.
        let n = n.min(isize::MAX as usize) as isize;
        if self.at > -n {
            self.grow(n as usize);
        }
        if self.at > -n {
            // SAFETY: never true: `grow(n)` leaves `at <= -n` (it reserves
            // `n` bytes past `pos`, or does not return: see [`grow`]).
            // Said to LLVM, as the join of the two paths above would not
            // say it: the growth hands back a capacity it cannot see.
            unsafe { std::hint::unreachable_unchecked() }
        }
    }

    /// Appends `b`.
    #[inline]
    pub(crate) fn put(&mut self, b: &[u8]) {
        // A slice holds at most `isize::MAX` bytes: the cast is exact.
        let n = b.len() as isize;
        if self.at > -n {
            self.grow(b.len());
        }
        // SAFETY: `cap - pos >= b.len()` (tested, or made by `grow`, which
        // keeps the first `pos` bytes and reads the new pointer and
        // capacity), so the destination is inside the allocation; `b` is a
        // shared borrow apart from the cursor (held uniquely here), so they
        // do not overlap; afterwards the first `pos + b.len()` bytes are
        // initialized.
        unsafe { ptr::copy_nonoverlapping(b.as_ptr(), self.dst(), b.len()) };
        // `at + n <= 0` (above): no wrap.
        self.at += n;
    }

    /// Appends one byte.
    #[inline]
    pub(crate) fn push(&mut self, b: u8) {
        if self.at == 0 {
            self.grow(1);
        }
        // SAFETY: `cap > pos` (tested, or made by `grow`), so the byte at
        // `pos` is inside the allocation, and then initialized.
        unsafe { self.dst().write(b) };
        self.at += 1;
    }

    /// Appends a 4-byte count and then `b`, with one room test: the Frozen
    /// str/bytes (spec 2). `SHORT`: `b` copied inline ([`copy_to`]), not
    /// by a call of `memcpy`.
    #[inline]
    pub(crate) fn put_counted<const SHORT: bool>(&mut self, count: u32, b: &[u8]) {
        // No overflow: a slice holds at most `isize::MAX` bytes. Past
        // `isize::MAX` the growth fails (and aborts); below, the cast is
        // exact. (A test LLVM drops where the caller has checked the
        // length against `u32::MAX` on a 64-bit target.)
        let n = 4 + b.len();
        if n > isize::MAX as usize || self.at > -(n as isize) {
            self.grow(n);
        }
        // SAFETY: `cap - pos >= 4 + b.len()` (tested, or made by `grow`),
        // so both destinations are inside the allocation; `b` does not
        // overlap it (as in `put`); afterwards the first `pos + n` bytes
        // are initialized.
        unsafe {
            let dst = self.dst();
            dst.cast::<[u8; 4]>().write_unaligned(count.to_le_bytes());
            if SHORT {
                copy_to(b, dst.add(4));
            } else {
                ptr::copy_nonoverlapping(b.as_ptr(), dst.add(4), b.len());
            }
        }
        self.at += n as isize;
    }
}

/// `pos - cap` for `pos <= cap`, both a `Vec<u8>`'s, so at most
/// `isize::MAX`: exact.
#[inline(always)]
fn from_end(pos: usize, cap: usize) -> isize {
    pos as isize - cap as isize
}

/// What [`append`] runs: writes through the cursor and hands it back (a
/// trait, not a closure, so that it can be always inlined, as
/// [`FillSpare`](super::FillSpare)).
pub(crate) trait Append {
    type Output;
    fn append<'v>(self, cur: VecCursor<'v, false>) -> (VecCursor<'v, false>, Self::Output);
}

/// Runs `a` on a cursor after `vec`'s bytes, then takes every byte it
/// wrote into `vec`'s length, through `vec` itself rather than the
/// cursor's own reference to it. When the value's `serialize` is a call,
/// the cursor lives in memory that call could change, so LLVM cannot tell
/// that its reference is still `vec`: the length stored through it was
/// read back at once by the next `serialize_into` (a store forwarded
/// through memory, on the chain from one message's end position to the
/// next one's start). Stored through `vec`, the next call's start stays
/// in a register: a 32-byte message through `bincode::serialize_into`,
/// no LTO, one API per program, 3.53 -> 3.29 ns (bincode 1.3: 3.34).
#[inline(always)]
pub(crate) fn append<A: Append>(vec: &mut Vec<u8>, a: A) -> A::Output {
    let at: *const Vec<u8> = vec;
    let (cur, out) = a.append(VecCursor::new(&mut *vec));
    // Always true: a `VecCursor<_, false>` is made only in the `raw`
    // module (here, and in its tests), and `a.append` works for every
    // lifetime `'v`, so it has no other cursor of that lifetime to hand
    // back. Tested anyway, as an assertion rather than a second path: a
    // length stored through another pointer there would again be read
    // back from memory.
    assert!(
        ptr::eq(&*cur.vec, at),
        "raw::append: a cursor over another Vec"
    );
    let pos = cur.pos();
    // SAFETY: the cursor handed back is over `vec` (asserted), so its
    // invariant holds for `vec`: `pos <= capacity`, and the first `pos`
    // bytes are initialized.
    unsafe { vec.set_len(pos) };
    out
}

/// A `Vec`'s pointer and capacity as one `u128`: the address in the low
/// 64 bits, the capacity in the high 64. A write reads both with one load
/// and a growth stores both with one store, so a derived `serialize` that
/// stays a call uses the serializer's address 5 times a field, not 9
/// (the capacity's load and store, the pointer's load and store, each
/// pointer access through an address computed again): LLVM proves that
/// the bytes written do not alias the serializer only within 100 such
/// uses. Past them, in a 16-field `serialize` with LTO, it stored the
/// position and reloaded the pointer and capacity at every field:
/// `benches/alone`'s 90-byte orders through `bincode::serialize_into`,
/// LTO / no LTO, 8.2 / 8.1 -> 5.0 / 5.1 ns (bincode 1.3: 6.4 / 13.8);
/// callgrind, `kiln_bincode` `serw`, `updates` 5.48 -> 4.56 / 5.82 ->
/// 5.58 M, a 32-byte message 94.6 -> 89.6 instructions; `mesh` 9.88 ->
/// 10.00 / 10.13 -> 10.25 M (one register copy more in its loop).
///
/// The address goes through an integer: `as usize` exposes the pointer's
/// provenance, and [`Buf::ptr`] takes it back (Rust's exposed-provenance
/// rules; the strict-provenance API for it is above the MSRV).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Buf(u128);

// An address and a capacity fit 64 bits on every target Rust supports.
const _: () = assert!(usize::BITS <= 64);

impl Buf {
    /// `vec`'s pointer (`as_mut_ptr`, which makes no reference to the
    /// elements) and capacity.
    #[inline(always)]
    fn of(vec: &mut Vec<u8>) -> Buf {
        Buf(vec.as_mut_ptr() as usize as u128 | (vec.capacity() as u128) << 64)
    }

    /// The pointer, with the provenance that [`Buf::of`] exposed.
    #[inline(always)]
    fn ptr(self) -> *mut u8 {
        self.0 as usize as *mut u8
    }

    /// The capacity.
    #[inline(always)]
    fn cap(self) -> usize {
        (self.0 >> 64) as usize
    }
}

/// The rare path: takes the bytes written into `vec`'s length, reserves
/// room for `n` more and hands back the new pointer and capacity (packed
/// here, out of line: packed by the caller, 4 more instructions a field
/// kept `Tick`'s `serialize` from being inlined with LTO). Out of
/// line and given the `Vec` alone, so the cursor's position, pointer and
/// capacity need not live in memory.
///
/// It cannot unwind: `extern "C"`, which rustc marks `nounwind` (since
/// Rust 1.81 a panic inside aborts), and nothing in it panics. It reserves
/// with `try_reserve` and, should that fail, calls `handle_alloc_error`,
/// which aborts, as `reserve` itself does when memory runs out; `reserve`
/// panics only when the capacity would pass `isize::MAX` bytes, which
/// `pos + n` (an allocation and a live slice) reaches only on a 32-bit
/// target: that aborts here too.
///
/// Why: past a call that may unwind, LLVM kept the position stored in the
/// serializer after every write, for the unwinding caller to see. Without
/// it the position stays in a register through a run of writes. Profile
/// binary, kiln's `bincode::serialize_into(&mut Vec)` (`serw`,
/// `kiln_bincode`), interleaved rounds, LTO / no LTO: `mesh` 537 / 984 ->
/// 533 / 546 µs (10.13 M instructions without LTO, were 11.38),
/// `updates` 897 / 912 -> 749 / 791 µs; a 32-byte message, one API per
/// program, no LTO: 10.9 -> 10.6 ns. A failure reported as an `Err`
/// instead (the cursor full, as `WriteCursor`) needed a test after every
/// call, and with LTO the value's `serialize` was then not inlined into
/// `serialize_into` (32 bytes: 2.3 -> 10.7 ns).
#[cold]
#[inline(never)]
// Called only from Rust, by this crate (Rust 1.75, the MSRV, warns that a
// `u128` has no stable C ABI, which matters only to C callers).
#[allow(improper_ctypes_definitions)]
extern "C" fn grow<const STREAM: bool>(vec: &mut Vec<u8>, pos: usize, n: usize) -> Buf {
    // SAFETY: the caller's `pos <= capacity`, and its first `pos` bytes
    // are initialized (the cursor's invariant).
    unsafe { vec.set_len(pos) };
    let more = if STREAM { n.max(pos) } else { n };
    if vec.try_reserve(more).is_err() {
        let size = pos.saturating_add(more).min(isize::MAX as usize);
        std::alloc::handle_alloc_error(
            std::alloc::Layout::from_size_align(size, 1).unwrap_or(std::alloc::Layout::new::<u8>()),
        );
    }
    Buf::of(vec)
}
