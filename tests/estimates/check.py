#!/usr/bin/env python3
"""Hold heapsift's estimates of one EstWorkload recording to the truth and
to estimate.py's independent computation (tests/cli/estimates.sh).

  check.py TRUTH.json DUMP.tsv CORRECTED.csv JFR.csv

CORRECTED.csv and JFR.csv are `heapsift top --by site --csv` with
--estimate=corrected and --estimate=jfr.  Checks, each failure a line on
stdout (status 1 when there is one):
  - every site's est_bytes is the one estimate.py computes, to the byte,
    for both estimates (the corrected one within one byte a sample below
    it: heapsift rounds each rollup row's or sample's scaled remainder
    down, estimate.py the exact sum), and rel_err its relative standard
    error (to the 4 decimals the CSV has, and half the relative rounding
    of the sampled bytes the pooled term multiplies);
  - with OutsideTLAB events (the corrected CSV differs from the raw one):
    every site of 5% of the bytes or more within 20% of the truth (issue
    15's target is 15%; the throttle alone has missed it, see below), or
    within 4 times its printed relative standard error where that is
    wider (the throttle's heavy weights: docs/estimates.md, the pooled
    term), but a
    site marked mixed (objects smaller than a TLAB, some of them in
    TLABs: docs/estimates.md, limits), which must be within 30% and
    below the truth; only big400k (400 KB arrays, TLABs being about
    512 KB here) may be marked so;
  - the site of one large size (big2m, larger than any TLAB) held like
    the others: it is exact when every sample taken at one of its arrays
    comes within 50 us of the array's OutsideTLAB event, which a loaded
    machine does not always give (docs/estimates.md, limits).
It prints each site's errors, raw and corrected, on stderr.
"""
import csv
import json
import subprocess
import sys
import os

here = os.path.dirname(os.path.abspath(__file__))


def rows(path):
    with open(path, newline="") as f:
        return {r["site"]: r for r in csv.DictReader(f)}


def main():
    truth_path, dump, cor_csv, jfr_csv = sys.argv[1:5]
    with open(truth_path) as f:
        truth = json.loads([x for x in f if x.startswith("{")][-1])["sites"]
    ref = json.loads(subprocess.check_output(
        [sys.executable, os.path.join(here, "estimate.py"), dump,
         truth_path]))["sites"]
    cor, jfr = rows(cor_csv), rows(jfr_csv)
    has_outside = any(r["corrected"] != r["raw"] for r in ref.values())
    total = sum(v["bytes"] for v in truth.values())
    bad = []
    for name, est, key in (("corrected", cor, "corrected"),
                           ("jfr", jfr, "raw")):
        if not has_outside and name == "corrected":
            key = "raw"  # nothing to correct with: the raw weights
        for site, r in ref.items():
            want = r[key]
            sq = r[key + "_var"]
            if want == 0:
                continue
            got = est.get(site)
            if got is None:
                bad.append("%s: %s: missing from heapsift's rows" %
                           (name, site))
                continue
            slack = r["corrected_terms"] if key == "corrected" else 0
            if not want - slack <= int(got["est_bytes"]) <= want:
                bad.append("%s: %s: heapsift says %s bytes, estimate.py %d"
                           " (to %d below)"
                           % (name, site, got["est_bytes"], want, slack))
            # over heapsift's bytes: on a site of a few KB, rounding down
            # a few bytes moves the fourth decimal; the pooled term is
            # heapsift's sampled bytes (the estimate less its exact
            # OutsideTLAB bytes) times m, up to slack bytes below the
            # exact ones, so it may be that far below relatively to the
            # sampled bytes, and the ± half as far (a site of one
            # sample of 43 kB and 16 kB of OutsideTLAB events, ± 1305%,
            # failed CI when this was taken relatively to the estimate)
            est_b = max(int(got["est_bytes"]), 1)
            sampled = max(r[key + "_sampled"] if key == "corrected" else 0,
                          1)
            rel = sq ** 0.5 / est_b
            tol = 0.00006 + rel * slack / (2 * sampled)
            if abs(float(got["rel_err"]) - rel) > tol:
                bad.append("%s: %s: heapsift's rel_err %s, estimate.py %.6f"
                           % (name, site, got["rel_err"], rel))
    for site, r in sorted(ref.items()):
        method = site.split(":")[0].rsplit(".", 1)[-1]
        if method not in truth:
            continue
        t = truth[method]["bytes"]
        c = int(cor[site]["est_bytes"]) if site in cor else 0
        j = int(jfr[site]["est_bytes"]) if site in jfr else 0
        flag = cor[site]["biased"] if site in cor else ""
        print("%-9s %5.1f%% of the bytes: raw %+6.1f%% (± %s), "
              "corrected %+6.1f%% (± %s)%s" %
              (method, 100.0 * t / total, 100.0 * (j - t) / t,
               jfr.get(site, {}).get("rel_err", "-"), 100.0 * (c - t) / t,
               cor.get(site, {}).get("rel_err", "-"),
               " [" + flag + "]" if flag else ""), file=sys.stderr)
        if not has_outside or t < 0.05 * total:
            continue
        err = (c - t) / t
        if flag == "mixed" and method != "big400k":
            bad.append("%s: marked mixed, but its objects are far smaller "
                       "or larger than a TLAB" % method)
        if flag == "mixed":
            if not -0.30 <= err <= 0.0:
                bad.append("%s (mixed): corrected off by %+.1f%% (allowed "
                           "-30%% to 0)" % (method, 100 * err))
        else:
            # issue 15's target is 15%; the throttle's own error on a 9%
            # site has reached -23.5% (2026-11-29, small2k), where the
            # heavy weights after the throttle's gaps fell elsewhere: the
            # printed ± (the pooled term, docs/estimates.md) is 13-18%
            # on such sites, and the truth must lie within 4 of it (a
            # normal estimate misses that once in 15000), or within 20%
            # where that is wider; past 15% is said on stderr
            rel = float(cor[site]["rel_err"])
            allowed = max(0.20, 4 * rel)
            if abs(err) > allowed:
                bad.append("%s: corrected off by %+.1f%% (allowed %.0f%%: "
                           "20%% or 4 times its ± of %.1f%%)" %
                           (method, 100 * err, 100 * allowed, 100 * rel))
            elif abs(err) > 0.15:
                print("%s: off by %+.1f%%, more than issue 15's 15%%, "
                      "within the bound" % (method, 100 * err),
                      file=sys.stderr)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
