//! Framed vs unframed on a 32-byte message: what the 16-byte frame (spec
//! section 3) and the schema hash check cost per message.
//!
//! ```text
//! cargo bench --bench framed                      # full criterion settings
//! KILN_BENCH_QUICK=1 cargo bench --bench framed   # quick mode (~15 s)
//! python3 benches/report.py                       # the markdown tables
//! ```
//!
//! `Tick` encodes to exactly 32 bytes Frozen (48 framed). Bench ids are
//! `framed/32B/<op>/<who>/<api>`:
//! * `unframed/*`: `kiln_serde::{to_vec, to_extend, from_slice}`;
//! * `framed/*`: `kiln_serde::framed::{to_vec, from_slice}`, whose hash
//!   comes from the global type-text cache (keyed by `TypeId`);
//! * `framed_schema/*`: the same through a kept `Schema<Tick>` handle;
//! * `*/to_extend`: the buffer-reusing forms (`framed::to_extend`,
//!   `Schema::to_extend`), against `kiln_serde::to_extend`;
//! * `framed/32B/parts/*`: the pieces alone (`schema::hash::<Tick>()`,
//!   `frame::parse`, `frame::encode`);
//! * `framed/32B/messages/*`: 1,000 distinct unframed messages per
//!   iteration, as a user's loop handles them (each decoded from its own
//!   `Vec<u8>` (or through `deserialize_from(&mut &bytes[..])`) and its
//!   fields folded into a sum; or all encoded into one
//!   reused `Vec`), kiln's own API and its bincode API against bincode
//!   1.3. A result used at once, not handed to `black_box`. Each row is
//!   a loop of its own, written out: the same rows through one generic
//!   helper moved kiln's `from_slice` 5.2 -> 1.7 ns and bincode 1.3's
//!   `deserialize_from` 1.3 -> 15.6 ns (LTO, session 29). Where LLVM
//!   keeps each result decides whether its bytes are stored and reloaded
//!   (a failed store forward), so these rows move with the code around
//!   them; compare them within one build.

use std::hint::black_box;
use std::path::PathBuf;

use kiln_serde::Schema;
use kiln_serde::{frame, framed};

#[path = "datasets/tick.rs"]
mod tick;
use tick::{Tick, TICK};

mod quick;
use quick::{config, quick};

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Messages in `framed/32B/messages`.
const MESSAGES: usize = 1000;

fn fold(acc: u64, t: &Tick) -> u64 {
    acc.wrapping_add(
        t.id ^ t.ts_ns
            ^ u64::from(t.price.to_bits() ^ t.qty.to_bits() ^ t.venue)
            ^ u64::from(t.flags ^ t.seq),
    )
}

