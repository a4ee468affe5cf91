# shellcheck shell=sh
# postgres.sh - PostgreSQL 15 on XFS in the systemd guest (an image made with
# mkrootfs.sh -e postgresql-15,xfsprogs,dbus: make vm-pg-image), pgbench
# simple-update on a host whose memory is full of page cache and whose free
# memory is fragmented (issue 13, item 3).
#
# PostgreSQL zero-fills every new 16 MiB WAL segment with 256 KiB pwritev()
# calls; on XFS (6.12: large folios, iomap) each is an order-6 page-cache
# allocation with __GFP_NORETRY: on fragmented memory it enters direct
# compaction (stock 6.12) or falls back to small folios (the NORETRY kernel),
# and the failed attempt wakes kswapd at order 6.
#
#   fvm.policy=kernel|defrag1|tuned|pro100|oneshot|oracle|fragd|fragd-thpoff
#       kernel: defaults; defrag1: vm.defrag_mode=1 (6.15+; skips without
#       it), the kernel's own answer to pageblock pollution; tuned: compaction_proactiveness=60 and
#       watermark_scale_factor=200 (as churn); pro100:
#       compaction_proactiveness=100; oneshot (test-only, issue 13: which
#       lever makes order>=6 blocks on this memory): kernel defaults, and
#       one whole-node compaction (every node's sysfs compact, else
#       vm.compact_memory) when the policies take over; oracle (test-only:
#       the bar for any policy that builds blocks by compaction): oneshot,
#       and the same compaction again 2 s before every WAL switch of the
#       run (it knows when the burst comes, which no daemon does); fragd:
#       the shipped unit, enabled with
#       `systemctl enable --now fragd` (fresh: no learned state), watching
#       postgres' cgroup through a conf.d drop-in; fragd-thpoff: the same, and
#       THP off for postgres with the drop-in `fragd thp-dropin` prints.
#       Static policies and fragd take over once memory is fragmented, and
#       get fvm.settle seconds (default 30) before the measured run.
#   fvm.data=/dev/vdX   the blank data disk (run.sh -D): XFS, PGDATA on it
#   fvm.seed=N          fragmenter and pgbench --random-seed (default 1)
#   fvm.seconds=N       pgbench -N -T (default 45)
#   fvm.switch=N        pg_switch_wal() every N s during the run (default 15;
#                       0: none): each makes the next write zero-fill a new
#                       64 MiB WAL segment, a burst of order-6 folios
#   fvm.scale=N         pgbench -i -s (default 2)
#   fvm.clients=N       pgbench -c (default 4, -j 2)
#   fvm.free_mb=N       free memory left after the page-cache fill (default 560:
#                       the holder gives back at most half of what it takes)
#   fvm.fragment=0      no fragmenter (the unfragmented reference run)
#   fvm.hold=pin|move|age|0 the last step of the fragmenting: take the free
#                       memory left and hold it scattered (holder; pin:
#                       unmovable: a stress case, it defeats the kernel's
#                       grouping by mobility on purpose), or age the host as
#                       real ones age (age: the page-cache fill is read back
#                       at random in 4 KiB pages, readahead off, so it sits
#                       in order-0 folios; then, under the full cache,
#                       fvm.age_inodes files (default 200000) and
#                       fvm.age_pipes pipes of 64 KiB (default 4000) are
#                       made and half of each freed: ager)
#   fvm.hold_free=N     MiB left free by the holder (default high watermark + 200)
#   fvm.fragd_start=early|late  fragd from before pgbench -i (default), or
#                       from when the policies take over
#   fvm.fragd_log=debug  fragd's log level (a conf.d drop-in; default: the
#                       shipped one): at debug each tick's CPU and its
#                       sources' shares are logged, and summed at the end
#   fvm.sync_commit=on|off  postgres' synchronous_commit (default on; off:
#                       commits do not wait for the WAL flush, so the WAL
#                       is written, and zero-filled, as fast as the CPU goes)
#   fvm.tenant=N        a bulk-loading tenant beside the database during the
#                       measured run (default 0: none): in a scope of its
#                       own (not postgres' cgroup), it appends N MiB a
#                       second in 1 MiB writes to files on the root file
#                       system (ext4: large page-cache folios on 6.16+, from
#                       the same free blocks the WAL wants), a new file
#                       every 256 MiB, the four newest kept; the cache it
#                       fills pushes the aged small-folio cache out by
#                       reclaim. The page cache's orders are then counted
#                       on the data disk alone (the WAL's, not the tenant's)
#
# Measured over the pgbench -N run only (deltas): postgres' direct
# compactions and their delay from fragd's taskstats attribution
# (fragd-workload-probe, the daemon's workload module on its own, for every
# policy; fragd's own fragd_cgroup_delays_total too under the fragd
# policies), vmstat compact_stall, pgscan_kswapd, compact_migrate_scanned +
# compact_free_scanned, page-cache bytes added by folio order (fragd's
# fragd_pagecache_added_bytes_total{order} when fragd exports it, else a
# tracefs hist trigger on filemap:mm_filemap_add_to_page_cache keyed by
# order, in an instance of this scenario's own), and TPS (reported only:
# TCG makes it noisy).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

