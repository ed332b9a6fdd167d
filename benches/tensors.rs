//! Tensor directory benchmarks: kiln's directory (spec section 5) against
//! safetensors 0.8 and against a plain memcpy of the same payload bytes.
//!
//! ```text
//! cargo bench --bench tensors                      # full criterion settings
//! KILN_BENCH_QUICK=1 cargo bench --bench tensors   # quick mode (about a minute)
//! cargo bench --bench tensors -- 'tensors/small/'  # one case (criterion filter)
//! python3 benches/report.py                        # the markdown tables
//! ```
//!
//! Cases (all f32; kiln and safetensors get the same names and payloads):
//! * `small`: 1,000 tensors of 4 KiB (shape `[1024]`, names `t0000`..`t0999`);
//! * `large`: 8 tensors of 32 MiB (256 MiB in all, names `w0`..`w7`);
//! * `view_flat`: one tensor of 1 MiB and one of 1 GiB, validate + view only.
//!
//! Bench ids are `tensors/<case>/<op>/<who>/<variant>`:
//! * `write/kiln/write_to`: a `TensorsBuilder` built from the slices, then
//!   `write_to` a cleared `Vec` that keeps its capacity (the directory's
//!   header, descriptors, heap, pad and payloads);
//! * `write/kiln/build`: the same builder, `build()` into a new 64-byte
//!   aligned buffer (`Tensors`);
//! * `write/safetensors/serialize`: `safetensors::serialize(views, None)`
//!   (a new `Vec` each time, as that is its only in-memory API);
//! * `write/memcpy/reused` and `write/memcpy/fresh`: the payload bytes alone
//!   appended to a cleared, kept `Vec` (the physical limit for `write_to`) or
//!   to a new `Vec` of the right capacity (the limit for the fresh-buffer
//!   writers: the same page faults);
//! * `view/kiln/iter`: `TensorsView::from_bytes` (full validation) then every
//!   tensor's name and `try_as_slice::<f32>()`, in descriptor order;
//!   `view/kiln/by_name`: the same, looking every tensor up by name;
//! * `view/safetensors/tensor`: `SafeTensors::deserialize` then
//!   `.tensor(name)` for every name and its data cast to `&[f32]`.
//!
//! Write groups set `Throughput::Bytes(payload bytes)`. Encoded sizes go to
//! `target/kiln-bench/tensors.json`.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};
use kiln_serde::tensors::{TensorSpec, Tensors, TensorsBuilder, TensorsView};
use kiln_serde::Limits;
use safetensors::tensor::TensorView as StView;
use safetensors::{Dtype as StDtype, SafeTensors};

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;
const GIB: usize = 1024 * MIB;

// ---------------------------------------------------------------------------
// Settings (the same quick mode as benches/serde.rs).

mod quick;
use quick::{config, quick};

/// A group; `heavy` groups (one iteration takes tens of milliseconds) use
/// flat sampling and 10 samples even outside quick mode.
fn group<'c>(c: &'c mut Criterion, name: &str, heavy: bool) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(name);
    if quick() || heavy {
        g.sampling_mode(SamplingMode::Flat);
    }
    if heavy {
        g.sample_size(10);
    }
    g
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

// ---------------------------------------------------------------------------
// Data.

/// One case: named f32 tensors.
struct Case {
    name: &'static str,
    names: Vec<String>,
    data: Vec<Vec<f32>>,
}

impl Case {
    fn new(name: &'static str, names: Vec<String>, elems: usize) -> Self {
        let mut x: u32 = 0x9e37_79b9;
        let data = (0..names.len())
            .map(|_| {
                (0..elems)
                    .map(|_| {
                        // xorshift32: cheap, nonzero, not compressible.
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        (x >> 8) as f32 / (1u32 << 24) as f32
                    })
                    .collect()
            })
            .collect();
        Case { name, names, data }
    }

    fn small() -> Self {
        Self::new(
            "small",
            (0..1000).map(|i| format!("t{i:04}")).collect(),
            4 * KIB / 4,
        )
    }

    fn large() -> Self {
        Self::new(
            "large",
            (0..8).map(|i| format!("w{i}")).collect(),
            32 * MIB / 4,
        )
    }

    fn payload_bytes(&self) -> u64 {
        self.data.iter().map(|t| (t.len() * 4) as u64).sum()
    }

