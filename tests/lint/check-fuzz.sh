#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-fuzz.sh [DIR]: every parser fragd has is fuzzed. check-fuzz.sh
# --self-test: the checker fails on a parser no fuzzer calls, and on a stale
# exception (so a pass is not vacuous).
#
# A parser is a function declared in a header under daemon/ or include/
# whose name holds "_parse", or whose parameters begin with a text buffer
# and its length ("const char *buf, size_t len"): what fragd reads from
# /proc, /sys, its own files and its socket goes through one. It is fuzzed
# when a tests/fuzz/fuzz-*.c calls it by name.
# EXCEPTIONS lists the ones reached only through another parser's fuzzer,
# one per line ("name: reason"); the check fails when one of them is gone
# or is now called by a fuzzer itself, so the list only shrinks.
set -u
EXCEPTIONS="
knob_parse_i64: parse_i64 under the knob registry's name (a wrapper in knob-value.c), fuzzed by fuzz-sysctl-value
cursor_make: the cursor every parser walks its buffer with, no parser of its own
buddyinfo_parse_zone_prefix: the 'Node N, zone X' head of a line, reached by fuzz-buddyinfo, fuzz-zoneinfo and fuzz-pagetypeinfo
config_parse_buffer: the text of one configuration file, reached by fuzz-config through config_load
config_parse_bool: a key's value, reached by fuzz-config through config_load's key table
config_parse_bytes: a key's value, reached by fuzz-config through config_load's key table
config_parse_duration: a key's value, reached by fuzz-config through config_load's key table
config_parse_int: a key's value, reached by fuzz-config through config_load's key table
config_parse_number: a key's value, reached by fuzz-config through config_load's key table
config_parse_rate: a key's value, reached by fuzz-config through config_load's key table
config_parse_ratio: a key's value, reached by fuzz-config through config_load's key table
config_parse_size: a key's value, reached by fuzz-config through config_load's key table
config_parse_uint: a key's value, reached by fuzz-config through config_load's key table
"

# parsers DIR: the parsers' names, one per line, sorted
parsers() {
	find "$1/daemon" "$1/include" -name '*.h' -exec cat {} + |
		# one declaration per record: comments dropped, lines joined up to
		# the ';' of a prototype or the '{' of an inline function's body
		sed -e 's,/\*.*\*/,,g' -e 's,//.*,,' | awk '
		/\/\*/ { incomment = 1 }
		incomment { if ($0 ~ /\*\//) incomment = 0; next }
		{ decl = decl " " $0 }
		/[;{]/ { print decl; decl = "" }' |
		sed -n -E 's/.*[ *]([a-z_][a-z0-9_]*)[ ]*\(([^)]*)\)[ ]*[;{].*/\1 \2/p' |
		awk '{
			name = $1; $1 = ""; params = $0
			gsub(/[ \t]+/, " ", params)
			if (name ~ /(^|_)parse(_|$)/ || params ~ /^ ?const char \*[a-z_]+, size_t [a-z_]+/) print name
		}' | LC_ALL=C sort -u
}

# fuzzed DIR NAME: true when a fuzzer calls NAME
fuzzed() {
	grep -qE "(^|[^a-z0-9_])$2\(" "$1"/tests/fuzz/fuzz-*.c 2>/dev/null
}

check() {
	dir=$1
	bad=0
	excepted=$(printf '%s\n' "$EXCEPTIONS" | sed -n 's/^\([a-z0-9_]*\):.*/\1/p')
	all=$(parsers "$dir")
	[ -n "$all" ] || { echo "FAIL fuzz: no parser found under $dir/daemon (the scan is broken)"; return 1; }
	for p in $all; do
		fuzzed "$dir" "$p" && continue
		printf '%s\n' "$excepted" | grep -qx "$p" && continue
		echo "FAIL fuzz: $p parses text (declared in $(grep -rlE "^[a-z].*[ *]${p}[ ]*\(" "$dir/daemon" "$dir/include" --include='*.h' | head -n 1 | sed "s,^$dir/,,")) and no tests/fuzz/fuzz-*.c calls it: add it to a fuzzer (with a property the output must keep) and seed tests/corpus/"
		bad=1
	done
	for p in $excepted; do
		if ! printf '%s\n' "$all" | grep -qx "$p"; then
			echo "FAIL fuzz: the exception for $p is stale: no header declares it now; remove it from tests/lint/check-fuzz.sh"
			bad=1
		elif fuzzed "$dir" "$p"; then
			echo "FAIL fuzz: the exception for $p is stale: a fuzzer calls it now; remove it from tests/lint/check-fuzz.sh"
			bad=1
		fi
	done
	[ $bad = 0 ] || return 1
	echo "PASS fuzz: $(printf '%s\n' "$all" | wc -l | tr -d ' ') parsers, each called by a fuzzer or reached through one ($(printf '%s\n' "$excepted" | grep -c .) listed)"
}

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	ok=1
	mk() {
		mkdir -p "$t/$1"
		cp -R daemon include tests "$t/$1/" 2>/dev/null
	}
	mk f0-intact
	if ! check "$t/f0-intact" >/dev/null; then
		echo "FAIL fuzz self-test: the tree as it is fails (run tests/lint/check-fuzz.sh)"
		ok=0
	fi
	# a new parser, declared over two lines, that no fuzzer calls
	mk f1-unfuzzed
	printf 'int widget_from_text(const char *buf,\n                     size_t len, int *ret);\n' >"$t/f1-unfuzzed/daemon/sources/widget.h"
	# a fuzzer no longer calls a parser it did (cgroup_procs_parse)
	mk f2-dropped
	sed -i 's/cgroup_procs_parse(/cgroup_procs_parse_gone(/g' "$t/f2-dropped/tests/fuzz/fuzz-cgroup.c"
	# an exception whose parser a fuzzer now calls
	mk f3-stale
	printf 'void f(void) { config_parse_bool("", 0, 0); }\n' >>"$t/f3-stale/tests/fuzz/fuzz-config.c"
	for case in f1-unfuzzed f2-dropped f3-stale; do
		if check "$t/$case" >/dev/null 2>&1; then
			echo "FAIL fuzz self-test: $case passes"
			ok=0
		fi
	done
	[ $ok = 1 ] || exit 1
	echo "PASS fuzz self-test: an unfuzzed parser and a stale exception fail"
	exit 0
fi

check "${1:-.}"
