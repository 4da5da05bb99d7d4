#!/usr/bin/env python3
"""jfr_events.py: a small, independent JFR reader (Python 3, standard library only).

It exists so that heapsift's tests can check heapsift's JFR decoder against a
second implementation, on third-party recordings (async-profiler, Datadog) that
the JDK's own `jfr` tool misreads.  It uses neither heapsift nor the JDK.

Written from docs/../shared/reference/jfr-format.md (section numbers below refer
to it), then checked against real files.  Where the files and the notes
disagree, a comment marked "DISAGREES:" says so.

Usage:
  jfr_events.py metadata FILE [--chunk N[,M..]] [--type NAME] [--all]
  jfr_events.py count    FILE --type NAME [--chunk N[,M..]] [--by class|stack-top|thread]
                               [--class-field objectClass] [--sum FIELD|FIELD*FIELD ...]
  jfr_events.py summary  FILE [--chunk N[,M..]]     (event counts per chunk and type,
                                                     decode check of every event)
  jfr_events.py print    FILE --type NAME [--chunk N[,M..]] [--limit N] [--depth 3]
                               (events as JSON, pool references resolved)
  jfr_events.py split    FILE OUT.jfr --chunk N[,M..]  (copy whole chunks into a new file)

FILE may be a .jfr or a gzip-compressed .jfr(.gz) (detected by its magic bytes).
Chunks are numbered from 1.  Everything is printed as JSON.

What the real files showed, next to the notes (fixtures/thirdparty, fixtures/jfr):
* The notes' layout held on every fixture: every event of every type in every
  chunk decodes field by field from the chunk's own metadata and ends exactly
  at its size (`summary` reports any that do not), and the per-type counts
  equal `jfr summary`'s.
* DISAGREES (section 3: "minor 0 = JDK 11-13"): async-profiler 4.5 and
  Datadog's java-profiler (2024) write format 2.0 chunks (minor 0, a u4
  capabilities word of 1), and Datadog's sits in one file after two 2.1 chunks
  of JDK 21.  Reading byte 67 for the compressed-integer bit works for both.
* Section 3.2 (metadata not at offset 68): true of the JDK's chunks (two
  metadata events per chunk in the Datadog file's JDK 21 chunks); the
  third-party writers put their one metadata event at offset 68.
* DISAGREES (section 4.3, "the metadata string table uses 4"): only the JDK
  does; async-profiler and Datadog write metadata strings as UTF-8 (3).
* Section 8.2/8.3: the third-party chunks have a single checkpoint (kind 1,
  FLUSH), no HEADER checkpoint; the header's cp offset names it.  Datadog's
  holds empty pools (java.lang.String and profiler.types.AttributeValue with 0
  entries): accepted here; the JDK's `jfr print` dies on them ("Pool
  java.lang.String must contain at least one element").
* Datadog's datadog.ProfilerCounter.name is an inline (non-pool) one-field
  struct, profiler.types.CounterName: inline structs are not only the JDK's.
* Datadog's FrameType pool has 7 entries (adds "C++", "Kernel", "C1 compiled"),
  and its Method.hidden is true for every Java method (false only for
  native/C++ frames): not the JDK's meaning of hidden.
* Event type ids 0 and 1 are always metadata and checkpoint; they are never
  looked up in the metadata.  A JDK chunk's second metadata event (type 0) sits
  in the middle of the event stream and is skipped by size like any other.
"""

import argparse
import gzip
import json
import struct
import sys

MAGIC = b"FLR\0"
HEADER_SIZE = 68
MAX_DEPTH = 32
MAX_EMPTY_ELEMENTS = 1 << 22

PRIMITIVES = {
    "boolean", "byte", "char", "short", "int", "long", "float", "double",
    "java.lang.String",
}
INT_BITS = {"byte": 8, "char": 16, "short": 16, "int": 32, "long": 64}
# Fixed widths used when the chunk does not have compressed integers (flag bit 0
# clear).  HotSpot never writes such chunks (section 3.1); untested.
FIXED_BYTES = {"char": 2, "short": 2, "int": 4, "long": 8}


class JfrError(Exception):
    pass


# --------------------------------------------------------------------------
# Low-level readers.  All take (buf, pos, end) and return (value, new_pos).

def read_varint(buf, pos, end):
    """LEB128-style varint, at most 9 bytes; the 9th byte holds 8 bits (4.1)."""
    v = 0
    shift = 0
    for _ in range(8):
        if pos >= end:
            raise JfrError("varint runs past end at %d" % pos)
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if b < 0x80:
            return v, pos
        shift += 7
    if pos >= end:
        raise JfrError("varint runs past end at %d" % pos)
    v |= buf[pos] << 56
    return v, pos + 1


