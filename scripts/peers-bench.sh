#!/usr/bin/env bash
# nesprof against FCEUX and Mednafen, side by side: the same ROMs (and
# movies) for the same number of frames, in interleaved rounds (FCEUX,
# Mednafen, translator, interpreter, next workload, ...) so that load on
# the machine hits them alike. Prints a Markdown table of medians, ranges
# and ratios.
#
# Usage: scripts/peers-bench.sh [FRAMES] [ROUNDS] [ROM[:MOVIE]]...
#   FRAMES  frames per run (default 3000), from power-on
#   ROUNDS  rounds (default 5)
#   ROM[:MOVIE]  workloads (default: nestest and all_instrs idle, lunarlimit
#           and BladeBuster with no input, and the bundled movies of fff, yun, full_game,
#           hello_mmc3 and novathesquirrel)
#
# FCEUX (Debian's package; installed here with apt-get when missing, as
# root or with password-less sudo) runs under Xvfb with sound off, the old
# PPU (its default scanline renderer, `--newppu 0`), a throwaway HOME (it
# rewrites its config even with `--no-config 1`) and a Lua script that sets
# maximum speed and times the frame loop with os.clock() (the process's CPU
# time: FCEUX emulates on one thread, so this is the loop's time without
# start-up). nesprof's figure is the fps of `nesprof run`'s summary line
# (the frame loop's wall time), for the translator, the interpreter, and
# the translator with idle-loop skipping off (`--no-idle-skip`: what the
# translation itself buys).
#
# Mednafen (Debian's package, installed the same way) runs only the
# workloads without a movie (it plays no FM2). It has no "run N frames"
# option and its fps counter is drawn on screen, so its speed is measured
# from the emulated time it produces: unthrottled, its sound going to
# ALSA's null device (which takes samples at once) and recorded to a WAV
# file (`-soundrecord`), whose length at 48 kHz is the emulated time.
# Two runs of different wall lengths (MEDNAFEN_SECONDS apart, default 6)
# cancel its start-up: fps = (frames of the long run - frames of the short
# one) / the difference. The frames are thus some seconds into the run,
# not from power-on (the same for the idle ROMs this covers). Mednafen
# synthesises and resamples sound while it runs; FCEUX and nesprof run
# with sound off.
set -euo pipefail
cd "$(dirname "$0")/.."

