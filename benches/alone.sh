#!/usr/bin/env bash
# The 32-byte message (and 90-byte, 16-field and 154-byte, 24-field orders,
# whose `serialize` stays a call: alone/order.rs) through one API per program (benches/alone/): each
# `alone_*` bench is a binary that calls one encode or decode function of
# kiln or bincode 1.3, as a user's crate does. Builds them in both
# profiles (`bench`, LTO; `bench-nolto`, what `cargo build --release`
# gives a user), runs every binary once per round, interleaved, and prints
# the median of the rounds (each round: the median of 21 samples), ns a
# message, with ratios: kiln / bincode 1.3, and the frame's cost
# (framed / unframed) and its floor (`copy_append32`/`48`: the bytes
# appended with no encoder), and reading through `from_reader` against
# `from_slice`.
#
#   bash benches/alone.sh        # 5 rounds (about 2 minutes after the build)
#   bash benches/alone.sh 9      # 9 rounds
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
exes=$(mktemp)
trap 'rm -f "$exes"' EXIT
for p in bench bench-nolto; do
  cargo bench -p kiln_benches --profile "$p" --bench 'alone_*' --no-run --message-format=json 2>/dev/null |
    python3 -c 'import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"].startswith("alone_") and m.get("executable"):
        print(sys.argv[1], m["target"]["name"], m["executable"])' "$p" >>"$exes" ||
    { echo "build failed: cargo bench -p kiln_benches --profile $p --bench 'alone_*' --no-run" >&2; exit 1; }
done
python3 - "$rounds" "$exes" <<'PY'
import statistics, subprocess, sys
rounds, exes = int(sys.argv[1]), [l.split() for l in open(sys.argv[2])]
runs = {}
for _ in range(rounds):
    for profile, name, exe in exes:
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        ns = float(out.split(": ")[1].split()[0])
        runs.setdefault((profile, name.removeprefix("alone_")), []).append(ns)
t = {k: statistics.median(v) for k, v in runs.items()}
rows = [
    ("`serialize` (a new `Vec`): kiln's vs bincode 1.3's", "kiln_bincode_serialize", "bincode1_serialize"),
    ("`serialize_into(&mut Vec)`, reused", "kiln_bincode_serialize_into", "bincode1_serialize_into"),
    ("`deserialize(&[u8])`", "kiln_bincode_deserialize", "bincode1_deserialize"),
    ("`deserialize_from(&mut &[u8])`", "kiln_bincode_deserialize_from", "bincode1_deserialize_from"),
    ("`deserialize_from(&mut BufReader)`, back to back", "kiln_bincode_deserialize_from_buffered", "bincode1_deserialize_from_buffered"),
    ("kiln `from_bufread(&mut BufReader)` vs bincode 1.3's `deserialize_from`, back to back", "kiln_from_bufread", "bincode1_deserialize_from_buffered"),
    ("kiln `to_extend` vs `serialize_into`", "kiln_to_extend", "bincode1_serialize_into"),
    ("90-byte orders, `serialize` a call: kiln's `serialize_into` vs bincode 1.3's", "kiln_bincode_serialize_into_order", "bincode1_serialize_into_order"),
    ("90-byte orders: kiln `to_extend` vs bincode 1.3's `serialize_into`", "kiln_to_extend_order", "bincode1_serialize_into_order"),
    ("154-byte, 24-field orders, `serialize` a call: kiln's `serialize_into` vs bincode 1.3's", "kiln_bincode_serialize_into_wide", "bincode1_serialize_into_wide"),
    ("kiln `from_slice` vs `deserialize`", "kiln_from_slice", "bincode1_deserialize"),
    ("kiln `framed::to_extend` vs `to_extend`", "kiln_framed_to_extend", "kiln_to_extend"),
    ("kiln `Schema::to_extend` vs `to_extend`", "kiln_schema_to_extend", "kiln_to_extend"),
    ("the bytes alone: one append of a framed message's 48 vs 32 (no encoder)", "copy_append48", "copy_append32"),
    ("kiln `to_extend` vs one append of its 32 bytes", "kiln_to_extend", "copy_append32"),
    ("kiln `framed::to_extend` vs one append of its 48 bytes", "kiln_framed_to_extend", "copy_append48"),
    ("kiln `framed::from_slice` vs `from_slice`", "kiln_framed_from_slice", "kiln_from_slice"),
    ("kiln `from_reader(&mut &[u8])` vs `from_slice`", "kiln_from_reader", "kiln_from_slice"),
    ("kiln `framed::from_reader(&mut &[u8])` vs `framed::from_slice`", "kiln_framed_from_reader", "kiln_framed_from_slice"),
]
print(f"32-byte messages, one API per program, ns a message (median of {rounds} rounds)\n")
print("| A vs B | A, no LTO | B | A / B | A, LTO | B | A / B |")
print("|---|---|---|---|---|---|---|")
for label, k, b in rows:
    cells = []
    for p in ("bench-nolto", "bench"):
        kv, bv = t[(p, k)], t[(p, b)]
        cells += [f"{kv:.2f}", f"{bv:.2f}", f"{kv / bv:.2f}x"]
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
