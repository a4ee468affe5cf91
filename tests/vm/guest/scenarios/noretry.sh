# shellcheck shell=sh
# noretry.sh - is the NORETRY change active in this kernel? Buffered writes
# to XFS (large page-cache folios through iomap: a 256 KiB write asks for an
# order-6 folio with __GFP_NORETRY) on fragmented memory. A stock kernel
# compacts directly for them (compact_stall rises; compaction attempts at
# costly orders); with the change it does not, falls back to smaller folios,
# and still wakes kswapd (and kcompactd after it) for the costly orders.
#
#   fvm.expect=stall|nostall   what to assert (default: nostall when the
#       harness's switch /sys/module/kernel/parameters/noretry_costly is on,
#       or uname -r names a noretry build; stall otherwise). The switch
#       read back is in the result (noretry_switch=Y|N|none), so a boot
#       parameter that did not take is seen.
#   fvm.mb        MiB written (default 512), fvm.bs_kb write size (256)
#   fvm.reserve_mb, fvm.floor_mb, fvm.seed   fragmenter (see its --help)
#   fvm.proactiveness (default 0), fvm.boost (watermark_boost_factor, 0)
#
# Needs XFS and zram built in (the harness's own build, build-kernel.sh:
# 7.3-stock, 7.3-noretry) and mkfs.xfs in the initramfs; skips otherwise.
# The XFS lives on a zram disk: the written zeros cost it no memory.
# Counted from tracefs hist triggers (kept in the kernel, read once):
# direct compaction attempts (compaction:mm_compaction_try_to_compact_pages),
# kswapd and kcompactd wake-ups, and the written file's page-cache folios
# (filemap:mm_filemap_add_to_page_cache), each by order.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

MB=${FVM_MB:-512}
BS_KB=${FVM_BS_KB:-256}
EXPECT=${FVM_EXPECT:-}
SWITCH=none
[ -r /sys/module/kernel/parameters/noretry_costly ] && SWITCH=$(cat /sys/module/kernel/parameters/noretry_costly)
if [ -z "$EXPECT" ]; then
	case $SWITCH:$(uname -r) in Y:* | *:*noretry*) EXPECT=nostall ;; *) EXPECT=stall ;; esac
fi
# the folio order a write of BS_KB asks for (4 KiB pages)
WANT=0
while [ $((4 << WANT)) -lt "$BS_KB" ]; do WANT=$((WANT + 1)); done
TR=/sys/kernel/tracing

grep -qw xfs /proc/filesystems || skip "no XFS built into $(uname -r) (the harness's own builds have it: make vm-kernels, -k 7.3-noretry or 7.3-stock)"
[ -e /sys/block/zram0/disksize ] || skip "no zram in $(uname -r)"
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs in the initramfs (install xfsprogs on the host, then make vm-initramfs)"
[ -d $TR/events ] || mount -t tracefs tracefs $TR
[ -e $TR/events/filemap/mm_filemap_add_to_page_cache/trigger ] || skip "no tracefs hist triggers in $(uname -r)"

# --- an XFS on zram
echo 1G >/sys/block/zram0/disksize
mkfs.xfs -q -f /dev/zram0 || { fail "mkfs.xfs /dev/zram0"; finish; }
mkdir -p /mnt/xfs
mount -t xfs /dev/zram0 /mnt/xfs || { fail "mount -t xfs /dev/zram0"; finish; }
: >/mnt/xfs/data
ino=$(stat -c %i /mnt/xfs/data)
# the kernel's dev_t of the superblock: major << 20 | minor
IFS=: read -r maj min </sys/block/zram0/dev
sdev=$(((maj << 20) | min))
log "XFS on /dev/zram0 ($maj:$min), file inode $ino; $BS_KB KiB writes ask for order $WANT; expect $EXPECT"

# hist_on EVENT [FILTER]: count EVENT by order in the kernel
hist_on() {
	echo "hist:keys=order:vals=hitcount:sort=order${2:+ if $2}" >"$TR/events/$1/trigger"
}
# hist_read EVENT: "order count" lines
hist_read() {
	sed -n 's/^{ order: *\([0-9]*\) } hitcount: *\([0-9]*\).*/\1 \2/p' "$TR/events/$1/hist"
}
# sum of the counts at order >= $2 in hist_read output $1
sum_from() { echo "$1" | awk -v o="$2" '$1 >= o { s += $2 } END { print s + 0 }'; }

thp_setup madvise never
# no background compaction of its own accord (as in TESTBED.md's reference
# experiment): with the default proactiveness kcompactd assembled free
# order-9 blocks during the writes and the stock kernel never needed to
# compact directly; reactive kcompactd (woken by kswapd) stays
knob_set vm/compaction_proactiveness "${FVM_PROACTIVENESS:-0}"
knob_set vm/watermark_boost_factor "${FVM_BOOST:-0}"
fragmenter_start --keep 16 --chunk-mb 16 --churn 1 --wave-every 0 \
	--reserve-mb "${FVM_RESERVE_MB:-96}" --floor-mb "${FVM_FLOOR_MB:-64}" --interval-ms 200 --report 0
# a wave eats the larger free blocks the first pass left
fragmenter_wave
free6() { # free MiB in blocks of order >= 6
	awk '{ kb = 256; for (i = 11; i <= NF; i++) { s += $i * kb; kb *= 2 } } END { printf "%d\n", s / 1024 }' /proc/buddyinfo
}
log "fragmented: free in order>=6 blocks $(free6) MiB, order>=9 $(free_huge_mb) MiB, MemFree $(awk '/MemFree/ { print int($2 / 1024) }' /proc/meminfo) MiB"
grep -E 'Normal|DMA32' /proc/buddyinfo | sed 's/^/buddyinfo: /'

