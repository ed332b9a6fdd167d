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
//!   op:      ser (to_vec) | serw (reused buffer) | serf (fixed slice)
//!            | de (owned) | deb (borrowed, log only)
//!            | der (owned, from an io::Read: kiln from_reader, kiln_bincode and
//!              bincode1 deserialize_from, bincode2 decode_from_std_read,
//!              rmp_serde from_read; the reader is a `&mut &[u8]`, which
//!              kiln decodes in place)
//!            | ders (der's calls with a 64 KiB `BufReader` over the bytes as
//!              the reader: a stream for every format; also kiln_options,
//!              `Options::from_reader` without a total limit, and kiln_limit,
//!              with one; kiln_bufread, `from_bufread`, and kiln_bufread_limit,
//!              `Options::from_bufread` with a total limit)
//!            | derc (der's calls with a `&mut Cursor<&[u8]>` as the reader,
//!              which kiln decodes in place too)
//!   format:  kiln | bincode1 | bincode2 | bincode2_legacy | postcard | serde_zap
//!            | rmp_serde | bitcode (serde API) | wincode (its derive)
//!            | memcpy (a copy of kiln's bytes: ser, serw, serf, de)
//!            | serde_bound (mesh de only: the floor of a serde format, benches/bound.rs)
//!            | serde_bound_handle (the same, with an error of kiln's shape)
//!            | kiln_bincode (`kiln_serde::bincode::serialize` / `serialize_into`,
//!              what a bincode 1.3 user patched over gets: ser, serw; its decode
//!              is kiln's `from_slice` code, left out so that it is not a second
//!              caller of kiln's decode, which changed the inliner's choices)
//!   serf is kiln's, postcard's and serde_zap's `to_slice`, bincode2's `encode_into_slice`, wincode's `serialize_into`
//!   a slice cursor.
//!
//! target/release/deps/profile-<hash> tick32 <op> <format> <iters>
//!   the 32-byte message of benches/framed.rs
//!   op:      ser (to_vec) | serw (reused buffer) | de | hash (schema::hash) | parse (frame::parse)
//!            | serio (to_writer / serialize_into into a 64 KiB BufWriter over
//!              io::sink(): kiln, bincode1)
//!   format:  kiln (unframed) | framed (free functions) | framed_schema (a kept Schema)
//!            | bincode1 | postcard (ser, serw, de: the same message through the peers)
//!            | kiln_bincode (serw: kiln's `bincode::serialize_into(&mut Vec)`)
//!
//! target/release/deps/profile-<hash> <tensors1000 | tensors256m | tensor1m | tensor64m> <op> <format> <iters>
//!   the small and large cases of benches/tensors.rs; one f32 tensor of 1 MiB
//!   or 64 MiB (view time must not depend on the payload size)
//!   op:      write (kiln: write_to a reused Vec; memcpy; safetensors) | build (kiln)
//!            | view (validate + every f32 view; kiln | safetensors)
//! ```
//!
//! Run without those arguments (as `cargo bench` does) it prints this usage
//! and exits.

use std::hint::black_box;

use serde::de::DeserializeOwned;
use serde::Serialize;

mod bound;
mod datasets;
#[allow(dead_code)] // the criterion halves are for benches/serde.rs
mod plain;

use datasets::{log, mesh, savedata, updates, Rng};

/// The same seed as `benches/serde.rs`.
const SEED: u64 = 0x6b69_6c6e_2d76_3221;

/// The dataset types: serde and wincode's derive.
trait Data: Serialize + DeserializeOwned + plain::Plain {}
impl<T: Serialize + DeserializeOwned + plain::Plain> Data for T {}

