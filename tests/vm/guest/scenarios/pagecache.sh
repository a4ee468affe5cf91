# shellcheck shell=sh
# pagecache.sh - fragd's page-cache signal on a real kernel (docs/policy.md
# "Page-cache demand"): buffered 256 KiB writes to a file on XFS (a ram disk)
# show in fragd_pagecache_added_bytes_total at the folio order the kernel
# uses (order 6 on 6.12; order 0 on 6.1, whose XFS writes small folios);
# without tracefs fragd says so once and exports fragd_source_up 0; a
# leftover instance (a killed fragd's) is replaced, the host's global
# tracing is left alone, and the instance is removed at stop. A watched
# cgroup reloaded in and out: its tasks alone are counted, a task moved in
# is added to the kernel's list, one moved out makes fragd rewrite it, and
# the failed-allocation trigger lives only while scoped. Also measures
# what the trigger costs: 64 MiB of 4 KiB buffered writes (one event per
# 4 KiB) with and without it, five rounds each, alternating (the fastest
# round of each is the least disturbed by the host's load).
# Needs the page-cache initramfs (brd and xfs modules, mkfs.xfs):
# tests/vm/vm.mk builds build/vm/initramfs-pagecache-<kernel>.cpio.gz; on
# the harness's own 7.3 (XFS and zram built in) the XFS is on zram.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

TR=/sys/kernel/tracing
INST=$TR/instances/fragd
EV=events/filemap/mm_filemap_add_to_page_cache
PROM=/tmp/prom/fragd.prom
trig() { sed '/^#/d' "$1" | tr '\n' ' '; } # a trigger file without its comments

fragd_require
# Debian's kernels: brd and xfs are modules, packed by the page-cache
# initramfs; the harness's own 7.3 has XFS and zram built in
if [ -f /modules/order ]; then
	while read -r m; do
		case $m in
		brd*) insmod "/modules/$m" rd_nr=1 rd_size=409600 2>/dev/null || true ;;
		*) insmod "/modules/$m" 2>/dev/null || true ;;
		esac
	done </modules/order
fi
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs in the initramfs"
grep -qw xfs /proc/filesystems || skip "no XFS in this kernel (a Debian kernel needs build/vm/initramfs-pagecache-<kernel>.cpio.gz)"
DISK=/dev/ram0
if [ ! -b $DISK ] && [ -e /sys/block/zram0/disksize ]; then
	echo 400M >/sys/block/zram0/disksize
	DISK=/dev/zram0
fi
[ -b $DISK ] || skip "no ram disk (brd, or zram built in)"
mkfs.xfs -q -f $DISK
mkdir -p /mnt/x /tmp/prom
mount -t xfs $DISK /mnt/x
log "XFS on a 400 MiB ram disk ($DISK) at /mnt/x"

cat >/tmp/pc.conf <<'CONF'
[daemon]
interval = 1s
active_interval = 1s
textfile_dir = /tmp/prom
CONF

