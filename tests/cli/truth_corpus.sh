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

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
