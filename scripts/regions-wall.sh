#!/usr/bin/env bash
# Issue 47's wall-clock bar: `run --regions sampled` (the sampler running
# only to choose regions) against regions off, per busy workload, measured
# A/B in one process (examples/regions_wall.rs: two machines advanced in
# alternating slices of 30 frames; whole runs in turn moved by 40 % from
# run to run on this machine, more than the effect), and pooled by time.
# Usage: scripts/regions-wall.sh [FRAMES] [ROUNDS] [WORKLOAD...]
#   (6,000 frames, 1 round; the busy workloads)
set -euo pipefail
cd "$(dirname "$0")/.."
frames=${1:-6000}
rounds=${2:-1}
shift 2 || shift $# || true
workloads=("$@")
. scripts/busy-workloads.sh
[ ${#workloads[@]} -gt 0 ] || workloads=("${BUSY_WORKLOADS[@]}")
cargo build --release --example regions_wall >/dev/null 2>&1 ||
    cargo build --release --example regions_wall
for name in "${workloads[@]}"; do
    echo "$name $(target/release/examples/regions_wall "$name" sampled "$frames" "$rounds")"
done | awk '
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "%-16s off %7.3f s  sampled %7.3f s  %+6.2f %%  (trimmed slices %+6.2f %%)\n", $1, v["off_s"], v["sampled_s"], v["change_pct"], v["trimmed_slice_pct"]
      OFF += v["off_s"]; SMP += v["sampled_s"] }
    END { printf "%-16s off %7.3f s  sampled %7.3f s  %+6.2f %%\n", "pooled", OFF, SMP, (SMP / OFF - 1) * 100 }'