start() { # start [keep]: keep = the knobs' originals are those of the first start
	[ "${1:-}" = keep ] || knobs_snapshot >/tmp/knobs.pre-fragd
	fragd -c /tmp/pc.conf >/tmp/fragd.log 2>&1 &
	FRAGD_PID=$!
}
metric() { # metric NAME{LABELS}: its value in the textfile, or nothing
	awk -v k="$1" '$1 == k { print $2 }' "$PROM" 2>/dev/null
}
wait_metric() { # wait_metric NAME VALUE SECONDS
	i=0
	while [ "$(metric "$1")" != "$2" ] && [ $i -lt $(($3 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(metric "$1")" = "$2" ]
}
stop() {
	kill -TERM "$FRAGD_PID"
	rc=0
	wait "$FRAGD_PID" || rc=$?
	FRAGD_PID=
	if [ "$rc" = 0 ]; then pass "fragd exited 0 on SIGTERM"; else fail "fragd exit status $rc on SIGTERM"; fi
	knobs_snapshot >/tmp/knobs.post-fragd
	if cmp -s /tmp/knobs.pre-fragd /tmp/knobs.post-fragd; then pass "every knob restored after stop"; else fail "knobs not restored: $(diff /tmp/knobs.pre-fragd /tmp/knobs.post-fragd | tr '\n' ' ')"; fi
}

# --- 1. tracefs not mounted: one message, the source down
rm -f "$PROM"
start
if wait_metric 'fragd_source_up{source="pagecache"}' 0 20; then
	pass "without tracefs: fragd_source_up{source=\"pagecache\"} 0"
else
	fail "without tracefs: no pagecache source_up 0 ($(grep pagecache "$PROM" 2>&1 | tr '\n' ' '))"
fi
n=$(grep -c "tracefs is not mounted at '/sys/kernel/tracing'" /tmp/fragd.log || true)
if [ "$n" = 1 ]; then pass "said once that tracefs is not mounted"; else fail "tracefs message $n times: $(head -n 5 /tmp/fragd.log)"; fi
stop

# --- 2. tracefs mounted, a leftover instance with someone's trigger
mount -t tracefs nodev "$TR"
g_trigger=$(trig "$TR/$EV/trigger")
g_enable=$(cat "$TR/$EV/enable")
g_on=$(cat "$TR/tracing_on")
mkdir "$INST"
echo 'hist:keys=common_pid' >"$INST/$EV/trigger"
rm -f "$PROM"
start
if wait_metric 'fragd_source_up{source="pagecache"}' 1 20; then
	pass "with tracefs: fragd_source_up{source=\"pagecache\"} 1"
else
	fail "with tracefs: pagecache not up ($(grep -i 'page-cache' /tmp/fragd.log | head -n 3))"
fi
t=$(trig "$INST/$EV/trigger")
case $t in
*keys=order*common_pid* | *common_pid*keys=order*) fail "the leftover trigger is still there: $t" ;;
*keys=order*) pass "leftover instance replaced: trigger '$t'" ;;
*) fail "instance trigger: '$t'" ;;
esac
# kswapd's wake-ups by order ride in the same instance
KEV=events/vmscan/mm_vmscan_wakeup_kswapd
if [ -e "$TR/$KEV/format" ]; then
	t=$(trig "$INST/$KEV/trigger")
	case $t in
	*keys=order*) pass "kswapd wake-ups counted in the instance: trigger '$t'" ;;
	*) fail "no kswapd wake-up trigger in the instance: '$t' ($(grep -i kswapd /tmp/fragd.log | head -n 2))" ;;
	esac
	if grep -q 'Hits:' "$INST/$KEV/hist"; then pass "the kswapd hist reads: $(sed -n '/^{/p' "$INST/$KEV/hist" | tr -s ' ' | tr '\n' ';')"; else fail "the kswapd hist has no totals"; fi
	sed -n '/field:/s/^/kswapd format: /p' "$TR/$KEV/format"
fi
# failed allocations are counted only in an instance scoped to watched
# cgroups: with none watched, kmem:mm_page_alloc (every allocation of the
# host) carries no trigger of fragd's
AEV=events/kmem/mm_page_alloc
if [ -e "$TR/$AEV/format" ]; then
	t=$(trig "$INST/$AEV/trigger")
	case $t in
	*hist*) fail "a failed-allocation trigger in the unscoped instance: '$t'" ;;
	*) pass "no failed-allocation trigger without watched cgroups" ;;
	esac
fi
if [ "$(trig "$TR/$EV/trigger")" = "$g_trigger" ] && [ "$(cat "$TR/$EV/enable")" = "$g_enable" ] && [ "$(cat "$TR/tracing_on")" = "$g_on" ]; then pass "global tracing untouched (event trigger, enable, tracing_on)"; else fail "global tracing changed"; fi

# --- 3. buffered 256 KiB writes
dd if=/dev/zero of=/mnt/x/f bs=256k count=256 2>/dev/null
sleep 3
sed -n '/^fragd_pagecache/s/^/  /p' "$PROM"
hist=$(sed -n '/^{/p' "$INST/$EV/hist" | tr -s ' ' | tr '\n' ';')
log "instance hist: $hist"
maxo=-1
for k in 0 1 2 3 4 5 6 7 8 9 10; do
	v=$(metric "fragd_pagecache_added_bytes_total{order=\"$k\"}")
	[ -n "$v" ] && [ "$v" != 0 ] && maxo=$k
