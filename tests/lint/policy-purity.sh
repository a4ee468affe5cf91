#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# policy-purity.sh LIBPOLICY.a: libpolicy.a is pure (docs/design.md "Purity").
#
# Lists the symbols the archive needs from outside itself (nm -u over every
# member, less what some member defines) and fails on any that is not on the
# allowlist below. The pure unit tests link libpolicy.a with libc and cmocka,
# so a stray fopen(), malloc() or clock_gettime() in policy/ would link; this
# test is what catches it.
#
# The allowlist, and why each entry keeps policy/ pure (no I/O, no clock,
# no allocation, no global state it does not own):
#   - memory and string functions over the caller's buffers:
#     mem{cpy,move,set,cmp,chr}, str{cmp,ncmp,len,nlen,chr,rchr}
#   - snprintf / vsnprintf: formatting into a caller's buffer, used by
#     policy/explain.c for the explanation text. No I/O and no allocation;
#     the one global it reads is the locale, and fragd never calls
#     setlocale(), so numbers are always printed in the "C" locale.
#   - libm functions (exp2 for the learned reserve's decay in demand.c, and
#     the other pure ones a measure may come to need): no errno is read back,
#     results depend on the arguments only.
#   - what the compiler inserts, not the code: __stack_chk_fail
#     (-fstack-protector-strong), the libgcc 128-bit arithmetic helpers
#     (__divti3, ...), the _FORTIFY_SOURCE *_chk twins of the functions
#     above, and the sanitizer runtimes (__asan_*, __ubsan_*) of SANITIZE=1.
#   - __assert_fail: assert() on a programmer error (STYLE.md: never for
#     data); it writes to stderr and aborts, which only a bug can reach.
# Not allowed, with the reason: stdio (printf, fopen, ...: I/O), malloc,
# calloc, realloc, free, strdup (allocation: the caller owns memory),
# clock_gettime, time, gettimeofday (time comes in as `now`), open, read,
# write, and every other system call, getenv, rand, strtol & co. (errno).
# Add to the list only with a reason here.
set -u
lib=${1:?usage: policy-purity.sh LIBPOLICY.a}
NM=${NM:-nm}
[ -f "$lib" ] || { echo "FAIL policy-purity: no $lib"; exit 1; }

allowed() {
	case $1 in
	memcpy | memmove | memset | memcmp | memchr) return 0 ;;
	strcmp | strncmp | strlen | strnlen | strchr | strrchr) return 0 ;;
	snprintf | vsnprintf) return 0 ;;
	exp | exp2 | log | log2 | log10 | pow | sqrt | cbrt) return 0 ;;
	floor | ceil | round | lround | llround | trunc | fabs | fmin | fmax | fma) return 0 ;;
	__stack_chk_fail | __assert_fail) return 0 ;;
	__divti3 | __udivti3 | __modti3 | __umodti3 | __udivmodti4 | __muldc3 | __mulodi4 | __muloti4) return 0 ;;
	__memcpy_chk | __memmove_chk | __memset_chk | __snprintf_chk | __vsnprintf_chk) return 0 ;;
	__asan_* | __ubsan_* | __sanitizer_*) return 0 ;;
	esac
	return 1
}

tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$NM" --defined-only -g "$lib" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp"
needed=$("$NM" -u "$lib" | awk 'NF == 2 { print $2 }' | sort -u | comm -23 - "$tmp")
fail=0 n=0
for s in $needed; do
	n=$((n + 1))
	allowed "$s" && continue
	# nm -A: "lib.a:member.o:  U sym"
	members=$("$NM" -A -u "$lib" | awk -v s="$s" '$NF == s { n = split($1, f, ":"); print f[n - 1] }' | sort -u | tr '\n' ' ')
	echo "FAIL policy-purity: $s (needed by ${members% }) is not on the allowlist in $0"
	fail=1
done
[ $fail = 0 ] && echo "PASS policy-purity: $lib needs $n outside symbols, all allowed"
exit $fail
