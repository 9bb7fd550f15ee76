#!/usr/bin/env bash
# Compares nesprof's lag frames (frames.csv's `lag`: the game read neither
# $4016 nor $4017 in the frame) with FCEUX's own lag flag (Lua emu.lagged()),
# frame by frame over a movie, and prints the frames where they differ.
# Usage: scripts/lag-vs-fceux.sh ROM MOVIE.fm2 FRAMES
#   Keeps both lists in $LAG_VS_DIR (default: a temp dir, printed at the end).
#   Needs fceux (apt package, the Qt/SDL 2.6 build), xvfb-run and python3.
#
# Frame numbers: FCEUX's emu.framecount() after an emu.frameadvance() counts
# the frames emulated, and the movie's frame N (the one reading input line N)
# is then N + 1; nesprof's frames.csv numbers rows by the movie's frame. A
# frame's lag flag is FCEUX's for that frame: FCEUX starts a frame at vblank
# and nesprof at the end of scanline 239, one scanline apart, so a read in
# that scanline would count in different frames (the script shows it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: $0 ROM MOVIE.fm2 FRAMES" >&2; exit 2; }
rom=$1
movie=$2
frames=$3
for tool in /usr/games/fceux xvfb-run python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install -y fceux xvfb)" >&2; exit 2; }
done
dir=${LAG_VS_DIR:-$(mktemp -d /tmp/lag-vs-fceux.XXXXXX)}
mkdir -p "$dir/home/.fceux" "$dir/run" "$dir/nesprof"
name=$(basename "$rom" .nes)
cp "$rom" "$dir/run/$name.nes"
cp "$movie" "$dir/run/movie.fm2"
cat >"$dir/run/lag.lua" <<EOF
local out = io.open("$dir/fceux-lag.txt", "w")
for i = 1, $frames do
    emu.frameadvance()
    out:write(emu.framecount(), " ", emu.lagged() and 1 or 0, "\n")
end
out:close()
emu.exit()
EOF
(cd "$dir/run" && HOME="$dir/home" timeout 600 xvfb-run -a /usr/games/fceux \
    --sound 0 --videoDriver 1 --newppu "${FCEUX_NEWPPU:-0}" --playmov "$dir/run/movie.fm2" \
    --loadlua "$dir/run/lag.lua" "$dir/run/$name.nes" >"$dir/fceux.log" 2>&1) ||
    { echo "error: fceux failed, see $dir/fceux.log" >&2; exit 1; }
[ -s "$dir/fceux-lag.txt" ] || { echo "error: fceux wrote no lag list, see $dir/fceux.log" >&2; exit 1; }
cargo build --release --quiet
target/release/nesprof profile "$rom" --movie "$movie" --frames "$((frames + 1))" \
    --out "$dir/nesprof" >"$dir/nesprof.log" 2>&1 ||
    { echo "error: nesprof failed, see $dir/nesprof.log" >&2; exit 1; }
python3 - "$dir" "$name" <<'PY'
import csv, sys
d, name = sys.argv[1], sys.argv[2]
fceux = {}
for line in open(f"{d}/fceux-lag.txt"):
    count, lag = line.split()
    fceux[int(count) - 1] = lag == "1"
ours = {}
with open(f"{d}/nesprof/frames.csv") as f:
    for row in csv.DictReader(f):
        ours[int(row["frame"])] = row["lag"] == "1"
common = sorted(set(fceux) & set(ours))
differ = [n for n in common if fceux[n] != ours[n]]
lag = sum(ours[n] for n in common)
print(f"{name}: {len(common)} frames compared, {lag} lag frames in nesprof, "
      f"{sum(fceux[n] for n in common)} in FCEUX, {len(differ)} differ"
      + (f" (first: {differ[:10]})" if differ else ""))
PY
echo "files: $dir"
