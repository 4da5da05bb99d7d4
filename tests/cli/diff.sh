#!/bin/sh
# heapsift diff (issue 14) against the ground truth of real recordings:
# tests/diff/DiffWorkload.java allocates at four sites at rates given on
# its command line, paced against the clock, and prints the bytes each
# site allocated; heapsift's agent samples it (its samples are unbiased
# and, per site, Poisson in the bytes allocated, which is what the test
# assumes).  Four recordings: a base, the same rates again, beta's rate
# doubled, and a site (delta) added.  The diff must flag exactly the
# changed site, never an unchanged one, and nothing between two runs of
# the same rates or a recording and itself.  The p-values are recomputed
# here from the sample counts with exact rationals (docs/diff.md's
# definition), not taken from heapsift.
#
# The window 1s..4s of each 4.5 s recording leaves out the JVM's start
# and end, when the sites allocate nothing.  The tests ask for
# --alpha=0.001 so that an unchanged site is flagged by chance less than
# once in a thousand runs (at the default 0.01 a suite of a dozen such
# checks would fail about one run in ten); the changed sites' p-values
# are below 1e-20.
#
# Code heaps: two fixtures' facts against fixtures/codeheap/README.md.
. "$(dirname "$0")/lib.sh"
W="$T/work"
SRC="$(cd "$(dirname "$0")/../diff" && pwd)"
export XDG_CACHE_HOME="$W/cache"
SECS=4.5
WIN="--from 1s --to 4s"

agent=${HS_AGENT:-$("$HEAPSIFT" agent-path 2>/dev/null)} || agent=

# check PY ARGS...: run the Python checker on stdin; its message on failure
check() {
	python3 - "$@" >"$W/check.out" 2>&1 ||
		t_fail "$(cat "$W/check.out")"
}

# csv: the last run's stdout without CR, into $W/$1.csv
csv() { printf '%s\n' "$out" | tr -d '\r' >"$W/$1.csv"; }

t_begin diff_codeheap_used_and_free_against_the_readme
# jdk17-noseg-analytics-default (base) and jdk17-noseg-exit-stdout (new):
# the README's table row of each gives used and free blocks with their
# KiB; parsed here, not copied.
run import -o "$W/ch-base.hsdb" "$HS_FIXTURES/codeheap/jdk17-noseg-analytics-default.txt.gz"
[ "$rc" = 0 ] || t_fail "import base: $rc $err"
run import -o "$W/ch-new.hsdb" "$HS_FIXTURES/codeheap/jdk17-noseg-exit-stdout.txt.gz"
[ "$rc" = 0 ] || t_fail "import new: $rc $err"
run diff --codeheap --csv "$W/ch-base.hsdb" "$W/ch-new.hsdb"
expect_rc 0
csv ch
check "$HS_FIXTURES/codeheap/README.md" "$W/ch.csv" <<'PY'
import csv, re, sys
readme = open(sys.argv[1]).read()
def facts(name):
    sec = readme.split("#### `%s`" % name, 1)[1].split("\n####", 1)[0]
    row = [l for l in sec.splitlines() if l.startswith("| `CodeHeap`")][0]
    cols = [c.strip() for c in row.strip("|").split("|")]
    used = re.match(r"(\d+) \((\d+)k\)", cols[5]).groups()
    free = re.match(r"(\d+) \((\d+)k\)", cols[6]).groups()
    largest = int(re.search(r"= (\d+) bytes", cols[12]).group(1))
    return {"used_blocks": int(used[0]), "used": int(used[1]) * 1024,
            "free_blocks": int(free[0]), "free": int(free[1]) * 1024,
            "largest_free": largest}
a = facts("jdk17-noseg-analytics-default.txt")
b = facts("jdk17-noseg-exit-stdout.txt")
rows = {(r["heap"], r["fact"]): r for r in csv.DictReader(open(sys.argv[2]))}
bad = []
for f in a:
    r = rows.get(("CodeHeap", f))
    if r is None:
        bad.append("no row for %s" % f); continue
    got = (float(r["base"]), float(r["new"]), float(r["delta"]))
    want = (a[f], b[f], b[f] - a[f])
    if got != want:
        bad.append("%s: got %s, README says %s" % (f, got, want))
if not any(k[1].startswith("blocks: ") for k in rows):
    bad.append("no blocks-by-type rows")
if bad:
    sys.exit("\n".join(bad))
PY
# one store holding both: first snapshot against the last
run import -o "$W/ch-both.hsdb" "$HS_FIXTURES/codeheap/jdk17-noseg-analytics-default.txt.gz" \
	"$HS_FIXTURES/codeheap/jdk17-noseg-exit-stdout.txt.gz"
