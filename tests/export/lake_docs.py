#!/usr/bin/env python3
"""The fleet lake's documentation, taken at its word (docs/export.md,
"The fleet lake"), for tests/cli/lake.sh.

  lake_docs.py sql DOC OUTDIR
      Write the section's SQL blocks into OUTDIR: ddl.sql (the DuckDB
      CREATE TABLEs), views-parquet.sql, views-csv.sql, and for each query
      q-N.sql with q-N.top holding its "-- top: ARGS" line's ARGS (empty:
      no top to compare with).  Prints the query files' names.

  lake_docs.py compare TOP.csv DUCK.jsonl [--bound] [--strip-guard]
                       [--null=NAME]
      TOP.csv: heapsift top --csv (GROUP,samples,est_bytes,...).
      DUCK.jsonl: the query's rows ([group, samples, est_bytes]).
      Every group must be in both with the same samples; est_bytes equal,
      or with --bound (the corrected estimate: the lake scales each
      sample's rest and rounds down, top scales sums of rests per rollup
      row: docs/estimates.md) 0 <= top - lake < samples.  --strip-guard:
      the lake is Parquet, whose names have no spreadsheet guard, while
      top's CSV has (docs/export.md, Formulas): one leading ' before
      =, +, - or @ is taken off top's name.  --null=NAME: the name top
      gives a group the lake holds as NULL ("(no thread)").

  lake_docs.py engines DOC HEADERS.json
      Check the Spark and Trino DDL against what export writes: each
      table's columns (names in order, then day) equal the export's
      header (HEADERS.json: {table: [columns]}), its location ends in
      /TABLE, the partition column is day, and the formats and CSV
      options are those of the lake; and the types agree with the
      DuckDB DDL.
"""
import csv
import json
import os
import re
import sys


def section(doc):
    text = open(doc, encoding="utf-8").read()
    start = text.index("## The fleet lake")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def blocks(text):
    return re.findall(r"```sql\n(.*?)```", text, re.S)


def cmd_sql(doc, out):
    os.makedirs(out, exist_ok=True)
    n = 0
    for b in blocks(section(doc)):
        first = b.splitlines()[0]
        if b.startswith("CREATE TABLE recordings"):
            open(os.path.join(out, "ddl.sql"), "w").write(b)
        elif first.startswith("-- parquet"):
            open(os.path.join(out, "views-parquet.sql"), "w").write(b)
        elif first.startswith("-- csv"):
            open(os.path.join(out, "views-csv.sql"), "w").write(b)
        elif "CREATE TABLE" in b:
            continue  # Spark's and Trino's
        else:
            m = re.match(r"-- top: ([^(]*)", first)
            top = m.group(1).strip() if m else ""
            open(os.path.join(out, "q-%d.sql" % n), "w").write(b)
            open(os.path.join(out, "q-%d.top" % n), "w").write(top)
            print("q-%d" % n)
            n += 1


def unguard(name):
    if len(name) > 2 and name[0] == "'" and name[1] in "=+-@":
        return name[1:]
    return name


def cmd_compare(top_csv, duck, bound, strip, null):
    rows = list(csv.reader(open(top_csv, encoding="utf-8", newline="")))
    # groups of one name are added up: top's threads are threads of a
    # recording, and two recordings may each have a "main"
    top = {}
    for r in rows[1:]:
        key = unguard(r[0]) if strip else r[0]
        s, b = top.get(key, (0, 0))
        top[key] = (s + int(r[1]), b + int(r[2]))
    lake = {}
    for line in open(duck, encoding="utf-8"):
        if line.strip() == "--":
            continue
        g, s, b = json.loads(line)[:3]
        g = g if g is not None else null
        s0, b0 = lake.get(g, (0, 0))
        lake[g] = (s0 + int(s), b0 + int(b or 0))
    bad = []
    for k in sorted(set(top) | set(lake)):
        if k not in top or k not in lake:
            bad.append("%r: top %s, lake %s" % (k, top.get(k), lake.get(k)))
            continue
        (ts, tb), (ls, lb) = top[k], lake[k]
        if ts != ls:
            bad.append("%r: samples top %d, lake %d" % (k, ts, ls))
        elif bound and not 0 <= tb - lb < max(ts, 1):
            bad.append("%r: bytes top %d, lake %d (bound)" % (k, tb, lb))
        elif not bound and tb != lb:
            bad.append("%r: bytes top %d, lake %d" % (k, tb, lb))
    if not top:
        bad.append("top gave no rows")
    if bad:
        sys.exit("  " + "\n  ".join(bad[:8]))


