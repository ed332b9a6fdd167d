//! Resource bounds on hostile input, for every entry point.
//!
//! A table of hostile inputs (counts and lengths at and past the caps, deep
//! nesting, streams that lie about what follows) runs through
//! `from_slice`, `take_from_slice` and `from_reader`. Each row states the
//! error code and a bound on the peak extra allocation, measured with a
//! counting global allocator; time is only checked against a generous
//! bound (5 s; the slowest row takes about 0.4 s in a debug build) so the test cannot flake.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use kiln_serde::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde::Deserialize;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{peak_during, SERIAL};

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
/// The default count cap (16,777,216) and byte cap (16 MiB).
const CAP: u32 = 1 << 24;
/// Bookkeeping noise (error message, harness): "allocates nothing".
const SMALL: usize = 4 * KIB;
// No time bound here (the guide: no timing assertions in tests). The time
// each decode took is printed (`--nocapture`); hangs and CPU blow-ups are
// caught by the fuzz smoke in CI (libFuzzer `-timeout=10` per input).

#[derive(Clone, Copy, Debug, PartialEq)]
enum Entry {
    FromSlice,
    TakeFromSlice,
    /// `from_reader` over a stream (not a slice).
    FromReader,
    /// `from_reader` over a `&[u8]`, decoded in place.
    FromSliceReader,
}

const ENTRIES: [Entry; 4] = [
    Entry::FromSlice,
    Entry::TakeFromSlice,
    Entry::FromReader,
    Entry::FromSliceReader,
];

#[path = "support/stream.rs"]
mod stream;
use stream::Stream;

/// Decodes `bytes` as `T` through one entry point, dropping the value.
fn run<T: DeserializeOwned>(entry: Entry, bytes: &[u8]) -> Result<(), Error> {
    match entry {
        Entry::FromSlice => kiln_serde::from_slice::<T>(bytes).map(drop),
        Entry::TakeFromSlice => kiln_serde::take_from_slice::<T>(bytes).map(drop),
        Entry::FromReader => kiln_serde::from_reader::<_, T>(Stream(bytes)).map(drop),
        Entry::FromSliceReader => kiln_serde::from_reader::<_, T>(bytes).map(drop),
    }
}

/// A recursive type for nesting.
#[derive(Deserialize, Debug)]
#[allow(dead_code)]
enum Tree {
    Leaf(i32),
    Node(Vec<Tree>),
    Named(BTreeMap<String, Tree>),
    Maybe(Option<Box<Tree>>),
}

struct Case {
    name: &'static str,
    input: Vec<u8>,
    decode: fn(Entry, &[u8]) -> Result<(), Error>,
    /// Expected result on every entry point (`None`: decodes).
    want: Option<ErrorCode>,
    /// Expected error offset, when it is the same on every entry point.
    offset: Option<u64>,
    /// Bound on the peak extra allocation, slice entry points.
    slice_alloc: usize,
    /// Bound on the peak extra allocation, `from_reader`.
    stream_alloc: usize,
}

#[path = "support/spec_dir.rs"]
mod spec_dir;
use spec_dir::frozen::{cat, count as le, repeat};
use spec_dir::{header, meta, pad64, t};

