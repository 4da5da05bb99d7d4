#!/usr/bin/env python3
"""Checks `heapsift codeheap` and `heapsift report` on code-heap texts
of the truth corpus (fixtures/truth/codeheap/, made by
fixtures/truth/make-codeheap.sh) against the texts themselves, the
JDK's sources and the workload's printed truth, never against
heapsift's own output.

    check_codeheap.py states CODEHEAP.txt TRUTH.json CODELIST ANALYTICS
        CODEHEAP.txt is `heapsift codeheap` on a store of the JVM's
        code list (and its Compiler.codecache).  The numbering of the
        list's states comes from the JVM's version in TRUTH.json and
        the JDK's sources: JDK 17-22 (compiledMethod.hpp) 0 in use,
        1 not used, 2 not entrant; JDK 23 and later (nmethod.hpp) 0 in
        use, 1 not entrant.  The counts by state must be the list's
        own, so counted; every method listed as not entrant must be a
        `nMethod (deopt)` row (by the report's own legend) wherever the
        same JVM's analytics (ANALYTICS) has a row at its address, and
        at least one such row must exist; each method the workload
        deoptimized must be listed not entrant at least once.
    check_codeheap.py ambiguous CODEHEAP.txt CODELIST
        The code list imported alone, with no state 2 in it: its state
        1 must be called neither "not used" nor "not entrant".
    check_codeheap.py sizes CODEHEAP.txt CSV TEXT...
        CODEHEAP.txt and CSV are `heapsift codeheap` and `--csv` on a
        store of the TEXTs (Compiler.codecache or analytics reports,
        one snapshot each, in that order).  From each text's own lines:
        a summary's size= is the reserved size (size * 1024 equals the
        bounds' reserved end minus their start) and used + free is
        size, less the KB lost when each is rounded down; a report counts used and free inside the committed size
        of its "CodeHeap committed size" line.  Each heap's CSV figures
        must be the text's, and each text line that shows used and
        free must name the size they are parts of, as the text's
        arithmetic says, and show a size they fit in.
    check_codeheap.py onejvm REPORT.json N TEXT...
        REPORT.json is `heapsift report --format=json` on the TEXTs.
        The texts are of N JVMs (the cases say which, from how they
        were made); a text whose own lines say the code cache was full
        (full_count above 0, compilation disabled, "JIT is : off") must
        be named in the evidence of exactly one code-heap finding, and
        there must be exactly N code-heap findings, one per JVM.

Exit 0 when all holds; else what failed on stderr, exit 1.
"""
import gzip
import json
import os
import re
import sys