def read_fixed(buf, pos, end, n):
    if pos + n > end:
        raise JfrError("fixed int runs past end at %d" % pos)
    return int.from_bytes(buf[pos:pos + n], "big"), pos + n


class StrRef:
    """A string written as a reference (encoding 2) into the java.lang.String pool."""
    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return "StrRef(%d)" % self.key


def read_string(buf, pos, end, compressed=True):
    """A string value (4.3)."""
    if pos >= end:
        raise JfrError("string runs past end at %d" % pos)
    enc = buf[pos]
    pos += 1
    rdint = read_varint if compressed else (lambda b, p, e: read_fixed(b, p, e, 4))
    if enc == 0:
        return None, pos
    if enc == 1:
        return "", pos
    if enc == 2:
        key, pos = (read_varint if compressed else
                    (lambda b, p, e: read_fixed(b, p, e, 8)))(buf, pos, end)
        return StrRef(key), pos
    if enc in (3, 5):
        n, pos = rdint(buf, pos, end)
        if pos + n > end:
            raise JfrError("string bytes run past end at %d" % pos)
        raw = bytes(buf[pos:pos + n])
        pos += n
        if enc == 3:
            # The JVM writes modified UTF-8; for names this is plain ASCII.
            return raw.decode("utf-8", "surrogateescape"), pos
        return raw.decode("latin-1"), pos
    if enc == 4:
        n, pos = rdint(buf, pos, end)
        units = []
        for _ in range(n):
            if compressed:
                u, pos = read_varint(buf, pos, end)
            else:
                u, pos = read_fixed(buf, pos, end, 2)
            units.append(u & 0xFFFF)
        return (struct.pack(">%dH" % len(units), *units)
                .decode("utf-16-be", "surrogatepass")), pos
    raise JfrError("bad string encoding %d at %d" % (enc, pos - 1))


# --------------------------------------------------------------------------
# Metadata (section 6)

class Field:
    __slots__ = ("name", "type_id", "dim", "cp", "annotations")

    def __init__(self, name, type_id, dim, cp, annotations):
        self.name = name
        self.type_id = type_id
        self.dim = dim
        self.cp = cp
        self.annotations = annotations  # list of (annotation type id, {attr: value})


class Type:
    __slots__ = ("id", "name", "super_type", "simple", "fields", "annotations")

    def __init__(self, tid, name, super_type, simple):
        self.id = tid
        self.name = name
        self.super_type = super_type
        self.simple = simple
        self.fields = []
        self.annotations = []


class Metadata:
    def __init__(self):
        self.types = {}      # id -> Type
        self.by_name = {}    # name -> Type
        self.metadata_id = None
        self.region = {}
        self.duplicate_ids = []

    def type_name(self, tid):
        t = self.types.get(tid)
        return t.name if t else "<unknown type %d>" % tid


def parse_metadata(buf, pos, end, compressed):
    """Parse the metadata event payload (after size and type)."""
    rd = read_varint if compressed else (lambda b, p, e: read_fixed(b, p, e, 8))
    rdi = read_varint if compressed else (lambda b, p, e: read_fixed(b, p, e, 4))
    md = Metadata()
    _, pos = rd(buf, pos, end)           # startTime
    _, pos = rd(buf, pos, end)           # duration
    md.metadata_id, pos = rd(buf, pos, end)
    nstr, pos = rdi(buf, pos, end)
    strings = []
    for _ in range(nstr):
        s, pos = read_string(buf, pos, end, compressed)
        strings.append(s)

    def sref(i):
        if i >= len(strings):
            raise JfrError("metadata string index %d out of range" % i)
        s = strings[i]
        return s if isinstance(s, str) else ("" if s is None else str(s))

    def element(pos, depth):
        if depth > MAX_DEPTH:
            raise JfrError("metadata nested too deep")
        ni, pos = rdi(buf, pos, end)
        na, pos = rdi(buf, pos, end)
        attrs = {}
        for _ in range(na):
            k, pos = rdi(buf, pos, end)
            v, pos = rdi(buf, pos, end)
            attrs[sref(k)] = sref(v)
        nc, pos = rdi(buf, pos, end)
        children = []
        for _ in range(nc):
            c, pos = element(pos, depth + 1)
            children.append(c)
        return (sref(ni), attrs, children), pos

    root, pos = element(pos, 0)
    try:
        _types_from_tree(md, root)
    except (KeyError, ValueError) as e:
        raise JfrError("bad metadata element: %r" % (e,))
    return md


