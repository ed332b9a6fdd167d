//! Serde benchmarks: kiln_serde against the common binary serde formats.
//!
//! Four datasets (`benches/datasets/`), each serialized, deserialized (owned)
//! and, for `log`, deserialized borrowed (`&str` fields), for every format in
//! the same run. Encoded sizes go to `target/kiln-bench/sizes.json`;
//! `benches/report.py` turns criterion's estimates plus the sizes into the
//! markdown table of BENCHMARKS.md.
//!
//! ```text
//! cargo bench --bench serde                       # full criterion settings
//! KILN_BENCH_QUICK=1 cargo bench --bench serde    # quick mode (< 3 min on 2 cores)
//! cargo bench --bench serde -- 'log/'             # one dataset (criterion filter)
//! python3 benches/report.py                       # the markdown table
//! ```
//!
//! Bench ids are `<dataset>/<op>/<format>/<variant>`:
//! * `serialize/<format>/to_vec`: a fresh `Vec` per call (the crate's
//!   plain `to_vec`-style function);
//! * `serialize/<format>/reuse(<api>)`: into a cleared `Vec` that keeps its
//!   capacity between calls, through the named API (formats without such an
//!   API have no reuse entry);
//! * `serialize/<format>/fixed(<api>)`: into a `&mut [u8]` allocated once,
//!   large enough (formats without a slice API have no fixed entry);
//! * `deserialize/<format>/owned` and `deserialize/<format>/borrowed`.
//!
//! Besides the serde formats: `wincode` through its own derive (not serde:
//! the bound of what a format can do when the type is known to be plain
//! data), and on `mesh` a `memcpy` row (a copy of kiln's encoded bytes) as
//! the floor, and a `serde_bound` decode row: the floor of any serde format
//! (`benches/bound.rs`: no room test, no error path).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

mod bound;
mod datasets;
mod plain;

use datasets::{log, mesh, savedata, updates, Rng};

/// The seed of every dataset (change it and every number changes).
const SEED: u64 = 0x6b69_6c6e_2d76_3221;

// ---------------------------------------------------------------------------
// The formats: one zero-sized type per (crate, configuration).

trait Format {
    /// Name used in bench ids and the report.
    const NAME: &'static str;
    /// The buffer-reusing serialize API, when the crate has one.
    const REUSE: Option<&'static str>;
    /// Whether decode(encode(v)) == v is guaranteed (JSON floats are not).
    const EXACT: bool = true;

    fn to_vec<T: Serialize>(v: &T) -> Vec<u8>;

    /// The serialize-into-a-slice API, when the crate has one.
    const FIXED: Option<&'static str> = None;

    /// Serialize into `buf` (cleared first), keeping its capacity.
    fn reuse<T: Serialize>(_v: &T, _buf: &mut Vec<u8>) {
        unreachable!("{} has no buffer-reusing serialize API", Self::NAME)
    }

    /// Serialize into the front of `buf`; returns the bytes written.
    fn fixed<T: Serialize>(_v: &T, _buf: &mut [u8]) -> usize {
        unreachable!("{} has no serialize-into-a-slice API", Self::NAME)
    }

    /// Deserialize, borrowing from `bytes` where the type asks for it.
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T;

    /// Deserialize an owned type (the crate's owned entry point if it has one).
    fn decode_owned<T: DeserializeOwned>(bytes: &[u8]) -> T {
        Self::decode(bytes)
    }
}

struct Kiln;
impl Format for Kiln {
    const NAME: &'static str = "kiln";
    const REUSE: Option<&'static str> = Some("to_extend");
    const FIXED: Option<&'static str> = Some("to_slice");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        kiln_serde::to_vec(v).unwrap()
    }
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        kiln_serde::to_extend(buf, v).unwrap();
    }
    fn fixed<T: Serialize>(v: &T, buf: &mut [u8]) -> usize {
        kiln_serde::to_slice(buf, v).unwrap()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        kiln_serde::from_slice(bytes).unwrap()
    }
}

struct Bincode1;
impl Format for Bincode1 {
    const NAME: &'static str = "bincode1";
    const REUSE: Option<&'static str> = Some("serialize_into");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        bincode1::serialize(v).unwrap()
    }
    const FIXED: Option<&'static str> = Some("serialize_into");
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        bincode1::serialize_into(&mut *buf, v).unwrap();
    }
    fn fixed<T: Serialize>(v: &T, buf: &mut [u8]) -> usize {
        let len = buf.len();
        let mut rest = &mut *buf;
        bincode1::serialize_into(&mut rest, v).unwrap();
        len - rest.len()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bincode1::deserialize(bytes).unwrap()
    }
}

