//! The floor of `kiln_framed_to_extend`: each framed message's 48 bytes
//! (header and value), built before the timing, appended by one
//! `extend_from_slice` (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    let hash = kiln_serde::schema::hash::<common::Tick>().unwrap();
    common::append_bytes::<48>("copy/append48", Some(hash));
}
