#!/bin/bash
# fragd's overhead on this host, next to node_exporter reading the same
# sources (make bench-overhead; see bench/README.md "Overhead").
#
# Two phases, each with fresh processes, all measured in the same window:
#   idle   DURATION seconds (default 600)
#   churn  CHURN_DURATION seconds (default 300; 0 skips it) while bench-churn
#          allocates, touches and frees CHURN_SIZE_MIB (default 1024, <= 2048)
#          of its own anonymous memory
# In each phase four processes run side by side:
#   fragd --dry-run at its default interval, and at daemon.interval=1s
#     (empty configuration file, no fleet files; nothing is written to /proc,
#     /sys, /run or /var). As in production, the textfile dir is on a disk file
#     system (a temp dir under TMPDIR, default /tmp: check it is not tmpfs) and
#     the runtime dir on tmpfs (/dev/shm, as /run is)
#   prometheus-node-exporter on 127.0.0.1:<free port> with only the buddyinfo,
#     vmstat, zoneinfo and pressure collectors, scraped with curl at fragd's
#     default interval, and a second one scraped every second
# Per process, over the measurement window (after start-up: fragd's first tick
# and node_exporter's first answer are outside it):
#   cpu_ms        utime+stime (/proc/PID/stat, 10 ms resolution)
#   cpu_ms_exact  sum of the threads' run time (/proc/PID/task/*/schedstat, ns)
#   rss_peak_kib, rss_kib  VmHWM, VmRSS (/proc/PID/status) at the end
#   wakeups_per_min  voluntary+nonvoluntary context switches per minute,
#                 summed over the threads' /proc/PID/task/TID/status
#   fragd: ticks, close_ticks (ticks on active_interval, the close watch after
#          THP faults or stalls), tick_us p50/p90/max ("tick N: ... us" at debug level; the
#          first tick, which also reads pagetypeinfo and every THP file, is
#          first_tick_us), psi_events ("memory pressure event" lines)
#   node_exporter: scrapes, scrape_us p50/p90/max (curl's time_total)
# One summary line per measurement on stdout and in $OUT; the same as a
# results file (bench/tables.py: the command, commit and machine in its
# header lines) in ${OUT%.txt}.tsv, to copy to bench/results/overhead.tsv.
#
# Env: FRAGD, CHURN (bench-churn), DURATION, CHURN_DURATION, CHURN_SIZE_MIB,
# OUT (default build/bench-overhead.txt), NODE_EXPORTER.
set -uo pipefail
: "${FRAGD:?path to fragd}"
DURATION=${DURATION:-600}
CHURN_DURATION=${CHURN_DURATION:-300}
CHURN_SIZE_MIB=${CHURN_SIZE_MIB:-1024}
OUT=${OUT:-build/bench-overhead.txt}
NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter || true)}

die() { echo "overhead: $*" >&2; exit 1; }
[ -x "$FRAGD" ] || die "FRAGD=$FRAGD is not executable"
[ -n "$NE" ] || die "needs prometheus-node-exporter"
command -v curl >/dev/null || die "needs curl"
command -v python3 >/dev/null || die "needs python3 (free port)"
[ "$(id -u)" = 0 ] || echo "overhead: not root: fragd cannot read /proc/pagetypeinfo; figures are for an unprivileged run" >&2
if [ "$CHURN_DURATION" != 0 ]; then
	: "${CHURN:?path to bench-churn}"
	[ -x "$CHURN" ] || die "CHURN=$CHURN is not executable"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fragd-overhead.XXXXXX")
shm=$(mktemp -d /dev/shm/fragd-overhead.XXXXXX) || die "needs /dev/shm"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}
trap 'cleanup; rm -rf "$tmp" "$shm"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$(dirname "$OUT")"
: >"$OUT"
: >"$tmp/empty.conf"

# fragd's default interval, in seconds, from its own configuration report
def_iv=$("$FRAGD" --check-config -c "$tmp/empty.conf" --set fleet.fleet_dir= 2>/dev/null |
	awk '$1 == "interval" { print $3; exit }')
