#!/usr/bin/env python3
"""Plot the corpus frontier written by scripts/corpus-frontier.sh.

Reads corpus-frontier.csv (one row per game and interval X), keeps the busy
games (|H90| >= --min-h90 edges) and draws, for similarity, precision,
hot_precision and overlap, the mean over them and the worst of them against
X (the sampling interval: cost falls as X grows), with issue 44's bars at
3 ms (0.95) and 30 ms (0.90; overlap 0.93) marked. Prints the worst game per
metric and X as a markdown table.

Usage: scripts/frontier/corpus-plot.py [corpus-frontier.csv] [--out corpus-frontier.svg] [--min-h90 20]
Python 3 standard library only.
"""

import argparse
import csv
import math
import sys
from collections import defaultdict
from xml.sax.saxutils import escape

METRICS = ["similarity", "precision", "hot_precision", "overlap"]
BARS = {3.0: {"similarity": 0.95, "precision": 0.95, "hot_precision": 0.95, "overlap": 0.95},
        30.0: {"similarity": 0.90, "hot_precision": 0.90, "overlap": 0.93}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="?", default="/tmp/corpus-frontier/corpus-frontier.csv")
    ap.add_argument("--out", default="corpus-frontier.svg")
    ap.add_argument("--min-h90", type=int, default=20)
    args = ap.parse_args()
    try:
        with open(args.csv, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"corpus-plot: {e}")
    busy = {r["game"] for r in rows if int(r["edges_h90"]) >= args.min_h90}
    by_x = defaultdict(list)
    for r in rows:
        if r["game"] in busy:
            by_x[float(r["interval_ms"])].append(r)
    xs = sorted(by_x)
    if not xs:
        sys.exit("corpus-plot: no busy game in " + args.csv)
    w, h, pad = 260, 220, 40
    lo = min(min(float(r[m]) for r in rs) for rs in by_x.values() for m in METRICS)
    lo = math.floor(min(lo, 0.85) * 20) / 20
    px = lambda x: pad + (math.log(x) - math.log(xs[0])) / max(1e-9, math.log(xs[-1]) - math.log(xs[0])) * (w - 2 * pad)
    py = lambda v: h - pad - (v - lo) / (1 - lo) * (h - 2 * pad)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * len(METRICS)}" height="{h + 20}" font-family="sans-serif" font-size="11">',
           f'<text x="6" y="{h + 14}">corpus: {len(busy)} busy games; mean (blue) and worst game (red) against X (ms, log); ticks: issue 44 bars</text>']
    table = ["| metric | " + " | ".join(f"X = {x:g} ms: mean / worst (game)" for x in xs) + " |",
             "|---|" + "---|" * len(xs)]
    for i, m in enumerate(METRICS):
        ox = i * w
        svg.append(f'<g transform="translate({ox},0)"><text x="{pad}" y="16">{escape(m)}</text>')
        svg.append(f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#888"/>')
        svg.append(f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#888"/>')
        for v in [lo + 0.05 * k for k in range(int(round((1 - lo) / 0.05)) + 1)]:
            svg.append(f'<text x="2" y="{py(v) + 4:.1f}">{v:.2f}</text>')
        for x in xs:
            svg.append(f'<text x="{px(x) - 6:.1f}" y="{h - pad + 14}">{x:g}</text>')
            bar = BARS.get(x, {}).get(m)
            if bar is not None:
                svg.append(f'<line x1="{px(x) - 8:.1f}" y1="{py(bar):.1f}" x2="{px(x) + 8:.1f}" y2="{py(bar):.1f}" stroke="#090" stroke-width="2"/>')
        cells = []
        for colour, pick in (("#36c", "mean"), ("#c33", "worst")):
            pts = []
            for x in xs:
                vals = [(float(r[m]), r["game"]) for r in by_x[x]]
                v = sum(a for a, _ in vals) / len(vals) if pick == "mean" else min(vals)[0]
                pts.append((px(x), py(v)))
            svg.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (colour, " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)))
            for a, b in pts:
                svg.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{colour}"/>')
        for x in xs:
            vals = [(float(r[m]), r["game"]) for r in by_x[x]]
            mean = sum(a for a, _ in vals) / len(vals)
            worst = min(vals)
            cells.append(f"{mean:.3f} / {worst[0]:.3f} ({worst[1]})")
        table.append(f"| {m} | " + " | ".join(cells) + " |")
        svg.append("</g>")
    svg.append("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print("\n".join(table))


if __name__ == "__main__":
    main()
