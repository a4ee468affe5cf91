#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fragd-thp-exec: the child really runs with the requested THP mode. Works
# unprivileged: prctl(PR_SET_THP_DISABLE) only affects the launcher itself
# and what it executes. Reads /proc/self/status of the child; writes nothing.
set -u
L="${BUILDDIR:-build}/fragd-thp-exec"
fail=0
ok() { echo "  ok   $*"; }
bad() { echo "  FAIL $*"; fail=1; }

thp_enabled() { # prints the child's THP_enabled value, or "absent"
        local v
        v=$("$L" "$@" -- cat /proc/self/status | awk '/^THP_enabled:/ {print $2}')
        echo "${v:-absent}"
}

[ -x "$L" ] || { echo "  FAIL $L not built"; exit 1; }
if ! grep -q '^THP_enabled:' /proc/self/status; then
        echo "  skip: this kernel has no THP_enabled line in /proc/PID/status"
        exit 0
fi

v=$(thp_enabled --mode never)
[ "$v" = 0 ] && ok "never: child THP_enabled 0" || bad "never: child THP_enabled $v"

# inherited by the child's own children (a service's workers)
v=$("$L" --mode never -- sh -c 'cat /proc/self/status' | awk '/^THP_enabled:/ {print $2}')
[ "$v" = 0 ] && ok "never: grandchild THP_enabled 0" || bad "never: grandchild THP_enabled $v"

# inherit clears what a parent set
v=$("$L" --mode never -- "$L" --mode inherit -- cat /proc/self/status | awk '/^THP_enabled:/ {print $2}')
[ "$v" = 1 ] && ok "inherit clears never" || bad "inherit after never: THP_enabled $v"

# madvise: 6.18+ accepts it (THP_enabled shows only the 'completely' flag: 1);
# older kernels refuse it (exit 2) unless --fallback=never
out=$("$L" --mode madvise -- cat /proc/self/status 2>/tmp/fragd-thp-exec.$$); rc=$?
if [ $rc = 0 ]; then
        v=$(echo "$out" | awk '/^THP_enabled:/ {print $2}')
        [ "$v" = 1 ] && ok "madvise accepted (except-advised; THP_enabled stays 1)" || bad "madvise: THP_enabled $v"
elif [ $rc = 2 ] && grep -q "6.18" /tmp/fragd-thp-exec.$$; then
        ok "madvise refused by this kernel with a clear message"
        v=$(thp_enabled --mode madvise --fallback=never --quiet)
        [ "$v" = 0 ] && ok "madvise --fallback=never: THP_enabled 0" || bad "fallback: THP_enabled $v"
else
        bad "madvise: exit $rc: $(cat /tmp/fragd-thp-exec.$$)"
fi
rm -f /tmp/fragd-thp-exec.$$

# the command's own exit status passes through; usage and exec errors are distinct
"$L" --mode never -- sh -c 'exit 7'; rc=$?
[ $rc = 7 ] && ok "exit status passes through" || bad "exit status $rc"
"$L" --mode bogus -- true 2>/dev/null; rc=$?
[ $rc = 64 ] && ok "bad mode: 64" || bad "bad mode: $rc"
"$L" --mode never 2>/dev/null; rc=$?
[ $rc = 64 ] && ok "no command: 64" || bad "no command: $rc"
"$L" --mode never -- /nonexistent/cmd 2>/dev/null; rc=$?
[ $rc = 127 ] && ok "missing command: 127" || bad "missing command: $rc"
"$L" --help | grep -q "keep their current THP mode until they are restarted" && ok "--help says running processes keep their mode" || bad "--help text"
exit $fail
