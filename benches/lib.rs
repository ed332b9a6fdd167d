//! Nothing to link: this package exists for its `[[bench]]` targets (see
//! `Cargo.toml` and BENCHMARKS.md).