run diff --codeheap --csv "$W/ch-both.hsdb"
expect_rc 0
printf '%s\n' "$out" | tr -d '\r' | grep -qx 'CodeHeap,used,8503296,8538112,34816' ||
	t_fail "one store, two snapshots: $out"
# a heap against itself: every change 0
run diff --codeheap --csv "$W/ch-base.hsdb" "$W/ch-base.hsdb"
printf '%s\n' "$out" | tr -d '\r' | sed 1d | awk -F, '$NF != "0" && $NF != "" { bad = 1 } END { exit bad }' ||
	t_fail "itself: a change that is not 0: $out"
t_end

t_begin diff_usage_errors
run diff "$W/ch-base.hsdb"
expect_rc 2
expect_err "--base-recording"
run diff "$W/ch-base.hsdb" "$W/ch-new.hsdb" --alpha 2
expect_rc 2
run diff "$W/ch-base.hsdb" "$W/ch-new.hsdb" --codeheap --snapshot 5
expect_rc 2
expect_err "--snapshot 5"
run diff a b c
expect_rc 2
t_end

t_begin diff_fixture_views_against_themselves
# a JFR fixture against itself, in every view: no row changes, and each
# row's two sides are the same
run import -o "$W/jfr.hsdb" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
for v in "--by site" "--by thread" --tree --inverted "--survivors --kind old"; do
	run diff "$W/jfr.hsdb" "$W/jfr.hsdb" $v --csv
	expect_rc 0
	n=$(printf '%s\n' "$out" | tr -d '\r' | sed 1d | grep -c .)
	[ "$n" -gt 0 ] || t_fail "$v: no rows"
	# the change column by its name (the standard errors follow it)
	printf '%s\n' "$out" | tr -d '\r' | grep -v '^[0-9]*,\?"' |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "change") c = i; next }
			$c != "" { bad = 1 } END { exit bad || !c }' ||
		t_fail "$v: a row changed: $out"
done
# old objects have no sizes before JDK 21: the survivors are counted;
# 78: `jfr print --events jdk.OldObjectSample` shows 78 samples whose top
# frame is HeapWorkload.hugeArray line 108 (all alive at the end)
run diff "$W/jfr.hsdb" "$W/jfr.hsdb" --survivors --kind old --csv
printf '%s\n' "$out" | head -n 1 | grep -q 'base_live_samples' || t_fail "survivors header: $out"
printf '%s\n' "$out" | tr -d '\r' | grep -q '^HeapWorkload.hugeArray:108,78,78,78,78,0,' ||
	t_fail "hugeArray: $out"
t_end

# The cases below need a JDK and the agent; without them each is
# skipped, visibly (the code-heap cases above still run).
nojdk=
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	nojdk="no JDK (java, javac) on PATH"
elif [ -z "$agent" ] || [ ! -f "$agent" ]; then
	nojdk="no agent library (heapsift agent-path finds none)"
fi
need_jdk() {
	[ -z "$nojdk" ] && return 0
	t_skip "$nojdk"
	return 1
}

t_begin diff_workload_records_four_runs
if need_jdk; then
mkdir -p "$W/classes"
javac -d "$W/classes" "$SRC/DiffWorkload.java" || t_fail "javac failed"
for r in "base alpha=2000 beta=2000 gamma=1000" \
	"again alpha=2000 beta=2000 gamma=1000" \
	"double alpha=2000 beta=4000 gamma=1000" \
	"added alpha=2000 beta=2000 gamma=1000 delta=1500"; do
	set -- $r
	name=$1
	shift
	java -Xmx256m "-agentpath:$agent=file=$W/$name.hsa,interval=16k,quiet" \
		-cp "$W/classes" DiffWorkload $SECS "$@" >"$W/$name.json" 2>"$W/$name.err" ||
		t_fail "$name: the workload failed: $(tail -n 3 "$W/$name.err")"
	run import -o "$W/$name.hsdb" "$W/$name.hsa"
	[ "$rc" = 0 ] || t_fail "import $name: $rc $err"
done
t_end
fi

