# The agent-recording importer and the survivors view, on recordings that
# tests/agent/make_recording.py writes from the format's spec, which also
# prints the ground truth: unbiased weights computed in Python from
# docs/estimates.md's formulas, fates, and where damage starts.
# (Recordings made by the real agent on a real JVM are tests/cli/agent.sh's.)
. "$(dirname "$0")/lib.sh"
W="$T/work"
MK="$(dirname "$0")/../agent/make_recording.py"

if ! command -v python3 >/dev/null 2>&1; then
	echo "python3 missing (build-aux/deps.sh test installs it)"
	t_begin agent_import_needs_python3
	t_fail "no python3"
	t_end
	t_summary
fi

# expect_out_contains TEXT: stdout contains TEXT.
expect_out_contains() {
	printf '%s\n' "$out" | grep -qF -- "$1" ||
		t_fail "stdout lacks '$1'; stdout was: $out"
}

# truth FILE EXPR: a value from the truth JSON
truth() { python3 -c "import json,sys; t=json.load(open('$1')); print($2)"; }

# top_matches STORE TRUTH TABLE BY: top --by BY --csv equals the truth's
# per-key samples and rounded bytes
top_matches() {
	run top "$1" --kind agent --by "$4" --csv
	expect_rc 0
	got=$(printf '%s\n' "$out" | tr -d '\r' | sed 1d |
		awk -F, '{ print $1 "," $2 "," $3 }' | sort)
	want=$(python3 -c "
import json
t = json.load(open('$2'))['$3']
for k in sorted(t):
    print('%s,%d,%d' % (k, t[k]['samples'], t[k]['rounded']))" | sort)
	[ "$got" = "$want" ] || t_fail "top --by $4: got
$got
want
$want"
}

t_begin agent_import_weights_match_the_formulas
python3 "$MK" basic "$W/a.hsa" >"$W/a.json" || t_fail "generator failed"
run import -o "$W/a.hsdb" "$W/a.hsa"
# one sample was not tracked: a warning, and status 3
expect_rc 3
expect_err "1 samples were not tracked"
top_matches "$W/a.hsdb" "$W/a.json" classes class
top_matches "$W/a.hsdb" "$W/a.json" sites site
# objects: 30 samples of 100,000 bytes at 64 KiB weigh 1/(1-exp(-100000/65536))
run top "$W/a.hsdb" --kind agent --by class --csv
objs=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, '$1 == "java.lang.Object[]" { print $4 }')
want=$(python3 -c "import math; print(round(30 / -math.expm1(-100000 / 65536)))")
[ "$objs" = "$want" ] || t_fail "est_objects of Object[]: $objs, want $want"
t_end

t_begin agent_import_flags_sizes_hotspot_samples_too_seldom
# HotSpot's sampler (Poisson) misses objects allocated outside a TLAB
# of 64 KiB and more and under 4 intervals (docs/estimates.md): at 64 KiB,
# [65536, 262144); the basic recording's Object[] (100,000 B, App.drop)
# is in it, byte[] (1-4 KiB) and String (24 B) are not
for by in class site; do
	run top "$W/a.hsdb" --kind agent --by $by --csv
	got=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 && $7 != "" { print $1 "=" $7 }')
	case $by in
	class) want="java.lang.Object[]=outside" ;;
	site) want="com.example.App.drop:30=outside" ;;
	esac
	[ "$got" = "$want" ] || t_fail "by $by: biased rows '$got', want '$want'"
done
run top "$W/a.hsdb" --kind agent --by site
expect_out_contains "large objects HotSpot samples too seldom"
# OpenJ9's systematic sampler takes every object of an interval or more:
# nothing to flag
python3 "$MK" openj9 "$W/j0.hsa" >/dev/null || t_fail "generator failed"
"$HEAPSIFT" import -o "$W/j0.hsdb" "$W/j0.hsa" >/dev/null 2>&1
run top "$W/j0.hsdb" --kind agent --by site --csv
got=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 && $7 != "" { print $1 }')
[ -z "$got" ] || t_fail "OpenJ9 rows flagged: $got"
t_end

