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
