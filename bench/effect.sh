#!/bin/bash
# bench/effect.sh - what fragd buys, measured on a real kernel in qemu, next to
# what a user can do without it. For each THP defrag mode and policy it runs
# the churn scenario (tests/vm/guest/scenarios/churn.sh: a fragmenter that
# re-fragments all memory before every cycle, a consumer faulting 512 MiB
# MADV_HUGEPAGE regions) RUNS times with different seeds and reports the
# median and the range of: huge pages obtained, compact_stall, pages scanned
# by compaction (migrate + free), pages scanned per huge page obtained, memory
# PSI stall, fragd's own CPU time. It plots free memory in order>=9 blocks
# over time per policy (gnuplot PNG, first run of each).
#
#   bench/effect.sh                     # 3 runs x 4 policies x 2 modes, kernel 6.1
#   RUNS=5 KERNEL=6.12 bench/effect.sh
#   POLICIES="tuned fragd" MODES=never VM_ARGS="mb=128 cycles=20" bench/effect.sh   # another shape
#   POLICIES="tuned pro39 fragd" MODES=never bench/effect.sh   # beside a static proactiveness (pro<N>)
#   SHAPE=phased bench/effect.sh        # bursts, a long quiet phase, bursts again
#
# SHAPE=phased runs tests/vm/guest/scenarios/phased.sh instead: two burst
# phases (BURSTS cycles each) around a quiet phase, fragd's time constants
# shortened by its configuration (decay_after, demand_hold, demand_decay,
# backoff_hold: the scenario's /tmp/phased.conf), and reports per policy the
# huge pages, compaction pages scanned in each phase (burst 1, quiet, burst
# 2, tail), the memory held back by raised watermarks (max and mean, MiB),
# how long after each burst phase the knobs were back at the values found
# at start (-1: not within the phase), and plots the knobs over time.
#
# Output: bench/out/effect-<kernel>-<time>/{summary.txt,results.tsv,*.log,free-order9-<mode>.png}
# (phased: effect-phased-<kernel>-<time>/, knobs-<mode>.png)
#
# SHAPE=postgres: PostgreSQL 15 on XFS in the systemd guest, pgbench
# simple-update on fragmented memory full of page cache (scenario postgres,
# issue 13), for every policy, kernel and seed; medians [min-max] of postgres'
# direct compactions and their delay (fragd's taskstats attribution), the
# WAL segments entered (and the direct compactions per segment), compact_stall, kswapd pages scanned, compaction pages scanned, the share of
# page-cache bytes added at order >= 6, TPS; and one unfragmented run per
# kernel and seed (policy kernel, no fragmenter) as the folio-order reference.
# Needs the postgres guest (make vm-pg-image, as root).
#
#   SHAPE=postgres bench/effect.sh      # 3 seeds x 5 policies x the 6.12 kernels present
#   SHAPE=postgres RUNS=1 KERNELS="6.12" POLICIES="kernel fragd" PG_ARGS="seconds=30" bench/effect.sh
#   JOBS=2 runs two guests at a time (default 1); PG_TIMEOUT a run's timeout (1500 s);
#   REFERENCE=0 leaves out the unfragmented runs; SEED_FIRST=4 RUNS=3 runs
#   seeds 4-6 (a second batch that adds seeds instead of repeating 1-3)
#
# Output: bench/out/effect-postgres-<time>/{summary.txt,results.tsv,*.log}
#
# Every results.tsv starts with "# key: value" lines: the command, the
# commit, the machine, the date, and the table's group and columns. Copied
# into bench/results/ it is a results file bench/tables.py renders
# (bench/README.md). Every shape's summary.txt is made by bench/summarize.py
# from results.tsv (median [min-max] per group); run it on any results TSV by
# hand the same way.
set -euo pipefail
cd "$(dirname "$0")/.."

