# Stores whose checksums are valid but whose values are not what heapsift
# writes (tests/jfr/forge_store.py): extreme and pre-1970 times, huge and
# negative byte counts, absurd recording times, no recordings at all, a
# 100,000-frame stack, a trie that is not numbered depth first.  Every
# view must answer or refuse with a message: never crash, never hit
# undefined behaviour (make check runs this under UBSan), never print a
# time that is not the one stored.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
W="$T/work"

run import -o "$W/good.hsdb" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr"
mkdir -p "$W/f"
python3 "$here/jfr/forge_store.py" "$W/good.hsdb" "$W/f" || {
	echo "FAIL store_forged: forge_store.py failed"
	exit 1
}

t_begin forged_stores_never_crash
for s in "$W"/f/*.hsdb; do
	[ -e "$s" ] || {
		t_fail "forge_store.py made no store: $s matches nothing"
		continue
	}
	b=$(basename "$s" .hsdb)
	for cmd in "info --check" "top --csv" "top --by site" "tree --depth 50" \
		"tree --inverted --depth 50" "timeline --csv" "timeline" \
		"export --format=csv -o $W/x-$b"; do
		set -- $cmd
		sub=$1
		shift
		run "$sub" "$s" "$@"
		case "$rc" in
		0 | 1 | 2) ;;
		*) t_fail "$b: $sub $*: exit $rc; $(printf '%s' "$err" | head -c 300)" ;;
		esac
	done
done
t_end

t_begin forged_trie_not_depth_first_is_refused
run info --check "$W/f/notdfs.hsdb"
expect_rc 1
expect_err "numbered depth first"
t_end

t_begin forged_rollups_are_refused_or_detected
# a row's bytes one more than its samples': the views cannot tell (they
# read the rollups, not the samples), info --check compares them
run info --check "$W/f/rollupbytes.hsdb"
expect_rc 1
expect_err "'rollup buckets' disagrees with the samples"
# a row's node out of range: refused when first read
# (the JFR weights: the corrected estimate reads the samples, not the
# rollups, where the recording has OutsideTLAB events)
run top --by site --estimate=jfr "$W/f/rollupnode.hsdb"
expect_rc 1
expect_err "section 'rollup rows'"
expect_err "refers outside its tables"
# a row's samples that do not add up to its bucket's
run top --by thread --estimate=jfr "$W/f/rollupcount.hsdb"
expect_rc 1
expect_err "does not add up to its bucket's samples"
run info --check "$W/f/rollupcount.hsdb"
expect_rc 1
t_end

t_begin forged_whole_recording_rollups_are_refused_or_detected
# the same of the whole recordings' rollups (3.1), which a view of the
# whole span reads in place of the time buckets': a row's bytes, found
# by info --check; a row's samples, refused when first read; a bucket
# whose span is not its time buckets', refused when the index is read
run info --check "$W/f/wholebytes.hsdb"
expect_rc 1
expect_err "'whole-recording rollup buckets' disagrees with the samples"
run top --by thread --estimate=jfr "$W/f/wholecount.hsdb"
expect_rc 1
expect_err "section 'whole-recording rollup rows'"
expect_err "does not add up to its bucket's samples"
run top --by thread --estimate=jfr "$W/f/wholespan.hsdb"
expect_rc 1
expect_err "section 'whole-recording rollup buckets', record 0 does not hold the samples of its recording's time buckets"
t_end

t_begin forged_times_before_1970_print_right
run timeline "$W/f/pre1970.hsdb" --csv --bucket 1s
expect_rc 0
# -0.5 s is half a second before midnight, 1970-01-01
printf '%s\n' "$out" | grep -q '^1969-12-31T23:59:59.000Z,' ||
	t_fail "bucket of -0.5 s: $out"
t_end

t_begin forged_deep_stack_tree_prints_every_level
# the text view (its indentation is capped; the CSV path column of so
# deep a tree is quadratic by nature), counted through a pipe
n=$(cd "$T/cwd" && "$HEAPSIFT" tree "$W/f/deep.hsdb" --depth 0 \
	--min-share 0 2>"$T/err" | wc -l)
# three header lines (title, estimate, columns), the root, 100,000 levels
[ "$n" = 100004 ] || t_fail "$n lines, not 100004: $(cat "$T/err")"
t_end

t_begin from_to_take_real_dates_only
# Feb 31 is no date (timegm would quietly make it March 3)
run top "$W/good.hsdb" --from 2026-02-31T00:00:00Z
expect_rc 2
# a real instant: the samples from it on, counted in the JDK's reference
want=$(zcat "$HS_FIXTURES/jfr/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" |
	awk -F'\t' 'NR > 1 && $1 >= "2026-11-21T23:17:12"' | wc -l)
run top "$W/good.hsdb" --from 2026-11-21T23:17:12Z --csv --estimate=jfr
expect_rc 0
got=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 { n += $2 } END { print n }')
[ "$got" = "$want" ] || t_fail "$got samples from 23:17:12, the reference has $want"
t_end

t_summary
