//! kiln's `bincode::deserialize_from(&mut BufReader)`, messages back to back, alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode_buffered("kiln_bincode/deserialize_from_buffered", |r| {
        kiln_serde::bincode::deserialize_from(r).unwrap()
    });
}
