# shellcheck shell=sh
# boot.sh - the guest boots and the workloads run: prints the memory layout.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh
log "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')"
cat /proc/buddyinfo
grep -E '^Node|present|managed' /proc/zoneinfo | paste - - - | awk '{ print $1, $2, $4, $6, $7, $8, $9 }'
if { fragmenter --help 2>&1 || true; } | grep -q usage; then pass "fragmenter runs"; else fail "fragmenter"; fi
if consumer --mb 8 --cycles 1 | grep -q 'thp_pct='; then pass "consumer runs"; else fail "consumer"; fi
finish
