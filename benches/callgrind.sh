#!/usr/bin/env bash
# Instructions per operation, counted by callgrind: noise-free where wall
# time on a shared 2-core machine is not. One iteration's count is
# (run with 1 iteration) - (run with 0 iterations), both counted only inside
# `work` of benches/profile.rs, so dataset generation and the one encode
# that prepares the input cancel out.
#
#   bash benches/callgrind.sh                      # the default table
#   bash benches/callgrind.sh "log mesh" "de" "kiln bincode1"
#
# Needs valgrind. Prints a markdown table; raw callgrind files stay in
# target/kiln-bench/callgrind/ for callgrind_annotate.
set -euo pipefail
cd "$(dirname "$0")/.."

datasets=${1:-"log mesh savedata updates"}
ops=${2:-"ser serw de deb"}
formats=${3:-"kiln bincode1 postcard bitcode"}

exe=$(cargo bench --bench profile --no-run --message-format=json 2>/dev/null |
  python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "profile" and m.get("executable"):
        print(m["executable"])')
out=${CARGO_TARGET_DIR:-target}/kiln-bench/callgrind
mkdir -p "$out"

count() { # dataset op format iters -> instructions inside work()
  local f="$out/$1.$2.$3.$4.out"
  valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
    --toggle-collect='profile::work*' "$exe" "$1" "$2" "$3" "$4" >/dev/null 2>&1
  callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ && !done {gsub(",", "", $1); print $1; done = 1}'
}

echo "| dataset | op | $(echo $formats | sed 's/ / | /g') |"
echo "|---|---|$(for _ in $formats; do printf -- '---|'; done)"
for ds in $datasets; do
  for op in $ops; do
    [[ $op == deb && $ds != log ]] && continue
    row="| $ds | $op |"
    for fmt in $formats; do
      if [[ $op == serw && $fmt == bitcode ]]; then row="$row — |"; continue; fi
      one=$(count "$ds" "$op" "$fmt" 1)
      zero=$(count "$ds" "$op" "$fmt" 0)
      row="$row $(python3 -c "print(f'{($one - $zero) / 1e6:.2f} M')") |"
    done
    echo "$row"
  done
done
