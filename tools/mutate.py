#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Mutation testing of policy/ (make mutate; docs/policy.md "Mutation testing").

Each mutant is one small change to one policy/*.c file: a relational
operator flipped (< <= > >=, boundary and negation), == and != swapped,
+ and - swapped, * and / swapped, a numeric constant doubled, halved, +1
or -1, one condition of a && or || dropped, an expression statement, a
break or a continue deleted, an if's branch deleted (if (0)) or forced
(if (1)), a function returning at once (a zero value; true for bool).

For each mutant the mutated file is compiled (from a copy of policy/ in a
temporary directory: nothing is written into the source tree), the policy
library is linked again with it, and the pure policy tests (every
tests/unit/policy/test-*.c: they link the policy library, libc, libm and
cmocka only, tests/lint/pure-tests-link.sh) run against it, each with a
timeout. A mutant is killed when a test fails (or crashes), timeout when
a test runs past its limit, survived when every test passes, uncompilable
when the compiler refuses it. score = (killed + timeout) / (killed +
timeout + survived); uncompilable mutants and the equivalent ones listed
in tools/mutate-equivalent.txt do not count.

Speed: the tests are linked once against a shared build of the library
(the same objects, -fPIC), and each mutant relinks only that shared
object; unmutated objects are compiled once and reused. Line coverage of
the unmutated library (gcov, per test) decides which tests can see a
mutant: a mutant on a line that some tests execute runs those tests only
(fastest first); one on a line no test executes survives without a run
("not reached"); one on a line without code (a macro, a table) runs every
test. The mutant set is fixed by the source: a mutant's id hashes its
file, function, line text, position in that line and change, so ids stay
when other lines change, and --sample P keeps the same P % of the ids for
a given --seed."""

import argparse
import concurrent.futures
import difflib
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------- tokens --

TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+|\\\n)
  | (?P<nl>\n)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[uUlLfF]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[][(){};:,.?~!%^&|*/+<>=-])
  | (?P<other>.)
    """,
    re.S | re.X,
)


class Tok:
    __slots__ = ("kind", "text", "start", "end", "line", "pp")

    def __init__(self, kind, text, start, end, line, pp):
        self.kind, self.text, self.start, self.end, self.line, self.pp = kind, text, start, end, line, pp

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


def tokenize(src):
    """Significant tokens; pp is the directive of the preprocessor line
    a token belongs to ('define', 'include', ...) or None."""
    toks = []
    line = 1
    pos = 0
    at_line_start = True
    pp = None
    while pos < len(src):
        m = TOKEN_RE.match(src, pos)
        kind = m.lastgroup
        text = m.group()
        if kind == "nl":
            pp = None
            at_line_start = True
        elif kind in ("ws", "comment"):
            pass
        elif at_line_start and text == "#":
            dm = re.compile(r"#\s*(\w+)").match(src, pos)
            pp = dm.group(1) if dm else "null"
            at_line_start = False
        else:
            at_line_start = False
            toks.append(Tok(kind, text, m.start(), m.end(), line, pp))
        line += text.count("\n")
        pos = m.end()
    return toks


C_TYPE_WORDS = {
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "bool", "_Bool",
    "const", "volatile", "static", "struct", "enum", "union", "__int128", "register", "inline", "extern",
}
KEYWORDS = C_TYPE_WORDS | {
    "if", "else", "for", "while", "do", "switch", "case", "default", "return", "break", "continue", "goto",
    "sizeof", "typedef", "_Static_assert", "__attribute__", "_Alignof", "__typeof__", "typeof",
}
SCALAR_TYPES = {"bool", "int", "unsigned", "long", "short", "char", "double", "float", "signed", "_Bool"}


def is_type_name(t):
    """A type by this code base's naming: C type words, *_t, CamelCase."""
    if t.kind != "ident":
        return False
    x = t.text
    return x in C_TYPE_WORDS or x.endswith("_t") or bool(re.match(r"^[A-Z][a-z0-9]+[A-Za-z0-9]*$", x))


def ends_operand(t):
    return (t.kind in ("ident", "number", "string", "char") and t.text not in KEYWORDS) or t.text in (")", "]")