def _types_from_tree(md, root):

    def annots(children):
        out = []
        for cname, cattrs, _ in children:
            if cname == "annotation":
                vals = {k: v for k, v in cattrs.items() if k != "class"}
                out.append((int(cattrs["class"]), vals))
        return out

    for name, attrs, children in root[2]:
        if name == "region":
            md.region = attrs
        if name != "metadata":
            continue
        for cname, cattrs, cchildren in children:
            if cname != "class":
                continue
            tid = int(cattrs["id"])
            t = Type(tid, cattrs.get("name"), cattrs.get("superType"),
                     cattrs.get("simpleType") == "true")
            for fname, fattrs, fchildren in cchildren:
                if fname != "field":
                    continue
                dim = int(fattrs.get("dimension", "0") or 0)
                # Presence of constantPool means true (the JDK reads it so);
                # we also accept an explicit "false".
                cp = "constantPool" in fattrs and fattrs["constantPool"] != "false"
                t.fields.append(Field(fattrs["name"], int(fattrs["class"]), dim, cp,
                                      annots(fchildren)))
            t.annotations = annots(cchildren)
            if tid in md.types:
                md.duplicate_ids.append(tid)
            md.types[tid] = t
            md.by_name.setdefault(t.name, t)


# --------------------------------------------------------------------------
# Generic, metadata-driven value decoding (section 7)

class Decoder:
    """Decodes values of a chunk, driven by that chunk's metadata.

    Structs become dicts {field name: value}; constant-pool references are
    left as raw int keys (resolve with Chunk.resolve); strings written as
    pool references are StrRef objects.
    """

    def __init__(self, md, compressed):
        self.md = md
        self.compressed = compressed
        self._progs = {}
        self._min = {}

    def _prog(self, tid, depth=0):
        """A closure reading one scalar (dim 0, not cp) value of type tid."""
        p = self._progs.get(tid)
        if p is not None:
            return p
        if depth > MAX_DEPTH:
            raise JfrError("inline struct nesting too deep at type %d" % tid)
        t = self.md.types.get(tid)
        if t is None:
            raise JfrError("field of unknown type id %d" % tid)
        name = t.name
        comp = self.compressed
        if name in PRIMITIVES and not t.fields:
            p = self._primitive(name)
        elif self.min_size(tid) == 0:
            # Only field-less structs inside (section 7: zero bytes).  Read as
            # one empty dict, without expanding the nesting (a hostile file
            # nests 32 empty fields 8 deep).
            def p(buf, pos, end):
                return {}, pos
        else:
            # Inline struct: its fields in order.  A field-less non-primitive
            # type takes zero bytes (section 7).
            self._progs[tid] = None  # guard against inline recursion
            fprogs = []
            for f in t.fields:
                fprogs.append((f.name, self._field_prog(f, depth + 1)))
            rdlen = read_varint if comp else (lambda b, p, e: read_fixed(b, p, e, 4))

            def p(buf, pos, end, _fp=fprogs):
                d = {}
                for fname, fp in _fp:
                    d[fname], pos = fp(buf, pos, end)
                return d, pos
        self._progs[tid] = p
        return p

    def _field_prog(self, f, depth=0):
        comp = self.compressed
        if f.cp:
            if comp:
                elem = read_varint
            else:
                elem = lambda b, p, e: read_fixed(b, p, e, 8)
        else:
            if f.type_id in self._progs and self._progs[f.type_id] is None:
                raise JfrError("recursive inline struct type %d" % f.type_id)
            elem = self._prog(f.type_id, depth)
        if f.dim == 0:
            return elem
        if f.dim != 1:
            # DISAGREES? The notes say only 1-dimensional arrays exist; we
            # read dim>1 as nested arrays, each with its own count.
            pass
        rdlen = read_varint if comp else (lambda b, p, e: read_fixed(b, p, e, 4))
        # Bound the element count by the bytes left: n elements of at least
        # m bytes each must fit.  Elements of 0 bytes (field-less structs, which
        # only hostile files use) are not read: they are all the same empty
        # dict, and their count is capped so that a forged count cannot hang us.
        m = 1 if f.cp else self.min_size(f.type_id)

        def arr(buf, pos, end, _dim=f.dim, _e=elem, _m=m):
            def one(pos, d):
                n, pos = rdlen(buf, pos, end)
                if d > 1:
                    if n > end - pos:
                        raise JfrError("array length %d > %d bytes left" % (n, end - pos))
                    out = []
                    for _ in range(n):
                        v, pos = one(pos, d - 1)
                        out.append(v)
                    return out, pos
                if _m == 0:
                    if n > MAX_EMPTY_ELEMENTS:
                        raise JfrError("array of %d zero-size elements" % n)
                    return [{}] * n, pos
                if n * _m > end - pos:
                    raise JfrError("array length %d > %d bytes left" % (n, end - pos))
                out = []
                for _ in range(n):
                    v, pos = _e(buf, pos, end)
                    out.append(v)
                return out, pos
            return one(pos, _dim)
        return arr

    def min_size(self, tid, depth=0):
        """Fewest bytes a scalar value of type tid can take.  0 means the
        type is made only of field-less structs: it always takes 0 bytes."""
        if tid in self._min:
            return self._min[tid]
        t = self.md.types.get(tid)
        if t is None or depth > MAX_DEPTH:
            return 0
        if t.name in PRIMITIVES and not t.fields:
            if not self.compressed and t.name in FIXED_BYTES:
                n = FIXED_BYTES[t.name]
            else:
                n = {"float": 4, "double": 8}.get(t.name, 1)
        else:
            n = 0
            for f in t.fields:
                n += 1 if (f.dim or f.cp) else self.min_size(f.type_id, depth + 1)
        self._min[tid] = n
        return n

    def _primitive(self, name):
        comp = self.compressed
        if name == "boolean":
            def p(buf, pos, end):
                if pos >= end:
                    raise JfrError("boolean past end")
                return buf[pos] != 0, pos + 1
        elif name == "byte":
            def p(buf, pos, end):
                if pos >= end:
                    raise JfrError("byte past end")
                b = buf[pos]
                return (b - 256 if b > 127 else b), pos + 1
        elif name in ("char", "short", "int", "long"):
            bits = INT_BITS[name]
            mask = (1 << bits) - 1
            sign = 1 << (bits - 1)
            nbytes = FIXED_BYTES[name]

            # Narrow to the field width as a signed value (4.1).  Unsigned
            # fields are re-widened by the caller (Chunk.as_unsigned).
            if name == "char":
                if comp:
                    def p(buf, pos, end):
                        v, pos = read_varint(buf, pos, end)
                        return chr(v & 0xFFFF), pos
                else:
                    def p(buf, pos, end):
                        v, pos = read_fixed(buf, pos, end, 2)
                        return chr(v), pos
            elif comp:
                def p(buf, pos, end):
                    v, pos = read_varint(buf, pos, end)
                    v &= mask
                    return (v - (mask + 1) if v & sign else v), pos
            else:
                def p(buf, pos, end):
                    v, pos = read_fixed(buf, pos, end, nbytes)
                    return (v - (mask + 1) if v & sign else v), pos
        elif name == "float":
            def p(buf, pos, end):
                if pos + 4 > end:
                    raise JfrError("float past end")
                return struct.unpack_from(">f", buf, pos)[0], pos + 4
        elif name == "double":
            def p(buf, pos, end):
                if pos + 8 > end:
                    raise JfrError("double past end")
                return struct.unpack_from(">d", buf, pos)[0], pos + 8
        else:  # java.lang.String
            def p(buf, pos, end):
                return read_string(buf, pos, end, comp)
        return p

    def type_prog(self, tid):
        return self._prog(tid)