/// bincode 2's serde API with `config::standard()` (varint integers).
struct Bincode2;
impl Format for Bincode2 {
    const NAME: &'static str = "bincode2";
    const REUSE: Option<&'static str> = Some("encode_into_std_write");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        bincode2::serde::encode_to_vec(v, bincode2::config::standard()).unwrap()
    }
    const FIXED: Option<&'static str> = Some("encode_into_slice");
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        bincode2::serde::encode_into_std_write(v, buf, bincode2::config::standard()).unwrap();
    }
    fn fixed<T: Serialize>(v: &T, buf: &mut [u8]) -> usize {
        bincode2::serde::encode_into_slice(v, buf, bincode2::config::standard()).unwrap()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bincode2::serde::borrow_decode_from_slice(bytes, bincode2::config::standard())
            .unwrap()
            .0
    }
    fn decode_owned<T: DeserializeOwned>(bytes: &[u8]) -> T {
        bincode2::serde::decode_from_slice(bytes, bincode2::config::standard())
            .unwrap()
            .0
    }
}

/// bincode 2's serde API with `config::legacy()` (bincode 1 wire format).
struct Bincode2Legacy;
impl Format for Bincode2Legacy {
    const NAME: &'static str = "bincode2_legacy";
    const REUSE: Option<&'static str> = Some("encode_into_std_write");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        bincode2::serde::encode_to_vec(v, bincode2::config::legacy()).unwrap()
    }
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        bincode2::serde::encode_into_std_write(v, buf, bincode2::config::legacy()).unwrap();
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bincode2::serde::borrow_decode_from_slice(bytes, bincode2::config::legacy())
            .unwrap()
            .0
    }
    fn decode_owned<T: DeserializeOwned>(bytes: &[u8]) -> T {
        bincode2::serde::decode_from_slice(bytes, bincode2::config::legacy())
            .unwrap()
            .0
    }
}

struct Postcard;
impl Format for Postcard {
    const NAME: &'static str = "postcard";
    const REUSE: Option<&'static str> = Some("to_extend");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        postcard::to_stdvec(v).unwrap()
    }
    const FIXED: Option<&'static str> = Some("to_slice");
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        let mut out = std::mem::take(buf);
        out.clear();
        *buf = postcard::to_extend(v, out).unwrap();
    }
    fn fixed<T: Serialize>(v: &T, buf: &mut [u8]) -> usize {
        postcard::to_slice(v, buf).unwrap().len()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        postcard::from_bytes(bytes).unwrap()
    }
}

/// serde-zap (varint integers, like postcard). Its reused-buffer path is
/// `to_writer` (an `io::Write` sink with its own staging buffer).
struct SerdeZap;
impl Format for SerdeZap {
    const NAME: &'static str = "serde_zap";
    const REUSE: Option<&'static str> = Some("to_writer");
    const FIXED: Option<&'static str> = Some("to_slice");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        serde_zap::to_vec(v).unwrap()
    }
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        serde_zap::to_writer(v, buf).unwrap();
    }
    fn fixed<T: Serialize>(v: &T, buf: &mut [u8]) -> usize {
        serde_zap::to_slice(v, buf).unwrap().len()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        serde_zap::from_bytes(bytes).unwrap()
    }
}

/// rmp-serde's default (structs as arrays, no field names).
struct Rmp;
impl Format for Rmp {
    const NAME: &'static str = "rmp_serde";
    const REUSE: Option<&'static str> = Some("encode::write");
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        rmp_serde::to_vec(v).unwrap()
    }
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        rmp_serde::encode::write(buf, v).unwrap();
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        rmp_serde::from_slice(bytes).unwrap()
    }
}

/// bitcode's serde API (not its derive API). It has no buffer-reusing
/// serde entry point.
struct Bitcode;
impl Format for Bitcode {
    const NAME: &'static str = "bitcode";
    const REUSE: Option<&'static str> = None;
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        bitcode::serialize(v).unwrap()
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        bitcode::deserialize(bytes).unwrap()
    }
}

/// serde_json, as a scale reference.
struct Json;
impl Format for Json {
    const NAME: &'static str = "serde_json";
    const REUSE: Option<&'static str> = Some("to_writer");
    const EXACT: bool = false;
    fn to_vec<T: Serialize>(v: &T) -> Vec<u8> {
        serde_json::to_vec(v).unwrap()
    }
    fn reuse<T: Serialize>(v: &T, buf: &mut Vec<u8>) {
        buf.clear();
        serde_json::to_writer(&mut *buf, v).unwrap();
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        serde_json::from_slice(bytes).unwrap()
    }
}

