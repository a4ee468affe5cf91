#!/usr/bin/env python3
"""bench/scan-attribution.py - where the compaction scanning of a postgres run went.

    scan-attribution.py [--build REV] [--tsv OUT] LOG...

LOG is a guest log of `SHAPE=postgres bench/effect.sh` (bench/out/effect-
postgres-*/KERNEL-POLICY-SEED.log). The scenario's sampler prints the
guest's counters every few seconds ("sample: UPTIME ... scanned=N", N
compaction pages scanned, compact_migrate_scanned + compact_free_scanned,
since the sampler started) and, under the fragd policies, fragd's journal
with the guest's uptime. The measured run is from the sample at or before
pgbench's start to the last sample (its delta is the run's "compaction
pages scanned" within one sample interval). Each interval between two
samples is put in one of three parts:

  oneshot  a page-cache or THP one-shot ("compact node N now") was made in
           it: an upper bound of what the one-shots scanned, since
           kcompactd and direct compaction scan in the same seconds
  raised   vm.compaction_proactiveness was above the value fragd found
           (before its first move) through it, by the last move before
           the interval began (fragd's raises, their kicks of kcompactd)
  start    the rest: the kernel's own scanning at the value fragd found

Prints one line per log; with --tsv, appends rows (build, kernel, policy,
seed, compact_scanned, oneshots, scan_oneshot, scan_raised, scan_start) to
OUT, writing a header first when OUT does not exist.
"""
import argparse
import os
import re
import sys

SAMPLE = re.compile(r"sample: ([\d.]+) .*?scanned=(\d+)")
INIT = re.compile(r"^\[\s*([\d.]+)\].*@@INIT uptime=([\d.]+)")
START = re.compile(r"^\[\s*([\d.]+)\] \[postgres\] pgbench -N -T")
JOURNAL = re.compile(r"journal: \[\s*([\d.]+)\] \S+ fragd\[\d+\]: (.*)")
PRO = re.compile(r"^(?:raise|lower|roll back) compaction_proactiveness (\d+)→(\d+)")
NAME = re.compile(r"(7\.[0-9]+-[a-z]+|[0-9.]+)-(.+)-(\d+)\.log$")
COLS = ["build", "kernel", "policy", "seed", "compact_scanned", "oneshots", "scan_oneshot", "scan_raised",
        "scan_start"]


def attribute(path):
    samples, pro, oneshots = [], [], []
    offset, start = None, None
    with open(path, errors="replace") as f:
        for line in f:
            m = INIT.search(line)
            if m:
                offset = float(m.group(1)) - float(m.group(2))
            m = START.search(line)
            if m:
                start = float(m.group(1))
            m = SAMPLE.search(line)
            if m:
                samples.append((float(m.group(1)), int(m.group(2))))
                continue
            m = JOURNAL.search(line)
            if not m:
                continue
            t, text = float(m.group(1)), m.group(2)
            p = PRO.match(text)
            if p:
                pro.append((t, int(p.group(1)), int(p.group(2))))
            elif text.startswith("compact node "):
                oneshots.append(t)
    if start is None or offset is None or len(samples) < 2:
        return None
    start -= offset
    first = max((i for i, (t, _) in enumerate(samples) if t <= start), default=0)
    level0 = pro[0][1] if pro else None  # the value before fragd's first move
    parts = {"oneshot": 0, "raised": 0, "start": 0}
    for (t0, c0), (t1, c1) in zip(samples[first:], samples[first + 1:]):
        level = next((to for t, _, to in reversed(pro) if t <= t0), level0)
        if any(t0 < t <= t1 for t in oneshots):
            part = "oneshot"
        elif level is not None and level0 is not None and level > level0:
            part = "raised"
        else:
            part = "start"
        parts[part] += c1 - c0
    run = samples[-1][1] - samples[first][1]
    n = sum(1 for t in oneshots if t > samples[first][0])
    return run, n, parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="")
    ap.add_argument("--tsv")
    ap.add_argument("logs", nargs="+")
    args = ap.parse_args()
    rows = []
    for path in args.logs:
        m = NAME.search(os.path.basename(path))
        r = attribute(path)
        if not m or r is None:
            print(f"{path}: no samples or no run start", file=sys.stderr)
            continue
        run, n, parts = r
        kernel, policy, seed = m.groups()
        print(f"{path}: run {run}, one-shots {n}, in their intervals {parts['oneshot']}, "
              f"at raised proactiveness {parts['raised']}, at the start value {parts['start']}")
        rows.append([args.build, kernel, policy, seed, run, n, parts["oneshot"], parts["raised"], parts["start"]])
    if args.tsv:
        new = not os.path.exists(args.tsv)
        with open(args.tsv, "a") as o:
            if new:
                o.write("\t".join(COLS) + "\n")
            for r in rows:
                o.write("\t".join(str(x) for x in r) + "\n")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
