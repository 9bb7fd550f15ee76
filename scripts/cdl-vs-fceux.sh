#!/usr/bin/env bash
# Compares nesprof's `--cdl` with the Code/Data Logger of FCEUX itself over
# the same run, and prints how many PRG/CHR bytes agree per CDL bit.
# Usage: scripts/cdl-vs-fceux.sh ROM FRAMES [MOVIE.fm2]
#   Keeps both files in $CDL_VS_DIR (default: a temp dir, printed at the end).
#   Needs fceux (apt package, the Qt/SDL 2.6 build), xvfb-run and python3.
#
# How FCEUX is made to log headlessly (its Lua CDL functions are Windows-only):
# the Qt build's config options SDL.AutoResumeCDL ("resume logging when a ROM
# loads if <rom>.cdl exists") and SDL.AutoSaveCDL ("save <rom>.cdl when the ROM
# closes") — so an empty <rom>.cdl is put next to a copy of the ROM, FCEUX is
# started with a throwaway HOME holding a config with both options, and a Lua
# script advances FRAMES frames and calls emu.exit().
#
# What FCEUX 2.6 logs differently by design (src/debug.cpp LogCDData, x6502.cpp
# tables), so expect these disagreements:
# - 01/03, 05/07, ...: FCEUX marks the target of every JMP $nnnn as data (it
#   takes the operand of any "absolute" opcode as a data address).
# - 00/05 etc. on instruction bytes: unofficial opcodes have size 0 in FCEUX's
#   opsize table, so it logs no code for them (LAX, SAX, AXS, NOP zp/abs...).
# - 00/22 etc.: LAX (zp),Y ($B3) is "absolute" in FCEUX's optype table; it logs
#   a wrong address (operand byte + next byte) instead of the pointer's target.
# - 00/0x on a byte the CPU wrote: FCEUX zeroes a PRG byte's log when the CPU
#   writes to its address (mapper register writes, "lda #n : sta *-1").
# - 02/22, 01/11 (0x10/0x20 bits): FCEUX sets the indirect bits only on the
#   first access that logged the byte; nesprof on any access.
# - 0E/00 at the reset vector: FCEUX logs from power-on, nesprof from after
#   the reset.
# - CHR drawn bits, both mark what the PPU fetches for a shown line (0-239)
#   with that layer on (emu/src/access_log.rs); two rows differ because
#   FCEUX's PPU (src/ppu.cpp FetchSpriteData, called in DoLine) differs from
#   the 2C02: nesprof-only rows of the sprites the pre-render line fetches
#   for line 0 (a stale secondary-OAM slot gives one row of tile $FF:
#   lunarlimit's $1FF2/$1FFA), and FCEUX-only rows of the sprites line 239
#   fetches for line 240, which is not shown.
# - Not explained yet: fff.nes, 3000 frames of its movie, has about ten
#   indirect-data bytes each way (2E/00, 00/2E) that no rule above covers. Not
#   a desync (RAM equal at the end), but the set changes with FCEUX's
#   --newppu 1, so probably loops whose iteration count depends on CPU/PPU
#   timing (one emulator reads one table entry more than the other).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 ROM FRAMES [MOVIE.fm2]" >&2; exit 2; }
rom=$1
frames=$2
movie=${3:-}
for tool in /usr/games/fceux xvfb-run python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install -y fceux xvfb)" >&2; exit 2; }
done
dir=${CDL_VS_DIR:-$(mktemp -d /tmp/cdl-vs-fceux.XXXXXX)}
mkdir -p "$dir/home/.fceux" "$dir/run" "$dir/nesprof"
name=$(basename "$rom" .nes)
cp "$rom" "$dir/run/$name.nes"
: >"$dir/run/$name.cdl"
printf 'SDL.AutoResumeCDL = 1\nSDL.AutoSaveCDL = 1\n' >"$dir/home/.fceux/fceux.cfg"
# FRAMES advances of FCEUX cover the same stretch as nesprof's --frames FRAMES
# as far as the log can tell: maze.nes (300 frames, its movie) then agrees on
# every code and CHR byte; with one more advance FCEUX draws 16 more CHR bytes.
# (FCEUX's frame starts at vblank, so its RAM after N+1 advances equals
# nesprof's after N frames: compare logs, not RAM, with this count.)
cat >"$dir/run/stop.lua" <<EOF
for i = 1, $frames do emu.frameadvance() end
emu.exit()
EOF
fceux_args=(--sound 0 --videoDriver 1 --newppu 0 --loadlua "$dir/run/stop.lua")
nesprof_args=(--frames "$frames")
if [ -n "$movie" ]; then
    cp "$movie" "$dir/run/movie.fm2"
    fceux_args+=(--playmov "$dir/run/movie.fm2")
    nesprof_args+=(--movie "$movie")
