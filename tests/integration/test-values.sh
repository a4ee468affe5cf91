#!/bin/bash
# Silent wrong values (issue 11, items 11-14), on copies of a fixture tree:
#  - impossible readings are rejected with a message naming the file and the
#    zone or node (buddyinfo counts near 2^64, zoneinfo "managed
#    99999999999", a zone on "Node 99999"), a truncated buddyinfo is named,
#    --page-size 2^32+4096 is refused;
#  - a missing zoneinfo makes --once say "degraded" in the report (text
#    and JSON) and, with --format json, on stderr (each warning once), never "target 0 B: met", and exit 3; the daemon
#    logs it at warning once, and its return at info;
#  - a learned file written from a counter that jumped is cut to the host's
#    memory; a counter jump in the daemon is a reset, logged, not learned;
#  - the daemon's fragd_compaction_scanned_pages_per_block_gained over two
#    readings is the one --once --interval gives on the same readings, and
#    the one computed here from the files.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
FIX=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented
FIX2=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-compacted
TEST_TAG=values
# shellcheck source=tests/integration/lib.sh
. "$FRAGD_SRCDIR/tests/integration/lib.sh"

once() { # once NAME [args...]: fragd --once on $T; $work/NAME.{out,err,rc}
	local name=$1; shift
	"$FRAGD" --once --root "$T" --page-size 4096 "$@" >"$work/$name.out" 2>"$work/$name.err"
	echo $? >"$work/$name.rc"
}
rc_is() { [ "$(cat "$work/$1.rc")" = "$2" ]; }
check() { # check NAME CMD...
	local name=$1; shift
	if "$@"; then pass "$name"; else bad "$name"; fi
}

# ---- item 11: impossible readings -------------------------------------------
fresh_tree huge "$FIX"
sed -i '1s/ [0-9]* $/ 18446744073709551615 /' "$T/proc/buddyinfo"
once huge
check "buddyinfo count near 2^64: rejected, exit 3" rc_is huge 3
check "buddyinfo count near 2^64: the zone is named" \
	grep -q "'/proc/buddyinfo': Node 0, zone DMA: .*reading rejected" "$work/huge.err"
check "buddyinfo count near 2^64: no score printed" bash -c '! grep -q "fragmentation score" "$1"' _ "$work/huge.out"

fresh_tree trunc "$FIX"
head -2 "$FIX/proc/buddyinfo" >"$T/proc/buddyinfo"
once trunc
# each warning once: in the text report, not again on stderr
check "truncated buddyinfo: node 1 named once, in the report" \
	test "$(cat "$work/trunc.out" "$work/trunc.err" | grep -c "'/proc/buddyinfo' has no row for node 1, which has memory")/$(grep -c "'/proc/buddyinfo' has no row for node 1" "$work/trunc.out")" = 1/1
check "truncated buddyinfo: under its heading" grep -q "Readings fragd does not trust" "$work/trunc.out"
once trunc-json --format json
check "truncated buddyinfo: --format json names node 1 on stderr" \
	grep -q "'/proc/buddyinfo' has no row for node 1, which has memory" "$work/trunc-json.err"

fresh_tree managed "$FIX"
python3 - "$T/proc/zoneinfo" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
# node 0's DMA32: managed, present and spanned all 99999999999
i = s.index("Node 0, zone    DMA32")
j = s.index("Node", i + 5)
z = re.sub(r"(spanned|present|managed)(\s+)\d+", r"\1\g<2>99999999999", s[i:j])
open(p, "w").write(s[:i] + z + s[j:])
PY
once managed
check "zoneinfo managed 99999999999: the zone is named" \
	grep -q "'/proc/zoneinfo': Node 0, zone DMA32 manages 99999999999 pages, more than MemTotal" "$work/managed.out"
check "zoneinfo managed 99999999999: no TiB target" bash -c '! grep -q "TiB" "$1"' _ "$work/managed.out"
check "zoneinfo managed 99999999999: target not measured, exit 3" \
	bash -c 'grep -q "target not measured: zoneinfo rejected as implausible" "$1" && [ "$(cat "$2")" = 3 ]' _ \
	"$work/managed.out" "$work/managed.rc"

fresh_tree node "$FIX"
sed -i 's/^Node 1,/Node 99999,/' "$T/proc/zoneinfo"
once node
check "zoneinfo Node 99999: named, not dropped silently" \
	grep -q "'/proc/zoneinfo': Node 99999, zone .*MAX_NUMNODES" "$work/node.out"

"$FRAGD" --once --root "$T" --page-size 4294971392 >/dev/null 2>"$work/ps.err"; echo $? >"$work/ps.rc"
check "--page-size 2^32+4096: refused (exit 2), not truncated to 4096" \
	bash -c '[ "$(cat "$1")" = 2 ] && grep -q "power of two from 4096 to 262144" "$2"' _ "$work/ps.rc" "$work/ps.err"
for ps in 4096 16384 65536 262144; do
	"$FRAGD" --once --root "$T" --page-size $ps >/dev/null 2>"$work/ps.err"
	check "--page-size $ps accepted" bash -c '! grep -q "not a base page size" "$1"' _ "$work/ps.err"
