#!/bin/sh
# The fleet lake at scale (issue 40), part of make bench, never of make
# test: LAKE_N (10,000) distinct recordings made from the fixtures,
# imported into stores of LAKE_PER_STORE (100), exported into one lake,
# then a GROUP BY over the lake in DuckDB.  Asserts no time: machines
# here are shared and noisy.
#
# The recordings: tests/bench/jfr_restamp.py copies the fixtures of
# LAKE_MIX (a store's mix, "PATH:COUNT ...", PATH under fixtures/; the
# counts are scaled to LAKE_PER_STORE), each copy moved in time to
# 2026-12-01T00:00:00Z + g minutes + g ns for its global index g (0 ..
# LAKE_N-1: 10,000 minutes are 6.9 days), so that no two are the same
# recording (heapsift's recording identity holds the start time: a lake
# that deduplicates exact copies keeps them all) and they fall on seven
# days.  The generator writes a store's copies as one tar, imported
# with `heapsift import -o STORE TAR` and removed: as fast as the copies
# as files, or the tar piped into `import -` (whose recordings' source
# would read "-!NAME", which the fleet CSV writes as "'-!NAME", against
# formula injection).  TAR is named without a folder, so the source is
# "sS.tar!NAME" whatever BENCH_DIR is: every sample row of the fleet
# tables carries it.  The stores stay in build/bench/lake/stores/ and
# are reused while LAKE_N, LAKE_PER_STORE, LAKE_MIX, the generator and
# heapsift's version are the same.
#
# The lake (docs/export.md, "The fleet lake"):
# LAKE/TABLE/day=YYYY-MM-DD/part-X.{csv,csv.gz,parquet}, every store in
# one export call (xargs splits the list where the command line would be
# too long; LAKE_BATCH=N: N stores a call); DuckDB reads
# LAKE/samples/*/*.EXT with hive_partitioning.  Parquet only where
# heapsift writes it (it needs libduckdb: HEAPSIFT_LIBDUCKDB, else the
# npm package's that the query uses): one store exported first says;
# skipped, visibly, otherwise.  The layout before the lake (schema 1,
# one folder a recording) measured on this bench: commit 81107a9.
#
# For each format (csv, csv.gz and parquet), printed: the lake's
# files, bytes and median file size (and its samples table's), the
# export's wall time, and the GROUP BY's (per day and site: samples and
# sum(est_bytes) of jdk.ObjectAllocationSample), median of
# LAKE_QUERY_RUNS (3) runs, each in a fresh DuckDB, the files in the
# page cache.  The GROUP BY's total of samples is held to what `heapsift
# info` counts in the stores (a difference is printed, and the exit
# status is 1).  Also: whether DuckDB reads a .csv.gz made of two gzip
# members end to end.
#
# DuckDB is the npm package @duckdb/node-api, as in
# tests/cli/interchange.sh (tests/export/npm.sh; installed once).  No
# node or npm: the stores and exports are measured, the GROUP BY is not
# (said).
#
# Environment: HEAPSIFT (./heapsift), HS_FIXTURES (fixtures/), BENCH_DIR
# (build/bench), LAKE_N, LAKE_PER_STORE, LAKE_MIX, LAKE_BATCH,
# LAKE_FORMATS (csv csv.gz parquet), LAKE_QUERY_RUNS, LAKE_V2_BATCH,
# LAKE_KEEP=1 (keep the lakes, in build/bench/lake/; else removed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HS=${HEAPSIFT:-$top/heapsift}
FIX=${HS_FIXTURES:-$top/fixtures}
DIR=${BENCH_DIR:-$top/build/bench}/lake
N=${LAKE_N:-10000}
PER=${LAKE_PER_STORE:-100}
FORMATS=${LAKE_FORMATS:-csv csv.gz parquet}
RUNS=${LAKE_QUERY_RUNS:-3}
BATCH=${LAKE_BATCH:-}
MIX=${LAKE_MIX:-jfr/jdk17-default.jfr:50 jfr/jdk17-multichunk.jfr:20 jfr/jdk17-leak-gcroots.jfr:10 jfr/jdk17-killed-unfinished.jfr:5 jfr/jdk17-profile-tlab.jfr:3 workloads/diff-base.hsa:12}
BASE=2026-12-01T00:00:00Z
GEN=$top/tests/bench/jfr_restamp.py
KIND=jdk.ObjectAllocationSample

