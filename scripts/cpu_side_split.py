#!/usr/bin/env python3
"""Splits `callgrind_annotate --threshold=100` output (stdin) into the CPU
side (CPU core, translator, bus, cartridge, mappers, DMA), the PPU, the APU
and the rest, in millions of host instructions: scripts/cpu-side.sh's
classification, shared with scripts/regions-experiment.sh.

Usage: callgrind_annotate --threshold=100 F | cpu_side_split.py LABEL"""
import collections
import re
import sys

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
