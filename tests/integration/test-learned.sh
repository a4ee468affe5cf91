#!/bin/bash
# The learned reserve across restarts, on a copy of a fixture tree (as any
# user: the state file is <root>/var/lib/fragd/learned): a THP fault burst
# (thp_fault_fallback bumped in the tree's proc/vmstat) is written to the state
# file at once and again at stop; a new start re-instates it by its age (log
# line, `fragd status`, the textfile's reserve target), decayed when older
# than demand_hold, dropped when decayed to nothing; a time in the future
# counts as now; a corrupt file, one from another page size or machine are
# ignored with a clear message and the daemon runs on; kill -9 keeps what was
# written; --dry-run and an empty state_dir write nothing.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented
MIB=1048576
TEST_TAG=learned
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

fresh() { # fresh NAME: fresh copy of the fixture in $T; reserve_thp small so the learned target shows
	# (the first reserve from the counters since boot is section 9's: the
	# bursts below add to them, and its size depends on this host's uptime)
	fresh_tree "$1" "$FIX"
	write_conf "[policy]" "reserve_thp = 1MiB" "reserve_always = yes" "demand_from_boot = no"
	F=$T/var/lib/fragd/learned
}
start() { # start LOGNAME [args...]: daemon in the background, log in $T/LOGNAME
	L=$T/$1; shift
	start_daemon "$L" "$@"
}
running() { wait_for 15 grep -q "running" "$L"; }
burst() { # burst HUGE_PAGES: that many THP faults more in the tree's vmstat, one in
	# eleven of them fallen back (9 %: under max_thp_fallback, so the learned
	# reserve is the reason cited); a burst with fallbacks is learned at its
	# whole size, one served in full teaches nothing (docs/policy.md "Demand
	# worth reserving for")
	local a f n=$(( $1 / 11 > 0 ? $1 / 11 : 1 ))
	a=$(awk '$1 == "thp_fault_alloc" { print $2 }' "$T/proc/vmstat")
	f=$(awk '$1 == "thp_fault_fallback" { print $2 }' "$T/proc/vmstat")
	sed -i "s/^thp_fault_alloc .*/thp_fault_alloc $((a + $1 - n))/; s/^thp_fault_fallback .*/thp_fault_fallback $((f + n))/" "$T/proc/vmstat"
}
key() { sed -n "s/^$1=//p" "$F" 2>/dev/null; }
near() { [ -n "$1" ] && [ -n "$2" ] && [ $(( $1 > $2 ? $1 - $2 : $2 - $1 )) -lt 1000000 ]; } # within 1 s
now_usec() { echo $(( $(date +%s) * 1000000 )); }
# the order-9 reserve targets of both nodes in the textfile, summed: the
# learned need is split over the nodes (by size here: the fixture's per-node
# THP counts do not grow), reserve_thp is per node
target9() { awk '/^fragd_node_reserve_target_bytes\{node="[0-9]+",order="9"\}/ { s += $2; n++ } END { if (n) print s }' "$T/prom/fragd.prom" 2>/dev/null; }
target_is() { local v; v=$(target9); [ -n "$v" ] && [ $(( v > $1 ? v - $1 : $1 - v )) -le 2 ]; } # the split rounds down
target_between() { local v; v=$(target9); [ -n "$v" ] && [ "$v" -gt "$1" ] && [ "$v" -lt "$2" ]; }
write_file() { # write_file PEAK_BYTES REALTIME_USEC [extra lines]: a state file as fragd writes it
	mkdir -p "${F%/*}"
	printf 'version=1\npage_size=4096\nhpage_order=9\n%speak_bytes=%s\npeak_realtime_usec=%s\n' "${3:-}" "$1" "$2" >"$F"
}

# 1. a burst is written at once, and again at stop
fresh burst
before=$(now_usec)
start log1
running || bad "no start: $(tail -3 "$L")"
[ ! -e "$F" ] && pass "no state file before anything is learned" || bad "state file without a burst: $(cat "$F")"
burst 64
if wait_for 10 test -s "$F"; then
	pass "a 64 huge page burst is written to var/lib/fragd/learned while running"
else
	bad "no state file after a burst: $(tail -3 "$L")"
fi
[ "$(key version)" = 1 ] && [ "$(key page_size)" = 4096 ] && [ "$(key hpage_order)" = 9 ] \
	&& pass "version=1, page_size=4096, hpage_order=9" || bad "header: $(cat "$F")"