# --------------------------------------------------------------------------
# Chunks

class Chunk:
    def __init__(self, index, buf, start):
        self.index = index          # 1-based
        self.buf = buf
        self.start = start
        h = buf[start:start + HEADER_SIZE]
        if len(h) < HEADER_SIZE or h[:4] != MAGIC:
            raise JfrError("no chunk header at file offset %d" % start)
        (_, self.major, self.minor, self.size, self.cp_offset, self.md_offset,
         self.start_nanos, self.duration_nanos, self.start_ticks,
         self.ticks_per_second) = struct.unpack(">4sHHQQQQQQQ", h[:64])
        self.state = h[64]
        self.flags = struct.unpack(">H", h[66:68])[0]
        # Format 2.0: bytes 64..67 are one u4 capabilities word; reading its
        # low byte for bit 0 works for both (section 3).
        self.compressed = bool(h[67] & 1)
        self.truncated = False
        self.end = start + self.size
        if self.size < HEADER_SIZE:
            raise JfrError("chunk %d: size %d < 68" % (index, self.size))
        if self.end > len(buf):
            self.truncated = True
        self.md = None
        self.decoder = None
        self.pools = {}             # type id -> {key: value}
        self.checkpoints = []       # chunk offsets of checkpoint events
        self.metadata_events = []   # chunk offsets of metadata events
        self.errors = []

    def header_json(self):
        return {
            "chunk": self.index, "file_offset": self.start, "size": self.size,
            "major": self.major, "minor": self.minor,
            "cp_offset": self.cp_offset, "metadata_offset": self.md_offset,
            "start_nanos": self.start_nanos, "duration_nanos": self.duration_nanos,
            "start_ticks": self.start_ticks, "ticks_per_second": self.ticks_per_second,
            "state": self.state, "flags": self.flags,
        }

    # -- framing (section 5)
    def _read_header(self, pos):
        if self.compressed:
            size, p = read_varint(self.buf, pos, self.end)
            typ, p = read_varint(self.buf, p, self.end)
        else:
            # Uncompressed framing as the JDK's RecordingInput would read it
            # (int size, long type); untested: no such files exist.
            size, p = read_fixed(self.buf, pos, self.end, 4)
            typ, p = read_fixed(self.buf, p, self.end, 8)
        return size, typ, p

    def events(self):
        """Yield (event_start, size, type, payload_start) for every event."""
        pos = self.start + HEADER_SIZE
        end = min(self.end, len(self.buf))
        while pos < end:
            try:
                size, typ, p = self._read_header(pos)
            except JfrError as e:
                self.errors.append("event header at chunk offset %d: %s"
                                   % (pos - self.start, e))
                return
            if size == 0 or pos + size > end:
                self.errors.append("bad event size %d at chunk offset %d; rest of chunk abandoned"
                                   % (size, pos - self.start))
                return
            yield pos, size, typ, p
            pos += size

    def load(self, pools=True):
        """Read metadata and (unless pools is false) all constant pools of this chunk."""
        if self.truncated:
            raise JfrError("chunk %d is cut off (claims %d bytes, file has %d)"
                           % (self.index, self.size, len(self.buf) - self.start))
        if not (HEADER_SIZE <= self.md_offset < self.size):
            raise JfrError("chunk %d: no metadata (offset %d)" % (self.index, self.md_offset))
        # One linear pass: note every metadata and checkpoint event.
        for pos, size, typ, p in self.events():
            if typ == 0:
                self.metadata_events.append(pos - self.start)
            elif typ == 1:
                self.checkpoints.append(pos - self.start)
        # The header's metadata offset names the most recent metadata event,
        # which describes every type of the chunk (section 6).
        mpos = self.start + self.md_offset
        size, typ, p = self._read_header(mpos)
        if typ != 0:
            raise JfrError("chunk %d: event at metadata offset has type %d" % (self.index, typ))
        self.md = parse_metadata(self.buf, p, mpos + size, self.compressed)
        self.decoder = Decoder(self.md, self.compressed)
        if not pools:
            return
        for off in self.checkpoints:
            self._load_checkpoint(self.start + off)

    def _load_checkpoint(self, pos):
        buf = self.buf
        size, typ, p = self._read_header(pos)
        end = pos + size
        rd = read_varint if self.compressed else (lambda b, q, e: read_fixed(b, q, e, 8))
        rdi = read_varint if self.compressed else (lambda b, q, e: read_fixed(b, q, e, 4))
        try:
            _, p = rd(buf, p, end)          # startTime
            _, p = rd(buf, p, end)          # duration
            _, p = rd(buf, p, end)          # delta to previous checkpoint
            if self.compressed:
                _, p = read_varint(buf, p, end)  # kind
            else:
                p += 1
            npools, p = rdi(buf, p, end)
            for _ in range(npools):
                tid, p = rd(buf, p, end)
                count, p = rdi(buf, p, end)
                t = self.md.types.get(tid)
                if t is None:
                    raise JfrError("pool of unknown type %d" % tid)
                prog = self.decoder.type_prog(tid)
                pool = self.pools.setdefault(tid, {})
                for _ in range(count):
                    key, p = rd(buf, p, end)
                    val, p = prog(buf, p, end)
                    pool.setdefault(key, val)   # keep the first on duplicates
            if p != end:
                self.errors.append("checkpoint at chunk offset %d: %d bytes left over"
                                   % (pos - self.start, end - p))
        except JfrError as e:
            self.errors.append("checkpoint at chunk offset %d: %s" % (pos - self.start, e))

    # -- resolution
    def resolve(self, tid, key):
        """The pool value for key in the pool of type tid, or None."""
        pool = self.pools.get(tid)
        if pool is None:
            return None
        return pool.get(key)

    def string(self, v):
        for _ in range(MAX_DEPTH):
            if not isinstance(v, StrRef):
                return v
            t = self.md.by_name.get("java.lang.String")
            if t is None:
                return None
            v = self.resolve(t.id, v.key)
        return None

    def field_value(self, tid, value, fname):
        """Field fname of struct value (of type tid), resolved through pools.
        Returns (field type id, resolved value)."""
        t = self.md.types.get(tid)
        if t is None or not isinstance(value, dict):
            return None, None
        for f in t.fields:
            if f.name == fname:
                v = value.get(fname)
                if f.cp and f.dim == 0:
                    v = self.resolve(f.type_id, v)
                return f.type_id, v
        return None, None

    def text(self, tid, value, depth=0):
        """Unwrap simple types (Symbol, FrameType...) and strings to text."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(value, (str, StrRef)) or value is None:
            return self.string(value)
        t = self.md.types.get(tid)
        if isinstance(value, dict) and t is not None and len(t.fields) == 1:
            f = t.fields[0]
            v = value.get(f.name)
            if f.cp:
                v = self.resolve(f.type_id, v)
            return self.text(f.type_id, v, depth + 1)
        return value

    def class_name(self, class_tid, key):
        """Name of a java.lang.Class pool entry, as the JVM writes it."""
        v = self.resolve(class_tid, key)
        if v is None:
            return None
        ftid, sym = self.field_value(class_tid, v, "name")
        return self.text(ftid, sym)

    def as_unsigned(self, field, v):
        if not isinstance(v, int) or v >= 0:
            return v
        tname = self.md.type_name(field.type_id)
        bits = INT_BITS.get(tname)
        if bits and any(self.md.type_name(a) == "jdk.jfr.Unsigned" for a, _ in field.annotations):
            return v + (1 << bits)
        return v


def read_file(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def chunks_of(data):
    out = []
    pos = 0
    i = 1
    while pos + HEADER_SIZE <= len(data):
        c = Chunk(i, data, pos)
        out.append(c)
        if c.truncated:
            break
        pos = c.end
        i += 1
    if pos < len(data) and (not out or not out[-1].truncated):
        if pos + HEADER_SIZE > len(data):
            print("warning: %d trailing bytes after the last chunk" % (len(data) - pos),
                  file=sys.stderr)
    return out


def select_chunks(chunks, spec):
    if not spec:
        return chunks
    want = set()
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            want.update(range(int(a), int(b) + 1))
        else:
            want.add(int(part))
    bad = [n for n in want if n < 1 or n > len(chunks)]
    if bad:
        raise SystemExit("no chunk %s (file has %d)" % (bad, len(chunks)))
    return [c for c in chunks if c.index in want]


# --------------------------------------------------------------------------
# Commands

def annotation_json(md, annotations):
    out = {}
    for atid, vals in annotations:
        name = md.type_name(atid)
        if not vals:
            out[name] = True
        elif list(vals) == ["value"]:
            out[name] = vals["value"]
        else:
            out[name] = vals
    return out


def type_json(md, t):
    fields = []
    for f in t.fields:
        fj = {"name": f.name, "type": md.type_name(f.type_id), "type_id": f.type_id,
              "dimension": f.dim, "constantPool": f.cp}
        if f.annotations:
            fj["annotations"] = annotation_json(md, f.annotations)
        fields.append(fj)
    j = {"id": t.id, "name": t.name, "superType": t.super_type}
    if t.simple:
        j["simpleType"] = True
    if t.annotations:
        j["annotations"] = annotation_json(md, t.annotations)
    j["fields"] = fields
    return j


def cmd_metadata(args):
    data = read_file(args.file)
    out = []
    for c in select_chunks(chunks_of(data), args.chunk):
        c.load(pools=False)
        md = c.md
        j = c.header_json()
        j["metadata_id"] = md.metadata_id
        j["metadata_events"] = c.metadata_events
        if md.duplicate_ids:
            j["duplicate_type_ids"] = md.duplicate_ids
        types = []
        for t in sorted(md.types.values(), key=lambda t: t.id):
            if args.type:
                if t.name != args.type and not (args.type.endswith("*") and
                                                 t.name.startswith(args.type[:-1])):
                    continue
            elif not args.all and t.super_type != "jdk.jfr.Event":
                continue
            types.append(type_json(md, t))
        j["types"] = types
        if c.errors:
            j["errors"] = c.errors
        out.append(j)
    json.dump(out, sys.stdout, indent=1)
    print()


def stack_top(c, ev_tid, ev):
    """First frame of the event's stack trace as Class.method."""
    st_tid, st = c.field_value(ev_tid, ev, "stackTrace")
    if not isinstance(st, dict):
        return None
    frames = st.get("frames")
    if not frames:
        return None
    fr_tid = None
    for f in c.md.types[st_tid].fields:
        if f.name == "frames":
            fr_tid = f.type_id
    m_tid, m = c.field_value(fr_tid, frames[0], "method")
    if not isinstance(m, dict):
        return None
    cls_tid, _ = c.field_value(m_tid, m, "type")
    cls_key = m.get("type")
    cname = c.class_name(cls_tid, cls_key) if cls_tid is not None else None
    n_tid, n = c.field_value(m_tid, m, "name")
    return "%s.%s" % (cname, c.text(n_tid, n))


