#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-calls.sh OBJ...: no objects of libfragd.a and libpolicy.a call each
# other, directly or in a loop of any length (docs/design.md "Layout": a
# split is by purpose, so the call graph between files is a DAG).
# check-calls.sh --self-test: the checker fails on a pair, rings of three and
# four and rings through a header's function, and passes DAGs (so a pass is
# not vacuous).
#
# The graph is built from nm: an object A points at B when A leaves a symbol
# undefined (U, w) that B defines (any global: functions and data). nm does
# not see a function written in a header (static inline: compiled into each
# caller), so the headers are read as well: a function defined in a header
# D/N.h or D/N-internal.h is code of D/N.o, an object whose source names it
# points at D/N.o, and D/N.o points at what the function's body names. A
# name reached through a header's macro, or through a function of a header
# named after no object (core/cleanup.h, fragd/macro.h), counts as named
# where it is used. The sources are found below SRCDIR (default: this
# script's ../..) by the object's path from daemon/ or policy/ on; an object
# without its source fails. Every strongly connected component of two or
# more objects is a circle; each is reported with the edges inside it and
# the symbols on each edge ("name@header" for a header's function).
# EXCEPTIONS below lists circles that exist today, one line per circle (its
# objects, sorted, as "folder/file.o"), each with the reason; the check fails
# when one no longer occurs, so the list only shrinks.
set -u
NM=${NM:-nm}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EXCEPTIONS="
"
# (none: the rings of knobs/, service/ and workload/ through an inline
# function of a header went with issue 39)

# src OBJ: the object's source file below SRCDIR ("" when it is not below
# daemon/ or policy/)
src() {
	case $1 in
	*/daemon/*) s=daemon/${1##*/daemon/} ;;
	*/policy/*) s=policy/${1##*/policy/} ;;
	*) echo ""; return ;;
	esac
	echo "$SRCDIR/${s%.o}.c"
}

