#!/bin/bash
# fragd status --format json, fragd pause and fragd resume against a daemon
# on a copy of a fixture tree (--root): the JSON parses and has exactly the
# keys of tests/golden/status-json-keys.txt (without a daemon, running,
# paused, after a crash); pause hands every knob back and keeps observing
# (decisions shown as paused, not applied, fragd_paused 1), survives a
# reload and a restart, leaves a knob another writer changed to it; resume
# acts again; a user that is not root is refused; a symlink or a stale
# socket at the control socket's name; escape sequences in a state file
# fragd did not write reach neither report raw.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented
KEYS=$FRAGD_SRCDIR/tests/golden/status-json-keys.txt
CHECK_KEYS=$FRAGD_SRCDIR/tests/integration/status-json-keys.py
TEST_TAG=status-json
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

knob() { cat "$T/proc/sys/vm/$1"; }
raised() { [ "$(knob compaction_proactiveness)" != "$orig" ]; }
json() { "$FRAGD" status --root "$T" --format json 2>"$work/json.err"; }
# jq-like: json | q 'EXPR' prints EXPR evaluated on the document d
q() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
keys_ok() { # keys_ok WHAT: the JSON in $work/out.json has the golden keys
	local why
	if why=$(python3 "$CHECK_KEYS" "$KEYS" <"$work/out.json" 2>&1); then pass "$1: the JSON has the documented keys"
	else bad "$1: keys differ from $KEYS: $why"; fi
}
snapshot() { # the knob files fragd may write, as one text
	(cd "$T" && for f in proc/sys/vm/* sys/kernel/mm/transparent_hugepage/defrag proc/sys/kernel/task_delayacct; do
		[ -f "$f" ] && printf '%s=%s\n' "$f" "$(cat "$f")"; done)
}
running() { "$FRAGD" status --root "$T" >/dev/null 2>&1; }
prom() { grep "^$1 " "$T/prom/fragd.prom" | awk '{print $2}'; }

fresh_tree run "$FIX"
write_conf "[policy]" "reserve_thp = 20%" "reserve_always = yes"
# node compaction files (plain files here): a compaction is a write of 1
for n in 0 1; do : >"$T/sys/devices/system/node/node$n/compact"; done
compacted() { cat "$T/sys/devices/system/node/node0/compact" "$T/sys/devices/system/node/node1/compact"; }
orig=$(knob compaction_proactiveness)
before=$(snapshot)

# 0. the two golden files agree: the unit test's JSON has exactly these keys
if why=$(python3 "$CHECK_KEYS" "$KEYS" <"$FRAGD_SRCDIR/tests/golden/status.json" 2>&1); then
	pass "tests/golden/status.json has the keys of status-json-keys.txt"
else bad "tests/golden/status.json against the key list: $why"; fi

# 1. no daemon: exit 4, state stopped
json >"$work/out.json"; rc=$?
st=$(q 'd["state"], d["restore_needed"], d["daemon"]["pid"]' <"$work/out.json" 2>&1)
[ $rc = 4 ] && [ "$st" = "stopped False None" ] && pass "no daemon: exit 4, state stopped" \
	|| bad "no daemon: rc=$rc $st $(cat "$work/json.err")"
keys_ok "no daemon"

# 2. running: the knob it raised, the reserve, the cadence, the decision
start_daemon "$T/log"
wait_for 10 raised || bad "no raise in 10 s: $(tail -3 "$T/log")"
wait_for 5 test -S "$T/run/fragd/control" || bad "no control socket"
[ "$(stat -c %a "$T/run/fragd/control")" = 600 ] && pass "control socket is mode 0600" \
	|| bad "control socket mode $(stat -c %a "$T/run/fragd/control")"
sleep 1.2
json >"$work/out.json"; rc=$?
st=$(q 'd["state"], d["paused"], d["daemon"]["pid"] == '"$pid"', d["daemon"]["writes"]' <"$work/out.json" 2>&1)
[ $rc = 0 ] && [ "$st" = "running False True real" ] && pass "running: exit 0, state running, the daemon's pid" \
	|| bad "running: rc=$rc $st"
keys_ok "running"
now=$(knob compaction_proactiveness)
st=$(q '[(k["original"], k["current"], k["writer"]) for k in d["knobs"] if k["name"] == "vm.compaction_proactiveness"]' <"$work/out.json")
[ "$st" = "[('$orig', '$now', 'fragd')]" ] && pass "knobs: compaction_proactiveness $orig -> $now, written by fragd" \
	|| bad "knobs: $st (original $orig, now $now)"
st=$(q 'sorted({(r["node"], r["order"]) for r in d["reserve"]}), all(r["free_bytes"] > 0 and r["target_bytes"] > 0 and r["met"] == (r["free_bytes"] >= r["target_bytes"]) for r in d["reserve"])' <"$work/out.json")
[ "$st" = "[(0, 4), (0, 9), (1, 4), (1, 9)] True" ] && pass "reserve: nodes 0 and 1 at orders 4 and 9 against their targets" \
	|| bad "reserve: $st"
st=$(q 'd["cadence"]["interval_usec"], d["cadence"]["base_interval_usec"], d["cadence"]["next_tick_usec"] > d["daemon"]["updated_usec"] - 2000000' <"$work/out.json")
[ "$st" = "1000000 1000000 True" ] && pass "cadence: 1 s interval, the next tick" || bad "cadence: $st"
st=$(q '[(c["knob"], c["from"], c["to"], c["outcome"]) for c in d["decisions"] if c["knob"] == "compaction_proactiveness"][0], d["decisions"][0]["reason"]' <"$work/out.json")
[ "$st" = "('compaction_proactiveness', '$orig', '$now', 'applied') reserve_below_target" ] \
	&& pass "decisions: the raise with its reason, applied" || bad "decisions: $st"
st=$(q 'd["instance"]["name"] is not None, d["instance"]["source"], d["instance"]["cloud"], d["instance"]["preset"]' <"$work/out.json")
[ "$st" = "True sizing None database" ] && pass "instance: sizing class, no cloud, preset" || bad "instance: $st"
"$FRAGD" status --root "$T" | grep -q "^Instance: .*cloud none recognised" \
	&& pass "text status names the cloud" || bad "text status lacks the cloud: $("$FRAGD" status --root "$T" | head -5)"
[ "$(prom fragd_paused)" = 0 ] && pass "fragd_paused 0 while acting" || bad "fragd_paused: $(prom fragd_paused)"

# 3. a user who is not root: refused, nothing changes
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	chmod o+x "$work" "$T"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$FRAGD" pause --root "$T" 2>&1); rc=$?
	chmod o-x "$work" "$T"
	if [ $rc = 3 ] && grep -q "only root may pause" <<<"$out" && raised; then
		pass "fragd pause as nobody: refused (exit 3), the knob stays"
	else bad "fragd pause as nobody: rc=$rc $out"; fi
else
	echo "SKIP $TEST_TAG: not root or no setpriv: the peer check is tested in test-control"
fi

# 4. pause: every knob back, observing only
out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^paused: " <<<"$out" && pass "fragd pause: exit 0 ($out)" || bad "fragd pause: rc=$rc $out"
[ "$(snapshot)" = "$before" ] && pass "pause: every knob file is back at its value before the daemon" \
	|| bad "pause: knobs differ: $(diff <(echo "$before") <(snapshot) | tr '\n' ' ')"
[ ! -e "$T/run/fragd/saved" ] && pass "pause: the knob journal is empty (removed)" || bad "pause: journal left: $(cat "$T/run/fragd/saved")"
[ -f "$T/run/fragd/paused" ] && pass "pause: the flag in runtime_dir" || bad "pause: no flag file"
json >"$work/out.json"; rc=$?
st=$(q 'd["state"], d["paused"], d["knobs"]' <"$work/out.json")
[ $rc = 0 ] && [ "$st" = "paused True []" ] && pass "status: paused, no knob owned" || bad "status paused: rc=$rc $st"
keys_ok "paused"
"$FRAGD" status --root "$T" | grep -q "^Paused: " && pass "text status says paused" || bad "text status: not paused"
updated=$(q 'd["daemon"]["updated_usec"]' <"$work/out.json")
for n in 0 1; do : >"$T/sys/devices/system/node/node$n/compact"; done
sleep 3
[ -z "$(compacted)" ] && pass "paused 3 s: no node compaction" || bad "paused: a node compaction was written"
[ "$(snapshot)" = "$before" ] && pass "paused 3 s: the fixture still asks, no knob written" \
	|| bad "paused: a knob changed: $(diff <(echo "$before") <(snapshot) | tr '\n' ' ')"
json >"$work/out.json"
st=$(q 'd["daemon"]["updated_usec"] > '"$updated"', [c["outcome"] for c in d["decisions"] if c["knob"] == "compaction_proactiveness"][-1], d["reserve"] != []' <"$work/out.json")
[ "$st" = "True paused True" ] && pass "paused: still observing (status updated, the raise computed and shown as paused)" \
	|| bad "paused observing: $st"
[ "$(prom fragd_paused)" = 1 ] && pass "fragd_paused 1" || bad "fragd_paused: $(prom fragd_paused)"
n=$(grep -c "paused, not applied: raise compaction_proactiveness" "$T/log")
[ "$n" = 1 ] && pass "the log says once (not every tick) that the raise was not applied" \
	|| bad "'paused, not applied' raise lines: $n, want 1"

out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "already paused" <<<"$out" && pass "pause twice: exit 0, already paused" || bad "pause twice: rc=$rc $out"

# 5. a reload keeps the pause
kill -HUP "$pid"; sleep 2.5
json >"$work/out.json"
[ "$(q 'd["state"]' <"$work/out.json")" = paused ] && [ "$(snapshot)" = "$before" ] \
	&& pass "SIGHUP: still paused, no knob written" || bad "after SIGHUP: $(q 'd["state"]' <"$work/out.json")"

# 6. a restart keeps the pause (the flag in runtime_dir)
stop || bad "SIGTERM while paused: exit $?"
[ "$(snapshot)" = "$before" ] || bad "stop while paused changed knobs"
[ ! -e "$T/run/fragd/control" ] && pass "stop removes the control socket" || bad "control socket left after stop"
json >"$work/out.json"; rc=$?
st=$(q 'd["state"], d["paused"]' <"$work/out.json")
[ $rc = 4 ] && [ "$st" = "stopped True" ] && pass "stopped while paused: exit 4, the pause kept for the next start" \
	|| bad "stopped while paused: rc=$rc $st"
start_daemon "$T/log2"
wait_for 5 test -S "$T/run/fragd/control" || bad "restart: no control socket"
sleep 2.5
json >"$work/out.json"
[ "$(q 'd["state"]' <"$work/out.json")" = paused ] && [ "$(snapshot)" = "$before" ] \
	&& pass "restart: paused again, no knob written" || bad "restart: $(q 'd["state"]' <"$work/out.json"), $(tail -3 "$T/log2")"
grep -q "was left by 'fragd pause'" "$T/log2" && pass "restart: the log says why it is paused" || bad "restart: no pause message"
# a fresh daemon wants a node compaction every tick (no cooldown yet): not
# done, and said once per node, not every tick
[ -z "$(compacted)" ] && pass "restart paused: no node compaction" || bad "restart paused: a node compaction was written"
n=$(grep -c "paused, not applied: compact node" "$T/log2")
[ "$n" -ge 1 ] && [ "$n" -le 2 ] && pass "a wanted node compaction is logged once per node ($n lines in 2.5 s)" \
	|| bad "'paused, not applied: compact node' lines: $n in 2.5 s"

# 7. resume: acts again
out=$("$FRAGD" resume --root "$T" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^resumed" <<<"$out" && pass "fragd resume: exit 0" || bad "fragd resume: rc=$rc $out"
wait_for 5 raised && pass "resume: compaction_proactiveness raised again ($(knob compaction_proactiveness))" \
	|| bad "resume: no raise in 5 s"
[ ! -e "$T/run/fragd/paused" ] && pass "resume: the flag is gone" || bad "resume: flag left"
sleep 1.2
json >"$work/out.json"
[ "$(q 'd["state"], d["paused"]' <"$work/out.json")" = "running False" ] && pass "status: running after resume" \
	|| bad "after resume: $(q 'd["state"]' <"$work/out.json")"
[ "$(prom fragd_paused)" = 0 ] && pass "fragd_paused 0 after resume" || bad "fragd_paused after resume: $(prom fragd_paused)"

# 8. a pause while another writer changed a knob: that knob is left to it
echo 77 >"$T/proc/sys/vm/compaction_proactiveness"
out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 0 ] && [ "$(knob compaction_proactiveness)" = 77 ] && grep -q "compaction_proactiveness to another writer (current value 77" <<<"$out" \
	&& pass "pause leaves a knob another writer changed at its value, and says so" || bad "pause with another writer: rc=$rc $(knob compaction_proactiveness) $out"
json >"$work/out.json"
st=$(q '[(k["name"], k["current"], k["writer"]) for k in d["knobs"]]' <"$work/out.json")
[ "$st" = "[('vm.compaction_proactiveness', '77', 'other')]" ] && pass "status: that knob's writer is another" \
	|| bad "status with another writer: $st"
out=$("$FRAGD" resume --root "$T" 2>&1) || bad "resume: $out"
sleep 2
[ "$(knob compaction_proactiveness)" = 77 ] && pass "after resume the other writer's knob is still left alone" \
	|| bad "resume took the other writer's knob: $(knob compaction_proactiveness)"

# 9. a crash: the socket is left stale, status says crashed with knobs left
echo "$orig" >"$T/proc/sys/vm/compaction_proactiveness"
stop || bad "stop: exit $?"
start_daemon "$T/log3"
wait_for 10 running || bad "no daemon: $(tail -3 "$T/log3")"
wait_for 10 raised || bad "no raise after restart"
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
json >"$work/out.json"; rc=$?
st=$(q 'd["state"], d["restore_needed"], [k["name"] for k in d["knobs_left"]], d["knobs"]' <"$work/out.json")
[ $rc = 5 ] && [ "$st" = "crashed True ['vm.compaction_proactiveness'] []" ] \
	&& pass "after kill -9: exit 5, crashed, the knob left changed" || bad "after kill -9: rc=$rc $st"
keys_ok "after a crash"
[ -S "$T/run/fragd/control" ] || bad "kill -9 left no socket (nothing stale to test)"
out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 4 ] && grep -q "not running" <<<"$out" && pass "pause with a stale socket: not running (exit 4)" \
	|| bad "pause with a stale socket: rc=$rc $out"
start_daemon "$T/log4"   # restores the dead one's knob, replaces the stale socket
wait_for 10 running || bad "no daemon after the crash: $(tail -3 "$T/log4")"
wait_for 10 raised || bad "no raise after the crash"
out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 0 ] && pass "a new daemon replaced the stale socket: pause works" || bad "after a stale socket: rc=$rc $out"
out=$("$FRAGD" resume --root "$T" 2>&1) || bad "resume: $out"
stop || bad "stop: exit $?"

# 10. a symlink at the socket's name: left alone, pause refused, knobs untouched by it
ln -s /tmp/not-fragd.sock "$T/run/fragd/control"
start_daemon "$T/log5"
wait_for 10 running || bad "no daemon with a symlink at the socket: $(tail -3 "$T/log5")"
wait_for 10 raised || bad "no raise with a symlink at the socket"
grep -q "control' is a symbolic link, not fragd's control socket: left in place" "$T/log5" \
	&& pass "a symlink at the socket: named in the log, left in place" || bad "symlink: $(grep -i control "$T/log5")"
out=$("$FRAGD" pause --root "$T" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "is not a socket" <<<"$out" && [ "$(readlink "$T/run/fragd/control")" = /tmp/not-fragd.sock ] \
	&& pass "pause through a symlink: refused (exit 1), not followed" || bad "pause through a symlink: rc=$rc $out"
stop || bad "stop: exit $?"
[ -L "$T/run/fragd/control" ] && pass "stop leaves the symlink it did not make" || bad "stop removed the symlink"

# 11. a state file fragd did not write (a tree copied from another host),
# owned by a live process, with escape sequences in its fields: the text
# report prints each as '?', never the raw byte; the JSON escapes them
sleep 60 & owner=$!
start=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$owner/stat")
printf 'fragd-status 1\npid %s %s\nupdated 1796150000000000\nownership respect\nops real\ninfo\tInstance \033[2J\nowned\tvm.x\033]0;pwned\a\t0\t1\t0\ndecision\tlower \233%s \302\2332J end\n' \
	"$owner" "$start" "31m" >"$T/run/fragd/status"
"$FRAGD" status --root "$T" >"$work/esc.txt" 2>&1; rc=$?
if [ $rc = 0 ] && ! LC_ALL=C grep -q $'[\001-\010\013-\037\177\233]' "$work/esc.txt" && ! LC_ALL=C grep -q $'\302\233' "$work/esc.txt" &&
	grep -q '^Instance ?\[2J$' "$work/esc.txt" && grep -q 'vm.x?\]0;pwned?' "$work/esc.txt" &&
	grep -q '^  lower ?31m ?2J end$' "$work/esc.txt"; then
	pass "status (text): escape sequences in a foreign state file print as '?'"
else bad "status (text) with escape sequences: rc=$rc $(od -c "$work/esc.txt" | head -20)"; fi
"$FRAGD" status --root "$T" --format json >"$work/esc.json" 2>&1; rc=$?
if [ $rc = 0 ] && ! LC_ALL=C grep -q $'[\001-\010\013-\037\177]' "$work/esc.json" && grep -q 'vm.x\\u001b\]0;pwned\\u0007' "$work/esc.json"; then
	pass "status (json): the same fields escaped"
else bad "status (json) with escape sequences: rc=$rc $(head -c 600 "$work/esc.json")"; fi
kill "$owner" 2>/dev/null; wait "$owner" 2>/dev/null
rm -f "$T/run/fragd/status"

# 12. usage
"$FRAGD" status --format prom --root "$T" >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && pass "status --format prom: usage error (exit 2)" || bad "status --format prom: rc=$rc"
"$FRAGD" pause extra >/dev/null 2>&1; rc=$?
[ $rc = 2 ] && pass "pause with an argument: usage error" || bad "pause extra: rc=$rc"
finish
