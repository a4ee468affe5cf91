# shellcheck shell=bash
# Helpers for the integration tests that run the daemon against a copy of a
# fixture tree (as any user: every file is below --root). Sourced, never run:
# the Makefile runs tests/integration/test-*.sh only. Sourcing it sets
#   fail=0 pid=      the script ends with `finish` (exit $fail); pid is the daemon's
#   work             a temp dir, removed on exit (the daemon is killed first)
# and defines pass/bad (PASS/FAIL lines, prefixed "$TEST_TAG: " when the
# test set TEST_TAG before sourcing), fresh_tree, write_conf, start_daemon,
# wait_for and stop. Needs FRAGD.
: "${FRAGD:?}"
fail=0 pid=
pass() { echo "PASS ${TEST_TAG:+$TEST_TAG: }$*"; }
# shellcheck disable=SC2034 # fail is the sourcing test's exit status
bad() { echo "FAIL ${TEST_TAG:+$TEST_TAG: }$*"; fail=1; }
work=$(mktemp -d)
# A script that ends anywhere but at `finish` (a killed shell, an unbound
# variable, an early exit) fails, whatever its exit status: a check that
# never ran is not a pass.
lib_finished=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local rc=$?
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$work"
	if [ -z "$lib_finished" ]; then
		echo "FAIL ${TEST_TAG:+$TEST_TAG: }$(basename "$0") ended before its last check (exit status $rc)"
		exit 1
	fi
}
trap cleanup EXIT
finish() { lib_finished=1; exit "$fail"; } # the last line of every test

fresh_tree() { # fresh_tree NAME FIXTURE-DIR...: T=$work/root.NAME, fixtures copied in order
	T=$work/root.$1; shift
	rm -rf "$T"; mkdir -p "$T"
	local fix
	for fix; do cp -r "$fix/." "$T/"; done
	mkdir -p "$T/etc/fragd" "$T/prom"
}
write_conf() { # write_conf [LINES...]: $T/etc/fragd/fragd.conf, a 1 s [daemon]
	# writing $T/prom/fragd.prom (textfile_dir = /prom: a path inside --root),
	# then LINES (more [daemon] keys, sections); a textfile_dir line among
	# them replaces the default one (a key set twice in a file is an error)
	local l own=
	for l in "$@"; do case $l in textfile_dir*) own=1 ;; esac; done
	{
		printf '[daemon]\ninterval = 1s\n'
		[ -n "$own" ] || printf 'textfile_dir = /prom\n'
		[ $# = 0 ] || printf '%s\n' "$@"
	} >"$T/etc/fragd/fragd.conf"
}
start_daemon() { # start_daemon LOG [args...]: fragd --root $T in the background
	local log=$1; shift
	"$FRAGD" --root "$T" --page-size 4096 "$@" >"$log" 2>&1 &
	pid=$!
}
wait_for() { # wait_for SECONDS CMD...: poll until CMD succeeds
	local t=$(( $1 * 10 )); shift
	while [ $t -gt 0 ]; do "$@" && return 0; sleep 0.1; t=$((t - 1)); done
	return 1
}
stop() { kill -TERM "$pid"; wait "$pid"; local rc=$?; pid=; return $rc; }
