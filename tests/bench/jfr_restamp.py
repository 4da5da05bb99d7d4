#!/usr/bin/env python3
"""Make many distinct recordings out of a few real ones, for `make bench`.

    jfr_restamp.py SOURCE N [SOURCE N ...] (-o DIR | --tar FILE|-)
                   [--first I] [--step SECONDS] [--base INSTANT]
                   [--name PREFIX]

N copies of each SOURCE, numbered on from I (--first, default 0): the
first SOURCE's copies get the global indexes I .. I+N-1, the next
SOURCE's the ones after them, and so on.  The copy with index g is
SOURCE moved later in time by

    shift(g) = B + g * STEP + g nanoseconds

where STEP is --step seconds (default 60: 10,000 copies span 6.9 days)
and B is 0, or with --base INSTANT (2026-12-01T00:00:00Z, or ns since
the epoch) whatever moves the source's start to INSTANT, so that copies
of different sources given the same --base and disjoint index ranges
never share a start and fall on the same days.  The odd nanosecond per
index keeps two copies apart even where their minutes would meet.
Without --base, index 0 is SOURCE itself (a shift of 0): --first 1
makes copies that all differ from it.
Everything else is byte-identical to SOURCE, so every copy has the same
events, stacks and totals and is a recording of its own: heapsift's
recording identity (JVM, start, end, chunks, settings, samples) differs,
and a lake that deduplicates exact copies keeps them all.

What is moved, by SOURCE's kind:

* JFR (.jfr, a sequence of chunks; docs/formats/jfr.md): in every chunk,
  the header's startNanos (big-endian int64 at chunk offset 32), and the
  same field in every copy of the header that the chunk carries: each
  checkpoint of kind HEADER (bit 2; JDK 17 writes one at every flush,
  kind FLUSH|HEADER, and one at the end) holds the header as a 68-byte
  byte[] in its first pool (jdk.types.ChunkHeader).  The checkpoints are
  found through the header's cp offset and their deltas, and every "FLR\\0"
  in a chunk must turn out to be one of them, or the source is refused.
  Event times are ticks relative to the chunk's start ticks, which stay,
  so every event (samples, GCs, OldObjectSample.allocationTime) moves
  with its chunk.  Wall-clock times that events carry as values are
  not moved: jdk.JVMInformation.jvmStartTime and
  jdk.ActiveRecording.recordingStart (ms since the epoch).  The JFR
  fixtures in fixtures/jfr/ are recorded with both events off.
* heapsift agent recording (.hsa; docs/formats/agent-recording.md):
  HEADER.start_ns, each SAMPLES and DEATHS entry's time_ns, each GCS
  entry's start_ns and end_ns and END's end_ns, each record's CRC-32C
  written again.  Records of other types are copied unchanged.

A source ending in .gz is read through gzip (the copies are plain).
Output: -o DIR writes DIR/PREFIX-GGGGG.EXT (PREFIX: --name, default
each SOURCE's name without extensions; GGGGG: the global index, 5 digits at
least); --tar writes the same names as members of one ustar archive, to
a file or (-) to standard output, a copy at a time, so that
`jfr_restamp.py SRC 100 --tar - | heapsift import -o S.hsdb -` makes a
store of 100 recordings with nothing on disk.  A summary line goes to
standard error.  Exit 1, with a message, on a source it cannot restamp.
"""
import datetime
import gzip
import io
import os
import struct
import sys
import tarfile

JFR_MAGIC = b"FLR\0"
HSA_MAGIC = b"\x89HSA\r\n\x1a\n"


def die(msg):
    sys.exit(f"jfr_restamp: {msg}")


# --- JFR -------------------------------------------------------------------