# manifest OBJ...: "obj OBJ SOURCE" for every object, then "hdr HEADER
# OWNER" for every header below SRCDIR (OWNER: the object the header is
# named after, or "-")
manifest() {
	for o in "$@"; do
		echo "obj $o $(src "$o")"
	done
	for h in "$SRCDIR"/daemon/*/*.h "$SRCDIR"/policy/*.h "$SRCDIR"/include/fragd/*.h; do
		[ -f "$h" ] || continue
		base=${h%.h}
		base=${base%-internal}
		owner=-
		for o in "$@"; do
			[ "$(src "$o")" = "$base.c" ] && { owner=$o; break; }
		done
		echo "hdr $h $owner"
	done
}

# graph OBJ...: prints "edge A B SYM" lines, one per symbol A needs from B
graph() {
	{
		"$NM" -A -P "$@" 2>/dev/null | awk '
		{
			f = $1; sub(/:$/, "", f); sym = $2; t = $3
			if (t == "U" || t == "w") { need[f, sym] = 1; next }
			if (t ~ /^[A-TV-Z]$/) { def[sym] = f; print "def", sym, f }
		}
		END {
			for (k in need) {
				split(k, p, SUBSEP)
				if ((p[2] in def) && def[p[2]] != p[1])
					print "edge", p[1], def[p[2]], p[2]
			}
		}'
		manifest "$@"
	} | awk -v q="'" '
	# code(FILE): the file without comments, strings and character
	# constants, in line[1..nline]
	function code(file,   l, n, c, i, j, out) {
		n = 0; c = 0
		while ((getline l < file) > 0) {
			gsub(q "([^" q "\\\\]|\\\\.)" q, "0", l)
			gsub(/"([^"\\]|\\.)*"/, "\"\"", l)
			out = ""
			while (l != "") {
				if (c) {
					j = index(l, "*/")
					if (!j) { l = ""; break }
					l = substr(l, j + 2); c = 0; continue
				}
				i = index(l, "/*"); j = index(l, "//")
				if (j && (!i || j < i)) { out = out substr(l, 1, j - 1); l = ""; break }
				if (!i) { out = out l; l = ""; break }
				out = out substr(l, 1, i - 1) " "; l = substr(l, i + 2); c = 1
			}
			line[++n] = out
		}
		close(file)
		nline = n
		return n
	}
	# words(S): the identifiers in S, as " a b c "
	function words(s,   n, a, i, r) {
		gsub(/[^A-Za-z0-9_]+/, " ", s)
		n = split(s, a, " "); r = " "
		for (i = 1; i <= n; i++)
			if (a[i] ~ /^[A-Za-z_]/) r = r a[i] " "
		return r
	}
	# expand(W): W and the identifiers of the header macros it names
	function expand(w,   n, a, i, more, k, seen) {
		for (k = 0; k < 8; k++) {
			n = split(w, a, " "); more = ""
			for (i = 1; i <= n; i++)
				if ((a[i] in mbody) && !(a[i] in seen)) { seen[a[i]] = 1; more = more mbody[a[i]] }
			if (more == "") break
			w = w more
		}
		return w
	}
	# header(H): its functions (fowner, fhdr, fbody) and macros (mbody);
	# the functions of a header named after no object count as macros:
	# code of each caller, like the calls they make
	function header(h,   i, l, d, name, body, pend, k, m, c, lab) {
		if (!code(h)) return 0
		lab = h; sub(/.*\/(daemon|include)\//, "", lab)
		d = 0; pend = ""
		for (i = 1; i <= nline; i++) {
			l = line[i]
			if (l ~ /^[ \t]*#/) {
				m = l
				while (m ~ /\\[ \t]*$/ && i < nline) m = m " " line[++i]
				if (match(m, /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_][A-Za-z0-9_]*/)) {
					name = substr(m, 1, RLENGTH); sub(/.*[ \t]/, "", name)
					mbody[name] = words(substr(m, RLENGTH + 1))
				}
				continue
			}
			for (k = 1; k <= length(l); k++) {
				c = substr(l, k, 1)
				if (d == 0 && pend == "" && substr(l, k) ~ /^static[ \t]/ &&
				    (k == 1 || substr(l, k - 1, 1) !~ /[A-Za-z0-9_]/)) {
					m = substr(l, k); sub(/=.*/, "", m)
					if (match(m, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
						pend = substr(m, RSTART, RLENGTH); sub(/[ \t]*\($/, "", pend)
						body = ""
					}
				}
				if (c == "{") d++
				else if (c == "}") {
					if (--d == 0 && pend != "") {
						if (hown[h] == "-") mbody[pend] = words(body)
						else { fhdr[pend] = lab; fowner[pend] = hown[h]; fbody[pend] = words(body) }
						pend = ""
					}
				} else if (c == ";" && d == 0)
					pend = ""
				if (pend != "" && d > 0) body = body c
			}
			if (pend != "" && d > 0) body = body " "
		}
		return 1
	}
	function edge(a, b, s) { if (a != b) print "edge", a, b, s }
	$1 == "edge" { print; next }
	$1 == "def" { def[$2] = $3; next }
	$1 == "obj" { no++; obj[no] = $2; osrc[no] = $3; next }
	$1 == "hdr" { nh++; hdr[nh] = $2; hown[$2] = $3; next }
	END {
		for (i = 1; i <= nh; i++) header(hdr[i])
		for (i = 1; i <= no; i++) {
			if (osrc[i] == "" || !code(osrc[i])) {
				print "nosource", obj[i], osrc[i]
				continue
			}
			s = ""
			for (k = 1; k <= nline; k++) s = s " " line[k]
			n = split(expand(words(s)), a, " ")
			for (k = 1; k <= n; k++)
				if (a[k] in fhdr) edge(obj[i], fowner[a[k]], a[k] "@" fhdr[a[k]])
		}
		for (f in fhdr) {
			n = split(expand(fbody[f]), a, " ")
			for (k = 1; k <= n; k++)
				if (a[k] in def) edge(fowner[f], def[a[k]], a[k])
				else if ((a[k] in fhdr) && a[k] != f) edge(fowner[f], fowner[a[k]], a[k] "@" fhdr[a[k]])
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

# short OBJ: its name in messages and EXCEPTIONS ("knobs/knob.o", "policy/x.o")
short() {
	case $1 in
	*/daemon/*) echo "${1##*/daemon/}" ;;
	*/policy/*) echo "policy/${1##*/policy/}" ;;
	*) echo "$1" ;;
	esac
}

# check OBJ...: FAIL lines for every circle not excepted, and for stale
# exceptions; rc 1 on any
check() {
	g=$(graph "$@")
	out=$(printf '%s\n' "$g" | circles)
	fail=0
	nosrc=$(printf '%s\n' "$g" | awk -v d="$SRCDIR" '$1 == "nosource" {
		print "FAIL calls: " $2 ": no source " ($3 == "" ? "(not below daemon/ or policy/)" : $3 " (SRCDIR=" d ")") }')
	[ -z "$nosrc" ] || { printf '%s\n' "$nosrc"; fail=1; }
	seen=""
	cur=""
	report=$(printf '%s\n' "$out" | while read -r kind a b syms; do
		case $kind in
		circle)
			set -- $a $b $syms
			cur=$(for o in "$@"; do short "$o"; done | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
			if printf '%s\n' "$EXCEPTIONS" | grep -qxF "$cur"; then
				echo "EXCEPTION $cur"
				exc=1
			else
				echo "FAIL calls: these objects call each other in a loop: $cur"
				exc=0
			fi
			;;
		in)
			[ "$exc" = 1 ] || echo "FAIL calls:   $(short "$a") -> $(short "$b"): $syms"
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
	SRCDIR=$tmp/src
	B=$tmp/build/daemon/x
	bad=0
	mkdir -p "$SRCDIR/daemon/x" "$B"
	hdr() { # hdr NAME 'C text': writes daemon/x/NAME
		printf '%s\n' "$2" >"$SRCDIR/daemon/x/$1"
	}
	obj() { # obj NAME 'C source': compiles daemon/x/NAME.c to the build tree
		printf '%s\n' "$2" >"$SRCDIR/daemon/x/$1.c"
		"$CC" -O2 -I"$SRCDIR/daemon" -c -o "$B/$1.o" "$SRCDIR/daemon/x/$1.c" || exit 1
	}
	must_fail() { # must_fail WHAT OBJ...: check fails (no exceptions)
		what=$1; shift
		if EXCEPTIONS="" check "$@" >/dev/null; then
			echo "FAIL calls self-test: $what passed"
			bad=1
		fi
	}
	must_pass() { # must_pass WHAT OBJ...
		what=$1; shift
		if ! EXCEPTIONS="" check "$@" >"$tmp/out"; then
			echo "FAIL calls self-test: $what failed:"
			cat "$tmp/out"
			bad=1
		fi
	}
	# a -> b -> a: a direct circle
	obj a 'int b1(void); int a1(void) { return b1(); } int a2(void) { return 2; }'
	obj b 'int a2(void); int b1(void) { return a2(); }'
	must_fail "a.o <-> b.o" "$B/a.o" "$B/b.o"
	# a -> b -> c -> a through data: a ring of three
	obj a 'int b1(void); int a1(void) { return b1(); } int a_data = 3;'
	obj b 'int c1(void); int b1(void) { return c1(); }'
	obj c 'extern int a_data; int c1(void) { return a_data; }'
	must_fail "a.o -> b.o -> c.o -> a.o" "$B/a.o" "$B/b.o" "$B/c.o"
	# a -> b -> c -> d -> a: a ring of four, beside a DAG (e -> a)
	obj c 'int d1(void); int c1(void) { return d1(); }'
	obj d 'int a1(void); int d1(void) { return a1(); }'
	obj e 'int a1(void); int e1(void) { return a1(); }'
	must_fail "a.o -> b.o -> c.o -> d.o -> a.o" "$B/a.o" "$B/b.o" "$B/c.o" "$B/d.o" "$B/e.o"
	# the ring of three, excepted, passes; an exception that no longer
	# occurs fails
	obj c 'extern int a_data; int c1(void) { return a_data; }'
	if ! EXCEPTIONS="x/a.o x/b.o x/c.o" check "$B/a.o" "$B/b.o" "$B/c.o" >/dev/null; then
		echo "FAIL calls self-test: an excepted ring failed"
		bad=1
	fi
	# one way (a -> b -> c, a -> c, e -> a) passes, and a stale exception fails
	obj b 'int c1(void); int b1(void) { return c1(); }'
	obj c 'int c1(void) { return 1; }'
	obj a 'int b1(void); int c1(void); int a1(void) { return b1() + c1(); }'
	must_pass "the DAG a.o -> b.o -> c.o" "$B/a.o" "$B/b.o" "$B/c.o" "$B/e.o"
	if EXCEPTIONS="x/a.o x/b.o x/c.o" check "$B/a.o" "$B/b.o" "$B/c.o" >/dev/null; then
		echo "FAIL calls self-test: a stale exception passed"
		bad=1
	fi
	# a -> b, and b back to a through a static inline of a-internal.h
	# (code of a.o that nm never sees) reached through a macro: a circle
	hdr a-internal.h '#pragma once
/* a comment naming b1() is no call */
static inline int a_twice(int x)
{
        return 2 * x;
}
#define A_TWICE_ONE() a_twice(1)'
	obj a '#include "x/a-internal.h"
int b1(void); int a1(void) { return b1() + a_twice(3); }'
	obj b '#include "x/a-internal.h"
int b1(void) { return A_TWICE_ONE(); }'
	must_fail "a.o -> b.o -> a.o through a-internal.h's static inline" "$B/a.o" "$B/b.o"
	# a-internal.h's inline calling b1() is code of a.o: with b -> a, a
	# circle even though a.c never uses it (c.c does)
	hdr a-internal.h '#pragma once
int b1(void);
static inline int a_b(void)
{
        return b1();
}'
	obj a 'int a1(void) { return 1; }'
	obj b 'int a1(void); int b1(void) { return a1(); }'
	obj c '#include "x/a-internal.h"
int c1(void) { return a_b(); }'
	must_fail "a.o -> b.o -> a.o through the body of a-internal.h's inline" "$B/a.o" "$B/b.o" "$B/c.o"
	# util.h names no object: its inline is code of its caller, so b.o
	# calling util_a(), which calls a-internal.h's a_twice(), points at a.o
	hdr a-internal.h '#pragma once
static inline int a_twice(int x) { return 2 * x; }'
	hdr util.h '#pragma once
#include "x/a-internal.h"
static inline int util_a(void) { return a_twice(2); }'
	obj a 'int b1(void); int a1(void) { return b1(); }'
	obj b '#include "x/util.h"
int b1(void) { return util_a(); }'
	must_fail "a.o -> b.o -> (util.h) -> a.o" "$B/a.o" "$B/b.o"
	# util.h used from both ends of a -> b -> c adds no circle, nor do a
	# comment and a string in c.c naming a_twice (a.c calls c1())
	hdr util.h '#pragma once
static inline int util_one(void) { return 1; }'
	obj a '#include "x/util.h"
int b1(void); int c1(void); int a1(void) { return b1() + c1() + util_one(); }'
	obj b '#include "x/util.h"
int b1(void) { return util_one(); }'
	obj c '/* a_twice() */ const char *c_text(void); const char *c_text(void) { return "a_twice()"; }
int c1(void); int c1(void) { return 3; } // a_twice'
	must_pass "a.o -> b.o, c.o, both using util.h" "$B/a.o" "$B/b.o" "$B/c.o"
	# an object whose source is not found fails (the headers would go unread)
	rm "$SRCDIR/daemon/x/c.c"
	must_fail "an object without its source" "$B/a.o" "$B/b.o" "$B/c.o"
	[ $bad = 0 ] && echo "PASS calls self-test: a pair, rings of three and four and rings through a header's function fail; DAGs pass"
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
	echo "PASS calls: the $# objects call each other in no loop ($(printf '%s\n' "$EXCEPTIONS" | grep -c .) known exceptions)"
else
	exit 1
fi
