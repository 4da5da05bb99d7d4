#!/usr/bin/env python3
"""Check a heapsift agent recording (.hsa) against the format spec.

Written from docs/formats/agent-recording.md alone, not from the agent's
C code, so that the two can disagree.  Usage:

    check_recording.py [--require-end] FILE.hsa

Checks the preamble, every frame's CRC-32C (type bytes, then payload),
that HEADER comes first, that every id is nonzero, unique and defined by
an earlier record before it is used, every payload's size (whole entries
for batch records), that sample ids count up from 1, that each COUNTERS
record agrees with what precedes it (`written` equals the SAMPLES
entries so far, `deaths` the DEATHS entries, `alive_at_end` the ALIVE
entries, `flushes` the COUNTERS records, `bytes_written` the offset where
the COUNTERS record ends), that END is last, and, when END is there,
that every tracked sample has exactly one DEATHS or ALIVE entry.

A frame cut short by the end of the file, or with a bad CRC, ends the
readable part, as the spec says; that is reported (offset, bytes left),
not an error, unless --require-end is given.

Prints a JSON summary on stdout; problems on stderr.  Exit status 0 when
the file is valid, 1 when not, 2 on usage errors.
"""
import json
import struct
import sys

MAGIC = b"\x89HSA\r\n\x1a\n"
MAX_PAYLOAD = 64 << 20
MAX_STRING = 1 << 20
TYPES = {1: "HEADER", 2: "CLASS", 3: "METHOD", 4: "THREAD", 5: "STACK",
         6: "SAMPLES", 7: "DEATHS", 8: "GCS", 9: "COUNTERS", 10: "ALIVE",
         11: "END"}
COUNTER_NAMES = ["samples", "written", "tracked", "dropped_untracked",
                 "dropped_buffer", "deaths", "gcs", "stack_failures",
                 "flushes", "bytes_written", "alive_at_end", "reserved"]


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    """CRC-32C (Castagnoli), reflected, init and final xor 0xFFFFFFFF."""
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ CRC_TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283, "CRC-32C self-test failed"


class Bad(Exception):
    pass


