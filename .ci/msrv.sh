#!/usr/bin/env bash
# The library builds with its rust-version (1.75): a copy of the root
# package alone, its lockfile resolved by today's cargo with the MSRV-aware
# fallback (.cargo/config.toml) and written in a format cargo 1.75 reads,
# then `cargo +1.75 build` with no features and with every feature.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
if ! rustup toolchain install "$msrv" --profile minimal >/dev/null 2>&1; then
  echo "MSRV check skipped: rustup could not install $msrv here"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r src README.md "$tmp/"
mkdir -p "$tmp/.cargo" && cp .cargo/config.toml "$tmp/.cargo/"
# The package table only: no workspace members, no dev-dependencies (they
# are not part of what a user builds).
python3 - "$tmp/Cargo.toml" <<'PY'
import re, sys
s = open("Cargo.toml").read()
s = s[s.index("[package]"):]
s = re.sub(r"\n\[dev-dependencies\]\n(.*?)(?=\n\[|\Z)", "\n", s, flags=re.S)
open(sys.argv[1], "w").write("[workspace]\n\n" + s)
PY
cd "$tmp"
cargo generate-lockfile -q
sed -i 's/^version = 4$/version = 3/' Cargo.lock
cargo "+$msrv" build -q
cargo "+$msrv" build -q --all-features
echo "the library builds with Rust $msrv (no features, all features)"
