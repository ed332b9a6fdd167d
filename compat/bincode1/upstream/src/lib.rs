//! Nothing here: this package only holds `tests/upstream.rs`, bincode
//! 1.3.3's own test suite run against the shim crate.
