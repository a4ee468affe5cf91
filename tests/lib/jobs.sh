# shellcheck shell=bash
# jobs.sh: running test jobs N at a time, shared by tests/integration/run.sh
# (the integration tests) and tests/vm/suite.sh (the guests). Each runner
# keeps its own queue and prints its jobs' output in the order they were
# started; this file holds what both need:
#   jobs_max_from VALUE VAR WHAT  sets jobs_max from a setting (1 or more)
#   jobs_slot HOOK             wait until fewer than $jobs_max jobs run,
#                              calling HOOK after each job that ends
#   jobs_ended PID             the background job PID has ended
#   jobs_kill_on_stop [CMD]    on INT/TERM: kill every job with its
#                              children (a guest's qemu), run CMD, exit 130

# jobs_max_from VALUE VAR WHAT: sets jobs_max, or says what is wrong (VAR
# the setting's name, WHAT the jobs: "tests") and exits 2
jobs_max_from() {
	if ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
		echo "$2=$1: a number of $3 at a time, 1 or more" >&2
		exit 2
	fi
	jobs_max=$1
}

jobs_slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n 2>/dev/null || true
		"$1"
	done
}

jobs_ended() {
	[[ " $(jobs -rp | tr '\n' ' ') " != *" $1 "* ]]
}

# shellcheck disable=SC2317 # called by the INT/TERM trap
jobs_kill_tree() {
	local c
	for c in $(pgrep -P "$1" || true); do jobs_kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}

jobs_kill_on_stop() {
	# shellcheck disable=SC2064,SC2154 # CMD is fixed now; p is the trap's own
	trap "for p in \$(jobs -p); do jobs_kill_tree \"\$p\"; done; ${1:-:}; exit 130" INT TERM
}
