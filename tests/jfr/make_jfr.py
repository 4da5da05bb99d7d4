#!/usr/bin/env python3
"""Write a small synthetic JFR recording (one finished chunk, format 2.0)
whose heap events carry the weights and sizes given, so that values at
and beyond 2^32 and around 2^63 can be followed through heapsift's whole
path (import, store, top, export) and through the JDK's own `jfr print`.

usage: make_jfr.py [--start-ns NS] [--no-thread] [--thread NAME]
                   [--class NAME] [--pad BYTES] [--declare SIZE]
                   OUT.jfr VALUE...

Each VALUE (a decimal integer from 0 to 2^64 - 1; the file holds the 64
bits, so 2^63 and above are negative JFR longs) gives three events, each
with its own class, so that a per-class sum is that one value:

  jdk.ObjectAllocationSample     class W<VALUE>, weight VALUE
  jdk.ObjectAllocationInNewTLAB  class T<VALUE>, tlabSize VALUE,
                                 allocationSize 16
  jdk.ObjectAllocationOutsideTLAB class O<VALUE>, allocationSize VALUE

The events are 1 ms apart from the chunk's start (NS, default
1795301015789868763: --start-ns on a whole millisecond puts every event
on the boundary of 1 ms buckets), on thread "main" (or --thread NAME), with
a two-frame stack Big.make:3 < Big.main:7 (--class NAME: the methods'
class is NAME, so the sites are NAME.make:3 and NAME.main:7; the report's
tests give names with Markdown's characters so).  --no-thread leaves the
eventThread field out of the three event types (as a writer may, the
format allows it): an event without one of its usual fields takes a
reader's slower, general path (heapsift's decode_sample()), which a
JDK's recordings never reach.  --pad BYTES puts that many bytes of
events of a type the metadata does not declare (zeros, 64 KiB an event;
readers skip them by their size) before the heap events, to make a
large chunk that compresses to almost nothing; --declare SIZE writes
SIZE as the chunk's size in its header instead of the true one (a chunk
that claims more than the file holds).  OUT.jfr "-" is standard output.
The layout follows
/work/shared/reference (the JFR format); tests/unit/jfr_test.c's C
builder writes the same structures.
"""
import struct
import sys

START_NS = 1795301015789868763
NO_THREAD = False
THREAD = "main"
FRAME_CLASS = "Big"
START_TICKS = 325481737
TPS = 1_000_000_000

# type ids
T_LONG, T_INT, T_BOOL, T_STRING, T_THREAD, T_CLASS, T_SYMBOL, T_METHOD, \
    T_FRAMETYPE, T_FRAME, T_STACK, T_ALLOC, T_TLAB, T_OUTSIDE = \
    range(101, 115)


def vint(v):
    """JFR's compressed integer: 7 bits a byte, the 9th byte whole."""
    v &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v & 0xFF)
    return bytes(out)


def utf8(s):
    b = s.encode("utf-8")
    return bytes([3]) + vint(len(b)) + b


def event(type_id, payload):
    """size (a varint padded to 4 bytes, counting itself), type, payload"""
    body = vint(type_id) + payload
    n = len(body) + 4
    size = bytes([(n & 0x7F) | 0x80, ((n >> 7) & 0x7F) | 0x80,
                  ((n >> 14) & 0x7F) | 0x80, (n >> 21) & 0x7F])
    return size + body


