//! Opening a checkpoint: `kiln_serde::TensorsFile::open` (map, validate the
//! header, descriptors, heap and gaps, never the payloads) plus lookups by
//! name, against `safetensors::SafeTensors::deserialize` on a mapping of
//! the same model (parse and validate its JSON header) plus the same
//! lookups. Two payload sizes with the same 1,000 tensors, so a time that is
//! flat in payload size shows that no payload page is read.
//!
//! ```text
//! cargo bench -p kiln_benches --bench checkpoints
//! KILN_BENCH_QUICK=1 cargo bench -p kiln_benches --bench checkpoints
//! ```
//!
//! Models (written once under `target/kiln-bench/`, reused when present):
//! 1,000 f32 tensors named `model.layers.NNNN.weight`, each of `[E]`
//! elements: E = 1,024 (`4k`) or 262,144 (`1m`, 1 GiB in all), payloads
//! that are multiples of 64 bytes as real weights are, so there is no gap;
//! and the worst case E = 1,025 (`4k-odd`) or 262,145 (`1m-odd`): every
//! payload is 4 bytes past a multiple of 64, so each of the 999 gaps is 60
//! bytes that the validator must read (one page fault per boundary).
//! The Kiln file is a checkpoint with one metadata entry; the safetensors
//! file has the same `__metadata__`.
//!
//! Bench ids: `checkpoints/<model>/open_lookup/<kiln|safetensors>`: open
//! the file and look up 10 tensors by name, touching one element of each.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::Criterion;
use kiln_serde::checkpoint::write_head;
use kiln_serde::tensors::{Dtype, TensorSpec, TensorsWriter};
use kiln_serde::{Limits, TensorsFile};
use safetensors::tensor::TensorView as StView;
use safetensors::{Dtype as StDtype, SafeTensors};

const COUNT: usize = 1000;

fn name(i: usize) -> String {
    format!("model.layers.{i:04}.weight")
}

fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/kiln-bench");
    std::fs::create_dir_all(&d).expect("bench directory");
    d
}

/// Writes both files of a model with tensors of `elems` f32 elements.
fn models(label: &str, elems: usize) -> (PathBuf, PathBuf) {
    let kiln = dir().join(format!("ckpt-{label}.kiln"));
    let st = dir().join(format!("ckpt-{label}.safetensors"));
    let bytes = elems * 4;
    let payload: Vec<u8> = (0..bytes).map(|k| (k % 251) as u8).collect();
    if !kiln.exists() {
        let meta = BTreeMap::from([("format".to_string(), "pt".to_string())]);
        let mut f = std::io::BufWriter::new(File::create(&kiln).expect("create"));
        f.write_all(&write_head(&meta).expect("head"))
            .expect("write");
        let specs = (0..COUNT)
            .map(|i| TensorSpec::declared(Dtype::F32, &[elems as u64], bytes as u64).named(name(i)))
            .collect();
        let mut w = TensorsWriter::new(&mut f, specs, &Limits::default()).expect("plan");
        for _ in 0..COUNT {
            w.write_payload(&payload).expect("payload");
        }
        w.finish().expect("finish");
        f.flush().expect("flush");
    }
    if !st.exists() {
        let views: Vec<(String, StView<'_>)> = (0..COUNT)
            .map(|i| {
                (
                    name(i),
                    StView::new(StDtype::F32, vec![elems], &payload).expect("view"),
                )
            })
            .collect();
        let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
        safetensors::serialize_to_file(views, Some(meta), &st).expect("safetensors");
    }
    (kiln, st)
}

/// The 10 names looked up.
fn probes() -> Vec<String> {
    (0..10).map(|k| name(k * 97 + 3)).collect()
}

fn bench(c: &mut Criterion) {
    let quick = std::env::var_os("KILN_BENCH_QUICK").is_some();
    let mut g = c.benchmark_group("checkpoints");
    if quick {
        g.warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_secs(1));
        g.sample_size(20);
    }
    let names = probes();
    for (label, elems) in [
        ("4k", 1024usize),
        ("1m", 262_144),
        ("4k-odd", 1025),
        ("1m-odd", 262_145),
    ] {
        let (kiln, st) = models(label, elems);
        g.bench_function(format!("{label}/open_lookup/kiln"), |b| {
            b.iter(|| {
                let f = TensorsFile::open(&kiln).expect("open");
                let mut sum = 0u32;
                for n in &names {
                    let t = f.by_name(n).expect("gap bytes").expect("tensor");
                    sum += u32::from(t.data()[0]);
                }
                black_box(sum)
            })
        });
        g.bench_function(format!("{label}/open_lookup/safetensors"), |b| {
            b.iter(|| {
                let file = File::open(&st).expect("open");
                // SAFETY: the bench's own file, not modified while mapped.
                let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
                let s = SafeTensors::deserialize(&map).expect("deserialize");
                let mut sum = 0u32;
                for n in &names {
                    sum += u32::from(s.tensor(n).expect("tensor").data()[0]);
                }
                black_box(sum)
            })
        });
    }
    g.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