POLICY=${FVM_POLICY:-kernel}
SEED=${FVM_SEED:-1}
SECONDS_RUN=${FVM_SECONDS:-45}
SWITCH=${FVM_SWITCH:-15}
SCALE=${FVM_SCALE:-2}
CLIENTS=${FVM_CLIENTS:-4}
FREE_MB=${FVM_FREE_MB:-560}
SETTLE=${FVM_SETTLE:-30}
FRAGMENT=${FVM_FRAGMENT:-1}
HOLD=${FVM_HOLD:-pin}
AGE_INODES=${FVM_AGE_INODES:-200000}
AGE_PIPES=${FVM_AGE_PIPES:-4000}
FRAGD_START=${FVM_FRAGD_START:-early}
FRAGD_LOG=${FVM_FRAGD_LOG:-}
SYNC_COMMIT=${FVM_SYNC_COMMIT:-on}
TENANT=${FVM_TENANT:-0}
case $SYNC_COMMIT in on | off) ;; *) skip "fvm.sync_commit must be on or off: '$SYNC_COMMIT'" ;; esac
case $FRAGD_LOG in '' | debug | info | notice | warning) ;; *) skip "fvm.fragd_log must be debug, info, notice or warning: '$FRAGD_LOG'" ;; esac
case $TENANT in '' | *[!0-9]*) skip "fvm.tenant must be MiB a second, a whole number: '$TENANT'" ;; esac
DATA=${FVM_DATA:-}
UNIT=postgresql@15-main.service
CG=/sys/fs/cgroup
CGPATH=system.slice/system-postgresql.slice/$UNIT
MNT=/srv/pg
PGDATA=$MNT/main
PROM=/var/lib/prometheus/node-exporter/fragd.prom
TRACE=/sys/kernel/tracing
INST=$TRACE/instances/fragd-vm-pg

case $HOLD in pin | move | age | 0) ;; *)
	echo "unknown fvm.hold '$HOLD' (pin, move, age or 0)"
	exit 2
	;;
esac
case $POLICY in kernel | defrag1 | tuned | pro100 | oneshot | oracle | fragd | fragd-thpoff) ;; *)
	echo "unknown policy '$POLICY'"
	exit 2
	;;
esac
log "kernel $(uname -r), systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), $(grep MemTotal /proc/meminfo | tr -s ' ')"
for b in pg_ctlcluster pgbench mkfs.xfs fragmenter fragd-workload-probe $([ "$HOLD" = age ] && echo ager); do
	command -v "$b" >/dev/null 2>&1 || skip "no $b in the guest (an image made with mkrootfs.sh -e postgresql-15,xfsprogs,dbus: make vm-pg-image)"
done
if [ ! -b "${DATA:-/nonexistent}" ]; then skip "no data disk (run.sh -D SIZE gives fvm.data=): '$DATA'"; fi
grep -qw xfs /proc/filesystems || modprobe xfs 2>/dev/null || skip "kernel $(uname -r) has no XFS (built in, or its module in the boot stage: make vm-pg-image)"
case $POLICY in fragd*) fragd_require ;; esac
[ "$POLICY" != defrag1 ] || [ -e $V/defrag_mode ] || skip "kernel $(uname -r) has no vm.defrag_mode (6.15+)"

# --- delay accounting before any postgres process starts
[ -e /proc/sys/kernel/task_delayacct ] && echo 1 >/proc/sys/kernel/task_delayacct

# --- XFS data disk, PGDATA on it
mkfs.xfs -q -f "$DATA" || { fail "mkfs.xfs $DATA"; finish; }
mkdir -p $MNT
mount -o noatime "$DATA" $MNT || { fail "mount $DATA"; finish; }
# the cluster as the image has it (guest/pg-image.sh: 64 MiB WAL segments,
# wal_recycle off), moved to the XFS disk
cp -a /var/lib/postgresql/15/main $PGDATA
chown postgres:postgres $MNT $PGDATA
chmod 700 $PGDATA
sed -i "s|^data_directory *=.*|data_directory = '$PGDATA'|" /etc/postgresql/15/main/postgresql.conf
log "PGDATA $PGDATA on $(findmnt -n -o FSTYPE,SOURCE $MNT | tr -s ' ')"

if [ "$POLICY" = fragd-thpoff ]; then
	mkdir -p /etc/systemd/system/$UNIT.d
	if fragd thp-dropin $UNIT never >/etc/systemd/system/$UNIT.d/50-fragd-thp.conf 2>/tmp/dropin.err; then
		pass "fragd thp-dropin $UNIT never: $(grep -v '^#' /etc/systemd/system/$UNIT.d/50-fragd-thp.conf | tr '\n' ' ')"
	else
		fail "fragd thp-dropin $UNIT never: $(cat /tmp/dropin.err)"
		finish
	fi
	systemctl daemon-reload
fi
[ "$SYNC_COMMIT" = on ] || echo "synchronous_commit = $SYNC_COMMIT" >>/etc/postgresql/15/main/conf.d/fragd-vm.conf
systemctl start $UNIT || { journalctl -b -u $UNIT --no-pager | tail -n 20; fail "systemctl start $UNIT"; finish; }
pg_pid=$(head -n 1 $PGDATA/postmaster.pid)
log "postgres $pg_pid in $(cut -d: -f3 /proc/"$pg_pid"/cgroup), THP_enabled $(awk '/^THP_enabled:/ {print $2}' /proc/"$pg_pid"/status)"
if [ "$POLICY" = fragd-thpoff ]; then
	if [ "$(awk '/^THP_enabled:/ {print $2}' /proc/"$pg_pid"/status)" = 0 ]; then
		pass "postgres runs with THP disabled (THP_enabled 0)"
	else
		fail "postgres THP_enabled $(awk '/^THP_enabled:/ {print $2}' /proc/"$pg_pid"/status) under the drop-in"
	fi
fi
[ -d "$CG/$CGPATH" ] || { fail "no cgroup $CGPATH"; finish; }

