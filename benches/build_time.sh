#!/usr/bin/env bash
# Clean release build time of a small serde-derive program, with kiln_serde
# and with bincode 1.3.3 (issue: at most 1.5x), and the proc-macro crates
# each pulls in. Builds each probe RUNS times from scratch (default 3) in a
# temporary directory and prints wall and CPU (user+sys) seconds.
#
#   bash benches/build_time.sh          # RUNS=3
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
runs="${RUNS:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

probe() { # name, dependency line, encode call, decode call
  mkdir -p "$tmp/$1/src"
  cat > "$tmp/$1/Cargo.toml" <<TOML
[package]
name = "probe_$1"
version = "0.1.0"
edition = "2021"
[dependencies]
serde = { version = "1", features = ["derive"] }
$2
[workspace]
TOML
  cat > "$tmp/$1/src/main.rs" <<RS
#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Point { x: i32, y: i32, name: String, tags: Vec<u8> }
fn main() {
    let p = Point { x: 9, y: -4, name: "p".into(), tags: vec![1] };
    let b = $3(&p).unwrap();
    let q: Point = $4(&b).unwrap();
    assert_eq!(p, q);
    println!("{}", b.len());
}
RS
  (cd "$tmp/$1" && cargo generate-lockfile -q)
}

probe kiln "kiln_serde = { path = \"$repo\" }" kiln_serde::to_vec kiln_serde::from_slice
probe bincode 'bincode = "=1.3.3"' bincode::serialize bincode::deserialize
(cd "$tmp/kiln" && cargo fetch -q) && (cd "$tmp/bincode" && cargo fetch -q)

for p in bincode kiln; do
  echo "$p: proc-macro crates: $(cd "$tmp/$p" && cargo tree -e normal,build --prefix none | grep -c 'proc-macro' || true)," \
    "syn versions: $(cd "$tmp/$p" && cargo tree --prefix none | grep -E '^syn v' | sort -u | tr '\n' ' ')"
done
for i in $(seq "$runs"); do
  for p in bincode kiln; do
    rm -rf "$tmp/$p/target"
    /usr/bin/time -f "$p run $i: wall %e s, cpu %U+%S s" \
      cargo build --release -q --manifest-path "$tmp/$p/Cargo.toml" 2>&1 | tail -1
  done
done
