#!/usr/bin/env python3
"""A synthetic agent recording whose survivors, cohorts, ages and leak
suspects are known by construction, and a checker of heapsift's output
against them.  The truth is worked out here from the lives written into
the file and from the definitions in docs/heapsift.1 (survivors, --by
age/gcs, --min-gcs, --before-last-gc, --leaks), never by running
heapsift.

usage: survivors_truth.py make OUT.hsa > truth.json
       survivors_truth.py series TRUTH.json WHAT CSV   (WHAT: site, age,
           gcs, min-gcs-5, before-last-gc: a survivors --csv output)
       survivors_truth.py leaks TRUTH.json CSV         (survivors --leaks
           --csv)

Exit status 0 when heapsift agrees, 1 when not (what differs on stderr),
2 on usage errors.

The recording (T0 a whole second, END at T0 + 20 s, --bucket=1s gives
the points T0 + 1 s, ..., T0 + 20 s).  The sampler is systematic and
every object is at least the 64 KiB interval, so each sample weighs
exactly its size in bytes and one object (agent-recording.md): the
expected bytes are integers, with no estimate in between.  GC n (1..19)
runs from T0 + n s to T0 + n s + 0.2 s; every death is found 0.1 s
after a GC ends (as the agent looks after GCs), so deaths fall
mid-bucket, at T0 + n s + 0.3 s.  Sites (site = the allocating frame):

  Leak.fast:11   2 objects of 100000 B a second (born k+0.25, k+0.75 s),
                 all alive: live 2, 4, ..., 40; slope 200000 B/s
  Leak.mid:12    1 object of 150000 B a second (born k+0.5): live
                 1..20; slope 150000 B/s
  Leak.slow:13   1 object of 100000 B a second (born k+0.5): slope
                 100000 B/s
  Leak.base:14   40 objects of 100000 B born at 0.1 s, then 1 of 70000
                 B a second (born k+0.5): the largest peak of the
                 suspects and the smallest slope, 70000 B/s, so that a
                 ranking by peak and one by slope differ
  Burst.grow:20  2p+1 objects of 100000 B born at p+0.5 s (p = 0..17):
                 live (p+1)^2, up to 324 at T0 + 18 s; the 174 oldest
                 die at 18.3 s (after GC 18): 150 at the last two
                 points.  It rises at 17 points and falls at 1, and its
                 later half still grows at more than half its overall
                 rate: only "ends at half its peak or more" makes it no
                 suspect.
  Cache.fill:30  10 objects of 100000 B born in the first second, all
                 alive: level, not a suspect
  Churn.tmp:40   1 object of 80000 B born at k+0.6, dead at k+1.3 (k =
                 0..18): live 1 at the points 1..19, 0 at 20; life 0.7 s
  Die.mid:50     3 objects of 90000 B born at 0.5 s, dead at 3.3 s:
                 live at 1, 2, 3 s, aged 0.5, 1.5, 2.5 s, having
                 survived 0, 1, 2 GCs; a cohort that keeps them after
                 3.3 s does not clip lives at death
"""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_recording import MAGIC, frame, s  # noqa: E402

