//! bincode 1.3's `deserialize_from(&mut BufReader)`, messages back to back, alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode_buffered("bincode1/deserialize_from_buffered", |r| {
        bincode1::deserialize_from(r).unwrap()
    });
}