[ "$(key peak_bytes)" = $((128 * MIB)) ] && pass "peak_bytes=$((128 * MIB)) (64 x 2 MiB)" \
	|| bad "peak_bytes $(key peak_bytes)"
seen=$(key peak_realtime_usec)
after=$(( $(now_usec) + 1000000 ))
[ -n "$seen" ] && [ "$seen" -ge "$before" ] && [ "$seen" -le "$after" ] \
	&& pass "peak_realtime_usec is the wall clock of the burst" || bad "peak_realtime_usec $seen not in [$before, $after]"
[ "$(stat -c %a "$F")" = 644 ] && pass "mode 0644" || bad "mode $(stat -c %a "$F")"
compgen -G "${F%/*}/*tmp*" >/dev/null && bad "temp file left: $(ls "${F%/*}")" || pass "no temp file left"
grep -q "learned reserve, held 30 min" "$L" && pass "the burst raised the target (reserve_learned)" \
	|| bad "no learned decision: $(grep -i raise "$L" | tail -2)"
# the learned_reserve event (on stderr here: no journald), once for the burst
grep -qxF "fragd: Learned reserve: a 128 MiB THP burst to keep ready for (was none)" "$L" \
	&& [ "$(grep -c 'Learned reserve: a ' "$L")" = 1 ] \
	&& pass "learned_reserve event: '$(grep -o 'Learned reserve: a .*' "$L")'" \
	|| bad "learned_reserve event: $(grep -i 'learned reserve' "$L")"
rm -f "$F"
if stop; then pass "SIGTERM: exit 0"; else bad "SIGTERM: exit $?"; fi
# the time is the wall clock now minus the burst's age on the monotonic clock
[ "$(key peak_bytes)" = $((128 * MIB)) ] && near "$(key peak_realtime_usec)" "$seen" \
	&& pass "stop writes the learned burst again (same peak, same time)" || bad "after stop: $(cat "$F" 2>&1)"

# 2. the next start re-instates it: log line, status, textfile target
start log2
running || bad "no restart: $(tail -3 "$L")"
if grep -Eq "Learned reserve from the previous run: 128 MiB burst seen [0-9]+ s ago, kept ready until [0-9:]+ \((29|30) min from now\), then halved every 30 min" "$L"; then
	pass "restart: $(grep -o 'Learned reserve from the previous run.*' "$L")"
else
	bad "no re-instated line: $(cat "$L")"
fi
wait_for 5 target_is $((128 * MIB)) && pass "fragd_node_reserve_target_bytes{order=9} is the learned 128 MiB at once" \
	|| bad "target $(target9), want $((128 * MIB))"
out=$("$FRAGD" status --root "$T" 2>&1)
grep -q "^Learned reserve: 128 MiB kept ready for THP bursts (128 MiB burst seen [0-9]* s ago; held 30 min)" <<<"$out" \
	&& pass "fragd status shows the learned reserve" || bad "status: $out"
grep -Eq "learned reserve, (seen [0-9]+ s ago, )?held 30 min" "$L" && pass "the first decision cites the re-instated burst" \
	|| bad "no decision for the learned target: $(grep -i raise "$L" | tail -2)"
stop >/dev/null
near "$(key peak_realtime_usec)" "$seen" && pass "a restart keeps the burst's time" \
	|| bad "time moved: $(key peak_realtime_usec) != $seen"

# 3. older than demand_hold: decayed by its age; decayed to nothing: dropped
write_file $((128 * MIB)) $(( $(now_usec) - 45 * 60 * 1000000 ))
start log3
running
grep -Eq "Learned reserve from the previous run: 128 MiB burst seen 45 min ago, decayed to (90|91) MiB kept ready now, halved every 30 min" "$L" \
	&& pass "45 min old: decayed to 90.5 MiB (2^-1/2)" || bad "decay line: $(grep -i learned "$L")"
wait_for 5 target_between $((90 * MIB)) $((91 * MIB)) && pass "target $(target9) (90.5 MiB)" || bad "target $(target9)"
stop >/dev/null
write_file $((128 * MIB)) $(( $(now_usec) - 24 * 3600 * 1000000 ))
start log4
running
grep -q "the 128 MiB burst seen 24 h ago has decayed to nothing; dropped" "$L" && pass "a day old: dropped" \
	|| bad "not dropped: $(grep -i learned "$L")"
wait_for 5 target_is $((2 * MIB)) && pass "target back to reserve_thp (1 MiB per node)" || bad "target $(target9)"
stop >/dev/null
[ ! -e "$F" ] && pass "stop removes the file of a forgotten burst" || bad "file left: $(cat "$F")"

# 4. a time in the future counts as now
write_file $((64 * MIB)) $(( $(now_usec) + 3600 * 1000000 ))
start log5
running
grep -Eq "has its burst (59|60) min in the future \(was the clock set back\?\); counting it as seen just now" "$L" \
	&& grep -q "64 MiB burst seen 0 s ago, kept ready until" "$L" && pass "future time: notice, then age 0" \
	|| bad "future: $(grep -i learned "$L")"
stop >/dev/null
[ "$(key peak_realtime_usec)" -le $(( $(now_usec) + 1000000 )) ] && pass "stop writes it back with a time not in the future" \
	|| bad "still in the future: $(key peak_realtime_usec)"

# 5. corrupt, another page size, another machine: ignored, the daemon runs on
for c in corrupt pagesize machine; do
	case $c in
	corrupt) printf 'version=1\npage_size=4096\nhpage_order=9\npeak_bytes=lots\npeak_realtime_usec=1\n' >"$F"
		want="The learned reserve file '$F' is malformed, line 4: peak_bytes is not a decimal number; ignoring it" ;;
	pagesize) write_file $((128 * MIB)) "$(now_usec)"; sed -i 's/^page_size=.*/page_size=65536/' "$F"
		want="The learned reserve file '$F' does not apply here: written with 65536-byte pages, this kernel has 4096; ignoring it" ;;
	machine) echo 0123456789abcdef0123456789abcdef >"$T/etc/machine-id"
		write_file $((128 * MIB)) "$(now_usec)" "machine_id=ffffffffffffffffffffffffffffffff