done

# ---- item 13: zoneinfo unreadable: degraded, said, exit 3 ----------------------
fresh_tree nozi "$FIX"
rm "$T/proc/zoneinfo"
once nozi
once nozi-json --format json
check "no zoneinfo: exit 3" rc_is nozi 3
check "no zoneinfo: warning on stderr with --format json" \
	grep -q "Decisions degraded: zoneinfo unreadable (No such file or directory)" "$work/nozi-json.err"
# each warning once: the text report has it under DEGRADED, stderr does not repeat it
check "no zoneinfo: the text says what it disables once, stdout and stderr together" \
	test "$(cat "$work/nozi.out" "$work/nozi.err" | grep -c "reserve targets, watermarks and node sizes not measured")" = 1
check "no zoneinfo: never 'free of 0 B' nor 'target 0 B: met'" \
	bash -c '! grep -Eq "free of 0 B|target 0 B|targets are met" "$1"' _ "$work/nozi.out"
check "no zoneinfo: 'target not measured' and DEGRADED in the text" \
	bash -c 'grep -q "target not measured: zoneinfo unreadable" "$1" && grep -q "^DEGRADED" "$1"' _ "$work/nozi.out"
check "no zoneinfo: json degraded, missing_sources, targets null" python3 - "$work/nozi-json.out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["degraded"] is True, j["degraded"]
assert [m["source"] for m in j["missing_sources"]] == ["zoneinfo"], j["missing_sources"]
assert "not measured" in j["missing_sources"][0]["disables"]
for n in j["nodes"]:
    t = n["targets"]
    assert t["measured"] is False and t["thp_target_bytes"] is None and t["reserve_large_bytes"] is None, t
PY
check "no zoneinfo: json exit 3" rc_is nozi-json 3
once nozi-prom --format prom
check "no zoneinfo: fragd_source_up{source=\"zoneinfo\"} 0" grep -q '^fragd_source_up{source="zoneinfo"} 0$' "$work/nozi-prom.out"
fresh_tree full "$FIX"
once full --format json
check "all sources: not degraded, exit 0" python3 -c '
import json, sys; j = json.load(open(sys.argv[1])); assert j["degraded"] is False and j["missing_sources"] == [] and j["problems"] == []
' "$work/full.out"
check "all sources: exit 0" rc_is full 0

# the daemon: a warning when zoneinfo goes, info when it is back, once each
fresh_tree dz "$FIX"
write_conf
start_daemon "$T/log" --dry-run
wait_for 15 grep -q "running" "$T/log" || bad "daemon did not start: $(tail -3 "$T/log")"
mv "$T/proc/zoneinfo" "$T/zoneinfo.away"
wait_for 10 grep -q "Decisions degraded: zoneinfo unreadable" "$T/log"
sleep 2.5
mv "$T/zoneinfo.away" "$T/proc/zoneinfo"
wait_for 10 grep -q "zoneinfo readable again" "$T/log"
stop
check "daemon: zoneinfo gone: one warning" test "$(grep -c "<4>.*Decisions degraded: zoneinfo unreadable\|Decisions degraded: zoneinfo unreadable" "$T/log")" = 1
check "daemon: zoneinfo back: one info line" test "$(grep -c "zoneinfo readable again" "$T/log")" = 1

# the daemon holds every knob while zoneinfo is gone (targets not measured):
# a raised compaction_proactiveness is not decayed toward its baseline (with
# decay_after = 0, dwell = 0 the old code lowered it within a tick or two),
# said once; resumed when zoneinfo is back
fresh_tree hold "$FIX"
write_conf "[policy]" "reserve_thp = 20%" "reserve_always = yes" "decay_after = 0" \
	'[knob "compaction_proactiveness"]' "dwell = 0" "reversal_cooldown = 0"
pro() { cat "$T/proc/sys/vm/compaction_proactiveness"; }
start_daemon "$T/log"
wait_for 15 grep -q "running" "$T/log" || bad "daemon did not start: $(tail -3 "$T/log")"
wait_for 10 test "$(pro)" -gt 0 || bad "hold: compaction_proactiveness never raised: $(tail -3 "$T/log")"
sleep 2
mv "$T/proc/zoneinfo" "$T/zoneinfo.away"
wait_for 5 grep -q "Decisions held: zoneinfo unreadable" "$T/log"
raised=$(pro)
sleep 4
held=$(pro)
mv "$T/zoneinfo.away" "$T/proc/zoneinfo"
wait_for 10 grep -q "Decisions resumed: zoneinfo is back" "$T/log"
stop
check "daemon: zoneinfo gone: compaction_proactiveness held at $raised (read $held after 4 s)" \
	test "$held" = "$raised" -a "$raised" -gt 0
check "daemon: zoneinfo gone: 'Decisions held: zoneinfo unreadable' said once" \
	test "$(grep -c "Decisions held: zoneinfo unreadable" "$T/log")" = 1
