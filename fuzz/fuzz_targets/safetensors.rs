//! The `kiln convert` paths on hostile input: safetensors headers and
//! sharded-checkpoint index JSON. Errors only, never a panic, and a header
//! that claims 2^60 bytes allocates nothing (libFuzzer's malloc limit
//! catches a large allocation). Input: `[mode, bytes...]`; `mode % 2`:
//! 0 the bytes are a safetensors file, converted to Kiln (and, when that
//! succeeds, back, which must give the same tensors and metadata);
//! 1 the bytes are an index, parsed as `model.safetensors.index.json`
//! and `model.kiln.index.json` (every accepted shard name is a plain file
//! name).
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use kiln_cli::{convert, st_header};
use libfuzzer_sys::fuzz_target;

/// One scratch directory per fuzzing process.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("kiln-fuzz-safetensors-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch directory");
        d
    })
}

fn safetensors_file(data: &[u8]) {
    // The header reader alone, from memory.
    let parsed = st_header::read_header(&mut &data[..], data.len() as u64);
    let dir = scratch();
    let input = dir.join("in.safetensors");
    let kiln = dir.join("out.kiln");
    let back = dir.join("back.safetensors");
    std::fs::write(&input, data).expect("write input");
    let _ = std::fs::remove_file(&kiln);
    let converted = convert::safetensors_to_kiln(&input, &kiln, false, None);
    match (&parsed, converted) {
        (Err(_), Ok(_)) => panic!("the converter accepted a header the reader refuses"),
        (Ok(h), Ok(w)) => {
            assert_eq!(w.names.len(), h.tensors.len());
            let bytes = std::fs::read(&kiln).expect("output");
            let ck = kiln_serde::CheckpointView::from_bytes(&bytes, &Default::default())
                .expect("the converter writes valid Kiln");
            assert_eq!(ck.tensors().len(), h.tensors.len());
            // And back: the same tensors, payloads and metadata.
            convert::kiln_to_safetensors(&kiln, &back, None).expect("back to safetensors");
            let again = std::fs::read(&back).expect("back");
            let h2 = st_header::read_header(&mut &again[..], again.len() as u64)
                .expect("the way back writes valid safetensors");
            assert_eq!(h.metadata, h2.metadata);
            assert_eq!(h.tensors.len(), h2.tensors.len());
            for (a, b) in h.tensors.iter().zip(&h2.tensors) {
                assert_eq!((&a.name, a.dtype, &a.shape), (&b.name, b.dtype, &b.shape));
                let pa = &data[(h.data_start + a.begin) as usize..(h.data_start + a.end) as usize];
                let pb =
                    &again[(h2.data_start + b.begin) as usize..(h2.data_start + b.end) as usize];
                assert_eq!(pa, pb, "payload of {:?}", a.name);
            }
        }
        _ => assert!(!kiln.exists(), "a failed conversion left its output"),
    }
}

fn index(data: &[u8]) {
    for name in ["model.safetensors.index.json", "model.kiln.index.json"] {
        if let Ok(i) = kiln_serde::checkpoint::ShardIndex::parse(name, data) {
            for s in i.shards() {
                assert!(!s.contains('/') && !s.contains('\\') && s != ".." && s != ".");
            }
        }
    }
}

fuzz_target!(|input: &[u8]| {
    if let Some((&mode, data)) = input.split_first() {
        match mode % 2 {
            0 => safetensors_file(data),
            _ => index(data),
        }
    }
});
