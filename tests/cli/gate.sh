#!/bin/sh
# heapsift diff's allocation gate (issue 41): --fail-if, --fail-scope,
# --fail-match, --format=junit|markdown and --summary.
#
# The truth is tests/diff/GateWorkload.java's: a fixed amount of work
# from three sites drawn at random one array at a time from a fixed
# seed, so two runs with the same arguments allocate exactly the same
# arrays and differ only in how JFR samples them; it prints each site's
# bytes.  GATE_RUNS (20) runs of the base workload, as many again, and as
# many with beta's weight doubled (and the total raised with it, so alpha
# and gamma allocate what they did: beta's bytes exactly double, by the
# workload's own account): every base-against-again diff must pass the
# gate, every base-against-doubled diff must fail it naming beta and
# nothing else.  The gate is --alpha=0.001 and grew:10%, as docs/diff.md
# advises for a gate that runs on every build: at most one false alarm
# in a thousand builds from sampling alone.
#
# What the gate decided is held to arithmetic on the diff's own columns
# (a row crosses when its verdict is grew and its change is more than
# 10% of its base), JUnit XML to a JUnit reader (Debian's junitparser),
# and the Markdown summary to pandoc, with names full of Markdown's
# characters from tests/report/md_names.py.
. "$(dirname "$0")/lib.sh"
W=$T/work
HERE=$(cd "$(dirname "$0")/.." && pwd)
export XDG_CACHE_HOME="$W/cache"
RUNS=${GATE_RUNS:-20}
JFC=$HS_FIXTURES/truth/alloc-sample.jfc
GATE="--by=site --total --alpha=0.001 --fail-if=grew:10%"
B=$HS_FIXTURES/truth/jdk17-diff-base.jfr.gz

# check ARGS...: the Python checker on stdin; its message on failure
check() {
	python3 - "$@" >"$W/check.out" 2>&1 ||
		t_fail "$(cat "$W/check.out")"
}

# --- usage: no JDK needed -----------------------------------------------------
t_begin gate_usage_errors_say_what_to_give
for bad in "--fail-if=rose" "--fail-if=grew:5x" "--fail-if=grew:5%:6%" \
	"--fail-if=grew:-5%" "--fail-if=grew:10MB/h" "--fail-if=grew:1MB:2MB" \
	"--format=junit" "--fail-scope=rows" "--fail-match=x" "--format=xml" \
	"--fail-if=grew --fail-scope=all" "--csv --format=junit --fail-if=grew" \
	"--codeheap --fail-if=grew" "--summary="; do
	# shellcheck disable=SC2086
	run diff "$B" "$B" $bad
	[ "$rc" = 2 ] || t_fail "$bad: exit status $rc, expected 2 (usage): $err"
	[ -z "$out" ] || t_fail "$bad: wrote to stdout: $out"
	printf '%s\n' "$err" | grep -q '^heapsift diff: ' ||
		t_fail "$bad: no message: $err"
done
# "grew:5" is a bare number: fine on its own; the unit must be the table's
run diff "$B" "$B" --fail-if=grew:10MB
expect_rc 2
expect_err "give a rate (10MB/s) or --total"
run diff "$B" "$B" --total --fail-if=grew:10MB/s
expect_rc 2
expect_err "in bytes (10MB)"
t_end

t_begin gate_a_store_against_itself_passes_and_every_limit_form_parses
for lim in grew grew:5% grew:1MB/s grew:5%:1MB/s changed:0% shrank:1.5kB/s \
	grew:2MiB/s grew:1000; do
	run diff "$B" "$B" --fail-if=$lim
	expect_rc 0
	printf '%s\n' "$out" | grep -q "^gate --fail-if=$lim on each class: passed: none of [1-9][0-9]* checked crossed it" ||
		t_fail "$lim: no gate line: $out"
done
t_end