/// Runs `f` in a function of its own (one per closure type, never
/// inlined): each format's code is compiled as a user's call site would
/// be, not inlined into one function with every other format's, where
/// the inliner's budget for that function made one format's code change
/// another's counts.
#[inline(never)]
fn apart<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `plain` is kiln's encoding (the bytes memcpy copies).
fn encode<T: Data>(format: &str, v: &T, plain: &[u8]) -> Vec<u8> {
    match format {
        // kiln_options and kiln_limit decode kiln's bytes (ders only).
        "kiln" | "kiln_options" | "kiln_limit" | "kiln_bufread" | "kiln_bufread_limit" => {
            apart(|| kiln_serde::to_vec(v).unwrap())
        }
        "kiln_bincode" => apart(|| kiln_serde::bincode::serialize(v).unwrap()),
        "bincode1" => apart(|| bincode1::serialize(v).unwrap()),
        "postcard" => apart(|| postcard::to_stdvec(v).unwrap()),
        "serde_zap" => apart(|| serde_zap::to_vec(v).unwrap()),
        "bincode2" => {
            apart(|| bincode2::serde::encode_to_vec(v, bincode2::config::standard()).unwrap())
        }
        "bincode2_legacy" => {
            apart(|| bincode2::serde::encode_to_vec(v, bincode2::config::legacy()).unwrap())
        }
        "rmp_serde" => apart(|| rmp_serde::to_vec(v).unwrap()),
        "bitcode" => apart(|| bitcode::serialize(v).unwrap()),
        "wincode" => apart(|| plain::win_to_vec(v)),
        "memcpy" | "serde_bound" | "serde_bound_handle" => apart(|| plain.to_vec()),
        _ => panic!("unknown format {format}"),
    }
}

fn encode_reuse<T: Data>(format: &str, v: &T, buf: &mut Vec<u8>, plain: &[u8]) {
    buf.clear();
    match format {
        "kiln" => apart(|| kiln_serde::to_extend(buf, v).unwrap()),
        "kiln_bincode" => apart(|| kiln_serde::bincode::serialize_into(&mut *buf, v).unwrap()),
        "bincode1" => apart(|| bincode1::serialize_into(&mut *buf, v).unwrap()),
        "postcard" => apart(|| *buf = postcard::to_extend(v, std::mem::take(buf)).unwrap()),
        "serde_zap" => apart(|| serde_zap::to_writer(v, buf).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::encode_into_std_write(v, buf, bincode2::config::standard()).unwrap();
        }),
        "bincode2_legacy" => apart(|| {
            bincode2::serde::encode_into_std_write(v, buf, bincode2::config::legacy()).unwrap();
        }),
        "rmp_serde" => apart(|| rmp_serde::encode::write(buf, v).unwrap()),
        "wincode" => apart(|| plain::win_reuse(v, buf)),
        "memcpy" => apart(|| buf.extend_from_slice(plain)),
        _ => panic!("{format} has no reused-buffer serialize"),
    }
}

fn encode_fixed<T: Data>(format: &str, v: &T, buf: &mut [u8], plain: &[u8]) -> usize {
    match format {
        "kiln" => apart(|| kiln_serde::to_slice(buf, v).unwrap()),
        "postcard" => apart(|| postcard::to_slice(v, buf).unwrap().len()),
        "serde_zap" => apart(|| serde_zap::to_slice(v, buf).unwrap().len()),
        "bincode2" => apart(|| {
            bincode2::serde::encode_into_slice(v, buf, bincode2::config::standard()).unwrap()
        }),
        "wincode" => apart(|| plain::win_fixed(v, buf)),
        "memcpy" => apart(|| {
            buf[..plain.len()].copy_from_slice(plain);
            plain.len()
        }),
        _ => panic!("{format} has no fixed-slice serialize here"),
    }
}

fn decode<T: Data>(format: &str, bytes: &[u8]) -> T {
    match format {
        "kiln" => apart(|| kiln_serde::from_slice(bytes).unwrap()),
        "bincode1" => apart(|| bincode1::deserialize(bytes).unwrap()),
        "postcard" => apart(|| postcard::from_bytes(bytes).unwrap()),
        "serde_zap" => apart(|| serde_zap::from_bytes(bytes).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::decode_from_slice(bytes, bincode2::config::standard())
                .unwrap()
                .0
        }),
        "bincode2_legacy" => apart(|| {
            bincode2::serde::decode_from_slice(bytes, bincode2::config::legacy())
                .unwrap()
                .0
        }),
        "rmp_serde" => apart(|| rmp_serde::from_slice(bytes).unwrap()),
        "bitcode" => apart(|| bitcode::deserialize(bytes).unwrap()),
        "wincode" => apart(|| plain::win_decode(bytes)),
        _ => panic!("unknown format {format}"),
    }
}

