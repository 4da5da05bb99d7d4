#!/usr/bin/env python3
"""heapsift diff's verdicts against the truth its workloads printed
(fixtures/truth/src/DiffTruth.java, fixtures/truth/make-diff.sh).

  check_diff.py CSV BASE.truth.json NEW.truth.json [ALPHA]

CSV is `heapsift diff --csv` (by site, or --tree) of the two recordings
on a window inside both runs.  Checks, every expected value from the
truth files and arithmetic:

- every row's verdict has the sign of its change: `grew` only with a
  positive delta, `shrank` only with a negative one (the class of
  mistake: a verdict that contradicts the number beside it);
- a site whose true rate grew (new/base >= 1.5) or shrank (<= 1/1.5) is
  called so, with q below ALPHA (default 0.01);
- the p-value is the z-test's of the numbers shown beside it: the
  change and each side's standard error (base_se, new_se), as
  erfc(|delta| / sqrt(se_base^2 + se_new^2) / sqrt(2)) (the class of
  mistake: a test of another quantity than the one shown);
- a site whose true rate did not change (within 2%) is not called
  changed.  Only sites with enough samples are held to this: 5% or more
  of the bytes on both sides (a few hundred samples here).  Among k such
  sites Benjamini-Hochberg at ALPHA with every site unchanged calls one
  or more changed with probability at most ALPHA, so a correct diff may
  miss this at a rate of ALPHA per pair; the committed recordings are
  fixed, so a failure here is a change in heapsift, not chance.

The site of a truth entry ("DiffTruth.alpha") is the row whose key is
that name followed by ":LINE" (by site) or whose frame is (--tree: the
node of the allocating frame, one per site in this workload).
"""
import csv
import json
import math
import sys

csvf, tb, tn = sys.argv[1:4]
alpha = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01
base = json.load(open(tb))["sites"]
new = json.load(open(tn))["sites"]
rows = list(csv.DictReader(open(csvf, encoding="utf-8")))
if not rows:
    sys.exit("no rows in %s" % csvf)
key = "frame" if "frame" in rows[0] else "site"
vcol = [c for c in rows[0] if c.startswith("delta_")][0]
bad = []

for r in rows:
    d = float(r[vcol])
    if r["change"] == "grew" and not d > 0:
        bad.append("%s: grew beside a change of %s" % (r[key], r[vcol]))
    if r["change"] == "shrank" and not d < 0:
        bad.append("%s: shrank beside a change of %s" % (r[key], r[vcol]))


secols = [c for c in rows[0] if c.startswith("base_se")], \
    [c for c in rows[0] if c.startswith("new_se")]
if not secols[0] or not secols[1]:
    bad.append("no standard errors (base_se, new_se) in the CSV")
else:
    for r in rows:
        if not r["p_value"]:
            continue
        d, p = float(r[vcol]), float(r["p_value"])
        v = float(r[secols[0][0]]) ** 2 + float(r[secols[1][0]]) ** 2
        want = 1.0 if d == 0 else (
            math.erfc(abs(d) / math.sqrt(v) / math.sqrt(2)) if v > 0 else 0.0)
        if want < 1e-290 or p < 1e-290:
            ok = want < 1e-290 and p < 1e-290  # both underflow
        else:
            # the CSV's 6 significant digits: log p within 0.1%
            lw = math.log(want)
            ok = abs(lw - math.log(p)) <= 1e-3 * max(1.0, abs(lw)) + 1e-4
        if not ok:
            bad.append("%s: p %s, the z-test of the change and errors shown "
                       "gives %.6g" % (r[key], r["p_value"], want))


def total(side):
    return sum(s["bytes_per_s"] for s in side.values())


checked = 0
for name in base:
    site = base[name]["site"]
    hits = [r for r in rows if r[key].startswith(site + ":")]
    if len(hits) != 1:
        bad.append("%s: %d rows, expected 1" % (site, len(hits)))
        continue
    r = hits[0]
    b, n = base[name]["bytes_per_s"], new[name]["bytes_per_s"]
    ratio = n / b
    q = float(r["q_value"]) if r["q_value"] else float("nan")
    if ratio >= 1.5 or ratio <= 1 / 1.5:
        want = "grew" if ratio > 1 else "shrank"
        checked += 1
        if r["change"] != want or not q < alpha:
            bad.append("%s: the truth says x%.2f, the diff says '%s' (q %s)"
                       % (site, ratio, r["change"], r["q_value"]))
    elif abs(ratio - 1) <= 0.02:
        if b / total(base) < 0.05 or n / total(new) < 0.05:
            continue
        checked += 1
        if r["change"]:
            bad.append("%s: the truth says unchanged (x%.3f), the diff "
                       "says '%s' (q %s)" % (site, ratio, r["change"],
                                             r["q_value"]))
if checked == 0:
    bad.append("no site of the truth was checked")
if bad:
    sys.exit("\n".join(bad))
