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
ID_BACKOFF=ecb432f8bb5a4e7d98f1cca13aa16610
ID_ROLLBACK=74e2e44b8463415c86996c7d9edef3ed
ID_COMPACTION=5e790dcdc4df440580e1835df295bb84
ID_LEARNED=f06e96b124574574af88e51be6109110
ID_HELD=10f8793bfbe44c60a4216b44d7dc33de
ID_HOLD_ENDED=20d692170f6949f680eb0a486d6d2316
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
# the learned need held and decayed in seconds: while it lasts it keeps
# proactiveness at the level that holds it (docs/policy.md "Between
# bursts"), so the lowering comes only once it has decayed
demand_hold = 15s
demand_decay = 10s
oneshot_below = 100%
oneshot_min_interval = 1min
# no kcompactd kicks: while fragd kicks there is no one-shot compaction
# (docs/policy.md "Kicks and the aim"), and this run wants its event
kick_interval = 0
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
# defrag=never: a fault that finds no free order-9 block falls back at once
# (under madvise kcompactd and direct compaction served every burst here,
# and a burst served in full teaches fragd nothing)
knob_set thp/defrag never
fragmenter_start --chunk-mb 16 --churn 2 --interval-ms 100 --report 0
log "fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"
systemctl start fragd
wait_active || fail "fragd not active with the events config"
# THP bursts (MADV_HUGEPAGE) larger than the order>=9 blocks free when
# each starts (the fragmenter leaves about 300 MiB): part of each falls
# back, the demand fragd learns its reserve from. A fixed 384 MiB was
# served in full in one run (kcompactd had rebuilt enough between bursts:
# 15361 THP faults, none fell back), and a burst served in full teaches
# fragd nothing; 128 MiB over what is free in blocks, 384 to 1024 MiB
(while :; do
	mb=$(($(free_huge_mb) + 128))
	[ "$mb" -ge 384 ] || mb=384
	[ "$mb" -le 1024 ] || mb=1024
	consumer --mb "$mb" --cycles 2 --interval-ms 1000 >/dev/null 2>&1
	sleep 3
done) &
CONS_PID=$!
bg_started $CONS_PID
wait_events 150 $ID_RAISED || true
progress
wait_events 60 $ID_LEARNED $ID_COMPACTION || true
# the bursts end: lowered once the targets are met and the learned need has
# decayed; stopped right after the first step, with the knob still above
# its original: restored
kill "$CONS_PID" 2>/dev/null || true
wait "$CONS_PID" 2>/dev/null || true
wait_events 120 $ID_LOWERED || true
systemctl stop fragd
wait_events 20 $ID_RESTORED || true
progress
fragmenter_stop
# a missing textfile directory (no node_exporter in this guest) is said
# once per start, not every interval
n=$(journalctl -q -b -u fragd --since "$since" -o cat | grep -c "Metrics textfile directory '/var/lib/prometheus/node-exporter' does not exist" || true)
if [ "$n" = 1 ]; then
	pass "missing textfile directory said once in the first events run"
else
	fail "missing textfile directory said $n times in the first events run (want 1)"
fi
rm -f /etc/fragd/fragd.conf.d/50-events.conf

# --- pause, resume, rollback, back-off, yield: a target fragd keeps
# raising for and never meets. A THP reserve of 1 GiB with about 600 MiB
# free: free memory is short, so fragd raises watermark_scale_factor at
# once ("no material" for compaction). It raises only where free memory +
# what kswapd could reclaim (the node's file LRU + reclaimable slab) reaches
# the reserve (held: nothing_to_reclaim otherwise, docs/policy.md), so the
# guest holds 1 GiB of page cache in a cgroup with memory.min: the kernel
# counts it in the file LRU, but reclaim never takes it, so the target
# stays unmet and the raise gains nothing. Without the fragmenter, free
# memory stays above the raised watermarks (kswapd has nothing to do) and
# the PSI rise is the squeeze's. The file is sparse: reading it fills the
# page cache without writing the disk
CACHE_CG=/sys/fs/cgroup/fragd-test-cache
CACHE_FILE=/var/tmp/fragd-test-cache
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
mkdir -p "$CACHE_CG"
echo 1100M >"$CACHE_CG/memory.min"
truncate -s 1024M "$CACHE_FILE"
sh -c 'echo $$ >"$1/cgroup.procs" && exec cat "$2"' sh "$CACHE_CG" "$CACHE_FILE" >/dev/null ||
	log "reading $CACHE_FILE in $CACHE_CG failed"
