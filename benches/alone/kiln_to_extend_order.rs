//! kiln's `to_extend` of 90-byte orders into a reused `Vec`, alone in a program (see
//! common.rs and order.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::encode_orders_into("kiln/to_extend (order)", |o, t| {
        kiln_serde::to_extend(o, t).unwrap()
    });
}
