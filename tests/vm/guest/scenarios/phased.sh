# shellcheck shell=sh
# phased.sh - a database's day, shortened: bursts of huge-page demand, a long
# quiet phase, bursts again, with a fragmenter that never stops (issue 14).
#
#   fvm.policy=kernel|static-max|pro<N>|tuned|fragd   who keeps memory defragmented
#   fvm.defrag=never|madvise   THP defrag mode (see churn.sh)
#   fvm.mb, fvm.bursts, fvm.interval_ms   consumer: region size, cycles per
#       burst phase, pause between cycles
#   fvm.quiet_s   the quiet phase (default 150 s)
#   fvm.settle_s  how long to watch the knobs after the last burst (150 s)
#   fvm.seed      fragmenter seed
#   fvm.warmup_mb a burst of that many MiB (one consumer cycle, unmeasured)
#       under the kernel's defaults before the policy starts, then a full
#       re-fragmentation (default 0: none). The host has run its workload
#       before fragd starts: what the kernel counted since boot is what a
#       fresh fragd sizes its first reserve from (issue 14 item 5). Every
#       policy gets the same warm-up.
#
# fragd runs with its time constants shortened by configuration
# (/tmp/phased.conf: decay_after, demand_hold, demand_decay, backoff_hold,
# the knobs' reversal_cooldown),
# never by changing fragd. Result: huge pages per burst phase, compaction
# pages scanned per phase (burst 1, quiet, burst 2, tail), memory held back
# by raised watermarks (sum over zones of the high watermark minus its value
# before the policy, in MiB: max and mean), and how long after each burst
# phase every knob was back at the value found at start (-1: not within the
# phase). @@KNOBS lines: the knobs over time, for the plot.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

POLICY=${FVM_POLICY:-kernel}
DEFRAG=${FVM_DEFRAG:-never}
MB=${FVM_MB:-512}
BURSTS=${FVM_BURSTS:-3}
INTERVAL_MS=${FVM_INTERVAL_MS:-2000}
QUIET_S=${FVM_QUIET_S:-150}
SETTLE_S=${FVM_SETTLE_S:-150}

scanned() { echo $(($(vmstat compact_migrate_scanned) + $(vmstat compact_free_scanned))); }
# sum of every zone's high watermark, pages
wmark_high() { awk '$1 == "high" { s += $2 } END { print s + 0 }' /proc/zoneinfo; }
knob_line() { knobs_snapshot | tr '\n' ' '; }

thp_setup madvise "$DEFRAG"
case $POLICY in
fragd)
	fragd_require
	cat >/tmp/phased.conf <<-CONF
	# the time constants of a day in minutes (bench/README.md "Phased")
	[policy]
	decay_after = 30s
	demand_hold = 30s
	demand_decay = 15s
	backoff_hold = 30s
	# the reversal cooldowns shortened by the same factor (20: decay_after
	# 10 min shipped); unshortened, watermark_scale_factor's 5 min after a
	# raise outlasted the whole tail and held it up
	[knob "compaction_proactiveness"]
	reversal_cooldown = 6s
	[knob "watermark_scale_factor"]
	reversal_cooldown = 15s
	[knob "min_free_kbytes"]
	reversal_cooldown = 90s
	CONF
	export FVM_FRAGD_CONF=/tmp/phased.conf
	;;
esac
knobs_snapshot >/tmp/knobs.before
before=$(knob_line)
high0=$(wmark_high)
log "$(grep MemTotal /proc/meminfo | tr -s ' '); knobs: $before; high watermarks $high0 pages"
fragmenter_start --keep "${FVM_KEEP:-16}" --chunk-mb "${FVM_CHUNK_MB:-16}" \
	--churn "${FVM_CHURN:-1}" --wave-every 0 --reserve-mb "${FVM_RESERVE_MB:-192}" \
	--floor-mb "${FVM_FLOOR_MB:-192}" --interval-ms "${FVM_FRAG_INTERVAL_MS:-200}" --report 0
log "fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"
WARMUP_MB=${FVM_WARMUP_MB:-0}
if [ "$WARMUP_MB" -gt 0 ]; then
	log "warm-up: one unmeasured $WARMUP_MB MiB burst under the kernel's defaults"
	consumer --mb "$WARMUP_MB" --cycles 1 --interval-ms 0 | sed 's/^consumer:/warm-up:/'
	log "warm-up: since boot thp_fault_alloc $(vmstat thp_fault_alloc) thp_fault_fallback $(vmstat thp_fault_fallback), up $(uptime_s) s"
	fragmenter_wave
