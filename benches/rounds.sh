#!/usr/bin/env bash
# Runs the quick-mode benches in both cargo profiles, several times each,
# keeps each run's criterion results, then prints the report over all of
# them: per profile and bench, the median of the runs' medians (and the
# fastest sample of all runs for the bandwidth columns). The profiles:
# `bench` (LTO, as rust_serialization_benchmark builds) and `bench-nolto`
# (the plain `release` profile, what `cargo build --release` gives a user).
# On a shared or virtual machine one quick run moves a single number by up
# to +-30%; the median of runs is what BENCHMARKS.md quotes.
#
#   bash benches/rounds.sh            # 1 run of serde, tensors and framed per profile
#   bash benches/rounds.sh 3          # 3 runs per profile
#   BENCHES="serde" PROFILES="bench-nolto" bash benches/rounds.sh 5
#   python3 benches/report.py --rounds target/kiln-bench/rounds   # the report again
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1}
benches=${BENCHES:-"serde tensors framed"}
profiles=${PROFILES:-"bench bench-nolto"}
t=${CARGO_TARGET_DIR:-target}
args=()
for b in $benches; do args+=(--bench "$b"); done
rm -rf "$t/kiln-bench/rounds"
mkdir -p "$t/kiln-bench"
for p in $profiles; do
  for k in $(seq "$n"); do
    echo "$p, run $k of $n: cargo bench -p kiln_benches --profile $p ${args[*]}" >&2
    rm -rf "$t/criterion"
    KILN_BENCH_QUICK=1 cargo bench -p kiln_benches --profile "$p" "${args[@]}" >"$t/kiln-bench/rounds.log" 2>&1 ||
      { tail -20 "$t/kiln-bench/rounds.log" >&2; exit 1; }
    mkdir -p "$t/kiln-bench/rounds/$p/$k"
    cp -r "$t/criterion" "$t/kiln-bench/rounds/$p/$k/"
    # The run's sizes and mode, so that a later bench run cannot relabel it.
    for j in sizes run tensors framed; do
      if [[ -f $t/kiln-bench/$j.json ]]; then cp "$t/kiln-bench/$j.json" "$t/kiln-bench/rounds/$p/$k/"; fi
    done
  done
done
python3 benches/report.py --rounds "$t/kiln-bench/rounds"
