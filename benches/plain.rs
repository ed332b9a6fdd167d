//! The rows of `benches/serde.rs` that do not go through serde: `wincode`
//! through its own derive (`SchemaWrite`/`SchemaRead` on the dataset types),
//! the bound of what a format can do when it knows the type is plain data;
//! and `memcpy` of kiln's encoded bytes, the floor for `mesh`.
//!
//! The same bench ids and variants as the serde formats, so
//! `benches/report.py` puts them in the same tables (marked as not serde,
//! and left out of the targets).

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use wincode::config::Configuration;
use wincode::{SchemaRead, SchemaWrite};

/// wincode's default configuration (bincode 1's wire format) with a 64 MiB
/// preallocation cap instead of 4 MiB: `mesh` is a 6 MB `Vec`.
pub type WinConfig = Configuration<true, { 64 << 20 }>;

/// The configuration value.
pub const WIN: WinConfig = WinConfig::new();

/// Name of the wincode rows.
pub const WINCODE: &str = "wincode";
/// Name of the memcpy rows.
pub const MEMCPY: &str = "memcpy";

/// A dataset type wincode can write and read (owned).
pub trait Plain:
    SchemaWrite<WinConfig, Src = Self> + for<'de> SchemaRead<'de, WinConfig, Dst = Self>
{
}
impl<T> Plain for T where
    T: SchemaWrite<WinConfig, Src = T> + for<'de> SchemaRead<'de, WinConfig, Dst = T>
{
}

/// wincode's `serialize` (a new `Vec`).
pub fn win_to_vec<T: Plain>(v: &T) -> Vec<u8> {
    wincode::config::serialize(v, WIN).unwrap()
}

/// wincode's `serialize_into` a cleared `Vec`.
pub fn win_reuse<T: Plain>(v: &T, buf: &mut Vec<u8>) {
    buf.clear();
    wincode::config::serialize_into(&mut *buf, v, WIN).unwrap();
}

/// wincode's `serialize_into` a slice cursor; returns the bytes written.
pub fn win_fixed<T: Plain>(v: &T, buf: &mut [u8]) -> usize {
    let mut cursor = wincode::io::Cursor::new(buf);
    wincode::config::serialize_into(&mut cursor, v, WIN).unwrap();
    cursor.position()
}

/// wincode's owned `deserialize`.
pub fn win_decode<T: Plain>(bytes: &[u8]) -> T {
    wincode::config::deserialize(bytes, WIN).unwrap()
}

/// Checks that wincode round-trips `value` through every path and writes
/// bincode 1's bytes; returns the encoding.
pub fn check_wincode<T: Plain + PartialEq>(dataset: &str, value: &T, bincode1: &[u8]) -> Vec<u8> {
    let bytes = win_to_vec(value);
    assert_eq!(
        bytes, bincode1,
        "wincode: not bincode 1's bytes on {dataset}"
    );
    assert!(
        win_decode::<T>(&bytes) == *value,
        "wincode: {dataset} does not round-trip"
    );
    let mut buf = vec![0xAA; 3];
    win_reuse(value, &mut buf);
    assert_eq!(buf, bytes, "wincode: reuse and to_vec differ on {dataset}");
    let mut slice = vec![0xAA; bytes.len() + 16];
    let n = win_fixed(value, &mut slice);
    assert_eq!(
        &slice[..n],
        &bytes[..],
        "wincode: fixed and to_vec differ on {dataset}"
    );
    bytes
}

/// wincode's serialize rows (to_vec, reused `Vec`, fixed slice).
pub fn wincode_serialize<T: Plain>(g: &mut BenchmarkGroup<'_, WallTime>, value: &T) {
    g.bench_function(BenchmarkId::new(WINCODE, "to_vec"), |b| {
        b.iter(|| win_to_vec(black_box(value)))
    });
    let mut buf = Vec::new();
    win_reuse(value, &mut buf);
    g.bench_function(BenchmarkId::new(WINCODE, "reuse(serialize_into)"), |b| {
        b.iter(|| {
            win_reuse(black_box(value), &mut buf);
            black_box(buf.len())
        })
    });
    let mut slice = vec![0u8; buf.len() + 16];
    g.bench_function(BenchmarkId::new(WINCODE, "fixed(serialize_into)"), |b| {
        b.iter(|| black_box(win_fixed(black_box(value), &mut slice)))
    });
}

/// wincode's owned deserialize row.
pub fn wincode_deserialize<T: Plain>(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    g.bench_function(BenchmarkId::new(WINCODE, "owned"), |b| {
        b.iter(|| win_decode::<T>(black_box(bytes)))
    });
}

/// The floor: a copy of `bytes` (kiln's encoding) through each serialize
/// path's buffer kind.
pub fn memcpy_serialize(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    g.bench_function(BenchmarkId::new(MEMCPY, "to_vec"), |b| {
        b.iter(|| black_box(bytes).to_vec())
    });
    let mut buf = Vec::with_capacity(bytes.len());
    g.bench_function(BenchmarkId::new(MEMCPY, "reuse(extend_from_slice)"), |b| {
        b.iter(|| {
            buf.clear();
            buf.extend_from_slice(black_box(bytes));
            black_box(buf.len())
        })
    });
    let mut slice = vec![0u8; bytes.len()];
    g.bench_function(BenchmarkId::new(MEMCPY, "fixed(copy_from_slice)"), |b| {
        b.iter(|| {
            slice.copy_from_slice(black_box(bytes));
            black_box(slice.len())
        })
    });
}

/// The floor of an owned decode: the same bytes copied into a new `Vec`.
pub fn memcpy_deserialize(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    g.bench_function(BenchmarkId::new(MEMCPY, "owned"), |b| {
        b.iter(|| black_box(bytes).to_vec())
    });
}
