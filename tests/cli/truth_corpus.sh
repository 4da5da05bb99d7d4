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

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