def match_forward(toks, i):
    """Index of the bracket closing toks[i]."""
    open_, close = toks[i].text, {"(": ")", "[": "]", "{": "}"}[toks[i].text]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


# ------------------------------------------------------------- mutations --


class Mutant:
    __slots__ = ("file", "func", "line", "end_line", "op", "edits", "desc", "key", "id", "tests", "reach")

    def __init__(self, file, func, line, end_line, op, edits, desc):
        self.file, self.func, self.line, self.end_line = file, func, line, end_line
        self.op, self.edits, self.desc = op, edits, desc  # edits: [(start, end, text)]
        self.key = self.id = None
        self.tests = None
        self.reach = None


def fmt_number(v, proto):
    """v written like the literal proto (suffix kept; a float stays one)."""
    suffix = re.search(r"[uUlLfF]*$", proto).group() if not proto.lower().startswith("0x") else re.search(
        r"[uUlL]*$", proto).group()
    if isinstance(v, float):
        s = repr(v)
        if "e" not in s and "." not in s:
            s += ".0"
        return s + suffix
    if v < 0:
        return f"({v}{suffix})"
    return f"{v}{suffix}"


def number_value(text):
    t = text.rstrip("uUlLfF") if not text.lower().startswith("0x") else text.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if re.search(r"[.eE]", t):
        return float(t)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


def const_mutants(tok):
    v = number_value(tok.text)
    out = []
    if isinstance(v, float):
        cands = [(v * 2, "x2"), (v / 2, "/2"), (v + 1, "+1"), (v - 1, "-1")]
    else:
        cands = [(v * 2, "x2"), (v // 2, "/2"), (v + 1, "+1"), (v - 1, "-1")]
    seen = {v}
    for nv, what in cands:
        if nv in seen:
            continue
        seen.add(nv)
        out.append((fmt_number(nv, tok.text), f"constant {tok.text} {what} -> {fmt_number(nv, tok.text)}"))
    return out


REL_FLIPS = {
    "<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="], ">=": [">", "<"],
    "==": ["!="], "!=": ["=="],
}
ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}

LEFT_STOP = {";", ",", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "?", ":", "{", "}",
             "return"}


def operand_span(toks, i, direction, op):
    """Token index range of the operand of the && / || at toks[i]."""
    stops = LEFT_STOP | ({"&&", "||"} if op == "&&" else {"||"})
    depth = 0
    j = i + direction
    last = i
    while 0 <= j < len(toks):
        x = toks[j].text
        if direction < 0:
            if x in (")", "]"):
                depth += 1
            elif x in ("(", "["):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and x in stops:
                break
        else:
            if x in ("(", "["):
                depth += 1
            elif x in (")", "]"):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and x in stops:
                break
        last = j
        j += direction
    if last == i:
        return None
    return (min(i + direction, last), max(i + direction, last))


def find_functions(toks):
    """[(name, return type text, body open index, body close index)] of the
    function definitions at file scope."""
    funcs = []
    depth = 0
    decl_start = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.pp:
            i += 1
            continue
        if depth == 0:
            if t.text in (";", "}"):
                decl_start = i + 1
            elif t.text == "{":
                prev = i - 1
                if prev >= 0 and toks[prev].text == ")":
                    # find the '(' opening the parameter list
                    d = 0
                    k = prev
                    while k >= 0:
                        if toks[k].text == ")":
                            d += 1
                        elif toks[k].text == "(":
                            d -= 1
                            if d == 0:
                                break
                        k -= 1
                    name_i = k - 1
                    if name_i >= 0 and toks[name_i].kind == "ident":
                        start = decl_start
                        while start < name_i and toks[start].pp:
                            start += 1
                        rt = [x.text for x in toks[start:name_i]
                              if not x.pp and x.text not in ("static", "inline", "extern")
                              and not re.match(r"^_\w+_$", x.text)]
                        close = match_forward(toks, i)
                        funcs.append((toks[name_i].text, " ".join(rt).replace(" *", "*"), i, close))
                        i = close + 1
                        decl_start = i
                        continue
                depth += 1
            i += 1
            continue
        if t.text == "{":
            depth += 1
        elif t.text == "}":
            depth -= 1
            if depth == 0:
                decl_start = i + 1
        i += 1
    return funcs


