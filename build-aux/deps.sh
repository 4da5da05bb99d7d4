#!/bin/sh
# Install the Debian packages heapsift needs to build and test, but only the
# ones that are missing, so that a machine that has everything is not touched
# and a fresh one needs no manual step.  Called by make before the first
# build (and by `make test` for the test tools).
#
#   build-aux/deps.sh build   libraries and tools to compile heapsift
#   build-aux/deps.sh test    the above plus what the test suite packs with
#   build-aux/deps.sh clang   the above plus clang (CI builds with both)
#   build-aux/deps.sh ci      everything any suite needs, so that CI skips
#                             nothing: build, test and clang, plus a JDK
#                             (java, javac, jfr, jcmd and jvmti.h for the
#                             agent and live JFR suites; Debian's
#                             openjdk-17-jdk-headless when one is missing)
#                             and man-db (install.sh renders the man page)
#
# It never downloads anything but Debian packages, and does nothing at all
# when every package is present.  `make test` asks only for "test": a
# machine without a JDK builds and passes, with the JDK suites reported as
# skipped; CI (.ci/run) asks for "ci" and counts every skip as a failure.
set -eu

what=${1:-build}
# protobuf-c: the pprof and OTLP exports (their .proto files are compiled
# at build time);
# zlib: the gzipped exports (pprof, csv --gzip)
pkgs="gcc make pkg-config libncurses-dev libarchive-dev libpcre2-dev libprotobuf-c-dev protobuf-c-compiler zlib1g-dev"
case $what in
build | test | clang | ci) ;;
*)
	echo "deps: unknown set '$what' (build, test, clang or ci)" >&2
	exit 2
	;;
esac
if [ "$what" = clang ] || [ "$what" = ci ]; then
	pkgs="$pkgs clang"
fi
if [ "$what" = test ] || [ "$what" = ci ]; then
	# tmux drives the TUI tests; bsdtar and the compressors pack the
	# nested bundles the input-layer tests read; util-linux has setpriv;
	# python3 compares the JFR import with the JDK's references; sqlite3
	# loads the CSV export.
	pkgs="$pkgs tmux libarchive-tools gzip bzip2 xz-utils zstd lz4 util-linux python3 sqlite3"
fi
if [ "$what" = ci ]; then
	# binutils: nm lists the agent's exports (agent.sh); strace sees
	# the exports sync their files (interchange.sh); the report's
	# renderers are checked by real ones (report.sh): headless Chromium
	# for the HTML, xmllint for its SVG, pandoc for the Markdown, and
	# jsonschema for the JSON
	pkgs="$pkgs man-db binutils chromium libxml2-utils pandoc strace"
	# the completion scripts are tried in the shells they are for, and
	# installed where bash-completion's loader finds them
	# (completion.sh, install.sh)
	pkgs="$pkgs zsh bash-completion"
	# a JUnit reader for diff --format=junit (gate.sh): junitparser,
	# Debian's, for /usr/bin/python3
	pkgs="$pkgs python3-junitparser"
	# jsonschema is asked for by what it provides: the python3 on PATH
	# may be another one than Debian's (pyenv) and have it already; the
	# tests use whichever of the two imports it (tests/cli/lib.sh)
	if ! python3 -c 'import jsonschema' 2>/dev/null &&
		! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		pkgs="$pkgs python3-jsonschema"
	fi
	# the export formats' real readers (interchange.sh): go tool pprof
	# for pprof, node and npm for speedscope's importer and DuckDB.
	# Node is asked for by command too: a Node.js from NodeSource carries
	# its own npm, and Debian's npm package conflicts with it.
	pkgs="$pkgs golang-go"
	# protoc decodes the OTLP and pprof exports against their upstream
	# .proto files (otlp.sh)
	pkgs="$pkgs protobuf-compiler"
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		pkgs="$pkgs nodejs npm"
	fi
	# A JDK is asked for by what it provides, not by package name: any
	# JDK on PATH with jfr and jcmd and a jvmti.h next to it will do.
	jdk_ok=
	if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 &&
		command -v jfr >/dev/null 2>&1 && command -v jcmd >/dev/null 2>&1; then
		j=$(readlink -f "$(command -v javac)")
		if [ -f "${j%/bin/javac}/include/jvmti.h" ] ||
			[ -f /usr/lib/jvm/default-java/include/jvmti.h ]; then
			jdk_ok=1
		fi
	fi
	[ -n "$jdk_ok" ] || pkgs="$pkgs openjdk-17-jdk-headless"
fi

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing (no apt-get here; install them by hand)" >&2
	exit 1
fi
sudo=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: missing packages:$missing; run as root: apt-get install -y$missing" >&2
		exit 1
	fi
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
