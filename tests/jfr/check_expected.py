#!/usr/bin/env python3
"""Check heapsift's import of a fixture against the facts in its
X.expected.json, which were derived from the JDK's own `jfr print --json`
and `jfr summary` (fixtures/jfr/src/gen_refs.py), and against
X.summary.txt (`jfr summary`).

usage: check_expected.py X.expected.json X.summary.txt DUMP.tsv STATS.txt
  DUMP.tsv   heapsift dump --format=tsv --raw-names X.jfr
  STATS.txt  heapsift dump --stats X.jfr
Prints "ok: ..." lines, or the mismatches; exits 1 on any mismatch.
"""
import collections
import json
import re
import sys

from compare_tsv import ns

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: heapsift {got!r}, jfr {want!r}")


def main():
    exp = json.load(open(sys.argv[1]))
    summary = {}
    for line in open(sys.argv[2]):
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith("jdk.") and \
                parts[1].isdigit():
            summary[parts[0]] = int(parts[1])
    stats = {}
    for line in open(sys.argv[4]):
        parts = line.split()
        if len(parts) == 2 and not line.startswith("#"):
            stats[parts[0]] = int(parts[1])
    rows = collections.defaultdict(list)
    with open(sys.argv[3], encoding="utf-8") as f:
        f.readline()
        for line in f:
            c = line.rstrip("\n").split("\t")
            rows[c[0]].append(c)

    # every event type jfr summary counts, and nothing it does not
    expect("event types", {k: v for k, v in stats.items()},
           {k: v for k, v in summary.items() if v > 0})
    for name, n in exp["event_counts"].items():
        expect(f"count of {name}", stats.get(name, 0), n)

    a = exp["ObjectAllocationSample"]
    alloc = rows["alloc"]
    expect("alloc count", len(alloc), a["count"])
    expect("alloc sum of weight", sum(int(c[5]) for c in alloc),
           a["sum_weight"])
    if alloc:
        times = sorted(ns(c[1]) for c in alloc)
        if abs(times[0] - ns(a["first_startTime"])) > 1000 or \
                abs(times[-1] - ns(a["last_startTime"])) > 1000:
            failures.append("alloc first/last time differ by more than 1 us")
    expect("alloc distinct classes", len({c[4] for c in alloc}),
           a["distinct_classes"])
    expect("alloc truncated stacks", sum(c[6] == "true" for c in alloc),
           a["stacks_truncated"])
    # descriptors hold ';' too: count the ":line@bci:type" frame ends
    frame_end = re.compile(r":-?\d+@-?\d+:[A-Za-z ]+(?:;|$)")
    expect("alloc max stack depth",
           max((len(frame_end.findall(c[7])) for c in alloc), default=0),
           a["max_stack_depth"])
    by_thread = collections.Counter()
    for c in alloc:
        by_thread[c[3]] += int(c[5])
    for t in a["threads_by_weight"]:
        expect(f"alloc weight of thread {t['key']}", by_thread[t["key"]],
               t["weight"])
    by_class = collections.Counter()
    for c in alloc:
        by_class[c[4]] += int(c[5])
    for t in a["top_classes_by_weight"]:
        expect(f"alloc weight of class {t['key']}", by_class[t["key"]],
               t["weight"])

    for kind, name in (("tlab", "jdk.ObjectAllocationInNewTLAB"),
                       ("outside", "jdk.ObjectAllocationOutsideTLAB")):
        if name not in exp:
            continue
        r = rows[kind]
        expect(f"{kind} count", len(r), exp[name]["count"])
        expect(f"{kind} sum of allocationSize", sum(int(c[8]) for c in r),
               exp[name]["sum_allocationSize"])
        by_class = collections.Counter()
        for c in r:
            by_class[c[4]] += int(c[8])
        for t in exp[name]["top_classes_by_allocationSize"]:
            expect(f"{kind} allocationSize of class {t['key']}",
                   by_class[t["key"]], t["weight"])

    o = exp.get("OldObjectSample", {"count": 0, "with_stackTrace": 0,
                                     "roots": {},
                                     "top_object_classes_by_count": []})
    old = rows["old"]
    expect("old count", len(old), o["count"])
    expect("old with stack", sum(c[7] != "" for c in old),
           o["with_stackTrace"])
    roots = collections.Counter(c[9].split(" (")[0] for c in old if c[9])
    expect("old roots", dict(roots), o["roots"])
    by_class = collections.Counter(c[4] for c in old)
    for t in o["top_object_classes_by_count"]:
        expect(f"old objects of class {t['key']}", by_class[t["key"]],
               t["count"])

    g = exp.get("GCHeapSummary", {"count": 0})
    gc = rows["gc"]
    expect("gc count", len(gc), g["count"])
    if "by_when" in g:
        expect("gc by when", dict(collections.Counter(c[4] for c in gc)),
               g["by_when"])
    used = [int(c[5]) for c in gc]
    if used and "max_heapUsed" in g:
        expect("gc max heapUsed", max(used), g["max_heapUsed"])
        expect("gc min heapUsed", min(used), g["min_heapUsed"])

    if failures:
        for f in failures:
            print("  " + f)
        return 1
    print(f"ok: {len(alloc)} alloc, {len(rows['tlab'])} tlab, "
          f"{len(rows['outside'])} outside, {len(old)} old, {len(gc)} gc, "
          f"{len(stats)} event types as jfr counts them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
