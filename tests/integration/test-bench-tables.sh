#!/bin/bash
# bench/tables.py, which renders bench/README.md's and README.md's tables from
# bench/results/: on a small tree whose medians are worked out by hand, --write
# fills the marked tables, --check passes on what --write made and fails (with
# a diff, exit 1) when a committed table or a result differs; a results file
# without its command/commit/machine header, one shown nowhere, an unknown or
# unclosed marker are refused by name (exit 2). Last, the tree's own tables
# are checked as make check-unit does.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
TEST_TAG=bench-tables
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"
S=$FRAGD_SRCDIR/bench/tables.py

# a tree of its own: the generator, summarize.py beside it, the result files
# the proof tables name (rows worked by hand), and the two documents
R=$work/tree
mkdir -p "$R/bench/results"
cp "$S" "$FRAGD_SRCDIR/bench/summarize.py" "$R/bench/"
T=$R/bench/tables.py
header() { # header FILE TITLE GROUP COLUMNS
	printf '# title: %s\n# command: bench/effect.sh\n# commit: abc1234\n# machine: 2 vCPU, qemu\n# date: 2026-01-01\n# group: %s\n# columns: %s\n' \
		"$2" "$3" "$4" >"$1"
}
names=$(python3 -c "
import sys; sys.path.insert(0, '$R/bench'); import tables
print(' '.join(sorted({n for spec in tables.PROOF.values() for n, _, _, _ in spec})))")
for n in $names; do
	f=$R/bench/results/$n.tsv
	header "$f" "T $n" mode,policy "thp_pct:huge %,scanned:scanned"
	{
		printf 'mode\tpolicy\tseed\tthp_pct\tscanned\tscan_per_huge\tcompact_stall\tpg_compact\tpgscan_kswapd\tcompact_scanned\tpc_orders\n'
		printf 'never\tfragd\t1\t90\t300000\t1\t2\t0\t100\t5\to3:10,o6:90\n'
		printf 'never\tfragd\t2\t100\t100000\t1\t2\t0\t100\t5\to3:30,o6:70\n'
		printf 'never\tfragd\t3\t95\t\t1\t2\t0\t100\t5\t\n'
		printf 'never\ttuned\t1\t80\t-\t1\t2\t0\t100\t5\t\n'
		printf 'madvise\tkernel\t1\t7.25\t12345678\t1\t2\t0\t100\t5\t\n'
	} >>"$f"
done
first=${names%% *}
{
	echo "# bench"
	for n in $names; do printf '<!-- tables.py: %s -->\nstale\n<!-- tables.py end -->\n\n' "$n"; done
} >"$R/bench/README.md"
printf '# fragd\n<!-- tables.py: proof-6.1 -->\n<!-- tables.py end -->\ntext\n<!-- tables.py: proof-6.12 -->\n<!-- tables.py end -->\n' >"$R/README.md"

if python3 "$T" --root "$R" --check >"$work/out" 2>&1; then
	bad "--check passed on stale tables: $(cat "$work/out")"
else
	rc=$?
	if [ $rc = 1 ] && grep -q '^-stale' "$work/out" && grep -q 'run bench/tables.py --write' "$work/out"; then
		pass "--check fails (exit 1) on a stale table, with the diff and what to run"
	else
		bad "stale tables: exit $rc, $(head -c 600 "$work/out")"
	fi
fi
python3 "$T" --root "$R" --write >/dev/null 2>&1
if python3 "$T" --root "$R" --check >"$work/out" 2>&1; then pass "--check passes on what --write made"; else
	bad "--check after --write: $(cat "$work/out")"
fi

# medians and ranges by hand: huge 90/100/95 -> 95 [90-100]; scanned 300 k,
# 100 k, '' -> 200 k [100 k-300 k]; tuned one run, '-' no value; 7.25 one
# decimal; 12345678 -> 12.35 M
want="| never | fragd | 3 | 95 [90–100] | 200 k [100 k–300 k] |
| never | tuned | 1 | 80 | – |
| madvise | kernel | 1 | 7.2 | 12.35 M |"
got=$(sed -n "/tables.py: $first -->/,/tables.py end/p" "$R/bench/README.md" | grep '^| \(never\|madvise\) ')
if [ "$got" = "$want" ]; then pass "a results table: medians, ranges, no-value cells and units as worked by hand"; else
	bad "results table differs: $(diff <(echo "$want") <(echo "$got") | tr '\n' ' ')"
fi
for k in command commit machine; do
	grep -q "^- $k: " "$R/bench/README.md" || bad "the table does not show its $k"
done
pass "each table shows its command, commit and machine"
# the proof: medians only; the zero-fill share at order 6 of orders 3-6 is
# 90 % and 70 %, median 80; fragd's column before the results link
if grep -q '^| churn, defrag=never: huge pages % |.*| 95 | \[churn-6.1\](bench/results/churn-6.1.tsv) |$' "$R/README.md" &&
	grep -q '^| NORETRY, pinned memory: WAL zero-fill at order 6 % |.*| 80 | ' "$R/README.md" &&
	grep -q '^text$' "$R/README.md"; then
	pass "README.md's proof: medians per policy, derived zero-fill share, text between tables kept"
else
	bad "proof tables: $(grep -A4 'proof-6.1' "$R/README.md" | tr '\n' ' ')"
fi

expect_refused() { # expect_refused WHAT PATTERN: --check exits 2 naming the fault
	local rc
	python3 "$T" --root "$R" --check >"$work/out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$2" "$work/out"; then pass "$1 refused: $(head -1 "$work/out")"; else
		bad "$1: exit $rc, $(head -c 400 "$work/out")"
	fi
}
# a changed result makes the committed table stale
f=$R/bench/results/$first.tsv
cp "$f" "$work/keep.tsv"
sed -i 's/^never\tfragd\t1\t90\t/never\tfragd\t1\t10\t/' "$f"
if python3 "$T" --root "$R" --check >"$work/out" 2>&1; then bad "--check passed after a result changed"; else
	if grep -q '^+| never | fragd | 3 | 95 \[10–100\]' "$work/out"; then pass "a changed result fails --check, the new row in the diff"; else
		bad "changed result: $(head -c 600 "$work/out")"
	fi
fi
for k in command commit machine; do
	grep -v "^# $k:" "$work/keep.tsv" >"$f"
	expect_refused "a results file without '# $k:'" "bench/results/$first.tsv: no '# $k:' header line"
done
{ cat "$work/keep.tsv"; printf 'never\tfragd\t9\n'; } >"$f"
expect_refused "a row with too few fields" "bench/results/$first.tsv:.*3 fields, the header has 11"
cp "$work/keep.tsv" "$f"
cp "$f" "$R/bench/results/zz-new.tsv"
expect_refused "a results file shown nowhere" "zz-new.tsv is shown nowhere"
rm "$R/bench/results/zz-new.tsv"
cp "$R/README.md" "$work/readme"
echo '<!-- tables.py: nosuch -->' >>"$R/README.md"
expect_refused "an unknown table name" "README.md:.*no table 'nosuch'"
cp "$work/readme" "$R/README.md"
printf '<!-- tables.py: proof-6.1 -->\nno end\n' >>"$R/README.md"
expect_refused "a marker without its end" "has no '<!-- tables.py end -->' line"
cp "$work/readme" "$R/README.md"
if python3 "$T" --root "$R" --check >/dev/null 2>&1; then pass "restored tree passes again"; else bad "restored tree fails"; fi

# one setting under two shapes' names (churn's static-max, postgres' pro100:
# compaction_proactiveness 100) is one column of a proof table, each row
# taking the rows it has
printf 'never\tstatic-max\t1\t67\t5\t1\t2\t0\t100\t5\t\n' >>"$R/bench/results/churn-7.3.tsv"
printf 'never\tpro100\t1\t50\t7\t1\t2\t0\t100\t5\t\n' >>"$R/bench/results/postgres-7.3-wal.tsv"
printf '<!-- tables.py: proof-7.3 -->\n<!-- tables.py end -->\n' >>"$R/README.md"
python3 "$T" --root "$R" --write >/dev/null 2>&1
hdr=$(sed -n '/tables.py: proof-7.3 -->/{n;p}' "$R/README.md")
if [ "$(grep -o 'proactiveness 100' <<<"$hdr" | wc -l)" = 1 ] &&
	grep -q '^| churn, defrag=never: huge pages % |  | 67 | 80 | 95 | \[churn-7.3\]' "$R/README.md"; then
	pass "static-max and pro100 share the proactiveness 100 column of a proof table"
else
	bad "proof columns: $hdr / $(grep '^| churn, defrag=never: huge' "$R/README.md" | tr '\n' ' ')"
fi

# the checkout's own tables, as make check-unit checks them
if python3 "$S" --check >"$work/out" 2>&1; then pass "this tree's bench/README.md and README.md match bench/results/"; else
	bad "this tree's tables are stale: $(head -c 800 "$work/out")"
fi
finish