fn cases() -> Vec<Case> {
    let tree = std::mem::size_of::<Tree>();
    vec![
        // ---- counts
        Case {
            name: "list count u32::MAX (above the cap)",
            input: cat(&[&le(u32::MAX), &[1, 2, 3, 4, 5]]),
            decode: run::<Vec<u64>>,
            want: Some(ErrorCode::Limit),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            name: "list count cap + 1",
            input: le(CAP + 1).to_vec(),
            decode: run::<Vec<()>>,
            want: Some(ErrorCode::Limit),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            // A slice sizes the Vec by the 8 bytes that remain; a stream by
            // its fixed hint of 4096 elements (32 KiB of u64).
            name: "list count at the cap, one element present",
            input: cat(&[&le(CAP), &[7; 8]]),
            decode: run::<Vec<u64>>,
            want: Some(ErrorCode::Eof),
            offset: Some(12),
            slice_alloc: SMALL,
            stream_alloc: 40 * KIB,
        },
        Case {
            name: "list of lists, both counts at the cap",
            input: cat(&[&le(CAP), &le(CAP), &[1, 2, 3]]),
            decode: run::<Vec<Vec<u8>>>,
            want: Some(ErrorCode::Eof),
            offset: Some(11),
            slice_alloc: SMALL,
            stream_alloc: 4096 * 24 + 4096 + KIB,
        },
        Case {
            name: "map count at the cap, one entry present",
            input: cat(&[&le(CAP), &le(1), b"a", &le(1), b"b"]),
            decode: run::<HashMap<String, String>>,
            want: Some(ErrorCode::Eof),
            offset: Some(14),
            slice_alloc: 4 * KIB,
            // hashbrown rounds 4096 entries up to 8192 buckets of 48 bytes.
            stream_alloc: 8192 * 49 + 4 * KIB,
        },
        Case {
            name: "map count u32::MAX",
            input: le(u32::MAX).to_vec(),
            decode: run::<BTreeMap<u32, u32>>,
            want: Some(ErrorCode::Limit),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            // Zero-size elements need no bytes: the count cap is the bound
            // (no allocation for `()`, 16,777,216 loop turns).
            name: "list of units at the cap decodes",
            input: le(CAP).to_vec(),
            decode: run::<Vec<()>>,
            want: None,
            offset: None,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            name: "map with repeated unit keys",
            input: le(CAP).to_vec(),
            decode: run::<BTreeMap<(), ()>>,
            want: Some(ErrorCode::Type),
            offset: Some(4),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        // ---- lengths
        Case {
            name: "str length u32::MAX",
            input: cat(&[&le(u32::MAX), b"abc"]),
            decode: run::<String>,
            want: Some(ErrorCode::Limit),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            name: "str length cap + 1",
            input: cat(&[&le(CAP + 1), b"abc"]),
            decode: run::<String>,
            want: Some(ErrorCode::Limit),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            // A stream grows its scratch in 64 KiB steps: one step is read.
            name: "str length at the cap, 3 bytes present",
            input: cat(&[&le(CAP), b"abc"]),
            decode: run::<String>,
            want: Some(ErrorCode::Eof),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: 64 * KIB + KIB,
        },
        Case {
            name: "bytes length at the cap, 3 bytes present",
            input: cat(&[&le(CAP), b"abc"]),
            decode: run::<serde_bytes::ByteBuf>,
            want: Some(ErrorCode::Eof),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: 64 * KIB + KIB,
        },
        Case {
            // The stream really delivers 1 MiB of a claimed 16 MiB: the
            // scratch holds what arrived (doubling growth: at most 2x).
            name: "str length at the cap, 1 MiB present",
            input: cat(&[&le(CAP), &vec![b'x'; MIB]]),
            decode: run::<String>,
            want: Some(ErrorCode::Eof),
            offset: Some(0),
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + 64 * KIB,
        },
        Case {
            name: "str of 1 MiB inside a list at the cap",
            input: cat(&[&le(CAP), &le(MIB as u32), &vec![b'x'; MIB]]),
            decode: run::<Vec<String>>,
            want: Some(ErrorCode::Eof),
            offset: Some(4 + 4 + MIB as u64),
            // The decoded string itself (1 MiB) plus the list's hint.
            slice_alloc: MIB + MIB + 64 * KIB,
            stream_alloc: 3 * MIB + 4096 * 24 + 64 * KIB,
        },
        // ---- nesting
        Case {
            // Each Maybe level is an enum and an option: 2 levels of depth.
            name: "63 options deep (depth 127) decodes",
            input: repeat(&[3, 0, 0, 0, 1], 63, &[0, 0, 0, 0, 9, 0, 0, 0]),
            decode: run::<Tree>,
            want: None,
            offset: None,
            slice_alloc: 64 * tree + KIB,
            stream_alloc: 64 * tree + KIB,
        },
        Case {
            name: "64 options deep (depth 129)",
            input: repeat(&[3, 0, 0, 0, 1], 64, &[0, 0, 0, 0, 9, 0, 0, 0]),
            decode: run::<Tree>,
            want: Some(ErrorCode::Limit),
            offset: Some(64 * 5),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            name: "100,000 options deep",
            input: repeat(&[3, 0, 0, 0, 1], 100_000, &[]),
            decode: run::<Tree>,
            want: Some(ErrorCode::Limit),
            offset: Some(64 * 5),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        Case {
            // Every level claims the cap. The size hints of all open
            // containers together stay within the bytes that remain (a
            // stream: 4096 elements), so the first Vec takes the budget
            // and the 63 inside it grow from empty. Before this budget
            // each open Vec had its own hint: 64 MiB from a slice of 80 KB,
            // 8 MiB from a stream that had delivered 512 bytes.
            name: "lists nested 10,000 deep, each count at the cap",
            input: repeat(&cat(&[&le(1), &le(CAP)]), 10_000, &[]),
            decode: run::<Tree>,
            want: Some(ErrorCode::Limit),
            offset: Some(64 * 8),
            slice_alloc: MIB + 4 * KIB,
            stream_alloc: 4096 * tree + 4 * KIB,
        },
        Case {
            // The same with a short input: the budget is the 512 bytes. The
            // 65th level's variant index is there (a unit variant would add
            // no level, so the index is read before the depth check).
            name: "lists nested 64 deep, each count at the cap",
            input: repeat(&cat(&[&le(1), &le(CAP)]), 64, &le(1)),
            decode: run::<Tree>,
            want: Some(ErrorCode::Limit),
            offset: Some(64 * 8),
            slice_alloc: 512 * tree + 4 * KIB,
            stream_alloc: 4096 * tree + 4 * KIB,
        },
        Case {
            name: "maps nested 10,000 deep, each count at the cap",
            input: repeat(&cat(&[&le(2), &le(CAP), &le(1), b"k"]), 10_000, &[]),
            decode: run::<Tree>,
            want: Some(ErrorCode::Limit),
            offset: Some(64 * 13),
            slice_alloc: 64 * KIB,
            stream_alloc: 64 * KIB,
        },
    ]
}

/// Runs one case on one entry point: result, offset, allocation, time.
fn check(case: &Case, entry: Entry) {
    let start = Instant::now();
    let (r, peak) = peak_during(|| (case.decode)(entry, &case.input));
    let took = start.elapsed();
    let what = format!("{} via {entry:?}", case.name);
    match (&r, case.want) {
        (Ok(()), None) => {}
        (Err(e), Some(code)) => {
            assert_eq!(e.code(), code, "{what}: {e}");
            if let Some(off) = case.offset {
                assert_eq!(e.offset(), Some(off), "{what}: {e}");
            }
        }
        (r, want) => panic!("{what}: expected {want:?}, got {r:?}"),
    }
    eprintln!("{what}: peak {peak} bytes, {took:?}");
    let bound = match entry {
        Entry::FromReader => case.stream_alloc,
        _ => case.slice_alloc,
    };
    assert!(peak <= bound, "{what}: peak allocation {peak} > {bound}");
}

#[test]
fn hostile_inputs_on_every_entry_point() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for case in cases() {
        for entry in ENTRIES {
            check(&case, entry);
        }
    }
}

#[test]
fn lowered_caps_apply_to_every_entry_point() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let opts = kiln_serde::Options::default()
        .with_max_count(3)
        .with_max_bytes(2)
        .with_max_depth(4);
    let list = cat(&[&le(4), &[0; 4]]);
    let text = cat(&[&le(3), b"abc"]);
    let deep = repeat(&[3, 0, 0, 0, 1], 3, &[0, 0, 0, 0, 9, 0, 0, 0]);
    let (r, peak) = peak_during(|| opts.from_slice::<Vec<u8>>(&list));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    assert!(peak < KIB);
    let (r, _) = peak_during(|| opts.from_reader::<_, Vec<u8>>(Stream(&list)));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    let (r, _) = peak_during(|| opts.from_reader::<_, Vec<u8>>(&list[..]));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    let r = opts.take_from_slice::<String>(&text);
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    let r = opts.from_reader::<_, String>(Stream(&text));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    let r = opts.from_reader::<_, String>(&text[..]);
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    let e = opts.from_slice::<Tree>(&deep).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(10)));
    let e = opts.from_reader::<_, Tree>(Stream(&deep)).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(10)));
    let e = opts.from_reader::<_, Tree>(&deep[..]).unwrap_err();
    assert_eq!((e.code(), e.offset()), (ErrorCode::Limit, Some(10)));

    // A total size limit stops a stream that goes on and on.
    let opts = kiln_serde::Options::default().with_limit(1000);
    let endless = std::io::repeat(0);
    let (r, peak) = peak_during(|| opts.from_reader::<_, Vec<Vec<u8>>>(endless));
    // count 0 for the outer list: decodes; a long string hits the limit.
    assert!(r.unwrap().is_empty());
    assert!(peak < KIB);
    let head = le(CAP);
    let endless = std::io::Read::chain(&head[..], std::io::repeat(b'x'));
    let (r, peak) = peak_during(|| opts.from_reader::<_, String>(endless));
    assert_eq!(r.unwrap_err().code(), ErrorCode::Limit);
    assert!(peak < KIB);
}

