# The estimates of JFR recordings against a workload's own truth
# (tests/estimates/EstWorkload.java prints the exact bytes each of its
# sites allocated: arrays of 4 KB, 1 KB and 2 KB, of 400 KB, about a
# TLAB's size here, and of 2 MB, larger than any TLAB), recorded by the
# JDK on this machine under settings=profile with the throttle at 2000/s:
# three runs with jdk.ObjectAllocationOutsideTLAB on, one without.
# Each site's bytes and ± must be what tests/estimates/estimate.py
# computes from `heapsift dump` (an independent implementation of
# docs/estimates.md), and the corrected estimate within issue 15's
# targets (tests/estimates/check.py).  Skipped, visibly, without a JDK.
# ESTIMATES_RUNS and ESTIMATES_SECONDS change the runs and their length
# (10 s: in runs of 5 s the first second's warm-up put the 1 KB and 2 KB
# sites 20-27% low in most runs on 2026-11-29, with the binary of
# 5117067 as with later ones; at 10 s, 4 runs of 4 were within 19%).
. "$(dirname "$0")/lib.sh"
W="$T/work"
SRC="$(cd "$(dirname "$0")/../estimates" && pwd)"
RUNS=${ESTIMATES_RUNS:-3}
SECS=${ESTIMATES_SECONDS:-10}

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	t_skip_all "no JDK (java, javac) on PATH"
fi

t_begin estimates_workload_records
mkdir -p "$W"
# record.sh runs javac and the workload; a failure fails the case
sh "$SRC/record.sh" "$W/on" "$RUNS" "$SECS" 2000 1 >"$W/rec.err" 2>&1 ||
	t_fail "recording failed: $(tail -n 5 "$W/rec.err")"
sh "$SRC/record.sh" "$W/off" 1 "$SECS" 2000 0 >"$W/rec.err" 2>&1 ||
	t_fail "recording failed: $(tail -n 5 "$W/rec.err")"
for f in "$W"/on/run-*.truth.json "$W/off/run-1.truth.json"; do
	[ -s "$f" ] || t_fail "no truth in $f"
done
t_end

t_begin estimates_corrected_within_targets_and_as_computed
i=1
while [ $i -le "$RUNS" ]; do
	r="$W/on/run-$i"
	run import -o "$r.hsdb" "$r.jfr"
	[ "$rc" = 0 ] || t_fail "import run $i: status $rc: $err"
	run dump --format=tsv --events=alloc,outside,tlab "$r.jfr"
	printf '%s\n' "$out" >"$r.tsv"
	run top "$r.hsdb" --by site --csv --estimate=corrected
	printf '%s\n' "$out" | tr -d '\r' >"$r.cor.csv"
	run top "$r.hsdb" --by site --csv --estimate=jfr
	printf '%s\n' "$out" | tr -d '\r' >"$r.jfr.csv"
	python3 "$SRC/check.py" "$r.truth.json" "$r.tsv" "$r.cor.csv" \
		"$r.jfr.csv" >"$r.bad" 2>"$r.sites" ||
		t_fail "run $i: $(cat "$r.bad") $(tail -n 3 "$r.sites")"
	sed "s/^/  run $i: /" "$r.sites" >&2
	i=$((i + 1))
done
t_end

t_begin estimates_corrected_by_default_raw_on_request_and_the_header_says_so
# the store keeps the correction (2.3), so it is the default where there
# are OutsideTLAB events; the raw weights are one option away
r="$W/on/run-1"
run top "$r.hsdb" --by site
printf '%s\n' "$out" | grep -q '^estimate: corrected (OutsideTLAB bytes exact.*--estimate=jfr' ||
	t_fail "the header does not say the corrected estimate is shown: $out"
def=$out
run top "$r.hsdb" --by site --estimate=corrected
[ "$out" = "$def" ] || t_fail "the default is not --estimate=corrected"
run top "$r.hsdb" --by site --estimate=jfr
printf '%s\n' "$out" | grep -q '^estimate: jfr (the raw weights' ||
	t_fail "--estimate=jfr: the header does not say so: $out"
[ "$(printf '%s\n' "$out" | sed -n '4,$p')" != "" ] || t_fail "no rows"
[ "$out" != "$def" ] || t_fail "--estimate=jfr shows the corrected rows"
for v in tree timeline; do
	run $v "$r.hsdb" --csv
	a=$out
	run $v "$r.hsdb" --csv --estimate=jfr
	[ "$out" != "$a" ] || t_fail "$v: the default is the raw weights"
done
run top "$r.hsdb" --by site --estimate=bogus
[ "$rc" = 2 ] || t_fail "--estimate=bogus: status $rc, expected 2"
t_end

t_begin estimates_without_outside_events_flagged_in_the_header
r="$W/off/run-1"
run import -o "$r.hsdb" "$r.jfr"
[ "$rc" = 0 ] || t_fail "import: status $rc: $err"
run top "$r.hsdb" --by site --estimate=corrected
printf '%s\n' "$out" | grep -q 'estimate: jfr (the raw weights; without OutsideTLAB events no correction is possible: a site of large objects can be far off' ||
	t_fail "the header does not warn about large objects: $out"
run dump --format=tsv --events=alloc,outside,tlab "$r.jfr"
printf '%s\n' "$out" >"$r.tsv"
run top "$r.hsdb" --by site --csv
printf '%s\n' "$out" | tr -d '\r' >"$r.jfr.csv"
# the raw weights and their ± as estimate.py computes them; no target
python3 "$SRC/check.py" "$r.truth.json" "$r.tsv" "$r.jfr.csv" "$r.jfr.csv" \
	>"$r.bad" 2>"$r.sites" ||
	t_fail "$(cat "$r.bad") $(tail -n 3 "$r.sites")"
sed "s/^/  without OutsideTLAB: /" "$r.sites" >&2
t_end

t_begin estimates_store_checks_with_squares
run info --check "$W/on/run-1.hsdb"
[ "$rc" = 0 ] || t_fail "info --check: status $rc: $err"
t_end

t_summary
