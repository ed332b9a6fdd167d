//! kiln's `framed::to_extend` into a reused `Vec` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    let hash = kiln_serde::schema::hash::<common::Tick>().unwrap();
    common::encode_into_framed("kiln/framed_to_extend", hash, |o, t| {
        kiln_serde::framed::to_extend(o, t).unwrap()
    });
}
