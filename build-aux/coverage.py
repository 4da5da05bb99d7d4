#!/usr/bin/env python3
"""Line and branch coverage per module, from a --coverage build's counters.

usage: build-aux/coverage.py BUILD [--files]

Runs gcov (GCC's, JSON output) on every .gcda file under BUILD/src and
adds up, per module (src/DIR, and src/formats/NAME, one line each), the
lines that hold code and the lines that ran, and the branches (each way
of each condition the compiler emitted) and the branches taken at least
once.  Only files under src/ count: the tests' own code does not.  A
header's inline functions count in the header's module.  --files adds a
line per file, least covered first.

`make coverage` builds BUILD=build-cov with --coverage, runs the whole of
`make test` there, then this.  gcov's counters are updated atomically
(-fprofile-update=atomic), so the import's threads do not lose counts.
"""
import json
import os
import subprocess
import sys


def module(path):
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "formats":
        return "/".join(parts[:3])
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def collect(build):
    """{file: (lines {n: ran}, branches {(n, i): taken})} over every
    .gcda file under build/src, merged (a header is seen from many)."""
    files = {}
    gcdas = []
    for dirpath, _, names in os.walk(os.path.join(build, "src")):
        gcdas += [os.path.join(dirpath, n) for n in names if n.endswith(".gcda")]
    if not gcdas:
        sys.exit("coverage: no .gcda under %s/src: run the tests on a "
                 "--coverage build first (make coverage)" % build)
    for i in range(0, len(gcdas), 64):
        out = subprocess.run(["gcov", "-t", "-j", "-b"] + gcdas[i:i + 64],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             check=True, text=True).stdout
        # one JSON document per .gcda, one a line
        for doc in out.splitlines():
            if not doc.strip():
                continue
            for f in json.loads(doc)["files"]:
                name = os.path.normpath(f["file"])
                if not name.startswith("src/"):
                    continue
                lines, branches = files.setdefault(name, ({}, {}))
                for ln in f["lines"]:
                    n = ln["line_number"]
                    lines[n] = lines.get(n, False) or ln["count"] > 0
                    for k, b in enumerate(ln["branches"]):
                        key = (n, k)
                        branches[key] = branches.get(key, False) or b["count"] > 0
    return files


def pct(a, b):
    return "%5.1f%%" % (100.0 * a / b) if b else "    -"


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    files = collect(argv[0])
    mods = {}
    rows = []
    for name, (lines, branches) in files.items():
        c = (sum(lines.values()), len(lines), sum(branches.values()), len(branches))
        rows.append((name, c))
        m = mods.setdefault(module(name), [0, 0, 0, 0])
        for i in range(4):
            m[i] += c[i]
    total = [sum(m[i] for m in mods.values()) for i in range(4)]
    w = max(len(k) for k in list(mods) + ["total"])
    print("%-*s  %13s  %6s  %15s  %6s" % (w, "module", "lines", "", "branches", ""))
    for k in sorted(mods):
        m = mods[k]
        print("%-*s  %6d/%-6d  %s  %7d/%-7d  %s" % (w, k, m[0], m[1], pct(m[0], m[1]),
                                                   m[2], m[3], pct(m[2], m[3])))
    print("%-*s  %6d/%-6d  %s  %7d/%-7d  %s" % (w, "total", total[0], total[1],
                                               pct(total[0], total[1]), total[2],
                                               total[3], pct(total[2], total[3])))
    if "--files" in argv:
        print()
        for name, c in sorted(rows, key=lambda r: r[1][0] / max(r[1][1], 1)):
            print("%-50s %s  %s" % (name, pct(c[0], c[1]), pct(c[2], c[3])))


if __name__ == "__main__":
    main(sys.argv[1:])
