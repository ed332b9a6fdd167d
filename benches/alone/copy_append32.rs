//! The floor of `kiln_to_extend`: each message's 32 bytes, built before the
//! timing, appended by one `extend_from_slice` (see common.rs).

#[allow(dead_code)]
mod common;

fn main() {
    common::append_bytes::<32>("copy/append32", None);
}
