# The truth corpus (fixtures/truth/README.md): each CASE.expect names its
# inputs (fixtures/truth/ recordings and reports of workloads that print
# their own truth) and the findings a correct report must and must not
# give; tests/truth/check_findings.py holds `heapsift report
# --format=json` to them.  Other views' checks on the same recordings
# (survivors, timeline, diff, codeheap) are cases below, each against the
# truth its workload printed.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
C="$HS_FIXTURES/truth"
W="$T/work"
export XDG_CACHE_HOME="$W/cache"

if ! command -v python3 >/dev/null 2>&1; then
	t_skip_all "python3 is needed to check the expectations"
fi

n=0
for e in "$C"/*.expect; do
	[ -e "$e" ] || continue
	n=$((n + 1))
	name=$(basename "$e" .expect)
	t_begin "corpus_report_$name"
	inputs=$(sed -n 's/^input: *//p' "$e")
	args=$(sed -n 's/^args: *//p' "$e")
	if [ -z "$inputs" ]; then
		t_fail "$e names no input"
	else
		set --
		for i in $inputs; do set -- "$@" "$C/$i"; done
		# shellcheck disable=SC2086
		run report --format=json $args "$@"
		[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || t_fail "report exited $rc: $(head -c 400 "$T/err")"
		cp "$T/out" "$W/$name.json"
		python3 "$here/truth/check_findings.py" "$W/$name.json" "$e" 2>"$W/bad" ||
			t_fail "$(cat "$W/bad")"
		# every report's JSON is what docs/report.schema.json says
		if python3 -c 'import jsonschema' 2>/dev/null; then
			python3 "$here/report/check_report.py" schema \
				"$here/../docs/report.schema.json" "$W/$name.json" 2>"$W/bad" ||
				t_fail "schema: $(cat "$W/bad")"
		fi
	fi
	t_end
done

# With objectSize (JDK 25's events carry it, JDK 17's do not): the report's large objects among
# old objects are those the last emission shows, each once, as the JDK's
# jfr counts them (NAME.oos.json: the large-array site's alive_last; the
# workload's other sites allocate objects of 4 KiB at most), and their
# bytes fit in the heap used after the GC before that emission.
for oj in "$C"/oos-*.oos.json; do
	[ -e "$oj" ] || continue
	name=$(basename "$oj" .oos.json)
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["emissions"][-1]["size_sum"] is None)' "$oj" || continue
	t_begin "corpus_large_old_objects_$name"
	python3 - "$W/$name.json" "$oj" "$C/$name.truth.json" <<'EOF' 2>"$W/bad" || t_fail "$(cat "$W/bad")"
import json, sys
rep, oos, truth = (json.load(open(a)) for a in sys.argv[1:4])
last = oos["emissions"][-1]
want = oos["sites"][truth["large_array_site"]]["alive_last"]
f = [f for f in rep["findings"] if f["rule"] == "large-arrays"]
got = f[0]["figures"]["objects"]["value"] if f else 0
b = f[0]["figures"]["bytes"]["value"] if f else 0
bad = []
if got != want:
    bad.append("large objects alive at the end: %s, the JDK's jfr: %s" % (got, want))
if b > last["heap_after_gc_before"]:
    bad.append("%s bytes alive, more than the heap after the GC before the last emission, %s"
               % (b, last["heap_after_gc_before"]))
print("; ".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
	t_end
done

# jdk.OldObjectSample: each oos-* recording's survivors against the JDK's
# jfr (NAME.oos.json) and the workload's truth (NAME.truth.json): every
# object counted once whatever the emissions that show it, alive at the
# end only where the last emission shows it, and the leak ranked first
# (tests/truth/check_oos_survivors.py).
m=0
for tj in "$C"/oos-*.truth.json; do
	[ -e "$tj" ] || continue
	m=$((m + 1))
	name=$(basename "$tj" .truth.json)
	t_begin "corpus_survivors_old_$name"
	run import "$C/$name.jfr.gz" -o "$W/$name.hsdb"
	[ "$rc" -eq 0 ] || t_fail "import exited $rc: $(head -c 400 "$T/err")"
	run survivors "$W/$name.hsdb" --kind=old --limit=0
	cp "$T/out" "$W/$name.table"
	run survivors "$W/$name.hsdb" --kind=old --leaks --csv
	cp "$T/out" "$W/$name.csv"
	python3 "$here/truth/check_oos_survivors.py" "$tj" "$C/$name.oos.json" \
		"$W/$name.table" "$W/$name.csv" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
	# the expectation's leak is the one the workload printed
	lsite=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["leak_site"] or "")' "$tj")
	if [ -n "$lsite" ]; then
		want=$(printf 'first leak-suspect ^%s$' "$lsite" | sed 's/\./\\./g')
		grep -qxF "$want" "$C/$name.expect" ||
			t_fail "$name.expect has no line '$want'"
	fi
	t_end
