#!/bin/bash
# Fault-injection matrix for the daemon, on copies of a fixture tree whose
# configuration makes fragd raise compaction_proactiveness within a second:
# signals, crashes and --restore, reloads with bad or moved configuration,
# another writer, corrupt / oversized / foreign / malformed journals,
# unwritable / immutable / replaced / deleted knob files, symlinks planted at
# every file fragd writes, counters that jump, hostile unit names given to
# fragd thp-dropin; status, pause and resume when runtime_dir's files cannot
# be written (too few descriptors, a locked or full directory, a directory
# named 'paused', a status file without a start time, the control socket
# removed, a knob that cannot be put back on pause); two daemons on one root
# (one after a pause, two at once, a dry run beside one), runtime_dir edited
# under a running daemon then kill -9, a control socket of another user.
# Oracle per scenario:
#   - every knob file ends at its original bytes, OR fragd exited non-zero
#     with a message naming the knob and its original value;
#   - victim files outside the tree keep their bytes and mode, and nothing
#     new appears outside the tree (victim dir, HOME, TMPDIR, cwd);
#   - no sanitizer report, no hang (every fragd runs under timeout).
# Prints `faults: N passed, M failed`. FAULTS_ONLY="id ..." runs some.
# Needs FRAGD, FRAGD_SRCDIR. Runs as any user; as root, "unwritable" uses
# chattr +i (skipped with a message where the file system lacks it).
# shellcheck disable=SC2317,SC2016,SC2015 # helpers called indirectly or by eval; A && B || cbad is meant
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented
TEST_TAG=faults
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

KNOB=compaction_proactiveness
KNOBS="compaction_proactiveness watermark_scale_factor min_free_kbytes watermark_boost_factor extfrag_threshold"
OUT=$work/outside          # victims and sentinels: nothing here may change
export HOME=$work/home TMPDIR=$work/tmp
mkdir -p "$OUT" "$HOME" "$TMPDIR" "$work/cwd"
cd "$work/cwd" || exit 1
victim_sum() { stat -c '%a %s' "$OUT/victim"; md5sum <"$OUT/victim"; }
new_victim() { rm -f "$OUT/victim"; printf 'precious\n' >"$OUT/victim"; chmod 0600 "$OUT/victim"; VICTIM0=$(victim_sum); }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
unset JOURNAL_STREAM NOTIFY_SOCKET

# The textfile directory, in one place. An absolute host path inside the
# tree today; if textfile_dir is resolved under --root, the same string
# lands at $T$T/prom: both exist, both are inside the tree.
tf_dirs() { echo "$T/prom" "$T$T/prom"; }
tf_conf() { echo "$T/prom"; }

n_pass=0 n_fail=0 n_skip=0 FAILED=()
CASE='' cfail=''
case_begin() { CASE=$1; cfail=; LOGS=(); new_victim; }
cbad() { cfail="${cfail:+$cfail; }$*"; }
case_skip() { echo "SKIP faults: $CASE: $*"; n_skip=$((n_skip + 1)); CASE=; }
case_end() {
	[ -n "$CASE" ] || return 0
	[ -n "$pid" ] && { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; }
	common_checks
	if [ -z "$cfail" ]; then
		echo "PASS faults: $CASE"; n_pass=$((n_pass + 1))
	else
		echo "FAIL faults: $CASE: $cfail"; n_fail=$((n_fail + 1)); FAILED+=("$CASE")
	fi
	CASE=
}
want() { [ -z "${FAULTS_ONLY:-}" ] || [[ " $FAULTS_ONLY " == *" $1 "* ]]; }

# every log and output of this scenario, for the "named the knob" oracle
LOGS=()
logs() { cat "${LOGS[@]}" 2>/dev/null; }
common_checks() {
	[ "$(victim_sum)" = "$VICTIM0" ] || cbad "victim file outside the tree changed ($(victim_sum | head -1), was $(echo "$VICTIM0" | head -1))"
	local extra
	extra=$(find "$OUT" "$HOME" "$TMPDIR" "$work/cwd" -mindepth 1 ! -path "$OUT/victim" ! -path "$OUT/planted*" 2>/dev/null | head -3)
	[ -z "$extra" ] || cbad "written outside the tree: $extra"
	find "$OUT" "$HOME" "$TMPDIR" "$work/cwd" -mindepth 1 ! -path "$OUT/victim" -exec rm -rf {} + 2>/dev/null
	if logs | grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:'; then
		cbad "sanitizer: $(logs | grep -Em1 'AddressSanitizer|LeakSanitizer|runtime error:')"
	fi
}

