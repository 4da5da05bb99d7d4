#!/usr/bin/env python3
"""jfr_events.py count --by class's JSON (standard input) as TSV lines:
the class as the JDK's jfr print shows it (byte[], java.lang.Object[],
java.util.HashMap$Node), the count, and the sum of FIELD if given
(printed with --float as %.3f, else as an integer).

    groups_tsv.py [FIELD [--float]]
"""
import json
import sys

PRIM = dict(B="byte", C="char", D="double", F="float", I="int", J="long",
            S="short", Z="boolean")


def shown(raw):
    """The JVM's class name ([B, [Ljava/lang/String;) as jfr shows it."""
    dims = len(raw) - len(raw.lstrip("["))
    base = raw[dims:]
    if dims:
        base = PRIM.get(base) or base[1:-1]
    # hidden classes arrive dotted, their suffix's / kept (formats/jfr.md)
    return (base if "." in base else base.replace("/", ".")) + "[]" * dims


def main():
    field = sys.argv[1] if len(sys.argv) > 1 else None
    fmt = "%.3f" if "--float" in sys.argv[2:] else "%d"
    for k, g in json.load(sys.stdin)["groups"].items():
        cols = [shown(k), "%d" % g["n"]]
        if field:
            cols.append(fmt % g[field])
        print("\t".join(cols))


if __name__ == "__main__":
    main()