done

# The exports' in-use part (query_stacks(): pprof's inuse_objects) counts
# each old object once, and only where the last emission shows it, as
# the JDK's jfr does (NAME.oos.json: the sites' alive_last); read back by
# go tool pprof (tests/export/pprof_raw.py), where go is installed.
if command -v go >/dev/null 2>&1; then
	for oj in "$C"/oos-*.oos.json; do
		[ -e "$oj" ] || continue
		name=$(basename "$oj" .oos.json)
		t_begin "corpus_pprof_old_objects_in_use_$name"
		run export "$W/$name.hsdb" --format=pprof --kind=old \
			-o "$W/$name.pb.gz" --force
		[ "$rc" -eq 0 ] || t_fail "export exited $rc: $(head -c 400 "$T/err")"
		HOME="$W" GOCACHE="$W/gocache" GOFLAGS= go tool pprof -raw "$W/$name.pb.gz" \
			2>"$W/pprof.err" | python3 "$here/export/pprof_raw.py" >"$W/$name.sums"
		got=$(awk -F'\t' '$1 == "(total)" && $2 == "inuse_objects" { print $3 }' "$W/$name.sums")
		want=$(python3 -c 'import json,sys; print(sum(s["alive_last"] for s in json.load(open(sys.argv[1]))["sites"].values()))' "$oj")
		[ "$got" = "$want" ] || t_fail "pprof inuse_objects '$got', the JDK's jfr: $want objects at the last emission ($(head -c 300 "$W/pprof.err"))"
		t_end
	done
fi