fresh() { # fresh NAME [conf lines...]: tree, config, originals kept in $T.orig
	fresh_tree "$1" "$FIX"
	local d; for d in $(tf_dirs); do mkdir -p "$d"; done
	{
		printf '[daemon]\ninterval = 1s\ntextfile_dir = %s\n' "$(tf_conf)"
		printf '[policy]\nreserve_thp = 20%%\nreserve_always = yes\n'
		[ $# -le 1 ] || printf '%s\n' "${@:2}"
	} >"$T/etc/fragd/fragd.conf"
	rm -rf "$T.orig"; mkdir -p "$T.orig"
	for k in $KNOBS; do cp "$T/proc/sys/vm/$k" "$T.orig/$k"; done
	J=$T/run/fragd/saved
}
kv() { cat "$T/proc/sys/vm/${1:-$KNOB}" 2>/dev/null; }
orig() { cat "$T.orig/${1:-$KNOB}"; }
raised() { [ -f "$T/proc/sys/vm/$KNOB" ] && [ "$(kv)" != "$(orig)" ]; }
# shellcheck disable=SC2120 # args are optional
start() { # start [args...]: the daemon in the background, log in $T/log.N
	local n=${#LOGS[@]}
	L=$T/log.$n; LOGS+=("$L")
	"$FRAGD" --root "$T" --page-size 4096 "$@" >"$L" 2>&1 &
	pid=$!
}
start_planted() { # start_planted 'SHELL-SNIPPET' [args...]: plant things named after the pid, then exec the daemon
	local n=${#LOGS[@]} snip=$1; shift
	L=$T/log.$n; LOGS+=("$L")
	env T="$T" OUT="$OUT" TFD="$(tf_dirs)" bash -c "$snip"'
		exec "$0" "$@"' "$FRAGD" --root "$T" --page-size 4096 "$@" >"$L" 2>&1 &
	pid=$!
}
running() { wait_for 10 grep -q "running" "$L"; }
# stop_daemon [SECONDS]: SIGTERM, wait at most SECONDS; rc in $rc (124: hung, killed)
stop_daemon() {
	local t=${1:-10}
	kill -TERM "$pid" 2>/dev/null
	if wait_for "$t" eval '! kill -0 $pid 2>/dev/null'; then wait "$pid"; rc=$?
	else kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rc=124; fi
	pid=
}
fragd_cmd() { # fragd_cmd NAME args...: one fragd command under timeout; rc in $rc, output in $T/NAME.out
	local name=$1; shift
	LOGS+=("$T/$name.out")
	timeout -s KILL 10 "$FRAGD" "$@" --root "$T" >"$T/$name.out" 2>&1; rc=$?
}
crash() { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; }
# the oracle on knobs: each at its original bytes, or (with a non-zero
# status $1) a message naming the knob and its original value
knobs_oracle() {
	local status=${1:-0} k o
	for k in $KNOBS; do
		o=$(orig "$k")
		if [ -f "$T/proc/sys/vm/$k" ] && [ ! -L "$T/proc/sys/vm/$k" ] && cmp -s "$T/proc/sys/vm/$k" "$T.orig/$k"; then continue; fi
		# a knob file that is gone cannot be put back: naming it is enough
		if { [ "$status" != 0 ] || [ ! -e "$T/proc/sys/vm/$k" ]; } &&
			logs | grep -E "$k" | grep -Eq "(^|[^0-9])$o([^0-9]|$)"; then continue; fi
		cbad "knob $k is '$(kv "$k" 2>&1 | head -c 40)' not '$o', and no non-zero exit with a message naming it and '$o' (exit $status)"
	done
}
# journals as fragd writes them, then damaged: journal PID START LINE...
journal() {
	local p=$1 s=$2; shift 2
	mkdir -p "${J%/*}"
	{ printf 'fragd-saved 1\npid %s %s\n# knobs fragd changed\n' "$p" "$s"; printf '%s\n' "$@"; } >"$J"
}
dead_pid() { local p; sh -c 'exit 0' & p=$!; wait "$p"; echo "$p"; }
starttime() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat"; }
after_crash() { # after_crash: the tree a killed fragd leaves: knob raised, journal names it
	echo 20 >"$T/proc/sys/vm/$KNOB"
}
ENTRY="vm.$KNOB	0	20	1796143007255166"

# ---- signals -------------------------------------------------------------------
if want sigterm; then case_begin sigterm
fresh sigterm; start
wait_for 10 raised || cbad "no raise in 10 s: $(tail -2 "$L")"
stop_daemon; [ $rc = 0 ] || cbad "SIGTERM: exit $rc"
knobs_oracle $rc
[ ! -e "$J" ] || cbad "journal left after a full restore"
case_end; fi

if want sigkill-restore; then case_begin sigkill-restore
fresh sigkill; start; wait_for 10 raised || cbad "no raise"
crash
fragd_cmd restore --restore
knobs_oracle $rc
case_end; fi

if want sigkill-restart; then case_begin sigkill-restart
fresh restart; start; wait_for 10 raised || cbad "no raise"
crash; start; running || cbad "no restart"
stop_daemon; knobs_oracle $rc
case_end; fi

if want sigkill-status; then case_begin sigkill-status  # item 9
fresh status; start; wait_for 10 raised || cbad "no raise"
crash
fragd_cmd status status
grep -q -- "--restore" "$T/status.out" && grep -q "$KNOB" "$T/status.out" \
	|| cbad "status after kill -9 does not name the changed knob and --restore: $(head -c 200 "$T/status.out")"
fragd_cmd restore --restore; knobs_oracle $rc
case_end; fi

# ---- reloads -------------------------------------------------------------------
if want sighup-bad-config; then case_begin sighup-bad-config
fresh hupbad; start; wait_for 10 raised || cbad "no raise"
printf '[policy]\nreserve_thp = lots\n' >>"$T/etc/fragd/fragd.conf"
kill -HUP "$pid"; sleep 1.5
kill -0 "$pid" 2>/dev/null || cbad "daemon died on a bad reload"
stop_daemon; knobs_oracle $rc
case_end; fi

if want sighup-fifo-dropin; then case_begin sighup-fifo-dropin  # item 5
fresh hupfifo; start; wait_for 10 raised || cbad "no raise"
mkdir -p "$T/etc/fragd/fragd.conf.d"; mkfifo "$T/etc/fragd/fragd.conf.d/50-fifo.conf"
kill -HUP "$pid"; sleep 1.5
stop_daemon 5
if [ $rc = 124 ]; then
	cbad "SIGTERM after SIGHUP with a FIFO drop-in: hung, killed"
	fragd_cmd restore --restore
	[ $rc = 137 ] && cbad "--restore hung on the FIFO drop-in"
fi
knobs_oracle $rc
case_end; fi

if want sighup-runtime-dir; then case_begin sighup-runtime-dir  # item 4
fresh huprt; start; wait_for 10 raised || cbad "no raise"
printf '[daemon]\nruntime_dir = /run/fragd-new\n' >>"$T/etc/fragd/fragd.conf"
kill -HUP "$pid"; sleep 1.5
crash
fragd_cmd restore --restore
knobs_oracle $rc
case_end; fi

if want sighup-state-dir; then case_begin sighup-state-dir  # item 4
fresh hupstate; start; wait_for 10 raised || cbad "no raise"
printf '[daemon]\nstate_dir = /var/lib/fragd-new\n' >>"$T/etc/fragd/fragd.conf"
kill -HUP "$pid"; sleep 1.5
logs | grep -q "state_dir" || cbad "state_dir changed on SIGHUP without a word (refuse it or carry the state over)"
stop_daemon; knobs_oracle $rc
case_end; fi

if want runtime-dir-root; then case_begin runtime-dir-root  # item 6
fresh rtroot '[daemon]' 'runtime_dir = /'
fragd_cmd check --check-config; crc=$rc
start; sleep 2
if ! kill -0 "$pid" 2>/dev/null; then
	wait "$pid"; rc=$?; pid=
	[ $crc != 0 ] || grep -q "fragd.conf:[0-9]" "$L" \
		|| cbad "--check-config accepts runtime_dir = / (exit 0) but the daemon exits $rc without file:line: $(tail -1 "$L")"
else
	stop_daemon
fi
knobs_oracle "$rc"
case_end; fi

# ---- one fragd per root (issue 38 items 1-3, 13) ------------------------------------
# refused NAME PID LOG OTHER: PID (started beside the fragd OTHER) exited
# non-zero within 5 s, naming OTHER's pid; else it is stopped and the case fails
refused() {
	local name=$1 p=$2 log=$3 other=$4 r
	if wait_for 5 eval '! kill -0 '"$p"' 2>/dev/null'; then
		wait "$p"; r=$?
		[ "$r" != 0 ] || cbad "$name exited 0 beside pid $other"
		grep -q "pid $other " "$log" || cbad "$name refused without naming the running fragd (pid $other): $(tail -1 "$log")"
	else
		cbad "$name runs beside pid $other on the same root"
		kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null
	fi
}
if want second-daemon-while-paused; then case_begin second-daemon-while-paused
fresh second; start; wait_for 10 raised || cbad "no raise"
A=$pid
fragd_cmd pause pause; [ $rc = 0 ] || cbad "pause: exit $rc"
start; refused "a second daemon" "$pid" "$L" "$A"; pid=$A
fragd_cmd resume resume; [ $rc = 0 ] || cbad "resume: exit $rc"
wait_for 10 raised || cbad "no raise after resume"
crash
fragd_cmd restore --restore
knobs_oracle $rc
case_end; fi

if want two-daemons-at-once; then case_begin two-daemons-at-once
fresh twice
L1=$T/log.a; L2=$T/log.b; LOGS+=("$L1" "$L2")
"$FRAGD" --root "$T" --page-size 4096 >"$L1" 2>&1 & p1=$!
"$FRAGD" --root "$T" --page-size 4096 >"$L2" 2>&1 & p2=$!
sleep 3
if kill -0 "$p1" 2>/dev/null && kill -0 "$p2" 2>/dev/null; then
	cbad "two daemons run on one root"
	kill -TERM "$p2"; wait "$p2"; pid=$p1
elif kill -0 "$p1" 2>/dev/null; then pid=$p1; refused "the second of two daemons" "$p2" "$L2" "$p1"
elif kill -0 "$p2" 2>/dev/null; then pid=$p2; refused "the second of two daemons" "$p1" "$L1" "$p2"
else cbad "neither of two daemons runs: $(tail -1 "$L1")"; fi
if [ -n "$pid" ]; then
	wait_for 10 raised || cbad "no raise"
	stop_daemon; [ $rc = 0 ] || cbad "SIGTERM: exit $rc"
fi
knobs_oracle "${rc:-1}"
case_end; fi

if want dry-run-beside-daemon; then case_begin dry-run-beside-daemon
fresh dryside; start; wait_for 10 raised || cbad "no raise"
A=$pid
start --dry-run; refused "fragd --dry-run" "$pid" "$L" "$A"; pid=$A
grep -q "^pid $A " "$T/run/fragd/status" || cbad "the status file is not the daemon's: $(sed -n 2p "$T/run/fragd/status")"
fragd_cmd status status
[ $rc = 0 ] && grep -q "pid $A" "$T/status.out" || cbad "status beside the dry run: exit $rc, $(head -1 "$T/status.out")"
# --once takes no lock: it works beside the daemon (the README's first command)
fragd_cmd once --once --page-size 4096; [ $rc = 0 ] || cbad "--once beside the daemon: exit $rc: $(tail -1 "$T/once.out")"
stop_daemon; knobs_oracle $rc
case_end; fi

# a daemon that holds the lock and has not ticked yet (here a stand-in that
# holds it with a POSIX lock, which OFD locks see): status says it runs,
# --restore and another daemon keep off and name it
if want lock-held-before-first-tick; then case_begin lock-held-before-first-tick
fresh starting; after_crash; journal "$(dead_pid)" 1 "$ENTRY"
mkdir -p "$T/run/fragd"; : >"$T/run/fragd/lock"
python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1] + "/run/fragd/lock", os.O_RDWR)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
st = open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19]
open(sys.argv[1] + "/run/fragd/owner", "w").write("fragd-lock 1\npid %d %s\nmode daemon\nstarted %d\nruntime_dir /run/fragd\nstate_dir -\njournal_dir /run/fragd\n" % (os.getpid(), st, time.time_ns() // 1000))
print("ok", flush=True)
time.sleep(30)' "$T" >"$T/holder.out" & H=$!
wait_for 5 grep -q ok "$T/holder.out" || cbad "the stand-in did not take the lock"
fragd_cmd status status
[ $rc = 0 ] && grep -q "pid $H .*has not written its state yet" "$T/status.out" || cbad "status while the lock is held: exit $rc: $(head -1 "$T/status.out")"
fragd_cmd restore --restore
[ $rc = 1 ] && grep -q "pid $H " "$T/restore.out" || cbad "--restore while the lock is held: exit $rc: $(tail -1 "$T/restore.out")"
[ "$(kv)" = 20 ] || cbad "--restore wrote $KNOB while another holds the lock"
start; refused "a daemon" "$pid" "$L" "$H"; pid=
kill "$H"; wait "$H" 2>/dev/null
fragd_cmd restore --restore
knobs_oracle $rc
case_end; fi

# runtime_dir edited in fragd.conf under a running daemon, no reload
rt_edit() { printf '[daemon]\nruntime_dir = /run/fragd-new\n' >>"$T/etc/fragd/fragd.conf"; }
if want runtime-dir-edited-kill-restore; then case_begin runtime-dir-edited-kill-restore
fresh rtedit; start; wait_for 10 raised || cbad "no raise"
rt_edit
fragd_cmd status status; [ $rc = 0 ] || cbad "status: exit $rc while the daemon runs: $(head -1 "$T/status.out")"
fragd_cmd pause pause; [ $rc = 0 ] || cbad "pause: exit $rc while the daemon runs: $(tail -1 "$T/pause.out")"
fragd_cmd resume resume; [ $rc = 0 ] || cbad "resume: exit $rc"
wait_for 10 raised || cbad "no raise after resume"
crash
fragd_cmd status status; [ $rc = 5 ] || cbad "status after kill -9: exit $rc, not 5 (knobs left changed)"
# what the unit's ExecStopPost= runs
fragd_cmd restore --restore --quiet-if-clean
knobs_oracle $rc
case_end; fi

if want runtime-dir-edited-kill-restart; then case_begin runtime-dir-edited-kill-restart
fresh rtedit2; start; wait_for 10 raised || cbad "no raise"
raisedv=$(kv); rt_edit; crash
start; running || cbad "no restart: $(tail -1 "$L")"
grep -q "taking ownership (original '$raisedv')" "$L" && cbad "the restart took fragd's own $raisedv for the original"
stop_daemon; knobs_oracle $rc
case_end; fi

if want control-socket-foreign-owner; then case_begin control-socket-foreign-owner
if [ "$(id -u)" != 0 ]; then case_skip "needs root (a socket handed to another user)"
else
	fresh ctlown; start; running || cbad "no start"
	wait_for 5 test -S "$T/run/fragd/control" || cbad "no control socket"
	chown 65534 "$T/run/fragd/control"
	fragd_cmd pause pause
	[ $rc != 0 ] || cbad "pause through another user's socket: exit 0"
	grep -q "only root may" "$T/pause.out" && cbad "root is told only root may pause: $(cat "$T/pause.out")"
	grep -q "uid 65534" "$T/pause.out" || cbad "the socket's owner is not named: $(cat "$T/pause.out")"
	stop_daemon; knobs_oracle $rc
	case_end
fi; fi

# ---- another writer --------------------------------------------------------------
if want external-writer; then case_begin external-writer  # item 8
fresh ext; start; wait_for 10 raised || cbad "no raise"
echo 33 >"$T/proc/sys/vm/$KNOB"; sleep 2
stop_daemon
[ "$(kv)" = 33 ] || cbad "the other writer's 33 was overwritten with $(kv)"
grep -q "Every knob fragd changed is back" "$L" && cbad "stop says every knob is back, $KNOB was left at 33 to another writer"
grep -A50 "Received" "$L" | grep "$KNOB" | grep -q 33 || cbad "the stop message does not name $KNOB left at 33"
cp "$T/proc/sys/vm/$KNOB" "$T.orig/$KNOB" # 33 is the right end state
knobs_oracle $rc
case_end; fi

if want kick-outside-bounds; then case_begin kick-outside-bounds  # item 10
# the knob is already above the configured bounds when fragd starts
fresh kick '[knob "compaction_proactiveness"]' 'min = 20' 'max = 80'
echo 90 >"$T/proc/sys/vm/$KNOB"; cp "$T/proc/sys/vm/$KNOB" "$T.orig/$KNOB"
touch -d '2020-01-01' "$T/proc/sys/vm/$KNOB"; m0=$(stat -c %y "$T/proc/sys/vm/$KNOB")
start; running || cbad "no start"
sleep 7
m1=$(stat -c %y "$T/proc/sys/vm/$KNOB")
if [ "$m0" != "$m1" ]; then
	v=$(kv); [ "$v" -ge 20 ] && [ "$v" -le 80 ] 2>/dev/null \
		|| cbad "fragd wrote $KNOB=$v, outside its bounds 20..80 ($(logs | grep -m1 "$KNOB"))"
fi
stop_daemon
knobs_oracle $rc
case_end; fi

# ---- journals at start and for --restore ------------------------------------------
jcase() { # jcase ID MODE(start|restore) SETUP-FUNCTION [unknowable]
	# unknowable: the journal cannot say which knob (empty, a directory): a
	# non-zero exit naming the journal is the best fragd can do
	local id=$1 mode=$2 setup=$3 unknowable=${4:-}
	want "$id" || return 0
	case_begin "$id"
	fresh "$id"; after_crash; "$setup"
	if [ "$mode" = restore ]; then
		fragd_cmd restore --restore
	else
		start; sleep 2.5
		if kill -0 "$pid" 2>/dev/null; then stop_daemon; else wait "$pid"; rc=$?; pid=; fi
	fi
	if [ -n "$unknowable" ] && [ "$mode" = restore ]; then
		[ "$rc" != 0 ] && logs | grep -q "run/fragd/saved" \
			|| cbad "an unreadable journal ($setup) and exit $rc: say so (name run/fragd/saved) and exit non-zero"
	elif [ -n "$unknowable" ]; then
		# a daemon may run on, but says so and keeps the journal (or a copy aside)
		logs | grep -q "run/fragd/saved" || cbad "an unreadable journal ($setup) at start, nothing said about run/fragd/saved"
		compgen -G "$J*" >/dev/null || cbad "the unreadable journal ($setup) was deleted"
	else
		knobs_oracle $rc
	fi
	case_end
}
j_malformed() { journal "$(dead_pid)" 1 "vm.$KNOB	0x	20	1796143007255166"; }       # item 3
j_truncated() { journal "$(dead_pid)" 1 "vm.$KNOB	0	2"; printf 'vm.watermark_scale_factor\t1' >>"$J"; } # item 3
j_crlf() { journal "$(dead_pid)" 1 "$ENTRY"; sed -i 's/$/\r/' "$J"; }                       # item 3
j_tampered() { journal "$(dead_pid)" 1 "vm.$KNOB	100000	20	1796143007255166"; }         # item 3
j_corrupt() { head -c 300 /dev/urandom >"$T/rnd"; mkdir -p "${J%/*}"; { printf 'fragd-saved 1\n'; cat "$T/rnd"; printf '\n%s\n' "$ENTRY"; } >"$J"; }
j_huge() { journal "$(dead_pid)" 1 "$ENTRY"; head -c $((70 << 20)) /dev/zero | tr '\0' '#' | fold -w 100 >>"$J"; } # item 7
j_foreign() { sleep 60 & FOREIGN=$!; journal "$FOREIGN" "$(starttime "$FOREIGN")" "$ENTRY"; }
j_foreign_end() { [ -n "${FOREIGN:-}" ] || return 0; kill "$FOREIGN" 2>/dev/null; wait "$FOREIGN" 2>/dev/null; FOREIGN=; }
j_empty_ok() { mkdir -p "${J%/*}"; : >"$J"; }
j_dir() { mkdir -p "$J/x"; }
for m in start restore; do
	jcase "journal-all-malformed-$m" $m j_malformed
	jcase "journal-truncated-field-$m" $m j_truncated
	jcase "journal-crlf-$m" $m j_crlf
	jcase "journal-tampered-value-$m" $m j_tampered
	jcase "journal-binary-$m" $m j_corrupt
	jcase "journal-70MB-$m" $m j_huge
	jcase "journal-empty-file-$m" $m j_empty_ok unknowable
	jcase "journal-is-directory-$m" $m j_dir unknowable
	jcase "journal-foreign-pid-$m" $m j_foreign; j_foreign_end 2>/dev/null
done

# ---- knob files: immutable, replaced, deleted, absolute symlink ---------------------
immutable_ok=
touch "$work/probe" && chattr +i "$work/probe" 2>/dev/null && immutable_ok=1
chattr -i "$work/probe" 2>/dev/null; rm -f "$work/probe"
lock_knob() { # lock_knob FILE: unwritable for whoever runs fragd
	if [ "$(id -u)" = 0 ]; then chattr +i "$1"; else chmod 0444 "$1"; fi
}
unlock_knob() { if [ "$(id -u)" = 0 ]; then chattr -i "$1" 2>/dev/null; else chmod 0644 "$1"; fi; }
if want knob-immutable-at-start; then case_begin knob-immutable-at-start
if [ "$(id -u)" = 0 ] && [ -z "$immutable_ok" ]; then case_skip "root and no chattr +i on this file system"
else
	fresh immstart; lock_knob "$T/proc/sys/vm/$KNOB"; start; sleep 2.5
	kill -0 "$pid" 2>/dev/null || cbad "daemon died on an unwritable knob: $(tail -2 "$L")"
	stop_daemon; unlock_knob "$T/proc/sys/vm/$KNOB"; knobs_oracle $rc
	case_end
fi; fi
if want knob-immutable-at-stop; then case_begin knob-immutable-at-stop
if [ "$(id -u)" = 0 ] && [ -z "$immutable_ok" ]; then case_skip "root and no chattr +i on this file system"
else
	fresh immstop; start; wait_for 10 raised || cbad "no raise"
	lock_knob "$T/proc/sys/vm/$KNOB"; stop_daemon; unlock_knob "$T/proc/sys/vm/$KNOB"
	knobs_oracle $rc
	case_end
fi; fi
if want knob-replaced-by-directory; then case_begin knob-replaced-by-directory  # item 8
fresh kdir; start; wait_for 10 raised || cbad "no raise"
rm -f "$T/proc/sys/vm/$KNOB"; mkdir "$T/proc/sys/vm/$KNOB"; sleep 1.5
stop_daemon; knobs_oracle $rc
grep -q "Every knob fragd changed is back" "$L" && cbad "stop says every knob is back; $KNOB is a directory"
case_end; fi
if want knob-deleted; then case_begin knob-deleted  # item 8
fresh kdel; start; wait_for 10 raised || cbad "no raise"
rm -f "$T/proc/sys/vm/$KNOB"; sleep 1.5
stop_daemon; knobs_oracle $rc
grep -q "Every knob fragd changed is back" "$L" && cbad "stop says every knob is back; $KNOB is gone"
case_end; fi
if want knob-symlink-outside; then case_begin knob-symlink-outside  # item 2
fresh ksym
cp "$T/proc/sys/vm/$KNOB" "$OUT/planted-knob"; rm "$T/proc/sys/vm/$KNOB"; ln -s "$OUT/planted-knob" "$T/proc/sys/vm/$KNOB"
touch -d 2020-01-01 "$OUT/planted-knob"; m0=$(stat -c %y "$OUT/planted-knob")
start; sleep 2.5; m1=$(stat -c %y "$OUT/planted-knob"); stop_daemon; m2=$(stat -c %y "$OUT/planted-knob")
[ "$m0" = "$m1" ] && [ "$m0" = "$m2" ] && cmp -s "$OUT/planted-knob" "$T.orig/$KNOB" \
	|| cbad "knob written through an absolute symlink out of --root ($(logs | grep -m1 "raise $KNOB"))"
rm -f "$T/proc/sys/vm/$KNOB"; cp "$T.orig/$KNOB" "$T/proc/sys/vm/$KNOB"
knobs_oracle $rc
case_end; fi

# ---- symlinks planted at every file fragd writes --------------------------------------
# A link at one file fragd writes (or its temp name <name>.tmp.<pid>, with
# the pid the daemon will have: planted by the shell that then execs it),
# pointing at the victim (existing) or at a new name outside (dangling).
# PLANT holds the paths, relative to the tree; "TF" stands for each textfile dir.
plant_snip='p=$$
	for f in $PLANT; do
		case $f in TF/*) gs=$(for d in $TFD; do echo "$d/${f#TF/}"; done) ;; *) gs=$T/$f ;; esac
		for g in $gs; do g=${g//PID/$p}; mkdir -p "${g%/*}"; ln -sfn "$TARGET" "$g"; done
	done'
sym_case() { # sym_case ID TARGET PATH...
	local id=$1 target=$2; shift 2
	want "$id" || return 0
	case_begin "$id"
	fresh "$id"
	PLANT="$*" TARGET=$target start_planted "$plant_snip"
	if ! wait_for 10 eval 'raised || ! kill -0 $pid 2>/dev/null'; then
		cbad "no raise: $(tail -2 "$L")"
	elif ! kill -0 "$pid" 2>/dev/null; then
		# refusing to start over a planted link is fine when said so
		wait "$pid"; rc=$?; pid=
		local n=${1##*/}; n=${n%.tmp.PID}
		[ $rc != 0 ] && grep -q "$n" "$L" || cbad "daemon exited $rc without naming the planted $n: $(tail -1 "$L")"
	fi
	# a THP burst that fell back: the learned reserve is written at once
	v=$(awk '$1 == "thp_fault_fallback" { print $2 }' "$T/proc/vmstat")
	sed -i "s/^thp_fault_fallback .*/thp_fault_fallback $((v + 64))/" "$T/proc/vmstat"
	sleep 2.5
	[ -z "$pid" ] || stop_daemon
	knobs_oracle "$rc"
	[ -e "$OUT/planted-new" ] && cbad "a file was created outside the tree through a dangling symlink"
	rm -f "$OUT/planted-new"
	case_end
}
export PLANT="" TARGET=""
for f in run/fragd/saved run/fragd/status var/lib/fragd/learned TF/fragd.prom; do # item 1
	n=${f##*/}
	sym_case "symlink-at-$n" "$OUT/victim" "$f"
	sym_case "symlink-at-$n.tmp" "$OUT/victim" "$f.tmp.PID"
done
sym_case symlinks-dangling-outside "$OUT/planted-new" run/fragd/saved run/fragd/saved.tmp.PID \
	run/fragd/status run/fragd/status.tmp.PID var/lib/fragd/learned var/lib/fragd/learned.tmp.PID \
	TF/fragd.prom TF/fragd.prom.tmp.PID # items 1, 2

# SIGHUP with a FIFO as the main configuration file
if want sighup-fifo-main; then case_begin sighup-fifo-main  # item 5
fresh hupfifomain; start; wait_for 10 raised || cbad "no raise"
mv "$T/etc/fragd/fragd.conf" "$T/conf.saved"; mkfifo "$T/etc/fragd/fragd.conf"
kill -HUP "$pid"; sleep 1.5
stop_daemon 5
[ $rc = 124 ] && cbad "SIGTERM after SIGHUP with a FIFO fragd.conf: hung, killed"
knobs_oracle $rc
case_end; fi

# ---- what fragd learns: counters that jump or reset --------------------------------------
if want counter-jump; then case_begin counter-jump  # item 12
fresh jump '[policy]' 'reserve_thp = 1MiB'
start; running || cbad "no start"
sed -i "s/^thp_fault_fallback .*/thp_fault_fallback 18446744073709551615/" "$T/proc/vmstat"; sleep 2.5
stop_daemon
memtotal=$(( $(awk '/^MemTotal:/ { print $2 }' "$T/proc/meminfo") * 1024 ))
peak=$(sed -n 's/^peak_bytes=//p' "$T/var/lib/fragd/learned" 2>/dev/null)
[ -z "$peak" ] || python3 -c "import sys; sys.exit(int(sys.argv[1]) > int(sys.argv[2]))" "$peak" "$memtotal" || cbad "learned and persisted a burst of $peak bytes > MemTotal $memtotal"
cp "$T/proc/sys/vm/"* "$T.orig/" 2>/dev/null; knobs_oracle $rc
case_end; fi

# ---- where logs go ---------------------------------------------------------------------
if want journal-stream-mismatch; then case_begin journal-stream-mismatch  # item 16
fresh jstream; n=${#LOGS[@]}; L=$T/log.$n; LOGS+=("$L")
JOURNAL_STREAM=1:1 "$FRAGD" --root "$T" --page-size 4096 >"$L" 2>&1 & pid=$!
wait_for 10 raised || cbad "no raise"
stop_daemon
grep -q '^<[0-9]>' "$L" && cbad "syslog prefixes in a redirected file (JOURNAL_STREAM not stderr's): $(grep -m1 '^<[0-9]>' "$L")"
knobs_oracle $rc
case_end; fi

# ---- status, pause and resume when runtime_dir's files cannot be written ----------
lock_dir() { if [ "$(id -u)" = 0 ]; then chattr +i "$1"; else chmod 0555 "$1"; fi; }
unlock_dir() { if [ "$(id -u)" = 0 ]; then chattr -i "$1" 2>/dev/null; else chmod 0755 "$1"; fi; }
status_text() { fragd_cmd "$1" status; st_rc=$rc; st_out=$(cat "$T/$1.out"); }

# a status file naming a live process without its start time: incomplete, not "running"
if want status-pid-without-starttime; then case_begin status-pid-without-starttime  # item 10
fresh pid1; mkdir -p "$T/run/fragd"
printf 'fragd-status 1\npid 1\nupdated 1796150000000000\nownership respect\nops real\n' >"$T/run/fragd/status"
status_text st
[ $st_rc = 4 ] || cbad "status exit $st_rc, not 4: $st_out"
grep -q "fragd is running" <<<"$st_out" && cbad "a status file naming pid 1 alone reads as running: $st_out"
grep -q "without a start time" <<<"$st_out" || cbad "does not say the status file is incomplete: $st_out"
knobs_oracle 0
case_end; fi

# fewer descriptors than the status file needs (ulimit -n): the control
# socket is there, the status file is not. The limit where that happens
# depends on the build and the descriptors the shell passes on: the first
# from 12 up where the daemon got through its first tick.
if want status-unwritable-fds; then case_begin status-unwritable-fds  # item 6
fresh fds; found=
for n in 12 13 14 15 16 17 18; do
	rm -rf "$T/run/fragd"; LOGS=(); L=$T/log.fds$n; LOGS+=("$L")
	(ulimit -n "$n"; exec "$FRAGD" --root "$T" --page-size 4096) >"$L" 2>&1 & pid=$!
	wait_for 5 test -S "$T/run/fragd/control"; sleep 2.5
	# a daemon through its first tick ("running"), the status file not written
	if [ -S "$T/run/fragd/control" ] && [ ! -e "$T/run/fragd/status" ] && grep -q " running: tick" "$L"; then
		found=$n; break
	fi
	stop_daemon
done
if [ -z "$found" ]; then
	case_skip "no descriptor limit from 12 to 18 leaves the control socket without the status file"
else
	status_text st
	[ $st_rc = 1 ] || cbad "status exit $st_rc, not 1 (running, no status file): $st_out"
	grep -q "fragd is running (it answers on its control socket" <<<"$st_out" && grep -q "status' is missing" <<<"$st_out" \
		|| cbad "status does not say fragd runs without its status file: $st_out"
	grep -q "not running" <<<"$st_out" && cbad "status says not running: $st_out"
	# the connection status made is one the daemon cannot accept: it waits, never spins on it
	cpu() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat"; }
	c0=$(cpu); sleep 3; c1=$(cpu)
	[ $((c1 - c0)) -lt 60 ] || cbad "the daemon used $((c1 - c0)) clock ticks of CPU in 3 s after 'fragd status' (spinning on the control socket?)"
	[ "$(grep -c "cannot accept a connection" "$L")" -le 1 ] || cbad "'cannot accept' logged more than once: $(grep -c "cannot accept a connection" "$L")"
	w=$(grep -c "Cannot write the status file" "$L")
	[ "$w" = 1 ] || cbad "the failed status write logged $w times in 3 ticks, not once (ulimit -n $found): $(grep -m1 "status file" "$L")"
	stop_daemon; knobs_oracle $rc
	case_end
fi; fi

# the control socket removed under a running fragd: pause says it runs
if want control-socket-removed; then case_begin control-socket-removed  # item 6
fresh nosock; start; wait_for 10 test -s "$T/run/fragd/status" || cbad "no status file"
rm -f "$T/run/fragd/control"
fragd_cmd pause pause; out=$(cat "$T/pause.out")
[ $rc = 1 ] || cbad "pause exit $rc, not 1: $out"
grep -q "fragd is running (pid $pid), but its control socket .* is missing" <<<"$out" || cbad "pause does not say fragd runs without its socket: $out"
stop_daemon; knobs_oracle $rc
case_end; fi

# a directory named 'paused': resume does not answer OK while it stays
if want paused-is-directory; then case_begin paused-is-directory  # item 7
fresh pdir; start; wait_for 10 raised || cbad "no raise"
fragd_cmd pause1 pause; [ $rc = 0 ] || cbad "pause: exit $rc: $(cat "$T/pause1.out")"
rm -f "$T/run/fragd/paused"; mkdir "$T/run/fragd/paused"
fragd_cmd resume1 resume; out=$(cat "$T/resume1.out")
[ $rc != 0 ] || cbad "resume answered OK with a directory at the pause flag: $out"
grep -q "run/fragd/paused' is a directory" <<<"$out" || cbad "resume does not name the directory: $out"
status_text st1; grep -q "^Paused" <<<"$st_out" || cbad "not paused after the refused resume: $st_out"
stop_daemon; knobs_oracle $rc
start; wait_for 10 grep -q "is a directory" "$L" || cbad "restart does not say 'paused' is a directory: $(tail -2 "$L")"
rmdir "$T/run/fragd/paused"
fragd_cmd resume2 resume; [ $rc = 0 ] || cbad "resume after rmdir: exit $rc: $(cat "$T/resume2.out")"
wait_for 10 raised || cbad "no raise after resume"
stop_daemon; knobs_oracle $rc
case_end; fi

# the pause flag cannot be written (runtime_dir locked): pause fails, says so
if want pause-flag-unwritable; then case_begin pause-flag-unwritable  # item 8
if [ "$(id -u)" = 0 ] && [ -z "$immutable_ok" ]; then case_skip "root and no chattr +i on this file system"
else
	fresh pflag; start --dry-run; wait_for 10 test -S "$T/run/fragd/control" || cbad "no control socket"
	lock_dir "$T/run/fragd"
	fragd_cmd pause1 pause; out=$(cat "$T/pause1.out")
	[ $rc != 0 ] || cbad "pause exit 0 though the flag was not written: $out"
	grep -q "cannot write the pause flag '$T/run/fragd/paused' (.*): a restart of fragd will not stay paused" <<<"$out" \
		|| cbad "pause does not name the flag, the error and the consequence: $out"
	fragd_cmd pause2 pause; [ $rc != 0 ] || cbad "a repeated pause answers OK without the flag: $(cat "$T/pause2.out")"
	unlock_dir "$T/run/fragd"
	fragd_cmd pause3 pause; [ $rc = 0 ] && [ -f "$T/run/fragd/paused" ] || cbad "pause after unlocking: exit $rc, flag $(ls "$T/run/fragd")"
	stop_daemon; knobs_oracle $rc
	case_end
fi; fi

# a knob that cannot be put back on pause: status lists it first, never "every knob handed back"
if want pause-immutable-knob; then case_begin pause-immutable-knob  # item 9
if [ "$(id -u)" = 0 ] && [ -z "$immutable_ok" ]; then case_skip "root and no chattr +i on this file system"
else
	fresh pimm; start; wait_for 10 raised || cbad "no raise"
	lock_knob "$T/proc/sys/vm/$KNOB"
	fragd_cmd pause pause; [ $rc != 0 ] || cbad "pause exit 0 with $KNOB not restored: $(cat "$T/pause.out")"
	status_text st
	grep -q "every knob fragd changed was handed back" <<<"$st_out" && cbad "status says every knob was handed back: $st_out"
	first=$(sed -n 3p <<<"$st_out")
	grep -q "vm.$KNOB *still $(kv) (original $(orig)): " <<<"$first" || cbad "the knob still changed is not listed first with its error: $st_out"
	unlock_knob "$T/proc/sys/vm/$KNOB"
	stop_daemon; knobs_oracle $rc
	case_end
fi; fi

# runtime_dir on a full tmpfs (a private mount namespace): status says fragd
# runs and why its status file is missing; pause fails naming the flag
if want runtime-dir-full; then case_begin runtime-dir-full  # items 6, 8
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
	case_skip "needs root and unshare -m (a full tmpfs over the tree's run)"
else
	fresh full; L=$T/log.0; LOGS+=("$L" "$T/full.out")
	unshare -m --propagation private bash -c '
		T=$1 F=$2 L=$3
		mkdir -p "$T/run"; mount -t tmpfs -o size=8k fragd-test "$T/run" || exit 1
		mkdir -p "$T/run/fragd"; head -c 65536 /dev/zero >"$T/run/fill" 2>/dev/null
		"$F" --root "$T" --page-size 4096 >"$L" 2>&1 & p=$!
		for i in $(seq 50); do [ -S "$T/run/fragd/control" ] && break; sleep 0.1; done; sleep 2
		"$F" status --root "$T"; echo "status-rc=$?"
		"$F" pause --root "$T"; echo "pause-rc=$?"
		rm -f "$T/run/fill"; sleep 1.5
		"$F" status --root "$T" >/dev/null; echo "status2-rc=$?"
		kill -TERM $p; wait $p; echo "daemon-rc=$?"' _ "$T" "$FRAGD" "$L" >"$T/full.out" 2>&1
	out=$(cat "$T/full.out")
	grep -q "status-rc=1" <<<"$out" && grep -q "fragd is running (it answers on its control socket" <<<"$out" \
		&& grep -q "the file system holding it is full" <<<"$out" || cbad "status on a full runtime_dir: $out"
	grep -q "pause-rc=0" <<<"$out" && cbad "pause answered OK on a full runtime_dir: $out"
	grep -q "cannot write the pause flag .*No space left on device" <<<"$out" || cbad "pause does not say why: $out"
	grep -q "status2-rc=0" <<<"$out" || cbad "status after freeing space: $out"
	[ "$(grep -c "Cannot write the status file" "$L")" = 1 ] || cbad "the failed status write not logged once: $(grep -c "Cannot write the status file" "$L")"
	grep -q "is written again" "$L" || cbad "the recovery not logged"
	grep -q "daemon-rc=0" <<<"$out" || cbad "daemon exit: $out"
	knobs_oracle 0
	case_end
fi; fi

# the default textfile_dir is a host path: under --root it must not be used.
# Only in a private mount namespace (root), over a tmpfs: never the host's.
if want no-textfile-dir-on-host; then case_begin no-textfile-dir-on-host  # item 2
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
	case_skip "needs root and unshare -m (a private tmpfs over /var/lib/prometheus)"
else
	fresh notf; sed -i '/^textfile_dir/d' "$T/etc/fragd/fragd.conf"
	L=$T/log.0; LOGS+=("$L")
	mp=/var/lib/prometheus; [ -d $mp ] || mp=/var/lib
	seen=$(unshare -m --propagation private bash -c '
		mount -t tmpfs fragd-test "$1" || exit 1
		mkdir -p /var/lib/prometheus/node-exporter
		"$2" --root "$3" --page-size 4096 >"$4" 2>&1 & p=$!
		sleep 3; kill -TERM $p; wait $p
		ls -A /var/lib/prometheus/node-exporter' _ "$mp" "$FRAGD" "$T" "$L")
	[ -z "$seen" ] || cbad "the daemon under --root wrote the host's textfile dir (a private tmpfs here): $seen"
	knobs_oracle 0
	case_end
fi; fi

# ---- hostile unit names (issue 38 item 4) ----------------------------------------------
# fragd thp-dropin with names built to write, run or print what they should
# not: each refused (exit 2), nothing on stdout, the name escaped on one
# stderr line, nothing written anywhere (no bus: DBUS_SYSTEM_BUS_ADDRESS
# points nowhere, so a name that passed would end at exit 3)
if want hostile-unit-name; then case_begin hostile-unit-name
fresh hostile
for name in $'x.service\n[Service]\nExecStartPre=/tmp/evil\n#' "../../..$OUT/planted.service" a/b.service \
	'x.service;touch planted' '$(touch planted).service' $'\e]0;owned\a\e[2Jx.service' \
	"$(printf 'a%.0s' $(seq 1 300)).service"; do
	n=${#LOGS[@]}; LOGS+=("$T/dropin.$n.err")
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus timeout -s KILL 10 "$FRAGD" thp-dropin "$name" never \
		>"$T/dropin.$n.out" 2>"$T/dropin.$n.err"; rc=$?
	[ $rc = 2 ] || cbad "$(printf %q "$name"): exit $rc, not 2"
	[ ! -s "$T/dropin.$n.out" ] || cbad "$(printf %q "$name"): stdout $(head -c 80 "$T/dropin.$n.out")"
	[ "$(wc -l <"$T/dropin.$n.err")" = 1 ] && ! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/dropin.$n.err" \
		|| cbad "$(printf %q "$name"): stderr not one escaped line: $(head -c 120 "$T/dropin.$n.err" | od -c | head -2)"
done
[ ! -e "$OUT/planted.service" ] && [ ! -e "$work/cwd/planted" ] || cbad "a hostile unit name made a file"
knobs_oracle 0
case_end; fi

echo "faults: $n_pass passed, $n_fail failed, $n_skip skipped"
[ ${#FAILED[@]} = 0 ] || echo "faults: failed: ${FAILED[*]} (rerun one: FAULTS_ONLY=ID FRAGD=... FRAGD_SRCDIR=... bash $0)"
[ $n_fail = 0 ] || fail=1
finish