case $def_iv in
*ms) def_iv=$(awk -v v="${def_iv%ms}" 'BEGIN { print v / 1000 }') ;;
*min) def_iv=$(( ${def_iv%min} * 60 )) ;;
*s) def_iv=${def_iv%s} ;;
*) die "cannot read fragd's default interval ('$def_iv')" ;;
esac

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_for() { # wait_for SECONDS CMD...
	local t=$(( $1 * 10 )); shift
	while [ $t -gt 0 ]; do "$@" && return 0; sleep 0.1; t=$((t - 1)); done
	return 1
}

start_fragd() { # start_fragd NAME [--set ...]: pid in fpid[NAME]
	local name=$1; shift
	mkdir -p "$tmp/$name/prom" "$shm/$name"
	"$FRAGD" --dry-run -c "$tmp/empty.conf" --set fleet.fleet_dir= \
		--set daemon.textfile_dir="$tmp/$name/prom" --set daemon.runtime_dir="$shm/$name" \
		--log-level debug "$@" >"$tmp/$name/log" 2>&1 &
	fpid[$name]=$!
	pids+=($!)
	wait_for 30 grep -q "running in dry-run mode" "$tmp/$name/log" ||
		die "fragd $name did not start: $(tail -5 "$tmp/$name/log")"
}

start_ne() { # start_ne NAME: pid in fpid[NAME], port in nport[NAME]
	local name=$1 port
	mkdir -p "$tmp/$name"
	for _ in 1 2 3; do # a free port can be taken between the probe and the bind
		port=$(free_port)
		"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
			--collector.buddyinfo --collector.vmstat --collector.zoneinfo --collector.pressure \
			>"$tmp/$name/log" 2>&1 &
		fpid[$name]=$!
		pids+=($!)
		if wait_for 10 curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$port/metrics"; then
			nport[$name]=$port
			return 0
		fi
		kill "${fpid[$name]}" 2>/dev/null
	done
	die "node_exporter $name did not answer: $(tail -5 "$tmp/$name/log")"
}

scrape_loop() { # scrape_loop NAME INTERVAL: curl's time_total per scrape, one a line
	while :; do
		curl -fsS --max-time 10 -o /dev/null -w '%{time_total}\n' \
			"http://127.0.0.1:${nport[$1]}/metrics" >>"$tmp/$1/scrapes" 2>/dev/null ||
			echo fail >>"$tmp/$1/scrapes"
		sleep "$2"
	done
}

