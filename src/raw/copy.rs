//! Piece 13: [`copy_to`], a str's bytes copied inline, not by a call of
//! libc's `memcpy`. Why, with the counts: piece 13 of the `raw` module's
//! docs.

use std::ptr;

/// Copies `src` to `dst`: up to 32 bytes with loads and stores of 4, 1 or
/// 8 bytes (tested in that order: short strings are the common ones),
/// placed so that they cover `[0, n)` and overlap where `n` is not a
/// multiple of their width (the overlapping bytes are written twice with
/// the same value); longer runs with `memcpy`.
///
/// # Safety
///
/// `dst` is valid for writes of `src.len()` bytes and does not overlap
/// `src`.
#[inline(always)]
pub(super) unsafe fn copy_to(src: &[u8], dst: *mut u8) {
    let n = src.len();
    let s = src.as_ptr();
    if n < 8 {
        if n >= 4 {
            // SAFETY: `4 <= n < 8`: the windows `[0, 4)` and `[n - 4, n)`
            // are inside `src`'s `n` bytes and `dst`'s `n` (the caller's
            // promise), which do not overlap, and cover `[0, n)`; unaligned
            // reads and writes need no alignment.
            unsafe {
                let a = s.cast::<u32>().read_unaligned();
                let b = s.add(n - 4).cast::<u32>().read_unaligned();
                dst.cast::<u32>().write_unaligned(a);
                dst.add(n - 4).cast::<u32>().write_unaligned(b);
            }
        } else if n > 0 {
            // SAFETY: `1 <= n <= 3`: bytes 0, `n / 2` and `n - 1` are inside
            // both and are all of `[0, n)`.
            unsafe {
                let a = s.read();
                let m = s.add(n / 2).read();
                let z = s.add(n - 1).read();
                dst.write(a);
                dst.add(n / 2).write(m);
                dst.add(n - 1).write(z);
            }
        }
    } else if n > 32 {
        // SAFETY: `src` is `n` readable bytes, `dst` `n` writable ones
        // (the caller's promise), and they do not overlap.
        unsafe { ptr::copy_nonoverlapping(s, dst, n) };
    } else if n >= 8 {
        // Four 8-byte windows at 0, `p = min(8, n - 8)`,
        // `q = max(n, 16) - 16` and `n - 8` cover `[0, n)` for
        // `8 <= n <= 32` (`[0, 16)` and `[n - 16, n)` when `n >= 16`,
        // `[0, 8)` and `[n - 8, n)` below), with no branch on where in
        // that range `n` is (a `cmov` each for `p` and `q`).
        let p = (n - 8).min(8);
        let q = n.saturating_sub(16);
        // SAFETY: each window starts at 0, `p`, `q` or `n - 8`, all at
        // most `n - 8` (`p <= n - 8` as `n >= 16` or `p = n - 8`; `q` is
        // 0 or `n - 16`), so its 8 bytes are inside `src`'s `n` and inside
        // `dst`'s `n` (the caller's promise). Unaligned reads and writes
        // need no alignment; `src` and `dst` do not overlap, so each
        // window read holds `src`'s bytes when it is written.
        unsafe {
            let a = s.cast::<u64>().read_unaligned();
            let b = s.add(p).cast::<u64>().read_unaligned();
            let c = s.add(q).cast::<u64>().read_unaligned();
            let d = s.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(p).cast::<u64>().write_unaligned(b);
            dst.add(q).cast::<u64>().write_unaligned(c);
            dst.add(n - 8).cast::<u64>().write_unaligned(d);
        }
    }
}
