//! `savedata`: a game save of 500 players with nested structs, unit enums
//! and enums with data, options, small vectors, short strings and f64
//! positions.

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

use super::Rng;

pub const PLAYERS: usize = 500;

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameMode {
    Survival,
    Creative,
    Adventure,
    Spectator,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub count: i8,
    pub slot: u8,
    pub id: String,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq)]
pub struct Abilities {
    pub walk_speed: f32,
    pub fly_speed: f32,
    pub may_fly: bool,
    pub flying: bool,
    pub invulnerable: bool,
    pub may_build: bool,
    pub instabuild: bool,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Entity {
    pub kind: String,
    pub pos: (f64, f64, f64),
    pub motion: (f64, f64, f64),
    pub rotation: (f32, f32),
    pub fall_distance: f32,
    pub fire: u16,
    pub air: u16,
    pub on_ground: bool,
    pub no_gravity: bool,
    pub invulnerable: bool,
    pub portal_cooldown: i32,
    pub uuid: [u32; 4],
    pub custom_name: Option<String>,
    pub custom_name_visible: bool,
    pub silent: bool,
    pub glowing: bool,
}

/// An enum with data of every shape (unit, newtype, tuple, struct).
#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub enum DeathCause {
    Fell { distance: f32 },
    Slain(String),
    Drowned,
    Exploded { at: (f64, f64, f64), power: u8 },
    Burned(u16, bool),
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Speed(u8),
    Haste { amplifier: u8, ticks: u32 },
    Regeneration { amplifier: u8, ticks: u32 },
    NightVision,
    Poison(u8, u16),
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct RecipeBook {
    pub recipes: Vec<String>,
    pub to_be_displayed: Vec<String>,
    pub is_filtering_craftable: bool,
    pub is_gui_open: bool,
    pub is_furnace_filtering_craftable: bool,
    pub is_furnace_gui_open: bool,
    pub is_smoker_filtering_craftable: bool,
    pub is_smoker_gui_open: bool,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct Player {
    pub game_mode: GameMode,
    pub previous_game_mode: GameMode,
    pub score: i64,
    pub dimension: String,
    pub selected_item_slot: u32,
    pub selected_item: Item,
    pub spawn_dimension: Option<String>,
    pub spawn: (i64, i64, i64),
    pub spawn_forced: Option<bool>,
    pub sleep_timer: u16,
    pub food_exhaustion_level: f32,
    pub food_saturation_level: f32,
    pub food_tick_timer: u32,
    pub xp_level: u32,
    pub xp_progress: f32,
    pub xp_total: i32,
    pub xp_seed: i32,
    pub inventory: Vec<Item>,
    pub ender_items: Vec<Item>,
    pub abilities: Abilities,
    pub effects: Vec<Effect>,
    pub last_death: Option<DeathCause>,
    pub entered_nether_position: Option<(f64, f64, f64)>,
    pub root_vehicle: Option<([u32; 4], Entity)>,
    pub shoulder_entity_left: Option<Entity>,
    pub shoulder_entity_right: Option<Entity>,
    pub seen_credits: bool,
    pub recipe_book: RecipeBook,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq)]
pub struct SaveData {
    pub players: Vec<Player>,
}

const ITEMS: [&str; 8] = [
    "dirt",
    "stone",
    "pickaxe",
    "sand",
    "gravel",
    "shovel",
    "chestplate",
    "steak",
];
const ENTITIES: [&str; 8] = [
    "cow", "sheep", "zombie", "skeleton", "spider", "creeper", "parrot", "bee",
];
const NAMES: [&str; 8] = [
    "rainbow", "princess", "steve", "johnny", "missy", "coward", "fairy", "howard",
];
const RECIPES: [&str; 8] = [
    "pickaxe",
    "torch",
    "bow",
    "crafting table",
    "furnace",
    "shears",
    "arrow",
    "tnt",
];
const DIMENSIONS: [&str; 3] = ["overworld", "nether", "end"];

fn game_mode(rng: &mut Rng) -> GameMode {
    rng.pick(&[
        GameMode::Survival,
        GameMode::Creative,
        GameMode::Adventure,
        GameMode::Spectator,
    ])
}

fn item(rng: &mut Rng) -> Item {
    Item {
        count: rng.u8() as i8,
        slot: rng.u8(),
        id: rng.pick(&ITEMS).to_string(),
    }
}

fn items(rng: &mut Rng, max: u64) -> Vec<Item> {
    (0..rng.below(max)).map(|_| item(rng)).collect()
}

fn triple(rng: &mut Rng) -> (f64, f64, f64) {
    (rng.f64(), rng.f64(), rng.f64())
}

fn entity(rng: &mut Rng) -> Entity {
    Entity {
        kind: rng.pick(&ENTITIES).to_string(),
        pos: triple(rng),
        motion: triple(rng),
        rotation: (rng.f32(), rng.f32()),
        fall_distance: rng.f32(),
        fire: rng.u16(),
        air: rng.u16(),
        on_ground: rng.bool(0.5),
        no_gravity: rng.bool(0.5),
        invulnerable: rng.bool(0.5),
        portal_cooldown: rng.u32() as i32,
        uuid: [rng.u32(), rng.u32(), rng.u32(), rng.u32()],
        custom_name: rng.bool(0.5).then(|| rng.pick(&NAMES).to_string()),
        custom_name_visible: rng.bool(0.5),
        silent: rng.bool(0.5),
        glowing: rng.bool(0.5),
    }
}

fn death(rng: &mut Rng) -> DeathCause {
    match rng.below(5) {
        0 => DeathCause::Fell {
            distance: rng.f32() * 100.0,
        },
        1 => DeathCause::Slain(rng.pick(&ENTITIES).to_string()),
        2 => DeathCause::Drowned,
        3 => DeathCause::Exploded {
            at: triple(rng),
            power: rng.range(1, 8) as u8,
        },
        _ => DeathCause::Burned(rng.below(600) as u16, rng.bool(0.5)),
    }
}

fn effect(rng: &mut Rng) -> Effect {
    match rng.below(5) {
        0 => Effect::Speed(rng.below(4) as u8),
        1 => Effect::Haste {
            amplifier: rng.below(4) as u8,
            ticks: rng.below(20 * 60 * 8) as u32,
        },
        2 => Effect::Regeneration {
            amplifier: rng.below(4) as u8,
            ticks: rng.below(20 * 60 * 8) as u32,
        },
        3 => Effect::NightVision,
        _ => Effect::Poison(rng.below(4) as u8, rng.below(900) as u16),
    }
}

fn strings(rng: &mut Rng, max: u64, from: &[&str]) -> Vec<String> {
    (0..rng.below(max))
        .map(|_| rng.pick(from).to_string())
        .collect()
}

fn player(rng: &mut Rng) -> Player {
    Player {
        game_mode: game_mode(rng),
        previous_game_mode: game_mode(rng),
        score: rng.u64() as i64,
        dimension: rng.pick(&DIMENSIONS).to_string(),
        selected_item_slot: rng.u32(),
        selected_item: item(rng),
        spawn_dimension: rng.bool(0.5).then(|| rng.pick(&DIMENSIONS).to_string()),
        spawn: (rng.u64() as i64, rng.u64() as i64, rng.u64() as i64),
        spawn_forced: rng.bool(0.5).then(|| rng.bool(0.5)),
        sleep_timer: rng.u16(),
        food_exhaustion_level: rng.f32(),
        food_saturation_level: rng.f32(),
        food_tick_timer: rng.u32(),
        xp_level: rng.u32(),
        xp_progress: rng.f32(),
        xp_total: rng.u32() as i32,
        xp_seed: rng.u32() as i32,
        inventory: items(rng, 40),
        ender_items: items(rng, 27),
        abilities: Abilities {
            walk_speed: rng.f32(),
            fly_speed: rng.f32(),
            may_fly: rng.bool(0.5),
            flying: rng.bool(0.5),
            invulnerable: rng.bool(0.5),
            may_build: rng.bool(0.5),
            instabuild: rng.bool(0.5),
        },
        effects: (0..rng.below(5)).map(|_| effect(rng)).collect(),
        last_death: rng.bool(0.7).then(|| death(rng)),
        entered_nether_position: rng.bool(0.5).then(|| triple(rng)),
        root_vehicle: rng
            .bool(0.5)
            .then(|| ([rng.u32(), rng.u32(), rng.u32(), rng.u32()], entity(rng))),
        shoulder_entity_left: rng.bool(0.5).then(|| entity(rng)),
        shoulder_entity_right: rng.bool(0.5).then(|| entity(rng)),
        seen_credits: rng.bool(0.5),
        recipe_book: RecipeBook {
            recipes: strings(rng, 30, &RECIPES),
            to_be_displayed: strings(rng, 10, &RECIPES),
            is_filtering_craftable: rng.bool(0.5),
            is_gui_open: rng.bool(0.5),
            is_furnace_filtering_craftable: rng.bool(0.5),
            is_furnace_gui_open: rng.bool(0.5),
            is_smoker_filtering_craftable: rng.bool(0.5),
            is_smoker_gui_open: rng.bool(0.5),
        },
    }
}

pub fn generate(rng: &mut Rng) -> SaveData {
    SaveData {
        players: (0..PLAYERS).map(|_| player(rng)).collect(),
    }
}