def class_at(c, ev_tid, ev, path):
    """Name of the java.lang.Class reached from the event through a field
    path (["objectClass"], or ["object", "type"] for jdk.OldObjectSample)."""
    tid, v = ev_tid, ev
    for part in path:
        tid, v = c.field_value(tid, v, part)
        if v is None:
            return None
    ntid, n = c.field_value(tid, v, "name")
    return c.text(ntid, n)


def thread_name(c, ev_tid, ev):
    t_tid, t = c.field_value(ev_tid, ev, "eventThread")
    if not isinstance(t, dict):
        return None
    for fname in ("javaName", "osName"):
        ftid, v = c.field_value(t_tid, t, fname)
        v = c.text(ftid, v)
        if v:
            return v
    return None


def parse_where(w):
    """FIELD>=N, FIELD<N, FIELD=N: an integer field against a number."""
    for op in (">=", "<", "="):
        if op in w:
            name, _, v = w.partition(op)
            return name, op, float(v)
    raise SystemExit("--where %s: not FIELD>=N, FIELD<N or FIELD=N" % w)


def where_ok(c, fields, ev, w):
    name, op, v = w
    f = fields.get(name)
    x = c.as_unsigned(f, ev.get(name, 0)) if f else 0
    if not isinstance(x, (int, float)):
        return False
    return x >= v if op == ">=" else x < v if op == "<" else x == v


