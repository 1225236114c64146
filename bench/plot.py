#!/usr/bin/python3
"""Plots of Google Benchmark JSON output (docs/performance.md, "Plots"). Needs python3-matplotlib.

    B=build/bench/bench; R='--benchmark_repetitions=3 --benchmark_out_format=json'
    $B/dot_bench $R --benchmark_out=dot.json          # likewise <family>.json for each family
    /usr/bin/python3 bench/plot.py dot.json layout.json ... --out docs/img
    /usr/bin/python3 bench/plot.py --roofline dot.json layout.json elementwise.json ... --out docs/img

Family figures (<family>.png, one per JSON file, the family is the file's name less "_bench"): one
group of bars per case, one bar per thread count: xlet's speed ÷ the best peer's for that case and
thread count (> 1: xlet is faster), drawn from the 1.0 line to the ratio, labelled with the ratio and
the peer. Names are BM_<case>/<impl>/threads:<t>[/real_time]. impl "xlet" is xlet; an impl naming
xlet otherwise ("xlet_two_pass", "dequant_xlet_dot") and "translated" are other forms of xlet, not
peers; every other impl is a peer. A paired row (impl "paired_with_<peer>" or "vs_<peer>",
bench_common.hpp run_paired) gives its `ratio` counter, which replaces that peer's own row (and its
"_tbb" form) at that thread count. At 2 threads a peer's 1-thread row competes too (", 1 thr").
Pairs with another form of xlet (SELF_PAIRED) are plotted only for a case with no peer, after the
others. memset(0) is a reference, not a peer (zeros are stored about twice as fast as other data).
With repetitions the median aggregate is used (else the median of the repetitions). The scale turns
logarithmic when the ratios span more than 20x.

Roofline (--roofline, all the JSON files together): roofline.png, every xlet row at x = arithmetic
intensity (FLOP per byte), y = GFLOP/s, under each thread count's two roofs: the copy bandwidth
(layout_bench BM_transpose/memcpy and memcpy_tbb, bytes read + written, so x counts bytes read +
written too) and the FMA peak (dot_bench BM_peak_fma_f32; f64 dotted), measured in the same runs; a
second panel enlarges the rows right of ZOOM_AT. bandwidth.png: every xlet row with a bytes/s
counter as a fraction of the copy bandwidth at the same thread count (not sort's: NO_BANDWIDTH).
Rows that run from L1 (IN_CACHE) are left out of both.
    FLOP/s: the benchmark's "FLOP/s" counter (dot, conv, fft, mlp), else FLOP_PER_BYTE below times
            its bytes/s (element-wise: one FLOP an operation, exp counted as one; reductions: one
            add an element read). Rows with neither (gather, sort, RNG...) are in bandwidth.png only.
    FLOP/byte: the compulsory traffic, each operand read once and the result written once, f32
            (f64 for dgemm): GEMM 2mnk / 4(mk + kn + mn) (ragged: 8 expert matrices; scaled: the
            scales left out); convolution 2 N OH OW K C/groups KH KW / 4(input + weights + output),
            the shapes of CONV_CASES (bench/conv_bench.cpp's cases); MLP and attention: their
            parameters, inputs and outputs (not the intermediates); FFT 5 n log2 n / 16 n complex
            (real transforms 2.5 n log2 n / (4 n + 8 (n/2 + 1))); a row with a bytes/s counter:
            FLOP/s ÷ bytes/s.
"""
import argparse
import json
import math
import os
import re
import socket
import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import matplotlib.transforms  # noqa: E402

NAME = re.compile(r"^BM_([^/]+)/([^/]+)/threads:(\d+)")
PAIRED = re.compile(r"^(?:paired_with_|vs_)(.+)$")
SELF_PAIRED = {"assign", "two_pass", "rowsum"}
REFERENCE = {"memset"}
COLOURS = {1: "#4C72B0", 2: "#DD8452"}
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
WIDTH_IN, DPI = 10.0, 130  # 1300 px


# ---- input -----------------------------------------------------------------------------------------


