#!/usr/bin/env python3
"""agent_bias.py DIR: each site's agent estimate (top --by site --csv) of
agent_bias.sh's runs against EstWorkload's printed truth: the error per
run, the samples against those Poisson sampling expects (each object of
size s at interval I sampled with probability 1 - exp(-s/I); for small
objects bytes / I), and how many standard deviations apart (z)."""
import csv, json, glob, math, re, collections, sys
iv_bytes = {"64k": 65536, "128k": 131072, "512k": 524288, "1m": 1048576}
rows = collections.defaultdict(list)
for top in sorted(glob.glob(sys.argv[1] + "/a-*-*.top.csv")):
    m = re.match(r".*/a-(\w+)-(\d+)\.top\.csv", top)
    iv, seed = m.group(1), m.group(2)
    truth = json.load(open(top.replace(".top.csv", ".truth.json")))["sites"]
    for r in csv.DictReader(open(top)):
        parts = r["site"].split(".")
        if len(parts) < 2 or not parts[0].startswith("EstWorkload"):
            continue
        name = parts[1].split(":")[0]
        if name not in truth:
            continue
        t = truth[name]["bytes"]
        est = int(r["est_bytes"]); n = int(r["samples"])
        arrays = truth[name]["arrays"]
        size = t / arrays
        # Poisson sampling: expected samples = bytes / interval for objects
        # much smaller than the interval; P(sampled) = 1 - exp(-size/iv) each
        p = 1 - math.exp(-size / iv_bytes[iv])
        exp_n = arrays * p if size > iv_bytes[iv] / 50 else t / iv_bytes[iv]
        rows[(name, iv)].append((est / t - 1, n, exp_n, math.sqrt(exp_n * (1 - p)) if size > iv_bytes[iv]/50 else math.sqrt(exp_n)))
print("%-9s %-5s %8s  %-26s %-22s" % ("site", "iv", "size", "est error per run", "samples vs expected"))
for (name, iv) in sorted(rows, key=lambda k: (k[0], iv_bytes[k[1]])):
    v = rows[(name, iv)]
    size = {"small4k": 4112, "small1k": 1040, "small2k": 2064, "big400k": 409616, "big2m": 2097168}[name]
    errs = " ".join("%+5.1f%%" % (e * 100) for e, _, _, _ in v)
    ns = " ".join("%d/%.0f" % (n, x) for _, n, x, _ in v)
    z = " ".join("%+.1f" % ((n - x) / s) if s else "" for _, n, x, s in v)
    print("%-9s %-5s %8d  %-26s %-30s z %s" % (name, iv, size, errs, ns, z))
