//! What the CLI tests share: running the `kiln` binary and small fixtures.
//! Included as `mod support;` by each test file.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use kiln_serde::frame;
use kiln_serde::tensors::{Dtype, Quant, TensorSpec, Tensors, TensorsBuilder};
use tempfile::TempDir;

pub fn kiln() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(args: &[&str]) -> Run {
    let out = kiln().args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub fn framed(block: &[u8], hash: Option<u64>) -> Vec<u8> {
    let mut v = frame::encode(hash).to_vec();
    v.extend_from_slice(block);
    v
}

/// Two named tensors: an f32 matrix and a bf16 vector.
pub fn small() -> Tensors {
    let w = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [half::bf16::from_f32(0.5), half::bf16::from_f32(-2.0)];
    let mut builder = TensorsBuilder::new();
    builder.push(TensorSpec::from_slice(&[2, 3], &w).named("w"));
    builder.push(TensorSpec::from_slice(&[2], &b).named("b"));
    builder.build().unwrap()
}

/// A directory with a quantized u4 block, its f16 scale, an opaque layout
/// and an unnamed tensor.
pub fn rich() -> Tensors {
    let w = [0.25f32; 6];
    let scale = [half::f16::from_f32(0.5), half::f16::from_f32(0.125)];
    let mut b = TensorsBuilder::new();
    b.push(TensorSpec::from_slice(&[2, 3], &w).named("w"));
    let s = b.push(TensorSpec::from_slice(&[2], &scale).named("q.scale"));
    b.push(
        TensorSpec::new(Dtype::U4, &[64], vec![0x31u8; 32])
            .named("q")
            .with_quant(Quant::PerBlock {
                scale: s as u32,
                block_elems: 32,
            }),
    );
    b.push(TensorSpec::opaque(4096, "q4_K", 256, 144, &[256], vec![9u8; 144]).named("k"));
    b.push(TensorSpec::new(Dtype::F8E4M3, &[1], vec![0x38u8]));
    b.build().unwrap()
}