fn messages(c: &mut criterion::Criterion) {
    use bincode1::Options as _;
    use kiln_serde::bincode::Options as _;
    let ticks: Vec<Tick> = (0..MESSAGES as u64)
        .map(|i| Tick {
            id: i.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            ts_ns: TICK.ts_ns + i,
            seq: i as u16,
            ..TICK
        })
        .collect();
    let kiln: Vec<Vec<u8>> = ticks
        .iter()
        .map(|t| kiln_serde::to_vec(t).unwrap())
        .collect();
    let b1: Vec<Vec<u8>> = ticks
        .iter()
        .map(|t| bincode1::serialize(t).unwrap())
        .collect();
    assert_eq!(kiln, b1, "a Tick is the same 32 bytes in both");
    let want = ticks.iter().fold(0, fold);
    let decode = |bytes: &[Vec<u8>], f: &dyn Fn(&[u8]) -> Tick| {
        bytes.iter().fold(0, |acc, m| fold(acc, &f(m)))
    };
    // Every decoder of the rows below, before timing (the rows repeat
    // each call in a loop of their own: see the module comment).
    type Decode<'a> = &'a dyn Fn(&[u8]) -> Tick;
    let decoders: [(&[Vec<u8>], Decode); 7] = [
        (&kiln, &|m| kiln_serde::from_slice(m).unwrap()),
        (&kiln, &|m| kiln_serde::bincode::deserialize(m).unwrap()),
        (&kiln, &|m| {
            let o = kiln_serde::bincode::DefaultOptions::new().with_fixint_encoding();
            o.deserialize(m).unwrap()
        }),
        (&kiln, &|m| {
            kiln_serde::bincode::deserialize_from(&mut &m[..]).unwrap()
        }),
        (&b1, &|m| bincode1::deserialize(m).unwrap()),
        (&b1, &|m| bincode1::deserialize_from(&mut &m[..]).unwrap()),
        (&b1, &|m| {
            let o = bincode1::DefaultOptions::new().with_fixint_encoding();
            o.deserialize(m).unwrap()
        }),
    ];
    for (msgs, f) in decoders {
        assert_eq!(decode(msgs, f), want, "every decoder reads every message");
    }
    let all = kiln.concat();
    type Encode<'a> = &'a dyn Fn(&mut Vec<u8>, &Tick);
    let encoders: [Encode; 3] = [
        &|o, t| kiln_serde::to_extend(o, t).unwrap(),
        &|o, t| kiln_serde::bincode::serialize_into(o, t).unwrap(),
        &|o, t| bincode1::serialize_into(o, t).unwrap(),
    ];
    for encode in encoders {
        let mut o = Vec::new();
        ticks.iter().for_each(|t| encode(&mut o, t));
        assert_eq!(o, all, "every encoder writes the same bytes");
    }

    let mut g = c.benchmark_group("framed/32B/messages");
    g.bench_function("kiln/from_slice", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&kiln) {
                let t: Tick = kiln_serde::from_slice(m).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("kiln_bincode/deserialize", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&kiln) {
                let t: Tick = kiln_serde::bincode::deserialize(m).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("kiln_bincode/options_deserialize", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&kiln) {
                let o = kiln_serde::bincode::DefaultOptions::new().with_fixint_encoding();
                let t: Tick = o.deserialize(m).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("bincode1/deserialize", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&b1) {
                let t: Tick = bincode1::deserialize(m).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("kiln_bincode/deserialize_from", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&kiln) {
                let t: Tick = kiln_serde::bincode::deserialize_from(&mut &m[..]).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("bincode1/deserialize_from", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&b1) {
                let t: Tick = bincode1::deserialize_from(&mut &m[..]).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    g.bench_function("bincode1/options_deserialize", |b| {
        b.iter(|| {
            let mut acc = 0;
            for m in black_box(&b1) {
                let o = bincode1::DefaultOptions::new().with_fixint_encoding();
                let t: Tick = o.deserialize(m).unwrap();
                acc = fold(acc, &t);
            }
            acc
        })
    });
    let mut out = Vec::with_capacity(32 * MESSAGES);
    g.bench_function("kiln/to_extend", |b| {
        b.iter(|| {
            out.clear();
            for t in black_box(&ticks) {
                kiln_serde::to_extend(&mut out, t).unwrap();
            }
            out.len()
        })
    });
    g.bench_function("kiln_bincode/serialize_into", |b| {
        b.iter(|| {
            out.clear();
            for t in black_box(&ticks) {
                kiln_serde::bincode::serialize_into(&mut out, t).unwrap();
            }
            out.len()
        })
    });
    g.bench_function("bincode1/serialize_into", |b| {
        b.iter(|| {
            out.clear();
            for t in black_box(&ticks) {
                bincode1::serialize_into(&mut out, t).unwrap();
            }
            out.len()
        })
    });
    g.finish();
    assert_eq!(out, all);
}

fn main() {
    let mut c = config().configure_from_args();
    let schema: Schema<Tick> = Schema::new().expect("trace Tick");

    // Correctness first: sizes, equal framings, round trips.
    let plain = kiln_serde::to_vec(&TICK).unwrap();
    assert_eq!(plain.len(), 32, "Tick must encode to 32 bytes");
    let framed_bytes = framed::to_vec(&TICK).unwrap();
    assert_eq!(framed_bytes.len(), 48);
    assert_eq!(&framed_bytes[16..], &plain[..]);
    assert_eq!(schema.to_vec(&TICK).unwrap(), framed_bytes);
    let mut ext = vec![0xAA; 3];
    framed::to_extend(&mut ext, &TICK).unwrap();
    assert_eq!(ext[3..], framed_bytes[..]);
    ext.clear();
    schema.to_extend(&mut ext, &TICK).unwrap();
    assert_eq!(ext, framed_bytes);
    assert_eq!(kiln_serde::from_slice::<Tick>(&plain).unwrap(), TICK);
    assert_eq!(framed::from_slice::<Tick>(&framed_bytes).unwrap(), TICK);
    assert_eq!(schema.from_slice(&framed_bytes).unwrap(), TICK);
    assert_eq!(kiln_serde::schema::hash::<Tick>().unwrap(), schema.hash());

    let mut g = c.benchmark_group("framed/32B/serialize");
    g.bench_function("unframed/to_vec", |b| {
        b.iter(|| kiln_serde::to_vec(black_box(&TICK)).unwrap())
    });
    g.bench_function("framed/to_vec", |b| {
        b.iter(|| framed::to_vec(black_box(&TICK)).unwrap())
    });
    g.bench_function("framed_schema/to_vec", |b| {
        b.iter(|| schema.to_vec(black_box(&TICK)).unwrap())
    });
    let mut buf = Vec::with_capacity(64);
    g.bench_function("unframed/to_extend", |b| {
        b.iter(|| {
            buf.clear();
            kiln_serde::to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function("framed/to_extend", |b| {
        b.iter(|| {
            buf.clear();
            framed::to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(buf.len())
        })
    });
    g.bench_function("framed_schema/to_extend", |b| {
        b.iter(|| {
            buf.clear();
            schema.to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(buf.len())
        })
    });
    g.finish();

    let mut g = c.benchmark_group("framed/32B/deserialize");
    g.bench_function("unframed/from_slice", |b| {
        b.iter(|| kiln_serde::from_slice::<Tick>(black_box(&plain)).unwrap())
    });
    g.bench_function("framed/from_slice", |b| {
        b.iter(|| framed::from_slice::<Tick>(black_box(&framed_bytes)).unwrap())
    });
    g.bench_function("framed_schema/from_slice", |b| {
        b.iter(|| schema.from_slice(black_box(&framed_bytes)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("framed/32B/parts");
    g.bench_function("schema_hash/global_cache", |b| {
        b.iter(|| kiln_serde::schema::hash::<Tick>().unwrap())
    });
    g.bench_function("frame/parse", |b| {
        b.iter(|| frame::parse(black_box(&framed_bytes)).unwrap())
    });
    g.bench_function("frame/encode", |b| {
        b.iter(|| frame::encode(black_box(Some(schema.hash()))))
    });
    g.finish();

    messages(&mut c);

    let dir = target_dir().join("kiln-bench");
    std::fs::create_dir_all(&dir).expect("create target/kiln-bench");
    let json = serde_json::json!({
        "quick": quick(),
        "unframed_bytes": plain.len(),
        "framed_bytes": framed_bytes.len(),
    });
    std::fs::write(dir.join("framed.json"), json.to_string() + "\n").expect("write framed.json");
    c.final_summary();
}
