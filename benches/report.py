#!/usr/bin/env python3
"""Turn criterion's output of `cargo bench --bench serde` into markdown.

Reads every `target/criterion/**/new/benchmark.json` (the bench id) with the
`estimates.json` beside it (the median, in ns), plus
`target/kiln-bench/sizes.json` and `target/kiln-bench/run.json` written by the
bench, and prints:

* one table per dataset: the median time of every format and operation, with
  the ratio kiln/peer in parentheses (below 1: kiln is faster or smaller);
* the issue's targets, each marked met or missed;
* any other bench group (future tensor benches) as a raw table.

Standard library only.

    python3 benches/report.py                 # to stdout
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
    "rmp_serde",
    "bitcode",
    "serde_json",
]
# (group suffix, variant or variant prefix, column title)
COLUMNS = [
    ("serialize", "to_vec", "serialize `to_vec`"),
    ("serialize", "reuse(", "serialize, reused buffer"),
    ("deserialize", "owned", "deserialize owned"),
    ("deserialize", "borrowed", "deserialize borrowed"),
]
# Within this ratio above 1, a miss is called borderline (quick-mode noise).
BORDERLINE = 1.05


def default_target_dir():
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target")


def load_benches(target):
    """{(group, function, value): median ns}."""
    out = {}
    pattern = os.path.join(target, "criterion", "**", "new", "benchmark.json")
    for path in glob.glob(pattern, recursive=True):
        with open(path) as f:
            bench = json.load(f)
        est_path = os.path.join(os.path.dirname(path), "estimates.json")
        if not os.path.exists(est_path):
            continue
        with open(est_path) as f:
            est = json.load(f)
        key = (bench["group_id"], bench.get("function_id") or "", bench.get("value_str") or "")
        out[key] = est["median"]["point_estimate"]
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


def dataset_table(benches, sizes, dataset):
    lines = []
    header = ["format"] + [c[2] for c in COLUMNS] + ["size (bytes)"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    kiln_cells = [lookup(benches, dataset, s, KILN, v)[0] for s, v, _ in COLUMNS]
    kiln_size = sizes.get(dataset, {}).get(KILN)
    reuse_apis = []
    for fmt in FORMATS:
        row = [f"**{fmt}**" if fmt == KILN else fmt]
        for (suffix, variant, _), kiln_ns in zip(COLUMNS, kiln_cells):
            ns, full = lookup(benches, dataset, suffix, fmt, variant)
            if full and full.startswith("reuse("):
                reuse_apis.append(f"{fmt} `{full[6:-1]}`")
            cell = fmt_time(ns)
            if fmt != KILN and ns is not None:
                cell += fmt_ratio(kiln_ns, ns)
            row.append(cell)
        size = sizes.get(dataset, {}).get(fmt)
        cell = f"{size:,}" if size is not None else "—"
        if fmt != KILN and size:
            cell += fmt_ratio(kiln_size, size)
        row.append(cell)
        lines.append("| " + " | ".join(row) + " |")
    if reuse_apis:
        lines.append("")
        lines.append("Reused-buffer APIs: " + ", ".join(reuse_apis) + ".")
    return lines


def targets(benches, sizes):
    """The issue's targets: (dataset, what, kiln, peer, ratio, limit)."""
    rows = []
    for ds in DATASETS:
        ops = [
            ("serialize", "to_vec", "serialize to_vec"),
            ("serialize", "reuse(", "serialize reused buffer"),
            ("deserialize", "owned", "deserialize owned"),
            ("deserialize", "borrowed", "deserialize borrowed"),
        ]
        for suffix, variant, label in ops:
            kiln, _ = lookup(benches, ds, suffix, KILN, variant)
            if kiln is None:
                continue
            for peer, limit in (("bincode1", 1.0), ("postcard", 1.0), ("bitcode", 1.5)):
                ns, _ = lookup(benches, ds, suffix, peer, variant)
                if ns is None:
                    continue
                rows.append((ds, f"{label} vs {peer}", fmt_time(kiln), fmt_time(ns), kiln / ns, limit))
        k = sizes.get(ds, {}).get(KILN)
        b = sizes.get(ds, {}).get("bincode1")
        if k and b:
            rows.append((ds, "size vs bincode1", f"{k:,}", f"{b:,}", k / b, 1.0))
    return rows


def verdict(ratio, limit):
    if ratio <= limit:
        return "met"
    if ratio <= limit * BORDERLINE:
        return "**missed (borderline)**"
    return "**MISSED**"


def other_groups(benches):
    known = {f"{d}/{s}" for d in DATASETS for s in ("serialize", "deserialize")}
    rows = sorted((k, v) for k, v in benches.items() if k[0] not in known)
    if not rows:
        return []
    lines = ["## Other benchmarks", "", "| id | median |", "|---|---|"]
    for (g, f, v), ns in rows:
        ident = "/".join(p for p in (g, f, v) if p)
        lines.append(f"| {ident} | {fmt_time(ns)} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target-dir", default=default_target_dir())
    ap.add_argument("--out", help="write here instead of stdout")
    args = ap.parse_args()

    benches = load_benches(args.target_dir)
    if not benches:
        sys.exit(f"no criterion results under {args.target_dir}/criterion: run `cargo bench --bench serde` first")
    sizes = load_json(os.path.join(args.target_dir, "kiln-bench", "sizes.json"))
    run = load_json(os.path.join(args.target_dir, "kiln-bench", "run.json"))
    m = machine()

    out = []
    mode = "quick mode (`KILN_BENCH_QUICK=1`)" if run.get("quick") else "full criterion settings"
    out.append(f"Medians from {mode}; CPU {m['cpu']}, {m['cores']} cores, {m['os']}, {m['rustc']}.")
    out.append("In parentheses: kiln / this format (time or size); below 1.00 kiln is faster or smaller.")
    out.append("")
    for ds in DATASETS:
        if not any(k[0].startswith(ds + "/") for k in benches):
            continue
        out.append(f"### {ds}")
        out.append("")
        out.extend(dataset_table(benches, sizes, ds))
        out.append("")

    rows = targets(benches, sizes)
    if rows:
        out.append("### Targets")
        out.append("")
        out.append("Time and size targets: kiln <= bincode1, kiln <= postcard, kiln <= 1.5 x bitcode (serde API), size <= bincode1.")
        out.append("")
        out.append("| dataset | comparison | kiln | peer | kiln/peer | limit | result |")
        out.append("|---|---|---|---|---|---|---|")
        for ds, what, k, p, ratio, limit in rows:
            out.append(f"| {ds} | {what} | {k} | {p} | {ratio:.2f} | {limit:.1f} | {verdict(ratio, limit)} |")
        met = sum(1 for r in rows if r[4] <= r[5])
        out.append("")
        out.append(f"{met} of {len(rows)} targets met.")
        out.append("")
    out.extend(other_groups(benches))

    text = "\n".join(out).rstrip() + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
