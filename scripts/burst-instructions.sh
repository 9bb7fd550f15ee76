#!/usr/bin/env bash
# Host instructions a memory/truth burst adds, frame by frame, against no
# instrumentation: the emulating thread's instructions in each frame
# (callgrind, one dump at each frame's start) of `examples/memory_bursts.rs`
# run once in MODE, minus the same frame of its `none` pass, averaged over
# the bursts (the first aside: it allocates). Next to the wall-clock places
# `memory_bursts` prints, it separates work from the host relearning code
# (BENCHMARKS.md, "Where a burst's time goes (stop 40)").
# Usage: scripts/burst-instructions.sh [GAME] [FRAMES] [MODE]
set -euo pipefail
cd "$(dirname "$0")/.."
game=${1:-fff}
frames=${2:-600}
mode=${3:-both:2/60/0}
if ! [[ $frames =~ ^[0-9]+$ ]] || ((frames < 3 || frames > 1000000)); then
    echo "burst-instructions: FRAMES must be a whole number from 3 to 1000000, not '$frames'" >&2
    exit 2
fi
rom=${NESPROF_ROMS:-../shared/roms}/games/$game.nes
[ -f "$rom" ] || rom=roms-test/$game.nes
if [ ! -f "$rom" ] || [ ! -f "movies/$game.fm2" ]; then
    echo "burst-instructions: no ROM and movie for '$game' (games/$game.nes or roms-test/$game.nes, movies/$game.fm2)" >&2
    exit 2
fi
cargo build --release --quiet --example memory_bursts
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! MEMORY_BURSTS_ROUNDS=1 valgrind --tool=callgrind --separate-threads=yes --error-exitcode=3 \
    --callgrind-out-file="$out/cg" --dump-before='profiler::session::before_frame' \
    target/release/examples/memory_bursts "$rom" "movies/$game.fm2" "$frames" "$mode" \
    >"$out/log" 2>&1; then
    echo "burst-instructions: $(grep -v '^==' "$out/log" | tail -n 1)" >&2
    exit 2
fi
# Dump N of the emulating thread is `cg.N-01`; its summary is the frame
# before it. The passes, in order: a warm-up, none, truth, truth+memory,
# the mode (each `frames - 1` frames: the first frame is the power-on's).
for f in "$out"/cg.*-01; do
    n=${f##*/cg.}
    n=${n%-01}
    echo "$n $(grep -m1 '^summary:' "$f" | awk '{print $2}')"
done | sort -n | awk -v per=$((frames - 1)) '
    { v[NR - 1] = $2 }
    END {
        for (i = 0; i < per; i++) { none[i] = v[per + i]; d[i] = v[4 * per + i] - none[i] }
        split("first later +1 +2 +3 +4 +5 +6", name, " ")
        bursts = 0
        for (i = 1; i < per - 8; i++) {
            if (d[i] > 100000 && d[i - 1] < 100000) {
                if (++bursts == 1) continue
                for (k = 0; k < 8; k++) { sum[k] += d[i + k]; pct[k] += d[i + k] / none[i + k] * 100 }
            }
        }
        if (bursts < 2) { print "no bursts found"; exit 1 }
        printf "%d bursts after the first; extra instructions a frame (%% of the frame):\n", bursts - 1
        for (k = 0; k < 8; k++) printf "%s %+.0f K (%+.2f %%)\n", name[k + 1], sum[k] / (bursts - 1) / 1e3, pct[k] / (bursts - 1)
    }'
