#!/bin/bash
# The page-cache signal (docs/policy.md "Page-cache demand") against copies of
# a fixture tree: fragd --once reads a daemon's trace instance (a hist
# captured in a 6.12 guest placed where the daemon keeps it) and shows the
# orders, the page cache's order and its share in text and JSON (the order
# from the watched workload's failed allocations when they are counted), and the
# large-folio target at that order; without an instance it names pagecache
# under DEGRADED; pagecache_signal=off leaves it out. The daemon on a tree
# without tracefs says why once and exports fragd_source_up{source="pagecache"} 0;
# on a tree whose tracefs is an empty directory it says tracefs is not mounted.
# The real instance (made, counted, removed) is checked in the qemu guest
# (tests/vm/guest/scenarios/pagecache.sh).
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fresh
HIST=$FRAGD_SRCDIR/tests/corpus/pagecache/vm-6.12-xfs-hist
EV=sys/kernel/tracing/instances/fragd/events/filemap/mm_filemap_add_to_page_cache
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

# 1. --once with the daemon's instance
fresh_tree once "$FIX"
mkdir -p "$T/$EV"
cp "$HIST" "$T/$EV/hist"
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>"$work/err"); rc=$?
if [ $rc = 0 ]; then pass "--once with an instance: exit 0"; else bad "--once exit $rc: $(cat "$work/err")"; fi
# 249 folios x 256 KiB = 62.25 MiB (printed 62 MiB) at order 6; 65273856 / 100818944 = 64.7 %
grep -q "order  6: 62 MiB (249 folios)" <<<"$out" && pass "text: order 6 bytes and folios" \
	|| bad "text lacks order 6: $(echo "$out" | grep -A6 'Page cache')"
grep -q "the page cache uses order 6: 64.7% of the bytes" <<<"$out" && pass "text: the order and its share" \
	|| bad "text lacks the order line: $(echo "$out" | grep -A8 'Page cache')"
grep -q "^DEGRADED" <<<"$out" && bad "degraded with an instance: $(echo "$out" | grep -A3 DEGRADED)" \
	|| pass "not degraded with an instance"
"$FRAGD" --once --dry-run --format json --root "$T" --page-size 4096 >"$work/j" 2>/dev/null
if python3 - "$work/j" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["pagecache"]
assert p["order"] == 6, p
assert abs(p["order_share"] - 0.6474) < 0.0001, p
b = p["added_bytes_by_order"]
assert b[0] == 8230 * 4096 and b[4] == 14 * 65536 and b[5] == 7 * 131072 and b[6] == 249 * 262144, b
assert j["sources"]["pagecache"] == "ok", j["sources"]
assert j["degraded"] is False, j["missing_sources"]
t = j["nodes"][0]["targets"]
assert t["order_large"] == 6, t
# one reading: no demand yet, so the database preset keeps no reserve
# (reserve_large waits for a fallback or stall)
assert t["reserve_large_kept"] is False and t["reserve_large_bytes"] > 0, t
assert t["large_target_bytes"] == 0 and t["large_target_pagecache"] is False, t
PY
then pass "json: pagecache object, the large-folio target at order 6"; else bad "json pagecache wrong"; fi
"$FRAGD" --once --dry-run --format prom --root "$T" --page-size 4096 >"$work/p" 2>/dev/null
grep -qx 'fragd_pagecache_added_bytes_total{order="6"} 65273856' "$work/p" \
	&& grep -qx 'fragd_pagecache_order 6' "$work/p" \
	&& grep -qx 'fragd_pagecache_order_share_ratio{order="6"} 0.6474' "$work/p" \
	&& grep -qx 'fragd_source_up{source="pagecache"} 1' "$work/p" \
	&& pass "prom: bytes per order, the order, its share, source up" \
	|| bad "prom: $(grep pagecache "$work/p")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$work/p" >/dev/null 2>&1 && pass "promtool accepts the page-cache families" \
		|| bad "promtool: $(promtool check metrics <"$work/p" 2>&1 | head -3)"
fi

# 1b. the watched workload's failed allocations in the instance (412 at
# order 6, 40 at 5, 2 at 3): the order is where they failed among the
# orders with a share (6; 5 and 3 have none), said so in the text
AF=sys/kernel/tracing/instances/fragd/events/kmem/mm_page_alloc
mkdir -p "$T/$AF"
cp "$FRAGD_SRCDIR/tests/corpus/pagecache/synthetic-alloc-fail-hist" "$T/$AF/hist"
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>"$work/err")
grep -q "the page cache asks at order 6: most of the watched workload's failed allocations" <<<"$out" \
	&& grep -q "64.7% of the bytes added are in folios of that order" <<<"$out" \
	&& pass "text: the order from the failures" \
	|| bad "text lacks the failures' order: $(echo "$out" | grep -A8 'Page cache') $(cat "$work/err")"
"$FRAGD" --once --dry-run --format prom --root "$T" --page-size 4096 >"$work/p" 2>/dev/null
grep -qx 'fragd_page_alloc_failures_total{order="6"} 412' "$work/p" && grep -qx 'fragd_pagecache_order 6' "$work/p" \
	&& pass "prom: the failures by order, the order" || bad "prom failures: $(grep -E 'failures|pagecache_order ' "$work/p")"
