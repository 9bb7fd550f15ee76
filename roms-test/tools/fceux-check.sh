#!/bin/sh
# Runs a roms-test program in FCEUX under an X server with tools/check.lua, which
# presses Start, plays pseudo-random input and saves screenshots and RAM dumps.
#   tools/fceux-check.sh NAME [FRAMES]      (from roms-test/; needs Xvfb running on
#                                           $DISPLAY, default :99)
# Output goes to $CHECK_OUT (default /tmp/romcheck/NAME).
set -e
name=$1
frames=${2:-6000}
here=$(cd "$(dirname "$0")/.." && pwd)
out=${CHECK_OUT:-/tmp/romcheck/$name}
mkdir -p "$out"
home=$(mktemp -d)   # FCEUX rewrites its config even with --no-config
export HOME="$home" DISPLAY=${DISPLAY:-:99}
export CHECK_OUT="$out" CHECK_FRAMES="$frames" CHECK_NAME="$name"
timeout 600 /usr/games/fceux --no-config 1 --sound 0 --videoDriver 1 --newppu 0 \
    --loadlua "$here/tools/check.lua" "$here/$name.nes" >"$out/fceux.log" 2>&1 || true
rm -rf "$home"
ls "$out"
