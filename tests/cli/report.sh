#!/bin/sh
# heapsift report (docs/report.md) against truths from outside heapsift:
# the fixture READMEs (the leaking site of the leak-gcroots workload, the
# killed recording's unfinished chunk, the code-heap summaries' sizes and
# free blocks), workloads that print their own truth
# (tests/agent/SiteWorkload.java, with and without its retaining site),
# the JSON Schema in docs/report.schema.json, and real renderers:
# headless Chromium for the HTML (console errors, a screenshot, scripts
# off), xmllint for its SVG, pandoc for the Markdown.  A tool the machine
# lacks skips its case visibly.
. "$(dirname "$0")/lib.sh"
W=$T/work
F=$HS_FIXTURES
CHECK="$(cd "$(dirname "$0")/../report" && pwd)/check_report.py"
SCHEMA="$(cd "$(dirname "$0")/../../docs" && pwd)/report.schema.json"
SRC="$(cd "$(dirname "$0")/../agent" && pwd)"
# the cache store goes here, never into the working directory
export XDG_CACHE_HOME="$W/cache"

# report_json NAME ARGS...: heapsift report --format=json ARGS into
# $W/NAME.json; fails the case on a status other than 0 or 3.
report_json() {
	_n=$1
	shift
	run report --format=json "$@"
	printf '%s\n' "$out" >"$W/$_n.json"
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || t_fail "report $*: status $rc: $err"
}

t_begin report_rules_are_listed_and_documented
run report --rules
expect_rc 0
rules=$(printf '%s\n' "$out" | grep -E '^[a-z]' | sort)
[ "$(printf '%s\n' "$rules" | wc -l)" -ge 8 ] || t_fail "rules: $rules"
for r in $rules; do
	grep -q "^| \`$r\`" "$(dirname "$0")/../../docs/report.md" ||
		t_fail "docs/report.md does not list rule $r"
	grep -q "\"$r\"" "$SCHEMA" || t_fail "the schema does not list rule $r"
done
t_end

t_begin report_leak_gcroots_names_the_leaking_site
# fixtures/jfr README (../shared/fixtures/jfr): HeapWorkload.leakIntoCache
# keeps its objects forever in a static HashMap; hugeArray's int[] are
# dropped at once (alive at the end only because not yet collected)
report_json leak "$F/jfr/jdk17-leak-gcroots.jfr"
python3 "$CHECK" leak "$W/leak.json" HeapWorkload.leakIntoCache 2>"$W/bad" ||
	t_fail "$(cat "$W/bad")"
python3 "$CHECK" noleak "$W/leak.json" HeapWorkload.hugeArray 2>"$W/bad" ||
	t_fail "$(cat "$W/bad")"
t_end

t_begin report_json_matches_its_schema
if ! PYJS=$(py_jsonschema); then
	t_skip "python3-jsonschema missing (apt-get install python3-jsonschema)"
else
	for f in "$F/jfr/jdk17-leak-gcroots.jfr" "$F/jfr/jdk17-profile-tlab.jfr" \
		"$F/codeheap/jdk17-full-seg-stdout.txt.gz" \
		"$F/javacore/javacore.20230830.134339.30220.0001.txt"; do
		[ -e "$f" ] || t_fail "fixture $f is missing"
		report_json s "$f"
		"$PYJS" "$CHECK" schema "$SCHEMA" "$W/s.json" 2>"$W/bad" ||
			t_fail "$f: $(cat "$W/bad")"
	done
	t_end
fi

t_begin report_killed_recording_is_unfinished_in_the_inventory
# the JVM was killed with kill -9: chunk state 7, never finished
report_json k "$F/jfr/jdk17-killed-unfinished.jfr"
expect_rc 3
python3 "$CHECK" member "$W/k.json" jdk17-killed-unfinished.jfr unfinished \
	"still being written" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
# the second report reads the inventory kept beside the cache store
report_json k2 "$F/jfr/jdk17-killed-unfinished.jfr"
expect_err "using $XDG_CACHE_HOME/heapsift/"
python3 "$CHECK" member "$W/k2.json" jdk17-killed-unfinished.jfr unfinished \
	"still being written" 2>"$W/bad" || t_fail "cached: $(cat "$W/bad")"
t_end

t_begin report_inventory_lists_every_member_of_a_bundle
# fixtures/README.md: case-demo.tar.gz holds five members, the stderr
# log among them (kind unknown: skipped), the recording two levels down
report_json demo "$F/bundles/case-demo.tar.gz"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["inventory"]["members"]))' "$W/demo.json")
[ "$n" = 5 ] || t_fail "$n members, expected 5"
python3 "$CHECK" member "$W/demo.json" "case-1234/stderr.log" skipped \
	"no importer" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
python3 "$CHECK" member "$W/demo.json" "app.zip!app.jfr.zst" imported "" \
	2>"$W/bad" || t_fail "$(cat "$W/bad")"
python3 "$CHECK" leak "$W/demo.json" HeapWorkload.leakIntoCache \
	2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_full_code_heaps_with_the_readme_figures
R=$F/codeheap/README.md
for x in seg noseg; do
	f=$F/codeheap/jdk17-full-$x-jcmd-codecache.txt.gz
	[ -e "$f" ] || t_fail "fixture $f is missing"
	report_json ch "$f"
	python3 "$CHECK" codeheap-summary "$R" "jdk17-full-$x-jcmd-codecache.txt" \
		"$W/ch.json" 2>"$W/bad" || t_fail "$x: $(cat "$W/bad")"
