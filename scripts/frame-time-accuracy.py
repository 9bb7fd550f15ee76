#!/usr/bin/env python3
"""How close the sampler alone comes to the exact frame-time profile
(issue 43; EXPERIMENTS.md, "Frame time from the sampler alone").

For each workload and sampling interval X it runs `nesprof profile`
twice on the same movie: with the exact recorder (the reference: the
exact columns of routines.csv and frames.csv) and with `--no-truth` (the
sampler alone, what a user leaves on). It then compares, routine by
routine (joined by entry), the sampled share of the work with the exact
exclusive share:

  err2   the largest |sampled - exact| in points over routines above 2 %
         of the exact work (the acceptance asks for at most 1 point)
  cover  the share of routines above 1 % whose 95 % interval holds the
         exact share (at least 90 % asked)
  idle   |sampled - exact| idle share of all cycles, in points

Usage: scripts/frame-time-accuracy.py [--frames N] [--x 3,10,30]
       [--workloads name,...] [--games] [--corpus]   (run from the repository root,
       after `cargo build --release`; games need ../shared/roms)
"""

import argparse
import re
import csv
import os
import subprocess
import sys
import tempfile

BUSY = {
    "swarm": ("roms-test/swarm.nes", "movies/swarm.fm2"),
    "plasma": ("roms-test/plasma.nes", "movies/plasma.fm2"),
    "tracker": ("roms-test/tracker.nes", "movies/tracker.fm2"),
}
GAMES = ["fff", "yun", "novathesquirrel", "lunarlimit", "hello_mmc3", "croom", "full_game", "robotfindskitten"]


def find_up(env, name, inside):
    """$env if set, else the nearest `name` directory above the working
    directory holding `inside`, else ../name."""
    if os.environ.get(env):
        return os.environ[env]
    here = os.path.abspath(".")
    while here != "/":
        cand = os.path.join(here, name)
        if os.path.isdir(os.path.join(cand, inside)):
            return cand
        here = os.path.dirname(here)
    return os.path.join("..", name)


def roms_dir():
    return find_up("NESPROF_ROMS", os.path.join("shared", "roms"), ".")


def corpus_dir():
    return find_up("NESPROF_CORPUS", "corpus", "roms")


def profile(rom, movie, frames, x, no_truth, out):
    args = ["target/release/nesprof", "profile", rom, "--movie", movie,
            "--interval-ms", str(x), "--out", out]
    if frames:
        args += ["--frames", str(frames)]
    if no_truth:
        args.append("--no-truth")
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)}: {r.stderr.strip()}")
    with open(os.path.join(out, "routines.csv")) as f:
        routines = list(csv.DictReader(f))
    cycles = idle = 0
    with open(os.path.join(out, "frames.csv")) as f:
        for row in csv.DictReader(f):
            cycles += int(row["cycles"])
            if not no_truth:
                idle += int(row["idle"])
            else:
                idle += float(row["sampled_idle"] or 0)
    return routines, cycles, idle


def compare(name, rom, movie, frames, x, tmp):
    exact, cycles, idle = profile(rom, movie, frames, x, False, os.path.join(tmp, f"{name}-{x}-exact"))
    sampled, s_cycles, _ = profile(rom, movie, frames, x, True, os.path.join(tmp, f"{name}-{x}-sampled"))
    last = open(os.path.join(tmp, f"{name}-{x}-sampled", "report.txt")).read()
    by_entry = {r["entry"]: r for r in sampled}
    err2, worst, n1, covered = 0.0, "", 0, 0
    for r in exact:
        share = float(r["exclusive_pct_of_busy"] or 0)
        s = by_entry.get(r["entry"])
        est = float(s["sampled_pct_of_busy"]) if s and s["sampled_pct_of_busy"] else 0.0
        lo = float(s["sampled_pct_low"]) if s and s["sampled_pct_low"] else 0.0
        hi = float(s["sampled_pct_high"]) if s and s["sampled_pct_high"] else 0.0
        if share > 2.0 and abs(est - share) > err2:
            err2, worst = abs(est - share), f"{r['routine']} {share:.2f} vs {est:.2f}"
        if share > 1.0:
            n1 += 1
            covered += lo <= share <= hi
    # The sampled idle share, from the run's estimate (report line).
    s_idle = None
    for line in last.splitlines():
        if line.strip().startswith("sampled") and "idle" in line:
            s_idle = float(line.split("idle")[1].split("[")[0])
    e_idle = 100.0 * idle / cycles if cycles else 0.0
    return {
        "workload": name, "x": x, "err2": err2, "worst": worst,
        "cover": covered / n1 if n1 else 1.0, "n1": n1,
        "idle_exact": e_idle, "idle_err": abs((s_idle or 0.0) - e_idle),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=0, help="frames per run (default: the movie)")
    ap.add_argument("--x", default="3,10,30")
    ap.add_argument("--workloads", default="")
    ap.add_argument("--games", action="store_true")
    ap.add_argument("--corpus", action="store_true",
                    help="add the corpus games (workloads-corpus.ron: ${CORPUS}/roms, ${CORPUS}/movies)")
    a = ap.parse_args()
    runs = dict(BUSY)
    if a.games:
        roms = roms_dir()
        for g in GAMES:
            path = os.path.join(roms, "games", g + ".nes")
            if os.path.exists(path):
                runs[g] = (path, f"movies/{g}.fm2")
            else:
                print(f"skipped {g}: {path} missing", file=sys.stderr)
    if a.corpus:
        corpus = corpus_dir()
        names = re.findall(r'name:\s*"([^"]+)"', open("workloads-corpus.ron").read())
        for g in names:
            rom = os.path.join(corpus, "roms", g + ".nes")
            movie = os.path.join(corpus, "movies", g + ".fm2")
            if os.path.exists(rom) and os.path.exists(movie):
                runs[g] = (rom, movie)
            else:
                print(f"skipped {g}: {rom} or its movie missing", file=sys.stderr)
    if a.workloads:
        wanted = a.workloads.split(",")
        runs = {k: v for k, v in runs.items() if k in wanted}
    print("| workload | X ms | routines > 1 % | max error > 2 % (points) | worst routine (exact vs sampled %) | 95 % intervals holding the exact share | idle % exact | idle error (points) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (rom, movie) in runs.items():
            for x in a.x.split(","):
                r = compare(name, rom, movie, a.frames, float(x), tmp)
                print(f"| {r['workload']} | {x} | {r['n1']} | {r['err2']:.2f} | {r['worst']} | {100 * r['cover']:.0f} % | {r['idle_exact']:.1f} | {r['idle_err']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
