#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pure-tests-link.sh TEST...: the pure unit tests (tests/unit/policy/, built
# from libpolicy.a alone) need no shared library beyond libc, libm and
# cmocka (docs/design.md "Purity"). A link line that brings in the daemon's
# libraries (libsystemd, libnl, inih) would let policy code call them; this
# fails on it. The sanitizer runtimes of SANITIZE=1 and the dynamic loader
# are allowed: the compiler adds them, not the code.
set -u
[ $# -gt 0 ] || { echo "usage: pure-tests-link.sh TEST..."; exit 2; }
READELF=${READELF:-readelf}
fail=0
for t in "$@"; do
	needed=$("$READELF" -d "$t" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') || needed=""
	for lib in $needed; do
		case $lib in
		libc.so.* | libm.so.* | libcmocka.so.* | ld-linux*.so.* | libgcc_s.so.*) ;;
		libasan.so.* | libubsan.so.* | libclang_rt.*) ;;
		*)
			echo "FAIL pure-tests-link: $t needs $lib (pure tests link libpolicy.a, libc, libm and cmocka only)"
			fail=1
			;;
		esac
	done
done
[ $fail = 0 ] && echo "PASS pure-tests-link: $# pure tests need only libc, libm and cmocka"
exit $fail
