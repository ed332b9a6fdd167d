//! Finds bincode 1.3.3's own `tests/test.rs` (cargo unpacks the real crate,
//! a dev-dependency of this package, under `$CARGO_HOME/registry/src/`)
//! and hands its path to `tests/upstream.rs` as `BINCODE_UPSTREAM_TEST_RS`.
//! When it is not there yet (a plain `cargo build` need not unpack
//! dev-dependencies), the script says so and runs again next time.

use std::env;
use std::path::PathBuf;

fn cargo_home() -> Option<PathBuf> {
    if let Some(h) = env::var_os("CARGO_HOME") {
        return Some(PathBuf::from(h));
    }
    env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_HOME");
    let Some(home) = cargo_home() else {
        println!("cargo:warning=no CARGO_HOME or HOME: bincode 1.3.3's tests not found");
        return;
    };
    let src = home.join("registry").join("src");
    let mut found = None;
    if let Ok(registries) = std::fs::read_dir(&src) {
        for reg in registries.flatten() {
            let file = reg
                .path()
                .join("bincode-1.3.3")
                .join("tests")
                .join("test.rs");
            if file.is_file() {
                found = Some(file);
                break;
            }
        }
    }
    match found {
        Some(file) => {
            println!("cargo:rerun-if-changed={}", file.display());
            println!(
                "cargo:rustc-env=BINCODE_UPSTREAM_TEST_RS={}",
                file.display()
            );
        }
        None => {
            // A path that does not exist makes cargo rerun this script on
            // the next build, by which time the source may be unpacked.
            let missing = src.join("bincode-1.3.3-not-unpacked-yet");
            println!("cargo:rerun-if-changed={}", missing.display());
        }
    }
}