/// Decode from an `io::Read` (a `&[u8]` as the reader, so the count is
/// the decoder's reads, not a file's).
fn decode_reader<T: Data>(format: &str, bytes: &[u8]) -> T {
    match format {
        "kiln" => apart(|| kiln_serde::from_reader(&mut &bytes[..]).unwrap()),
        "bincode1" => apart(|| bincode1::deserialize_from(&mut &bytes[..]).unwrap()),
        "kiln_bincode" => apart(|| kiln_serde::bincode::deserialize_from(&mut &bytes[..]).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::decode_from_std_read(&mut &bytes[..], bincode2::config::standard())
                .unwrap()
        }),
        "rmp_serde" => apart(|| rmp_serde::from_read(&mut &bytes[..]).unwrap()),
        _ => panic!("{format} has no reader decode here"),
    }
}

/// `derc`: [`decode_reader`]'s calls over a `&mut Cursor<&[u8]>`.
fn decode_cursor<T: Data>(format: &str, bytes: &[u8]) -> T {
    let c = || std::io::Cursor::new(bytes);
    match format {
        "kiln" => apart(|| kiln_serde::from_reader(&mut c()).unwrap()),
        "bincode1" => apart(|| bincode1::deserialize_from(&mut c()).unwrap()),
        "kiln_bincode" => apart(|| kiln_serde::bincode::deserialize_from(&mut c()).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::decode_from_std_read(&mut c(), bincode2::config::standard()).unwrap()
        }),
        "rmp_serde" => apart(|| rmp_serde::from_read(&mut c()).unwrap()),
        _ => panic!("{format} has no cursor decode here"),
    }
}

/// `ders`: [`decode_reader`]'s calls over a `BufReader` (a file or a
/// socket), which no format can take as a slice.
fn decode_stream<T: Data>(format: &str, bytes: &[u8]) -> T {
    let r = || std::io::BufReader::with_capacity(1 << 16, bytes);
    match format {
        "kiln" => apart(|| kiln_serde::from_reader(r()).unwrap()),
        // `from_bufread`: values from a copy of the BufReader's buffer.
        "kiln_bufread" => apart(|| kiln_serde::from_bufread(r()).unwrap()),
        "kiln_bufread_limit" => apart(|| {
            kiln_serde::Options::new()
                .with_limit(u64::MAX / 2)
                .from_bufread(r())
                .unwrap()
        }),
        // `Options` with a cap other than the total limit: no limit test.
        "kiln_options" => apart(|| {
            kiln_serde::Options::new()
                .with_max_depth(64)
                .from_reader(r())
                .unwrap()
        }),
        // The same with a total limit (past the input): a test per read.
        "kiln_limit" => apart(|| {
            kiln_serde::Options::new()
                .with_limit(u64::MAX / 2)
                .from_reader(r())
                .unwrap()
        }),
        "bincode1" => apart(|| bincode1::deserialize_from(r()).unwrap()),
        "kiln_bincode" => apart(|| kiln_serde::bincode::deserialize_from(r()).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::decode_from_std_read(&mut r(), bincode2::config::standard()).unwrap()
        }),
        "rmp_serde" => apart(|| rmp_serde::from_read(r()).unwrap()),
        _ => panic!("{format} has no stream decode here"),
    }
}

