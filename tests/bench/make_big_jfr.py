#!/usr/bin/env python3
"""Make a large JFR recording out of a small one, for `make bench`.

    make_big_jfr.py SOURCE.jfr OUT.jfr (--copies N | --size SIZE | --head SIZE)

The output is SOURCE concatenated with itself N times (--size: as many
copies as reach SIZE bytes, e.g. 512M or 2G).  JFR chunks are
self-contained, so each copy's chunks stay valid; only their wall-clock
placement is moved: in copy i, every chunk header's startNanos (a
big-endian int64 at offset 32) is moved later by i times the source's
span (first chunk's start to the end of its last chunk), so the copies
follow each other and read as one long recording.  Event times are
ticks relative to the chunk's start, so they move with it.  Check the
result with `jfr summary OUT.jfr`.

--head SIZE makes a smaller one instead: SOURCE's leading whole chunks,
as many as fit in SIZE (at least one), unchanged.  The bench recording
is what a workload writes in 10 s, so its size follows the machine's
speed; a head of it keeps a figure stated for a size (issue 12's "37 MB
bench recording") comparable from one machine to the next.

The source is read once into memory (it is small: tens of MB); the output
is written a copy at a time.  Exits 1 with a message on a source that is
not a sequence of whole, finished JFR chunks.
"""
import os
import struct
import sys

MAGIC = b"FLR\0"


def parse_size(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    s = s.strip().upper().rstrip("B").rstrip("I")
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def chunks(data):
    """(offset, size, startNanos, durationNanos) of every chunk."""
    out, off = [], 0
    while off < len(data):
        if data[off:off + 4] != MAGIC or off + 68 > len(data):
            sys.exit(f"make_big_jfr: no chunk header at offset {off}")
        size, = struct.unpack_from(">q", data, off + 8)
        start, dur = struct.unpack_from(">qq", data, off + 32)
        if size < 68 or off + size > len(data):
            sys.exit(f"make_big_jfr: chunk at offset {off} has size {size}")
        if dur <= 0:
            sys.exit(f"make_big_jfr: chunk at offset {off} is unfinished "
                     "(duration 0); use a finished recording")
        out.append((off, size, start, dur))
        off += size
    if not out:
        sys.exit("make_big_jfr: empty source")
    return out


def main(argv):
    if len(argv) != 5 or argv[3] not in ("--copies", "--size", "--head"):
        sys.exit("usage: make_big_jfr.py SOURCE.jfr OUT.jfr "
                 "(--copies N | --size SIZE | --head SIZE)")
    src, dst, how, val = argv[1:]
    data = bytearray(open(src, "rb").read())
    cs = chunks(data)
    if how == "--head":
        limit, n = parse_size(val), 1
        while n < len(cs) and cs[n][0] + cs[n][1] <= limit:
            n += 1
        end = cs[n - 1][0] + cs[n - 1][1]
        tmp = dst + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data[:end])
        os.replace(tmp, dst)
        print(f"{dst}: the first {n} of {len(cs)} chunks of {src}: "
              f"{end} bytes")
        return
    span = max(s + d for _, _, s, d in cs) - min(s for _, _, s, _ in cs)
    if how == "--copies":
        n = int(val)
    else:
        n = max(1, -(-parse_size(val) // len(data)))
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        for i in range(n):
            copy = bytearray(data)
            for off, _, start, _ in cs:
                struct.pack_into(">q", copy, off + 32, start + i * span)
            f.write(copy)
    os.replace(tmp, dst)
    print(f"{dst}: {n} copies of {src} ({len(data)} bytes, {len(cs)} chunks, "
          f"span {span / 1e9:.3f} s): {n * len(data)} bytes, "
          f"{n * len(cs)} chunks, {n * span / 1e9:.1f} s")


if __name__ == "__main__":
    main(sys.argv)