t_begin agent_import_openj9_uses_systematic_weights
python3 "$MK" openj9 "$W/j.hsa" >"$W/j.json" || t_fail "generator failed"
run import -o "$W/j.hsdb" "$W/j.hsa"
expect_rc 3
top_matches "$W/j.hsdb" "$W/j.json" classes class
# by hand: byte[] (1, 2, 3, 4 KiB, ten each) and String (24 B) weigh the
# interval each, Object[] (100,000 B, above it) its size: 40 x 65536 =
# 2621440 bytes; objects 10 x (64 + 32 + 21.33 + 16) = 1333; share
# 2621440 / (2621440 + 3000000 + 655360) = 0.417640; rel_err, each
# sample adding w^2 (1 - s/w) (docs/estimates.md): sqrt(65536 x (40 x
# 65536 - 10 x (1024 + 2048 + 3072 + 4096))) / 2621440 = 0.154995;
# Object[], sampled for sure, exact
run top "$W/j.hsdb" --kind agent --by class --csv
out=$(printf '%s\n' "$out" | tr -d '\r')
expect_out_line "byte[],40,2621440,1333,0.417640,0.1550,"
expect_out_line "java.lang.Object[],30,3000000,30,0.477951,0.0000,"
run info "$W/j.hsdb"
expect_out_contains "agent#sampler=systematic"
t_end

t_begin agent_import_info_shows_the_agents_facts
run info "$W/a.hsdb"
expect_rc 0
expect_out_contains "format      agent"
expect_out_contains "jvm         OpenJDK 64-Bit Server VM 17.0.15+6"
expect_out_contains "agent#interval=65536"
expect_out_contains "agent#dropped_untracked=1"
expect_out_contains "agent#complete=yes"
t_end

t_begin survivors_by_site_follow_the_fates
run survivors "$W/a.hsdb" --by site --csv
expect_rc 0
first=$(printf '%s\n' "$out" | tr -d '\r' | head -n 1)
[ "$first" = "site,time,live_samples,est_live_bytes,est_live_objects" ] ||
	t_fail "header: $first"
# at the last point: drop's objects all died, retain's 40 are alive, and
# resize's 9 tracked samples left 4 alive (the untracked one not counted)
last() { printf '%s\n' "$out" | tr -d '\r' | awk -F, -v k="$1" '$1 == k { v = $3 } END { print v }'; }
[ "$(last com.example.App.drop:30)" = 0 ] || t_fail "drop: $(last com.example.App.drop:30) alive at the end"
[ "$(last com.example.App.retain:20)" = 40 ] || t_fail "retain: $(last com.example.App.retain:20)"
[ "$(last java.util.HashMap.resize:700)" = 4 ] || t_fail "resize: $(last java.util.HashMap.resize:700)"
# rows are in time order for each key
printf '%s\n' "$out" | tr -d '\r' | sed 1d | awk -F, '
	$1 == k && $2 < t { bad = 1 } { k = $1; t = $2 } END { exit bad }' ||
	t_fail "rows not in time order within a key"
run survivors "$W/a.hsdb" --by site
# drop's 30 died 10 ms (the median) after their allocation, each in the
# first GC after it: 0 GCs lived through
expect_out_contains "30       0         10 ms    0"
t_end

t_begin survivors_filters_min_gcs_and_before_last_gc
# drop's objects died in the first GC after their allocation: 0 survived
run survivors "$W/a.hsdb" --min-gcs 1 --csv
printf '%s\n' "$out" | grep -q "^com.example.App.drop:30," &&
	t_fail "--min-gcs 1 kept drop's objects, which survived no GC"
printf '%s\n' "$out" | grep -q "^com.example.App.retain:20," ||
	t_fail "--min-gcs 1 lost retain's objects"
