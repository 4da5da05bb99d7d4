#!/usr/bin/env python3
"""Sum the samples of `go tool pprof -raw PROFILE` (read on stdin) by
their leaf location, for each sample type; written from pprof's -raw
text, not from heapsift's code.

usage: go tool pprof -raw p.pb.gz | pprof_raw.py [--function]

Prints "KEY<TAB>TYPE<TAB>VALUE" lines, sorted: KEY is the leaf's
"function:line" (with --function, the function alone), TYPE a sample
type ("alloc_space"), VALUE the sum.  The last lines, KEY "(total)",
sum every sample.
"""
import re
import sys


def main():
    by_function = "--function" in sys.argv[1:]
    section = None
    types, samples, locs = [], [], {}
    for line in sys.stdin:
        line = line.rstrip("\n")
        if re.match(r"^[A-Z][A-Za-z]*:?\s*$", line) or line.startswith(
                ("Samples:", "Locations", "Mappings")):
            section = line.split(":")[0].strip()
            continue
        if section == "Samples":
            if not types:
                types = [t.split("/")[0] for t in line.split()]
                continue
            m = re.match(r"^\s*([-\d\s]+):\s*([\d\s]*)$", line)
            if not m:
                continue  # a label line
            vals = [int(v) for v in m.group(1).split()]
            ids = [int(v) for v in m.group(2).split()]
            samples.append((vals, ids))
        elif section == "Locations":
            m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) :(-?\d+) s=",
                         line)
            if m:
                locs[int(m.group(1))] = (m.group(2), int(m.group(3)))
    sums = {}
    for vals, ids in samples:
        func, ln = locs[ids[0]]
        # line 0: not known (pprof's convention)
        key = func if by_function or ln == 0 else "%s:%d" % (func, ln)
        for k in (key, "(total)"):
            for t, v in zip(types, vals):
                sums[(k, t)] = sums.get((k, t), 0) + v
    for (k, t), v in sorted(sums.items()):
        print("%s\t%s\t%d" % (k, t, v))


if __name__ == "__main__":
    main()
