#!/usr/bin/env python3
"""Compare heapsift imports of one recording by two or more builds or
settings, in interleaved runs, and print each one's median wall and CPU
time and the first one's paired ratio to every other, with a 95%
confidence interval.

A benchmark, not a test: it asserts nothing.  It exists because the
machines here change speed by a quarter from one hour to the next, so a
change of a few percent shows only in runs taken in turn (each round runs
every variant once, in a random order) and compared pair by pair.

usage: ab_import.py RECORDING ROUNDS NAME=BINARY[,VAR=VALUE...] ...

  ab_import.py build/bench/jfr-bench.jfr 40 old=/tmp/old/heapsift new=./heapsift
  ab_import.py build/bench/scale-512M.jfr 15 base=./heapsift \\
      runs64k=./heapsift,HEAPSIFT_STORE_RUN_SAMPLES=65536

The first variant is the baseline.  Each import writes a new store into a
temporary folder, removed at the end.  A ratio's interval that holds 0%
is no difference that these runs can tell.
"""
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def parse(arg):
    name, sep, rest = arg.partition("=")
    if not sep or not rest:
        sys.exit("ab_import.py: a variant is NAME=BINARY[,VAR=VALUE...]: %s" % arg)
    parts = rest.split(",")
    env = {}
    for p in parts[1:]:
        k, sep, v = p.partition("=")
        if not sep:
            sys.exit("ab_import.py: %s: expected VAR=VALUE, got %s" % (name, p))
        env[k] = v
    return name, parts[0], env


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def interval(base, other):
    """Mean paired log-ratio as a percentage, with its 95% interval."""
    d = [math.log(b / a) for a, b in zip(base, other) if a > 0 and b > 0]
    if len(d) < 2:
        return None
    m = sum(d) / len(d)
    se = math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1) / len(d))
    pct = lambda x: 100 * (math.exp(x) - 1)
    return pct(m), pct(m - 1.96 * se), pct(m + 1.96 * se)


def main():
    if len(sys.argv) < 5 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    rec, rounds = sys.argv[1], int(sys.argv[2])
    variants = [parse(a) for a in sys.argv[3:]]
    if len({v[0] for v in variants}) != len(variants):
        sys.exit("ab_import.py: two variants share a name")
    work = tempfile.mkdtemp(prefix="hs-ab-")
    store = os.path.join(work, "ab.hsdb")
    runs = {v[0]: [] for v in variants}
    try:
        for r in range(rounds):
            order = list(variants)
            random.shuffle(order)
            for name, binary, env in order:
                if os.path.exists(store):
                    os.unlink(store)
                e = dict(os.environ)
                e.update(env)
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.monotonic()
                try:
                    p = subprocess.run([binary, "import", "-o", store, rec], env=e,
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE)
                except OSError as err:
                    sys.exit("ab_import.py: %s: cannot run %s: %s" %
                             (name, binary, err.strerror))
                t1 = time.monotonic()
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                if p.returncode != 0:
                    sys.exit("ab_import.py: %s exited %d: %s" %
                             (name, p.returncode, p.stderr.decode(errors="replace")[:300]))
                cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                runs[name].append((t1 - t0, cpu))
            print("round %d of %d" % (r + 1, rounds), file=sys.stderr, end="\r")
        print(file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = variants[0][0]
    print("%s, %d rounds; ratios against %s" % (rec, rounds, base))
    for name, _, _ in variants:
        wall = [x[0] for x in runs[name]]
        cpu = [x[1] for x in runs[name]]
        line = "%-12s wall median %.3f s (%.3f..%.3f)  CPU median %.3f s" % (
            name, median(wall), min(wall), max(wall), median(cpu))
        if name != base:
            for i, label in ((0, "wall"), (1, "CPU")):
                iv = interval([x[i] for x in runs[base]], [x[i] for x in runs[name]])
                if iv:
                    line += "  %s %+.1f%% (%+.1f..%+.1f)" % ((label,) + iv)
        print(line)


if __name__ == "__main__":
    main()