fi
policy_apply "$POLICY"
t0=$(uptime_s)
# the knobs and the held-back memory every 2 s: "t held_pages knob=value ..."
(while :; do echo "$(uptime_s) $(($(wmark_high) - high0)) $(knob_line)"; sleep 2; done) >/tmp/phased.series &
bg_started $!

burst() {
	consumer --mb "$MB" --cycles "$BURSTS" --interval-ms "$INTERVAL_MS" \
		--sync "$FRAG_PID:/tmp/fragmenter.state" >"/tmp/consumer.$1"
	cat "/tmp/consumer.$1"
}
summary() { sed -n 's/^consumer: \(cycles=.*\)/ \1/p' "/tmp/consumer.$1"; }
field() { echo "$1" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

knobs_sampler /tmp/knobs.during 2
s0=$(scanned)
burst 1
e1=$(uptime_s) s1=$(scanned) b1=$(summary 1)
log "burst 1:$b1"
log "burst 1 ended at +$(awk -v a="$e1" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s"
sleep "$QUIET_S"
s2=$(scanned)
log "burst 2 starts at +$(awk -v a="$(uptime_s)" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s"
burst 2
e2=$(uptime_s) s3=$(scanned) b2=$(summary 2)
log "burst 2:$b2"
log "burst 2 ended at +$(awk -v a="$e2" -v b="$t0" 'BEGIN { printf "%.0f", a - b }') s"
sleep "$SETTLE_S"
s4=$(scanned)
fragmenter_stop
# fragd's whole log, for reading its decisions against the phases (the
# suite's fragd_stop prints only its tail)
[ "$POLICY" != fragd ] || sed 's/^/@@FRAGD /' /tmp/fragd.log
policy_finish
cleanup

# seconds after $1 until the knobs were back at $before and stayed so until $2
back_after() {
	awk -v from="$1" -v to="$2" -v want="$before" '
		{ t = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); line = $0 }
		t < from || t > to { next }
		line == want { if (at < 0) at = t; next }
		{ at = -1 }
		BEGIN { at = -1; sub(/ +$/, "", want) }
		END { if (at < 0) print -1; else printf "%.0f\n", at - from }' /tmp/phased.series
}
q_back=$(back_after "$e1" "$(awk -v a="$e1" -v q="$QUIET_S" 'BEGIN { print a + q }')")
t_back=$(back_after "$e2" 1e12)
held_max=$(awk '{ if ($2 > m) m = $2 } END { printf "%.0f\n", m * 4 / 1024 }' /tmp/phased.series)
held_avg=$(awk '{ s += $2; n++ } END { printf "%.0f\n", n ? s / n * 4 / 1024 : 0 }' /tmp/phased.series)
awk -v t0="$t0" -v p="$POLICY" '{ printf "@@KNOBS policy=%s %.0f %s\n", p, $1 - t0, $0 }' /tmp/phased.series
log "knobs after: $(knob_line)"

h1=$(field "$b1" huge) h2=$(field "$b2" huge) r1=$(field "$b1" requested) r2=$(field "$b2" requested)
case "$r1$r2" in
'' | *[!0-9]*) fail "consumer produced no summary" ;;
*) pass "consumer ran two burst phases of $BURSTS cycles" ;;
esac
if knobs_in_bounds /tmp/knobs.during; then pass "knobs within bounds during the run"; fi
[ "$POLICY" != fragd ] || [ "$t_back" -ge 0 ] || fail "fragd left knobs changed $SETTLE_S s after the last burst: $(knob_line)"
huge=$((${h1:-0} + ${h2:-0})) req=$((${r1:-0} + ${r2:-0}))
result "policy=$POLICY defrag=$DEFRAG mb=$MB huge=$huge requested=$req" \
	"thp_pct=$(awk -v h="$huge" -v r="$req" 'BEGIN { printf "%.1f", r ? 100 * h / r : 0 }')" \
	"huge_b1=${h1:-0} huge_b2=${h2:-0} scanned_b1=$((s1 - s0)) scanned_quiet=$((s2 - s1))" \
	"scanned_b2=$((s3 - s2)) scanned_tail=$((s4 - s3)) scanned=$((s4 - s0))" \
	"held_max_mb=$held_max held_avg_mb=$held_avg back_quiet_s=$q_back back_tail_s=$t_back" \
	"compact_stall=$(vmstat compact_stall)"
finish
