#!/usr/bin/env python3
"""bench/tables.py - the benchmark tables of bench/README.md and README.md,
rendered from the result files in bench/results/.

    bench/tables.py --check      # exit 1 (with a diff) when a committed table differs
    bench/tables.py --write      # rewrite the tables in place
    bench/tables.py --print NAME # one table to stdout (NAME: a results file's stem or proof-KERNEL)
    --root DIR                   # the tree to read and write (default: this file's checkout)

A results file (bench/results/NAME.tsv) is tab-separated values after
header lines of the form "# key: value". Required keys: title, command
(what made the rows), commit (the build measured), machine (host and
guest), group (the columns a table row groups by, key[:label],...) and
columns (the measures shown, key:label,...); date is optional provenance.
bench/effect.sh writes such files. Each measure is shown as the median
and, with more than one run, [min-max] over the group's runs. The derived
column zerofill_o6_pct is the share of the WAL zero-fill's page cache
(orders 3-6 of pc_orders) that came at order 6 (bench/summarize.py).

A table sits in a Markdown file between "<!-- tables.py: NAME -->" and
"<!-- tables.py end -->". bench/README.md must show every results file;
README.md shows the per-kernel proof tables (PROOF below), medians only.
`make check-unit` runs --check.
"""
import argparse
import difflib
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summarize  # noqa: E402  (the same directory)

REQUIRED = ("title", "command", "commit", "machine", "group", "columns")
DOCS = ("bench/README.md", "README.md")
BEGIN = "<!-- tables.py: "
END = "<!-- tables.py end -->"

# README.md's proof, one table per kernel: (results file, row filter,
# measure, row label). The columns are the labels in POLICY_COLUMNS that
# any row's policy has, one column per label.
PROOF = {
    "7.3": [
        ("postgres-7.3-aged", {"kernel": "7.3-noretry"}, "zerofill_o6_pct",
         "NORETRY, aged host: WAL zero-fill at order 6 %"),
        ("postgres-7.3-aged", {"kernel": "7.3-noretry"}, "pgscan_kswapd", "NORETRY, aged host: kswapd pages scanned"),
        ("postgres-7.3-aged", {"kernel": "7.3-noretry"}, "compact_scanned",
         "NORETRY, aged host: compaction pages scanned"),
        ("postgres-7.3-aged", {"kernel": "7.3-stock"}, "pg_compact", "stock, aged host: postgres direct compactions"),
        ("postgres-7.3-aged", {"kernel": "7.3-stock"}, "pgscan_kswapd", "stock, aged host: kswapd pages scanned"),
        ("postgres-7.3-aged", {"kernel": "7.3-stock"}, "compact_scanned", "stock, aged host: compaction pages scanned"),
        ("postgres-7.3-tenant", {"kernel": "7.3-noretry"}, "zerofill_o6_pct",
         "NORETRY, beside a bulk tenant: WAL zero-fill at order 6 %"),
        ("postgres-7.3-tenant", {"kernel": "7.3-stock"}, "pg_compact",
         "stock, beside a bulk tenant: postgres direct compactions"),
        ("postgres-7.3-tenant", {"kernel": "7.3-stock"}, "compact_stall", "stock, beside a bulk tenant: compact_stall"),
        ("postgres-7.3-wal", {"kernel": "7.3-noretry"}, "zerofill_o6_pct",
         "NORETRY, WAL every 3 s beside a tenant, 120 MiB free: WAL zero-fill at order 6 %"),
        ("postgres-7.3-wal", {"kernel": "7.3-noretry"}, "compact_scanned",
         "NORETRY, WAL every 3 s beside a tenant, 120 MiB free: compaction pages scanned"),
        ("postgres-7.3-wal", {"kernel": "7.3-stock"}, "pg_compact",
         "stock, WAL every 3 s beside a tenant, 120 MiB free: postgres direct compactions"),
        ("postgres-7.3-wal", {"kernel": "7.3-stock"}, "compact_scanned",
         "stock, WAL every 3 s beside a tenant, 120 MiB free: compaction pages scanned"),
        ("churn-7.3", {"mode": "madvise"}, "compact_stall", "churn, defrag=madvise: direct compaction stalls"),
        ("churn-7.3", {"mode": "madvise"}, "scanned", "churn, defrag=madvise: pages scanned"),
        ("churn-7.3", {"mode": "never"}, "thp_pct", "churn, defrag=never: huge pages %"),
        ("churn-7.3", {"mode": "never"}, "scanned", "churn, defrag=never: pages scanned"),
    ],
    "6.1": [
        ("churn-6.1", {"mode": "never"}, "thp_pct", "churn, defrag=never: huge pages %"),
        ("churn-6.1", {"mode": "never"}, "scan_per_huge", "churn, defrag=never: pages scanned per huge page"),
        ("churn-6.1", {"mode": "madvise"}, "compact_stall", "churn, defrag=madvise: direct compaction stalls"),
        ("churn-6.1", {"mode": "madvise"}, "scanned", "churn, defrag=madvise: pages scanned"),
        ("churn-6.1-12x128", {}, "scanned", "churn, 12 bursts of 128 MiB (100 % huge pages): pages scanned"),
        ("phased-6.1-fresh", {}, "thp_pct", "phased, fragd new to the host: huge pages %"),
        ("phased-6.1-history", {}, "thp_pct", "phased, host with history: huge pages %"),
        ("phased-6.1-history", {}, "scanned", "phased, host with history: pages scanned"),
    ],
    "6.12": [
        ("postgres-6.12-pinned", {}, "pg_compact", "postgres, pinned memory: postgres direct compactions"),
        ("postgres-6.12-pinned", {}, "pgscan_kswapd", "postgres, pinned memory: kswapd pages scanned"),
        ("postgres-6.12-movable", {}, "pg_compact", "postgres, movable memory: postgres direct compactions"),
        ("postgres-6.12-movable", {}, "compact_scanned", "postgres, movable memory: compaction pages scanned"),
        ("postgres-6.12-movable", {}, "pgscan_kswapd", "postgres, movable memory: kswapd pages scanned"),
        ("postgres-6.12-noretry-pinned", {}, "zerofill_o6_pct", "NORETRY, pinned memory: WAL zero-fill at order 6 %"),
        ("postgres-6.12-noretry-movable", {}, "zerofill_o6_pct", "NORETRY, movable memory: WAL zero-fill at order 6 %"),
        ("postgres-6.12-noretry-movable", {}, "pgscan_kswapd", "NORETRY, movable memory: kswapd pages scanned"),
    ],
}
POLICY_COLUMNS = [("unfragmented", "clean host"), ("kernel", "kernel defaults"), ("defrag1", "defrag_mode=1"),
                  ("static-max", "proactiveness 100"),
                  ("pro100", "proactiveness 100"), ("pro39", "proactiveness 39"),
                  ("tuned", "tuned-style"), ("oracle", "oracle"), ("fragd", "fragd"),
                  ("fragd-warm", "fragd, restarted")]


