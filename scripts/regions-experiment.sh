#!/usr/bin/env bash
# Issue 47's experiment: for each busy workload, the host instructions
# (valgrind callgrind: deterministic, load-independent) of the CPU side,
# the PPU and the rest (scripts/cpu_side_split.py), and the share of busy
# instructions run inside hot regions, with regions off, chosen by NET, by
# the sampled hot CFG at X = 3 and 30 ms, and by the exact H90 of the same
# frames (`profile`'s truth.ron: the oracle).
# Usage: scripts/regions-experiment.sh [FRAMES] [WORKLOAD...]
#   (WORKLOAD: a movies/NAME.fm2; default: the busy ones, bundled and games)
# Prints one line per workload and choice:
#   workload choice apu=…M cpu=…M other=…M ppu=…M region_ops=… busy=…
# and then per workload each choice's share of busy instructions in regions.
# The runs are identical, so the busy count (instructions outside idle
# loops) is the NET run's: with the sampler attached `run` misses some idle
# iterations that the batches run, and understates the share.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-600}
shift || true
workloads=("$@")
. scripts/busy-workloads.sh
[ ${#workloads[@]} -gt 0 ] || workloads=("${BUSY_WORKLOADS[@]}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
one() { # workload choice
    local name=$1 choice=$2 rom
    rom=$(rom_of "$name")
    local args=(--regions "${choice%@*}")
    case $choice in
        exact) args+=(--regions-from "$out/$name.truth/truth.ron") ;;
        sampled@*) args+=(--interval-ms "${choice#*@}") ;;
    esac
    valgrind --tool=callgrind --callgrind-out-file="$out/$name.$choice.cg" \
        target/release/nesprof run "$rom" --movie "movies/$name.fm2" --frames "$frames" \
        "${args[@]}" >/dev/null 2>"$out/$name.$choice.err"
    local split ops busy
    split=$(callgrind_annotate --threshold=100 "$out/$name.$choice.cg" 2>/dev/null | scripts/cpu_side_split.py "$name $choice")
    ops=$(grep -o ' ops=[0-9]*' "$out/$name.$choice.err" | cut -d= -f2 || true)
    busy=$(grep -o 'of the [0-9]* outside' "$out/$name.$choice.err" | cut -d' ' -f3 || true)
    echo "$split region_ops=${ops:-0} busy=${busy:-0}" | tee "$out/$name.$choice.line"
}
export -f one rom_of
export out frames
for name in "${workloads[@]}"; do
    target/release/nesprof profile "$(rom_of "$name")" --movie "movies/$name.fm2" --frames "$frames" \
        --out "$out/$name.truth" >/dev/null 2>&1
done
for name in "${workloads[@]}"; do
    for choice in off net sampled@3 sampled@30 exact; do echo "$name $choice"; done
done | xargs -P "${JOBS:-2}" -L 1 bash -c 'one "$0" "$1"'
echo "busy instructions in regions (busy: the NET run's count)"
for name in "${workloads[@]}"; do
    busy=$(grep -o 'busy=[0-9]*' "$out/$name.net.line" | cut -d= -f2)
    line=$name
    for choice in net sampled@3 sampled@30 exact; do
        ops=$(grep -o 'region_ops=[0-9]*' "$out/$name.$choice.line" | cut -d= -f2)
        line+=" $choice=$(awk -v o="$ops" -v b="$busy" 'BEGIN { if (b + 0 > 0) printf "%.1f%%", 100 * o / b; else printf "-" }')"
    done
    echo "$line"
done
