//! A driver for profilers, not a criterion bench: runs one operation of one
//! format on one dataset `iters` times inside `#[inline(never)] fn work`, so
//! `valgrind --tool=callgrind --toggle-collect='profile::work*'` or
//! `perf record` see exactly that code. `benches/callgrind.sh` uses it to
//! count instructions per operation (noise-free, unlike wall time on a
//! shared machine).
//!
//! ```text
//! cargo bench --bench profile --no-run
//! target/release/deps/profile-<hash> <dataset> <op> <format> <iters>
//!   dataset: log | mesh | savedata | updates
//!   op:      ser (to_vec) | serw (reused buffer) | de (owned) | deb (borrowed, log only)
//!   format:  kiln | bincode1 | postcard | bitcode
//! ```
//!
//! Run without those arguments (as `cargo bench` does) it prints this usage
//! and exits.

use std::hint::black_box;

use serde::de::DeserializeOwned;
use serde::Serialize;

mod datasets;

use datasets::{log, mesh, savedata, updates, Rng};

/// The same seed as `benches/serde.rs`.
const SEED: u64 = 0x6b69_6c6e_2d76_3221;

fn encode<T: Serialize>(format: &str, v: &T) -> Vec<u8> {
    match format {
        "kiln" => kiln_serde::to_vec(v).unwrap(),
        "bincode1" => bincode1::serialize(v).unwrap(),
        "postcard" => postcard::to_stdvec(v).unwrap(),
        "bitcode" => bitcode::serialize(v).unwrap(),
        _ => panic!("unknown format {format}"),
    }
}

fn encode_reuse<T: Serialize>(format: &str, v: &T, buf: &mut Vec<u8>) {
    buf.clear();
    match format {
        "kiln" => kiln_serde::to_extend(buf, v).unwrap(),
        "bincode1" => bincode1::serialize_into(&mut *buf, v).unwrap(),
        "postcard" => *buf = postcard::to_extend(v, std::mem::take(buf)).unwrap(),
        _ => panic!("{format} has no reused-buffer serialize"),
    }
}

fn decode<T: DeserializeOwned>(format: &str, bytes: &[u8]) -> T {
    match format {
        "kiln" => kiln_serde::from_slice(bytes).unwrap(),
        "bincode1" => bincode1::deserialize(bytes).unwrap(),
        "postcard" => postcard::from_bytes(bytes).unwrap(),
        "bitcode" => bitcode::deserialize(bytes).unwrap(),
        _ => panic!("unknown format {format}"),
    }
}

fn decode_borrowed<'a>(format: &str, bytes: &'a [u8]) -> log::LogsRef<'a> {
    match format {
        "kiln" => kiln_serde::from_slice(bytes).unwrap(),
        "bincode1" => bincode1::deserialize(bytes).unwrap(),
        "postcard" => postcard::from_bytes(bytes).unwrap(),
        "bitcode" => bitcode::deserialize(bytes).unwrap(),
        _ => panic!("unknown format {format}"),
    }
}

#[inline(never)]
fn work<T: Serialize + DeserializeOwned>(op: &str, format: &str, value: &T, iters: usize) {
    let bytes = encode(format, value);
    let mut buf = Vec::new();
    let start = std::time::Instant::now();
    for _ in 0..iters {
        match op {
            "ser" => drop(black_box(encode(format, black_box(value)))),
            "serw" => {
                encode_reuse(format, black_box(value), &mut buf);
                black_box(&buf);
            }
            "de" => drop(black_box(decode::<T>(format, black_box(&bytes)))),
            "deb" => drop(black_box(decode_borrowed(format, black_box(&bytes)))),
            _ => panic!("unknown op {op}"),
        }
    }
    if iters > 0 {
        eprintln!(
            "{op} {format}: {:?} per iteration",
            start.elapsed() / iters as u32
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dataset, op, format, iters] = args.as_slice() else {
        eprintln!("usage: profile <log|mesh|savedata|updates> <ser|serw|de|deb> <kiln|bincode1|postcard|bitcode> <iters>");
        return;
    };
    let iters: usize = iters.parse().expect("iters is a number");
    assert!(
        op != "deb" || dataset == "log",
        "deb is for the log dataset only"
    );
    let mut rng = Rng::new(SEED);
    match dataset.as_str() {
        "log" => work(op, format, &log::generate(&mut rng), iters),
        "mesh" => work(op, format, &mesh::generate(&mut rng), iters),
        "savedata" => work(op, format, &savedata::generate(&mut rng), iters),
        "updates" => work(op, format, &updates::generate(&mut rng), iters),
        _ => panic!("unknown dataset {dataset}"),
    }
}
