#!/bin/sh
# Every command that reads a store takes recordings and bundles too
# (issue 36, item 8): given inputs instead of a store, top, tree,
# timeline, survivors, codeheap, info, export, diff, browse and report
# import them into the cache store (src/cli/cache.c) under their own
# name, and answer as they do from a store imported by hand.  And one
# rule for inputs that no importer recognises, in every command
# (src/cli/intake.h, docs/inputs.md): a file named on the command line
# that is not recognised is an error (exit status 1, the other inputs
# still read), a bundle's README and logs get one note and change
# nothing, a bundle with nothing recognised in it is an error; each
# message is under the command's own name and says why.
#
# Expected values come from outside heapsift: the sample counts the JDK's
# jfr summary gives (fixtures/jfr/*.expected.json: jdk17-default 2188
# ObjectAllocationSample + 120 OldObjectSample), the exit statuses the
# README and heapsift(1) document, the names chosen when packing; and,
# for "answers as from a store", the same command on a store that
# heapsift import wrote from the same file.
. "$(dirname "$0")/lib.sh"
W=$T/work
F=$HS_FIXTURES
A=$F/jfr/jdk17-default.jfr
B=$F/jfr/jdk17-leak-gcroots.jfr
CH=$F/codeheap/jdk17-seg-jcmd-codecache.txt
# the cache store goes here, never into the working directory or ~
export XDG_CACHE_HOME="$W/cache"

t_begin 0_prerequisites
for f in "$A" "$B" "$CH"; do
	[ -f "$f" ] || t_fail "missing fixture $f"
done
command -v bsdtar >/dev/null 2>&1 ||
	t_fail "missing bsdtar (build-aux/deps.sh test installs it)"
t_end

# the stores imported by hand, to compare with
run import -o "$W/A.hsdb" "$A"
[ "$rc" = 0 ] || echo "  setup: import of $A: $rc $err"
run import -o "$W/B.hsdb" "$B"
run import -o "$W/C.hsdb" "$CH"
printf 'case notes: the customer says it is slow\n' >"$W/notes.txt"
mkdir -p "$W/bundle" "$W/logs"
cp "$A" "$W/bundle/rec.jfr"
printf 'how this bundle was made\n' >"$W/bundle/README"
printf '2026-11-28 app started\n' >"$W/bundle/app.log"
cp "$W/bundle/README" "$W/bundle/app.log" "$W/logs/"
(cd "$W/bundle" && bsdtar -czf "$W/case.tar.gz" rec.jfr README app.log) ||
	echo "  setup: bsdtar failed"
(cd "$W/logs" && bsdtar -czf "$W/logs.tar.gz" README app.log)

# same_as_store CMD ARGS...: "heapsift CMD INPUT ARGS" (in $out) printed
# what "heapsift CMD STORE ARGS" prints, INPUT and STORE given as $in and
# $store; status 0; the import said under CMD's own name
same_as_store() {
	_c=$1
	shift
	run "$_c" "$in" "$@"
	_o=$out _e=$err
	expect_rc 0
	expect_err "heapsift $_c: "
	case $_e in
	*"heapsift import:"*) t_fail "$_c speaks as import: $_e" ;;
	*"bad magic"* | *"not a heapsift store"*)
		t_fail "$_c took $in for a damaged store: $_e" ;;
	esac
	run "$_c" "$store" "$@"
	[ "$rc" = 0 ] || t_fail "$_c on the store: $rc $err"
	[ "$_o" = "$out" ] ||
		t_fail "$_c $in $* differs from $_c $store $*: $(printf '%s\n' "$_o" | head -5)"
}

t_begin every_store_command_takes_a_recording
in=$A store=$W/A.hsdb
same_as_store top
same_as_store top --by=site --csv
same_as_store tree --depth=3
same_as_store timeline
same_as_store survivors
same_as_store export --format=folded
# the JDK's jfr summary: 2188 ObjectAllocationSample events
run top "$A"
printf '%s\n' "$out" | grep -q '2188 samples' ||
	t_fail "top of the recording does not count jfr's 2188 samples: $out"
