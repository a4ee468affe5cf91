# shellcheck shell=sh
# numa.sh - two NUMA nodes (run.sh -N 2, 4G+): every per-node interface is
# there, then the churn scenario (same fvm.* parameters, fewer cycles) runs
# across both nodes, and the free order>=9 memory of each node is reported.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

nodes=0
for n in /sys/devices/system/node/node[0-9]*; do
	nodes=$((nodes + 1))
	for f in compact meminfo vmstat; do
		if [ -e "$n/$f" ]; then pass "exists $n/$f"; else fail "missing $n/$f"; fi
	done
done
if [ "$nodes" -ge 2 ]; then pass "$nodes NUMA nodes"; else fail "only $nodes NUMA node(s): boot with run.sh -N 2"; fi
if [ "$(grep -c '^Node 1' /proc/buddyinfo)" -ge 1 ]; then pass "buddyinfo has node 1"; else fail "buddyinfo lacks node 1"; fi
cat /proc/buddyinfo
[ "$FAILS" -eq 0 ] || finish

FVM_CYCLES=${FVM_CYCLES:-3}
export FVM_CYCLES
rc=0
sh /vm/scenarios/churn.sh || rc=$?
per_node() {
	awk '{ kb = 2048; for (i = 15; i <= NF; i++) { s[$2] += $i * kb; kb *= 2 } }
		END { for (n in s) printf "node%s=%dMiB ", n, s[n] / 1024 }' /proc/buddyinfo
}
log "free in order>=9 blocks per node after the run: $(per_node)"
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail "churn across nodes (rc=$rc)"
finish
