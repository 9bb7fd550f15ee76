#!/usr/bin/env bash
# The README's test command: installs the system programs the tests run, then
# runs the whole suite (`cargo test --release --workspace`) and sums it up.
#
#   scripts/test.sh [ARGS...]     ARGS go to `cargo test` (e.g. a test name)
#
# What the tests run besides nesprof: cc65 (ca65/ld65, to rebuild roms-test/
# and compare with the committed ROMs), Xvfb, xdotool and ImageMagick (the
# window tests), Graphviz (our DOT output must parse), Chromium (report.html
# is opened in a headless browser). Missing Debian packages
# are installed with apt-get when this runs as root or with password-less
# sudo. When they cannot be installed, the suite still runs: the tests that
# need them fail with a `CANNOT RUN:` message naming the package, and the
# summary lists them apart from real failures. No test is skipped.
#
# The third-party test ROMs are read from $NESPROF_ROMS, else from
# ../shared/roms next to the repository.
set -uo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test.sh: %s\n' "$*"; }

# program -> Debian package
tools=(ca65:cc65 ld65:cc65 make:make Xvfb:xvfb xdotool:xdotool import:imagemagick dot:graphviz chromium:chromium)
missing=()
for entry in "${tools[@]}"; do
    program=${entry%%:*}
    package=${entry#*:}
    if ! command -v "$program" >/dev/null 2>&1; then
        case " ${missing[*]:-} " in *" $package "*) ;; *) missing+=("$package") ;; esac
    fi
done

if [ "${#missing[@]}" -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            sudo=(none)
        fi
    fi
    if [ "${sudo[*]:-}" = none ] || ! command -v apt-get >/dev/null 2>&1; then
        say "cannot install ${missing[*]} (needs apt-get as root or password-less sudo);"
        say "the tests that need them will report CANNOT RUN"
    else
        say "installing ${missing[*]} with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        if ! { "${sudo[@]}" apt-get update -qq &&
            "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
            say "apt-get could not install ${missing[*]}; the tests that need them will report CANNOT RUN"
        fi
    fi
fi

if [ -z "${NESPROF_ROMS:-}" ]; then
    for candidate in ../shared/roms ../../shared/roms; do
        if [ -f "$candidate/MANIFEST.tsv" ]; then
            NESPROF_ROMS="$(cd "$candidate" && pwd)"
            export NESPROF_ROMS
            break
        fi
    done
fi
say "third-party test ROMs from ${NESPROF_ROMS:-<not found: the ROM suites will report CANNOT RUN>}"

mkdir -p target
log=target/test-log.txt
say "cargo test --release --workspace $* (full output in $log)"
cargo test --release --workspace --no-fail-fast "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# One line per test binary: "test result: ok. 12 passed; 0 failed; 0 ignored; ..."
read -r passed failed ignored < <(awk '
    /^test result:/ {
        for (i = 1; i <= NF; i++) {
            if ($(i) ~ /^passed;?$/) p += $(i - 1)
            if ($(i) ~ /^failed;?$/) f += $(i - 1)
            if ($(i) ~ /^ignored;?$/) g += $(i - 1)
        }
    }
    END { print p + 0, f + 0, g + 0 }' "$log")
# Failed tests whose message says they could not run, by name.
cannot_run=$(awk '
    /^---- .* stdout ----$/ { name = $2 }
    /CANNOT RUN:/ && name != "" { print "  " name ": " substr($0, index($0, "CANNOT RUN:")); name = "" }
' "$log")
n_cannot=0
[ -n "$cannot_run" ] && n_cannot=$(printf '%s\n' "$cannot_run" | wc -l)

echo
say "summary: $passed passed, $((failed - n_cannot)) failed, $n_cannot could not run, $ignored ignored"
if [ "$n_cannot" -gt 0 ]; then
    say "tests that could not run (counted as failed by cargo):"
    printf '%s\n' "$cannot_run"
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    say "cargo test exited with status $status before all tests ran (a build error?): see $log"
fi
exit "$status"
