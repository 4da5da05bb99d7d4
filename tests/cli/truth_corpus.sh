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

t_begin corpus_has_cases
[ "$n" -gt 0 ] || t_fail "no case in $C"
t_end

t_summary