# the second time the cache store is used, not imported again
expect_err "heapsift top: using $W/cache/heapsift/"
# info names the store it read: past its first line, the same
run info "$A"
expect_rc 0
i1=$(printf '%s\n' "$out" | sed 1d)
printf '%s\n' "$out" | head -1 | grep -q "^store $W/cache/heapsift/.*: 1 recording, 2308 samples" ||
	t_fail "info: $(printf '%s\n' "$out" | head -1) (jfr: 2188 + 120 samples)"
run info "$W/A.hsdb"
[ "$i1" = "$(printf '%s\n' "$out" | sed 1d)" ] || t_fail "info of the recording differs"
# a code-heap report, to codeheap
in=$CH store=$W/C.hsdb
same_as_store codeheap
# the CSV tables: the same files
run export "$A" --format=csv -o "$W/csv1"
expect_rc 0
run export "$W/A.hsdb" --format=csv -o "$W/csv2"
diff -r "$W/csv1" "$W/csv2" >"$T/d" 2>&1 || t_fail "export --format=csv: $(head -5 "$T/d")"
# diff: two recordings, each through its cache store; the sides' names
# are the operands as given
run diff "$A" "$B" --csv
expect_rc 0
d1=$out
run diff "$W/A.hsdb" "$W/B.hsdb" --csv
[ "$d1" = "$out" ] || t_fail "diff of the recordings differs from the stores'"
# several recordings are one cache store of both, as browse and report
# take them
run top "$A" "$B" --by=recording --csv
expect_rc 0
[ "$(printf '%s\n' "$out" | sed 1d | grep -c .)" = 2 ] ||
	t_fail "top of two recordings by recording: $out"
# a bundle: its recording read, its README and log noted
in=$W/case.tar.gz store=$W/A.hsdb
same_as_store top --by=class
t_end

t_begin a_store_is_read_alone
run top "$W/A.hsdb" "$B"
expect_rc 2
expect_err "heapsift top: $W/A.hsdb is a heapsift store: give it alone"
run top
expect_rc 2
t_end

# expect_not_read CMD PATH: the error line under CMD's name that PATH is
# not recognised, saying why
expect_not_read() {
	printf '%s\n' "$err" | grep "^heapsift $1: error: $2: " |
		grep -F 'recording or report heapsift reads' |
		grep -qF 'no importer recognises its first bytes' ||
		t_fail "$1: no error under its name saying why $2 is not read: $err"
	case $err in
	*"heapsift import:"*) [ "$1" = import ] || t_fail "$1 speaks as import: $err" ;;
	esac
}

t_begin a_file_that_is_not_recognised_is_an_error_in_every_command
for c in import top tree timeline survivors codeheap info export diff report; do
	case $c in
	import) set -- import -o "$W/n.hsdb" ;;
	export) set -- export --format=folded ;;
	*) set -- "$c" ;;
	esac
	# alone: nothing read, status 1 (diff's other side is a recording)
	if [ "$c" = diff ]; then
		run "$@" "$W/notes.txt" "$A"
	else
		run "$@" "$W/notes.txt"
	fi
	expect_rc 1
	expect_not_read "$c" "$W/notes.txt"
	# beside a recording: the recording is read, the status is still 1
	[ "$c" = diff ] && continue # two operands are two sides there
	run "$@" "$W/notes.txt" "$A"
	expect_rc 1
	expect_not_read "$c" "$W/notes.txt"
	case $c in
	import) [ -e "$W/n.hsdb" ] || t_fail "import wrote no store of the recording" ;;
	top) printf '%s\n' "$out" | grep -q '2188 samples' ||
		t_fail "top beside notes.txt did not read the recording: $out" ;;
	esac
	# and the next time too: a cache store whose import could not read
	# an input is not reused silently
	if [ "$c" = top ]; then
		run "$@" "$W/notes.txt" "$A"
		expect_rc 1
		expect_not_read "$c" "$W/notes.txt"
	fi
	rm -f "$W/n.hsdb"
done
# dump reads JFR only: a code-heap report is not one, and it says so
run dump "$CH" "$A"
expect_rc 1
printf '%s\n' "$err" | grep "^heapsift dump: error: $CH: not a JFR recording" |
	grep -qF 'dump reads JFR recordings only' || t_fail "dump: $err"
t_end

