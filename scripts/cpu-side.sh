#!/usr/bin/env bash
# Host instructions (valgrind callgrind, deterministic, load-independent)
# spent on the CPU side (CPU core, translator, bus, cartridge, DMA) vs the
# PPU and APU, per engine, over FRAMES frames of a workload's movie.
# Usage: scripts/cpu-side.sh NAME [FRAMES]   (NAME: a movies/NAME.fm2)
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
frames=${2:-600}
rom=roms-test/$name.nes
[ -f "$rom" ] || rom=${NESPROF_ROMS:-../shared/roms}/games/$name.nes
out=$(mktemp -d)
for engine in interp translate; do
    valgrind --tool=callgrind --callgrind-out-file="$out/$engine" \
        target/release/nesprof run "$rom" --movie "movies/$name.fm2" \
        --frames "$frames" --engine "$engine" >/dev/null 2>&1
    callgrind_annotate --threshold=100 "$out/$engine" 2>/dev/null | scripts/cpu_side_split.py "$engine"
done
rm -r "$out"
