//! kiln's `bincode::serialize` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_new("kiln_bincode/serialize", |t| {
        kiln_serde::bincode::serialize(t).unwrap()
    });
}
