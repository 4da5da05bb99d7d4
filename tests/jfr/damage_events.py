#!/usr/bin/env python3
"""Damage chosen events of a JFR recording in place, keeping the framing.

    damage_events.py FILE COUNT CHUNK:N [CHUNK:N...]

The event type to damage is the one whose events number COUNT in the
whole FILE (the count `jfr summary` reports, times the copies made).
In chunk CHUNK (1-based) N events of that type, spread evenly over the
chunk's events of that type, get every payload byte after their size
and type set to 0xff: each event's framing (its size) holds, so a reader
goes on after it, but its fields overrun it.  Prints "CHUNK OFFSET
BEFORE" for every damaged event, BEFORE being the number of sound events
of the type before it in the file: where its warning belongs among them.  Written from the format reference
(../shared/reference/jfr-format.md: a chunk is a 68-byte header and
events, each a varint size, a varint type and a payload; varints are
LEB128, 7 bits a byte, the ninth byte whole), independently of heapsift.
"""
import struct
import sys


def varint(d, p):
    v = 0
    for i in range(9):
        b = d[p + i]
        if i == 8:
            return v | (b << 56), p + 9
        v |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            return v, p + i + 1
    raise ValueError


def chunks(d):
    off = 0
    while off + 68 <= len(d) and d[off:off + 4] == b"FLR\0":
        size, = struct.unpack(">Q", d[off + 8:off + 16])
        yield off, size
        off += size


def events(d, off, size):
    """(start, payload start, end, type) of every event of a chunk."""
    p = off + 68
    while p < off + size:
        n, q = varint(d, p)
        if n <= 0 or p + n > off + size:
            return
        t, q = varint(d, q)
        yield p, q, p + n, t
        p += n


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    want = dict((int(c), int(n)) for c, n in
                (a.split(":") for a in sys.argv[3:]))
    d = bytearray(open(path, "rb").read())
    cs = list(chunks(d))
    per_type = {}
    for off, size in cs:
        for e in events(d, off, size):
            per_type[e[3]] = per_type.get(e[3], 0) + 1
    types = [t for t, n in per_type.items() if n == count]
    if len(types) != 1:
        sys.exit(f"damage_events: {len(types)} types occur {count} times")
    damaged = set()
    for c, n in sorted(want.items()):
        off, size = cs[c - 1]
        mine = [e for e in events(d, off, size) if e[3] == types[0]]
        for i in range(n):
            damaged.add(mine[(i + 1) * len(mine) // (n + 1)])
    sound = 0
    for c, (off, size) in enumerate(cs, 1):
        for e in events(d, off, size):
            if e in damaged:
                d[e[1]:e[2]] = b"\xff" * (e[2] - e[1])
                print(c, e[0], sound)
            elif e[3] == types[0]:
                sound += 1
    open(path, "wb").write(d)


main()
