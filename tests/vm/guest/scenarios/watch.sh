# shellcheck shell=sh
# watch.sh - diagnostic: fragment memory once (fragmenter, no churn), then
# every 2 s print free memory in order>=9 blocks and the compaction counters,
# for fvm.seconds (default 30) under fvm.policy. Shows how fast background
# compaction repairs fragmentation on this kernel under TCG.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh
POLICY=${FVM_POLICY:-kernel}
SECONDS_=${FVM_SECONDS:-30}
thp_setup madvise "${FVM_DEFRAG:-never}"
policy_apply "$POLICY"
fragmenter_start --keep "${FVM_KEEP:-16}" --reserve-mb "${FVM_RESERVE_MB:-192}" \
	--interval-ms 3600000 --report 0
t0=$(uptime_s)
i=0
while [ $i -le "$SECONDS_" ]; do
	echo "watch: t=$i free_huge_mb=$(free_huge_mb) free_mb=$(awk '/MemFree/ { print int($2 / 1024) }' /proc/meminfo)" \
		"migrate_scanned=$(vmstat compact_migrate_scanned) free_scanned=$(vmstat compact_free_scanned)" \
		"isolated=$(vmstat compact_isolated) daemon_wake=$(vmstat compact_daemon_wake)"
	sleep 2
	i=$((i + 2))
done
log "watched from $t0 to $(uptime_s)"
fragmenter_stop
policy_finish
finish
