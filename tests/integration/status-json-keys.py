#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# status-json-keys.py GOLDEN [--print]: reads `fragd status --format json`
# on stdin and checks its keys against GOLDEN (tests/golden/status-json-keys.txt),
# one key path a line: "daemon.pid", "knobs[].name". Fails on a key GOLDEN
# does not list (a rename or an addition), and on a listed key that is
# missing, unless it sits in a list that is empty here. --print prints the
# paths of the input instead (to write GOLDEN after an intended change).
import json
import sys


def paths(v, prefix=""):
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{prefix}.{k}" if prefix else k
            out.add(p)
            out |= paths(x, p)
    elif isinstance(v, list):
        for x in v:
            out |= paths(x, prefix + "[]")
    return out


def empty_lists(v, prefix=""):
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            out |= empty_lists(x, f"{prefix}.{k}" if prefix else k)
    elif isinstance(v, list):
        if not v:
            out.add(prefix + "[]")
        for x in v:
            out |= empty_lists(x, prefix + "[]")
    return out


doc = json.load(sys.stdin)
have = paths(doc)
if "--print" in sys.argv:
    print("\n".join(sorted(have)))
    sys.exit(0)
golden = {l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")}
empty = empty_lists(doc)
extra = have - golden
missing = {p for p in golden - have if not any(p.startswith(e) for e in empty)}
for p in sorted(extra):
    print(f"key not in {sys.argv[1]}: {p}")
for p in sorted(missing):
    print(f"key missing: {p}")
sys.exit(1 if extra or missing else 0)
