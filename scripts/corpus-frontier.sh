#!/usr/bin/env bash
# The hot CFG on games the team never saw (issue 44): every game of
# workloads-corpus.ron profiled with its 5-minute movie at X = 3 ms and
# X = 30 ms (N = 25, the trace builder, the exact CFG as truth), one table
# row per game x X from the metrics line of `nesprof profile`, worst
# similarity first.
#
# Columns: similarity, precision, hot_precision, overlap, edges_h90 (as the
# profile prints them; docs/metrics.md), busy (|H90| >= MIN_H90 edges) and
# whether a busy game meets issue 44's bar at that X (3 ms: similarity,
# precision, hot_precision and overlap >= 0.95; 30 ms: similarity and
# hot_precision >= 0.90, overlap >= 0.93); "-" for the other X or a game
# that is not busy.
#
# The ROMs and movies live outside the repository, under ${CORPUS}:
# $NESPROF_CORPUS, else the nearest corpus/ holding roms/ above the current
# or the repository's directory (as `nesprof sweep` resolves it).
#
# Output: the table (markdown) on stdout; in $WORK, corpus-frontier.csv and
# NAME-X/ (the profile's output and profile.log). A run whose directory
# already holds a complete result is not redone (FORCE=1 redoes all).
#
# Usage: scripts/corpus-frontier.sh [GAME...]   (default: every game listed)
# Environment: NESPROF (binary; default target/release/nesprof),
#   NESPROF_CORPUS, WORKLOADS (default workloads-corpus.ron), WORK (default
#   /tmp/corpus-frontier), INTERVALS (default "3 30"), BATCH (default 25),
#   MIN_H90 (default 20), JOBS (parallel profiles, default 1), FORCE,
#   KEEP (default 0: delete samples.bin and the other large outputs, keep
#   the logs and the CFG records).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NESPROF=${NESPROF:-$REPO/target/release/nesprof}
WORKLOADS=${WORKLOADS:-$REPO/workloads-corpus.ron}
WORK=${WORK:-/tmp/corpus-frontier}
INTERVALS=${INTERVALS:-"3 30"}
BATCH=${BATCH:-25}
MIN_H90=${MIN_H90:-20}
JOBS=${JOBS:-1}
FORCE=${FORCE:-0}
KEEP=${KEEP:-0}
FIELDS="similarity precision hot_precision overlap edges_h90"

die() { echo "corpus-frontier: $*" >&2; exit 2; }

# The nearest DIR above the current or the repository's directory for
# which `test -$1 DIR/$2` holds (DIR printed; nothing if none).
find_up() {
    local start d
    for start in "$PWD" "$REPO"; do
        d=$start
        while :; do
            if test "-$1" "$d/$2"; then echo "$d"; return; fi
            [ "$d" = / ] && break
            d=$(dirname "$d")
        done
    done
}

# ${CORPUS}, as src/sweep/workloads.rs (corpus_dir) finds it.
corpus_dir() {
    if [ -n "${NESPROF_CORPUS:-}" ]; then echo "$NESPROF_CORPUS"; return; fi
    local d
    d=$(find_up d corpus/roms)
    echo "${d:-$REPO/..}/corpus"
}
CORPUS=$(corpus_dir)

# ${ROMS}, as src/testrom (roms_dir) finds it: the shared third-party ROMs
# (the bundled games of workloads-games.ron).
roms_dir() {
    if [ -n "${NESPROF_ROMS:-}" ]; then echo "$NESPROF_ROMS"; return; fi
    local d
    d=$(find_up f shared/roms/MANIFEST.tsv)
    echo "${d:-$REPO/..}/shared/roms"
}
ROMS=$(roms_dir)

