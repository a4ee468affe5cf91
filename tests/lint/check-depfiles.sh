#!/bin/sh
# check-depfiles.sh - a dependency file made by a build with an absolute
# BUILDDIR must also name the object the way a build with a relative
# BUILDDIR does (and the other way round). With one form only, `make` after
# `make BUILDDIR=/abs/build` kept objects compiled against old headers: a
# unit test then read past a struct that had grown (valgrind: invalid read
# in workload_new after Config gained a field).
# Compiles one small object twice into a temporary directory inside the
# tree (relative and absolute); writes nothing else.
set -eu
MAKE=${MAKE:-make}
tmp=$(mktemp -d build-depcheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
obj=daemon/core/clock.o
fail=0
for bd in "$tmp/rel" "$PWD/$tmp/abs"; do
	$MAKE -s --no-print-directory BUILDDIR="$bd" "$bd/$obj" >/dev/null
	d="$bd/${obj%.o}.d"
	rel=${bd#"$PWD"/}
	for want in "$rel/$obj" "$PWD/$rel/$obj"; do
		if ! grep -q "^$want\( \|:\)" "$d" && ! grep -q " $want:" "$d" && ! grep -q " $want " "$d"; then
			echo "FAIL check-depfiles: '$d' does not name '$want' as a target: header changes would not rebuild it" >&2
			fail=1
		fi
	done
done
[ "$fail" = 0 ] && echo "check-depfiles: dependency files name objects both relative and absolute"
exit "$fail"