if [ ! -x "$HS" ]; then
	echo "lake_bench: no heapsift binary at $HS (run make)" >&2
	exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "lake_bench: no python3 (the recordings' generator): skipped"
	exit 0
fi
mkdir -p "$DIR/stores" && DIR=$(cd "$DIR" && pwd) || exit 1
W=$(mktemp -d "$DIR/work.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
status=0

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'; }
human() { awk -v b="$1" 'BEGIN { u = "B KiB MiB GiB TiB"; n = split(u, s, " ")
	for (i = 1; b >= 1024 && i < n; i++) b /= 1024
	printf (i == 1 ? "%.0f %s" : "%.1f %s"), b, s[i] }'; }

# --- DuckDB ------------------------------------------------------------------
. "$top/tests/export/npm.sh"
duck=
if ! command -v node >/dev/null 2>&1; then
	duck_why="no node on PATH"
elif ! npm_need "$W/npm.log" @duckdb/node-api; then
	duck_why="npm cannot install @duckdb/node-api here: $(tail -2 "$W/npm.log" 2>/dev/null)"
else
	duck=1
	lib=$NPM_CACHE/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so
	[ -n "${HEAPSIFT_LIBDUCKDB:-}" ] || [ ! -f "$lib" ] || export HEAPSIFT_LIBDUCKDB="$lib"
fi

# --- the stores ----------------------------------------------------------------
# counts: the mix scaled to R recordings, "PATH COUNT" lines (the
# rounding's remainder on the first)
counts() {
	echo "$MIX" | tr ' ' '\n' | awk -F: -v r="$1" '
		NF == 2 { p[++n] = $1; w[n] = $2; t += $2 }
		END { if (!t) exit 1
		      for (i = 1; i <= n; i++) { c[i] = int(w[i] * r / t); s += c[i] }
		      c[1] += r - s
		      for (i = 1; i <= n; i++) if (c[i] > 0) print p[i], c[i] }'
}
for p in $(counts "$PER" | cut -d' ' -f1); do
	if [ ! -f "$FIX/$p" ]; then
		echo "lake_bench: no fixture $FIX/$p (LAKE_MIX)" >&2
		exit 1
	fi
done
S=$(((N + PER - 1) / PER))
stamp="$N $PER $MIX $BASE $("$HS" --version) $(cksum <"$GEN")"
SD=$DIR/stores
store() { printf '%s/s%04d.hsdb' "$SD" "$1"; }

# the samples of KIND in a store, as `heapsift info` counts them (the
# recordings' events; `top` counts more under the corrected estimate:
# the OutsideTLAB events it folds in, docs/estimates.md)
store_samples() {
	"$HS" info "$1" 2>/dev/null | awk -v k="$KIND" '
		$1 == "samples" { for (i = 2; i < NF; i += 2) if ($i == k) s += $(i + 1) }
		END { printf "%.0f\n", s }'
}

echo
echo "Fleet lake (issue 40): $N recordings in $S stores of $PER"
echo "  a store's recordings: $(counts "$PER" | awk '{ sub(".*/", "", $1); printf "%s%s x%d", sep, $1, $2; sep = ", " }')"
if [ "$(cat "$SD/stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "  stores          reused from $SD ($(human "$(du -sb "$SD" | cut -f1)"); remove it to make them again)"
else
	rm -f "$SD"/s*.hsdb "$SD/stamp" "$SD/expected"
	t0=$(now)
	s=0
	while [ $s -lt $S ]; do
		r=$PER
		[ $((s * PER + r)) -gt "$N" ] && r=$((N - s * PER))
		# shellcheck disable=SC2046 # PATH COUNT pairs, no blanks in them
		python3 "$GEN" $(counts "$r" | awk -v f="$FIX" '{ print f "/" $1, $2 }') \
			--first $((s * PER)) --base "$BASE" --tar "$W/s$s.tar" 2>"$W/gen.err" &&
			(cd "$W" && "$HS" import -o "$(store $s)" "s$s.tar" >/dev/null 2>"$W/imp.err")
		rc=$?
		rm -f "$W/s$s.tar"
		# 3: a recording of the mix is unfinished (killed-unfinished);
		# the generator says one line a source, or what went wrong
		bad=
		[ $rc = 0 ] || [ $rc = 3 ] || bad=1
		grep -qv '^jfr_restamp: [0-9]* copies' "$W/gen.err" && bad=1
		if [ -n "$bad" ]; then
			echo "lake_bench: store $s: import exited $rc: $(head -c 300 "$W/imp.err" 2>/dev/null) $(grep -v '^jfr_restamp: [0-9]* copies' "$W/gen.err" | head -c 300)" >&2
			exit 1
		fi
		got=$("$HS" info "$(store $s)" 2>/dev/null | sed -n 's/^store .*: \([0-9]*\) recordings*, .*/\1/p')
		if [ "$got" != "$r" ]; then
			echo "lake_bench: store $s holds ${got:-no} recordings, not $r" >&2
			exit 1
		fi
		store_samples "$(store $s)" >>"$SD/expected"
		s=$((s + 1))
	done
	t1=$(now)
	echo "$stamp" >"$SD/stamp"
	echo "  stores          made in $(secs "$t0" "$t1") s (generator, then heapsift import of its tar), $(human "$(du -sb "$SD" | cut -f1)")"
fi
expected=$(awk '{ s += $1 } END { printf "%.0f\n", s }' "$SD/expected")
echo "  $KIND samples in the stores: $expected"

# --- the lake ------------------------------------------------------------------
# stats: "files bytes median" of the sizes on standard input (awk's
# %d is 32 bits in mawk: %.0f)
stats() {
	sort -n | awk '{ s[NR] = $1; t += $1 }
		END { printf "%d %.0f %.0f", NR, t, NR ? s[int((NR + 1) / 2)] : 0 }'
}
# report_lake LAKE FIND-ARGS...: the stats of LAKE's files, then of
# those that find's FIND-ARGS match too (the samples table's)
report_lake() {
	l=$1
	shift
	# shellcheck disable=SC2046 # six numbers
	set -- $(find "$l" -type f -printf '%s\n' | stats) \
		$(find "$l" -type f "$@" -printf '%s\n' | stats)
	printf '  %-15s %d files, %s bytes (%s), median file %s bytes\n' \
		"lake" "$1" "$2" "$(human "$2")" "$3"
	printf '  %-15s %d files, %s bytes (%s), median file %s bytes\n' \
		"samples table" "$4" "$5" "$(human "$5")" "$6"
}

# export_lake FORMAT LAKE: every store into LAKE, as few calls as xargs
# makes (LAKE_BATCH: that many stores a call)
export_lake() {
	case $1 in
	csv) set -- "$2" --format=csv ;;
	csv.gz) set -- "$2" --format=csv --gzip ;;
	parquet) set -- "$2" --format=parquet ;;
	esac
	l=$1
	shift
	# xargs runs the command once per batch; each call is counted
	# shellcheck disable=SC2016 # the inner sh expands them
	find "$SD" -name 's*.hsdb' | sort |
		xargs ${BATCH:+-n "$BATCH"} sh -c 'echo call >>"$0"; exec "$@"' "$W/calls" \
			"$HS" export --layout=fleet "$@" -o "$l" >/dev/null 2>"$W/exp.err" || {
		echo "  export exited $?: $(head -c 300 "$W/exp.err")"
		return 1
	}
	calls=$(wc -l <"$W/calls" | tr -d ' ')
	rm -f "$W/calls"
}

