#!/bin/bash
# --root contains everything (issue 11, items 1 and 2): a daemon, --once,
# status and --restore against a copy of a fixture tree write nothing outside
# it (the default textfile_dir lands in <root>/var/lib/prometheus/node-exporter,
# not the host's); a knob that is a symlink out of the tree is neither read
# nor written, with a message naming it; symlinks planted at every file fragd
# writes (and at the temp name older fragd used, <name>.tmp.<pid>) pointing
# at a file outside leave that file's bytes and mode as they were.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented
TEST_TAG=root-contained
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

outside=$work/outside
mkdir -p "$outside"
victim() { # victim NAME: a file outside every tree, mode 0600
	printf 'precious %s\n' "$1" >"$outside/$1"
	chmod 0600 "$outside/$1"
}
# the victims' bytes and modes, to compare at the end
victims_state() { (cd "$outside" && for f in *; do printf '%s %s ' "$f" "$(stat -c %a "$f")"; md5sum <"$f"; done); }

# 1. a knob symlinked out of the tree: never written, never read, named
fresh_tree knob "$FIX"
write_conf "[policy]" "reserve_thp = 20%" "reserve_always = yes"
for k in compaction_proactiveness min_free_kbytes; do
	cp "$T/proc/sys/vm/$k" "$outside/knob.$k"
	ln -sf "$outside/knob.$k" "$T/proc/sys/vm/$k"
done
before=$(victims_state)
start_daemon "$T/log"
wait_for 10 grep -q "running" "$T/log" || bad "knob: the daemon did not start: $(tail -3 "$T/log")"
sleep 2.5 # ticks that would raise compaction_proactiveness (0 -> 20 in a tree without the links)
during=$(victims_state)
stop || bad "knob: daemon exit status $?"
[ "$during" = "$before" ] && [ "$(victims_state)" = "$before" ] \
	&& pass "knob symlinked outside the tree: the outside file is unchanged while running and after" \
	|| bad "knob: the outside file changed: $during"
grep -q "Knob vm.compaction_proactiveness: '$T/proc/sys/vm/compaction_proactiveness' is a symlink that leads out of the root" "$T/log" \
	&& pass "knob: the message names the knob and its path" || bad "knob: no clear message: $(head -5 "$T/log")"
out=$("$FRAGD" --once --root "$T" --page-size 4096 2>&1 >/dev/null)
[ "$(victims_state)" = "$before" ] && grep -q "vm.min_free_kbytes: .* leads out of the root" <<<"$out" \
	&& pass "knob: --once names it too" || bad "knob: --once: $out"

# 2. a daemon with the default textfile_dir, HOME and TMPDIR empty: every file
# it (and status, --once --format prom, --restore) writes is below the tree;
# nothing else in $work changes. As root with unshare(1), all of it runs in a
# private mount namespace with empty tmpfs over /run and /var/lib (and an
# empty /var/lib/prometheus/node-exporter there): what would have been written
# to the host's directories is seen there, and no other test or program on
# the machine can disturb the check.
fresh_tree default "$FIX"
printf '[daemon]\ninterval = 1s\n[policy]\nreserve_thp = 20%%\nreserve_always = yes\n' >"$T/etc/fragd/fragd.conf"
mkdir -p "$T/var/lib/prometheus/node-exporter" "$work/home" "$work/tmp" "$work/marker/sub"
echo marker >"$work/marker/sub/file"
cat >"$work/section2.sh" <<'EOS'
set -u
FRAGD=$1 T=$2 work=$3 ns=$4
if [ "$ns" = 1 ]; then
	mount -t tmpfs fragd-test /var/lib && mount -t tmpfs fragd-test /run || exit 99
	mkdir -p /var/lib/prometheus/node-exporter
fi
export HOME=$work/home TMPDIR=$work/tmp
"$FRAGD" --root "$T" --page-size 4096 >"$T/log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -s "$T/var/lib/prometheus/node-exporter/fragd.prom" ] && [ -s "$T/run/fragd/saved" ] && break; sleep 0.1; done
"$FRAGD" status --root "$T" >"$T/status.out" 2>&1 || echo "status exit $?" >>"$T/errors"
"$FRAGD" --once --root "$T" --page-size 4096 --format prom >"$T/once.prom" 2>"$T/once.err" || echo "--once exit $?" >>"$T/errors"
kill -9 "$pid"; wait "$pid" 2>/dev/null
"$FRAGD" --restore --root "$T" >"$T/restore.out" 2>&1 || echo "--restore exit $? $(cat "$T/restore.out")" >>"$T/errors"
[ "$ns" = 1 ] && find /run /var/lib -mindepth 1 ! -path /var/lib/prometheus ! -path /var/lib/prometheus/node-exporter >"$T/host-written"
exit 0
EOS
stamp=$work/stamp
touch "$stamp"
sleep 0.1
ns=0
if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then ns=1; fi
if [ $ns = 1 ]; then
	unshare --mount --propagation private bash "$work/section2.sh" "$FRAGD" "$T" "$work" 1
else
	bash "$work/section2.sh" "$FRAGD" "$T" "$work" 0
