#!/usr/bin/env python3
"""bench/summarize.py - the median [min-max] table of a bench/effect.sh run.

    summarize.py TSV [--group key[:label],...] [--cols key:label,...] [--title TEXT]
                 [--decimals] [--postgres-targets]

TSV may start with "# key: value" lines (bench/results/ and bench/effect.sh
write them: command, commit, machine, and group and columns, which serve
when --group and --cols are not given; see bench/tables.py); then a header
line; rows are grouped by the --group columns, in the
order they first appear; each --cols column becomes the median and, with
more than one value, the range of that group's non-empty values ('' and
'-' are no value). --decimals prints values under 10 with one decimal
(shares, TPS) instead of rounding all to integers. --postgres-targets adds
the issue-13 ratios (kernel, policy, pg_compact, ... columns of
SHAPE=postgres) and, with a wal_segments column, the direct compactions
per WAL segment entered; with wal_zerofills, per segment zero-filled (the
order-6 bursts); with pc_orders (o0:BYTES,o1:BYTES,...), the share of the
zero-fill's orders 3-6 that came at order 6: the 256 KiB writes' folios
fall back one order at a time and orders 3 and under are not costly, so
a fallback lands at orders 3-5 (6.12's __filemap_get_folio()), and the
share leaves out the small writes at orders 0-2 and whether a run
zero-filled one segment or two.
"""
import argparse
import csv
import statistics


def values(rows, col):
    return sorted(float(r[col]) for r in rows if r.get(col) not in ("", None, "-"))


def number(x, decimals):
    if not decimals or abs(x) >= 10 or x == int(x):
        return f"{x:.0f}"
    return f"{x:.1f}"


def cell(rows, col, decimals):
    v = values(rows, col)
    if not v:
        return "-"
    med = number(statistics.median(v), decimals)
    return med if len(v) == 1 else f"{med} [{number(v[0], decimals)}-{number(v[-1], decimals)}]"


def median(rows, col):
    v = values(rows, col)
    return statistics.median(v) if v else None


def ratio(a, b):
    if a is None or b is None:
        return "-"
    if b == 0:
        return "inf" if a > 0 else "-"
    return f"{100 * a / b:.0f} %"


def postgres_targets(rows):
    def med(kernel, policy, col):
        return median([r for r in rows if r["kernel"] == kernel and r["policy"] == policy], col)

    print("\nTargets (issue 13), medians:")
    for k in dict.fromkeys(r["kernel"] for r in rows):
        share = {p: med(k, p, "pc_large_pct") for p in ("fragd", "kernel", "fragd-thpoff", "unfragmented")}
        print(f"- {k}: postgres direct compactions fragd {med(k, 'fragd', 'pg_compact')}, "
              f"kernel {med(k, 'kernel', 'pg_compact')}"
              f"; kswapd scanned fragd/kernel "
              f"{ratio(med(k, 'fragd', 'pgscan_kswapd'), med(k, 'kernel', 'pgscan_kswapd'))}"
              f"; compaction scanned fragd/pro100 "
              f"{ratio(med(k, 'fragd', 'compact_scanned'), med(k, 'pro100', 'compact_scanned'))}"
              f"; order>=6 share fragd/unfragmented {ratio(share['fragd'], share['unfragmented'])}"
              f", kernel/unfragmented {ratio(share['kernel'], share['unfragmented'])}"
              f", fragd-thpoff/unfragmented {ratio(share['fragd-thpoff'], share['unfragmented'])}"
              + per_run_of(rows, k, "wal_segments", "entered")
              + per_run_of(rows, k, "wal_zerofills", "zero-filled") + zerofill_targets(rows, k))


def zerofill_share(r):
    """Bytes at order 6 over bytes at orders 3-6 of one run's pc_orders, %."""
    b = {}
    for kv in (r.get("pc_orders") or "").split(","):
        k, _, v = kv.partition(":")
        if k.startswith("o") and k[1:].isdigit() and v:
            b[int(k[1:])] = float(v)
    den = sum(b.get(o, 0.0) for o in range(3, 7))
    return 100 * b.get(6, 0.0) / den if den > 0 else None


