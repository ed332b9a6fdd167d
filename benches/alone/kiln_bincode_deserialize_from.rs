//! kiln's `bincode::deserialize_from(&mut &[u8])` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("kiln_bincode/deserialize_from", |m| {
        kiln_serde::bincode::deserialize_from(&mut &m[..]).unwrap()
    });
}
