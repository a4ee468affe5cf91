#!/bin/bash
# A real prometheus-node-exporter serves fragd.prom through its textfile
# collector: start it on 127.0.0.1:<free port> with only that collector and
# --collector.textfile.directory pointed at a temp dir holding the 2-node
# golden exposition (tests/golden, what metrics_write() puts in fragd.prom),
# scrape /metrics with curl, and check that every fragd family arrives,
# node_textfile_scrape_error is 0 and the file's mtime is exported (the
# "fragd not updating" alert uses it). A broken file must then raise
# node_textfile_scrape_error to 1, so the check above is not vacuous.
# Bounded: every wait has a deadline; the exporter is killed on exit.
set -uo pipefail
: "${FRAGD_SRCDIR:?}"

NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
if [ -z "$NE" ] || ! command -v curl >/dev/null; then
	echo "SKIP test-node-exporter: needs prometheus-node-exporter and curl (tests/integration/packages.txt)"
	exit 0
fi
golden="$FRAGD_SRCDIR/tests/golden/vm-6.1-x86_64-2node-compacted.prom"
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
pass() { echo "PASS node-exporter: $*"; }
failed() { echo "FAIL node-exporter: $*"; fail=1; }

# the textfile directory lies inside the tree the daemon below runs against
# (--root contains textfile_dir: it is /textfile there)
mkdir -p "$tmp/root/textfile"
ln -s root/textfile "$tmp/textfile"
cp "$golden" "$tmp/textfile/fragd.prom"

start() { # start [EXTRA ARGS...] -> sets pid and port, returns 0 when /metrics answers
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$NE" --web.listen-address="127.0.0.1:$port" \
		--collector.textfile.directory="$tmp/textfile" "${@:---collector.disable-defaults}" \
		--collector.textfile >"$tmp/ne.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do # 10 s
		if curl -fsS --max-time 2 "http://127.0.0.1:$port/metrics" -o /dev/null 2>/dev/null; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

ok=
for attempt in 1 2 3; do # a free port can be taken between the probe and the bind
	if start; then ok=1; break; fi
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
done
if [ -z "$ok" ]; then
	failed "exporter did not come up: $(tail -5 "$tmp/ne.log")"
	exit 1
fi
pass "listening on 127.0.0.1:$port"

scrape() { curl -fsS --max-time 5 "http://127.0.0.1:$port/metrics" -o "$1"; }
if ! scrape "$tmp/scrape1"; then
	failed "scrape failed"; exit 1
fi

if grep -qx 'node_textfile_scrape_error 0' "$tmp/scrape1"; then
	pass "node_textfile_scrape_error 0"
else
	failed "node_textfile_scrape_error is not 0: $(grep -i 'textfile' "$tmp/ne.log" | tail -3)"
fi
if grep -Eq '^node_textfile_mtime_seconds\{file="([^"]*/)?fragd\.prom"\} [0-9.e+]+$' "$tmp/scrape1"; then
	pass "node_textfile_mtime_seconds for fragd.prom"
else
	failed "no node_textfile_mtime_seconds for fragd.prom"
fi
missing=0
for fam in $(sed -n 's/^# TYPE \(fragd_[a-z0-9_]*\) .*/\1/p' "$golden"); do
	if ! grep -q "^# TYPE $fam " "$tmp/scrape1" || ! grep -Eq "^$fam(\{| )" "$tmp/scrape1"; then
		failed "family $fam missing from the scrape"; missing=1
	fi
done
[ $missing -eq 0 ] && pass "all $(grep -c '^# TYPE fragd_' "$golden") fragd families served"
# every fragd sample arrives with the same labels and value (node_exporter
# re-serialises: label order and float notation change)
if python3 - "$golden" "$tmp/scrape1" >"$tmp/diff" <<'PY'
import re, sys
def samples(path):
    out = {}
    for line in open(path):
        if not line.startswith("fragd_"):
            continue
        m = re.match(r'([a-z0-9_]+)(\{(.*)\})? (\S+)$', line.rstrip("\n"))
        labels = tuple(sorted(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m[3] or "")))
        out[(m[1], labels)] = float(m[4])
    return out
want, got = samples(sys.argv[1]), samples(sys.argv[2])
bad = [k for k in want if k not in got or got[k] != want[k]] + [k for k in got if k not in want]
for k in bad[:20]:
    print("   ", k, want.get(k), got.get(k))
print(len(want))
sys.exit(1 if bad else 0)
PY
then
	pass "all $(tail -1 "$tmp/diff") fragd samples identical"
else
	failed "samples differ (series, golden value, scraped value):"; head -20 "$tmp/diff"
fi

# negative control: a broken file must be reported
printf 'fragd_broken{ 1\n' >"$tmp/textfile/broken.prom"
if scrape "$tmp/scrape2" && grep -qx 'node_textfile_scrape_error 1' "$tmp/scrape2"; then
	pass "a broken .prom file raises node_textfile_scrape_error"
else
	failed "broken .prom file not detected: the scrape_error check proves nothing"