/// Runs `$body` once per format with `$f` naming the format type.
macro_rules! each_format {
    ($f:ident => $body:expr) => {{
        {
            type $f = Kiln;
            $body;
        }
        {
            type $f = Bincode1;
            $body;
        }
        {
            type $f = Bincode2;
            $body;
        }
        {
            type $f = Bincode2Legacy;
            $body;
        }
        {
            type $f = Postcard;
            $body;
        }
        {
            type $f = SerdeZap;
            $body;
        }
        {
            type $f = Rmp;
            $body;
        }
        {
            type $f = Bitcode;
            $body;
        }
        {
            type $f = Json;
            $body;
        }
    }};
}

// ---------------------------------------------------------------------------
// Settings.

mod quick;
use quick::{config, quick};

fn group<'c>(c: &'c mut Criterion, name: String) -> BenchmarkGroup<'c, WallTime> {
    let mut g = c.benchmark_group(name);
    if quick() {
        // One iteration of the slow formats (serde_json on `mesh`) takes tens
        // of milliseconds: flat sampling keeps them inside the time budget.
        g.sampling_mode(SamplingMode::Flat);
    }
    g
}

/// Where criterion writes (`CARGO_TARGET_DIR` or `<crate>/target`).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// dataset -> format -> encoded bytes.
type Sizes = BTreeMap<&'static str, BTreeMap<&'static str, usize>>;

fn write_sizes(sizes: &Sizes) {
    let dir = target_dir().join("kiln-bench");
    std::fs::create_dir_all(&dir).expect("create target/kiln-bench");
    let path = dir.join("sizes.json");
    let json = serde_json::to_string_pretty(sizes).expect("sizes to JSON");
    std::fs::write(&path, json + "\n").expect("write sizes.json");
    let run = serde_json::json!({ "quick": quick(), "seed": SEED });
    std::fs::write(dir.join("run.json"), run.to_string() + "\n").expect("write run.json");
    eprintln!("encoded sizes written to {}", path.display());
}

// ---------------------------------------------------------------------------
// The benchmarks.

/// Checks that `F` round-trips `value` (a correctness check, not timing) and
/// returns its encoding.
fn check<F: Format, T: Serialize + DeserializeOwned + PartialEq>(
    dataset: &str,
    value: &T,
) -> Vec<u8> {
    let bytes = F::to_vec(value);
    let back: T = F::decode_owned(&bytes);
    if F::EXACT {
        assert!(back == *value, "{}: {dataset} does not round-trip", F::NAME);
    }
    if F::REUSE.is_some() {
        let mut buf = vec![0xAA; 3];
        F::reuse(value, &mut buf);
        assert_eq!(
            buf,
            bytes,
            "{}: reuse and to_vec differ on {dataset}",
            F::NAME
        );
    }
    if F::FIXED.is_some() {
        let mut buf = vec![0xAA; bytes.len() + 16];
        let n = F::fixed(value, &mut buf);
        assert_eq!(
            &buf[..n],
            &bytes[..],
            "{}: fixed and to_vec differ on {dataset}",
            F::NAME
        );
    }
    bytes
}

fn serialize<F: Format, T: Serialize>(g: &mut BenchmarkGroup<'_, WallTime>, value: &T) {
    g.bench_function(BenchmarkId::new(F::NAME, "to_vec"), |b| {
        b.iter(|| F::to_vec(black_box(value)))
    });
    if let Some(api) = F::REUSE {
        let mut buf = Vec::new();
        F::reuse(value, &mut buf);
        g.bench_function(BenchmarkId::new(F::NAME, format!("reuse({api})")), |b| {
            b.iter(|| {
                F::reuse(black_box(value), &mut buf);
                black_box(buf.len())
            })
        });
    }
    if let Some(api) = F::FIXED {
        let mut buf = vec![0u8; F::to_vec(value).len() + 16];
        g.bench_function(BenchmarkId::new(F::NAME, format!("fixed({api})")), |b| {
            b.iter(|| black_box(F::fixed(black_box(value), &mut buf)))
        });
    }
}

fn deserialize<F: Format, T: DeserializeOwned>(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    g.bench_function(BenchmarkId::new(F::NAME, "owned"), |b| {
        b.iter(|| F::decode_owned::<T>(black_box(bytes)))
    });
}