done
pco=$(metric fragd_pagecache_order)
share=$(metric "fragd_pagecache_order_share_ratio{order=\"${pco:-x}\"}")
log "largest order with bytes: $maxo; fragd_pagecache_order ${pco:-absent}, share ${share:-absent}"
kv=$(uname -r | cut -d. -f1,2)
kmaj=${kv%.*} kmin=${kv#*.}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 6 ]; }; then
	o6=$(metric 'fragd_pagecache_added_bytes_total{order="6"}')
	# 256 writes of 256 KiB: at least half of the 64 MiB in order-6 folios
	if [ "${o6:-0}" -ge 33554432 ]; then pass "XFS 256 KiB writes: ${o6} bytes at order 6"; else fail "XFS 256 KiB writes: ${o6:-no} bytes at order 6"; fi
	if [ "$pco" = 6 ]; then pass "fragd_pagecache_order 6"; else fail "fragd_pagecache_order ${pco:-absent}, not 6"; fi
else
	# before 6.6 XFS buffered writes use small folios (large folios on
	# writes came with 6.6): the signal sees order 0
	o0=$(metric 'fragd_pagecache_added_bytes_total{order="0"}')
	if [ "${o0:-0}" -ge 67108864 ]; then pass "kernel $kv: 256 KiB writes counted at order 0 ($o0 bytes)"; else fail "kernel $kv: ${o0:-no} bytes at order 0"; fi
fi

# --- 3b. a watched cgroup (reloaded in and out): the instance counts its
# tasks alone, a task moved in is added to the kernel's list (no rewrite),
# one moved out makes fragd rewrite it, and the failed-allocation trigger
# is set while scoped and removed when the last watched cgroup goes
if [ -e "$TR/$AEV/format" ] && [ -e /sys/fs/cgroup/cgroup.procs ]; then
	W=/sys/fs/cgroup/pcw
	mkdir -p $W
	sleep 600 &
	S1=$!
	echo $S1 >$W/cgroup.procs
	cp /tmp/pc.conf /tmp/pc.conf.orig
	printf '[daemon]\nlog_level = debug\n[cgroup "pcw"]\nwatch = yes\n' >>/tmp/pc.conf
	kill -HUP "$FRAGD_PID"
	listed() { grep -qx "$1" "$INST/set_event_pid"; }
	wait_for() { # wait_for SECONDS COMMAND...: until it succeeds
		n=$(($1 * 10))
		shift
		while ! "$@" && [ $n -gt 0 ]; do
			sleep 0.1
			n=$((n - 1))
		done
		"$@"
	}
	atrig() { case $(trig "$INST/$AEV/trigger") in *keys=order*pfn*) return 0 ;; *) return 1 ;; esac }
	if wait_for 20 listed $S1; then pass "watched cgroup: its task $S1 in set_event_pid ($(tr '\n' ' ' <"$INST/set_event_pid"))"; else
		fail "watched cgroup: $S1 not in set_event_pid: '$(tr '\n' ' ' <"$INST/set_event_pid")' ($(grep -i 'cgroup\|scope\|tasks' /tmp/fragd.log | tail -n 3 | tr '\n' ' '))"
	fi
	if wait_for 10 atrig; then pass "scoped: the failed-allocation trigger set"; else fail "scoped, no failed-allocation trigger: '$(trig "$INST/$AEV/trigger")'"; fi
	added() { grep -c "Added 1 task ids to the trace instance's list (2 watched now)" /tmp/fragd.log || true; }
	a0=$(added)
	sleep 600 &
	S2=$!
	echo $S2 >$W/cgroup.procs
	if wait_for 20 listed $S2 && listed $S1; then pass "a task moved in is listed beside the first"; else fail "after a task moved in: '$(tr '\n' ' ' <"$INST/set_event_pid")'"; fi
	if wait_for 5 sh -c "[ \$(grep -c \"Added 1 task ids to the trace instance's list (2 watched now)\" /tmp/fragd.log) -gt $a0 ]"; then
		pass "added to the kernel's list, not rewritten: $(grep -m1 'Added 1 task ids.*(2 watched now)' /tmp/fragd.log)"
	else
		fail "no addition logged: $(grep -i 'task ids\|tasks alone' /tmp/fragd.log | tail -n 3 | tr '\n' ' ')"
	fi
	grep -i 'task ids\|tasks alone\|watching\|cgroup' /tmp/fragd.log | sed 's/^/fragd: /'
	echo $S1 >/sys/fs/cgroup/cgroup.procs
	if wait_for 20 sh -c "! grep -qx $S1 $INST/set_event_pid" && listed $S2; then pass "a task moved out: the list written anew without it"; else fail "after a task moved out: '$(tr '\n' ' ' <"$INST/set_event_pid")'"; fi
	cp /tmp/pc.conf.orig /tmp/pc.conf
	kill -HUP "$FRAGD_PID"
	if wait_for 20 sh -c "! grep -q . $INST/set_event_pid" && ! atrig; then pass "the last watched cgroup gone: trigger removed, the list cleared"; else
		fail "after the reload without it: trigger '$(trig "$INST/$AEV/trigger")', list '$(tr '\n' ' ' <"$INST/set_event_pid")'"
	fi
	kill $S1 $S2 2>/dev/null || true
	wait $S1 $S2 2>/dev/null || true
	rmdir $W 2>/dev/null || true