# --- the workload -----------------------------------------------------------------
nojdk=
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	nojdk="no JDK (java, javac) on PATH"
fi
if [ -n "$nojdk" ]; then
	for t_name in gate_workload_records gate_same_work_passes_every_time \
		gate_doubled_site_fails_naming_it_every_time \
		gate_marks_follow_the_arithmetic gate_total_scope \
		gate_fail_match_picks_rows gate_junit_read_by_a_junit_reader \
		gate_outranks_an_inputs_warning gate_summary_appends; do
		t_skip "$nojdk"
	done
fi

t_begin gate_workload_records
if [ -z "$nojdk" ]; then
	mkdir -p "$W/classes"
	javac -d "$W/classes" "$HERE/diff/GateWorkload.java" 2>"$W/javac.err" ||
		t_fail "javac: $(cat "$W/javac.err")"
	# NAME MB SECONDS WEIGHTS...: one run, recorded by JFR with
	# throttled allocation samples (2000/s) and fixed TLABs of 256 KiB,
	# so that the throttle does not bind (about 600 TLABs a second):
	# each sample weighs about a TLAB, and 2 s of work give about 1,100
	# samples; imported into NAME.hsdb
	one() {
		_n=$1
		shift
		java -Xmx256m -XX:TLABSize=256k -XX:-ResizeTLAB \
			"-XX:StartFlightRecording=filename=$W/$_n.jfr,settings=$JFC" \
			-Xlog:jfr+startup=warning -cp "$W/classes" GateWorkload "$@" \
			>"$W/$_n.out" 2>"$W/$_n.err" &&
			tail -n 1 "$W/$_n.out" >"$W/$_n.json" &&
			"$HEAPSIFT" import -o "$W/$_n.hsdb" "$W/$_n.jfr" >/dev/null 2>>"$W/$_n.err" ||
			echo "$_n: $(tail -n 3 "$W/$_n.err")" >>"$W/failed"
	}
	i=1
	while [ $i -le "$RUNS" ]; do
		one base$i 300 2 alpha=2 beta=2 gamma=1 &
		one again$i 300 2 alpha=2 beta=2 gamma=1
		wait
		one double$i 420 2 alpha=2 beta=4 gamma=1
		i=$((i + 1))
	done
	[ -s "$W/failed" ] && t_fail "runs failed: $(cat "$W/failed")"
	# the workload's own account: same arrays in every base and again
	# run; doubled: beta twice the base's, alpha and gamma within one
	# array's bytes (2320) of it
	check "$W" "$RUNS" <<'PY'
import json, sys
w, runs = sys.argv[1], int(sys.argv[2])
b = json.load(open(w + "/base1.json"))["sites"]
bad = []
for i in range(1, runs + 1):
    for k in ("base", "again"):
        if json.load(open("%s/%s%d.json" % (w, k, i)))["sites"] != b:
            bad.append("%s%d allocated other arrays than base1" % (k, i))
    d = json.load(open("%s/double%d.json" % (w, i)))["sites"]
    for s in ("alpha", "gamma"):
        x, y = b["GateWorkload." + s]["bytes"], d["GateWorkload." + s]["bytes"]
        if abs(x - y) > 0.01 * x:
            bad.append("double%d: %s %d, base %d" % (i, s, y, x))
    x, y = b["GateWorkload.beta"]["bytes"], d["GateWorkload.beta"]["bytes"]
    if abs(y - 2 * x) > 0.01 * x:
        bad.append("double%d: beta %d, not twice %d" % (i, y, x))
if bad:
    sys.exit("\n".join(bad))
PY
	t_end
fi

# gate A B NAME: the gate's diff of A.hsdb against B.hsdb as CSV into
# $W/NAME.csv (and its status into $W/NAME.rc), then as text
gate() {
	# shellcheck disable=SC2086
	run diff "$W/$1.hsdb" "$W/$2.hsdb" $GATE --csv
	printf '%s\n' "$out" | tr -d '\r' >"$W/$3.csv"
	echo "$rc" >"$W/$3.rc"
	printf '%s\n' "$err" >"$W/$3.err"
}

