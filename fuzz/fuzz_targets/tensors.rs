//! Tensor directories: validation, views, owned copies, the trusted
//! reader, the serde handoff (standalone and inside a record), streams in
//! short chunks, and `check_buffer`. Whatever validates must rebuild to
//! the identical bytes. Input: `[mode, k, k chunk-size bytes, bytes...]`;
//! `mode % 3`: 0 bare block, 1 `Rec { id: u8, t: Tensors, tail: String }`,
//! 2 `check_buffer` (bare or framed file).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if let Some((mode, plan, data)) = kiln_fuzz::split_chunks_input(input) {
        match mode % 3 {
            0 => kiln_fuzz::check_block(data, plan),
            1 => kiln_fuzz::check_record(data, plan),
            _ => kiln_fuzz::check_file(data),
        }
    }
});
