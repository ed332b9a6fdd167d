//! `floats`: the 1,500,000 `f32` of `mesh` as one flat `Vec<f32>` (a
//! numeric array in a record: what kiln reads and writes in bulk).

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

use super::Rng;

pub const FLOATS: usize = 1_500_000;

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Floats {
    pub values: Vec<f32>,
}

pub fn generate(rng: &mut Rng) -> Floats {
    Floats {
        values: (0..FLOATS).map(|_| rng.f32()).collect(),
    }
}
