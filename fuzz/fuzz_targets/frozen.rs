//! Frozen decoding of many types (selector byte first, see `kiln_fuzz::TYPES`)
//! through `from_slice` and `take_from_slice`; whatever decodes must
//! re-encode to the identical bytes (canonical decoding), and errors must
//! agree between the two entry points and carry an offset.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    if let Some((&sel, data)) = input.split_first() {
        kiln_fuzz::dispatch!(sel, check_frozen, data);
    }
});