# the command as given: the settings that shape a run, then the script
CMDLINE=
for v in SHAPE RUNS SEED_FIRST KERNEL KERNELS POLICIES POLICIES_PHASED MODES VM_ARGS PG_ARGS JOBS REFERENCE \
	PG_TIMEOUT PHASED_TIMEOUT; do
	[ -z "${!v:-}" ] || CMDLINE="$CMDLINE$v=$(printf '%q' "${!v}") "
done
CMDLINE="${CMDLINE}bench/effect.sh"

# results_header TSV TITLE GUEST GROUP COLUMNS: start TSV with the header
# lines bench/tables.py needs (GROUP and COLUMNS as bench/summarize.py's
# --group and --cols), then the caller appends the column line and rows
results_header() {
	local commit os
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
	git diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
	os=$(. /etc/os-release 2>/dev/null && echo ", $PRETTY_NAME")
	{
		echo "# title: $2"
		echo "# shape: ${SHAPE:-churn}"
		echo "# command: $CMDLINE"
		echo "# commit: $commit"
		echo "# machine: host $(nproc) CPUs, $(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)$os; guest qemu ($([ -w /dev/kvm ] && echo KVM || echo TCG)), $3"
		echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "# group: $4"
		echo "# columns: $5"
	} >"$1"
}

# field RESULT KEY: the last KEY=value of a guest's result file
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" | tail -n 1; }

