#!/bin/sh
# Plays a movie in FCEUX (old PPU, as FM2 movies are made) and in nesprof, and
# compares RAM and picture at the given frames.
#   movies/tools/fceux-compare.sh ROM MOVIE "FRAME FRAME ..."
# Needs /usr/games/fceux, an X server on $DISPLAY (e.g. `Xvfb :99 &`), python3
# and a release build (target/release/nesprof). FCEUX plays at normal speed:
# 18000 frames take five minutes.
set -e
rom=$1; movie=$2; frames=$3
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d)   # throwaway HOME: FCEUX rewrites its config even with --no-config
cp "$movie" "$work/m.fm2"
HOME=$work DISPLAY=${DISPLAY:-:99} OUT=$work/dump.txt FRAMES="$frames" timeout 1800 \
    /usr/games/fceux --no-config 1 --sound 0 --videoDriver 1 --newppu 0 \
    --playmov "$work/m.fm2" --loadlua "$here/fceux-dump.lua" "$rom" >"$work/fceux.log" 2>&1 || true
python3 "$here/compare.py" "$repo/target/release/nesprof" "$rom" "$movie" "$work/dump.txt"
rm -rf "$work"
