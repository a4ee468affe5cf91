# shellcheck shell=sh
# churn.sh - a huge-page consumer competes with a fragmenter that never stops.
#
#   fvm.policy=kernel|static-max|pro<N>|tuned|compact|fragd|fragd-warm   who keeps memory
#       defragmented (see policy_apply in lib.sh)
#   fvm.defrag=never|madvise   THP defrag mode. never: faults may not compact
#       (how costly __GFP_NORETRY allocations behave since the 2026 kernel
#       fix), so huge pages come only from what background compaction
#       prepared; madvise: the faulting task compacts itself (compact_stall).
#   fvm.mb, fvm.cycles, fvm.interval_ms  consumer: region size, cycles, pause
#   fvm.keep, fvm.chunk_mb, fvm.churn, fvm.wave_every, fvm.reserve_mb,
#   fvm.floor_mb, fvm.frag_interval_ms, fvm.seed  fragmenter (see its --help)
#
# Result: the consumer's summary (huge pages obtained of requested,
# compact_stall, pages scanned by compaction over the whole run).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

POLICY=${FVM_POLICY:-kernel}
DEFRAG=${FVM_DEFRAG:-never}
MB=${FVM_MB:-512}
CYCLES=${FVM_CYCLES:-4}
INTERVAL_MS=${FVM_INTERVAL_MS:-2000}

thp_setup madvise "$DEFRAG"
case $POLICY in fragd | fragd-warm) fragd_require ;; esac
knobs_snapshot >/tmp/knobs.before
log "$(grep MemTotal /proc/meminfo | tr -s ' '), $(grep -c . /proc/buddyinfo) zones; knobs: $(tr '\n' ' ' </tmp/knobs.before)"
t0=$(uptime_s)
fragmenter_start --keep "${FVM_KEEP:-16}" --chunk-mb "${FVM_CHUNK_MB:-16}" \
	--churn "${FVM_CHURN:-1}" --wave-every 0 --reserve-mb "${FVM_RESERVE_MB:-192}" \
	--floor-mb "${FVM_FLOOR_MB:-192}" --interval-ms "${FVM_FRAG_INTERVAL_MS:-200}" --report 0
log "fragmented in $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { print b - a }')s: free in order>=9 blocks: $(free_huge_mb) MiB"
grep -E 'Normal|DMA32' /proc/buddyinfo | sed 's/^/buddyinfo: /'
# The policy takes over a fragmented system, as on a host that has been up
# for a while (applied before the fragmentation, a static tuning's first
# proactive round runs against a rising score, and 6.12 then defers the next
# one by 32 s: the whole run)
CHURN_MB=$MB policy_apply "$POLICY"
knobs_sampler /tmp/knobs.during 2
# for the effect benchmark: free memory in order>=9 blocks once a second, and
# the memory PSI stall over the measured part of the run
(while :; do echo "$(uptime_s) $(free_huge_mb)"; sleep 1; done) >/tmp/series &
bg_started $!
psi0=$(sed -n 's/^some .*total=\([0-9]*\)/\1/p' /proc/pressure/memory 2>/dev/null)
psif0=$(sed -n 's/^full .*total=\([0-9]*\)/\1/p' /proc/pressure/memory 2>/dev/null)

# lockstep: before each cycle the fragmenter re-fragments all of memory (a
# wave), then the policy has INTERVAL_MS to prepare huge pages
consumer --mb "$MB" --cycles "$CYCLES" --interval-ms "$INTERVAL_MS" \
	--sync "$FRAG_PID:/tmp/fragmenter.state" | tee /tmp/consumer.out
psi1=$(sed -n 's/^some .*total=\([0-9]*\)/\1/p' /proc/pressure/memory 2>/dev/null)
psif1=$(sed -n 's/^full .*total=\([0-9]*\)/\1/p' /proc/pressure/memory 2>/dev/null)
fragmenter_stop
policy_finish
cleanup
sed "s/^/@@SERIES policy=$POLICY defrag=$DEFRAG /" /tmp/series

if knobs_in_bounds /tmp/knobs.during; then pass "knobs within bounds during the run"; fi
sum=$(sed -n 's/^consumer: \(cycles=.*\)/\1/p' /tmp/consumer.out)
case $sum in
*requested=0* | '') fail "consumer produced no summary" ;;
*) pass "consumer ran $CYCLES cycles" ;;
esac
extra="psi_some_ms=$(( (${psi1:-0} - ${psi0:-0}) / 1000 )) psi_full_ms=$(( (${psif1:-0} - ${psif0:-0}) / 1000 ))"
case $POLICY in fragd | fragd-warm) extra="$extra fragd_cpu_ms=${FRAGD_CPU_MS:-0}" ;; esac
result "policy=$POLICY defrag=$DEFRAG mb=$MB $sum $extra"
finish
