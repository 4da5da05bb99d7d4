#!/usr/bin/env python3
"""An independent computation of heapsift's JFR estimates (docs/estimates.md),
from `heapsift dump --format=tsv` of a recording, written from the method's
description and not from heapsift's code, so that tests can hold the two to
each other and both to a workload's truth.

  estimate.py DUMP.tsv [TRUTH.json]

Prints, per allocation site (the top frame's class.method:line), the raw
estimate (sum of ObjectAllocationSample weights), the corrected one (each
OutsideTLAB event's bytes to its own stack, the sample that follows it on
its thread given only the rest of its weight), the relative standard error
of each (sqrt of the sum of squared weights, over the estimate), and with a
truth the errors, as JSON on stdout.
"""
import calendar
import json
import math
from fractions import Fraction
import re
import time
import sys

from pooled import strata_m, variance


OWN_GAP_NS = 50000


def site_of(frames):
    if not frames:
        return "(no stack)"
    # class.method(desc)ret:line@bci:type;... -> class.method:line (the
    # descriptors hold ';' too)
    m = re.match(r"(.*?):(-?\d+)@(-?\d+):([A-Za-z ]+)(;|$)", frames)
    # as heapsift names a site: no line where the frame has none
    line = "" if m.group(2).startswith("-") else ":" + m.group(2)
    return m.group(1).split("(", 1)[0] + line


def ns_of(t):
    """2026-11-24T23:04:07.936411009Z -> ns since the epoch"""
    day, frac = t.rstrip("Z").split(".")
    return (calendar.timegm(time.strptime(day, "%Y-%m-%dT%H:%M:%S")) *
            10**9 + int(frac.ljust(9, "0")))


def load(path):
    ev = []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        col = {n: i for i, n in enumerate(head)}
        for n, line in enumerate(f):
            x = line.rstrip("\n").split("\t")
            kind = x[col["kind"]]
            if kind not in ("alloc", "outside", "tlab"):
                continue
            ev.append((ns_of(x[col["startTime"]]), n, kind, x[col["javaThreadId"]],
                       site_of(x[col["frames"]]), int(x[col["value"]]),
                       int(x[col["allocationSize"]] or 0), x[col["frames"]]))
    ev.sort()  # by time, ties in file order (as the store's seq)
    return ev


