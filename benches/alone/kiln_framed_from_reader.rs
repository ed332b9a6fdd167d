//! kiln's `framed::from_reader(&mut &[u8])` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    let hash = kiln_serde::schema::hash::<common::Tick>().unwrap();
    common::decode_framed("kiln/framed_from_reader", hash, |m| {
        kiln_serde::framed::from_reader(&mut &m[..]).unwrap()
    });
}
