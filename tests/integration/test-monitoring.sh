#!/bin/bash
# monitoring/: promtool check rules, promtool test rules, every alert has a
# runbook_url into a section of docs/runbook.md that exists, the dashboard
# marks knob changes as annotations, and every metric the
# rules and the Grafana dashboard use exists in fragd's metric family table
# (docs/metrics.md, which test-exporter keeps equal to the table), with label
# matchers naming only that family's labels (plus instance and job). The
# dashboard may use only fragd's families and fragd's recording rules; the
# rules may also use node_exporter's node_textfile_* and memory pressure
# series. The checker
# proves itself on a bad expression first.
# SKIPs only when promtool is missing (Debian package prometheus).
set -uo pipefail
: "${FRAGD_SRCDIR:?}"
mon="$FRAGD_SRCDIR/monitoring"
fail=0

if ! command -v promtool >/dev/null; then
	echo "SKIP test-monitoring: promtool not installed (Debian package 'prometheus')"
	exit 0
fi
if out=$(timeout 60 promtool check rules "$mon/fragd.rules.yml" 2>&1); then
	echo "PASS promtool check rules: $(echo "$out" | grep -o '[0-9]* rules found')"
else
	echo "FAIL promtool check rules:"; echo "$out" | sed 's/^/    /'; fail=1
fi
if out=$(cd "$mon" && timeout 120 promtool test rules fragd.rules.test.yml 2>&1); then
	echo "PASS promtool test rules"
else
	echo "FAIL promtool test rules:"; echo "$out" | sed 's/^/    /'; fail=1
fi

python3 - "$FRAGD_SRCDIR/docs/metrics.md" "$mon/fragd.rules.yml" "$mon/grafana-dashboard.json" \
	"$FRAGD_SRCDIR/docs/runbook.md" <<'PY' || fail=1
import json, re, sys

docs, rules_path, dash_path, runbook_path = sys.argv[1:5]
table = {}
for line in open(docs):
    m = re.match(r"\| `(fragd_[a-z0-9_]+)` \| (gauge|counter) \| ([^|]*)\|", line)
    if m:
        table[m[1]] = set(re.findall(r"`([a-z_]+)`", m[3])) | {"instance", "job"}
if len(table) < 20:
    print(f"FAIL monitoring: only {len(table)} families parsed from docs/metrics.md"); sys.exit(1)
rules_text = open(rules_path).read()
recorded = set(re.findall(r"^\s*- record:\s*(\S+)", rules_text, re.M))
node_ok = {"node_textfile_mtime_seconds": {"file", "instance", "job"},
           "node_textfile_scrape_error": {"instance", "job"},
           # the memory pressure totals fragd does not repeat
           "node_pressure_memory_waiting_seconds_total": {"instance", "job"},
           "node_pressure_memory_stalled_seconds_total": {"instance", "job"}}

KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan", "atan2",
            # aggregation operators: may be followed by "by (...)" before "("
            "sum", "avg", "min", "max", "count", "stddev", "stdvar", "topk", "bottomk",
            "quantile", "count_values", "group"}

def metric_refs(expr):
    """(metric, set of matcher label names) for every selector in a PromQL expression."""
    refs = []
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r" \1 ", expr)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    pos = 0
    pat = re.compile(r'"(?:[^"\\]|\\.)*"|([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?\s*(\()?|\{([^}]*)\}')
    for m in pat.finditer(e):
        name, braces, call, bare = m.group(1), m.group(2), m.group(3), m.group(4)
        if name is None:
            continue
        if call and not braces:
            continue  # function
        if name in KEYWORDS or name.startswith("$"):
            continue
        labels = set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", braces or ""))
        refs.append((name, labels))
    return refs

def check(where, expr, allow_node):
    bad = []
    for name, labels in metric_refs(expr):
        if name in table:
            extra = labels - table[name]
            if extra:
                bad.append(f"{where}: {name} has no label(s) {sorted(extra)}")
        elif name in recorded:
            pass
        elif allow_node and name in node_ok:
            extra = labels - node_ok[name]
            if extra:
                bad.append(f"{where}: {name} has no label(s) {sorted(extra)}")
        else:
            bad.append(f"{where}: unknown metric {name}")
    return bad

