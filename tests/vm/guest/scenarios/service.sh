# shellcheck shell=sh
# service.sh - fragd as a systemd service, in the systemd guest (run by
# /vm/runner under bash): enable --now, status shows STATUS=, reload, stop
# restores every knob, kill -9 + automatic restart + stop restores them too.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

log "systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), state $(systemctl is-system-running), kernel $(uname -r)"
if fragd --version >/dev/null 2>&1; then
	pass "fragd runs in the systemd guest: $(fragd --version | head -n 1)"
else
	fail "fragd does not run in the systemd guest (missing libraries?)"
	fragd --version || true
	finish
fi
fragd_require
if systemctl cat fragd.service >/dev/null 2>&1; then pass "fragd.service installed"; else fail "no fragd.service"; fi

knobs_snapshot >/tmp/knobs.orig
unit_pid() { systemctl show -p MainPID --value fragd; }
wait_active() { # wait_active [OLD_PID]: active with a main PID other than OLD_PID
	i=0
	while [ $i -lt 100 ]; do
		p=$(unit_pid)
		if [ "$(systemctl is-active fragd)" = active ] && [ "$p" != 0 ] && [ "$p" != "${1:-}" ]; then
			return 0
		fi
		sleep 0.2
		i=$((i + 1))
	done
	return 1
}
restored() { # restored WHAT: every knob back at its value from before fragd
	knobs_snapshot >/tmp/knobs.now
	if cmp -s /tmp/knobs.orig /tmp/knobs.now; then
		pass "every knob restored after $1"
	else
		fail "knobs not restored after $1:"
		diff /tmp/knobs.orig /tmp/knobs.now || true
	fi
}

# enable --now
if systemctl enable --now fragd; then pass "systemctl enable --now fragd"; else fail "systemctl enable --now fragd"; fi
if wait_active; then pass "fragd active"; else fail "fragd not active"; fi
if [ "$(systemctl is-enabled fragd)" = enabled ]; then pass "fragd enabled"; else fail "fragd not enabled"; fi
sleep 3
knobs_snapshot >/tmp/knobs.running
if knobs_in_bounds /tmp/knobs.running; then pass "knobs within bounds while running"; fi
st=$(systemctl show -p StatusText --value fragd)
if [ -n "$st" ]; then pass "status shows STATUS: $st"; else fail "no STATUS= from fragd"; fi
systemctl status --no-pager fragd 2>&1 | head -n 12 || true

# reload: same process, still active
pid=$(unit_pid)
if systemctl reload fragd; then pass "systemctl reload fragd"; else fail "systemctl reload fragd"; fi
sleep 1
if [ "$(systemctl is-active fragd)" = active ] && [ "$(unit_pid)" = "$pid" ]; then
	pass "active after reload, same PID"
else
	fail "after reload: $(systemctl is-active fragd), PID $pid -> $(unit_pid)"
fi

# stop restores
if systemctl stop fragd; then pass "systemctl stop fragd"; else fail "systemctl stop fragd"; fi
restored "systemctl stop"

# kill -9: systemd restarts it; the next stop still restores the originals
systemctl start fragd
wait_active || true
sleep 2
pid=$(unit_pid)
kill -9 "$pid"
if wait_active "$pid"; then pass "restarted after kill -9 (PID $pid -> $(unit_pid))"; else fail "not restarted after kill -9"; fi
sleep 2
systemctl stop fragd
restored "kill -9, restart and stop"
journalctl -b -u fragd --no-pager 2>/dev/null | tail -n 30 | sed 's/^/journal: /'

# --- journal events (issue 15): each kind is a native journal entry with
# its MESSAGE_ID (systemd/fragd.catalog), found with journalctl
# MESSAGE_ID=...; provoked with a config that makes fragd move quickly
ID_RAISED=b02f36ec631f4755841ad419f082ce08
ID_LOWERED=cd516d67813b419b807b1c09bae4b4ae
ID_RESTORED=87fe55211fd841a4b4f2f510b4fb8fd5
ID_YIELDED=5bcdf394557042c0a5a95b7d96225973
# shellcheck disable=SC2034 # read through eval below
ID_BACKOFF=ecb432f8bb5a4e7d98f1cca13aa16610
# shellcheck disable=SC2034
ID_ROLLBACK=74e2e44b8463415c86996c7d9edef3ed
ID_COMPACTION=5e790dcdc4df440580e1835df295bb84
ID_LEARNED=f06e96b124574574af88e51be6109110
# as the Debian package's systemd trigger does on install
if journalctl --update-catalog && journalctl --list-catalog 2>/dev/null | grep -q "^$ID_RAISED fragd: "; then
	pass "journalctl --update-catalog: fragd's catalog registered ($(journalctl --list-catalog | grep -c ' fragd: ') entries)"
