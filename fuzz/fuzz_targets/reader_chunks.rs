//! `from_reader` over a reader that delivers the bytes in short chunks
//! (with `Interrupted` retries) agrees with `take_from_slice`, value by
//! value, for up to three values back to back, and so does `from_reader`
//! over a `&mut &[u8]` (decoded in place), and `from_bufread` over a
//! `BufReader` of the same chunks agrees with `from_reader` (value,
//! error, where the stream is left); under a total size limit taken
//! from the chunk plan, the three agree too. Input layout:
//! `[selector, k, k chunk-size bytes, payload...]` (see `kiln_fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if let Some((sel, plan, payload)) = kiln_fuzz::split_chunks_input(input) {
        kiln_fuzz::dispatch_owned!(sel, check_reader, payload, plan);
    }
});
