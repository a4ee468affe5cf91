# shellcheck shell=sh
# workload.sh - guest scenario for workload awareness (runs in the test VM as
# root: the only place where /proc/sys, /sys and cgroups are written).
#
# Proves, on a fragmented guest:
#   1. stall attribution: db.slice faults huge pages under defrag=always and
#      shows non-zero direct compaction delay; batch.slice, whose process runs
#      under `fragd-thp-exec --mode never`, shows zero;
#   2. exit attribution: db.slice's consumer is a short-lived child that has
#      exited before the last report, and its stall is still counted;
#   3. the launcher: batch.slice's process has THP_enabled 0 and got no huge
#      pages; the probe reports the intent "never" as in effect;
#   4. collapse: collapse.slice holds memory in small pages (defrag=never, so
#      faults fall back); with thp=always+collapse the probe collapses it with
#      process_madvise(MADV_COLLAPSE) within its CPU budget, and AnonHugePages
#      grows.
#
#   fvm.mb=512 fvm.cycles=4 fvm.wave_every=0 fvm.collapse_mb=128 fvm.collapse_cpu_ms=2000
#
# Needs in the guest: fragd-workload-probe, fragd-thp-exec, fragmenter,
# consumer (tests/vm/src). Kernel: CONFIG_TASKSTATS, CONFIG_TASK_DELAY_ACCT,
# CONFIG_PROC_EVENTS, cgroup2 with the memory controller.
# shellcheck source-path=SCRIPTDIR source=../lib.sh disable=SC2015 # A && pass || fail: pass never fails
. /vm/lib.sh

MB=${FVM_MB:-512}
CYCLES=${FVM_CYCLES:-4}
COLLAPSE_MB=${FVM_COLLAPSE_MB:-128}
COLLAPSE_CPU_MS=${FVM_COLLAPSE_CPU_MS:-2000}
CG=/sys/fs/cgroup

for b in fragd-workload-probe fragd-thp-exec fragmenter consumer; do
	command -v "$b" >/dev/null 2>&1 || skip "no $b in the guest"
done

# --- delay accounting: on before any workload process starts ----------------
if [ -e /proc/sys/kernel/task_delayacct ]; then
	echo 1 >/proc/sys/kernel/task_delayacct
	pass "kernel.task_delayacct=1 (tasks started from now on are covered)"
else
	log "no kernel.task_delayacct sysctl (pre-5.14: on when built in)"
fi

# --- cgroups -------------------------------------------------------------------
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || mount -t cgroup2 none $CG || skip "cannot mount cgroup2"
grep -qw memory $CG/cgroup.controllers || skip "no memory controller in cgroup2"
echo +memory >$CG/cgroup.subtree_control
for c in db.slice batch.slice collapse.slice; do
	[ -d $CG/$c ] || mkdir $CG/$c
done
# run_in CGROUP CMD...: start CMD inside CGROUP (the shell moves itself, then execs)
run_in() {
	cg=$1
	shift
	sh -c 'echo $$ >'"$CG/$cg"'/cgroup.procs && exec "$@"' sh "$@"
}

# --- fragment, then fault under defrag=always ----------------------------------
thp_setup always always
# a small reserve, as in churn: the free memory left in order>=9 blocks must
# not cover the consumer, or it never has to compact
fragmenter_start --keep "${FVM_KEEP:-16}" --wave-every "${FVM_WAVE_EVERY:-0}" --chunk-mb 64 \
	--reserve-mb "${FVM_RESERVE_MB:-192}" --floor-mb "${FVM_FLOOR_MB:-192}" --report 50
log "fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"

fragd-workload-probe --cgroup db.slice:always --cgroup batch.slice:never \
	--cgroup collapse.slice:always+collapse --collapse-cpu-ms "$COLLAPSE_CPU_MS" --collapse-max-mb "$COLLAPSE_MB" \
	--thp-scan 2 --interval 2 --count 400 --every --json >/tmp/probe.out 2>/tmp/probe.err &
PROBE=$!
bg_started $PROBE
sleep 3

# batch.slice: a long-lived process under the launcher, and a consumer too
run_in batch.slice fragd-thp-exec --mode never -- sleep 600 &
bg_started $!
sleep 1
bpid=$(head -1 $CG/batch.slice/cgroup.procs)
[ "$(awk '/^THP_enabled:/ {print $2}' /proc/"$bpid"/status)" = 0 ] &&
	pass "launcher: batch.slice process runs with THP_enabled 0" ||
	fail "launcher: batch.slice THP_enabled $(awk '/^THP_enabled:/ {print $2}' /proc/"$bpid"/status)"
run_in batch.slice fragd-thp-exec --mode never -- consumer --mb $((MB / 2)) --cycles 2 --interval-ms 200 >/tmp/batch.out
grep -q 'consumer: cycles=.* huge=0 ' /tmp/batch.out && pass "launcher: the consumer under --mode never got no huge pages" ||
	fail "launcher: $(tail -1 /tmp/batch.out)"

