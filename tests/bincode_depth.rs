//! Deep values through the bincode module: bincode 1.3 round-trips
//! recursive values thousands of levels deep, so this module's depth cap
//! ([`BINCODE_MAX_DEPTH`]) is far above Kiln's 128, and hostile input
//! nesting a million levels is still `SizeLimit`, never a stack overflow.
//!
//! Everything runs on a thread with the 8 MiB stack of a Linux main thread
//! less 2 MiB left for the caller's frames (test threads get 2 MiB). `measure_stack_per_level` (ignored; run it with
//! `--ignored --nocapture`, in debug and in release) prints the stack each
//! shape takes per level, found by bisection over child processes.

use kiln_serde::bincode::config::BINCODE_MAX_DEPTH;
use kiln_serde::bincode::{self, ErrorKind, KilnOptionsExt, Options as _};
use serde::{Deserialize, Serialize};

#[path = "support/deep_shapes.rs"]
mod deep_shapes;
use deep_shapes::{list, node, tree, List, Node, Tree};

const MAIN_STACK: usize = 8 << 20;
/// What the depth tests leave of the main thread's stack for the caller's
/// own frames (`BINCODE_MAX_DEPTH`'s docs): they run on the rest.
const ROOM: usize = 2 << 20;

/// Runs `f` on a thread with `stack` bytes of stack.
fn on_stack<T: Send + 'static>(stack: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// Every bincode path: serialize, serialized_size, serialize_into,
/// deserialize, deserialize_from; the value comes back equal.
fn round_trip<T>(v: &T)
where
    T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let bytes = bincode::serialize(v).unwrap();
    assert_eq!(bincode::serialized_size(v).unwrap(), bytes.len() as u64);
    let mut w = Vec::new();
    bincode::serialize_into(&mut w, v).unwrap();
    assert_eq!(w, bytes);
    let back: T = bincode::deserialize(&bytes).unwrap();
    assert!(back == *v);
    let back: T = bincode::deserialize_from(&bytes[..]).unwrap();
    assert!(back == *v);
    let opts = bincode::options().with_limit(1 << 30);
    assert!(opts.deserialize::<T>(&opts.serialize(v).unwrap()).unwrap() == *v);
}

fn size_limit<T: std::fmt::Debug>(r: bincode::Result<T>) {
    match r {
        Err(e) => assert!(matches!(*e, ErrorKind::SizeLimit), "{e:?}"),
        Ok(v) => panic!("expected SizeLimit, got {v:?}"),
    }
}

#[test]
fn a_thousand_levels_and_the_cap_round_trip() {
    on_stack(MAIN_STACK - ROOM, || {
        let cap = BINCODE_MAX_DEPTH as usize;
        for levels in [1000, cap] {
            round_trip(&tree(levels));
            round_trip(&node(levels));
            round_trip(&list(levels));
        }
        // One more level is SizeLimit, on encode as on decode.
        size_limit(bincode::serialize(&tree(cap + 1)));
        size_limit(bincode::serialized_size(&node(cap + 1)));
        size_limit(bincode::serialize_into(Vec::new(), &list(cap + 1)));
        let deeper = bincode::options().with_max_depth(BINCODE_MAX_DEPTH + 1);
        let bytes = deeper.serialize(&node(cap + 1)).unwrap();
        size_limit(bincode::deserialize::<Node>(&bytes));
        size_limit(bincode::deserialize_from::<_, Node>(&bytes[..]));
    });
}

/// A recursive option type: `[1; n]` is n nested `Some`s.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
struct Opt(Option<Box<Opt>>);

#[test]
fn a_million_hostile_levels_are_size_limit_not_a_stack_overflow() {
    on_stack(MAIN_STACK - ROOM, || {
        let somes = vec![1u8; 1_000_000];
        size_limit(bincode::deserialize::<Node>(&somes));
        size_limit(bincode::deserialize::<Opt>(&somes));
        size_limit(bincode::deserialize_from::<_, Opt>(&somes[..]));
        size_limit(bincode::options().deserialize::<Node>(&somes));
        // Trees: every level a count of 1; lists: Cons index 0 and a u32.
        let trees = [1u8, 0, 0, 0].repeat(1_000_000);
        size_limit(bincode::deserialize::<Tree>(&trees));
        let lists = [0u8; 8].repeat(1_000_000);
        size_limit(bincode::deserialize::<List>(&lists));
        size_limit(bincode::deserialize_from::<_, List>(&lists[..]));
    });
}