cached=$(($(sed -n 's/^file //p' "$CACHE_CG/memory.stat") / 1048576))
if [ "$cached" -ge 900 ]; then
	pass "$cached MiB of page cache under memory.min $(cat "$CACHE_CG/memory.min") in $CACHE_CG"
else
	fail "only $cached MiB of page cache in $CACHE_CG (want 1024)"
fi
log "free $(awk '/^MemFree/ { print int($2 / 1024) }' /proc/meminfo) MiB, file LRU $(awk '/^(Active|Inactive)\(file\)/ { s += $2 } END { print int(s / 1024) }' /proc/meminfo) MiB"
mkdir -p /var/lib/prometheus/node-exporter # the unit's ReadWritePaths=-... binds it when it exists
PROM=/var/lib/prometheus/node-exporter/fragd.prom
cat >/etc/fragd/fragd.conf.d/60-unmet.conf <<'CONF'
# service.sh: a target free memory cannot hold; rollback on any rise of
# memory PSI full within the hour after a raise, no back-off yet
[policy]
reserve_thp = 1G
reserve_always = yes
rollback_window = 1h
rollback_psi_full_rise = 0.01%
backoff_decisions = 1000
backoff_hold = 5s
CONF
knobs_snapshot >/tmp/knobs.orig2
n_changes() { echo $(($(n_events $ID_RAISED) + $(n_events $ID_LOWERED) + $(n_events $ID_ROLLBACK) + $(n_events $ID_BACKOFF))); }
wait_raise() { # wait_raise SECONDS BASE: more than BASE knob_raised entries
	end=$(($(cut -d. -f1 /proc/uptime) + $1))
	while journal_ids && [ "$(n_events $ID_RAISED)" -le "$2" ]; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || return 1
		sleep 1
	done
}
journal_ids
r0=$(n_events $ID_RAISED)
systemctl start fragd
wait_active || fail "fragd not active with the unmet-target config"
if wait_raise 30 "$r0"; then
	pass "unmet target: fragd raised a knob"
else
	fail "unmet target: no raise in 30 s"
fi
knobs_snapshot >/tmp/knobs.raised
# pause: every knob handed back, status and metric say paused, nothing written
if out=$(fragd pause 2>&1); then pass "fragd pause: $out"; else fail "fragd pause failed: $out"; fi
knobs_snapshot >/tmp/knobs.now
if cmp -s /tmp/knobs.orig2 /tmp/knobs.now; then
	if cmp -s /tmp/knobs.orig2 /tmp/knobs.raised; then log "no knob was raised at the pause (a rollback came first)"; fi
	pass "every knob at its original value after fragd pause"
else
	fail "knobs after fragd pause:"
	diff /tmp/knobs.orig2 /tmp/knobs.now || true
fi
paused_checks() { # paused_checks WHEN
	j=$(fragd status --format json 2>&1)
	if printf '%s\n' "$j" | grep -Eq '"state": ?"paused"'; then pass "$1: fragd status --format json says paused"; else fail "$1: status JSON not paused: $(printf '%s' "$j" | head -c 300)"; fi
	if wait_file_line 10 "$PROM" '^fragd_paused 1$'; then pass "$1: fragd_paused 1 in $PROM"; else fail "$1: fragd_paused is not 1 in $PROM: $(grep '^fragd_paused' "$PROM" 2>&1)"; fi
	journal_ids
	c0=$(n_changes)
	sleep 5
	journal_ids
	knobs_snapshot >/tmp/knobs.now
	if cmp -s /tmp/knobs.orig2 /tmp/knobs.now && [ "$(n_changes)" = "$c0" ]; then
		pass "$1: nothing written in 5 s of an unmet target"
	else
		fail "$1: knobs changed while paused ($c0 -> $(n_changes) change entries)"
		diff /tmp/knobs.orig2 /tmp/knobs.now || true
	fi
}
wait_file_line() { # wait_file_line SECONDS FILE REGEX
	i=0
	while [ $i -lt $(($1 * 2)) ]; do
		grep -Eq "$3" "$2" 2>/dev/null && return 0
		sleep 0.5
		i=$((i + 1))
	done
	return 1
}
paused_checks "paused"
pid=$(unit_pid)
systemctl restart fragd
if wait_active "$pid"; then pass "systemctl restart fragd while paused: active again"; else fail "not active after restart"; fi
paused_checks "paused, after systemctl restart"
journal_ids
r0=$(n_events $ID_RAISED)
if out=$(fragd resume 2>&1); then pass "fragd resume: $out"; else fail "fragd resume failed: $out"; fi
if wait_raise 30 "$r0"; then
	pass "after resume fragd acts again: $(journalctl -q -b -u fragd MESSAGE_ID=$ID_RAISED -n 1 -o cat | cut -c1-120)"
