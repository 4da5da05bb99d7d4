#!/usr/bin/env python3
"""Check what heapsift shows for a make_jfr.py recording: every weight
and size exact up to INT64_MAX, beyond it "not recorded" (an empty field,
0 in sums; docs/formats/jfr.md), and sums past INT64_MAX held at
INT64_MAX, never wrapped.

usage:
  check_big.py json OUT.json VALUE...
      the JDK's `jfr print --json` of the recording reads each VALUE as
      the Java long of its 64 bits (checks the writer, not heapsift)
  check_big.py heapsift DIR VALUE...
      DIR holds top-alloc.csv, top-tlab.csv, top-outside.csv (top --csv
      --by=class --kind=K), tree-K.csv (tree --csv --depth=0), tl-K.csv
      (timeline --csv --bucket=1s) and export/ (export --format=csv)
"""
import csv
import os
import sys

I64 = (1 << 63) - 1
KINDS = {"alloc": ("W", "jdk.ObjectAllocationSample"),
         "tlab": ("T", "jdk.ObjectAllocationInNewTLAB"),
         "outside": ("O", "jdk.ObjectAllocationOutsideTLAB")}
problems = []


def java_long(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def kept(v):
    """what heapsift must keep of a JFR long that is a size"""
    return v if v <= I64 else None


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def cmd_json(path, values):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from json_to_tsv import events
    want = {}
    for v in values:
        want[("jdk.ObjectAllocationSample", "W%d" % v, "weight")] = v
        want[("jdk.ObjectAllocationInNewTLAB", "T%d" % v, "tlabSize")] = v
        want[("jdk.ObjectAllocationOutsideTLAB", "O%d" % v,
              "allocationSize")] = v
    seen = 0
    for e in events(path):
        val = e["values"]
        name = val["objectClass"]["name"]
        for (t, c, field), v in want.items():
            if t == e["type"] and c == name:
                seen += 1
                if val.get(field) != java_long(v):
                    problems.append(f"jfr print: {t} {c} {field} "
                                    f"{val.get(field)}, written {v}")
    if seen != 3 * len(values):
        problems.append(f"jfr print shows {seen} of the {3 * len(values)} "
                        f"events")


def cmd_heapsift(d, values):
    for kind, (p, _) in KINDS.items():
        total = sum(kept(v) or 0 for v in values)
        sat = min(total, I64)
        got = {r["class"]: r for r in rows(f"{d}/top-{kind}.csv")}
        # a value given twice is one class of two samples: a sum
        for v in sorted(set(values)):
            r = got.get(f"{p}{v}")
            if not r:
                problems.append(f"top --kind={kind}: no row {p}{v}")
                continue
            n = values.count(v)
            want = min(n * (kept(v) or 0), I64)
            if (int(r["samples"]), int(r["est_bytes"])) != (n, want):
                problems.append(f"top --kind={kind} {p}{v}: samples "
                                f"{r['samples']}, est_bytes "
                                f"{r['est_bytes']}; expected {n}, {want}")
        if len(got) != len(set(values)):
            problems.append(f"top --kind={kind}: {len(got)} rows")
        tree = rows(f"{d}/tree-{kind}.csv")
        root = [r for r in tree if r["path"] == ""]
        if not root or int(root[0]["est_bytes"]) != sat or \
                int(root[0]["samples"]) != len(values):
            problems.append(f"tree --kind={kind}: root {root[:1]}, expected "
                            f"{len(values)} samples, {sat} bytes (the sum "
                            f"{total} held at INT64_MAX)")
        tl = rows(f"{d}/tl-{kind}.csv")
        if len(tl) != 1 or int(tl[0]["est_bytes"]) != sat:
            problems.append(f"timeline --kind={kind}: {tl}, expected one "
                            f"bucket of {sat} bytes")
    ex = d + "/export"
    names = {r["id"]: r["name"] for r in rows(ex + "/classes.csv")}
    seen = 0
    for r in rows(ex + "/samples.csv"):
        name = names.get(r["class"], "")
        v = int(name[1:]) if name[1:].isdigit() else None
        kind = {k[1]: (n, k[0]) for n, k in KINDS.items()}.get(r["kind"])
        if v is None or kind is None or name[0] != kind[1]:
            problems.append(f"export: sample {r} of an unknown class")
            continue
        seen += 1
        k = kept(v)
        want_bytes = "" if k is None else str(k)
        want_size = {"alloc": "", "tlab": "16",
                     "outside": want_bytes}[kind[0]]
        if (r["est_bytes"], r["size"]) != (want_bytes, want_size):
            problems.append(f"export {name}: est_bytes {r['est_bytes']!r}, "
                            f"size {r['size']!r}; expected {want_bytes!r}, "
                            f"{want_size!r}")
    if seen != 3 * len(values):
        problems.append(f"export: {seen} samples, expected {3 * len(values)}")


def main():
    values = [int(v) for v in sys.argv[3:]]
    if not values:
        sys.exit(__doc__)
    if sys.argv[1] == "json":
        cmd_json(sys.argv[2], values)
    else:
        cmd_heapsift(sys.argv[2], values)
    if problems:
        print("\n".join(problems[:30]))
        return 1
    print(f"{len(values)} values match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