# A window that ends between two emissions ends at the earlier one: its
# objects are alive at the window's end, each once (old_emissions.h), so
# the ALIVE column adds up to that emission's events (one an object), as
# the JDK's jfr counts them (NAME.oos.json); the window's end is the
# middle of the two emissions' times, as jfr prints them.
t_begin corpus_survivors_old_window_ends_at_an_emission
name=oos-leak-chunks
to=$(python3 -c '
import datetime, json, sys
e = json.load(open(sys.argv[1]))["emissions"]
t = [datetime.datetime.fromisoformat(x["time"][:26].rstrip("Z")) for x in e[1:3]]
print((t[0] + (t[1] - t[0]) / 2).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$C/$name.oos.json")
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["emissions"][1]["events"])' "$C/$name.oos.json")
run survivors "$W/$name.hsdb" --kind=old --limit=0 "--to=$to"
got=$(printf '%s\n' "$out" | awk 'NR > 2 && NF >= 7 { s += $6 } END { print s + 0 }')
[ "$got" = "$want" ] || t_fail "alive at the window's end (--to=$to): $got, the JDK's jfr: $want objects in the second emission: $out"
t_end

t_begin corpus_has_old_object_cases
[ "$m" -gt 0 ] || t_fail "no oos-*.truth.json in $C"
t_end

# fixtures/jfr/jdk17-leak-gcroots.jfr (fixtures/jfr/src/HeapWorkload.java,
# variant leaky): HeapWorkload.leakIntoCache puts entries into a static
# map for the whole run; HeapWorkload.hugeArray makes int[] of 2 to 4 MiB
# and drops each at once.  One emission, with GC roots: the large arrays
# are unreachable there (no root), the leak's objects reachable.
t_begin corpus_survivors_old_leak_gcroots_ranks_the_leak
run import "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr" -o "$W/gcroots.hsdb"
run survivors "$W/gcroots.hsdb" --kind=old --leaks --by=app-site --csv
first=$(awk -F, '$NF == "yes\r" || $NF == "yes" { print $1; exit }' "$T/out")
[ "$first" = "HeapWorkload.leakIntoCache:96" ] ||
	t_fail "first suspect by app-site '$first', want HeapWorkload.leakIntoCache:96: $(cat "$T/out")"
for by in site app-site; do
	run survivors "$W/gcroots.hsdb" --kind=old --leaks --by=$by --csv
	grep -q '^HeapWorkload\.hugeArray:108,.*,yes' "$T/out" &&
		t_fail "by $by, the large arrays dropped at once are a suspect: $(cat "$T/out")"
done
t_end

# --- diff (docs/diff.md) ------------------------------------------------------
# fixtures/truth/make-diff.sh's recordings of src/DiffTruth.java: each
# run's truth is its sites' bytes per second, constant by pacing over its
# 10 s; the window 2s..9s lies inside the workload on both sides (the
# JVM starts it about 0.5 s after the recording starts), so the rates
# compared are the paced ones.  tests/truth/check_diff.py holds each
# verdict to the truth: its sign, the changed sites called, the
# unchanged ones not.
D="$C/jdk17-diff"
diff_check() { # NAME BASE NEW [diff options]: check_diff.py on the CSV
	dn=$1 db=$2 dw=$3
	shift 3
	run diff "$D-$db.jfr.gz" "$D-$dw.jfr.gz" --from 2s --to 9s --csv "$@"
	if [ "$rc" -ne 0 ]; then
		t_fail "diff $db $dw $*: exit $rc: $(head -c 300 "$T/err")"
		return
	fi
	cp "$T/out" "$W/$dn.csv"
	python3 "$here/truth/check_diff.py" "$W/$dn.csv" \
		"$D-$db.truth.json" "$D-$dw.truth.json" 2>"$W/bad" ||
		t_fail "diff $db $dw $*: $(cat "$W/bad")"
}

# nothing changes: two runs of the same rates
t_begin corpus_diff_unchanged
diff_check same base again --by site
diff_check same-tree base again --tree
t_end

# alpha's rate doubles while its share of the samples falls (beta and
# gamma grow sixfold): alpha grew, delta and large did not change, and
# no verdict has the other sign than its change (the issue's "+35.11
# MB/s 4.44x shrank")
t_begin corpus_diff_share_falls
diff_check shift base shift --by site
diff_check shift-tree base shift --tree
diff_check shift-total base shift --by site --total
t_end

# only one side holds OutsideTLAB events (the same rates on both): one
# estimate on both sides, and the header says which; the 2 MiB arrays'
# row (large) is not called changed
t_begin corpus_diff_one_side_outside
diff_check outside outside base --by site
diff_check outside-rev base outside --by site
run diff "$D-outside.jfr.gz" "$D-base.jfr.gz" --by site --from 2s --to 9s
expect_rc 0
grep -q '^estimate: jfr on both sides' "$T/out" ||
	t_fail "the header does not say the one estimate: $(head -5 "$T/out")"
# the same numbers as with the raw weights asked for on both sides
for est in "" --estimate=corrected; do
	# shellcheck disable=SC2086
	run diff "$D-outside.jfr.gz" "$D-base.jfr.gz" --by site --from 2s \
		--to 9s --csv $est
	cp "$T/out" "$W/est-default.csv"
	run diff "$D-outside.jfr.gz" "$D-base.jfr.gz" --by site --from 2s \
		--to 9s --csv --estimate=jfr
	cmp -s "$T/out" "$W/est-default.csv" ||
		t_fail "diff ${est:-(default)} is not the raw weights on both sides"
done
# both sides with OutsideTLAB events: the corrected estimate, said so
run diff "$D-outside.jfr.gz" "$D-outside.jfr.gz" --by site
grep -q '^estimate: corrected on both sides' "$T/out" ||
	t_fail "outside against itself: $(head -5 "$T/out")"
t_end

# the same pair as two recordings of one store (the report's baseline):
# the store holds OutsideTLAB events, its second recording none
t_begin corpus_diff_report_baseline
run report --format=json --base=0 "$D-outside.jfr.gz" "$D-base.jfr.gz"
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || t_fail "report exited $rc: $(head -c 300 "$T/err")"
python3 - "$T/out" <<'PY' 2>"$W/bad" || t_fail "$(cat "$W/bad")"
import json, sys
c = json.load(open(sys.argv[1]))["baseline"]
bad = []
if c.get("error"):
    bad.append("no comparison: %s" % c["error"])
if c.get("estimate") != "jfr":
    bad.append("estimate %r, expected jfr on both sides" % c.get("estimate"))
if "jfr on both sides" not in c.get("sentence", ""):
    bad.append("the sentence does not say the estimate: %s" % c.get("sentence"))
for r in c.get("rows", []):
    if (r["change"] == "grew") != (r["delta"] > 0):
        bad.append("%s: %s beside %s" % (r["site"], r["change"], r["delta"]))
    if r["site"].startswith("DiffTruth.large:"):
        bad.append("the large arrays' row changed; the truth: the same rate")
if bad:
    sys.exit("\n".join(bad))
PY
# --- code heaps (fixtures/truth/codeheap/, make-codeheap.sh): the
# codeheap command's states and sizes against the texts themselves,
# and one finding per JVM (tests/truth/check_codeheap.py says how)
CH=$C/codeheap
CHK="python3 $here/truth/check_codeheap.py"

t_begin corpus_codeheap_codelist_states_by_jdk
for j in jdk25-seg jdk25-noseg jdk17-seg; do
	rm -f "$W/$j.hsdb"
	run import -o "$W/$j.hsdb" "$CH/$j-codelist.txt.gz" "$CH/$j-codecache.txt.gz"
	[ "$rc" -eq 0 ] || t_fail "$j: import exited $rc: $(head -c 300 "$T/err")"
	run codeheap "$W/$j.hsdb"
	cp "$T/out" "$W/$j.codeheap"
	$CHK states "$W/$j.codeheap" "$CH/$j.truth.json" "$CH/$j-codelist.txt.gz" \
		"$CH/$j-analytics.txt.gz" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
done
t_end

t_begin corpus_codeheap_codelist_alone_says_its_numbering_is_unknown
rm -f "$W/alone.hsdb"
run import -o "$W/alone.hsdb" "$CH/jdk25-seg-codelist.txt.gz"
run codeheap "$W/alone.hsdb"
cp "$T/out" "$W/alone.codeheap"
$CHK ambiguous "$W/alone.codeheap" "$CH/jdk25-seg-codelist.txt.gz" 2>"$W/bad" ||
	t_fail "$(cat "$W/bad")"
t_end

t_begin corpus_codeheap_sizes_by_what_they_are
for j in jdk25-seg jdk25-noseg jdk17-seg jdk25-heapfull-seg jdk25-full-noseg; do
	rm -f "$W/$j-sz.hsdb"
	run import -o "$W/$j-sz.hsdb" "$CH/$j-codecache.txt.gz" "$CH/$j-analytics.txt.gz"
	[ "$rc" -eq 0 ] || t_fail "$j: import exited $rc: $(head -c 300 "$T/err")"
	run codeheap "$W/$j-sz.hsdb"
	cp "$T/out" "$W/$j-sz.codeheap"
	run codeheap --csv "$W/$j-sz.hsdb"
	cp "$T/out" "$W/$j-sz.csv"
	$CHK sizes "$W/$j-sz.codeheap" "$W/$j-sz.csv" "$CH/$j-codecache.txt.gz" \
		"$CH/$j-analytics.txt.gz" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
	# the summary's free is of the reserved size, the report's inside
	# the committed part (as above): --compare gives no change of free
	run codeheap --compare 0,1 --csv "$W/$j-sz.hsdb"
	tr -d '\r' <"$T/out" | awk -F, -v j="$j" '
		$(NF - 3) == "free" { n++; if ($NF != "") { print j ": " $0 ": a change of free between a summary and a report"; bad = 1 } }
		END { if (!n) { print j ": no free row"; bad = 1 } exit bad }' >"$W/bad" ||
		t_fail "$(cat "$W/bad")"
done
t_end

t_begin corpus_codeheap_jdk25_no_aggregated_data_is_not_damage
# JDK 21+ print "No aggregated data available for heap ..." for a heap
# with nothing to print (in an "all" report, a heap without free
# blocks): the VM's normal answer
for j in jdk25-seg jdk25-noseg; do
	zcat "$CH/$j-analytics.txt.gz" | grep -q '^No aggregated data available for heap' ||
		t_fail "$j: the case needs the line"
	run report --format=json "$CH/$j-analytics.txt.gz"
	[ "$rc" -eq 0 ] || t_fail "$j: report exited $rc: $(head -c 400 "$T/err")"
	python3 -c '
import json, sys
inv = json.load(open(sys.argv[1]))["inventory"]["members"]
bad = [m for m in inv if m["status"] != "imported"]
sys.exit("; ".join("%s %s %s" % (m["member"], m["status"], m["reason"]) for m in bad) if bad else 0)
' "$T/out" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
done
t_end

t_begin corpus_codeheap_jdk25_summary_keeps_its_compilation_line
# JDK 23+ end a summary with "Compilation: STATE, stopped_count=..."
# after "total_blobs=..., full_count=N": the state is the summary's (as
# the text says, summary by summary), never the next report's
for f in jdk25-full-noseg-stdout jdk25-full-noseg-codecache jdk25-seg-codecache; do
	rm -rf "$W/cs.hsdb" "$W/cs"
	run import -o "$W/cs.hsdb" "$CH/$f.txt.gz"
	run export "$W/cs.hsdb" --format=csv -o "$W/cs"
	python3 - "$CH/$f.txt.gz" "$W/cs" <<'PY' 2>"$W/bad" || t_fail "$f: $(cat "$W/bad")"
import csv, gzip, re, sys
text = gzip.open(sys.argv[1], "rt").read()
want = [m.group(1) == "enabled" for m in re.finditer(r"^Compilation: (enabled|disabled)", text, re.M)]
snaps = list(csv.DictReader(open(sys.argv[2] + "/codeheap_snapshots.csv", newline="")))
stats = list(csv.DictReader(open(sys.argv[2] + "/codeheap_stats.csv", newline="")))
kind = dict((s["id"], s["kind"]) for s in snaps)
got = [(s["snapshot"], s["value"] == "1") for s in stats if s["name"] == "compilation.enabled"]
bad = []
if not want:
    bad.append("the text has no Compilation: line")
if [kind[s] for s, _ in got] != ["summary"] * len(got):
    bad.append("compilation state on snapshots of kinds %s" % [kind[s] for s, _ in got])
if [v for _, v in got] != want:
    bad.append("compilation enabled %s by the summaries, the text says %s" % ([v for _, v in got], want))
sys.exit("; ".join(bad) if bad else 0)
PY
done
t_end

t_begin corpus_codeheap_one_jvm_one_finding
# one JVM's stdout, analytics, Compiler.codecache and codelist
# (fixtures/codeheap/README.md: jdk17-full-seg-*, one run; make-codeheap.sh:
# jdk25-full-noseg-*, one run): one finding each
O=$HS_FIXTURES/codeheap
set -- "$O/jdk17-full-seg-stdout.txt.gz" "$O/jdk17-full-seg-analytics-default.txt.gz" \
	"$O/jdk17-full-seg-jcmd-codecache.txt.gz" "$O/jdk17-full-seg-jcmd-codelist.txt.gz"
run report --format=json "$@"
cp "$T/out" "$W/onejvm17.json"
$CHK onejvm "$W/onejvm17.json" 1 "$@" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
set -- "$CH/jdk25-full-noseg-stdout.txt.gz" "$CH/jdk25-full-noseg-analytics.txt.gz" \
	"$CH/jdk25-full-noseg-codecache.txt.gz" "$CH/jdk25-full-noseg-codelist.txt.gz"
run report --format=json "$@"
cp "$T/out" "$W/onejvm25.json"
$CHK onejvm "$W/onejvm25.json" 1 "$@" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
# three JVMs' full caches (two runs on 17, one on 25): three findings,
# never folded into one
set -- "$O/jdk17-full-seg-stdout.txt.gz" "$O/jdk17-full-seg-jcmd-codecache.txt.gz" \
	"$O/jdk17-full-noseg-stdout.txt.gz" "$O/jdk17-full-noseg-jcmd-codecache.txt.gz" \
	"$CH/jdk25-full-noseg-stdout.txt.gz" "$CH/jdk25-full-noseg-codecache.txt.gz"
run report --format=json "$@"
cp "$T/out" "$W/threejvm.json"
$CHK onejvm "$W/threejvm.json" 3 "$@" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

# Two JVMs in one bundle (jvms-together, jvms-apart; make-jvms.sh), and
# one JVM in two files (jvms-chunks: one rate, not one per file): each
# allocation-rate finding is its own JVM's (by the pid each workload
# printed) and its mean rate within 10% of the rate that JVM printed, no
# mean rate is within 10% of the two JVMs' sum (the rates are 2:1 apart,
# so the sum is 50% above the larger), each hot spot's threads are its
# own JVM's, and each finding's picture lies in its own JVM's time.  The 10%: JFR's weights sum to the bytes each thread
# allocated, and the mean's span is the samples' buckets, a bucket
# (100 ms) or two wider than the workload's 8 s.
for b in jvms-together jvms-apart jvms-chunks; do
	t_begin "jvms_rates_are_each_jvms_own_$b"
	if [ ! -s "$W/$b.json" ]; then
		t_fail "no report of $b (corpus_report_$b)"
	else
		python3 - "$W/$b.json" "$C/$b.truth.json" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
rep = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
bad = []
by_pid = {t["pid"]: t for t in truth}
total = sum(t["rate"] for t in truth)
rates = [f for f in rep["findings"] if f["rule"] == "allocation-rate"]
for t in truth:
    mine = [f for f in rates if (f.get("recording") or {}).get("pid") == t["pid"]]
    if len(mine) != 1:
        bad.append("%s (pid %d): %d allocation-rate findings, want 1"
                   % (t["jvm"], t["pid"], len(mine)))
        continue
    got = mine[0]["figures"]["mean_rate"]["value"]
    if abs(got - t["rate"]) > 0.10 * t["rate"]:
        bad.append("%s: mean rate %.0f B/s, printed %.0f B/s" % (t["jvm"], got, t["rate"]))
for f in rates:
    r = f.get("recording") or {}
    if r.get("pid") not in by_pid:
        bad.append("allocation-rate of no JVM printed: %s" % r)
    got = f["figures"]["mean_rate"]["value"]
    if len(truth) > 1 and abs(got - total) <= 0.10 * total:
        bad.append("a mean rate of %.0f B/s is the JVMs' sum, %.0f" % (got, total))
for f in rep["findings"]:
    if f["rule"] != "allocation-hot-spot":
        continue
    t = by_pid.get((f.get("recording") or {}).get("pid"))
    if not t:
        bad.append("hot spot of no JVM printed: %s" % f["subject"])
        continue
    text = " ".join(f["evidence"])
    if not f["subject"].startswith(t["site"] + ":"):
        bad.append("%s's hot spot is %s, not its site %s" % (t["jvm"], f["subject"], t["site"]))
    if "thread of the top site: %s," % t["thread"] not in text:
        bad.append("%s's hot spot does not name its thread %s" % (t["jvm"], t["thread"]))
    for o in truth:
        if o is not t and (o["thread"] in text or o["site"] in text):
            bad.append("%s's hot spot names %s's %s or %s" % (t["jvm"], o["jvm"], o["thread"], o["site"]))
# a finding's picture (its time window) lies within its own JVM's
# recordings (their start and end as the appendix gives them), give or
# take one bucket at each end; one of two JVMs run one after the other
# must not reach into the other's time
recs = rep["recordings"]
for f in rep["findings"]:
    if f.get("figure") is None:
        continue
    g = rep["figures"][f["figure"]]
    t = g["time_ns"]
    if g["kind"] == "map" or not t:
        continue
    ids = (f.get("recording") or {}).get("ids") or []
    spans = [(recs[i]["start_ns"], recs[i]["end_ns"]) for i in ids
             if recs[i]["start_ns"] is not None and recs[i]["end_ns"] is not None]
    if not spans:
        bad.append("%s: its JVM's recordings have no time span" % f["rule"])
        continue
    step = min((b - a for a, b in zip(t, t[1:]) if b > a), default=0)
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    if t[0] < lo - step or t[-1] > hi + step:
        bad.append("%s's figure runs %d..%d ns, outside its JVM's %d..%d"
                   % (f["rule"], t[0], t[-1], lo, hi))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	fi
	t_end
done

# The heap-after-GC cases (make-gcheap.sh): a finding's headline must
# agree with its evidence (the live set it says rose from and to are the
# evidence's first and last points, which rise by at least half what its
# slope claims between them), and a real growth's rate is the workload's
# retain_rate (bytes kept per second, from its truth JSON) within 20%:
# the live-set points (old collections, GC-timed) are few, and the
# objects it held for hold_ms come and go with them.
gcheap_check() {
	python3 - "$@" <<'PY'
import json, re, sys
rep, tru = sys.argv[1:3]
r = json.load(open(rep)); t = json.load(open(tru))
bad = []
fs = [f for f in r["findings"] if f["rule"] == "heap-after-gc-rising"]
for f in fs:
    if f["severity"] == "info":
        continue
    fact = {k: v["value"] for k, v in f.get("figures", {}).items()}
    m = re.search(r"went from (\S+ \S+) to (\S+ \S+) \(", f["sentence"])
    ev = [e for e in f["evidence"] if e.startswith("live set: ")]
    if not m or len(ev) != 1:
        bad.append("the headline names no rise its evidence shows: %s" % f["sentence"])
        continue
    e = re.match(r"live set: (\S+ \S+) at ([0-9.]+) s, (\S+ \S+) at ([0-9.]+) s", ev[0])
    if not e or (e.group(1), e.group(3)) != (m.group(1), m.group(2)):
        bad.append("headline %s -> %s, evidence %s" % (m.group(1), m.group(2), ev[0]))
        continue
    span = float(e.group(4)) - float(e.group(2))
    rise = fact["last"] - fact["first"]
    if span <= 0 or rise < fact["slope"] * span / 2:
        bad.append("the slope %.0f B/s claims more than its points rise (%.0f B in %.3f s)"
                   % (fact["slope"], rise, span))
if t["mode"] == "grow":
    hard = [f for f in fs if f["severity"] != "info"]
    if len(hard) != 1:
        bad.append("%d heap-after-gc-rising findings above info, expected 1" % len(hard))
    else:
        slope = hard[0]["figures"]["slope"]["value"]
        if abs(slope - t["retain_rate"]) > 0.20 * t["retain_rate"]:
            bad.append("slope %.0f B/s, the workload kept %.0f B/s" % (slope, t["retain_rate"]))
elif t["retained_bytes"] != 0:
    bad.append("a level case whose workload kept %d bytes" % t["retained_bytes"])
if bad:
    sys.exit("\n".join(bad))
PY
}

for e in "$C"/gcheap-*.expect; do
	[ -e "$e" ] || continue
	name=$(basename "$e" .expect)
	rec=$(sed -n 's/^input: *//p' "$e")
	t_begin "corpus_${name}_headline_and_rate"
	if [ ! -s "$W/$name.json" ]; then
		t_fail "no report of $name"
	else
		gcheap_check "$W/$name.json" "$C/${rec%.jfr.gz}.truth.json" 2>"$W/bad" ||
			t_fail "$(cat "$W/bad")"
	fi
	t_end
done

# timeline sums the samples of every JVM the filters leave: over the
# two-JVM bundle it says it is a fleet figure of as many JVMs as the
# truth holds; over one JVM's two files, or one JVM's recording, not
t_begin jvms_timeline_labels_a_fleet
for b in jvms-together jvms-chunks; do
	nj=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$C/$b.truth.json")
	case $b in
	jvms-chunks) set -- "$C/jvms-chunks-0.jfr.gz" "$C/jvms-chunks-1.jfr.gz" ;;
	*) set -- "$C/$b.tar.gz" ;;
	esac
	store=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"])' "$W/$b.json")
	run timeline "$store"
	expect_rc 0
	if [ "$nj" -gt 1 ]; then
		printf '%s\n' "$out" | grep -q "^fleet: $nj JVMs' samples added together" ||
			t_fail "$b: timeline does not say it adds $nj JVMs: $(printf '%s\n' "$out" | head -n 4)"
		one=$(python3 -c 'import json,sys; print([i for i, r in enumerate(json.load(open(sys.argv[1]))["recordings"]) if r["source"].endswith(".jfr")][-1])' "$W/$b.json")
		run timeline "$store" --recording="$one"
		printf '%s\n' "$out" | grep -q '^fleet:' && t_fail "$b: one JVM's timeline says fleet"
	else
		printf '%s\n' "$out" | grep -q '^fleet:' && t_fail "$b: one JVM's timeline says fleet"
	fi
