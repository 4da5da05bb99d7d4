# Inputs the fuzzers found (fixtures/*/fuzz/): each once crashed or
# tripped a sanitizer.  Each must now be read or refused with a message;
# make check runs this under ASan and UBSan.  JFR ones are in jfr.sh.
. "$(dirname "$0")/lib.sh"

# lazy_read STORE ARGS...: heapsift ARGS ends with 0, 1 or 3, or with a
# usage error 2 that a fuzzed store can rightly give (a store of one
# recording has no recording 1; a side whose length is not known has no
# per-second values), and no sanitizer speaks
lazy_read() {
	name=$(basename "$1")
	shift
	run "$@"
	case "$rc" in
	0 | 1 | 3) ;;
	2) case "$err" in
		*"recording 1: the store holds"* | *"give --total"*) ;;
		*) t_fail "$name: $* exit 2; $err" ;;
		esac ;;
	*) t_fail "$name: $* exit $rc; $err" ;;
	esac
	case "$err" in
	*Sanitizer* | *runtime\ error*) t_fail "$name: $*: $err" ;;
	esac
}

t_begin stores_the_fuzzer_broke_are_refused_cleanly
for f in "$HS_FIXTURES"/store/fuzz/*.hsdb; do
	# an unmatched glob stays as it is: no input is a failure
	[ -e "$f" ] || {
		t_fail "no fuzz inputs: $f matches nothing"
		continue
	}
	run info --check "$f"
	case "$rc" in
	0 | 1) ;;
	*) t_fail "$(basename "$f"): exit $rc; $err" ;;
	esac
	run top "$f" --csv
	case "$rc" in
	0 | 1) ;;
	*) t_fail "$(basename "$f"): top exit $rc; $err" ;;
	esac
	# diff and report read a store lazily, as the store fuzzer's
	# harness does (crash-diff-no-rows: qsort was given NULL, which
	# UBSan under make check reports; crash-diff-seconds-overflow: a
	# recording's forged start overflowed its length in seconds); the
	# store against itself, per second, takes each side's seconds
	lazy_read "$f" diff "$f" "$f"
	for cmd in "diff --base-recording 0 --recording 1" \
		"diff --base-recording 0 --recording 1 --total" \
		"diff --base-recording 0 --recording 1 --total --tree" \
		"report --format=json"; do
		# shellcheck disable=SC2086 # cmd is a list of words
		lazy_read "$f" $cmd "$f"
	done
done
t_end

t_begin code_heap_reports_the_fuzzer_broke_are_read_cleanly
n=0
# javacore/fuzz/ holds nothing yet: the javacore fuzzer's crashes go
# there; together the two folders must hold something
for f in "$HS_FIXTURES"/codeheap/fuzz/* "$HS_FIXTURES"/javacore/fuzz/*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	run import -o "$T/work/f.hsdb" "$f"
	case "$rc" in
	0 | 1 | 3) ;;
	*) t_fail "$(basename "$f"): exit $rc; $err" ;;
	esac
	case "$err" in
	*Sanitizer* | *runtime\ error*) t_fail "$(basename "$f"): $err" ;;
	esac
done
[ $n -gt 0 ] || t_fail "no code-heap fuzz inputs found"
t_end

t_summary