# vm_run LOG RUN.SH-ARGS...: one guest, its console in LOG. A guest that
# ended without a failed check is booted once more, as the suite does (the
# first log kept as LOG.retried); one that died of the 7.3 build's oops on
# a stray int3 under TCG (the kernel patching its own text as a tracepoint
# is switched) may boot a third time (LOG.retried2).
vm_run() {
	local log=$1 boots=1 max=2 rc=0 kept
	shift
	tests/vm/run.sh -l "$log" "$@" >/dev/null 2>&1 || rc=$?
	while [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$boots" -lt "$max" ] && ! grep -qE '^\[ *[0-9.]+\] FAIL' "$log"; do
		! grep -q 'Oops: int3' "$log" || max=3
		kept=$log.retried
		[ "$boots" = 1 ] || kept=$log.retried$boots
		mv "$log" "$kept"
		echo "effect: guest of $log ended with rc=$rc and no failed check; booting it once more" >&2
		rc=0
		boots=$((boots + 1))
		tests/vm/run.sh -l "$log" "$@" >/dev/null 2>&1 || rc=$?
	done
	return "$rc"
}

# plot_png PNG WIDTH,HEIGHT TITLE YLABEL PLOT...: one gnuplot PNG of the
# PLOT specifications over seconds since the policy took over (YLABEL may
# be empty)
plot_png() {
	local png=$1 size=$2 title=$3 ylabel=$4
	shift 4
	gnuplot <<-GP
	set terminal pngcairo size $size noenhanced
	set output '$png'
	set title '$title'
	set xlabel 'seconds since the policy took over'
	$([ -n "$ylabel" ] && echo "set ylabel '$ylabel'")
	set key outside right
	set grid
	plot $(IFS=,; echo "$*")
	GP
}
if [ "${SHAPE:-churn}" = postgres ]; then
	# shellcheck source-path=SCRIPTDIR source=../tests/vm/common.sh
	. tests/vm/common.sh
	RUNS=${RUNS:-3}
	SEED_FIRST=${SEED_FIRST:-1}
	case $SEED_FIRST in '' | *[!0-9]* | 0) echo "effect: SEED_FIRST must be a positive integer: '$SEED_FIRST'" >&2; exit 2 ;; esac
	seeds=$(seq "$SEED_FIRST" $((SEED_FIRST + RUNS - 1)))
	POLICIES=${POLICIES:-kernel defrag1 tuned pro100 fragd fragd-thpoff}
	if [ -z "${KERNELS:-}" ]; then
		KERNELS=
		for k in 7.3-stock 7.3-noretry; do
			[ -f "$(kernel_dir "$k")/vmlinux" ] && KERNELS="$KERNELS $k"
		done
	fi
	BUILDDIR=${BUILDDIR:-build}
	export BUILDDIR
	out=bench/out/effect-postgres-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$out"
	# shellcheck disable=SC2086 # a list of series
	make -s "BUILDDIR=$BUILDDIR" vm-pg-image FRAGD_VM_KERNELS="$KERNELS" >/dev/null
	tsv=$out/results.tsv
	cols="pg_compact pg_compact_usec wal_segments wal_zerofills compact_stall pgscan_kswapd compact_scanned pc_large_pct pc_bytes pc_orders tps"
	shown="pg_compact:postgres direct compactions,pg_compact_usec:their delay us,wal_segments:WAL segments entered,wal_zerofills:WAL segments zero-filled,compact_stall:compact_stall,pgscan_kswapd:kswapd pages scanned,compact_scanned:compaction pages scanned,pc_large_pct:page cache at order>=6 %,zerofill_o6_pct:zero-fill at order 6 %,tps:TPS (noisy)"
	results_header "$tsv" "postgres on XFS, pgbench -N, kernels$KERNELS${PG_ARGS:+, $PG_ARGS}" \
		"2 vCPU, 2 GiB, kernels$KERNELS, PostgreSQL 15 on XFS" kernel,policy "$shown"
	printf 'kernel\tpolicy\tseed\t%s\n' "$(echo "$cols" | tr ' ' '\t')" >>"$tsv"
	# one run; JOBS of them at a time (each guest takes 2 vCPUs and 2 GiB)
	pg_run() {
		local k=$1 policy=$2 i=$3 log=$out/$1-$2-$3.log args
		args=(policy="$policy" seed="$i")
		[ "$policy" != unfragmented ] || args=(policy=kernel fragment=0 seed="$i")
		# shellcheck disable=SC2086 # PG_ARGS is a list of KEY=VALUE words
		if ! vm_run "$log" -k "$k" -m 2G -L 512M -T "${PG_TIMEOUT:-1500}" -D 4G \
			-i "$BUILDDIR/vm/initramfs-xfsroot-$k.cpio.gz" -d "$BUILDDIR/vm/rootfs-pg.img" \
			postgres "${args[@]}" ${PG_ARGS:-}; then
			echo "effect: $k/$policy seed $i failed, see $log" >&2
			return 0
		fi
		echo "effect: $k/$policy seed $i: postgres direct compactions $(field "$log.result" pg_compact) in $(field "$log.result" wal_segments) WAL segments, compact_stall $(field "$log.result" compact_stall), kswapd scanned $(field "$log.result" pgscan_kswapd), order>=6 $(field "$log.result" pc_large_pct)%, tps $(field "$log.result" tps)" >&2
	}
	# seeds outermost: a matrix cut short still has every policy once
	for i in $seeds; do
		for k in $KERNELS; do
			for policy in $([ "${REFERENCE:-1}" = 0 ] || echo unfragmented) $POLICIES; do
				while [ "$(jobs -rp | wc -l)" -ge "${JOBS:-1}" ]; do sleep 5; done
				pg_run "$k" "$policy" "$i" &
			done
		done
	done
	wait
	for k in $KERNELS; do
		for policy in unfragmented $POLICIES; do
			for i in $seeds; do
				r=$out/$k-$policy-$i.log.result
				if [ -s "$r" ] && grep -q ' pg_compact=' "$r"; then
					row="$k	$policy	$i"
					for c in $cols; do row="$row	$(field "$r" "$c")"; done
					echo "$row" >>"$tsv"
				fi
			done
		done
	done
	bench/summarize.py "$tsv" --decimals --postgres-targets \
		--title "postgres on XFS, pgbench -N, up to $RUNS seeds each: median [min-max]" >"$out/summary.txt"
	cat "$out/summary.txt"
	echo "effect: results in $out" >&2
	exit 0