done
t_end

# What the importer reads of each GC, against the JDK's own `jfr print
# --events GarbageCollection,G1GarbageCollection,EvacuationFailed,
# PromotionFailed` on the same recordings (its name, type and failed
# events counted, written here by hand from its output): the collector
# and G1 type come from the GCName and G1YCType pools.
gcinfo_counts() {
	"$HEAPSIFT" dump --events=gcinfo "$1" 2>/dev/null |
		grep -o 'name="[^"]*"\|type="[^"]*"\|failed' | sort | uniq -c |
		awk '{ $1 = $1; print }' | tr '\n' ';'
}
t_begin corpus_gcheap_gc_facts_as_jfr_prints_them
for want in \
	'jdk17-gcheap-grow-g1.jfr.gz 1 name="G1Full";101 name="G1New";19 name="G1Old";19 type="Concurrent Start";17 type="Mixed";47 type="Normal";18 type="Prepare Mixed";' \
	'jdk17-gcheap-grow-par.jfr.gz 1 failed;17 name="ParallelOld";59 name="ParallelScavenge";' \
	'jdk17-gcheap-fail-g1.jfr.gz 2 failed;21 name="G1New";2 name="G1Old";2 type="Concurrent Start";19 type="Normal";'; do
	rec=${want%% *}
	got=$(LC_ALL=C gcinfo_counts "$C/$rec")
	[ "$got" = "${want#* }" ] || t_fail "$rec: want ${want#* }, got $got"
