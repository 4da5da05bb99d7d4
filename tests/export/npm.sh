# Sourced (POSIX sh) by the scripts that run npm packages' programs
# beside heapsift's output: tests/cli/interchange.sh (speedscope),
# tests/cli/lake.sh, tests/cli/duckdb_dl.sh and tests/bench/lake_bench.sh
# (DuckDB, through @duckdb/node-api, whose libduckdb.so also writes the
# Parquet lake).  build-aux/deps.sh ci installs node and npm, so CI skips
# nothing here.  They share one folder of
# packages, installed once:
#
#   ${HS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heapsift-tests/npm}

: "${NPM_CACHE:=${HS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heapsift-tests/npm}}"

# npm_need LOG PACKAGE...: 0 when every PACKAGE (name or name@version)
# is in $NPM_CACHE/node_modules, after installing them with npm (600 s
# at most; its output in LOG) when one is missing; 1 when npm is not
# there or fails.  Names are _npm_* (sh has no locals).
npm_need() {
	_npm_log=$1
	shift
	_npm_missing=
	for _npm_p in "$@"; do
		_npm_n=${_npm_p%@*} # a scoped name without a version has no @
		[ -n "$_npm_n" ] || _npm_n=$_npm_p
		[ -f "$NPM_CACHE/node_modules/$_npm_n/package.json" ] || _npm_missing=1
	done
	[ -z "$_npm_missing" ] && return 0
	command -v npm >/dev/null 2>&1 || return 1
	mkdir -p "$NPM_CACHE" &&
		(cd "$NPM_CACHE" && timeout 600 npm install --no-audit --no-fund \
			--prefix . "$@" >"$_npm_log" 2>&1)
}

# duckdb_sql SQL: one statement run by DuckDB (tests/export/duckdb.cjs);
# its rows on standard output as comma-separated values, "ms N" (the
# time the query took) on standard error.  Needs node and
# `npm_need LOG @duckdb/node-api` first.
duckdb_sql() {
	NODE_PATH="$NPM_CACHE/node_modules" node \
		"$(dirname "$0")/../export/duckdb.cjs" "$1"
}

# libduckdb_path: the path of DuckDB's C library that @duckdb/node-api
# brought along (@duckdb/node-bindings-linux-ARCH), printed; 1 when it
# is not there
libduckdb_path() {
	case $(uname -m) in
	x86_64 | amd64) _arch=x64 ;;
	aarch64 | arm64) _arch=arm64 ;;
	*) return 1 ;;
	esac
	_lib=$NPM_CACHE/node_modules/@duckdb/node-bindings-linux-$_arch/libduckdb.so
	[ -f "$_lib" ] || return 1
	echo "$_lib"
}