PC=filemap/mm_filemap_add_to_page_cache
DC=compaction/mm_compaction_try_to_compact_pages
KS=vmscan/mm_vmscan_wakeup_kswapd
KC=compaction/mm_compaction_wakeup_kcompactd
hist_on $PC "s_dev == $sdev && i_ino == $ino"
hist_on $DC
hist_on $KS
hist_on $KC
s0=$(vmstat compact_stall) w0=$(vmstat compact_daemon_wake) p0=$(vmstat pageoutrun)
k0=$(vmstat pgscan_kswapd) m0=$(vmstat compact_migrate_scanned)
t0=$(uptime_s)
dd if=/dev/zero of=/mnt/xfs/data bs="${BS_KB}k" count=$((MB * 1024 / BS_KB)) 2>/tmp/dd.err ||
	fail "dd: $(cat /tmp/dd.err)"
t1=$(uptime_s)
s1=$(vmstat compact_stall) w1=$(vmstat compact_daemon_wake) p1=$(vmstat pageoutrun)
k1=$(vmstat pgscan_kswapd) m1=$(vmstat compact_migrate_scanned)
pc=$(hist_read $PC) dc=$(hist_read $DC) ks=$(hist_read $KS) kc=$(hist_read $KC)
fragmenter_stop
sync
size=$(stat -c %s /mnt/xfs/data)
umount /mnt/xfs

stall=$((s1 - s0))
costly=$(sum_from "$dc" 4)
ks_costly=$(sum_from "$ks" 4)
kc_costly=$(sum_from "$kc" 4)
# page-cache bytes of the file by folio order, and the share at the order asked for
# (busybox awk may lack math: no ^)
kb_awk='function kb(o, k) { k = 4; while (o-- > 0) k *= 2; return k }'
pc_orders=$(echo "$pc" | awk "$kb_awk"'{ printf "%so%s:%d", sep, $1, $2 * kb($1) / 1024; sep = "," }')
pc_kb=$(echo "$pc" | awk "$kb_awk"'{ s += $2 * kb($1) } END { print s + 0 }')
pc_want_kb=$(echo "$pc" | awk -v o="$WANT" "$kb_awk"'$1 >= o { s += $2 * kb($1) } END { print s + 0 }')
pc_want_pct=$((pc_kb > 0 ? pc_want_kb * 100 / pc_kb : 0))
log "written $((size >> 20)) MiB in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
log "direct compaction attempts by order: $(echo "$dc" | tr '\n' ' ')"
log "kswapd wake-ups by order: $(echo "$ks" | tr '\n' ' ')"
log "kcompactd wake-ups by order: $(echo "$kc" | tr '\n' ' ')"
log "page cache of the file by folio order (MiB): $pc_orders"

# expect A OP B PASS_TEXT FAIL_TEXT: one check line either way
expect() {
	if test "$1" "$2" "$3"; then pass "$4"; else fail "$5"; fi
}
expect "$size" -eq $((MB << 20)) "wrote $MB MiB" "file has $size bytes, not $((MB << 20))"
expect "$pc_kb" -gt 0 "the file's folios were counted ($((pc_kb >> 10)) MiB)" \
	"no mm_filemap_add_to_page_cache hits for the file (filter s_dev == $sdev && i_ino == $ino)"
# on the harness's 7.3 build the boot switch must say what was asked for
case $SWITCH:$EXPECT in
none:*) ;;
Y:nostall | N:stall) pass "the boot switch noretry_costly reads $SWITCH" ;;
*) fail "the boot switch noretry_costly reads $SWITCH, but $EXPECT was asked for (did run.sh pass noretry_costly=1?)" ;;
esac
case $EXPECT in
stall)
	expect "$stall" -gt 0 "compact_stall rose by $stall (stock: costly __GFP_NORETRY folios compact directly)" \
		"compact_stall did not rise ($s0 -> $s1): the writes met no direct compaction"
	expect "$costly" -gt 0 "$costly direct compaction attempts at orders >= 4" \
		"no direct compaction attempt at a costly order"
	;;
nostall)
	expect "$stall" -eq 0 "compact_stall unchanged ($s0)" "compact_stall rose by $stall ($s0 -> $s1)"
	expect "$costly" -eq 0 "no direct compaction attempt at a costly order" \
		"$costly direct compaction attempts at orders >= 4: the NORETRY change is not active"
	expect "$ks_costly" -gt 0 \
		"kswapd still woken for orders >= 4 ($ks_costly times; kcompactd $kc_costly, compact_daemon_wake +$((w1 - w0)))" \
		"kswapd was never woken for a costly order"
	;;
*) fail "fvm.expect=$EXPECT: not stall or nostall" ;;
esac
result "expect=$EXPECT noretry_switch=$SWITCH mb=$MB bs_kb=$BS_KB compact_stall=$stall costly_compact=$costly kswapd_wake_costly=$ks_costly kcompactd_wake_costly=$kc_costly compact_daemon_wake=$((w1 - w0)) pageoutrun=$((p1 - p0)) pgscan_kswapd=$((k1 - k0)) migrate_scanned=$((m1 - m0)) pc_kb=$pc_kb pc_want_pct=$pc_want_pct pc_orders=$pc_orders"
finish
