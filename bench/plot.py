#!/usr/bin/python3
"""Turns Google Benchmark JSON output into one PNG per benchmark family: xlet beside each peer, as
ratios (> 1: xlet is faster). Usage:

    build/bench/bench/dot_bench --benchmark_repetitions=3 --benchmark_out=dot.json --benchmark_out_format=json
    /usr/bin/python3 bench/plot.py dot.json [more.json ...] --out docs/img

Benchmark names are BM_<case>/<impl>/threads:<t>[/real_time]; every impl whose name does not start
with "xlet" is a peer of the xlet runs of the same case and thread count. A paired benchmark
(BM_<case>/paired_with_<peer>) carries its own `ratio` counter, which is plotted as is. With
repetitions, the median aggregate is used. Needs python3-matplotlib (Debian; only for this script).
"""
import argparse
import json
import os
import re
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

NAME = re.compile(r"^(BM_[^/]+)/([^/]+)/threads:(\d+)")


def load(path):
    with open(path) as f:
        doc = json.load(f)
    ctx = doc.get("context", {})
    rows = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = NAME.match(b["name"])
        if not m:
            continue
        case, impl, threads = m.group(1), m.group(2), int(m.group(3))
        rows[(case, impl, threads)] = b
    return ctx, rows


def ratios(rows):
    """{(case, threads): {peer: ratio}}, ratio = peer time / xlet time (or the paired counter)."""
    out = defaultdict(dict)
    xlet = {(c, t): b for (c, i, t), b in rows.items() if i == "xlet"}
    for (case, impl, threads), b in rows.items():
        if impl.startswith("paired_with_"):
            out[(case, threads)][impl[len("paired_with_"):] + " (paired)"] = b.get("ratio", 0.0)
        elif not impl.startswith("xlet") and (case, threads) in xlet:
            out[(case, threads)][impl] = b["real_time"] / xlet[(case, threads)]["real_time"]
    return out


def plot(family, ctx, data, out_dir):
    keys = sorted(data, key=lambda k: (k[0], k[1]))
    peers = sorted({p for k in keys for p in data[k]})
    if not keys or not peers:
        return None
    width = 0.8 / len(peers)
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(keys) + 2), 4.5))
    for j, peer in enumerate(peers):
        xs = [i + j * width for i, k in enumerate(keys) if peer in data[k]]
        ys = [data[k][peer] for k in keys if peer in data[k]]
        ax.bar(xs, ys, width, label=peer)
    ax.axhline(1.0, color="black", linewidth=0.8)
    # A peer that is far slower on one case (im2col per group for a depthwise convolution: 100x)
    # would flatten every other bar: a log scale keeps the ratios near 1 readable.
    vals = [v for k in keys for v in data[k].values() if v > 0]
    if vals and max(vals) / min(vals) > 20:
        ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))])
    ax.set_xticklabels([f"{c[3:]}\n{t} thr" for c, t in keys], fontsize=8, rotation=20 if len(keys) > 10 else 0)
    ax.set_ylabel("xlet speed ÷ peer speed (> 1: xlet faster)")
    host = ctx.get("host_cpu", ctx.get("host_name", "")).split(":")[0]
    isa = ctx.get("xlet_isa", "").split(" (")[0]
    ax.set_title(f"{family}: xlet against its peers {('(' + isa + ')') if isa else ''} {host}".strip(), fontsize=10)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{family}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("--out", default="docs/img")
    ap.add_argument("--suffix", default="", help="appended to each PNG's name (e.g. _avx2)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for path in args.json:
        family = os.path.splitext(os.path.basename(path))[0].replace("_bench", "") + args.suffix
        ctx, rows = load(path)
        written = plot(family, ctx, ratios(rows), args.out)
        print(written or f"{path}: no xlet/peer pairs")


if __name__ == "__main__":
    main()
