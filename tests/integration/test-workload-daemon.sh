#!/bin/bash
# Watched cgroups end to end, as any user (every file is below --root): the
# daemon against a fixture tree with a cgroup2 hierarchy (a 2-node VM capture
# plus tests/fixtures/synthetic-cgroup-v2 on top) exports fragd_cgroup_* for a
# present and an absent configured cgroup, shows them in `fragd status`,
# turns kernel.task_delayacct on through the knob journal (enable_delayacct)
# and restores it on stop, never writes a PSI trigger into the tree's
# memory.pressure, and picks up a new [cgroup] on SIGHUP. Then `fragd --once`
# with the cgroups array, `fragd --features`, and `fragd thp-dropin` exit codes.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

fresh_tree cg "$FIX/vm-6.1-x86_64-2node-fragmented" "$FIX/synthetic-cgroup-v2"
write_conf "enable_delayacct = yes" \
	'[cgroup "system.slice/system-postgresql.slice/postgresql@15-main.service"]' "thp = always" "collapse = yes" "stall_budget = 200ms" \
	'[cgroup "system.slice/mysql.service"]'
PROM=$T/prom/fragd.prom
PG=system.slice/system-postgresql.slice/postgresql@15-main.service
pressure_before=$(md5sum <"$T/sys/fs/cgroup/$PG/memory.pressure")

series() { grep -qxF "$1" "$PROM" 2>/dev/null; }

start_daemon "$T/log"

# 1. metrics: the present cgroup with its series, the absent one as present=0
if wait_for 10 series "fragd_cgroup_present{cgroup=\"$PG\"} 1"; then
	pass "fragd_cgroup_present=1 for the configured $PG"
else
	bad "no fragd_cgroup_present=1 for $PG: $(grep cgroup "$PROM" 2>/dev/null | head -3) $(tail -3 "$T/log")"
fi
series 'fragd_cgroup_present{cgroup="system.slice/mysql.service"} 0' \
	&& pass "a missing configured cgroup is exported as present=0" || bad "no present=0 for the missing cgroup"
grep -q "^fragd_cgroup_thp_bytes{cgroup=\"$PG\",kind=\"anon\"} 201326592$" "$PROM" \
	&& pass "fragd_cgroup_thp_bytes from the cgroup's memory.stat" || bad "no anon THP bytes for $PG"
grep -q "^fragd_cgroup_memory_pressure_stalled_seconds_total{cgroup=\"$PG\",kind=\"some\"} 0.38$" "$PROM" \
	&& pass "fragd_cgroup_memory_pressure_stalled_seconds_total from memory.pressure" || bad "no cgroup PSI series"
series "fragd_cgroup_thp_mechanism{cgroup=\"$PG\",mechanism=\"madv_collapse\"} 1" \
	&& pass "THP mechanism madv_collapse for thp=always collapse=yes" || bad "no mechanism series"
if grep -q 'fragd_cgroup_delay_seconds_total' "$PROM"; then
	bad "delay series exported although attribution is off under --root"
else
	pass "no delay series without stall attribution (netlink off under --root)"
fi
if grep -qiE "error|failed" "$T/log"; then bad "errors logged: $(grep -iE 'error|failed' "$T/log" | head -3)"; else pass "no error logged for the absent cgroup"; fi
kill -0 "$pid" 2>/dev/null && pass "daemon running" || bad "daemon died: $(tail -5 "$T/log")"

# 2. enable_delayacct: through the knob journal, restored on stop
[ "$(cat "$T/proc/sys/kernel/task_delayacct")" = 1 ] && pass "enable_delayacct set kernel.task_delayacct=1" \
	|| bad "task_delayacct not set: $(cat "$T/proc/sys/kernel/task_delayacct")"
grep -q "^kernel.task_delayacct	0	1	" "$T/run/fragd/saved" 2>/dev/null \
	&& pass "kernel.task_delayacct journaled with its original 0" || bad "task_delayacct not in run/fragd/saved"
grep -q "tasks started before now are not covered" "$T/log" && pass "the log says older tasks are not covered" \
	|| bad "no note about older tasks"

# 3. fragd status: the cgroups with their THP mechanism and stall line
out=$("$FRAGD" status --root "$T" 2>&1); rc=$?
if [ $rc = 0 ] && grep -q "^  $PG: present, THP via collapse (" <<<"$out" \
	&& grep -q "^  system.slice/mysql.service: absent$" <<<"$out" \
	&& grep -q "stall attribution unavailable (disabled)" <<<"$out"; then
	pass "fragd status lists the watched cgroups"
else
	bad "status rc=$rc: $out"
fi

# 4. SIGHUP with a new [cgroup]: watched from then on
printf '[cgroup "batch.slice"]\n' >>"$T/etc/fragd/fragd.conf"
kill -HUP "$pid"
wait_for 5 series 'fragd_cgroup_present{cgroup="batch.slice"} 1' \
	&& pass "SIGHUP adds the new cgroup" || bad "batch.slice not watched after SIGHUP: $(tail -3 "$T/log")"

