//! One API in a program of its own: each `alone_*` bench is a binary that
//! calls exactly one encode or decode function of one format on 32-byte
//! messages, as a user's crate that sends one message type does. In the
//! criterion binaries every format and API shares one program, and which
//! of them LLVM inlines where changes with the others (a type's
//! `Serialize` or `Deserialize` called from several places stays out of
//! line): bincode 1.3's `deserialize` of this message without LTO took
//! 7.0 ns there (criterion's `framed/32B/messages`, session 29) and 11.5
//! here, kiln's `from_slice` 10.2 there and 8.6 here. Run them with
//! `bash benches/alone.sh` (both profiles, interleaved rounds, a table
//! with ratios).
//!
//! The messages and the bytes expected are built here by hand (spec 2:
//! fixed-width little-endian fields, no tags), so a binary holds no other
//! encoder or decoder than the one it measures; each run checks that its
//! encoder wrote exactly those bytes, or its decoder read back the values.

use std::hint::black_box;
use std::time::Instant;

#[path = "../datasets/tick.rs"]
mod tick;
pub use tick::{Tick, TICK};
#[path = "order.rs"]
pub mod order;

/// Messages per pass.
pub const MESSAGES: usize = 1000;
/// Passes per sample.
const PASSES: u32 = 200;
/// Samples per run; the run reports their median.
const SAMPLES: usize = 21;

/// The messages: `TICK` with a varying id, timestamp and sequence number.
pub fn ticks() -> Vec<Tick> {
    (0..MESSAGES as u64)
        .map(|i| Tick {
            id: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            ts_ns: TICK.ts_ns + i,
            seq: i as u16,
            ..TICK
        })
        .collect()
}

/// The 32 bytes of `t` in Kiln's Frozen profile and bincode 1.3's default
/// (fixint, little-endian) encoding, which agree on this struct.
pub fn bytes_of(t: &Tick) -> Vec<u8> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&t.id.to_le_bytes());
    b.extend_from_slice(&t.ts_ns.to_le_bytes());
    b.extend_from_slice(&t.price.to_le_bytes());
    b.extend_from_slice(&t.qty.to_le_bytes());
    b.extend_from_slice(&t.venue.to_le_bytes());
    b.extend_from_slice(&t.flags.to_le_bytes());
    b.extend_from_slice(&t.seq.to_le_bytes());
    b
}

/// A value that depends on every field, so a decode cannot be skipped.
#[inline]
pub fn fold(acc: u64, t: &Tick) -> u64 {
    acc.wrapping_add(
        t.id ^ t.ts_ns
            ^ u64::from(t.price.to_bits() ^ t.qty.to_bits() ^ t.venue)
            ^ u64::from(t.flags ^ t.seq),
    )
}

/// Times `pass` (one pass over the messages, already run once by the
/// caller's check) and prints `alone <name>: <ns> ns/message`, the median
/// of the samples.
fn time(name: &str, mut pass: impl FnMut()) {
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..PASSES {
                pass();
            }
            start.elapsed().as_nanos() as f64 / f64::from(PASSES) / MESSAGES as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    println!("alone {name}: {:.3} ns/message", samples[SAMPLES / 2]);
}

/// Encodes every message into one reused `Vec` (cleared before each pass)
/// with `encode`, checks the bytes, and times it.
pub fn encode_into(name: &str, encode: impl FnMut(&mut Vec<u8>, &Tick)) {
    check_and_time(name, ticks(), encode, bytes_of);
}

/// As [`encode_into`], with [`order::Order`]s (90 bytes each; ns a
/// message): a type whose `serialize` stays a call without LTO.
pub fn encode_orders_into(name: &str, encode: impl FnMut(&mut Vec<u8>, &order::Order)) {
    check_and_time(
        name,
        order::orders(MESSAGES as u64),
        encode,
        order::bytes_of,
    );
}

/// As [`encode_orders_into`], with [`order::Wide`]s (24 fields, 154 bytes).
pub fn encode_wides_into(name: &str, encode: impl FnMut(&mut Vec<u8>, &order::Wide)) {
    check_and_time(
        name,
        order::wides(MESSAGES as u64),
        encode,
        order::wide_bytes_of,
    );
}

/// [`encode_into`] over `msgs`, with the bytes each message should have.
fn check_and_time<M>(
    name: &str,
    msgs: Vec<M>,
    mut encode: impl FnMut(&mut Vec<u8>, &M),
    bytes: impl Fn(&M) -> Vec<u8>,
) {
    let want: Vec<u8> = msgs.iter().flat_map(bytes).collect();
    let mut out = Vec::with_capacity(want.len());
    let mut pass = |out: &mut Vec<u8>| {
        out.clear();
        for t in black_box(&msgs) {
            encode(out, t);
        }
        black_box(&*out);
    };
    pass(&mut out);
    assert_eq!(out, want, "{name} wrote other bytes");
    time(name, || pass(&mut out));
}