else
	fail "no raise within 30 s of fragd resume"
fi
if wait_file_line 10 "$PROM" '^fragd_paused 0$'; then pass "fragd_paused 0 after resume"; else fail "fragd_paused not 0 after resume"; fi

# rollback: memory PSI full rises after the raise: a unit squeezed under
# MemoryHigh= (no swap: its anonymous memory cannot be reclaimed, so the
# kernel throttles it, a memory stall) right after fragd's raise; stopped
# with SIGKILL (consumer ends its cycle on SIGTERM, which under the throttle
# lasts until systemd's 90 s stop timeout)
systemd-run --quiet --collect --unit=fragd-squeeze -p MemoryHigh=24M -p MemorySwapMax=0 -p RuntimeMaxSec=40 -p KillSignal=SIGKILL \
	"$(command -v consumer)" --mb 256 --cycles 20 --interval-ms 100 --hold-ms 500 >/dev/null 2>&1 ||
	log "systemd-run fragd-squeeze failed"
wait_events 45 $ID_ROLLBACK || true
log "PSI during the squeeze: $(tr '\n' ' ' </proc/pressure/memory)"
systemctl stop fragd-squeeze 2>/dev/null || true
progress

# back-off: the raise brings no gain (the target cannot be met); with one
# evaluation per 3 s dwell counting, the first evaluation backs off. Free
# memory must not grow meanwhile (a gain of a few pages counts as paid off:
# in a run without the filler free memory crept up and no back-off came in
# 40 s): shared memory filled at 4 MiB/s makes it fall steadily
cat >/etc/fragd/fragd.conf.d/60-unmet.conf <<'CONF'
# service.sh: a target free memory cannot hold; back off after the first
# evaluation without gain, no rollback
[policy]
reserve_thp = 1G
reserve_always = yes
rollback_window = 0
backoff_decisions = 1
backoff_hold = 10min
[knob "watermark_scale_factor"]
dwell = 3s
[knob "compaction_proactiveness"]
dwell = 3s
CONF
(i=0; while [ $i -lt 60 ]; do dd if=/dev/zero of=/dev/shm/fill.$i bs=1M count=4 2>/dev/null; sleep 1; i=$((i + 1)); done) &
FILL_PID=$!
bg_started $FILL_PID
systemctl restart fragd
wait_active || true
wait_events 40 $ID_BACKOFF || true
kill "$FILL_PID" 2>/dev/null || true
wait "$FILL_PID" 2>/dev/null || true
rm -f /dev/shm/fill.*
progress
# yielded: another writer changes a knob fragd wrote (the one it raised
# last; the back-off wrote it back to its original)
owned=$(journalctl -q -b -u fragd --since "$since" MESSAGE_ID=$ID_RAISED -o export 2>/dev/null |
	sed -n 's/^FRAGD_KNOB=vm\.//p' | tail -n 1)
[ -n "$owned" ] || owned=watermark_scale_factor
cur=$(sysctl -n "vm.$owned")
sysctl -q -w "vm.$owned=$((cur + 1))"
log "sysctl -w vm.$owned=$((cur + 1)) (fragd had $cur)"
wait_events 20 $ID_YIELDED || true
progress
systemctl stop fragd
# yielded: not fragd's to restore; put it back by hand
sysctl -q -w "vm.$owned=$(sed -n "s|^vm/$owned=||p" /tmp/knobs.orig2)" || true
knobs_snapshot >/tmp/knobs.now
if cmp -s /tmp/knobs.orig2 /tmp/knobs.now; then pass "every knob back after the unmet-target runs"; else
	fail "knobs after the unmet-target runs:"
	diff /tmp/knobs.orig2 /tmp/knobs.now || true