/// Serialize and owned deserialize of one dataset for every format, then
/// wincode and (with `floor`) memcpy.
fn dataset<T>(c: &mut Criterion, sizes: &mut Sizes, name: &'static str, value: &T, floor: bool)
where
    T: Serialize + DeserializeOwned + PartialEq + plain::Plain,
{
    let mut encoded: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
    each_format!(F => {
        let bytes = check::<F, T>(name, value);
        encoded.insert(F::NAME, bytes);
    });
    let win = plain::check_wincode(name, value, &encoded[Bincode1::NAME]);
    encoded.insert(plain::WINCODE, win);
    let kiln = &encoded[Kiln::NAME];
    assert_eq!(
        kiln_serde::serialized_size(value).unwrap(),
        kiln.len() as u64,
        "kiln serialized_size disagrees with to_vec on {name}"
    );
    sizes.insert(name, encoded.iter().map(|(k, v)| (*k, v.len())).collect());

    let mut g = group(c, format!("{name}/serialize"));
    each_format!(F => serialize::<F, T>(&mut g, value));
    plain::wincode_serialize(&mut g, value);
    if floor {
        plain::memcpy_serialize(&mut g, kiln);
    }
    g.finish();

    let mut g = group(c, format!("{name}/deserialize"));
    each_format!(F => deserialize::<F, T>(&mut g, &encoded[F::NAME]));
    plain::wincode_deserialize::<T>(&mut g, &encoded[plain::WINCODE]);
    if floor {
        plain::memcpy_deserialize(&mut g, kiln);
        bound_deserialize(&mut g, kiln);
    }
    g.finish();
}

/// The floor of any serde format's decode of `mesh` (`benches/bound.rs`:
/// no room test, no error path), beside memcpy's, and the same floor with
/// an error of kiln's shape.
fn bound_deserialize(g: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    assert!(bound::mesh(bytes).is_some(), "serde_bound reads mesh only");
    g.bench_function(BenchmarkId::new("serde_bound", "owned"), |b| {
        b.iter(|| bound::mesh(black_box(bytes)))
    });
    g.bench_function(BenchmarkId::new("serde_bound_handle", "owned"), |b| {
        b.iter(|| bound::mesh_handle(black_box(bytes)))
    });
}

/// Borrowed deserialize of `log` (`&str` fields point into the input).
fn log_borrowed(c: &mut Criterion, value: &log::Logs) {
    let mut g = group(c, "log/deserialize".to_string());
    each_format!(F => {
        let bytes = F::to_vec(value);
        let back: log::LogsRef<'_> = F::decode(&bytes);
        assert!(back == *value, "{}: borrowed log does not round-trip", F::NAME);
        g.bench_function(BenchmarkId::new(F::NAME, "borrowed"), |b| {
            b.iter(|| F::decode::<log::LogsRef<'_>>(black_box(&bytes)))
        });
    });
    g.finish();
}

fn main() {
    let mut c = config().configure_from_args();
    let mut sizes = Sizes::new();

    let logs = log::generate(&mut Rng::new(SEED));
    dataset(&mut c, &mut sizes, "log", &logs, false);
    log_borrowed(&mut c, &logs);
    drop(logs);

    let m = mesh::generate(&mut Rng::new(SEED));
    let plain = kiln_serde::to_vec(&m).unwrap();
    assert!(
        bound::mesh(&plain).as_ref() == Some(&m) && bound::mesh_handle(&plain).as_ref() == Some(&m),
        "serde_bound does not read mesh back"
    );
    drop(plain);
    dataset(&mut c, &mut sizes, "mesh", &m, true);
    drop(m);

    let save = savedata::generate(&mut Rng::new(SEED));
    dataset(&mut c, &mut sizes, "savedata", &save, false);
    drop(save);

    let u = updates::generate(&mut Rng::new(SEED));
    dataset(&mut c, &mut sizes, "updates", &u, false);
    drop(u);

    write_sizes(&sizes);
    c.final_summary();
}

// ---------------------------------------------------------------------------
// Tensor directories and framed values have their own benches:
// `benches/tensors.rs` (1,000 x 4 KiB and 8 x 32 MiB f32 tensors: write vs
// `safetensors::serialize` and memcpy, validate + view vs
// `SafeTensors::deserialize`, view time for 1 MiB vs 1 GiB) and
// `benches/framed.rs` (framed vs unframed on a 32-byte message). Both honour
// `KILN_BENCH_QUICK=1`; `benches/report.py` prints their tables and targets.