frames=${1:-3000}
rounds=${2:-5}
shift $(( $# < 2 ? $# : 2 ))
roms=${NESPROF_ROMS:-../shared/roms}

say() { printf 'peers-bench: %s\n' "$*" >&2; }
whole() { # NAME VALUE MAX: a whole number from 1 to MAX, or exit 2
    [[ "$2" =~ ^[0-9]+$ ]] && [ "${#2}" -le 9 ] && [ "$2" -ge 1 ] && [ "$2" -le "$3" ] ||
        { say "$1 must be a whole number from 1 to $3, not '$2'"; exit 2; }
}
whole FRAMES "$frames" 1000000
whole ROUNDS "$rounds" 1000

find_game() { command -v "$1" 2>/dev/null || { [ ! -x "/usr/games/$1" ] || echo "/usr/games/$1"; }; }
fceux=$(find_game fceux)
mednafen=$(find_game mednafen)
if [ -z "$fceux" ] || [ -z "$mednafen" ] || ! command -v Xvfb >/dev/null; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    say "installing fceux, mednafen and xvfb with apt-get"
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends fceux mednafen xvfb >/dev/null
    fceux=$(find_game fceux)
    mednafen=$(find_game mednafen)
fi
mednafen_seconds=${MEDNAFEN_SECONDS:-6}
whole MEDNAFEN_SECONDS "$mednafen_seconds" 600

cargo build --release --quiet
bin=target/release/nesprof

workloads=("$@")
if [ ${#workloads[@]} -eq 0 ]; then
    workloads=(
        "$roms/cpu/nestest/nestest.nes"
        "$roms/cpu/instr_test-v5/all_instrs.nes"
        "$roms/games/lunarlimit.nes"
        "$roms/games/BladeBuster.nes"
    )
    for game in fff yun full_game hello_mmc3 novathesquirrel; do
        workloads+=("$roms/games/$game.nes:movies/$game.fm2")
    done
fi

scratch=$(mktemp -d)
xvfb_pid=
cleanup() {
    [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

display=
for n in $(seq 90 120); do
    [ -e "/tmp/.X$n-lock" ] && continue
    Xvfb ":$n" -screen 0 640x480x24 -nolisten tcp -noreset >/dev/null 2>&1 &
    xvfb_pid=$!
    sleep 1
    if kill -0 "$xvfb_pid" 2>/dev/null; then display=":$n"; break; fi
done
[ -n "$display" ] || { say "cannot start Xvfb"; exit 1; }

cat >"$scratch/bench.lua" <<'LUA'
local frames = tonumber(os.getenv("BENCH_FRAMES"))
emu.speedmode("maximum")
local t0 = os.clock()
for _ = 1, frames do emu.frameadvance() end
local t1 = os.clock()
local out = io.open(os.getenv("BENCH_OUT"), "w")
out:write(string.format("%.3f\n", frames / (t1 - t0)))
out:close()
emu.exit()
LUA

fceux_fps() { # ROM [MOVIE]
    local out="$scratch/fceux.out" home="$scratch/home"
    rm -rf "$out" "$home"; mkdir -p "$home"
    local args=(--sound 0 --no-config 1 --videoDriver 1 --newppu 0 --loadlua "$scratch/bench.lua")
    [ -z "${2:-}" ] || args+=(--playmov "$2")
    HOME=$home DISPLAY=$display BENCH_FRAMES=$frames BENCH_OUT=$out \
        timeout 600 "$fceux" "${args[@]}" "$1" >/dev/null 2>&1 || true
    cat "$out" 2>/dev/null || echo nan
}

mednafen_frames() { # ROM SECONDS -> frames emulated in SECONDS of wall time
    local wav="$scratch/mednafen.wav" home="$scratch/medhome"
    rm -rf "$wav" "$home"; mkdir -p "$home"
    HOME=$home DISPLAY=$display timeout "$2" "$mednafen" -sound 1 \
        -sound.driver alsa -sound.device null -sound.rate 48000 \
        -nothrottle 1 -soundrecord "$wav" "$1" >/dev/null 2>&1 || true
    # 16-bit mono samples after a 44-byte header; NTSC 60.0988 frames/s.
    local bytes; bytes=$(stat -c %s "$wav" 2>/dev/null || echo 0)
    awk -v b="$bytes" 'BEGIN {printf "%.0f", (b > 44 ? (b - 44) / 2 / 48000 * 60.0988 : 0)}'
}

mednafen_fps() { # ROM
    local short long
    short=$(mednafen_frames "$1" 2)
    long=$(mednafen_frames "$1" $((2 + mednafen_seconds)))
    awk -v s="$short" -v l="$long" -v d="$mednafen_seconds" \
        'BEGIN {if (s > 0 && l > s) printf "%.3f", (l - s) / d; else print "nan"}'
}

nesprof_fps() { # ENGINE ROM MOVIE [EXTRA...]
    local args=(run "$2" --frames "$frames" --engine "$1")
    [ -z "${3:-}" ] || args+=(--movie "$3")
    args+=("${@:4}")
    "$bin" "${args[@]}" 2>/dev/null | tail -1 | sed -n 's/.*fps=\([0-9.]*\).*/\1/p'
}

declare -A results
for round in $(seq "$rounds"); do
    say "round $round of $rounds"
    for w in "${workloads[@]}"; do
        rom=${w%%:*}; movie=; [ "$w" = "$rom" ] || movie=${w#*:}
        [ -f "$rom" ] || { say "missing $rom"; continue; }
        results["$w|fceux"]+="$(fceux_fps "$rom" "$movie") "
        if [ -z "$movie" ]; then
            results["$w|mednafen"]+="$(mednafen_fps "$rom") "
        else
            results["$w|mednafen"]+="nan "
        fi
        results["$w|translate"]+="$(nesprof_fps translate "$rom" "$movie") "
        results["$w|interp"]+="$(nesprof_fps interp "$rom" "$movie") "
        results["$w|noskip"]+="$(nesprof_fps translate "$rom" "$movie" --no-idle-skip) "
    done
done

stats() { # values... -> "median min max"
    printf '%s\n' "$@" | grep -v '^nan$' | sort -g |
        awk '{a[NR]=$1} END {if (NR==0) {print "nan nan nan"} else {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f %.0f %.0f\n", m, a[1], a[NR]}}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b+0 > 0) printf "%.2f", a/b; else print "-"}'; }

echo "| workload | FCEUX fps | Mednafen fps | translate fps | interp fps | translate, no idle skip | translate / FCEUX | interp / FCEUX | translate / Mednafen | interp / Mednafen | translate / interp | no idle skip / interp |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for w in "${workloads[@]}"; do
    rom=${w%%:*}
    [ -f "$rom" ] || continue
    name=$(basename "$rom" .nes); [ "$w" = "$rom" ] || name="$name (movie)"
    read -r fm flo fhi <<<"$(stats ${results["$w|fceux"]})"
    read -r mm mlo mhi <<<"$(stats ${results["$w|mednafen"]})"
    mednafen_cell="$mm ($mlo–$mhi)"; [ "$mm" != nan ] || mednafen_cell="–"
    read -r tm tlo thi <<<"$(stats ${results["$w|translate"]})"
    read -r im ilo ihi <<<"$(stats ${results["$w|interp"]})"
    read -r nm nlo nhi <<<"$(stats ${results["$w|noskip"]})"
    echo "| $name | $fm ($flo–$fhi) | $mednafen_cell | $tm ($tlo–$thi) | $im ($ilo–$ihi) | $nm ($nlo–$nhi) | $(ratio "$tm" "$fm") | $(ratio "$im" "$fm") | $(ratio "$tm" "$mm") | $(ratio "$im" "$mm") | $(ratio "$tm" "$im") | $(ratio "$nm" "$im") |"
done
echo
echo "$frames frames from power-on (Mednafen: see above), $rounds interleaved rounds, medians (ranges); FCEUX $("$fceux" --version 2>&1 | head -1 || true); $( ("$mednafen" 2>&1 || true) | sed -n 's/.*\(Mednafen [0-9.]*\).*/\1/;T;p;q')"