def load(path):
    """(context, {(case, impl, threads): row}, [case in order of appearance]). A row: real_time in
    seconds and its counters, the median aggregate or else the median of the repetitions."""
    with open(path) as f:
        doc = json.load(f)
    runs, medians, order = defaultdict(list), {}, []
    for b in doc["benchmarks"]:
        m = NAME.match(b["name"])
        if not m or b.get("error_occurred"):
            continue
        key = (m.group(1), m.group(2), int(m.group(3)))
        if key[0] not in order:
            order.append(key[0])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = b
        else:
            runs[key].append(b)
    rows = {}
    for key in set(runs) | set(medians):
        src = [medians[key]] if key in medians else runs[key]
        row = {}
        for field in set().union(*src):
            vals = [b[field] for b in src if isinstance(b.get(field), (int, float)) and not isinstance(b[field], bool)]
            if vals and field not in ("iterations", "repetitions", "repetition_index", "threads", "family_index",
                                      "per_family_instance_index"):
                row[field] = statistics.median(vals)
        row["seconds"] = row["real_time"] * UNIT[src[0].get("time_unit", "ns")]
        rows[key] = row
    return doc.get("context", {}), rows, order


def family_of(path):
    return os.path.splitext(os.path.basename(path))[0].replace("_bench", "")


def microarch(vendor, family, model):
    if vendor == "AuthenticAMD":
        if family == 26:
            return "Zen 5"
        if family == 25:
            return "Zen 4" if (0x10 <= model <= 0x1F or 0x60 <= model <= 0x7F or 0xA0 <= model <= 0xAF) else "Zen 3"
        if family == 23:
            return "Zen 2" if model >= 0x30 else "Zen / Zen+"
    return ""


def local_model():
    info = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if not line.strip():
                break
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
    return f"{info.get('model name', '')}, {info.get('vendor_id', '')} family {info.get('cpu family', '')} " \
           f"model {info.get('model', '')}"


def describe(ctx):
    """'AMD EPYC family 26 model 2 (Zen 5), 2 CPUs, AVX-512 host; AVX-512 build; 2026-11-28'."""
    model = ctx.get("host_model")
    if not model and ctx.get("host_name") == socket.gethostname():
        model = local_model()  # an older JSON of this machine
    if not model:
        model = ctx.get("host_cpu", "unknown CPU").split(":")[0]
    m = re.match(r"(.*), (\w+) family (\d+) model (\d+)", model)
    if m:
        arch = microarch(m.group(2), int(m.group(3)), int(m.group(4)))
        model = f"{m.group(1)} family {m.group(3)} model {m.group(4)}" + (f" ({arch})" if arch else "")
    flags = ctx.get("host_cpu", "")
    host_isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    isa = ctx.get("xlet_isa", "")
    build = "AVX-512" if "AVX-512" in isa else "AVX2" if "AVX2" in isa else isa.split(" (")[0]
    parts = [model + (f", {ctx['num_cpus']} CPUs" if "num_cpus" in ctx else "") +
             (f", {host_isa} host" if host_isa else ""), f"{build} build" if build else "",
             ctx.get("date", "")[:10]]
    return "; ".join(p for p in parts if p)


# ---- family figures ----------------------------------------------------------------------------------


