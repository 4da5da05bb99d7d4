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

# timeline sums the samples of every JVM the filters leave: over the
# two-JVM bundle it says it is a fleet figure of as many JVMs as the
# truth holds; over one JVM's two files, or one JVM's recording, not
t_begin jvms_timeline_labels_a_fleet
for b in jvms-together jvms-chunks; do
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$C/$b.truth.json")
	case $b in
	jvms-chunks) set -- "$C/jvms-chunks-0.jfr.gz" "$C/jvms-chunks-1.jfr.gz" ;;
	*) set -- "$C/$b.tar.gz" ;;
	esac
	store=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"])' "$W/$b.json")
	run timeline "$store"
	expect_rc 0
	if [ "$n" -gt 1 ]; then
		printf '%s\n' "$out" | grep -q "^fleet: $n JVMs' samples added together" ||
			t_fail "$b: timeline does not say it adds $n JVMs: $(printf '%s\n' "$out" | head -n 4)"
		one=$(python3 -c 'import json,sys; print([i for i, r in enumerate(json.load(open(sys.argv[1]))["recordings"]) if r["source"].endswith(".jfr")][-1])' "$W/$b.json")
		run timeline "$store" --recording="$one"
		printf '%s\n' "$out" | grep -q '^fleet:' && t_fail "$b: one JVM's timeline says fleet"
	else
		printf '%s\n' "$out" | grep -q '^fleet:' && t_fail "$b: one JVM's timeline says fleet"
	fi
done
t_end

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
