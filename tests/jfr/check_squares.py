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

  check_squares.py STORE     prints what differs and exits 1, or prints
                             "N rows" and exits 0
"""
import collections
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from forge_store import read, sec, samples  # noqa: E402

REC_NONE = -2**63


def main():
    secs = read(sys.argv[1])
    names = [s[0] for s in secs]
    if "RBKT" not in names:
        print("0 rows")
        return
    if "RSQR" not in names:
        sys.exit("no RSQR section beside the rollups")
    bk, rows, sq = sec(secs, "RBKT"), sec(secs, "RROW"), sec(secs, "RSQR")
    if len(sq) != len(rows) // 48 * 16:
        sys.exit("RSQR holds %d bytes for %d rows" % (len(sq),
                                                       len(rows) // 48))
    est = sec(secs, "RCOR") if "RCOR" in names else None
    if est is not None and len(est) != len(rows) // 48 * 24:
        sys.exit("RCOR holds %d bytes for %d rows" % (len(est),
                                                       len(rows) // 48))
    by = collections.defaultdict(list)  # (kind, rec) -> samples
    for s in samples(secs):
        by[(s["kind"], s["rec"])].append(s)
    bad = 0
    n_rows = 0
    for b in range(0, len(bk), 48):
        k, p, _, rec, start, end, first, n, _, _ = struct.unpack_from(
            "<BBHIqqQIIQ", bk, b)
        want = collections.Counter()
        want_a = {}
        want_sq = collections.Counter()
        for s in by[(k, rec)]:
            if not start <= s["time"] <= end:
                continue
            key = (s["node"] if p in (0, 1) else 0,
                   s["cls"] if p in (0, 2) else 0,
                   s["thread"] if p in (0, 3) else 0,
                   s["flags"] if p == 0 else 0)
            v = 0 if s["bytes"] == REC_NONE else s["bytes"]
            want[key] += v * v
            if k == 0:
                r = max(s["rest"] or 0, 0)
                want_a[key] = min(want_a.get(key, 0) + r, 2**63 - 1)
                want_sq[key] += r * r
            elif k == 2:
                want_a[key] = min(want_a.get(key, v), v)
        for i in range(first, first + n):
            node, cls, thr, fl = struct.unpack_from("<IIII", rows, i * 48)
            lo, hi = struct.unpack_from("<QQ", sq, i * 16)
            got = hi << 64 | lo
            w = min(want[(node, cls, thr, fl)], 2**128 - 1)
            n_rows += 1
            if got != w:
                bad += 1
                if bad <= 10:
                    print("bucket %d (kind %d, projection %d) row %d: "
                          "squares %d, the samples' %d" %
                          (b // 48, k, p, i, got, w))
            if est is None:
                continue
            a, lo, hi = struct.unpack_from("<qQQ", est, i * 24)
            key = (node, cls, thr, fl)
            wa = want_a.get(key, 0)
            wsq = min(want_sq[key], 2**128 - 1)
            if (a, hi << 64 | lo) != (wa, wsq):
                bad += 1
                if bad <= 10:
                    print("bucket %d (kind %d, projection %d) row %d: "
                          "estimate sums %d, %d, the samples' %d, %d" %
                          (b // 48, k, p, i, a, hi << 64 | lo, wa, wsq))
    if bad:
        sys.exit("%d of %d rows differ" % (bad, n_rows))
    print("%d rows" % n_rows)


if __name__ == "__main__":
    main()