# sample PID -> "cpu_ticks sched_ns ctxsw hwm_kib rss_kib"
sample() {
	local pid=$1 st ticks ns=0 cs=0 f v
	st=$(<"/proc/$pid/stat") || return 1
	st=${st##*) }
	# shellcheck disable=SC2086 # split the fields on purpose
	set -- $st
	ticks=$(( ${12} + ${13} )) # fields 14 and 15 of /proc/PID/stat
	for f in /proc/"$pid"/task/*; do
		read -r v _ <"$f/schedstat" 2>/dev/null && ns=$(( ns + v ))
		v=$(awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }' "$f/status" 2>/dev/null)
		cs=$(( cs + ${v:-0} ))
	done
	echo "$ticks $ns $cs $(awk '/^VmHWM:/ { h = $2 } /^VmRSS:/ { r = $2 } END { print h, r }' "/proc/$pid/status")"
}

hostcpu() { awk '/^cpu / { idle = $5 + $6; t = 0; for (i = 2; i <= NF; i++) t += $i; print t, idle }' /proc/stat; }

# quantiles of a file of numbers: "p50 p90 max mean n"
stats() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { if (!NR) { print "- - - - 0"; exit }
		      i50 = int((NR - 1) * 0.5) + 1; i90 = int((NR - 1) * 0.9) + 1
		      printf "%d %d %d %d %d\n", v[i50], v[i90], v[NR], s / NR, NR }'
}

emit() { echo "$*" | tee -a "$OUT"; }

# report PHASE NAME KIND INTERVAL: one summary line from the samples and logs
report() {
	local phase=$1 name=$2 kind=$3 iv=$4 a b window p50 p90 max mean n line
	read -r -a a <<<"${s0[$name]}"
	read -r -a b <<<"${s1[$name]}"
	window=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	line=$(awk -v w="$window" -v c0="${a[0]}" -v c1="${b[0]}" -v n0="${a[1]}" -v n1="${b[1]}" \
		-v x0="${a[2]}" -v x1="${b[2]}" -v hz="$(getconf CLK_TCK)" 'BEGIN {
		m = w / 60
		cpu = (c1 - c0) * 1000 / hz; exact = (n1 - n0) / 1e6
		printf "window_s=%s cpu_ms=%d cpu_ms_exact=%.1f cpu_ms_per_min=%.2f cpu_pct=%.4f wakeups_per_min=%.1f",
			w, cpu, exact, exact / m, exact / (w * 10), (x1 - x0) / m }')
	line="phase=$phase proc=$kind interval_s=$iv $line rss_peak_kib=${b[3]} rss_kib=${b[4]}"
	if [ "$kind" = fragd ]; then
		# ticks inside the window: the tick lines logged after the t0 sample
		tail -n +"$(( ${tickl[$name]} + 1 ))" "$tmp/$name/log" |
			sed -n 's/.*: tick \([0-9]*\): .*, \([0-9]*\) us, next in .*/\2/p' >"$tmp/$name/ticks"
		read -r p50 p90 max mean n < <(stats "$tmp/$name/ticks")
		local first psi
		first=$(sed -n 's/.*: tick 1: .*, \([0-9]*\) us, next in .*/\1/p' "$tmp/$name/log")
		psi=$(tail -n +"$(( ${tickl[$name]} + 1 ))" "$tmp/$name/log" | grep -c "memory pressure event")
		# ticks followed by a shorter interval than the configured one:
		# the close watch after THP faults or stalls (active_interval)
		local close
		close=$(tail -n +"$(( ${tickl[$name]} + 1 ))" "$tmp/$name/log" |
			sed -n 's/.*: tick [0-9]*: .*, next in \([0-9.]*\) s$/\1/p' | awk -v iv="$iv" '$1 < iv { n++ } END { print n + 0 }')
		line="$line ticks=$n close_ticks=$close tick_us_p50=$p50 tick_us_p90=$p90 tick_us_max=$max tick_us_mean=$mean first_tick_us=$first psi_events=$psi"
	else
		local fails
		fails=$(grep -c fail "$tmp/$name/scrapes")
		grep -v fail "$tmp/$name/scrapes" | awk '{ printf "%d\n", $1 * 1e6 }' >"$tmp/$name/us"
		read -r p50 p90 max mean n < <(stats "$tmp/$name/us")
		line="$line scrapes=$n scrape_fail=$fails scrape_us_p50=$p50 scrape_us_p90=$p90 scrape_us_max=$max scrape_us_mean=$mean"
	fi
	emit "$line"
}

run_phase() { # run_phase PHASE SECONDS
	local phase=$1 secs=$2 n churn_pid="" sl
	declare -gA fpid=() nport=() s0=() s1=() tickl=()
	echo "overhead: phase $phase, $secs s: starting fragd x2 and node_exporter x2" >&2
	rm -rf "${tmp:?}"/{fragd,ne}-* "${shm:?}"/fragd-*
	start_fragd fragd-def
	start_fragd fragd-1s --set daemon.interval=1s
	start_ne ne-def
	start_ne ne-1s
	sleep 1
	local -a loops=()
	for n in fragd-def fragd-1s ne-def ne-1s; do
		s0[$n]=$(sample "${fpid[$n]}") || die "$n died during start-up"
		[ "${n#fragd}" != "$n" ] && tickl[$n]=$(wc -l <"$tmp/$n/log")
	done
	t0=$(awk '{ print $1 }' /proc/uptime)
	read -r h0 hi0 < <(hostcpu)
	scrape_loop ne-def "$def_iv" & loops+=($!); pids+=($!)
	scrape_loop ne-1s 1 & loops+=($!); pids+=($!)
	if [ "$phase" = churn ]; then
		"$CHURN" --size "$CHURN_SIZE_MIB" --seconds "$secs" >"$tmp/churn.log" 2>&1 &
		churn_pid=$!
		pids+=($!)
	fi
	for (( sl = 0; sl < secs; sl++ )); do
		sleep 1
		for n in fragd-def fragd-1s ne-def ne-1s; do
			kill -0 "${fpid[$n]}" 2>/dev/null || die "$n died: $(tail -5 "$tmp/$n/log")"
		done
	done
	for n in fragd-def fragd-1s ne-def ne-1s; do s1[$n]=$(sample "${fpid[$n]}") || die "$n died"; done
	t1=$(awk '{ print $1 }' /proc/uptime)
	read -r h1 hi1 < <(hostcpu)
	for n in "${loops[@]}"; do kill "$n" 2>/dev/null; wait "$n" 2>/dev/null; done
	if [ -n "$churn_pid" ]; then
		wait "$churn_pid"
		echo "overhead: $(cat "$tmp/churn.log")" >&2
	fi
	report "$phase" fragd-def fragd "$def_iv"
	report "$phase" ne-def node_exporter "$def_iv"
	report "$phase" fragd-1s fragd 1
	report "$phase" ne-1s node_exporter 1
	emit "phase=$phase proc=host window_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" \
		"cpu_busy_pct=$(awk -v t="$((h1 - h0))" -v i="$((hi1 - hi0))" 'BEGIN { printf "%.1f", t ? 100 * (t - i) / t : 0 }')" \
		"loadavg=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /) ncpu=$(nproc) kernel=$(uname -r)" \
		"textfile_fs=$(stat -f -c %T "$tmp")" \
		"$([ -n "$churn_pid" ] && sed -n 's/^bench-churn //p' "$tmp/churn.log")"
	cleanup
}

run_phase idle "$DURATION"
[ "$CHURN_DURATION" != 0 ] && run_phase churn "$CHURN_DURATION"
echo "overhead: summary in $OUT" >&2

# the summary lines as a results file: a row per process and interval, the
# host lines in the machine header
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo "not a git checkout")
git -C "$(dirname "$0")" diff --quiet HEAD 2>/dev/null || commit="$commit with uncommitted changes"
python3 - "$OUT" "${OUT%.txt}.tsv" "make bench-overhead DURATION=$DURATION CHURN_DURATION=$CHURN_DURATION" \
	"$commit" "$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)" \
	"$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")" "$(date -u +%Y-%m-%dT%H:%MZ)" <<'PY'
