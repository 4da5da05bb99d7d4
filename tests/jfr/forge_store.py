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
    # 4.0 with the node map, 3.0 with the corrected estimate's sections,
    # 3.1 with the whole recordings' rollups too, else 2.0's layout
    names = [x[0] for x in secs]
    major = 4 if "NMAP" in names else 3 if "ESTM" in names else 2
    minor = 1 if major == 3 and "RWBK" in names else 0
    h = bytearray(struct.pack("<8sHHIQQIII", b"\x89HSDB\r\n\x1a", major,
                              minor,
                              64,
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


# The sample blocks (docs/formats/store.md, "sample blocks"), decoded and
# encoded here independently of the C code.
SIZED = (1, 4)  # kinds with a size of their own
NONE = 0xFFFFFFFF


def uv(b, p):
    v = shift = 0
    while True:
        x = b[p]
        p += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            return v, p


def put_uv(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return out


def unzig(u):
    return (u >> 1) ^ -(u & 1)


def zig(v):
    return ((v << 1) ^ (v >> 63)) & (2**64 - 1)


def node_map(secs):
    """4.0: the blocks name nodes by the writer's ids, NMAP[id] being the
    trie's; None before 4.0 (the blocks hold the trie's ids)"""
    for x in secs:
        if x[0] == "NMAP":
            return struct.unpack("<%dI" % (len(x[2]) // 4), x[2])
    return None


def samples(secs):
    """every sample as a dict, by seq; its node the trie's id"""
    ix, bl = sec(secs, "SIDX"), sec(secs, "SBLK")
    nmap = node_map(secs)
    rows = []
    for i in range(len(ix) // 48):
        kind, bflags, n, off, ln, _, t0, _, seq = struct.unpack(
            "<BB2xIQIIqqQ", ix[48 * i:48 * i + 48])
        p, t = off, t0
        for j in range(n):
            f = []
            for _ in range(8 if kind in SIZED else 7):
                v, p = uv(bl, p)
                f.append(v)
            rest = None
            if bflags & 1:  # the rest column (2.3): zigzag(bytes - rest)
                v, p = uv(bl, p)
                rest = (unzig(f[6]) - unzig(v) + 2**63) % 2**64 - 2**63
            seq += f[0]
            t += f[1]
            rows.append({"seq": seq, "kind": kind, "time": t,
                         "rec": f[2] >> 1, "flags": f[2] & 1,
                         "thread": (f[3] - 1) & NONE,
                         "cls": (f[4] - 1) & NONE,
                         "node": nmap[f[5]] if nmap else f[5],
                         "bytes": unzig(f[6]),
                         "size": unzig(f[7]) if kind in SIZED else None,
                         "rest": rest})
    rows.sort(key=lambda r: r["seq"])
    return rows


def set_samples(secs, rows):
    """rows (by seq; their seq is their index) into SIDX and SBLK; in a
    store with estimates (ESTM, 2.3), ObjectAllocationSample's blocks
    have the rest column (a row's "rest", else its bytes)"""
    ix, bl = bytearray(), bytearray()
    rested = any(s[0] == "ESTM" for s in secs)
    # 4.0: the blocks hold "writer's ids", here the trie's reversed, and
    # NMAP turns them back; so a reader that skipped the map would be
    # wrong (every sample's node but the middle one)
    mapped = any(s[0] == "NMAP" for s in secs)
    n_nodes = len(sec(secs, "TRIE")) // 16
    if mapped:
        for s in secs:
            if s[0] == "NMAP":
                s[2] = bytearray(struct.pack(
                    "<%dI" % n_nodes,
                    *[n_nodes - 1 - i for i in range(n_nodes)]))
    for kind in range(5):
        mine = [(i, r) for i, r in enumerate(rows) if r["kind"] == kind]
        for a in range(0, len(mine), 4096):
            blk = bytearray()
            part = mine[a:a + 4096]
            prev_seq, prev_t = part[0][0], part[0][1]["time"]
            for seq, r in part:
                blk += put_uv(seq - prev_seq)
                blk += put_uv((r["time"] - prev_t) % 2**64)
                blk += put_uv(r["rec"] << 1 | r["flags"])
                blk += put_uv((r["thread"] + 1) & NONE)
                blk += put_uv((r["cls"] + 1) & NONE)
                blk += put_uv(n_nodes - 1 - r["node"] if mapped
                              else r["node"])
                blk += put_uv(zig(r["bytes"]))
                if kind in SIZED:
                    blk += put_uv(zig(r["size"]))
                if rested and kind == 0:
                    rest = r.get("rest")
                    rest = r["bytes"] if rest is None else rest
                    blk += put_uv(zig((r["bytes"] - rest + 2**63) % 2**64
                                      - 2**63))
                prev_seq, prev_t = seq, r["time"]
            ix += struct.pack("<BB2xIQIIqqQ", kind,
                              1 if rested and kind == 0 else 0,
                              len(part), len(bl),
                              len(blk), crc32c(bytes(blk)),
                              part[0][1]["time"], part[-1][1]["time"],
                              part[0][0])
            bl += blk
    for s in secs:
        if s[0] == "SIDX":
            s[2] = ix
        if s[0] == "SBLK":
            s[2] = bl
    drop_rollups(secs)


def drop_rollups(secs):
    """Samples forged without their rollups make a store of version 2.0's
    layout (a reader then uses the samples); a rollup left from the
    samples before would disagree with them: a damaged store.  Their
    squares (RSQR, 2.2) and estimate sums (RCOR, 2.3) go with them, and
    the whole recordings' rollups (3.1)."""
    secs[:] = [s for s in secs
               if s[0] not in ("RBKT", "RROW", "RSQR", "RCOR",
                               "RWBK", "RWRO", "RWSQ", "RWCO")]


def rollup_row(secs, kind, proj, change, whole=False):
    """change(row) on the first row of the first bucket of (kind, proj)
    (proj None: of any projection), of the time buckets or with whole
    the whole recordings' (3.1),
    the bucket's checksum made to agree; row is a list: node, class,
    thread, flags, samples, bytes, first_ns, last_ns"""
    bk, rows = ((sec(secs, "RWBK"), sec(secs, "RWRO")) if whole
                else (sec(secs, "RBKT"), sec(secs, "RROW")))
    for b in range(0, len(bk), 48):
        k, p, _, _, _, _, first, n, _, _ = struct.unpack_from(
            "<BBHIqqQIIQ", bk, b)
        if k != kind or (proj is not None and p != proj):
            continue
        row = list(struct.unpack_from("<IIIIQqqq", rows, first * 48))
        change(row)
        struct.pack_into("<IIIIQqqq", rows, first * 48, *row)
        struct.pack_into("<I", bk, b + 36,
                         crc32c(bytes(rows[first * 48:(first + n) * 48])))
        return
    raise KeyError((kind, proj))


def forge(good, outdir, name, change):
    secs = read(good)
    change(secs)
    write(os.path.join(outdir, name + ".hsdb"), secs)


def main():
    good, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    n = len(samples(read(good)))

    def times(first, last):
        def f(secs):
            rows = samples(secs)
            for i, r in enumerate(rows):
                r["time"] = first if i < n // 2 else last
            set_samples(secs, rows)
        return f
    # samples 292 years apart: the widest span int64 allows
    forge(good, outdir, "wide", times(-9 * 10**18, 9 * 10**18))
    # everything at the very bottom and top of int64
    forge(good, outdir, "extremes", times(-2**63, 2**63 - 1))
    # half a second before 1970
    forge(good, outdir, "pre1970", times(-500000000, -500000000))

    def bytes_to(v):
        def f(secs):
            rows = samples(secs)
            for r in rows:
                r["bytes"] = v
            set_samples(secs, rows)
        return f
    forge(good, outdir, "hugebytes", bytes_to(2**62))
    forge(good, outdir, "negbytes", bytes_to(-2**62))

    def recording_times(secs):
        r = sec(secs, "RECS")
        struct.pack_into("<qq", r, 16, -2**63 + 5, 2**63 - 5)
    forge(good, outdir, "rectimes", recording_times)

    def empty(secs):
        for s in secs:
            if s[0] in ("RECS", "SETS", "ECNT", "OLDO", "HEAP", "LIVE",
                        "SIDX", "SBLK"):
                s[2] = bytearray()
        drop_rollups(secs)
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
        rows = samples(secs)
        for r in rows:
            r["node"] = depth
        set_samples(secs, rows)
    forge(good, outdir, "deep", deep)

    def not_depth_first(secs):
        t = sec(secs, "TRIE")
        # node 1 claims a subtree that swallows a node of another parent
        struct.pack_into("<I", t, 16 + 12, min(len(t) // 16, 42))
    forge(good, outdir, "notdfs", not_depth_first)

    # rollups (2.1) that disagree with their samples, checksums agreeing
    def more_bytes(row):
        row[5] += 1
    forge(good, outdir, "rollupbytes",
          lambda secs: rollup_row(secs, 0, None, more_bytes))

    def node_out(row):
        row[0] = 0x7FFFFFFF
    forge(good, outdir, "rollupnode",
          lambda secs: rollup_row(secs, 0, 1, node_out))

    def more_samples(row):
        row[4] += 1
    forge(good, outdir, "rollupcount",
          lambda secs: rollup_row(secs, 0, 3, more_samples))

    # the whole recordings' rollups (3.1) the same way, and a whole
    # bucket that does not span its recording's time buckets
    forge(good, outdir, "wholebytes",
          lambda secs: rollup_row(secs, 0, None, more_bytes, True))
    forge(good, outdir, "wholecount",
          lambda secs: rollup_row(secs, 0, 3, more_samples, True))

    def whole_later(secs):
        struct.pack_into("<q", sec(secs, "RWBK"), 8,
                         struct.unpack_from("<q", sec(secs, "RWBK"), 8)[0]
                         + 1)
    forge(good, outdir, "wholespan", whole_later)


if __name__ == "__main__":
    main()
