#!/usr/bin/env bash
# The cost-accuracy frontier of the hot-CFG builders.
#
# For every workload and every sampler setting X (ms between batches) x N
# (instructions per batch), profile the workload once (recording the sample
# stream samples.bin and the exact CFG truth.ron), then rebuild the hot CFG
# offline from that one stream with both builders (gfc = GFCGaussiano at
# 10,15,13,5; trace), so both are judged on exactly the same samples.
#
# Workloads: every game is first profiled at X = 3 ms, N = 25 and classified
# busy (|H90| >= MIN_H90 edges) or degenerate; the full X x N grid is run only
# for the busy ones. The degenerate games keep their single (3, 25) rows in
# the CSV (plot.py leaves them out of the means).
#
# Output, in $WORK:
#   frontier.csv    workload,interval_ms,batch,builder,<metrics of the last line>
#   workloads.csv   workload,edges_h90,class   (from the X = 3, N = 25 run)
#   runs.csv        workload,interval_ms,batch,frame_hash,profile_wall_s
#   NAME-X-N/       the profile's output (samples.bin, truth.ron, ...) and the
#                   logs of the profile and of both builds
# A run whose directory already holds a complete result is not redone (FORCE=1
# redoes everything).
#
# Usage: scripts/frontier/run.sh [GAME...]
# A workload is a roms-test program (roms-test/NAME.nes) or a shared game
# ($NESPROF_ROMS/games/NAME.nes), with movies/NAME.fm2.
# Environment: NESPROF (binary), NESPROF_ROMS (ROM root, games in games/),
#   WORK (default /tmp/frontier), JOBS (parallel profiles, default 1),
#   INTERVALS (default "1 3 10 30"), BATCHES (default "10 25 50 100"),
#   MIN_H90 (default 20), KEEP_SAMPLES (default 1; 0 deletes samples.bin
#   after both builds), FORCE, REBUILD (1: keep the recorded streams, redo
#   only the builds, after a change to a builder).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NESPROF=${NESPROF:-$REPO/target/release/nesprof}
NESPROF_ROMS=${NESPROF_ROMS:-$REPO/../shared/roms}
MOVIES=${MOVIES:-$REPO/movies}
WORK=${WORK:-/tmp/frontier}
JOBS=${JOBS:-1}
INTERVALS=${INTERVALS:-"1 3 10 30"}
BATCHES=${BATCHES:-"10 25 50 100"}
MIN_H90=${MIN_H90:-20}
KEEP_SAMPLES=${KEEP_SAMPLES:-1}
FORCE=${FORCE:-0}
REBUILD=${REBUILD:-0}
BUILDERS="gfc trace"
FIELDS="similarity precision weighted overlap sampled_pct edges_g edges_h90 similarity99 edges_h99 hot_precision"

