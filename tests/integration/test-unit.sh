#!/bin/bash
# The installed systemd unit: `make install DESTDIR=<tmp> PREFIX=/usr`, then
#  - systemd-analyze verify --root=<tmp> passes with no message at all. The
#    verify root gets what the unit refers to outside fragd's own files: the
#    host's unit directory (sysinit.target, ...) and the Exec*= programs that
#    are not fragd (/bin/kill), copied in; the man pages of Documentation= are
#    the ones just installed (MANPATH). A broken copy of the unit must fail
#    the same verify, so a pass is not vacuous;
#  - the unit keeps what the daemon needs: Type=notify, WatchdogSec=, no
#    ProtectKernelTunables=, ReadWritePaths= for every place fragd writes,
#    RuntimeDirectory= and StateDirectory= (the learned reserve),
#    AF_UNIX + AF_NETLINK, the capabilities it uses, no private network or
#    user namespace (taskstats and the proc connector live in the initial
#    ones), OOMScoreAdjust= and MemoryMin= (it acts under memory pressure);
#  - ExecStopPost's `fragd --restore --quiet-if-clean` is accepted by the CLI
#    and is silent with nothing to restore;
#  - systemd-analyze security --offline=yes: the overall exposure is at most
#    FRAGD_UNIT_MAX_EXPOSURE (default 2.1, the value of the hardened unit; it
#    was 3.1 before), so a change that weakens the sandbox fails here.
# Writes only below a temp dir.
set -uo pipefail
: "${FRAGD_SRCDIR:?}" "${BUILDDIR:?}"
MAX_EXPOSURE=${FRAGD_UNIT_MAX_EXPOSURE:-2.1}

if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP test-unit: needs systemd-analyze (package systemd)"
	exit 0
