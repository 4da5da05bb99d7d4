#!/usr/bin/env python3
"""Rates and spans at the edges of a recording, against the truth a
workload printed and the JDK's own figures (fixtures/truth/README.md,
case killed-burst).  Nothing here reads heapsift's code: the expected
values come from KilledBurst's printed cumulative bytes (its thread's
allocated bytes, as the JVM counts them), from the JFR chunk headers
(the JFR format: size at offset 8, start in epoch ns at 32, duration at
40, big-endian int64) and from `jfr summary`.

    check_edges.py timeline TRUTH.json BUNDLE.tar.gz TL.csv WIDTH_NS
        `heapsift timeline --csv` with buckets of WIDTH_NS: the last
        bucket is partial (the JVM was killed: its recording ends at its
        last flush, inside the bucket), three fifths of it recorded or
        less (else a rate over the width would pass too and this would
        check nothing: choose WIDTH_NS so), and its alloc_rate, over the
        bucket's covered_s, is within 10% of the workload's own rate over
        the same window; the first bucket's covered time starts where the
        recording starts (the axis starts at 0 or later)
    check_edges.py report TRUTH.json BUNDLE.tar.gz REPORT.json
        the same for the last point of `heapsift report --format=json`'s
        rate figure (time_ns, covered_ns, y), whose first point is at the
        recording's start or later (BUNDLE: the chunk files, whose
        earliest header start is the recording's start)
    check_edges.py span BUNDLE.tar.gz SUMMARY.txt INFO.txt [REPORT.txt]
        each recording's span in `heapsift info` equals its chunk
        header's start and duration (to the millisecond it prints), and
        agrees with `jfr summary`'s Start (to the second) and Duration
        (rounded to the second); a report's "over S s" and "from S s of
        recording" are the sum of the chunks' durations (they follow one
        another: one JVM)
    check_edges.py pprof BUNDLE.tar.gz PROFILE.pb.gz
        `heapsift export --format=pprof`'s time_nanos and duration_nanos
        (fields 9 and 10 of pprof's Profile message, read here from the
        protobuf wire format) are the first chunk's start and the chunks'
        span, not the first and last samples'

Exit 0 when all holds, else the problems on stderr and exit 1.
"""
import bisect
import csv
import datetime
import json
import re
import struct
import sys
import tarfile

TOL = 0.10
problems = []


def fail(msg):
    problems.append(msg)


def ns_of(iso):
    date, _, frac = iso.rstrip("Z").partition(".")
    t = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc)
    return int(t.timestamp()) * 1_000_000_000 + int(frac.ljust(9, "0"))


def truth_rate(truth, a, b):
    """Bytes per second the workload allocated in [a, b], from its printed
    cumulative bytes, interpolated linearly between its lines (every
    20 ms)."""
    pts = truth["points"]
    ts = [p[0] for p in pts]

    # the kill may have come before the workload printed the window's
    # end: then the window up to its last line
    b = min(b, ts[-1])
    if b - a < 20_000_000:
        raise SystemExit("the truth ends %d ns into the window" % (b - a))

    def at(t):
        i = bisect.bisect_left(ts, t)
        if t == ts[-1]:
            return pts[-1][1]
        if i <= 0 or i >= len(pts):
            raise SystemExit("window %d..%d outside the truth's %d..%d"
                             % (a, b, ts[0], ts[-1]))
        (t0, b0), (t1, b1) = pts[i - 1], pts[i]
        return b0 + (b1 - b0) * (t - t0) / (t1 - t0)

    return (at(b) - at(a)) * 1e9 / (b - a)


def check_rate(what, truth, start, covered, rate, width, most):
    if covered <= 0:
        fail(f"{what}: the last bucket covers {covered} ns")
        return
    if covered > most * width:
        fail(f"{what}: the last bucket covers {covered} ns of {width}: "
             f"hardly cut by the kill, so this checks little")
    want = truth_rate(truth, start, start + covered)
    if abs(rate - want) > TOL * want:
        fail(f"{what}: the last bucket ({covered / 1e6:.1f} ms recorded) "
             f"reads {rate / 1e6:.2f} MB/s, the workload allocated "
             f"{want / 1e6:.2f} MB/s then (more than {TOL:.0%} apart)")
    else:
        print(f"{what}: last bucket {rate / 1e6:.2f} MB/s over "
              f"{covered / 1e6:.1f} ms, the workload {want / 1e6:.2f} MB/s")


def cmd_timeline(truth, start0, path, width):
    width = int(width)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "covered_s" not in rows[0]:
        fail(f"{path}: no covered_s column: the rates cannot be checked")
        return
    if len(rows) < 3:
        fail(f"{path}: {len(rows)} rows")
        return
    last = rows[-1]
    start = ns_of(last["time"])
    covered = round(float(last["covered_s"]) * 1e9)
    check_rate(f"timeline {width / 1e6:.0f} ms", truth, start, covered,
               float(last["alloc_rate"]), width, 0.6)
    first = rows[0]
    cov0 = round(float(first["covered_s"]) * 1e9)
    t0 = ns_of(first["time"])
    if abs(t0 + width - cov0 - start0) > 1:
        fail(f"timeline: the first bucket covers from {t0 + width - cov0}, "
             f"the recording starts at {start0}")


