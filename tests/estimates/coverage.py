#!/usr/bin/env python3
"""Coverage of heapsift's printed intervals (docs/estimates.md).

  coverage.py HEAPSIFT DIR...

Each DIR holds run-N.jfr and run-N.truth.json (record.sh).  Every run is
imported, and `heapsift top --by site --csv` taken with --estimate=jfr
and --estimate=corrected; for every workload site of each run the
printed interval est ± rel_err * est, and est ± 2 rel_err * est, either
holds the true bytes or not.  Prints, per directory and estimate, how
often (nominal: 68.3% and 95.4% for a normal estimate), separately for
the rows heapsift marks as biased (!) and the others, and each site's
mean error.
"""
import csv
import glob
import io
import json
import os
import subprocess
import sys
import tempfile


def top(h, store, est):
    out = subprocess.check_output([h, "top", store, "--by", "site",
                                   "--csv", "--estimate=" + est])
    return list(csv.DictReader(io.StringIO(out.decode())))


def main():
    h = sys.argv[1]
    for d in sys.argv[2:]:
        res = {}
        errs = {}
        runs = sorted(glob.glob(os.path.join(d, "run-*.jfr")))
        with tempfile.TemporaryDirectory() as tmp:
            for jfr in runs:
                with open(jfr[:-4] + ".truth.json") as f:
                    truth = json.loads(
                        [x for x in f if x.startswith("{")][-1])["sites"]
                store = os.path.join(tmp, "s.hsdb")
                subprocess.check_call([h, "import", "-o", store, jfr],
                                      stdout=subprocess.DEVNULL)
                for est in ("jfr", "corrected"):
                    for r in top(h, store, est):
                        m = r["site"].split(":")[0].rsplit(".", 1)[-1]
                        if m not in truth:
                            continue
                        t = truth[m]["bytes"]
                        e = int(r["est_bytes"])
                        se = float(r["rel_err"]) * e
                        k = (est, "biased" if r["biased"] else "unbiased")
                        z = abs(e - t) / se if se > 0 else (
                            0.0 if e == t else float("inf"))
                        c = res.setdefault(k, [0, 0, 0])
                        c[0] += 1
                        c[1] += z <= 1
                        c[2] += z <= 2
                        errs.setdefault((est, m), []).append((e - t) / t)
        print("%s: %d runs" % (d, len(runs)))
        for k in sorted(res):
            n, c1, c2 = res[k]
            print("  %-9s %-8s rows %3d: within 1 se %5.1f%%, within 2 se "
                  "%5.1f%%" % (k[0], k[1], n, 100.0 * c1 / n,
                               100.0 * c2 / n))
        for k in sorted(errs):
            v = errs[k]
            print("  %-9s %-8s error mean %+6.1f%%, worst %+6.1f%%" %
                  (k[0], k[1], 100 * sum(v) / len(v),
                   100 * max(v, key=abs)))


if __name__ == "__main__":
    main()