def run_median(rows, kernel, policy, value):
    """The median of VALUE(row) over a kernel's runs of a policy, None
    without one (VALUE gives None for a run without it)."""
    v = [x for x in (value(r) for r in rows if r["kernel"] == kernel and r["policy"] == policy) if x is not None]
    return statistics.median(v) if v else None


def zerofill_targets(rows, kernel):
    def med(policy):
        return run_median(rows, kernel, policy, zerofill_share)

    if not any(r.get("pc_orders") for r in rows):
        return ""
    m = {p: med(p) for p in ("fragd", "kernel", "fragd-thpoff", "unfragmented")}
    shown = ", ".join(f"{p} {m[p]:.1f} %" for p in m if m[p] is not None)
    return (f"; zero-fill at order 6 of orders 3-6 {shown}"
            f" (fragd/unfragmented {ratio(m['fragd'], m['unfragmented'])},"
            f" kernel/unfragmented {ratio(m['kernel'], m['unfragmented'])})")


def per_run_of(rows, kernel, col, label):
    """Direct compactions per COL of each run (wal_segments: WAL segments
    entered; wal_zerofills: segments zero-filled in the run, the 64 MiB
    bursts of order-6 folios): a run's count depends on how many it wrote.
    Empty without a value of COL."""
    def per(r):
        if r.get(col) in ("", None, "-") or float(r[col]) <= 0 or r.get("pg_compact") in ("", None, "-"):
            return None
        return float(r["pg_compact"]) / float(r[col])

    def med(policy):
        m = run_median(rows, kernel, policy, per)
        return "-" if m is None else f"{m:.1f}"

    if not any(r.get(col) not in ("", None, "-") for r in rows):
        return ""
    return f"; per WAL segment {label} fragd {med('fragd')}, kernel {med('kernel')}"


def read(path):
    """The "# key: value" header lines of a results TSV as a dict, and its
    rows."""
    meta = {}
    with open(path, newline="") as f:
        lines = f.readlines()
    while lines and lines[0].startswith("#"):
        key, _, value = lines.pop(0)[1:].partition(":")
        meta[key.strip()] = value.strip()
    rows = list(csv.DictReader(lines, delimiter="\t"))
    derive(rows)
    return meta, rows


def derive(rows):
    """Add the derived column zerofill_o6_pct (zerofill_share(), one
    decimal; empty without pc_orders) to each row."""
    for r in rows:
        v = zerofill_share(r)
        r["zerofill_o6_pct"] = "" if v is None else f"{v:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tsv")
    ap.add_argument("--group", help="comma-separated grouping columns, key[:label] (default: the file's '# group:')")
    ap.add_argument("--cols", help="comma-separated key:label pairs (default: the file's '# columns:')")
    ap.add_argument("--title", help="default: the file's '# title:'")
    ap.add_argument("--decimals", action="store_true")
    ap.add_argument("--postgres-targets", action="store_true")
    args = ap.parse_args()

    meta, rows = read(args.tsv)
    args.group = args.group or meta.get("group")
    args.cols = args.cols or meta.get("columns")
    args.title = args.title or meta.get("title") or args.tsv
    if not args.group or not args.cols:
        ap.error(f"{args.tsv}: no '# group:' or '# columns:' line: give --group and --cols")
    group = [(g.split(":", 1) + [g])[:2] for g in args.group.split(",")]
    cols = [c.split(":", 1) for c in args.cols.split(",")]
    for c in cols:
        if len(c) != 2:
            ap.error(f"--cols: '{c[0]}' is not key:label")
    missing = [k for k, _ in group + cols if rows and k not in rows[0]]
    if missing:
        ap.error(f"{args.tsv}: no column {', '.join(missing)}")

    print(args.title + "\n")
    print("| " + " | ".join(label for _, label in group) + " | runs | " + " | ".join(label for _, label in cols) + " |")
    print("|" + "---|" * len(group) + "---:|" + "---:|" * len(cols))
    for key in dict.fromkeys(tuple(r[g] for g, _ in group) for r in rows):
        rs = [r for r in rows if tuple(r[g] for g, _ in group) == key]
        print("| " + " | ".join(key) + f" | {len(rs)} | "
              + " | ".join(cell(rs, c, args.decimals) for c, _ in cols) + " |")
    if args.postgres_targets:
        postgres_targets(rows)


if __name__ == "__main__":
    main()