def cmd_report(truth, start0, path):
    rep = json.load(open(path))
    figs = [g for g in rep["figures"] if g["kind"] == "rate"]
    if len(figs) != 1:
        fail(f"{path}: {len(figs)} rate figures, expected 1")
        return
    g = figs[0]
    if g.get("covered_ns") is None:
        fail(f"{path}: the rate figure has no covered_ns")
        return
    t, c, y = g["time_ns"], g["covered_ns"], g["series"][0]["y"]
    if not (len(t) == len(c) == len(y) >= 3):
        fail(f"{path}: rate figure of {len(t)}, {len(c)}, {len(y)} points")
        return
    check_rate("report", truth, t[-1], c[-1], y[-1], t[-1] - t[-2], 0.95)
    if t[0] < start0:
        fail(f"report: the rate figure starts at {t[0]}, before the "
             f"recording's start {start0}")


def chunk_headers(bundle):
    """{member name: (start_ns, duration_ns)} of every chunk file."""
    out = {}
    with tarfile.open(bundle) as tf:
        for m in tf.getmembers():
            if not m.isfile():
                continue
            h = tf.extractfile(m).read(68)
            if h[:4] != b"FLR\0":
                continue
            out[m.name] = struct.unpack(">qq", h[32:48])
    return out


def first_start(bundle):
    return min(s for s, _ in chunk_headers(bundle).values())


def cmd_span(bundle, summary, info, report=None):
    heads = chunk_headers(bundle)
    if len(heads) < 2:
        fail(f"{bundle}: {len(heads)} chunk files")
    # jfr summary: "== NAME", " Start: YYYY-MM-DD HH:MM:SS (UTC)",
    # " Duration: N s" (Summary.java: (sum of durations + 0.5 s) / 1 s)
    js, cur = {}, None
    for line in open(summary):
        if line.startswith("== "):
            cur = line[3:].strip()
            js[cur] = {}
        m = re.match(r" Start: (\S+ \S+) \(UTC\)", line)
        if m:
            js[cur]["start"] = m.group(1)
        m = re.match(r" Duration: (\d+) s", line)
        if m:
            js[cur]["duration"] = int(m.group(1))
    # heapsift info: "recording N: SOURCE" then "  time  A .. B (S s)"
    spans, src = {}, None
    for line in open(info):
        m = re.match(r"recording \d+: (.*)", line)
        if m:
            src = m.group(1).split("!")[-1]
        m = re.match(r"  time +(\S+) \.\. (\S+) \(([\d.]+) s\)", line)
        if m and src:
            spans[src] = (ns_of(m.group(1)), ns_of(m.group(2)),
                          float(m.group(3)))
    for name, (start, dur) in sorted(heads.items()):
        if name not in spans:
            fail(f"info: no recording {name}")
            continue
        a, b, s = spans[name]
        # info prints milliseconds, cut
        if not (0 <= start - a < 1_000_000 and
                0 <= start + dur - b < 1_000_000):
            fail(f"info: {name} spans {a}..{b}; its chunk header "
                 f"{start}..{start + dur}")
        if abs(s - dur / 1e9) > 0.0005 + 1e-9:
            fail(f"info: {name} lasts {s} s; its chunk header {dur / 1e9}")
        j = js.get(name, {})
        st = datetime.datetime.fromtimestamp(
            a // 1_000_000_000, datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M:%S")
        if j.get("start") != st:
            fail(f"info: {name} starts {st}, jfr summary {j.get('start')}")
        if j.get("duration") is None or abs(s - j["duration"]) > 0.5:
            fail(f"info: {name} lasts {s} s, jfr summary "
                 f"{j.get('duration')} s")
    if report:
        total = sum(d for _, d in heads.values()) / 1e9
        text = open(report).read()
        seen = 0
        for pat in (r" over ([\d.]+) s,", r" from ([\d.]+) s of recording"):
            for m in re.finditer(pat, text):
                seen += 1
                if abs(float(m.group(1)) - total) > 0.0015:
                    fail(f"report: {m.group(0).strip()!r}; the chunks "
                         f"last {total:.3f} s")
        if not seen:
            fail("report: no span printed")
    if not problems:
        print(f"{len(heads)} recordings' spans agree with their chunk "
              f"headers and jfr summary")


def varint(b, i):
    v = sh = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << sh
        sh += 7
        if c < 0x80:
            return v, i


def cmd_pprof(bundle, path):
    import gzip
    b = gzip.open(path).read()
    i, f = 0, {}
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
            f[num] = v
        elif wt == 2:
            n, i = varint(b, i)
            i += n
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        else:
            raise SystemExit(f"{path}: wire type {wt}")
    heads = chunk_headers(bundle).values()
    start = min(a for a, _ in heads)
    end = max(a + d for a, d in heads)
    if f.get(9) != start or f.get(10) != end - start:
        fail(f"pprof: time_nanos {f.get(9)}, duration_nanos {f.get(10)}; "
             f"the chunks start at {start} and last {end - start}")
    else:
        print(f"pprof: from the chunks' start, {(end - start) / 1e9:.3f} s")


def main():
    a = sys.argv[1:]
    if len(a) < 3 and a[:1] != ["pprof"]:
        raise SystemExit(__doc__)
    if a[0] == "timeline" and len(a) == 5:
        cmd_timeline(json.load(open(a[1])), first_start(a[2]), a[3], a[4])
    elif a[0] == "report" and len(a) == 4:
        cmd_report(json.load(open(a[1])), first_start(a[2]), a[3])
    elif a[0] == "pprof" and len(a) == 3:
        cmd_pprof(a[1], a[2])
    elif a[0] == "span" and len(a) in (4, 5):
        cmd_span(*a[1:])
    else:
        raise SystemExit(__doc__)
    if problems:
        for p in problems:
            print(p, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