SEC = 1_000_000_000
T0 = 1_700_000_000 * SEC
END = T0 + 20 * SEC
INTERVAL = 64 * 1024
N_GCS = 19
GC_END = [T0 + n * SEC + SEC // 5 for n in range(1, N_GCS + 1)]
GC_START = [T0 + n * SEC for n in range(1, N_GCS + 1)]
POINTS = [T0 + (p + 1) * SEC for p in range(20)]

# site -> (class name, method, line)
SITES = {
    "Leak.fast:11": ("Leak", "fast", 11),
    "Leak.mid:12": ("Leak", "mid", 12),
    "Leak.slow:13": ("Leak", "slow", 13),
    "Leak.base:14": ("Leak", "base", 14),
    "Burst.grow:20": ("Burst", "grow", 20),
    "Cache.fill:30": ("Cache", "fill", 30),
    "Churn.tmp:40": ("Churn", "tmp", 40),
    "Die.mid:50": ("Die", "mid", 50),
}
MS = SEC // 1000


def lives():
    """(site, born_ns, death_ns or None, size) for every object."""
    out = []
    for k in range(20):
        out.append(("Leak.fast:11", T0 + k * SEC + 250 * MS, None, 100000))
        out.append(("Leak.fast:11", T0 + k * SEC + 750 * MS, None, 100000))
        out.append(("Leak.mid:12", T0 + k * SEC + 500 * MS, None, 150000))
        out.append(("Leak.slow:13", T0 + k * SEC + 500 * MS, None, 100000))
        out.append(("Leak.base:14", T0 + k * SEC + 500 * MS, None, 70000))
    for _ in range(40):
        out.append(("Leak.base:14", T0 + 100 * MS, None, 100000))
    burst = []
    for p in range(18):
        for _ in range(2 * p + 1):
            burst.append(T0 + p * SEC + 500 * MS)
    for i, born in enumerate(burst):  # born in order: the first die
        death = T0 + 18 * SEC + 300 * MS if i < 174 else None
        out.append(("Burst.grow:20", born, death, 100000))
    for i in range(10):
        out.append(("Cache.fill:30", T0 + (50 + 90 * i) * MS, None, 100000))
    for k in range(19):
        out.append(("Churn.tmp:40", T0 + k * SEC + 600 * MS,
                    T0 + (k + 1) * SEC + 300 * MS, 80000))
    for _ in range(3):
        out.append(("Die.mid:50", T0 + 500 * MS, T0 + 3 * SEC + 300 * MS,
                    90000))
    out.sort(key=lambda x: x[1])
    return out


def gcs_before(t):
    """GCs finished at or before t (the agent's gc field)."""
    return sum(1 for e in GC_END if e <= t)


def survived(life):
    """GCs survived by the end of the life, as agent-recording.md counts
    them: dead, the GC after which it was gone minus the one before the
    allocation minus one; alive at the end, every later GC."""
    _, born, death, _ = life
    if death is None:
        return N_GCS - gcs_before(born)
    return max(0, gcs_before(death) - gcs_before(born) - 1)


def live_at(life, t):
    """docs/heapsift.1: live at t when allocated at or before t and dead
    after it, or alive when the recording ended (and only until then)."""
    _, born, death, _ = life
    return born <= t and (t < death if death is not None else t <= END)


AGE_EDGES = [SEC, 10 * SEC, 60 * SEC, 600 * SEC]
AGE_NAMES = ["age <1s", "age 1-10s", "age 10-60s", "age 1-10min",
             "age >=10min"]
GCS_NAMES = ["survived 0 GCs", "survived 1 GC", "survived 2-3 GCs",
             "survived 4-7 GCs", "survived 8+ GCs"]


def cohort(life, t, by):
    """The cohort of a live object at t: by its age (t minus its birth:
    <1 s, [1 s, 10 s), ...), or by the GCs that ended after its birth and
    at or before t (0, 1, 2-3, 4-7, 8+)."""
    born = life[1]
    if by == "age":
        age = t - born
        return sum(1 for e in AGE_EDGES if age >= e)
    n = sum(1 for e in GC_END if born < e <= t)
    return 0 if n == 0 else 1 if n == 1 else 2 if n <= 3 else 3 if n <= 7 \
        else 4


def series(what):
    """key -> [(samples, bytes, objects) at each point]."""
    out = {}
    for life in lives():
        if what == "min-gcs-5" and survived(life) < 5:
            continue
        # the last GC started at T0 + 19 s
        if what == "before-last-gc" and not life[1] < GC_START[-1]:
            continue
        for p, t in enumerate(POINTS):
            if not live_at(life, t):
                continue
            if what in ("age", "gcs"):
                names = AGE_NAMES if what == "age" else GCS_NAMES
                key = names[cohort(life, t, what)]
            else:
                key = life[0]
            row = out.setdefault(key, [[0, 0, 0] for _ in POINTS])
            row[p][0] += 1
            row[p][1] += life[3]
            row[p][2] += 1
    if what in ("age", "gcs"):  # every cohort is shown, live or not
        for name in AGE_NAMES if what == "age" else GCS_NAMES:
            out.setdefault(name, [[0, 0, 0] for _ in POINTS])
    return out


def regress(ts, vs):
    n = len(ts)
    sx, sy = sum(ts), sum(vs)
    sxx = sum(x * x for x in ts)
    sxy = sum(x * y for x, y in zip(ts, vs))
    d = n * sxx - sx * sx
    return (n * sxy - sx * sy) / d if n > 1 and d > 0 else 0.0


def leak_rule(v):
    """docs/heapsift.1 --leaks, on the live bytes at each point: rises at
    3 points or more, falls at no more than a quarter as many, the
    least-squares slope over the later half of the points (from point
    n/2 on) at least half the slope over all of them, which is positive,
    and ends at half its peak or more."""
    n = len(v)
    ts = [(t - POINTS[0]) / SEC for t in POINTS]
    slope = regress(ts, v)
    late = regress(ts[n // 2:], v[n // 2:])
    rising = sum(1 for b in range(1, n) if v[b] > v[b - 1])
    falling = sum(1 for b in range(1, n) if v[b] < v[b - 1])
    parts = {"points": n >= 4, "slope>0": slope > 0, "rising": rising >= 3,
             "seldom falls": 4 * falling <= rising,
             "grows late": late >= 0.5 * slope,
             "ends near peak": 2 * v[-1] >= max(v), "peak>0": max(v) > 0}
    return {"slope": slope, "late": late, "rising": rising,
            "falling": falling, "end": v[-1], "peak": max(v),
            "parts": parts, "suspect": all(parts.values())}


def make(path):
    ls = lives()
    out = bytearray(MAGIC + struct.pack("<HHI", 1, 0, 0))
    hdr = struct.pack("<QQIIII", T0, INTERVAL, 8, 4242, 2, 100000)
    hdr += s("Synthetic VM") + s("17") + s("Test Vendor")
    hdr += s("file=x.hsa,interval=64k") + s("survivors_truth.py")
    out += frame(1, hdr)
    out += frame(2, struct.pack("<I", 1) + s("[B"))
    classes, methods = {}, {}
    for name, (cls, meth, line) in SITES.items():
        if cls not in classes:
            classes[cls] = len(classes) + 2
            out += frame(2, struct.pack("<I", classes[cls]) + s(cls))
        methods[name] = len(methods) + 1
        out += frame(3, struct.pack("<III", methods[name], classes[cls], 0) +
                     s(meth) + s("()V"))
    out += frame(4, struct.pack("<IIq", 1, 0, 1) + s("main"))
    for name, (cls, meth, line) in SITES.items():
        out += frame(5, struct.pack("<IIIIii", methods[name], 0, 1,
                                    methods[name], 3, line))
    samples, deaths, alive = b"", [], []
    for i, life in enumerate(ls, 1):
        site, born, death, size = life
        samples += struct.pack("<QqQIIIIII", i, born, size, 1, 1,
                               methods[site], gcs_before(born), 1, 0)
        if death is None:
            alive.append(i)
        else:
            g = gcs_before(death)
            assert g > gcs_before(born), "a death must follow a GC"
            deaths.append((death, i, g, max(0, g - gcs_before(born) - 1)))
    out += frame(6, samples)
    out += frame(8, b"".join(struct.pack("<IIqq", n + 1, 0, GC_START[n],
                                         GC_END[n]) for n in range(N_GCS)))
    deaths.sort()
    out += frame(7, b"".join(struct.pack("<QqII", i, t, g, sv)
                             for t, i, g, sv in deaths))
    out += frame(10, b"".join(struct.pack("<Q", i) for i in alive))
    counters = [len(ls), len(ls), len(ls), 0, 0, len(deaths), N_GCS, 0, 1,
                0, len(alive), 0]
    counters[9] = len(out) + 12 + 96
    out += frame(9, struct.pack("<12Q", *counters))
    out += frame(11, struct.pack("<q", END))
    with open(path, "wb") as f:
        f.write(out)
    site = series("site")
    truth = {"points": POINTS, "samples": len(ls), "deaths": len(deaths),
             "alive": len(alive),
             "leaks": {k: leak_rule([p[1] for p in v])
                       for k, v in site.items()},
             "median_life_ns": {}, "median_gcs": {}}
    for k in SITES:
        d = sorted(x[2] - x[1] for x in ls if x[0] == k and x[2])
        if d:
            truth["median_life_ns"][k] = d[len(d) // 2]
            g = sorted(survived(x) for x in ls if x[0] == k and x[2])
            truth["median_gcs"][k] = g[len(g) // 2]
    for what in ("site", "age", "gcs", "min-gcs-5", "before-last-gc"):
        truth[what] = series(what)
    json.dump(truth, sys.stdout, indent=1, sort_keys=True)
    print()


def parse_time(text):
    """2023-11-14T22:13:21.000Z -> ns (whole milliseconds)."""
    import calendar
    import time
    date, frac = text.rstrip("Z").split(".")
    secs = calendar.timegm(time.strptime(date, "%Y-%m-%dT%H:%M:%S"))
    return secs * SEC + int(frac.ljust(3, "0")[:3]) * MS


def check_series(truth, what, path):
    import csv
    want = truth[what]
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        return ["no rows in " + path]
    keycol = list(rows[0].keys())[0]
    got = {}
    bad = []
    for r in rows:
        got.setdefault(r[keycol], []).append(r)
    if set(got) != set(want):
        bad.append("keys: heapsift %s, expected %s"
                   % (sorted(got), sorted(want)))
    for key in sorted(set(got) & set(want)):
        g, w = got[key], want[key]
        if len(g) != len(w):
            bad.append("%s: %d points, expected %d" % (key, len(g), len(w)))
            continue
        for p, (r, (n, b, o)) in enumerate(zip(g, w)):
            t = parse_time(r["time"])
            have = (int(r["live_samples"]), int(r["est_live_bytes"]),
                    int(r["est_live_objects"]))
            if t != truth["points"][p] or have != (n, b, o):
                bad.append("%s point %d (T0+%.3f s): heapsift %s at %s, "
                           "expected %s at T0+%d s"
                           % (key, p, (t - T0) / SEC, have, r["time"],
                              (n, b, o), p + 1))
    return bad


def check_leaks(truth, path):
    import csv
    rows = list(csv.DictReader(open(path, newline="")))
    bad = []
    want = truth["leaks"]
    if {r["site"] for r in rows} != set(want):
        bad.append("keys: %s" % sorted(r["site"] for r in rows))
    for r in rows:
        w = want.get(r["site"])
        if not w:
            continue
        got = (r["suspect"], int(r["rising_points"]), int(r["points"]),
               int(r["end_bytes"]), int(r["peak_bytes"]))
        exp = ("yes" if w["suspect"] else "no", w["rising"], 20, w["end"],
               w["peak"])
        if got != exp or abs(float(r["slope_bytes_per_s"]) - w["slope"]) > 0.1:
            bad.append("%s: heapsift %s slope %s, expected %s slope %.1f "
                       "(%s)" % (r["site"], got, r["slope_bytes_per_s"], exp,
                                 w["slope"], w["parts"]))
    # suspects first, steepest slope first (ties by name), then the rest
    order = sorted(want, key=lambda k: (not want[k]["suspect"],
                                        -want[k]["slope"], k))
    if [r["site"] for r in rows] != order:
        bad.append("ranking: heapsift %s, expected %s"
                   % ([r["site"] for r in rows], order))
    return bad


def main(argv):
    if len(argv) == 3 and argv[1] == "make":
        make(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "series":
        bad = check_series(json.load(open(argv[2])), argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "leaks":
        bad = check_leaks(json.load(open(argv[2])), argv[3])
    else:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    for b in bad[:30]:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
