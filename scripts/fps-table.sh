#!/usr/bin/env bash
# Median `nesprof run` fps per workload (3000 frames of its movie) on both
# engines, runs alternating so machine load hits both alike. Prints a
# Markdown table. Usage: scripts/fps-table.sh [FRAMES] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-3000}
repeats=${2:-3}
roms=${NESPROF_ROMS:-../shared/roms}
bin=target/release/nesprof
cargo build --release --quiet
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| workload | translate fps | interp fps | translate / interp |"
echo "|---|---|---|---|"
for movie in movies/*.fm2; do
    name=$(basename "$movie" .fm2)
    rom=roms-test/$name.nes
    [ -f "$rom" ] || rom=$roms/games/$name.nes
    [ -f "$rom" ] || { echo "| $name | missing ROM | | |"; continue; }
    t=(); i=()
    for _ in $(seq "$repeats"); do
        t+=("$($bin run "$rom" --movie "$movie" --frames "$frames" --engine translate | tail -1 | sed 's/.*fps=\([0-9.]*\).*/\1/')")
        i+=("$($bin run "$rom" --movie "$movie" --frames "$frames" --engine interp | tail -1 | sed 's/.*fps=\([0-9.]*\).*/\1/')")
    done
    tm=$(printf '%s\n' "${t[@]}" | median)
    im=$(printf '%s\n' "${i[@]}" | median)
    echo "| $name | $tm | $im | $(awk "BEGIN {printf \"%.2f\", $tm / $im}") |"
done
