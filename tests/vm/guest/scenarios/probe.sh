# shellcheck shell=sh
# probe.sh - every kernel interface fragd reads or writes exists on this
# kernel, every steered sysctl takes a write and reads it back (then gets its
# old value back), and the fragd binary runs in the guest.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@" >/dev/null 2>&1; then pass "$d"; else fail "$d"; fi
}

log "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, $(grep MemTotal /proc/meminfo | tr -s ' ')"
grep -E '^Node|present|managed' /proc/zoneinfo | paste - - - | awk '{ print "zone", $2, $4, "present", $6, "managed", $8 }'
check "consumer runs" sh -c 'consumer --mb 8 --cycles 1 | grep -q thp_pct='

# --- what fragd reads
for f in /proc/buddyinfo /proc/pagetypeinfo /proc/vmstat /proc/zoneinfo /proc/meminfo \
	/proc/pressure/memory /proc/pressure/cpu /proc/pressure/io \
	/sys/fs/cgroup/cgroup.controllers $T/enabled $T/defrag $T/khugepaged/defrag \
	$T/hpage_pmd_size /sys/devices/system/node/online; do
	check "exists $f" test -r "$f"
done
for c in compact_stall compact_fail compact_success compact_migrate_scanned \
	compact_free_scanned compact_isolated compact_daemon_wake \
	compact_daemon_migrate_scanned thp_fault_alloc thp_fault_fallback \
	pgscan_kswapd pgscan_direct allocstall_normal; do
	check "vmstat has $c" grep -q "^$c " /proc/vmstat
done
check "zoneinfo has per-zone watermarks" grep -q '^ *high ' /proc/zoneinfo
for n in /sys/devices/system/node/node[0-9]*; do
	check "exists $n/compact" test -e "$n/compact"
done
check "exists $V/compact_memory" test -e "$V/compact_memory"

# --- sysctls: write a value, read it back, put the old one back
for kv in compaction_proactiveness=60 watermark_scale_factor=200 min_free_kbytes=90112 \
	watermark_boost_factor=0 extfrag_threshold=400; do
	k=${kv%=*} v=${kv#*=}
	old=$(cat "$V/$k")
	if echo "$v" >"$V/$k" && [ "$(cat "$V/$k")" = "$v" ]; then
		pass "vm.$k write+readback ($old -> $v)"
	else
		fail "vm.$k write+readback"
	fi
	echo "$old" >"$V/$k"
	check "vm.$k restored to $old" test "$(cat "$V/$k")" = "$old"
done
check "vm.compaction_proactiveness rejects 101" sh -c "! echo 101 > $V/compaction_proactiveness"

# the watermarks follow the sysctls (zone DMA32 and Normal, pages)
wm() { awk '$1 == "high" && !/protection/ { s = s $2 " " } END { print s }' /proc/zoneinfo; }
w0=$(wm)
oldw=$(cat $V/watermark_scale_factor)
echo 200 >$V/watermark_scale_factor
w1=$(wm)
echo "$oldw" >$V/watermark_scale_factor
log "high watermarks: wsf=$oldw: $w0| wsf=200: $w1"
check "watermarks follow watermark_scale_factor" test "$w0" != "$w1"

# --- THP knobs
for kf in enabled:madvise defrag:defer+madvise khugepaged/defrag:0; do
	k=${kf%%:*} v=${kf#*:}
	old=$(knob_get "thp/$k")
	if echo "$v" >"$T/$k" && [ "$(knob_get "thp/$k")" = "$v" ]; then
		pass "thp $k write+readback ($old -> $v)"
	else
		fail "thp $k write+readback"
	fi
	echo "$old" >"$T/$k"
done
mthp=no sizes=
for d in "$T"/hugepages-*kB; do
	[ -d "$d" ] || continue
	mthp=yes sizes="$sizes ${d##*/hugepages-}"
done
log "mTHP per-size controls: $mthp$sizes"

# --- PSI: a trigger is accepted (what a poll()ing daemon registers), per-cgroup PSI
check "psi memory trigger accepted" sh -c 'exec 3<>/proc/pressure/memory && echo "some 150000 1000000" >&3'
mkdir -p /sys/fs/cgroup/probe
check "cgroup memory.pressure" test -e /sys/fs/cgroup/probe/memory.pressure
rmdir /sys/fs/cgroup/probe

# --- compaction: manual and per node move the counters
m0=$(vmstat compact_migrate_scanned)
fragmenter --mb 256 --reserve-mb 0 --cycles 1 --interval-ms 0 --file-mb 0 --report 0 >/dev/null &
bg_started $!
sleep 1
echo 1 >$V/compact_memory
m1=$(vmstat compact_migrate_scanned)
for n in /sys/devices/system/node/node[0-9]*; do echo 1 >"$n/compact"; done
m2=$(vmstat compact_migrate_scanned)
cleanup
log "compact_migrate_scanned: $m0 -> $m1 (compact_memory) -> $m2 (node*/compact)"
check "compact_memory moved compact_migrate_scanned" test "$m1" -gt "$m0"

# --- fragd runs here (its shared libraries made it into the guest)
if command -v fragd >/dev/null; then
	check "fragd --version runs in the guest: $(fragd --version 2>&1 | head -n 1)" fragd --version
	if fragd --features 2>/dev/null | grep -qx once; then
		check "fragd --once" fragd --once
	else
		log "fragd --once: not yet available (fragd --features lacks 'once')"
	fi
else
	log "no fragd binary in this initramfs"
fi

nodes=0
for n in /sys/devices/system/node/node[0-9]*; do nodes=$((nodes + 1)); done
result "mthp=$mthp nodes=$nodes fails=$FAILS"
finish
