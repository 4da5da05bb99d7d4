#!/bin/sh
# The scale half of make bench (issue 12): heapsift on multi-GB JFR
# recordings beside the JDK's own jfr on the same files.  Asserts nothing:
# machines here are shared and noisy, so it prints medians and spreads.
#
# The recordings are made by tests/bench/make_big_jfr.py out of the bench
# recording that jfr_bench.sh makes (build/bench/jfr-bench.jfr): copies of
# it, each moved later in time, so they read as one long recording.  They
# stay in build/bench/ (never committed) and are reused.
#
# For each size in SCALE_SIZES (default "512M 2G"), printed: the file's
# size; heapsift import's wall time and peak RSS; the store's size against
# the recording's; `heapsift top --by site` and `tree` on the store;
# `jfr summary`, and `jfr view allocation-by-site` where the JDK has it
# (JDK 21+), with the ratios the issue's targets are stated in; then the
# import and jfr view again, each run on a recording dropped from the
# page cache first, as a file that was not read since it was copied in.
#
# Environment: HEAPSIFT (./heapsift), SCALE_SIZES, SCALE_RUNS (import
# runs, 3), QUERY_RUNS (5), BENCH_DIR (build/bench).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HS=${HEAPSIFT:-$top/heapsift}
DIR=${BENCH_DIR:-$top/build/bench}
SRC=$DIR/jfr-bench.jfr
SIZES=${SCALE_SIZES:-512M 2G}
RUNS=${SCALE_RUNS:-3}
QRUNS=${QUERY_RUNS:-5}
TIMEV=/usr/bin/time

if [ ! -s "$SRC" ]; then
	echo "scale_bench: no $SRC (tests/bench/jfr_bench.sh makes it)" >&2
	exit 1
fi
if ! "$TIMEV" -f %e true 2>/dev/null; then
	echo "scale_bench: needs GNU time at $TIMEV (apt-get install time)" >&2
	exit 1
