"""The pooled term of a row's variance (docs/estimates.md, "The pooled
term"), computed from the samples as that page defines it and not from
heapsift's code, for the checks that hold heapsift's ± to the samples
(estimate.py, tests/jfr/check_top.py, tests/jfr/check_views.py).

A thread's m is the sum of its weights' squares over their sum, in
1/65536 byte, rounded to the nearest; a node's or a class's is the mean
of its samples' threads' m weighted by their bytes, rounded alike.  A
view takes m by its thread where its rows hold threads (it groups or
filters by thread), else by node (it groups or filters by frames), else
by class (it groups or filters by class), else by thread; a row's
pooled term is the sum over its samples of w * m, and its variance
max(sum of w^2, pooled / 65536).  All within one recording, and over
the view's time window (--from, --to) where it has one: the samples m is
made of are every sample of the window, whatever the other filters.
"""
from fractions import Fraction

SHIFT = 16


def _nearest(num, den):
    """num / den to the nearest integer, halves up; 0 where den is 0."""
    if not den:
        return 0
    x = Fraction(num) / Fraction(den) + Fraction(1, 2)
    return x.numerator // x.denominator


def strata_m(samples, by):
    """samples: (thread, node, class, w) of one recording in the view's
    window, every one of them whatever its other filters; by: "thread", "node" or "class".
    Returns a dict from that key to m (in 1/65536 byte)."""
    y, q = {}, {}
    for t, _, _, w in samples:
        y[t] = y.get(t, 0) + w
        q[t] = q.get(t, 0) + w * w
    mt = {t: _nearest(q[t] * (1 << SHIFT), y[t]) for t in y}
    if by == "thread":
        return mt
    k = 1 if by == "node" else 2
    ky, km = {}, {}
    for s in samples:
        ky[s[k]] = ky.get(s[k], 0) + s[3]
        km[s[k]] = km.get(s[k], 0) + s[3] * mt[s[0]]
    return {x: _nearest(km[x], ky[x]) for x in ky}


def variance(own, pool):
    """A row's variance from its squares and its pooled term."""
    return max(own, Fraction(pool, 1 << SHIFT))
