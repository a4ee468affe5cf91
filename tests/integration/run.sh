#!/bin/bash
# run.sh TEST...: the integration tests, FRAGD_TEST_JOBS at a time (default
# 2). Most of their time is the daemon's own ticks and the waits for them,
# not CPU, so two share the host's cores. Each test's output is printed
# whole, in the order given, as soon as it and every test before it have
# ended ("== TEST" first, as one at a time); exit status 1 if any failed.
# Each test works in its own temporary directory (lib.sh) and run.sh keeps
# the environment it was given (FRAGD, BUILDDIR, FRAGD_SRCDIR).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/jobs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/jobs.sh"
jobs_max_from "${FRAGD_TEST_JOBS:-2}" FRAGD_TEST_JOBS tests
out=$(mktemp -d)
# shellcheck disable=SC2016 # expanded when the trap runs
jobs_kill_on_stop 'rm -rf "$out"'
trap 'rm -rf "$out"' EXIT

tests=("$@") pids=() next=0 fail=0
# print: the tests at the head of the list that have ended, in order
print() {
	while [ "$next" -lt "${#pids[@]}" ] && jobs_ended "${pids[next]}"; do
		wait "${pids[next]}" 2>/dev/null
		[ "$(cat "$out/$next.rc" 2>/dev/null)" = 0 ] || fail=1
		cat "$out/$next.out"
		next=$((next + 1))
	done
}
for i in "${!tests[@]}"; do
	jobs_slot print
	{
		echo "== ${tests[i]}"
		bash "${tests[i]}"
		echo $? >"$out/$i.rc"
	} >"$out/$i.out" 2>&1 &
	pids+=($!)
	print
done
while [ "$next" -lt "${#pids[@]}" ]; do
	wait -n 2>/dev/null
	print
done
exit $fail
