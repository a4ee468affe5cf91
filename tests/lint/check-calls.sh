#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-calls.sh OBJ...: no two objects of libfragd.a call each other,
# directly or in a loop (docs/design.md "Layout": a split is by purpose, so
# the call graph between files is a DAG). check-calls.sh --self-test: the
# checker fails on objects that call each other (so a pass is not vacuous).
#
# The graph is built from nm: an object A points at B when A leaves a symbol
# undefined (U, w) that B defines (any global: functions and data). Every
# strongly connected component of two or more objects is a circle; each is
# reported with the edges inside it and the symbols on each edge.
# EXCEPTIONS below lists circles that exist today, one line per circle (its
# objects, sorted, as "folder/file.o"), each with the reason; the check fails
# when one no longer occurs, so the list only shrinks.
set -u
NM=${NM:-nm}
EXCEPTIONS="
"
# (none: the last, config/'s, went with issue 12's config/ work)

# graph OBJ...: prints "edge A B SYM" lines, one per symbol A needs from B
graph() {
	"$NM" -A -P "$@" 2>/dev/null | awk '
	{
		f = $1; sub(/:$/, "", f); sym = $2; t = $3
		if (t == "U" || t == "w") { need[f, sym] = 1; nneed[f] = 1; next }
		if (t ~ /^[A-TV-Z]$/) def[sym] = f
	}
	END {
		for (k in need) {
			split(k, p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1])
				print "edge", p[1], def[p[2]], p[2]
		}
	}' | LC_ALL=C sort -u
}

# circles < edges: one "circle A B C" line per strongly connected component
# of two or more objects, then its "in A B SYM[,SYM...]" edges
circles() {
	awk '
	$1 == "edge" {
		if (($2, $3) in e) { e[$2, $3] = e[$2, $3] "," $4 }
		else { e[$2, $3] = $4; adj[$2] = adj[$2] " " $3 }
		node[$2] = 1; node[$3] = 1
	}
	function reach(s,   q, h, n, i, a, c) {   # r[s, x] for every x reachable from s
		q[1] = s; h = 1; n = 1
		while (h <= n) {
			c = split(adj[q[h]], a, " ")
			for (i = 1; i <= c; i++)
				if (!((s, a[i]) in r)) { r[s, a[i]] = 1; q[++n] = a[i] }
			h++
		}
	}
	END {
		for (x in node) reach(x)
		for (x in node) {
			if (x in done) continue
			m = ""
			for (y in node)
				if (x == y ? ((x, x) in r) : (((x, y) in r) && ((y, x) in r))) {
					m = m " " y; done[y] = 1
				}
			if (split(m, parts, " ") < 2) continue
			print "circle" m
			for (i in parts) for (j in parts)
				if (i != j && ((parts[i], parts[j]) in e))
					print "in", parts[i], parts[j], e[parts[i], parts[j]]
		}
	}'
}

# check OBJ...: FAIL lines for every circle not excepted, and for stale
# exceptions; rc 1 on any
check() {
	out=$(graph "$@" | circles)
	fail=0
	seen=""
	cur=""
	report=$(printf '%s\n' "$out" | while read -r kind a b syms; do
		case $kind in
		circle)
			set -- $a $b $syms
			cur=$(for o in "$@"; do echo "${o#*daemon/}"; done | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
			if printf '%s\n' "$EXCEPTIONS" | grep -qxF "$cur"; then
				echo "EXCEPTION $cur"
				exc=1
			else
				echo "FAIL calls: these objects call each other in a loop: $cur"
				exc=0
			fi
			;;
		in)
			[ "$exc" = 1 ] || echo "FAIL calls:   ${a#*daemon/} -> ${b#*daemon/}: $syms"
			;;
		esac
	done)
	printf '%s\n' "$report" | grep '^FAIL' && fail=1
	stale=$(printf '%s\n' "$EXCEPTIONS" | while read -r line; do
		[ -n "$line" ] || continue
		printf '%s\n' "$report" | grep -qxF "EXCEPTION $line" ||
			echo "FAIL calls: the exception '$line' no longer occurs: remove it from $0"
	done)
	[ -z "$stale" ] || { printf '%s\n' "$stale"; fail=1; }
	return $fail
}

self_test() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	CC=${CC:-cc}
	bad=0
	mkdir -p "$tmp/daemon/x"
	obj() { # obj NAME 'C source': compiles daemon/x/NAME.o
		printf '%s\n' "$2" >"$tmp/daemon/x/$1.c"
		"$CC" -c -o "$tmp/daemon/x/$1.o" "$tmp/daemon/x/$1.c" || exit 1
	}
	# a -> b -> a: a direct circle
	obj a 'int b1(void); int a1(void) { return b1(); } int a2(void) { return 2; }'
	obj b 'int a2(void); int b1(void) { return a2(); }'
	if EXCEPTIONS="" check "$tmp/daemon/x/a.o" "$tmp/daemon/x/b.o" >/dev/null; then
		echo "FAIL calls self-test: a.o <-> b.o passed"
		bad=1
	fi
	# a -> b -> c -> a through data: a loop
	obj a 'int b1(void); int a1(void) { return b1(); } int a_data = 3;'
	obj b 'int c1(void); int b1(void) { return c1(); }'
	obj c 'extern int a_data; int c1(void) { return a_data; }'
	if EXCEPTIONS="" check "$tmp/daemon/x/a.o" "$tmp/daemon/x/b.o" "$tmp/daemon/x/c.o" >/dev/null; then
		echo "FAIL calls self-test: a.o -> b.o -> c.o -> a.o passed"
		bad=1
	fi
	# the same loop, excepted, passes; an exception that no longer occurs fails
	if ! EXCEPTIONS="x/a.o x/b.o x/c.o" check "$tmp/daemon/x/a.o" "$tmp/daemon/x/b.o" "$tmp/daemon/x/c.o" >/dev/null; then
		echo "FAIL calls self-test: an excepted loop failed"
		bad=1
	fi
	# one way (a -> b -> c) passes, and a stale exception fails
	obj c 'int c1(void) { return 1; }'
	if ! EXCEPTIONS="" check "$tmp/daemon/x/a.o" "$tmp/daemon/x/b.o" "$tmp/daemon/x/c.o"; then
		echo "FAIL calls self-test: a.o -> b.o -> c.o failed"
		bad=1
	fi
	if EXCEPTIONS="x/a.o x/b.o x/c.o" check "$tmp/daemon/x/a.o" "$tmp/daemon/x/b.o" "$tmp/daemon/x/c.o" >/dev/null; then
		echo "FAIL calls self-test: a stale exception passed"
		bad=1
	fi
	[ $bad = 0 ] && echo "PASS calls self-test: objects that call each other fail"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit $?
fi
[ $# -gt 0 ] || { echo "usage: check-calls.sh OBJ... | --self-test"; exit 2; }
for o in "$@"; do
	[ -f "$o" ] || { echo "FAIL calls: no $o"; exit 1; }
done
if check "$@"; then
	echo "PASS calls: the $# objects of libfragd.a call each other in no loop ($(printf '%s\n' "$EXCEPTIONS" | grep -c .) known exceptions)"
else
	exit 1
fi
