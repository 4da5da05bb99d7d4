#!/usr/bin/env python3
"""Expected values for heapsift's reading of async-profiler's recordings,
computed independently of heapsift: from the JDK's own `jfr print --json`
(which reads these files correctly) and the writer's definitions
(async-profiler src/objectSampler.cpp, src/allocTracer.cpp,
src/flightRecorder.cpp; docs/formats/jfr.md, "async-profiler").

    check_ap.py sites FILE.jfr KIND        per first frame: count, bytes
    check_ap.py stacks FILE.jfr KIND VALUE per stack (Class.method, root
                                           first, ';'): samples, bytes
                                           (heapsift's weights) or
                                           writer (async-profiler's own
                                           weights, what its converter
                                           sums with --total)
    check_ap.py ht FILE.jfr KIND SITE      SITE's estimate and its
                                           Horvitz-Thompson standard error

KIND is ap-alloc (InNewTLAB events with tlabSize = max(size, I)),
tlab (InNewTLAB events of the tlab mode), outside, ap-live.
"""
import json
import math
import subprocess
import sys

DEFAULT_INTERVAL = 524287  # async-profiler's DEFAULT_ALLOC_INTERVAL


def jfr_events(path, types):
    out = subprocess.run(
        ["jfr", "print", "--json", "--stack-depth", "4096", "--events", ",".join(types), path],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def interval(path):
    """The writer's "alloc" setting on its InNewTLAB type; 0 means the
    default interval (objectSampler.cpp: args._alloc > 0 ? ... )."""
    iv = None
    for e in jfr_events(path, ["jdk.ActiveSetting"]):
        v = e["values"]
        if v.get("name") == "alloc":
            iv = int(v["value"])
    return iv if iv else DEFAULT_INTERVAL


def ht(s, i):
    """s / (1 - exp(-s/I)), rounded as heapsift rounds each sample."""
    if s <= 0:
        return i
    return int(round(s / -math.expm1(-s / i)))


def frame_name(f):
    return f["method"]["type"]["name"].replace("/", ".") + "." + \
        f["method"]["name"]


def samples(path, kind):
    """(first frame 'Class.method:line', stack 'a;b;c' root first, bytes,
    writer weight) of each event of KIND."""
    i = interval(path)
    types = {"ap-alloc": "jdk.ObjectAllocationInNewTLAB",
             "tlab": "jdk.ObjectAllocationInNewTLAB",
             "outside": "jdk.ObjectAllocationOutsideTLAB",
             "ap-live": "profiler.LiveObject"}[kind]
    out = []
    for e in jfr_events(path, [types]):
        v = e["values"]
        frames = (v.get("stackTrace") or {}).get("frames") or []
        site = "%s:%d" % (frame_name(frames[0]), frames[0]["lineNumber"]) \
            if frames else ""
        stack = ";".join(frame_name(f) for f in reversed(frames))
        a = int(v["allocationSize"])
        if kind in ("ap-alloc", "tlab"):
            t = int(v["tlabSize"])
            sampled = t == max(a, i)
            if sampled != (kind == "ap-alloc"):
                continue
            out.append((site, stack, ht(a, i) if sampled else t, t, a))
        elif kind == "outside":
            out.append((site, stack, a, a, a))
        else:  # a live object weighs as the sample it was
            out.append((site, stack, ht(a, i), a, a))
    return out


def main():
    cmd, path, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = samples(path, kind)
    if cmd == "sites":
        acc = {}
        for site, _, b, _, _ in rows:
            n, s = acc.get(site, (0, 0))
            acc[site] = (n + 1, s + b)
        for site in sorted(acc):
            print("%s\t%d\t%d" % (site, acc[site][0], acc[site][1]))
    elif cmd == "stacks":
        col = {"samples": None, "bytes": 2, "writer": 3}[sys.argv[4]]
        acc = {}
        for r in rows:
            acc[r[1]] = acc.get(r[1], 0) + (1 if col is None else r[col])
        for k in sorted(acc):
            print("%s %d" % (k, acc[k]))
    elif cmd == "ht":
        site = sys.argv[4]
        est = var = 0
        for s_, _, w, _, size in rows:
            if s_ == site:
                est += w
                var += w * w - size * w
        print("%d %.0f" % (est, math.sqrt(max(var, 0))))


if __name__ == "__main__":
    main()
