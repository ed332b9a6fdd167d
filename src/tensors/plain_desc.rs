//! Step 2's common case decided from a descriptor's bytes: a closed dtype
//! with no quantization, the shape of a checkpoint's weights.
//!
//! [`plain_end`] accepts only descriptors that `check_desc` (in
//! `validate.rs`) accepts, with the same new running end; for anything
//! else, or any doubt, it says nothing and `check_desc` runs, which finds
//! the fault and names it. So no fault's code or offset depends on it.
//! Validating a 1,000-tensor checkpoint went through `check_desc` for every
//! descriptor before: about 316 instructions a descriptor, the 128 bytes
//! parsed into a struct and some 40 tests one by one.

use super::dtype::Dtype;
use super::layout::{align64, packed_len, DESC_LEN, MAX_RANK};

/// The new running end (`byte_offset + byte_length`) and the `name_len`
/// when descriptor `b` is plain and valid after a running end of `running`:
///
/// * dtype a closed code (1..=19), scheme 0, rank at most 8;
/// * `layout_len`, reserved bytes 12..16, and bytes 96..128 (scale, outer,
///   block_elems, block_bytes, reserved) all zero;
/// * `name_len` at most `max_bytes`;
/// * shape slots past the rank zero, the element count without overflow;
/// * `byte_length` the dtype's size of that count, `byte_offset` the
///   canonical `align64(running)`, and the range within `payload_bytes`.
///
/// `None` otherwise, which says nothing about validity.
#[inline]
pub(super) fn plain_end(
    b: &[u8; DESC_LEN],
    running: u64,
    payload_bytes: u64,
    max_bytes: u64,
) -> Option<(u64, u32)> {
    let head = word(b, 0);
    // layout_len and reserved1 (bytes 8..16), then bytes 96..128.
    if word(b, 8) | word(b, 96) | word(b, 104) | word(b, 112) | word(b, 120) != 0 {
        return None;
    }
    let dtype = head as u16;
    let rank = usize::from((head >> 16) as u8);
    let scheme = (head >> 24) as u8;
    let name_len = (head >> 32) as u32;
    if scheme != 0 || rank > MAX_RANK || u64::from(name_len) > max_bytes {
        return None;
    }
    let bits = Dtype::closed_bits(dtype)?;
    let mut elements = 1u64;
    for k in 0..MAX_RANK {
        let s = word(b, 16 + 8 * k);
        if k < rank {
            // An overflow before a zero dimension is left to check_desc.
            elements = elements.checked_mul(s)?;
        } else if s != 0 {
            return None;
        }
    }
    let byte_length = word(b, 88);
    let byte_offset = word(b, 80);
    if byte_length != packed_len(elements, bits)? || byte_offset != align64(running)? {
        return None;
    }
    let end = byte_offset.checked_add(byte_length)?;
    (end <= payload_bytes).then_some((end, name_len))
}

