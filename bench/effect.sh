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
#
# Output: bench/out/effect-<kernel>-<time>/{summary.txt,results.tsv,*.log,free-order9-<mode>.png}
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
KERNEL=${KERNEL:-6.1}
POLICIES=${POLICIES:-kernel static-max tuned fragd}
MODES=${MODES:-never madvise}
VM_ARGS=${VM_ARGS:-}
BUILDDIR=${BUILDDIR:-build}
export BUILDDIR
out=bench/out/effect-$KERNEL-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"

make -s "BUILDDIR=$BUILDDIR" vm-initramfs >/dev/null
tests/vm/get-kernel.sh "$KERNEL" >/dev/null

tsv=$out/results.tsv
printf 'mode\tpolicy\trun\tthp_pct\thuge\trequested\tcompact_stall\tscanned\tscan_per_huge\tpsi_some_ms\tfragd_cpu_ms\n' >"$tsv"
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$1" | tail -n 1; }
for mode in $MODES; do
	for policy in $POLICIES; do
		for i in $(seq 1 "$RUNS"); do
			log=$out/$mode-$policy-$i.log
			# shellcheck disable=SC2086 # VM_ARGS is a list of KEY=VALUE words
			if ! tests/vm/run.sh -k "$KERNEL" -T 240 -l "$log" churn policy="$policy" defrag="$mode" seed="$i" $VM_ARGS \
				>/dev/null 2>&1; then
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
python3 - "$tsv" "$KERNEL" "$RUNS" >"$out/summary.txt" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
cols = [("thp_pct", "huge pages %"), ("compact_stall", "compact_stall"), ("scanned", "pages scanned"),
        ("scan_per_huge", "scanned/huge page"), ("psi_some_ms", "PSI some ms"), ("fragd_cpu_ms", "fragd CPU ms")]
def cell(vals):
    v = sorted(float(x) for x in vals if x not in ("", None))
    if not v: return "-"
    f = lambda x: f"{x:.0f}"
    return f"{f(statistics.median(v))} [{f(v[0])}-{f(v[-1])}]"
print(f"kernel {sys.argv[2]}, {sys.argv[3]} runs each: median [min-max]\n")
print("| defrag | policy | runs | " + " | ".join(c[1] for c in cols) + " |")
print("|---|---|---:|" + "---:|" * len(cols))
seen = []
for r in rows:
    k = (r["mode"], r["policy"])
    if k not in seen: seen.append(k)
for mode, pol in seen:
    rs = [r for r in rows if (r["mode"], r["policy"]) == (mode, pol)]
    print(f"| {mode} | {pol} | {len(rs)} | " + " | ".join(cell([r[c] for r in rs]) for c, _ in cols) + " |")
PY
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
		gnuplot <<-GP
		set terminal pngcairo size 900,500 noenhanced
		set output '$out/free-order9-$mode.png'
		set title 'free memory in order>=9 blocks, churn, THP defrag=$mode, kernel $KERNEL'
		set xlabel 'seconds since the policy took over'
		set ylabel 'MiB'
		set key outside right
		set grid
		plot $(IFS=,; echo "${plot[*]}")
		GP
	done
fi
echo "effect: results in $out" >&2