def varint(data, pos, end):
    """(value, next position) of the JFR compressed integer at pos."""
    v = 0
    for i in range(8):
        if pos >= end:
            raise ValueError("varint runs past its event")
        b = data[pos]
        pos += 1
        v |= (b & 0x7F) << (7 * i)
        if b < 0x80:
            return v, pos
    if pos >= end:
        raise ValueError("varint runs past its event")
    v |= data[pos] << 56
    return v, pos + 1


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def jfr_patches(data):
    """Offsets of every startNanos field to move, and the source's start
    (the earliest chunk start, ns)."""
    out, off, starts = [], 0, []
    while off < len(data):
        if data[off:off + 4] != JFR_MAGIC or off + 68 > len(data):
            die(f"no JFR chunk header at offset {off}")
        size, cp = struct.unpack_from(">qq", data, off + 8)
        start, = struct.unpack_from(">q", data, off + 32)
        flags = data[off + 67]
        if size < 68 or off + size > len(data):
            die(f"chunk at offset {off} has size {size} in a file of "
                f"{len(data)} bytes")
        if not flags & 1:
            die(f"chunk at offset {off} has uncompressed integers")
        if cp < 68 or cp >= size:
            die(f"chunk at offset {off} has no checkpoint (cp offset {cp})")
        out.append(off + 32)
        starts.append(start)
        copies = header_copies(data, off, size, cp)
        # every header magic inside the chunk must be a copy just found
        # (a byte[] that merely looks like one is left alone, and said)
        seen, i = set(), data.find(JFR_MAGIC, off + 4, off + size)
        while i != -1:
            seen.add(i)
            i = data.find(JFR_MAGIC, i + 4, off + size)
        if not set(copies) <= seen or len(seen - set(copies)):
            die(f"chunk at offset {off}: header copies found by the "
                f"checkpoint chain {sorted(c - off for c in copies)} are not "
                f"every FLR\\0 in the chunk {sorted(c - off for c in seen)}")
        for c in copies:
            if data[c + 32:c + 40] != data[off + 32:off + 40]:
                die(f"chunk at offset {off}: the header copy at chunk offset "
                    f"{c - off} has another startNanos")
            out.append(c + 32)
        off += size
    if not starts:
        die("empty source")
    return out, min(starts)


def header_copies(data, off, size, cp):
    """File offsets of the 68-byte header copies in the chunk at off: the
    first pool of each HEADER checkpoint, walked backwards from cp."""
    copies, pos, steps = [], off + cp, 0
    end = off + size
    while True:
        steps += 1
        if steps > 100000:
            die(f"chunk at offset {off}: checkpoint chain does not end")
        try:
            esize, p = varint(data, pos, end)
            ev_end = pos + esize
            if esize <= 0 or ev_end > end:
                raise ValueError(f"event size {esize}")
            etype, p = varint(data, p, ev_end)
            if etype != 1:
                raise ValueError(f"event type {etype}, not a checkpoint")
            _, p = varint(data, p, ev_end)  # startTime
            _, p = varint(data, p, ev_end)  # duration
            delta, p = varint(data, p, ev_end)
            delta = signed64(delta)
            kind, p = varint(data, p, ev_end)
            if kind & 2:
                pools, p = varint(data, p, ev_end)
                _, p = varint(data, p, ev_end)  # type id (ChunkHeader)
                count, p = varint(data, p, ev_end)
                _, p = varint(data, p, ev_end)  # key
                n, p = varint(data, p, ev_end)
                if pools < 1 or count != 1 or n != 68 or p + 68 > ev_end \
                        or data[p:p + 4] != JFR_MAGIC:
                    raise ValueError("HEADER checkpoint without a 68-byte "
                                     "header in its first pool")
                copies.append(p)
        except ValueError as e:
            die(f"chunk at offset {off}: checkpoint at chunk offset "
                f"{pos - off}: {e}")
        if delta == 0:
            return copies
        nxt = pos + delta
        if nxt < off + 68 or nxt >= pos:
            die(f"chunk at offset {off}: checkpoint delta {delta} at chunk "
                f"offset {pos - off} leaves the chunk")
        pos = nxt


def jfr_restamp(data, patches, shift):
    out = bytearray(data)
    for p in patches:
        v, = struct.unpack_from(">q", data, p)
        struct.pack_into(">q", out, p, v + shift)
    return out


# --- heapsift agent recordings ----------------------------------------------

# CRC-32C as the agent's records carry it: tests/agent/check_recording.py's
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "agent"))
from check_recording import crc32c  # noqa: E402

# record type: (entry size, offsets of i64 times in an entry); None for
# a record whose payload has one fixed time at offset 0
HSA_TIMES = {
    1: (None, (0,)),       # HEADER: u64 start_ns first
    6: (48, (8,)),         # SAMPLES: time_ns
    7: (24, (8,)),         # DEATHS: time_ns
    8: (24, (8, 16)),      # GCS: start_ns, end_ns
    11: (None, (0,)),      # END: end_ns
}


def hsa_records(data):
    """(payload offset, length, type) of every record with a time, and
    the recording's start (HEADER.start_ns)."""
    if data[:8] != HSA_MAGIC or len(data) < 16:
        die("not a heapsift agent recording")
    major, = struct.unpack_from("<H", data, 8)
    if major != 1:
        die(f"agent recording version {major}, not 1")
    out, pos, start = [], 16, None
    while pos + 8 <= len(data):
        length, rtype = struct.unpack_from("<II", data, pos)
        if length > 64 << 20 or pos + 12 + length > len(data):
            break  # the readable part ends here; the rest stays as is
        crc, = struct.unpack_from("<I", data, pos + 8 + length)
        if crc32c(data[pos + 4:pos + 8 + length]) != crc:
            break
        if start is None:
            if rtype != 1 or length < 8:
                die("agent recording whose first record is no HEADER")
            start, = struct.unpack_from("<q", data, pos + 8)
        if rtype in HSA_TIMES:
            esize = HSA_TIMES[rtype][0]
            if esize is not None and length % esize:
                die(f"record at offset {pos}: {length} bytes is not whole "
                    f"entries of {esize}")
            out.append((pos + 8, length, rtype))
        pos += 12 + length
    if start is None:
        die("agent recording with no readable HEADER")
    return out, start


