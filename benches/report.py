#!/usr/bin/env python3
"""Turn criterion's output of `cargo bench --bench {serde,tensors,framed}` into markdown.

Reads every `target/criterion/**/new/benchmark.json` (the bench id) with the
`estimates.json` beside it (the median, in ns), plus
`target/kiln-bench/sizes.json` and `target/kiln-bench/run.json` written by the
bench, and prints:

* one table per dataset: the median time of every format and operation, with
  the ratio kiln/peer in parentheses (below 1: kiln is faster or smaller),
  for each cargo profile side by side (benches/rounds.sh runs `bench`, with
  LTO, and `bench-nolto`, the plain `release` profile);
* the issue's targets per profile: kiln <= every serde-based peer on every
  op, mesh within 2x of memcpy; the count met and every miss;
* tensor directories (`--bench tensors`): write throughput in GB/s against
  memcpy and safetensors, validate+view against safetensors, view time for
  1 MiB vs 1 GiB, with the issue's targets (reads `target/kiln-bench/tensors.json`);
* framed vs unframed on a 32-byte message (`--bench framed`): the frame's
  overhead in ns and %, with its target;
* any other bench group as a raw table.

Standard library only.

    python3 benches/report.py                 # target/criterion (one run, one profile)
    python3 benches/report.py --rounds target/kiln-bench/rounds   # what rounds.sh wrote
    python3 benches/report.py --out table.md  # to a file
"""

import argparse
import glob
import json
import os
import platform
import subprocess
import sys

KILN = "kiln"
DATASETS = ["log", "mesh", "savedata", "updates"]
FORMATS = [
    "kiln",
    "bincode1",
    "bincode2",
    "bincode2_legacy",
    "postcard",
    "serde_zap",
    "rmp_serde",
    "bitcode",
    "serde_json",
    "wincode",
    "serde_bound",
    "serde_bound_handle",
    "memcpy",
]
# The serde-based peers kiln must not be slower than (issue 17, goal 3).
SERDE_PEERS = ["bincode1", "bincode2", "bincode2_legacy", "postcard", "serde_zap", "rmp_serde", "bitcode"]
# Not serde: shown, never a target (except memcpy's floor on mesh).
NOT_SERDE = {"wincode": "wincode (own derive)", "memcpy": "memcpy (floor)",
             "serde_bound": "serde floor (`benches/bound.rs`)",
             "serde_bound_handle": "serde floor, kiln's error shape"}
# (directory name under the rounds directory, column label)
PROFILES = [("bench", "LTO"), ("bench-nolto", "no LTO")]
MEMCPY_MAX = 2.0  # mesh serialize / deserialize within 2x of memcpy
# (group suffix, variant or variant prefix, column title)
COLUMNS = [
    ("serialize", "to_vec", "serialize `to_vec`"),
    ("serialize", "reuse(", "serialize, reused buffer"),
    ("serialize", "fixed(", "serialize, fixed slice"),
    ("deserialize", "owned", "deserialize owned"),
    ("deserialize", "borrowed", "deserialize borrowed"),
]
# Within this ratio above 1, a miss is called borderline (quick-mode noise).
BORDERLINE = 1.05
# Groups with their own sections (not repeated in "Other benchmarks").
HANDLED_PREFIXES = ("tensors/", "framed/")
TENSOR_CASES = [("small", "1,000 x 4 KiB"), ("large", "8 x 32 MiB")]
# (function id, label, buffer kind) of the writers; memcpy of the same kind
# is the reference.
WRITERS = [
    ("kiln/write_to", "kiln `write_to` (reused `Vec`)", "reused"),
    ("kiln/build", "kiln `build` (new aligned buffer)", "fresh"),
    ("safetensors/serialize", "safetensors `serialize` (new `Vec`)", "fresh"),
    ("memcpy/reused", "memcpy, payload only (reused `Vec`)", "reused"),
    ("memcpy/fresh", "memcpy, payload only (new `Vec`)", "fresh"),
]
READERS = [
    ("kiln/iter", "kiln `from_bytes` + every `try_as_slice::<f32>` in order"),
    ("kiln/by_name", "kiln `from_bytes` + `by_name` for every name"),
    ("safetensors/tensor", "safetensors `deserialize` + `tensor(name)` for every name"),
]
# The tensor and frame targets.
ENCODE_MIN = 0.80  # kiln write >= 80% of memcpy throughput (256 MiB case)
VIEW_SPEEDUP_MIN = 5.0  # validate+view of 1,000 tensors >= 5x faster than safetensors
FLAT_MAX = 1.5  # view time 1 GiB / 1 MiB: "flat" (1024x the payload)
FRAME_MAX = 0.10  # frame overhead on a 32-byte message <= 10%


