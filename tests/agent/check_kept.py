#!/usr/bin/env python3
"""heapsift's survivors against what tests/agent/SiteWorkload.java says
each site kept alive to the end and dropped.

usage: check_kept.py TRUTH.json INTERVAL SURV.csv TOP.csv SITE...

TRUTH.json is the workload's stdout; SURV.csv is `survivors --csv`
(the estimated live objects at the last point, the recording's end, are
the site's estimate of what it kept); TOP.csv is `top --csv` over the
same samples (its est_objects less the live estimate at the end is the
estimate of what the site dropped).  Give, for each SITE, the same
class filter to both commands that the workload's counts cover (hold's
counts are of its long[], not of the Object[] that wraps each).

The tolerance.  HotSpot samples a Poisson process over allocated bytes
with mean distance INTERVAL, so an object of s bytes is sampled with
p = 1 - exp(-s/I) and weighs 1/p objects (docs/estimates.md); a sum
of such weights over N objects estimates N without bias, with variance
sum (1 - p)/p = sum 1/expm1(s/I).  The workload draws each site's
element count uniformly from a known range (SIZES below, from the
Java source), so the variance per object is the mean of 1/expm1(s/I)
over that range, and the standard deviation of an estimate of N
objects is sqrt(N x that mean).  A count passes within 5 standard
deviations (a false failure about once in 1.7 million runs), computed
with N at least 1, so that a site that kept nothing tolerates one
stray sample at most.  No wall-clock assumption: the workload counts
what it did, however fast the machine ran it.
"""
import csv
import json
import math
import sys

# site -> (first element count, count of counts, element size): from
# SiteWorkload.java (retain 1024 + nextInt(3072) bytes, drop 2048 +
# nextInt(8192), hold 64 + nextInt(256) longs, churn 16 + nextInt(256))
SIZES = {
    "SiteWorkload.retain": (1024, 3072, 1),
    "SiteWorkload.drop": (2048, 8192, 1),
    "SiteWorkload.hold": (64, 256, 8),
    "SiteWorkload.churn": (16, 256, 1),
}


def array_bytes(n, elem):
    """The JVM's array size: a 16-byte header, the elements, padding to 8
    (the workload's own arrayBytes)."""
    return (16 + n * elem + 7) & ~7


def var_per_object(site, interval):
    first, count, elem = SIZES[site]
    return sum(1 / math.expm1(array_bytes(first + k, elem) / interval)
               for k in range(count)) / count


def main(argv):
    if len(argv) < 6:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    truth = json.load(open(argv[1]))
    interval = float(argv[2])
    live_end, total = {}, {}
    for r in csv.DictReader(open(argv[3], newline="")):
        site = r["site"].split(":")[0]
        # rows are in time order for each key: the last one is the end
        live_end.setdefault(site, {})[r["site"]] = float(
            r["est_live_objects"])
    for r in csv.DictReader(open(argv[4], newline="")):
        site = r["site"].split(":")[0]
        total[site] = total.get(site, 0) + float(r["est_objects"])
    bad = []
    for site in argv[5:]:
        kept = truth["kept"][site]
        dropped = truth["dropped"][site]
        v = var_per_object(site, interval)
        end = sum(live_end.get(site, {}).values())
        dead = total.get(site, 0) - end
        for what, got, want in (("kept", end, kept),
                                ("dropped", dead, dropped)):
            tol = 5 * math.sqrt(max(want, 1) * v)
            line = ("%s %s: estimated %.0f, the workload says %d "
                    "(tolerance %.0f: 5 sd)" % (site, what, got, want, tol))
            print(line, file=sys.stderr)
            if abs(got - want) > tol:
                bad.append(line)
    for b in bad:
        print("BAD " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
