//! kiln's `bincode::serialize_into(&mut Vec)` of 154-byte, 24-field orders into a reused `Vec`, alone in a
//! program (see common.rs and order.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_wides_into("kiln_bincode/serialize_into (wide order)", |o, t| {
        kiln_serde::bincode::serialize_into(o, t).unwrap()
    });
}
