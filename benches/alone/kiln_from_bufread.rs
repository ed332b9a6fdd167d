//! kiln's `from_bufread(&mut BufReader)`, messages back to back, alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::decode_buffered("kiln/from_bufread", |r| {
        kiln_serde::from_bufread(r).unwrap()
    });
}