pg() { runuser -u postgres -- "$@"; }
log "wal_segment_size $(pg psql -Atc 'SHOW wal_segment_size' postgres), wal_recycle $(pg psql -Atc 'SHOW wal_recycle' postgres), synchronous_commit $(pg psql -Atc 'SHOW synchronous_commit' postgres)"
# fragd as the unit ships it runs from boot, before the database loads its
# data (fvm.fragd_start=early, the default): it sees pgbench -i's WAL and
# keeps the order the page cache used; late starts it when the other
# policies take over, on memory already fragmented
fragd_enable() {
	mkdir -p /etc/fragd/fragd.conf.d /var/lib/prometheus/node-exporter
	printf '[cgroup "%s"]\nwatch = yes\n' "$CGPATH" >/etc/fragd/fragd.conf.d/50-postgres.conf
	[ -z "$FRAGD_LOG" ] || printf '[daemon]\nlog_level = %s\n' "$FRAGD_LOG" >/etc/fragd/fragd.conf.d/40-log.conf
	if systemctl enable --now fragd; then pass "systemctl enable --now fragd ($FRAGD_START)"; else
		fail "systemctl enable --now fragd"
		finish
	fi
	# where fragd's threads are every 5 s (state, wchan, kernel stack),
	# kept to explain a watchdog timeout (systemd kills a fragd whose loop
	# did not answer for 30 s; under the aging the guest has crawled)
	(while sleep 5; do
		fp=$(systemctl show -p MainPID --value fragd 2>/dev/null)
		[ -n "$fp" ] && [ "$fp" != 0 ] || continue
		for tk in /proc/"$fp"/task/*; do
			printf '%s %s %s %s %s\n' "$(uptime_s)" "${tk##*/}" "$(sed 's/^.*) //; s/ .*//' "$tk/stat" 2>/dev/null)" \
				"$(cat "$tk/wchan" 2>/dev/null)" "$(awk '{ printf "%s ", $2 }' "$tk/stack" 2>/dev/null)"
		done
	done >/tmp/fragd-where.log 2>/dev/null) &
	bg_started $!
}
# fragd's own CPU since it started, by thread (user and system, from
# /proc/PID/task/*/stat: the compaction fragd asks for runs in the writing
# thread), and at debug log level the ticks' CPU summed by source
fragd_cpu() {
	fpid=$(systemctl show -p MainPID --value fragd 2>/dev/null)
	tck=$(getconf CLK_TCK)
	if [ -n "$fpid" ] && [ "$fpid" != 0 ]; then
		threads=$(for st in /proc/"$fpid"/task/*/stat; do
			# comm may hold spaces: the fields after its closing parenthesis
			# (a thread that ended meanwhile is left out)
			sed 's/^.*) //' "$st" 2>/dev/null | awk -v c="$(cat "${st%stat}comm" 2>/dev/null)" -v t="$tck" \
				'{ printf "%s user %.2f s system %.2f s; ", c, $12 / t, $13 / t }' || true
		done)
		log "fragd CPU by thread: ${threads%; }"
	fi
	log "fragd unit CPU: $(systemctl show -p CPUUsageNSec --value fragd | awk '{ printf "%.2f s", $1 / 1e9 }')"
	[ "$FRAGD_LOG" = debug ] || return 0
	journalctl -b -u fragd --no-pager -o cat 2>/dev/null | awk '
		/^tick [0-9]+ cpu: / {
			n++; tot += $4
			rest += $(NF - 1)
			for (i = 1; i <= NF; i++) if ($i == "(") { j = i + 1; break }
			for (; j + 1 <= NF && $j !~ /^[)-]/; j += 2) src[$j] += $(j + 1)
			for (i = 1; i < NF; i++) {
				if ($i == "workloads") wl += $(i + 1)
				if ($i == "outputs") outp += $(i + 1)
			}
		}
		END {
			if (!n) { print "fragd tick CPU: no tick cpu lines"; exit }
			printf "fragd tick CPU: %d ticks, %.3f s, %.2f ms a tick; by source:", n, tot / 1e6, tot / n / 1e3
			for (s in src) printf " %s %.3f s", s, src[s] / 1e6
			printf "; workloads %.3f s; outputs %.3f s; the rest %.3f s\n", wl / 1e6, outp / 1e6, rest / 1e6
		}' | while read -r l; do log "$l"; done
}
case $POLICY in fragd*)
	if [ "$FRAGD_START" = early ]; then
		knobs_snapshot >/tmp/knobs.orig
		fragd_enable
	fi
	;;
esac
t=$(uptime_s)
pg pgbench -q -i -s "$SCALE" postgres >/tmp/pgbench-init.log 2>&1 || { cat /tmp/pgbench-init.log; fail "pgbench -i"; finish; }
log "pgbench -i -s $SCALE in $(awk -v a="$t" -v b="$(uptime_s)" 'BEGIN { print b - a }')s"
# a segment switch (the next segment is zero-filled: the WAL burst fragd,
# started early, learns the order and the size from, as it would from the
# database's earlier hours) and a checkpoint: the measured run starts from
# the same state every time
pg psql -q -c 'SELECT pg_switch_wal()' -c CHECKPOINT postgres >/dev/null

# --- fragmented memory full of page cache. The fragmenter first pins one
# page in 16 of nearly all available memory, then a file on the root file
# system (ext4: 4 KiB folios on these kernels, so the fill takes the holes
# and never asks for a large block) is written into the holes until FREE_MB
# is left: almost no free memory, and what is free is scattered, as on a
# database host that has been up a while. (A fill on the XFS disk in 32 KiB
# writes, order-3 folios, had dd in soft lockups for minutes on 6.12 under
# TCG.) (Page cache first, fragmenter
# second, left 92 MiB in free order>=9 blocks: the fragmenter's faults woke
# kswapd, and reclaiming the fill's large folios freed whole large blocks.)
memfree() { awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo; }
# free memory in blocks of order >= $1, in MiB, in the zones user memory
# comes from (ZONE_DMA's 16 MiB are held back by lowmem_reserve)
free_order_mb() {
	awk -v o="$1" '$4 != "DMA" { kb = 4 * 2 ^ o; for (i = 5 + o; i <= NF; i++) { s += $i * kb; kb *= 2 } }
		END { printf "%d\n", s / 1024 }' /proc/buddyinfo
}
# memory PSI some/full avg10 (%): what fragd's calm gate reads
psi_avg10() { awk '{ sub("avg10=", "", $2); printf "%s%s", (NR > 1 ? "/" : ""), $2 }' /proc/pressure/memory; }
# every 5 s until the end: free memory, in order>=6 and >=9 blocks, the
# counters of who makes or takes blocks, direct reclaim and memory PSI
(while :; do
	echo "$(uptime_s) free=$(memfree) o6=$(free_order_mb 6) o9=$(free_order_mb 9) stall=$(vmstat compact_stall) scanned=$(($(vmstat compact_migrate_scanned) + $(vmstat compact_free_scanned))) kswapd=$(vmstat pgscan_kswapd) kcompactd_wake=$(vmstat compact_daemon_wake) pgscan_direct=$(vmstat pgscan_direct) psi=$(psi_avg10)"
	sleep 5
done) >/tmp/samples 2>&1 &
bg_started $!
# Page cache read or written so far sits in memory that was not fragmented
# yet; reclaimed later, it would free whole large blocks again. Dropped here,
# every page-cache page from now on is allocated in fragmented memory.
sync
echo 3 >$V/drop_caches
t=$(uptime_s)
if [ "$FRAGMENT" = 1 ]; then
	fragmenter_start --keep 16 --chunk-mb 16 --churn 1 --wave-every 0 \
		--file-mb 0 --reserve-mb 96 --floor-mb 48 --interval-ms 500 --report 0
fi
log "fragmented=$FRAGMENT in $(awk -v a="$t" -v b="$(uptime_s)" 'BEGIN { print b - a }')s: free in order>=9 blocks $(free_order_mb 9) MiB; $(grep -E '^(MemFree|Cached):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
# the database's files read back first (a server that has run a while has
# them cached; otherwise the run reads ~60 MB anew, page cache that would
# eat into the free memory the preparation leaves)
t=$(uptime_s)
# (a file postgres removes meanwhile, pg_internal.init, is no error)
find "$PGDATA/base" -type f -exec cat {} + >/dev/null 2>&1 || true
log "PGDATA/base read back in $(awk -v a="$t" -v b="$(uptime_s)" 'BEGIN { print b - a }')s ($(du -sm "$PGDATA/base" | cut -f1) MiB)"
fill=$(($(memfree) - FREE_MB))
t=$(uptime_s)
if [ "$HOLD" = age ]; then
	# the fill in order-0 folios (read back at random, no readahead), then
	# the kernel's own allocations taken under the full cache, half freed
	rm -f /tmp/ager.ready
	ager --cache-file $MNT/fill --cache-mb "$((fill > 0 ? fill : 0))" --floor-mb "$FREE_MB" \
		--inodes "$AGE_INODES" --dir $MNT/age --pipes "$AGE_PIPES" --seed "$SEED" \
		--ready /tmp/ager.ready >/tmp/ager.out 2>&1 &
	bg_started $!
	i=0
	while [ ! -e /tmp/ager.ready ] && [ $i -lt 6000 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e /tmp/ager.ready ] || { cat /tmp/ager.out; fail "the ager did not get ready"; finish; }
	log "aged: $(tr '\n' ' ' </tmp/ager.out)"
	awk '/^Number of blocks type/ { on = 1; print "pageblocks: " $0; next } on && /^Node/ { print "pageblocks: " $0 } on && !/^Node/ && !/^Number/ { on = 0 }' /proc/pagetypeinfo 2>/dev/null || true
elif [ $fill -gt 0 ]; then
	dd if=/dev/zero of=/var/tmp/fill bs=1M count=$fill status=none && sync
fi
log "min_free_kbytes $(cat $V/min_free_kbytes); page cache filled with $fill MiB in $(awk -v a="$t" -v b="$(uptime_s)" 'BEGIN { print b - a }')s: free in order>=9 blocks $(free_order_mb 9) MiB; $(grep -E '^(MemFree|Cached|Dirty):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
# The fill takes the smallest free blocks first, so what is still free now
# is the large blocks the fragmenter's first pass left (kswapd kept the
# watermarks while it faulted): a second fragmenter scatters them too (the
# first keeps churning a 16 MiB chunk every 500 ms).
if [ "$FRAGMENT" = 1 ]; then
	rm -f /tmp/frag2.ready
	fragmenter --seed "$((SEED + 1000))" --mb $(($(memfree) - 16)) --keep 16 --chunk-mb 4 --churn 0 \
		--file-mb 0 --reserve-mb 32 --floor-mb 16 --ready /tmp/frag2.ready --report 0 >/tmp/frag2.out 2>&1 &
	bg_started $!
	i=0
	while [ ! -e /tmp/frag2.ready ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e /tmp/frag2.ready ] || { cat /tmp/frag2.out; fail "the second fragmenter did not get ready"; finish; }
	log "the rest scattered: free in order>=9 blocks $(free_order_mb 9) MiB; $(grep -E '^(MemFree|Cached):' /proc/meminfo | tr -s ' ' | tr '\n' ' ')"
fi
# What is still free now sits in whatever the fill and the second pass left,
# some of it in large blocks. On a database host page cache fills memory to
# the watermarks and what is free is scattered; but a preparation that takes
# free memory below the low watermark wakes kswapd, whose reclaim (and the
# kcompactd run after it) makes tens of MiB of large blocks again before the
# run. So everything here stays above the high watermark:
# the holder takes free memory page by page down to the high watermark + 8
# MiB (its order-0 faults take the smallest blocks first) and gives back
# single pages, never two buddies, until HOLD_FREE MiB are free (default:
# the high watermark + 200 MiB: the run's two 64 MiB WAL segments and the
# rest of its page cache fit in it, so kswapd has no order-0 reason to wake
# during the run); then the eater, last,
# takes the large blocks that are left with mTHP faults and keeps one page
# in every aligned 256 KiB, giving the rest back as it goes, until DMA32 and
# Normal hold no free block of order >= 6. With hold=pin the pages both
# hold cannot be migrated (a pipe holds a reference, as I/O buffers, page
# tables and slab do on a real host).
wm_mb() { awk -v w="$1" '$1 == w && NF == 2 { s += $2 } END { printf "%d\n", s * 4 / 1024 }' /proc/zoneinfo; }
if [ "$FRAGMENT" = 1 ] && [ "$HOLD" != 0 ] && [ "$HOLD" != age ]; then
	wmin=$(wm_mb min) wlow=$(wm_mb low) whigh=$(wm_mb high)
	hold_free=${FVM_HOLD_FREE:-$((whigh + 200))}
	pin=
	[ "$HOLD" != pin ] || pin=--pin
	ks_prep=$(vmstat pgscan_kswapd)
	rm -f /tmp/holder.ready
	# shellcheck disable=SC2086 # $pin: none or one word
	holder --floor-mb $((whigh + 8)) --free-mb "$hold_free" $pin \
		--ready /tmp/holder.ready >/tmp/holder.out 2>&1 &
	bg_started $!
	i=0
	while [ ! -e /tmp/holder.ready ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e /tmp/holder.ready ] || { cat /tmp/holder.out; fail "the holder did not get ready"; finish; }
	log "held ($HOLD; watermarks min/low/high $wmin/$wlow/$whigh MiB): $(cat /tmp/holder.out); free in order>=6 blocks $(free_order_mb 6) MiB, order>=9 $(free_order_mb 9) MiB"
	# the eater: faults with the mTHP sizes from 256 KiB to 1 MiB take the
	# largest free block there is (without compaction: defrag is madvise)
	# (not the PMD size: its faults count as THP faults, which fragd would
	# learn as THP demand; order-8 folios eat order-9 blocks as well. The
	# PMD size goes to madvise, not never: with no PMD size enabled the
	# kernel stops khugepaged and drops min_free_kbytes from its THP value
	# to the plain one, and a fragd running then took that as the
	# original and restored it at stop: "knobs not restored" in check-vm)
	mthp_saved=
	for sz in 256 512 1024 2048; do
		f=$T/hugepages-${sz}kB/enabled
		[ -w "$f" ] || continue
		mthp_saved="$mthp_saved $sz=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$f")"
		if [ $sz = 2048 ]; then echo madvise >"$f"; else echo always >"$f"; fi
	done
	rm -f /tmp/eater.ready
	# shellcheck disable=SC2086 # $pin: none or one word
	# (at most 1 GiB of faults: under kernel defaults proactive compaction
	# makes new large blocks as fast as the eater takes them, and the
	# eater's pages would pile up, one in 64)
	holder --eat 6 --floor-mb "$(wm_mb low)" --max-mb 1024 $pin --ready /tmp/eater.ready >/tmp/eater.out 2>&1 &
	bg_started $!
	i=0
	while [ ! -e /tmp/eater.ready ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
	for kv in $mthp_saved; do echo "${kv#*=}" >"$T/hugepages-${kv%%=*}kB/enabled"; done
	[ -e /tmp/eater.ready ] || { cat /tmp/eater.out; fail "the eater did not get ready"; finish; }
	log "large blocks eaten: $(cat /tmp/eater.out); free $(memfree) MiB, in order>=6 blocks $(free_order_mb 6) MiB, order>=9 $(free_order_mb 9) MiB; kswapd scanned $(($(vmstat pgscan_kswapd) - ks_prep)) pages during the holder and the eater"
fi
grep -E 'Normal|DMA32' /proc/buddyinfo | sed 's/^/buddyinfo: /'

# --- the policy takes over
scanned() { echo $(($(vmstat compact_migrate_scanned) + $(vmstat compact_free_scanned))); }
if [ -e /proc/sys/kernel/task_delayacct ]; then pass "task_delayacct=$(cat /proc/sys/kernel/task_delayacct)"; fi
[ -e /tmp/knobs.orig ] || knobs_snapshot >/tmp/knobs.orig
# compact_all WHAT: every node's sysfs compact (else vm.compact_memory),
# logged with order>=6 free before and after and the pages it scanned
compact_all() {
	ca_t=$(uptime_s) ca_sc=$(scanned) ca_o6=$(free_order_mb 6)
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null || true)
	if [ -n "$nodes" ]; then
		for n in $nodes; do echo 1 >"$n/compact"; done
	else
		echo 1 >$V/compact_memory
	fi
	log "$1 in $(awk -v a="$ca_t" -v b="$(uptime_s)" 'BEGIN { print b - a }')s: order>=6 free $ca_o6 -> $(free_order_mb 6) MiB, order>=9 $(free_order_mb 9) MiB, $(($(scanned) - ca_sc)) pages scanned"
}
case $POLICY in
kernel) ;;
tuned)
	knob_set vm/compaction_proactiveness 60
	knob_set vm/watermark_scale_factor 200
	;;
pro100) knob_set vm/compaction_proactiveness 100 ;;
defrag1) knob_set vm/defrag_mode 1 ;;
oneshot | oracle) compact_all "one-shot compaction" ;;
fragd*) [ "$FRAGD_START" = early ] || fragd_enable ;;
esac
log "policy $POLICY: $(knobs_snapshot | tr '\n' ' ')"

# the attribution probe (fragd's workload module): every policy is measured
# by the same instrument
fragd-workload-probe --cgroup "$CGPATH" --interval 1 --count 100000 --every --json >/tmp/probe.out 2>/tmp/probe.err &
bg_started $!
knobs_sampler /tmp/knobs.during 2
sleep "$SETTLE"
# fragd watching postgres' cgroup counts its tasks' page cache alone
case $POLICY in fragd*)
	sp=$TRACE/instances/fragd/set_event_pid
	if [ -e $sp ] && grep -qw "$pg_pid" $sp; then
		pass "fragd's trace instance counts postgres' tasks alone: $(wc -w <$sp) tasks in set_event_pid, the postmaster $pg_pid among them"
	else
		fail "postmaster $pg_pid not in fragd's set_event_pid: '$(head -c 200 $sp 2>/dev/null)' ($(journalctl -b -u fragd --no-pager -o cat | grep -i 'tasks alone\|scoped' | head -n 2))"
	fi
	# and, the instance scoped, their failed allocations by order
	at=$TRACE/instances/fragd/events/kmem/mm_page_alloc/trigger
	case $(sed '/^#/d' $at 2>/dev/null | tr '\n' ' ') in
	*keys=order*pfn*) pass "fragd counts postgres' failed allocations: '$(sed '/^#/d' $at | tr -s ' ' | tr '\n' ' ')'" ;;
	*) fail "no failed-allocation trigger in fragd's instance: '$(cat $at 2>&1 | tr '\n' ' ')' ($(journalctl -b -u fragd --no-pager -o cat | grep -i 'failed alloc' | head -n 2))" ;;
	esac
	;;
esac

# --- page-cache folio orders: fragd's metric if it has one, else our own hist
# (with a tenant: our own hist, of the data disk alone, every policy: the
# tenant's folios on the root file system are not the WAL's; the event's
# s_dev is the kernel's dev_t, major << 20 | minor)
hist=
pc_filter=
if [ "$TENANT" -gt 0 ]; then
	ddev=$(cat "/sys/class/block/$(basename "$DATA")/dev" 2>/dev/null || true)
	[ -n "$ddev" ] || { fail "no /sys/class/block/$(basename "$DATA")/dev"; finish; }
	pc_filter=" if s_dev == $(((${ddev%%:*} << 20) | ${ddev#*:}))"
fi
if [ -z "$pc_filter" ] && grep -q '^fragd_pagecache_added_bytes_total{' $PROM 2>/dev/null; then
	pc_src=fragd
elif [ -e $TRACE/events/filemap/mm_filemap_add_to_page_cache/format ] &&
	grep -q 'field:.* order;' $TRACE/events/filemap/mm_filemap_add_to_page_cache/format; then
	pc_src=hist
	mkdir $INST
	hist=$INST/events/filemap/mm_filemap_add_to_page_cache
	echo "hist:keys=order:vals=hitcount:sort=order$pc_filter" >$hist/trigger
	[ -z "$pc_filter" ] || log "page cache counted on $DATA ($ddev) alone:$pc_filter"
else
	pc_src=none
	log "no page-cache folio orders: no fragd metric, and mm_filemap_add_to_page_cache has no order field on $(uname -r)"
fi
# ORDER BYTES lines of the page-cache bytes added so far
pc_orders() {
	case $pc_src in
	fragd) sed -n 's/^fragd_pagecache_added_bytes_total{.*order="\([0-9]*\)".*} \([0-9.e+]*\)$/\1 \2/p' $PROM |
		awk '{ printf "%d %.0f\n", $1, $2 }' ;;
	hist) # lines "{ order:          6 } hitcount:        123"
		awk '/order:/ && /hitcount:/ {
			for (i = 1; i < NF; i++) { if ($i == "order:") o = $(i + 1); if ($i == "hitcount:") n = $(i + 1) }
			printf "%d %.0f\n", o, n * 4096 * 2 ^ o }' $hist/hist ;;
	esac
}
probe_last() { { grep '"cgroup"' /tmp/probe.out || true; } | tail -n 1; }
jfield() { echo "$1" | sed -n "s/.*\"$2\":\\([^,}]*\\).*/\\1/p" | tr -d '"'; }
prom_delay() { # prom_delay METRIC: the compact sample of postgres' cgroup in fragd.prom
	{ sed -n "s|^$1{cgroup=\"$CGPATH\",kind=\"compact\"} \\([0-9.e+-]*\\)$|\\1|p" $PROM 2>/dev/null || true; } | tail -n 1
}

# --- kswapd's wake-ups by order over the run (what
# high-order wakeups cause against plain order-0 reclaim): hist triggers
# keyed by order on vmscan:mm_vmscan_wakeup_kswapd (an allocation that
# failed its fast path woke kswapd for its order) and mm_vmscan_kswapd_wake
# (kswapd starting a balance run at that order), in an instance of their
# own; and every second pgscan_kswapd with free memory against the high
# watermark: scanning while free memory is above it is a high-order wake's
# (order 0 is balanced there), under it order-0 reclaim's
KSINST=$TRACE/instances/fragd-vm-pg-ks
ks_hists=
if [ -e $TRACE/events/vmscan/mm_vmscan_wakeup_kswapd/format ] && mkdir $KSINST 2>/dev/null; then
	for ev in mm_vmscan_wakeup_kswapd mm_vmscan_kswapd_wake; do
		echo 'hist:keys=order:vals=hitcount:sort=order' >"$KSINST/events/vmscan/$ev/trigger" && ks_hists="$ks_hists $ev"
	done
fi
# "O:N ..." of an event's hist
ks_hist() { awk '!/^#/ && /order:/ && /hitcount:/ {
	for (i = 1; i < NF; i++) { if ($i == "order:") o = $(i + 1); if ($i == "hitcount:") n = $(i + 1) }
	printf "o%d:%d ", o, n }' "$KSINST/events/vmscan/$1/hist"; }
whigh_mb=$(wm_mb high)
(while :; do
	echo "$(uptime_s) $(memfree) $(vmstat pgscan_kswapd)"
	sleep 1
done) >/tmp/ks.samples 2>&1 &
ks_sampler=$!
bg_started $ks_sampler

# --- the measured run
# the WAL segment the insert position is in (each new one is a zero-fill of
# wal_segment_size in order-6 folios): a run's direct compactions depend on
# how many it entered
wal_segment() {
	pg psql -Atc "SELECT floor(pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') /
		(SELECT setting::numeric FROM pg_settings WHERE name = 'wal_segment_size'))::bigint" postgres
}
# the segment files there are now: a name not among them at the end was
# created, and zero-filled, during the run (wal_recycle is off; a segment
# entered may also be one a checkpoint preallocated before the run, written
# then with small folios, so the zero-fills are what the order-6 demand is)
wal_files() { find "$PGDATA/pg_wal" -maxdepth 1 -type f -name '[0-9A-F]*' -printf '%f\n' | grep -E '^[0-9A-F]{24}$' | sort; }
wal_files >/tmp/wal.before
pc_orders >/tmp/pc.before
wal0=$(wal_segment)
p0=$(probe_last)
st0=$(vmstat compact_stall) ks0=$(vmstat pgscan_kswapd) sc0=$(scanned) ks_t0=$(uptime_s)
fc0=$(prom_delay fragd_cgroup_delays_total) fu0=$(prom_delay fragd_cgroup_delay_seconds_total)
log "pgbench -N -T $SECONDS_RUN -c $CLIENTS -j 2 --random-seed=$SEED; free $(memfree) MiB, in order>=6 blocks $(free_order_mb 6) MiB, order>=9 $(free_order_mb 9) MiB"
grep -E 'Normal|DMA32' /proc/buddyinfo | sed 's/^/buddyinfo at the start: /'
# a segment switch every SWITCH seconds while pgbench runs (as
# archive_timeout makes on a host that archives its WAL): the next WAL write
# zero-fills a whole new 64 MiB segment, a burst of 256 order-6 folio
# allocations; none in the last 5 s (the run would end inside it)
if [ "$SWITCH" -gt 0 ]; then
	(t=$SWITCH
	while [ $((t + 5)) -le "$SECONDS_RUN" ]; do
		if [ "$POLICY" = oracle ] && [ "$SWITCH" -gt 2 ]; then
			sleep $((SWITCH - 2))
			compact_all "oracle: compaction 2 s before the switch"
			sleep 2
		else
			sleep "$SWITCH"
		fi
		echo "$(uptime_s) $(pg psql -Atc 'SELECT pg_switch_wal()' postgres 2>&1) free=$(memfree) o6=$(free_order_mb 6) stall=$(vmstat compact_stall)"
		t=$((t + SWITCH))
	done) >/tmp/switches 2>&1 &
	switcher=$!
fi
# the bulk-loading tenant: TENANT MiB a second at most, in a scope of its own
tenant_pid=
if [ "$TENANT" -gt 0 ]; then
	mkdir -p /var/tmp/tenant
	# shellcheck disable=SC2016 # expanded by the tenant's own sh
	systemd-run -q --scope -u bulk-tenant sh -c '
		n=0 f=0
		while :; do
			dd if=/dev/zero of="$1/t$f" bs=1M count="$2" oflag=append conv=notrunc status=none
			n=$((n + $2))
			if [ $n -ge 256 ]; then f=$((f + 1)) n=0; rm -f "$1/t$((f - 4))"; fi
			sleep 1
		done' tenant /var/tmp/tenant "$TENANT" &
	tenant_pid=$!
	bg_started $tenant_pid
	log "bulk tenant: $TENANT MiB/s at most to /var/tmp/tenant ($(findmnt -n -o FSTYPE -T /var/tmp)) in the scope bulk-tenant.scope"
fi
pg pgbench -N -T "$SECONDS_RUN" -c "$CLIENTS" -j 2 --random-seed="$SEED" postgres >/tmp/pgbench.log 2>&1 ||
	{ cat /tmp/pgbench.log; fail "pgbench -N"; }
if [ -n "$tenant_pid" ]; then
	kill "$tenant_pid" 2>/dev/null || true
	wait "$tenant_pid" 2>/dev/null || true
	log "bulk tenant wrote $(du -cm /var/tmp/tenant/t* 2>/dev/null | tail -n 1 | cut -f1) MiB still on disk ($(find /var/tmp/tenant -type f | wc -l) files)"
fi
[ -z "${switcher:-}" ] || { wait "$switcher" 2>/dev/null || true; sed 's/^/switch: /' /tmp/switches; }
st1=$(vmstat compact_stall) ks1=$(vmstat pgscan_kswapd) sc1=$(scanned) ks_t1=$(uptime_s)
wal1=$(wal_segment)
case "$wal0$wal1" in *[!0-9]* | "") log "WAL position not read ($wal0, $wal1)"; wal_segments=- ;;
*) wal_segments=$((wal1 - wal0)) ;; esac
wal_new=$(wal_files | comm -13 /tmp/wal.before -)
wal_zerofills=$(printf '%s' "$wal_new" | grep -c . || true)
log "WAL over the run: $wal_segments segments entered, $wal_zerofills created (zero-filled): $(printf '%s' "$wal_new" | tr '\n' ' ')"
sleep 3 # the probe's next ticks see the backends' exit records
p1=$(probe_last)
fc1=$(prom_delay fragd_cgroup_delays_total) fu1=$(prom_delay fragd_cgroup_delay_seconds_total)
pc_orders >/tmp/pc.after
grep -E '^(tps|number of transactions actually processed|latency average)' /tmp/pgbench.log | sed 's/^/pgbench: /'
tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' /tmp/pgbench.log | head -n 1)