TYPES = [
    # id, name, super, simple, fields (name, type, array, constantPool)
    (T_LONG, "long", None, False, []),
    (T_INT, "int", None, False, []),
    (T_BOOL, "boolean", None, False, []),
    (T_STRING, "java.lang.String", None, False, []),
    (T_THREAD, "java.lang.Thread", None, False,
     [("osName", T_STRING, 0, 0), ("osThreadId", T_LONG, 0, 0),
      ("javaName", T_STRING, 0, 0), ("javaThreadId", T_LONG, 0, 0)]),
    (T_SYMBOL, "jdk.types.Symbol", None, True, [("string", T_STRING, 0, 0)]),
    (T_CLASS, "java.lang.Class", None, False,
     [("classLoader", T_LONG, 0, 0), ("name", T_SYMBOL, 0, 1),
      ("modifiers", T_INT, 0, 0), ("hidden", T_BOOL, 0, 0)]),
    (T_METHOD, "jdk.types.Method", None, False,
     [("type", T_CLASS, 0, 1), ("name", T_SYMBOL, 0, 1),
      ("descriptor", T_SYMBOL, 0, 1), ("modifiers", T_INT, 0, 0),
      ("hidden", T_BOOL, 0, 0)]),
    (T_FRAMETYPE, "jdk.types.FrameType", None, True,
     [("description", T_STRING, 0, 0)]),
    (T_FRAME, "jdk.types.StackFrame", None, False,
     [("method", T_METHOD, 0, 1), ("lineNumber", T_INT, 0, 0),
      ("bytecodeIndex", T_INT, 0, 0), ("type", T_FRAMETYPE, 0, 1)]),
    (T_STACK, "jdk.types.StackTrace", None, False,
     [("truncated", T_BOOL, 0, 0), ("frames", T_FRAME, 1, 0)]),
    (T_ALLOC, "jdk.ObjectAllocationSample", "jdk.jfr.Event", False,
     [("startTime", T_LONG, 0, 0), ("eventThread", T_THREAD, 0, 1),
      ("stackTrace", T_STACK, 0, 1), ("objectClass", T_CLASS, 0, 1),
      ("weight", T_LONG, 0, 0)]),
    (T_TLAB, "jdk.ObjectAllocationInNewTLAB", "jdk.jfr.Event", False,
     [("startTime", T_LONG, 0, 0), ("eventThread", T_THREAD, 0, 1),
      ("stackTrace", T_STACK, 0, 1), ("objectClass", T_CLASS, 0, 1),
      ("allocationSize", T_LONG, 0, 0), ("tlabSize", T_LONG, 0, 0)]),
    (T_OUTSIDE, "jdk.ObjectAllocationOutsideTLAB", "jdk.jfr.Event", False,
     [("startTime", T_LONG, 0, 0), ("eventThread", T_THREAD, 0, 1),
      ("stackTrace", T_STACK, 0, 1), ("objectClass", T_CLASS, 0, 1),
      ("allocationSize", T_LONG, 0, 0)]),
]


def metadata():
    strings = []

    def s(x):
        if x not in strings:
            strings.append(x)
        return vint(strings.index(x))

    def el(name, attrs, children):
        out = s(name) + vint(len(attrs))
        for k, v in attrs:
            out += s(k) + s(v)
        return out + vint(len(children)) + b"".join(children)

    classes = []
    for tid, name, sup, simple, fields in TYPES:
        if NO_THREAD and tid in (T_ALLOC, T_TLAB, T_OUTSIDE):
            fields = [f for f in fields if f[0] != "eventThread"]
        attrs = [("id", str(tid)), ("name", name)]
        if sup:
            attrs.append(("superType", sup))
        if simple:
            attrs.append(("simpleType", "true"))
        fs = []
        for fname, ftype, arr, cp in fields:
            fa = [("name", fname), ("class", str(ftype))]
            if arr:
                fa.append(("dimension", "1"))
            if cp:
                fa.append(("constantPool", "true"))
            fs.append(el("field", fa, []))
        classes.append(el("class", attrs, fs))
    tree = el("root", [], [el("metadata", [], classes),
                           el("region", [("locale", "en_US"),
                                         ("gmtOffset", "0")], [])])
    payload = vint(START_TICKS) + vint(0) + vint(1) + vint(len(strings))
    payload += b"".join(utf8(x) for x in strings) + tree
    return event(0, payload)