fi

# knob_held, knob_hold_ended: the unmet target again with the reclaim
# levers bounded at their originals, so the raise fragd wants is held
# (at_bound); then no reserve at all (reload): nothing is wanted, and the
# hold's end is said three ticks later
wsf0=$(sysctl -n vm.watermark_scale_factor)
mfk0=$(sysctl -n vm.min_free_kbytes)
cat >/etc/fragd/fragd.conf.d/60-unmet.conf <<CONF
# service.sh: an unmet target, the reclaim levers held at their bounds
[policy]
reserve_thp = 1G
reserve_always = yes
[knob "watermark_scale_factor"]
min = $wsf0
max = $wsf0
[knob "min_free_kbytes"]
max = $mfk0
CONF
systemctl start fragd
wait_active || fail "fragd not active with the held config"
wait_events 40 $ID_HELD || true
cat >/etc/fragd/fragd.conf.d/60-unmet.conf <<'CONF'
# service.sh: nothing to keep ready, nothing to learn
[policy]
reserve_thp = 0
reserve_large = 0
demand_learning = no
[daemon]
pagecache_signal = no
CONF
# the hold's end must come from this reload: an earlier phase's hold may
# have ended already (the pause/resume runs hold at watermark_cap), and a
# reload that fails keeps the held configuration (this drop-in once put
# pagecache_signal under [policy]: every reload failed, unseen)
journal_ids
held_ended0=$(n_events $ID_HOLD_ENDED)
t_reload=$(date +%s)
systemctl reload fragd
sleep 2
if journalctl -q -u fragd --since "@$t_reload" -o cat | grep "Configuration reload failed" >/dev/null; then
	fail "reload with no reserve refused: $(journalctl -q -u fragd --since "@$t_reload" -o cat | grep -A1 'Configuration reload failed' | tail -n 1)"
else
	pass "reload with no reserve accepted"
