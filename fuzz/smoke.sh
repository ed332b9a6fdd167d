#!/usr/bin/env bash
# Fuzz smoke test for CI: install cargo-fuzz if missing, build every fuzz
# target (stable toolchain, so `--sanitizer none`), run each one for about
# FUZZ_SMOKE_SECS seconds (default 60) from its committed seeds, and fail
# if any target finds a crash, a timeout or an out-of-memory input.
#
# Targets run FUZZ_SMOKE_JOBS at a time (default 2, one per core); each
# target is one libFuzzer process with one worker. The working corpus
# (fuzz/corpus/<target>) and crash artifacts (fuzz/artifacts/<target>) are
# git-ignored; a crash input is printed as hex in the log.
#
# Usage: bash fuzz/smoke.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${FUZZ_SMOKE_SECS:-60}"
JOBS="${FUZZ_SMOKE_JOBS:-2}"

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

echo "== building fuzz targets: ${targets[*]}"
# Release with debug assertions and overflow checks (cargo-fuzz's default);
# 16 codegen units keep the build short on two cores.
cargo fuzz build -s none --codegen-units 16

host="$(rustc -vV | sed -n 's/^host: //p')"
bin_dir="fuzz/target/$host/release"
log_dir="fuzz/target/smoke-logs"
mkdir -p "$log_dir"

run_one() {
  local t="$1"
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  local seeds=()
  [ -d "fuzz/seeds/$t" ] && seeds=("fuzz/seeds/$t")
  "$bin_dir/$t" "fuzz/corpus/$t" "${seeds[@]}" \
    -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" \
    >"$log_dir/$t.log" 2>&1
}

summary() {
  local t="$1" rc="$2" log="$log_dir/$1.log"
  local last
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  echo "-- $t: exit $rc"
  echo "   $last"
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" \
    | sed 's/^/   /' || true
}

failed=()
pids=()
names=()
wait_all() {
  local i
  for i in "${!pids[@]}"; do
    local rc=0
    wait "${pids[$i]}" || rc=$?
    summary "${names[$i]}" "$rc"
    if [ "$rc" -ne 0 ]; then
      failed+=("${names[$i]}")
    fi
  done
  pids=()
  names=()
}

echo "== running each target for ${SECS}s, ${JOBS} at a time"
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=("$!")
  names+=("$t")
  if [ "${#pids[@]}" -ge "$JOBS" ]; then
    wait_all
  fi
done
wait_all

if [ "${#failed[@]}" -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo "== $t failed; end of its log:"
    tail -n 40 "$log_dir/$t.log"
    for a in "fuzz/artifacts/$t"/*; do
      [ -f "$a" ] || continue
      echo "-- artifact $a:"
      od -An -tx1 -v "$a" | head -n 20
    done
  done
  echo "== fuzz smoke FAILED: ${failed[*]}"
  exit 1
fi
echo "== fuzz smoke passed: ${targets[*]}"
