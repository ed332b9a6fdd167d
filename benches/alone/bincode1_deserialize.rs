//! bincode 1.3's `deserialize` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("bincode1/deserialize", |m| {
        bincode1::deserialize(m).unwrap()
    });
}
