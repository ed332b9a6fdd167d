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

/// True when no byte has its high bit set, without a loop up to 32 bytes
/// (the strings of records): overlapping words from both ends, then 16
/// bytes a step between them, leaving at the first high bit; 4-7 bytes as
/// two overlapping 4-byte words, below that a byte loop. callgrind, decode
/// LTO / no LTO, against one word a step with LLVM's 32-byte vector loop
/// (and its set-up) for longer strings: borrowed `log` 3.44M -> 2.88M /
/// 3.81M -> 3.24M, owned `log` 16.23M -> 15.78M / 17.48M -> 16.97M,
/// `savedata` 12.79M -> 12.68M / 13.54M -> 13.41M. Safe code; the
/// `unsafe` above relies on it.
#[inline]
pub(crate) fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = bytes.len();
    // The word at `i` (every call is in bounds, under the test around it;
    // out of bounds would read as not ASCII).
    let word = |i: usize| {
        bytes
            .get(i..)
            .and_then(first_chunk::<8>)
            .map_or(HIGH, |w| u64::from_le_bytes(*w))
    };
    if n >= 8 {
        // Up to 16 bytes: the first and the last word (overlapping); up to
        // 32: and the two next to them; longer: and 16 bytes a step
        // between them, the rest under 16 as the two words ending where
        // the step's range ends.
        let mut acc = word(0) | word(n - 8);
        if n > 16 {
            acc |= word(8) | word(n - 16);
            if n > 32 {
                let mid = bytes.get(16..n - 16).unwrap_or(&[]);
                let mut steps = mid.chunks_exact(16);
                for c in &mut steps {
                    let pair = first_chunk::<16>(c).map_or(u128::MAX, |c| u128::from_le_bytes(*c));
                    if pair & (u128::from(HIGH) << 64 | u128::from(HIGH)) != 0 {
                        return false;
                    }
                }
                if !steps.remainder().is_empty() {
                    acc |= word(n - 32) | word(n - 24);
                }
            }
        }
        acc & HIGH == 0
    } else if n >= 4 {
        // As `word`, 4 bytes (a pair of `Option<&[u8; 4]>`s tested the
        // second pointer against null: 3 instructions more per string).
        let half = |i: usize| {
            bytes
                .get(i..)
                .and_then(first_chunk::<4>)
                .map_or(0x8080_8080, |w| u32::from_le_bytes(*w))
        };
        (half(0) | half(n - 4)) & 0x8080_8080 == 0
    } else {
        bytes.iter().all(|b| *b < 0x80)
    }
}