done
report_json fr "$F/codeheap/jdk17-full-seg-analytics-default.txt.gz"
python3 "$CHECK" codeheap-fragmented "$R" jdk17-full-seg-analytics-default.txt \
	"profiled nmethods" "$W/fr.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
# a normal-size cache is no finding
report_json ok "$F/codeheap/jdk17-seg-jcmd-codecache.txt"
grep -q '"rule": "code-heap"' "$W/ok.json" &&
	t_fail "a code-heap finding on a cache 1% used"
t_end

t_begin report_hot_nmethods_heap_name_is_read
# JDK-8326205's fourth heap: the same summary with a heap renamed
mkdir -p "$W/hot"
gzip -dc "$F/codeheap/jdk17-full-seg-jcmd-codecache.txt.gz" |
	sed "s/'non-profiled nmethods'/'hot nmethods'/" \
		>"$W/hot/jdk17-full-seg-jcmd-codecache.txt"
grep -q "'hot nmethods'" "$W/hot/jdk17-full-seg-jcmd-codecache.txt" ||
	t_fail "no heap renamed"
report_json hot "$W/hot/jdk17-full-seg-jcmd-codecache.txt"
python3 "$CHECK" codeheap-summary "$F/codeheap/README.md" \
	jdk17-full-seg-jcmd-codecache.txt "$W/hot.json" \
	"non-profiled nmethods" "hot nmethods" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

# code_heap_findings NAME: "SEVERITY FACT=VALUE" per code-heap finding of
# $W/NAME.json (the javacore facts), one a line
code_heap_findings() {
	python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["rule"] == "code-heap":
        fig = f.get("figures", {})
        print(f["severity"], " ".join("%s=%.2f" % (k, fig[k]["value"] if isinstance(fig[k], dict) else fig[k])
              for k in sorted(fig) if k.startswith("jit_") or k == "snapshots"))
' "$W/$1.json"
}

t_begin report_javacore_jit_caches_against_their_limits
# fixtures/javacore README (../shared/fixtures/javacore): every javacore's
# JIT data cache is 1 or 15 full 2 MB segments against a 1STSEGLIMIT of
# 402653184, its code cache 29696 or about 58 MB used of 268435456.  A
# full segment is how OpenJ9 allocates (a segment after another): no
# finding
for f in javacore.20230830.134339.30220.0001.txt javacore.20220606.114458.32888.0001.txt.gz \
	javacore.20220606.114502.32888.0002.txt.gz; do
	report_json jc "$F/javacore/$f"
	got=$(code_heap_findings jc)
	[ -z "$got" ] || t_fail "$f: a code-heap finding on caches far below their limits: $got"
done
# the small one with its data cache's limit edited down to its one
# segment, 2097152 bytes (fixtures/README.md): 100% of the limit
report_json jl "$F/javacore/javacore.20230830.134339.30220.0001.datacache-at-limit.txt"
got=$(code_heap_findings jl)
[ "$got" = "critical jit_data_used_pct=100.00 snapshots=1.00" ] ||
	t_fail "the data cache at its limit: '$got', expected one critical finding at 100%"
