# tree, timeline and the old-object times against independent sums:
# tests/jfr/check_views.py adds up the samples of `heapsift dump
# --format=tsv` (itself compared here with the JDK's `jfr print` through
# the fixtures' *.ObjectAllocationSample.tsv.gz references) by the
# definitions of docs/heapsift.1 and docs/export.md, and compares every
# node and bucket; tests/jfr/check_old.py compares the jdk.OldObjectSample
# times with `jfr print --json` to the nanosecond.  Golden files cannot
# catch what these catch: they are heapsift's own past output.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
F="$HS_FIXTURES/jfr"
W="$T/work"

if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL truth: python3 is needed to compute the expected sums"
	t_failed=1
	t_summary
fi

views() { python3 "$here/jfr/check_views.py" "$@"; }

# tree_case NAME ARGS...: heapsift tree --csv with ARGS (all nodes
# shown) against the sums of $W/$f.tsv with the same ARGS
tree_case() {
	name=$1
	shift
	t_begin "tree_${f}_$name"
	# the JDK's samples: the raw weights (--estimate=jfr)
	run tree "$W/$f.hsdb" --csv --min-share 0 --estimate=jfr "$@"
	expect_rc 0
	cp "$T/out" "$W/tree.csv"
	# (no globbing: the regexes hold [ ] and ?)
	set -f
	r=$(views tree "$W/$f.tsv" "$W/tree.csv" $(win "$@")) || t_fail "$r"
	set +f
	t_end
}

# timeline_case NAME NS ARGS...: heapsift timeline --csv with buckets of
# NS nanoseconds and ARGS
timeline_case() {
	name=$1 ns=$2
	shift 2
	t_begin "timeline_${f}_$name"
	run timeline "$W/$f.hsdb" --csv --bucket "$((ns / 1000000))ms" --estimate=jfr "$@"
	expect_rc 0
	cp "$T/out" "$W/tl.csv"
	set -f
	r=$(views timeline "$W/$f.tsv" "$W/tl.csv" --bucket "$ns" \
		--jfr "$F/jdk17-$f.jfr" $(win "$@")) ||
		t_fail "$r"
	set +f
	t_end
}

# win ARGS...: ARGS with --from=X/--to=X as "--from X" (what the
# checker parses); heapsift gets them as they are
win() {
	for a in "$@"; do
		case "$a" in
		--*=*) printf '%s %s ' "${a%%=*}" "${a#*=}" ;;
		*) printf '%s ' "$a" ;;
		esac
	done
}

n_fixtures=0
for f in default multichunk profile-tlab leak-gcroots; do
	[ -f "$F/jdk17-$f.jfr" ] || continue
	n_fixtures=$((n_fixtures + 1))

	t_begin "truth_${f}_dump_matches_jfr_print"
	# the checker's input is itself checked against the JDK first
	run dump --format=tsv "$F/jdk17-$f.jfr"
	expect_rc 0
	printf '%s\n' "$out" >"$W/$f.tsv"
	run dump --format=tsv --raw-names --events=alloc "$F/jdk17-$f.jfr"
	printf '%s\n' "$out" >"$W/$f.raw.tsv"
	r=$(python3 "$here/jfr/compare_tsv.py" \
		"$F/jdk17-$f.ObjectAllocationSample.tsv.gz" "$W/$f.raw.tsv") ||
		t_fail "$r"
	run import -o "$W/$f.hsdb" "$F/jdk17-$f.jfr"
	expect_rc 0
	t_end

	tree_case plain --depth=0
	tree_case inverted --inverted --depth=0
	tree_case depth3 --depth=3
	tree_case inverted_depth2 --inverted --depth=2
	tree_case class_byte_array --depth=0 '--class=^byte\[\]$'
	tree_case thread_not_main --inverted --depth=0 '--thread=^(?!main$)'
	from=$(views second "$W/$f.tsv" alloc 2)
	to=$(views second "$W/$f.tsv" alloc 5)
	tree_case window --depth=0 "--from=$from" "--to=$to"
	tree_case window_inverted_depth4 --inverted --depth=4 \
		"--from=$from" "--to=$to" '--class=\[\]'

	timeline_case 1s 1000000000
	timeline_case 100ms 100000000
	timeline_case 3s 3000000000
	timeline_case 7ms 7000000
	timeline_case 250ms_class 250000000 '--class=^(int|long)\[\]$'
	timeline_case 500ms_window_thread 500000000 "--from=$from" "--to=$to" \
		'--thread=main'
	# whole seconds cut 300 ms buckets: the window's ends cut the
	# first and last, whose rates are over the part inside it
	timeline_case 300ms_window 300000000 "--from=$from" "--to=$to"
