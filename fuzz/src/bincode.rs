//! The `bincode` target's checks: `kiln_serde::bincode` (bincode 1.3's API
//! over Kiln's bytes) on arbitrary input, through `deserialize`,
//! `deserialize_from`, the public `Deserializer`, and an `Options` chain
//! under every combination of limit, trailing bytes, integer encoding and
//! endianness.
//!
//! Input layout: `[options, limit, selector, data...]`. `options` bit 0: a
//! byte limit of `limit * 4` bytes; bit 1: reject trailing bytes; bit 2:
//! varint; `(options >> 3) % 3`: little, big or native endian. `selector`
//! picks the type as in the other targets ([`crate::TYPES`]).
//!
//! What must hold: nothing panics; no decode allocates more than
//! [`alloc_bound`] for its input (the target installs [`Counting`]); what
//! decodes re-encodes to the bytes it was read from; every entry point
//! agrees with `deserialize`, the options only taking away (a limit below
//! the value's size, or trailing bytes that are rejected).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use kiln_serde::bincode::{self, DefaultOptions, Deserializer, Options};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A global allocator that tracks the peak of live bytes (install it with
/// `#[global_allocator]` in the target).
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        System.dealloc(p, l)
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

/// The most a decode of `len` input bytes may allocate at its peak: the
/// decoded value's own overhead (a `String` is 24 bytes for a 4-byte
/// count), the stream reader's 64 KiB growth step and the capped size
/// hints, but nothing proportional to a length the input only claims.
pub fn alloc_bound(len: usize) -> usize {
    (4 << 20) + 128 * len
}

/// Runs `f`; fails if its peak allocation passes [`alloc_bound`] of `len`.
fn bounded<R>(what: &str, len: usize, f: impl FnOnce() -> R) -> R {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
    assert!(
        peak <= alloc_bound(len),
        "{what}: peak allocation {peak} for {len} input bytes"
    );
    r
}

/// The option choices of one input.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    limit: Option<u64>,
    reject_trailing: bool,
    varint: bool,
    endian: u8,
}

impl Plan {
    /// Splits `[options, limit, rest...]`.
    pub fn split(input: &[u8]) -> Option<(Plan, &[u8])> {
        let (&o, rest) = input.split_first()?;
        let (&l, rest) = rest.split_first()?;
        let plan = Plan {
            limit: (o & 1 != 0).then_some(u64::from(l) * 4),
            reject_trailing: o & 2 != 0,
            varint: o & 4 != 0,
            endian: (o >> 3) % 3,
        };
        Some((plan, rest))
    }
}

/// Calls `$run(options, ...)` with the `Options` value the plan names.
macro_rules! with_options {
    ($plan:expr, $run:path; $($arg:expr),*) => {{
        let p: Plan = $plan;
        let o = DefaultOptions::new();
        match p.endian {
            0 => with_options!(@int p, o.with_little_endian(), $run; $($arg),*),
            1 => with_options!(@int p, o.with_big_endian(), $run; $($arg),*),
            _ => with_options!(@int p, o.with_native_endian(), $run; $($arg),*),
        }
    }};
    (@int $p:ident, $o:expr, $run:path; $($arg:expr),*) => {
        if $p.varint {
            with_options!(@trail $p, $o.with_varint_encoding(), $run; $($arg),*)
        } else {
            with_options!(@trail $p, $o.with_fixint_encoding(), $run; $($arg),*)
        }
    };
    (@trail $p:ident, $o:expr, $run:path; $($arg:expr),*) => {
        if $p.reject_trailing {
            with_options!(@limit $p, $o.reject_trailing_bytes(), $run; $($arg),*)
        } else {
            with_options!(@limit $p, $o.allow_trailing_bytes(), $run; $($arg),*)
        }
    };
    (@limit $p:ident, $o:expr, $run:path; $($arg:expr),*) => {
        match $p.limit {
            Some(n) => $run($o.with_limit(n), $p, $($arg),*),
            None => $run($o.with_no_limit(), $p, $($arg),*),
        }
    };
}

/// What `deserialize` made of `data`: the re-encoded bytes (a prefix of
/// `data`), or `None` for an error.
fn reference<'a, T: Deserialize<'a> + Serialize>(data: &'a [u8]) -> Option<Vec<u8>> {
    let v = bounded("deserialize", data.len(), || {
        bincode::deserialize::<T>(data)
    })
    .ok()?;
    let enc = bincode::serialize(&v).expect("a decoded value re-encodes");
    assert!(
        data.starts_with(&enc),
        "decode then encode is not the identity:\n input {data:02x?}\n again {enc:02x?}"
    );
    let size = bincode::serialized_size(&v).expect("serialized_size");
    assert_eq!(size, enc.len() as u64, "serialized_size differs");
    Some(enc)
}

