#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fragd thp-dropin against a fake systemd (tests/helpers/fake-systemd1.c) on
# a private dbus-daemon (DBUS_SYSTEM_BUS_ADDRESS; never the host's bus),
# with systemctl --version faked on PATH:
#  - unit names systemd would refuse (a newline and [Service] lines, a path,
#    a ';', escape sequences, too long, no or another suffix) exit 2 and are
#    printed escaped, nothing on stdout;
#  - a unit whose ExecStart= already runs fragd-thp-exec (our own drop-in)
#    gets its mode replaced, never a second launcher;
#  - an umbrella (Debian's postgresql.service: Type=oneshot,
#    ExecStart=/bin/true) is refused, naming its instance units (ConsistsOf=,
#    else the loaded <prefix>@*.service), else the pattern;
#  - the hint to restart is shell-quoted.
# shellcheck disable=SC2015,SC2016 # pass || bad is meant; the fake systemctl expands at its run
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}" "${BUILDDIR:?}"
TEST_TAG=thp-dropin
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"
FAKE=$BUILDDIR/tests/fake-systemd1

# names systemd refuses: exit 2, escaped on stderr, nothing on stdout
long=$(printf 'a%.0s' $(seq 1 250)).service
for name in $'x.service\n[Service]\nExecStartPre=/tmp/evil\n#' ../../../etc/passwd.service a/b.service \
	'x.service;rm -rf /' $'\e]0;owned\a\e[31mx.service' "$long" postgresql .service x.conf ''; do
	out=$("$FRAGD" thp-dropin "$name" never 2>"$work/err"); rc=$?
	err=$(cat "$work/err")
	if [ $rc = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err")" = 1 ] && ! grep -q $'[\x01-\x1f\x7f]' "$work/err"; then
		pass "refused (exit 2, one escaped line): $err"
	else
		bad "name $(printf %q "$name"): exit $rc, stdout '$out', stderr $(printf %q "$err")"
	fi
done
grep -q "x.service\\\\n\[Service\]\\\\nExecStartPre" < <("$FRAGD" thp-dropin $'x.service\n[Service]\nExecStartPre=/x' never 2>&1) \
	&& pass "a newline in the name is shown as \\n" || bad "newline not escaped"
"$FRAGD" thp-dropin x.scope never >/dev/null 2>"$work/err"; rc=$?
[ $rc = 2 ] && grep -q "is a .scope unit" "$work/err" && pass "a .scope is refused: $(cat "$work/err")" \
	|| bad "x.scope: exit $rc $(cat "$work/err")"

# the fake systemd on a private bus
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "systemd ${FAKE_SYSTEMD_VERSION:-252} (fake)"\n' >"$work/bin/systemctl"
chmod +x "$work/bin/systemctl"
cat >"$work/spec" <<'SPEC'
pg.service|loaded|notify|-|/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main
wrapped.service|loaded|notify|-|/usr/local/bin/fragd-thp-exec --mode never -- /usr/lib/postgresql/15/bin/postgres -D /var/lib/x
twice.service|loaded|simple|-|/usr/sbin/fragd-thp-exec --mode madvise --fallback=never -- /usr/sbin/fragd-thp-exec --mode never -- /usr/bin/redis-server /etc/redis.conf
postgresql.service|loaded|oneshot|postgresql@15-main.service,postgresql@16-main.service|/bin/true
app.service|loaded|oneshot|-|/usr/bin/true
app@one.service|loaded|simple|-|/usr/bin/app one
lonely.service|loaded|oneshot|-|
postgresql@15-main.service|loaded|forking|-|/usr/bin/pg_ctlcluster --skip-systemctl-redirect 15-main start
back\x2dslash.service|loaded|simple|-|/usr/bin/x
SPEC
if ! command -v dbus-daemon >/dev/null; then
	echo "SKIP thp-dropin: no dbus-daemon for the fake systemd (the bus cases; the name checks above ran)"
	finish
fi
dbus-daemon --session --fork --print-address=1 --print-pid=1 --address="unix:path=$work/bus" >"$work/dbus" \
	|| { bad "dbus-daemon did not start"; finish; }
dbus_pid=$(sed -n 2p "$work/dbus")
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
"$FAKE" "$work/spec" >"$work/fake.out" 2>&1 &
fake_pid=$!
trap 'kill "$fake_pid" "$dbus_pid" 2>/dev/null; cleanup' EXIT
wait_for 10 grep -q ready "$work/fake.out" || { bad "fake systemd: $(cat "$work/fake.out")"; finish; }
dropin() { PATH=$work/bin:$PATH "$FRAGD" thp-dropin "$@"; }