// ---------------------------------------------------------------- tensors

use kiln_serde::tensors::{self, Tensors, TensorsView};

const OPTS: kiln_serde::Limits = kiln_serde::Limits::DEFAULT;

/// `n` named empty u8 tensors `t0000000`..; the last name repeats the
/// first when `dup`.
fn many_names(n: u32, dup: bool) -> Vec<u8> {
    let ts: Vec<_> = (0..n)
        .map(|i| {
            let k = if dup && i == n - 1 { 0 } else { i };
            t(spec_dir::U8, &[0], []).named(&format!("t{k:07}"))
        })
        .collect();
    spec_dir::canonical(&ts)
}

type Run = fn(&[u8]) -> Result<(), Error>;

/// Every way to read a standalone directory, slices then streams.
const TENSOR_ENTRIES: [(&str, Run, bool); 8] = [
    ("validate", |b| tensors::validate(b, &OPTS).map(drop), false),
    (
        "TensorsView::from_bytes",
        |b| TensorsView::from_bytes(b, &OPTS).map(drop),
        false,
    ),
    (
        "Tensors::from_bytes",
        |b| Tensors::from_bytes(b, &OPTS).map(drop),
        false,
    ),
    (
        "check_buffer",
        |b| kiln_serde::checkpoint::check_buffer(b, &OPTS).map(drop),
        false,
    ),
    (
        "from_slice::<Tensors>",
        |b| kiln_serde::from_slice::<Tensors>(b).map(drop),
        false,
    ),
    (
        "Tensors::read_from",
        |b| Tensors::read_from(&mut &b[..], &OPTS).map(drop),
        true,
    ),
    (
        "from_reader::<Tensors>",
        |b| kiln_serde::from_reader::<_, Tensors>(Stream(b)).map(drop),
        true,
    ),
    (
        "from_reader::<Tensors> over a &[u8]",
        |b| kiln_serde::from_reader::<_, Tensors>(b).map(drop),
        false,
    ),
];

