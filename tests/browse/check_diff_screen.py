#!/usr/bin/env python3
"""The browser's baseline screen (tests/cli/browse.sh) against heapsift
diff's CSV of the same comparison and the workload's own truth.

  check_diff_screen.py VIEW SCREEN CSV BASE.truth.json NEW.truth.json

VIEW is tree, inverted or survivors.  The screen's rows, unfolded, are
the CSV's first rows in order: the same key (as the browser shortens
it), the same samples on both sides and the same verdict (grew, shrank
or none), and each verdict has the sign of the change shown beside it.
The rows flagged are exactly the site whose rate the
workload changed (from the truth files: the one site whose rate is not
the same on both sides) and, in the trees, its callers: the chain from
the root down to it (call tree) or from it out to main (inverted)."""
import csv
import json
import re
import sys

view, screen, csvf, tb, tn = sys.argv[1:6]
lines = open(screen, encoding="utf-8").read().splitlines()
rows = list(csv.DictReader(open(csvf, encoding="utf-8")))
key = "frame" if view in ("tree", "inverted") else "site"
bad = []

# the site the workload changed, from what it printed
base, new = json.load(open(tb))["sites"], json.load(open(tn))["sites"]
changed = [s for s in base if base[s]["rate"] != new[s]["rate"]]
if len(changed) != 1:
    sys.exit("truth: %d sites changed rate, expected 1" % len(changed))
changed = changed[0]
kept = [s for s in base if s != changed and base[s]["rate"] > 0]

amount = r"(-|[-+]?[0-9.]+ (?:B|kB|MB|GB|TB|smp))"
n_amounts = 5 if view == "survivors" else 3
row_re = re.compile(r"^\s*" + r"\s+".join([amount] * n_amounts) +
                    r"\s+(\d+)\s+(\d+)\s+(grew|shrank)?\s*(?:[▾▸+-]\s+)?(\S+)\s*$")

try:
    start = next(i for i, l in enumerate(lines) if "N_BASE" in l) + 1
except StopIteration:
    sys.exit("no N_BASE header on the screen")
got = []
for l in lines[start:]:
    m = row_re.match(l)
    if not m:
        break
    g = m.groups()
    got.append((int(g[n_amounts]), int(g[n_amounts + 1]), g[n_amounts + 2] or "", g[-1]))
    # the verdict has the sign of the change beside it (the last
    # amount: [peaks,] base, new, change), as the screen shows it
    ch = g[n_amounts - 1]
    if (g[n_amounts + 2] == "grew" and not ch.startswith("+")) or \
       (g[n_amounts + 2] == "shrank" and not ch.startswith("-")):
        bad.append("screen row %d %s: %s beside a change of %s"
                   % (len(got), g[-1], g[n_amounts + 2], ch))
if len(got) < 4:
    bad.append("%d rows on the screen" % len(got))


def name_ok(s, full):
    s = re.sub(r"^(…|~)", "", s)
    s = re.sub(r"^\.?([a-z]\.)+", "", s)  # packages cut to initials
    return len(s) > 0 and full.endswith(s)


for i, (nb, nn, v, name) in enumerate(got):
    if i >= len(rows):
        bad.append("screen row %d is not in the CSV" % (i + 1))
        break
    r = rows[i]
    want = (int(r["base_samples"]), int(r["new_samples"]), r["change"])
    if (nb, nn, v) != want:
        bad.append("row %d %s: screen %s, heapsift diff %s" % (i + 1, r[key], (nb, nn, v), want))
    if not name_ok(name, r[key]):
        bad.append("row %d: screen name %s is not %s" % (i + 1, name, r[key]))

# what is flagged: the changed site (and its callers), nothing else
method = lambda k: k.split(":")[0]
flagged = [rows[i] for i, g in enumerate(got) if g[2]]
n_flagged_csv = sum(1 for r in rows if r["change"])
if len(flagged) != n_flagged_csv:
    bad.append("%d rows flagged on the screen, heapsift diff flags %d" % (len(flagged), n_flagged_csv))
if any(g[2] != "grew" for g in got if g[2]):
    bad.append("a row flagged other than grew")
names = [method(r[key]) for r in flagged]
if view == "tree":
    want = ["all", "DiffWorkload.main", "DiffWorkload.site", changed]
elif view == "inverted":
    want = ["all", changed, "DiffWorkload.site", "DiffWorkload.main"]
else:
    want = [changed]
if names != want:
    bad.append("flagged %s, expected %s" % (names, want))
if view != "survivors":
    depths = [int(r["depth"]) for r in flagged]
    if depths != list(range(len(depths))):
        bad.append("the flagged rows are not one path from the root: depths %s" % depths)
seen = {method(r[key]) for r in rows[:len(got)]}
for s in kept:
    if s not in seen:
        bad.append("unchanged site %s not on the screen" % s)
if bad:
    sys.exit("\n".join(bad))