# db.slice: the short-lived huge-page consumer; it exits before we look
# in lockstep with the fragmenter (as churn): a wave right before every fault
run_in db.slice consumer --mb "$MB" --cycles "$CYCLES" --interval-ms 200 \
	--sync "$FRAG_PID:/tmp/fragmenter.state" | tee /tmp/db.out
[ -z "$(cat $CG/db.slice/cgroup.procs)" ] && pass "db.slice is empty: its consumer has exited" || fail "db.slice still has processes"
sleep 5 # two probe ticks

last() { grep "\"cgroup\":\"$1\"" /tmp/probe.out | tail -1; }
field() { echo "$1" | sed -n "s/.*\"$2\":\\([^,}]*\\).*/\\1/p" | tr -d '"'; }
db=$(last db.slice)
batch=$(last batch.slice)
log "db.slice: $db"
log "batch.slice: $batch"
[ "$(field "$db" attribution)" = ok ] || fail "attribution $(field "$db" attribution): $(cat /tmp/probe.err)"
dbc=$(field "$db" compact_delay_usec)
bc=$(field "$batch" compact_delay_usec)
stall=$(awk '/^consumer: cycles=/ { for (i = 1; i <= NF; i++) if ($i ~ /^compact_stall=/) { split($i, a, "="); print a[2] } }' /tmp/db.out)
if [ "${stall:-0}" -gt 0 ]; then
	[ "${dbc:-0}" -gt 0 ] && pass "db.slice: ${dbc} us of direct compaction attributed after its consumer exited (compact_stall=$stall)" ||
		fail "db.slice: no compaction delay attributed although compact_stall=$stall"
else
	log "the consumer never entered direct compaction (compact_stall=0): memory not fragmented enough"
	fail "no direct compaction happened; cannot check attribution"
fi
[ "${bc:-1}" -eq 0 ] && pass "batch.slice (THP disabled): zero direct compaction delay" || fail "batch.slice compaction delay $bc"
[ "$(field "$batch" thp_effect)" = in-effect ] && pass "batch.slice: intent never reported in effect via $(field "$batch" thp_mechanism)" ||
	fail "batch.slice thp_effect $(field "$batch" thp_effect)"

# --- collapse: small pages held in collapse.slice, then calm -------------------
# enabled=never while it faults: small pages whatever is free. It stays never:
# khugepaged then sleeps, so any growth is the probe's MADV_COLLAPSE (which
# the kernel does not gate on the sysfs mode).
knob_set thp/enabled never
fa0=$(vmstat thp_fault_alloc) ca0=$(vmstat thp_collapse_alloc)
run_in collapse.slice consumer --mb "$COLLAPSE_MB" --cycles 1 --hold-ms 600000 >/tmp/collapse.out &
bg_started $!
sleep 3
cpid=$(head -1 $CG/collapse.slice/cgroup.procs)
# the probe may collapse as soon as it sees the process: what the faults got
# comes from thp_fault_alloc (khugepaged is off with enabled=never)
h0=$((($(vmstat thp_fault_alloc) - fa0) * 2048))
fragmenter_stop # calm: the probe may now collapse
i=0
while [ $i -lt 60 ]; do
	sleep 2
	c=$(last collapse.slice)
	[ "$(field "$c" collapsed_bytes)" -gt 0 ] 2>/dev/null && break
	i=$((i + 1))
done
sleep 4
c=$(last collapse.slice)
h1=$(awk '/^AnonHugePages:/ {print $2}' /proc/"$cpid"/smaps_rollup)
ca=$(($(vmstat thp_collapse_alloc) - ca0))
cpu=$(field "$c" collapse_cpu_usec)
log "collapse.slice: $c; AnonHugePages ${h0} -> ${h1} kB, thp_collapse_alloc +$ca"
[ "${h1:-0}" -gt "${h0:-0}" ] && [ "$(field "$c" collapsed_bytes)" -gt 0 ] 2>/dev/null && pass "collapse: AnonHugePages ${h0} -> ${h1} kB" ||
	fail "collapse: AnonHugePages ${h0} -> ${h1} kB; probe: $(tail -3 /tmp/probe.err | tr '\n' ' ')"
# within budget: the per-minute CPU budget plus at most one huge page's work per run
[ "${cpu:-0}" -le $(((COLLAPSE_CPU_MS + 500) * 1000 * 3)) ] && pass "collapse CPU ${cpu} us (budget ${COLLAPSE_CPU_MS} ms/min)" ||
	fail "collapse CPU ${cpu} us over budget"

result "db_compact_usec=${dbc:-0} batch_compact_usec=${bc:-0} consumer_compact_stall=${stall:-0}" \
	"collapse_bytes=$(field "$c" collapsed_bytes) thp_collapse_alloc=$ca anon_huge_kb_before=${h0:-0} anon_huge_kb_after=${h1:-0} collapse_cpu_usec=${cpu:-0}" \
	"exit_records=$(field "$db" exit_records) unattributed=$(field "$db" exits_unattributed)"
finish
