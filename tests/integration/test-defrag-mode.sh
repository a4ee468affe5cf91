#!/bin/bash
# vm.defrag_mode as a lever (docs/policy.md "defrag_mode") against copies of
# the 6.18 host tree (as any user: every file is below --root):
# 1. the kernel lacks proc/sys/vm/defrag_mode: one log line says the lever
#    is off, fragd_knob_disabled{knob="defrag_mode"} 1, nothing else fails;
# 2. the file is there and reads 0: pagetypeinfo's non-movable blocks grow
#    between two readings (pagetypeinfo_interval = 1min) on a host with THP
#    demand (the boot history's fallen-back faults): fragd writes 1 with the reason and
#    the numbers, journals the original, and SIGTERM puts 0 back;
# 3. the same, then kill -9: fragd --restore puts 0 back;
# 4. found at 1 (someone set it): fragd never owns it and leaves it at 1.
# Cases 2 and 3 wait for the second pagetypeinfo reading: about 65 s each.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/host-6.18-x86_64
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

dm() { cat "$T/proc/sys/vm/defrag_mode"; }
is_on() { [ "$(dm)" = 1 ]; }
# the tree, an uptime and THP faults since boot of which a tenth fell back
# (the boot history's fallbacks are the demand: faults the free lists
# served teach nothing) and a one-minute pagetypeinfo
fresh() {
	fresh_tree "$1" "$FIX"
	echo "3600.00 7000.00" >"$T/proc/uptime"
	sed -i 's/^thp_fault_fallback 0$/thp_fault_fallback 1900/' "$T/proc/vmstat"
	grep -qx 'thp_fault_fallback 1900' "$T/proc/vmstat" || bad "vmstat edit did not apply"
	write_conf "pagetypeinfo_interval = 1min"
}
# 32 Movable pageblocks of the Normal zone become Unmovable: 145 -> 177
# non-movable of 4288 (0.75 %), in a copy renamed over the file
pollute() {
	sed 's/^Node 0, zone   Normal           58         2610 /Node 0, zone   Normal           90         2578 /' \
		"$T/proc/pagetypeinfo" >"$T/pti.new"
	grep -q "Normal           90         2578" "$T/pti.new" || { bad "pagetypeinfo edit did not apply"; return 1; }
	mv "$T/pti.new" "$T/proc/pagetypeinfo"
}
# start, let the first pagetypeinfo reading happen, pollute, wait for 1
turned_on() {
	start_daemon "$T/log"
	wait_for 10 test -s "$T/prom/fragd.prom" || { bad "no metrics: $(tail -3 "$T/log")"; return 1; }
	pollute || return 1
	wait_for 80 is_on
}

# 1. no defrag_mode file
fresh_tree nofile "$FIX"
rm "$T/proc/sys/vm/defrag_mode"
write_conf
start_daemon "$T/log" --dry-run
if wait_for 10 grep -qs '^fragd_knob_disabled{knob="defrag_mode"} 1' "$T/prom/fragd.prom"; then
	pass "no /proc/sys/vm/defrag_mode: fragd_knob_disabled{knob=\"defrag_mode\"} 1"
else
	bad "no disabled metric: $(grep defrag_mode "$T/prom/fragd.prom" 2>&1)"
fi
sleep 1.5
kill -0 "$pid" 2>/dev/null && pass "the daemon runs on" || bad "the daemon died: $(tail -3 "$T/log")"
n=$(grep -c "Lever defrag_mode off: this kernel has no /proc/sys/vm/defrag_mode (it came with Linux 6.15)" "$T/log")
[ "$n" = 1 ] && pass "said once: $(grep 'Lever defrag_mode off' "$T/log" | sed 's/.*Lever/Lever/')" \
	|| bad "said $n times: $(grep -i defrag_mode "$T/log")"
stop
[ ! -e "$T/proc/sys/vm/defrag_mode" ] && pass "no file made" || bad "made proc/sys/vm/defrag_mode"

# 2. turned on by pollution with demand, restored on SIGTERM
fresh on
if turned_on; then
	pass "non-movable blocks grew with THP demand: defrag_mode 0 -> 1"
else
	bad "not turned on in 80 s: $(grep -i -E 'defrag|pagetype' "$T/log" | tail -5)"
fi
line=$(grep "raise defrag_mode 0.1:" "$T/log")
grep -q "non-movable pageblocks grew from 145 to 177 of 4288" <<<"$line" && grep -q "unmet large-folio demand" <<<"$line" \
	&& pass "the reason with its numbers: ${line##*raise }" || bad "no reason line: $(grep -i defrag "$T/log")"
wait_for 5 grep -qs '^fragd_actions_total{knob="defrag_mode",direction="up",reason="pageblock_pollution"} 1' \
	"$T/prom/fragd.prom" && pass "counted: fragd_actions_total{...,reason=\"pageblock_pollution\"} 1" \
	|| bad "no action counter: $(grep defrag_mode "$T/prom/fragd.prom")"
grep -qP '^vm\.defrag_mode\t0\t1\t' "$T/run/fragd/saved" && pass "journaled: vm.defrag_mode original 0, written 1" \
	|| bad "journal: $(cat "$T/run/fragd/saved" 2>&1)"
wait_for 5 grep -qs '^fragd_knob_owned{knob="defrag_mode"} 1' "$T/prom/fragd.prom" \
	&& pass "fragd_knob_owned{knob=\"defrag_mode\"} 1" || bad "owned metric: $(grep defrag_mode "$T/prom/fragd.prom")"
stop
[ "$(dm)" = 0 ] && pass "SIGTERM restored defrag_mode=0" || bad "not restored: $(dm)"

# 3. turned on, then a crash: fragd --restore
fresh crash
if turned_on; then
	kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
	out=$("$FRAGD" --restore --root "$T" 2>&1); rc=$?
	[ $rc = 0 ] && [ "$(dm)" = 0 ] && pass "kill -9, then fragd --restore: defrag_mode=0" \
		|| bad "restore rc=$rc, defrag_mode=$(dm): $out"
else
	bad "not turned on in 80 s (crash case)"
	stop
fi

# 4. found on: someone else's, never owned
fresh_tree outside "$FIX"
echo 1 >"$T/proc/sys/vm/defrag_mode"
write_conf
start_daemon "$T/log"
wait_for 10 grep -qs '^fragd_knob_owned{knob="defrag_mode"} 0' "$T/prom/fragd.prom" \
	&& pass "found at 1: not owned" || bad "owned metric: $(grep defrag_mode "$T/prom/fragd.prom" 2>&1)"
sleep 2
stop
[ "$(dm)" = 1 ] && ! grep -q "vm.defrag_mode" "$T/run/fragd/saved" 2>/dev/null && ! grep -q "defrag_mode 1" "$T/log" \
	&& pass "left at 1, never journaled" || bad "touched: $(dm) $(grep defrag_mode "$T/log")"
finish
