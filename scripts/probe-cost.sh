#!/usr/bin/env bash
# Cost of the profiler's probes (sampler at X = 3 ms / N = 25 with its builder
# thread, ground-truth recorder, both) per engine, in host instructions
# counted by callgrind: the emulation thread, and the builder thread apart.
# Usage: scripts/probe-cost.sh [FRAMES] [GAME...]
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-1200}
shift || true
games=${*:-lunarlimit fff}
cargo build --release --quiet --example probe_cost
out=$(mktemp -d)
total() { grep -m1 '^summary:' "$1" | awk '{print $2}'; }
echo "| game | engine | probes | emulation thread | vs off | builder thread |"
echo "|---|---|---|---|---|---|"
for game in $games; do
    for engine in interp translate; do
        base=
        for probes in off sampler truth both; do
            valgrind --tool=callgrind --separate-threads=yes \
                --callgrind-out-file="$out/$game-$engine-$probes" \
                target/release/examples/probe_cost "$game" "$engine" "$probes" "$frames" \
                >/dev/null 2>&1
            main=$(total "$out/$game-$engine-$probes-01")
            builder=$( [ -f "$out/$game-$engine-$probes-02" ] && total "$out/$game-$engine-$probes-02" || echo 0)
            base=${base:-$main}
            echo "| $game | $engine | $probes | $(awk "BEGIN {printf \"%.0fM\", $main / 1e6}") | $(awk "BEGIN {printf \"%+.1f%%\", ($main / $base - 1) * 100}") | $(awk "BEGIN {printf \"%.0fM\", $builder / 1e6}") |"
        done
    done
done
rm -r "$out"