def cmd_count(args):
    data = read_file(args.file)
    total = 0
    per_chunk = []
    groups = {}
    sums = {f: 0 for f in args.sum}
    errors = []
    wheres = [parse_where(w) for w in args.where]
    for c in select_chunks(chunks_of(data), args.chunk):
        c.load()
        errors.extend("chunk %d: %s" % (c.index, e) for e in c.errors)
        t = c.md.by_name.get(args.type)
        n_chunk = 0
        if t is None:
            per_chunk.append(0)
            continue
        prog = c.decoder.type_prog(t.id)
        fields = {f.name: f for f in t.fields}
        for fname in args.sum:
            for part in fname.split("*"):
                if part not in fields:
                    errors.append("chunk %d: %s has no field %s" % (c.index, args.type, part))
        cls_path = args.class_field.split(".")
        for pos, size, typ, p in c.events():
            # Types 0 and 1 are always metadata and checkpoints (section 5),
            # whatever the metadata says.
            if typ != t.id or typ < 2:
                continue
            try:
                ev, q = prog(c.buf, p, pos + size)
            except JfrError as e:
                errors.append("chunk %d: event at %d: %s" % (c.index, pos - c.start, e))
                continue
            if not all(where_ok(c, fields, ev, w) for w in wheres):
                continue
            n_chunk += 1
            vals = {}
            for fname in args.sum:
                v = 1
                for part in fname.split("*"):
                    f = fields.get(part)
                    x = c.as_unsigned(f, ev.get(part, 0)) if f else 0
                    if isinstance(x, bool):
                        x = int(x)
                    elif not isinstance(x, (int, float)):
                        x = 0
                    v *= x
                vals[fname] = v
                sums[fname] += v
            if args.by:
                if args.by == "class":
                    key = class_at(c, t.id, ev, cls_path)
                elif args.by == "stack-top":
                    key = stack_top(c, t.id, ev)
                elif args.by == "thread":
                    key = thread_name(c, t.id, ev)
                else:
                    raise SystemExit("unknown --by %s" % args.by)
                key = "<null>" if key is None else key
                g = groups.get(key)
                if g is None:
                    g = groups[key] = {"n": 0}
                    for fname in args.sum:
                        g[fname] = 0
                g["n"] += 1
                for fname in args.sum:
                    g[fname] += vals[fname]
        per_chunk.append(n_chunk)
        total += n_chunk
    out = {"type": args.type, "total": total, "per_chunk": per_chunk}
    if args.sum:
        out["sums"] = sums
    if args.by:
        out["groups"] = dict(sorted(groups.items(), key=lambda kv: (-kv[1]["n"], kv[0])))
    if errors:
        out["errors"] = errors
    json.dump(out, sys.stdout, indent=1)
    print()
    return 1 if errors else 0


