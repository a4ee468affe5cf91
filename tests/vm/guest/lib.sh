# shellcheck shell=sh
# lib.sh - sourced by every guest scenario (busybox sh, as root, inside the
# test VM: the only place where /proc/sys and /sys are ever written).
#
# Conventions: a scenario prints "PASS ..."/"FAIL ..." check lines, one
# "@@RESULT key=value ..." line with its counters for the host, and exits
# 0 (pass), 77 (skip) or anything else (fail).
set -eu
# shellcheck disable=SC3040 # busybox ash has pipefail
set -o pipefail

V=/proc/sys/vm
T=/sys/kernel/mm/transparent_hugepage
SCENARIO=${FVM_SCENARIO:-${0##*/}}
SCENARIO=${SCENARIO%.sh}
FAILS=0
FRAGD_PID=
CHILDREN=

log() { echo "[$SCENARIO] $*"; }
pass() { echo "PASS $*"; }
fail() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}
skip() {
	echo "SKIP: $*"
	cleanup
	exit 77
}
result() { echo "@@RESULT scenario=$SCENARIO kernel=$(uname -r) $*"; }
finish() {
	cleanup
	log "$FAILS failed checks"
	[ "$FAILS" -eq 0 ] || exit 1
	exit 0
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# Kill what the scenario started in the background (fragd is stopped by
# fragd_stop, which checks how it exits).
cleanup() {
	for p in $CHILDREN; do
		kill "$p" 2>/dev/null || true
	done
	for p in $CHILDREN; do
		wait "$p" 2>/dev/null || true
	done
	CHILDREN=
	if [ -n "$FRAGD_PID" ]; then
		kill -TERM "$FRAGD_PID" 2>/dev/null || true
		FRAGD_PID=
	fi
}
bg_started() { CHILDREN="$CHILDREN $1"; }

# --- knobs -----------------------------------------------------------------
# Every knob fragd may steer, by a short name: vm/NAME is /proc/sys/vm/NAME,
# thp/PATH is /sys/kernel/mm/transparent_hugepage/PATH. Knobs this kernel
# lacks are left out.
knob_names() {
	for k in compaction_proactiveness watermark_scale_factor min_free_kbytes \
		watermark_boost_factor extfrag_threshold defrag_mode; do
		[ -e "$V/$k" ] && echo "vm/$k"
	done
	for k in enabled defrag khugepaged/defrag; do
		[ -e "$T/$k" ] && echo "thp/$k"
	done
	for d in "$T"/hugepages-*kB; do
		[ -e "$d/enabled" ] && echo "thp/${d##*/}/enabled"
	done
	return 0
}
knob_path() {
	case $1 in
	vm/*) echo "$V/${1#vm/}" ;;
	thp/*) echo "$T/${1#thp/}" ;;
	*) return 1 ;;
	esac
}
# the value; for THP multiple-choice files the selected [word]
knob_get() {
	v=$(cat "$(knob_path "$1")")
	case $v in
	*\[*\]*) v=${v#*\[} v=${v%%\]*} ;;
	esac
	echo "$v"
}
knob_set() { echo "$2" >"$(knob_path "$1")"; }
# name=value, one per line, sorted
knobs_snapshot() {
	for k in $(knob_names); do
		echo "$k=$(knob_get "$k")"
	done
}

# knobs_in_bounds SNAPSHOT_FILE: every value within /vm/bounds.conf
# ("knob min max", numeric knobs only); prints one FAIL per violation.
knobs_in_bounds() {
	bad=0
	while read -r k lo hi; do
		case $k in '' | \#*) continue ;; esac
		for v in $(sed -n "s|^$k=||p" "$1" | sort -un | tr '\n' ' '); do
			if [ "$v" -lt "$lo" ] || [ "$v" -gt "$hi" ]; then
				fail "knob $k=$v outside [$lo, $hi]"
				bad=1
			fi
		done
	done </vm/bounds.conf
	return $bad
}

# knobs_sampler FILE SECONDS: append a snapshot every SECONDS, in the background
knobs_sampler() {
	(while :; do
		knobs_snapshot >>"$1"
		sleep "$2"
	done) &
	bg_started $!
}

# --- counters --------------------------------------------------------------
vmstat() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print -1 }' /proc/vmstat; }
# free memory in blocks of order >= 9, in MiB, over all nodes and zones
free_huge_mb() {
	awk '{ kb = 2048; for (i = 14; i <= NF; i++) { s += $i * kb; kb *= 2 } }
		END { printf "%d\n", s / 1024 }' /proc/buddyinfo
}

# --- policies --------------------------------------------------------------
# kernel      the kernel's defaults, untouched
# static-max  compaction_proactiveness=100 for the whole run
# tuned       compaction_proactiveness=60, watermark_scale_factor=200
# compact     positive control: a full compaction (vm.compact_memory) after
#             every fragmenter wave; what preparing order-9 blocks buys,
#             whatever the kernel's own heuristics do
# fragd       the fragd daemon runs for the whole run (SIGTERM at the end)
# fragd-warm  fragd as on a host that has run this workload before and was
#             restarted (an upgrade, a reboot): fragd sees one unmeasured
#             burst on re-fragmented memory (part of it falls back), stops (keeping what it learned in /var/lib/fragd), starts
#             again, and the fragmenter re-fragments all memory once more
#             before the measured run; CHURN_MB is the burst (default 512)
policy_apply() {
	POLICY=$1
	case $1 in
	kernel) ;;
	static-max) knob_set vm/compaction_proactiveness 100 ;;
	pro[0-9] | pro[0-9][0-9] | pro100) # a static compaction_proactiveness, the rest at kernel values
		knob_set vm/compaction_proactiveness "${1#pro}" ;;
	tuned)
		knob_set vm/compaction_proactiveness 60
		knob_set vm/watermark_scale_factor 200
		;;
	compact) compact_after_waves ;;
	fragd) fragd_start ;;
	fragd-warm) fragd_warm "${CHURN_MB:-512}" ;;
	*)
		echo "unknown policy '$1'"
		exit 2
		;;
	esac
	log "policy $1: $(knobs_snapshot | tr '\n' ' ')"
}
policy_finish() {
	case $POLICY in fragd | fragd-warm) fragd_stop ;; esac
}

fragd_warm() {
	fragd_start
	# on memory fragmented anew, as the measured bursts meet it: part of
	# the burst falls back, which is what fragd learns from (a burst the
	# free lists serve in full teaches nothing)
	fragmenter_wave
	log "warm-up: one unmeasured $1 MiB burst with fragd running"
	consumer --mb "$1" --cycles 1 --interval-ms 0 | sed 's/^consumer:/warm-up:/'
	# the next tick sees the burst and writes it at once (a first sighting)
	i=0
	while [ ! -s /var/lib/fragd/learned ] && [ $i -lt 150 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	fragd_stop
	if [ -s /var/lib/fragd/learned ]; then
		pass "fragd kept the learned burst: $(grep -o '[0-9]* MiB burst' /var/lib/fragd/learned)"
	else
		fail "fragd left no /var/lib/fragd/learned after a $1 MiB burst"
	fi
	fragd_start
	if grep -q "Learned reserve from the previous run: [0-9]* MiB burst" /tmp/fragd.log; then
		pass "the restarted fragd re-instated it: $(grep -o 'Learned reserve from the previous run: [^,]*' /tmp/fragd.log)"
	else
		fail "the restarted fragd did not re-instate the learned reserve: $(head -n 5 /tmp/fragd.log)"
	fi
	fragmenter_wave
}

# fragmenter_wave: ask the fragmenter for a full re-fragmentation, wait for it
fragmenter_wave() {
	w0=$(sed -n 's/.*waves=\([0-9]*\).*/\1/p' /tmp/fragmenter.state)
	kill -USR1 "$FRAG_PID"
	i=0
	while [ "$(sed -n 's/.*waves=\([0-9]*\).*/\1/p' /tmp/fragmenter.state)" = "$w0" ]; do
		[ $i -lt 600 ] || { fail "no wave from the fragmenter"; finish; }
		sleep 0.1
		i=$((i + 1))
	done
	log "re-fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"
}

compact_after_waves() {
	(
		last=-1
		while :; do
			w=$(sed -n 's/.*waves=\([0-9]*\).*/\1/p' /tmp/fragmenter.state 2>/dev/null || true)
			if [ -n "$w" ] && [ "$w" != "$last" ]; then
				echo 1 >"$V/compact_memory"
				last=$w
			fi
			sleep 0.2
		done
	) &
	bg_started $!
}

# --- fragd -----------------------------------------------------------------
# The daemon mode is announced by `fragd --features` printing a line
# "daemon". Until fragd has it, every fragd scenario skips.
fragd_has_daemon() {
	command -v fragd >/dev/null 2>&1 && fragd --features 2>/dev/null | grep -qx daemon
}
fragd_require() {
	command -v fragd >/dev/null 2>&1 || skip "no fragd binary in the guest"
	fragd_has_daemon || skip "$(fragd --version 2>/dev/null | head -n 1) has no daemon mode yet (fragd --features lacks 'daemon')"
}
fragd_start() {
	fragd_require
	knobs_snapshot >/tmp/knobs.pre-fragd
	set --
	if [ -n "${FVM_FRAGD_CONF:-}" ]; then
		set -- -c "$FVM_FRAGD_CONF"
	elif [ -f /etc/fragd.conf ]; then
		set -- -c /etc/fragd.conf
	fi
	[ -n "${FVM_FRAGD_INTERVAL:-}" ] && set -- "$@" --interval "$FVM_FRAGD_INTERVAL"
	[ -n "${FVM_FRAGD_LOG:-}" ] && set -- "$@" --log-level "$FVM_FRAGD_LOG"
	# fvm.fragd_set=SEC.KEY=VAL[,SEC.KEY=VAL...]: --set for each, a bench
	# probing a configuration without a new build
	if [ -n "${FVM_FRAGD_SET:-}" ]; then
		old_ifs=$IFS IFS=,
		for kv in $FVM_FRAGD_SET; do set -- "$@" --set "$kv"; done
		IFS=$old_ifs
	fi
	log "starting fragd $*"
	fragd "$@" >/tmp/fragd.log 2>&1 &
	FRAGD_PID=$!
	sleep 1
	if ! kill -0 "$FRAGD_PID" 2>/dev/null; then
		cat /tmp/fragd.log
		FRAGD_PID=
		fail "fragd exited right after start"
		finish
	fi
}
# CPU time (user+system) of a process in ms
proc_cpu_ms() {
	awk -v hz=100 '{ sub(/.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
}
# fragd_stop: SIGTERM, wait, check exit status and that every knob is back
fragd_stop() {
	[ -n "$FRAGD_PID" ] || return 0
	FRAGD_CPU_MS=$(proc_cpu_ms "$FRAGD_PID")
	knobs_snapshot >/tmp/knobs.fragd-running
	kill -TERM "$FRAGD_PID"
	rc=0
	wait "$FRAGD_PID" || rc=$?
	FRAGD_PID=
	if [ -n "${FVM_FRAGD_LOG:-}" ]; then
		# a chosen log level (e.g. debug for the per-tick times): all of it
		sed 's/^/fragd: /' /tmp/fragd.log
	else
		# fvm.fragd_log_lines: how much of the log to show (bench diagnosis)
		sed 's/^/fragd: /' /tmp/fragd.log | tail -n "${FVM_FRAGD_LOG_LINES:-40}"
	fi
	if [ "$rc" -eq 0 ]; then pass "fragd exited 0 on SIGTERM"; else fail "fragd exit status $rc on SIGTERM"; fi
	knobs_snapshot >/tmp/knobs.post-fragd
	if cmp -s /tmp/knobs.pre-fragd /tmp/knobs.post-fragd; then
		pass "every knob restored after stop"
	else
		fail "knobs not restored after stop:"
		diff /tmp/knobs.pre-fragd /tmp/knobs.post-fragd || true
	fi
	log "fragd cpu_ms=$FRAGD_CPU_MS; knobs while running: $(tr '\n' ' ' </tmp/knobs.fragd-running)"
}

# --- workloads -------------------------------------------------------------
# thp_setup ENABLED DEFRAG: the THP mode of the run. Written before the knob
# snapshot: a write to `enabled` makes the kernel recompute min_free_kbytes.
thp_setup() {
	knob_set thp/enabled "$1"
	knob_set thp/defrag "$2"
}

# fragmenter_start [ARGS...]: start the fragmenter, wait for its first pass
fragmenter_start() {
	rm -f /tmp/fragmenter.ready
	fragmenter --seed "${FVM_SEED:-1}" --ready /tmp/fragmenter.ready --state /tmp/fragmenter.state "$@" &
	FRAG_PID=$!
	bg_started $FRAG_PID
	i=0
	while [ ! -e /tmp/fragmenter.ready ]; do
		if ! kill -0 "$FRAG_PID" 2>/dev/null || [ $i -ge 1200 ]; then
			fail "fragmenter did not get ready"
			finish
		fi
		sleep 0.1
		i=$((i + 1))
	done
}
fragmenter_stop() {
	kill -TERM "$FRAG_PID" 2>/dev/null || true
	wait "$FRAG_PID" 2>/dev/null || true
	CHILDREN=$(echo "$CHILDREN" | sed "s/ $FRAG_PID\b//")
}
