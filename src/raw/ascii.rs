//! Piece 2 of the `unsafe` pieces (see `raw.rs`): ASCII strings become
//! `&str` after a word-at-a-time high-bit check.

use super::first_chunk;

/// `bytes` as a `&str`: ASCII checked word by word (no UTF-8 state
/// machine), anything else through `std::str::from_utf8`.
#[inline]
pub(crate) fn str_from_utf8(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if is_ascii(bytes) {
        // SAFETY: `is_ascii` checked that every byte is below 0x80, and a
        // string of ASCII bytes is valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        not_ascii(bytes)
    }
}

/// The UTF-8 state machine, out of line: keeps the ASCII path small
/// enough for LLVM to inline a borrowed `&str` field's decode.
#[cold]
#[inline(never)]
fn not_ascii(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    std::str::from_utf8(bytes)
}

/// True when no byte has its high bit set, without a loop or a branch on
/// the length up to 64 bytes (the strings of records): 4-16 bytes as four
/// 4-byte words, 17-64 as four 16-byte words (overlapping where it is
/// short: the inner two at offsets from the table [`INNER`]), below 4 a
/// byte loop,
/// past 64 bytes 16 a step and the last 16. Only a string's
/// length class is branched on: record strings of varying length (`log`'s
/// user ids, 4-15 bytes, and requests, 18-66) no longer mispredict an
/// `n >= 8`, `n > 16`, `n > 32` ladder and a loop's trip count. Borrowed
/// `log` decode, LTO: simulated mispredicts 12.1 k -> 1.1 k, wall time
/// 155-157 -> 121-131 µs (bitcode 139-148), for more instructions (1.94
/// -> 2.34 M; owned `log` 14.93 -> 15.32, `savedata` 12.36 -> 12.58;
/// without LTO 2.51 -> 2.96, 15.83 -> 16.24, 13.10 -> 13.34, wall time
/// unchanged). Past 64 bytes is tested first and out of line
/// ([`long_is_ascii`]): the 17-64 class then needs no test after its
/// words (borrowed `log` without LTO 2.96 -> 2.87 M).
///
/// The inner words' offsets were `min`s (`8.min(n - 4)`,
/// `n.saturating_sub(32)`): where this is inlined into a decode loop,
/// LLVM's x86 cmov-to-branch pass may make them branches on the length,
/// which mispredict (perf: with the seq access passed by value,
/// `de/seq.rs`, borrowed `log` with LTO went 165-184 -> 270-310 µs).
/// A table load has no select to convert. The two inner words are read
/// without a bounds check (a compile-time assertion keeps each table
/// entry inside its string): safe `get`s on the table's offsets took
/// borrowed `log` to 2.69 M instructions with LTO. With both, callgrind
/// against the `min`s: borrowed `log` 2.29 -> 2.14 M with LTO, 2.87 ->
/// 2.58 without; owned `log` 14.98 -> 14.69 / 16.22 -> 15.92; and the
/// by-value access no longer slows it down (wall time 265-284 against
/// 285-296 µs, alternated, on a slower day of this machine).
#[inline]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n > 64 {
        return long_is_ascii(bytes);
    }
    // n <= 64: the two inner words' offsets, from a table (a `min` here
    // may become a branch where this is inlined into a loop).
    let [a, b] = INNER.get(n).copied().unwrap_or([0, 0]);
    let (a, b) = (usize::from(a), usize::from(b));
    if n > 16 {
        // [0, min(32, n)) from the front, [max(n - 32, 0), n) from the
        // back, as 16-byte words (overlapping below 64 bytes).
        // SAFETY: 16 < n <= 64 here, and INNER's entries for those n
        // are at most n - 16 (the assertion below it).
        let (wa, wb) = unsafe { (word::<16>(bytes, a), word::<16>(bytes, b)) };
        let inner = u128::from_le_bytes(wa) | u128::from_le_bytes(wb);
        let all = pair(bytes, 0) | inner | pair(bytes, n - 16);
        ((all >> 64) as u64 | all as u64) & HIGH == 0
    } else if n >= 4 {
        // [0, min(12, n)) and [n - 4, n) as 4-byte words.
        let half = |i: usize| {
            bytes
                .get(i..)
                .and_then(first_chunk::<4>)
                .map_or(0x8080_8080, |w| u32::from_le_bytes(*w))
        };
        // SAFETY: 4 <= n <= 16 here, and INNER's entries for those n are
        // at most n - 4 (the assertion below it).
        let (wa, wb) = unsafe { (word::<4>(bytes, a), word::<4>(bytes, b)) };
        let inner = u32::from_le_bytes(wa) | u32::from_le_bytes(wb);
        (half(0) | inner | half(n - 4)) & 0x8080_8080 == 0
    } else {
        bytes.iter().all(|b| *b < 0x80)
    }
}

