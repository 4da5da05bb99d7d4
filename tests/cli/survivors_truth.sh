# Survivors, cohorts (--by age, --by gcs), --min-gcs, --before-last-gc
# and --leaks against arithmetic: tests/agent/survivors_truth.py writes a
# synthetic agent recording whose lives are chosen so that every live
# set, cohort and leak verdict follows by hand from the definitions in
# docs/heapsift.1 (its docstring has the table), and checks heapsift's
# CSV against the values it works out from those lives.  The verdicts
# that matter most are also written out literally below, so that a
# mistake in the Python cannot hide one in heapsift.
. "$(dirname "$0")/lib.sh"
W="$T/work"
ST="$(dirname "$0")/../agent/survivors_truth.py"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 missing (build-aux/deps.sh test installs it)"
	t_begin survivors_truth_needs_python3
	t_fail "no python3"
	t_end
	t_summary
fi

# check WHAT ARGS...: survivors --csv with ARGS agrees with the truth's WHAT
check() {
	what=$1
	shift
	run survivors "$W/s.hsdb" --bucket=1s "$@" --csv
	[ "$rc" = 0 ] || t_fail "survivors $*: status $rc: $err"
	printf '%s\n' "$out" >"$W/$what.csv"
	python3 "$ST" series "$W/truth.json" "$what" "$W/$what.csv" \
		2>"$W/$what.bad" || t_fail "survivors $*: $(cat "$W/$what.bad")"
}

t_begin survivors_truth_recording_is_valid_and_imports
python3 "$ST" make "$W/s.hsa" >"$W/truth.json" || t_fail "the generator failed"
# the generator follows the format's spec, by the spec's own checker
python3 "$(dirname "$0")/../agent/check_recording.py" --require-end \
	"$W/s.hsa" >/dev/null 2>"$W/chk.err" || t_fail "invalid: $(cat "$W/chk.err")"
run import -o "$W/s.hsdb" "$W/s.hsa"
expect_rc 0
t_end

t_begin survivors_truth_live_set_per_site_at_every_point
check site --limit 0
t_end

t_begin survivors_truth_age_cohorts_clip_lives_at_death
check age --by=age
# by hand, the live samples aged 1-10 s at 3 s and at 4 s: Leak.fast's
# births at 0.25..1.75 s (4), then 2.25, 2.75 s (6); Leak.mid, slow and
# base at 0.5, 1.5 s (3 x 2), then 2.5 s too (3 x 3); Leak.base's 40 at
# 0.1 s; Burst.grow's 1 + 3 at 0.5, 1.5 s, then 5 more at 2.5 s;
# Cache.fill's 10; Churn.tmp's none (each dies 0.7 s after its birth);
# Die.mid's 3 at 3 s only (dead at 3.3 s):
# 4 + 6 + 40 + 4 + 10 + 3 = 67, then 6 + 9 + 40 + 9 + 10 = 74
rows=$(grep '^age 1-10s,' "$W/age.csv" | sed -n '3,4p' | cut -d, -f3 | tr '\n' ' ')
[ "$rows" = "67 74 " ] ||
	t_fail "age 1-10s at 3 s and 4 s: '$rows', expected '67 74 ' (Die.mid's died at 3.3 s)"
t_end

t_begin survivors_truth_gc_cohorts_clip_lives_at_death
check gcs --by=gcs
t_end

t_begin survivors_truth_min_gcs_and_before_last_gc
check min-gcs-5 --min-gcs=5 --limit 0
check before-last-gc --before-last-gc --limit 0
t_end

t_begin survivors_truth_leak_suspects_and_their_ranking
run survivors "$W/s.hsdb" --bucket=1s --leaks --csv
[ "$rc" = 0 ] || t_fail "survivors --leaks: status $rc: $err"
printf '%s\n' "$out" >"$W/leaks.csv"
python3 "$ST" leaks "$W/truth.json" "$W/leaks.csv" 2>"$W/leaks.bad" ||
	t_fail "$(cat "$W/leaks.bad")"
# by construction, literally: the four Leak sites are the suspects,
# steepest first (200000, 150000, 100000, 70000 B/s; by peak Leak.base
# would come first); Burst.grow rises at 17 points and still grows in
# its later half but ends at 15 MB of a 32.4 MB peak: no suspect
got=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 && $7 == "yes" { printf "%s ", $1 }')
[ "$got" = "Leak.fast:11 Leak.mid:12 Leak.slow:13 Leak.base:14 " ] ||
	t_fail "suspects in order: '$got'"
printf '%s\n' "$out" | tr -d '\r' | grep -q '^Burst.grow:20,.*,no$' ||
	t_fail "Burst.grow, which does not end near its peak, is a suspect: $out"
# and the truth's rule agrees that only that clause excludes Burst.grow
python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['leaks']['Burst.grow:20']['parts']; sys.exit([k for k, v in p.items() if not v] != ['ends near peak'])" \
	"$W/truth.json" || t_fail "Burst.grow is not excluded by 'ends near its peak' alone"
t_end

t_begin survivors_truth_time_to_collection_and_gcs_of_the_dead
run survivors "$W/s.hsdb" --bucket=1s --limit 0
# Churn.tmp's lives are 0.7 s each, Die.mid's 2.8 s (0.5 s to 3.3 s)
printf '%s\n' "$out" | grep -q ' 19 .* 0 .* 700 ms .*Churn.tmp:40$' ||
	t_fail "Churn.tmp: 19 dead living 700 ms: $out"
printf '%s\n' "$out" | grep -q ' 3 .* 0 .* 2.8 s .*Die.mid:50$' ||
	t_fail "Die.mid: 3 dead living 2.8 s: $out"
# every site with deaths: the median time to collection and the median
# GCs lived through before the collecting one, as the generator counts
# them; sites with none show "-" in both
printf '%s\n' "$out" >"$W/coll.txt"
python3 - "$W/truth.json" "$W/coll.txt" <<'PY' || t_fail "see above"
import json, re, sys
t = json.load(open(sys.argv[1]))
seen = 0
for line in open(sys.argv[2]).read().splitlines()[2:]:
    key = line.split()[-1]
    m = re.search(r"\s(\d+) +(\d+) +(-|[0-9.]+ (?:ms|s)) +(-|\d+)  ", line)
    if not m:
        sys.exit("  unparsed: %r" % line)
    life, gcs = m.group(3), m.group(4)
    if key not in t["median_life_ns"]:
        if (life, gcs) != ("-", "-"):
            sys.exit("  %s: no deaths, shows %s %s" % (key, life, gcs))
        continue
    ns = t["median_life_ns"][key]
    want = "%.0f ms" % (ns / 1e6) if ns < 1e9 else "%.1f s" % (ns / 1e9)
    if (life, int(gcs)) != (want, t["median_gcs"][key]):
        sys.exit("  %s: %s after %s GCs, truth %s after %d"
                 % (key, life, gcs, want, t["median_gcs"][key]))
    seen += 1
if seen != len(t["median_gcs"]):
    sys.exit("  %d sites with deaths shown, truth has %d" % (seen, len(t["median_gcs"])))
PY
t_end

t_summary