# the GROUP BY, over FILES (a glob) read by READER
group_by_sql() {
	echo "SELECT day, site, count(*) AS samples,
	        CAST(sum(est_bytes) AS BIGINT) AS est_bytes
	   FROM $2('$1', hive_partitioning = true)
	  WHERE kind = '$KIND'
	  GROUP BY ALL ORDER BY ALL"
}

# query FILES READER: LAKE_QUERY_RUNS runs, the median, and the check
query() {
	sql=$(group_by_sql "$1" "$2")
	: >"$W/q.t"
	i=0
	while [ $i -lt "$RUNS" ]; do
		if ! duckdb_sql "$sql" >"$W/q.out" 2>"$W/q.err"; then
			echo "  GROUP BY        failed: $(head -c 300 "$W/q.err")"
			status=1
			return
		fi
		sed -n 's/^ms //p' "$W/q.err" >>"$W/q.t"
		i=$((i + 1))
	done
	got=$(awk -F, '{ s += $(NF - 1) } END { printf "%.0f\n", s }' "$W/q.out")
	days=$(cut -d, -f1 "$W/q.out" | sort -u | wc -l | tr -d ' ')
	sort -n "$W/q.t" | awk -v rows="$(wc -l <"$W/q.out" | tr -d ' ')" -v d="$days" -v g="$got" '
		{ t[NR] = $1 }
		END { printf "  %-15s %.2f s, median of %d (%.2f..%.2f); %d rows (%d days), %.0f samples\n",
		      "GROUP BY", t[int((NR + 1) / 2)] / 1000, NR, t[1] / 1000, t[NR] / 1000, rows, d, g }'
	if [ "$got" != "$expected" ]; then
		echo "  DIFFERS: the GROUP BY counted $got samples of $KIND, the stores hold $expected"
		status=1
	fi
}