/// Whether the options accept a value of `n` bytes at the front of `len`.
fn options_accept(plan: Plan, n: usize, len: usize) -> bool {
    plan.limit.is_none_or(|l| n as u64 <= l) && (!plan.reject_trailing || n == len)
}

/// The slice entry points on `data` as `T` (which may borrow).
pub fn check_slice<'a, T: Deserialize<'a> + Serialize>(plan: Plan, data: &'a [u8]) {
    let expect = reference::<T>(data);

    let mut de = Deserializer::from_slice(data, DefaultOptions::new());
    let r = bounded("Deserializer::from_slice", data.len(), || {
        T::deserialize(&mut de)
    });
    let got = r.ok().map(|v| bincode::serialize(&v).expect("re-encodes"));
    assert_eq!(got, expect, "Deserializer::from_slice vs deserialize");

    with_options!(plan, options_slice::<T, _>; data, &expect);
}

fn options_slice<'a, T: Deserialize<'a> + Serialize, O: Options + Copy>(
    o: O,
    plan: Plan,
    data: &'a [u8],
    expect: &Option<Vec<u8>>,
) {
    let r = bounded("Options::deserialize", data.len(), || {
        o.deserialize::<T>(data)
    });
    match (r, expect) {
        (Ok(v), Some(enc)) => {
            assert!(
                options_accept(plan, enc.len(), data.len()),
                "{plan:?} accepted"
            );
            let again = o.serialize(&v).expect("re-encodes under its own options");
            assert_eq!(&again, enc, "options change the bytes");
            assert_eq!(o.serialized_size(&v).ok(), Some(enc.len() as u64));
        }
        (Err(_), Some(enc)) => {
            assert!(
                !options_accept(plan, enc.len(), data.len()),
                "{plan:?} refused"
            );
        }
        (Ok(_), None) => panic!("{plan:?} decodes what deserialize refused"),
        (Err(e), None) => {
            let _ = e.to_string();
        }
    }
}

/// The stream entry points on `data` as `T`.
pub fn check_stream<T: DeserializeOwned + Serialize>(plan: Plan, data: &[u8]) {
    let expect = reference::<T>(data);

    let mut reader = data;
    let r = bounded("deserialize_from", data.len(), || {
        bincode::deserialize_from::<_, T>(&mut reader)
    });
    match (r, &expect) {
        (Ok(v), Some(enc)) => {
            assert_eq!(&bincode::serialize(&v).expect("re-encodes"), enc);
            assert_eq!(data.len() - reader.len(), enc.len(), "stream overread");
        }
        (Err(e), None) => {
            let _ = e.to_string();
        }
        (r, _) => panic!(
            "deserialize_from {:?} vs deserialize {:?}",
            r.is_ok(),
            expect.is_some()
        ),
    }

    let mut de = Deserializer::with_reader(data, DefaultOptions::new());
    let r = bounded("Deserializer::with_reader", data.len(), || {
        T::deserialize(&mut de)
    });
    let got = r.ok().map(|v| bincode::serialize(&v).expect("re-encodes"));
    assert_eq!(got, expect, "Deserializer::with_reader vs deserialize");

    with_options!(plan, options_stream::<T, _>; data, &expect);
}

fn options_stream<T: DeserializeOwned + Serialize, O: Options + Copy>(
    o: O,
    plan: Plan,
    data: &[u8],
    expect: &Option<Vec<u8>>,
) {
    let r = bounded("Options::deserialize_from", data.len(), || {
        o.deserialize_from::<_, T>(data)
    });
    // A stream has no trailing-bytes check: only the limit takes away.
    let accept = |n: usize| plan.limit.is_none_or(|l| n as u64 <= l);
    match (r, expect) {
        (Ok(v), Some(enc)) => {
            assert!(accept(enc.len()), "{plan:?} accepted on a stream");
            assert_eq!(&o.serialize(&v).expect("re-encodes"), enc);
        }
        (Err(_), Some(enc)) => assert!(!accept(enc.len()), "{plan:?} refused on a stream"),
        (Ok(_), None) => panic!("{plan:?} stream decodes what deserialize refused"),
        (Err(_), None) => {}
    }
}
