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
result "fails=$FAILS"
finish