# the last GC started at T0 + 15 ms; every sample is older
run survivors "$W/a.hsdb" --before-last-gc --by class --csv
expect_rc 0
n=$(printf '%s\n' "$out" | tr -d '\r' | sed 1d | cut -d, -f1 | sort -u | wc -l)
[ "$n" = 3 ] || t_fail "--before-last-gc: $n classes, want 3"
t_end

t_begin survivors_refuses_kinds_without_liveness
run survivors "$W/a.hsdb" --kind alloc
expect_rc 2
expect_err "carry no liveness"
t_end

t_begin agent_export_has_the_fates
run export "$W/a.hsdb" --format=csv -o "$W/csv"
expect_rc 0
[ -s "$W/csv/liveness.csv" ] && [ -s "$W/csv/gcs.csv" ] || t_fail "no liveness.csv or gcs.csv"
if ! command -v sqlite3 >/dev/null 2>&1; then
	t_fail "sqlite3 is missing (build-aux/deps.sh test installs it)"
else
	got=$(cd "$W/csv" && sqlite3 -csv :memory: ".import --csv liveness.csv l" \
		"SELECT state, count(*) FROM l GROUP BY state ORDER BY state;" | tr -d '\r' | tr '\n' ' ')
	want="alive_at_end,$(truth "$W/a.json" "t['alive']") dead,$(truth "$W/a.json" "t['deaths']") "
	[ "$got" = "$want" ] || t_fail "liveness states: $got, want $want"
	got=$(cd "$W/csv" && sqlite3 -csv :memory: ".import --csv gcs.csv g" "SELECT count(*) FROM g;" | tr -d '\r')
	[ "$got" = "$(truth "$W/a.json" "t['gcs']")" ] || t_fail "gcs: $got"
fi
t_end

t_begin agent_import_killed_jvm_keeps_what_was_flushed
python3 "$MK" killed "$W/k.hsa" >"$W/k.json" || t_fail "generator failed"
run import -o "$W/k.hsdb" "$W/k.hsa"
expect_rc 3
at=$(truth "$W/k.json" "t['readable_end']")
expect_err "at offset $at"
expect_err "a record cut short"
expect_err "44 tracked samples were alive at the last flush"
run info "$W/k.hsdb"
expect_out_contains "samples     heapsift.AgentSample 80"
expect_out_contains "agent#complete=no"
t_end

t_begin agent_import_corrupt_record_stops_with_its_offset
python3 "$MK" corrupt "$W/c.hsa" >"$W/c.json" || t_fail "generator failed"
run import -o "$W/c.hsdb" "$W/c.hsa"
expect_rc 3
at=$(truth "$W/c.json" "t['readable_end']")
expect_err "checksum does not match"
expect_err "at offset $at"
run info "$W/c.hsdb"
expect_out_contains "samples     heapsift.AgentSample 50"
t_end

t_begin agent_import_refuses_a_headerless_file
printf '\211HSA\r\n\032\n\001\000\000\000\000\000\000\000' >"$W/h.hsa"
run import -o "$W/h.hsdb" "$W/h.hsa"
expect_rc 1
expect_err "no header record"
printf '\211HSA\r\n\032\n\002\000\000\000\000\000\000\000' >"$W/v.hsa"
run import -o "$W/v.hsdb" "$W/v.hsa"
expect_rc 1
expect_err "major version"
t_end

t_begin agent_and_jfr_in_one_store_stay_apart
run import -o "$W/m.hsdb" "$W/a.hsa" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
expect_rc 3
run top "$W/m.hsdb" --by class --csv
# the default kind is ObjectAllocationSample; the agent's classes are not in it
printf '%s\n' "$out" | grep -q '^java.lang.Object\[\],30,' &&
	t_fail "agent samples mixed into the default kind"
top_matches "$W/m.hsdb" "$W/a.json" classes class
# append keeps the fates: survivors are the same as in the agent's own store
run survivors "$W/a.hsdb" --csv
one=$out
run import --append -o "$W/a.hsdb" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
run survivors "$W/a.hsdb" --kind agent --csv
[ "$out" = "$one" ] || t_fail "survivors changed after --append"
run info --check "$W/a.hsdb"
expect_rc 0
t_end