class Error(Exception):
    pass


def load(path, rel):
    """(metadata, rows) of one results file; Error naming the file and
    line when a header key is missing or a row is malformed."""
    meta, rows, header = {}, [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if header is None and line.startswith("#"):
                key, sep, value = line[1:].partition(":")
                if not sep or not key.strip():
                    raise Error(f"{rel}:{n}: a header line is '# key: value', not '{line}'")
                meta[key.strip()] = value.strip()
            elif header is None:
                header = line.split("\t")
            elif line:
                cells = line.split("\t")
                if len(cells) != len(header):
                    raise Error(f"{rel}:{n}: {len(cells)} fields, the header has {len(header)}")
                rows.append(dict(zip(header, cells)))
    missing = [k for k in REQUIRED if not meta.get(k)]
    if missing:
        raise Error(f"{rel}: no '# {missing[0]}:' header line (needs {', '.join(REQUIRED)})")
    if not rows:
        raise Error(f"{rel}: no rows")
    summarize.derive(rows)
    meta["_group"] = [(g.split(":", 1) + [g])[:2] for g in meta["group"].split(",")]
    meta["_columns"] = [c.split(":", 1) for c in meta["columns"].split(",")]
    for c in meta["_columns"]:
        if len(c) != 2:
            raise Error(f"{rel}: columns: '{c[0]}' is not key:label")
    for key, _ in meta["_group"] + meta["_columns"]:
        if key not in rows[0]:
            raise Error(f"{rel}: no column '{key}' (named by the group or columns header)")
    return meta, rows


def number(x):
    if abs(x) >= 1e6:
        return f"{x / 1e6:.2f} M"
    if abs(x) >= 1e4:
        return f"{x / 1e3:.0f} k"
    if x != int(x) and abs(x) < 100:
        return f"{x:.1f}"
    return f"{x:.0f}"


def cell(rows, col, ranges=True):
    v = summarize.values(rows, col)
    if not v:
        return "–"
    med = number(statistics.median(v))
    if not ranges or len(v) == 1 or v[0] == v[-1]:
        return med
    return f"{med} [{number(v[0])}–{number(v[-1])}]"


def results_table(name, meta, rows):
    group, cols = meta["_group"], meta["_columns"]
    out = [f"**{meta['title']}** (`bench/results/{name}.tsv`)", "",
           f"- command: `{meta['command']}`",
           f"- commit: {meta['commit']}",
           f"- machine: {meta['machine']}"]
    if meta.get("date"):
        out.append(f"- date: {meta['date']}")
    out += ["", "| " + " | ".join(label for _, label in group) + " | runs | "
            + " | ".join(label for _, label in cols) + " |",
            "|" + "---|" * len(group) + "---:|" + "---:|" * len(cols)]
    for key in dict.fromkeys(tuple(r[g] for g, _ in group) for r in rows):
        rs = [r for r in rows if tuple(r[g] for g, _ in group) == key]
        out.append("| " + " | ".join(key) + f" | {len(rs)} | "
                   + " | ".join(cell(rs, c) for c, _ in cols) + " |")
    return out


def proof_table(kernel, results):
    spec = PROOF[kernel]
    for name, _, col, _ in spec:
        if name not in results:
            raise Error(f"bench/tables.py: PROOF {kernel} names bench/results/{name}.tsv, which does not exist")
    present = {r["policy"] for name, _, _, _ in spec for r in results[name][1]}
    # one column per label: policies that are the same setting under two
    # shapes' names (static-max, pro100) share it
    cols = {}
    for p, label in POLICY_COLUMNS:
        if p in present:
            cols.setdefault(label, set()).add(p)
    pols = list(cols.items())
    out = ["| measure (median) | " + " | ".join(label for label, _ in pols) + " | results |",
           "|---|" + "---:|" * len(pols) + "---|"]
    for name, where, col, label in spec:
        rows = [r for r in results[name][1] if all(r.get(k) == v for k, v in where.items())]
        cells = []
        for _, ps in pols:
            rs = [r for r in rows if r["policy"] in ps]
            cells.append(cell(rs, col, ranges=False) if rs else "")
        out.append(f"| {label} | " + " | ".join(cells) + f" | [{name}](bench/results/{name}.tsv) |")
    return out


def render_all(root):
    results = {}
    rdir = os.path.join(root, "bench", "results")
    for fn in sorted(os.listdir(rdir)):
        if fn.endswith(".tsv"):
            results[fn[:-4]] = load(os.path.join(rdir, fn), f"bench/results/{fn}")
    tables = {name: results_table(name, m, r) for name, (m, r) in results.items()}
    for kernel in PROOF:
        tables[f"proof-{kernel}"] = proof_table(kernel, results)
    return results, tables


def fill(doc, text, tables):
    """TEXT with every marked table replaced by its rendering, and the
    names it shows."""
    out, shown, lines, i = [], [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith(BEGIN):
            continue
        name = line[len(BEGIN):].removesuffix("-->").strip()
        if name not in tables:
            raise Error(f"{doc}:{i}: no table '{name}' (known: {', '.join(sorted(tables))})")
        start = i
        while i < len(lines) and lines[i] != END:
            if lines[i].startswith(BEGIN):
                break
            i += 1
        if i >= len(lines) or lines[i] != END:
            raise Error(f"{doc}:{start}: table '{name}' has no '{END}' line")
        out += tables[name]
        out.append(END)
        shown.append(name)
        i += 1
    return "\n".join(out), shown


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--print", metavar="NAME")
    args = ap.parse_args()
    try:
        results, tables = render_all(args.root)
        if args.print:
            if args.print not in tables:
                raise Error(f"no table '{args.print}' (known: {', '.join(sorted(tables))})")
            print("\n".join(tables[args.print]))
            return 0
        stale = 0
        for doc in DOCS:
            path = os.path.join(args.root, doc)
            with open(path, encoding="utf-8") as f:
                old = f.read()
            new, shown = fill(doc, old, tables)
            if doc == "bench/README.md":
                unshown = [n for n in results if n not in shown]
                if unshown:
                    raise Error(f"{doc}: bench/results/{unshown[0]}.tsv is shown nowhere "
                                f"(add '{BEGIN}{unshown[0]} -->' and '{END}')")
            if new == old:
                continue
            if args.write:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
                print(f"tables.py: rewrote {doc}")
                continue
            stale = 1
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       f"{doc} (committed)", f"{doc} (rendered)"))
            print(f"tables.py: {doc} differs from bench/results/: run bench/tables.py --write", file=sys.stderr)
        return stale
    except (Error, OSError) as e:
        print(f"tables.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
