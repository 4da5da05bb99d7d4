#!/usr/bin/env python3
"""Checks of heapsift report's JSON against truths that do not come from
heapsift: the code-heap fixtures' README, a workload's own JSON, the
fixture READMEs' workload tables (passed as arguments), and the
report's JSON Schema.

usage: check_report.py schema SCHEMA.json REPORT.json
       check_report.py leak REPORT.json SITE_PREFIX      (a leak-suspect
           of severity warning or critical whose subject starts so)
       check_report.py noleak REPORT.json SITE_PREFIX    (none such)
       check_report.py noleak-any REPORT.json            (no warning or
           critical leak-suspect at all)
       check_report.py codeheap-summary README.md FILE REPORT.json
           [HEAP_RENAME_FROM HEAP_RENAME_TO]
       check_report.py codeheap-fragmented README.md FILE HEAP REPORT.json
       check_report.py member REPORT.json MEMBER_SUFFIX STATUS WORDS
       check_report.py baseline REPORT.json DIFF.csv BASE.truth NEW.truth
           (report --base: the sites flagged are exactly the one whose
           rate the workload changed between the truths, grown or shrunk
           as the rates went, each with heapsift diff --by site --csv's
           samples and q-value; with two equal truths, none)

Exit 0 when the report agrees, 1 when not (what differs on stderr).
"""
import json
import re
import sys


def fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def schema(schema_path, report_path):
    s, r = load(schema_path), load(report_path)
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is missing (build-aux/deps.sh test "
             "installs it)")
    v = jsonschema.Draft202012Validator(s)
    errs = sorted(v.iter_errors(r), key=lambda e: list(e.path))
    if errs:
        fail("; ".join("%s: %s" % ("/".join(map(str, e.path)), e.message)
                       for e in errs[:5]))


def leaks(report, prefix):
    return [f for f in report["findings"]
            if f["rule"] == "leak-suspect"
            and f["severity"] in ("warning", "critical")
            and (prefix is None or (f["subject"] or "").startswith(prefix))]


def readme_row(readme, name):
    """The table row of the README whose first cell is `name`."""
    with open(readme, encoding="utf-8") as f:
        for line in f:
            if line.startswith("| `%s`" % name):
                return line
    fail("README has no row for %s" % name)


def codeheap_summary(readme, name, report_path, rename=None):
    """Every heap the README's summary table gives at 90% or more of its
    size (by max_used) must appear in a code-heap finding with the
    README's four figures; the compilation state and full_count too."""
    row = readme_row(readme, name)
    heaps = [("CodeHeap '%s'" % m[0], int(m[1]), int(m[2]), int(m[3]),
              int(m[4]))
             for m in re.findall(r"`'([^']+)'` (\d+)/(\d+)/(\d+)/(\d+)", row)]
    m = re.search(r"size=(\d+)Kb used=(\d+)Kb max_used=(\d+)Kb free=(\d+)Kb",
                  row)
    if m:
        heaps.append(("CodeCache",) + tuple(int(x) for x in m.groups()))
    if not heaps:
        fail("no heaps read from the README row for %s" % name)
    full = int(re.search(r"full_count=(\d+)", row).group(1))
    disabled = "disabled" in row.split("|")[-2]
    if rename:
        heaps = [(h[0].replace(rename[0], rename[1]),) + h[1:] for h in heaps]
    r = load(report_path)
    found = [f for f in r["findings"] if f["rule"] == "code-heap"
             and name in (f["subject"] or "")]
    if len(found) != 1:
        fail("%d code-heap findings about %s, expected 1" % (len(found), name))
    f = found[0]
    text = "\n".join(f["evidence"])
    want_full = [h for h in heaps if h[3] >= 0.9 * h[1]]
    if not want_full:
        fail("the README gives no heap of %s at 90%%: nothing to test" % name)
    for h in want_full:
        # a summary's size= is the reserved size, and its free is of it
        # (CodeCache::print_summary: used + free == size)
        line = "%s %s: reserved %d KiB, used %d KiB, max used %d KiB, free %d KiB of the reserved" \
               % (h[0], "is nearly full" if h[2] >= 0.9 * h[1]
                  else "was nearly full", h[1], h[2], h[3], h[4])
        if line not in text:
            fail("no evidence line '%s' in: %s" % (line, text))
    for h in heaps:
        if h not in want_full and (h[0] + " is nearly full" in text or
                                   h[0] + " was nearly full" in text):
            fail("%s is not 90%% full in the README but the report says so"
                 % h[0])
    fig = f["figures"]
    if fig.get("full_count", {}).get("value") != full:
        fail("full_count %s, the README says %d" % (fig.get("full_count"),
                                                   full))
    if bool(fig.get("compilation_disabled", {}).get("value")) != disabled:
        fail("compilation_disabled %s, the README says %s"
             % (fig.get("compilation_disabled"), disabled))
    if f["severity"] != "critical" and (disabled or full):
        fail("severity %s for a cache that was full" % f["severity"])


