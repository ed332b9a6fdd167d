#!/usr/bin/env bash
# `kiln convert` throughput and peak memory on a 1.5 GiB model, against `cp`
# of the same bytes on the same disk.
#
# Generates target/kiln-bench/convert/model.safetensors (96 bf16 tensors of
# 16 MiB, random bytes, with __metadata__) once, builds the release `kiln`,
# then times, each under /usr/bin/time -v with the input in the page cache:
#   cp + fsync        the input copied (cp, then `sync FILE`)
#   to kiln           kiln convert model.safetensors model.kiln
#   to safetensors    kiln convert model.kiln back.safetensors (must equal
#                     the input byte for byte)
# `kiln convert` fsyncs its output before renaming it, so the fair baseline
# is cp followed by an fsync of the copy; plain cp is printed too. A global
# `sync` runs before each measurement (untimed), so no run pays for the
# write-back of the one before.
#
# Usage: bash benches/convert.sh [GIB]   (default 1.5; the model is rebuilt
# when its size differs)
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
  echo "$secs" >"$dir/secs-$label"
}

rm -f "$dir/copy.safetensors" "$dir/model.kiln" "$dir/back.safetensors"
echo "== $bytes bytes, $(nproc) cores (shared machine: numbers move between runs)"
measure cp cp "$model" "$dir/copy.safetensors"
rm -f "$dir/copy.safetensors"
measure cp+fsync sh -c "cp '$model' '$dir/copy.safetensors' && sync '$dir/copy.safetensors'"
measure to-kiln "$kiln" convert "$model" "$dir/model.kiln"
measure to-safetensors "$kiln" convert "$dir/model.kiln" "$dir/back.safetensors"
cmp "$model" "$dir/back.safetensors" && echo "round trip: byte-identical"
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
s = {k: float(open(f"{d}/secs-{k}").read()) for k in ["cp", "cp+fsync", "to-kiln", "to-safetensors"]}
for k in ["to-kiln", "to-safetensors"]:
    print(f"{k}: {100 * s['cp+fsync'] / s[k]:.0f}% of cp+fsync throughput, "
          f"{100 * s['cp'] / s[k]:.0f}% of plain cp")
PY
rm -f "$dir/copy.safetensors" "$dir/back.safetensors"
