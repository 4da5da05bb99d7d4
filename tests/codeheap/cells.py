#!/usr/bin/env python3
"""Granule maps cell by cell, by the grammar of
/work/shared/reference/codeheap-analytics.md (sections 2.8 to 2.10), with
no help from heapsift.

usage:
  cells.py make IN.txt[.gz] OUT.txt.gz
      a synthetic report: IN (a real JDK 17 Compiler.CodeHeap_Analytics
      report) with the cells of every single-character map replaced by a
      cycle through every character that map's grammar allows (count:
      ' ', 1-9, a-f, '*'; space: ' ', 0-9, '*'; age: ' ', 0-8; the
      segment-size type and space maps: every letter of the report's own
      legend, its noType ' ', and one letter the legend lacks), each map
      starting the cycle at its own offset, so every character sits at a
      known granule index.  The rest of the report is left as it was.
  cells.py check REPORT.txt[.gz] GRANULES.csv SNAPSHOT
      every cell of every single-character map of the report's one heap
      against `heapsift codeheap --granules --csv` rows of SNAPSHOT, by
      what the grammar says the character means (docs/codeheap.md gives
      the columns: counts as numbers, 16 for '*'; space as the lower bound
      of the printed range in percent, 100 for '*'; age the digit; type
      the legend's name of the letter, "unknown" for one it lacks).
Prints what differs and exits 1, or prints a summary.
"""
import collections
import csv
import gzip
import re
import sys

MAP_LINE = re.compile(r"^(0x[0-9a-f]{16}) \(\+(0x[0-9a-f]{8})\): \|(.*)\|$")
LEGEND = re.compile(r"^  (.) - (.*)$")
SEG = "for granule size == segment size"

# map title prefix -> (CSV column, flavour)
TITLES = [
    ("Total (all tiers) count,", "count", "count"),
    ("Tier1 nMethod count only", "count_tier1", "count"),
    ("Tier2 nMethod count only", "count_tier2", "count"),
    ("not_used/not_entrant/not_installed nMethod count only",
     "count_inactive", "count"),
    ("Stub & Blob count only", "count_stub", "count"),
    ("Dead nMethod count only", "count_dead", "count"),
    ("Total (all types) count " + SEG, "type", "type"),
    ("Total (all types) space consumption " + SEG, "space", "segspace"),
    ("Total (all types) space consumption.", "space", "space"),
    ("Tier1 space consumption", "space_tier1", "space"),
    ("Tier2 space consumption", "space_tier2", "space"),
    ("not_used/not_entrant/not_installed space consumption",
     "space_inactive", "space"),
    ("Stub and Blob space consumption", "space_stub", "space"),
    ("Dead space consumption", "space_dead", "space"),
    ("Age distribution.", "age", "age"),
    ("Tier1 age distribution", "age_tier1", "age"),
    ("Tier2 age distribution", "age_tier2", "age"),
    ("not_used/not_entrant/not_installed age distribution", "age_inactive",
     "age"),
]

ALPHABET = {
    "count": " 123456789abcdef*",
    "space": " 0123456789*",
    "age": " 012345678",
}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8").split("\n")


def title_of(line):
    if line.startswith("|  ") and line.endswith("|"):
        return line.strip("| ")
    return None


def which(title):
    for prefix, col, flavour in TITLES:
        if title.startswith(prefix):
            return col, flavour
    return None


def legend(lines):
    """The block-type letters of the report's own legend (2.8.1)."""
    out = {}
    inside = False
    for line in lines:
        if "Block types used in the following CodeHeap dump" in line:
            inside = True
            out = {}
        elif inside:
            if line.startswith("  ---"):
                inside = False
                if out:
                    return out
                continue
            m = LEGEND.match(line)
            if m:
                # the name, without a remark after a comma ("nMethod
                # (under construction), cannot be observed")
                out[m.group(1)] = m.group(2).split(", ")[0]
    return out