def columns(ddl_body):
    cols = []
    for part in re.split(r",\s*", ddl_body.strip()):
        w = part.split()
        cols.append((w[0], w[1].upper()))
    return cols


SPARK = {"STRING": "VARCHAR", "INT": "INTEGER"}
TRINO = {"VARCHAR": "VARCHAR"}


def cmd_engines(doc, headers_json):
    text = section(doc)
    headers = json.load(open(headers_json))
    duck = {}
    for b in blocks(text):
        if b.startswith("CREATE TABLE recordings"):
            for m in re.finditer(r"CREATE TABLE (\w+) \((.*?)\);", b, re.S):
                duck[m.group(1)] = columns(m.group(2))
    bad = []
    seen = {"spark": set(), "trino": set()}
    # each engine's CREATE TABLE: its pattern, the order of its groups
    # (table, columns, format, partition, location) and its type names
    engines = (
        ("spark", r"CREATE TABLE heapsift_(\w+) \((.*?)\)\s*USING (\w+) "
         r"PARTITIONED BY \((\w+)\) LOCATION '([^']*)'", (0, 1, 2, 3, 4),
         SPARK),
        ("trino", r"CREATE TABLE hive\.heapsift\.(\w+) \((.*?)\)\s*WITH "
         r"\(format = '(\w+)', external_location = '([^']*)', "
         r"partitioned_by = ARRAY\['(\w+)'\]\)", (0, 1, 2, 4, 3), TRINO),
    )
    for b in blocks(text):
        for engine, pattern, order, types in engines:
            for m in re.finditer(pattern, b, re.S):
                t, body, fmt, part, loc = (m.group(i + 1) for i in order)
                seen[engine].add(t)
                cols = [(n, types.get(ty, ty)) for n, ty in columns(body)]
                check(bad, engine + " " + t, cols, fmt, part, loc, t,
                      headers, duck)
    if "samples" not in seen["spark"] or "samples" not in seen["trino"]:
        bad.append("no Spark or Trino DDL for samples found: %s" % seen)
    # the CSV options, as written in the prose
    for want in ("header 'true'", "sep ','", "quote '\"'", "escape '\"'",
                 "skip_header_line_count = 1", "csv_quote = '\"'",
                 "csv_escape = '\"'", "csv_separator = ','"):
        if want not in text:
            bad.append("CSV option %s not documented" % want)
    if bad:
        sys.exit("  " + "\n  ".join(bad))


def check(bad, what, cols, fmt, part, loc, table, headers, duck):
    if table not in headers:
        bad.append("%s: the export writes no table %s" % (what, table))
        return
    if not loc.endswith("/" + table):
        bad.append("%s: location %s is not the table's folder" % (what, loc))
    if part != "day" or cols[-1][0] != "day":
        bad.append("%s: partition %s, last column %s" % (what, part,
                                                        cols[-1][0]))
    if fmt.upper() != "PARQUET":
        bad.append("%s: format %s" % (what, fmt))
    names = [n for n, _ in cols[:-1]]
    if names != headers[table]:
        bad.append("%s: columns %s, the export's %s" % (what, names,
                                                      headers[table]))
    if table in duck and [c for c in cols] != duck[table]:
        bad.append("%s: types %s, DuckDB DDL %s" % (what, cols, duck[table]))


def main():
    a = sys.argv[1:]
    if a[:1] == ["sql"]:
        cmd_sql(a[1], a[2])
    elif a[:1] == ["compare"]:
        null = [x[7:] for x in a if x.startswith("--null=")]
        cmd_compare(a[1], a[2], "--bound" in a, "--strip-guard" in a,
                    null[0] if null else "")
    elif a[:1] == ["engines"]:
        cmd_engines(a[1], a[2])
    else:
        sys.exit(__doc__)


main()
