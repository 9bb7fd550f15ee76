# Sourced by the hot-region scripts: the busy workloads (bundled movies and
# the shared games with movies), and where each one's ROM is.
BUSY_WORKLOADS=(tracker plasma swarm fountain fff hello_mmc3 yun novathesquirrel full_game)
rom_of() { # NAME
    local rom=roms-test/$1.nes
    [ -f "$rom" ] || rom=${NESPROF_ROMS:-../shared/roms}/games/$1.nes
    echo "$rom"
}