# flagged CSV SITE...: exactly these sites (prefix before ":") changed,
# each in the direction given as SITE=grew|shrank; and the p-values and
# q-values are the exact binomial's and Benjamini-Hochberg's of the
# sample counts with p0 = 1/2 (both windows are 3 s long).
flagged() {
	f=$1
	shift
	check "$W/$f.csv" "$@" <<'PY'
import csv, sys
from fractions import Fraction as F
from math import comb
rows = list(csv.DictReader(open(sys.argv[1])))
want = dict(a.split("=") for a in sys.argv[2:])
key = [k for k in rows[0] if k not in ("depth",)][0] if rows else "site"
bad = []
got = {r[key].split(":")[0]: r["change"] for r in rows if r["change"]}
if got != want:
    bad.append("changed rows %s, expected %s" % (got, want))
def pval(k, n, p=F(1, 2)):
    pmf = [comb(n, i) * p**i * (1-p)**(n-i) for i in range(n+1)]
    lim = pmf[k] * (1 + F(1, 10**7))
    return float(sum(x for x in pmf if x <= lim))
ps = []
for r in rows:
    a, b = int(r["base_samples"]), int(r["new_samples"])
    ps.append(pval(a, a + b) if a + b else None)
m = sum(p is not None for p in ps)
order = sorted((p, i) for i, p in enumerate(ps) if p is not None)
q = [None] * len(ps)
run = 1.0
for rank in range(len(order), 0, -1):
    p, i = order[rank - 1]
    run = min(run, p * m / rank)
    q[i] = run
for r in rows:
    # the change column is new minus base, and a verdict has its sign
    cols = [c for c in r if c.startswith(("base_est", "new_est", "delta_est",
                                          "base_live", "new_live", "delta_live"))]
    b, n, d = (float(r[c]) for c in cols[:3])
    # each printed to 6 significant digits (%.6g): off by up to 5e-6 of itself
    if abs(d - (n - b)) > 5e-6 * (abs(n) + abs(b) + abs(d)) + 1.5:
        bad.append("%s: delta %g, but new - base is %g" % (r[key], d, n - b))
    if r["change"] and (d > 0) != (r["change"] == "grew"):
        bad.append("%s: %s beside a change of %g" % (r[key], r["change"], d))
for r, p, qq in zip(rows, ps, q):
    gp, gq = float(r["p_value"]), float(r["q_value"])
    if abs(gp - p) > 1e-6 * max(p, 1e-300) or abs(gq - qq) > 1e-6 * max(qq, 1e-300):
        bad.append("%s: p %g q %g, exact %g %g" % (r[key], gp, gq, p, qq))
    if (qq < 0.001) != bool(r["change"]):
        bad.append("%s: q %g but change '%s'" % (r[key], qq, r["change"]))
if bad:
    sys.exit("\n".join(bad))
PY
}

