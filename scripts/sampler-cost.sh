#!/usr/bin/env bash
# What leaving the profiler on costs, pooled over the bundled movies, two
# ways (BENCHMARKS.md, "The sampler's cost"):
#  - `sampler_wall`: the emulation thread with the sampler (X = 3 ms,
#    N = 25), the taken branch targets and the feeder, against a bare
#    machine, interleaved 30 frames at a time (issue 44's measure);
#  - `profile --no-truth` against `run`, whole runs in turn (issue 43's).
# Each is pooled by time: the sum over the movies of the seconds each took.
# Usage: scripts/sampler-cost.sh [FRAMES] [PASSES]   (6000 frames, 2 passes)
# WORKLOADS="tracker plasma" limits the movies; SKIP_CLI=1 skips the second.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-6000}
passes=${2:-2}
workloads=${WORKLOADS:-cfgdemo snake breakout fountain maze swarm plasma tracker}
cargo build --release --quiet --example sampler_wall
cargo build --release --quiet
for w in $workloads; do
    target/release/examples/sampler_wall "$w" translate "$frames" "$passes" | tail -n 1 |
        sed "s/^/$w /"
done | awk '
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      bare += v["bare_s"]; sampled += v["sampled_s"]
      printf "%-9s sampler_wall %+.2f %%\n", $1, (v["sampled_s"] / v["bare_s"] - 1) * 100 }
    END { printf "pooled    sampler_wall %+.2f %% (bare %.2f s, sampled %.2f s)\n",
          (sampled / bare - 1) * 100, bare, sampled }'
[ "${SKIP_CLI:-0}" = 1 ] && exit 0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for p in $(seq "$passes"); do
    for w in $workloads; do
        r=$(target/release/nesprof run "roms-test/$w.nes" --movie "movies/$w.fm2" |
            grep -o 'fps=[0-9.]*' | cut -d= -f2)
        q=$(target/release/nesprof profile "roms-test/$w.nes" --movie "movies/$w.fm2" \
            --no-truth --out "$out/p" 2>&1 | grep 'wall time' | grep -o '([0-9.]* fps' | tr -d '( fps')
        echo "$w $r $q"
    done
done | awk '
    { r[$1] += 1 / $2; q[$1] += 1 / $3; R += 1 / $2; Q += 1 / $3 }
    END { for (w in r) printf "%-9s profile --no-truth %+.2f %%\n", w, (q[w] / r[w] - 1) * 100
          printf "pooled    profile --no-truth %+.2f %%\n", (Q / R - 1) * 100 }'