def default_target_dir():
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target")


def each_bench(target):
    """(key, benchmark.json, its directory) for every criterion result under
    `target`; key = (group, function, value)."""
    pattern = os.path.join(target, "criterion", "**", "new", "benchmark.json")
    for path in glob.glob(pattern, recursive=True):
        with open(path) as f:
            bench = json.load(f)
        key = (bench["group_id"], bench.get("function_id") or "", bench.get("value_str") or "")
        yield key, bench, os.path.dirname(path)


def load_beside(directory, name):
    """A JSON file next to benchmark.json, or None."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def load_benches(target):
    """{(group, function, value): median ns}."""
    out = {}
    for key, _, d in each_bench(target):
        est = load_beside(d, "estimates.json")
        if est:
            out[key] = est["median"]["point_estimate"]
    return out


def load_throughput(target):
    """{(group, function, value): bytes per iteration} for benches that set it."""
    out = {}
    for key, bench, _ in each_bench(target):
        tp = bench.get("throughput") or {}
        if "Bytes" in tp:
            out[key] = tp["Bytes"]
    return out


def load_best(target):
    """{(group, function, value): fastest sample's time per iteration, ns}.
    On a shared machine load only ever adds time, so for bandwidth-bound
    benches the fastest sample is the closest to what the code can do."""
    out = {}
    for key, _, d in each_bench(target):
        sample = load_beside(d, "sample.json")
        if not sample:
            continue
        per = [t / i for t, i in zip(sample["times"], sample["iters"]) if i]
        if per:
            out[key] = min(per)
    return out


def load_json(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def fmt_time(ns):
    if ns is None:
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}" if ns / scale < 100 else f"{ns / scale:.0f} {unit}"
    return f"{ns:.0f} ns"


def fmt_ratio(kiln, peer):
    if kiln is None or peer is None or peer == 0:
        return ""
    return f" ({kiln / peer:.2f})"


def lookup(benches, dataset, suffix, fmt, variant):
    """Median and full variant name for one cell (prefix match for reuse)."""
    group = f"{dataset}/{suffix}"
    for (g, f, v), ns in benches.items():
        if g == group and f == fmt and (v == variant or (variant.endswith("(") and v.startswith(variant))):
            return ns, v
    return None, None


def cmd(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine():
    model = "unknown"
    lscpu = cmd(["lscpu"])
    for line in lscpu.splitlines():
        if line.startswith("Model name:"):
            model = line.split(":", 1)[1].strip()
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "os": f"{platform.system()} {platform.release()}",
        "rustc": cmd(["rustc", "-V"]),
    }


def dataset_table(runs, sizes, dataset):
    """runs: [(profile label, benches)]; one column per (op, profile) that
    has any number."""
    cols = []
    for suffix, variant, title in COLUMNS:
        for label, benches in runs:
            if any(lookup(benches, dataset, suffix, f, variant)[0] is not None for f in FORMATS):
                cols.append((suffix, variant, f"{title}, {label}" if label else title, benches))
    header = ["format"] + [c[2] for c in cols] + ["size (bytes)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    kiln_size = sizes.get(dataset, {}).get(KILN)
    apis = {}
    for fmt in FORMATS:
        cells = [lookup(b, dataset, s_, fmt, v) for s_, v, _, b in cols]
        if all(ns is None for ns, _ in cells):
            continue
        name = NOT_SERDE.get(fmt, fmt)
        row = [f"**{fmt}**" if fmt == KILN else name]
        for (suffix, variant, _, benches), (ns, full) in zip(cols, cells):
            if full and full.endswith(")"):
                apis.setdefault(full.split("(")[0], set()).add(f"{fmt} `{full.split('(', 1)[1][:-1]}`")
            cell = fmt_time(ns)
            if fmt != KILN and ns is not None:
                cell += fmt_ratio(lookup(benches, dataset, suffix, KILN, variant)[0], ns)
            row.append(cell)
        size = sizes.get(dataset, {}).get(fmt)
        cell = f"{size:,}" if size is not None and fmt not in ("memcpy", "serde_bound", "serde_bound_handle") else "—"
        if fmt not in (KILN, "memcpy", "serde_bound", "serde_bound_handle") and size:
            cell += fmt_ratio(kiln_size, size)
        row.append(cell)
        lines.append("| " + " | ".join(row) + " |")
    for kind, title in (("reuse", "Reused-buffer APIs"), ("fixed", "Fixed-slice APIs")):
        if kind in apis:
            lines += ["", f"{title}: " + ", ".join(sorted(apis[kind])) + "."]
    return lines


TARGET_OPS = [
    ("serialize", "to_vec", "to_vec", "to_vec"),
    ("serialize", "reuse(", "reuse(", "reused buffer"),
    ("serialize", "fixed(", "fixed(", "fixed slice"),
    ("deserialize", "owned", "owned", "deserialize owned"),
    ("deserialize", "borrowed", "borrowed", "deserialize borrowed"),
]


def kiln_cell(benches, ds, suffix, variant):
    return lookup(benches, ds, suffix, KILN, variant)[0]


def targets(benches, sizes):
    """The issue's targets for one profile: (dataset, what, kiln, peer,
    ratio, limit)."""
    rows = []
    for ds in DATASETS:
        for suffix, kv, pv, label in TARGET_OPS:
            kiln = kiln_cell(benches, ds, suffix, kv)
            if kiln is None:
                continue
            for peer in SERDE_PEERS:
                ns, _ = lookup(benches, ds, suffix, peer, pv)
                if ns is None:
                    continue
                rows.append((ds, f"{label} vs {peer}", fmt_time(kiln), fmt_time(ns), kiln / ns, 1.0))
    for suffix, variant, label in (("serialize", "to_vec", "serialize to_vec"),
                                   ("serialize", "reuse(", "serialize reused buffer"),
                                   ("serialize", "fixed(", "serialize fixed slice"),
                                   ("deserialize", "owned", "deserialize owned")):
        kiln, _ = lookup(benches, "mesh", suffix, KILN, variant)
        mem, _ = lookup(benches, "mesh", suffix, "memcpy", variant)
        if kiln is not None and mem:
            rows.append(("mesh", f"{label} vs memcpy", fmt_time(kiln), fmt_time(mem), kiln / mem, MEMCPY_MAX))
    return rows


def verdict(ratio, limit):
    if ratio <= limit:
        return "met"
    if ratio <= limit * BORDERLINE:
        return "**missed (borderline)**"
    return "**MISSED**"


def fmt_gbps(nbytes, ns):
    if nbytes is None or not ns:
        return "—"
    return f"{nbytes / ns:.2f}"


def mark(ok):
    """ok: True, False, None (not a target) or "borderline" (missed within
    the BORDERLINE factor of the limit: quick-mode noise)."""
    if ok is None:
        return "info"
    if ok == "borderline":
        return "**missed (borderline)**"
    return "met" if ok else "**MISSED**"


def at_least(value, limit):
    if value >= limit:
        return True
    return "borderline" if value * BORDERLINE >= limit else False


def at_most(value, limit):
    if value <= limit:
        return True
    return "borderline" if value <= limit * BORDERLINE else False


def tensor_sections(benches, throughput, info, best):
    """Markdown for the tensor benches, and the target rows
    (what, measured, limit, met)."""
    lines, rows = [], []
    sizes = info.get("sizes", {})

    def get(group, fn):
        return benches.get((group, fn, ""))

    if any(g.startswith("tensors/") for g, _, _ in benches):
        lines += ["### Tensor directories: write", ""]
        lines.append(
            "Throughput counts the payload bytes only (GB/s = 10^9 bytes/s). "
            "\"vs memcpy\" is this writer's throughput as a share of a memcpy of the same "
            "payload into the same kind of buffer (reused or new); \"time vs safetensors\" "
            "below 1.00 means faster than `safetensors::serialize`. The last two columns use "
            "the fastest sample instead of the median (load only adds time)."
        )
        lines.append("")
        lines.append(
            "| case | writer | median | GB/s | vs memcpy | time vs safetensors | encoded bytes "
            "| best sample GB/s | best vs memcpy |"
        )
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for case, shape in TENSOR_CASES:
            group = f"tensors/{case}/write"
            st = get(group, "safetensors/serialize")
            for fn, label, kind in WRITERS:
                ns = get(group, fn)
                if ns is None:
                    continue
                nbytes = throughput.get((group, fn, ""))
                mem = get(group, f"memcpy/{kind}")
                vs_mem = f"{mem / ns:.0%}" if mem else "—"
                vs_st = f"{ns / st:.2f}" if st and not fn.startswith("safetensors") else "—"
                who = fn.split("/")[0]
                enc = sizes.get(case, {}).get(who)
                enc = f"{enc:,}" if enc and who != "memcpy" else "—"
                b = best.get((group, fn, ""))
                bm = best.get((group, f"memcpy/{kind}", ""))
                b_vs = f"{bm / b:.0%}" if b and bm else "—"
                lines.append(
                    f"| {case} ({shape}) | {label} | {fmt_time(ns)} | {fmt_gbps(nbytes, ns)} "
                    f"| {vs_mem} | {vs_st} | {enc} | {fmt_gbps(nbytes, b)} | {b_vs} |"
                )
        lines.append("")

        lines += ["### Tensor directories: validate + view", ""]
        lines.append(
            "Every tensor's typed `&[f32]` view (safetensors: its bytes cast with bytemuck). "
            "\"speed-up\" is safetensors' time / this reader's time."
        )
        lines.append("")
        lines.append("| case | reader | median | per tensor | speed-up vs safetensors |")
        lines.append("|---|---|---|---|---|")
        for case, shape in TENSOR_CASES:
            group = f"tensors/{case}/view"
            st = get(group, "safetensors/tensor")
            n = sizes.get(case, {}).get("tensors")
            for fn, label in READERS:
                ns = get(group, fn)
                if ns is None:
                    continue
                per = fmt_time(ns / n) if n else "—"
                sp = f"{st / ns:.1f}x" if st and not fn.startswith("safetensors") else "—"
                lines.append(f"| {case} ({shape}) | {label} | {fmt_time(ns)} | {per} | {sp} |")
        lines.append("")

        flat = {
            (who, lab): get("tensors/view_flat", f"{who}/{lab}")
            for who in ("kiln", "safetensors")
            for lab in ("1MiB", "1GiB")
        }
        if any(v is not None for v in flat.values()):
            lines += ["### Tensor directories: view time vs payload size", ""]
            lines.append("One f32 tensor; validate + view only; the buffers are built once, outside the timing.")
            lines.append("")
            lines.append("| reader | 1 MiB payload | 1 GiB payload | 1 GiB / 1 MiB |")
            lines.append("|---|---|---|---|")
            for who in ("kiln", "safetensors"):
                a, b = flat[(who, "1MiB")], flat[(who, "1GiB")]
                r = f"{b / a:.2f}" if a and b else "—"
                lines.append(f"| {who} | {fmt_time(a)} | {fmt_time(b)} | {r} |")
            lines.append("")

        k = get("tensors/large/write", "kiln/write_to")
        m = get("tensors/large/write", "memcpy/reused")
        if k and m:
            rows.append(("tensor encode, 256 MiB: kiln `write_to` throughput / memcpy (reused buffer)",
                         f"{m / k:.0%}", f">= {ENCODE_MIN:.0%}", at_least(m / k, ENCODE_MIN)))
        kb = best.get(("tensors/large/write", "kiln/write_to", ""))
        mb = best.get(("tensors/large/write", "memcpy/reused", ""))
        if kb and mb:
            rows.append(("(info) the same with the fastest samples", f"{mb / kb:.0%}", f">= {ENCODE_MIN:.0%}", None))
        k = get("tensors/large/write", "kiln/build")
        m = get("tensors/large/write", "memcpy/fresh")
        if k and m:
            rows.append(("(info) tensor encode, 256 MiB: kiln `build` throughput / memcpy (new buffer)",
                         f"{m / k:.0%}", f">= {ENCODE_MIN:.0%}", None))
        k = get("tensors/small/view", "kiln/iter")
        s = get("tensors/small/view", "safetensors/tensor")
        if k and s:
            rows.append(("validate + view, 1,000 tensors: safetensors time / kiln time",
                         f"{s / k:.1f}x", f">= {VIEW_SPEEDUP_MIN:.0f}x", at_least(s / k, VIEW_SPEEDUP_MIN)))
        a, b = flat[("kiln", "1MiB")], flat[("kiln", "1GiB")]
        if a and b:
            rows.append(("view time flat in payload size: kiln 1 GiB / 1 MiB",
                         f"{b / a:.2f}", f"<= {FLAT_MAX}", at_most(b / a, FLAT_MAX)))
    return lines, rows


FRAMED_PAIRS = [
    # (op, framed function id, unframed function id, label, is a target)
    ("serialize", "framed/to_vec", "unframed/to_vec", "`framed::to_vec` vs `to_vec`", True),
    ("serialize", "framed_schema/to_vec", "unframed/to_vec", "`Schema::to_vec` vs `to_vec`", True),
    ("serialize", "framed/to_extend", "unframed/to_extend",
     "`framed::to_extend` vs `to_extend` (reused `Vec`)", True),
    ("serialize", "framed_schema/to_extend", "unframed/to_extend",
     "`Schema::to_extend` vs `to_extend` (reused `Vec`)", True),
    ("deserialize", "framed/from_slice", "unframed/from_slice", "`framed::from_slice` vs `from_slice`", True),
    ("deserialize", "framed_schema/from_slice", "unframed/from_slice",
     "`Schema::from_slice` vs `from_slice`", True),
]


MESSAGE_PAIRS = [
    # (op, kiln function id, bincode 1.3 function id, label)
    ("decode", "kiln/from_slice", "bincode1/deserialize", "`from_slice` vs `bincode::deserialize`"),
    ("decode", "kiln_bincode/deserialize", "bincode1/deserialize", "`bincode::deserialize` (kiln's)"),
    ("decode", "kiln_bincode/options_deserialize", "bincode1/options_deserialize",
     "`DefaultOptions::new().with_fixint_encoding().deserialize`"),
    ("decode", "kiln_bincode/deserialize_from", "bincode1/deserialize_from",
     "`bincode::deserialize_from(&mut &bytes[..])` (kiln's)"),
    ("encode", "kiln/to_extend", "bincode1/serialize_into", "`to_extend` vs `bincode::serialize_into(&mut Vec)`"),
    ("encode", "kiln_bincode/serialize_into", "bincode1/serialize_into", "`bincode::serialize_into(&mut Vec)` (kiln's)"),
]
MESSAGES = 1000  # messages per iteration in framed/32B/messages


def messages_section(benches):
    """32-byte messages in a user's loop against bincode 1.3: lines and
    target rows (kiln at most 1.00x)."""
    lines, rows = [], []
    for op, k, b, label in MESSAGE_PAIRS:
        kn = benches.get(("framed/32B/messages", k, ""))
        bn = benches.get(("framed/32B/messages", b, ""))
        if kn is None or bn is None:
            continue
        if not lines:
            lines += ["### 32-byte messages against bincode 1.3", "",
                      f"{MESSAGES:,} distinct messages per iteration, each decoded from its own `Vec<u8>` "
                      "and folded, or all appended to one reused `Vec`; time per message.", "",
                      "| op | API | kiln | bincode 1.3 | kiln / bincode |", "|---|---|---|---|---|"]
        ratio = kn / bn
        lines.append(f"| {op} | {label} | {kn / MESSAGES:.2f} ns | {bn / MESSAGES:.2f} ns | {ratio:.2f} |")
        rows.append((f"32 B messages, {op}: {label} / bincode 1.3", f"{ratio:.2f}x", "<= 1.00x",
                     at_most(ratio, 1.0)))
    if lines:
        lines.append("")
    return lines, rows


def framed_section(benches):
    lines, rows = [], []
    pairs = []
    for op, fr, un, label, is_target in FRAMED_PAIRS:
        f = benches.get((f"framed/32B/{op}", fr, ""))
        u = benches.get((f"framed/32B/{op}", un, ""))
        if f is not None and u is not None:
            pairs.append((op, label, u, f, is_target))
    if not pairs:
        return lines, rows
    lines += ["### Framed vs unframed, 32-byte message", ""]
    lines.append("Overhead = framed time - unframed time, with the same API shape; % of the unframed time.")
    lines.append("")
    lines.append("| op | API | unframed | framed | overhead | overhead % |")
    lines.append("|---|---|---|---|---|---|")
    for op, label, u, f, is_target in pairs:
        lines.append(f"| {op} | {label} | {fmt_time(u)} | {fmt_time(f)} | {f - u:+.1f} ns | {(f - u) / u:+.0%} |")
        if is_target:
            rows.append((f"frame overhead, 32 B {op}: {label}", f"{(f - u) / u:+.0%}", f"<= {FRAME_MAX:.0%}",
                         at_most(f / u, 1 + FRAME_MAX)))
    msg_lines, msg_rows = messages_section(benches)
    rows += msg_rows
    parts = sorted((fn, ns) for (g, fn, _), ns in benches.items() if g == "framed/32B/parts")
    if parts:
        lines.append("")
        lines.append("The pieces alone: " + ", ".join(f"`{fn}` {fmt_time(ns)}" for fn, ns in parts) + ".")
    lines.append("")
    lines += msg_lines
    return lines, rows


def other_groups(benches):
    known = {f"{d}/{s}" for d in DATASETS for s in ("serialize", "deserialize")}
    rows = sorted(
        (k, v)
        for k, v in benches.items()
        if k[0] not in known and not k[0].startswith(HANDLED_PREFIXES)
    )
    if not rows:
        return []
    lines = ["## Other benchmarks", "", "| id | median |", "|---|---|"]
    for (g, f, v), ns in rows:
        ident = "/".join(p for p in (g, f, v) if p)
        lines.append(f"| {ident} | {fmt_time(ns)} |")
    return lines


def round_dirs(rounds):
    """The run directories under `rounds` (each holds a `criterion/` tree)."""
    return sorted(
        os.path.join(rounds, d)
        for d in os.listdir(rounds)
        if os.path.isdir(os.path.join(rounds, d, "criterion"))
    )


def median_of(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def load_rounds(rounds):
    """Per bench: the median over runs of each run's median; the fastest
    sample over all runs. A bench missing from a run is left out of it."""
    dirs = round_dirs(rounds)
    per = [load_benches(d) for d in dirs]
    keys = set().union(*per) if per else set()
    benches = {k: median_of([p[k] for p in per if k in p]) for k in keys}
    bests = [load_best(d) for d in dirs]
    best = {k: min(b[k] for b in bests if k in b) for k in set().union(*bests)} if bests else {}
    throughput = load_throughput(dirs[0]) if dirs else {}
    return benches, best, throughput, len(dirs)


def load_profiles(rounds):
    """[(label, benches, best, throughput, n)]: one entry per profile
    directory under `rounds` (rounds.sh's layout), or one unlabelled entry
    when `rounds` holds the runs directly."""
    out = []
    for name, label in PROFILES:
        d = os.path.join(rounds, name)
        if os.path.isdir(d) and round_dirs(d):
            out.append((label,) + load_rounds(d))
    if not out and round_dirs(rounds):
        out.append(("",) + load_rounds(rounds))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target-dir", default=default_target_dir())
    ap.add_argument("--out", help="write here instead of stdout")
    ap.add_argument(
        "--rounds",
        help="a directory of runs (benches/rounds.sh writes target/kiln-bench/rounds): "
        "report the median over runs of each run's median",
    )
    args = ap.parse_args()

    if args.rounds:
        runs = load_profiles(args.rounds)
    else:
        d = args.target_dir
        runs = [("", load_benches(d), load_best(d), load_throughput(d), 0)]
    runs = [r for r in runs if r[1]]
    if not runs:
        sys.exit(f"no criterion results under {args.rounds or args.target_dir}: run `cargo bench --bench serde` (or benches/rounds.sh) first")
    # rounds.sh keeps each run's JSON files beside its criterion tree.
    meta = os.path.join(args.target_dir, "kiln-bench")
    if args.rounds:
        kept = sorted(glob.glob(os.path.join(args.rounds, "**", "run.json"), recursive=True))
        if kept:
            meta = os.path.dirname(kept[0])
    sizes = load_json(os.path.join(meta, "sizes.json"))
    run = load_json(os.path.join(meta, "run.json"))
    m = machine()

    out = [f"Machine: CPU {m['cpu']}, {m['cores']} cores, {m['os']}, {m['rustc']}.", ""]
    mode = "quick mode (`KILN_BENCH_QUICK=1`)" if run.get("quick") else "full criterion settings"
    for label, _, _, _, n in runs:
        what = f"the median of {n} runs' medians" if n > 1 else "medians of one run"
        out.append(f"{label or 'This profile'}: {what}, each run in {mode}.")
    out.append("In parentheses: kiln / this format (time or size); below 1.00 kiln is faster or smaller.")
    out.append("")
    pairs = [(label, b) for label, b, _, _, _ in runs]
    for ds in DATASETS:
        if not any(k[0].startswith(ds + "/") for _, b in pairs for k in b):
            continue
        out += [f"### {ds}", ""]
        out.extend(dataset_table(pairs, sizes, ds))
        out.append("")

    for label, benches, _, _, _ in runs:
        rows = targets(benches, sizes)
        if not rows:
            continue
        met = sum(1 for r in rows if r[4] <= r[5])
        out += [f"### Targets{', ' + label if label else ''}: {met} of {len(rows)} met", ""]
        out.append(f"kiln <= every serde-based peer ({', '.join(SERDE_PEERS)}) on every op; "
                   f"mesh within {MEMCPY_MAX:.0f}x of memcpy. Misses:")
        out.append("")
        out.append("| dataset | comparison | kiln | peer | kiln/peer | limit | result |")
        out.append("|---|---|---|---|---|---|---|")
        for ds, what, k, p, ratio, limit in rows:
            if ratio > limit:
                out.append(f"| {ds} | {what} | {k} | {p} | {ratio:.2f} | {limit:.1f} | {verdict(ratio, limit)} |")
        out.append("")
        kiln, _ = lookup(benches, "mesh", "deserialize", KILN, "owned")
        floor, _ = lookup(benches, "mesh", "deserialize", "serde_bound", "owned")
        handle, _ = lookup(benches, "mesh", "deserialize", "serde_bound_handle", "owned")
        mem, _ = lookup(benches, "mesh", "deserialize", "memcpy", "owned")
        if kiln and floor and mem:
            line = (f"Not a target: `mesh` deserialize, the serde floor (`serde_bound`) {fmt_time(floor)}, "
                    f"{floor / mem:.2f}x memcpy; kiln {kiln / floor:.2f}x the floor.")
            if handle:
                line += (f" With an error of kiln's shape (`serde_bound_handle`) the floor is "
                         f"{fmt_time(handle)}, {handle / mem:.2f}x memcpy; kiln {kiln / handle:.2f}x it.")
            out.append(line)
            out.append("")
    tensors = load_json(os.path.join(meta, "tensors.json"))
    framed = load_json(os.path.join(meta, "framed.json"))
    for label, benches, best, throughput, n_rounds in runs:
        t_lines, t_rows = tensor_sections(benches, throughput, tensors, best)
        f_lines, f_rows = framed_section(benches)
        if not (t_lines or f_lines):
            continue
        if label:
            out += [f"## Tensors and frames, {label}", ""]
        modes = []
        for name, info in (("tensors", tensors), ("framed", framed)):
            if info:
                modes.append(f"`--bench {name}`: " + ("quick mode" if info.get("quick") else "full criterion settings"))
        if modes:
            over = f" (median of {n_rounds} runs' medians; fastest sample over all runs)" if n_rounds > 1 else ""
            out.append("Tensor and frame benches, medians from " + "; ".join(modes) + over + ".")
            out.append("")
        out.extend(t_lines)
        out.extend(f_lines)
        if t_rows or f_rows:
            out += ["### Tensor and frame targets", ""]
            out.append("| target | measured | limit | result |")
            out.append("|---|---|---|---|")
            for what, measured, limit, ok in t_rows + f_rows:
                out.append(f"| {what} | {measured} | {limit} | {mark(ok)} |")
            counted = [r for r in t_rows + f_rows if r[3] is not None]
            met = sum(1 for r in counted if r[3] is True)
            out.append("")
            out.append(f"{met} of {len(counted)} targets met (\"info\" rows are not targets).")
            out.append("")
    for label, benches, _, _, _ in runs:
        other = other_groups(benches)
        if other and label:
            other[0] += f", {label}"
        out.extend(other)


    text = "\n".join(out).rstrip() + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