if [ -z "$nojdk" ]; then
	t_begin gate_same_work_passes_every_time
	i=1
	while [ $i -le "$RUNS" ]; do
		gate base$i again$i same$i
		[ "$(cat "$W/same$i.rc")" = 0 ] ||
			t_fail "run $i: exit status $(cat "$W/same$i.rc"), expected 0: $(cat "$W/same$i.err")"
		i=$((i + 1))
	done
	t_end

	t_begin gate_doubled_site_fails_naming_it_every_time
	i=1
	while [ $i -le "$RUNS" ]; do
		gate base$i double$i double$i
		[ "$(cat "$W/double$i.rc")" = 4 ] ||
			t_fail "run $i: exit status $(cat "$W/double$i.rc"), expected 4"
		# the CSV's gate column names beta alone; stderr says it too
		crossed=$(awk -F, 'NR > 1 && $NF == "crossed" { print $1 }' "$W/double$i.csv")
		case $crossed in
		*'
'*) t_fail "run $i: crossed: '$crossed', expected beta alone" ;;
		GateWorkload.beta:[0-9]*) ;;
		*) t_fail "run $i: crossed: '$crossed', expected beta alone" ;;
		esac
		grep -q '^heapsift diff: --fail-if=grew:10%: site GateWorkload.beta:[0-9]*: grew +' "$W/double$i.err" ||
			t_fail "run $i: stderr does not name beta: $(cat "$W/double$i.err")"
		i=$((i + 1))
	done
	t_end

	t_begin gate_marks_follow_the_arithmetic
	# every checked row: crossed exactly when its change is grew and more
	# than 10% of its base (a row the base lacks: any growth)
	check "$W" "$RUNS" <<'PY'
import csv, sys
w, runs = sys.argv[1], int(sys.argv[2])
bad, n = [], 0
for i in range(1, runs + 1):
    for k in ("same", "double"):
        for r in csv.DictReader(open("%s/%s%d.csv" % (w, k, i))):
            n += 1
            b, d = float(r["base_est_bytes"]), float(r["delta_est_bytes"])
            want = r["change"] == "grew" and (b == 0 or d > 0.10 * b)
            if r["gate"] != ("crossed" if want else "passed"):
                bad.append("%s%d %s: gate %s, change %s, base %g, delta %g"
                           % (k, i, r["site"], r["gate"], r["change"], b, d))
if not n:
    bad.append("no rows")
if bad:
    sys.exit("\n".join(bad[:20]))
PY
	# the margins, for the log: how far the doubled site is below the
	# gate's alpha, and how far the unchanged rows past 10% are above it
	python3 - "$W" "$RUNS" >&2 <<'PY' || true
import csv, sys
w, runs = sys.argv[1], int(sys.argv[2])
hi, lo = 0.0, 1.0
for i in range(1, runs + 1):
    for r in csv.DictReader(open("%s/double%d.csv" % (w, i))):
        if r["site"].startswith("GateWorkload.beta:"):
            hi = max(hi, float(r["q_value"]))
    for r in csv.DictReader(open("%s/same%d.csv" % (w, i))):
        b, d = float(r["base_est_bytes"]), float(r["delta_est_bytes"])
        if r["q_value"] and (b == 0 or abs(d) > 0.10 * b):
            lo = min(lo, float(r["q_value"]))
print("  margins over %d runs: beta's largest q when doubled %.3g; the "
      "smallest q of a row past 10%% in the same work %.3g (the gate: 0.001)"
      % (runs, hi, lo))
PY
	t_end

	t_begin gate_total_scope
	# the total of the doubled run grew by 40% of the work (120 of 300
	# MB): past 20%; the same work passes.  The total row is the sum of
	# the rows (arithmetic on the CSV), and the text shows it.
	run diff "$W/base1.hsdb" "$W/double1.hsdb" --total --alpha=0.001 \
		--fail-if=grew:20% --fail-scope=total
	expect_rc 4
	printf '%s\n' "$out" | grep -q '^  total: grew +' || t_fail "no total line: $out"
	run diff "$W/base1.hsdb" "$W/double1.hsdb" --total --alpha=0.001 \
		--fail-if=grew:60% --fail-scope=total
	expect_rc 0
	run diff "$W/base1.hsdb" "$W/again1.hsdb" --total --alpha=0.001 \
		--fail-if=grew:1% --fail-scope=total
	expect_rc 0
	# the total's test by hand: the z-test of the rates, each side's
	# standard error the root of the sum of the rows' squares (the CSV's
	# se columns, per second: the values the test takes), against the
	# summary's q
	run diff "$W/base1.hsdb" "$W/again1.hsdb" --by=site --alpha=0.001 \
		--fail-if=grew:1% --fail-scope=total --format=markdown
	printf '%s\n' "$out" >"$W/same-total.md"
	run diff "$W/base1.hsdb" "$W/again1.hsdb" --by=site --csv
	printf '%s\n' "$out" | tr -d '\r' >"$W/same-total.csv"
	check "$W/same-total.md" "$W/same-total.csv" <<'PY'
