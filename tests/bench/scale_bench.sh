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
# Then (issue 42) one interleaved run, SCALE_RUNS rounds, of heapsift
# import + top --by=site, import with every CPU decoding (--jobs=the
# CPUs, at most 4: the default before one was left to the store
# writer), dump --bench --jobs=1,
# async-profiler's converter (where java and its jar are here, else
# "converter: skipped (why)") and jfr view allocation-by-site: each one's
# wall, CPU and peak RSS, and the issue's figures, as ratios of medians
# and as medians of the rounds' paired ratios (see interleaved() below).
#
# Environment: HEAPSIFT (./heapsift), SCALE_SIZES, SCALE_RUNS (import
# runs and interleaved rounds, 3), QUERY_RUNS (5), BENCH_DIR
# (build/bench), JFR_VIEW (a JDK 21+ jfr), CONVERTER_JAR,
# CONVERTER_OPTS (--alloc --total -o collapsed).
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
# The one median of every figure here, an awk function: med(v, n) sorts
# v[1..n] in place (so v[1] and v[n] are then the range) and returns
# its middle value, or the mean of the two middle ones for even n.
AWK_MED='function med(v, n,   i, j, x) {
	for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}'
# stat LABEL: "median s (min..max), peak RSS" of LABEL's runs
stat() {
	awk -v l="$1" "$AWK_MED"'
		$1 == l { t[++n] = $2; if ($3 > r) r = $3 }
		END { if (!n) { print "n/a"; exit }
		      m = med(t, n)
		      printf "%7.2f s (%.2f..%.2f, %d runs) %8.0f MiB", m, t[1], t[n], n, r / 1024 }' "$DIR/scale.t"
}
med() {
	awk -v l="$1" "$AWK_MED"'
		$1 == l { t[++n] = $2 }
		END { print n ? med(t, n) : "" }' "$DIR/scale.t"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'; }

# ---- the interleaved run beside the peers (issue 42) --------------------
# Each round runs every command once, in turn, the order rotated by one
# from round to round, so that a drift in the machine's speed falls on
# all of them alike; figures come as medians and ranges, and heapsift's
# against the converter's both as a ratio of the medians and as the
# median of the rounds' own ratios (paired: both runs of a pair saw the
# same machine).  The recording is read once first, so every run reads
# it from the page cache (the cold-cache figures are the part above).
#
# The converter is async-profiler's (CONVERTER_JAR, default
# ../shared/tools/async-profiler-converter/jfr-converter.jar), run as
# `java -jar JAR $CONVERTER_OPTS REC OUT`.  --total weighs each event by
# its bytes, as heapsift top does, instead of counting it as 1: the same
# answer as heapsift's, and it reads the same events, so it costs the
# same (measured when this was written: 1.16-1.20 s against
# 1.18-1.30 s on 0.58 GB).
CONV_JAR=${CONVERTER_JAR:-$top/../shared/tools/async-profiler-converter/jfr-converter.jar}
CONV_OPTS=${CONVERTER_OPTS:---alloc --total -o collapsed}
conv_skip=
if ! command -v java >/dev/null 2>&1; then
	conv_skip="no java on PATH"
elif [ ! -s "$CONV_JAR" ]; then
	conv_skip="no $CONV_JAR"
fi

# turn LABEL ROUND CMD...: runs CMD once; appends "LABEL ROUND wall cpu
# rss" (s, user + sys s of it and the children it waited for, peak kB)
# to $DIR/peer.t; a run that fails is noted and not counted
turn() {
	l=$1 r=$2
	shift 2
	if "$TIMEV" -f "%e %U %S %M" -o "$DIR/t.out" "$@" >/dev/null 2>"$DIR/t.err"; then
		tail -n 1 "$DIR/t.out" |
			awk -v l="$l" -v r="$r" '{ print l, r, $1, $2 + $3, $4 }' >>"$DIR/peer.t"
	else
		echo "  note: $l, round $r: $* failed ($(head -c 200 "$DIR/t.err"))"
		return 1
	fi
}