fi

# --- 4. killed: the instance stays; the next fragd replaces it; stop removes it
kill -9 "$FRAGD_PID"
wait "$FRAGD_PID" 2>/dev/null || true
FRAGD_PID=
if [ -d "$INST" ]; then pass "kill -9 leaves the instance"; else fail "instance gone after kill -9"; fi
h0=$(awk '/Hits:/ { print $2 }' "$INST/$EV/hist")
rm -f "$PROM"
start keep
wait_metric 'fragd_source_up{source="pagecache"}' 1 20 || true
h1=$(awk '/Hits:/ { print $2 }' "$INST/$EV/hist")
if [ "$h1" -lt "$h0" ]; then pass "restarted fragd made the instance anew (hits $h0 -> $h1)"; else fail "instance not made anew (hits $h0 -> $h1)"; fi
stop
if [ -d "$INST" ]; then fail "instance left after stop"; else pass "instance removed at stop"; fi
sed -n '/Counting page-cache\|trace instance/s/^/fragd: /p' /tmp/fragd.log

# --- 5. cost: 64 MiB of 4 KiB buffered writes, without and with the trigger
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
round() {
	rm -f /mnt/x/g
	sync
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(ms)
	dd if=/dev/zero of=/mnt/x/g bs=4k count=16384 2>/dev/null
	t1=$(ms)
	echo $((t1 - t0))
}
off='' on=''
for _ in 1 2 3 4 5; do
	off="$off $(round)"
	mkdir "$INST"
	echo 'hist:keys=order:vals=hitcount' >"$INST/$EV/trigger"
	on="$on $(round)"
	hits=$(awk '/Hits:/ { print $2 }' "$INST/$EV/hist")
	rmdir "$INST"
done
nth() { echo "$2" | tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n "${1}p"; } # nth N "LIST"
log "cost: 16384 x 4 KiB buffered writes: without the trigger$off ms, with$on ms (fastest $(nth 1 "$off") / $(nth 1 "$on") ms, median $(nth 3 "$off") / $(nth 3 "$on") ms; $hits events a round)"
result "largest_order=$maxo pagecache_order=${pco:-none} share=${share:-none} cost_off_ms=$(nth 1 "$off") cost_on_ms=$(nth 1 "$on") cost_off_median_ms=$(nth 3 "$off") cost_on_median_ms=$(nth 3 "$on") events=$hits"
umount /mnt/x
finish