sed 's/^/sample: /' /tmp/samples
kill "$ks_sampler" 2>/dev/null || true
# kswapd's pages scanned over the run, split by free memory at the
# second's start against the high watermark (+ 8 MiB: the per-cpu lists
# and the second's own allocations)
ks_split=$(awk -v t0="$ks_t0" -v t1="$ks_t1" -v hi="$whigh_mb" '
	$1 >= t0 && $1 <= t1 + 1 { if (n++ && $3 > k) { if (f > hi + 8) a += $3 - k; else b += $3 - k } f = $2; k = $3 }
	END { printf "%d %d\n", a, b }' /tmp/ks.samples)
# shellcheck disable=SC2086 # two words
set -- $ks_split
ks_above=$1 ks_below=$2
ks_wakeup="" ks_wake=""
if [ -n "$ks_hists" ]; then
	ks_wakeup=$(ks_hist mm_vmscan_wakeup_kswapd) ks_wake=$(ks_hist mm_vmscan_kswapd_wake)
	for ev in $ks_hists; do echo '!hist:keys=order:vals=hitcount:sort=order' >"$KSINST/events/vmscan/$ev/trigger" || true; done
fi
[ ! -d $KSINST ] || rmdir $KSINST || log "cannot remove the tracing instance $KSINST"
log "kswapd over the run: woken by allocations of order ${ks_wakeup:-?}; balance runs at order ${ks_wake:-?}; pages scanned with free memory above the high watermark ($whigh_mb MiB) + 8 MiB $ks_above, at or under it $ks_below"
[ "$FRAGMENT" != 1 ] || fragmenter_stop
if [ -n "$hist" ]; then
	echo "!hist:keys=order:vals=hitcount:sort=order$pc_filter" >$hist/trigger || true
	rmdir $INST || log "cannot remove the tracing instance $INST"
fi
cleanup
if knobs_in_bounds /tmp/knobs.during; then pass "knobs within bounds during the run"; fi
case $POLICY in
fragd*)
	# after the run's backends came and went (the kernel followed their
	# forks and exits; fragd adds only the tasks it lacks), every task of
	# postgres' cgroup is in fragd's list
	sp=$TRACE/instances/fragd/set_event_pid
	scope_missing() {
		find "$CG/$CGPATH" -name cgroup.threads -exec cat {} + 2>/dev/null | sort -u | while read -r t; do
			grep -qx "$t" $sp || echo "$t"
		done | tr '\n' ' '
	}
	miss=$(scope_missing)
	[ -z "$miss" ] || { sleep 6; miss=$(scope_missing); }
	if [ -z "$miss" ]; then
		pass "after the run every task of postgres' cgroup is in fragd's set_event_pid ($(wc -l <$sp) listed)"
	else
		fail "tasks of postgres' cgroup missing from fragd's set_event_pid after the run: $miss"
	fi
	sed -n '/^fragd_page_alloc_failures_total\|^fragd_kswapd_wakeups_total/s/^/prom: /p' $PROM 2>/dev/null || true
	fragd status 2>&1 | head -n 25 | sed 's/^/status: /' || true
	fragd_cpu
	if systemctl stop fragd; then pass "systemctl stop fragd"; else fail "systemctl stop fragd"; fi
	knobs_snapshot >/tmp/knobs.now
	if cmp -s /tmp/knobs.orig /tmp/knobs.now; then pass "every knob restored after stop"; else
		fail "knobs not restored after stop:"
		diff /tmp/knobs.orig /tmp/knobs.now || true
	fi
	# fragd's whole journal of this boot (its last 400 lines), stamped
	# with the guest's uptime as this log is: every decision, one-shot and
	# held one-shot next to the samples and the run's start and end
	journalctl -b -u fragd --no-pager -p info -o short-monotonic 2>/dev/null | tail -n 400 | sed 's/^/journal: /'
	# a watchdog timeout: where fragd's threads were in the 40 s before it
	# (pipefail: awk reads to the end, where grep -m 1 or sed q would fail the pipe)
	wd=$(journalctl -b -u fragd --no-pager -o short-monotonic 2>/dev/null |
		awk '!t && /Watchdog timeout/ { t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) } END { print t }')
	[ -z "$wd" ] || awk -v t="$wd" '$1 >= t - 40 && $1 <= t + 1 { print "fragd where: " $0 }' /tmp/fragd-where.log ||
		true
	log "fragd one-shots since boot: $(journalctl -b -u fragd --no-pager 2>/dev/null | grep -c 'compact node' || true)"
	log "knobs while running: $(sort -u /tmp/knobs.during | tr '\n' ' ')"
	;;