else
	fail "fragd's catalog not in journalctl --list-catalog"
fi
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1
# one journalctl call per poll (each is slow under TCG): "COUNT ID" lines
journal_ids() {
	journalctl -q -b -u fragd --since "$since" -o export 2>/dev/null | sed -n 's/^MESSAGE_ID=//p' |
		sort | uniq -c | awk '{ print $1, $2 }' >/tmp/ids
}
n_events() { awk -v id="$1" '$2 == id { n = $1 } END { print n + 0 }' /tmp/ids; }
T_EVENTS=$(cut -d. -f1 /proc/uptime)
wait_events() { # wait_events SECONDS ID...: until each ID has at least one entry (or the time is up)
	end=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	while :; do
		journal_ids
		missing=
		for id in "$@"; do [ "$(n_events "$id")" -gt 0 ] || missing="$missing $id"; done
		[ -n "$missing" ] || return 0
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { log "still missing after the wait:$missing"; return 1; }
		sleep 2
	done
}
progress() { log "events at +$(($(cut -d. -f1 /proc/uptime) - T_EVENTS)) s: $(tr '\n' ' ' </tmp/ids)"; }
mkdir -p /etc/fragd/fragd.conf.d
cat >/etc/fragd/fragd.conf.d/50-events.conf <<'CONF'
# service.sh: the event kinds within a few minutes: a short decay, a slow
# one-step-at-a-time lowering (so that a stop right after the first one
# finds the knob still raised), one-shot compaction whenever a reserve is
# short and PSI is no obstacle
[policy]
decay_after = 15s
oneshot_below = 100%
oneshot_min_interval = 1min
calm_psi_some = 100%
psi_some_ceiling = 100%
psi_full_ceiling = 100%
[knob "compaction_proactiveness"]
max = 30
step_up = 10
step_down = 5
dwell = 20s
reversal_cooldown = 3s
CONF
knob_set thp/enabled madvise
knob_set thp/defrag madvise
fragmenter_start --chunk-mb 16 --churn 2 --interval-ms 100 --report 0
log "fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"
systemctl start fragd
wait_active || fail "fragd not active with the events config"
# THP bursts (MADV_HUGEPAGE): the learned reserve
(while :; do consumer --mb 128 --cycles 2 --interval-ms 1000 >/dev/null 2>&1; sleep 3; done) &
CONS_PID=$!
bg_started $CONS_PID
wait_events 150 $ID_RAISED || true
progress
wait_events 60 $ID_LEARNED $ID_COMPACTION || true
# lowered once the targets are met; stopped right after the first step,
# with the knob still above its original: restored
wait_events 120 $ID_LOWERED || true
systemctl stop fragd
wait_events 20 $ID_RESTORED || true
progress
# again, with a THP reserve of half the memory (a raise at once): when
# fragd has raised a knob, another writer changes it: yielded
sed -i 's/^\[policy\]$/[policy]\nreserve_thp = 50%/' /etc/fragd/fragd.conf.d/50-events.conf
journal_ids
n0=$(n_events $ID_RAISED)
systemctl start fragd
wait_active || true
end=$(($(cut -d. -f1 /proc/uptime) + 90))
while journal_ids && [ "$(n_events $ID_RAISED)" -le "$n0" ] && [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do sleep 2; done
owned=$(journalctl -q -b -u fragd --since "$since" MESSAGE_ID=$ID_RAISED -o export 2>/dev/null |
	sed -n 's/^FRAGD_KNOB=vm\.//p' | tail -n 1)
if [ "$(n_events $ID_RAISED)" -gt "$n0" ] && [ -n "$owned" ]; then
	cur=$(sysctl -n "vm.$owned")
	sysctl -q -w "vm.$owned=$((cur + 1))"
	log "sysctl -w vm.$owned=$((cur + 1)) (fragd had $cur)"
	wait_events 30 $ID_YIELDED || true
else
	# seen in this guest when the yield came in the first run (before the
	# restore, which then had nothing left); the second run does not always
	# raise: the first run's compaction met the reserve
	log "no second raise in 90 s: nothing to yield"
	NO_YIELD=1
fi
progress
kill "$CONS_PID" 2>/dev/null || true
wait "$CONS_PID" 2>/dev/null || true
systemctl stop fragd
fragmenter_stop
rm -f /etc/fragd/fragd.conf.d/50-events.conf

# back-off and rollback need a raise that does not pay, or memory pressure
# rising after one: the guest's fragmenter does neither in reasonable time
# (raises paid off within a dwell in every run), so they are reported when
# seen, not required; tests/unit/test-lever.c proves their entries
for kind in RAISED LOWERED RESTORED YIELDED COMPACTION LEARNED BACKOFF ROLLBACK; do
	eval id=\$ID_$kind
	journalctl -q -b -u fragd --since "$since" MESSAGE_ID="$id" -o cat >/tmp/entries 2>/dev/null || true
	n=$(grep -c . /tmp/entries || true)
	ex=$(head -n 1 /tmp/entries | cut -c1-150)
	if [ "$n" -gt 0 ]; then
		pass "journalctl MESSAGE_ID=$id ($kind): $n entries, e.g. '$ex'"
	elif [ "$kind" = BACKOFF ] || [ "$kind" = ROLLBACK ] || { [ "$kind" = YIELDED ] && [ "${NO_YIELD:-0}" = 1 ]; }; then
		log "journalctl MESSAGE_ID=$id ($kind): not provoked in this run (not required; tests/unit proves it)"
	else
		fail "journalctl MESSAGE_ID=$id ($kind): no entry"
	fi
done
# the fields and priority of a knob change, and journalctl -x explains it
e=$(journalctl -q -b -u fragd --since "$since" MESSAGE_ID=$ID_RAISED -n 1 -o export 2>/dev/null | grep -a '^[A-Z_]*=')
for f in PRIORITY=5 FRAGD_EVENT=knob_raised SYSLOG_IDENTIFIER=fragd; do
	if printf '%s\n' "$e" | grep -qx "$f"; then pass "knob_raised entry has $f"; else fail "knob_raised entry lacks $f"; fi
done
for f in FRAGD_KNOB FRAGD_FROM FRAGD_TO FRAGD_REASON; do
	v=$(printf '%s\n' "$e" | sed -n "s/^$f=//p")
	if [ -n "$v" ]; then pass "knob_raised entry: $f=$v"; else fail "knob_raised entry has no $f"; fi
done
k=$(printf '%s\n' "$e" | sed -n 's/^FRAGD_KNOB=//p')
if [ -n "$k" ] && [ "$(journalctl -q -b -u fragd FRAGD_KNOB="$k" -o cat | grep -c .)" -gt 0 ]; then
	pass "journalctl -u fragd FRAGD_KNOB=$k: $(journalctl -q -b -u fragd FRAGD_KNOB="$k" -o cat | grep -c .) entries"
else
	fail "journalctl -u fragd FRAGD_KNOB=$k finds nothing"
fi
if journalctl -x -q -b -u fragd MESSAGE_ID=$ID_RAISED --no-pager 2>/dev/null | grep -q "Subject: fragd raised"; then
	pass "journalctl -x explains it: $(journalctl -x -q -b -u fragd MESSAGE_ID=$ID_RAISED --no-pager | grep -m1 'Subject:' | sed 's/^[ \t-]*//')"
else
	fail "journalctl -x shows no catalog text"
	journalctl -x -q -b -u fragd MESSAGE_ID=$ID_RAISED --no-pager | head -n 12
fi
if [ "$(n_events $ID_RESTORED)" -gt 0 ]; then
	r=$(journalctl -q -b -u fragd --since "$since" MESSAGE_ID=$ID_RESTORED -o export | sed -n 's/^FRAGD_REASON=//p' | sort -u | tr '\n' ' ')
	log "knob_restored reasons: $r"
fi
journalctl -b -u fragd --since "$since" --no-pager -o cat 2>/dev/null | grep -Ev "^fragd 0.1|taking ownership" | tail -n 80 | sed "s/^/events journal: /"
result "fails=$FAILS"
finish