def cmd_make(src, dst):
    lines = read(src)
    letters = legend(lines)
    if not letters:
        sys.exit("no block-type legend in " + src)
    # every legend letter, noType's ' ' among them, and one it lacks
    seg_alpha = "".join(sorted(letters)) + "Q"
    assert "Q" not in letters
    title, flavour, at, n_map = None, None, 0, 0
    out = []
    for line in lines:
        t = title_of(line)
        if t:
            w = which(t)
            title, flavour = t, (w[1] if w else None)
            at = 0
            n_map += 1
        m = MAP_LINE.match(line)
        if m and flavour:
            alpha = seg_alpha if flavour in ("type", "segspace") else \
                ALPHABET[flavour]
            cells = "".join(alpha[(i + 3 * n_map) % len(alpha)]
                            for i in range(at, at + len(m.group(3))))
            at += len(m.group(3))
            line = f"{m.group(1)} (+{m.group(2)}): |{cells}|"
        out.append(line)
    with gzip.open(dst, "wt", encoding="utf-8", compresslevel=9) as g:
        g.write("\n".join(out))


def expected(lines):
    """{column: [value per granule]} from every single-character map."""
    letters = legend(lines)
    maps = collections.OrderedDict()
    col = flavour = None
    for line in lines:
        t = title_of(line)
        if t:
            w = which(t)
            col, flavour = w if w else (None, None)
            if col:
                if col in maps:
                    sys.exit(f"two maps for {col}: the report must hold "
                             f"one heap")
                maps[col] = (flavour, [])
            continue
        m = MAP_LINE.match(line)
        if m and col:
            maps[col][1].extend(m.group(3))
    out = {}
    for col, (flavour, cells) in maps.items():
        vals = []
        for c in cells:
            if flavour == "count":
                # a letter: segment-granule mode, where a granule is one
                # segment and so lies in exactly one block (2.8)
                v = 0 if c == " " else 16 if c == "*" else \
                    int(c, 16) if c in "123456789abcdef" else \
                    1 if c in letters else None
            elif flavour == "space":
                v = 0 if c == " " else 100 if c == "*" else \
                    int(c) * 10 if c.isdigit() else \
                    100 if c in letters else None
            elif flavour == "segspace":
                # segment-granule mode: a segment lies in a block, whole,
                # or is empty
                v = 0 if c == " " else 100
            elif flavour == "age":
                v = "" if c == " " else int(c)
            else:  # type
                v = letters.get(c, "unknown")
            if v is None:
                sys.exit(f"{col}: {c!r} is not a {flavour} cell")
            vals.append(v)
        out[col] = vals
    return out


def cmd_check(report, granules_csv, snapshot):
    lines = read(report)
    want = expected(lines)
    if not want:
        print(f"{report}: no maps")
        return 1
    rows = [r for r in csv.DictReader(open(granules_csv, newline=""))
            if r["snapshot"] == snapshot]
    problems = []
    n = len(next(iter(want.values())))
    if len(rows) != n:
        problems.append(f"{len(rows)} granule rows, the maps have {n} cells")
    checked = collections.Counter()
    for i, r in enumerate(rows):
        if int(r["granule"]) != i:
            problems.append(f"row {i} is granule {r['granule']}")
            break
        for col, vals in want.items():
            if i >= len(vals):
                continue
            v = vals[i]
            got = r[col]
            ok = got == v if isinstance(v, str) else \
                got != "" and float(got) == v
            if not ok:
                problems.append(f"granule {i} {col}: heapsift {got!r}, the "
                                f"map's cell means {v!r}")
            checked[col] += 1
    if problems:
        print("\n".join(problems[:20]))
        print(f"{len(problems)} differences")
        return 1
    print(f"{sum(checked.values())} cells of {len(checked)} maps match")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        cmd_make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "check":
        sys.exit(cmd_check(*sys.argv[2:5]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
