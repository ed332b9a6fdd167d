//! kiln's `Schema::to_extend` (a kept `Schema`) into a reused `Vec` alone in a program (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    let schema = kiln_serde::Schema::<common::Tick>::new().unwrap();
    common::encode_into_framed("kiln/schema_to_extend", schema.hash(), |o, t| {
        schema.to_extend(o, t).unwrap()
    });
}