done
t_end

# A JVM killed during a burst (case killed-burst): its recording ends at
# its last flush, inside the last bucket, whose rate must be the
# workload's, not diluted by the part of the bucket nobody recorded; and
# every span printed is the chunks' (tests/truth/check_edges.py)
KB=$C/jdk17-killed-burst
edges() { python3 "$here/truth/check_edges.py" "$@"; }
t_begin corpus_killed_burst_timeline_last_bucket
run import -o "$W/kb.hsdb" "$KB.tar.gz"
# 3: the last chunk is unfinished, read up to its last flush (a warning)
[ "$rc" -eq 3 ] || t_fail "import exited $rc, expected 3: $(head -c 300 "$T/err")"
# widths the kill cuts between a fifth and three fifths in (make-edges.sh)
for ms in 200 1000; do
	run timeline "$W/kb.hsdb" --csv --bucket=${ms}ms
	expect_rc 0
	cp "$T/out" "$W/kb-$ms.csv"
	r=$(edges timeline "$KB.truth.json" "$KB.tar.gz" "$W/kb-$ms.csv" \
		$((ms * 1000000)) 2>&1) || t_fail "${ms}ms: $r"
done
t_end

t_begin corpus_killed_burst_report_rate_figure
if [ -f "$W/killed-burst.json" ]; then
	r=$(edges report "$KB.truth.json" "$KB.tar.gz" "$W/killed-burst.json" 2>&1) ||
		t_fail "$r"
else
	t_fail "no report of case killed-burst"
fi
t_end

t_begin corpus_killed_burst_spans_are_the_chunks
run info "$W/kb.hsdb"
expect_rc 0
cp "$T/out" "$W/kb-info.txt"
run report "$W/kb.hsdb"
cp "$T/out" "$W/kb-report.txt"
r=$(edges span "$KB.tar.gz" "$KB.summary.txt" "$W/kb-info.txt" \
	"$W/kb-report.txt" 2>&1) || t_fail "$r"
t_end

t_begin corpus_killed_burst_pprof_duration_is_the_recordings
run export "$W/kb.hsdb" --format=pprof -o "$W/kb.pb.gz"
expect_rc 0
r=$(edges pprof "$KB.tar.gz" "$W/kb.pb.gz" 2>&1) || t_fail "$r"
t_end

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
