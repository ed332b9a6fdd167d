//! The 32-byte message of the frame benches (`benches/framed.rs`) and of the
//! callgrind driver (`benches/profile.rs`, dataset `tick32`). Included by
//! path from both, not through `datasets/mod.rs` (the serde bench has no
//! use for it).

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

/// A 32-byte market tick: 8 + 8 + 4 + 4 + 4 + 2 + 2 bytes, no length
/// prefixes (Frozen structs are positional and fixed-width here).
#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, PartialEq, Debug, Clone, Copy)]
pub struct Tick {
    pub id: u64,
    pub ts_ns: u64,
    pub price: f32,
    pub qty: f32,
    pub venue: u32,
    pub flags: u16,
    pub seq: u16,
}

pub const TICK: Tick = Tick {
    id: 0x0123_4567_89ab_cdef,
    ts_ns: 1_767_225_600_000_000_000,
    price: 101.25,
    qty: 3.5,
    venue: 7,
    flags: 0b1010,
    seq: 4242,
};
