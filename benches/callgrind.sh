#!/usr/bin/env bash
# Instructions per operation, counted by callgrind: noise-free where wall
# time on a shared 2-core machine is not. One iteration's count is
# (run with 1 iteration) - (run with 0 iterations), both counted only inside
# `work` of benches/profile.rs, so dataset generation and the one encode
# that prepares the input cancel out.
#
#   bash benches/callgrind.sh                      # the default table (LTO)
#   PROFILE=bench-nolto bash benches/callgrind.sh  # the same without LTO
#   bash benches/callgrind.sh mesh "ser serw serf de" "kiln postcard serde_zap wincode memcpy"
#   bash benches/callgrind.sh "log mesh" "de" "kiln bincode1"
#   ITERS=1000 bash benches/callgrind.sh tick32 "ser serw de" "kiln framed framed_schema"
#   ITERS=10 bash benches/callgrind.sh tensors1000 "write view" "kiln memcpy safetensors"
#   FEATURES=floats bash benches/callgrind.sh floats "ser serw serf de" "kiln postcard wincode memcpy"
#
# PROFILE (default bench, the LTO one): the cargo profile to build with;
# bench-nolto is `release` as a user gets it.
# EXE: a prebuilt profile binary (skips the cargo call).
# FEATURES: kiln_benches features to build with (`floats` for that
# dataset, in a binary of its own: it moves `mesh`'s LTO inlining).
# ITERS (default 1): iterations of the counted run; the table shows
# (count(ITERS) - count(0)) / ITERS, in millions (M) when ITERS is 1, else
# in instructions. A combination the driver does not have shows "—".
# Needs valgrind. Prints a markdown table; raw callgrind files stay in
# target/kiln-bench/callgrind/ for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."

datasets=${1:-"log mesh savedata updates"}
ops=${2:-"ser serw serf de deb"}
formats=${3:-"kiln bincode1 postcard serde_zap bitcode wincode"}
profile=${PROFILE:-bench}

exe=${EXE:-}
[[ -n $exe ]] || exe=$(cargo bench -p kiln_benches --profile "$profile" --bench profile --no-run ${FEATURES:+--features "$FEATURES"} --message-format=json 2>/dev/null |
  python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "profile" and m.get("executable"):
        print(m["executable"])')
out=${CARGO_TARGET_DIR:-target}/kiln-bench/callgrind/$profile
rm -f "$out"/*.zero.*.out
mkdir -p "$out"

iters=${ITERS:-1}

count() { # dataset op format iters -> instructions inside work(); empty on failure
  local f="$out/$1.$2.$3.$4.out"
  # A serde dataset's setup does not depend on the op (but for serw's
  # warm-up encode): one 0-iteration run per (dataset, format) serves every
  # other op.
  if [[ $4 == 0 && $2 != serw && $1 =~ ^(log|mesh|savedata|updates)$ ]]; then
    f="$out/$1.zero.$3.0.out"
    if [[ -s $f ]]; then
      callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'
      return 0
    fi
  fi
  valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
    --toggle-collect='profile::work*' "$exe" "$1" "$2" "$3" "$4" >/dev/null 2>&1 || return 0
  callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'
}

echo "| dataset | op | $(echo $formats | sed 's/ / | /g') |"
echo "|---|---|$(for _ in $formats; do printf -- '---|'; done)"
for ds in $datasets; do
  for op in $ops; do
    [[ $op == deb && $ds != log ]] && continue
    row="| $ds | $op |"
    for fmt in $formats; do
      case "$op/$fmt" in
        serw/bitcode | serf/bincode1 | serf/bincode2_legacy | serf/rmp_serde | serf/bitcode | deb/wincode | deb/memcpy)
          row="$row — |"
          continue
          ;;
      esac
      one=$(count "$ds" "$op" "$fmt" "$iters")
      zero=$(count "$ds" "$op" "$fmt" 0)
      if [[ -z $one || -z $zero ]]; then row="$row — |"; continue; fi
      row="$row $(python3 -c "
d = ($one - $zero) / $iters
print(f'{d / 1e6:.2f} M' if $iters == 1 else f'{d:,.1f}')") |"
    done
    echo "$row"
  done
done
