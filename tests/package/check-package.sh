#!/bin/bash
# make check-package: the release tarball and the Debian package.
#  - the version agrees everywhere: Makefile VERSION, debian/changelog,
#    CHANGELOG.md's newest section, the man pages' .TH (version and date =
#    the CHANGELOG's release date);
#  - the version: VERSION without a tag; in a throwaway clone with a tag
#    v9.8.7 one commit back, 9.8.7-N-gHASH (N commits since the tag: 1, or
#    more when HEAD is a merge; -dirty with a changed file) and
#    a dist tarball of that name and .version;
#  - `make dist` twice gives the same bytes (sha256), the tarball holds
#    .version, LICENSE, debian/, and nothing outside its prefix;
#  - the .deb builds from that tarball (no .git: the version comes from
#    .version) with dpkg-buildpackage -us -uc -b in a temp dir, and its
#    fragd --version is the tarball's, and it applies the fleet files from
#    /usr/share/fragd/fleet;
#  - lintian on the .changes: no E: or W: line (overrides are in
#    debian/fragd.lintian-overrides, each with its reason);
#  - the contents: binaries, unit, man pages, conffiles, bash completion,
#    fleet data, monitoring, docs; the unit is not enabled or started by the
#    maintainer scripts, removal stops it, purge removes /var/lib/fragd;
#  - the documents the unit's comments cite are in the tarball;
#  - every alert's runbook_url names a file of the package (runbook.md, not
#    compressed) and a heading in it;
#  - the catalog's fields (tests/lint/check-catalog.sh --fields): Support:
#    in every entry, no source-tree path, each reference a file of the package;
#  - systemd-analyze verify of the unit on a minimal root: the package,
#    systemd's units and the programs of the required packages and of the
#    package's Depends, nothing else of the host (ExecReload's /bin/kill
#    needs procps in Depends);
#  - the source tree is unchanged (git status --porcelain before = after).
# SKIPs (exit 0) only when dpkg-buildpackage, dh or lintian is missing
# (scripts/install-deps.sh --test installs them). Writes below a temp dir and
# $DISTDIR (build/) only.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
: "${VERSION:?}" "${DIST_VERSION:?}"
DISTDIR=${DISTDIR:-build}
fail=0
pass() { echo "PASS package: $*"; }
bad() { echo "FAIL package: $*"; fail=1; }

for tool in dpkg-buildpackage dh lintian git; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP check-package: $tool not installed (scripts/install-deps.sh --test installs it)"
		exit 0
	fi
done
if [ ! -e .git ]; then
	echo "SKIP check-package: not a git checkout (make dist archives HEAD)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status_before=$(git status --porcelain)

# --- one version ----------------------------------------------------------------
deb_version=$(dpkg-parsechangelog -S Version)
[ "$deb_version" = "$VERSION" ] && pass "debian/changelog is $VERSION" \
	|| bad "debian/changelog says $deb_version, the Makefile's VERSION is $VERSION"
top=$(grep -m1 -E '^## [0-9]' CHANGELOG.md)
rel_date=$(echo "$top" | grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}')
[ "$(echo "$top" | awk '{print $2}')" = "$VERSION" ] && [ -n "$rel_date" ] \
	&& pass "CHANGELOG.md: $VERSION of $rel_date" || bad "CHANGELOG.md's newest section is '$top', not $VERSION with a date"