t_begin browse_says_what_it_could_not_read_under_its_own_name
# browse needs a terminal: script(1) gives it one; it never gets as far
# as drawing, since nothing can be imported
if ! command -v script >/dev/null 2>&1; then
	t_skip "script (util-linux) is missing"
else
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C script -qec \
		"'$HEAPSIFT' browse '$W/notes.txt'" /dev/null >"$T/out" 2>&1 </dev/null)
	rc=$?
	err=$(tr -d '\r' <"$T/out")
	expect_rc 1
	expect_not_read browse "$W/notes.txt"
	t_end
fi

t_begin a_bundles_other_members_are_noted_not_errors
# a cache of its own: the bundle is imported here, not reused
export XDG_CACHE_HOME="$W/cache-bundle"
for c in import top report; do
	case $c in
	import) set -- import -o "$W/n.hsdb" ;;
	*) set -- "$c" ;;
	esac
	run "$@" "$W/case.tar.gz"
	expect_rc 0
	printf '%s\n' "$err" | grep "^heapsift $c: note: $W/case.tar.gz: 2 of its members" |
		grep -qF '(README, app.log)' ||
		t_fail "$c: no note naming README and app.log: $err"
	rm -f "$W/n.hsdb"
done
# a bundle with nothing heapsift reads in it could not be read
for c in import top report; do
	case $c in
	import) set -- import -o "$W/n.hsdb" ;;
	*) set -- "$c" ;;
	esac
	run "$@" "$W/logs.tar.gz" "$A"
	expect_rc 1
	printf '%s\n' "$err" | grep "^heapsift $c: error: $W/logs.tar.gz: nothing in it is a recording" |
		grep -qF 'README, app.log' || t_fail "$c: $err"
	rm -f "$W/n.hsdb"
done
export XDG_CACHE_HOME="$W/cache"
t_end

t_begin a_named_recording_of_a_format_not_read_is_an_error
# a JFR chunk header of format 1.0 (Oracle JDK 9 and 10): recognised as
# JFR and refused; named on the command line it could not be read (1),
# in a bundle it is skipped with a warning (3), as damage is
printf 'FLR\000\000\001\000\000' >"$W/old.jfr"
head -c 200 /dev/zero >>"$W/old.jfr"
export XDG_CACHE_HOME="$W/cache-old"
for c in import dump report top; do
	case $c in
	import) set -- import -o "$W/n.hsdb" ;;
	*) set -- "$c" ;;
	esac
	run "$@" "$W/old.jfr" "$A"
	expect_rc 1
	expect_err "heapsift $c: error: $W/old.jfr: jfr: file format 1.0 is not supported"
	rm -f "$W/n.hsdb"
done
# report made the cache store that top then used: the status is kept
# for every command that shares it
run report "$W/old.jfr" "$A"
run top "$W/old.jfr" "$A"
expect_rc 1
mkdir -p "$W/oldb"
cp "$W/old.jfr" "$A" "$W/oldb/"
(cd "$W/oldb" && bsdtar -czf "$W/oldb.tar.gz" old.jfr "$(basename "$A")")
run import -o "$W/n.hsdb" "$W/oldb.tar.gz"
expect_rc 3
expect_err "heapsift import: warning: $W/oldb.tar.gz!old.jfr: jfr: file format 1.0 is not supported"
rm -f "$W/n.hsdb"
export XDG_CACHE_HOME="$W/cache"
t_end

t_begin damaged_data_gives_status_3_from_the_cache_store_too
# a recording cut in its middle: read up to the cut, status 3, and the
# same status when the cache store is used again
n=$(size "$B")
head -c $((n / 2)) "$B" >"$W/half.jfr"
run top "$W/half.jfr"
expect_rc 3
expect_err "heapsift top: importing into"
expect_err "heapsift top: warning: $W/half.jfr"
run top "$W/half.jfr"
expect_rc 3
expect_err "heapsift top: using"
expect_err "skipped damaged data or hit a limit"
# the same cache store made by report: top says and exits the same
export XDG_CACHE_HOME="$W/cache-half"
run report "$W/half.jfr"
expect_rc 3
run top "$W/half.jfr"
expect_rc 3
expect_err "heapsift top: using"
export XDG_CACHE_HOME="$W/cache"
t_end

t_summary
