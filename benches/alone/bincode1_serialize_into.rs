//! bincode 1.3's `serialize_into(&mut Vec)` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_into("bincode1/serialize_into", |o, t| {
        bincode1::serialize_into(o, t).unwrap()
    });
}