/// The 16-byte frame header (spec 3) with `hash`, the hash of `Tick`'s
/// type text.
fn frame_head(hash: u64) -> Vec<u8> {
    use kiln_serde::frame::{FLAG_HASH, MAGIC, PROFILE_FROZEN, VERSION};
    let mut head = MAGIC.to_vec();
    head.extend_from_slice(&[VERSION, PROFILE_FROZEN, FLAG_HASH, 0]);
    head.extend_from_slice(&hash.to_le_bytes());
    head
}

/// A message's bytes, after the frame header with `hash` if there is one.
fn framed_bytes_of(hash: Option<u64>) -> impl Fn(&Tick) -> Vec<u8> {
    let head = hash.map(frame_head).unwrap_or_default();
    move |t| [&head[..], &bytes_of(t)].concat()
}

/// As [`encode_into`], each message framed: the header, then its 32 bytes.
pub fn encode_into_framed(name: &str, hash: u64, encode: impl FnMut(&mut Vec<u8>, &Tick)) {
    check_and_time(name, ticks(), encode, framed_bytes_of(Some(hash)));
}

/// The floor under a frame's cost in time: each message's `L` bytes (its
/// 32, or with `hash` the 48 of the framed message), built before the
/// timing, appended to the reused `Vec` by one `extend_from_slice` each,
/// as [`encode_into`] times an encoder: the cost of the bytes alone.
pub fn append_bytes<const L: usize>(name: &str, hash: Option<u64>) {
    let bytes = framed_bytes_of(hash);
    let msgs: Vec<[u8; L]> = ticks()
        .iter()
        .map(|t| bytes(t).try_into().expect("L is the message's length"))
        .collect();
    check_and_time(name, msgs, |o, m| o.extend_from_slice(m), |m| m.to_vec());
}

/// Encodes every message into a new `Vec` each with `encode`, checks the
/// bytes, and times it.
pub fn encode_new(name: &str, encode: impl Fn(&Tick) -> Vec<u8>) {
    let ticks = ticks();
    for t in &ticks {
        assert_eq!(encode(t), bytes_of(t), "{name} wrote other bytes");
    }
    time(name, || {
        for t in black_box(&ticks) {
            black_box(encode(t));
        }
    });
}

/// Decodes every message from a `Vec` of its own with `decode`, folding
/// the fields, checks the fold, and times it.
pub fn decode(name: &str, decode: impl Fn(&[u8]) -> Tick) {
    decode_these(name, decode, bytes_of);
}

/// As [`decode`], each message framed with `hash` (see [`encode_into_framed`]).
pub fn decode_framed(name: &str, hash: u64, decode: impl Fn(&[u8]) -> Tick) {
    decode_these(name, decode, framed_bytes_of(Some(hash)));
}

/// Decodes the messages back to back from one `BufReader` (std's default
/// 8 KiB buffer) over their concatenated bytes, a new reader each pass,
/// with `decode` (which must read exactly one message), folding the
/// fields; checks the fold, and times it.
pub fn decode_buffered(name: &str, mut decode: impl FnMut(&mut std::io::BufReader<&[u8]>) -> Tick) {
    let ticks = ticks();
    let want = ticks.iter().fold(0, fold);
    let all: Vec<u8> = ticks.iter().flat_map(bytes_of).collect();
    let mut pass = || {
        let mut r = std::io::BufReader::new(black_box(&all[..]));
        let mut acc = 0;
        for _ in 0..MESSAGES {
            acc = fold(acc, &decode(&mut r));
        }
        acc
    };
    assert_eq!(pass(), want, "{name} read other values");
    time(name, || {
        black_box(pass());
    });
}

/// [`decode`] of the messages as `bytes` writes them.
fn decode_these(name: &str, decode: impl Fn(&[u8]) -> Tick, bytes: impl Fn(&Tick) -> Vec<u8>) {
    let ticks = ticks();
    let want = ticks.iter().fold(0, fold);
    let msgs: Vec<Vec<u8>> = ticks.iter().map(bytes).collect();
    let pass = || {
        let mut acc = 0;
        for m in black_box(&msgs) {
            acc = fold(acc, &decode(m));
        }
        acc
    };
    assert_eq!(pass(), want, "{name} read other values");
    time(name, || {
        black_box(pass());
    });
}