# interleaved REC STORE: the rounds, then their figures
interleaved() {
	ir=$1 is=$2
	: >"$DIR/peer.t"
	: >"$DIR/peer.decode"
	cat "$ir" >/dev/null
	# every CPU decoding, against the default's CPUs less one
	alljobs=$(nproc 2>/dev/null || echo 1)
	[ "$alljobs" -gt 4 ] && alljobs=4
	cmds="hs hs1 dump"
	[ -z "$conv_skip" ] && cmds="$cmds conv"
	[ -n "$have_view" ] && cmds="$cmds view"
	n=$(echo "$cmds" | wc -w)
	round=1
	while [ "$round" -le "$RUNS" ]; do
		# this round's order: $cmds rotated by round - 1
		order=$(echo "$cmds" | awk -v k="$round" '{ for (i = 0; i < NF; i++) printf "%s ", $(((i + k - 1) % NF) + 1) }')
		for c in $order; do
			case $c in
			hs)
				rm -f "$is"
				# the first answer: both runs' times added, the larger RSS
				if turn import "$round" "$HS" import -o "$is" "$ir" &&
					turn top "$round" "$HS" top "$is" --by=site; then
					sum=$(awk -v r="$round" '$2 == r && ($1 == "import" || $1 == "top") {
						w += $3; c += $4; if ($5 > m) m = $5 }
						END { print "hs", r, w, c, m }' "$DIR/peer.t")
					echo "$sum" >>"$DIR/peer.t"
				fi
				;;
			hs1)
				rm -f "$is"
				turn import1 "$round" "$HS" import --jobs="$alljobs" -o "$is" "$ir"
				;;
			dump)
				# heapsift's own clock and byte count: "decoded N bytes,
				# M heap events in T s: ..."
				turn dump "$round" "$HS" dump --bench --jobs=1 "$ir" &&
					sed -n "s/.*decoded \([0-9]*\) bytes,.* in \([0-9.]*\) s:.*/$round \1 \2/p" \
						"$DIR/t.err" >>"$DIR/peer.decode"
				;;
			conv)
				# CONV_OPTS is a list of options: split on purpose
				# shellcheck disable=SC2086
				turn conv "$round" java -jar "$CONV_JAR" $CONV_OPTS "$ir" "$DIR/peer.collapsed"
				;;
			view)
				turn view "$round" "$view_jfr" view allocation-by-site "$ir"
				;;
			esac
		done
		round=$((round + 1))
	done
	rm -f "$is" "$DIR/peer.collapsed"
	echo "-- interleaved: $RUNS rounds of the $n commands in turn (the order rotated each round);"
	echo "   the recording read once first, so each run reads it from the page cache"
	printf '%-40s %-22s %-22s %s\n' "" "wall s" "CPU s (user+sys)" "peak RSS MiB"
	pline "heapsift import + top --by=site" hs
	pline "  import" import
	pline "  top --by=site" top
	pline "heapsift import --jobs=$alljobs" import1
	pline "heapsift dump --bench --jobs=1" dump
	if [ -n "$conv_skip" ]; then
		echo "converter: skipped ($conv_skip)"
	else
		pline "converter $CONV_OPTS" conv
	fi
	if [ -n "$have_view" ]; then
		pline "jfr view allocation-by-site" view
	else
		echo "jfr view: skipped (needs JDK 21 or later; none here: JFR_VIEW=path/to/jfr names one)"
	fi
	echo "figures of issue 42 (the ratios: of the medians; the median of the rounds' own)"
	if [ -z "$conv_skip" ]; then
		pratio "heapsift (import + top) / converter, wall" hs conv 3
		pratio "heapsift (import + top) / converter, CPU" hs conv 4
		pratio "heapsift peak RSS / converter's" hs conv 5
	fi
	if [ -n "$have_view" ]; then
		pratio "heapsift (import + top) / jfr view, wall" hs view 3
		pratio "heapsift (import + top) / jfr view, CPU" hs view 4
	fi
	pratio "import --jobs=$alljobs / import, wall" import1 import 3
	pratio "import --jobs=$alljobs / import, CPU" import1 import 4
	bytes=$(wc -c <"$ir" | tr -d ' ')
	awk -v b="$bytes" '$1 == "import" { print $4 / (b / 1e9) }' "$DIR/peer.t" |
		msum "import CPU s per GB (10^9 bytes)" "%.2f" s
	awk -v b="$bytes" '$1 == "import1" { print $4 / (b / 1e9) }' "$DIR/peer.t" |
		msum "import --jobs=$alljobs CPU s per GB" "%.2f" s
	awk '$1 == "hs" { print $5 / 1024 }' "$DIR/peer.t" |
		msum "heapsift peak RSS (import, top)" "%.0f" MiB
	# per core: one decoding thread (--jobs=1), bytes over heapsift's own
	# clock; beside it the bytes over the process's CPU seconds
	awk '{ print $2 / 1e9 / $3 }' "$DIR/peer.decode" |
		msum "decode per core (dump --bench --jobs=1, its clock)" "%.2f" GB/s
	awk -v b="$bytes" '$1 == "dump" { print b / 1e9 / $4 }' "$DIR/peer.t" |
		msum "  bytes per CPU second of the same runs" "%.2f" GB/s
}

