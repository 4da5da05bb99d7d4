#!/usr/bin/env python3
"""Forge damaged-but-checksummed stores for the regression tests: the
values a review found that once made heapsift crash, overflow or print
nonsense, each behind valid checksums so that only the content checks
and the queries stand between them and the user.

usage: forge_store.py GOOD.hsdb OUTDIR
Writes OUTDIR/NAME.hsdb for each case below, from GOOD.hsdb (a store
imported from a fixture with at least 3 samples).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_top import crc32c  # noqa: E402  (the suite's own CRC32C)


def read(path):
    d = open(path, "rb").read()
    toc_off, n = struct.unpack("<QI", d[24:36])
    secs = []
    for i in range(n):
        sid, rl, off, ln, _, _ = struct.unpack(
            "<4sIQQII", d[toc_off + 32 * i:toc_off + 32 * i + 32])
        secs.append([sid.decode(), rl, bytearray(d[off:off + ln])])
    return secs


def write(path, secs):
    """docs/formats/store.md, written independently of the C writer"""
    out = bytearray(64)
    toc = bytearray()
    for sid, rl, data in secs:
        while len(out) % 8:
            out.append(0)
        toc += struct.pack("<4sIQQII", sid.encode(), rl, len(out), len(data),
                           crc32c(bytes(data)), 0)
        out += data
    while len(out) % 8:
        out.append(0)
    toc_off = len(out)
    out += toc
    h = bytearray(struct.pack("<8sHHIQQIII", b"\x89HSDB\r\n\x1a", 1, 0, 64,
                              len(out), toc_off, len(secs),
                              crc32c(bytes(toc)), 0)) + bytes(20)
    struct.pack_into("<I", h, 40, crc32c(bytes(h)))
    out[0:64] = h
    open(path, "wb").write(out)


def sec(secs, sid):
    for s in secs:
        if s[0] == sid:
            return s[2]
    raise KeyError(sid)


def forge(good, outdir, name, change):
    secs = read(good)
    change(secs)
    write(os.path.join(outdir, name + ".hsdb"), secs)


def set_time(i, v):
    def f(secs):
        t = sec(secs, "STIM")
        struct.pack_into("<q", t, 8 * i, v)
    return f


def main():
    good, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    n = len(sec(read(good), "STIM")) // 8

    def times(first, last):
        def f(secs):
            t = sec(secs, "STIM")
            for i in range(n):
                v = first if i < n // 2 else last
                struct.pack_into("<q", t, 8 * i, v)
        return f
    # samples 292 years apart: the widest span int64 allows
    forge(good, outdir, "wide", times(-9 * 10**18, 9 * 10**18))
    # everything at the very bottom and top of int64
    forge(good, outdir, "extremes", times(-2**63, 2**63 - 1))
    # half a second before 1970
    forge(good, outdir, "pre1970", times(-500000000, -500000000))

    def bytes_to(v):
        def f(secs):
            b = sec(secs, "SBYT")
            for i in range(n):
                struct.pack_into("<q", b, 8 * i, v)
        return f
    forge(good, outdir, "hugebytes", bytes_to(2**62))
    forge(good, outdir, "negbytes", bytes_to(-2**62))

    def recording_times(secs):
        r = sec(secs, "RECS")
        struct.pack_into("<qq", r, 16, -2**63 + 5, 2**63 - 5)
    forge(good, outdir, "rectimes", recording_times)

    def empty(secs):
        for s in secs:
            if s[0] in ("RECS", "SETS", "ECNT", "OLDO", "HEAP") or \
                    s[0].startswith("S") and s[0] != "STRS":
                s[2] = bytearray()
    forge(good, outdir, "empty", empty)

    def deep(secs):
        # a chain of 100,000 nodes, every sample on the deepest
        frames = len(sec(secs, "FRAM")) // 16
        if frames == 0:
            return
        depth = 100000
        t = bytearray()
        t += struct.pack("<IIII", 0xFFFFFFFF, 0xFFFFFFFF, 0, depth + 1)
        for d in range(1, depth + 1):
            t += struct.pack("<IIII", d - 1, d % frames, d, depth + 1)
        for s in secs:
            if s[0] == "TRIE":
                s[2] = t
        nodes = sec(secs, "SNOD")
        for i in range(n):
            struct.pack_into("<I", nodes, 4 * i, depth)
    forge(good, outdir, "deep", deep)

    def not_depth_first(secs):
        t = sec(secs, "TRIE")
        # node 1 claims a subtree that swallows a node of another parent
        struct.pack_into("<I", t, 16 + 12, min(len(t) // 16, 42))
    forge(good, outdir, "notdfs", not_depth_first)


if __name__ == "__main__":
    main()
