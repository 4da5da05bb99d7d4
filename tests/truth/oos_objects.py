#!/usr/bin/env python3
"""What the JDK's own `jfr` says of a recording's jdk.OldObjectSample
events, for the truth corpus's oos-* cases (fixtures/truth/make-oos.sh
runs it at record time, with the JDK; the tests read its output only).

    jfr print --json --events OldObjectSample,GCHeapSummary REC.jfr |
        oos_objects.py > NAME.oos.json

An emission is a run of events with one startTime (eventEmitter.cpp gives
every event of one emission the same start time).  An object is the same
in two events when its allocationTime (as `jfr` prints it: the JDK's
parser converts every chunk's ticks with the file's first chunk's time
base), thread, class, array length, objectSize and stack are the same.
Per site (the top frame, as heapsift names it: Class.method:line):
objects, those the last emission shows (alive_last), and those only
earlier emissions show (gone).  Per emission: its events, the sum of
their objectSize (where the events carry it: JDK 17's do not), and the heap used after the last GC that
ended before it ("After GC" GCHeapSummary), which holds them all.
"""
import json
import sys


def site(v):
    st = v.get("stackTrace")
    if not st or not st.get("frames"):
        return "(no stack)"
    f = st["frames"][0]
    m = f["method"]
    name = m["type"]["name"].replace("/", ".") + "." + m["name"]
    return name + (":%d" % f["lineNumber"] if f["lineNumber"] >= 0 else "")


def stack(v):
    st = v.get("stackTrace") or {}
    return tuple((f["method"]["type"]["name"], f["method"]["name"], f["lineNumber"])
                 for f in st.get("frames") or [])


def main():
    ev = json.load(sys.stdin)["recording"]["events"]
    old = [e["values"] for e in ev if e["type"] == "jdk.OldObjectSample"]
    after = sorted((e["values"]["startTime"], e["values"]["heapUsed"]) for e in ev
                   if e["type"] == "jdk.GCHeapSummary" and e["values"]["when"] == "After GC")
    times = sorted(set(v["startTime"] for v in old))
    objs = {}
    for v in old:
        k = (v["allocationTime"], v["eventThread"]["javaThreadId"], v["object"]["type"]["name"],
             v.get("arrayElements"), v.get("objectSize"), stack(v))
        o = objs.setdefault(k, {"site": site(v), "shown": []})
        o["shown"].append(v["startTime"])
    last = times[-1] if times else None
    sites = {}
    for o in objs.values():
        s = sites.setdefault(o["site"], {"objects": 0, "alive_last": 0, "gone": 0})
        s["objects"] += 1
        if last in o["shown"]:
            s["alive_last"] += 1
        else:
            s["gone"] += 1
    ems = []
    for t in times:
        es = [v for v in old if v["startTime"] == t]
        before = [h for h in after if h[0] <= t]  # ISO times of one zone sort as text
        ems.append({"time": t, "events": len(es),
                    "size_sum": sum(v.get("objectSize", 0) for v in es) if "objectSize" in es[0] else None,
                    "heap_after_gc_before": before[-1][1] if before else None})
    json.dump({"events": len(old), "objects": len(objs), "emissions": ems, "sites": sites},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
