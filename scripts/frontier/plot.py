#!/usr/bin/env python3
"""Plot the cost-accuracy frontier written by scripts/frontier/run.sh.

Reads frontier.csv (one row per workload, X, N, builder), keeps the busy
workloads (|H90| >= --min-h90 edges) and, for every (X, N) that all of them
ran, averages each metric over them. Writes an SVG with three panels
(similarity, hot_precision, overlap against sampled_pct on a log axis; one
line per builder per N, its points the intervals X) and prints markdown
tables: the classification of the workloads, the means per (X, N), and the
per-workload results at (3 ms, 25) and (30 ms, 25).

Usage: scripts/frontier/plot.py [frontier.csv] [--out frontier.svg] [--min-h90 20]
Python 3 standard library only.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

METRICS = ["similarity", "precision", "weighted", "overlap", "sampled_pct",
           "edges_g", "edges_h90", "similarity99", "edges_h99", "hot_precision"]
BUILDERS = ["gfc", "trace"]
BUILDER_LABEL = {"gfc": "gfc (GFCGaussiano 10,15,13,5)", "trace": "trace"}
PANELS = [("similarity", "similarity (hot CFG vs H90)"),
          ("hot_precision", "hot_precision"),
          ("overlap", "overlap")]
# One colour per N (colour-blind safe, Okabe-Ito), one dash/marker per builder.
N_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"]
DASH = {"gfc": "6,4", "trace": ""}


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {"workload": r["workload"], "x": float(r["interval_ms"]),
                   "n": int(r["batch"]), "builder": r["builder"]}
            for m in METRICS:
                row[m] = float(r[m])
            rows.append(row)
    return rows


def num(v):
    """1.0 -> '1', 0.5 -> '0.5'."""
    return ("%g" % v)


def classify(rows, min_h90):
    """workload -> (edges_h90, busy); the first listed order is kept."""
    out = {}
    for r in rows:
        h = int(r["edges_h90"])
        if r["workload"] in out and out[r["workload"]][0] != h:
            print("warning: %s has differing edges_h90 (%d, %d)"
                  % (r["workload"], out[r["workload"]][0], h), file=sys.stderr)
        out.setdefault(r["workload"], (h, h >= min_h90))
    return out


def aggregate(rows, busy):
    """(x, n, builder) -> {metric: mean over busy workloads}, for the
    settings where every busy workload has a row."""
    by = defaultdict(dict)
    for r in rows:
        if r["workload"] in busy:
            by[(r["x"], r["n"], r["builder"])][r["workload"]] = r
    means = {}
    for key, per in by.items():
        if set(per) != set(busy):
            continue
        means[key] = {m: sum(p[m] for p in per.values()) / len(per) for m in METRICS}
    return means


# ---------------------------------------------------------------- SVG

class Svg:
    def __init__(self, w, h):
        self.w, self.h, self.parts = w, h, []

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=12, anchor="start", weight="normal",
             fill="#222", rotate=None, style=""):
        tr = ' transform="rotate(%d %.1f %.1f)"' % (rotate, x, y) if rotate else ""
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" '
                 'font-weight="%s" fill="%s"%s%s>%s</text>'
                 % (x, y, size, anchor, weight, fill, tr,
                    (' font-style="%s"' % style) if style else "", escape(s)))

    def line(self, x1, y1, x2, y2, stroke="#000", width=1, dash=""):
        self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                 'stroke-width="%s"%s/>'
                 % (x1, y1, x2, y2, stroke, width,
                    (' stroke-dasharray="%s"' % dash) if dash else ""))

    def polyline(self, pts, stroke, width=2, dash=""):
        self.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s" '
                 'stroke-linejoin="round"%s/>'
                 % (" ".join("%.1f,%.1f" % p for p in pts), stroke, width,
                    (' stroke-dasharray="%s"' % dash) if dash else ""))

    def marker(self, x, y, builder, colour, r=4.5):
        if builder == "gfc":
            self.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="white" '
                     'stroke="%s" stroke-width="2"/>' % (x - r, y - r, 2 * r, 2 * r, colour))
        else:
            self.add('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="white" '
                     'stroke-width="1"/>' % (x, y, r, colour))

    def render(self):
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
                'viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">\n'
                '<rect width="100%%" height="100%%" fill="white"/>\n%s\n</svg>\n'
                % (self.w, self.h, self.w, self.h, "\n".join(self.parts)))


def log_ticks(lo, hi):
    """Tick values 1, 2, 5 x 10^k within [lo, hi]."""
    ticks = []
    for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** k
            if lo <= v * (1 + 1e-9) and v <= hi * (1 + 1e-9):
                ticks.append(v)
    return ticks


def plot(means, busy, xs, ns, path):
    pw, ph = 430, 380                  # plot area of one panel
    ml, mr, mt, mb = 70, 25, 120, 70    # margins around each panel
    legend_h = 95
    W = len(PANELS) * (ml + pw + mr) + 20
    H = mt + ph + mb + legend_h
    svg = Svg(W, H)

    pcts = [v["sampled_pct"] for v in means.values() if v["sampled_pct"] > 0]
    # Axis range: the 1-2-5 ticks just around the data.
    lo = max(t for t in log_ticks(min(pcts) / 10, min(pcts)) if t <= min(pcts))
    hi = min(t for t in log_ticks(max(pcts), max(pcts) * 10) if t >= max(pcts))
    llo, lhi = math.log10(lo), math.log10(hi)

    svg.text(W / 2, 30, "nesprof cost-accuracy frontier: GFCGaussiano vs trace builder",
             size=20, anchor="middle", weight="bold")
    svg.text(W / 2, 54,
             "mean over the %d busy workloads (%s); each builder rebuilt from the same "
             "recorded sample stream" % (len(busy), ", ".join(busy)),
             size=13, anchor="middle", fill="#444")
    svg.text(W / 2, 73,
             "one line per builder and batch size N; its points, left to right: X = %s ms "
             "between batches" % ", ".join(num(x) for x in reversed(xs)),
             size=13, anchor="middle", fill="#444")

    for i, (metric, title) in enumerate(PANELS):
        x0 = 10 + i * (ml + pw + mr) + ml
        y0 = mt

        def px(v):
            return x0 + (math.log10(v) - llo) / (lhi - llo) * pw

        def py(v):
            return y0 + ph - v * ph

        svg.add('<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="#fafafa" '
                'stroke="#888"/>' % (x0, y0, pw, ph))
        for t in [k / 10 for k in range(11)]:
            major = abs(t * 5 - round(t * 5)) < 1e-9
            svg.line(x0, py(t), x0 + pw, py(t), stroke="#ddd" if major else "#eee")
            if major:
                svg.line(x0 - 5, py(t), x0, py(t), stroke="#444")
                svg.text(x0 - 8, py(t) + 4, "%.1f" % t, size=11, anchor="end")
        for t in log_ticks(lo, hi):
            svg.line(px(t), y0, px(t), y0 + ph, stroke="#ddd")
            svg.line(px(t), y0 + ph, px(t), y0 + ph + 5, stroke="#444")
            svg.text(px(t), y0 + ph + 19, num(t), size=11, anchor="middle")
        svg.text(x0 + pw / 2, y0 - 12, title, size=15, anchor="middle", weight="bold")
        svg.text(x0 + pw / 2, y0 + ph + 42,
                 "sampled instructions, % of executed (log scale)", size=12, anchor="middle")
        svg.text(x0 - 45, y0 + ph / 2, "mean " + metric, size=12, anchor="middle",
                 rotate=-90)

        for b in BUILDERS:
            for j, n in enumerate(ns):
                pts = [means[(x, n, b)] for x in xs if (x, n, b) in means]
                pts = sorted(((p["sampled_pct"], p[metric]) for p in pts
                              if p["sampled_pct"] > 0))
                if not pts:
                    continue
                colour = N_COLOURS[j % len(N_COLOURS)]
                xy = [(px(s), py(v)) for s, v in pts]
                svg.polyline(xy, colour, width=2, dash=DASH[b])
                for (sx, sy) in xy:
                    svg.marker(sx, sy, b, colour)

    # Legend: builders (line style) and N (colour).
    ly = mt + ph + mb + 20
    lx = 10 + ml
    svg.text(lx, ly, "builder", size=13, weight="bold")
    for k, b in enumerate(BUILDERS):
        yy = ly + 22 + k * 24
        svg.polyline([(lx, yy - 4), (lx + 50, yy - 4)], "#444", width=2, dash=DASH[b])
        svg.marker(lx + 25, yy - 4, b, "#444")
        svg.text(lx + 60, yy, BUILDER_LABEL[b], size=13)
    lx2 = lx + 330
    svg.text(lx2, ly, "batch size N (instructions per batch)", size=13, weight="bold")
    for j, n in enumerate(ns):
        colour = N_COLOURS[j % len(N_COLOURS)]
        xx = lx2 + j * 110
        svg.polyline([(xx, ly + 18), (xx + 40, ly + 18)], colour, width=3)
        svg.text(xx + 48, ly + 22, "N = %d" % n, size=13)
    svg.text(lx2, ly + 50,
             "sampled % ≈ N / (X × emulated instructions per ms): cost grows to the right",
             size=12, fill="#444", style="italic")
    if any(n < 13 for n in ns):
        svg.text(lx2, ly + 68,
                 "gfc at N < 13 has no window of 13 samples, so it never builds a hot CFG "
                 "(all metrics 0)", size=12, fill="#444", style="italic")

    with open(path, "w") as f:
        f.write(svg.render())


# ---------------------------------------------------------------- tables

def f4(v):
    return "%.4f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_csv = os.path.join(os.environ.get("WORK", "/tmp/frontier"), "frontier.csv")
    ap.add_argument("csv", nargs="?", default=default_csv)
    ap.add_argument("--out", help="SVG path (default: frontier.svg next to the CSV)")
    ap.add_argument("--min-h90", type=int, default=20,
                    help="busy workloads have at least this many H90 edges (default 20)")
    args = ap.parse_args()
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.csv)), "frontier.svg")

    rows = load(args.csv)
    cls = classify(rows, args.min_h90)
    busy = [w for w, (_, b) in cls.items() if b]
    if not busy:
        sys.exit("no busy workload (edges_h90 >= %d) in %s" % (args.min_h90, args.csv))
    means = aggregate(rows, busy)
    xs = sorted({k[0] for k in means})
    ns = sorted({k[1] for k in means})

    print("### Workloads (busy: edges_h90 >= %d)\n" % args.min_h90)
    print("| workload | edges_h90 | class |")
    print("|---|---:|---|")
    for w, (h, b) in cls.items():
        print("| %s | %d | %s |" % (w, h, "busy" if b else "degenerate"))

    print("\n### Mean over the %d busy workloads (%s)\n" % (len(busy), ", ".join(busy)))
    cols = ["similarity", "hot_precision", "precision", "overlap"]
    short = {"similarity": "sim", "hot_precision": "hot_prec", "precision": "prec",
             "overlap": "overlap"}
    head = ["X ms", "N", "sampled %"] + ["%s %s" % (b, short[c]) for b in BUILDERS for c in cols]
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    for x in xs:
        for n in ns:
            if not all((x, n, b) in means for b in BUILDERS):
                continue
            cells = [num(x), str(n), "%.3f" % means[(x, n, BUILDERS[0])]["sampled_pct"]]
            cells += [f4(means[(x, n, b)][c]) for b in BUILDERS for c in cols]
            print("| " + " | ".join(cells) + " |")

    for (x, n) in [(3.0, 25), (30.0, 25)]:
        print("\n### Per workload at X = %s ms, N = %d\n" % (num(x), n))
        head = ["workload", "builder", "sampled %", "similarity", "hot_precision",
                "precision", "weighted", "overlap", "edges_g", "edges_h90"]
        print("| " + " | ".join(head) + " |")
        print("|---|---|" + "---:|" * (len(head) - 2))
        for w in busy:
            for b in BUILDERS:
                r = [r for r in rows if r["workload"] == w and r["x"] == x
                     and r["n"] == n and r["builder"] == b]
                if not r:
                    continue
                r = r[0]
                print("| %s | %s | %.3f | %s | %s | %s | %s | %s | %d | %d |"
                      % (w, b, r["sampled_pct"], f4(r["similarity"]), f4(r["hot_precision"]),
                         f4(r["precision"]), f4(r["weighted"]), f4(r["overlap"]),
                         r["edges_g"], r["edges_h90"]))

    plot(means, busy, xs, ns, out)
    print("\nwrote %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
