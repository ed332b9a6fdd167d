#!/usr/bin/env bash
# CI for the bincode 1.3 shim (this directory):
#  1. bincode 1.3.3's own tests/test.rs, unchanged, against the shim
#     (upstream/), skipping the tests listed in upstream/skipped.txt;
#  2. the migration itself: a fresh client crate that depends on
#     `bincode = "1.3"` (feature i128) and patches it with this directory
#     must build, `cargo tree -i bincode` must show this path, and the
#     program's bytes must be Kiln's (a String has a u32 length, not u64).
# Needs crates.io (index and downloads) the first time. Reuses the
# repository's target/ so dependencies are not rebuilt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

echo "== bincode 1.3.3's tests/test.rs against the shim"
skips=()
while read -r name _; do
  case "$name" in ''|'#'*) continue ;; esac
  skips+=(--skip "$name")
done <"$here/upstream/skipped.txt"
(cd "$here/upstream" && cargo test --test upstream -- --exact "${skips[@]}")
echo "== old bytes against new (tests/sizes.rs: the numbers in the README)"
(cd "$here/upstream" && cargo test --test sizes)

echo "== [patch.crates-io] bincode = { path = compat/bincode1 } in a client crate"
client="$(mktemp -d)"
trap 'rm -rf "$client"' EXIT
mkdir -p "$client/src"
cat >"$client/Cargo.toml" <<TOML
[package]
name = "kiln_patch_client"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
bincode = { version = "1.3", features = ["i128"] }
serde = { version = "1", features = ["derive"] }

[patch.crates-io]
bincode = { path = "$here" }

[workspace]
TOML
cat >"$client/src/main.rs" <<'RS'
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Msg {
    id: u128,
    name: String,
}

fn main() {
    let msg = Msg { id: 7, name: "kiln".to_string() };
    let bytes = bincode::serialize(&msg).unwrap();
    let back: Msg = bincode::deserialize(&bytes).unwrap();
    assert_eq!(back, msg);
    let hex: Vec<String> = bincode::serialize(&"kiln").unwrap().iter().map(|b| format!("{b:02x}")).collect();
    println!("{}", hex.join(" "));
}
RS
(cd "$client" && cargo build --quiet 2>"$client/build.log") || { cat "$client/build.log"; exit 1; }
if grep -q "was not used" "$client/build.log"; then
  cat "$client/build.log"
  echo "the patch was not used (version or feature mismatch): see README"
  exit 1
fi
tree="$(cd "$client" && cargo tree -i bincode --edges normal)"
echo "$tree" | head -n 1
case "$(echo "$tree" | head -n 1)" in
  "bincode v1.3.3+kiln ($here)"*) ;;
  *) echo "cargo tree -i bincode does not show the shim at $here"; exit 1 ;;
esac
out="$(cd "$client" && cargo run --quiet)"
echo "client printed: $out"
# Kiln: u32 length 4, then "kiln". bincode 1.3 would print an 8-byte length.
if [ "$out" != "04 00 00 00 6b 69 6c 6e" ]; then
  echo "expected Kiln's bytes 04 00 00 00 6b 69 6c 6e"
  exit 1
fi
echo "== the shim is used and writes Kiln's bytes"