def ratios(rows, order):
    """[(case, {threads: (ratio, peer label)}, against itself)] in the JSON's order, the cases paired with
    another form of xlet last; and the xlet cases with no peer."""
    speed = {k: 1.0 / r["seconds"] for k, r in rows.items() if r["seconds"] > 0}
    out, own, lonely = [], [], []
    for case in order:
        per_t = {}
        for t in sorted({k[2] for k in rows if k[0] == case}):
            impls = [k[1] for k in rows if k[0] == case and k[2] == t]
            cand, self_cand = {}, {}
            paired_peers = set()
            for i in impls:
                m = PAIRED.match(i)
                if m and "ratio" in rows[(case, i, t)]:
                    peer = m.group(1)
                    if peer in REFERENCE:
                        continue
                    (self_cand if peer in SELF_PAIRED else cand)[f"{peer} (paired)"] = rows[(case, i, t)]["ratio"]
                    paired_peers.add(peer)
            x = speed.get((case, "xlet", t))
            for i in impls:
                if "xlet" in i or i == "translated" or PAIRED.match(i) or i in REFERENCE:
                    continue
                if i in paired_peers or i.removesuffix("_tbb") in paired_peers or x is None:
                    continue
                if (case, i, t) in speed:
                    cand[i] = x / speed[(case, i, t)]
            # a peer may use fewer threads (FFTW's 2-thread small transforms pay the threads' start-up)
            for (c, i, t1), v in speed.items():
                if c == case and t1 < t and x is not None and not ("xlet" in i or i == "translated" or PAIRED.match(i)
                                                                    or i in REFERENCE or i in paired_peers):
                    cand[f"{i}, {t1} thr"] = x / v
            against_self = not cand
            cand = cand or self_cand
            if cand:
                peer = min(cand, key=cand.get)
                per_t[t] = (cand[peer], peer)
        if per_t:
            (own if against_self else out).append((case, per_t, against_self))
        elif not case.startswith("peak_") and any(k[0] == case and k[1] == "xlet" for k in rows):
            lonely.append(case)
    return out + own, lonely


def short(case, family):
    for p in (family + "_", "fft_", "conv_", "rng_"):
        if case.startswith(p):
            return case[len(p):]
    return case


def plot_family(family, ctx, data, lonely, out_dir, suffix):
    if not data:
        return None
    n = len(data)
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 1.5 + 0.52 * n))
    vals = [r for _, per_t, _ in data for r, _ in per_t.values()]
    log = max(vals + [1.0]) / min(vals + [1.0]) > 20
    bar_h = 0.38
    for i, (case, per_t, against_self) in enumerate(data):
        if against_self and (i == 0 or not data[i - 1][2]):
            ax.axhline(i - 0.5, color="#888888", linewidth=0.8, linestyle="--")
            ax.text(0.995, i - 0.45, "below: xlet against another form of xlet", transform=ax.get_yaxis_transform(),
                    ha="right", va="top", fontsize=7.5, color="#555555")
        for t, (r, peer) in per_t.items():
            y = i + (t - 1.5) * bar_h if len(per_t) > 1 else i
            ax.barh(y, r - 1.0, height=bar_h * 0.92, left=1.0, color=COLOURS.get(t, "grey"),
                    alpha=0.55 if against_self else 1.0)
            ax.text(max(r, 1.0) * (1.02 if log else 1.0) + (0 if log else 0.01 * max(vals + [1])), y,
                    f" {r:.2f}  vs {peer}", va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1.0)
    ax.set_yticks(range(n))
    ax.set_yticklabels([short(c, family) for c, _, _ in data], fontsize=9)
    ax.invert_yaxis()
    ax.set_ylim(n - 0.5, -0.5)
    if log:
        ax.set_xscale("log")
        lo, hi = min(vals + [1.0]) / 1.5, max(vals + [1.0]) * 8
        ax.set_xlim(lo, hi)
        ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100) if lo <= t <= hi]
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
    else:
        hi, lo = max(vals + [1.0]), min(vals + [1.0])
        ax.set_xlim(max(0.0, math.floor((lo - 0.1 * (hi - lo) - 0.1) * 10) / 10), hi + 0.45 * (hi - lo) + 0.3)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_xlabel("xlet's speed ÷ the best peer's  (> 1: xlet faster" + ("; log scale)" if log else ")"), fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[t]) for t in (1, 2)]
    fig.legend(handles, ["1 thread", "2 threads"], fontsize=8, loc="lower right", ncol=2, frameon=False)
    ax.set_title(f"{family}_bench: xlet against the best peer of each case\n{describe(ctx)}", fontsize=10)
    if lonely:
        fig.text(0.01, 0.005, "no peer (not shown): " + ", ".join(short(c, family) for c in lonely), fontsize=7,
                 color="#555555", va="bottom")
    fig.tight_layout(rect=(0, 0.35 / (1.5 + 0.52 * n), 1, 1))
    path = os.path.join(out_dir, f"{family}{suffix}.png")
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