# --- the reviewer's inputs (fixtures/agent/review/README.md) ---------------
RV="$HS_FIXTURES/agent/review"

t_begin review_times_at_the_int64_limits
for f in end_max death_far time_min; do
	run import -o "$W/$f.hsdb" "$RV/$f.hsa"
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || t_fail "$f: import status $rc: $err"
	run survivors "$W/$f.hsdb" --csv
	expect_rc 0
done
# the object alive at the end of end_max is counted: 64 KiB and 24 B at
# 64 KiB weigh 65536 + ... (docs/estimates.md's Poisson weight, rounded)
run survivors "$W/end_max.hsdb"
expect_out_contains "66.05 kB     66.05 kB       0       1"
t_end

t_begin review_damaged_fates_are_warned_and_keep_the_store_readable
run import -o "$W/dm.hsdb" "$W/a.hsa"
run import --append -o "$W/dm.hsdb" "$RV/death_min.hsa"
expect_rc 3
expect_err "1 damaged records"
run survivors "$W/dm.hsdb"
expect_rc 0
run import --append -o "$W/dm.hsdb" "$RV/dead_and_alive.hsa"
expect_rc 3
expect_err "damaged records"
run info --check "$W/dm.hsdb"
expect_rc 0
run import -o "$W/pd.hsdb" "$RV/partial_deaths.hsa"
expect_rc 3
expect_err "1 damaged records"
t_end

t_begin review_missing_records_gc_ring_and_samplers_are_warned
run import -o "$W/mb.hsdb" "$RV/missing_batch.hsa"
expect_rc 3
expect_err "counted 80 samples written, and the file holds 50"
run import -o "$W/s3.hsdb" "$RV/sampler3.hsa"
expect_rc 3
expect_err "(sampler 3)"
run import -o "$W/gr.hsdb" "$RV/gc_ring.hsa"
expect_rc 3
expect_err "5000 GCs were seen and 4096 recorded"
# allocated after GC 4990 of 5000, alive at the end: 10 GCs survived
run survivors "$W/gr.hsdb" --min-gcs 10 --csv
printf '%s\n' "$out" | sed 1d | grep -q . || t_fail "--min-gcs 10 lost the object: $out"
run survivors "$W/gr.hsdb" --min-gcs 11 --csv
[ "$(printf '%s\n' "$out" | sed 1d | grep -c .)" = 0 ] || t_fail "--min-gcs 11 kept it: $out"
t_end

t_begin review_killed_recording_keeps_its_living_to_its_end
# deaths come later than the last GC: the recording lasts until them,
# and retain's 40 samples are alive at its last point
run survivors "$W/k.hsdb" --by site --csv
n=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, '$1 == "com.example.App.retain:20" { v = $3 } END { print v }')
[ "$n" = 40 ] || t_fail "retain at the end of the killed recording: $n live samples, want 40"
t_end

t_begin review_mixed_store_keeps_jfr_gcs
run import -o "$W/j1.hsdb" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
run survivors "$W/j1.hsdb" --kind old --min-gcs 1 --csv
one=$out
run import --append -o "$W/j1.hsdb" "$W/a.hsa"
run survivors "$W/j1.hsdb" --kind old --min-gcs 1 --csv
[ "$out" = "$one" ] || t_fail "an agent recording changed the JFR recording's GCs"
t_end

t_begin review_huge_slopes_and_too_many_points
run import -o "$W/bs.hsdb" "$RV/bigslope.hsa"
run survivors "$W/bs.hsdb" --leaks --by class
expect_rc 0
printf '%s\n' "$out" | grep -q -- "-[0-9.]* PB/s" && t_fail "a negative slope: $out"
run import -o "$W/k1.hsdb" "$RV/keys1000.hsa"
run survivors "$W/k1.hsdb" --by class --bucket 1ms
expect_rc 2
expect_err "give a wider --bucket"
t_end

t_summary