fi
RUNS=${RUNS:-3}
KERNEL=${KERNEL:-6.1}
POLICIES=${POLICIES:-kernel static-max tuned fragd}
MODES=${MODES:-never madvise}
VM_ARGS=${VM_ARGS:-}
BUILDDIR=${BUILDDIR:-build}
SHAPE=${SHAPE:-churn}
export BUILDDIR
case $SHAPE in
churn) out=bench/out/effect-$KERNEL-$(date +%Y%m%d-%H%M%S) ;;
phased) out=bench/out/effect-phased-$KERNEL-$(date +%Y%m%d-%H%M%S) ;;
*)
	echo "effect: SHAPE is churn or phased, not '$SHAPE'" >&2
	exit 2
	;;
esac
mkdir -p "$out"

make -s "BUILDDIR=$BUILDDIR" vm-initramfs >/dev/null
tests/vm/get-kernel.sh "$KERNEL" >/dev/null

if [ "$SHAPE" = phased ]; then
	POLICIES=${POLICIES_PHASED:-kernel static-max tuned fragd}
	tsv=$out/results.tsv
	cols="thp_pct huge requested huge_b1 huge_b2 scanned_b1 scanned_quiet scanned_b2 scanned_tail scanned held_max_mb held_avg_mb back_quiet_s back_tail_s compact_stall"
	results_header "$tsv" "phased, kernel $KERNEL${VM_ARGS:+, $VM_ARGS}" "2 GiB, Debian kernel $KERNEL" mode:defrag,policy \
		"thp_pct:huge pages %,scanned_b1:scanned burst 1,scanned_quiet:scanned quiet,scanned_b2:scanned burst 2,scanned_tail:scanned tail,scanned:scanned total,held_max_mb:held max MiB,held_avg_mb:held mean MiB,back_quiet_s:knobs back after burst 1 s,back_tail_s:knobs back after burst 2 s,compact_stall:compact_stall"
	printf 'mode\tpolicy\trun' >>"$tsv"
	for c in $cols; do printf '\t%s' "$c" >>"$tsv"; done
	echo >>"$tsv"
	for mode in $MODES; do
		for policy in $POLICIES; do
			for i in $(seq 1 "$RUNS"); do
				log=$out/$mode-$policy-$i.log
				# shellcheck disable=SC2086 # VM_ARGS is a list of KEY=VALUE words
				if ! vm_run "$log" -k "$KERNEL" -T "${PHASED_TIMEOUT:-1500}" phased policy="$policy" \
					defrag="$mode" seed="$i" $VM_ARGS; then
					echo "effect: $mode/$policy run $i failed, see $log" >&2
					continue
				fi
				r=$log.result
				printf '%s\t%s\t%s' "$mode" "$policy" "$i" >>"$tsv"
				for c in $cols; do printf '\t%s' "$(field "$r" "$c")" >>"$tsv"; done
				echo >>"$tsv"
				echo "effect: $mode/$policy run $i: $(field "$r" thp_pct)% huge, scanned $(field "$r" scanned)," \
					"held max $(field "$r" held_max_mb) MiB, knobs back $(field "$r" back_tail_s) s after the last burst" >&2
			done
		done
	done
	bench/summarize.py "$tsv" \
		--title "kernel $KERNEL, phased shape, $RUNS runs each: median [min-max]; knobs back -1 = not within the phase" \
		>"$out/summary.txt"
	cat "$out/summary.txt"
	if command -v gnuplot >/dev/null; then
		for mode in $MODES; do
			plot=() n=0
			for policy in $POLICIES; do
				log=$out/$mode-$policy-1.log
				[ -f "$log" ] || continue
				# "@@KNOBS policy=P t uptime held_pages knob=value ...": t, proactiveness, scale factor, held MiB
				sed -n 's/.*@@KNOBS policy=[^ ]* //p' "$log" | awk '{
					p = w = ""; for (i = 4; i <= NF; i++) {
						if ($i ~ /^vm\/compaction_proactiveness=/) { p = $i; sub(/.*=/, "", p) }
						if ($i ~ /^vm\/watermark_scale_factor=/) { w = $i; sub(/.*=/, "", w) } }
					print $1, p, w, $3 * 4 / 1024 }' >"$out/knobs-$mode-$policy.dat"
				plot+=("'$out/knobs-$mode-$policy.dat' using 1:2 with lines title '$policy proactiveness'")
				plot+=("'$out/knobs-$mode-$policy.dat' using 1:3 with lines dashtype 2 title '$policy watermark_scale_factor'")
				n=$((n + 1))
			done
			[ $n -gt 0 ] || continue
			plot_png "$out/knobs-$mode.png" 1000,500 \
				"knobs over time, phased shape, THP defrag=$mode, kernel $KERNEL" "" "${plot[@]}"
		done
	fi
	echo "effect: results in $out" >&2
	exit 0
