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
t_end

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