done
[ "$n_fixtures" = 4 ] || {
	echo "FAIL truth: $n_fixtures of the 4 JFR fixtures found in $F"
	t_failed=$((t_failed + 1))
}

# the other kinds: --kind never mixes them (docs/heapsift.1)
f=profile-tlab
tree_case kind_tlab --kind=tlab --depth=0
tree_case kind_tlab_inverted --kind=tlab --inverted --depth=3 '--class=^byte'
tree_case kind_outside --kind=outside --depth=0
timeline_case kind_tlab_200ms 200000000 --kind=tlab
timeline_case kind_outside_1s 1000000000 --kind=outside
f=leak-gcroots
tree_case kind_outside --kind=outside --inverted --depth=0
tree_case kind_old --kind=old --depth=0
timeline_case kind_old_2s 2000000000 --kind=old
f=multichunk
tree_case kind_old --kind=old --inverted --depth=5

# A killed JVM (jdk17-killed-unfinished.jfr, an unfinished chunk): its
# recording ends at its last flush, the chunk header's start plus
# duration, which the JVM rewrites at every flush; the last bucket's
# rates are over the time up to there
t_begin timeline_killed_ends_at_the_last_flush
run import -o "$W/killed.hsdb" "$F/jdk17-killed-unfinished.jfr"
[ "$rc" -eq 3 ] || t_fail "import exited $rc, expected 3 (an unfinished chunk)"
run dump --format=tsv "$F/jdk17-killed-unfinished.jfr"
printf '%s\n' "$out" >"$W/killed.tsv"
for ms in 500 1000; do
	run timeline "$W/killed.hsdb" --csv --bucket=${ms}ms --estimate=jfr
	expect_rc 0
	cp "$T/out" "$W/tl.csv"
	r=$(views timeline "$W/killed.tsv" "$W/tl.csv" --bucket $((ms * 1000000)) \
		--jfr "$F/jdk17-killed-unfinished.jfr") || t_fail "${ms}ms: $r"
done
t_end

# Two recordings of two JVMs, one after the other, in one store: the
# buckets between them are covered by neither (no rate), and those that
# one starts or ends in are covered in part (docs/heapsift.1, timeline)
t_begin timeline_two_recordings_apart
rm -f "$W/two.hsdb"
run import -o "$W/two.hsdb" "$F/jdk17-default.jfr" "$F/jdk17-profile-tlab.jfr"
expect_rc 0
# one dump a recording: the pooled term's threads are each recording's
run dump --format=tsv "$F/jdk17-default.jfr"
printf '%s\n' "$out" >"$W/two-a.tsv"
run dump --format=tsv "$F/jdk17-profile-tlab.jfr"
printf '%s\n' "$out" >"$W/two-b.tsv"
for ms in 100 250 1000; do
	run timeline "$W/two.hsdb" --csv --bucket=${ms}ms --estimate=jfr
	expect_rc 0
	cp "$T/out" "$W/tl.csv"
	# the gap is there: a bucket that neither recording covers
	[ "$ms" != 100 ] || tr -d '\r' <"$W/tl.csv" | grep -q ',,,0\.000000000$' ||
		t_fail "${ms}ms: no bucket between the two recordings"
	r=$(views timeline "$W/two-a.tsv,$W/two-b.tsv" "$W/tl.csv" --bucket $((ms * 1000000)) \
		--jfr "$F/jdk17-default.jfr,$F/jdk17-profile-tlab.jfr") ||
		t_fail "${ms}ms: $r"
done
t_end

t_begin old_object_times_match_jfr_print
if ! command -v jfr >/dev/null 2>&1; then
	t_skip "the JDK's jfr tool is not installed"
else
	# leak-gcroots is one chunk: jfr print and heapsift convert its
	# ticks with the same time base, so they agree to the nanosecond
	jfr print --json --events jdk.OldObjectSample \
		"$F/jdk17-leak-gcroots.jfr" >"$W/old.json" ||
		t_fail "jfr print failed"
	run export "$W/leak-gcroots.hsdb" --format=csv -o "$W/leak-csv"
	expect_rc 0
	run dump --format=tsv --events=old "$F/jdk17-leak-gcroots.jfr"
	printf '%s\n' "$out" >"$W/old.tsv"
	r=$(python3 "$here/jfr/check_old.py" "$W/old.json" "$W/leak-csv" \
		"$W/old.tsv") || t_fail "$r"
	t_end
