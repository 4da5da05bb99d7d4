#!/usr/bin/env python3
"""Check the jdk.OldObjectSample times and facts heapsift keeps against
the JDK's own reader, to the nanosecond.

usage: check_old.py OLD.json EXPORT_DIR DUMP.tsv
  OLD.json   `jfr print --json --events jdk.OldObjectSample X.jfr`
  EXPORT_DIR `heapsift export --format=csv` of a store of X.jfr alone
  DUMP.tsv   `heapsift dump --format=tsv --events=old X.jfr`

Every event must appear once in each (a multiset: the order differs):
in the export, samples.time_ns = startTime, old_objects.alloc_time_ns =
allocationTime, age_ns = objectAge, last_heap_used = lastKnownHeapUsage,
array_elements = arrayElements (empty where the JDK writes INT_MIN, "not
an array", docs/formats/jfr.md), object_size = objectSize (empty where
the event has none: JDK 17's have no such field); in the dump, startTime
as printed.
The recording must be a single chunk: `jfr print` converts later chunks
with the first chunk's time base, and then only agrees within ~100 ns.
"""
import collections
import csv
import datetime
import re
import sys


def ns(iso):
    date, _, frac = iso.rstrip("Z").partition(".")
    t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0"))


def duration_ns(d):
    # ISO 8601 durations as jfr prints them: PT7.82295046S, PT1M2.5S
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?", d)
    if not m:
        raise ValueError(d)
    h, mi, s, f = m.groups()
    return ((int(h or 0) * 60 + int(mi or 0)) * 60 + int(s or 0)) * \
        1_000_000_000 + int((f or "").ljust(9, "0"))


def main():
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from json_to_tsv import events
    want, want_start = collections.Counter(), collections.Counter()
    for e in events(sys.argv[1], "jdk.OldObjectSample"):
        v = e["values"]
        ae = v.get("arrayElements")
        want[(ns(v["startTime"]), ns(v["allocationTime"]),
              duration_ns(v["objectAge"]), v["lastKnownHeapUsage"],
              None if ae is None or ae < 0 else ae,
              v.get("objectSize"))] += 1
        want_start[ns(v["startTime"])] += 1
    if not want:
        print("the JSON has no jdk.OldObjectSample: nothing to check")
        return 1
    d = sys.argv[2]
    times = {}
    with open(d + "/samples.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "jdk.OldObjectSample":
                times[r["id"]] = int(r["time_ns"])
    got = collections.Counter()
    with open(d + "/old_objects.csv", newline="") as f:
        for r in csv.DictReader(f):
            opt = (lambda x: int(x) if x != "" else None)
            got[(times.get(r["sample"]), int(r["alloc_time_ns"]),
                 int(r["age_ns"]), opt(r["last_heap_used"]),
                 opt(r["array_elements"]), opt(r["object_size"]))] += 1
    got_start = collections.Counter()
    with open(sys.argv[3], encoding="utf-8") as f:
        for line in f:
            c = line.split("\t")
            if c[0] == "old":
                got_start[ns(c[1])] += 1
    bad = []
    for k in (want - got):
        bad.append(f"export lacks {k} (jfr print) x{(want - got)[k]}")
    for k in (got - want):
        bad.append(f"export has {k}, jfr print does not x{(got - want)[k]}")
    for k in (want_start - got_start):
        bad.append(f"dump lacks startTime {k}")
    for k in (got_start - want_start):
        bad.append(f"dump has startTime {k}, jfr print does not")
    if bad:
        print("\n".join(sorted(bad)[:20]))
        print(f"{len(bad)} differences")
        return 1
    print(f"{sum(want.values())} old object samples match to the ns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