# pline TITLE LABEL: LABEL's wall, CPU and peak RSS, median (min..max)
pline() {
	awk -v l="$2" -v t="$1" "$AWK_MED"'
		$1 == l { n++; w[n] = $3; c[n] = $4; m[n] = $5 / 1024 }
		END {
			if (!n) { printf "%-40s n/a (no run finished)\n", t; exit }
			printf "%-40s", t
			f = "%.2f (%.2f..%.2f)"
			mw = med(w, n); mc = med(c, n); mm = med(m, n)
			printf " %-22s", sprintf(f, mw, w[1], w[n])
			printf " %-22s", sprintf(f, mc, c[1], c[n])
			printf " %.0f (%.0f..%.0f)\n", mm, m[1], m[n]
		}' "$DIR/peer.t"
}

# pratio TITLE A B FIELD: A's over B's FIELD (3 wall, 4 CPU, 5 RSS): the
# ratio of their medians, and the median of the rounds' ratios (rounds
# where both finished)
pratio() {
	awk -v t="$1" -v a="$2" -v b="$3" -v f="$4" "$AWK_MED"'
		$1 == a { x[$2] = $f; na++; va[na] = $f }
		$1 == b { y[$2] = $f; nb++; vb[nb] = $f }
		END {
			for (r in x) if ((r in y) && y[r] > 0) { np++; p[np] = x[r] / y[r] }
			if (!na || !nb || !np) { printf "%-52s n/a\n", t; exit }
			ma = med(va, na); mb = med(vb, nb)
			mp = med(p, np); lo = p[1]; hi = p[np]
			printf "%-52s %.2f of the medians; %.2f paired (%.2f..%.2f, %d rounds)\n",
				t, (mb > 0 ? ma / mb : 0), mp, lo, hi, np
		}' "$DIR/peer.t"
}

# msum TITLE FORMAT UNIT: the median (min..max) of the numbers on stdin
msum() {
	awk -v t="$1" -v f="$2" -v u="$3" "$AWK_MED"'
		{ v[++n] = $1 }
		END {
			if (!n) { printf "%-52s n/a\n", t; exit }
			m = med(v, n)
			printf "%-52s " f " %s (" f ".." f ", %d runs)\n", t, m, u, v[1], v[n], n
		}'
}

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
	interleaved "$rec" "$store"
done
exit 0
