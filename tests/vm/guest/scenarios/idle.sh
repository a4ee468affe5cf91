# shellcheck shell=sh
# idle.sh - no workload: what the policy costs and does on a quiet system.
#   fvm.policy  (default fragd; kernel gives the baseline)
#   fvm.seconds idle time (default 20)
# Records the knob values and the compaction work over the idle time, and
# for fragd its CPU time, which must stay under fvm.max_cpu_pct (default 5)
# percent of the idle time (generous: TCG inflates CPU time many times).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

POLICY=${FVM_POLICY:-fragd}
IDLE=${FVM_SECONDS:-20}
MAX_CPU_PCT=${FVM_MAX_CPU_PCT:-5}
thp_setup madvise madvise
knobs_snapshot >/tmp/knobs.before
policy_apply "$POLICY"
knobs_sampler /tmp/knobs.during 2
m0=$(vmstat compact_migrate_scanned) f0=$(vmstat compact_free_scanned)
sleep "$IDLE"
m1=$(vmstat compact_migrate_scanned) f1=$(vmstat compact_free_scanned)
log "knobs at the end: $(knobs_snapshot | tr '\n' ' ')"
FRAGD_CPU_MS=0
policy_finish
cleanup
if knobs_in_bounds /tmp/knobs.during; then pass "knobs within bounds"; fi
if [ "$POLICY" = fragd ]; then
	pct=$((FRAGD_CPU_MS / (IDLE * 10)))
	if [ "$pct" -lt "$MAX_CPU_PCT" ]; then
		pass "fragd used ${FRAGD_CPU_MS} ms CPU in ${IDLE} s idle (${pct}% < ${MAX_CPU_PCT}%)"
	else
		fail "fragd used ${FRAGD_CPU_MS} ms CPU in ${IDLE} s idle (${pct}% >= ${MAX_CPU_PCT}%)"
	fi
fi
result "policy=$POLICY idle_s=$IDLE cpu_ms=$FRAGD_CPU_MS scanned=$((m1 - m0 + f1 - f0))"
finish
