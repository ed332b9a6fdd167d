#!/usr/bin/env bash
# Runs the quick-mode benches several times, keeps each run's criterion
# results, then prints the report over all of them: per bench, the median of
# the runs' medians (and the fastest sample of all runs for the bandwidth
# columns). On a shared or virtual machine one quick run moves a single
# number by up to +-30%; the median of runs is what BENCHMARKS.md quotes.
#
#   bash benches/rounds.sh            # 3 runs of serde, tensors and framed (~11 min on 2 cores)
#   BENCHES="serde" bash benches/rounds.sh 5
#   python3 benches/report.py --rounds target/kiln-bench/rounds   # the report again
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3}
benches=${BENCHES:-"serde tensors framed"}
t=${CARGO_TARGET_DIR:-target}
args=()
for b in $benches; do args+=(--bench "$b"); done
rm -rf "$t/kiln-bench/rounds"
for k in $(seq "$n"); do
  echo "run $k of $n: cargo bench ${args[*]}" >&2
  KILN_BENCH_QUICK=1 cargo bench "${args[@]}" >"$t/kiln-bench/rounds.log" 2>&1 ||
    { tail -20 "$t/kiln-bench/rounds.log" >&2; exit 1; }
  mkdir -p "$t/kiln-bench/rounds/$k"
  cp -r "$t/criterion" "$t/kiln-bench/rounds/$k/"
done
python3 benches/report.py --rounds "$t/kiln-bench/rounds"
