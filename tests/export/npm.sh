# The npm packages the CLI suites read heapsift's exports with, installed
# once into a cache that outlives a run (POSIX sh, sourced after
# tests/cli/lib.sh).
#
#   NPM_CACHE        the cache: $HS_NPM_CACHE, else
#                    ${XDG_CACHE_HOME:-$HOME/.cache}/heapsift-tests/npm
#   npm_ready LOG    speedscope and @duckdb/node-api in NPM_CACHE,
#                    installed when missing, npm's output in LOG; 1 when
#                    npm is missing or the install fails (see LOG)
#   libduckdb_path   the path of DuckDB's C library that @duckdb/node-api
#                    brought along (@duckdb/node-bindings-linux-ARCH),
#                    printed; 1 when it is not there
#
# build-aux/deps.sh ci installs node and npm, so CI skips nothing here.
NPM_CACHE=${HS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heapsift-tests/npm}

npm_ready() {
	[ -f "$NPM_CACHE/node_modules/speedscope/package.json" ] &&
		[ -d "$NPM_CACHE/node_modules/@duckdb/node-api" ] && return 0
	command -v npm >/dev/null 2>&1 || {
		echo "npm is not installed" >"$1"
		return 1
	}
	mkdir -p "$NPM_CACHE" 2>"$1" &&
		(cd "$NPM_CACHE" && timeout 600 npm install --no-audit --no-fund \
			--prefix . speedscope@1.25.0 @duckdb/node-api >"$1" 2>&1)
}

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