fi

t_begin heap_summaries_match_jfr_print
if ! command -v jfr >/dev/null 2>&1; then
	t_skip "the JDK's jfr tool is not installed"
else
	# the Parallel GC run of the truth corpus: its committed heap moves
	# below the reserved one, so the two cannot stand in for each other
	# (the fixtures above run with -Xms = -Xmx); compared by GC id and
	# when, not time (a later chunk's times differ by ~100 ns)
	gzip -dc "$HS_FIXTURES/truth/jdk17-gcheap-sawtooth-par.jfr.gz" >"$W/par.jfr"
	jfr print --json --events jdk.GCHeapSummary "$W/par.jfr" >"$W/heap.json" ||
		t_fail "jfr print failed"
	run import -o "$W/par.hsdb" "$W/par.jfr"
	expect_rc 0
	run export "$W/par.hsdb" --format=csv -o "$W/par-csv"
	expect_rc 0
	python3 - "$W/heap.json" "$W/par-csv/heap_summaries.csv" <<'PY' 2>"$W/bad" || t_fail "$(cat "$W/bad")"
import collections, csv, json, sys
want = collections.Counter()
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    v = e["values"]
    want[(v["gcId"], v["when"], v["heapUsed"], v["heapSpace"]["committedSize"],
          v["heapSpace"]["reservedSize"])] += 1
got = collections.Counter(
    (int(r["gc_id"]), r["when"], int(r["used"]), int(r["committed"]), int(r["reserved"]))
    for r in csv.DictReader(open(sys.argv[2], newline="")))
assert len({k[3] for k in want}) > 1, "the committed size never moves"
bad = sorted(want - got)[:3] + sorted(got - want)[:3]
assert not bad, "jfr print and heap_summaries.csv differ: %s" % bad
PY
	t_end
fi

# Code-heap maps cell by cell: synthetic reports (fixtures/codeheap/
# README.md) whose maps hold every character the grammar allows, each at
# a known granule, against what the grammar says it means
C="$HS_FIXTURES/codeheap"
t_begin codeheap_every_cell_character_means_what_the_grammar_says
set -- "$C"/synthetic-*.txt.gz
[ -f "$1" ] || t_fail "no synthetic code-heap reports in $C"
n=0
for rep in "$@"; do
	[ -f "$rep" ] || continue
	rm -f "$W/ch.hsdb"
	run import -o "$W/ch.hsdb" "$rep"
	case "$rep" in
	# its legend lacks the Q that tests an unexplained letter
	*letters*) expect_rc 3 && expect_err "'Q' is not in the report's block-type legend" ;;
	*) expect_rc 0 ;;
	esac
	run codeheap "$W/ch.hsdb" --granules --csv
	expect_rc 0
	cp "$T/out" "$W/granules.csv"
	r=$(python3 "$here/codeheap/cells.py" check "$rep" "$W/granules.csv" 0) ||
		t_fail "$(basename "$rep"): $r"
	n=$((n + 1))
done
[ "$n" -ge 2 ] || t_fail "only $n synthetic reports"
t_end