def estimates(ev):
    """Per site: raw sums, corrected sums, and their sums of squares.

    Each thread's events in time order.  An OutsideTLAB event right after
    a sample of its thread, with the same stack (site here) and size at
    most the sample's weight, is that sample's own object (HotSpot sends
    the sample first); any other goes to the thread's next sample.  A
    sample's remainder is its weight less its outside bytes.  Remainders
    of samples taken at an outside allocation are TLAB bytes that belong
    to no large object: they are spread over the other samples of the
    recording in proportion to their remainders.  An InNewTLAB event
    right after a sample marks it as taken in a new TLAB.
    """
    raw, rawsq, out, tl = {}, {}, {}, {}
    samples = []  # [site, weight, outside bytes, own outside]
    keys = []  # each sample's thread and stack (its node)
    pending = {}  # thread -> outside bytes waiting for its next sample
    last = {}  # thread -> the sample its previous event was, or None
    for t, _, kind, thr, site, value, _, stack in ev:
        prev = last.get(thr)
        if kind == "alloc":
            raw[site] = raw.get(site, 0) + value
            rawsq[site] = rawsq.get(site, 0) + value * value
            s = [site, value, pending.pop(thr, 0), False, t]
            samples.append(s)
            keys.append((thr, stack))
            last[thr] = s
            continue
        last[thr] = None
        if kind == "tlab":
            tl[site] = tl.get(site, 0) + value
            continue
        out[site] = out.get(site, 0) + value
        # the sample's own object: right after it, same stack, within
        # OWN_GAP_NS, and inside its weight
        if (prev is not None and not prev[3] and prev[0] == site and
                t - prev[4] <= OWN_GAP_NS and prev[2] + value <= prev[1]):
            prev[2] += value
            prev[3] = True
        else:
            pending[thr] = pending.get(thr, 0) + value
    negative = 0
    r_all = r_tlab = 0
    for s in samples:
        del s[4]
        r = s[1] - s[2]
        if r < 0:
            negative += 1
            r = 0
        s.append(r)
        r_all += r
        if not s[3]:
            r_tlab += r
    # each remainder scaled by r_all / r_tlab, exactly: heapsift rounds
    # down per rollup row or sample (docs/estimates.md), so it may say up
    # to one byte a sample less than the exact sum's floor
    cor = {k: Fraction(v) for k, v in out.items()}
    corsq = {k: Fraction(0) for k in out}
    terms, sampled = {}, {}
    for s in samples:
        c = (Fraction(0) if s[3] else
             (Fraction(s[4] * r_all, r_tlab) if r_tlab else Fraction(s[4])))
        cor[s[0]] = cor.get(s[0], 0) + c
        corsq[s[0]] = corsq.get(s[0], 0) + c * c
        terms[s[0]] = terms.get(s[0], 0) + (0 if s[3] else 1)
        sampled[s[0]] = sampled.get(s[0], 0) + c
    # the pooled term: each sample's weight times its thread's mean
    # size-biased weight m = sum w^2 / sum w over that thread's samples
    # (to the nearest byte), of the raw weights and of the scaled
    # remainders, summed by site; a site's variance is the larger of its
    # own squares and that
    rawvar = pooled([s[0] for s in samples], keys,
                    [s[1] for s in samples], rawsq)
    cs = [Fraction(0) if s[3] else
          (Fraction(s[4] * r_all, r_tlab) if r_tlab else Fraction(s[4]))
          for s in samples]
    corvar = pooled([s[0] for s in samples], keys, cs, corsq)
    cor = {k: math.floor(v) for k, v in cor.items()}
    corsq = {k: math.floor(v) for k, v in corsq.items()}
    for k, v in out.items():
        tl[k] = tl.get(k, 0) + v
    sampled = {k: math.floor(v) for k, v in sampled.items()}
    return (raw, rawsq, cor, corsq, negative, tl, terms, rawvar, corvar,
            sampled)


def pooled(sites, keys, weights, own):
    """Per site: its variance, from its own sum of squares and its
    pooled term (pooled.py), with m by node, as a view by site takes it."""
    m = strata_m([(t, node, None, w) for (t, node), w in zip(keys, weights)],
                 "node")
    pool = {}
    for k, (_, node), w in zip(sites, keys, weights):
        pool[k] = pool.get(k, 0) + w * m[node]
    return {k: variance(own.get(k, 0), v) for k, v in pool.items()}


def main():
    ev = load(sys.argv[1])
    truth = {}
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            # the JVM may log to stdout first: the truth is the last line
            truth = json.loads([x for x in f if x.startswith("{")][-1])
            truth = truth["sites"]
    raw, rawsq, cor, corsq, negative, tl, terms, rawvar, corvar, \
        sampled = estimates(ev)
    total = sum(cor.values())
    res = {"negative_remainders": negative, "sites": {}}
    for site in sorted(set(raw) | set(cor)):
        r = {"raw": raw.get(site, 0), "corrected": cor.get(site, 0),
             "raw_sumsq": rawsq.get(site, 0),
             "corrected_sumsq": corsq.get(site, 0),
             "corrected_terms": terms.get(site, 0),
             "corrected_sampled": sampled.get(site, 0),
             "raw_var": float(rawvar.get(site, 0)),
             "corrected_var": float(corvar.get(site, 0))}
        r["raw_rel_se"] = (math.sqrt(r["raw_var"]) / r["raw"]
                           if r["raw"] else None)
        r["corrected_rel_se"] = (math.sqrt(r["corrected_var"]) /
                                 r["corrected"] if r["corrected"] else None)
        method = site.split(":")[0].rsplit(".", 1)[-1]
        if method in truth:
            t = truth[method]["bytes"]
            r["truth"] = t
            r["share"] = t / sum(v["bytes"] for v in truth.values())
            r["raw_err"] = r["raw"] / t - 1
            r["corrected_err"] = r["corrected"] / t - 1
            if tl:
                r["tlab_events_err"] = tl.get(site, 0) / t - 1
        res["sites"][site] = r
    json.dump(res, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
