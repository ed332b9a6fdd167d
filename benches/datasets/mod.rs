//! Benchmark datasets: seeded, deterministic generators (no `rand`).
//!
//! The shapes follow the datasets that Rust serialization benchmarks
//! commonly use (web-server logs, a triangle mesh, a game save, a stream of
//! game-state updates); the generators are our own. The same seed always
//! gives the same data, so every run and every format sees identical values.

#[cfg(feature = "floats")]
#[allow(dead_code)] // benches/profile.rs only
pub mod floats;
pub mod log;
pub mod mesh;
pub mod savedata;
pub mod updates;

/// xorshift64* (Vigna): tiny, fast, good enough for test data.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    pub fn u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }

    pub fn u16(&mut self) -> u16 {
        (self.u64() >> 48) as u16
    }

    pub fn u8(&mut self) -> u8 {
        (self.u64() >> 56) as u8
    }

    /// Uniform in `0..n` (n > 0; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64) as i64
    }

    /// Uniform index into a slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    pub fn bool(&mut self, p: f64) -> bool {
        self.f64() < p
    }

    /// Uniform in `[0, 1)` with 24 random bits.
    pub fn f32(&mut self) -> f32 {
        (self.u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn f64(&mut self) -> f64 {
        (self.u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `n` characters from `alphabet`.
    pub fn string(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n).map(|_| self.pick(alphabet) as char).collect()
    }
}

pub const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
