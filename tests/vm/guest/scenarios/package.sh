# shellcheck shell=sh
# package.sh - the Debian package in the systemd guest (an image made with
# mkrootfs.sh -p: no fragd in it, /vm/pkg holds fragd_*.deb, the .debs of
# its libraries the minimal guest lacks, and the fragmenter; the guest has no
# network). Installs it with apt from those files, finds the service neither
# enabled nor started and no knob changed; enables it, finds the shipped
# configuration's reserves waiting for demand (pinned memory is none), and
# with a drop-in of reserve_always = yes and a THP reserve the fragmenter
# leaves unmet (40 % of the node) sees it act on a knob (change one,
# or rewrite one to kick kcompactd: logged as taking ownership) while the
# fragmenter pins memory; removes the package and finds the service
# gone and every knob restored; purges it and finds nothing of fragd left.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

P=/vm/pkg
PATH=$PATH:$P
export DEBIAN_FRONTEND=noninteractive
log "systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), state $(systemctl is-system-running), kernel $(uname -r)"
deb=$(find "$P" -maxdepth 1 -name 'fragd_*.deb' | head -n 1)
[ -n "$deb" ] || skip "no fragd_*.deb in $P (build the image with mkrootfs.sh -p)"
if command -v fragd >/dev/null 2>&1 || [ -e /etc/systemd/system/fragd.service ]; then
	fail "the guest already has a fragd: $(command -v fragd) $(ls /etc/systemd/system/fragd.service 2>/dev/null)"
	finish