# ---- roofline ------------------------------------------------------------------------------------------

# FLOPs per byte moved of the memory-bound rows that compute: (family, case) -> FLOP / byte.
FLOP_PER_BYTE = {
    ("elementwise", "add"): 1 / 12,  # y = a + b: 1 add, 12 B
    ("elementwise", "bcast"): 1 / 8,  # [4096,4096] + [4096]: 1 add, 8 B (the row is cached)
    ("elementwise", "fused"): 5 / 16,  # a*b + exp(c) - max(a, c): 5 operations, 16 B
    ("layout", "fused"): 2 / 12,  # exp(transpose(a)) + b: 2 operations, 12 B
    ("reduce", "sum"): 1 / 4,
    ("reduce", "rowsum"): 1 / 4,
    ("reduce", "colsum"): 1 / 4,
}

# bench/conv_bench.cpp's cases: n, c, h, w, k, kh, kw, stride, pad, groups (dgrad: the same sizes).
CONV_CASES = {
    "resnet3x3_nhwc": (8, 64, 56, 56, 64, 3, 3, 1, 1, 1),
    "resnet3x3_nchw": (8, 64, 56, 56, 64, 3, 3, 1, 1, 1),
    "stem7x7_nhwc": (1, 3, 224, 224, 64, 7, 7, 2, 3, 1),
    "stem7x7_nchw": (1, 3, 224, 224, 64, 7, 7, 2, 3, 1),
    "dw3x3_nhwc": (8, 256, 28, 28, 256, 3, 3, 1, 1, 256),
    "1x1_nhwc": (8, 256, 14, 14, 512, 1, 1, 1, 0, 1),
    "dgrad3x3_nhwc": (8, 64, 56, 56, 64, 3, 3, 1, 1, 1),
    "resnet3x3_bias_relu_nhwc": (8, 64, 56, 56, 64, 3, 3, 1, 1, 1),  # (the epilogue's bytes and FLOPs left out)
    "dw3x3_bias_relu_nhwc": (8, 256, 28, 28, 256, 3, 3, 1, 1, 256),
}


# Families whose bytes/s is the input's size over the time, not traffic: left out of bandwidth.png.
NO_BANDWIDTH = {"sort"}

ZOOM_AT = 8.0  # FLOP/byte: the rows right of it are enlarged in the roofline's second panel

# Rows that run from L1 (their bytes/s is no bandwidth): left out of the roofline.
IN_CACHE = {"static_4", "static_16", "add4x4"}


def gemm_intensity(m, n, k, size=4, batch=1, rhs_count=1):
    return 2.0 * m * n * k * batch / (size * batch * (m * k + rhs_count * k * n + m * n))


