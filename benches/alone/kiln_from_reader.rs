//! kiln's `from_reader(&mut &[u8])` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("kiln/from_reader", |m| {
        kiln_serde::from_reader(&mut &m[..]).unwrap()
    });
}
