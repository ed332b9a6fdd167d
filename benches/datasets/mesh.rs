//! `mesh`: 125,000 triangles of four `Vector3` (three vertices and a normal).

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

use super::Rng;

pub const TRIANGLES: usize = 125_000;

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq)]
pub struct Vector3 {
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    pub v0: Vector3,
    pub v1: Vector3,
    pub v2: Vector3,
    pub normal: Vector3,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Mesh {
    pub triangles: Vec<Triangle>,
}

fn vector(rng: &mut Rng) -> Vector3 {
    Vector3 {
        x: rng.f32(),
        y: rng.f32(),
        z: rng.f32(),
    }
}

pub fn generate(rng: &mut Rng) -> Mesh {
    Mesh {
        triangles: (0..TRIANGLES)
            .map(|_| Triangle {
                v0: vector(rng),
                v1: vector(rng),
                v2: vector(rng),
                normal: vector(rng),
            })
            .collect(),
    }
}
