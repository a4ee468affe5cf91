#!/bin/bash
# bench/scan-attribution.py, which splits a postgres guest run's compaction
# scanning into the sample intervals with a one-shot, those at a raised
# compaction_proactiveness and the rest: on a small log worked out by hand
# (the guest's uptime lags the log's stamps by 1 s; pgbench starts at uptime
# 100, between the samples at 95 and 105), each part, the run's total, the
# one-shots counted from the run's start only, the TSV it appends; a log
# without samples is refused by name.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
TEST_TAG=bench-scan
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"
S=$FRAGD_SRCDIR/bench/scan-attribution.py

# samples (uptime, scanned): 95 1000, 105 1500, 115 3500, 125 4000, 135 9000, 145 9100.
# fragd: a one-shot at 60 (before the run: not counted), a raise 20->40 at
# 110 (the interval 105-115 starts at 20: start; 115-125 and 125-135 at 40:
# raised, but a one-shot at 130 puts 125-135 under one-shot), a roll back
# to 20 at 140 (135-145 starts at 40: raised).
L=$work/7.3-stock-fragd-2.log
cat >"$L" <<'EOF'
[   3.00] Booting from ROM..@@INIT uptime=2.00 kernel=7.3.4-fragd
[ 101.00] [postgres] pgbench -N -T 45 -c 8 -j 2 --random-seed=2; free 485 MiB
[ 200.00] sample: 95.00 free=100 o6=1 o9=0 stall=0 scanned=1000 kswapd=0
[ 200.00] sample: 105.00 free=100 o6=1 o9=0 stall=0 scanned=1500 kswapd=0
[ 200.00] sample: 115.00 free=100 o6=1 o9=0 stall=0 scanned=3500 kswapd=0
[ 200.00] sample: 125.00 free=100 o6=1 o9=0 stall=0 scanned=4000 kswapd=0
[ 200.00] sample: 135.00 free=100 o6=1 o9=0 stall=0 scanned=9000 kswapd=0
[ 200.00] sample: 145.00 free=100 o6=1 o9=0 stall=0 scanned=9100 kswapd=0
[ 201.00] journal: [   60.000000] fragd-vm fragd[345]: compact node 0 now: 5 MiB free in order>=6 blocks is under the 19 MiB target
[ 201.00] journal: [  110.000000] fragd-vm fragd[345]: raise compaction_proactiveness 20→40: direct compaction stalls 0.98/s, target 0.50/s
[ 201.00] journal: [  130.000000] fragd-vm fragd[345]: compact node 0 now: 7 MiB free in order>=6 blocks is under the 19 MiB target
[ 201.00] journal: [  140.000000] fragd-vm fragd[345]: roll back compaction_proactiveness 40→20: memory full pressure rose
EOF
out=$(python3 "$S" --build abc1234 --tsv "$work/scan.tsv" "$L" 2>&1)
rc=$?
want="$L: run 8100, one-shots 1, in their intervals 5000, at raised proactiveness 600, at the start value 2500"
if [ $rc -eq 0 ] && [ "$out" = "$want" ]; then pass "the parts of a hand-worked log: $out"; else
	bad "the parts (exit $rc): '$out', wanted '$want'"
fi
want=$(printf 'build\tkernel\tpolicy\tseed\tcompact_scanned\toneshots\tscan_oneshot\tscan_raised\tscan_start\nabc1234\t7.3-stock\tfragd\t2\t8100\t1\t5000\t600\t2500')
if [ "$(cat "$work/scan.tsv")" = "$want" ]; then pass "the TSV: a header, then the row"; else
	bad "the TSV: '$(cat "$work/scan.tsv")'"
fi
# appended to, the header not repeated
python3 "$S" --build abc1234 --tsv "$work/scan.tsv" "$L" >/dev/null 2>&1
if [ "$(grep -c '^build' "$work/scan.tsv")" = 1 ] && [ "$(wc -l <"$work/scan.tsv")" = 3 ]; then
	pass "a second run appends its row under the one header"
else
	bad "appended: $(cat "$work/scan.tsv")"
fi
# a kernel-defaults log: no fragd, all at the start value
K=$work/7.3-stock-kernel-2.log
grep -v journal: "$L" >"$K"
out=$(python3 "$S" "$K" 2>&1)
if [ "$out" = "$K: run 8100, one-shots 0, in their intervals 0, at raised proactiveness 0, at the start value 8100" ]
then pass "without fragd every interval is at the start value"; else bad "kernel log: '$out'"; fi
# no samples: refused, named
E=$work/7.3-stock-fragd-3.log
grep -v sample: "$L" >"$E"
out=$(python3 "$S" "$E" 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "$E: no samples or no run start" ]; then pass "a log without samples is refused: $out"; else
	bad "no samples (exit $rc): '$out'"
fi
finish