#[test]
fn with_max_depth_is_on_every_options_type() {
    let v = node(3);
    let bytes = bincode::serialize(&v).unwrap();
    // Through every builder type (each one keeps the cap).
    size_limit(bincode::options().with_max_depth(2).serialize(&v));
    size_limit(
        bincode::options()
            .with_max_depth(2)
            .with_limit(100)
            .with_big_endian()
            .with_varint_encoding()
            .allow_trailing_bytes()
            .deserialize::<Node>(&bytes),
    );
    let mut opts = bincode::options().with_fixint_encoding().with_max_depth(2);
    size_limit((&mut opts).deserialize::<Node>(&bytes));
    let ok = bincode::options()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_no_limit()
        .with_max_depth(3);
    assert_eq!(ok.deserialize::<Node>(&bytes).unwrap(), v);
    // The last cap set wins.
    let back = bincode::options()
        .with_max_depth(0)
        .with_max_depth(3)
        .deserialize::<Node>(&bytes)
        .unwrap();
    assert_eq!(back, v);
}

// ---- stack measurement

const PROBE: &str = "KILN_DEPTH_PROBE";

/// The child side of `measure_stack_per_level`: with `KILN_DEPTH_PROBE`
/// set to `shape levels stack_bytes`, runs that round trip on a thread of
/// that stack (an overflow aborts the process). Without it, nothing.
#[test]
#[ignore = "run by measure_stack_per_level"]
fn stack_probe_child() {
    let Ok(spec) = std::env::var(PROBE) else {
        return;
    };
    let parts: Vec<&str> = spec.split(' ').collect();
    let levels: usize = parts[1].parse().unwrap();
    let stack: usize = parts[2].parse().unwrap();
    let shape = parts[0].to_string();
    on_stack(stack, move || {
        let opts = bincode::options().with_max_depth(u32::MAX);
        match shape.as_str() {
            "tree" => round_trip_with(opts, &tree(levels)),
            "node" => round_trip_with(opts, &node(levels)),
            "list" => round_trip_with(opts, &list(levels)),
            // Hostile input stopped at the cap `levels`.
            "somes" => size_limit(
                bincode::options()
                    .with_max_depth(levels as u32)
                    .deserialize::<Node>(&vec![1u8; levels + 10]),
            ),
            other => panic!("{other}"),
        }
    });
}

fn round_trip_with<T, O: bincode::Options + Copy>(opts: O, v: &T)
where
    T: Serialize + serde::de::DeserializeOwned + PartialEq,
{
    let bytes = opts.serialize(v).unwrap();
    let back: T = opts.deserialize(&bytes).unwrap();
    assert!(back == *v);
}

/// Whether `shape` at `levels` runs in `stack` bytes (in a child process).
fn fits(shape: &str, levels: usize, stack: usize) -> bool {
    std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "stack_probe_child",
            "--test-threads=1",
        ])
        .env(PROBE, format!("{shape} {levels} {stack}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

/// The smallest stack (to 1 KiB) that runs `shape` at `levels`.
fn smallest_stack(shape: &str, levels: usize) -> usize {
    let (mut lo, mut hi) = (16 << 10, 256 << 20);
    assert!(
        fits(shape, levels, hi),
        "{shape} {levels}: not even in 256 MiB"
    );
    while hi - lo > 1024 {
        let mid = (lo + hi) / 2;
        if fits(shape, levels, mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[test]
#[ignore = "slow: spawns ~100 child processes; run with --ignored --nocapture"]
fn measure_stack_per_level() {
    let (a, b) = (1000, 3000);
    for shape in ["tree", "node", "list", "somes"] {
        let sa = smallest_stack(shape, a);
        let sb = smallest_stack(shape, b);
        let per = (sb - sa) as f64 / (b - a) as f64;
        println!(
            "{shape}: {a} levels {} KiB, {b} levels {} KiB: {per:.0} bytes per level",
            sa >> 10,
            sb >> 10
        );
    }
}