def read(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", errors="replace") as f:
        return f.read()


bad = []


def fail(msg):
    bad.append(msg)


# --- states ---------------------------------------------------------------

def numbering(java_version):
    major = int(java_version.split(".")[0])
    if major >= 23:
        return {0: "in use", 1: "not entrant"}
    return {0: "in use", 1: "not used", 2: "not entrant"}


CODELIST = re.compile(r"^(\d+) (\d) (\d) (.+) \[(0x[0-9a-f]+), (0x[0-9a-f]+) - (0x[0-9a-f]+)\]\s*$")


def codelist(path):
    return [m.groups() for m in map(CODELIST.match, read(path).splitlines()) if m]


def analytics_types(path):
    """address -> block type name, from the rows of every table under a
    legend, read through that legend (the letters move between JDKs)."""
    legend, types = {}, {}
    for line in read(path).splitlines():
        m = re.match(r"^  (.) - (\S.*?)\s*$", line)
        if m:
            legend[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^(0x[0-9a-f]{16}) \(\+0x[0-9a-f]{8}\) 0x[0-9a-f]+\(\s*\d+K\)\s+(\S)\s+(c1|c2|none|jvmci)\s", line)
        if m and m.group(2) in legend:
            types[int(m.group(1), 16)] = legend[m.group(2)]
    return types


def states(out_path, truth_path, list_path, an_path):
    out = read(out_path)
    truth = json.load(open(truth_path))
    names = numbering(truth["java_version"])
    rows = codelist(list_path)
    want = {}
    for r in rows:
        s = names.get(int(r[2]), "unknown")
        want[s] = want.get(s, 0) + 1
    m = re.search(r"^  by state: (.*)$", out, re.M)
    old = re.search(r"by state in use:(\d+) not used:(\d+) not entrant:(\d+)", out)
    if m:
        got = dict((k, int(v)) for k, v in re.findall(r"([a-z][a-z ()0-9+-]*?) (\d+)(?:,|$)", m.group(1)))
    elif old:  # the wording before the states had names per JDK
        got = dict((k, int(v)) for k, v in zip(("in use", "not used", "not entrant"), old.groups()) if int(v))
    else:
        fail("%s: no 'by state:' line" % out_path)
        return
    if got != want:
        fail("%s: states %s; the list (JDK %s numbering) has %s" % (out_path, got, truth["java_version"], want))
    listed = re.findall(r"^    not entrant\s+(\d+) (\d) (0x[0-9a-f]+) (.*)$", out, re.M)
    if not listed:
        fail("%s: no method listed as not entrant" % out_path)
    types = analytics_types(an_path)
    seen = 0
    for cid, lvl, addr, name in listed:
        t = types.get(int(addr, 16))
        if t is None:
            continue
        seen += 1
        if t != "nMethod (deopt)":
            fail("%s: %s (compile id %s, %s) is not entrant by heapsift, '%s' by the same JVM's analytics"
                 % (out_path, name, cid, addr, t))
    if not seen:
        fail("%s: no not-entrant method of the list is in the analytics' tables: nothing cross-checked" % out_path)
    # and the other way: every deopt row of the analytics that the list
    # has at that address is not entrant by the JDK's numbering
    by_addr = dict((int(r[4], 16), r) for r in rows)
    for a, t in types.items():
        if t == "nMethod (deopt)" and a in by_addr:
            s = names.get(int(by_addr[a][2]))
            if s != "not entrant":
                fail("%s: analytics says deopt at %#x, the list's state %s reads '%s'"
                     % (an_path, a, by_addr[a][2], s))
    for meth in truth["deoptimized"]:
        if not any(n == meth for _, _, _, n in listed):
            fail("%s: the workload deoptimized %s; not listed as not entrant" % (out_path, meth))


def ambiguous(out_path, list_path):
    out = read(out_path)
    rows = codelist(list_path)
    if any(r[2] == "2" for r in rows) or not any(r[2] == "1" for r in rows):
        fail("%s: the case needs a list with state 1 and no state 2" % list_path)
    m = re.search(r"^  by state: (.*)$", out, re.M)
    if not m:
        fail("%s: no 'by state:' line" % out_path)
        return
    parts = [p.strip() for p in m.group(1).split(",")]
    for p in parts:
        if re.fullmatch(r"(not used|not entrant) \d+", p):
            fail("%s: '%s' from a list whose JDK is not known" % (out_path, p))
    if not re.search(r"numbered as by an unknown JDK", out):
        fail("%s: does not say that the numbering is not known" % out_path)


# --- sizes -----------------------------------------------------------------

UNITS = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def human(s):
    v, u = s.split()
    return float(v) * UNITS[u]


def text_heaps(path):
    """(kind, [(heap, {size_is, size, used, free ...}), ...]) from the
    text itself."""
    t = read(path)
    heaps = []
    if "General JIT info" in t:
        cur = None
        for line in t.splitlines():
            m = re.search(r"for segment (CodeHeap.*?)\s+=$", line)
            if m and "(used blocks)" in line:
                cur = m.group(1)
            m = re.match(r"^   CodeHeap committed size (\d+)K \(\d+M\), reserved size (\d+)K", line)
            if m and cur:
                heaps.append([cur, {"size_is": "committed", "size": int(m.group(1)) * 1024,
                                    "reserved": int(m.group(2)) * 1024}])
            m = re.match(r"^\s*(freeSpace|usedSpace)\s*=\s*(\d+)k,", line)
            if m and heaps and heaps[-1][0] == cur:
                heaps[-1][1]["free" if m.group(1) == "freeSpace" else "used"] = int(m.group(2)) * 1024
        return "analytics", heaps
    lines = t.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(CodeHeap '[^']*'|CodeCache): size=(\d+)Kb used=(\d+)Kb max_used=(\d+)Kb free=(\d+)Kb", line)
        if not m:
            continue
        size, used, mx, free = (int(x) for x in m.groups()[1:])
        b = re.match(r"^ bounds \[(0x[0-9a-f]+), (0x[0-9a-f]+), (0x[0-9a-f]+)\]", lines[i + 1])
        lo, hi, res = (int(x, 16) for x in b.groups())
        # print_summary's own arithmetic (code/codeCache.cpp): size is
        # high_boundary - low_boundary, used is size - unallocated, free
        # unallocated, each divided by K and so rounded down
        if not size - 1 <= used + free <= size:
            fail("%s: %s used + free = %d KB, size %d KB: not the JDK's print_summary" % (path, m.group(1), used + free, size))
        if size * 1024 != res - lo:
            fail("%s: %s size %d KB is not the reserved range %d" % (path, m.group(1), size, res - lo))
        heaps.append([m.group(1), {"size_is": "reserved", "size": size * 1024, "reserved": size * 1024,
                                   "used": used * 1024, "free": free * 1024, "max_used": mx * 1024,
                                   "committed": hi - lo}])
    return "summary", heaps


def sizes(out_path, csv_path, texts):
    import csv
    out = read(out_path)
    rows = list(csv.DictReader(open(csv_path, newline="")))
    blocks = re.split(r"^snapshot \d+: ", out, flags=re.M)[1:]
    if len(blocks) != len(texts):
        fail("%s: %d snapshots, %d texts" % (out_path, len(blocks), len(texts)))
        return
    for snap, (path, block) in enumerate(zip(texts, blocks)):
        kind, heaps = text_heaps(path)
        if not heaps:
            fail("%s: no heap in the text" % path)
        for name, h in heaps:
            r = [x for x in rows if x["snapshot"] == str(snap) and x["heap"] == name]
            if len(r) != 1:
                fail("%s: %d CSV rows for %s" % (path, len(r), name))
                continue
            r = r[0]
            for key, col in (("used", "used"), ("free", "free"), ("reserved", "reserved")):
                if key in h and r[col] != str(h[key]):
                    fail("%s %s: CSV %s %s, the text %d" % (path, name, col, r[col], h[key]))
            want_cap = h.get("committed", h["size"] if kind == "analytics" else None)
            if want_cap is not None and r["capacity"] != str(want_cap):
                fail("%s %s: CSV capacity %s, committed by the text %d" % (path, name, r["capacity"], want_cap))
            # the text view: the heap's line of used and free names its size
            m = re.search(r"^  " + re.escape(name) + r"  \[.*\n(?:    .*\n)*?    used (\S+ \S+).*?, free (\S+ \S+)(?: in \d+ blocks)?, of the (\w+) (\S+ \S+)$",
                          block, re.M)
            if not m:
                fail("%s %s: no 'used ..., free ..., of the SIZE' line in: %s" % (path, name, block[:300]))
                continue
            u, f, what, s = human(m.group(1)), human(m.group(2)), m.group(3), human(m.group(4))
            if what != h["size_is"]:
                fail("%s %s: used and free shown against the %s size; the text's arithmetic says %s"
                     % (path, name, what, h["size_is"]))
            if abs(s - h["size"]) > 0.006 * h["size"] + 10:
                fail("%s %s: shown against %s bytes; the %s size is %d" % (path, name, m.group(4), what, h["size"]))
            if u + f > s * 1.006 + 10:
                fail("%s %s: used %s + free %s do not fit in the %s %s" % (path, name, m.group(1), m.group(2), what, m.group(4)))


# --- one JVM, one finding ----------------------------------------------------

def says_full(path):
    t = read(path)
    return bool(re.search(r"full_count=[1-9]", t) or re.search(r"[Cc]ompilation: disabled", t)
                or re.search(r"JIT is :\s+off", t))


def onejvm(rep_path, n, texts):
    r = json.load(open(rep_path))
    ch = [f for f in r["findings"] if f["rule"] == "code-heap"]
    if len(ch) != n:
        fail("%s: %d code-heap findings, %d JVMs: %s" % (rep_path, len(ch), n,
                                                           "; ".join(f["subject"] for f in ch)))
    full = [t for t in texts if says_full(t)]
    if not full:
        fail("the case has no text that says the cache was full: nothing to check")
    for t in full:
        b = os.path.basename(t)
        named = [f for f in ch if any(b in e for e in f["evidence"]) or b in f["subject"]]
        if len(named) != 1:
            fail("%s says the code cache was full; named by %d code-heap findings" % (t, len(named)))
        elif named[0]["severity"] != "critical":
            fail("%s: the finding naming it is %s, the JIT stopped" % (t, named[0]["severity"]))


def main():
    a = sys.argv[1:]
    if not a:
        raise SystemExit(__doc__)
    if a[0] == "states" and len(a) == 5:
        states(*a[1:])
    elif a[0] == "ambiguous" and len(a) == 3:
        ambiguous(*a[1:])
    elif a[0] == "sizes" and len(a) >= 4:
        sizes(a[1], a[2], a[3:])
    elif a[0] == "onejvm" and len(a) >= 4:
        onejvm(a[1], int(a[2]), a[3:])
    else:
        raise SystemExit(__doc__)
    if bad:
        sys.stderr.write("\n".join(bad) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
