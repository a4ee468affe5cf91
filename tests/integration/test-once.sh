#!/bin/bash
# fragd --once against every fixture root: the binary runs, the JSON has the
# documented keys, and its numbers match what this script computes itself
# from the raw buddyinfo/zoneinfo (kernel formulas, written again in Python).
set -euo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
fail=0
for root in "$FRAGD_SRCDIR"/tests/fixtures/*/; do
	[ -f "$root/proc/buddyinfo" ] || continue
	name=$(basename "$root")
	out=$(mktemp)
	if ! "$FRAGD" --once --dry-run --format json --root "$root" --page-size 4096 >"$out" 2>"$out.err"; then
		echo "FAIL once-json $name: exit $?: $(cat "$out.err")"; fail=1; continue
	fi
	if python3 - "$root" "$out" <<'PY'
import json, re, sys
root, out = sys.argv[1], sys.argv[2]
j = json.load(open(out))
for k in ("nodes", "knobs", "page_size", "orders", "decisions", "instance_type"):
    assert k in j, f"missing key {k}"
bi = {}
for l in open(root + "/proc/buddyinfo"):
    m = re.match(r"Node (\d+), zone\s+(\S+)\s+(.*)", l)
    bi[(int(m[1]), m[2])] = [int(x) for x in m[3].split()]
pres = {}; cur = None
for l in open(root + "/proc/zoneinfo"):
    m = re.match(r"Node (\d+), zone\s+(\S+)", l)
    if m: cur = (int(m[1]), m[2]); continue
    m = re.match(r"\s+present\s+(\d+)", l)
    if m: pres[cur] = int(m[1])
orders = len(next(iter(bi.values())))
import os
hp = root + "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
ho = (int(open(hp).read()) // 4096).bit_length() - 1 if os.path.exists(hp) else 9
assert j["hpage_order"] == ho, (j["hpage_order"], ho)
assert j["orders"] == orders, (j["orders"], orders)
def score(nf, o=None):
    o = ho if o is None else o
    fp = sum(n << k for k, n in enumerate(nf))
    s = sum(n << (k - o) for k, n in enumerate(nf) if k >= o)
    if o >= len(nf): return 100
    return 0 if fp == 0 else (fp - (s << o)) * 100 // fp
def unusable(nf, o):
    fp = sum(n << k for k, n in enumerate(nf))
    s = sum(n << (k - o) for k, n in enumerate(nf) if k >= o)
    return 1.0 if fp == 0 else (fp - (s << o)) * 1000 // fp / 1000
nodes = sorted({n for n, _ in bi})
assert [n["node"] for n in j["nodes"]] == nodes
for n in j["nodes"]:
    node = n["node"]
    npres = sum(v for (nn, _), v in pres.items() if nn == node)
    exp = sum(pres[(node, z)] * score(nf) // (npres + 1) for (nn, z), nf in bi.items() if nn == node)
    assert n["fragmentation_score"] == exp, (node, n["fragmentation_score"], exp)
    for z in n["zones"]:
        nf = bi[(node, z["zone"])]
        assert z["free_blocks"] == nf
        assert z["free_pages"] == sum(c << k for k, c in enumerate(nf))
        for o in range(orders):
            assert abs(z["unusable_index"][o] - unusable(nf, o)) < 1e-9, (z["zone"], o)
        fi = z["fragmentation_index"]
        assert len(fi) == orders and all(-1 <= x <= 1 for x in fi)
assert j["knobs"]["compaction_proactiveness"] == int(open(root + "/proc/sys/vm/compaction_proactiveness").read())
PY
	then echo "PASS once-json $name"; else echo "FAIL once-json $name"; fail=1; fi
	if "$FRAGD" --once --root "$root" --page-size 4096 >"$out" 2>&1 && grep -q "fragmentation score" "$out"; then
		echo "PASS once-text $name"
	else
		echo "FAIL once-text $name: $(head -3 "$out")"; fail=1
	fi
	rm -f "$out" "$out.err"
done
# errors: a missing root and a root without buddyinfo are reported, not crashed on
empty=$(mktemp -d)
set +e
"$FRAGD" --once --root /nonexistent-fragd-root >/dev/null 2>"$empty/err"; rc=$?
set -e
if [ $rc = 1 ] && grep -q "nonexistent-fragd-root" "$empty/err"; then echo "PASS once-missing-root"; else echo "FAIL once-missing-root rc=$rc"; fail=1; fi
mkdir -p "$empty/proc"
set +e
"$FRAGD" --once --root "$empty" >/dev/null 2>"$empty/err"; rc=$?
set -e
if [ $rc = 3 ] && grep -q "buddyinfo" "$empty/err"; then echo "PASS once-no-buddyinfo"; else echo "FAIL once-no-buddyinfo rc=$rc $(cat "$empty/err")"; fail=1; fi
set +e
"$FRAGD" --once --format yaml >/dev/null 2>&1; rc=$?
set -e
if [ $rc = 2 ]; then echo "PASS once-bad-format"; else echo "FAIL once-bad-format rc=$rc"; fail=1; fi
rm -rf "$empty"
exit $fail