t_begin diff_doubled_site_flagged_alone
if need_jdk; then
run diff "$W/base.hsdb" "$W/double.hsdb" --by site --csv --alpha 0.001 $WIN
expect_rc 0
csv double
flagged double DiffWorkload.beta=grew
# the rates against what the workload allocated: within 5 standard
# errors of the sampling estimate (1/sqrt(samples) relative)
check "$W/double.csv" "$W/base.json" "$W/double.json" <<'PY'
import csv, json, math, sys
rows = {r["site"].split(":")[0]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = []
for side, f in (("base", sys.argv[2]), ("new", sys.argv[3])):
    t = json.load(open(f))
    for site, v in t["sites"].items():
        rate = v["bytes"] / t["seconds"]
        if rate == 0:
            continue
        r = rows.get(site)
        if r is None:
            bad.append("%s: no row" % site); continue
        n = int(r[side + "_samples"])
        got = float(r[side + "_est_bytes_per_s"])
        if n == 0 or abs(got - rate) > 5 * rate / math.sqrt(n):
            bad.append("%s %s: %.0f B/s estimated, %.0f allocated, %d samples"
                       % (side, site, got, rate, n))
if bad:
    sys.exit("\n".join(bad))
PY
# the text view says what is compared and how
run diff "$W/base.hsdb" "$W/double.hsdb" --by site --alpha 0.001 $WIN
expect_rc 0
printf '%s\n' "$out" | grep -q "per second of recording" || t_fail "no normalization in the header: $out"
printf '%s\n' "$out" | grep -q "Benjamini-Hochberg at 0.001" || t_fail "no test in the header: $out"
printf '%s\n' "$out" | grep -q "^base: .*: 3.000 s" || t_fail "base window not 3 s: $out"
printf '%s\n' "$out" | grep -E 'grew +DiffWorkload\.beta:' >/dev/null || t_fail "beta not marked grew: $out"
# its change column: new minus base, a rise with its "+" (the CSV's
# base and new columns, as the workload's truth checked them above)
# (columns BASE NEW CHANGE, each a number and its unit)
printf '%s\n' "$out" | grep -E '^ *[0-9.]+ [^ ]+ +[0-9.]+ [^ ]+ +\+[0-9.]+ [^ ]+ .*grew +DiffWorkload\.beta:' >/dev/null ||
	t_fail "beta's change is not a rise: $out"
t_end
fi

t_begin diff_added_site_flagged_alone
if need_jdk; then
run diff "$W/base.hsdb" "$W/added.hsdb" --by site --csv --alpha 0.001 $WIN
expect_rc 0
csv added
flagged added DiffWorkload.delta=grew
grep '^DiffWorkload.delta:' "$W/added.csv" | awk -F, '$2 != 0 || $4 != 0 || $7 != "inf" { exit 1 }' ||
	t_fail "delta should have no base: $(grep delta "$W/added.csv")"
t_end
fi

t_begin diff_same_rates_nothing_flagged
if need_jdk; then
run diff "$W/base.hsdb" "$W/again.hsdb" --by site --csv --alpha 0.001 $WIN
expect_rc 0
csv again
flagged again
# two halves of one recording: the same rates
run diff "$W/base.hsdb" --base-from 1s --base-to 2.5s --from 2.5s --to 4s --by site --csv --alpha 0.001
expect_rc 0
csv halves
flagged halves
t_end
fi

t_begin diff_recording_against_itself_no_change
if need_jdk; then
for by in site class thread; do
	for mode in "" --total; do
		run diff "$W/base.hsdb" "$W/base.hsdb" --by $by --csv $mode
		expect_rc 0
		printf '%s\n' "$out" | tr -d '\r' | sed 1d |
			awk -F, '$2 != $3 || ($6 != 0 && $6 != "") || $10 != "" || ($8 != 1 && $8 != "") { bad = 1 } END { exit bad }' ||
			t_fail "$by $mode: a row changed: $out"
	done
done
# the same through --base-recording 0 --recording 0 of one store
run diff "$W/base.hsdb" --base-recording 0 --recording 0 --csv
expect_rc 0
printf '%s\n' "$out" | tr -d '\r' | sed 1d | awk -F, '$6 != 0 || $10 != "" { bad = 1 } END { exit bad }' ||
	t_fail "recording 0 against itself: $out"
t_end
fi

t_begin diff_two_recordings_of_one_store
if need_jdk; then
run import -o "$W/both.hsdb" "$W/base.hsa" "$W/double.hsa"
[ "$rc" = 0 ] || t_fail "import: $rc $err"
run diff "$W/both.hsdb" --base-recording 0 --recording 1 --by site --csv --alpha 0.001 $WIN
expect_rc 0
csv both
flagged both DiffWorkload.beta=grew
t_end
fi

t_begin diff_trees_flag_the_doubled_path
if need_jdk; then
run diff "$W/base.hsdb" "$W/double.hsdb" --tree --csv --alpha 0.001 $WIN
expect_rc 0
csv tree
# the root and every frame from main to beta grew; alpha and gamma's
# frames did not; depth-first order: each row's depth at most one more
# than the row before it
check "$W/tree.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
prev = -1
for r in rows:
    d = int(r["depth"])
    if d > prev + 1:
        bad.append("depth jumps to %d at %s" % (d, r["frame"]))
    prev = d
    f = r["frame"]
    if f.startswith("DiffWorkload.beta:") and r["change"] != "grew":
        bad.append("beta not grew: %s" % r)
    if (f.startswith("DiffWorkload.alpha:") or f.startswith("DiffWorkload.gamma:")) and r["change"]:
        bad.append("%s flagged: %s" % (f, r))
if rows[0]["frame"] != "all" or rows[0]["change"] != "grew":
    bad.append("root: %s" % rows[0])
if bad:
    sys.exit("\n".join(bad))
PY
run diff "$W/base.hsdb" "$W/double.hsdb" --inverted --csv --alpha 0.001 $WIN
expect_rc 0
csv inv
check "$W/inv.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["depth"] == "1"]
got = {r["frame"].split(":")[0]: r["change"] for r in rows if r["change"]}
if got != {"DiffWorkload.beta": "grew"}:
    sys.exit("inverted, depth 1: changed %s" % got)
PY
t_end
fi

t_begin diff_inputs_imported_into_the_cache
if need_jdk; then
run diff "$W/base.hsa" "$W/double.hsa" --by site --csv --alpha 0.001 $WIN
expect_rc 0
csv cached
flagged cached DiffWorkload.beta=grew
ls "$XDG_CACHE_HOME/heapsift/" | grep -q . || t_fail "nothing in the cache"
# standard output holds the diff alone: import's lines went to stderr
head -n 1 "$W/cached.csv" | grep -q '^site,base_samples' || t_fail "stdout: $(head -n 2 "$W/cached.csv")"
t_end
fi

t_begin diff_kinds_must_match
if need_jdk; then
run import -o "$W/jfr.hsdb" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
run diff "$W/jfr.hsdb" "$W/base.hsdb"
expect_rc 2
expect_err "--kind"
t_end
fi

t_summary