if [ $# -gt 0 ]; then
    GAMES="$*"
else
    GAMES="swarm plasma tracker fff yun novathesquirrel full_game lunarlimit croom robotfindskitten hello_mmc3"
fi

# The ROM of workload $1.
rom_of() {
    if [ -f "$REPO/roms-test/$1.nes" ]; then
        echo "$REPO/roms-test/$1.nes"
    else
        echo "$NESPROF_ROMS/games/$1.nes"
    fi
}

[ -x "$NESPROF" ] || { echo "no nesprof binary at $NESPROF (set NESPROF or cargo build --release)" >&2; exit 1; }
for g in $GAMES; do
    [ -f "$(rom_of "$g")" ] || { echo "missing ROM $(rom_of "$g")" >&2; exit 1; }
    [ -f "$MOVIES/$g.fm2" ] || { echo "missing movie $MOVIES/$g.fm2" >&2; exit 1; }
done
mkdir -p "$WORK"

. "$REPO/scripts/frontier/field.sh"

# Profile GAME at X, N and rebuild with both builders; leaves DIR/rows.csv
# (one row per builder) and DIR/run.csv; DIR/done marks a complete result.
run_one() {
    local game=$1 x=$2 n=$3
    local dir="$WORK/$game-$x-$n"
    local t0 t1 line b row f
    if [ "$REBUILD" = 1 ] && [ -f "$dir/samples.bin" ] && [ -f "$dir/run.csv" ]; then
        rm -f "$dir/done"
    else
        if [ "$FORCE" != 1 ] && [ -f "$dir/done" ]; then return 0; fi
        rm -rf "$dir"
        mkdir -p "$dir"
        t0=$(date +%s.%N)
        "$NESPROF" profile "$(rom_of "$game")" --movie "$MOVIES/$game.fm2" \
            --interval-ms "$x" --batch "$n" --out "$dir" >"$dir/profile.log" 2>&1 \
            || { echo "profile failed: $game X=$x N=$n (see $dir/profile.log)" >&2; return 1; }
        t1=$(date +%s.%N)
        line=$(tail -n 1 "$dir/profile.log")
        echo "$game,$x,$n,$(field "$line" frame_hash),$(awk "BEGIN {printf \"%.2f\", $t1 - $t0}")" >"$dir/run.csv"
    fi
    : >"$dir/rows.tmp"
    for b in $BUILDERS; do
        "$NESPROF" cfg build "$dir/samples.bin" --truth "$dir/truth.ron" --builder "$b" \
            >"$dir/build-$b.log" 2>&1 \
            || { echo "cfg build failed: $game X=$x N=$n $b (see $dir/build-$b.log)" >&2; return 1; }
        line=$(tail -n 1 "$dir/build-$b.log")
        row="$game,$x,$n,$b"
        for f in $FIELDS; do row="$row,$(field "$line" "$f")"; done
        echo "$row" >>"$dir/rows.tmp"
    done
    mv "$dir/rows.tmp" "$dir/rows.csv"
    [ "$KEEP_SAMPLES" = 1 ] || rm -f "$dir/samples.bin"
    touch "$dir/done"
    echo "  $game X=$x N=$n: $(cut -d, -f4,5,10 "$dir/rows.csv" | tr '\n' ' ')(profile $(cut -d, -f5 "$dir/run.csv") s)" >&2
}

# Run "GAME X N" tasks from stdin with at most $JOBS at a time.
run_all() {
    local game x n running=0 failed=0
    while read -r game x n; do
        if [ "$JOBS" -le 1 ]; then
            run_one "$game" "$x" "$n" || failed=1
        else
            run_one "$game" "$x" "$n" &
            running=$((running + 1))
            if [ "$running" -ge "$JOBS" ]; then
                wait -n || failed=1
                running=$((running - 1))
            fi
        fi
    done
    while [ "$running" -gt 0 ]; do
        wait -n || failed=1
        running=$((running - 1))
    done
    return $failed
}

start=$(date +%s)

echo "== classify: every game at X = 3 ms, N = 25 (busy: |H90| >= $MIN_H90)" >&2
for g in $GAMES; do echo "$g 3 25"; done | run_all
echo "workload,edges_h90,class" >"$WORK/workloads.csv"
busy=
for g in $GAMES; do
    h90=$(head -n 1 "$WORK/$g-3-25/rows.csv" | cut -d, -f11)
    if [ "$h90" -ge "$MIN_H90" ]; then class=busy; busy="$busy $g"; else class=degenerate; fi
    echo "$g,$h90,$class" >>"$WORK/workloads.csv"
    printf '  %-18s edges_h90=%-5s %s\n' "$g" "$h90" "$class" >&2
done

echo "== grid: X in {$INTERVALS} ms x N in {$BATCHES} for:$busy" >&2
for g in $busy; do
    for x in $INTERVALS; do
        for n in $BATCHES; do echo "$g $x $n"; done
    done
done | run_all

# Assemble the CSVs in a fixed order.
echo "workload,interval_ms,batch,builder,${FIELDS// /,}" >"$WORK/frontier.csv"
echo "workload,interval_ms,batch,frame_hash,profile_wall_s" >"$WORK/runs.csv"
all_x=$(printf '%s\n' 3 $INTERVALS | sort -nu)
all_n=$(printf '%s\n' 25 $BATCHES | sort -nu)
for g in $GAMES; do
    for x in $all_x; do
        for n in $all_n; do
            d="$WORK/$g-$x-$n"
            [ -f "$d/done" ] || continue
            cat "$d/rows.csv" >>"$WORK/frontier.csv"
            cat "$d/run.csv" >>"$WORK/runs.csv"
        done
    done
done

# The sampler must not perturb the emulation: one frame hash per workload.
for g in $GAMES; do
    hashes=$(awk -F, -v g="$g" '$1 == g {print $4}' "$WORK/runs.csv" | sort -u | wc -l)
    [ "$hashes" -le 1 ] || echo "warning: $g has $hashes different frame hashes across settings" >&2
done

echo "== wrote $WORK/frontier.csv ($(($(wc -l <"$WORK/frontier.csv") - 1)) rows) in $(($(date +%s) - start)) s" >&2
