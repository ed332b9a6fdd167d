//! bincode 1.3's `deserialize_from(&mut &[u8])` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode("bincode1/deserialize_from", |m| {
        bincode1::deserialize_from(&mut &m[..]).unwrap()
    });
}