import csv, math, re, sys
md = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
x = [sum(float(r[k + "_est_bytes_per_s"]) for r in rows) for k in ("base", "new")]
s = [math.sqrt(sum(float(r[k + "_se_per_s"] or 0) ** 2 for r in rows))
     for k in ("base", "new")]
p = math.erfc(abs(x[1] - x[0]) / math.hypot(*s) / math.sqrt(2))
m = re.search(r"^\| total \|.*\| ([0-9.e+-]+) \| [a-z]* \|$", md, re.M)
if not m:
    sys.exit("no total row in:\n" + md)
q = float(m.group(1))
if abs(q - p) > 6e-5 + 1e-3 * p:
    sys.exit("the total's q %s, by hand %.6f (rates %s, se %s)" % (m.group(1), p, x, s))
PY
	run diff "$W/base1.hsdb" "$W/double1.hsdb" --total --alpha=0.001 \
		--fail-if=grew:20% --fail-scope=total --format=markdown
	printf '%s\n' "$out" >"$W/total.md"
	run diff "$W/base1.hsdb" "$W/double1.hsdb" --total --csv
	printf '%s\n' "$out" | tr -d '\r' >"$W/total.csv"
	check "$W/total.md" "$W/total.csv" <<'PY'
import csv, re, sys
md = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
m = re.search(r"^\| total \| ([0-9.]+) (\w+) \| ([0-9.]+) (\w+) \|", md, re.M)
if not m:
    sys.exit("no total row in:\n" + md)
for side, (v, u) in (("base", m.group(1, 2)), ("new", m.group(3, 4))):
    want = sum(float(r[side + "_est_bytes"]) for r in rows)
    got = float(v) * units[u]
    # printed to 3 significant digits past the unit
    if abs(got - want) > 0.006 * want:
        sys.exit("%s total %g, the rows sum to %g" % (side, got, want))
