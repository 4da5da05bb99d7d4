#!/usr/bin/env python3
"""Check a store's rollup squares (RSQR, docs/formats/store.md, 2.2) and
estimate sums (RCOR, 2.3) against its samples, decoded here from the format's
page (forge_store.py's reader), not by heapsift: for every rollup row, the
sum of the squares of the bytes (REC_NONE as 0) of the samples of its bucket
(kind, recording, start_ns to end_ns) whose key parts under the bucket's
projection are the row's, as a 128-bit integer held at 2^128 - 1, lo then
hi; and in RCOR, for ObjectAllocationSample the sum of those samples' rests
(below 0 as 0) and of their squares, for OutsideTLAB events their least
bytes, for every other kind zeros.

The whole recordings' rollups (RWBK, RWRO, RWSQ, RWCO, 3.1) are checked
the same way, and in full: each row's samples, bytes (held at 2^63 - 1),
first and last times too, every key of the recording's samples in its
span having a row, the bucket spanning exactly the time buckets of its
kind, projection and recording.

  check_squares.py STORE     prints what differs and exits 1, or prints
                             "N rows, M whole-recording rows" and exits 0
"""
import collections
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from forge_store import read, sec, samples  # noqa: E402

REC_NONE = -2**63


BUCKET = "<BBHIqqQIIQ"


def key_of(s, p):
    return (s["node"] if p in (0, 1) else 0,
            s["cls"] if p in (0, 2) else 0,
            s["thread"] if p in (0, 3) else 0,
            s["flags"] if p == 0 else 0)


def want_rows(by, k, p, rec, start, end):
    """Each key's samples, bytes, first, last, squares, estimate sums, of
    the samples of (kind, rec) with start <= time <= end."""
    want = {}
    for s in by[(k, rec)]:
        if not start <= s["time"] <= end:
            continue
        key = key_of(s, p)
        v = 0 if s["bytes"] == REC_NONE else s["bytes"]
        w = want.setdefault(key, [0, 0, s["time"], s["time"], 0, None, 0])
        w[0] += 1
        w[1] = min(w[1] + v, 2**63 - 1)
        w[2] = min(w[2], s["time"])
        w[3] = max(w[3], s["time"])
        w[4] = min(w[4] + v * v, 2**128 - 1)
        if k == 0:
            r = max(s["rest"] or 0, 0)
            w[5] = min((w[5] or 0) + r, 2**63 - 1)
            w[6] = min(w[6] + r * r, 2**128 - 1)
        elif k == 2:
            w[5] = v if w[5] is None else min(w[5], v)
    return want


def check_level(name, by, bk, rows, sq, est, full, report):
    """The rows of every bucket of bk against the samples: squares and
    estimate sums, and with full the rest of the row and its keys."""
    bad = n_rows = 0
    for b in range(0, len(bk), 48):
        k, p, _, rec, start, end, first, n, _, _ = struct.unpack_from(
            BUCKET, bk, b)
        want = want_rows(by, k, p, rec, start, end)
        if full and n != len(want):
            bad += 1
            report("%s bucket %d: %d rows, the samples have %d keys" %
                   (name, b // 48, n, len(want)))
        for i in range(first, first + n):
            row = struct.unpack_from("<IIIIQqqq", rows, i * 48)
            key = row[:4]
            w = want.get(key, [0, 0, 0, 0, 0, None, 0])
            lo, hi = struct.unpack_from("<QQ", sq, i * 16)
            got = [hi << 64 | lo]
            exp = [w[4]]
            if full:
                got += list(row[4:8])
                exp += w[0:4]
            if est is not None:
                a, lo, hi = struct.unpack_from("<qQQ", est, i * 24)
                got += [a, hi << 64 | lo]
                exp += [w[5] or 0, w[6]]
            n_rows += 1
            if got != exp:
                bad += 1
                report("%s bucket %d (kind %d, projection %d) row %d: "
                       "%s, the samples' %s" %
                       (name, b // 48, k, p, i, got, exp))
    return bad, n_rows


def main():
    secs = read(sys.argv[1])
    names = [s[0] for s in secs]
    if "RBKT" not in names:
        print("0 rows")
        return
    if "RSQR" not in names:
        sys.exit("no RSQR section beside the rollups")
    levels = [("RBKT", "RROW", "RSQR", "RCOR")]
    if "RWBK" in names:
        levels.append(("RWBK", "RWRO", "RWSQ", "RWCO"))
    for lv in levels:
        rows = sec(secs, lv[1])
        if len(sec(secs, lv[2])) != len(rows) // 48 * 16:
            sys.exit("%s does not hold one entry per row" % lv[2])
        if lv[3] in names and len(sec(secs, lv[3])) != len(rows) // 48 * 24:
            sys.exit("%s does not hold one entry per row" % lv[3])
    by = collections.defaultdict(list)  # (kind, rec) -> samples
    for s in samples(secs):
        by[(s["kind"], s["rec"])].append(s)
    shown = [0]

    def report(msg):
        shown[0] += 1
        if shown[0] <= 10:
            print(msg)
    bad = 0
    counts = []
    for i, lv in enumerate(levels):
        est = sec(secs, lv[3]) if lv[3] in names else None
        b, n = check_level(lv[0], by, sec(secs, lv[0]), sec(secs, lv[1]),
                           sec(secs, lv[2]), est, i == 1, report)
        bad += b
        counts.append(n)
    if len(levels) > 1:
        # each whole bucket spans its recording's time buckets
        spans = {}
        fine = sec(secs, "RBKT")
        for b in range(0, len(fine), 48):
            k, p, _, rec, start, end = struct.unpack_from(BUCKET, fine,
                                                          b)[:6]
            x = spans.setdefault((k, p, rec), [start, end, 0])
            x[0], x[1], x[2] = min(x[0], start), max(x[1], end), x[2] + 1
        whole = sec(secs, "RWBK")
        for b in range(0, len(whole), 48):
            k, p, _, rec, start, end = struct.unpack_from(BUCKET, whole,
                                                          b)[:6]
            x = spans.get((k, p, rec))
            if not x or x[2] < 2 or (x[0], x[1]) != (start, end):
                bad += 1
                report("RWBK bucket %d spans %d..%d, its time buckets %s" %
                       (b // 48, start, end, x))
    if bad:
        sys.exit("%d rows or buckets differ" % bad)
    print("%d rows, %d whole-recording rows" %
          (counts[0], counts[1] if len(counts) > 1 else 0))


if __name__ == "__main__":
    main()