"
		want="does not apply here: written on another machine (machine-id ffffffffffffffffffffffffffffffff, this one is 0123456789abcdef0123456789abcdef)" ;;
	esac
	start log-$c
	if running && grep -qF "$want" "$L" && kill -0 "$pid" 2>/dev/null; then
		pass "$c file: '$(grep -o "The learned reserve file.*" "$L")', daemon running"
	else
		bad "$c file: $(cat "$L")"
	fi
	wait_for 5 target_is $((2 * MIB)) && pass "$c file: target is reserve_thp alone" || bad "$c: target $(target9)"
	stop >/dev/null || bad "$c: stop failed"
done
[ ! -e "$F" ] && pass "an ignored file is removed at stop when nothing was learned" || bad "left: $(cat "$F")"
# this machine's id is written with the next burst
start log6
running
burst 8
wait_for 10 grep -qs "^machine_id=0123456789abcdef0123456789abcdef$" "$F" && pass "machine_id written" \
	|| bad "no machine_id: $(cat "$F" 2>&1)"

# 6. kill -9: what was written stays
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=
[ "$(key peak_bytes)" = $((16 * MIB)) ] && pass "kill -9 leaves the file written at the burst" || bad "after kill -9: $(cat "$F" 2>&1)"
"$FRAGD" --restore --root "$T" >/dev/null 2>&1

# 5b. a newer fragd's file (a rollback): kept as it is at stop, even after a burst, said once
printf 'version=2\npage_size=4096\nhpage_order=9\npeak_bytes=1\nnew_key=x\n' >"$F"
sum=$(md5sum <"$F")
start log-newer
running
burst 8
sleep 2
stop >/dev/null || bad "newer file: stop failed"
[ "$(md5sum <"$F" 2>/dev/null)" = "$sum" ] && pass "a newer version's file is left as it is at stop" \
	|| bad "newer file changed or removed: $(cat "$F" 2>&1)"
[ "$(grep -c "is in a newer format (version 2, this fragd reads version 1): a newer fragd wrote it; leaving it as it is" "$L")" = 1 ] \
	&& pass "said once: $(grep -o "The learned reserve file.*newer.*" "$L")" || bad "newer file: $(grep -i learned "$L")"
rm -f "$F"

