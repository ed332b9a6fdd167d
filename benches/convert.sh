#!/usr/bin/env bash
# `kiln convert` throughput and peak memory on a 1.5 GiB model, against `cp`
# of the same input on the same disk.
#
# Generates target/kiln-bench/convert/model.safetensors (96 bf16 tensors of
# 16 MiB, random bytes, with __metadata__) once, builds the release `kiln`,
# writes model.kiln once, then runs ROUNDS rounds (default 3) of four
# measurements, each under /usr/bin/time -v with its input in the page cache:
#   cp st             cp model.safetensors + fsync of the copy
#   to kiln           kiln convert model.safetensors out.kiln
#   cp kiln           cp model.kiln + fsync of the copy
#   to safetensors    kiln convert model.kiln back.safetensors (must equal
#                     the input byte for byte)
# `kiln convert` fsyncs its output before renaming it, so the fair baseline
# is cp followed by an fsync of the copy, of the same input file. A global
# `sync` runs before each measurement (untimed). The medians over the
# rounds are reported.
#
# Why rounds and a baseline per input: on this VM the first pass over a
# file written a moment ago can run 2-3x slower for any reader (cp too),
# which made one-shot kiln -> safetensors runs read 25-85% of cp.
#
# Usage: bash benches/convert.sh [GIB]   (default 1.5; the model is rebuilt
# when its size differs); ROUNDS=N for N rounds.
set -euo pipefail
cd "$(dirname "$0")/.."

GIB="${1:-1.5}"
dir="target/kiln-bench/convert"
mkdir -p "$dir"
model="$dir/model.safetensors"

echo "== building kiln (release)"
cargo build --release -q -p kiln_cli
kiln="target/release/kiln"

want=$(python3 -c "print(int($GIB * 1024**3) // (16 << 20) * (16 << 20))")
have=$( [ -f "$model" ] && stat -c %s "$model" || echo 0)
if [ "$have" -lt "$want" ] || [ "$have" -gt $((want + 1048576)) ]; then
  echo "== generating $model ($want payload bytes)"
  python3 - "$model" "$want" <<'PY'
import json, os, struct, sys
path, total = sys.argv[1], int(sys.argv[2])
size = 16 << 20
n = total // size
header = {"__metadata__": {"format": "pt"}}
for i in range(n):
    header[f"model.layers.{i:03}.weight"] = {
        "dtype": "BF16", "shape": [size // 2], "data_offsets": [i * size, (i + 1) * size]}
h = json.dumps(header, separators=(",", ":")).encode()
h += b" " * (-len(h) % 8)
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(h)))
    f.write(h)
    for i in range(n):
        f.write(os.urandom(size))
PY
fi
bytes=$(stat -c %s "$model")
cat "$model" >/dev/null # into the page cache
rounds=${ROUNDS:-3}
measure() { # label, command...
  local label="$1"; shift
  local log="$dir/time-$label.log"
  sync # earlier outputs' dirty pages are written back before the clock starts
  /usr/bin/time -v "$@" >"$dir/out-$label.log" 2>"$log"
  local secs rss
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" \
    | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
  printf '%-16s %8.2f s %9.0f MB/s %8.1f MiB peak RSS\n' "$label" "$secs" \
    "$(python3 -c "print($bytes / 1e6 / max($secs, 1e-3))")" "$(python3 -c "print($rss / 1024)")"
  echo "$secs $rss" >>"$dir/runs-$label"
}

rm -f "$dir"/runs-* "$dir/copy.bin" "$dir/out.kiln" "$dir/back.safetensors"
echo "== $bytes bytes, $(nproc) cores, $rounds rounds (shared machine: numbers move between runs)"
[ -f "$dir/model.kiln" ] || "$kiln" convert "$model" "$dir/model.kiln" >/dev/null
cat "$dir/model.kiln" >/dev/null
for r in $(seq "$rounds"); do
  measure "cp st" sh -c "cp '$model' '$dir/copy.bin' && sync '$dir/copy.bin'"
  rm -f "$dir/copy.bin"
  measure "to kiln" "$kiln" convert "$model" "$dir/out.kiln"
  cmp "$dir/model.kiln" "$dir/out.kiln"
  rm -f "$dir/out.kiln"
  measure "cp kiln" sh -c "cp '$dir/model.kiln' '$dir/copy.bin' && sync '$dir/copy.bin'"
  rm -f "$dir/copy.bin"
  measure "to safetensors" "$kiln" convert "$dir/model.kiln" "$dir/back.safetensors"
  cmp "$model" "$dir/back.safetensors"
  rm -f "$dir/back.safetensors"
done
echo "round trip: byte-identical in every round"
python3 - "$dir" <<'PY'
import statistics, sys
d = sys.argv[1]
def runs(k):
    return [tuple(map(float, l.split())) for l in open(f"{d}/runs-{k}")]
med = {k: statistics.median(s for s, _ in runs(k)) for k in ["cp st", "to kiln", "cp kiln", "to safetensors"]}
rss = {k: max(r for _, r in runs(k)) / 1024 for k in ["to kiln", "to safetensors"]}
for k, base in [("to kiln", "cp st"), ("to safetensors", "cp kiln")]:
    print(f"{k}: median {med[k]:.2f} s against {base} {med[base]:.2f} s: "
          f"{100 * med[base] / med[k]:.0f}% of cp+fsync throughput; peak RSS {rss[k]:.1f} MiB")
PY
