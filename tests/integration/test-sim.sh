#!/bin/bash
# fragd-sim replays tests/fixtures/trace-vm-6.1-2node (fresh -> fragmented ->
# fragmented -> compacted, 30 s apart) and prints a decision timeline; this
# checks the timeline, not just that it runs: nothing on the fresh snapshot,
# proactiveness raised to its aim while the reserve is short (thp-max), then
# kcompactd kicked at that value, not raised further (docs/policy.md "Kicks
# and the aim": the aim for score 94 is 16, the preset's floor 20), nothing raised
# once compaction restored it, the reasons printed, observe = database,
# timestamps vs -i, and the exit codes.
set -euo pipefail
: "${BUILDDIR:?}" "${FRAGD_SRCDIR:?}"
SIM=$BUILDDIR/fragd-sim
TRACE=$FRAGD_SRCDIR/tests/fixtures/trace-vm-6.1-2node
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad() { echo "FAIL sim: $*"; fail=1; }

# "NNNN<TAB>line" for every decision line, attributed to its snapshot
decisions() {
	awk '/^ *[+-][0-9.]+s [0-9]+ / { snap = $2; next }
	     /^           [^ ]/ && snap != "" { sub(/^ +/, ""); print snap "\t" $0 }' "$1"
}

run() { # out-file args...
	local out=$1; shift
	if ! "$SIM" "$@" >"$out" 2>"$out.err"; then
		bad "fragd-sim $*: exit $?: $(head -c 500 "$out.err")"; return 1
	fi
	[ -s "$out.err" ] && bad "fragd-sim $*: stderr: $(head -c 500 "$out.err")"
	return 0
}

# --- thp-max: the fragmented reserve (54 MiB on node 1) is under its 97 MiB target
if run "$tmp/thp" -p thp-max "$TRACE"; then
	decisions "$tmp/thp" >"$tmp/thp.d"
	grep -q "preset thp-max" "$tmp/thp" || bad "thp-max: no header"
	grep -q "4 of 4 snapshots replayed" "$tmp/thp" || bad "thp-max: README.md taken for a snapshot, or one skipped"
	grep -q "^0001" "$tmp/thp.d" && bad "thp-max: a decision on the fresh snapshot: $(grep '^0001' "$tmp/thp.d")"
	grep -q "^0002	raise compaction_proactiveness 0→20: node 1 has 54 MiB free in order>=9 blocks, target 97 MiB.* \[reserve_below_target\]$" \
		"$tmp/thp.d" || bad "thp-max: no raise when the trace fragments: $(cat "$tmp/thp.d")"
	grep -q "^0003	kick kcompactd (rewrite compaction_proactiveness=20): node 1 has 54 MiB free in order>=9 blocks, target 97 MiB.* \[kcompactd_kick\]$" \
		"$tmp/thp.d" || bad "thp-max: no kick at the aim after the dwell: $(cat "$tmp/thp.d")"
	grep -q "^0003	raise" "$tmp/thp.d" && bad "thp-max: raised past the aim while kicking: $(grep '^0003' "$tmp/thp.d")"
	# the window still holds the fall; the recency guard keeps it from a raise
	grep -q "^0004	raise" "$tmp/thp.d" && bad "thp-max: a raise after the compaction: $(grep '^0004' "$tmp/thp.d")"
	grep -q "final: compaction_proactiveness=20 .*thp_defrag=madvise" "$tmp/thp" ||
		bad "thp-max: final values: $(tail -1 "$tmp/thp")"
	# every decision line names its reason
	while IFS=$'\t' read -r snap line; do
		[[ $line =~ \[[a-z_]+\]$ ]] || bad "thp-max $snap: no reason code: $line"
	done <"$tmp/thp.d"
fi

# --- database with -a (reserve_always = yes): said in the header; on
# this trace, no fallback, no stall, the database preset keeps no reserve
# without -a (the -v state lines show the targets: 0 B without it)
if run "$tmp/dba" -a -v "$TRACE" && run "$tmp/dbn" -v "$TRACE"; then
	grep -q "preset database, reserve_always = yes$" "$tmp/dba" || bad "-a: not in the header: $(head -1 "$tmp/dba")"
	grep -q "reserve_always" "$tmp/dbn" && bad "without -a: reserve_always in the header: $(head -1 "$tmp/dbn")"
	grep -q "^ *+30.0s 0002  node0 o>=4 135/19 MiB o>=9 100/39 MiB " "$tmp/dba" || bad "-a: not the configured targets: $(sed -n 3p "$tmp/dba")"
	grep -q "^ *+30.0s 0002  node0 o>=4 135/0 MiB o>=9 100/0 MiB " "$tmp/dbn" || bad "without -a: a target without demand: $(sed -n 3p "$tmp/dbn")"
fi

# --- database (default): no fallback or stall, so no reserve (0 B targets); a one-off drop is not a trend
if run "$tmp/db" -v "$TRACE"; then
	decisions "$tmp/db" >"$tmp/db.d"
	grep -q "preset database" "$tmp/db" || bad "database: not the default preset"
	[ "$(grep -c '^ *[+-][0-9.]*s [0-9]* ' "$tmp/db")" -eq 4 ] || bad "database -v: not one state line per snapshot"
	grep -Eq '^ +\+0\.0s 0001 .* met$' "$tmp/db" || bad "database: the fresh snapshot is not 'met'"
	grep -q "raise" "$tmp/db.d" && bad "database: a raise: $(grep raise "$tmp/db.d")"
	grep -Eq '^ +\+90\.0s 0004 .*node1 .*o>=9 1052/0 MiB score 39 \(\+[0-9.]+ MiB/s\)' "$tmp/db" ||
		bad "database: the compacted snapshot: $(grep ' 0004 ' "$tmp/db")"
fi

# --- observe is database's values: the same timeline, nothing applied
if run "$tmp/ob" -v -p observe "$TRACE"; then
	diff <(tail -n +2 "$tmp/db") <(tail -n +2 "$tmp/ob") >/dev/null || bad "observe and database differ"
fi
if run "$tmp/ob2" -p observe "$TRACE"; then :; fi

# --- no timestamps: -i gives the spacing
cp -r "$TRACE" "$tmp/trace"
rm "$tmp"/trace/*/timestamp
if run "$tmp/thp-i" -p thp-max -i 30 "$tmp/trace"; then
	diff <(tail -n +2 "$tmp/thp") <(tail -n +2 "$tmp/thp-i") >/dev/null ||
		bad "-i 30 without timestamps differs from the timestamps: $(diff "$tmp/thp" "$tmp/thp-i" | head -5)"
fi

# --- errors
set +e
"$SIM" "$tmp/nonexistent" >/dev/null 2>&1; [ $? -eq 1 ] || bad "a missing trace does not exit 1"
mkdir "$tmp/empty"
"$SIM" "$tmp/empty" >/dev/null 2>&1; [ $? -eq 1 ] || bad "an empty trace does not exit 1"
"$SIM" -p nope "$TRACE" >/dev/null 2>&1; [ $? -eq 2 ] || bad "an unknown preset does not exit 2"
"$SIM" -i 0 "$TRACE" >/dev/null 2>&1; [ $? -eq 2 ] || bad "-i 0 does not exit 2"
"$SIM" >/dev/null 2>&1; [ $? -eq 2 ] || bad "no TRACE_DIR does not exit 2"
set -e

if [ $fail -eq 0 ]; then
	echo "PASS sim: $(grep -c . "$tmp/thp.d") thp-max decisions; timeline:"
	sed 's/^/  /' "$tmp/thp"
fi
exit $fail