for m in docs/*.[1-8]; do
	th=$(grep -m1 '^\.TH ' "$m")
	grep -qF " $rel_date \"fragd $VERSION\"" <<<"$th" && pass "$m: .TH $rel_date fragd $VERSION" \
		|| bad "$m: '$th' is not the release's date $rel_date and \"fragd $VERSION\""
done

# --- make dist: reproducible ---------------------------------------------------------
tarball=$DISTDIR/fragd-$DIST_VERSION.tar.gz
if ! make -s dist >"$tmp/dist1.log" 2>&1; then
	bad "make dist failed: $(cat "$tmp/dist1.log")"
	exit 1
fi
sum1=$(sha256sum "$tarball" | cut -d' ' -f1)
touch -d 2001-01-01 "$tarball"
make -s dist >"$tmp/dist2.log" 2>&1 || bad "second make dist failed: $(cat "$tmp/dist2.log")"
sum2=$(sha256sum "$tarball" | cut -d' ' -f1)
[ "$sum1" = "$sum2" ] && pass "make dist twice: the same sha256 $sum1" \
	|| bad "make dist is not reproducible: $sum1 then $sum2"
list=$(tar -tzf "$tarball")
prefix=fragd-$DIST_VERSION/
outside=$(grep -vF "$prefix" <<<"$list" | head -3)
[ -z "$outside" ] && pass "every entry below $prefix" || bad "entries outside $prefix: $outside"
for f in .version LICENSE CHANGELOG.md Makefile debian/control debian/rules; do
	grep -qxF "$prefix$f" <<<"$list" && pass "tarball has $f" || bad "tarball lacks $f"
done
tv=$(tar -xOzf "$tarball" "$prefix.version")
[ "$tv" = "$DIST_VERSION" ] && pass ".version is $tv" || bad ".version is '$tv', not $DIST_VERSION"
owners=$(tar -tvzf "$tarball" | awk '{print $2}' | sort -u | tr '\n' ' ')
[ "$owners" = "root/root " ] && pass "owner root/root throughout" || bad "tar owners: $owners"

# --- the version from a tag, in a throwaway clone (no tag in this repository) ------------
clone=$tmp/clone
if git clone -q --shared . "$clone" 2>"$tmp/clone.log"; then
	pv() { make -s -C "$clone" --no-print-directory --eval 'pv:; @echo $(BUILD_VERSION) $(DIST_VERSION)' pv 2>/dev/null; }
	[ "$(pv)" = "$VERSION $VERSION" ] && pass "no tag: the version is the Makefile's $VERSION" \
		|| bad "no tag: version '$(pv)', want '$VERSION $VERSION'"
	git -C "$clone" tag -a v9.8.7 -m test HEAD~1
	h=$(git -C "$clone" rev-parse --short HEAD)
	# commits since the tag: 1 on a linear history, more when HEAD is a merge
	n=$(git -C "$clone" rev-list --count v9.8.7..HEAD)
	[ "$(pv)" = "9.8.7-$n-g$h 9.8.7-$n-g$h" ] && pass "tag v9.8.7 one commit back: 9.8.7-$n-g$h" \
		|| bad "with tag v9.8.7 one commit back: '$(pv)'"
	echo >>"$clone/README.md"
	[ "$(pv)" = "9.8.7-$n-g$h-dirty 9.8.7-$n-g$h" ] && pass "a changed file: the build says -dirty, the tarball (HEAD) does not" \
		|| bad "with a changed file: '$(pv)'"
	git -C "$clone" checkout -q README.md
	if make -s -C "$clone" dist DISTDIR="$tmp/cdist" >/dev/null 2>&1 &&
		[ "$(tar -xOzf "$tmp/cdist/fragd-9.8.7-$n-g$h.tar.gz" "fragd-9.8.7-$n-g$h/.version")" = "9.8.7-$n-g$h" ]; then
		pass "make dist with the tag: fragd-9.8.7-$n-g$h.tar.gz, .version 9.8.7-$n-g$h"
	else
		bad "make dist with the tag: $(ls "$tmp/cdist" 2>&1)"
	fi
	rm -rf "$clone"
else
	bad "git clone for the version checks: $(cat "$tmp/clone.log")"
fi

# --- the package ---------------------------------------------------------------------
if ! sh scripts/build-deb.sh "$tarball" "$tmp/out" >"$tmp/build.out" 2>&1; then
	bad "the package does not build: $(cat "$tmp/build.out")"
	exit 1
fi
deb=$tmp/out/fragd_${DIST_VERSION}_$(dpkg --print-architecture).deb
pass "dpkg-buildpackage -us -uc -b from the tarball: $(basename "$deb")"

if lintian --fail-on error,warning --display-info "$tmp"/out/fragd_*.changes >"$tmp/lintian.out" 2>&1 &&
	! grep -qE '^[EW]: ' "$tmp/lintian.out"; then
	pass "lintian: no errors or warnings ($(grep -c '^[IPX]: ' "$tmp/lintian.out") info/pedantic/experimental tags)"
else
	bad "lintian:"; sed 's/^/    /' "$tmp/lintian.out"
fi
sed -n 's/^\(I\|P\): /    lintian info: /p' "$tmp/lintian.out"

dpkg-deb -c "$deb" | awk '{ p = $6; if ($1 ~ /^l/) p = p " -> " $8; print p }' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/sbin/fragd /usr/bin/fragd-thp-exec /lib/systemd/system/fragd.service \
	/usr/share/man/man8/fragd.8.gz /usr/share/man/man5/fragd.conf.5.gz /usr/share/man/man1/fragd-thp-exec.1.gz \
	/etc/fragd/fragd.conf /etc/fragd/fragd.conf.d/ /etc/fragd/fleet.d/ \
	/usr/share/bash-completion/completions/fragd "/usr/share/bash-completion/completions/fragd-thp-exec -> fragd" \
	/usr/share/fragd/fleet/r7g.conf /usr/share/fragd/monitoring/fragd.rules.yml \
	/usr/share/fragd/monitoring/grafana-dashboard.json /usr/share/doc/fragd/copyright \
	/usr/share/doc/fragd/README.Debian /usr/share/doc/fragd/runbook.md /usr/share/doc/fragd/metrics.md \
	/usr/lib/systemd/catalog/fragd.catalog; do
	grep -qxF "$f" "$tmp/contents" || grep -qxF "$f.gz" "$tmp/contents" \
		&& pass "contains $f" || bad "does not contain $f"
done
n_fleet=$(find fleet -maxdepth 1 -name "*.conf" | wc -l)
[ "$(grep -c '^/usr/share/fragd/fleet/.*\.conf$' "$tmp/contents")" = "$n_fleet" ] \
	&& pass "all $n_fleet fleet files" || bad "fleet files: $(grep '/fleet/' "$tmp/contents")"
# nothing a build would leave: objects, test programs, the tools that stay in build/
grep -E '\.(o|a|d)$|/fragd-(sim|metrics-doc|workload-probe)$|/test-' "$tmp/contents" \
	&& bad "build leftovers in the package" || pass "no build leftovers"

mkdir -p "$tmp/ctl" "$tmp/root"
dpkg-deb -e "$deb" "$tmp/ctl"
dpkg-deb -x "$deb" "$tmp/root"
[ "$(cat "$tmp/ctl/conffiles")" = "/etc/fragd/fragd.conf" ] && pass "conffiles: /etc/fragd/fragd.conf" \
	|| bad "conffiles: $(cat "$tmp/ctl/conffiles")"
v=$("$tmp/root/usr/sbin/fragd" --version 2>&1)
[ "$v" = "fragd $DIST_VERSION" ] && pass "the packaged fragd --version: $v (from .version)" \
	|| bad "the packaged fragd --version says '$v', the tarball is $DIST_VERSION"
# the packaged fragd reads the fleet files where the package puts them: an
# r7g.4xlarge (DMI as EC2 writes it) below the unpacked package picks r7g.conf
mkdir -p "$tmp/root/sys/class/dmi/id"
echo "Amazon EC2" >"$tmp/root/sys/class/dmi/id/sys_vendor"
echo r7g.4xlarge >"$tmp/root/sys/class/dmi/id/product_name"
cc=$("$tmp/root/usr/sbin/fragd" --check-config --root "$tmp/root" 2>&1)
grep -qxF '; fleet file: /usr/share/fragd/fleet/r7g.conf ([match] instance_type = r7g.*)' <<<"$cc" \
	&& pass "the packaged fragd applies /usr/share/fragd/fleet/r7g.conf on an r7g.4xlarge" \
	|| bad "the packaged fragd's fleet files: $(grep -E '^; fleet|rror' <<<"$cc")"
grep -qF 'ExecStart=/usr/sbin/fragd' "$tmp/root/lib/systemd/system/fragd.service" \
	&& pass "unit runs /usr/sbin/fragd" || bad "unit ExecStart: $(grep ExecStart "$tmp/root/lib/systemd/system/fragd.service")"
# the documents the unit's comments cite (*.md) are in the release tarball
cited=$(grep '^#' "$tmp/root/lib/systemd/system/fragd.service" | grep -oE '[A-Za-z0-9_./-]+\.md' | sort -u)
missing_docs=$(for d in $cited; do grep -qxF "$prefix$d" <<<"$list" || echo "$d"; done)
if [ -n "$missing_docs" ]; then
	bad "the unit's comments cite documents the tarball lacks: $(echo $missing_docs)"
else
	pass "the unit's comments cite ${cited:-no document}$([ -n "$cited" ] && echo ", in the tarball")"
fi
# the maintainer scripts: install neither enables nor starts; an upgrade
# restarts a running fragd only; removal stops it; purge removes the state
post=$tmp/ctl/postinst
if grep -q 'deb-systemd-helper enable' "$post" && ! grep -q 'was-enabled' "$post"; then
	bad "postinst enables the unit"
elif grep -E 'deb-systemd-invoke' "$post" | grep -qv 'try-restart\|RESTART_ACTION'; then
	bad "postinst starts the unit: $(grep deb-systemd-invoke "$post")"
elif grep -qE 'deb-systemd-invoke (\$_dh_action|start)' "$post"; then
	bad "postinst starts the unit"
else
	pass "postinst neither enables nor starts fragd.service (re-enables only a unit that was enabled, try-restart on upgrade)"
fi
grep -q 'deb-systemd-invoke stop fragd.service' "$tmp/ctl/prerm" && pass "prerm stops fragd.service on remove" \
	|| bad "prerm does not stop fragd.service"
grep -q 'rm -rf /var/lib/fragd' "$tmp/ctl/postrm" && grep -q 'deb-systemd-helper purge' "$tmp/ctl/postrm" \
	&& pass "postrm purge removes /var/lib/fragd and the unit's state" || bad "postrm purge: $(cat "$tmp/ctl/postrm")"
for s in postinst prerm postrm; do
	sh -n "$tmp/ctl/$s" || bad "$s: sh -n"
done

# --- the alerts' runbook links ------------------------------------------------------------
# every runbook_url of the packaged rules is a file:// URL of a plain file in
# the package (not a .gz dh_compress made of it) and its #anchor the anchor
# of a heading there
if out=$(bash tests/lib/runbook-links.sh "$tmp/root/usr/share/fragd/monitoring/fragd.rules.yml" "$tmp/root" 2>&1); then
	pass "runbook links: ${out//$tmp\/root/the unpacked package}"
else
	bad "runbook links:"; sed "s|$tmp/root|<package>|g; s/^/    /" <<<"$out"
fi
# the runbook's own link to metrics.md beside it
grep -q '](metrics.md)' "$tmp/root/usr/share/doc/fragd/runbook.md" && {
	[ -f "$tmp/root/usr/share/doc/fragd/metrics.md" ] && pass "runbook.md's link to metrics.md resolves" \
		|| bad "runbook.md links to metrics.md, the package has $(grep -F metrics.md "$tmp/contents" | tr '\n' ' ')"
}

# --- the journal catalog ----------------------------------------------------------------------
# every entry's fields (Support: included), no path into the source tree, no
# @DOCDIR@ left, each Documentation:/Support: a man page or file of the package
if out=$(sh tests/lint/check-catalog.sh --fields "$tmp/root/usr/lib/systemd/catalog/fragd.catalog" "$tmp/root" 2>&1); then
	out=${out#PASS catalog: }; out=${out//$tmp\/root\/usr/\/usr}
	pass "catalog: ${out//$tmp\/root/the unpacked package}"
else
	bad "the packaged catalog:"; sed 's/^/    /' <<<"$out"
fi

# --- the unit on a minimal root -----------------------------------------------------------
# systemd-analyze verify on a root that holds the package, systemd's own units
# and the programs of the packages every Debian system has (Priority:
# required, Essential) and of those the package depends on: nothing else of
# this host. A program the unit runs from another package (/bin/kill without
# procps in Depends) is "not executable" there.
if command -v systemd-analyze >/dev/null && command -v dpkg-query >/dev/null; then
	mr=$tmp/minroot
	mkdir -p "$mr"
	cp -a "$tmp/root/." "$mr/"
	copy_files() { # copy_files PKG FILTER: PKG's installed files matching FILTER, into $mr
		dpkg -L "$1" 2>/dev/null | grep -E "$2" | while read -r f; do
			[ -f "$f" ] || [ -L "$f" ] || continue
			[ -e "$mr$f" ] || [ -L "$mr$f" ] || cp -a --parents "$f" "$mr/" 2>/dev/null
		done
	}
	copy_files systemd '/lib/systemd/system/[^/]+$'
	base=$(dpkg-query -W -f '${Package} ${Priority} ${Essential} ${db:Status-Status}\n' |
		awk '$4 == "installed" && ($2 == "required" || $3 == "yes") { print $1 }')
	# Depends: names without versions; of alternatives, the installed ones
	deps=$(sed -n 's/^Depends: //p' "$tmp/ctl/control" | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g; s/:.*//' | grep .)
	for p in $base $deps; do
		copy_files "$p" '/s?bin/[^/]+$'
	done
	unit=/lib/systemd/system/fragd.service
	vverify() { MANPATH=$mr/usr/share/man systemd-analyze verify --root="$mr" "$1" >"$tmp/verify.out" 2>&1; }
	if vverify "$unit" && [ ! -s "$tmp/verify.out" ]; then
		pass "systemd-analyze verify on a minimal root (the package, systemd's units, $(echo $base | wc -w) required packages, Depends: $(echo $deps)): clean"
	else
		bad "systemd-analyze verify on a minimal root: $(cat "$tmp/verify.out")"
	fi
	# control: a program of this host outside that set (lintian's, installed
	# to run this check) is not in the root, and verify says so
	sed 's|^ExecReload=.*|ExecReload=/usr/bin/lintian|' "$mr$unit" >"$mr/lib/systemd/system/fragd-control.service"
	vverify /lib/systemd/system/fragd-control.service
	grep -qF "/usr/bin/lintian is not executable" "$tmp/verify.out" \
		&& pass "verify control: the minimal root lacks the host's /usr/bin/lintian and verify reports it" \
		|| bad "verify control: /usr/bin/lintian not reported: $(cat "$tmp/verify.out")"
else
	echo "SKIP package: systemd-analyze verify on a minimal root (needs systemd-analyze and dpkg-query)"
fi

# --- the tree is as it was ---------------------------------------------------------------
status_after=$(git status --porcelain)
[ "$status_before" = "$status_after" ] && pass "git status --porcelain unchanged" \
	|| bad "the source tree changed: $(diff <(echo "$status_before") <(echo "$status_after"))"
exit $fail
