//! An enum with every variant shape (unit, newtype, tuple, struct), and
//! one value of each: for the stream tests' messages (`tests/io_faults.rs`,
//! `tests/bufread.rs`).

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Kind {
    Unit,
    New(u32),
    Tup(i16, String),
    Rec { name: String, big: i128 },
}

/// One value of each variant; `Rec`'s `big` is `i128::MIN`.
pub fn kinds() -> Vec<Kind> {
    vec![
        Kind::Unit,
        Kind::New(7),
        Kind::Tup(-3, "tuple".into()),
        Kind::Rec {
            name: "rec".into(),
            big: i128::MIN,
        },
    ]
}
