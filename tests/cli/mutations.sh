#!/bin/sh
# The mutation list (tests/mutate/mutations) still applies, checked in
# `make test` with no build: `tests/mutate/run --check` parses the list
# and finds every mutation's source text exactly once in its file, and
# every "suite:" hint names a suite that can catch.  Without it a
# refactor that moves a mutation's code turns the mutation into one that
# `make mutate` refuses (or, were it not refused, a no-op) and nobody
# notices until the next mutation run.  A refactor that moves a
# mutation's text must move the mutation with it (docs/development.md).
#
# The other cases prove the check can fail: it is run on altered copies
# of the list (a text changed, a text that occurs twice, a missing file,
# a no-op, a bad hint, a block left open) and must fail, naming the
# mutation and saying what to do.
#
# A mutant of `make mutate` skips this suite (HS_MUTANT): there the
# mutation's text is replaced on purpose.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$TOP/tests/mutate/run
LIST=$TOP/tests/mutate/mutations
W=$T/work

if [ -n "${HS_MUTANT:-}" ]; then
	t_skip_all "a mutant (HS_MUTANT=$HS_MUTANT): its mutation's text is replaced on purpose"
fi
if ! command -v python3 >/dev/null; then
	t_skip_all "no python3 (build-aux/deps.sh test installs it)"
fi

# check [FILE]: tests/mutate/run --check on FILE (default: the list);
# sets $rc and $msg (stdout and stderr)
check() {
	if [ $# -gt 0 ]; then
		msg=$("$RUN" --check --list "$1" 2>&1)
	else
		msg=$("$RUN" --check 2>&1)
	fi
	rc=$?
}
# expect_bad WHAT: the last check failed and its message has WHAT
expect_bad() {
	[ "$rc" != 0 ] || t_fail "the check passed a list with $1"
	case $msg in
	*"$2"*) ;;
	*) t_fail "the message lacks '$2': $msg" ;;
	esac
}

# The list's first mutation: its name, its file, its block alone
first=$(sed -n 's/^== \([^ ]*\) .*/\1/p' "$LIST" | head -n 1)
file=$(sed -n 's/^== [^ ]* \(.*\)/\1/p' "$LIST" | head -n 1)
awk '/^== / { n++ } n == 1 { print } n == 1 && /^>>>$/ { exit }' "$LIST" >"$W/first"

t_begin mutations_apply
check
if [ "$rc" != 0 ]; then
	t_fail "tests/mutate/run --check fails (exit $rc):
$msg"
elif [ -n "$msg" ]; then
	t_fail "the check passed but printed: $msg"
fi
t_end

t_begin mutations_count
# the list is meant to cover every module: a parse that found only a
# few mutations would be a broken parser, not a good list
n=$(grep -c '^== ' "$LIST")
[ "$n" -ge 30 ] || t_fail "only $n mutations in $LIST"
t_end

t_begin check_fails_on_moved_text
awk 'done != 1 && prev == "<<<" { $0 = $0 " /* moved away */"; done = 1 }
	{ print; prev = $0 }' "$LIST" >"$W/moved"
cmp -s "$LIST" "$W/moved" && t_fail "the copy was not altered"
check "$W/moved"
expect_bad "a text that moved" "$first"
expect_bad "a text that moved" "occurs 0 times"
expect_bad "a text that moved" "must move the mutation with it"
t_end

t_begin check_fails_on_text_twice
cp "$LIST" "$W/twice"
printf '\n== twice_here %s\n<<<\n}\n===\n\n>>>\n' "$file" >>"$W/twice"
check "$W/twice"
expect_bad "a text found twice" "twice_here"
expect_bad "a text found twice" "not once"
t_end

t_begin check_fails_on_missing_file
sed "1s|^== \([^ ]*\) .*|== \1 src/no/such/file.c|" "$W/first" >"$W/gone"
check "$W/gone"
expect_bad "a missing file" "$first"
expect_bad "a missing file" "no file src/no/such/file.c"
t_end

t_begin check_fails_on_noop
# the block with its replacement made its source text
awk '/^===$/ { skip = 1; print; print old; next }
	/^>>>$/ { skip = 0 }
	/^<<<$/ { take = 1; print; next }
	take && !skip { old = old (old == "" ? "" : "\n") $0 }
	!skip { print }' "$W/first" >"$W/noop"
check "$W/first"
[ "$rc" = 0 ] || t_fail "the first block alone does not pass: $msg"
check "$W/noop"
expect_bad "a no-op" "$first"
expect_bad "a no-op" "no bug"
t_end

t_begin check_fails_on_bad_hint
for h in cli/no_such_suite golden cli/views_md5 cli/mutations; do
	sed "1a\\
suite: $h" "$W/first" >"$W/hint"
	check "$W/hint"
	expect_bad "the hint $h" "its hint $h"
done
t_end

t_begin check_fails_on_unclosed_block
sed '/^>>>$/d' "$W/first" >"$W/open"
check "$W/open"
expect_bad "an unclosed block" "not closed"
t_end

# A mutant is caught only by a case that fails because of the mutation:
# the runner's verdict, on the failures a mutant's run and an unmutated
# run of the same suites report.  (Before, any failed suite, or a suite's
# non-zero status with no FAIL line, counted as caught: as root, faults'
# case run as nobody failed in the runner's 0700 copy and "caught" every
# mutant that reached it.)
t_begin verdict_needs_a_case_that_passes_unmutated
v=$(python3 - "$RUN" 2>&1 <<'PY'
import sys
from importlib.machinery import SourceFileLoader
r = SourceFileLoader("mutate_run", sys.argv[1]).load_module()
a, b = "cli/faults: nobody_cannot_write", "cli/diff: change_sign"
print(r.verdict([a], [a])[0], r.verdict([a, b], [a]), r.verdict([], [])[0],
      r.failed_suites([a, b, "cli/diff: x"]))
PY
)
[ "$v" = "UNSURE ('caught', ['cli/diff: change_sign']) None ['cli/diff', 'cli/faults']" ] ||
	t_fail "the verdicts: $v"
t_end

t_summary