PY
	t_end

	t_begin gate_fail_match_picks_rows
	# shellcheck disable=SC2086
	run diff "$W/base1.hsdb" "$W/double1.hsdb" $GATE --fail-match='alpha|gamma'
	expect_rc 0
	printf '%s\n' "$out" | grep -q "on each site matching --fail-match: passed: none of 2 checked" ||
		t_fail "alpha and gamma should be the 2 checked: $out"
	# shellcheck disable=SC2086
	run diff "$W/base1.hsdb" "$W/double1.hsdb" $GATE --fail-match='\.beta:'
	expect_rc 4
	# shellcheck disable=SC2086
	run diff "$W/base1.hsdb" "$W/double1.hsdb" $GATE --fail-match='('
	expect_rc 2
	expect_err "not a valid regex"
	t_end

	t_begin gate_junit_read_by_a_junit_reader
	JPY=
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import junitparser' 2>/dev/null && JPY=$py && break
	done
	if [ -z "$JPY" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends python3-junitparser >/dev/null 2>&1
		/usr/bin/python3 -c 'import junitparser' 2>/dev/null && JPY=/usr/bin/python3
	fi
	if [ -z "$JPY" ]; then
		t_skip "no junitparser (apt-get install python3-junitparser)"
	else
		for k in same double; do
			n=double1
			[ $k = same ] && n=again1
			# shellcheck disable=SC2086
			run diff "$W/base1.hsdb" "$W/$n.hsdb" $GATE --format=junit
			printf '%s\n' "$out" >"$W/$k.xml"
			echo "$rc" >"$W/$k.xml.rc"
		done
		"$JPY" - "$W" >"$W/check.out" 2>&1 <<'PY' || t_fail "$(cat "$W/check.out")"
import csv, sys
from junitparser import JUnitXml, Failure
w = sys.argv[1]
bad = []
for k, want_rc in (("same", "0"), ("double", "4")):
    rc = open("%s/%s.xml.rc" % (w, k)).read().strip()
    if rc != want_rc:
        bad.append("%s: exit status %s, expected %s" % (k, rc, want_rc))
    xml = JUnitXml.fromfile("%s/%s.xml" % (w, k))
    rows = list(csv.DictReader(open("%s/%s1.csv" % (w, k))))
    suites = list(xml)
    if len(suites) != 1:
        bad.append("%s: %d suites" % (k, len(suites)))
        continue
    s = suites[0]
    cases = list(s)
    names = sorted(c.name for c in cases)
    if names != sorted(r["site"] for r in rows):
        bad.append("%s: cases %s, rows %s" % (k, names, [r["site"] for r in rows]))
    failed = sorted(c.name for c in cases
                    if any(isinstance(x, Failure) for x in c.result))
    crossed = sorted(r["site"] for r in rows if r["gate"] == "crossed")
    if failed != crossed:
        bad.append("%s: failures %s, crossed %s" % (k, failed, crossed))
    if s.tests != len(cases) or s.failures != len(failed) or s.errors:
        bad.append("%s: suite counts %s/%s/%s for %d cases, %d failed"
                   % (k, s.tests, s.failures, s.errors, len(cases), len(failed)))
    if k == "double" and not (len(failed) == 1 and failed[0].startswith("GateWorkload.beta:")):
        bad.append("double: failures %s, expected beta" % failed)
if bad:
    sys.exit("\n".join(bad))
PY
		t_end
	fi

	t_begin gate_outranks_an_inputs_warning
	# a recording cut short: its import skips the damage (status 3); the
	# gate's failure is what the build must see (4)
	sz=$(size "$W/double1.jfr")
	head -c $((sz - 20)) "$W/double1.jfr" >"$W/cut.jfr"
	# (its last 20 bytes: the end of the chunk's last constant pool, so
	# every event is kept but not every name; the total, which the
	# weights give, grew by 40%)
	run diff "$W/base1.hsdb" "$W/cut.jfr" --total --alpha=0.001 \
		--fail-if=grew:20% --fail-scope=total
	expect_rc 4
	expect_err "heapsift diff: --fail-if=grew:20%: total: grew +"
	run diff "$W/base1.hsdb" "$W/cut.jfr" --total
	[ "$rc" = 3 ] || t_fail "without the gate: exit status $rc, expected 3 (the cut recording warns)"
	t_end

	t_begin gate_summary_appends
	echo "before" >"$W/summary.md"
	# shellcheck disable=SC2086
	run diff "$W/base1.hsdb" "$W/double1.hsdb" $GATE --summary="$W/summary.md"
	expect_rc 4
	printf '%s\n' "$out" | grep -q '^gate --fail-if=grew:10% on each site: FAILED' ||
		t_fail "stdout is not the text: $out"
	# shellcheck disable=SC2086
	run diff "$W/base1.hsdb" "$W/again1.hsdb" $GATE --summary="$W/summary.md"
	expect_rc 0
	[ "$(head -n 1 "$W/summary.md")" = before ] || t_fail "the file's start was lost"
	[ "$(grep -c '^### heapsift diff: the allocation gate' "$W/summary.md")" = 2 ] ||
		t_fail "not two summaries: $(cat "$W/summary.md")"
	grep -q '^### heapsift diff: the allocation gate FAILED' "$W/summary.md" &&
		grep -q '^### heapsift diff: the allocation gate passed' "$W/summary.md" ||
		t_fail "the verdicts: $(cat "$W/summary.md")"
	run diff "$W/base1.hsdb" "$W/again1.hsdb" $GATE --summary="$W/no/such/dir/s.md"
	expect_rc 1
	expect_err "cannot write"
	t_end
fi

# --- the Markdown summary, read by pandoc ----------------------------------------
# Two stores of md_names.py's recordings, one thread and class each: the
# base holds names 0-5, the new side 3-8, so the summary's "Removed" table
# lists the threads 0-2 and its "New" table 6-8, each as written.
t_begin gate_markdown_names_render_as_written
if ! have_pandoc; then
	t_skip "$NOPANDOC"
else
	python3 - "$HERE" "$W" >"$W/mk.out" 2>&1 <<'PY' || t_fail "$(cat "$W/mk.out")"
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "report"))
import md_names
w = sys.argv[2]
for i, (member, cls, thread) in enumerate(md_names.NAMES):
    md_names.jfr(os.path.join(w, "n%02d.jfr" % i), cls, thread)
