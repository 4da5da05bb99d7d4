#!/usr/bin/env python3
"""Convert `jfr print --json --stack-depth 2048 --events jdk.ObjectAllocationSample`
output into the reference TSV form that compare_tsv.py reads (the same
form fixtures/jfr/src/gen_refs.py writes as BASE.ObjectAllocationSample.tsv.gz).

usage: json_to_tsv.py JFR_JSON OUT.tsv.gz [EVENT_TYPE]

JFR_JSON is the JSON document printed by the JDK's `jfr` tool (plain or
gzipped, "-" for standard input); EVENT_TYPE defaults to
jdk.ObjectAllocationSample.  Writes one line per event, in the JSON's
order, after a "#..." header line:

  startTime  javaThreadId  threadName  objectClass  weight  truncated  frames

with frames top first, ';'-separated, each
class.method+descriptor:line@bci:frameType.  Prints the number of events
written on standard output.

events(path, type) is also used by the tests to stream other event types
(e.g. summing jdk.ObjectAllocationInNewTLAB tlabSize) without holding
the parsed document in memory.
"""
import gzip
import json
import os
import sys

# The TSV must be the very form of the committed references, so the
# frame, class and thread spellings come from the script that wrote them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "fixtures", "jfr", "src"))
from gen_refs import cls_name, frame_str, thread_name  # noqa: E402

HEADER = ("#startTime\tjavaThreadId\tthreadName\tobjectClass\tweight\ttruncated\t"
          "frames(top first; class.method+descriptor:line@bci:frameType, ';'-separated)\n")


def _read_text(path):
    if path == "-":
        return sys.stdin.buffer.read().decode("utf-8")
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def events(path, name=None):
    """Yield the events of the JSON document one by one (dicts with
    "type" and "values"), optionally only those of type NAME.  Each event
    object is decoded on its own (raw_decode), so this does not depend on
    how `jfr` lays out its lines."""
    text = _read_text(path)
    dec = json.JSONDecoder()
    i = text.find('"events"')
    if i < 0:
        raise ValueError("no \"events\" array in %s" % path)
    i = text.index("[", i) + 1
    n = len(text)
    while True:
        while i < n and text[i] in " \t\r\n,":
            i += 1
        if i >= n:
            raise ValueError("unterminated events array in %s" % path)
        if text[i] == "]":
            return
        e, i = dec.raw_decode(text, i)
        if name is None or e.get("type") == name:
            yield e


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    src, dst = argv[1], argv[2]
    name = argv[3] if len(argv) == 4 else "jdk.ObjectAllocationSample"
    n = 0
    with gzip.open(dst, "wt", encoding="utf-8", compresslevel=6) as g:
        g.write(HEADER)
        for e in events(src, name):
            v = e["values"]
            st = v.get("stackTrace")
            frames = ";".join(frame_str(f) for f in st["frames"]) if st else ""
            t = v.get("eventThread") or {}
            g.write("%s\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
                v["startTime"], t.get("javaThreadId"), thread_name(t),
                cls_name(v.get("objectClass")), v["weight"],
                ("true" if st["truncated"] else "false") if st else "", frames))
            n += 1
    print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