    fn builder(&self) -> TensorsBuilder<'_> {
        let mut b = TensorsBuilder::new();
        for (name, t) in self.names.iter().zip(&self.data) {
            b.push(TensorSpec::from_slice(&[t.len() as u64], t).named(name.as_str()));
        }
        b
    }

    fn st_views(&self) -> Vec<(&str, StView<'_>)> {
        self.names
            .iter()
            .zip(&self.data)
            .map(|(name, t)| {
                let v = StView::new(StDtype::F32, vec![t.len()], bytemuck::cast_slice(t))
                    .expect("safetensors view");
                (name.as_str(), v)
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------
// The operations (each checked once before it is timed).

fn kiln_write_to(case: &Case, out: &mut Vec<u8>) {
    out.clear();
    case.builder().write_to(&mut *out).expect("kiln write_to");
}

fn kiln_build(case: &Case) -> Tensors {
    case.builder().build().expect("kiln build")
}

fn st_serialize(case: &Case) -> Vec<u8> {
    safetensors::serialize(case.st_views(), None).expect("safetensors serialize")
}

fn memcpy_into(case: &Case, out: &mut Vec<u8>) {
    out.clear();
    for t in &case.data {
        out.extend_from_slice(bytemuck::cast_slice(t));
    }
}

fn memcpy_fresh(case: &Case) -> Vec<u8> {
    let mut out = Vec::with_capacity(case.payload_bytes() as usize);
    memcpy_into(case, &mut out);
    out
}

/// Validate + view every tensor in order; returns a checksum of lengths.
fn kiln_view(bytes: &[u8]) -> usize {
    let view = TensorsView::from_bytes(bytes, &Limits::DEFAULT).expect("kiln view");
    let mut n = 0;
    for t in view.iter() {
        let name = t.name().expect("named");
        let s: &[f32] = t.try_as_slice().expect("aligned f32 view");
        n += black_box(name).len() + black_box(s).len();
    }
    n
}

/// Validate + look every tensor up by name.
fn kiln_view_by_name(bytes: &[u8], names: &[String]) -> usize {
    let view = TensorsView::from_bytes(bytes, &Limits::DEFAULT).expect("kiln view");
    let mut n = 0;
    for name in names {
        let t = view.by_name(name).expect("kiln by_name");
        let s: &[f32] = t.try_as_slice().expect("aligned f32 view");
        n += black_box(s).len();
    }
    n
}

fn st_view(bytes: &[u8], names: &[String]) -> usize {
    let st = SafeTensors::deserialize(bytes).expect("safetensors deserialize");
    let mut n = 0;
    for name in names {
        let t = st.tensor(name).expect("safetensors tensor");
        let s: &[f32] = bytemuck::try_cast_slice(t.data()).expect("aligned f32 view");
        n += black_box(s).len();
    }
    n
}

/// The correctness checks: every writer's output decodes to the case.
fn check(case: &Case) -> (Tensors, Vec<u8>) {
    let built = kiln_build(case);
    let mut streamed = Vec::new();
    kiln_write_to(case, &mut streamed);
    assert_eq!(streamed, built.as_bytes(), "write_to and build differ");
    let view = TensorsView::from_bytes(built.as_bytes(), &Limits::DEFAULT).unwrap();
    assert_eq!(view.len(), case.names.len());
    for ((t, name), data) in view.iter().zip(&case.names).zip(&case.data) {
        assert_eq!(t.name(), Some(name.as_str()));
        assert_eq!(t.try_as_slice::<f32>().unwrap(), &data[..]);
    }
    let st = st_serialize(case);
    let sv = SafeTensors::deserialize(&st).unwrap();
    for (name, data) in case.names.iter().zip(&case.data) {
        let t = sv.tensor(name).unwrap();
        assert_eq!(bytemuck::cast_slice::<u8, f32>(t.data()), &data[..]);
    }
    let elems: usize = case.data.iter().map(Vec::len).sum();
    let name_bytes: usize = case.names.iter().map(String::len).sum();
    assert_eq!(kiln_view(built.as_bytes()), elems + name_bytes);
    assert_eq!(kiln_view_by_name(built.as_bytes(), &case.names), elems);
    assert_eq!(st_view(&st, &case.names), elems);
    let mut m = Vec::new();
    memcpy_into(case, &mut m);
    assert_eq!(m.len() as u64, case.payload_bytes());
    (built, st)
}

// ---------------------------------------------------------------------------
// The benchmarks.

type Sizes = BTreeMap<String, BTreeMap<&'static str, u64>>;

fn write_and_view(c: &mut Criterion, sizes: &mut Sizes, case: &Case) {
    let heavy = case.payload_bytes() >= 64 * MIB as u64;
    let (built, st) = check(case);
    sizes.insert(
        case.name.to_string(),
        BTreeMap::from([
            ("tensors", case.names.len() as u64),
            ("payload", case.payload_bytes()),
            ("kiln", built.as_bytes().len() as u64),
            ("safetensors", st.len() as u64),
        ]),
    );

    let mut g = group(c, &format!("tensors/{}/write", case.name), heavy);
    g.throughput(Throughput::Bytes(case.payload_bytes()));
    let mut out = Vec::with_capacity(built.as_bytes().len());
    g.bench_function("kiln/write_to", |b| {
        b.iter(|| {
            kiln_write_to(black_box(case), &mut out);
            black_box(out.len())
        })
    });
    drop(out);
    g.bench_function("kiln/build", |b| b.iter(|| kiln_build(black_box(case))));
    g.bench_function("safetensors/serialize", |b| {
        b.iter(|| st_serialize(black_box(case)))
    });
    let mut out = Vec::with_capacity(case.payload_bytes() as usize);
    g.bench_function("memcpy/reused", |b| {
        b.iter(|| {
            memcpy_into(black_box(case), &mut out);
            black_box(out.len())
        })
    });
    drop(out);
    g.bench_function("memcpy/fresh", |b| b.iter(|| memcpy_fresh(black_box(case))));
    g.finish();

    let mut g = group(c, &format!("tensors/{}/view", case.name), false);
    let bytes = built.as_bytes();
    g.bench_function("kiln/iter", |b| b.iter(|| kiln_view(black_box(bytes))));
    g.bench_function("kiln/by_name", |b| {
        b.iter(|| kiln_view_by_name(black_box(bytes), &case.names))
    });
    g.bench_function("safetensors/tensor", |b| {
        b.iter(|| st_view(black_box(&st), &case.names))
    });
    g.finish();
}

/// One f32 tensor of `bytes` payload bytes, built once. The source is a
/// zeroed allocation (zero pages, no memory until written); the payload is
/// then filled with a nonzero pattern in place.
fn one_tensor(bytes: usize) -> Tensors {
    let src = vec![0f32; bytes / 4];
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[src.len() as u64], &src).named("w"));
    let t = b.build().expect("kiln build");
    drop(b);
    drop(src);
    let p = t.layout().payload_start();
    let mut buf = t.into_aligned();
    buf.as_mut_slice()[p..].fill(0x3f);
    Tensors::from_aligned(buf, &Limits::DEFAULT).expect("kiln validate")
}

/// View time must not grow with the payload: 1 MiB vs 1 GiB, one tensor.
/// Only one large buffer is alive at a time (1 GiB, briefly 2 GiB while the
/// safetensors copy is made).
fn view_flat(c: &mut Criterion, sizes: &mut Sizes) {
    let names = vec!["w".to_string()];
    let mut g = group(c, "tensors/view_flat", false);
    for (label, bytes) in [("1MiB", MIB), ("1GiB", GIB)] {
        let t = one_tensor(bytes);
        assert_eq!(kiln_view(t.as_bytes()), bytes / 4 + 1);
        g.bench_function(format!("kiln/{label}"), |b| {
            b.iter(|| kiln_view(black_box(t.as_bytes())))
        });
        let payload = t.get(0).expect("one tensor").data();
        let view = StView::new(StDtype::F32, vec![bytes / 4], payload).expect("view");
        let st = safetensors::serialize([("w", view)], None).expect("safetensors");
        sizes.insert(
            format!("view_flat/{label}"),
            BTreeMap::from([
                ("tensors", 1),
                ("payload", bytes as u64),
                ("kiln", t.as_bytes().len() as u64),
                ("safetensors", st.len() as u64),
            ]),
        );
        drop(t);
        assert_eq!(st_view(&st, &names), bytes / 4);
        g.bench_function(format!("safetensors/{label}"), |b| {
            b.iter(|| st_view(black_box(&st), &names))
        });
    }
    g.finish();
}

fn main() {
    let mut c = config().configure_from_args();
    let mut sizes = Sizes::new();

    let small = Case::small();
    write_and_view(&mut c, &mut sizes, &small);
    drop(small);

    let large = Case::large();
    write_and_view(&mut c, &mut sizes, &large);
    drop(large);

    view_flat(&mut c, &mut sizes);

    let dir = target_dir().join("kiln-bench");
    std::fs::create_dir_all(&dir).expect("create target/kiln-bench");
    let json = serde_json::json!({ "quick": quick(), "sizes": sizes });
    let path = dir.join("tensors.json");
    std::fs::write(&path, json.to_string() + "\n").expect("write tensors.json");
    eprintln!("sizes written to {}", path.display());
    c.final_summary();
}
