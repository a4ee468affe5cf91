#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-includes.sh [DIR]: the include rules of docs/design.md "Layout" hold
# in the tree at DIR (default .). check-includes.sh --self-test: the checker
# fails on a tree that breaks each rule (so a pass is not vacuous).
#
# Reads every #include "..." in DIR/daemon, DIR/policy and DIR/include and
# resolves it as the compiler does (-Iinclude -Idaemon: the including file's
# folder, then include/, then daemon/). An include that resolves to nothing
# fails; the #include <...> of policy/ and include/fragd/ are read too. The
# rules:
#   R1  policy/ includes only policy/ and include/fragd/.
#   R2  include/fragd/ includes only include/fragd/ (the public types and
#       the policy API know nothing of the daemon).
#   R3  a daemon folder includes include/fragd/, itself, and only folders
#       below it in this order (dependencies point one way, down):
#           cli service output knobs workload config sources core
#       so core/ includes nothing but core/ and include/fragd/; sources/
#       never reach knobs/; output/ never reaches service/ or cli/; the
#       service never reaches the command line. daemon/main.c is above all.
#   R4  a folder's private headers (*-internal.h) are included from that
#       folder only (and from daemon/main.c for cli/main-internal.h).
#       tests/ is not checked: unit tests may open a module's internals.
#   R5  policy/ and include/fragd/ include no system header that declares
#       I/O, a clock, allocation or a system call: only those in PURE_SYS
#       below (policy-purity.sh checks the symbols libpolicy.a needs; this
#       keeps the declarations out of sight). policy/explain.c may include
#       stdio.h for snprintf()/vsnprintf() into the caller's buffer, the
#       only stdio symbols policy-purity.sh allows.
# EXCEPTIONS below lists the includes that break a rule today, each with
# the reason; the check fails when one no longer occurs, so the list only
# shrinks.
set -u
ORDER="cli service output knobs workload config sources core"
PURE_SYS="assert.h errno.h inttypes.h limits.h math.h stdarg.h stdbool.h stddef.h stdint.h string.h"
PURE_SYS_STDIO="policy/explain.c"
EXCEPTIONS="
"

rank() { # rank FOLDER: its position in ORDER (1 = top), 0 when not a folder
	i=1
	for o in $ORDER; do
		[ "$o" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 0
}

where() { # where PATH: public, policy, main, a daemon folder, or other
	case $1 in
	include/fragd/*) echo public ;;
	policy/*) echo policy ;;
	daemon/*/*) f=${1#daemon/}; echo "${f%%/*}" ;;
	daemon/*) echo main ;;
	*) echo other ;;
	esac
}

check_tree() { # check_tree DIR: prints one FAIL line per broken rule; rc 1 on any
	dir=$1
	(
		cd "$dir" || exit 2
		for f in $(find daemon policy include -name '*.[ch]' 2>/dev/null | LC_ALL=C sort); do
			from=$(where "$f")
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed 's/^\([0-9]*\):.*"\(.*\)".*/\1 \2/' |
				while read -r line p; do
					t=""
					for base in "$(dirname "$f")" include daemon; do
						if [ -f "$base/$p" ]; then
							t=$(realpath -m --relative-to=. "$base/$p")
							break
						fi
					done
					if [ -z "$t" ]; then
						echo "FAIL includes: $f:$line: \"$p\" resolves to nothing"
						continue
					fi
					to=$(where "$t")
					why=""
					case $from in
					policy) [ "$to" = policy ] || [ "$to" = public ] || why="R1 policy/ includes only policy/ and include/fragd/" ;;
					public) [ "$to" = public ] || why="R2 include/fragd/ includes only include/fragd/" ;;
					main) ;;
					*)
						rf=$(rank "$from") rt=$(rank "$to")
						if [ "$rf" = 0 ]; then
							why="R3 daemon/$from/ is not in the order ($ORDER): add it to $0"
						elif [ "$to" != public ] && [ "$to" != "$from" ] && { [ "$rt" = 0 ] || [ "$rt" -le "$rf" ]; }; then
							why="R3 $from/ may include only folders below it ($ORDER)"
						fi
						;;
					esac
					case $t in
					*-internal.h)
						if [ "$to" != "$from" ] && ! { [ "$f" = daemon/main.c ] && [ "$t" = daemon/cli/main-internal.h ]; }; then
							why="${why:+$why; }R4 $t is private to $to/"
						fi
						;;
					esac
					[ -n "$why" ] || continue
					pair="$f ${t#daemon/}"
					if printf '%s\n' "$EXCEPTIONS" | grep -qxF "$pair"; then
						echo "EXCEPTION $pair"
						continue
					fi
					echo "FAIL includes: $f:$line: \"$p\": $why"
				done
		done
		# R5: the system headers of policy/ and include/fragd/
		for f in $(find policy include/fragd -name '*.[ch]' 2>/dev/null | LC_ALL=C sort); do
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' "$f" | sed 's/^\([0-9]*\):.*<\(.*\)>.*/\1 \2/' |
				while read -r line h; do
					case " $PURE_SYS " in *" $h "*) continue ;; esac
					[ "$h" = stdio.h ] && [ "$f" = "$PURE_SYS_STDIO" ] && continue
					echo "FAIL includes: $f:$line: <$h>: R5 policy/ and include/fragd/ include no system header that declares I/O (allowed: $PURE_SYS)"
				done
		done
	)
}