json.dump([[t, md_names.shown(t)] for _, _, t in md_names.NAMES],
          open(os.path.join(w, "names.json"), "w"))
PY
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$W/names.json")
	base= new=
	i=0
	while [ $i -lt "$n" ]; do
		f=$(printf '%s/n%02d.jfr' "$W" $i)
		[ $i -le 5 ] && base="$base $f"
		[ $i -ge 3 ] && new="$new $f"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$HEAPSIFT" import -o "$W/mb.hsdb" $base >/dev/null 2>&1 ||
		t_fail "import base"
	# shellcheck disable=SC2086
	"$HEAPSIFT" import -o "$W/mn.hsdb" $new >/dev/null 2>&1 || t_fail "import new"
	# the names as written (normalisation would make "1. one" "N. one")
	run diff "$W/mb.hsdb" "$W/mn.hsdb" --by=thread --total --format=markdown \
		--no-normalize
	expect_rc 0
	printf '%s\n' "$out" >"$W/m.md"
	for mode in gfm commonmark; do
		pandoc --wrap=none -f $mode -t html "$W/m.md" >"$W/m.$mode.html" 2>"$W/pandoc.err" ||
			t_fail "pandoc: $(cat "$W/pandoc.err")"
	done
	check "$W" <<'PY'
import html.parser, json, re, sys
w = sys.argv[1]
names = json.load(open(w + "/names.json"))
raw = open(w + "/m.md").read()
bad = []
# no backslash a reader would see for nothing
for m in re.finditer(r"[A-Za-z0-9]\\[.!-]", raw):
    bad.append("raw: a backslash in a word: %r" % raw[m.start() - 10:m.end() + 10])

class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.cell, self.row, self.tags = [], None, None, set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1].append(self.row)
    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d

p = Cells()
p.feed(open(w + "/m.gfm.html").read())
first = [[r[0] for r in t[1:]] for t in p.tables]
want_removed = sorted(s for _, s in names[0:3])
want_new = sorted(s for _, s in names[6:])
if len(first) < 2:
    bad.append("gfm: %d tables, expected Removed and New" % len(first))
else:
    if sorted(first[-2]) != want_removed:
        bad.append("Removed: %r, expected %r" % (first[-2], want_removed))
    if sorted(first[-1]) != want_new:
        bad.append("New: %r, expected %r" % (first[-1], want_new))
extra = p.tags - {"h3", "p", "strong", "table", "thead", "tbody", "tr", "th",
                  "td", "code", "colgroup", "col"}
if extra:
    bad.append("gfm: elements a name made: %s" % sorted(extra))
# commonmark has no tables: each name is still in the text, as written
txt = re.sub(r"<[^>]*>", "", open(w + "/m.commonmark.html").read())
import html as h
txt = h.unescape(txt)
for _, s in names[0:3] + names[6:]:
    if s not in txt:
        bad.append("commonmark: %r not in the text" % s)
if bad:
    sys.exit("\n".join(bad))
PY
	# the text shows removed rows as such, not as a ratio of 0
	run diff "$W/mb.hsdb" "$W/mn.hsdb" --by=thread --total
	[ "$(printf '%s\n' "$out" | grep -c ' gone ')" = 3 ] ||
		t_fail "not three rows marked gone: $out"
	t_end
fi

t_summary
