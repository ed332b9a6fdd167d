//! bincode 1.3.3's own test suite (`tests/test.rs` of the crates.io
//! package), compiled unchanged against this crate. Tests that assert
//! bincode's byte layout are skipped by name in CI: see README, "Coming
//! from bincode 1.x", and `SKIPPED` in `check-upstream.sh`.
//!
//! The file is found by `build.rs`; it is edition 2015 code (`::ErrorKind`
//! paths), so this target is built as edition 2015 (`Cargo.toml`).
#![allow(warnings, clippy::all, clippy::pedantic, deprecated)]

include!(env!("BINCODE_UPSTREAM_TEST_RS"));