rm -rf "${T:?}/sys/kernel/tracing/instances/fragd/events/kmem"

# 2. --once without an instance: on a kernel that could have one, not
# measured but not degraded; without tracefs mounted DEGRADED names it;
# without the event (or tracefs at all) the sources name it; off: not asked for
[ -n "$T" ] && [ "$T" != / ] || exit 1
rm -rf "$T/sys/kernel/tracing/instances/fragd"
GEV=$T/sys/kernel/tracing/events/filemap/mm_filemap_add_to_page_cache
mkdir -p "$GEV"
cp "$FRAGD_SRCDIR/tests/corpus/pagecache/vm-6.12-format" "$GEV/format"
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>"$work/err")
grep -q "^Page cache: not measured (no running fragd daemon's trace instance" <<<"$out" && ! grep -q "^DEGRADED" <<<"$out" \
	&& [ ! -s "$work/err" ] && pass "--once, no daemon on a capable kernel: not measured, not degraded, nothing on stderr" \
	|| bad "no daemon: $(echo "$out" | grep -A2 -E '^(DEGRADED|Page cache)') $(cat "$work/err")"
rm -rf "${T:?}/sys/kernel/tracing"/*
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>/dev/null)
echo "$out" | grep -A3 "^DEGRADED" | grep -q "pagecache: tracefs is not mounted at '/sys/kernel/tracing'" \
	&& pass "--once, tracefs not mounted: pagecache under DEGRADED" || bad "no DEGRADED tracefs line: $out"
rm -rf "${T:?}/sys/kernel/tracing"
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>"$work/err")
# a kernel (or a tree) without the feature, as without PSI: not degraded,
# named in the sources
grep -q "^  pagecache: the kernel has no tracefs event filemap:mm_filemap_add_to_page_cache" <<<"$out" \
	&& ! grep -q "^DEGRADED" <<<"$out" && pass "--once, no tracefs event: named in the sources, not degraded" \
	|| bad "no tracefs event: $(echo "$out" | grep -E -A3 '^(DEGRADED|Sources)')"
grep -q pagecache "$work/err" && bad "--once repeats it on stderr: $(cat "$work/err")" \
	|| pass "--once: the report says it, stderr does not repeat it"
mkdir -p "$T/etc/fragd"
printf '[daemon]\npagecache_signal = off\n' >"$T/etc/fragd/fragd.conf"
out=$("$FRAGD" --once --dry-run --root "$T" --page-size 4096 2>/dev/null)
grep -q "pagecache" <<<"$out" && bad "pagecache_signal=off still reports it: $(echo "$out" | grep pagecache)" \
	|| pass "pagecache_signal=off: not read, not degraded"

# 3. the daemon without tracefs: one message, source down
fresh_tree daemon "$FIX"
write_conf
start_daemon "$T/log" --dry-run
if wait_for 10 grep -qs 'fragd_source_up{source="pagecache"} 0' "$T/prom/fragd.prom"; then
	pass "daemon without tracefs: fragd_source_up{source=\"pagecache\"} 0"
else
	bad "no pagecache source_up 0: $(grep pagecache "$T/prom/fragd.prom" 2>&1)"
fi
sleep 1.5
n=$(grep -c "Decisions degraded: no '/sys/kernel/tracing'" "$T/log")
[ "$n" = 1 ] && pass "said once why (no tracefs)" || bad "said $n times: $(grep -i pagecache "$T/log")"
# a reload retries the set-up (still no tracefs: said again, once); turned
# off, the source is no longer read nor reported
kill -HUP "$pid"
wait_for 10 grep -q "Configuration reloaded" "$T/log"
n=$(grep -c "Decisions degraded: no '/sys/kernel/tracing'" "$T/log")
[ "$n" = 2 ] && pass "a reload tries the set-up again" || bad "after a reload said $n times"
write_conf "pagecache_signal = off"
kill -HUP "$pid"
wait_for 10 test "$(grep -c 'Configuration reloaded' "$T/log")" = 2
sleep 2.5
grep -q 'source="pagecache"' "$T/prom/fragd.prom" && bad "pagecache still reported after pagecache_signal=off" \
	|| pass "reload with pagecache_signal=off: pagecache no longer reported"
stop
# 4. tracefs not mounted (the empty sysfs directory)
fresh_tree unmounted "$FIX"
mkdir -p "$T/sys/kernel/tracing"
write_conf
start_daemon "$T/log" --dry-run
wait_for 10 grep -qs 'fragd_source_up{source="pagecache"} 0' "$T/prom/fragd.prom"
grep -q "tracefs is not mounted at '/sys/kernel/tracing'" "$T/log" && pass "says tracefs is not mounted" \
	|| bad "no tracefs message: $(grep -i 'page-cache' "$T/log")"
stop
[ -z "$(ls -A "$T/sys/kernel/tracing")" ] && pass "nothing made in an unmounted tracing dir" \
	|| bad "made $(ls -A "$T/sys/kernel/tracing")"
finish