def is_declaration(toks, a, b):
    t0 = toks[a]
    if t0.text in C_TYPE_WORDS:
        return True
    if is_type_name(t0) and a + 1 <= b and (toks[a + 1].kind == "ident" or toks[a + 1].text == "*"):
        return True
    return False


def statement_mutants(toks, body_open, body_close):
    """Deleted statements and branches inside one function body."""
    out = []  # (op, tok_a, tok_b, replacement, desc)
    stmt_start = True
    i = body_open + 1
    paren = 0
    while i < body_close:
        t = toks[i]
        if t.text in ("{", "}", ";"):
            stmt_start = True
            i += 1
            continue
        if not stmt_start:
            i += 1
            continue
        stmt_start = False
        x = t.text
        if x in ("if", "while", "for", "switch"):
            # the header's parentheses
            if i + 1 < body_close and toks[i + 1].text == "(":
                close = match_forward(toks, i + 1)
                if x == "if":
                    cond = (i + 2, close - 1)
                    out.append(("branch", cond[0], cond[1], "0", "if branch deleted: if (0)"))
                    out.append(("branch", cond[0], cond[1], "1", "if condition dropped: if (1)"))
                i = close + 1
                stmt_start = True
                continue
        if x in ("else", "do"):
            i += 1
            stmt_start = True
            continue
        if x in ("case", "default"):
            while i < body_close and toks[i].text != ":":
                i += 1
            i += 1
            stmt_start = True
            continue
        if x in ("return", "goto"):
            i += 1
            continue
        if t.kind == "ident" and i + 1 < body_close and toks[i + 1].text == ":" and x not in KEYWORDS:
            i += 2  # a label
            stmt_start = True
            continue
        # a declaration or an expression statement, to the ';' at depth 0
        j = i
        depth = 0
        while j < body_close:
            y = toks[j].text
            if y in ("(", "[", "{"):
                depth += 1
            elif y in (")", "]", "}"):
                depth -= 1
            elif y == ";" and depth == 0:
                break
            j += 1
        if j >= body_close:
            i += 1
            continue
        if x in ("break", "continue"):
            out.append(("delete", i, j - 1, "", f"'{x};' deleted"))
        elif not is_declaration(toks, i, j - 1):
            out.append(("delete", i, j - 1, "", "statement deleted"))
        i = j  # the ';' resets stmt_start
    return out