grep -q 'at its limit' "$W/jl.json" || t_fail "the finding does not say the cache is at its limit"
# the large one's 15 segments, 31457280 bytes (its README), against
# limits edited to 15, 15.5 and 16 segments: 100% critical, 96.8% a
# warning, 93.75% nothing (the thresholds: 99% and 95%)
for lim in 31457280:critical:100.00 32505856:warning:96.77 33554432::; do
	l=${lim%%:*} rest=${lim#*:} sev=${rest%%:*} pc=${rest#*:}
	mkdir -p "$W/lim$l"
	gzip -dc "$F/javacore/javacore.20220606.114458.32888.0001.txt.gz" |
		sed "s/^1STSEGLIMIT    Allocation limit:               402653184 (0x0000000018000000)\$/1STSEGLIMIT    Allocation limit: $l (0x$(printf %016X "$l"))/" \
			>"$W/lim$l/javacore.20220606.114458.32888.0001.txt"
	[ "$(grep -c "^1STSEGLIMIT .* $l " "$W/lim$l/javacore.20220606.114458.32888.0001.txt")" = 1 ] ||
		t_fail "the data cache's limit was not edited to $l"
	report_json lim "$W/lim$l/javacore.20220606.114458.32888.0001.txt"
	got=$(code_heap_findings lim)
	want=${sev:+$sev jit_data_used_pct=$pc snapshots=1.00}
	[ "$got" = "$want" ] || t_fail "data cache of 31457280 bytes, limit $l: '$got', expected '$want'"
done
t_end

t_begin report_code_heap_snapshots_of_one_file_fold
# fixtures/codeheap README: jdk17-full-*-stdout.txt hold two complete
# reports plus two summaries, all of the full cache: one finding, the
# worst, that counts the 4
for x in seg noseg; do
	report_json fold "$F/codeheap/jdk17-full-$x-stdout.txt.gz"
	got=$(code_heap_findings fold)
	[ "$got" = "critical snapshots=4.00" ] || t_fail "$x: '$got', expected one critical finding of 4 snapshots"
	grep -q '4 snapshots in 1 file of this JVM show it' "$W/fold.json" || t_fail "$x: the evidence does not count the snapshots"
done
t_end

# The workload fixtures (fixtures/workloads/, made by its make.sh): each
# recording beside the truth its workload printed (NAME.truth.json), so
# that these need no JDK.  check_workload RULE REPORT.json TRUTH.json runs
# the Python check of that rule below.
WL=$F/workloads
check_workload() {
	python3 - "$@" <<'PY'
import json, sys
rule, rep, tru = sys.argv[1:4]
r = json.load(open(rep))
t = json.load(open(tru))
F = r["findings"]
def facts(f):
    return {k: v["value"] for k, v in f.get("figures", {}).items()}
def of(rule):
    return [f for f in F if f["rule"] == rule]
bad = []
if rule == "rising":
    # the heap after GC rises as fast as the workload retains: its
    # retain_rate (bytes of arrays kept per second, headers aside)
    fs = of("heap-after-gc-rising")
    if len(fs) != 1:
        bad.append("%d heap-after-gc-rising findings, expected 1" % len(fs))
    else:
        slope = facts(fs[0])["slope"]
        if abs(slope - t["retain_rate"]) > 0.15 * t["retain_rate"]:
            bad.append("slope %.0f B/s, the workload retained %.0f B/s" % (slope, t["retain_rate"]))
        # its own heap-after-GC readings (MemoryMXBean after each
        # System.gc()): their slope over their mean is far above 5%/s,
        # so the finding is critical
        p = t["heap_after_gc"]
        xs = [(a - p[0][0]) / 1e9 for a, _ in p]; ys = [u for _, u in p]
        mx = sum(xs) / len(xs); my = sum(ys) / len(ys)
        own = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        if 100 * own / my >= 5 and fs[0]["severity"] != "critical":
            bad.append("growth %.1f%%/s by the workload's own readings, severity %s" % (100 * own / my, fs[0]["severity"]))
    if not any(f["subject"].startswith("FindingsWorkload.retain:") for f in of("leak-suspect")):
        bad.append("no leak suspect names FindingsWorkload.retain")
elif rule == "flat":
    # a working set made once and kept: no leak, no rising heap
    if t["retained_bytes"] != 0:
        bad.append("the workload retained %d bytes over time" % t["retained_bytes"])
    for f in of("heap-after-gc-rising") + of("leak-suspect"):
        bad.append("a %s finding: %s" % (f["rule"], f["sentence"]))
elif rule == "burst":
    # the highest peak lies in the window the workload printed, at about
    # the rate it allocated there; the buckets inside it are peaks
    fs = of("allocation-rate")
    if len(fs) != 1 or fs[0].get("figure") is None:
        bad.append("%d allocation-rate findings with a picture, expected 1" % len(fs))
    else:
        g = r["figures"][fs[0]["figure"]]
        ts, ys, peaks = g["time_ns"], g["series"][0]["y"], g["peaks"]
        w = ts[1] - ts[0]
        top = max(range(len(ys)), key=lambda i: ys[i])
        a, b = t["burst_from_ns"], t["burst_to_ns"]
        if not (ts[top] < b and ts[top] + w > a):
            bad.append("the highest bucket [%d, +%d) is outside the burst [%d, %d)" % (ts[top], w, a, b))
        if top not in peaks:
            bad.append("the highest bucket is not marked a peak")
        if abs(ys[top] - t["burst_rate"]) > 0.35 * t["burst_rate"]:
            bad.append("peak %.0f B/s, the workload allocated %.0f B/s in its burst" % (ys[top], t["burst_rate"]))
        inside = [i for i in peaks if ts[i] < b and ts[i] + w > a]
        whole = int((b - a) // w) - 1
        if len(inside) < whole:
            bad.append("%d peak buckets in the burst, %d buckets lie wholly in it" % (len(inside), whole))
        if not any("in that window: FindingsWorkload.garbage:" in e for e in fs[0]["evidence"]):
            bad.append("the peak's window does not name FindingsWorkload.garbage")
elif rule == "arrays":
    # N byte[ARRAY_LEN] from FindingsWorkload.bigArray: humongous in a
    # region of 1 MiB (the agent's recording has no heap summary); each
    # is ARRAY_LEN bytes and an array header (16 bytes with compressed
    # class pointers, at most 32)
    fs = of("large-arrays")
    if len(fs) != 1:
        bad.append("%d large-arrays findings, expected 1" % len(fs))
    else:
        x = facts(fs[0])
        n, ln = t["arrays"], t["array_len"]
        if not fs[0]["subject"].startswith(t["array_site"] + ":"):
            bad.append("subject %s, expected %s" % (fs[0]["subject"], t["array_site"]))
        if x["objects"] != n:
            bad.append("%d objects, the workload allocated %d" % (x["objects"], n))
        if not n * ln <= x["bytes"] <= n * (ln + 32):
            bad.append("%d bytes, expected %d arrays of %d bytes and a header" % (x["bytes"], n, ln))
        if x["region_size"] != 1 << 20:
            bad.append("region size %d, expected the assumed 1 MiB" % x["region_size"])
        if fs[0]["severity"] != "warning":
            bad.append("severity %s: they are most of the bytes" % fs[0]["severity"])
for m in bad:
    print(m, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

t_begin report_heap_after_gc_rising_at_the_workloads_rate
report_json ri "$WL/jdk17-rising-heap.jfr"
check_workload rising "$W/ri.json" "$WL/jdk17-rising-heap.truth.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_flat_heap_workload_raises_no_leak
report_json fl "$WL/jdk17-flat-heap.jfr"
check_workload flat "$W/fl.json" "$WL/jdk17-flat-heap.truth.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_allocation_rate_peak_in_the_workloads_burst
report_json bu "$WL/jdk17-alloc-burst.jfr"
check_workload burst "$W/bu.json" "$WL/jdk17-alloc-burst.truth.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_agent_large_arrays_as_the_workload_made_them
report_json la "$WL/agent-large-arrays.hsa"
check_workload arrays "$W/la.json" "$WL/agent-large-arrays.truth.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_escapes_names_from_files
# markup in a heap name; an escape sequence, a C1 control (U+009B, CSI)
# and a byte that is not UTF-8 in the file's name
gzip -dc "$F/codeheap/jdk17-full-seg-jcmd-codecache.txt.gz" |
	sed "s/'profiled nmethods'/'<b>x<\/b>\&amp;|*_\`'/" >"$W/esc.txt"
grep -q "'<b>x</b>&amp;|\*_\`'" "$W/esc.txt" || t_fail "no heap renamed"
evil=$(printf 'e\033[31m<i>\302\233\200.txt')
cp "$W/esc.txt" "$W/$evil"
run report "$W/$evil"
printf '%s' "$out" | grep -q "$(printf '\033')" && t_fail "text: raw ESC"
printf '%s' "$out" | grep -q "$(printf '\302\233')" && t_fail "text: raw CSI"
printf '%s' "$out" | LC_ALL=C grep -q "$(printf '\200')" && t_fail "text: invalid UTF-8"
printf '%s' "$out" | grep -qF 'e\x1b[31m<i>\xc2\x9b\x80.txt' ||
	t_fail "text: the file name not shown escaped: $(printf '%s' "$out" | grep INVENTORY -A2)"
run report --format=html "$W/$evil"
printf '%s' "$out" | grep -q '<b>x\|<i>' && t_fail "html: raw markup from a file"
printf '%s' "$out" | grep -qF "CodeHeap &#39;&lt;b&gt;x&lt;/b&gt;&amp;amp;|*_\`&#39; was nearly full" ||
	t_fail "html: heap name not escaped"
printf '%s' "$out" | grep -q "$(printf '\033')" && t_fail "html: raw ESC"
printf '%s' "$out" | LC_ALL=C grep -q "$(printf '\200')" && t_fail "html: invalid UTF-8"
run report --format=md "$W/$evil"
# a '<' that could open HTML has its backslash; '>', '|' outside a
# table and '_' inside a word need none (docs/report.md); a command is a
# code span, where '<' is no markup
printf '%s\n' "$out" | grep -v '^More: `' | grep -qE '(^|[^\\])<[bi]>' &&
	t_fail "md: raw markup"
printf '%s' "$out" | grep -qF "CodeHeap '\<b>x\</b>\&amp;|\*\_\\\`' was nearly full" ||
	t_fail "md: not escaped: $(printf '%s' "$out" | grep -F 'nearly full' | head -2)"
printf '%s' "$out" | grep -q "$(printf '\033')" && t_fail "md: raw ESC"
run report --format=json "$W/$evil"
printf '%s\n' "$out" >"$W/esc.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
ev = [e for f in r["findings"] for e in f["evidence"] if "nearly full" in e]
assert any(e.startswith("CodeHeap \x27<b>x</b>&amp;|*_`\x27 was") for e in ev), ev
m = r["inventory"]["members"][0]["member"]
assert m.endswith("e\x1b[31m<i>\u009b\\x80.txt"), repr(m)
' "$W/esc.json" 2>"$W/bad" || t_fail "json: $(cat "$W/bad")"
t_end

t_begin report_output_file_rules
run report --format=html -o "$W/r.html" "$F/jfr/jdk17-leak-gcroots.jfr"
expect_rc 0
[ -s "$W/r.html" ] || t_fail "no $W/r.html"
# a report may replace a report
run report --format=md -o "$W/r.html" "$F/jfr/jdk17-leak-gcroots.jfr"
expect_rc 0
sed -n 2p "$W/r.html" | grep -q '^# heapsift report' || t_fail "not replaced"
# but not anything else, unless --force; never a link
echo precious >"$W/notes.txt"
run report -o "$W/notes.txt" "$F/jfr/jdk17-leak-gcroots.jfr"
expect_rc 1
expect_err "exists and is not a heapsift report"
[ "$(cat "$W/notes.txt")" = precious ] || t_fail "notes.txt replaced"
run report --force -o "$W/notes.txt" "$F/jfr/jdk17-leak-gcroots.jfr"
expect_rc 0
ln -s "$W/r.html" "$W/link.html"
run report --force -o "$W/link.html" "$F/jfr/jdk17-leak-gcroots.jfr"
expect_rc 1
expect_err "symbolic link"
t_end

t_begin report_cache_follows_the_bytes_not_the_size_and_time
# two recordings at one path, of one size (leak-gcroots padded with
# zeros to jdk17-default's size, which the importer skips with a
# warning) and one modification time (touch -r): each gets its own
# report, as does top, whose cache store is the same one (issue 39:
# the cache was keyed on path, size and time, and the second got the
# first's report).  The sample counts are the JDK's (expected.json).
J=$F/jfr
rec=$W/same.jfr
cp "$J/jdk17-default.jfr" "$rec"
touch -d 2026-01-02T03:04:05Z "$rec"
cp -p "$rec" "$W/stamp"
# samples_of REPORT.json FIXTURE: the report's one recording has the
# fixture's samples, kind by kind, as the JDK counted its events
samples_of() {
	python3 - "$1" "$J/jdk17-$2.expected.json" <<'EOF' 2>&1
import json, sys
got = json.load(open(sys.argv[1]))["recordings"]
ev = json.load(open(sys.argv[2]))["event_counts"]
want = {k: v for k, v in ev.items() if v and k != "jdk.GCHeapSummary"}
assert len(got) == 1 and got[0]["samples"] == want, (got[0]["samples"], want)
EOF
}
report_json same1 "$rec"
r=$(samples_of "$W/same1.json" default) || t_fail "first: $r"
run top "$rec" --csv --estimate=jfr
first_top=$out
cp "$J/jdk17-leak-gcroots.jfr" "$rec"
truncate -s "$(wc -c <"$J/jdk17-default.jfr")" "$rec"
touch -r "$W/stamp" "$rec"
[ "$(stat -c '%s %Y' "$rec")" = "$(stat -c '%s %Y' "$W/stamp")" ] ||
	t_fail "the second recording's size and time differ from the first's"
report_json same2 "$rec"
r=$(samples_of "$W/same2.json" leak-gcroots) || t_fail "second, the same size and time: $r"
expect_err "heapsift report: importing into"
run top "$rec" --csv --estimate=jfr
[ "$out" != "$first_top" ] || t_fail "top gave the first recording's table for the second"
# the samples column of top --csv adds up to the JDK's count
n=$(printf '%s\n' "$out" | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }')
want=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["event_counts"]["jdk.ObjectAllocationSample"])' "$J/jdk17-leak-gcroots.expected.json")
[ "$n" = "$want" ] || t_fail "top of the second: $n samples, the JDK counts $want"
# the first again: its own report (from its cache store, still there)
cp "$J/jdk17-default.jfr" "$rec"
touch -r "$W/stamp" "$rec"
report_json same3 "$rec"
r=$(samples_of "$W/same3.json" default) || t_fail "the first again: $r"
expect_err "heapsift report: using"
rm -f "$rec" "$W/stamp"
t_end

t_begin report_of_a_fifo_is_refused_not_read_twice
# the cache's key reads an input whole: a pipe could be read only once
mkfifo "$W/pipe.jfr"
(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C timeout 120 "$HEAPSIFT" report "$W/pipe.jfr" \
	>"$T/out" 2>"$T/err" </dev/null)
rc=$?
err=$(cat "$T/err")
expect_rc 1
expect_err "$W/pipe.jfr is not a regular file"
expect_err "heapsift import -o CASE.hsdb"
rm -f "$W/pipe.jfr"
t_end

t_begin report_on_a_store_gives_the_same_findings
run import -o "$W/case.hsdb" "$F/jfr/jdk17-leak-gcroots.jfr"
report_json st "$W/case.hsdb"
python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa = [(f["rule"], f["subject"], f["severity"]) for f in a["findings"]]
fb = [(f["rule"], f["subject"], f["severity"]) for f in b["findings"]]
assert fa == fb, (fa, fb)
assert b["from_store"] and not b["inventory"]["members"]
' "$W/leak.json" "$W/st.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_markdown_renders_with_pandoc
if ! have_pandoc; then
	t_skip "$NOPANDOC"
else
	run report --format=md "$F/jfr/jdk17-leak-gcroots.jfr" \
		"$F/codeheap/jdk17-full-seg-jcmd-codecache.txt.gz"
	printf '%s\n' "$out" >"$W/r.md"
	pandoc --wrap=none -f gfm -t html "$W/r.md" >"$W/md.html" 2>"$W/pandoc.err" ||
		t_fail "pandoc: $(cat "$W/pandoc.err")"
	grep -q '<table>' "$W/md.html" || t_fail "no table rendered"
	grep -q '<h3[^>]*>[0-9]*\. warning: leak-suspect: HeapWorkload.leakIntoCache' \
		"$W/md.html" || t_fail "no leak heading: $(grep '<h3' "$W/md.html" | head -3)"
	grep -q '<code>heapsift survivors' "$W/md.html" || t_fail "no command"
	t_end
fi

t_begin report_html_svg_is_well_formed
if ! command -v xmllint >/dev/null 2>&1; then
	t_skip "no xmllint (apt-get install libxml2-utils)"
else
	# a recording with a real leak, so that the live-set chart of its
	# suspect is drawn too (jdk17-leak-gcroots's live-set chart was of
	# a false suspect, a site of large arrays: issue 36, item 1)
	run report --format=html "$F/truth/oos-leak-one.jfr.gz" \
		"$F/codeheap/jdk17-full-seg-analytics-default.txt.gz"
	printf '%s\n' "$out" >"$W/r.html"
	python3 - "$W/r.html" "$W" <<'EOF' || t_fail "$(cat "$W/bad" 2>/dev/null)"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
svgs = re.findall(r"<svg.*?</svg>", html, re.S)
kinds = [("flame" in s, "<polyline" in s, "<circle" in s) for s in svgs]
bad = []
if len(svgs) < 4: bad.append("%d svgs" % len(svgs))
if not any(k[0] for k in kinds): bad.append("no flame graph")
if not any(k[1] for k in kinds): bad.append("no line chart")
flame = [s for s in svgs if 'class="flame"' in s][0]
if flame.count("<title>") < 10: bad.append("flame frames without <title>")
for i, s in enumerate(svgs):
    open("%s/svg%d.svg" % (sys.argv[2], i), "w", encoding="utf-8").write(s)
if re.search(r"<(link|img|iframe)[^>]*(src|href)=\"?https?:", html) or "url(http" in html:
    bad.append("a network reference")
open(sys.argv[2] + "/bad", "w").write("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
	for s in "$W"/svg*.svg; do
		xmllint --noout "$s" 2>"$W/xml.err" || t_fail "$s: $(head -3 "$W/xml.err")"
	done
	t_end
fi

t_begin report_html_in_headless_chromium
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	t_skip "no chromium (apt-get install chromium)"
else
	run report --format=html "$F/jfr/jdk17-leak-gcroots.jfr" \
		"$F/codeheap/jdk17-full-seg-analytics-default.txt.gz"
	printf '%s\n' "$out" >"$W/page-scripts.html"
	# without scripts: the page's script taken out and any script
	# forbidden by its policy (Chromium's scriptEnabled=false also stops
	# --screenshot and --dump-dom, which run script themselves)
	python3 - "$W" <<'EOF'
import re, sys
w = sys.argv[1]
s = open(w + "/page-scripts.html", encoding="utf-8").read()
s = re.sub(r"<script>.*?</script>", "", s, flags=re.S)
s = s.replace("script-src 'unsafe-inline'", "script-src 'none'")
open(w + "/page-noscripts.html", "w", encoding="utf-8").write(s)
EOF
	grep -q '<script' "$W/page-noscripts.html" && t_fail "a script left"
	for mode in scripts noscripts; do
		set -- --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
			--user-data-dir="$W/chrome-$mode" --window-size=1200,2400 \
			--enable-logging=stderr --v=0
		HOME="$W" timeout 120 "$chrome" "$@" --screenshot="$W/$mode.png" \
			"file://$W/page-$mode.html" >"$W/chrome.out" 2>"$W/chrome.err" ||
			t_fail "$mode: chromium failed: $(tail -3 "$W/chrome.err")"
		# console messages are logged as CONSOLE(line) "message"
		grep -E 'CONSOLE|Uncaught|Refused to' "$W/chrome.err" >"$W/console" &&
			t_fail "$mode: console: $(head -3 "$W/console")"
		[ -s "$W/$mode.png" ] || t_fail "$mode: no screenshot"
		HOME="$W" timeout 120 "$chrome" "$@" --dump-dom "file://$W/page-$mode.html" \
			>"$W/$mode.dom" 2>/dev/null
		grep -q 'leak-suspect: HeapWorkload.leakIntoCache' "$W/$mode.dom" ||
			t_fail "$mode: the finding is not in the rendered page"
	done
	# the screenshots stay for a person to look at when asked
	[ -n "${REPORT_SCREENSHOTS:-}" ] && cp "$W"/scripts.png "$W"/noscripts.png \
		"$REPORT_SCREENSHOTS"/ 2>/dev/null
	t_end
fi

# --- the agent, on workloads that print their own truth --------------------
agent=$("$HEAPSIFT" agent-path 2>/dev/null) || agent=
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1 ||
	[ -z "$agent" ] || [ ! -f "$agent" ]; then
	t_begin report_agent_leak_workload_names_the_retaining_site
	t_skip "no JDK or no agent library"
	t_begin report_agent_workload_without_a_leak_raises_none
	t_skip "no JDK or no agent library"
	t_summary
fi

mkdir -p "$W/classes"
javac -d "$W/classes" "$SRC/SiteWorkload.java" 2>"$W/javac.err"

t_begin report_agent_leak_workload_names_the_retaining_site
java -Xms1g -Xmx1g -XX:+UseG1GC "-agentpath:$agent=file=$W/leak.hsa,interval=64k,quiet" \
	-cp "$W/classes" SiteWorkload 6 2 >"$W/truth.json" 2>"$W/java.err" ||
	t_fail "the workload failed: $(tail -n 3 "$W/java.err") $(cat "$W/javac.err")"
# its truth: the retain site kept objects to the end
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["kept"]["SiteWorkload.retain"] > 0' \
	"$W/truth.json" || t_fail "the workload kept nothing: $(cat "$W/truth.json")"
report_json al "$W/leak.hsa"
python3 "$CHECK" leak "$W/al.json" SiteWorkload.retain 2>"$W/bad" ||
	t_fail "$(cat "$W/bad")"
# the sites that keep nothing to the end are no leak
for s in SiteWorkload.drop SiteWorkload.churn; do
	python3 "$CHECK" noleak "$W/al.json" $s 2>"$W/bad" || t_fail "$(cat "$W/bad")"
done
t_end

t_begin report_agent_workload_without_a_leak_raises_none
java -Xms1g -Xmx1g -XX:+UseG1GC "-agentpath:$agent=file=$W/noleak.hsa,interval=64k,quiet" \
	-cp "$W/classes" SiteWorkload 6 2 noretain >"$W/truth2.json" 2>"$W/java2.err" ||
	t_fail "the workload failed: $(tail -n 3 "$W/java2.err")"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); assert t["retained_at_end"] == 0' \
	"$W/truth2.json" || t_fail "the workload kept objects: $(cat "$W/truth2.json")"
report_json nl "$W/noleak.hsa"
python3 "$CHECK" noleak-any "$W/nl.json" 2>"$W/bad" || t_fail "$(cat "$W/bad")"
t_end

t_begin report_base_flags_the_doubled_site_in_every_format
# fixtures/workloads/diff-base.hsa and diff-double.hsa (DiffWorkload under
# the agent, beta's rate doubled in the second, as their truth files
# say) appended into one store; --base=0 compares recording 1 with it.
# The JSON flags exactly the site the workload changed, with heapsift
# diff's samples and q-value (check_report.py baseline); the other
# formats flag that site and no other.
WL=$F/workloads
run import -o "$W/two.hsdb" "$WL/diff-base.hsa"
run import --append -o "$W/two.hsdb" "$WL/diff-double.hsa"
[ "$rc" = 0 ] || t_fail "import --append: $rc $err"
run diff "$W/two.hsdb" --base-recording 0 --recording 1 --by site --csv
printf '%s\n' "$out" | tr -d '\r' >"$W/two-diff.csv"
report_json two "$W/two.hsdb" --base=0
python3 "$CHECK" baseline "$W/two.json" "$W/two-diff.csv" "$WL/diff-base.truth.json" \
	"$WL/diff-double.truth.json" 2>"$W/bad" || t_fail "json: $(cat "$W/bad")"
if PYJS=$(py_jsonschema); then
	"$PYJS" "$CHECK" schema "$SCHEMA" "$W/two.json" 2>"$W/bad" || t_fail "schema: $(cat "$W/bad")"
fi
run report --base=0 "$W/two.hsdb"
expect_rc 0
sec=$(printf '%s\n' "$out" | sed -n '/^COMPARED WITH THE BASELINE/,/^$/p')
printf '%s\n' "$sec" | grep -q 'divided by its seconds of recording: 1 of [0-9]* sites changed beyond noise' ||
	t_fail "text: no sentence: $sec"
[ "$(printf '%s\n' "$sec" | grep -cE ' (grew|shrank) ')" = 1 ] || t_fail "text: not one flagged row: $sec"
printf '%s\n' "$sec" | grep -qE ' grew +DiffWorkload\.beta:' || t_fail "text: beta not grew: $sec"
# its change, new minus base, a rise: "+" (BASE NEW CHANGE, each a number
# and its unit)
printf '%s\n' "$sec" | grep -qE '^ *[0-9.]+ [^ ]+ +[0-9.]+ [^ ]+ +\+[0-9.]+ [^ ]+ .* grew +DiffWorkload\.beta:' ||
	t_fail "text: beta's change not a rise: $sec"
run report --base=0 --format=md "$W/two.hsdb"
sec=$(printf '%s\n' "$out" | sed -n '/^## Compared with the baseline/,/^More:/p')
[ "$(printf '%s\n' "$sec" | grep -cE '\| (grew|shrank) \|$')" = 1 ] || t_fail "md: not one flagged row: $sec"
printf '%s\n' "$sec" | grep -qE '^\| DiffWorkload\.beta:.*\| grew \|$' || t_fail "md: beta not grew: $sec"
printf '%s\n' "$sec" | grep -qE '^\| DiffWorkload\.beta:[0-9]+ \| [^|]+ \| [^|]+ \| \+[0-9]' ||
	t_fail "md: beta's change not a rise: $sec"
run report --base=0 --format=html "$W/two.hsdb"
[ "$(printf '%s\n' "$out" | grep -cE '<tr class="(grew|shrank)">')" = 1 ] || t_fail "html: not one flagged row"
printf '%s\n' "$out" | grep -qE '<tr class="grew"><td class="w">DiffWorkload\.beta:' || t_fail "html: beta not grew"
printf '%s\n' "$out" | grep -qE '<tr class="grew"><td class="w">DiffWorkload\.beta:[0-9]+</td>(<td class="n">[^<]*</td>){2}<td class="n">\+[0-9]' ||
	t_fail "html: beta's change not a rise"
t_end

t_begin report_base_recording_against_itself_flags_nothing
# one recording: --base=0 against the whole store, which is that
# recording; the truth file given twice says no site changed
run import -o "$W/one.hsdb" "$WL/diff-base.hsa"
run diff "$W/one.hsdb" --base-recording 0 --by site --csv
printf '%s\n' "$out" | tr -d '\r' >"$W/one-diff.csv"
report_json one "$W/one.hsdb" --base=0
python3 "$CHECK" baseline "$W/one.json" "$W/one-diff.csv" "$WL/diff-base.truth.json" \
	"$WL/diff-base.truth.json" 2>"$W/bad" || t_fail "json: $(cat "$W/bad")"
for fmt in text md html; do
	run report --base=0 --format=$fmt "$W/one.hsdb"
	expect_rc 0
	printf '%s\n' "$out" | grep -q 'No site changed beyond noise' || t_fail "$fmt: no 'No site changed'"
	printf '%s\n' "$out" | grep -qE ' (grew|shrank) |\| (grew|shrank) \||<tr class="(grew|shrank)">' &&
		t_fail "$fmt: a row flagged"
done
# without --base there is no such section, and baseline is null
report_json none "$W/one.hsdb"
grep -q '"baseline": null' "$W/none.json" || t_fail "json without --base: baseline is not null"
run report "$W/one.hsdb"
printf '%s\n' "$out" | grep -q 'COMPARED WITH THE BASELINE' && t_fail "text without --base has the section"
run report --base=7 "$W/one.hsdb"
expect_rc 2
expect_err "recording 7"
t_end

t_begin report_two_files_of_one_jvm_are_one_jvm
# fixtures/truth/jvms-chunks-*.jfr.gz are one JVM's recording cut in two
# chunks, a file each (make-jvms.sh): both chunks' jdk.JVMInformation
# give the same pid and jvmStartTime (`jfr print --events
# jdk.JVMInformation`), so the report sees one JVM: every finding's
# recording ids are [0, 1], and with one JVM a command needs no
# --recording.  Every format names the JVM.
P1=$F/truth/jvms-chunks-0.jfr.gz
P2=$F/truth/jvms-chunks-1.jfr.gz
report_json onejvm "$P1" "$P2"
python3 - "$W/onejvm.json" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
rep = json.load(open(sys.argv[1]))
assert len(rep["recordings"]) == 2, "recordings: %d" % len(rep["recordings"])
assert rep["findings"], "no finding"
for f in rep["findings"]:
    r = f["recording"]
    assert r and r["ids"] == [0, 1], "%s: %s" % (f["rule"], r)
    assert r["jvm"].startswith("pid "), r
    assert "--recording" not in (f["command"] or ""), f["command"]
PY
# every format names the finding's JVM
pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["recording"]["pid"])' "$W/onejvm.json")
run report "$P1" "$P2"
printf '%s\n' "$out" | grep -q "^   jvm:  pid $pid, recordings 0,1 " || t_fail "text names no JVM"
run report --format=md "$P1" "$P2"
printf '%s\n' "$out" | grep -q "^JVM: pid $pid, recordings 0,1 " || t_fail "md names no JVM"
run report --format=html "$P1" "$P2"
printf '%s\n' "$out" | grep -q "<p class=\"jvm\">JVM: pid $pid, recordings 0,1 " || t_fail "html names no JVM"
if PYJS=$(py_jsonschema); then
	"$PYJS" "$CHECK" schema "$SCHEMA" "$W/onejvm.json" 2>"$W/bad" || t_fail "schema: $(cat "$W/bad")"
fi
t_end

t_begin report_commands_select_a_jvms_recordings
# a bundle of two JVMs (fixtures/truth/jvms-together.tar.gz): each
# finding's command selects its JVM's recordings, which --recording
# takes as a list; a recording the store lacks is a usage error
report_json two "$F/truth/jvms-together.tar.gz"
python3 - "$W/two.json" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
rep = json.load(open(sys.argv[1]))
for f in rep["findings"]:
    want = " --recording=" + ",".join(str(i) for i in f["recording"]["ids"])
    assert f["command"].endswith(want), "%s: %s (want %s)" % (f["rule"], f["command"], want)
PY
store=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"])' "$W/two.json")
# the two recordings (alpha.jfr, beta.jfr), by their index in the store
jfrs=$(python3 -c 'import json,sys; print(",".join(str(i) for i, r in enumerate(json.load(open(sys.argv[1]))["recordings"]) if r["source"].endswith(".jfr")))' "$W/two.json")
run top "$store" --by=recording --recording="$jfrs" --csv
expect_rc 0
[ "$(printf '%s\n' "$out" | grep -c '\.jfr,')" = 2 ] || t_fail "top --recording=$jfrs: $out"
run top "$store" --by=recording --recording="${jfrs#*,}" --csv
[ "$(printf '%s\n' "$out" | grep -c '\.jfr,')" = 1 ] || t_fail "top --recording=${jfrs#*,}: $out"
run top "$store" --recording=0,9
expect_rc 2
expect_err "recording 9"
# the flame graph adds the two JVMs together: labelled a fleet picture,
# with how many (the two the script recorded); one JVM's alone is not
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["flame"]; sys.exit(f["jvms"] != 2)' "$W/two.json" ||
	t_fail "json: flame.jvms is not 2"
run report "$F/truth/jvms-together.tar.gz"
printf '%s\n' "$out" | grep -q '^HEAVIEST CALL PATH (.* of 2 JVMs together, a fleet picture' ||
	t_fail "text: the flame graph is not labelled a fleet picture"
report_json beta --recording="${jfrs#*,}" "$F/truth/jvms-together.tar.gz"
python3 - "$W/beta.json" "${jfrs#*,}" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
rep = json.load(open(sys.argv[1]))
assert rep["flame"]["jvms"] == 1, rep["flame"]["jvms"]
assert rep["findings"], "no finding"
for f in rep["findings"]:
    assert f["recording"]["ids"] == [int(sys.argv[2])], f["recording"]
PY
t_end

t_begin report_code_heap_reports_go_with_the_jvm_of_their_folder
# fixtures/truth/jvms-together.tar.gz's files flat in one folder: alpha's
# codecache.txt cannot be told alpha's from beta's (the same folder, two
# JVMs), so it stands alone; beside alpha.jfr alone, it is alpha's (the
# only JVM).  The pids are what each workload printed (its truth JSON).
mkdir -p "$W/flat" "$W/alpha"
(cd "$W/flat" && tar -xzf "$F/truth/jvms-together.tar.gz" &&
	mv jvm-alpha/* jvm-beta/* . && rmdir jvm-alpha jvm-beta)
cp "$W/flat/alpha.jfr" "$W/flat/codecache.txt" "$W/alpha/"
report_json flat "$W/flat/alpha.jfr" "$W/flat/beta.jfr" "$W/flat/codecache.txt"
report_json alpha "$W/alpha/alpha.jfr" "$W/alpha/codecache.txt"
python3 - "$W/flat.json" "$W/alpha.json" "$F/truth/jvms-together.truth.json" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
flat, alone, truth = (json.load(open(p)) for p in sys.argv[1:4])
alpha = [t["pid"] for t in truth if t["jvm"] == "alpha"][0]
def code(rep):
    c = [f for f in rep["findings"] if f["rule"] == "code-heap"]
    assert c, "no code-heap finding"
    return c
for f in code(flat):
    r = f["recording"]
    assert r["pid"] is None and r["jvm"].startswith("JVM of recording"), r
    assert r["source"].endswith("codecache.txt") and len(r["ids"]) == 1, r
for f in code(alone):
    assert f["recording"]["pid"] == alpha, f["recording"]
PY
t_end

t_summary