def cmd_summary(args):
    """Per chunk: events per type; every event is decoded field by field and
    checked to end inside its size (trailing bytes are counted, not errors)."""
    data = read_file(args.file)
    out = []
    for c in select_chunks(chunks_of(data), args.chunk):
        j = c.header_json()
        try:
            c.load()
        except JfrError as e:
            j["error"] = str(e)
            out.append(j)
            continue
        counts = {}
        bad = {}
        trailing = {}
        unknown = {}
        for pos, size, typ, p in c.events():
            if typ in (0, 1):
                name = {0: "(metadata)", 1: "(checkpoint)"}[typ]
                counts[name] = counts.get(name, 0) + 1
                continue
            t = c.md.types.get(typ)
            if t is None:
                unknown[typ] = unknown.get(typ, 0) + 1
                continue
            counts[t.name] = counts.get(t.name, 0) + 1
            try:
                _, q = c.decoder.type_prog(typ)(c.buf, p, pos + size)
                if q != pos + size:
                    trailing[t.name] = trailing.get(t.name, 0) + 1
            except JfrError:
                bad[t.name] = bad.get(t.name, 0) + 1
        j["metadata_id"] = c.md.metadata_id
        j["types"] = len(c.md.types)
        j["checkpoints"] = len(c.checkpoints)
        j["pools"] = {c.md.type_name(t): len(p) for t, p in sorted(c.pools.items())}
        j["events"] = dict(sorted(counts.items()))
        if unknown:
            j["unknown_type_ids"] = unknown
        if bad:
            j["decode_overrun"] = bad
        if trailing:
            j["trailing_bytes"] = trailing
        if c.errors:
            j["errors"] = c.errors
        out.append(j)
    json.dump(out, sys.stdout, indent=1)
    print()