/// The little-endian `u64` at `off` (a constant in range).
#[inline(always)]
fn word(b: &[u8; DESC_LEN], off: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(s) = b.get(off..off + 8) {
        w.copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::plain_end;
    use crate::limits::Limits;
    use crate::tensors::dtype::Dtype;
    use crate::tensors::layout::{align64, packed_len, RawDesc, DESC_LEN};
    use crate::tensors::validate::{check_desc, FULL};

    /// xorshift64*: the cases are the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A valid plain descriptor after `running`, and its end.
    fn plain(rng: &mut Rng, running: u64, name_len: u32) -> (RawDesc, u64) {
        let dtype = Dtype::ALL[rng.below(19) as usize];
        let rank = rng.below(9) as u8;
        let mut d = RawDesc {
            dtype: dtype.code(),
            rank,
            name_len,
            ..RawDesc::default()
        };
        for s in d.shape.iter_mut().take(usize::from(rank)) {
            *s = rng.below(6);
        }
        let elements = d.elements().unwrap_or(0);
        d.byte_length = packed_len(elements, dtype.bits().unwrap_or(8)).unwrap_or(0);
        d.byte_offset = align64(running).unwrap_or(0);
        let end = d.byte_offset + d.byte_length;
        (d, end)
    }

    /// What a fault in one field looks like: a byte or a whole field set to
    /// a value near a boundary.
    fn mutate(rng: &mut Rng, b: &mut [u8; DESC_LEN]) {
        let values = [
            0u64,
            1,
            2,
            7,
            8,
            9,
            19,
            20,
            63,
            64,
            65,
            4096,
            u32::MAX as u64,
            u64::MAX,
        ];
        let v = match rng.below(3) {
            0 => values[rng.below(values.len() as u64) as usize],
            1 => rng.next(),
            _ => rng.below(256),
        };
        let (at, width) = match rng.below(4) {
            0 => (rng.below(DESC_LEN as u64) as usize, 1),
            1 => (2 * rng.below(64) as usize, 2),
            2 => (4 * rng.below(32) as usize, 4),
            _ => (8 * rng.below(16) as usize, 8),
        };
        b[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
        if rng.below(4) == 0 {
            // Keep byte_length consistent with a mutated shape or dtype, so
            // that the later checks are reached too.
            let d = RawDesc::parse(b);
            let bits = Dtype::from_code(d.dtype).and_then(Dtype::bits).unwrap_or(8);
            if let Some(len) = d.elements().and_then(|n| packed_len(n, bits)) {
                b[88..96].copy_from_slice(&len.to_le_bytes());
            }
        }
    }

    /// The fast path's contract: whatever it accepts, `check_desc` accepts
    /// with the same end and name length; and it takes every valid plain
    /// descriptor (or it would be no fast path).
    #[test]
    fn accepts_only_what_check_desc_accepts() {
        let limits = Limits::new().with_max_bytes(40);
        let max = limits.max_bytes();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // (fast path taken, valid plain declined, faulty), for unmutated
        // and mutated descriptors.
        let mut seen = [[0u32; 3]; 2];
        for case in 0..200_000u32 {
            let running = match rng.below(4) {
                0 => 0,
                1 => rng.below(1 << 20),
                2 => u64::MAX - rng.below(200),
                _ => rng.next(),
            };
            let name_len = rng.below(48) as u32;
            let (d, end) = plain(&mut rng, running.min(1 << 40), name_len);
            let mut b = d.to_bytes();
            let mutated = case % 8 != 0;
            if mutated {
                for _ in 0..=rng.below(3) {
                    mutate(&mut rng, &mut b);
                }
            }
            let payload = match rng.below(3) {
                0 => end,
                1 => end.saturating_sub(rng.below(3)),
                _ => end.saturating_add(rng.below(1 << 30)),
            };
            let d = RawDesc::parse(&b);
            let slow = check_desc(
                &d,
                3,
                0,
                10,
                running,
                payload,
                &mut BTreeMap::new(),
                &limits,
                FULL,
            )
            .map_err(|e| e.code());
            match plain_end(&b, running, payload, max) {
                Some((e, n)) => {
                    assert_eq!(slow, Ok(e), "{d:?} after {running}, payload {payload}");
                    assert_eq!(n, d.name_len);
                    seen[usize::from(mutated)][0] += 1;
                }
                None if slow.is_ok() && d.scheme == 0 && d.dtype <= 19 => {
                    // Only when a huge dimension comes before a zero one:
                    // the count is 0, the product on the way overflows.
                    let dims = d.dims();
                    assert!(dims.contains(&0), "declined {d:?} after {running}");
                    let mut nonzero = dims.iter().filter(|&&s| s != 0);
                    assert!(nonzero.try_fold(1u64, |a, &s| a.checked_mul(s)).is_none());
                    seen[usize::from(mutated)][1] += 1;
                }
                None => seen[usize::from(mutated)][2] += 1,
            }
        }
        // Every valid plain descriptor as written takes the fast path.
        let [[taken, declined, faulty], [m_taken, m_declined, m_faulty]] = seen;
        assert!(taken > 5_000 && declined == 0 && faulty > 5_000, "{seen:?}");
        assert!(
            m_taken > 1_000 && m_declined > 0 && m_faulty > 100_000,
            "{seen:?}"
        );
    }
}