def mutants_of(relpath, src):
    toks = tokenize(src)
    funcs = find_functions(toks)
    func_at = {}
    for name, rt, a, b in funcs:
        for k in range(a, b + 1):
            func_at[k] = (name, rt, a, b)

    # file-scope initializers: '=' at depth 0 .. ';'
    init_tok = set()
    depth = 0
    in_init = False
    for k, t in enumerate(toks):
        if t.pp or k in func_at:
            continue
        if t.text in ("{", "("):
            depth += 1
        elif t.text in ("}", ")"):
            depth -= 1
        elif t.text == "=" and depth == 0:
            in_init = True
            continue
        elif t.text == ";" and depth == 0:
            in_init = False
        if in_init:
            init_tok.add(k)

    raw = []  # (op, tok_a, tok_b, replacement, desc)
    for k, t in enumerate(toks):
        in_body = k in func_at
        in_define = t.pp == "define"
        if t.pp and not in_define:
            continue
        if in_define and k > 0 and toks[k - 1].pp == "define" and toks[k - 1].text == "define":
            continue  # the macro's name
        if not (in_body or in_define or k in init_tok):
            continue
        x = t.text
        if t.kind == "number":
            for rep, desc in const_mutants(t):
                raw.append(("constant", k, k, rep, desc))
            continue
        if t.kind != "punct":
            continue
        prev = toks[k - 1] if k > 0 else None
        if x in REL_FLIPS:
            for y in REL_FLIPS[x]:
                kind = "relational" if x not in ("==", "!=") else "equality"
                raw.append((kind, k, k, y, f"'{x}' -> '{y}'"))
        elif x in ("+", "-", "*", "/") and prev is not None and ends_operand(prev) and not (
                x == "*" and is_type_name(prev)) and prev.pp == t.pp:
            raw.append(("arithmetic", k, k, ARITH[x], f"'{x}' -> '{ARITH[x]}'"))
        elif x in ("+=", "-=", "*=", "/="):
            raw.append(("arithmetic", k, k, ARITH[x], f"'{x}' -> '{ARITH[x]}'"))
        elif x in ("&&", "||") and in_body:
            keep = "1" if x == "&&" else "0"
            for direction, side in ((-1, "left"), (1, "right")):
                span = operand_span(toks, k, direction, x)
                if span:
                    text = src[toks[span[0]].start:toks[span[1]].end]
                    raw.append(("condition", span[0], span[1], keep,
                                f"{side} condition of '{x}' dropped: {squash(text)} -> {keep}"))
    for name, rt, a, b in funcs:
        raw.extend(statement_mutants(toks, a, b))
        if rt in ("void", ""):
            rets = [("return;", "return at once")]
        else:
            rets = [(f"return ({rt}){{0}};", f"return at once: ({rt}){{0}}")]
            if rt in ("bool", "_Bool"):
                rets.append(("return true;", "return at once: true"))
        for ins, desc in rets:
            raw.append(("return", a, a, "{ " + ins, desc))

    out = []
    seen = set()
    for op, ta, tb, rep, desc in raw:
        start, end = toks[ta].start, toks[tb].end
        if (start, end, rep) in seen:
            continue
        seen.add((start, end, rep))
        f = func_at.get(ta)
        fname = f[0] if f else ("#define" if toks[ta].pp else "(file scope)")
        m = Mutant(relpath, fname, toks[ta].line, toks[tb].line, op, [(start, end, rep)], desc)
        out.append(m)

    # stable ids: file, function, the line's text, the change's place in it
    lines = src.split("\n")
    for m in out:
        start, end, rep = m.edits[0]
        line_start = src.rfind("\n", 0, start) + 1
        line_text = lines[m.line - 1].strip()
        col = start - line_start - (len(lines[m.line - 1]) - len(lines[m.line - 1].lstrip()))
        orig = squash(src[start:end])
        m.key = f"{relpath}|{m.func}|{line_text}|{col}|{orig}|{rep}"
        m.id = hashlib.sha1(m.key.encode()).hexdigest()[:10]
    # the rare clash (the same change twice on two identical lines of one
    # function) gets the occurrence number
    count = {}
    for m in out:
        n = count.get(m.id, 0)
        count[m.id] = n + 1
        if n:
            m.id = hashlib.sha1(f"{m.key}|{n}".encode()).hexdigest()[:10]
    return out


def squash(s):
    s = " ".join(s.split())
    return s if len(s) <= 60 else s[:57] + "..."


def apply_mutant(src, m):
    out = src
    for start, end, rep in sorted(m.edits, reverse=True):
        out = out[:start] + rep + out[end:]
    return out


def mutant_diff(src, m):
    mut = apply_mutant(src, m)
    d = difflib.unified_diff(src.splitlines(True), mut.splitlines(True), f"a/{m.file}", f"b/{m.file}", n=1)
    return "".join(d)


# ---------------------------------------------------------------- runner --


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


