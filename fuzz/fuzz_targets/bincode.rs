//! `kiln_serde::bincode` (bincode 1.3's API) on arbitrary bytes: every
//! entry point and option combination, no panics, no allocation past the
//! input, canonical round trips. Layout `[options, limit, selector, data]`;
//! see `kiln_fuzz::bincode`.
#![no_main]

use kiln_fuzz::bincode::{check_slice, check_stream, Counting, Plan};
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static ALLOC: Counting = Counting;

fuzz_target!(|input: &[u8]| {
    if let Some((plan, rest)) = Plan::split(input) {
        if let Some((&sel, data)) = rest.split_first() {
            kiln_fuzz::dispatch!(sel, check_slice, plan, data);
            kiln_fuzz::dispatch_owned!(sel, check_stream, plan, data);
        }
    }
});