check "daemon: zoneinfo back: 'Decisions resumed' said once" \
	test "$(grep -c "Decisions resumed: zoneinfo is back" "$T/log")" = 1
check "daemon: the knob is restored on stop" test "$(pro)" = 0

# ---- item 12: counters that jump, learned files beyond the host --------------
fresh_tree jump "$FIX"
write_conf
start_daemon "$T/log"
wait_for 15 grep -q "running" "$T/log" || bad "daemon did not start: $(tail -3 "$T/log")"
sed -i 's/^thp_fault_alloc .*/thp_fault_alloc 18446744073709551615/' "$T/proc/vmstat"
wait_for 10 grep -q "Counter thp_fault_alloc went from .* to 18446744073709551615" "$T/log"
sleep 2
stop
check "daemon: thp_fault_alloc to 2^64-1 is a reset, logged" \
	grep -q "Counter thp_fault_alloc went from .* to 18446744073709551615 .*taken as a reset" "$T/log"
peak=$(sed -n 's/^peak_bytes=//p' "$T/var/lib/fragd/learned" 2>/dev/null)
check "daemon: no 4096 PiB burst learned or persisted (peak '${peak:-none}')" \
	test -z "$peak" -o "${peak:-0}" -le $((4015116 * 1024))

fresh_tree bigfile "$FIX"
mkdir -p "$T/var/lib/fragd"
printf 'version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%s\npeak_realtime_usec=%s\n' \
	4611686018427387903 $(( ($(date +%s) - 60) * 1000000 )) >"$T/var/lib/fragd/learned"
once bigfile --format json
check "learned file beyond the host: warning, capped" \
	grep -q "says a 4611686018427387903-byte burst, more than this host's" "$work/bigfile.err"
check "learned file beyond the host: need <= MemTotal" python3 -c '
import json, sys; j = json.load(open(sys.argv[1])); l = j["learned"]
assert l["need_bytes"] <= 4015116 * 1024, l
for n in j["nodes"]: assert n["targets"]["thp_target_bytes"] <= n["memory_bytes"], n["targets"]
' "$work/bigfile.out"

# ---- item 14: the daemon and --once agree on two readings --------------------
# fragmented -> compacted: compact_*_scanned grow by 293279 + 65546 pages,
# order>=9 blocks (in 2 MiB units) from 77 to 1417
want=$(python3 - "$FIX" "$FIX2" <<'PY'
import sys
def blocks(root):
    t = 0
    for l in open(root + "/proc/buddyinfo"):
        c = [int(x) for x in l.split()[4:]]
        t += sum(n << (k - 9) for k, n in enumerate(c) if k >= 9)
    return t
def scanned(root):
    v = dict(l.split() for l in open(root + "/proc/vmstat"))
    return int(v["compact_migrate_scanned"]) + int(v["compact_free_scanned"])
a, b = sys.argv[1], sys.argv[2]
print("%.6f" % ((scanned(b) - scanned(a)) / (blocks(b) - blocks(a))))
PY
)
swap() { # the second reading, each file replaced whole
	cp "$FIX2/proc/buddyinfo" "$T/proc/buddyinfo.new" && mv "$T/proc/buddyinfo.new" "$T/proc/buddyinfo"
	cp "$FIX2/proc/vmstat" "$T/proc/vmstat.new" && mv "$T/proc/vmstat.new" "$T/proc/vmstat"
}
eff() { sed -n 's/^fragd_compaction_scanned_pages_per_block_gained //p' "$1"; }
same() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-3 * b)' "$1" "$2"; }

fresh_tree eff "$FIX"
write_conf
start_daemon "$T/log" --dry-run
wait_for 15 test -s "$T/prom/fragd.prom" || bad "no textfile: $(tail -3 "$T/log")"
kill -STOP "$pid"; swap; kill -CONT "$pid"
wait_for 10 grep -q "^fragd_compaction_scanned_pages_per_block_gained " "$T/prom/fragd.prom"
daemon_eff=$(eff "$T/prom/fragd.prom")
stop

fresh_tree effonce "$FIX"
"$FRAGD" --once --interval 5 --format prom --root "$T" --page-size 4096 >"$work/effonce.out" 2>"$work/effonce.err" &
opid=$!
# the second reading goes in once the first is taken: --once sleeps its
# interval after it (a fixed 1.5 s was too short on a loaded host: the swap
# came before the first reading, and both readings were the second)
asleep() { # the process sleeps in its interval (wchan 0: not shown, state alone)
	local st w
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	w=$(cat "/proc/$1/wchan" 2>/dev/null)
	[ "$st" = S ] && case $w in *sleep* | 0) true ;; *) false ;; esac
}
wait_for 20 asleep "$opid" || bad "--once --interval never slept its interval: $(cat "/proc/$opid/wchan" 2>/dev/null)"
swap
wait "$opid"
once_eff=$(eff "$work/effonce.out")
check "daemon's blocks-gained cost is the files' ($daemon_eff vs $want)" same "${daemon_eff:-0}" "$want"
check "--once --interval gives the same ($once_eff vs $want)" same "${once_eff:-0}" "$want"

finish