[ -x "$NESPROF" ] || die "no nesprof binary at $NESPROF (set NESPROF or cargo build --release)"
[ -f "$WORKLOADS" ] || die "no workloads file $WORKLOADS"
[[ $BATCH =~ ^[0-9]+$ ]] || die "BATCH must be a whole number, not '$BATCH'"
[[ $MIN_H90 =~ ^[0-9]+$ ]] || die "MIN_H90 must be a whole number, not '$MIN_H90'"
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || die "JOBS must be a whole number from 1, not '$JOBS'"
for x in $INTERVALS; do
    [[ $x =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "INTERVALS must hold numbers (ms), not '$x'"
done

# "name<TAB>rom<TAB>movie" for every entry of the workloads file: one entry a
# line, `(name: "N", rom: "R", movie: "M")`, ${CORPUS} and ${ROMS} expanded
# (the variables the workloads files use; relative paths are relative to
# the file).
entries() {
    local base
    base=$(cd "$(dirname "$WORKLOADS")" && pwd)
    sed -n 's/^[[:space:]]*(name: *"\([^"]*\)", *rom: *"\([^"]*\)", *movie: *"\([^"]*\)").*/\1\t\2\t\3/p' \
        "$WORKLOADS" | while IFS=$'\t' read -r name rom movie; do
        for v in rom movie; do
            p=${!v}
            case $p in
                '${CORPUS}'*) p=$CORPUS/${p#'${CORPUS}'} ;;
                '${ROMS}'*) p=$ROMS/${p#'${ROMS}'} ;;
                '${'*) die "$WORKLOADS: $name: only \${CORPUS} and \${ROMS} are known to this script ($p)" ;;
                /*) ;;
                *) p=$base/$p ;;
            esac
            printf -v "$v" '%s' "$p"
        done
        printf '%s\t%s\t%s\n' "$name" "$rom" "$movie"
    done
}

all=$(entries)
[ -n "$all" ] || die "$WORKLOADS lists no game in the form (name: \"N\", rom: \"R\", movie: \"M\")"
if [ $# -gt 0 ]; then
    chosen=
    for g in "$@"; do
        line=$(awk -F'\t' -v g="$g" '$1 == g' <<<"$all")
        [ -n "$line" ] || die "no game '$g' in $WORKLOADS"
        chosen+=$line$'\n'
    done
    all=${chosen%$'\n'}
fi
while IFS=$'\t' read -r name rom movie; do
    [ -f "$rom" ] || die "missing ROM $rom (corpus: $CORPUS; set NESPROF_CORPUS)"
    [ -f "$movie" ] || die "missing movie $movie"
done <<<"$all"
mkdir -p "$WORK"

. "$REPO/scripts/frontier/field.sh"

# Profile game $1 (ROM $2, movie $3) at X = $4 ms; leaves DIR/row.csv.
run_one() {
    local name=$1 rom=$2 movie=$3 x=$4
    local dir="$WORK/$name-$x" line row f t0
    if [ "$FORCE" != 1 ] && [ -f "$dir/row.csv" ]; then return 0; fi
    rm -rf "$dir"
    mkdir -p "$dir"
    t0=$SECONDS
    if ! "$NESPROF" profile "$rom" --movie "$movie" --interval-ms "$x" --batch "$BATCH" \
        --out "$dir" >"$dir/profile.log" 2>&1; then
        echo "profile failed: $name X=$x (see $dir/profile.log): $(tail -n 1 "$dir/profile.log")" >&2
        return 1
    fi
    # The metrics line: the last line that holds them (a `wrote DIR` may follow).
    line=$(grep '^similarity=' "$dir/profile.log" | tail -n 1) || true
    if [ -z "$line" ]; then
        echo "profile printed no metrics: $name X=$x (see $dir/profile.log)" >&2
        return 1
    fi
    row="$name,$x"
    for f in $FIELDS; do row="$row,$(field "$line" "$f")"; done
    echo "$row" >"$dir/row.csv"
    if [ "$KEEP" != 1 ]; then
        rm -f "$dir/samples.bin" "$dir/report.html" "$dir/flame.svg" "$dir/stacks.folded" \
            "$dir/frames.csv" "$dir/edge_profile.ron"
    fi
    echo "  $name X=$x: $row ($((SECONDS - t0)) s)" >&2
}

failed=0
running=0
while IFS=$'\t' read -r name rom movie; do
    for x in $INTERVALS; do
        if [ "$JOBS" -le 1 ]; then
            run_one "$name" "$rom" "$movie" "$x" || failed=1
        else
            run_one "$name" "$rom" "$movie" "$x" &
            running=$((running + 1))
            if [ "$running" -ge "$JOBS" ]; then
                wait -n || failed=1
                running=$((running - 1))
            fi
        fi
    done
done <<<"$all"
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done

csv="$WORK/corpus-frontier.csv"
echo "game,interval_ms,${FIELDS// /,}" >"$csv"
while IFS=$'\t' read -r name _ _; do
    for x in $INTERVALS; do
        [ -f "$WORK/$name-$x/row.csv" ] && cat "$WORK/$name-$x/row.csv" >>"$csv"
    done
done <<<"$all"

echo "| game | X (ms) | similarity | precision | hot_precision | overlap | edges_h90 | busy | issue-44 bar |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---|"
tail -n +2 "$csv" | sort -t, -k3,3g -k1,1 -k2,2g | awk -F, -v min="$MIN_H90" '{
    busy = ($7 >= min)
    bar = "-"
    if (busy && $2 == 3)
        bar = ($3 >= 0.95 && $4 >= 0.95 && $5 >= 0.95 && $6 >= 0.95) ? "meets" : "MISSES"
    if (busy && $2 == 30)
        bar = ($3 >= 0.90 && $5 >= 0.90 && $6 >= 0.93) ? "meets" : "MISSES"
    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, busy ? "yes" : "no", bar
}'
rows=$(($(wc -l <"$csv") - 1))
echo >&2
echo "corpus-frontier: $rows rows in $csv (corpus $CORPUS)" >&2
exit $failed