fi
fail=0
pass() { echo "PASS unit: $*"; }
bad() { echo "FAIL unit: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root

if ! make -s -C "$FRAGD_SRCDIR" install DESTDIR="$D" PREFIX=/usr BUILDDIR="$BUILDDIR" >"$tmp/install.log" 2>&1; then
	bad "make install failed: $(tail -5 "$tmp/install.log")"
	exit 1
fi
unit=$(cd "$D" && find . -path '*/systemd/system/fragd.service' | head -1)
unit=${unit#.}
if [ -z "$unit" ]; then
	bad "make install put no fragd.service below $D"
	exit 1
fi
pass "installed $unit"
U=$D$unit

# --- the verify root ----------------------------------------------------------
# systemd's own units (the dependencies of default units), without touching
# the installed fragd.service
for dir in /usr/lib/systemd/system /lib/systemd/system; do
	[ -d "$dir" ] || continue
	mkdir -p "$D$dir"
	cp -rn "$dir/." "$D$dir/" 2>/dev/null
done
# Exec*= programs that make install does not provide
sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$U" | sort -u | while read -r prog; do
	[ -e "$D$prog" ] && continue
	if [ -x "$prog" ]; then
		mkdir -p "$(dirname "$D$prog")" && cp "$prog" "$D$prog"
	fi
done
export MANPATH=$D/usr/share/man

verify() { # verify UNIT_PATH_BELOW_D -> output in $tmp/verify.out, rc
	systemd-analyze verify --root="$D" "$1" >"$tmp/verify.out" 2>&1
}
if verify "$unit" && [ ! -s "$tmp/verify.out" ]; then
	pass "systemd-analyze verify --root: clean"
else
	bad "systemd-analyze verify: $(cat "$tmp/verify.out")"
fi
# control: the same verify sees a missing ExecStart binary, an unknown man
# page and an unknown directive
broken=${unit%/*}/fragd-broken.service
sed -e 's|^ExecStart=.*|ExecStart=/usr/sbin/fragd-missing|' -e 's|man:fragd(8)|man:fragd-missing(8)|' \
	-e 's|^UMask=|ProtectKernelTunablez=yes\nUMask=|' "$U" >"$D$broken"
verify "$broken"
for what in "fragd-missing is not executable" "man fragd-missing(8)" "Unknown key 'ProtectKernelTunablez'"; do
	grep -qF "$what" "$tmp/verify.out" && pass "verify control: reports $what" \
		|| bad "verify control: did not report '$what': $(cat "$tmp/verify.out")"
done
rm -f "$D$broken"

# --- what the daemon needs ------------------------------------------------------
has() { grep -Eq "$1" "$U"; }
has '^Type=notify$' && pass "Type=notify" || bad "no Type=notify"
has '^WatchdogSec=[1-9]' && pass "WatchdogSec= set" || bad "no WatchdogSec="
has '^ProtectKernelTunables=' && bad "ProtectKernelTunables= present: fragd writes kernel tunables" \
	|| pass "no ProtectKernelTunables="
rw=$(sed -n 's/^ReadWritePaths=//p' "$U" | tr ' ' '\n' | sed 's/^-//')
for p in /proc/sys/vm /sys/kernel/mm/transparent_hugepage /sys/devices/system/node \
	/proc/sys/kernel/task_delayacct /var/lib/prometheus/node-exporter /sys/kernel/tracing; do
	grep -qx "$p" <<<"$rw" && pass "ReadWritePaths has $p" || bad "ReadWritePaths lacks $p"
done
has '^RuntimeDirectory=fragd$' && pass "RuntimeDirectory=fragd" || bad "no RuntimeDirectory=fragd"
# the learned reserve's state file (/var/lib/fragd, writable under ProtectSystem=strict)
has '^StateDirectory=fragd$' && pass "StateDirectory=fragd" || bad "no StateDirectory=fragd"
af=$(sed -n 's/^RestrictAddressFamilies=//p' "$U")
for f in AF_UNIX AF_NETLINK; do
	echo " $af " | grep -q " $f " && pass "RestrictAddressFamilies allows $f" || bad "RestrictAddressFamilies lacks $f"
done
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$U")
for c in CAP_NET_ADMIN CAP_SYS_NICE CAP_SYS_PTRACE; do
	echo " $caps " | grep -q " $c " && pass "CapabilityBoundingSet has $c" || bad "CapabilityBoundingSet lacks $c"
done
for o in PrivateNetwork PrivateUsers; do
	has "^$o=(yes|true|on|1)$" && bad "$o=yes: taskstats and the proc connector need the initial namespaces" \
		|| pass "no $o=yes"
done
# protected under memory pressure: it acts then, and restores the knobs at stop
has '^OOMScoreAdjust=-([5-9][0-9][0-9])$' && pass "OOMScoreAdjust= $(sed -n 's/^OOMScoreAdjust=//p' "$U")" \
	|| bad "no OOMScoreAdjust= between -999 and -500"
has '^MemoryMin=[1-9][0-9]*[KMG]$' && pass "MemoryMin= $(sed -n 's/^MemoryMin=//p' "$U")" || bad "no MemoryMin="
has '^User=|^DynamicUser=(yes|true|on|1)$' && bad "runs as another user: /proc/sys is writable only for euid 0" \
	|| pass "runs as root"

# --- the commands the unit runs -------------------------------------------------
start=$(sed -n 's/^ExecStart=//p' "$U")
[ -x "$D${start%% *}" ] && pass "ExecStart binary installed: ${start%% *}" || bad "ExecStart ${start%% *} not installed"
stop=$(sed -n 's/^ExecStopPost=//p' "$U")
if [ "${stop%% *}" = "${start%% *}" ]; then
	empty=$tmp/empty-root
	mkdir -p "$empty"
	# shellcheck disable=SC2086 # the unit's arguments, word-split as systemd does
	out=$("$D${stop%% *}" ${stop#* } --root "$empty" 2>&1); rc=$?
	[ $rc = 0 ] && [ -z "$out" ] && pass "ExecStopPost '$stop': accepted, silent with nothing to restore" \
		|| bad "ExecStopPost '$stop' --root <empty>: exit $rc: $out"
	"$D${stop%% *}" --restore --no-such-option --root "$empty" >/dev/null 2>&1
	[ $? = 2 ] && pass "control: an unknown option is a usage error (exit 2)" || bad "control: unknown option not rejected"
else
	bad "ExecStopPost '$stop' does not run fragd"
fi

# --- exposure -------------------------------------------------------------------
systemd-analyze security --offline=yes --root="$D" "$unit" >"$tmp/security.out" 2>&1
score=$(sed -n 's/.*Overall exposure level for fragd.service: \([0-9.]*\).*/\1/p' "$tmp/security.out")
if [ -z "$score" ]; then
	bad "systemd-analyze security gave no score: $(tail -5 "$tmp/security.out")"
elif awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
	pass "systemd-analyze security --offline=yes: exposure $score (threshold $MAX_EXPOSURE)"
else
	bad "exposure $score is worse than $MAX_EXPOSURE:"
	grep '✗' "$tmp/security.out"
fi
exit $fail