/// The offsets of [`is_ascii`]'s two inner words by length: for 4-16
/// bytes `min(4, n - 4)` and `min(8, n - 4)` (4-byte words), for 17-64
/// `min(16, n - 16)` and `max(n - 32, 0)` (16-byte words).
const INNER: [[u8; 2]; 65] = {
    let mut t = [[0u8; 2]; 65];
    let mut n = 4;
    while n <= 64 {
        t[n] = if n <= 16 {
            [min(4, n - 4), min(8, n - 4)]
        } else {
            [min(16, n - 16), n.saturating_sub(32) as u8]
        };
        n += 1;
    }
    t
};

// Every inner word is inside its string: the `unsafe` reads rely on it.
const _: () = {
    let mut n = 4;
    while n <= 64 {
        let w = if n <= 16 { 4 } else { 16 };
        assert!(INNER[n][0] as usize + w <= n && INNER[n][1] as usize + w <= n);
        n += 1;
    }
};

/// The `N` bytes of `bytes` at `i`, read without a bounds check.
///
/// # Safety
///
/// `i + N <= bytes.len()`.
#[inline(always)]
unsafe fn word<const N: usize>(bytes: &[u8], i: usize) -> [u8; N] {
    debug_assert!(i + N <= bytes.len());
    // SAFETY: the caller promises bytes i..i + N are in `bytes`; an
    // unaligned read of a byte array needs nothing more.
    unsafe { bytes.as_ptr().add(i).cast::<[u8; N]>().read_unaligned() }
}

/// `min` for the table (`Ord::min` is not const).
const fn min(a: usize, b: usize) -> u8 {
    (if a < b { a } else { b }) as u8
}

/// The high bit of every byte.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The 16-byte word of `bytes` at `i`, all high bits when out of bounds
/// (every call is in bounds, by the callers' clamps).
#[inline(always)]
fn pair(bytes: &[u8], i: usize) -> u128 {
    bytes
        .get(i..)
        .and_then(first_chunk::<16>)
        .map_or(u128::MAX, |w| u128::from_le_bytes(*w))
}

/// [`is_ascii`] past 64 bytes: 16 bytes a step, then the last 16
/// (overlapping the steps), out of line.
#[inline(never)]
fn long_is_ascii(bytes: &[u8]) -> bool {
    const HIGH128: u128 = (HIGH as u128) << 64 | HIGH as u128;
    let mut steps = bytes.chunks_exact(16);
    for c in &mut steps {
        if pair(c, 0) & HIGH128 != 0 {
            return false;
        }
    }
    match bytes.len().checked_sub(16) {
        _ if steps.remainder().is_empty() => true,
        Some(last) => pair(bytes, last) & HIGH128 == 0,
        None => steps.remainder().iter().all(|b| *b < 0x80),
    }
}

#[cfg(test)]
#[test]
fn long_check_is_right_at_every_length_and_position() {
    // Every length, also those is_ascii never hands it (below 65).
    for len in 0..100 {
        let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        assert!(long_is_ascii(&ascii), "len {len}");
        for pos in 0..len {
            let mut high = ascii.clone();
            high[pos] = 0x80;
            assert!(!long_is_ascii(&high), "len {len} pos {pos}");
        }
    }
}