struct DirCase {
    name: &'static str,
    input: Vec<u8>,
    want: Option<ErrorCode>,
    /// Offset on the slice entry points.
    offset: Option<u64>,
    slice_alloc: usize,
    stream_alloc: usize,
}

fn dir_cases() -> Vec<DirCase> {
    // One unnamed f32 tensor at offset 0 (its payload not there).
    let one = |t: spec_dir::T, payload: u64| meta(&[t], &[0], payload);
    let f32_desc = |shape: &[u64]| t(spec_dir::F32, shape, []);
    vec![
        DirCase {
            name: "count u32::MAX",
            input: header(1, u32::MAX, 0, 0),
            want: Some(ErrorCode::Limit),
            offset: Some(8),
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        DirCase {
            name: "count at the cap, header only",
            input: header(1, CAP, 0, 0),
            want: Some(ErrorCode::Eof),
            offset: Some(8),
            slice_alloc: SMALL,
            // A stream reads in 1 MiB steps: one step, then the end.
            stream_alloc: 2 * MIB + SMALL,
        },
        DirCase {
            name: "heap_bytes u32::MAX",
            input: pad64(header(1, 0, u32::MAX, 0)),
            want: Some(ErrorCode::Eof),
            offset: Some(8),
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + SMALL,
        },
        DirCase {
            name: "payload_bytes u64::MAX",
            input: pad64(header(1, 0, 0, u64::MAX)),
            want: Some(ErrorCode::Eof),
            offset: Some(16),
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + SMALL,
        },
        DirCase {
            name: "payload_bytes 2^40, 64 bytes present",
            input: pad64(header(1, 0, 0, 1 << 40)),
            want: Some(ErrorCode::Eof),
            offset: Some(16),
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + SMALL,
        },
        DirCase {
            name: "shape product above u64",
            input: one(f32_desc(&[1 << 32, 1 << 32, 1 << 32]), 0),
            want: Some(ErrorCode::Limit),
            offset: None,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        DirCase {
            name: "shape with all 8 slots at u64::MAX",
            input: one(f32_desc(&[u64::MAX; 8]), 0),
            want: Some(ErrorCode::Limit),
            offset: None,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        DirCase {
            name: "byte length above u64 (2^62 f32)",
            input: one(f32_desc(&[1 << 62]), 0),
            want: Some(ErrorCode::Limit),
            offset: None,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        DirCase {
            name: "a zero slot makes a huge shape empty",
            input: one(f32_desc(&[u64::MAX, 0, u64::MAX]), 0),
            want: None,
            offset: None,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        DirCase {
            // 2^40 f32 claimed, payload_bytes says 2^42: EOF before any
            // payload is touched.
            name: "huge tensor, payload absent",
            input: one(f32_desc(&[1 << 40]).length(1 << 42), 1 << 42),
            want: Some(ErrorCode::Eof),
            offset: Some(16),
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + SMALL,
        },
        DirCase {
            // 100,000 names (13.6 MB): validation keeps per-tensor
            // bookkeeping, the owned copy is one more copy of the block.
            name: "100,000 named tensors",
            input: many_names(100_000, false),
            want: None,
            offset: None,
            slice_alloc: 14 * MIB + 100_000 * 64,
            stream_alloc: 2 * 14 * MIB + 100_000 * 64,
        },
        DirCase {
            name: "100,000 names, the last a duplicate",
            input: many_names(100_000, true),
            want: Some(ErrorCode::Type),
            offset: None,
            slice_alloc: 100_000 * 64,
            stream_alloc: 2 * 14 * MIB + 100_000 * 64,
        },
    ]
}

#[test]
fn hostile_directories_on_every_entry_point() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for case in dir_cases() {
        for (entry, run, stream) in TENSOR_ENTRIES {
            let what = format!("{} via {entry}", case.name);
            let start = Instant::now();
            let (r, peak) = peak_during(|| run(&case.input));
            let took = start.elapsed();
            eprintln!("{what}: peak {peak} bytes, {took:?}");
            match (&r, case.want) {
                (Ok(()), None) => {}
                (Err(e), Some(code)) => {
                    assert_eq!(e.code(), code, "{what}: {e}");
                    if let (Some(off), false) = (case.offset, stream) {
                        assert_eq!(e.offset(), Some(off), "{what}: {e}");
                    }
                }
                (r, want) => panic!("{what}: expected {want:?}, got {r:?}"),
            }
            let bound = if stream {
                case.stream_alloc
            } else {
                case.slice_alloc
            };
            assert!(peak <= bound, "{what}: peak allocation {peak} > {bound}");
        }
    }
}

// ---------------------------------------------------------------- framed

type Run2 = [fn(&[u8]) -> Result<(), Error>; 2];

/// A hostile framed input, read from a slice and from a stream.
struct FrameCase {
    name: &'static str,
    input: Vec<u8>,
    /// The slice and stream readers.
    runs: Run2,
    code: ErrorCode,
    offset: u64,
    slice_alloc: usize,
    stream_alloc: usize,
}

fn frame(hash: Option<u64>) -> Vec<u8> {
    kiln_serde::frame::encode(hash).to_vec()
}

#[test]
fn hostile_frames_on_every_entry_point() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let list_hash = kiln_serde::schema::hash::<Vec<u64>>().unwrap();
    let str_hash = kiln_serde::schema::hash::<String>().unwrap();
    type FRun = fn(&[u8]) -> Result<(), Error>;
    let list_slice: FRun = |b| kiln_serde::framed::from_slice::<Vec<u64>>(b).map(drop);
    let list_stream: FRun = |b| kiln_serde::framed::from_reader::<_, Vec<u64>>(b).map(drop);
    let str_slice: FRun = |b| kiln_serde::framed::from_slice::<String>(b).map(drop);
    let str_stream: FRun = |b| kiln_serde::framed::from_reader::<_, String>(b).map(drop);
    let cases = vec![
        FrameCase {
            name: "15-byte frame",
            input: frame(Some(list_hash))[..15].to_vec(),
            runs: [list_slice, list_stream],
            code: ErrorCode::Eof,
            offset: 0,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        FrameCase {
            name: "list count u32::MAX after a frame",
            input: cat(&[&frame(Some(list_hash)), &le(u32::MAX)]),
            runs: [list_slice, list_stream],
            code: ErrorCode::Limit,
            offset: 16,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
        FrameCase {
            name: "list count at the cap after a frame",
            input: cat(&[&frame(Some(list_hash)), &le(CAP), &[0; 8]]),
            runs: [list_slice, list_stream],
            code: ErrorCode::Eof,
            offset: 28,
            slice_alloc: SMALL,
            stream_alloc: 40 * KIB,
        },
        FrameCase {
            name: "str length at the cap, 1 MiB present",
            input: cat(&[&frame(None), &le(CAP), &vec![b'x'; MIB]]),
            runs: [str_slice, str_stream],
            code: ErrorCode::Eof,
            offset: 16,
            slice_alloc: SMALL,
            stream_alloc: 2 * MIB + 64 * KIB,
        },
        FrameCase {
            // The hash is checked before the first field: nothing of the
            // lying body is read.
            name: "wrong hash in front of a hostile body",
            input: cat(&[&frame(Some(str_hash)), &le(CAP), &vec![b'x'; MIB]]),
            runs: [list_slice, list_stream],
            code: ErrorCode::Schema,
            offset: 8,
            slice_alloc: SMALL,
            stream_alloc: SMALL,
        },
    ];
    for FrameCase {
        name,
        input,
        runs,
        code,
        offset,
        slice_alloc,
        stream_alloc,
    } in cases
    {
        for (i, run) in runs.iter().enumerate() {
            let what = format!("{name} via {}", ["slice", "stream"][i]);
            let (r, peak) = peak_during(|| run(&input));
            eprintln!("{what}: peak {peak} bytes");
            let e = r.expect_err(&what);
            assert_eq!((e.code(), e.offset()), (code, Some(offset)), "{what}: {e}");
            let bound = [slice_alloc, stream_alloc][i];
            assert!(peak <= bound, "{what}: peak allocation {peak} > {bound}");
        }
    }
}