fn decode_borrowed<'a>(format: &str, bytes: &'a [u8]) -> log::LogsRef<'a> {
    match format {
        "kiln" => apart(|| kiln_serde::from_slice(bytes).unwrap()),
        "bincode1" => apart(|| bincode1::deserialize(bytes).unwrap()),
        "postcard" => apart(|| postcard::from_bytes(bytes).unwrap()),
        "serde_zap" => apart(|| serde_zap::from_bytes(bytes).unwrap()),
        "bincode2" => apart(|| {
            bincode2::serde::borrow_decode_from_slice(bytes, bincode2::config::standard())
                .unwrap()
                .0
        }),
        "bincode2_legacy" => apart(|| {
            bincode2::serde::borrow_decode_from_slice(bytes, bincode2::config::legacy())
                .unwrap()
                .0
        }),
        "rmp_serde" => apart(|| rmp_serde::from_slice(bytes).unwrap()),
        "bitcode" => apart(|| bitcode::deserialize(bytes).unwrap()),
        _ => panic!("unknown format {format}"),
    }
}

#[inline(never)]
fn work<T: Data>(op: &str, format: &str, value: &T, iters: usize) {
    let plain = kiln_serde::to_vec(value).unwrap();
    let bytes = encode(format, value, &plain);
    let mut buf = Vec::new();
    if op == "serw" {
        // A reused buffer, as in benches/serde.rs: warmed by one encode
        // (in the 0-iteration run too, so not counted) and cleared before
        // each, so every counted encode finds the room it needs.
        encode_reuse(format, value, &mut buf, &plain);
    }
    if format.starts_with("serde_bound") {
        assert!(
            op == "de" && bound::mesh(&plain).is_some() && bound::mesh_handle(&plain).is_some(),
            "serde_bound is mesh decode only"
        );
    }
    let mut slice = vec![0u8; bytes.len() + 16];
    let start = std::time::Instant::now();
    for _ in 0..iters {
        match op {
            "ser" => drop(black_box(encode(format, black_box(value), &plain))),
            "serw" => {
                buf.clear();
                encode_reuse(format, black_box(value), &mut buf, &plain);
                black_box(&buf);
            }
            "serf" => {
                black_box(encode_fixed(format, black_box(value), &mut slice, &plain));
            }
            "de" if format == "memcpy" => drop(black_box(black_box(&plain[..]).to_vec())),
            "de" if format == "serde_bound" => drop(black_box(bound::mesh(black_box(&plain)))),
            "de" if format == "serde_bound_handle" => {
                drop(black_box(bound::mesh_handle(black_box(&plain))))
            }
            "de" => drop(black_box(decode::<T>(format, black_box(&bytes)))),
            "deb" => drop(black_box(decode_borrowed(format, black_box(&bytes)))),
            "der" => drop(black_box(decode_reader::<T>(format, black_box(&bytes)))),
            "ders" => drop(black_box(decode_stream::<T>(format, black_box(&bytes)))),
            "derc" => drop(black_box(decode_cursor::<T>(format, black_box(&bytes)))),
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

// ---------------------------------------------------------------------------
// The 32-byte message of benches/framed.rs.

#[path = "datasets/tick.rs"]
mod tick;
use tick::{Tick, TICK};

/// Runs `f` `iters` times (the op is chosen once, outside the loop, so the
/// counts hold only the operation).
#[inline(always)]
fn repeat(iters: usize, mut f: impl FnMut()) {
    for _ in 0..iters {
        f();
    }
}

/// [`repeat`] in a function of its own per closure (as [`apart`]): the
/// `tick32` loops shared one function's registers, and one op's code
/// moved another's count by an instruction or two.
#[inline(never)]
fn repeat_apart(iters: usize, f: impl FnMut()) {
    repeat(iters, f);
}

/// `tick32 serio`: into a buffered stream (a file or socket behind a
/// `BufWriter`). postcard's `to_io` is left out: compiled into this binary
/// it changed LTO's inlining of kiln's `mesh` decode (12.88 -> 16.88 M).
#[inline(never)]
fn tick_io(format: &str, iters: usize) {
    let mut io = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
    match format {
        "kiln" => repeat_apart(iters, || {
            kiln_serde::to_writer(&mut io, black_box(&TICK)).unwrap();
        }),
        "bincode1" => repeat_apart(iters, || {
            bincode1::serialize_into(&mut io, black_box(&TICK)).unwrap();
        }),
        _ => panic!("unknown tick32 serio format {format}"),
    }
}

#[inline(never)]
fn work_tick(op: &str, format: &str, iters: usize) {
    use kiln_serde::{frame, framed, Schema};
    let schema: Schema<Tick> = Schema::new().unwrap();
    let plain = kiln_serde::to_vec(&TICK).unwrap();
    let framed_bytes = framed::to_vec(&TICK).unwrap();
    let b1_bytes = bincode1::serialize(&TICK).unwrap();
    let pc_bytes = postcard::to_stdvec(&TICK).unwrap();
    let mut buf = Vec::with_capacity(64);
    if op == "serio" {
        return tick_io(format, iters);
    }
    let start = std::time::Instant::now();
    match (op, format) {
        ("ser", "kiln") => repeat_apart(iters, || {
            black_box(kiln_serde::to_vec(black_box(&TICK)).unwrap());
        }),
        ("ser", "framed") => repeat_apart(iters, || {
            black_box(framed::to_vec(black_box(&TICK)).unwrap());
        }),
        ("ser", "framed_schema") => repeat_apart(iters, || {
            black_box(schema.to_vec(black_box(&TICK)).unwrap());
        }),
        ("serw", "kiln") => repeat_apart(iters, || {
            buf.clear();
            kiln_serde::to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(&buf);
        }),
        ("serw", "framed") => repeat_apart(iters, || {
            buf.clear();
            framed::to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(&buf);
        }),
        ("serw", "framed_schema") => repeat_apart(iters, || {
            buf.clear();
            schema.to_extend(&mut buf, black_box(&TICK)).unwrap();
            black_box(&buf);
        }),
        ("de", "kiln") => repeat_apart(iters, || {
            black_box(kiln_serde::from_slice::<Tick>(black_box(&plain)).unwrap());
        }),
        ("de", "framed") => repeat_apart(iters, || {
            black_box(framed::from_slice::<Tick>(black_box(&framed_bytes)).unwrap());
        }),
        ("de", "framed_schema") => repeat_apart(iters, || {
            black_box(schema.from_slice(black_box(&framed_bytes)).unwrap());
        }),
        ("ser", "bincode1") => repeat_apart(iters, || {
            black_box(bincode1::serialize(black_box(&TICK)).unwrap());
        }),
        ("ser", "postcard") => repeat_apart(iters, || {
            black_box(postcard::to_stdvec(black_box(&TICK)).unwrap());
        }),
        ("serw", "kiln_bincode") => repeat_apart(iters, || {
            buf.clear();
            kiln_serde::bincode::serialize_into(&mut buf, black_box(&TICK)).unwrap();
            black_box(&buf);
        }),
        ("serw", "bincode1") => repeat_apart(iters, || {
            buf.clear();
            bincode1::serialize_into(&mut buf, black_box(&TICK)).unwrap();
            black_box(&buf);
        }),
        ("serw", "postcard") => repeat_apart(iters, || {
            buf.clear();
            buf = postcard::to_extend(black_box(&TICK), std::mem::take(&mut buf)).unwrap();
            black_box(&buf);
        }),
        ("de", "bincode1") => repeat_apart(iters, || {
            black_box(bincode1::deserialize::<Tick>(black_box(&b1_bytes)).unwrap());
        }),
        ("de", "postcard") => repeat_apart(iters, || {
            black_box(postcard::from_bytes::<Tick>(black_box(&pc_bytes)).unwrap());
        }),
        ("hash", "framed") => repeat_apart(iters, || {
            black_box(kiln_serde::schema::hash::<Tick>().unwrap());
        }),
        ("parse", "framed") => repeat_apart(iters, || {
            black_box(frame::parse(black_box(&framed_bytes)).unwrap());
        }),
        _ => panic!("unknown tick32 op/format {op} {format}"),
    }
    if iters > 0 {
        eprintln!(
            "tick32 {op} {format}: {:?} per iteration",
            start.elapsed() / iters as u32
        );
    }
}

// ---------------------------------------------------------------------------
// The tensor cases of benches/tensors.rs (f32, the same names and sizes).

#[inline(never)]
fn work_tensors(count: usize, elems: usize, op: &str, format: &str, iters: usize) {
    use kiln_serde::tensors::{TensorSpec, TensorsBuilder, TensorsView};
    use safetensors::tensor::TensorView as StView;
    let names: Vec<String> = (0..count).map(|i| format!("t{i:04}")).collect();
    let data: Vec<Vec<f32>> = (0..count)
        .map(|t| (0..elems).map(|i| (t * elems + i) as f32).collect())
        .collect();
    let builder = || {
        let mut b = TensorsBuilder::new();
        for (name, t) in names.iter().zip(&data) {
            b.push(TensorSpec::from_slice(&[t.len() as u64], t).named(name.as_str()));
        }
        b
    };
    let st_views = || -> Vec<(&str, StView<'_>)> {
        names
            .iter()
            .zip(&data)
            .map(|(n, t)| {
                let v = StView::new(
                    safetensors::Dtype::F32,
                    vec![t.len()],
                    bytemuck::cast_slice(t),
                );
                (n.as_str(), v.unwrap())
            })
            .collect()
    };
    let built = builder().build().unwrap();
    let st = safetensors::serialize(st_views(), None).unwrap();
    let mut buf: Vec<u8> = Vec::with_capacity(built.as_bytes().len());
    let start = std::time::Instant::now();
    match (op, format) {
        ("write", "kiln") => repeat(iters, || {
            buf.clear();
            builder().write_to(&mut buf).unwrap();
            black_box(&buf);
        }),
        ("write", "memcpy") => repeat(iters, || {
            buf.clear();
            for t in &data {
                buf.extend_from_slice(bytemuck::cast_slice(t));
            }
            black_box(&buf);
        }),
        ("write", "safetensors") => repeat(iters, || {
            drop(black_box(safetensors::serialize(st_views(), None).unwrap()));
        }),
        ("build", "kiln") => repeat(iters, || drop(black_box(builder().build().unwrap()))),
        ("view", "kiln") => repeat(iters, || {
            let v =
                TensorsView::from_bytes(black_box(built.as_bytes()), &kiln_serde::Limits::DEFAULT)
                    .unwrap();
            for t in v.iter() {
                black_box((t.name().unwrap(), t.try_as_slice::<f32>().unwrap()));
            }
        }),
        ("view", "safetensors") => repeat(iters, || {
            let v = safetensors::SafeTensors::deserialize(black_box(&st)).unwrap();
            for n in &names {
                let t = v.tensor(n).unwrap();
                black_box(bytemuck::cast_slice::<u8, f32>(t.data()));
            }
        }),
        _ => panic!("unknown tensors op/format {op} {format}"),
    }
    if iters > 0 {
        eprintln!(
            "tensors {count} {op} {format}: {:?} per iteration",
            start.elapsed() / iters as u32
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dataset, op, format, iters] = args.as_slice() else {
        eprintln!("usage: profile <log|mesh|savedata|updates|floats> <ser|serw|serf|de|deb> <kiln|bincode1|bincode2|bincode2_legacy|postcard|serde_zap|rmp_serde|bitcode|wincode|memcpy> <iters>");
        eprintln!(
            "       profile tick32 <ser|serw|serio|de|hash|parse> <kiln|framed|framed_schema> <iters>"
        );
        eprintln!("       profile <tensors1000|tensors256m|tensor1m|tensor64m> <write|build|view> <kiln|memcpy|safetensors> <iters>");
        return;
    };
    let iters: usize = iters.parse().expect("iters is a number");
    match dataset.as_str() {
        "tick32" => return work_tick(op, format, iters),
        "tensors1000" => return work_tensors(1000, 1024, op, format, iters),
        "tensors256m" => return work_tensors(8, 8 * 1024 * 1024, op, format, iters),
        "tensor1m" => return work_tensors(1, 256 * 1024, op, format, iters),
        "tensor64m" => return work_tensors(1, 16 * 1024 * 1024, op, format, iters),
        _ => {}
    }
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
        #[cfg(feature = "floats")]
        "floats" => work(op, format, &datasets::floats::generate(&mut rng), iters),
        _ => panic!("unknown dataset {dataset}"),
    }
}
