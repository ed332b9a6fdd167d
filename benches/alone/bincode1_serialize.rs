//! bincode 1.3's `serialize` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_new("bincode1/serialize", |t| bincode1::serialize(t).unwrap());
}