def codeheap_fragmented(readme, name, heap, report_path):
    """The README's analytics table: the heap's free blocks "N (Kk)" and
    its largest free block "0x... = B bytes" must be the evidence."""
    with open(readme, encoding="utf-8") as fh:
        text = fh.read()
    sect = text.split("#### `%s`" % name, 1)
    if len(sect) < 2:
        fail("README has no section for %s" % name)
    row = [l for l in sect[1].split("\n####")[0].splitlines()
           if l.startswith("| `CodeHeap '%s'`" % heap)][0]
    cells = [c.strip() for c in row.split("|")]
    nfree, kfree = re.match(r"(\d+) \((\d+)k\)", cells[7]).groups()
    largest = re.search(r"= (\d+) bytes", cells[13]).group(1)
    r = load(report_path)
    want = ("CodeHeap '%s' is fragmented: the largest free block is %s bytes "
            "of %s KiB free in %s blocks" % (heap, largest, kfree, nfree))
    for f in r["findings"]:
        if f["rule"] == "code-heap" and name in (f["subject"] or "") and \
                any(e.startswith(want) for e in f["evidence"]):
            return
    fail("no code-heap finding about %s says '%s'" % (name, want))


def member(report_path, suffix, status, words):
    r = load(report_path)
    ms = [m for m in r["inventory"]["members"] if m["member"].endswith(suffix)]
    if len(ms) != 1:
        fail("%d members end with %s" % (len(ms), suffix))
    m = ms[0]
    if m["status"] != status:
        fail("%s: status %s, expected %s" % (suffix, m["status"], status))
    if words not in m["reason"]:
        fail("%s: reason '%s' lacks '%s'" % (suffix, m["reason"], words))


def baseline(report, diff_csv, tb, tn):
    import csv
    b = load(report)["baseline"]
    if not b or b.get("error"):
        fail("no comparison with the baseline: %s" % b)
    base, new = load(tb)["sites"], load(tn)["sites"]
    want = {s: ("grew" if new[s]["rate"] > base[s]["rate"] else "shrank")
            for s in base if base[s]["rate"] != new[s]["rate"]}
    got = {r["site"].split(":")[0]: r["change"] for r in b["rows"]}
    if got != want:
        fail("flagged %s, the workload changed %s" % (got, want))
    if b["rows_changed"] != len(b["rows"]):
        fail("rows_changed %d, %d rows" % (b["rows_changed"], len(b["rows"])))
    if b["normalization"] != "per_second" or "per second" not in b["sentence"]:
        fail("normalization: %s / %s" % (b["normalization"], b["sentence"]))
    if ("%d of %d sites changed" % (b["rows_changed"], b["rows_compared"])
            not in b["sentence"]):
        fail("the sentence does not count the rows: %s" % b["sentence"])
    rows = {r["site"]: r for r in csv.DictReader(open(diff_csv, encoding="utf-8"))}
    if len(rows) != b["rows_compared"]:
        fail("%d sites compared, heapsift diff has %d" % (b["rows_compared"], len(rows)))
    if sum(1 for r in rows.values() if r["change"]) != b["rows_changed"]:
        fail("heapsift diff flags other rows: %s" % [k for k, r in rows.items() if r["change"]])
    for r in b["rows"]:
        d = rows.get(r["site"])
        if d is None:
            fail("%s is not in heapsift diff's rows" % r["site"])
        if (r["base_samples"], r["new_samples"], r["change"]) != \
                (int(d["base_samples"]), int(d["new_samples"]), d["change"]):
            fail("%s: %s, heapsift diff says %s" % (r["site"], r, d))
        if abs(r["q_value"] - float(d["q_value"])) > 1e-6 * float(d["q_value"]):
            fail("%s: q %g, heapsift diff %s" % (r["site"], r["q_value"], d["q_value"]))
        # the change is new minus base (each printed to 6 significant
        # digits), in the direction the workload changed the site
        x, y, z = r["base_value"], r["new_value"], r["delta"]
        if abs(z - (y - x)) > 5e-6 * (abs(x) + abs(y) + abs(z)) + 1.5:
            fail("%s: delta %g, but new - base is %g" % (r["site"], z, y - x))
        if (z > 0) != (want[r["site"].split(":")[0]] == "grew"):
            fail("%s: a change of %g, the workload's is the other way" % (r["site"], z))


def main(a):
    if len(a) == 4 and a[1] == "schema":
        schema(a[2], a[3])
    elif len(a) == 4 and a[1] == "leak":
        if not leaks(load(a[2]), a[3]):
            fail("no warning or critical leak-suspect about %s; findings: %s"
                 % (a[3], [(f["rule"], f["severity"], f["subject"])
                           for f in load(a[2])["findings"]]))
    elif len(a) == 4 and a[1] == "noleak":
        got = leaks(load(a[2]), a[3])
        if got:
            fail("leak-suspect about %s: %s" % (a[3], got[0]["sentence"]))
    elif len(a) == 3 and a[1] == "noleak-any":
        got = leaks(load(a[2]), None)
        if got:
            fail("a leak-suspect in a workload without a leak: %s"
                 % got[0]["sentence"])
    elif len(a) in (5, 7) and a[1] == "codeheap-summary":
        codeheap_summary(a[2], a[3], a[4], a[5:7] if len(a) == 7 else None)
    elif len(a) == 6 and a[1] == "codeheap-fragmented":
        codeheap_fragmented(a[2], a[3], a[4], a[5])
    elif len(a) == 6 and a[1] == "member":
        member(a[2], a[3], a[4], a[5])
    elif len(a) == 6 and a[1] == "baseline":
        baseline(a[2], a[3], a[4], a[5])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
