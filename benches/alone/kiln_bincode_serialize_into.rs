//! kiln's `bincode::serialize_into(&mut Vec)` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_into("kiln_bincode/serialize_into", |o, t| {
        kiln_serde::bincode::serialize_into(o, t).unwrap()
    });
}