def hsa_restamp(data, records, shift):
    out = bytearray(data)
    for p, length, rtype in records:
        esize, offs = HSA_TIMES[rtype]
        step = esize or length
        for e in range(p, p + length, step):
            for o in offs:
                v, = struct.unpack_from("<q", data, e + o)
                if v != 0:  # 0: no time
                    struct.pack_into("<q", out, e + o, v + shift)
        struct.pack_into("<I", out, p + length,
                         crc32c(out[p - 4:p + length]))
    return out


# --- main --------------------------------------------------------------------


def parse_instant(s):
    if s.lstrip("-").isdigit():
        return int(s)
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return int(t.replace(microsecond=0).timestamp()) * 10**9 + \
        t.microsecond * 1000


def usage():
    die("usage: jfr_restamp.py SOURCE N [SOURCE N ...] (-o DIR | --tar FILE|-) "
        "[--first I] [--step SECONDS] [--base INSTANT] [--name PREFIX]")


def iso(ns):
    return datetime.datetime.fromtimestamp(
        ns // 10**9, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Source:
    """One source recording, ready to be restamped."""

    def __init__(self, path, prefix):
        raw = open(path, "rb").read()
        if path.endswith(".gz"):
            raw = gzip.decompress(raw)
        name = os.path.basename(path)
        if name.endswith(".gz"):
            name = name[:-3]
        self.path, self.raw = path, raw
        self.prefix = prefix or os.path.splitext(name)[0]
        if raw[:4] == JFR_MAGIC:
            self.patches, self.start = jfr_patches(raw)
            self.ext = ".jfr"
            self.what = f"{len(self.patches)} startNanos fields"
        elif raw[:8] == HSA_MAGIC:
            self.records, self.start = hsa_records(raw)
            self.ext = ".hsa"
            self.what = f"{len(self.records)} records with times"
        else:
            die(f"{path}: neither a JFR recording nor a heapsift agent "
                "recording")

    def restamp(self, shift):
        if self.ext == ".jfr":
            return jfr_restamp(self.raw, self.patches, shift)
        return hsa_restamp(self.raw, self.records, shift)


def main(argv):
    args, opts = [], {}
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-o", "--tar", "--first", "--step", "--base", "--name"):
            if i + 1 >= len(argv):
                usage()
            opts[a] = argv[i + 1]
            i += 2
        elif a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            opts[k] = v
            i += 1
        else:
            args.append(a)
            i += 1
    if not args or len(args) % 2 or ("-o" in opts) == ("--tar" in opts):
        usage()
    first = int(opts.get("--first", 0))
    step = int(round(float(opts.get("--step", 60)) * 1e9))
    base = parse_instant(opts["--base"]) if "--base" in opts else None

    # (source, global index) of every copy, in order
    plan, g = [], first
    for k in range(0, len(args), 2):
        src, n = Source(args[k], opts.get("--name")), int(args[k + 1])
        plan.append((src, g, n))
        g += n

    def copies():
        for src, g0, n in plan:
            b = base - src.start if base is not None else 0
            for g in range(g0, g0 + n):
                yield f"{src.prefix}-{g:05d}{src.ext}", src.restamp(
                    b + g * step + g)

    if "-o" in opts:
        os.makedirs(opts["-o"], exist_ok=True)
        for name, body in copies():
            path = os.path.join(opts["-o"], name)
            with open(path + ".tmp", "wb") as f:
                f.write(body)
            os.replace(path + ".tmp", path)
    else:
        dst = opts["--tar"]
        f = sys.stdout.buffer if dst == "-" else open(dst + ".tmp", "wb")
        with tarfile.open(fileobj=f, mode="w|",
                          format=tarfile.USTAR_FORMAT) as t:
            for name, body in copies():
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(body), 0, 0o644
                t.addfile(info, io.BytesIO(body))
        if dst != "-":
            f.close()
            os.replace(dst + ".tmp", dst)
        else:
            f.flush()

    for src, g0, n in plan:
        b = base - src.start if base is not None else 0
        print(f"jfr_restamp: {n} copies of {src.path} ({len(src.raw)} bytes, "
              f"{src.what}): indexes {g0}..{g0 + n - 1}, starts "
              f"{iso(src.start + b + g0 * step + g0)} .. "
              f"{iso(src.start + b + (g0 + n - 1) * (step + 1))}",
              file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