import sys
src, dst, command, commit, mem, os_name, date = sys.argv[1:]
lines = [dict(kv.split("=", 1) for kv in l.split() if "=" in kv) for l in open(src) if l.strip()]
rows = [l for l in lines if l.get("proc") != "host"]
hosts = [l for l in lines if l.get("proc") == "host"]
cols = ["phase", "proc", "interval_s", "window_s", "cpu_ms_exact", "cpu_ms_per_min", "cpu_pct", "wakeups_per_min",
        "rss_peak_mib", "ticks", "close_ticks", "per_tick_us_p50", "per_tick_us_p90", "first_tick_us"]
for r in rows:
    r["rss_peak_mib"] = f"{int(r.get('rss_peak_kib', 0)) / 1024:.1f}"
    r["per_tick_us_p50"] = r.get("tick_us_p50") or r.get("scrape_us_p50", "")
    r["per_tick_us_p90"] = r.get("tick_us_p90") or r.get("scrape_us_p90", "")
    r["ticks"] = r.get("ticks") or r.get("scrapes", "")
h = hosts[0] if hosts else {}
machine = (f"{h.get('ncpu', '?')} CPUs, {mem}, Linux {h.get('kernel', '?')}, {os_name}, textfile directory on "
           f"{h.get('textfile_fs', '?')}; " + "; ".join(f"{x['phase']}: host {x.get('cpu_busy_pct', '?')} % busy, "
                                                         f"load {x.get('loadavg', '?')}" for x in hosts))
with open(dst, "w") as f:
    for k, v in [("title", "fragd --dry-run beside node_exporter (buddyinfo, vmstat, zoneinfo, pressure collectors) on the bench host"),
                 ("shape", "overhead"), ("kernel", "host"), ("command", command), ("commit", commit),
                 ("machine", machine), ("date", date), ("group", "phase,proc:process,interval_s:every s"),
                 ("columns", "cpu_ms_per_min:CPU ms per minute,rss_peak_mib:RSS peak MiB,wakeups_per_min:wakeups per minute,"
                             "ticks:ticks or scrapes,close_ticks:close-watch ticks,per_tick_us_p50:per tick or scrape us p50,"
                             "per_tick_us_p90:p90")]:
        f.write(f"# {k}: {v}\n")
    f.write("\t".join(cols) + "\n")
    for r in rows:
        f.write("\t".join(str(r.get(c, "")) for c in cols) + "\n")
PY
echo "overhead: results file in ${OUT%.txt}.tsv" >&2