fi
# what exists of fragd before: compared after the purge
leftovers() {
	find / -xdev \( -path /vm -o -path /proc -o -path /sys \) -prune -o -name '*fragd*' -print 2>/dev/null |
		grep -v '^/tmp/' | sort || true
	ls -d /run/fragd /run/systemd/units/*fragd* 2>/dev/null || true
}
leftovers >/tmp/fragd-files.before
knobs_snapshot >/tmp/knobs.orig
restored() { # restored WHAT
	knobs_snapshot >/tmp/knobs.now
	if cmp -s /tmp/knobs.orig /tmp/knobs.now; then
		pass "every knob at its value from before the package after $1"
	else
		fail "knobs changed after $1:"
		diff /tmp/knobs.orig /tmp/knobs.now || true
	fi
}

# --- install: apt, from the files alone
if apt-get install -y --no-install-recommends "$P"/deps/*.deb "$deb" >/tmp/apt.log 2>&1; then
	pass "apt-get install $(basename "$deb") (and $(cd "$P/deps" && echo *.deb))"
else
	fail "apt-get install failed:"
	tail -n 20 /tmp/apt.log
	finish
fi
if [ "$(command -v fragd)" = /usr/sbin/fragd ]; then pass "fragd is /usr/sbin/fragd: $(fragd --version)"; else fail "fragd: $(command -v fragd)"; fi
st=$(dpkg-query -W -f '${Status}' fragd 2>/dev/null || true)
if [ "$st" = "install ok installed" ]; then pass "dpkg: $st"; else fail "dpkg status: $st"; fi
for f in /lib/systemd/system/fragd.service /etc/fragd/fragd.conf /usr/bin/fragd-thp-exec \
	/usr/share/bash-completion/completions/fragd /usr/share/man/man8/fragd.8.gz; do
	if [ -e "$f" ]; then pass "installed $f"; else fail "not installed: $f"; fi
done
en=$(systemctl is-enabled fragd 2>/dev/null || true)
ac=$(systemctl is-active fragd 2>/dev/null || true)
if [ "$en" = disabled ] && [ "$ac" = inactive ]; then
	pass "after install: fragd.service $en and $ac (the admin opts in)"
else
	fail "after install: fragd.service is $en and $ac"
fi
restored "the install"

# --- enable, load, a knob changes
if systemctl enable --now fragd; then pass "systemctl enable --now fragd"; else fail "systemctl enable --now fragd"; fi
i=0
while [ "$(systemctl is-active fragd)" != active ] && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
if [ "$(systemctl is-active fragd)" = active ]; then pass "fragd active: $(systemctl show -p StatusText --value fragd)"; else fail "fragd not active"; fi
# as the bounds scenario: nearly all free memory pinned, churned every 100 ms
fragmenter_start --chunk-mb 16 --churn 2 --interval-ms 100 --report 0
log "fragmented: free in order>=9 blocks: $(free_huge_mb) MiB"
# the shipped configuration (database) keeps its reserves only for demand
# that fell back or stalled: pinned memory alone is none, and fragd says so
i=0
while ! journalctl -u fragd -b --no-pager -o cat 2>/dev/null | grep -q "configured reserves waiting" && [ $i -lt 30 ]; do
	sleep 1
	i=$((i + 1))
done
if journalctl -u fragd -b --no-pager -o cat 2>/dev/null | grep -q "configured reserves waiting"; then
	pass "shipped config: the reserves wait for a fallback or stall, said in the journal"
else
	fail "shipped config: no 'configured reserves waiting' in the journal in 30 s"
fi
# an operator's drop-in keeps them regardless, and one the fragmenter
# leaves unmet: fragd must act on the knobs (the shipped 2 % of the node,
# 38 MiB, is met by the 200-300 MiB of order-9 blocks the fragmenter's
# first pass leaves free in some runs: then fragd rightly does nothing)
dropin_dir_made=
[ -d /etc/fragd/fragd.conf.d ] || { mkdir -p /etc/fragd/fragd.conf.d && dropin_dir_made=1; }
printf '[policy]\nreserve_always = yes\nreserve_thp = 40%%\n' >/etc/fragd/fragd.conf.d/50-package-test.conf
systemctl reload fragd || fail "systemctl reload fragd"
changed=
i=0
while [ $i -lt 90 ]; do
	knobs_snapshot >/tmp/knobs.now
	if ! cmp -s /tmp/knobs.orig /tmp/knobs.now; then
		changed=$(diff /tmp/knobs.orig /tmp/knobs.now | sed -n 's/^> //p' | tr '\n' ' ' || true)
		[ -n "$changed" ] || changed=changed
		break
	fi
	# with the reserve's aim at the knob's value fragd acts by rewriting
	# it (kicking kcompactd), which changes no value: its first write of a
	# knob is logged as taking ownership
	owned=$(journalctl -u fragd -b --no-pager -o cat 2>/dev/null | grep -m 1 "taking ownership" || true)
	if [ -n "$owned" ]; then
		changed="wrote: $owned"
		break
	fi
	sleep 1
	i=$((i + 1))
done
if [ -n "$changed" ]; then
	pass "fragd acted on a knob under load after ${i}s: $changed"
else
	fail "fragd neither changed nor wrote a knob in 90 s under the fragmenter with reserve_always = yes, reserve_thp = 40%"
	journalctl -u fragd -b --no-pager -o cat 2>/dev/null | tail -n 40 | sed 's/^/journal: /' || true
	fragd --once 2>&1 | sed 's/^/once: /' || true
fi
knobs_snapshot >/tmp/knobs.running
knobs_in_bounds /tmp/knobs.running && pass "knobs within bounds while running"
fragd status 2>&1 | head -n 15 | sed 's/^/status: /' || true
fragmenter_stop
rm -f /etc/fragd/fragd.conf.d/50-package-test.conf
[ -z "$dropin_dir_made" ] || rmdir /etc/fragd/fragd.conf.d

# --- remove: the service stops, every knob back, the conffiles stay
if apt-get remove -y fragd >/tmp/apt.log 2>&1; then pass "apt-get remove fragd"; else fail "apt-get remove fragd:"; tail -n 20 /tmp/apt.log; fi
st=$(dpkg-query -W -f '${Status}' fragd 2>/dev/null || true)
if [ "$st" = "deinstall ok config-files" ]; then pass "dpkg after remove: $st"; else fail "dpkg after remove: $st"; fi
ac=$(systemctl is-active fragd 2>/dev/null || true)
if [ "$ac" != active ] && [ "$ac" != activating ] && ! pgrep -x fragd >/dev/null; then
	pass "no fragd running after remove ($ac)"
else
	fail "after remove fragd is $ac: $(pgrep -a fragd)"
fi
restored "apt-get remove"
if [ ! -e /usr/sbin/fragd ] && [ ! -e /lib/systemd/system/fragd.service ]; then pass "binary and unit gone"; else fail "binary or unit left after remove"; fi
if [ -e /etc/fragd/fragd.conf ]; then pass "remove keeps the conffile /etc/fragd/fragd.conf"; else fail "remove took /etc/fragd/fragd.conf"; fi

# --- purge: nothing left
if apt-get purge -y fragd >/tmp/apt.log 2>&1; then pass "apt-get purge fragd"; else fail "apt-get purge fragd:"; tail -n 20 /tmp/apt.log; fi
if dpkg-query -W -f '${Status}' fragd >/dev/null 2>&1; then fail "dpkg still knows fragd: $(dpkg-query -W -f '${Status}' fragd)"; else pass "dpkg knows no fragd"; fi
restored "apt-get purge"
for d in /etc/fragd /var/lib/fragd /run/fragd; do
	if [ -e "$d" ]; then fail "$d left after purge: $(find "$d" | head -n 5 | tr '\n' ' ')"; else pass "$d gone"; fi
done
leftovers >/tmp/fragd-files.after
if cmp -s /tmp/fragd-files.before /tmp/fragd-files.after; then
	pass "nothing named fragd left anywhere (as before the install: $(wc -l </tmp/fragd-files.before) paths)"
else
	fail "left after purge:"
	diff /tmp/fragd-files.before /tmp/fragd-files.after || true
fi
journalctl -b -u fragd --no-pager 2>/dev/null | tail -n 20 | sed 's/^/journal: /'
result "fails=$FAILS"
finish
