#!/usr/bin/env python3
"""jfr_json_count.py: aggregate `jfr print --json` output the way
`jfr_events.py count` does, so the two can be compared.

  jfr print --json --events TYPE FILE | jfr_json_count.py - --type TYPE [--by class|stack-top|thread] [--sum FIELD ...]

Class names: `jfr print --json` writes objectClass.name in the JVM's internal
form ("[B", "java/lang/String"; the JSON escapes "/" as "\\/", which the JSON
decoder undoes), the same form jfr_events.py prints, so no conversion is needed.
Output: {"type", "total", "sums", "groups": {KEY: {"n": N, FIELD: SUM}}}.
"""

import argparse
import json
import sys


def group_key(values, by, class_field):
    if by == "class":
        c = values
        for part in class_field.split("."):
            c = c.get(part) if isinstance(c, dict) else None
        return c.get("name") if isinstance(c, dict) else None
    if by == "stack-top":
        st = values.get("stackTrace")
        if not isinstance(st, dict) or not st.get("frames"):
            return None
        m = st["frames"][0].get("method") or {}
        t = m.get("type")
        cname = t.get("name") if isinstance(t, dict) else None
        return "%s.%s" % (cname, m.get("name"))
    if by == "thread":
        t = values.get("eventThread")
        if not isinstance(t, dict):
            return None
        return t.get("javaName") or t.get("osName")
    raise SystemExit("unknown --by %s" % by)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--type", required=True)
    ap.add_argument("--by", choices=["class", "stack-top", "thread"])
    ap.add_argument("--class-field", default="objectClass")
    ap.add_argument("--sum", nargs="+", default=[], metavar="FIELD")
    ap.add_argument("input", nargs="?", default="-")
    args = ap.parse_args()
    fh = sys.stdin if args.input == "-" else open(args.input)
    doc = json.load(fh)
    total = 0
    sums = {f: 0 for f in args.sum}
    groups = {}
    for ev in doc["recording"]["events"]:
        if ev.get("type") != args.type:
            continue
        total += 1
        v = ev["values"]
        vals = {}
        for f in args.sum:
            x = v.get(f, 0)
            if isinstance(x, bool):
                x = int(x)
            if not isinstance(x, (int, float)):
                x = 0
            vals[f] = x
            sums[f] += x
        if args.by:
            key = group_key(v, args.by, args.class_field)
            key = "<null>" if key is None else key
            g = groups.get(key)
            if g is None:
                g = groups[key] = {"n": 0}
                for f in args.sum:
                    g[f] = 0
            g["n"] += 1
            for f in args.sum:
                g[f] += vals[f]
    out = {"type": args.type, "total": total}
    if args.sum:
        out["sums"] = sums
    if args.by:
        out["groups"] = dict(sorted(groups.items(), key=lambda kv: (-kv[1]["n"], kv[0])))
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
