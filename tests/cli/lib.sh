# Shared helpers for the tests/cli/*.sh suites (POSIX sh).
#
#   t_begin NAME            start a test case
#   t_check DESC CONDITION  (use "t_ok"/"t_fail" inside)
#   t_end                   print "ok NAME" or "FAIL NAME"
#   t_skip REASON           end the current case as skipped, visibly:
#                           "skip NAME: REASON" (counted, never a pass)
#   t_skip_all REASON       the whole suite cannot run here: every case of
#                           the script ("t_begin NAME" lines of $0, names
#                           written literally) is reported and counted as
#                           "skip NAME: REASON"; then t_summary
#   t_summary               print "N passed, N failed, N skipped", exit 0/1
#   run ARGS...             run $HEAPSIFT with ARGS: sets $out, $err, $rc
#   have_pandoc             pandoc on PATH, installed where it can be
#
# Every case runs heapsift in an empty working directory with TMPDIR set
# to another empty directory, and t_end checks that both are still empty:
# heapsift must never write to disk while reading inputs.
set -u
: "${HEAPSIFT:?HEAPSIFT must name the heapsift binary}"
: "${HS_FIXTURES:=$(cd "$(dirname "$0")/../../fixtures" && pwd)}"
T=$(mktemp -d) || exit 1
NOBODY_DIR=
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T" ${NOBODY_DIR:+"$NOBODY_DIR"}' EXIT INT TERM
mkdir -p "$T/work" "$T/cwd" "$T/tmp"
t_passed=0 t_failed=0 t_skipped=0 t_name= t_bad=0

t_begin() { t_name=$1; t_bad=0; }
t_fail() {
	echo "  $t_name: $*"
	t_bad=1
}
t_end() {
	if [ -n "$(ls -A "$T/cwd")$(ls -A "$T/tmp")" ]; then
		t_fail "heapsift wrote files: $(ls -A "$T/cwd" "$T/tmp")"
		rm -rf "$T/cwd"/* "$T/tmp"/*
	fi
	if [ $t_bad = 0 ]; then
		echo "ok $t_name"
		t_passed=$((t_passed + 1))
	else
		echo "FAIL $t_name"
		t_failed=$((t_failed + 1))
	fi
}
t_skip() {
	echo "skip $t_name: $*"
	t_skipped=$((t_skipped + 1))
	rm -rf "$T/cwd"/* "$T/tmp"/*
}
t_skip_all() {
	_names=$(sed -n 's/^[[:space:]]*t_begin[[:space:]]\{1,\}//p' "$0" |
		sed 's/^"\(.*\)"$/\1/')
	case $_names in
	'' | *'$'*)
		# a suite whose names are built at run time lists its own skips
		t_name=skip_all
		t_fail "t_skip_all: no literal t_begin names in $0 (reason: $*)"
		t_end
		t_summary
		;;
	esac
	while IFS= read -r t_name; do
		t_skip "$*"
	done <<EOF
$_names
EOF
	t_summary
}
t_summary() {
	echo "$t_passed passed, $t_failed failed, $t_skipped skipped"
	[ $t_failed = 0 ]
	exit $?
}

# run ARGS...: heapsift in $T/cwd; stdout in $out, stderr in $err.
run() {
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" "$@" \
		>"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# expect_rc N: the last run exited with N.
expect_rc() {
	[ "$rc" = "$1" ] || t_fail "exit status $rc, expected $1; stderr: $err"
}
# expect_out_line LINE: stdout has exactly this line.
expect_out_line() {
	printf '%s\n' "$out" | grep -qxF -- "$1" ||
		t_fail "stdout lacks line '$1'; stdout was: $out"
}
# expect_err TEXT: stderr contains TEXT.
expect_err() {
	printf '%s\n' "$err" | grep -qF -- "$1" ||
		t_fail "stderr lacks '$1'; stderr was: $err"
}
# expect_no_err: stderr is empty.
expect_no_err() {
	[ -z "$err" ] || t_fail "unexpected stderr: $err"
}
# nobody_dir: for a case that runs heapsift as user nobody (65534, through
# setpriv): sets NOBODY_DIR to a new folder that nobody can enter, holding
# a copy of $HEAPSIFT as $NOBODY_DIR/heapsift.  A test must not depend on
# where the clone is: the clone (root's home is mode 0700), its binary
# and TMPDIR, where $T is, may all be closed to other users, so the
# folder is made in /tmp (HS_NOBODY_TMP overrides), mode 0711, and
# checked.  Removed on exit, or by nobody_dir_done.  Returns 1, with the
# reason in $nobody_why, when nobody cannot reach it (then skip).
nobody_dir() {
	NOBODY_DIR=$(mktemp -d "${HS_NOBODY_TMP:-/tmp}/heapsift-nobody.XXXXXX") || {
		nobody_why="cannot make a folder in ${HS_NOBODY_TMP:-/tmp}"
		NOBODY_DIR=
		return 1
	}
	chmod 0711 "$NOBODY_DIR"
	cp "$HEAPSIFT" "$NOBODY_DIR/heapsift" && chmod 0755 "$NOBODY_DIR/heapsift"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$NOBODY_DIR/heapsift" --version >/dev/null 2>"$T/nobody.err" || {
		nobody_why="user nobody cannot run $NOBODY_DIR/heapsift: $(cat "$T/nobody.err")"
		return 1
	}
}
nobody_dir_done() {
	[ -n "$NOBODY_DIR" ] && chmod -R u+rwx "$NOBODY_DIR" && rm -rf "$NOBODY_DIR"
	NOBODY_DIR=
}

# size FILE: bytes in FILE (the independent truth for "bytes" columns).
size() { wc -c <"$1" | tr -d ' '; }

# The python3 that can import jsonschema: the one on PATH (pyenv's, say)
# or Debian's, where build-aux/deps.sh installs python3-jsonschema.
# Empty when neither can.
py_jsonschema() {
	for py in python3 /usr/bin/python3; do
		if "$py" -c 'import jsonschema' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	return 1
}

# have_cmd CMD PACKAGE: CMD is on PATH, installed from Debian's PACKAGE
# first where this runs as root with apt-get; 1 when it cannot be had
# (then skip, visibly).
have_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "$2" >/dev/null 2>&1
	fi
	command -v "$1" >/dev/null 2>&1
}

# have_pandoc: pandoc (build-aux/deps.sh test installs it too).
NOPANDOC="no pandoc, and it cannot be installed here (apt-get install pandoc)"
have_pandoc() { have_cmd pandoc pandoc; }
# have_go: go, for go tool pprof (Debian's golang-go).
have_go() { have_cmd go golang-go; }