# 7. --dry-run reads the file but writes nothing; state_dir empty keeps nothing
fresh dry
write_file $((32 * MIB)) "$(now_usec)"
sum=$(md5sum <"$F")
start log7 --dry-run
running
grep -q "Learned reserve from the previous run: 32 MiB burst seen" "$L" && pass "dry run re-instates the burst" \
	|| bad "dry run did not read it: $(grep -i learned "$L")"
burst 64
wait_for 10 grep -q "recent THP bursts that fell back or stalled asked for 128 MiB" "$L" || bad "dry run: the burst was not seen"
sleep 1.2
stop >/dev/null
[ "$(md5sum <"$F")" = "$sum" ] && pass "dry run: the file is untouched after a larger burst and stop" || bad "dry run wrote: $(cat "$F")"
fresh empty
start log8 --set daemon.state_dir=
running
burst 64
wait_for 10 grep -q "recent THP bursts that fell back or stalled asked for 128 MiB" "$L" || bad "state_dir empty: the burst was not seen"
stop >/dev/null
[ ! -e "$T/var/lib/fragd" ] && pass "state_dir empty: nothing written" || bad "state_dir empty wrote $(ls -R "$T/var")"

# 9. the first reserve from the kernel's counters since boot (issue 14 item
# 5): 1100000 THP faults before fragd started, 100000 fell back, in the
# tree's proc/uptime of 10 h: 100000 x 2 MiB x 0.122 (one burst at an
# unknown time, aged) = 23.8 GiB, cut to the host's memory (3.8 GiB), then
# at demand_cap of a node (25 %).
fresh_tree boot "$FIX"
write_conf "[policy]" "reserve_thp = 1MiB" "reserve_always = yes"
a=$(awk '$1 == "thp_fault_alloc" { print $2 }' "$T/proc/vmstat")
f=$(awk '$1 == "thp_fault_fallback" { print $2 }' "$T/proc/vmstat")
sed -i "s/^thp_fault_alloc .*/thp_fault_alloc $((a + 1000000))/; s/^thp_fault_fallback .*/thp_fault_fallback $((f + 100000))/" "$T/proc/vmstat"
echo "36000.00 70000.00" >"$T/proc/uptime"
start log9
running
grep -q "No THP burst learned yet: first reserve from the kernel's counters since boot, 1100000 THP faults (100000 fell back) in 10 h since boot: 3.8 GiB, the fallbacks as one burst" "$L" \
	&& pass "fresh start: the first reserve from the counters since boot is logged" \
	|| bad "no first reserve logged: $(grep -i "learned\|burst\|boot" "$L")"
wait_for 10 target_between $((3 * MIB)) $((4096 * MIB)) && pass "fresh start: target $(target9), more than reserve_thp" \
	|| bad "fresh start: target $(target9)"
stop >/dev/null
# a seed is no burst fragd saw: not written as one (the next start takes
# it again from the counters, with their uptime then)
[ ! -e "$T/var/lib/fragd/learned" ] && pass "the boot seed is not saved as a learned burst" \
	|| bad "the boot seed was saved as a learned burst: $(cat "$T/var/lib/fragd/learned")"
grep -q "Learned reserve: a .* THP burst to keep ready for" "$L" \
	&& bad "the boot seed was logged as a learned burst: $(grep "Learned reserve:" "$L")" \
	|| pass "the boot seed is not logged as a learned burst"
# no proc/uptime in the tree: said, nothing seeded, the daemon runs on
fresh_tree boot-no-uptime "$FIX"
write_conf "[policy]" "reserve_thp = 1MiB" "reserve_always = yes"
burst 100000
start log9b
running
grep -q "No first reserve from the kernel's counters since boot: cannot read /proc/uptime" "$L" \
	&& pass "no proc/uptime: said so, nothing seeded" || bad "no proc/uptime: $(grep -i "boot" "$L")"
wait_for 10 target_is $((2 * MIB)) && pass "no proc/uptime: target is reserve_thp alone" || bad "no uptime: target $(target9)"
stop >/dev/null
fresh_tree boot-off "$FIX"
write_conf "[policy]" "reserve_thp = 1MiB" "reserve_always = yes" "demand_from_boot = no"
burst 100000
start log10
running
wait_for 10 target_is $((2 * MIB)) && pass "demand_from_boot = no: target is reserve_thp alone" || bad "boot off: target $(target9)"
grep -q "No THP burst learned yet" "$L" && bad "demand_from_boot = no still seeded" || pass "demand_from_boot = no: nothing seeded"
stop >/dev/null
finish