# 5. stop: exit 0, delayacct restored, memory.pressure untouched
stop; rc=$?
[ $rc = 0 ] && pass "SIGTERM: exit 0" || bad "SIGTERM: exit $rc: $(tail -5 "$T/log")"
[ "$(cat "$T/proc/sys/kernel/task_delayacct")" = 0 ] && pass "kernel.task_delayacct restored to 0 on stop" \
	|| bad "task_delayacct not restored"
[ "$(md5sum <"$T/sys/fs/cgroup/$PG/memory.pressure")" = "$pressure_before" ] \
	&& pass "no PSI trigger written into the tree's memory.pressure" || bad "memory.pressure was written"

# 6. without [cgroup] sections: no workload at all
T2=$work/plain
mkdir -p "$T2"; cp -r "$FIX/vm-6.1-x86_64-2node-fragmented/." "$T2/"
"$FRAGD" --root "$T2" --page-size 4096 --dry-run --set daemon.interval=1s --set "daemon.textfile_dir=/" \
	>"$T2/log" 2>&1 &
pid=$!
wait_for 10 test -s "$T2/fragd.prom"
stop
if ! grep -q "Watching" "$T2/log" && ! grep -q fragd_cgroup_ "$T2/fragd.prom"; then
	pass "no cgroups configured: no workload, no cgroup series"
else
	bad "workload without [cgroup]: $(grep Watching "$T2/log")"
fi

# 7. fragd --once: the cgroups array (JSON), the section (text)
if "$FRAGD" --once --format json --root "$T" --page-size 4096 >"$work/once.json" 2>"$work/once.err" &&
	python3 - "$work/once.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
cg = {c["cgroup"]: c for c in j["cgroups"]}
assert cg["system.slice/system-postgresql.slice/postgresql@15-main.service"]["present"] is True, cg
assert cg["system.slice/system-postgresql.slice/postgresql@15-main.service"]["processes"] == 3, cg
assert cg["system.slice/system-postgresql.slice/postgresql@15-main.service"]["anon_thp"] == 201326592, cg
assert cg["system.slice/mysql.service"]["present"] is False, cg
assert cg["batch.slice"]["present"] is True, cg
assert all(c["attribution"] == "disabled" for c in cg.values()), cg
PY
then
	pass "fragd --once --format json has the cgroups array"
else
	bad "once json: $(cat "$work/once.err")"
fi
out=$("$FRAGD" --once --root "$T" --page-size 4096 2>/dev/null)
grep -q "^Watched cgroups:" <<<"$out" && grep -q "^  $PG: present, 3 processes" <<<"$out" \
	&& pass "fragd --once text has the cgroup section" || bad "once text: $out"
out=$("$FRAGD" --once --format json --root "$FIX/vm-6.1-x86_64-2node-fragmented" --page-size 4096 2>/dev/null)
python3 -c 'import json,sys; sys.exit("cgroups" in json.loads(sys.stdin.read()))' <<<"$out" \
	&& pass "no cgroups key without [cgroup] sections" || bad "cgroups key without configuration"
"$FRAGD" --once --format prom --root "$T" --page-size 4096 2>/dev/null | grep -qxF "fragd_cgroup_present{cgroup=\"$PG\"} 1" \
	&& pass "fragd --once --format prom has the cgroup series" || bad "once prom without cgroup series"

# 8. --features still lists the daemon
"$FRAGD" --features | grep -qx daemon && pass "--features lists daemon" || bad "--features: $("$FRAGD" --features)"

# 9. thp-dropin: usage errors exit 2; otherwise a drop-in (0), no ExecStart (1) or no system bus (3)
"$FRAGD" thp-dropin postgresql@15-main.service always >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && pass "thp-dropin with mode always: exit 2" || bad "thp-dropin always: exit $rc"
"$FRAGD" thp-dropin postgresql@15-main.service >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && pass "thp-dropin without a mode: exit 2" || bad "thp-dropin no mode: exit $rc"
out=$("$FRAGD" thp-dropin fragd-test-nonexistent.service never 2>&1); rc=$?
case $rc in
3) grep -q "(no system bus): run on the host where the unit is installed" <<<"$out" \
	&& pass "thp-dropin without a system bus: exit 3 with the hint" || bad "thp-dropin exit 3 without the hint: $out" ;;
0) grep -q "MemoryTHP=\|ExecStart=" <<<"$out" && pass "thp-dropin printed a drop-in" || bad "thp-dropin output: $out" ;;
1) pass "thp-dropin for an unknown unit: exit 1 ($out)" ;;
*) bad "thp-dropin: exit $rc: $out" ;;
esac
finish