class Runner:
    def __init__(self, args):
        self.a = args
        self.src = os.path.abspath(args.srcdir)
        self.work = tempfile.mkdtemp(prefix="fragd-mutate-")
        self.cc = args.cc
        self.cflags = shlex.split(args.cflags)
        cm = run(["pkg-config", "--cflags", "cmocka"])
        self.cmocka_cflags = shlex.split(cm.stdout) if cm.returncode == 0 else []
        cm = run(["pkg-config", "--libs", "cmocka"])
        self.cmocka_libs = shlex.split(cm.stdout) if cm.returncode == 0 else ["-lcmocka"]
        self.pure_cppflags = ["-I" + os.path.join(self.work, "include"), "-D_GNU_SOURCE"]
        shutil.copytree(os.path.join(self.src, "policy"), os.path.join(self.work, "policy"))
        shutil.copytree(os.path.join(self.src, "include"), os.path.join(self.work, "include"))
        shutil.copytree(os.path.join(self.src, "tests/unit/policy"), os.path.join(self.work, "tests/unit/policy"))
        self.files = sorted(f for f in os.listdir(os.path.join(self.work, "policy")) if f.endswith(".c"))
        self.tests = sorted(f[:-2] for f in os.listdir(os.path.join(self.work, "tests/unit/policy"))
                            if f.startswith("test-") and f.endswith(".c"))
        self.lock = threading.Lock()

    def cleanup(self):
        if self.a.keep:
            print(f"mutate: work directory kept: {self.work}")
        else:
            shutil.rmtree(self.work, ignore_errors=True)

    def compile(self, src, obj, extra=()):
        return run([self.cc, *self.pure_cppflags, *self.cflags, "-fPIC", *extra, "-c", "-o", obj, src])

    def die(self, msg, out=""):
        sys.stderr.write(f"mutate: {msg}\n{out}")
        self.cleanup()
        sys.exit(2)

    def build_base(self):
        w = self.work
        os.makedirs(f"{w}/base", exist_ok=True)
        os.makedirs(f"{w}/bin", exist_ok=True)
        jobs = []
        with concurrent.futures.ThreadPoolExecutor(self.a.jobs) as ex:
            for f in self.files:
                jobs.append(ex.submit(self.compile, f"{w}/policy/{f}", f"{w}/base/{f[:-2]}.o"))
            for t in self.tests:
                jobs.append(ex.submit(run, [self.cc, *self.pure_cppflags, *self.cmocka_cflags, *self.cflags,
                                            "-c", "-o", f"{w}/bin/{t}.o", f"{w}/tests/unit/policy/{t}.c"]))
        for j in jobs:
            r = j.result()
            if r.returncode:
                self.die("the unmutated sources do not compile", r.stdout)
        r = self.link_so(f"{w}/base", {})
        if r.returncode:
            self.die("the unmutated library does not link", r.stdout)
        for t in self.tests:
            r = run([self.cc, "-o", f"{w}/bin/{t}", f"{w}/bin/{t}.o", f"-L{w}/base", "-lpolicy",
                     *self.cmocka_libs, "-lm"])
            if r.returncode:
                self.die(f"{t} does not link", r.stdout)
        # every test passes unmutated; its time sets its limit
        self.test_time = {}
        for t in self.tests:
            t0 = time.monotonic()
            r = self.run_test(t, f"{w}/base", 120)
            self.test_time[t] = time.monotonic() - t0
            if r != "pass":
                self.die(f"{t} fails on the unmutated sources ({r}): fix that first")

    def link_so(self, libdir, replace):
        """libdir/libpolicy.so from the base objects, replace maps a base
        object's name to a mutated object."""
        objs = [replace.get(f[:-2], f"{self.work}/base/{f[:-2]}.o") for f in self.files]
        return run([self.cc, "-shared", "-o", f"{libdir}/libpolicy.so", *objs, "-lm"])

    def run_test(self, t, libdir, limit):
        env = dict(os.environ, LD_LIBRARY_PATH=libdir, FRAGD_SRCDIR=self.src)
        env.pop("FRAGD_DEBUG", None)
        try:
            r = subprocess.run([f"{self.work}/bin/{t}"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=limit, start_new_session=True)
        except subprocess.TimeoutExpired:
            return "timeout"
        return "pass" if r.returncode == 0 else "fail"

    def limit(self, t):
        return self.a.timeout_factor * self.test_time[t] + self.a.timeout_floor

    # -- coverage: which tests execute which line --------------------------
    def coverage(self):
        w = self.work
        d = f"{w}/cov"
        os.makedirs(d, exist_ok=True)
        objs = []
        for f in self.files:
            obj = f"{d}/{f[:-2]}.o"
            r = run([self.cc, *self.pure_cppflags, "-std=gnu17", "-O0", "--coverage", "-c", "-o", obj,
                     f"{w}/policy/{f}"], cwd=d)
            if r.returncode:
                self.die("coverage build failed", r.stdout)
            objs.append(obj)
        run(["ar", "rcs", f"{d}/libpolicy.a", *objs])
        cov = {}  # (file, line) -> set(tests); (file, line) with no entry: no code
        code_lines = set()
        for t in self.tests:
            exe = f"{d}/{t}"
            r = run([self.cc, "--coverage", "-o", exe, f"{w}/bin/{t}.o", f"{d}/libpolicy.a",
                     *self.cmocka_libs, "-lm"])
            if r.returncode:
                self.die(f"coverage link of {t} failed", r.stdout)
            for g in os.listdir(d):
                if g.endswith(".gcda"):
                    os.unlink(os.path.join(d, g))
            subprocess.run([exe], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, FRAGD_SRCDIR=self.src), timeout=600)
            gcdas = sorted(g for g in os.listdir(d) if g.endswith(".gcda"))
            if not gcdas:
                continue
            r = subprocess.run(["gcov", "--json-format", "--stdout", *gcdas], cwd=d, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            for doc in r.stdout.decode().splitlines():
                doc = doc.strip()
                if not doc.startswith("{"):
                    continue
                j = json.loads(doc)
                for fe in j.get("files", []):
                    name = os.path.basename(fe["file"])
                    for ln in fe.get("lines", []):
                        code_lines.add((name, ln["line_number"]))
                        if ln["count"] > 0:
                            cov.setdefault((name, ln["line_number"]), set()).add(t)
        return cov, code_lines

    # -- one mutant -----------------------------------------------------------
    def run_mutant(self, m, slot):
        w = self.work
        d = f"{w}/slot{slot}"
        os.makedirs(d, exist_ok=True)
        base = os.path.basename(m.file)
        with open(f"{w}/policy/{base}") as f:
            src = f.read()
        msrc = f"{d}/policy/{base}"
        os.makedirs(f"{d}/policy", exist_ok=True)
        # the file's neighbours (controller-internal.h, ...) by relative include
        for h in os.listdir(f"{w}/policy"):
            if h.endswith(".h") and not os.path.exists(f"{d}/policy/{h}"):
                os.symlink(f"{w}/policy/{h}", f"{d}/policy/{h}")
        with open(msrc, "w") as f:
            f.write(apply_mutant(src, m))
        obj = f"{d}/{base[:-2]}.o"
        r = self.compile(msrc, obj)
        if r.returncode:
            return "uncompilable", None
        if m.reach == "none":
            return "survived", None
        r = self.link_so(d, {base[:-2]: obj})
        if r.returncode:
            return "uncompilable", None
        for t in m.tests:
            res = self.run_test(t, d, self.limit(t))
            if res == "fail":
                return "killed", t
            if res == "timeout":
                return "timeout", t
        return "survived", None


def load_equivalent(path):
    eq = {}
    if not path or not os.path.exists(path):
        return eq
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            mid = s.split()[0]
            reason = s.split("--", 1)[1].strip() if "--" in s else ""
            if not re.match(r"^[0-9a-f]{10}$", mid) or not reason:
                sys.exit(f"mutate: {path}:{n}: expected '<id> <file:line> <change> -- <reason>'")
            eq[mid] = (reason, n, s.split()[1].split(":")[0] if len(s.split()) > 1 else "")
    return eq


def selected(m, seed, sample):
    if sample >= 100:
        return True
    h = int(hashlib.sha1(f"{seed}|{m.id}".encode()).hexdigest()[:8], 16)
    return h % 10000 < sample * 100


def main():
    p = argparse.ArgumentParser(description="mutation testing of policy/ (docs/policy.md)")
    p.add_argument("--srcdir", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--cc", default=os.environ.get("CC", "cc"))
    p.add_argument("--cflags", default="-std=gnu17 -O1 -w",
                   help="flags for the mutants and the tests (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="the sample's seed (default %(default)s)")
    p.add_argument("--sample", type=float, default=100.0,
                   help="percent of the mutants to run, the same ones for a seed (default %(default)s)")
    p.add_argument("--files", nargs="*", help="policy/*.c files to mutate (default: all)")
    p.add_argument("--ops", help="comma-separated operator classes (relational, equality, arithmetic, "
                   "constant, condition, delete, branch, return)")
    p.add_argument("--lines", help="FILE:FROM-TO, only mutants on those lines")
    p.add_argument("--ids", help="a file of mutant ids (first word of each line, e.g. the SURVIVED lines "
                   "of a report with 'SURVIVED' cut), only those")
    p.add_argument("--timeout-factor", type=float, default=10.0,
                   help="a test's limit: its unmutated time times this plus --timeout-floor")
    p.add_argument("--timeout-floor", type=float, default=2.0)
    p.add_argument("--equivalent", default=None, help="the exclusions file (default tools/mutate-equivalent.txt)")
    p.add_argument("--report", help="write the report (text) here too; the JSON goes beside it (.json)")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--min-score", type=float, default=None, help="exit 1 when the score is lower")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args()
    src = os.path.abspath(a.srcdir)
    eq_path = a.equivalent or os.path.join(src, "tools/mutate-equivalent.txt")

    files = a.files or sorted(f"policy/{f}" for f in os.listdir(os.path.join(src, "policy")) if f.endswith(".c"))
    files = [f if f.startswith("policy/") else f"policy/{os.path.basename(f)}" for f in files]
    sources = {}
    allm = []
    for f in files:
        with open(os.path.join(src, f)) as fh:
            sources[f] = fh.read()
        allm.extend(mutants_of(f, sources[f]))
    if a.ops:
        ops = set(a.ops.split(","))
        allm = [m for m in allm if m.op in ops]
    if a.lines:
        lf, rng = a.lines.rsplit(":", 1)
        lo, _, hi = rng.partition("-")
        lo, hi = int(lo), int(hi or lo)
        allm = [m for m in allm if m.file.endswith(lf) and lo <= m.line <= hi]
    if a.ids:
        with open(a.ids) as fh:
            want = {ln.split()[0] for ln in fh if ln.strip() and not ln.startswith("#")}
        allm = [m for m in allm if m.id in want]
    eq = load_equivalent(eq_path)
    ids = {m.id for m in allm}
    # an exclusion is stale when its file was mutated whole and no mutant has its id
    whole = not (a.ops or a.lines or a.ids)
    stale = [(mid, n) for mid, (_, n, f) in eq.items() if whole and f in sources and mid not in ids]
    mutants = [m for m in allm if selected(m, a.seed, a.sample)]
    excluded = [m for m in mutants if m.id in eq]
    mutants = [m for m in mutants if m.id not in eq]

    if a.list:
        for m in mutants:
            print(f"{m.id} {m.file}:{m.line} {m.func}: {m.op}: {m.desc}")
        print(f"{len(mutants)} mutants ({len(allm)} in all, {len(excluded)} excluded as equivalent)")
        return 0

    # a SIGTERM (or the make's SIGINT) still removes the work directory
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    r = Runner(a)
    t0 = time.monotonic()
    try:
        r.build_base()
        cov, code_lines = r.coverage()
        fast_first = sorted(r.tests, key=lambda t: r.test_time[t])
        for m in mutants:
            base = os.path.basename(m.file)
            lines = [ln for ln in range(m.line, m.end_line + 1) if (base, ln) in code_lines]
            if m.op == "return":
                # reached when the function is called: its body's lines
                with_code = [ln for ln in range(m.line, m.line + 400) if (base, ln) in code_lines]
                lines = with_code[:1]
            if not lines:
                m.reach, m.tests = "all", fast_first
                continue
            ts = set()
            for ln in lines:
                ts |= cov.get((base, ln), set())
            m.reach = "some" if ts else "none"
            m.tests = [t for t in fast_first if t in ts]

        results = {}
        done = [0]
        slots = list(range(a.jobs))
        slot_lock = threading.Lock()

        def work(m):
            with slot_lock:
                slot = slots.pop()
            try:
                res = r.run_mutant(m, slot)
            finally:
                with slot_lock:
                    slots.append(slot)
            with r.lock:
                done[0] += 1
                if not a.quiet and (done[0] % 100 == 0 or done[0] == len(mutants)):
                    el = time.monotonic() - t0
                    sys.stderr.write(f"mutate: {done[0]}/{len(mutants)} mutants, {el:.0f} s\n")
            return m, res

        # the long ones first, so the two jobs end together
        order = sorted(mutants, key=lambda m: -len(m.tests))
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            for m, res in ex.map(work, order):
                results[m.id] = res
        elapsed = time.monotonic() - t0
    finally:
        r.cleanup()

    return report(a, src, sources, allm, mutants, excluded, stale, results, elapsed, eq_path)


def report(a, src, sources, allm, mutants, excluded, stale, results, elapsed, eq_path):
    n = {"killed": 0, "timeout": 0, "survived": 0, "uncompilable": 0}
    for m in mutants:
        n[results[m.id][0]] += 1
    counted = n["killed"] + n["timeout"] + n["survived"]
    score = 100.0 * (n["killed"] + n["timeout"]) / counted if counted else 100.0
    out = []
    survivors = sorted((m for m in mutants if results[m.id][0] == "survived"), key=lambda m: (m.file, m.line))
    for m in survivors:
        why = "not reached by any test" if m.reach == "none" else f"{len(m.tests)} tests ran"
        out.append(f"SURVIVED {m.id} {m.file}:{m.line} {m.func}: {m.op}: {m.desc} ({why})")
        out.append(mutant_diff(sources[m.file], m).rstrip("\n"))
        out.append("")
    timeouts = [m for m in mutants if results[m.id][0] == "timeout"]
    for m in sorted(timeouts, key=lambda m: (m.file, m.line)):
        out.append(f"timeout {m.id} {m.file}:{m.line} {m.func}: {m.op}: {m.desc} ({results[m.id][1]})")
    per_file = {}
    for m in mutants:
        pf = per_file.setdefault(m.file, {"killed": 0, "timeout": 0, "survived": 0, "uncompilable": 0})
        pf[results[m.id][0]] += 1
    out.append("")
    out.append(f"{'file':<24} {'killed':>7} {'timeout':>7} {'survived':>8} {'uncomp.':>7} {'score':>7}")
    for f in sorted(per_file):
        pf = per_file[f]
        c = pf["killed"] + pf["timeout"] + pf["survived"]
        s = 100.0 * (pf["killed"] + pf["timeout"]) / c if c else 100.0
        out.append(f"{f:<24} {pf['killed']:>7} {pf['timeout']:>7} {pf['survived']:>8} {pf['uncompilable']:>7} "
                   f"{s:>6.1f}%")
    for mid, line in stale:
        out.append(f"mutate: {os.path.relpath(eq_path, src)}:{line}: {mid} matches no mutant any more: remove it")
    sample = f", sample {a.sample:g} % (seed {a.seed}) of {len(allm)}" if a.sample < 100 else ""
    out.append(f"mutants: {len(mutants)}{sample}, {len(excluded)} excluded as equivalent; "
               f"killed {n['killed']}, timeout {n['timeout']}, survived {n['survived']}, "
               f"uncompilable {n['uncompilable']}")
    out.append(f"mutation score: {score:.1f}% ((killed + timeout) / (killed + timeout + survived)), "
               f"{elapsed:.0f} s with -j{a.jobs}")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if a.report:
        os.makedirs(os.path.dirname(os.path.abspath(a.report)), exist_ok=True)
        with open(a.report, "w") as f:
            f.write(text)
        with open(os.path.splitext(a.report)[0] + ".json", "w") as f:
            json.dump({"score": round(score, 2), "counts": n, "elapsed_s": round(elapsed),
                       "sample_percent": a.sample, "seed": a.seed,
                       "mutants": [{"id": m.id, "file": m.file, "line": m.line, "function": m.func, "op": m.op,
                                    "change": m.desc, "result": results[m.id][0],
                                    "killed_by": results[m.id][1]} for m in mutants]}, f, indent=1)
    if stale:
        return 1
    if a.min_score is not None and score < a.min_score:
        sys.stderr.write(f"mutate: score {score:.1f}% is under {a.min_score:g}%\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