# parquet: where heapsift finds libduckdb
parquet_ok() {
	rm -rf "$W/probe"
	if ! "$HS" export "$(store 0)" --layout=fleet --format=parquet -o "$W/probe" >/dev/null 2>"$W/probe.err"; then
		why="heapsift says: $(head -1 "$W/probe.err")"
		return 1
	fi
	rm -rf "$W/probe"
}

for f in $FORMATS; do
	l=$DIR/lake-$(echo "$f" | tr -d .)
	echo
	echo "== $f: LAKE/TABLE/day=YYYY-MM-DD/part-X.$f, all stores in one export"
	case $f in
	csv | csv.gz) ;;
	parquet)
		if ! parquet_ok; then
			echo "  skipped: $why"
			continue
		fi
		;;
	*)
		echo "  skipped: no format $f (LAKE_FORMATS: csv csv.gz parquet)"
		continue
		;;
	esac
	rm -rf "$l"
	t0=$(now)
	export_lake "$f" "$l" || {
		status=1
		continue
	}
	t1=$(now)
	report_lake "$l" -path "$l/samples/*" -name "*.$f"
	files="$l/samples/*/*.$f" reader=read_csv
	[ "$f" = parquet ] && reader=read_parquet
	printf '  %-15s %s s, %d calls\n' export "$(secs "$t0" "$t1")" "$calls"
	if [ -n "$duck" ]; then
		query "$files" "$reader"
	else
		echo "  GROUP BY        n/a ($duck_why)"
	fi
	[ "${LAKE_KEEP:-}" = 1 ] || rm -rf "$l"
done

# --- gzip members end to end ---------------------------------------------------
# A writer that appends to a .csv.gz adds a gzip member; do readers see
# them all?
if [ -n "$duck" ]; then
	printf 'a,b\n1,x\n2,y\n' | gzip >"$W/two.csv.gz"
	printf '3,z\n4,w\n' | gzip >>"$W/two.csv.gz"
	got=$(duckdb_sql "SELECT count(*), sum(a), string_agg(b, '' ORDER BY a) FROM read_csv('$W/two.csv.gz')" 2>/dev/null)
	echo
	if [ "$got" = "4,10,xyzw" ]; then
		echo "DuckDB reads a .csv.gz of two gzip members end to end: yes (4 rows of 4)"
	else
		echo "DuckDB reads a .csv.gz of two gzip members end to end: no (got '$got' for 4,10,xyzw)"
	fi
fi
[ "${LAKE_KEEP:-}" = 1 ] && echo "lakes kept in $DIR (LAKE_KEEP=1)"
exit $status
