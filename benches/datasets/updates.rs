//! `updates`: 1,000 game-state messages for a naval game, dense in small
//! integers, unit enums, enums with data, options and short vectors.

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

use super::Rng;

pub const UPDATES: usize = 1_000;

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityType {
    Destroyer,
    Battleship,
    Carrier,
    Frigate,
    Gunboat,
    Cruiser,
    Corvette,
    Patrol,
    Submarine,
    Hovercraft,
}

impl EntityType {
    const ALL: [EntityType; 10] = [
        EntityType::Destroyer,
        EntityType::Battleship,
        EntityType::Carrier,
        EntityType::Frigate,
        EntityType::Gunboat,
        EntityType::Cruiser,
        EntityType::Corvette,
        EntityType::Patrol,
        EntityType::Submarine,
        EntityType::Hovercraft,
    ];

    /// Relative frequency (small boats are common, carriers rare).
    fn weight(self) -> u64 {
        [21, 5, 10, 15, 130, 16, 8, 72, 40, 129][self as usize]
    }

    fn turrets(self) -> u64 {
        [1, 4, 4, 4, 0, 3, 1, 2, 0, 3][self as usize]
    }

    fn weapons(self) -> u64 {
        [20, 10, 16, 18, 2, 28, 15, 6, 14, 11][self as usize]
    }
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    pub altitude: i8,
    pub angle: u16,
    pub position: (f32, f32),
    pub velocity: i16,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guidance {
    pub angle: u16,
    pub submerge: bool,
    pub velocity: i16,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Contact {
    pub damage: u8,
    pub entity_id: u32,
    pub entity_type: Option<EntityType>,
    pub guidance: Guidance,
    pub player_id: Option<u16>,
    pub reloads: Vec<bool>,
    pub transform: Transform,
    pub turret_angles: Vec<u16>,
}

/// Events carried with an update: small enums with data.
#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Hit { entity_id: u32, damage: u8 },
    Sunk(u32),
    Fired { entity_id: u32, weapon: u8 },
    Upgraded { player_id: u16, to: EntityType },
    Joined(u16),
    Left(u16),
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct TerrainUpdate {
    pub chunk: (i8, i8),
    pub data: Vec<u8>,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Update {
    pub tick: u32,
    pub score: u32,
    pub world_radius: f32,
    pub contacts: Vec<Contact>,
    pub events: Vec<Event>,
    pub terrain_updates: Vec<TerrainUpdate>,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Updates {
    pub updates: Vec<Update>,
}

fn entity_type(rng: &mut Rng) -> EntityType {
    let total: u64 = EntityType::ALL.iter().map(|t| t.weight()).sum();
    let mut x = rng.below(total);
    for t in EntityType::ALL {
        if x < t.weight() {
            return t;
        }
        x -= t.weight();
    }
    EntityType::Hovercraft
}

fn velocity(rng: &mut Rng) -> i16 {
    match rng.below(10) {
        0..=7 => rng.range(140, 900) as i16,
        8 => 0,
        _ => rng.range(-225, -35) as i16,
    }
}

fn contact(rng: &mut Rng, players: u16) -> Contact {
    let kind = entity_type(rng);
    let visible = rng.bool(0.7);
    let sub = kind == EntityType::Submarine && rng.bool(0.9);
    Contact {
        damage: if visible && rng.bool(0.6) {
            0
        } else {
            rng.below(200) as u8
        },
        entity_id: rng.below(u64::from(players) * 20) as u32,
        entity_type: visible.then_some(kind),
        guidance: Guidance {
            angle: rng.u16(),
            submerge: sub,
            velocity: velocity(rng),
        },
        player_id: visible.then(|| rng.below(u64::from(players)) as u16),
        reloads: if visible {
            let p = rng.f64();
            (0..kind.weapons()).map(|_| rng.bool(p)).collect()
        } else {
            Vec::new()
        },
        transform: Transform {
            altitude: if sub { rng.range(-120, -35) as i8 } else { 0 },
            angle: rng.u16(),
            position: (rng.f32() * 1500.0 - 750.0, rng.f32() * 1500.0 - 750.0),
            velocity: velocity(rng),
        },
        turret_angles: if visible {
            let base = rng.u16();
            (0..kind.turrets())
                .map(|_| base.wrapping_add(rng.range(-200, 200) as u16))
                .collect()
        } else {
            Vec::new()
        },
    }
}

fn event(rng: &mut Rng, players: u16) -> Event {
    let entity_id = rng.below(u64::from(players) * 20) as u32;
    let player_id = rng.below(u64::from(players)) as u16;
    match rng.below(10) {
        0..=3 => Event::Hit {
            entity_id,
            damage: rng.below(60) as u8,
        },
        4..=6 => Event::Fired {
            entity_id,
            weapon: rng.below(28) as u8,
        },
        7 => Event::Sunk(entity_id),
        8 => Event::Upgraded {
            player_id,
            to: entity_type(rng),
        },
        _ if rng.bool(0.5) => Event::Joined(player_id),
        _ => Event::Left(player_id),
    }
}

fn update(rng: &mut Rng, tick: u32) -> Update {
    let players = rng.range(200, 400) as u16;
    let world_radius = (f32::from(players) * 15000.0).sqrt() + rng.f32() * 100.0 - 50.0;
    let radius = (world_radius / 1600.0).ceil() as i64;
    Update {
        tick,
        score: (rng.f32().powi(4) * 5000.0) as u32 + rng.below(50) as u32,
        world_radius,
        contacts: (0..rng.range(20, 40))
            .map(|_| contact(rng, players))
            .collect(),
        events: (0..rng.below(8)).map(|_| event(rng, players)).collect(),
        terrain_updates: (0..rng.range(3, 10))
            .map(|_| {
                let n = if rng.bool(0.02) {
                    rng.range(900, 1100)
                } else {
                    rng.range(3, 9)
                };
                TerrainUpdate {
                    chunk: (
                        rng.range(-radius, radius) as i8,
                        rng.range(-radius, radius) as i8,
                    ),
                    data: (0..n).map(|_| rng.u8()).collect(),
                }
            })
            .collect(),
    }
}

pub fn generate(rng: &mut Rng) -> Updates {
    Updates {
        updates: (0..UPDATES as u32).map(|t| update(rng, t)).collect(),
    }
}
