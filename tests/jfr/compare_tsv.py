#!/usr/bin/env python3
"""Compare `heapsift dump --format=tsv --raw-names --events=alloc` with a
fixture's ObjectAllocationSample.tsv.gz reference (made by the JDK's own
`jfr print --json`).  Both are multisets of events; file order differs.
An event matches when thread id, thread name, class, weight, truncated
flag and every frame are equal and the times are within 1 microsecond
(the `jfr` tool converts later chunks with the first chunk's time base).

usage: compare_tsv.py REFERENCE.tsv.gz DUMP.tsv
Prints one line: "N events match" or the first differences; exits 1 on
any difference.
"""
import collections
import datetime
import gzip
import sys


def ns(iso):
    # 2026-11-21T23:17:10.240804680Z
    date, frac = iso.rstrip("Z").split(".")
    t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0"))


def load(lines):
    events = collections.defaultdict(list)
    n = 0
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\n").split("\t")
        key = tuple(cols[1:])
        events[key].append(ns(cols[0]))
        n += 1
    return events, n


def main():
    ref_path, dump_path = sys.argv[1], sys.argv[2]
    with gzip.open(ref_path, "rt", encoding="utf-8") as f:
        ref, n_ref = load(f)
    rows = []
    with open(dump_path, encoding="utf-8") as f:
        header = f.readline()
        assert header.startswith("kind\t"), header
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if cols[0] != "alloc":
                continue
            # the reference's columns; heapsift adds more after them
            rows.append("\t".join(cols[1:8]) + "\n")
    got, n_got = load(rows)
    problems = []
    if n_ref != n_got:
        problems.append(f"count: reference {n_ref}, heapsift {n_got}")
    for key in set(ref) | set(got):
        a, b = sorted(ref.get(key, [])), sorted(got.get(key, []))
        if len(a) != len(b):
            problems.append(f"{len(a)} in reference, {len(b)} in heapsift: "
                            f"{key[:4]} {key[5][:200]}")
            continue
        for x, y in zip(a, b):
            if abs(x - y) > 1000:
                problems.append(f"time {x} vs {y} ({y - x} ns) for {key[:4]}")
                break
    if problems:
        for p in problems[:10]:
            print("  " + p)
        print(f"{len(problems)} differences")
        return 1
    print(f"{n_got} events match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
