#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Bad-input generator for fragd: deterministic mutations of the kernel files
and configuration files of fixture trees, each run through

    fragd --once --root TREE                (text)
    fragd --once --root TREE --format json  (must be valid, strict JSON)
    fragd --check-config --root TREE

under a timeout; hostile unit names through `fragd thp-dropin NAME MODE`
(no system bus: DBUS_SYSTEM_BUS_ADDRESS points nowhere); and mutations of
the files a daemon leaves in its runtime directory (the status file, the
pause flag) of a tree where no fragd runs, each through

    fragd status --root TREE                (text)
    fragd status --root TREE --format json

under a timeout. The oracle per case (see check_case):
  - no crash (signal), no sanitizer report, no timeout;
  - exit status in the documented set (0 1 2 3; fragd(8) EXIT STATUS);
  - JSON output (exit 0) parses as strict UTF-8 JSON (no NaN/Infinity);
  - no silent wrong values: every report is within physical bounds (byte
    totals add up exactly, free <= node memory <= the tree's MemTotal,
    targets <= node memory, scores 0..100, decisions within the kernel's
    range), a target is never "met" when the memory it is measured against
    was not read, and nodes/zones only disappear when fragd names the
    mutated file (stderr, or the report's sources) as bad.
  - a configuration that fragd refuses (exit 2) names the file;
  - thp-dropin: a name systemd would refuse (modelled here from
    systemd.unit(5)) exits 2 with one line on stderr and nothing on stdout;
    a valid one is never refused as a name; stderr never carries a control
    character (the name is escaped); stdout is a drop-in and nothing else;
  - status: never "running" (no fragd runs in the tree; a status file naming
    a live pid without its start time is incomplete, not a fragd), exit 4
    or 5 (not running), or 1 for a file it cannot read, with a message; its
    JSON parses and its state is stopped or crashed.

The daemon cases (ids "daemon:...") run the daemon itself on a copy of the
frag tree: two daemons on one root (at once, one after a pause, a dry run
beside one) and a configuration edited under a running daemon (runtime_dir
moved; a runtime_dir of its own, then a configuration that does not load)
before kill -9. Their oracle: one daemon runs, the
others exit non-zero naming its pid; `fragd status` and `pause` find the
running daemon; after the kill, `fragd --restore --quiet-if-clean` (the
unit's ExecStopPost=) or a restart puts every knob back to its original
bytes; no sanitizer report, no hang.

Every case id is stable for a given seed. Reproduce one case:
    tests/robust/robust.py --seed SEED --only CASE_ID --keep
Environment: FRAGD (the binary), FRAGD_SRCDIR, ROBUST_SEED, ROBUST_JOBS,
ROBUST_TIMEOUT (s), ROBUST_SUBSET (run every Nth case).
"""

import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.environ.get("FRAGD_SRCDIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(SRC, "tests", "fixtures")
EXIT_OK = {0, 1, 2, 3}
DEFAULT_SEED = 20261111

# The textfile directory in the configuration, in one place. Absolute today
# (a host path); when textfile_dir resolves under --root the same string
# lands at TREE/TREE/prom: both directories exist, both are inside TREE.
def textfile_dir(tree):
    return os.path.join(tree, "prom")

# ---- base trees -------------------------------------------------------------

BASES = {
    # name: (fixture, page size, cgroups watched)
    "frag": ("vm-6.1-x86_64-2node-fragmented", 4096, ["db.slice"]),
    "press": ("vm-6.1-x86_64-1node-pressure", 4096, ["db.slice", "batch.slice"]),
    "host": ("host-6.18-x86_64", 4096, []),
    # frag with a running daemon's trace instance (its hist captured in a
    # 6.12 guest) and the event's format: the page-cache signal
    "pc": ("vm-6.1-x86_64-2node-fragmented", 4096, []),
    # frag with what a killed fragd left in its runtime directory
    "rt": ("vm-6.1-x86_64-2node-fragmented", 4096, []),
}
# the status file and pause flag a fragd killed with -9 leaves (its pid is
# above any pid_max: never a live process)
RT_STATUS = ("fragd-status 1\npid 4194304 12345\nupdated 1796150000000000\nownership respect\nops real\n"
             "owned\tvm.compaction_proactiveness\t0\t20\t1796149000000000\n"
             "unrestored\tvm.compaction_proactiveness\t0\t20\tEPERM\tOperation not permitted\n"
             "decision\t2026-12-01T19:00:00 raise compaction_proactiveness 0->20\nstate paused\n"
             "instance\tmem-4g\tsizing\t-\t-\tdatabase\ncadence\t1000000\t1000000\t1000000\t0\t0\t1\n"
             "change\t1796150000000000\tcompaction_proactiveness\t0\t20\treserve_below_target\tapplied\n")
RT_PAUSED = "fragd-paused 1\nsince 1796150000000000\n"
TRACING = "sys/kernel/tracing/"
PC_EVENT = "events/filemap/mm_filemap_add_to_page_cache/"
PC_HIST = TRACING + "instances/fragd/" + PC_EVENT + "hist"
PC_FORMAT = TRACING + PC_EVENT + "format"

# the content a symlink to outside the tree finds: another machine's file
OUTSIDE = {"frag": "vm-6.1-x86_64-1node-pressure", "press": "vm-6.1-x86_64-2node-compacted",
           "host": "vm-6.1-x86_64-2node-fragmented", "pc": "vm-6.1-x86_64-1node-pressure",
           "rt": "vm-6.1-x86_64-1node-pressure"}
# the page-cache files have no fixture tree: other valid content from the corpus
OUTSIDE_PC = {"hist": "vm-6.12-order0-hist", "format": "format-no-order"}

def base_conf(tree, cgroups):
    s = ("[daemon]\ninterval = 1s\ntextfile_dir = %s\n"
         "[policy]\nreserve_thp = 20%%\nreserve_always = yes\n" % textfile_dir(tree))
    for c in cgroups:
        s += '[cgroup "%s"]\nwatch = yes\n' % c
    return s

DROPIN = '[knob "compaction_proactiveness"]\nmax = 80\n[daemon]\nlog_level = info\n'
FLEET = ('# fleet file for the sizing class of the test trees\n[match]\nclass = mem-*\n'
         '[policy]\nreserve_large = 1%\nmax_compact_stall_rate = 0.5/s\n'
         '[knob "watermark_scale_factor"]\nmax = 200\n')

def make_base(work, name):
    fixture, _, cgroups = BASES[name]
    tree = os.path.join(work, "base-" + name)
    shutil.copytree(os.path.join(FIX, fixture), tree, symlinks=True)
    os.makedirs(os.path.join(tree, "etc/fragd/fragd.conf.d"))
    os.makedirs(os.path.join(tree, "etc/fragd/fleet.d"))
    with open(os.path.join(tree, "etc/fragd/fragd.conf"), "w") as f:
        f.write(base_conf(tree, cgroups))
    with open(os.path.join(tree, "etc/fragd/fragd.conf.d/10-local.conf"), "w") as f:
        f.write(DROPIN)
    with open(os.path.join(tree, "etc/fragd/fleet.d/small.conf"), "w") as f:
        f.write(FLEET)
    if name == "rt":
        os.makedirs(os.path.join(tree, "run/fragd"))
        for rel, text in (("run/fragd/status", RT_STATUS), ("run/fragd/paused", RT_PAUSED)):
            with open(os.path.join(tree, rel), "w") as f:
                f.write(text)
    if name == "pc":
        corpus = os.path.join(SRC, "tests", "corpus", "pagecache")
        for rel, src in ((PC_HIST, "vm-6.12-xfs-hist"), (PC_FORMAT, "vm-6.12-format")):
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            shutil.copyfile(os.path.join(corpus, src), os.path.join(tree, rel))
    return tree

# ---- targets: the files mutated, and the report source each feeds -----------

VM = "proc/sys/vm/"
THP = "sys/kernel/mm/transparent_hugepage/"
NODE = "sys/devices/system/node/"
KERNEL_TARGETS = {
    "frag": [
        ("proc/buddyinfo", "buddyinfo"), ("proc/zoneinfo", "zoneinfo"), ("proc/vmstat", "vmstat"),
        ("proc/pagetypeinfo", "pagetypeinfo"), ("proc/meminfo", "meminfo"),
        ("proc/pressure/memory", "psi_memory"), ("proc/pressure/io", None),
        (THP + "enabled", "thp"), (THP + "defrag", "thp"), (THP + "shmem_enabled", "thp"),
        (THP + "hpage_pmd_size", "thp"), (THP + "khugepaged/defrag", "thp_full"),
        (THP + "khugepaged/pages_to_scan", "thp_full"),
        (VM + "compaction_proactiveness", "sysctl"), (VM + "min_free_kbytes", "sysctl"),
        (VM + "watermark_scale_factor", "sysctl"), (VM + "watermark_boost_factor", "sysctl"),
        (VM + "extfrag_threshold", "sysctl"), (VM + "zone_reclaim_mode", "sysctl"),
        (NODE + "online", "nodes"), (NODE + "possible", "nodes"), (NODE + "has_memory", "nodes"),
        (NODE + "node1/meminfo", "nodes"), (NODE + "node0/cpulist", "nodes"),
        ("sys/fs/cgroup/db.slice/memory.stat", None), ("sys/fs/cgroup/db.slice/memory.pressure", None),
        ("sys/fs/cgroup/cgroup.controllers", None),
    ],
    "press": [
        ("proc/buddyinfo", "buddyinfo"), ("proc/zoneinfo", "zoneinfo"), ("proc/vmstat", "vmstat"),
        ("proc/meminfo", "meminfo"), ("proc/pressure/memory", "psi_memory"),
        ("sys/fs/cgroup/db.slice/memory.stat", None), ("sys/fs/cgroup/db.slice/memory.pressure", None),
        ("sys/fs/cgroup/batch.slice/memory.stat", None),
    ],
    "host": [
        ("proc/buddyinfo", "buddyinfo"), ("proc/zoneinfo", "zoneinfo"),
        (THP + "hugepages-2048kB/enabled", "thp"), (THP + "hugepages-64kB/enabled", "thp"),
        (VM + "compaction_proactiveness", "sysctl"),
    ],
    "pc": [(PC_HIST, "pagecache"), (PC_FORMAT, "pagecache")],
}
RUNTIME_TARGETS = ["run/fragd/status", "run/fragd/paused"]
CONFIG_TARGETS = ["etc/fragd/fragd.conf", "etc/fragd/fragd.conf.d/10-local.conf",
                  "etc/fragd/fleet.d/small.conf"]

# ---- mutations ----------------------------------------------------------------

NUM = re.compile(rb"-?\d+")
HUGE = {
    "2p63": b"9223372036854775808",
    "2p64m1": b"18446744073709551615",
    "2p64": b"18446744073709551616",
    "neg": b"-1",
    "negmin": b"-9223372036854775808",
    "nondigit": b"12x4",
}

def pick_number(data, rng):
    ms = list(NUM.finditer(data))
    return rng.choice(ms) if ms else None

def m_replace_number(new):
    def f(data, rng):
        m = pick_number(data, rng)
        if not m:
            return None
        return data[:m.start()] + new + data[m.end():], "at byte %d" % m.start()
    return f

def m_all_numbers_in_line(new):
    def f(data, rng):
        lines = data.split(b"\n")
        cand = [i for i, l in enumerate(lines) if NUM.search(l)]
        if not cand:
            return None
        i = rng.choice(cand)
        lines[i] = NUM.sub(new, lines[i])
        return b"\n".join(lines), "line %d" % (i + 1)
    return f

def m_truncate(data, rng):
    if len(data) < 2:
        return None
    p = rng.randrange(1, len(data))
    return data[:p], "at byte %d of %d" % (p, len(data))

def m_empty(data, rng):
    return b"", ""

def m_binary(data, rng):
    p = rng.randrange(0, len(data) + 1)
    return data[:p] + b"\xff\xfe\x00\x80\xc3(" + data[p:], "at byte %d" % p

def m_nul(data, rng):
    if not data:
        return None
    p = rng.randrange(0, len(data))
    return data[:p] + b"\x00" + data[p + 1:], "at byte %d" % p

def m_crlf(data, rng):
    return data.replace(b"\n", b"\r\n"), ""

def lines_of(data):
    return data.split(b"\n")

def m_drop_line(data, rng):
    ls = lines_of(data)
    idx = [i for i, l in enumerate(ls) if l.strip()]
    if not idx:
        return None
    i = rng.choice(idx)
    del ls[i]
    return b"\n".join(ls), "line %d" % (i + 1)

def m_dup_line(data, rng):
    ls = lines_of(data)
    idx = [i for i, l in enumerate(ls) if l.strip()]
    if not idx:
        return None
    i = rng.choice(idx)
    ls.insert(i, ls[i])
    return b"\n".join(ls), "line %d" % (i + 1)

def m_drop_column(data, rng):
    ls = lines_of(data)
    idx = [i for i, l in enumerate(ls) if len(l.split()) > 1]
    if not idx:
        return None
    i = rng.choice(idx)
    cols = ls[i].split()
    j = rng.randrange(len(cols))
    del cols[j]
    ls[i] = b" ".join(cols)
    return b"\n".join(ls), "line %d column %d" % (i + 1, j + 1)

def m_dup_column(data, rng):
    ls = lines_of(data)
    idx = [i for i, l in enumerate(ls) if l.split()]
    if not idx:
        return None
    i = rng.choice(idx)
    cols = ls[i].split()
    j = rng.randrange(len(cols))
    cols.insert(j, cols[j])
    ls[i] = b" ".join(cols)
    return b"\n".join(ls), "line %d column %d" % (i + 1, j + 1)

def m_long_line(data, rng):
    return data + b"9" * (1 << 20) + b"\n", "1 MiB line appended"

def m_node99999(data, rng):
    if b"Node 1," in data:
        return data.replace(b"Node 1,", b"Node 99999,"), ""
    if b"Node 0," in data:
        return data.replace(b"Node 0,", b"Node 99999,", 1), ""
    return None

def m_tabs(data, rng):
    return data.replace(b" ", b"\t"), ""

# config-only
def m_conf_nonutf8_cgroup(data, rng):
    if b"[cgroup" not in data:
        return data + b'\n[cgroup "db\xff\xfe.slice"]\nwatch = yes\n', "appended"
    return data.replace(b'[cgroup "db.slice"]', b'[cgroup "db\xff\xfe.slice"]'), ""

def m_conf_dup_section(data, rng):
    return data + b"\n" + data, ""

def m_conf_runtime_root(data, rng):
    return data + b"\n[daemon]\nruntime_dir = /\n", "runtime_dir = /"

def m_conf_key_huge(data, rng):
    return data + b"\n[policy]\nreserve_thp = 18446744073709551615\n", ""

def m_conf_no_newline_eq(data, rng):
    return data + b"\n[daemon]\ninterval\n", ""

def m_conf_unterminated_section(data, rng):
    return data + b"\n[knob \"compaction_proactiveness\"\nmax = 80\n", ""

MUTATIONS = [
    ("truncate", m_truncate, 2), ("empty", m_empty, 1),
    ("num-2p63", m_replace_number(HUGE["2p63"]), 1), ("num-2p64m1", m_replace_number(HUGE["2p64m1"]), 1),
    ("num-2p64", m_replace_number(HUGE["2p64"]), 1), ("num-neg", m_replace_number(HUGE["neg"]), 1),
    ("num-negmin", m_replace_number(HUGE["negmin"]), 1), ("num-nondigit", m_replace_number(HUGE["nondigit"]), 1),
    ("line-2p64m1", m_all_numbers_in_line(HUGE["2p64m1"]), 1),
    ("binary", m_binary, 1), ("nul", m_nul, 1), ("crlf", m_crlf, 1), ("tabs", m_tabs, 1),
    ("drop-line", m_drop_line, 1), ("dup-line", m_dup_line, 1),
    ("drop-column", m_drop_column, 1), ("dup-column", m_dup_column, 1), ("long-line", m_long_line, 1),
]
def m_managed_huge(data, rng):
    m = re.search(rb"managed +\d+", data)
    if not m:
        return None
    return data[:m.start()] + b"managed  99999999999" + data[m.end():], "first zone"

def m_pid(line):
    def f(data, rng):
        return re.sub(rb"(?m)^pid .*$", line, data, count=1), ""
    return f

# the status file's owner: a live pid (1) alone or with a start time that is
# not its own, a pid too large, none
STATUS_ONLY = [("pid1-no-starttime", m_pid(b"pid 1"), 1), ("pid1-starttime-0", m_pid(b"pid 1 0"), 1),
               ("pid1-wrong-starttime", m_pid(b"pid 1 1"), 1), ("pid-2p31", m_pid(b"pid 2147483648 1"), 1),
               ("pid-none", m_pid(b"#"), 1)]
KERNEL_ONLY = [("node-99999", m_node99999, 1), ("managed-huge", m_managed_huge, 1)]
CONFIG_ONLY = [("cgroup-nonutf8", m_conf_nonutf8_cgroup, 1), ("dup-section", m_conf_dup_section, 1),
               ("runtime-dir-root", m_conf_runtime_root, 1), ("key-2p64m1", m_conf_key_huge, 1),
               ("key-no-eq", m_conf_no_newline_eq, 1), ("section-open", m_conf_unterminated_section, 1)]
# file-type replacements: (name, kind)
KINDS = ["missing", "directory", "fifo", "symlink-dangling", "symlink-outside", "symlink-loop"]

# ---- cases --------------------------------------------------------------------

class Case:
    def __init__(self, cid, base, path, source, kind, func=None, sub=0, args=None, is_config=False,
                 is_runtime=False):
        self.id, self.base, self.path, self.source, self.kind = cid, base, path, source, kind
        self.func, self.sub, self.args, self.is_config = func, sub, args or [], is_config
        self.is_runtime = is_runtime
        self.detail = ""

def build_cases(seed):
    cases = []
    for base, targets in KERNEL_TARGETS.items():
        for path, source in targets:
            for name, func, n in MUTATIONS + KERNEL_ONLY:
                if name == "node-99999" and not path.endswith(("buddyinfo", "zoneinfo", "pagetypeinfo")):
                    continue
                if name == "managed-huge" and not path.endswith("zoneinfo"):
                    continue
                for k in range(n):
                    cid = "%s:%s:%s%s" % (base, path, name, "#%d" % k if n > 1 else "")
                    cases.append(Case(cid, base, path, source, "bytes", func, k))
            for kind in KINDS:
                cases.append(Case("%s:%s:%s" % (base, path, kind), base, path, source, kind))
    for path in CONFIG_TARGETS:
        for name, func, n in MUTATIONS + CONFIG_ONLY:
            for k in range(n):
                cid = "frag:%s:%s%s" % (path, name, "#%d" % k if n > 1 else "")
                cases.append(Case(cid, "frag", path, None, "bytes", func, k, is_config=True))
        for kind in KINDS:
            cases.append(Case("frag:%s:%s" % (path, kind), "frag", path, None, kind, is_config=True))
    # a drop-in directory entry that is a directory, FIFO or loop, not a file
    for kind in ["directory", "fifo", "symlink-dangling", "symlink-loop"]:
        p = "etc/fragd/fragd.conf.d/20-new.conf"
        cases.append(Case("frag:%s:%s" % (p, kind), "frag", p, None, kind, is_config=True))
    # what a killed fragd left in its runtime directory, for fragd status
    for path in RUNTIME_TARGETS:
        muts = MUTATIONS + STATUS_ONLY if path.endswith("status") else [("binary", m_binary, 1)]
        for name, func, n in muts:
            for k in range(n):
                cid = "rt:%s:%s%s" % (path, name, "#%d" % k if n > 1 else "")
                cases.append(Case(cid, "rt", path, None, "bytes", func, k, is_runtime=True))
        for kind in KINDS:
            cases.append(Case("rt:%s:%s" % (path, kind), "rt", path, None, kind, is_runtime=True))
    # the command line's page size
    for ps in ["4294967296", "4294971392", "0", "3", "-4096", "18446744073709551616", "4096x"]:
        cases.append(Case("frag:--page-size=%s" % ps, "frag", None, None, "args", args=["--page-size", ps]))
    for i, name in enumerate(hostile_unit_names(seed)):
        cases.append(Case("dropin:#%d" % i, None, None, None, "dropin", args=["thp-dropin", name, "never"]))
    return cases

# ---- hostile unit names (fragd thp-dropin) --------------------------------------

UNIT_TYPES = {b"service", b"socket", b"target", b"device", b"mount", b"automount", b"swap", b"timer", b"path",
              b"slice", b"scope"}
UNIT_CHARS = set(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\")

def unit_name_valid(b):
    """systemd.unit(5): [prefix][@instance].type, at most 255 bytes."""
    if not b or len(b) > 255 or b"\0" in b or b"." not in b:
        return False
    dot = b.rfind(b".")
    if b[dot + 1:] not in UNIT_TYPES:
        return False
    at = b.find(b"@", 0, dot)
    prefix = b[:dot] if at < 0 else b[:at]
    inst = b"" if at < 0 else b[at + 1:dot]
    return (len(prefix) > 0 and prefix[:1] != b"." and all(c in UNIT_CHARS for c in prefix)
            and all(c in UNIT_CHARS or c == 0x40 for c in inst))

HOSTILE_UNITS = [
    b"x.service\n[Service]\nExecStartPre=/tmp/evil\n#", b"../../../etc/passwd.service", b"a/b.service",
    b"x.service;rm -rf /", b"$(reboot).service", b"`id`.service", b"x'.service", b'x".service',
    b"\x1b]0;owned\x07\x1b[31mx.service", b"\x1b[2J.service", b"x\rservice.service", b"\x9b31m.service",
    b"\xff\xfe.service", b"caf\xc3\xa9.service", b"a" * 248 + b".service", b"a" * 247 + b".service",
    b"a" * 4096 + b".service", b".service", b"@.service", b"@x.service", b".hidden.service", b"x.",
    b"x.Service", b"postgresql", b"-", b"x.service ", b" x.service", b"x\ty.service",
    b"postgresql@.service", b"postgresql@15-main.service", b"a@b@c.service", b"dev-x\\x2dy.mount",
    b"x.scope", b"x.slice", b"%n.service", b"x%%.service", b"x.service.d", b"x.service/../y.service",
]

def hostile_unit_names(seed):
    """The fixed hostile names, then seeded mutations of a real one."""
    names = list(HOSTILE_UNITS)
    rng = random.Random("%d/thp-dropin" % seed)
    base = b"postgresql@15-main.service"
    pool = b"\n\r\t\x1b\x07\x7f/;$`'\" .@%*?[]\\\xc2\x9b\xff"
    for _ in range(40):
        b = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(b) + 1)
            op = rng.randrange(3)
            if op == 0:
                b[i:i] = bytes([rng.choice(pool)])
            elif op == 1 and i < len(b):
                del b[i]
            else:
                b[i:i] = bytes([rng.randrange(1, 256)])
        names.append(bytes(b))
    return [n for n in names if b"\0" not in n]

def check_dropin(case, res):
    """The oracle of a thp-dropin case (see the module's docstring)."""
    name = case.args[1]
    rc, out, err, _ = res["dropin"]
    why = []
    lines = err.rstrip(b"\n").split(b"\n")
    if any(re.search(rb"[\x00-\x1f\x7f]", l) for l in lines):
        why.append("stderr carries a control character: %r" % err[:120])
    if unit_name_valid(name):
        # a template or another unit type is refused for what it is, not as a name
        plain_service = name.endswith(b".service") and b"@." not in name
        if rc == 2 and (plain_service or not re.search(rb"is a template|is a \.[a-z]+ unit", err)):
            why.append("a valid name refused: %r" % err[:160])
    else:
        if rc != 2:
            why.append("a name systemd refuses was not refused (exit %d)" % rc)
        if out:
            why.append("stdout for a refused name: %r" % out[:80])
        if len(lines) != 1:
            why.append("more than one line on stderr: %r" % err[:160])
    for line in out.split(b"\n"):
        if line and not line.startswith((b"#", b"[Service]", b"ExecStart=", b"MemoryTHP=")):
            why.append("stdout line that is not the drop-in's: %r" % line[:80])
    return why

def case_rng(seed, cid):
    return random.Random("%d/%s" % (seed, cid))

# ---- running --------------------------------------------------------------------

def clone_tree(base, dst):
    # hard links: every mutation replaces a file (unlink first), never writes one
    subprocess.run(["cp", "-al", base, dst], check=True)

def replace_path(p):
    if not os.path.lexists(p):
        return
    if stat.S_ISDIR(os.lstat(p).st_mode):
        shutil.rmtree(p)
    else:
        os.unlink(p)

def apply_case(case, tree, victim_dir, seed):
    """Returns False when the mutation does not apply to this file."""
    if case.kind == "args":
        return True
    p = os.path.join(tree, case.path)
    if case.kind == "bytes":
        with open(p, "rb") as f:
            data = f.read()
        r = case.func(data, case_rng(seed, case.id))
        if r is None:
            return False
        new, case.detail = r
        replace_path(p)
        with open(p, "wb") as f:
            f.write(new)
        return True
    if os.path.lexists(p):
        replace_path(p)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if case.kind == "missing":
        pass
    elif case.kind == "directory":
        os.mkdir(p)
        with open(os.path.join(p, "x"), "w") as f:
            f.write("1\n")
    elif case.kind == "fifo":
        os.mkfifo(p)
    elif case.kind == "symlink-dangling":
        os.symlink("does-not-exist", p)
    elif case.kind == "symlink-loop":
        os.symlink(os.path.basename(p), p)
    elif case.kind == "symlink-outside":
        # an absolute link to a file outside the tree holding other, valid
        # content of the same kind: --root must contain every read
        v = os.path.join(victim_dir, case.id.replace("/", "_").replace(":", "_"))
        other = os.path.join(FIX, OUTSIDE[case.base], case.path) if not case.is_config else None
        if case.base == "pc":
            other = os.path.join(SRC, "tests", "corpus", "pagecache", OUTSIDE_PC[os.path.basename(case.path)])
        if case.is_runtime:
            # the status of a process that lives (pid 1, its start time): followed, it would read as running
            with open("/proc/1/stat") as f:
                st = f.read().rsplit(")", 1)[1].split()[19]
            with open(v, "w") as f:
                f.write(RT_STATUS.replace("pid 4194304 12345", "pid 1 %s" % st))
        elif other and os.path.isfile(other):
            shutil.copyfile(other, v)
        elif case.is_config:
            with open(v, "w") as f:
                f.write("[daemon]\nlog_level = debug\n[policy]\nreserve_thp = 3%\nreserve_always = yes\n")
        else:
            with open(v, "w") as f:
                f.write("7\n")
        os.symlink(v, p)
    return True

def run(cmd, timeout, env):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", e.stderr or b"", timeout

def strict_json(data):
    def bad_const(c):
        raise ValueError("non-JSON constant %s" % c)
    return json.loads(data.decode("utf-8"), parse_constant=bad_const)

SAN = re.compile(rb"(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|"
                 rb"SUMMARY: \w+Sanitizer)")

def meminfo_total(tree):
    with open(os.path.join(tree, "proc/meminfo")) as f:
        for l in f:
            if l.startswith("MemTotal:"):
                return int(l.split()[1]) * 1024
    return 0

KNOB_RANGE = {"compaction_proactiveness": (0, 100), "watermark_scale_factor": (1, 3000),
              "watermark_boost_factor": (0, 1 << 31), "extfrag_threshold": (0, 1000)}

def bounds(d, phys, page_size, mem_unknown_ok=False):
    """Physical-bounds and arithmetic violations in a JSON report. With
    mem_unknown_ok (fragd said zoneinfo was not read), a node memory of
    0 or null means "not measured", not "free exceeds memory"."""
    errs = []
    ps = d.get("page_size") or page_size
    for n in d.get("nodes") or []:
        nid = n.get("node")
        mem, free = n.get("memory_bytes") or 0, n.get("free_bytes") or 0
        if mem > phys:
            errs.append("node %s memory_bytes %d > MemTotal %d" % (nid, mem, phys))
        if free > mem and not (mem_unknown_ok and not mem):
            errs.append("node %s free_bytes %d > memory_bytes %d" % (nid, free, mem))
        zsum = 0
        for z in n.get("zones") or []:
            blocks = z.get("free_blocks") or []
            exact = sum(c * (1 << o) * ps for o, c in enumerate(blocks))
            if z.get("free_bytes") != exact:
                errs.append("node %s zone %s free_bytes %s != sum of free_blocks %d (overflow?)"
                            % (nid, z.get("zone"), z.get("free_bytes"), exact))
            zsum += exact
            fs = z.get("fragmentation_score")
            if fs is not None and not 0 <= fs <= 100:
                errs.append("zone score %s" % fs)
        if n.get("zones") and free != zsum:
            errs.append("node %s free_bytes %d != sum of zones %d" % (nid, free, zsum))
        ge = n.get("free_bytes_ge_order") or []
        if ge and (ge[0] != free or any(ge[i] < ge[i + 1] for i in range(len(ge) - 1))):
            errs.append("node %s free_bytes_ge_order inconsistent" % nid)
        sc = n.get("fragmentation_score")
        if sc is not None and not 0 <= sc <= 100:
            errs.append("node %s score %s" % (nid, sc))
        for k, v in (n.get("targets") or {}).items():
            if k.endswith("_bytes") and isinstance(v, int) and v > max(mem, 0) and mem > 0:
                errs.append("node %s target %s %d > node memory %d" % (nid, k, v, mem))
            if k.endswith("_bytes") and isinstance(v, int) and v > phys:
                errs.append("node %s target %s %d > MemTotal %d" % (nid, k, v, phys))
    pc = d.get("pagecache")
    if isinstance(pc, dict):
        o, sh = pc.get("order"), pc.get("order_share")
        if o is not None and not (isinstance(o, int) and 1 <= o < 16):
            errs.append("pagecache order %r" % o)
        if sh is not None and not 0 <= sh <= 1:
            errs.append("pagecache order_share %r" % sh)
        if (o is None) != (sh is None):
            errs.append("pagecache order %r without its share %r" % (o, sh))
        for i, v in enumerate(pc.get("added_bytes_by_order") or []):
            if not isinstance(v, int) or v < 0:
                errs.append("pagecache added_bytes_by_order[%d] = %r" % (i, v))
        b = pc.get("burst_bytes")
        if isinstance(b, int) and b > phys:
            errs.append("pagecache burst_bytes %d > MemTotal" % b)
    lr = d.get("learned")
    if isinstance(lr, dict):
        for k, v in lr.items():
            if k.endswith("bytes") and isinstance(v, int) and v > phys:
                errs.append("learned %s %d > MemTotal" % (k, v))
    for dec in d.get("decisions") or []:
        rng = KNOB_RANGE.get(dec.get("knob"))
        if rng and dec.get("to") is not None:
            try:
                v = int(dec["to"])
                if not rng[0] <= v <= rng[1]:
                    errs.append("decision %s -> %s outside %s" % (dec["knob"], v, rng))
            except ValueError:
                errs.append("decision %s -> %r not a number" % (dec["knob"], dec["to"]))
        if dec.get("knob") == "min_free_kbytes" and dec.get("to") is not None:
            if int(dec["to"]) * 1024 > phys:
                errs.append("decision min_free_kbytes -> %s above MemTotal" % dec["to"])
    return errs

def structure(d):
    return [(n.get("node"), [z.get("zone") for z in n.get("zones") or []]) for n in d.get("nodes") or []]

def fingerprint(d):
    return json.dumps([d.get(k) for k in ("nodes", "knobs", "psi_memory", "thp_sizes", "decisions",
                                            "page_size", "orders", "hpage_order")], sort_keys=True)

def names_for(case):
    names = set()
    if case.path:
        names.add(os.path.basename(case.path))
        parts = case.path.split("/")
        if len(parts) > 1:
            names.add("/".join(parts[-2:]))
    return {n.encode() for n in names}

def flagged(case, err_all, d):
    """fragd named the mutated file as bad: on stderr, or in the report's sources."""
    for n in names_for(case):
        if n in err_all:
            return True
    if d and case.source:
        v = (d.get("sources") or {}).get(case.source)
        if v not in (None, "ok"):
            return True
    return False

MET = re.compile(rb"target ([0-9.]+ ?[KMGTPE]?i?B): met")

EXIT_STATUS_OK = {1, 4, 5}  # fragd status with no daemon: cannot read, not running, knobs left

def check_status(res):
    """fragd status of a tree where no fragd runs: never running."""
    why = []
    rc_t, out_t, err_t, _ = res["status"]
    rc_j, out_j, err_j, _ = res["status-json"]
    if b"fragd is running" in out_t:
        why.append("status: says running: %s" % out_t.decode("utf-8", "replace").splitlines()[0][:120])
    if rc_t == 1 and not (out_t + err_t).strip():
        why.append("status: exit 1 without a message")
    if rc_j in (4, 5):
        try:
            d = strict_json(out_j)
            if d.get("state") not in ("stopped", "crashed"):
                why.append("status json: state %s with no fragd running" % d.get("state"))
        except (ValueError, UnicodeDecodeError) as e:
            why.append("status json: invalid JSON (%s)" % str(e)[:80])
    return why

def check_case(case, res, base_info):
    """List of failure reasons for one case."""
    why = []
    for label, (rc, out, err, _) in res.items():
        ok = EXIT_STATUS_OK if label.startswith("status") else EXIT_OK
        if rc == "timeout":
            why.append("%s: timeout" % label)
            continue
        if SAN.search(err):
            why.append("%s: sanitizer: %s" % (label, SAN.search(err).group(0).decode()))
        if rc < 0:
            why.append("%s: killed by signal %d" % (label, -rc))
        elif rc not in ok:
            why.append("%s: exit %d not in %s" % (label, rc, sorted(ok)))
    if why:
        return why
    if case.kind == "dropin":
        return check_dropin(case, res)
    if case.is_runtime:
        return check_status(res)
    rc_t, out_t, err_t, _ = res["text"]
    rc_j, out_j, err_j, _ = res["json"]
    rc_c, out_c, err_c, _ = res["check"]
    d = None
    if rc_j == 0:
        try:
            d = strict_json(out_j)
        except (ValueError, UnicodeDecodeError) as e:
            why.append("json: invalid JSON (%s)" % str(e)[:80])
    for label, (rc, out, err, _) in res.items():
        if rc == 0 and label != "json":
            try:
                out.decode("utf-8")
            except UnicodeDecodeError:
                why.append("%s: output is not UTF-8" % label)
    if case.kind == "args":
        # an impossible page size is a usage error, never silently used
        if rc_t == 0 or rc_j == 0:
            if not re.search(rb"page.size", err_t + err_j, re.I):
                why.append("page size %s accepted silently (exit 0)" % case.args[1])
        return why
    err_all = err_t + err_j + err_c
    if case.is_config and case.kind in ("directory", "fifo", "symlink-dangling", "symlink-loop"):
        if not any(n in err_all for n in names_for(case)):
            why.append("%s as %s skipped silently (no message names it)" % (case.path, case.kind))
    if case.is_config and case.kind == "symlink-outside" and b"reserve_thp = 3%" in out_c:
        why.append("configuration read through an absolute symlink out of --root")
    if case.is_config:
        for label, (rc, out, err, _) in res.items():
            if rc == 2 and not any(n in err for n in names_for(case)):
                why.append("%s: configuration refused without naming %s: %s"
                           % (label, case.path, err.decode("utf-8", "replace").strip()[:120]))
    if d is not None:
        phys, base_struct = base_info["phys"], base_info["structure"]
        fl = flagged(case, err_all, d)
        zi = (d.get("sources") or {}).get("zoneinfo")
        for b in bounds(d, phys, base_info["page_size"], mem_unknown_ok=zi not in (None, "ok")):
            why.append("json: " + b)
        if not fl and structure(d) != base_struct:
            why.append("nodes/zones changed silently: %s (was %s)" % (structure(d), base_struct))
        if case.kind == "symlink-outside" and not fl and fingerprint(d) != base_info["fingerprint"]:
            why.append("read %s through an absolute symlink out of --root (report changed, nothing said)"
                       % case.path)
        srcs = d.get("sources") or {}
        if any(srcs.get(s) not in (None, "ok") for s in ("buddyinfo", "zoneinfo")):
            for m in MET.finditer(out_t):
                if m.group(1).startswith(b"0 "):
                    why.append("text: 'target %s: met' while %s was not read"
                               % (m.group(1).decode(), [s for s in ("buddyinfo", "zoneinfo") if srcs.get(s) != "ok"]))
                    break
    return why


# ---- daemon cases: one fragd per root, configuration edited under it ------------

DAEMON_CASES = ["daemon:two-at-once", "daemon:second-after-pause", "daemon:dry-run-beside",
                "daemon:runtime-dir-edited-kill-restore", "daemon:runtime-dir-edited-kill-restart",
                "daemon:config-broken-kill-restore"]
DKNOBS = ["compaction_proactiveness", "watermark_scale_factor", "min_free_kbytes", "watermark_boost_factor",
          "extfrag_threshold"]

def wait_until(pred, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return pred()

def daemon_case(cid, fragd, base, work, env, timeout):
    """One daemon scenario on a private copy of the frag tree; the list of
    failure reasons."""
    why, procs, logs = [], [], []
    tree = os.path.join(work, cid.replace(":", "_"))
    shutil.copytree(base, tree, symlinks=True)  # a copy: the daemon writes knob files in place
    conf = os.path.join(tree, "etc/fragd/fragd.conf")
    with open(conf) as f:
        text = f.read().replace(base, tree)
    with open(conf, "w") as f:
        f.write(text)
    for dd in (textfile_dir(tree), tree + textfile_dir(tree)):
        os.makedirs(dd, exist_ok=True)
    vm = os.path.join(tree, "proc/sys/vm")
    orig = {k: open(os.path.join(vm, k), "rb").read() for k in DKNOBS}
    knob = os.path.join(vm, "compaction_proactiveness")
    # a knob file of the tree is truncated, then written: empty is a write
    # under way, not a raise (a kill -9 then leaves it empty)
    raised = lambda: open(knob, "rb").read() not in (orig["compaction_proactiveness"], b"")

    def start(*extra):
        log = open(os.path.join(tree, "log.%d" % len(logs)), "w+b")
        logs.append(log)
        p = subprocess.Popen([fragd, "--root", tree, "--page-size", "4096"] + list(extra),
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
        procs.append(p)
        return p, log

    def cmd(*args):
        rc, out, err, _ = run([fragd] + list(args) + ["--root", tree], timeout * 3, env)
        logs.append(None)
        if rc == "timeout" or SAN.search(err):
            why.append("%s: %s" % (" ".join(args), "timeout" if rc == "timeout" else "sanitizer"))
        return rc, out + err

    def text(log):
        log.flush()
        log.seek(0)
        return log.read()

    def refused(p, log, other, what):
        try:
            rc = p.wait(5)
        except subprocess.TimeoutExpired:
            why.append("%s runs beside pid %d" % (what, other.pid))
            p.terminate()
            p.wait()
            return
        if rc == 0 or rc not in EXIT_OK:
            why.append("%s exit %s beside pid %d" % (what, rc, other.pid))
        if b"pid %d " % other.pid not in text(log):
            why.append("%s refused without naming pid %d: %s" % (what, other.pid, text(log)[-200:]))

    def stop(p):
        p.terminate()
        try:
            return p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            why.append("SIGTERM: hung")
            return "timeout"

    def kill9(p):
        # not in the middle of a tick's writes: a knob file of the tree is
        # truncated then written (the kernel's never is), a kill between
        # the two would leave it empty
        time.sleep(0.5)
        p.kill()
        p.wait()

    def edit_runtime_dir(broken=False):
        with open(conf, "a") as f:
            if broken:  # the fallback of a configuration that does not load: /run/fragd
                f.write("[policy]\nreserve_thp = lots\n")
            else:
                f.write("[daemon]\nruntime_dir = /run/fragd-new\n")

    if cid == "daemon:config-broken-kill-restore":
        with open(conf, "a") as f:
            f.write("[daemon]\nruntime_dir = /run/fragd-a\n")

    try:
        a, la = start()
        if not wait_until(raised, 10):
            why.append("no raise in 10 s: %s" % text(la)[-200:])
        if cid == "daemon:two-at-once":
            kill9(a)
            cmd("--restore")
            a, la = start()
            b, lb = start()
            time.sleep(3)
            alive = [p for p in (a, b) if p.poll() is None]
            if len(alive) != 1:
                why.append("%d daemons run on one root" % len(alive))
            else:
                other, olog = (b, lb) if alive[0] is a else (a, la)
                refused(other, olog, alive[0], "the second of two daemons")
        elif cid == "daemon:second-after-pause":
            rc, out = cmd("pause")
            if rc != 0:
                why.append("pause: exit %s" % rc)
            b, lb = start()
            refused(b, lb, a, "a second daemon")
            cmd("resume")
            wait_until(raised, 10)
        elif cid == "daemon:dry-run-beside":
            b, lb = start("--dry-run")
            refused(b, lb, a, "fragd --dry-run")
            rc, out = cmd("status")
            if rc != 0 or b"pid %d" % a.pid not in out:
                why.append("status beside a dry run: exit %s: %s" % (rc, out[:120]))
        else:
            edit_runtime_dir(broken=cid == "daemon:config-broken-kill-restore")
            for args in (["status"], ["pause"], ["resume"]):
                rc, out = cmd(*args)
                if rc != 0:
                    why.append("%s: exit %s while the daemon runs (configuration edited): %s"
                               % (args[0], rc, out[-160:]))
            wait_until(raised, 10)
        if cid.endswith("-kill-restore"):
            kill9(a)
            rc, out = cmd("--restore", "--quiet-if-clean")
        elif cid.endswith("-kill-restart"):
            kill9(a)
            a, la = start()
            if not wait_until(lambda: b"running" in text(la), 10):
                why.append("no restart: %s" % text(la)[-200:])
        for p in procs:
            if p.poll() is None:
                rc = stop(p)
                if rc != 0:
                    why.append("SIGTERM: exit %s" % rc)
        for k in DKNOBS:
            now = open(os.path.join(vm, k), "rb").read()
            if now != orig[k]:
                why.append("knob %s is %r, not its original %r" % (k, now.strip(), orig[k].strip()))
        for log in logs:
            if log and SAN.search(text(log)):
                why.append("sanitizer: %s" % SAN.search(text(log)).group(0).decode())
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for log in logs:
            if log:
                log.close()
    return why

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fragd", default=os.environ.get("FRAGD", os.path.join(SRC, "build/fragd")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("ROBUST_SEED", DEFAULT_SEED)))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("ROBUST_JOBS", "4")))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("ROBUST_TIMEOUT", "2")))
    ap.add_argument("--subset", type=int, default=int(os.environ.get("ROBUST_SUBSET", "1")),
                    help="run every Nth case (sanitizer builds)")
    ap.add_argument("--only", action="append", default=[], help="case id (repeatable)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()

    cases = build_cases(a.seed)
    dcases = list(DAEMON_CASES)
    if a.only:
        cases = [c for c in cases if c.id in a.only]
        dcases = [c for c in dcases if c in a.only]
    elif a.subset > 1:
        cases = cases[::a.subset]
    if a.list:
        for c in cases:
            print(c.id)
        for c in dcases:
            print(c)
        return 0
    print("robust: seed %d, %d cases, %s, timeout %.0f s (reproduce: %s --seed %d --only CASE)"
          % (a.seed, len(cases), a.fragd, a.timeout, os.path.relpath(__file__, SRC), a.seed), flush=True)

    work = tempfile.mkdtemp(prefix="fragd-robust.")
    victim_dir = os.path.join(work, "outside")
    os.makedirs(victim_dir)
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.pop("JOURNAL_STREAM", None)
    bases, base_info = {}, {}
    for name in sorted({c.base for c in cases if c.base}):
        tree = make_base(work, name)
        bases[name] = tree
        ps = BASES[name][1]
        rc, out, err, _ = run([a.fragd, "--once", "--root", tree, "--page-size", str(ps), "--format", "json"],
                              a.timeout * 3, env)
        if rc != 0:
            print("robust: the unmutated tree %s fails (exit %s): %s" % (name, rc, err.decode()[-300:]))
            return 1
        d = strict_json(out)
        bad = bounds(d, meminfo_total(tree), ps)
        if bad:
            print("robust: the unmutated tree %s breaks the oracle: %s" % (name, bad))
            return 1
        base_info[name] = {"phys": meminfo_total(tree), "structure": structure(d), "page_size": ps,
                           "fingerprint": fingerprint(d)}

    dropin_env = dict(env, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + os.path.join(work, "no-bus"))

    def one(i, case):
        if case.kind == "dropin":
            res = {"dropin": run([a.fragd.encode()] + [x if isinstance(x, bytes) else x.encode() for x in case.args],
                                 a.timeout, dropin_env)}
            case.detail = repr(case.args[1])[:60]
            return case, res, check_case(case, res, None)
        tree = os.path.join(work, "t%04d" % i)
        clone_tree(bases[case.base], tree)
        # the config's absolute paths name the base tree: point them at this one
        conf = os.path.join(tree, "etc/fragd/fragd.conf")
        if os.path.isfile(conf) and not os.path.islink(conf):
            with open(conf, "rb") as f:
                data = f.read()
            os.unlink(conf)
            with open(conf, "wb") as f:
                f.write(data.replace(bases[case.base].encode(), tree.encode()))
        for dd in (textfile_dir(tree), tree + textfile_dir(tree)):
            os.makedirs(dd, exist_ok=True)
        if not apply_case(case, tree, victim_dir, a.seed):
            shutil.rmtree(tree, ignore_errors=True)
            return case, None, ["(mutation does not apply)"]
        ps = ["--page-size", str(BASES[case.base][1])] if case.kind != "args" else case.args
        common = ["--root", tree] + ps
        if case.is_runtime:
            res = {
                "status": run([a.fragd, "status", "--root", tree], a.timeout, env),
                "status-json": run([a.fragd, "status", "--root", tree, "--format", "json"], a.timeout, env),
            }
            why = check_case(case, res, base_info[case.base])
            if not a.keep:
                shutil.rmtree(tree, ignore_errors=True)
            return case, res, why
        res = {
            "text": run([a.fragd, "--once"] + common, a.timeout, env),
            "json": run([a.fragd, "--once"] + common + ["--format", "json"], a.timeout, env),
            "check": run([a.fragd, "--check-config"] + common, a.timeout, env),
        }
        why = check_case(case, res, base_info[case.base])
        if not a.keep:
            shutil.rmtree(tree, ignore_errors=True)
        return case, res, why

    t0 = time.monotonic()
    results = []
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(one, i, c) for i, c in enumerate(cases)]
        for fu in futs:
            results.append(fu.result())
    # FIFOs a hung fragd left open: nothing to do, the tree goes away
    n_pass = n_fail = n_skip = 0
    failed = []
    for case, res, why in results:
        if res is None:
            n_skip += 1
        elif why:
            n_fail += 1
            failed.append((case, why))
        else:
            n_pass += 1
            if a.verbose:
                print("PASS %s" % case.id)
    # the daemon cases, one after the other (each runs daemons for seconds)
    if dcases and "frag" not in bases:
        bases["frag"] = make_base(work, "frag")
    for cid in dcases:
        why = daemon_case(cid, a.fragd, bases["frag"], work, env, a.timeout)
        if why:
            n_fail += 1
            print("FAIL %s: %s" % (cid, "; ".join(why)))
        else:
            n_pass += 1
            if a.verbose:
                print("PASS %s" % cid)
    for case, why in failed:
        print("FAIL %s%s: %s" % (case.id, " (%s)" % case.detail if case.detail else "", "; ".join(why)))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("robust: work directory kept: %s (caseNNNN: the tree of case NNNN)" % work)
    print("robust: %d passed, %d failed; %d not applicable; seed %d; %.1f s"
          % (n_pass, n_fail, n_skip, a.seed, time.monotonic() - t0))
    return 1 if n_fail else 0

if __name__ == "__main__":
    sys.exit(main())
