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
    callgrind_annotate --threshold=100 "$out/$engine" 2>/dev/null | python3 -c '
import sys, re, collections
side = collections.Counter()
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S+?:(.+?)(?: \[.*\])?$", line)
    if not m:
        continue
    f, n = m.group(2), int(m.group(1).replace(",", ""))
    low = f.lower()
    if "::ppu::" in low:
        side["ppu"] += n
    elif "::apu::" in low:
        side["apu"] += n
    elif any(k in f for k in ("emu::cpu", "emu::translate", "emu::bus", "emu::cartridge", "emu::mapper", "emu::nes::Nes")):
        side["cpu"] += n
    else:
        side["other"] += n
print(sys.argv[1], " ".join(f"{k}={v / 1e6:.0f}M" for k, v in sorted(side.items())))
' "$engine"
done
rm -r "$out"