fi
end=$(($(cut -d. -f1 /proc/uptime) + 60))
while journal_ids && [ "$(n_events $ID_HOLD_ENDED)" -le "$held_ended0" ] && [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
	sleep 2
done
if [ "$(n_events $ID_HOLD_ENDED)" -gt "$held_ended0" ]; then
	pass "the hold ended after the reload with no reserve"
else
	fail "no hold ended within 60 s of the reload with no reserve"
fi
progress
systemctl stop fragd
rm -f /etc/fragd/fragd.conf.d/60-unmet.conf
# the protected page cache goes: reparented to the root when its cgroup is
# removed, then dropped with its file
rmdir "$CACHE_CG" || log "rmdir $CACHE_CG failed"
rm -f "$CACHE_FILE"

# every kind, with its fields and priority (knob changes NOTICE=5, a
# one-shot compaction and the learned reserve INFO=6), and journalctl -x
# explains each with its catalog entry; two journalctl calls for all of it
# (each call takes seconds under TCG). -o json: one entry per line (an
# export paragraph can be cut by a binary field's length bytes)
journalctl -q -b -u fragd --since "$since" -o json 2>/dev/null >/tmp/json || true
journalctl -x -q -b -u fragd --since "$since" --no-pager 2>/dev/null >/tmp/explained || true
jfield() { sed -n "s/.*\"$1\" *: *\"\([^\"]*\)\".*/\1/p" /tmp/entry; } # jfield NAME: its value in /tmp/entry
for kind in RAISED LOWERED RESTORED YIELDED BACKOFF ROLLBACK COMPACTION LEARNED HELD HOLD_ENDED; do
	eval id=\$ID_$kind
	# the entries of this MESSAGE_ID; the last one's fields
	n=$(grep -c "\"MESSAGE_ID\" *: *\"$id\"" /tmp/json || true)
	grep "\"MESSAGE_ID\" *: *\"$id\"" /tmp/json | tail -n 1 >/tmp/entry || true
	ex=$(jfield MESSAGE | cut -c1-150)
	if [ "$n" -gt 0 ]; then
		pass "journalctl MESSAGE_ID=$id ($kind): $n entries, e.g. '$ex'"
	else
		fail "journalctl MESSAGE_ID=$id ($kind): no entry"
		continue
	fi
	case $kind in COMPACTION | LEARNED | HELD | HOLD_ENDED) prio=6 ;; *) prio=5 ;; esac
	case $kind in
	RAISED) ev=knob_raised sj=raised ;; LOWERED) ev=knob_lowered sj=lowered ;; RESTORED) ev=knob_restored sj=restored ;;
	YIELDED) ev=knob_yielded sj=yielded ;; BACKOFF) ev=backoff sj="backed off" ;; ROLLBACK) ev=rollback sj="rolled back" ;;
	COMPACTION) ev=compaction sj=compacted ;; LEARNED) ev=learned_reserve sj="'s learned" ;;
	HELD) ev=knob_held sj=holds ;; HOLD_ENDED) ev=knob_hold_ended sj="no longer holds" ;;
	esac
	miss=
	for f in "PRIORITY=$prio" "FRAGD_EVENT=$ev" SYSLOG_IDENTIFIER=fragd; do
		[ "$(jfield "${f%%=*}")" = "${f#*=}" ] || miss="$miss $f(is '$(jfield "${f%%=*}")')"
	done
	case $kind in
	LEARNED) fields="FRAGD_FROM FRAGD_TO FRAGD_REASON" ;; COMPACTION) fields="FRAGD_KNOB FRAGD_REASON" ;;
	HELD) fields="FRAGD_KNOB FRAGD_FROM FRAGD_TO FRAGD_REASON FRAGD_HOLD" ;; HOLD_ENDED) fields="FRAGD_KNOB FRAGD_HOLD" ;;
	*) fields="FRAGD_KNOB FRAGD_FROM FRAGD_TO FRAGD_REASON" ;;
	esac
	got=
	for f in $fields; do
		v=$(jfield "$f")
		if [ -n "$v" ]; then got="$got $f=$v"; else miss="$miss $f"; fi
	done
	if [ -z "$miss" ]; then pass "$kind entry: PRIORITY=$prio FRAGD_EVENT=$ev$got"; else fail "$kind entry lacks:$miss"; fi
	subj=$(grep -a -m1 "Subject: fragd$sj\|Subject: fragd $sj" /tmp/explained | sed 's/^[ \t-]*//')
	if [ -n "$subj" ]; then pass "journalctl -x explains $kind: $subj"; else fail "journalctl -x shows no catalog text for $kind"; fi
done
for kind in BACKOFF ROLLBACK RESTORED HELD; do
	eval id=\$ID_$kind
	r=$(grep "\"MESSAGE_ID\" *: *\"$id\"" /tmp/json | sed -n 's/.*"FRAGD_REASON" *: *"\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
	log "$kind reasons: $r"
done
log "holds: $(grep "\"MESSAGE_ID\" *: *\"$ID_HELD\"" /tmp/json | sed -n 's/.*"FRAGD_HOLD" *: *"\([^"]*\)".*/\1/p' | sort | uniq -c | tr '\n' ' ')"
# the fields filter: journalctl FRAGD_KNOB=...
k=$(grep "\"MESSAGE_ID\" *: *\"$ID_RAISED\"" /tmp/json | tail -n 1 | sed -n 's/.*"FRAGD_KNOB" *: *"\([^"]*\)".*/\1/p')
n=$(journalctl -q -b -u fragd FRAGD_KNOB="$k" -o cat 2>/dev/null | grep -c . || true)
if [ -n "$k" ] && [ "$n" -gt 0 ]; then
	pass "journalctl -u fragd FRAGD_KNOB=$k: $n entries"
else
	fail "journalctl -u fragd FRAGD_KNOB=$k finds nothing"
fi
journalctl -b -u fragd --since "$since" --no-pager -o cat 2>/dev/null | grep -Ev "^fragd 0.1|taking ownership" | tail -n 80 | sed "s/^/events journal: /"
result "fails=$FAILS"
finish