esac

[ "$(jfield "$p1" attribution)" = ok ] || fail "attribution '$(jfield "$p1" attribution)': $(tail -n 3 /tmp/probe.err | tr '\n' ' ')"
c0=$(jfield "$p0" compact_count) c1=$(jfield "$p1" compact_count)
u0=$(jfield "$p0" compact_delay_usec) u1=$(jfield "$p1" compact_delay_usec)
pgc=$((${c1:-0} - ${c0:-0})) pgu=$((${u1:-0} - ${u0:-0}))
fragd_part=
if [ -n "$fc1" ]; then
	fragd_part="fragd_pg_compact=$(awk -v a="${fc0:-0}" -v b="$fc1" 'BEGIN { printf "%.0f", b - a }')"
	fragd_part="$fragd_part fragd_pg_compact_usec=$(awk -v a="${fu0:-0}" -v b="${fu1:-0}" 'BEGIN { printf "%.0f", (b - a) * 1e6 }')"
fi
log "counters over the run: postgres direct compactions $pgc ($pgu us), compact_stall $((st1 - st0)), pgscan_kswapd $((ks1 - ks0)), compaction scanned $((sc1 - sc0))${fragd_part:+; $fragd_part}"
# bytes per order over the run; the share at order >= 6 (the WAL zero-fill's)
pc=$(awk 'FILENAME == ARGV[1] { b[$1] = $2; next } { d[$1] = $2 - b[$1]; t += d[$1]; if ($1 >= 6) l += d[$1] }
	END { for (o = 0; o <= 12; o++) if (o in d) s = s sprintf("o%d:%.0f,", o, d[o]);
	      printf "%s %.0f %.1f\n", (s == "" ? "-" : s), t, (t > 0 ? 100 * l / t : 0) }' /tmp/pc.before /tmp/pc.after)
# shellcheck disable=SC2086 # three words
set -- $pc
[ "$pc_src" != none ] || set -- - 0 0
log "page cache added by order over the run ($pc_src): ${1%,}, total $2 bytes, ${3}% at order >= 6"
[ -n "$tps" ] || fail "pgbench printed no tps"
result "policy=$POLICY fragment=$FRAGMENT seed=$SEED seconds=$SECONDS_RUN switch=$SWITCH scale=$SCALE clients=$CLIENTS sync_commit=$SYNC_COMMIT tenant=$TENANT pg_compact=$pgc pg_compact_usec=$pgu wal_segments=$wal_segments wal_zerofills=$wal_zerofills" \
	"$fragd_part compact_stall=$((st1 - st0)) pgscan_kswapd=$((ks1 - ks0)) compact_scanned=$((sc1 - sc0))" \
	"pc_src=$pc_src pc_bytes=$2 pc_large_pct=$3 pc_orders=${1%,} tps=${tps:-0}" \
	"ks_above_high=$ks_above ks_below_high=$ks_below ks_wakeup=$(echo "${ks_wakeup:-none}" | tr ' ' ',' | sed 's/,$//')"
finish
