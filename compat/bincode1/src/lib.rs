//! bincode 1.3's public API over Kiln v2's bytes.
//!
//! This crate is named `bincode` and versioned 1.3.3 so that one line in a
//! user's `Cargo.toml` switches every crate in their graph that uses
//! bincode 1.3 to Kiln:
//!
//! ```toml
//! [patch.crates-io]
//! bincode = { path = "../kiln_serde/compat/bincode1" }
//! ```
//!
//! Everything here is `kiln_serde::bincode`; see its documentation for what
//! differs from bincode 1.3 (the bytes, first of all).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use kiln_serde::bincode::*;