def intensity(family, case):
    """FLOP per byte of compulsory traffic of a compute row, or None (see the docstring)."""
    m = re.fullmatch(r"sgemm_(\d+)(?:_tn|_nt)?", case)
    if family == "dot" and m:
        return gemm_intensity(*[int(m.group(1))] * 3)
    if family == "dot" and (m := re.fullmatch(r"dgemm_(\d+)", case)):
        return gemm_intensity(*[int(m.group(1))] * 3, size=8)
    if family == "dot" and (m := re.fullmatch(r"gemm_(\d+)x(\d+)x(\d+)", case)):
        return gemm_intensity(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if family == "dot" and (m := re.fullmatch(r"bmm_(\d+)x(\d+)", case)):
        s = int(m.group(2))
        return gemm_intensity(s, s, s, batch=int(m.group(1)))
    if family == "dot" and case == "ragged_moe":  # [4096,1024] x [8,1024,1024]
        return 2.0 * 4096 * 1024 * 1024 / (4 * (4096 * 1024 + 8 * 1024 * 1024 + 4096 * 1024))
    if family == "dot" and (m := re.fullmatch(r"scaled_(\d+)", case)):
        return gemm_intensity(*[int(m.group(1))] * 3)
    if family == "conv" and case.startswith("conv_") and case[5:] in CONV_CASES:
        n, c, h, w, k, kh, kw, s, p, g = CONV_CASES[case[5:]]
        oh, ow = (h + 2 * p - kh) // s + 1, (w + 2 * p - kw) // s + 1
        flops = 2.0 * n * oh * ow * k * (c // g) * kh * kw
        return flops / (4.0 * (n * c * h * w + kh * kw * (c // g) * k + n * k * oh * ow))
    if family == "mlp" and case == "mlp":  # x [256,784] -> 512 -> 10, labels [256]
        flops = 2.0 * 256 * 784 * 512 + 2.0 * 256 * 512 * 10
        return flops / (4.0 * (256 * 784 + 784 * 512 + 512 + 512 * 10 + 10 + 256))
    if family == "mlp" and case == "attention":  # q, k, v, out [512,64]
        return 4.0 * 512 * 512 * 64 / (4.0 * 4 * 512 * 64)
    if family == "fft" and (m := re.fullmatch(r"fft_c2c_(\d+)", case)):
        return 5 * math.log2(int(m.group(1))) / 16
    if family == "fft" and (m := re.fullmatch(r"fft_c2c_2p(\d+)", case)):
        return 5 * int(m.group(1)) / 16
    if family == "fft" and (m := re.fullmatch(r"fft_(?:r2c|c2r)_2p(\d+)", case)):
        n = 2 ** int(m.group(1))
        return 2.5 * n * math.log2(n) / (4 * n + 8 * (n // 2 + 1))
    if family == "fft" and (m := re.fullmatch(r"fft_batch_(\d+)x(\d+)", case)):
        return 5 * math.log2(int(m.group(2))) / 16
    if family == "fft" and (m := re.fullmatch(r"fft_2d_(\d+)x(\d+)", case)):
        return 5 * math.log2(int(m.group(1)) * int(m.group(2))) / 16
    return None


def label_points(fig, ax, points):
    """Labels at the 2-thread point (the 1-thread point of a row is below it, at the same x), each at
    the nearest of a few offsets where it covers no other label and no marker and stays inside."""
    renderer = fig.canvas.get_renderer()
    placed = []
    for p in points:
        x, y = ax.transData.transform((p[3], p[4]))
        placed.append(matplotlib.transforms.Bbox.from_extents(x - 4, y - 4, x + 4, y + 4))
    frame = ax.get_window_extent(renderer)
    offsets = [(dx, dy, ha) for dy in sorted(range(-59, 70, 8), key=abs) for dx, ha in ((4, "left"), (-4, "right"))]
    for fam, case, t, i, g in sorted(points, key=lambda p: -p[4]):
        if t != 2 and any(q[0] == fam and q[1] == case and q[2] == 2 for q in points):
            continue
        for dx, dy, ha in offsets:
            ann = ax.annotate(case, (i, g), xytext=(dx, dy - 3), textcoords="offset points", fontsize=7.5, ha=ha)
            box = ann.get_window_extent(renderer)
            ann.remove()
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not any(box.overlaps(b) for b in placed):
                break
        else:
            dx, dy, ha = offsets[0]
        ax.annotate(case, (i, g), xytext=(dx, dy - 3), textcoords="offset points", fontsize=7.5, ha=ha,
                    color="#222222", arrowprops={"arrowstyle": "-", "color": "#aaaaaa", "linewidth": 0.5,
                                                 "shrinkA": 0, "shrinkB": 3} if abs(dy) > 5 else None)
        placed.append(box)


def roofline(paths, out_dir, suffix):
    families = [(family_of(p), *load(p)) for p in paths]
    ctx = next((c for f, c, _, _ in families if f == "dot"), families[0][1])
    peak, peak64, copy = {}, {}, {}
    for fam, _, rows, _ in families:
        for (case, impl, t), r in rows.items():
            if fam == "dot" and case == "peak_fma_f32" and "FLOP/s" in r:
                peak[t] = r["FLOP/s"] / 1e9
            if fam == "dot" and case == "peak_fma_f64" and "FLOP/s" in r:
                peak64[t] = r["FLOP/s"] / 1e9
            if fam == "layout" and case == "transpose" and impl in ("memcpy", "memcpy_tbb") and "bytes_per_second" in r:
                copy[t] = r["bytes_per_second"] / 1e9
    if not peak or not copy:
        raise SystemExit("--roofline needs dot.json (BM_peak_fma_f32) and layout.json (BM_transpose/memcpy)")

    points, bars, skipped = [], [], []  # points: (family, case, t, intensity, GFLOP/s); bars: (label, t, GB/s)
    for fam, _, rows, order in families:
        for case in order:
            for t in (1, 2):
                r = rows.get((case, "xlet", t))
                if r is None or case.startswith("peak_") or case in IN_CACHE:
                    continue
                if "bytes_per_second" in r:
                    bars.append((f"{fam}: {short(case, fam)}", t, r["bytes_per_second"] / 1e9))
                fpb = FLOP_PER_BYTE.get((fam, case))
                if "FLOP/s" in r:
                    i = r["FLOP/s"] / r["bytes_per_second"] if "bytes_per_second" in r else intensity(fam, case)
                    if i is None:
                        skipped.append(f"{fam}: {case}")
                    else:
                        points.append((fam, short(case, fam), t, i, r["FLOP/s"] / 1e9))
                elif fpb and "bytes_per_second" in r:
                    points.append((fam, short(case, fam), t, fpb, fpb * r["bytes_per_second"] / 1e9))
    if skipped:
        print("roofline: no arithmetic intensity for", ", ".join(sorted(set(skipped))))

    # Two panels: every row (labelled left of ZOOM_AT FLOP/byte) and, below, the compute-bound rows
    # at a larger scale (labelled).
    fig, (ax, zx) = plt.subplots(2, 1, figsize=(WIDTH_IN, 11.5), dpi=DPI, gridspec_kw={"height_ratios": [1, 1.15]})
    xs = [p[3] for p in points] + [0.05, 1000]
    grid = [10 ** (e / 40) for e in range(int(40 * math.log10(min(xs) / 2)), int(40 * math.log10(max(xs) * 2)) + 1)]
    fams = list(dict.fromkeys(p[0] for p in points))
    colour = {f: plt.get_cmap("tab10")(k % 10) for k, f in enumerate(fams)}
    compute = [p for p in points if p[3] >= ZOOM_AT]
    for a in (ax, zx):
        for t in sorted(peak):
            if t not in copy:
                continue
            style = {"color": "#444444" if t == 1 else "black", "linestyle": "--" if t == 1 else "-"}
            a.plot(grid, [min(peak[t], copy[t] * x) for x in grid], linewidth=1.4, **style,
                   label=f"{t} thr: copy {copy[t]:.0f} GB/s, FMA f32 {peak[t]:.0f} GFLOP/s")
            if t in peak64:
                a.plot(grid, [min(peak64[t], copy[t] * x) for x in grid], linewidth=0.8, color=style["color"],
                       linestyle=":", label=f"{t} thr: FMA f64 {peak64[t]:.0f} GFLOP/s")
        for fam, case, t, i, g in points:
            a.plot(i, g, "o" if t == 1 else "^", color=colour[fam], markersize=5 if t == 1 else 6,
                   markeredgecolor="black", markeredgewidth=0.4)
        a.set_xscale("log")
        a.set_yscale("log")
        a.grid(True, which="major", color="#dddddd", linewidth=0.6)
        a.set_ylabel("GFLOP/s", fontsize=9)
    for f in fams:
        ax.plot([], [], "s", color=colour[f], label=f)
    ax.set_xlim(min(xs) / 2, max(xs) * 2)
    ax.set_ylim(min([p[4] for p in points] + [peak[min(peak)]]) / 2, max(peak.values()) * 1.6)
    ax.legend(fontsize=7, loc="lower right", ncol=2)
    ax.set_xlabel("arithmetic intensity, FLOP per byte read + written (compulsory traffic)", fontsize=9)
    ax.set_title(f"xlet's rows under the roofs measured in the same runs (o 1 thread, ^ 2 threads)\n{describe(ctx)}",
                 fontsize=10)
    if compute:
        zoom = (min(p[3] for p in compute) / 1.3, max(p[3] for p in compute) * 1.3,
                min(p[4] for p in compute) / 1.15, max(peak.values()) * 1.15)
        zx.set_xlim(zoom[0], zoom[1])
        zx.set_ylim(zoom[2], zoom[3])
        ax.add_patch(plt.Rectangle((zoom[0], zoom[2]), zoom[1] - zoom[0], zoom[3] - zoom[2], fill=False,
                                   linestyle="--", linewidth=0.7, color="#888888"))
        zx.set_title(f"the compute-bound rows (intensity >= {ZOOM_AT:g}), enlarged", fontsize=9)
        zx.set_xlabel("arithmetic intensity, FLOP per byte", fontsize=9)
        for axis in (zx.xaxis, zx.yaxis):
            axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}" if
                                                                     str(f"{v:g}")[0] in "25" else ""))
            axis.set_tick_params(which="minor", labelsize=7)
    else:
        zx.set_visible(False)
    fig.tight_layout()
    label_points(fig, ax, [p for p in points if p[3] < ZOOM_AT])
    label_points(fig, zx, compute)
    paths = [os.path.join(out_dir, f"roofline{suffix}.png"), os.path.join(out_dir, f"bandwidth{suffix}.png")]
    fig.savefig(paths[0], dpi=DPI)
    plt.close(fig)

    bars = [b for b in bars if b[0].split(":")[0] not in NO_BANDWIDTH]
    names = list(dict.fromkeys(b[0] for b in bars))
    fig, bx = plt.subplots(figsize=(WIDTH_IN, 1.6 + 0.42 * len(names)))
    bar_h = 0.4
    for label, t, gbs in bars:
        y = names.index(label) + (t - 1.5) * bar_h
        bx.barh(y, gbs / copy[t], height=bar_h * 0.92, color=COLOURS[t])
        bx.text(gbs / copy[t], y, f"  {gbs:.1f} GB/s", va="center", fontsize=7.5)
    bx.axvline(1.0, color="black", linewidth=1.0)
    bx.set_yticks(range(len(names)))
    bx.set_yticklabels(names, fontsize=9)
    bx.set_ylim(len(names) - 0.5, -0.5)
    bx.set_xlim(0, max(b[2] / copy[b[1]] for b in bars) * 1.18)
    bx.grid(axis="x", color="#dddddd", linewidth=0.6)
    bx.set_axisbelow(True)
    bx.set_xlabel("GB/s (bytes read + written) ÷ the copy bandwidth at the same thread count", fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[t]) for t in (1, 2)]
    fig.legend(handles, ["1 thread", "2 threads"], fontsize=8, loc="lower right", ncol=2, frameon=False)
    bx.set_title(f"xlet's bytes/s rows against memcpy ({copy.get(1, 0):.1f} / {copy.get(2, 0):.1f} GB/s at 1 / 2 "
                 f"threads)\n{describe(ctx)}", fontsize=10)
    fig.tight_layout(rect=(0, 0.35 / (1.6 + 0.42 * len(names)), 1, 1))
    fig.savefig(paths[1], dpi=DPI)
    plt.close(fig)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="<family>.json files (Google Benchmark --benchmark_out)")
    ap.add_argument("--out", default="docs/img")
    ap.add_argument("--suffix", default="", help="appended to each PNG's name (e.g. _avx2)")
    ap.add_argument("--roofline", action="store_true", help="one roofline figure of all the files instead")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.roofline:
        print("\n".join(roofline(args.json, args.out, args.suffix)))
        return
    for path in args.json:
        family = family_of(path)
        ctx, rows, order = load(path)
        data, lonely = ratios(rows, order)
        print(plot_family(family, ctx, data, lonely, args.out, args.suffix) or f"{path}: no xlet/peer pairs")


if __name__ == "__main__":
    main()