def checkpoint(values):
    pools = []

    def pool(tid, entries):
        pools.append(vint(tid) + vint(len(entries)) + b"".join(entries))

    names = [FRAME_CLASS, "make", "main", "()V", "([Ljava/lang/String;)V"]
    classes = [FRAME_CLASS] + [p + str(v) for v in values for p in "WTO"]
    names += classes
    pool(T_SYMBOL, [vint(i + 1) + utf8(n) for i, n in enumerate(names)])
    pool(T_CLASS, [vint(i + 1) + vint(0) +
                   vint(names.index(c) + 1) + vint(1) + b"\0"
                   for i, c in enumerate(classes)])
    pool(T_METHOD, [vint(1) + vint(1) + vint(2) + vint(4) + vint(9) + b"\0",
                    vint(2) + vint(1) + vint(3) + vint(5) + vint(9) + b"\0"])
    pool(T_FRAMETYPE, [vint(1) + utf8("Interpreted")])
    pool(T_STACK, [vint(1) + b"\0" + vint(2) +
                   vint(1) + vint(3) + vint(0) + vint(1) +
                   vint(2) + vint(7) + vint(4) + vint(1)])
    pool(T_THREAD, [vint(1) + utf8(THREAD) + vint(4242) + utf8(THREAD) +
                    vint(1)])
    payload = vint(START_TICKS) + vint(0) + vint(0) + vint(1) + \
        vint(len(pools)) + b"".join(pools)
    return event(1, payload), classes


def main():
    global START_NS, NO_THREAD, THREAD, FRAME_CLASS
    args = sys.argv[1:]
    pad, declare = 0, None
    while args[:1] and args[0].startswith("--"):
        if args[0] == "--no-thread":
            NO_THREAD = True
            args = args[1:]
            continue
        if args[0] == "--start-ns":
            START_NS = int(args[1])
        elif args[0] == "--thread":
            THREAD = args[1]
        elif args[0] == "--class":
            FRAME_CLASS = args[1]
        elif args[0] == "--pad":
            pad = int(args[1])
        elif args[0] == "--declare":
            declare = int(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    out, values = args[0], [int(v) for v in args[1:]]
    if not values or any(v < 0 or v >= 1 << 64 for v in values):
        sys.exit(__doc__)
    cp, classes = checkpoint(values)
    cls = {c: i + 1 for i, c in enumerate(classes)}
    # padding: events of type 99, not in the metadata, 64 KiB each
    pad_event = event(99, bytes(65536 - 6))
    pad_n, pad_rest = divmod(pad, len(pad_event))
    pad_tail = event(99, bytes(pad_rest - 6)) if pad_rest >= 6 else b""
    pad_len = pad_n * len(pad_event) + len(pad_tail)
    body = bytearray()
    t = START_TICKS
    for v in values:
        for tid, prefix, fields in ((T_ALLOC, "W", [v]),
                                    (T_TLAB, "T", [16, v]),
                                    (T_OUTSIDE, "O", [v])):
            t += 1_000_000
            thread = b"" if NO_THREAD else vint(1)
            body += event(tid, vint(t) + thread + vint(1) +
                          vint(cls[prefix + str(v)]) +
                          b"".join(vint(x) for x in fields))
    meta_at = 68 + pad_len + len(body)
    meta = metadata()
    cp_at = meta_at + len(meta)
    size = cp_at + len(cp)
    duration = t - START_TICKS + 1_000_000
    head = b"FLR\0" + struct.pack(">HHQQQqqqq", 2, 0,
                                  size if declare is None else declare,
                                  cp_at, meta_at, START_NS, duration,
                                  START_TICKS, TPS)
    head += struct.pack(">I", 1)  # compressed integers; finished
    assert len(head) == 68
    f = sys.stdout.buffer if out == "-" else open(out, "wb")
    f.write(head)
    for _ in range(pad_n):
        f.write(pad_event)
    f.write(pad_tail + body + meta + cp)
    f.flush()
    if f is not sys.stdout.buffer:
        f.close()


if __name__ == "__main__":
    main()