out=$(dropin pg.service never 2>&1); rc=$?
if [ $rc = 0 ] && grep -qx 'ExecStart=/usr/local/bin/fragd-thp-exec --mode never -- /usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main' <<<"$out"; then
	pass "a plain service is wrapped once"
else
	bad "pg.service: exit $rc: $out"
fi

# 5: our own drop-in in ExecStart: the mode is replaced
out=$(dropin wrapped.service madvise 2>&1); rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^ExecStart=.*fragd-thp-exec' <<<"$out")" = 1 ] &&
	grep -qx 'ExecStart=/usr/local/bin/fragd-thp-exec --mode madvise -- /usr/lib/postgresql/15/bin/postgres -D /var/lib/x' <<<"$out" &&
	grep -q "already runs fragd-thp-exec (an earlier drop-in): its mode is replaced" <<<"$out"; then
	pass "over its own drop-in: --mode madvise replaces never, one launcher"
else
	bad "wrapped.service: exit $rc: $(grep -v '^# [a-z]' <<<"$out")"
fi
out=$(dropin twice.service never 2>&1); rc=$?
if [ $rc = 0 ] && grep -qx 'ExecStart=/usr/local/bin/fragd-thp-exec --mode never -- /usr/bin/redis-server /etc/redis.conf' <<<"$out"; then
	pass "a launcher wrapped twice (by an older fragd) is taken off both times"
else
	bad "twice.service: exit $rc: $out"
fi

# 16: umbrellas
out=$(dropin postgresql.service never 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "postgresql.service runs no workload (Type=oneshot, ExecStart=/bin/true)" <<<"$out" &&
	grep -q "'fragd thp-dropin postgresql@15-main.service never', 'fragd thp-dropin postgresql@16-main.service never'" <<<"$out" &&
	! grep -q '^\[Service\]' <<<"$out"; then
	pass "Debian's umbrella postgresql.service is refused, naming its instances: $out"
else
	bad "postgresql.service: exit $rc: $out"
fi
out=$(dropin app.service never 2>&1); rc=$?
[ $rc = 1 ] && grep -q "'fragd thp-dropin app@one.service never'" <<<"$out" \
	&& pass "an umbrella without ConsistsOf=: the loaded app@*.service named" || bad "app.service: exit $rc: $out"
out=$(dropin lonely.service never 2>&1); rc=$?
[ $rc = 1 ] && grep -q "ExecStart=none).*systemctl list-units 'lonely@\*.service').*'fragd thp-dropin lonely@15-main.service never'" <<<"$out" \
	&& pass "a oneshot with nothing to run, no instance loaded: the pattern named" || bad "lonely.service: exit $rc: $out"
out=$(FAKE_SYSTEMD_VERSION=260 dropin postgresql.service never 2>&1); rc=$?
[ $rc = 1 ] && grep -q "runs no workload" <<<"$out" && pass "refused with MemoryTHP= too" || bad "260 umbrella: exit $rc: $out"
out=$(dropin postgresql@15-main.service never 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^ExecStart=/usr/local/bin/fragd-thp-exec --mode never -- /usr/bin/pg_ctlcluster" <<<"$out" \
	&& pass "the instance postgresql@15-main.service takes the drop-in" || bad "instance: exit $rc: $out"
out=$(dropin nosuch.service never 2>&1); rc=$?
[ $rc = 1 ] && grep -q "no such unit (load state not-found)" <<<"$out" && pass "an unknown unit: exit 1, said" \
	|| bad "nosuch: exit $rc: $out"

# 4: the hint is shell-quoted (a backslash is valid in unit names)
out=$(dropin 'back\x2dslash.service' never 2>&1); rc=$?
if [ $rc = 0 ] && grep -qxF "#   systemctl daemon-reload && systemctl restart 'back\\x2dslash.service'" <<<"$out" &&
	grep -qxF "# Install as '/etc/systemd/system/back\\x2dslash.service.d/50-fragd-thp.conf', then" <<<"$out"; then
	pass "the restart hint and the path are shell-quoted"
else
	bad "backslash: exit $rc: $out"
fi
kill "$fake_pid" "$dbus_pid" 2>/dev/null
finish
