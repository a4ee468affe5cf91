#!/bin/bash
# bench/summarize.py, the one table maker of bench/effect.sh's shapes: a small
# TSV whose medians and ranges are worked out by hand, the one-run cell
# without a range, '-' and '' as no value, the grouping labels, the
# postgres target ratios, and a missing column refused by name.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
TEST_TAG=bench-summary
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"
S=$FRAGD_SRCDIR/bench/summarize.py

printf 'mode\tpolicy\trun\thuge\tscanned\n' >"$work/c.tsv"
printf 'never\tfragd\t1\t90\t300\nnever\tfragd\t2\t100\t100\nnever\tfragd\t3\t95\t\n' >>"$work/c.tsv"
printf 'never\ttuned\t1\t80\t-\nmadvise\tfragd\t1\t7.25\t5\n' >>"$work/c.tsv"
out=$(python3 "$S" "$work/c.tsv" --group mode:defrag,policy --title T --cols "huge:huge %,scanned:scanned" 2>&1)
want='T

| defrag | policy | runs | huge % | scanned |
|---|---|---:|---:|---:|
| never | fragd | 3 | 95 [90-100] | 200 [100-300] |
| never | tuned | 1 | 80 | - |
| madvise | fragd | 1 | 7 | 5 |'
if [ "$out" = "$want" ]; then pass "medians, ranges, no-value cells and group labels as worked by hand"; else
	bad "table differs: $(diff <(echo "$want") <(echo "$out") | tr '\n' ' ')"
fi
out=$(python3 "$S" "$work/c.tsv" --group mode,policy --title T --cols "huge:h" --decimals 2>&1)
case $out in *"| madvise | fragd | 1 | 7.2 |"* | *"| madvise | fragd | 1 | 7.3 |"*) pass "--decimals keeps one decimal under 10" ;;
*) bad "--decimals: $out" ;; esac

printf 'kernel\tpolicy\tseed\tpg_compact\tpgscan_kswapd\tcompact_scanned\tpc_large_pct\n' >"$work/p.tsv"
printf '6.12\tkernel\t1\t100\t1000\t0\t20\n6.12\tkernel\t2\t0\t3000\t0\t30\n' >>"$work/p.tsv"
printf '6.12\tfragd\t1\t0\t100\t400\t45\n6.12\tpro100\t1\t5\t900\t1600\t40\n6.12\tunfragmented\t1\t0\t0\t0\t50\n' >>"$work/p.tsv"
out=$(python3 "$S" "$work/p.tsv" --group kernel,policy --title T --cols "pg_compact:pg" --postgres-targets 2>&1)
# kernel medians: pg 50, kswapd 2000, share 25; fragd/kernel kswapd 100/2000 = 5 %,
# fragd/pro100 scanned 400/1600 = 25 %, shares 45/50 = 90 %, 25/50 = 50 %
case $out in *"postgres direct compactions fragd 0.0, kernel 50.0; kswapd scanned fragd/kernel 5 %; compaction scanned fragd/pro100 25 %; order>=6 share fragd/unfragmented 90 %, kernel/unfragmented 50 %, fragd-thpoff/unfragmented -"*)
	pass "postgres targets: the ratios worked by hand" ;;
*) bad "postgres targets: $out" ;; esac

# per WAL segment entered: kernel 100/2 = 50 and 0/3 = 0 (median 25.0),
# fragd 3/3 = 1, a run without its count (-) and one with none entered left out
printf 'kernel\tpolicy\tseed\tpg_compact\twal_segments\tpgscan_kswapd\tcompact_scanned\tpc_large_pct\n' >"$work/w.tsv"
printf '6.12\tkernel\t1\t100\t2\t1\t1\t1\n6.12\tkernel\t2\t0\t3\t1\t1\t1\n' >>"$work/w.tsv"
printf '6.12\tfragd\t1\t3\t3\t1\t1\t1\n6.12\tfragd\t2\t50\t-\t1\t1\t1\n6.12\tfragd\t3\t9\t0\t1\t1\t1\n' >>"$work/w.tsv"
out=$(python3 "$S" "$work/w.tsv" --group kernel,policy --title T --cols "pg_compact:pg" --postgres-targets 2>&1)
case $out in *"; per WAL segment entered fragd 1.0, kernel 25.0"*) pass "postgres targets: direct compactions per WAL segment" ;;
*) bad "per WAL segment: $out" ;; esac
case $(python3 "$S" "$work/p.tsv" --group kernel,policy --title T --cols "pg_compact:pg" --postgres-targets 2>&1) in
*"per WAL segment"*) bad "per WAL segment without the column" ;;
*) pass "no per-segment figure without a wal_segments column" ;; esac

# per WAL segment zero-filled (fragd 6/2 = 3, kernel 40/1 = 40) and the
# zero-fill's share at order 6 of orders 3-6: fragd 80/(10+10+0+80) = 80 %
# (order 1 left out), unfragmented 95/(5+95) = 95 %, kernel none at 3-6
# (no value): fragd/unfragmented 84 %
printf 'kernel\tpolicy\tseed\tpg_compact\twal_zerofills\tpgscan_kswapd\tcompact_scanned\tpc_large_pct\tpc_orders\n' >"$work/z.tsv"
printf '6.12\tfragd\t1\t6\t2\t1\t1\t1\to1:100,o3:10,o4:10,o5:0,o6:80\n' >>"$work/z.tsv"
printf '6.12\tkernel\t1\t40\t1\t1\t1\t1\to0:7,o1:9\n' >>"$work/z.tsv"
printf '6.12\tunfragmented\t1\t0\t2\t1\t1\t1\to3:5,o6:95\n' >>"$work/z.tsv"
out=$(python3 "$S" "$work/z.tsv" --group kernel,policy --title T --cols "pg_compact:pg" --postgres-targets 2>&1)
case $out in *"; per WAL segment zero-filled fragd 3.0, kernel 40.0; zero-fill at order 6 of orders 3-6 fragd 80.0 %, unfragmented 95.0 % (fragd/unfragmented 84 %, kernel/unfragmented -)"*)
	pass "postgres targets: per segment zero-filled and the zero-fill's share at order 6, worked by hand" ;;
*) bad "zero-fill figures: $out" ;; esac

if out=$(python3 "$S" "$work/c.tsv" --group mode,nosuch --title T --cols "huge:h" 2>&1); then
	bad "a missing column was accepted: $out"
else
	case $out in *"no column nosuch"*) pass "a missing column is refused by name" ;; *) bad "missing column: $out" ;; esac
fi
finish
