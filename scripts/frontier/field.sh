# Sourced by the frontier scripts (scripts/frontier/run.sh,
# scripts/corpus-frontier.sh): reading `nesprof profile`'s last line.

# The value of key $2 in the key=value line $1.
field() {
    local kv
    for kv in $1; do
        if [ "${kv%%=*}" = "$2" ]; then echo "${kv#*=}"; return 0; fi
    done
    echo "missing field $2 in: $1" >&2
    return 1
}