fi
(cd "$dir/run" && HOME="$dir/home" timeout 600 xvfb-run -a /usr/games/fceux \
    "${fceux_args[@]}" "$dir/run/$name.nes" >"$dir/fceux.log" 2>&1) ||
    { echo "error: fceux failed, see $dir/fceux.log" >&2; exit 1; }
[ -s "$dir/run/$name.cdl" ] || { echo "error: fceux wrote no CDL, see $dir/fceux.log" >&2; exit 1; }
cp "$dir/run/$name.cdl" "$dir/fceux.cdl"
cargo build --release --quiet
target/release/nesprof profile "$rom" "${nesprof_args[@]}" --cdl "$dir/nesprof.cdl" \
    --out "$dir/nesprof" >"$dir/nesprof.log" 2>&1 ||
    { echo "error: nesprof failed, see $dir/nesprof.log" >&2; exit 1; }
python3 - "$rom" "$dir/fceux.cdl" "$dir/nesprof.cdl" <<'EOF'
import sys
rom, fx, ours = (open(p, "rb").read() for p in sys.argv[1:4])
prg = rom[4] * 16384
if len(fx) != len(ours):
    sys.exit(f"error: sizes differ: fceux {len(fx)}, nesprof {len(ours)}")
print(f"{len(fx)} bytes: PRG {prg}, CHR {len(fx) - prg}")
print("| bit | both | neither | FCEUX only | nesprof only | first differing offsets |")
print("|---|---|---|---|---|---|")
def row(label, lo, hi, mask):
    both = neither = f_only = o_only = 0
    diff = []
    for i in range(lo, hi):
        a, b = fx[i] & mask != 0, ours[i] & mask != 0
        both += a and b
        neither += not a and not b
        f_only += a and not b
        o_only += b and not a
        if a != b and len(diff) < 6:
            diff.append(f"{'F' if a else 'N'}:{i - lo:05X}")
    print(f"| {label} | {both} | {neither} | {f_only} | {o_only} | {' '.join(diff)} |")
row("PRG 0x01 code", 0, prg, 0x01)
row("PRG 0x02 data", 0, prg, 0x02)
row("PRG 0x10 indirect code", 0, prg, 0x10)
row("PRG 0x20 indirect data", 0, prg, 0x20)
row("PRG 0x40 PCM", 0, prg, 0x40)
row("PRG 0x80 (FCEUX: not ROM)", 0, prg, 0x80)
row("CHR 0x01 drawn", prg, len(fx), 0x01)
row("CHR 0x02 read", prg, len(fx), 0x02)
# The window is only meaningful where both logged the byte.
same = [i for i in range(prg) if fx[i] & 3 and ours[i] & 3]
bad = [i for i in same if fx[i] & 0x0C != ours[i] & 0x0C]
print(f"| PRG 0x0C window (bytes both logged) | {len(same) - len(bad)} agree | | {len(bad)} differ | | "
      + " ".join(f"{i:05X}:{fx[i] >> 2 & 3}/{ours[i] >> 2 & 3}" for i in bad[:6]) + " |")
print("(offsets: F = set by FCEUX only, N = by nesprof only; window F/N)")
# Where the PRG bytes differ, which flag pairs (FCEUX/nesprof) they have:
# each pattern points at one cause (see the comments at the top).
pairs = {}
for i in range(prg):
    if fx[i] != ours[i]:
        pairs.setdefault((fx[i], ours[i]), []).append(i)
print("differing PRG bytes by flags (FCEUX/nesprof): count, first offsets")
for (a, b), offs in sorted(pairs.items(), key=lambda kv: -len(kv[1])):
    print(f"  {a:02X}/{b:02X}: {len(offs)}  " + " ".join(f"{i:05X}" for i in offs[:6]))
EOF
echo "files: $dir"