def to_json(c, tid, value, depth):
    """A decoded value as JSON, pool references resolved (up to depth levels),
    one-field (simpleType) structs unwrapped, as `jfr print --json` shows them."""
    if isinstance(value, StrRef):
        return c.string(value)
    if isinstance(value, float) and value != value:
        return None
    if not isinstance(value, dict):
        return value
    t = c.md.types.get(tid)
    if t is None:
        return None
    out = {}
    for f in t.fields:
        v = value.get(f.name)
        if f.dim:
            out[f.name] = [ref_json(c, f, x, depth) for x in v] if isinstance(v, list) else v
        else:
            out[f.name] = ref_json(c, f, v, depth)
    if t.simple and len(t.fields) == 1:
        return out[t.fields[0].name]
    return out


def ref_json(c, f, v, depth):
    if f.cp:
        if depth <= 0:
            return {"@key": v}
        r = c.resolve(f.type_id, v)
        return None if r is None else to_json(c, f.type_id, r, depth - 1)
    if isinstance(v, int) and not isinstance(v, bool):
        v = c.as_unsigned(f, v)
    return to_json(c, f.type_id, v, depth)


def cmd_print(args):
    data = read_file(args.file)
    n = 0
    out = []
    for c in select_chunks(chunks_of(data), args.chunk):
        c.load()
        t = c.md.by_name.get(args.type)
        if t is None:
            continue
        prog = c.decoder.type_prog(t.id)
        for pos, size, typ, p in c.events():
            if typ != t.id or typ < 2:
                continue
            if args.limit is not None and n >= args.limit:
                break
            try:
                ev, _ = prog(c.buf, p, pos + size)
            except JfrError as e:
                out.append({"chunk": c.index, "offset": pos - c.start, "error": str(e)})
                continue
            n += 1
            out.append({"chunk": c.index, "offset": pos - c.start, "type": t.name,
                        "values": to_json(c, t.id, ev, args.depth)})
    json.dump(out, sys.stdout, indent=1)
    print()


def cmd_split(args):
    data = read_file(args.file)
    with open(args.out, "wb") as fh:
        for c in select_chunks(chunks_of(data), args.chunk):
            fh.write(data[c.start:c.end])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("metadata")
    p.add_argument("file")
    p.add_argument("--chunk")
    p.add_argument("--type", help="type name (a trailing * matches a prefix)")
    p.add_argument("--all", action="store_true", help="all types, not only events")
    p = sub.add_parser("count")
    p.add_argument("file")
    p.add_argument("--type", required=True)
    p.add_argument("--chunk")
    p.add_argument("--by", choices=["class", "stack-top", "thread"])
    p.add_argument("--class-field", default="objectClass",
                   help="field (or dotted path, e.g. object.type) holding the Class")
    p.add_argument("--sum", nargs="+", default=[], metavar="FIELD")
    p.add_argument("--where", action="append", default=[], metavar="FIELD>=N",
                   help="count only events whose integer FIELD is >= N, < N or = N")
    p = sub.add_parser("summary")
    p.add_argument("file")
    p.add_argument("--chunk")
    p = sub.add_parser("print")
    p.add_argument("file")
    p.add_argument("--type", required=True)
    p.add_argument("--chunk")
    p.add_argument("--limit", type=int)
    p.add_argument("--depth", type=int, default=3, help="pool reference levels to resolve")
    p = sub.add_parser("split")
    p.add_argument("file")
    p.add_argument("out")
    p.add_argument("--chunk", required=True)
    args = ap.parse_args(argv)
    try:
        return {"metadata": cmd_metadata, "count": cmd_count, "summary": cmd_summary,
                "print": cmd_print, "split": cmd_split}[args.cmd](args) or 0
    except JfrError as e:
        print("jfr_events.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