fi

tsv=$out/results.tsv
results_header "$tsv" "churn, kernel $KERNEL${VM_ARGS:+, $VM_ARGS}" "2 GiB, Debian kernel $KERNEL" mode:defrag,policy \
	"thp_pct:huge pages %,compact_stall:compact_stall,scanned:pages scanned,scan_per_huge:scanned per huge page,psi_some_ms:PSI some ms,fragd_cpu_ms:fragd CPU ms"
printf 'mode\tpolicy\trun\tthp_pct\thuge\trequested\tcompact_stall\tscanned\tscan_per_huge\tpsi_some_ms\tfragd_cpu_ms\n' >>"$tsv"
for mode in $MODES; do
	for policy in $POLICIES; do
		for i in $(seq 1 "$RUNS"); do
			log=$out/$mode-$policy-$i.log
			# shellcheck disable=SC2086 # VM_ARGS is a list of KEY=VALUE words
			if ! vm_run "$log" -k "$KERNEL" -T 240 churn policy="$policy" defrag="$mode" seed="$i" $VM_ARGS; then
				echo "effect: $mode/$policy run $i failed, see $log" >&2
				continue
			fi
			r=$log.result
			huge=$(field "$r" huge) req=$(field "$r" requested) scanned=$(field "$r" scanned)
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$policy" "$i" \
				"$(field "$r" thp_pct)" "$huge" "$req" "$(field "$r" compact_stall)" "$scanned" \
				"$(awk -v s="$scanned" -v h="$huge" 'BEGIN { printf "%.0f", (h > 0 ? s / h : 0) }')" \
				"$(field "$r" psi_some_ms)" "$(field "$r" fragd_cpu_ms)" >>"$tsv"
			echo "effect: $mode/$policy run $i: $(field "$r" thp_pct)% huge, stall $(field "$r" compact_stall), scanned $scanned" >&2
		done
	done
done

# median [min-max] per mode and policy
bench/summarize.py "$tsv" --title "kernel $KERNEL, $RUNS runs each: median [min-max]" >"$out/summary.txt"
cat "$out/summary.txt"

# plot: free memory in order>=9 blocks over time, first run of each policy
if command -v gnuplot >/dev/null; then
	for mode in $MODES; do
		plot=() n=0
		for policy in $POLICIES; do
			log=$out/$mode-$policy-1.log
			[ -f "$log" ] || continue
			sed -n 's/.*@@SERIES policy=[^ ]* defrag=[^ ]* \([0-9.]*\) \([0-9]*\).*/\1 \2/p' "$log" \
				| awk 'NR == 1 { t0 = $1 } { print $1 - t0, $2 }' >"$out/series-$mode-$policy.dat"
			plot+=("'$out/series-$mode-$policy.dat' using 1:2 with linespoints title '$policy'")
			n=$((n + 1))
		done
		[ $n -gt 0 ] || continue
		plot_png "$out/free-order9-$mode.png" 900,500 \
			"free memory in order>=9 blocks, churn, THP defrag=$mode, kernel $KERNEL" MiB "${plot[@]}"
	done
fi
echo "effect: results in $out" >&2
