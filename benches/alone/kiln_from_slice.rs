//! kiln's `from_slice` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("kiln/from_slice", |m| kiln_serde::from_slice(m).unwrap());
}