run() { # run DIR: check_tree, then stale exceptions; rc 0 when clean
	out=$(check_tree "$1")
	printf '%s\n' "$out" | grep '^FAIL' || true
	fail=0
	printf '%s\n' "$out" | grep -q '^FAIL' && fail=1
	printf '%s\n' "$EXCEPTIONS" | while read -r a b; do
		[ -n "$a" ] || continue
		printf '%s\n' "$out" | grep -qxF "EXCEPTION $a $b" ||
			echo "FAIL includes: the exception '$a -> $b' no longer occurs: remove it from $0"
	done | grep . && fail=1
	return $fail
}

self_test() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	bad=0
	for c in \
		"policy/a.c:core/log.h:daemon/core/log.h" \
		"include/fragd/a.h:core/log.h:daemon/core/log.h" \
		"daemon/core/a.c:knobs/knob.h:daemon/knobs/knob.h" \
		"daemon/sources/a.c:knobs/knob.h:daemon/knobs/knob.h" \
		"daemon/output/a.c:service/manager.h:daemon/service/manager.h" \
		"daemon/service/a.c:cli/report.h:daemon/cli/report.h" \
		"daemon/cli/a.c:knobs/knob-internal.h:daemon/knobs/knob-internal.h" \
		"daemon/knobs/a.c:knobs/missing.h:" \
		"daemon/foo/a.c:core/log.h:daemon/core/log.h"; do
		f=${c%%:*} rest=${c#*:} inc=${rest%%:*} tgt=${rest#*:}
		rm -rf "${tmp:?}"/*
		mkdir -p "$tmp/$(dirname "$f")" "$tmp/include/fragd" "$tmp/policy"
		[ -z "$tgt" ] || { mkdir -p "$tmp/$(dirname "$tgt")"; : >"$tmp/$tgt"; }
		printf '#include "%s"\n' "$inc" >"$tmp/$f"
		if EXCEPTIONS="" run "$tmp" >/dev/null; then
			echo "FAIL includes self-test: $f including \"$inc\" passed"
			bad=1
		fi
	done
	# R5: a system header that declares I/O, in policy/ or include/fragd/
	for c in "policy/a.c:stdio.h" "policy/a.h:unistd.h" "include/fragd/a.h:sys/types.h" \
		"include/fragd/a.h:time.h" "policy/a.c:stdlib.h"; do
		f=${c%%:*} h=${c#*:}
		rm -rf "${tmp:?}"/*
		mkdir -p "$tmp/daemon" "$tmp/include/fragd" "$tmp/policy"
		printf '#include <%s>\n' "$h" >"$tmp/$f"
		if EXCEPTIONS="" run "$tmp" >/dev/null; then
			echo "FAIL includes self-test: $f including <$h> passed"
			bad=1
		fi
	done
	# and a tree that keeps the rules passes
	rm -rf "${tmp:?}"/*
	mkdir -p "$tmp/daemon/cli" "$tmp/daemon/core" "$tmp/include/fragd" "$tmp/policy"
	: >"$tmp/daemon/core/log.h"
	: >"$tmp/include/fragd/policy.h"
	printf '#include <stdio.h>\n#include "core/log.h"\n#include "fragd/policy.h"\n' >"$tmp/daemon/cli/a.c"
	printf '#include <string.h>\n#include <math.h>\n#include "fragd/policy.h"\n' >"$tmp/policy/a.c"
	printf '#include <stdio.h>\n#include "fragd/policy.h"\n' >"$tmp/policy/explain.c"
	if ! EXCEPTIONS="" run "$tmp"; then
		echo "FAIL includes self-test: a tree that keeps the rules failed"
		bad=1
	fi
	[ $bad = 0 ] && echo "PASS includes self-test: each rule fails its broken tree"
	return $bad
}

if [ "${1:-}" = --self-test ]; then
	self_test
	exit $?
fi
dir=${1:-.}
[ -d "$dir/daemon" ] || { echo "FAIL includes: no $dir/daemon"; exit 1; }
if run "$dir"; then
	echo "PASS includes: daemon/ policy/ include/ keep the dependency rules ($(printf '%s\n' "$EXCEPTIONS" | grep -c .) known exceptions)"
else
	exit 1
fi