fi
rc=$?
[ $rc = 0 ] || bad "default: the namespace could not be set up (exit $rc)"
[ -s "$T/var/lib/prometheus/node-exporter/fragd.prom" ] \
	&& pass "default textfile_dir: fragd.prom in <root>/var/lib/prometheus/node-exporter" \
	|| bad "default textfile_dir: no fragd.prom in the tree: $(grep -i metrics "$T/log")"
[ ! -e "$T/errors" ] && pass "default: status, --once --format prom, --restore succeed" || bad "default: $(cat "$T/errors")"
newer=$(find "$work" -newer "$stamp" ! -path "$T" ! -path "$T/*" ! -path "$work" ! -path "$work/section2.sh" 2>&1)
[ -z "$newer" ] && pass "daemon, status, --once, --restore under --root wrote nothing outside the tree in \$work" \
	|| bad "written outside the tree: $newer"
if [ $ns = 1 ]; then
	[ -e "$T/host-written" ] && [ ! -s "$T/host-written" ] \
		&& pass "nothing written to the (namespaced) host /run and /var/lib" \
		|| bad "written to the host's directories: $(cat "$T/host-written" 2>&1)"
else
	echo "NOTE root-contained: not root or no unshare(1): the host /run and /var/lib check is skipped"
fi

# 3. symlinks at every file fragd writes, and at the old temp names
# <name>.tmp.<pid> (the daemon's pid is the shell's that execs it): the
# victims outside keep their bytes and modes
fresh_tree links "$FIX"
write_conf "[policy]" "reserve_thp = 20%" "reserve_always = yes"
mkdir -p "$T/run/fragd" "$T/var/lib/fragd"
for f in saved status learned prom; do victim "$f"; victim "$f.tmp"; done
ln -s "$outside/saved" "$T/run/fragd/saved"
before=$(victims_state)
# a journal that is a symlink is not read (nor restored from, nor moved):
# the daemon and --restore refuse, name it and say what to do
out=$(timeout -s KILL 10 "$FRAGD" --root "$T" --page-size 4096 2>&1); rc=$?
[ $rc != 0 ] && grep -q "knob journal '$T/run/fragd/saved' is a symbolic link (to '$outside/saved')" <<<"$out" \
	&& [ "$(victims_state)" = "$before" ] && [ -L "$T/run/fragd/saved" ] \
	&& pass "links: a symlinked journal is refused, named, not followed" \
	|| bad "links: symlinked journal: exit $rc: $out"
for what in "Inspect it (ls -l '$T/run/fragd/saved'" "remove the link (rm '$T/run/fragd/saved')" \
	"check by hand that the knobs fragd manages (under '$T/proc/sys/vm'" "then start fragd again" \
	"fragd does not start: /run/fragd/saved is a symbolic link"; do
	grep -qF "$what" <<<"$out" || bad "links: symlinked journal: the message lacks \"$what\": $out"
done
out=$(timeout -s KILL 10 "$FRAGD" --root "$T" --restore 2>&1); rc=$?
[ $rc != 0 ] && grep -qF "remove the link (rm '$T/run/fragd/saved')" <<<"$out" && [ -L "$T/run/fragd/saved" ] \
	&& [ "$(victims_state)" = "$before" ] && pass "links: --restore refuses a symlinked journal and says what to do" \
	|| bad "links: --restore with a symlinked journal: exit $rc: $out"
rm "$T/run/fragd/saved"
ln -s "$outside/status" "$T/run/fragd/status"
ln -s "$outside/learned" "$T/var/lib/fragd/learned"
ln -s "$outside/prom" "$T/prom/fragd.prom"
before=$(victims_state)
# shellcheck disable=SC2016 # $$ is the inner shell's pid, which exec hands to fragd
bash -c 'T=$1 o=$2; shift 2
	ln -s "$o/saved.tmp" "$T/run/fragd/saved.tmp.$$"
	ln -s "$o/status.tmp" "$T/run/fragd/status.tmp.$$"
	ln -s "$o/learned.tmp" "$T/var/lib/fragd/learned.tmp.$$"
	ln -s "$o/prom.tmp" "$T/prom/fragd.prom.tmp.$$"
	exec "$@"' _ "$T" "$outside" "$FRAGD" --root "$T" --page-size 4096 >"$T/log" 2>&1 &
pid=$!
wait_for 10 test -f "$T/prom/fragd.prom" -a ! -L "$T/prom/fragd.prom" \
	&& pass "links: fragd.prom written as a new file in place of the symlink" || bad "links: fragd.prom not replaced"
wait_for 10 test -f "$T/run/fragd/status" -a ! -L "$T/run/fragd/status" || bad "links: status not replaced"
stop || bad "links: daemon exit status $?"
[ "$(victims_state)" = "$before" ] && pass "links: no file outside written or chmodded through a symlink" \
	|| bad "links: a victim changed: $(diff <(echo "$before") <(victims_state))"
grep -q "Every knob fragd changed is back" "$T/log" && pass "links: the daemon ran and restored its knobs" \
	|| bad "links: $(tail -3 "$T/log")"

finish