t_begin codeheap_text_maps_redraw_every_cell
# 267 granules at 128 cells a line: one cell per granule, so heapsift
# must print each map's cells as the report has them
rep="$C/synthetic-noseg-allcells-65536.txt.gz"
rm -f "$W/ch.hsdb"
run import -o "$W/ch.hsdb" "$rep"
for m in count:'Total (all tiers) count,' space:'Total (all types) space consumption.' age:'Age distribution.'; do
	run codeheap "$W/ch.hsdb" --map="${m%%:*}" --width=128
	expect_rc 0
	got=$(printf '%s\n' "$out" | awk '/^    0x[0-9a-f]+ \|/ {
		sub(/^[^|]*\|/, ""); sub(/\|$/, ""); printf "%s", $0 }')
	want=$(gzip -dc "$rep" | awk -v t="${m#*:}" '
		/^\|  / { on = index($0, "|  " t) == 1; next }
		on && /^0x[0-9a-f]+ \(\+0x[0-9a-f]+\): \|/ {
			sub(/^[^|]*\|/, ""); sub(/\|$/, ""); printf "%s", $0 }')
	[ ${#want} = 267 ] || t_fail "${m%%:*}: the report's map has ${#want} cells, not 267"
	[ "$got" = "$want" ] ||
		t_fail "--map=${m%%:*}: heapsift draws '$got', the report has '$want'"
done
t_end

# Weights and sizes at and beyond 2^32 and around 2^63, in a synthetic
# recording (tests/jfr/make_jfr.py), through import, the store, top,
# tree, timeline and export: exact up to INT64_MAX, "not recorded" for a
# negative Java long (2^63 and above as written), sums held at INT64_MAX
big="4294967295 4294967296 4294967297 1099511627776 9223372036854775807
9223372036854775807 9223372036854775808 18446744073709551611"
python3 "$here/jfr/make_jfr.py" "$W/big.jfr" $big

t_begin big_weights_the_jdk_reads_them_as_written
if ! command -v jfr >/dev/null 2>&1; then
	t_skip "the JDK's jfr tool is not installed"
else
	# the writer's own check: the JDK reads back every value written
	jfr print --json "$W/big.jfr" >"$W/big.json" || t_fail "jfr print failed"
	r=$(python3 "$here/jfr/check_big.py" json "$W/big.json" $big) ||
		t_fail "$r"
	t_end
fi

# big_through NAME: $W/NAME.jfr through import, top, tree, timeline and
# export, checked against the values written ($big)
big_through() {
	mkdir -p "$W/$1"
	run import -o "$W/$1.hsdb" "$W/$1.jfr"
	expect_rc 0
	for k in alloc tlab outside; do
		run top "$W/$1.hsdb" --csv --by=class --kind=$k --estimate=jfr
		expect_rc 0
		cp "$T/out" "$W/$1/top-$k.csv"
		run tree "$W/$1.hsdb" --csv --depth=0 --min-share=0 --kind=$k --estimate=jfr
		expect_rc 0
		cp "$T/out" "$W/$1/tree-$k.csv"
		run timeline "$W/$1.hsdb" --csv --bucket=1s --kind=$k --estimate=jfr
		expect_rc 0
		cp "$T/out" "$W/$1/tl-$k.csv"
	done
	run export "$W/$1.hsdb" --format=csv -o "$W/$1/export"
	expect_rc 0
	r=$(python3 "$here/jfr/check_big.py" heapsift "$W/$1" $big) || t_fail "$r"
}

t_begin big_weights_exact_through_the_store_sums_saturate
big_through big
t_end

# The same values in events without an eventThread field: the reader's
# general path (decode_sample()), which no JDK recording takes
python3 "$here/jfr/make_jfr.py" --no-thread "$W/big-nt.jfr" $big
t_begin big_weights_exact_on_the_general_path
if command -v jfr >/dev/null 2>&1; then
	jfr print --json "$W/big-nt.jfr" >"$W/big-nt.json" || t_fail "jfr print failed"
	r=$(python3 "$here/jfr/check_big.py" json "$W/big-nt.json" $big) ||
		t_fail "the JDK: $r"
fi
big_through big-nt
t_end

t_begin timeline_samples_on_bucket_boundaries
# every event of the first recording lies exactly on a millisecond, every
# event of the second 1 ns before one: a sample on a boundary belongs to
# the bucket that starts there, never the one before, and a sample in a
# bucket's last nanosecond to that bucket, never the next (docs/heapsift.1)
for start in 1795301015000000000 1795301014999999999; do
	python3 "$here/jfr/make_jfr.py" --start-ns $start \
		"$W/edge.jfr" 1 2 3 4 5 6 7 8 9 10 11 12 13
	rm -f "$W/edge.hsdb"
	run import -o "$W/edge.hsdb" "$W/edge.jfr"
	expect_rc 0
	run dump --format=tsv "$W/edge.jfr"
	printf '%s\n' "$out" >"$W/edge.tsv"
	for k in alloc tlab outside; do
		for ms in 1 2 3 5; do
			run timeline "$W/edge.hsdb" --csv --bucket=${ms}ms --kind=$k --estimate=jfr
			expect_rc 0
			cp "$T/out" "$W/tl.csv"
			r=$(views timeline "$W/edge.tsv" "$W/tl.csv" \
				--bucket $((ms * 1000000)) --kind $k \
				--jfr "$W/edge.jfr") ||
				t_fail "start $start --kind=$k ${ms}ms: $r"
		done
	done
done
t_end

t_summary
