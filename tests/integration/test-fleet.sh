#!/bin/bash
# Fleet defaults and instance detection (issue 15), through the binary:
#  - vendor fleet files in the package's data directory, same-named files in
#    /etc/fragd/fleet.d replacing them, an empty one or a link to /dev/null
#    masking them, other names from both counting (--check-config --root);
#  - the cloud from DMI (EC2, GCE, Azure, none) in --check-config and in
#    --once text and JSON;
#  - a [match] glob that can never match is refused with file and line;
#  - --root sizes an arm64 tree as arm64 on any host, and says where the
#    architecture came from.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures
TEST_TAG=fleet
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

cc() { "$FRAGD" --check-config --root "$T" "$@" 2>&1; } # --check-config on $T

# the vendor directory is compiled in (DATADIR): --check-config names it
fresh_tree vendor "$FIX/synthetic-config-dmi-ec2-r7g"
vendor=$(cc | sed -n 's/^; fleet files: \(.*\), overridden by name from \(.*\)$/\1/p')
admin=$(cc | sed -n 's/^; fleet files: \(.*\), overridden by name from \(.*\)$/\2/p')
if [ -n "$vendor" ] && [ "$admin" = /etc/fragd/fleet.d ]; then
	pass "--check-config names the vendor ($vendor) and admin fleet directories"
else
	bad "no '; fleet files:' line: vendor '$vendor' admin '$admin'"
fi
mkdir -p "$T$vendor"
printf '[match]\ninstance_type = r7g.*\n[policy]\nreserve_thp = 3%%\n' >"$T$vendor/r7g.conf"
printf '[match]\ninstance_type = r7g.4xlarge\n[policy]\nreserve_thp = 5%%\n' >"$T$vendor/r7g.4xlarge.conf"
# the fixture's fleet.d has r7g.conf and r7g.16xlarge.conf too
out=$(cc)
if grep -qx "; fleet file: $vendor/r7g.4xlarge.conf (\[match\] instance_type = r7g.4xlarge)" <<<"$out" &&
	grep -q "^reserve_thp = 5% *; fleet $vendor/r7g.4xlarge.conf:4" <<<"$out"; then
	pass "a vendor file that only the package ships applies, and its values name it"
else
	bad "vendor r7g.4xlarge.conf did not apply: $(grep -E 'fleet file|^reserve_thp' <<<"$out")"
fi
if ! grep -q "file read: $vendor/r7g.conf" <<<"$out"; then
	pass "the admin's r7g.conf replaces the vendor's (the vendor's is not read)"
else
	bad "vendor r7g.conf read beside /etc/fragd/fleet.d/r7g.conf"
fi
ln -s /dev/null "$T/etc/fragd/fleet.d/r7g.4xlarge.conf"
out=$(cc)
if grep -qx "; fleet file: /etc/fragd/fleet.d/r7g.conf (\[match\] instance_type = r7g.\*)" <<<"$out"; then
	pass "a link to /dev/null in fleet.d masks the vendor file of its name"
else
	bad "masking failed: $(grep -E 'fleet file|FAIL|error' <<<"$out")"
fi
rm "$T/etc/fragd/fleet.d/r7g.4xlarge.conf" "$T/etc/fragd/fleet.d/r7g.conf"
: >"$T/etc/fragd/fleet.d/r7g.4xlarge.conf"
out=$(cc)
if grep -qx "; fleet file: $vendor/r7g.conf (\[match\] instance_type = r7g.\*)" <<<"$out"; then
	pass "an empty file masks too; without the admin's r7g.conf the vendor's applies"
else
	bad "empty-file mask or vendor r7g.conf: $(grep -E 'fleet file' <<<"$out")"
fi

# a [match] glob that can never match is an error naming the file and line
printf '[match]\ninstance_type = [\n[policy]\nreserve_thp = 3%%\n' >"$T/etc/fragd/fleet.d/broken.conf"
out=$(cc); rc=$?
if [ $rc != 0 ] && grep -q "/etc/fragd/fleet.d/broken.conf:2: .*invalid pattern '\[': the '\[' at position 1 is never closed" <<<"$out"; then
	pass "instance_type = [ is refused: $(grep -o "broken.conf:2:.*" <<<"$out")"
else
	bad "instance_type = [ accepted (rc $rc): $(grep -i 'broken\|error' <<<"$out")"
fi
rm "$T/etc/fragd/fleet.d/broken.conf"

# the cloud, from DMI
for c in ec2-r7g:aws gce:gce azure:azure "none:none recognised"; do
	fresh_tree dmi "$FIX/synthetic-config-dmi-${c%%:*}"
	out=$(cc)
	if grep -qx "; cloud (from DMI): ${c#*:}" <<<"$out"; then
		pass "--check-config: ${c%%:*} is cloud ${c#*:}"
	else
		bad "--check-config: ${c%%:*}: $(grep cloud <<<"$out")"
	fi
done
fresh_tree once "$FIX/vm-6.1-x86_64-2node-fragmented"
rm -rf "$T/sys/class/dmi"; mkdir -p "$T/sys/class/dmi"
cp -r "$FIX/synthetic-config-dmi-gce/sys/class/dmi/id" "$T/sys/class/dmi/"
text=$("$FRAGD" --once --root "$T" --page-size 4096 2>/dev/null)
json=$("$FRAGD" --once --format json --root "$T" --page-size 4096 2>/dev/null)
if grep -q '^instance: mem-[0-9]*g-[0-9]*c-x86_64 (from sizing), cloud gce, ' <<<"$text" &&
	python3 -c 'import json,sys; i=json.load(sys.stdin)["instance_type"]; sys.exit(i["cloud"] != "gce" or i["source"] != "sizing")' <<<"$json"; then
	pass "--once text and JSON report the cloud (gce) beside the sizing class"
else
	bad "--once cloud: $(grep '^instance' <<<"$text")"
fi

# an arm64 tree on this host: its architecture, not the host's
fresh_tree arm "$FIX/synthetic-arm64-64k"
out=$("$FRAGD" --check-config --root "$T" --page-size 65536 2>&1)
if grep -q '^; instance type: m7g.large (dmi), sizing class: mem-64g-[0-9]*c-arm64-64k$' <<<"$out" &&
	grep -qx "; architecture (for the sizing class) from the root's proc/sys/kernel/arch" <<<"$out"; then
	pass "--root on an arm64 tree sizes it arm64 (host $(uname -m)) and says from where"
else
	bad "arm64 tree: $(grep -E 'instance type|architecture' <<<"$out")"
fi
rm "$T/proc/sys/kernel/arch"
printf 'processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\n' >"$T/proc/cpuinfo"
out=$("$FRAGD" --check-config --root "$T" --page-size 65536 2>&1)
if grep -q 'sizing class: mem-64g-[0-9]*c-arm64-64k$' <<<"$out"; then
	pass "without proc/sys/kernel/arch, the tree's proc/cpuinfo says arm64"
else
	bad "arm64 from cpuinfo"
fi
finish
