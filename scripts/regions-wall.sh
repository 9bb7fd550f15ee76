#!/usr/bin/env bash
# Issue 47's wall-clock bar: `run --regions sampled` (the sampler running
# only to choose regions) against `run --regions off`, whole runs of each
# movie in turn, PASSES passes; per movie and pooled by time (the sum of
# the seconds each run took, from `run`'s fps).
# Usage: scripts/regions-wall.sh [PASSES] [WORKLOAD...]   (3 passes; the busy ones)
set -euo pipefail
cd "$(dirname "$0")/.."
passes=${1:-3}
shift || true
workloads=("$@")
. scripts/busy-workloads.sh
[ ${#workloads[@]} -gt 0 ] || workloads=("${BUSY_WORKLOADS[@]}")
seconds() { # rom movie regions
    target/release/nesprof run "$1" --movie "$2" --regions "$3" 2>/dev/null |
        awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
             END { printf "%.4f", v["frames"] / v["fps"] }'
}
for p in $(seq "$passes"); do
    for name in "${workloads[@]}"; do
        rom=$(rom_of "$name")
        echo "$name $(seconds "$rom" "movies/$name.fm2" off) $(seconds "$rom" "movies/$name.fm2" sampled)"
    done
done | awk '
    { off[$1] += $2; smp[$1] += $3; OFF += $2; SMP += $3; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
    END { for (i = 1; i <= n; i++) { w = order[i]
              printf "%-16s off %7.3f s  sampled %7.3f s  %+.2f %%\n", w, off[w], smp[w], (smp[w] / off[w] - 1) * 100 }
          printf "%-16s off %7.3f s  sampled %7.3f s  %+.2f %%\n", "pooled", OFF, SMP, (SMP / OFF - 1) * 100 }'
