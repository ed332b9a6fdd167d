//! kiln's `bincode::deserialize` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("kiln_bincode/deserialize", |m| {
        kiln_serde::bincode::deserialize(m).unwrap()
    });
}
