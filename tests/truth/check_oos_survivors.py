#!/usr/bin/env python3
"""Holds `heapsift survivors --kind=old` on an oos-* case of the truth
corpus (fixtures/truth/README.md) to the JDK's `jfr` and the workload's
printed truth.

    check_oos_survivors.py NAME.truth.json NAME.oos.json TABLE.txt LEAKS.csv

TABLE.txt is `survivors --kind=old --limit=0`, LEAKS.csv is `survivors
--kind=old --leaks --csv`.  For every site of the workload (OosWorkload.*):
ALIVE is the number of objects the recording's last emission shows and
GONE the number only earlier emissions show, each object counted once
however many emissions show it (NAME.oos.json, which
tests/truth/oos_objects.py made from the JDK's `jfr print --json` when
the case was recorded).  Of the leak ranking: in a leaking run the
workload's leak site is the first suspect, and in every run neither its
steady cache nor its large arrays (dropped at once) are suspects; in a
healthy run nothing is.  Exit 0 when all holds, else 1 with the reasons
on stderr.
"""
import csv
import json
import sys


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    truth = json.load(open(sys.argv[1]))
    oos = json.load(open(sys.argv[2]))
    table = open(sys.argv[3]).read().splitlines()
    leaks = list(csv.reader(open(sys.argv[4], newline="")))
    bad = []
    cols = {}
    for line in table[2:]:
        w = line.split()
        # PEAK, AT END (two words each), GONE, ALIVE, ..., the key last
        if len(w) >= 7 and w[-1].startswith("OosWorkload."):
            cols[w[-1]] = (int(w[4]), int(w[5]))
    checked = 0
    for s, v in sorted(oos["sites"].items()):
        if not s.startswith("OosWorkload."):
            continue
        checked += 1
        got = cols.get(s)
        want = (v["gone"], v["alive_last"])
        if got != want:
            bad.append("%s: GONE, ALIVE %s, the JDK's jfr says %s" % (s, got, want))
    if not checked:
        bad.append("no OosWorkload site in %s" % sys.argv[2])
    if not leaks or leaks[0][:1] != ["site"]:
        bad.append("no leak CSV header: %r" % (leaks[:1],))
    sus = [r[0] for r in leaks[1:] if r and r[-1] == "yes"]
    for s in (truth["steady_site"], truth["large_array_site"]):
        if s in sus:
            bad.append("%s (not a leak) is a leak suspect: %s" % (s, sus))
    if truth["mode"] == "leak":
        if not sus or sus[0] != truth["leak_site"]:
            bad.append("first leak suspect %s, the leak is %s" %
                       (sus[0] if sus else "none", truth["leak_site"]))
    elif sus:
        bad.append("a healthy run has leak suspects: %s" % sus)
    for b in bad:
        print(b, file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
