//! kiln's `to_extend` into a reused `Vec` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_into("kiln/to_extend", |o, t| {
        kiln_serde::to_extend(o, t).unwrap()
    });
}