fi
# ... and fragd's file keeps its mtime: the error is another file's
# (FragdTextfileUnreadable is scoped to fragd.prom by that mtime)
if grep -Eq '^node_textfile_mtime_seconds\{file="([^"]*/)?fragd\.prom"\}' "$tmp/scrape2"; then
	pass "another broken .prom file: fragd.prom's mtime still exported"
else
	failed "another broken .prom file hides fragd.prom's mtime"
fi
rm -f "$tmp/textfile/broken.prom"
# a broken fragd.prom: scrape_error 1 and no mtime for it, which is what
# FragdTextfileUnreadable (monitoring/fragd.rules.yml) looks for
cp "$tmp/textfile/fragd.prom" "$tmp/fragd.prom.good"
printf 'fragd_broken{ 1\n' >>"$tmp/textfile/fragd.prom"
if scrape "$tmp/scrape2b" && grep -qx 'node_textfile_scrape_error 1' "$tmp/scrape2b" &&
	! grep -Eq '^node_textfile_mtime_seconds\{file="([^"]*/)?fragd\.prom"\}' "$tmp/scrape2b"; then
	pass "a broken fragd.prom: scrape_error 1 and no mtime for fragd.prom"
else
	failed "a broken fragd.prom: $(grep -E '^node_textfile_(scrape_error|mtime)' "$tmp/scrape2b")"
fi
mv "$tmp/fragd.prom.good" "$tmp/textfile/fragd.prom"

# the running daemon: fragd itself writes fragd.prom into the directory the
# exporter serves (against a copy of a fixture tree), and a scrape finds it
if [ -n "${FRAGD:-}" ] && [ -x "$FRAGD" ]; then
	rm -f "$tmp/textfile/fragd.prom"
	cp -r "$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-2node-fragmented/." "$tmp/root/"
	"$FRAGD" --root "$tmp/root" --page-size 4096 --set daemon.interval=1s \
		--set "daemon.textfile_dir=/textfile" >"$tmp/fragd.log" 2>&1 &
	fpid=$!
	for _ in $(seq 50); do [ -s "$tmp/textfile/fragd.prom" ] && break; sleep 0.1; done
	sleep 1.5 # a second tick: rates and efficiency families appear
	if scrape "$tmp/scrape3" && grep -qx 'node_textfile_scrape_error 0' "$tmp/scrape3" &&
		grep -q '^fragd_build_info{' "$tmp/scrape3" && grep -q '^fragd_zone_free_bytes{' "$tmp/scrape3" &&
		grep -q '^fragd_knob_value{' "$tmp/scrape3" && grep -q '^fragd_last_tick_timestamp_seconds ' "$tmp/scrape3"; then
		pass "the running daemon's fragd.prom is served ($(grep -c '^fragd_' "$tmp/scrape3") fragd samples, scrape_error 0)"
	else
		failed "daemon-written fragd.prom not served cleanly: $(grep -E 'textfile_scrape_error|fragd_build' "$tmp/scrape3" | head -3); $(tail -3 "$tmp/fragd.log")"
	fi
	kill -TERM "$fpid"; wait "$fpid" 2>/dev/null
fi

# fragd does not repeat what node_exporter's default collectors serve: the
# exporter with its defaults on a fixture's /proc and /sys (the pressure
# fixture) serves the memory pressure totals, node_pressure_memory_*, with
# the fixture's values, and fragd's exposition of the same tree, served
# beside them, has no family of its own for them (it keeps the avg10
# node_exporter lacks, and the per-cgroup totals)
if [ -n "${FRAGD:-}" ] && [ -x "$FRAGD" ]; then
	pfix=$FRAGD_SRCDIR/tests/fixtures/vm-6.1-x86_64-1node-pressure
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
	"$FRAGD" --once --format prom --root "$pfix" --page-size 4096 >"$tmp/textfile/fragd.prom" 2>"$tmp/once.err"
	ok=
	for attempt in 1 2 3; do
		if start --path.procfs="$pfix/proc" --path.sysfs="$pfix/sys"; then ok=1; break; fi
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
	done
	if [ -z "$ok" ] || ! scrape "$tmp/scrape4"; then
		failed "exporter with its default collectors did not come up: $(tail -5 "$tmp/ne.log")"
	elif grep -qx 'node_pressure_memory_waiting_seconds_total 37.169358' "$tmp/scrape4" &&
		grep -qx 'node_pressure_memory_stalled_seconds_total 29.331708' "$tmp/scrape4" &&
		grep -qx 'node_textfile_scrape_error 0' "$tmp/scrape4" && grep -q '^fragd_build_info{' "$tmp/scrape4" &&
		! grep -q '^fragd_memory_pressure_stalled_seconds_total' "$tmp/scrape4" &&
		grep -q '^fragd_memory_pressure_avg10_ratio{kind="some"} 0.7002$' "$tmp/scrape4"; then
		pass "memory pressure totals served once, by node_exporter (node_pressure_memory_*), fragd keeps avg10"
	else
		failed "memory pressure: $(grep -E '^(node_pressure_memory|fragd_memory_pressure|node_textfile_scrape_error)' "$tmp/scrape4")"
	fi
fi
exit $fail