# the checker must catch these
selftest = check("selftest", 'rate(fragd_no_such_total{kind="x"}[5m]) / fragd_knob_value{nope="1"} '
                 '+ node_load1', False)
if len(selftest) != 3:
    print("FAIL monitoring: the expression checker misses errors:", selftest); sys.exit(1)
if check("selftest", 'sum by (node, order) (rate(fragd_zone_free_bytes{zone="DMA32", instance=~"$instance"}[$__rate_interval]))', False):
    print("FAIL monitoring: the expression checker rejects a valid expression"); sys.exit(1)

problems = []
# rules: expressions, and any fragd_ name mentioned anywhere (annotations too)
exprs = []
lines = rules_text.split("\n")
i = 0
while i < len(lines):
    m = re.match(r"^(\s*)expr:\s*(.*)$", lines[i])
    if m:
        indent, rest = len(m[1]), m[2].strip()
        if rest in ("|", ">", "|-", ">-"):
            body = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                body.append(lines[i]); i += 1
            exprs.append(" ".join(body))
            continue
        exprs.append(rest.strip("'\""))
    i += 1
n_rule_refs = 0
for k, e in enumerate(exprs):
    refs = metric_refs(e.replace('\\\\', '\\'))
    n_rule_refs += len(refs)
    problems += check(f"rules expr {k + 1}", e.replace('\\\\', '\\'), True)
for name in set(re.findall(r"\bfragd_[a-z0-9_]+", rules_text)):
    if name not in table:
        problems.append(f"rules: {name} is not a fragd metric")
# dashboard: only fragd families and recording rules
dash = json.load(open(dash_path))
n_dash = 0
def walk(panels):
    global n_dash
    for p in panels:
        for t in p.get("targets", []):
            if "expr" in t:
                n_dash += 1
                problems.extend(check(f"dashboard panel '{p.get('title')}'", t["expr"], False))
        walk(p.get("panels", []))
walk(dash.get("panels", []))
n_ann = 0
for a in dash.get("annotations", {}).get("list", []):
    if "expr" in a:
        n_ann += 1
        problems.extend(check(f"dashboard annotation '{a.get('name')}'", a["expr"], False))
if not any("fragd_knob_value" in a.get("expr", "") for a in dash.get("annotations", {}).get("list", [])):
    problems.append("dashboard: no annotation marks knob changes (fragd_knob_value)")
# runbook: every alert links to a section that exists (GitHub-style anchors)
anchors = {re.sub(r"[^a-z0-9 _-]", "", h.strip().lower()).replace(" ", "-")
           for h in re.findall(r"^#+ (.*)$", open(runbook_path).read(), re.M)}
alerts = re.split(r"^\s*- alert:\s*", rules_text, flags=re.M)[1:]
for a in alerts:
    name = a.split()[0]
    m = re.search(r'^\s*runbook_url:\s*"?([^"\n]*)"?\s*$', a, re.M)
    if not m:
        problems.append(f"alert {name}: no runbook_url")
    elif not m[1].startswith("file:///usr/share/doc/fragd/runbook.md#"):
        problems.append(f"alert {name}: runbook_url {m[1]} is not the installed runbook")
    elif m[1].split("#", 1)[1] not in anchors:
        problems.append(f"alert {name}: runbook_url anchor #{m[1].split('#', 1)[1]} is no section of docs/runbook.md")
if len(alerts) < 10:
    problems.append(f"only {len(alerts)} alerts parsed from the rules")
for v in dash.get("templating", {}).get("list", []):
    q = v.get("query")
    q = q.get("query") if isinstance(q, dict) else q
    if v.get("type") == "query":
        for name in re.findall(r"label_values\((\w+)", q or ""):
            if name not in table:
                problems.append(f"dashboard variable {v.get('name')}: unknown metric {name}")
used = {n for e in exprs for n, _ in metric_refs(e)}
for p in problems:
    print("FAIL monitoring:", p)
if problems:
    sys.exit(1)
print(f"PASS monitoring: {len(exprs)} rule expressions ({n_rule_refs} selectors), {n_dash} dashboard queries "
      f"and {n_ann} annotation queries use only known metrics and labels")
print(f"PASS monitoring: all {len(alerts)} alerts link to their section of docs/runbook.md")
PY
exit $fail