class Cursor:
    def __init__(self, payload, what):
        self.p = payload
        self.i = 0
        self.what = what

    def take(self, n):
        if self.i + n > len(self.p):
            raise Bad(f"{self.what}: payload ends inside a field")
        b = self.p[self.i:self.i + n]
        self.i += n
        return b

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def i32(self):
        return struct.unpack("<i", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def i64(self):
        return struct.unpack("<q", self.take(8))[0]

    def string(self):
        n = self.u32()
        if n > MAX_STRING:
            raise Bad(f"{self.what}: string of {n} bytes (over 1 MiB)")
        raw = self.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Bad(f"{self.what}: string is not UTF-8")

    def done(self):
        if self.i != len(self.p):
            raise Bad(f"{self.what}: {len(self.p) - self.i} bytes left "
                      "over after the last field")


class Checker:
    def __init__(self, data):
        self.data = data
        self.errors = []
        self.header = None
        self.classes = {}
        self.methods = {}
        self.threads = {}
        self.stacks = {}
        self.samples = {}      # id -> (gc, flags, time)
        self.last_sample = 0
        self.fate = {}         # tracked sample id -> "dead" | "alive"
        self.n_samples = self.n_deaths = self.n_alive = 0
        self.gcs = {}
        self.n_counters = 0
        self.counters = None
        self.end = None
        self.unknown = 0
        self.truncated = 0
        self.records = 0
        self.stop = None
        self.readable_end = 0

    def err(self, off, msg):
        self.errors.append(f"offset {off}: {msg}")

    # ---- records ---------------------------------------------------------
    def rec_header(self, c, off):
        h = {}
        h["start_ns"] = c.u64()
        h["interval"] = c.u64()
        h["depth"] = c.u32()
        h["pid"] = c.u32()
        h["sampler"] = c.u32()
        h["max_tracked"] = c.u32()
        for k in ("jvm_name", "jvm_version", "jvm_vendor", "options",
                  "agent_version"):
            h[k] = c.string()
        c.done()
        if h["sampler"] not in (0, 1, 2):
            self.err(off, f"HEADER sampler {h['sampler']} is not 0, 1 or 2")
        self.header = h

    def new_id(self, table, ident, off, kind):
        if ident == 0:
            self.err(off, f"{kind} id 0 (ids are nonzero)")
        elif ident in table:
            self.err(off, f"{kind} id {ident} defined twice")

    def ref(self, table, ident, off, what, allow_zero=True):
        if ident == 0:
            if not allow_zero:
                self.err(off, f"{what} is 0")
            return
        if ident not in table:
            self.err(off, f"{what} {ident} used before its definition")

    def rec_class(self, c, off):
        ident = c.u32()
        name = c.string()
        c.done()
        self.new_id(self.classes, ident, off, "CLASS")
        if not name:
            self.err(off, f"CLASS {ident} has an empty name")
        if name.startswith("L") and name.endswith(";"):
            self.err(off, f"CLASS {ident} name {name!r} is a descriptor, "
                     "not the internal form")
        self.classes[ident] = name

    def rec_method(self, c, off):
        ident = c.u32()
        cls = c.u32()
        flags = c.u32()
        name = c.string()
        desc = c.string()
        c.done()
        self.new_id(self.methods, ident, off, "METHOD")
        self.ref(self.classes, cls, off, f"METHOD {ident} class")
        if flags & ~1:
            self.err(off, f"METHOD {ident} has unknown flags {flags:#x}")
        self.methods[ident] = (cls, name, desc)

    def rec_thread(self, c, off):
        ident = c.u32()
        flags = c.u32()
        java_id = c.i64()
        name = c.string()
        c.done()
        self.new_id(self.threads, ident, off, "THREAD")
        if flags & ~1:
            self.err(off, f"THREAD {ident} has unknown flags {flags:#x}")
        if java_id < -1:
            self.err(off, f"THREAD {ident} java_id {java_id}")
        self.threads[ident] = name

    def rec_stack(self, c, off):
        ident = c.u32()
        flags = c.u32()
        n = c.u32()
        if len(c.p) != 12 + 12 * n:
            raise Bad(f"STACK {ident}: {n} frames need {12 + 12 * n} "
                      f"bytes, the payload has {len(c.p)}")
        for k in range(n):
            m = c.u32()
            bci = c.i32()
            line = c.i32()
            self.ref(self.methods, m, off, f"STACK {ident} frame {k} method",
                     allow_zero=False)
            if bci < -1 or line < -1:
                self.err(off, f"STACK {ident} frame {k}: bci {bci} "
                         f"line {line}")
        c.done()
        self.new_id(self.stacks, ident, off, "STACK")
        if flags & ~1:
            self.err(off, f"STACK {ident} has unknown flags {flags:#x}")
        depth = self.header["depth"]
        if n > depth:
            self.err(off, f"STACK {ident} has {n} frames, depth is {depth}")
        if flags & 1 and n != depth:
            self.err(off, f"STACK {ident} is truncated with {n} frames, "
                     f"depth is {depth}")
        self.stacks[ident] = n
        self.truncated += flags & 1

    def entries(self, payload, size, kind):
        if len(payload) == 0 or len(payload) % size:
            raise Bad(f"{kind} payload of {len(payload)} bytes is not a "
                      f"whole number of {size}-byte entries")
        return [payload[i:i + size] for i in range(0, len(payload), size)]

    def rec_samples(self, payload, off):
        for e in self.entries(payload, 48, "SAMPLES"):
            (sid, t, size, thread, cls, stack, gc, flags,
             reserved) = struct.unpack("<QqQIIIIII", e)
            if sid != self.last_sample + 1:
                self.err(off, f"sample id {sid} after {self.last_sample} "
                         "(ids count up from 1)")
            self.last_sample = sid
            if sid in self.samples:
                self.err(off, f"sample {sid} twice")
            self.ref(self.threads, thread, off, f"sample {sid} thread")
            self.ref(self.classes, cls, off, f"sample {sid} class")
            self.ref(self.stacks, stack, off, f"sample {sid} stack")
            if flags & ~3 or flags == 3:
                self.err(off, f"sample {sid} flags {flags:#x}")
            if reserved:
                self.err(off, f"sample {sid} reserved field {reserved}")
            if size == 0:
                self.err(off, f"sample {sid} has size 0")
            self.samples[sid] = (gc, flags, t)
            self.n_samples += 1

    def settle(self, sid, off, what):
        s = self.samples.get(sid)
        if s is None:
            self.err(off, f"{what} for sample {sid}, not defined before")
            return None
        if not s[1] & 1:
            self.err(off, f"{what} for sample {sid}, which is not tracked")
        if sid in self.fate:
            self.err(off, f"{what} for sample {sid}, already "
                     f"{self.fate[sid]}")
        return s

    def rec_deaths(self, payload, off):
        for e in self.entries(payload, 24, "DEATHS"):
            sid, t, gc, survived = struct.unpack("<QqII", e)
            s = self.settle(sid, off, "DEATHS")
            if s is not None:
                if gc <= s[0]:
                    self.err(off, f"sample {sid} died in GC {gc}, but "
                             f"{s[0]} GCs had finished at its allocation")
                want = max(0, gc - s[0] - 1)
                if survived != want:
                    self.err(off, f"sample {sid}: survived {survived}, "
                             f"expected {want} (gc {gc}, allocated "
                             f"after {s[0]})")
            self.fate[sid] = "dead"
            self.n_deaths += 1

    def rec_gcs(self, payload, off):
        for e in self.entries(payload, 24, "GCS"):
            gc, reserved, start, end = struct.unpack("<IIqq", e)
            if gc == 0 or gc in self.gcs:
                self.err(off, f"GC number {gc} zero or repeated")
            if self.gcs and gc < max(self.gcs):
                self.err(off, f"GC {gc} after GC {max(self.gcs)}")
            if reserved:
                self.err(off, f"GC {gc} reserved field {reserved}")
            if end < start:
                self.err(off, f"GC {gc} ends before it starts")
            self.gcs[gc] = (start, end)

    def rec_counters(self, c, off, end_off):
        vals = [c.u64() for _ in range(12)]
        c.done()
        cn = dict(zip(COUNTER_NAMES, vals))
        self.n_counters += 1
        expect = {"written": self.n_samples, "deaths": self.n_deaths,
                  "alive_at_end": self.n_alive, "flushes": self.n_counters,
                  "bytes_written": end_off, "reserved": 0}
        for k, v in expect.items():
            if cn[k] != v:
                self.err(off, f"COUNTERS {k} = {cn[k]}, the file so far "
                         f"says {v}")
        if cn["samples"] < cn["written"] + cn["dropped_buffer"]:
            self.err(off, "COUNTERS samples < written + dropped_buffer")
        if self.gcs and cn["gcs"] < max(self.gcs):
            self.err(off, f"COUNTERS gcs {cn['gcs']} below GC "
                     f"{max(self.gcs)} in the file")
        if self.counters:
            for k in COUNTER_NAMES:
                if cn[k] < self.counters[k]:
                    self.err(off, f"COUNTERS {k} went down")
        self.counters = cn

    def rec_alive(self, payload, off):
        for e in self.entries(payload, 8, "ALIVE"):
            (sid,) = struct.unpack("<Q", e)
            self.settle(sid, off, "ALIVE")
            self.fate[sid] = "alive"
            self.n_alive += 1

    # ---- the file --------------------------------------------------------
    def run(self):
        d = self.data
        if len(d) < 16:
            raise Bad(f"offset 0: {len(d)} bytes, shorter than the preamble")
        if d[:8] != MAGIC:
            raise Bad("offset 0: not a heapsift agent recording (magic)")
        major, minor, reserved = struct.unpack("<HHI", d[8:16])
        if major != 1:
            raise Bad(f"offset 8: major version {major}, not 1")
        if reserved:
            self.err(12, f"preamble reserved field {reserved}")
        pos = 16
        while pos < len(d):
            if len(d) - pos < 12:
                self.stop = "frame header cut short"
                break
            length, rtype = struct.unpack("<II", d[pos:pos + 8])
            if length > MAX_PAYLOAD:
                self.stop = f"payload length {length} over 64 MiB"
                break
            if len(d) - pos < 12 + length:
                self.stop = "frame runs past the end of the file"
                break
            payload = d[pos + 8:pos + 8 + length]
            (crc,) = struct.unpack("<I", d[pos + 8 + length:pos + 12 + length])
            if crc32c(payload, crc32c(d[pos + 4:pos + 8])) != crc:
                self.stop = "CRC mismatch"
                break
            end_off = pos + 12 + length
            self.record(rtype, payload, pos, end_off)
            self.records += 1
            pos = end_off
        self.readable_end = pos
        if self.records == 0:
            self.err(16, "no HEADER record")
        if self.end is not None:
            self.final_checks()

    def record(self, rtype, payload, off, end_off):
        name = TYPES.get(rtype)
        if self.records == 0 and rtype != 1:
            raise Bad(f"offset {off}: first record is type {rtype}, not "
                      "HEADER")
        if self.end is not None:
            self.err(off, f"{name or rtype} record after END")
        if name is None:
            self.unknown += 1
            return
        if rtype == 1 and self.records:
            self.err(off, "a second HEADER")
            return
        c = Cursor(payload, f"{name} at offset {off}")
        try:
            if rtype == 1:
                self.rec_header(c, off)
            elif rtype == 2:
                self.rec_class(c, off)
            elif rtype == 3:
                self.rec_method(c, off)
            elif rtype == 4:
                self.rec_thread(c, off)
            elif rtype == 5:
                self.rec_stack(c, off)
            elif rtype == 6:
                self.rec_samples(payload, off)
            elif rtype == 7:
                self.rec_deaths(payload, off)
            elif rtype == 8:
                self.rec_gcs(payload, off)
            elif rtype == 9:
                self.rec_counters(c, off, end_off)
            elif rtype == 10:
                self.rec_alive(payload, off)
            elif rtype == 11:
                (self.end,) = struct.unpack("<q", c.take(8))
                c.done()
        except Bad as e:
            self.err(off, str(e))

    def final_checks(self):
        tracked = [s for s, v in self.samples.items() if v[1] & 1]
        missing = [s for s in tracked if s not in self.fate]
        if missing:
            self.err(self.readable_end, f"{len(missing)} tracked samples "
                     f"have neither DEATHS nor ALIVE (first: {missing[0]})")
        cn = self.counters
        if cn is None:
            self.err(self.readable_end, "END without COUNTERS")
            return
        if cn["samples"] != cn["written"] + cn["dropped_buffer"]:
            self.err(self.readable_end,
                     f"at END samples {cn['samples']} != written "
                     f"{cn['written']} + dropped_buffer "
                     f"{cn['dropped_buffer']}")
        if cn["tracked"] != len(tracked):
            self.err(self.readable_end, f"at END tracked {cn['tracked']}, "
                     f"the file has {len(tracked)} tracked samples")
        if cn["deaths"] + cn["alive_at_end"] != cn["tracked"]:
            self.err(self.readable_end, "at END deaths + alive_at_end != "
                     "tracked")

    def summary(self):
        tracked = sum(1 for v in self.samples.values() if v[1] & 1)
        table_full = sum(1 for v in self.samples.values() if v[1] & 2)
        return {
            "valid": not self.errors,
            "end": self.end is not None,
            "records": self.records,
            "file_bytes": len(self.data),
            "readable_end": self.readable_end,
            "bytes_left": len(self.data) - self.readable_end,
            "stop_reason": self.stop,
            "header": self.header,
            "classes": len(self.classes),
            "methods": len(self.methods),
            "threads": len(self.threads),
            "stacks": len(self.stacks),
            "truncated_stacks": self.truncated,
            "samples": self.n_samples,
            "tracked": tracked,
            "table_full": table_full,
            "deaths": self.n_deaths,
            "alive": self.n_alive,
            "gcs": len(self.gcs),
            "unknown_records": self.unknown,
            "counters": self.counters,
        }


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    require_end = "--require-end" in argv[1:]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(args[0], "rb") as f:
        data = f.read()
    ch = Checker(data)
    try:
        ch.run()
    except Bad as e:
        ch.errors.append(str(e))
    if require_end and ch.end is None:
        ch.errors.append(f"offset {ch.readable_end}: no END record "
                         f"({ch.stop or 'file ends cleanly'})")
    for e in ch.errors[:20]:
        print(f"{args[0]}: {e}", file=sys.stderr)
    if len(ch.errors) > 20:
        print(f"{args[0]}: ... {len(ch.errors) - 20} more", file=sys.stderr)
    print(json.dumps(ch.summary(), indent=1, sort_keys=True))
    return 0 if not ch.errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
