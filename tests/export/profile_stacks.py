#!/usr/bin/env python3
"""Stacks and values of a pprof profile or an OTLP profiles request, read
from `protoc --decode`'s text output (on stdin); written from the two
formats' .proto files (src/formats/pprof/profile.proto,
src/formats/otlp/.../profiles.proto), not from heapsift's code.

usage: protoc --decode=perftools.profiles.Profile ... | profile_stacks.py pprof
       protoc --decode=...ExportProfilesServiceRequest ... | profile_stacks.py otlp
       ... | profile_stacks.py otlp --resources

Prints "KIND<TAB>TYPE/UNIT<TAB>STACK<TAB>VALUE" lines, sorted, the values
summed per stack: STACK is the frames leaf first, "function:line" (line 0
left out) joined by ";".  KIND is the profile's comment for pprof (one
kind a profile) and its heapsift.sample_kind attribute for OTLP.  With
--resources, OTLP's resources instead: "INDEX<TAB>KEY<TAB>VALUE" and, per
profile, "INDEX<TAB>profile<TAB>KIND TYPE/UNIT TIME DURATION SAMPLES".
"""
import re
import sys

ESC = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


def unquote(s):
    """A protoc text string: C escapes, octal bytes, as UTF-8."""
    out, i = bytearray(), 1
    while i < len(s) - 1:
        c = s[i]
        if c == "\\":
            n = s[i + 1]
            if n in "01234567":
                j = i + 1
                while j < i + 4 and s[j] in "01234567":
                    j += 1
                out.append(int(s[i + 1:j], 8))
                i = j
                continue
            out += ESC[n].encode()
            i += 2
            continue
        out += c.encode()
        i += 1
    return out.decode("utf-8", "replace")


def parse(lines):
    """protoc's text format as nested dicts of lists."""
    root, stack = {}, []
    cur = root
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
            continue
        m = re.match(r"^(\w+) \{$", line)
        if m:
            child = {}
            cur.setdefault(m.group(1), []).append(child)
            stack.append(cur)
            cur = child
            continue
        k, v = line.split(": ", 1)
        if v.startswith('"'):
            v = unquote(v)
        elif v in ("true", "false"):
            v = v == "true"
        else:
            v = int(v)
        cur.setdefault(k, []).append(v)
    if stack:
        sys.exit("unbalanced braces")
    return root


def one(m, k, default=0):
    return m.get(k, [default])[0]


def pprof(doc):
    strs = doc.get("string_table", [])
    fn = {one(f, "id"): strs[one(f, "name")] for f in doc.get("function", [])}
    loc = {}
    for l in doc.get("location", []):
        ln = l["line"][0]
        name, n = fn[one(ln, "function_id")], one(ln, "line")
        loc[one(l, "id")] = "%s:%d" % (name, n) if n else name
    types = ["%s/%s" % (strs[one(t, "type")], strs[one(t, "unit")])
             for t in doc.get("sample_type", [])]
    kind = strs[one(doc, "comment")]
    sums = {}
    for s in doc.get("sample", []):
        st = ";".join(loc[i] for i in s.get("location_id", []))
        for t, v in zip(types, s.get("value", [])):
            sums[(kind, t, st)] = sums.get((kind, t, st), 0) + v
    return sums


def otlp_tables(doc):
    d = doc["dictionary"][0]
    strs = d["string_table"]
    # each table's entry 0 is the zero value
    fns = [strs[one(f, "name_strindex")] for f in d["function_table"]]
    locs = []
    for l in d["location_table"]:
        if "lines" not in l:
            locs.append(None)
            continue
        ln = l["lines"][0]
        name, n = fns[one(ln, "function_index")], one(ln, "line")
        locs.append("%s:%d" % (name, n) if n else name)
    stacks = [";".join(locs[i] for i in s.get("location_indices", []))
              for s in d["stack_table"]]
    attrs = [(strs[one(a, "key_strindex")],
              one(a["value"][0], "string_value", None) if "value" in a else None)
             for a in d["attribute_table"]]
    return strs, stacks, attrs


def profiles(doc):
    strs, stacks, attrs = otlp_tables(doc)
    for ri, rp in enumerate(doc.get("resource_profiles", [])):
        for sp in rp.get("scope_profiles", []):
            for p in sp.get("profiles", []):
                kind = [v for i in p.get("attribute_indices", [])
                        for (k, v) in [attrs[i]] if k == "heapsift.sample_kind"]
                t = p["sample_type"][0]
                yield ri, rp, p, kind[0] if kind else "?", "%s/%s" % (
                    strs[one(t, "type_strindex")], strs[one(t, "unit_strindex")]), stacks


def otlp(doc):
    sums = {}
    for _, _, p, kind, t, stacks in profiles(doc):
        for s in p.get("samples", []):
            st = stacks[one(s, "stack_index")]
            key = (kind, t, st)
            sums[key] = sums.get(key, 0) + sum(s.get("values", []))
    return sums


def resources(doc):
    for ri, rp in enumerate(doc.get("resource_profiles", [])):
        for a in rp["resource"][0].get("attributes", []):
            v = a["value"][0]
            val = v["string_value"][0] if "string_value" in v else v.get("int_value", [""])[0]
            print("%d\t%s\t%s" % (ri, a["key"][0], val))
    for ri, rp, p, kind, t, _ in profiles(doc):
        print("%d\tprofile\t%s %s %d %d %d" % (
            ri, kind, t, one(p, "time_unix_nano"), one(p, "duration_nano"),
            len(p.get("samples", []))))


def main():
    doc = parse(sys.stdin)
    if sys.argv[1] == "otlp" and "--resources" in sys.argv[2:]:
        resources(doc)
        return
    sums = pprof(doc) if sys.argv[1] == "pprof" else otlp(doc)
    for (k, t, st), v in sorted(sums.items()):
        print("%s\t%s\t%s\t%d" % (k, t, st, v))


if __name__ == "__main__":
    main()
