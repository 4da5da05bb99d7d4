#!/bin/sh
# The DuckDB loader (src/export/duckdb_dl.h, heapsift issue 40) against
# DuckDB's real C library: the unit binary's TEST_ON_REQUEST cases
# (tests/unit/duckdb_dl_test.c), which the plain unit run leaves out,
# run here where the library is found.  The cases that need no library
# (a missing one, one that is not DuckDB's) are in the plain unit run.
#
# The library: $HS_LIBDUCKDB when it is set, else the one npm brings
# with @duckdb/node-api into the test cache (tests/export/npm.sh, shared
# with interchange.sh, which installs it when missing).  Without either,
# every case is a skip that says why.
#
# Each unit run goes in lib.sh's empty working folder with TMPDIR its
# empty one, so t_end also checks that DuckDB and the Parquet case left
# nothing behind.  Environment: UNIT (the unit-test binary; make test
# sets it), HS_LIBDUCKDB, HS_NPM_CACHE.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/export/npm.sh"
W=$T/work

# unit_cases WORD ENV...: the unit binary's cases whose names hold WORD,
# in $T/cwd, under env(1) ENV... (-u NAME, NAME=VALUE); a FAIL, a skip,
# a crash or no case at all fails the test.
unit_cases() {
	_word=$1
	shift
	(cd "$T/cwd" && env "$@" TMPDIR="$T/tmp" "$UNIT" "$_word" \
		>"$W/unit.out" 2>&1)
	_rc=$?
	_last=$(tail -n 1 "$W/unit.out")
	case $_last in
	[1-9]*" passed, 0 failed, 0 skipped") ;;
	*)
		t_fail "unit cases $_word: ${_last:-no count}"
		;;
	esac
	[ "$_rc" = 0 ] || t_fail "unit-tests $_word: exit status $_rc"
	[ $t_bad = 0 ] || sed 's/^/    /' "$W/unit.out"
}

lib=${HS_LIBDUCKDB:-}
why=
if [ -z "${UNIT:-}" ] || [ ! -x "$UNIT" ]; then
	why="UNIT does not name the unit-test binary (make test sets it)"
elif [ -n "$lib" ]; then
	[ -f "$lib" ] || why="HS_LIBDUCKDB names $lib, which is not a file"
elif ! npm_need "$W/npm.log" @duckdb/node-api; then
	why="npm cannot install @duckdb/node-api here, which brings libduckdb.so: $(tail -n 2 "$W/npm.log" 2>/dev/null)"
elif ! lib=$(libduckdb_path); then
	why="no libduckdb.so for $(uname -m) in $NPM_CACHE/node_modules/@duckdb/ (npm's @duckdb/node-bindings-linux-*)"
fi
[ -n "$why" ] && t_skip_all "$why"

t_begin loader_opens_queries_and_writes_parquet_with_the_library
# select, NULL, quoting, errors as DuckDB words them, a Parquet file
# written with COPY and read back with read_parquet()
unit_cases duckdb_dl_lib_ -u HS_LIBDUCKDB_SEARCH HS_LIBDUCKDB="$lib"
t_end

t_begin loader_finds_the_library_through_ld_library_path
# HEAPSIFT_LIBDUCKDB unset: "libduckdb.so" through the loader's search
unit_cases duckdb_dl_search_ -u HEAPSIFT_LIBDUCKDB -u HS_LIBDUCKDB \
	HS_LIBDUCKDB_SEARCH=1 \
	LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
t_end

t_summary
