#!/bin/bash
# make install with its defaults (PREFIX=/usr/local) into a DESTDIR:
#  - every file lands below /usr/local or in /etc/fragd: nothing in the
#    directories dpkg manages for the distribution (/lib, /usr/lib,
#    /usr/share, /usr/sbin, ...), the unit included
#    (/usr/local/lib/systemd/system, which systemd searches) and the bash
#    completion (/usr/local/share/bash-completion/completions);
#  - the unit runs /usr/local/sbin/fragd;
#  - every alert's runbook_url in the installed rules names the installed
#    runbook (/usr/local/share/doc/fragd/runbook.md) and a heading in it
#    (tests/lib/runbook-links.sh), and promtool's rule tests pass on the
#    installed pair of files (when promtool is installed);
#  - the installed catalog passes check-catalog.sh --fields: Support: in
#    every entry, each reference a file that make install put there;
#  - make uninstall removes all of it but the configuration in /etc/fragd.
# Writes only below a temp dir.
set -uo pipefail
: "${FRAGD_SRCDIR:?}" "${BUILDDIR:?}"
fail=0
pass() { echo "PASS install: $*"; }
bad() { echo "FAIL install: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root

if ! make -s -C "$FRAGD_SRCDIR" install DESTDIR="$D" BUILDDIR="$BUILDDIR" >"$tmp/install.log" 2>&1; then
	bad "make install failed: $(tail -5 "$tmp/install.log")"
	exit 1
fi
files=$(cd "$D" && find . ! -type d | sed 's|^\.||' | sort)
pass "make install: $(grep -c . <<<"$files") files"
outside=$(grep -Ev '^/usr/local/|^/etc/fragd/' <<<"$files")
[ -z "$outside" ] && pass "every file below /usr/local or /etc/fragd" \
	|| bad "installed outside /usr/local and /etc/fragd: $(tr '\n' ' ' <<<"$outside")"
for f in /usr/local/sbin/fragd /usr/local/bin/fragd-thp-exec /usr/local/lib/systemd/system/fragd.service \
	/usr/local/lib/systemd/catalog/fragd.catalog /usr/local/share/bash-completion/completions/fragd \
	/usr/local/share/man/man8/fragd.8 /usr/local/share/doc/fragd/runbook.md /usr/local/share/doc/fragd/metrics.md \
	/usr/local/share/fragd/monitoring/fragd.rules.yml /etc/fragd/fragd.conf; do
	grep -qxF "$f" <<<"$files" && pass "installs $f" || bad "does not install $f"
done
if command -v systemd-analyze >/dev/null; then
	systemd-analyze unit-paths 2>/dev/null | grep -qx /usr/local/lib/systemd/system \
		&& pass "systemd searches /usr/local/lib/systemd/system" \
		|| bad "systemd-analyze unit-paths does not list /usr/local/lib/systemd/system"
fi
unit=$D/usr/local/lib/systemd/system/fragd.service
grep -qx 'ExecStart=/usr/local/sbin/fragd' "$unit" 2>/dev/null && pass "the unit runs /usr/local/sbin/fragd" \
	|| bad "the unit's ExecStart: $(grep '^ExecStart=' "$unit" 2>&1)"

# the alerts' links, the catalog's references: to the files installed here
if out=$(bash "$FRAGD_SRCDIR/tests/lib/runbook-links.sh" "$D/usr/local/share/fragd/monitoring/fragd.rules.yml" "$D" 2>&1); then
	pass "runbook links: ${out//$D/}"
else
	bad "runbook links:"; sed "s|$D||g; s/^/    /" <<<"$out"
fi
grep -q 'file:///usr/share/doc' "$D/usr/local/share/fragd/monitoring/fragd.rules.yml" \
	&& bad "the installed rules still link /usr/share/doc" || pass "no runbook_url into /usr/share/doc"
if command -v promtool >/dev/null; then
	if out=$(cd "$D/usr/local/share/fragd/monitoring" && promtool test rules fragd.rules.test.yml 2>&1); then
		pass "promtool test rules on the installed rules and tests"
	else
		bad "promtool test rules on the installed files: $(tail -5 <<<"$out")"
	fi
fi
if out=$(cd "$FRAGD_SRCDIR" && sh tests/lint/check-catalog.sh --fields "$D/usr/local/lib/systemd/catalog/fragd.catalog" "$D" 2>&1); then
	pass "catalog fields and references"
else
	bad "the installed catalog:"; sed "s|$D||g; s/^/    /" <<<"$out"
fi

# uninstall: only the configuration stays
make -s -C "$FRAGD_SRCDIR" uninstall DESTDIR="$D" BUILDDIR="$BUILDDIR" >"$tmp/uninstall.log" 2>&1 \
	|| bad "make uninstall failed: $(tail -5 "$tmp/uninstall.log")"
left=$(cd "$D" && find . ! -type d | sed 's|^\.||' | grep -v '^/etc/fragd/')
[ -z "$left" ] && pass "make uninstall leaves only /etc/fragd" || bad "make uninstall leaves: $(tr '\n' ' ' <<<"$left")"
exit $fail
