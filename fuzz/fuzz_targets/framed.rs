//! Framed decoding (16-byte header with the schema hash, then one Frozen
//! value) of the `reader_chunks` types, from a slice and from a stream in
//! short chunks. Input: `[selector, k, k chunk-size bytes, frame...]`;
//! bit 4 of `k` sets `require_hash`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if let Some((sel, plan, data)) = kiln_fuzz::split_chunks_input(input) {
        let require = input[1] & 0x10 != 0;
        kiln_fuzz::dispatch_owned!(sel, check_framed, data, plan, require);
    }
});