fi
have_jfr=
command -v jfr >/dev/null 2>&1 && have_jfr=1
have_view=
[ -n "$have_jfr" ] && jfr help view >/dev/null 2>&1 && have_view=1
# jfr view is JDK 21's: where the JDK on PATH is older, a newer one
# installed beside it (JFR_VIEW=/path/to/jfr, else the first of
# /usr/lib/jvm/*/bin/jfr that has it) answers the same question
view_jfr=jfr
if [ -z "$have_view" ]; then
	for j in ${JFR_VIEW:-} /usr/lib/jvm/*/bin/jfr; do
		if [ -x "$j" ] && "$j" help view >/dev/null 2>&1; then
			view_jfr=$j have_view=1
			break
		fi
	done
fi

# drop_cached FILE: FILE's pages out of the page cache (no root needed:
# POSIX_FADV_DONTNEED on a clean file), so that the next reader reads the
# disk
can_drop=
python3 -c 'import os; os.posix_fadvise' 2>/dev/null && can_drop=1
drop_cached() {
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# timed LABEL N CMD...: runs CMD N times; appends "LABEL wall rss" lines
# to $DIR/scale.t (wall s, peak RSS kB)
timed() {
	l=$1 n=$2
	shift 2
	i=0
	while [ $i -lt "$n" ]; do
		"$TIMEV" -f "%e %M" -o "$DIR/t.out" "$@" >/dev/null 2>"$DIR/t.err" ||
			echo "  note: $* exited $? ($(head -c 200 "$DIR/t.err"))"
		echo "$l $(cat "$DIR/t.out")" >>"$DIR/scale.t"
		i=$((i + 1))
	done
}
# stat LABEL: "median s (min..max), peak RSS" of LABEL's runs
stat() {
	awk -v l="$1" '$1 == l { print $2, $3 }' "$DIR/scale.t" | sort -n | awk '
		{ t[NR] = $1; if ($2 > r) r = $2 }
		END { if (!NR) { print "n/a"; exit }
		      printf "%7.2f s (%.2f..%.2f, %d runs) %8.0f MiB", t[int((NR + 1) / 2)], t[1], t[NR], NR, r / 1024 }'
}
med() {
	awk -v l="$1" '$1 == l { print $2 }' "$DIR/scale.t" | sort -n |
		awk '{ t[NR] = $1 } END { print NR ? t[int((NR + 1) / 2)] : "" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'; }

for size in $SIZES; do
	rec=$DIR/scale-$size.jfr
	store=$DIR/scale-$size.hsdb
	if [ ! -s "$rec" ]; then
		python3 "$top/tests/bench/make_big_jfr.py" "$SRC" "$rec" --size "$size" || exit 1
	fi
	: >"$DIR/scale.t"
	echo
	echo "== $size: $rec, $(wc -c <"$rec" | tr -d ' ') bytes"
	# timed() counts with i (sh has no locals): this loop has its own
	run=0
	while [ $run -lt "$RUNS" ]; do
		rm -f "$store"
		timed import 1 "$HS" import -o "$store" "$rec"
		run=$((run + 1))
	done
	timed top "$QRUNS" "$HS" top "$store" --by site
	timed tree "$QRUNS" "$HS" tree "$store"
	# every sample written out (one run: a 2 GB recording's samples.csv
	# is about 12 GB, written to $DIR and removed)
	rm -rf "$DIR/scale-csv"
	timed export 1 "$HS" export "$store" --format=csv -o "$DIR/scale-csv"
	cb=$(wc -c <"$DIR/scale-csv/samples.csv" 2>/dev/null | tr -d ' ')
	rm -rf "$DIR/scale-csv"
	if [ -n "$have_jfr" ]; then
		timed summary "$RUNS" jfr summary "$rec"
		[ -n "$have_view" ] && timed view "$RUNS" "$view_jfr" view allocation-by-site "$rec"
	fi
	# the same, with the recording read from disk: its pages are
	# dropped from the page cache before each run (as for a file that
	# has not been read since it was copied in); runs alternate
	if [ -n "$can_drop" ]; then
		run=0
		while [ $run -lt "$RUNS" ]; do
			rm -f "$store"
			drop_cached "$rec"
			timed import_cold 1 "$HS" import -o "$store" "$rec"
			if [ -n "$have_view" ]; then
				drop_cached "$rec"
				timed view_cold 1 "$view_jfr" view allocation-by-site "$rec"
			fi
			run=$((run + 1))
		done
	fi
	rb=$(wc -c <"$rec" | tr -d ' ')
	sb=$(wc -c <"$store" 2>/dev/null | tr -d ' ')
	printf '%-34s %s\n' "heapsift import" "$(stat import)"
	printf '%-34s %s bytes, %s x the recording\n' "store size" "${sb:-?}" "$(ratio "${sb:-}" "$rb")"
	printf '%-34s %s\n' "heapsift top --by site" "$(stat top)"
	printf '%-34s %s\n' "heapsift tree" "$(stat tree)"
	printf '%-34s %s, samples.csv %s bytes\n' "heapsift export --format=csv" "$(stat export)" "${cb:-?}"
	if [ -n "$have_jfr" ]; then
		printf '%-34s %s\n' "jfr summary" "$(stat summary)"
		echo "ratio import / jfr summary: $(ratio "$(med import)" "$(med summary)")"
	else
		echo "jfr summary: n/a (no JDK on PATH)"
	fi
	if [ -n "$have_view" ]; then
		printf '%-34s %s\n' "jfr view allocation-by-site" "$(stat view)"
		[ "$view_jfr" = jfr ] || echo "  (jfr view from $view_jfr)"
		both=$(awk -v a="$(med import)" -v b="$(med top)" 'BEGIN { print a + b }')
		echo "ratio (import + top) / jfr view: $(ratio "$both" "$(med view)")"
	else
		echo "jfr view allocation-by-site: n/a (jfr view needs JDK 21 or later; none here: JFR_VIEW=path/to/jfr names one)"
	fi
	if [ -n "$can_drop" ]; then
		printf '%-34s %s\n' "import, recording not cached" "$(stat import_cold)"
		if [ -n "$have_view" ]; then
			printf '%-34s %s\n' "jfr view, recording not cached" "$(stat view_cold)"
			both=$(awk -v a="$(med import_cold)" -v b="$(med top)" 'BEGIN { print a + b }')
			echo "ratio (import + top) / jfr view, not cached: $(ratio "$both" "$(med view_cold)")"
		fi
	else
		echo "import, recording not cached: n/a (needs python3 to drop a file's pages)"
	fi
	rm -f "$store"
done
exit 0
