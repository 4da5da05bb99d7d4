#!/bin/sh
# Data safety and command-line robustness (issue 18): what import -o and
# export -o may replace (heapsift(1), OUTPUT FILES), browse with inputs
# on a first run, options after operands in every command, empty time
# windows and numeric option messages, where time offsets count from,
# and the smaller messages (a search with no match, info on a recording,
# export into a file).  Expected values come from the fixtures (their
# bytes, the JFR chunk header read with od, the JDK's jfr print output
# in X.ObjectAllocationSample.tsv.gz) and from the rules in the man page,
# never from heapsift's own output.
. "$(dirname "$0")/lib.sh"
F=$HS_FIXTURES/jfr
W=$T/work
A=$F/jdk17-leak-gcroots.jfr
B=$F/jdk17-default.jfr
BUNDLE=$HS_FIXTURES/bundles/case-demo.tar.gz

# is_store FILE: FILE starts with the store magic (docs/formats/store.md)
is_store() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89485344420d0a1a ]; }
# same_bytes FILE ORIGINAL: FILE is unchanged
same_bytes() { cmp -s "$1" "$2" || t_fail "$1 was changed"; }
# lines TEXT: how many lines TEXT has
lines() { printf '%s\n' "$1" | grep -c .; }

# --- import -o ----------------------------------------------------------------

t_begin "import -o REC REC: the recording is the input, refused even with --force"
cp "$A" "$W/rec.jfr"
run import -o "$W/rec.jfr" "$W/rec.jfr"
expect_rc 1
expect_err "is the input"
same_bytes "$W/rec.jfr" "$A"
run import --force -o "$W/rec.jfr" "$W/rec.jfr"
expect_rc 1
same_bytes "$W/rec.jfr" "$A"
# a hard link is the same file under another name
ln "$W/rec.jfr" "$W/link.hsdb"
run import --force -o "$W/link.hsdb" "$W/rec.jfr"
expect_rc 1
expect_err "is the input"
[ "$(ls -i "$W/link.hsdb" | cut -d' ' -f1)" = "$(ls -i "$W/rec.jfr" | cut -d' ' -f1)" ] ||
	t_fail "the hard link was replaced"
rm -f "$W/rec.jfr" "$W/link.hsdb"
t_end

t_begin "import -o TEXTFILE: refused without --force, replaced with it"
printf 'case notes\n' >"$W/notes.txt"
run import -o "$W/notes.txt" "$A"
expect_rc 1
expect_err "is not a heapsift store"
expect_err "--force"
[ "$(cat "$W/notes.txt")" = "case notes" ] || t_fail "notes.txt was changed"
run import --force -o "$W/notes.txt" "$A"
expect_rc 0
is_store "$W/notes.txt" || t_fail "--force did not write a store"
rm -f "$W/notes.txt"
t_end

t_begin "import -o STORE: an existing store is replaced, also with options after the inputs"
run import -o "$W/s.hsdb" "$A"
expect_rc 0
run import -o "$W/s.hsdb" "$B"
expect_rc 0
expect_out_line "$W/s.hsdb: 1 recording (1 new), $((2188 + 120)) samples"
# jdk17-default's samples: ObjectAllocationSample 2188 + OldObjectSample
# 120 (fixtures/jfr/jdk17-default.expected.json); jdk17-leak-gcroots':
# 7899 + OutsideTLAB 290 + 85 = 8274
want=$((2188 + 120))
run import -o "$W/s.hsdb" "$A" --append
expect_rc 0
expect_out_line "$W/s.hsdb: 2 recordings (1 new), $((want + 8274)) samples"
rm -f "$W/s.hsdb"
t_end

t_begin "import -o FIFO, folder, symlink: never replaced, not even with --force"
mkfifo "$W/fifo"
run import --force -o "$W/fifo" "$A"
expect_rc 1
expect_err "is a fifo"
[ -p "$W/fifo" ] || t_fail "the fifo was replaced"
mkdir "$W/dir"
run import --force -o "$W/dir" "$A"
expect_rc 1
expect_err "is a folder"
[ -d "$W/dir" ] || t_fail "the folder was replaced"
run import -o "$W/target.hsdb" "$B"
ln -s target.hsdb "$W/sym.hsdb"
run import --force -o "$W/sym.hsdb" "$A"
expect_rc 1
expect_err "is a symbolic link"
[ -L "$W/sym.hsdb" ] || t_fail "the symbolic link was replaced"
rm -rf "$W/fifo" "$W/dir" "$W/sym.hsdb" "$W/target.hsdb"
t_end

t_begin "import -o DEVICE: never replaced"
if [ "$(id -u)" != 0 ]; then
	t_skip "making a device node needs root"
else
	mknod "$W/full" c 1 7
	run import --force -o "$W/full" "$A"
	expect_rc 1
	expect_err "is a device"
	[ -c "$W/full" ] || t_fail "the device node was replaced"
	rm -f "$W/full"
	t_end
fi

t_begin "import --append of a recording already in the store: skipped with a warning, exit 3"
JC=$HS_FIXTURES/javacore/javacore.20230830.134339.30220.0001.txt
run import -o "$W/s.hsdb" "$B" "$JC"
expect_rc 0
cp "$B" "$W/copy.jfr"
# a copy under another name is the same recording; A is new
run import --append -o "$W/s.hsdb" "$W/copy.jfr" "$A"
expect_rc 3
expect_err "$W/copy.jfr: already in the store as recording 0 ($B); skipped"
# 2188 + 120 samples of B (jdk17-default.expected.json), 8274 of A
expect_out_line "$W/s.hsdb: 3 recordings (1 new), $((2188 + 120 + 8274)) samples"
cp "$W/s.hsdb" "$W/before.hsdb"
run import --append -o "$W/s.hsdb" "$JC" "$A"
expect_rc 3
expect_err "$JC: already in the store as recording 1"
expect_err "$A: already in the store as recording 2"
expect_err "not rewritten"
cmp -s "$W/s.hsdb" "$W/before.hsdb" || t_fail "a store with nothing new was rewritten"
# without --append, the inputs are what is asked for: both kept
run import -o "$W/s.hsdb" "$A" "$W/copy.jfr" "$B"
expect_rc 0
expect_out_line "$W/s.hsdb: 3 recordings (3 new), $((2188 + 120 + 8274 + 2188 + 120)) samples"
rm -f "$W/s.hsdb" "$W/before.hsdb" "$W/copy.jfr"
t_end

# --- export -o ----------------------------------------------------------------

t_begin "export -o FILE: one clear error, the file unchanged"
run import -o "$W/s.hsdb" "$A"
printf 'keep\n' >"$W/file"
run export "$W/s.hsdb" --format=csv -o "$W/file"
expect_rc 1
expect_err "is a file, not a folder"
[ "$(lines "$err")" = 1 ] || t_fail "$(lines "$err") lines of errors, expected 1: $err"
[ "$(cat "$W/file")" = keep ] || t_fail "the file was changed"
run export "$W/s.hsdb" --format=csv -o "$W/s.hsdb" --force
expect_rc 1
is_store "$W/s.hsdb" || t_fail "the store was replaced"
t_end

t_begin "export -o DIR: only an empty folder or one of export's own files without --force"
mkdir "$W/out"
printf 'mine\n' >"$W/out/README"
run export "$W/s.hsdb" --format=csv -o "$W/out"
expect_rc 1
expect_err "README"
[ "$(ls "$W/out")" = README ] || t_fail "files were written: $(ls "$W/out")"
run export "$W/s.hsdb" --format=csv -o "$W/out" --force
expect_rc 0
[ "$(cat "$W/out/README")" = mine ] || t_fail "--force touched a file export does not write"
[ -s "$W/out/samples.csv" ] || t_fail "--force wrote no samples.csv"
rm "$W/out/README"
# a folder of nothing but export's own files may be written again
run export "$W/s.hsdb" --format=csv -o "$W/out"
expect_rc 0
# the samples table: one row per sample, 8274 (jdk17-leak-gcroots'
# ObjectAllocationSample 7899 + OutsideTLAB 290 + OldObjectSample 85,
# fixtures/jfr/jdk17-leak-gcroots.expected.json) and the header
[ "$(wc -l <"$W/out/samples.csv" | tr -d ' ')" = $((7899 + 290 + 85 + 1)) ] ||
	t_fail "samples.csv has $(wc -l <"$W/out/samples.csv") lines"
ln -s out "$W/outlink"
run export "$W/s.hsdb" --format=csv -o "$W/outlink" --force
expect_rc 1
expect_err "is a symbolic link"
rm -rf "$W/out" "$W/outlink" "$W/file" "$W/s.hsdb"
t_end

# --- report -o, and -o of every command (issue 39) ------------------------------

# The mark docs/report.md gives every report, in its first 512 bytes.
MARK=heapsift-report-mark-7f3c9a1e
# has_mark FILE: the mark is in FILE's first 512 bytes
has_mark() { head -c 512 "$1" | grep -qF "$MARK"; }

t_begin "report -o: a person's notes naming a heapsift report are not replaced, in any format"
run import -o "$W/s.hsdb" "$A"
# the issue's own two files: notes about a report, an email quoting one
printf '# My notes on the heapsift report for case 1234\n' >"$W/notes.md"
printf 'Subject: the heapsift report you sent\n\nheapsift report 0.1.0: case.hsdb\nlooks fine\n' >"$W/email.txt"
cp "$W/notes.md" "$W/notes.orig"
cp "$W/email.txt" "$W/email.orig"
for fmt in text md html json; do
	for f in notes.md email.txt; do
		run report --format=$fmt -o "$W/$f" "$W/s.hsdb"
		expect_rc 1
		expect_err "$W/$f exists and is not a heapsift report; not replaced; --force replaces it"
		[ -z "$out" ] || t_fail "--format=$fmt -o $f: stdout: $out"
	done
	same_bytes "$W/notes.md" "$W/notes.orig"
	same_bytes "$W/email.txt" "$W/email.orig"
done
t_end

t_begin "report -o: every format carries the mark before the title, and replaces any report heapsift wrote"
# three inputs of 200-character names: a title of over 600 bytes, which
# must not push the mark past the first 512 bytes
long=$(printf '%0200d' 0)
for i in 1 2 3; do cp "$A" "$W/$i$long.jfr"; done
export XDG_CACHE_HOME="$W/cache"
prev=
for fmt in text md html json; do
	run report --format=$fmt -o "$W/r.out" "$W/1$long.jfr" "$W/2$long.jfr" "$W/3$long.jfr"
	expect_rc 0
	expect_err "heapsift report: wrote $W/r.out"
	has_mark "$W/r.out" || t_fail "--format=$fmt: no $MARK in the first 512 bytes: $(head -c 600 "$W/r.out")"
	grep -qF "3$long" "$W/r.out" || t_fail "--format=$fmt: the title lacks the third input"
	[ -n "$prev" ] && [ "$(head -c 512 "$W/r.out")" = "$prev" ] &&
		t_fail "--format=$fmt: the report was not replaced"
	prev=$(head -c 512 "$W/r.out")
done
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["mark"] == sys.argv[2]' \
	"$W/r.out" "$MARK" || t_fail "the JSON report's mark field is not $MARK"
unset XDG_CACHE_HOME
rm -rf "$W/cache" "$W"/[123]0*.jfr
t_end

t_begin "report -o: a report of an older heapsift (no mark) needs --force; --force replaces notes"
printf 'heapsift report 0.1.0: case.hsdb\nstore: case.hsdb\n\nFINDINGS (0: 0 critical, 0 warning, 0 info)\n' >"$W/old.txt"
cp "$W/old.txt" "$W/old.orig"
run report -o "$W/old.txt" "$W/s.hsdb"
expect_rc 1
expect_err "is not a heapsift report"
same_bytes "$W/old.txt" "$W/old.orig"
run report --force -o "$W/old.txt" "$W/s.hsdb"
expect_rc 0
has_mark "$W/old.txt" || t_fail "--force did not write a report over the old one"
run report --force --format=md -o "$W/notes.md" "$W/s.hsdb"
expect_rc 0
has_mark "$W/notes.md" || t_fail "--force did not write a report over the notes"
# a report in the file the notes were: now heapsift's, replaced freely
run report --format=html -o "$W/notes.md" "$W/s.hsdb"
expect_rc 0
head -n 1 "$W/notes.md" | grep -qx '<!DOCTYPE html>' || t_fail "the Markdown report was not replaced by the HTML one"
rm -f "$W/old.txt" "$W/old.orig" "$W/notes.md" "$W/notes.orig"
t_end

t_begin "import -o and export -o FILE: a file naming a heapsift report is not theirs either"
run import -o "$W/email.txt" "$A"
expect_rc 1
expect_err "is not a heapsift store"
same_bytes "$W/email.txt" "$W/email.orig"
for fmt in folded speedscope svg pprof; do
	run export "$W/s.hsdb" --format=$fmt -o "$W/email.txt"
	expect_rc 1
	expect_err "$W/email.txt exists; not replaced; --force replaces it"
	same_bytes "$W/email.txt" "$W/email.orig"
done
# a report heapsift wrote is no export: one-file exports replace an
# existing file only with --force, whoever wrote it
run report -o "$W/r.txt" "$W/s.hsdb"
cp "$W/r.txt" "$W/r.orig"
run export "$W/s.hsdb" --format=folded -o "$W/r.txt"
expect_rc 1
same_bytes "$W/r.txt" "$W/r.orig"
run export "$W/s.hsdb" --format=folded -o "$W/f.txt"
expect_rc 0
cp "$W/f.txt" "$W/f.orig"
run export "$W/s.hsdb" --format=folded -o "$W/f.txt"
expect_rc 1
expect_err "exists; not replaced; --force replaces it"
same_bytes "$W/f.txt" "$W/f.orig"
run export "$W/s.hsdb" --format=speedscope -o "$W/f.txt" --force
expect_rc 0
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/f.txt" ||
	t_fail "--force did not replace the folded file with speedscope's JSON"
# the folder rule: the notes in a folder are kept, --force writes beside them
mkdir "$W/csv"
cp "$W/email.orig" "$W/csv/email.txt"
run export "$W/s.hsdb" --format=csv -o "$W/csv"
expect_rc 1
expect_err "holds email.txt"
[ "$(ls "$W/csv")" = email.txt ] || t_fail "files were written: $(ls "$W/csv")"
run export "$W/s.hsdb" --format=csv -o "$W/csv" --force
expect_rc 0
same_bytes "$W/csv/email.txt" "$W/email.orig"
rm -rf "$W/csv" "$W/r.txt" "$W/r.orig" "$W/f.txt" "$W/f.orig" "$W/email.txt" "$W/email.orig"
t_end

t_begin "diff writes standard output only: -o is no option of it"
run diff "$W/s.hsdb" "$W/s.hsdb" -o "$W/d.txt"
expect_rc 2
[ -e "$W/d.txt" ] && t_fail "diff -o wrote $W/d.txt"
t_end

t_begin "-o '' is a usage error in every command that takes -o"
for args in "import -o" "import --output=" "report $W/s.hsdb -o" \
	"report $W/s.hsdb --output=" "export $W/s.hsdb --format=csv -o" \
	"export $W/s.hsdb --format=folded -o" "export $W/s.hsdb --format=pprof --output="; do
	# shellcheck disable=SC2086
	case $args in
	*=) run $args"" "$A" ;;
	import*) run $args "" "$A" ;;
	*) run $args "" ;;
	esac
	expect_rc 2
	expect_err "-o: the path is empty"
	printf '%s\n' "$err" | grep -q 'cannot\|not written' && t_fail "$args '': $err"
	[ "$(lines "$err")" = 2 ] || t_fail "$args '': $(lines "$err") lines: $err"
	[ -z "$out" ] || t_fail "$args '': stdout: $out"
done
rm -f "$W/s.hsdb"
t_end

# --- options after operands -------------------------------------------------

t_begin "options after the operands in scan, dump, import, info, export"
run dump --stats "$A"
expect_rc 0
before=$out
run dump "$A" --stats
expect_rc 0
[ "$out" = "$before" ] || t_fail "dump REC --stats differs from dump --stats REC"
run scan "$A" --csv
expect_rc 0
printf '%s\n' "$out" | head -n 1 | grep -q '^input,' || t_fail "scan REC --csv did not print CSV: $out"
run import -o "$W/s.hsdb" "$B"
run import -o "$W/s.hsdb" "$A" --append
expect_rc 0
run info "$W/s.hsdb" --check
expect_rc 0
expect_out_line "store $W/s.hsdb: 2 recordings, $((2308 + 8274)) samples, every section verified"
run export "$W/s.hsdb" -o "$W/csv" --format=csv
expect_rc 0
[ -s "$W/csv/recordings.csv" ] || t_fail "export STORE -o DIR --format=csv wrote nothing"
rm -rf "$W/s.hsdb" "$W/csv"
# and still: -- ends the options; - is standard input
run dump -- --stats
expect_rc 1
expect_err "--stats"
(cd "$T/cwd" && "$HEAPSIFT" dump --stats - <"$A" >"$T/out" 2>"$T/err")
rc=$?
expect_rc 0
grep -q 'jdk.ObjectAllocationSample' "$T/out" || t_fail "dump - read nothing from standard input"
t_end

t_begin "agent-path and browse still refuse operands and options they do not take"
run agent-path extra
expect_rc 2
run browse "$A" --bogus
expect_rc 2
expect_err "--bogus"
t_end

# --- empty windows and numeric options -----------------------------------------

run import -o "$W/s.hsdb" "$A" >/dev/null 2>&1
t_begin "--from after --to, or equal: a usage error in every command with filters"
for c in top tree timeline survivors; do
	run $c "$W/s.hsdb" --from 5s --to 2s
	expect_rc 2
	expect_err "time window is empty"
	run $c "$W/s.hsdb" --from 2s --to 2s
	expect_rc 2
	run $c "$W/s.hsdb" --from 2026-11-21T23:17:14Z --to 2s
	expect_rc 2
done
t_end

t_begin "numeric options say which values they take"
run top "$W/s.hsdb" --limit=-1
expect_rc 2
expect_err "'-1' is not a whole number from 0"
run survivors "$W/s.hsdb" --limit=-1
expect_rc 2
expect_err "'-1' is not a whole number from 0"
run survivors "$W/s.hsdb" --min-gcs=x
expect_rc 2
expect_err "'x' is not a whole number from 0"
run tree "$W/s.hsdb" --depth=-1
expect_rc 2
expect_err "from 0 (0: all) to 100000"
run tree "$W/s.hsdb" --min-share=200
expect_rc 2
expect_err "from 0 to 100"
run top "$W/s.hsdb" --recording=-1
expect_rc 2
expect_err "a whole number from 0"
t_end

t_begin "info on a recording imports it into the cache store, as every store command does"
export XDG_CACHE_HOME="$W/cache"
run info "$A"
expect_rc 0
expect_err "heapsift info: importing into $W/cache/heapsift/"
# the fixture's one recording, and its samples by the JDK's jfr
# (expected.json: 7899 + 290 OutsideTLAB + 85 OldObjectSample)
printf '%s\n' "$out" | grep -q "^store $W/cache/heapsift/.*: 1 recording, 8274 samples" ||
	t_fail "info of the recording: $out"
run info "$A"
expect_rc 0
expect_err "heapsift info: using $W/cache/heapsift/"
rm -rf "$W/cache"
unset XDG_CACHE_HOME
# a damaged store still gets the store's own error
run import -o "$W/whole.hsdb" "$A"
head -c 4000 "$W/whole.hsdb" >"$W/cut.hsdb"
printf '\000' | dd of="$W/cut.hsdb" bs=1 seek=5 conv=notrunc 2>/dev/null
run info "$W/cut.hsdb"
expect_rc 1
expect_err "bad magic"
rm -f "$W/cut.hsdb" "$W/whole.hsdb"
t_end
rm -f "$W/s.hsdb"

# --- time offsets ---------------------------------------------------------------

# tod_ns ISO: nanoseconds into the day of 2026-11-21T23:17:12.473886Z
# (awk; jfr prints fewer fraction digits when they end in zeros)
TOD='function tod_ns(s,   t, f) {
	split(substr(s, 12), t, ":")
	f = substr(t[3], 4)
	sub(/Z$/, "", f)
	while (length(f) < 9) f = f "0"
	return ((t[1] * 60 + t[2]) * 60 + substr(t[3], 1, 2)) * 1e9 + f
}'
# start_ns REC: the first chunk's start nanos (reference/jfr-format.md:
# offset 32, big-endian u8), read from the file itself
start_ns() { od -An -tu8 --endian=big -j32 -N8 "$1" | tr -d ' '; }
# in_window TSV ORIGIN FROM TO: ObjectAllocationSample events of the JDK's
# own listing with ORIGIN+FROM <= startTime < ORIGIN+TO (seconds); the
# fixtures are from one day, so nanoseconds within that day are exact in
# awk's doubles
in_window() {
	gzip -dc "$1" | awk -F'\t' -v o=$(($2 % 86400000000000)) -v a="$3" -v b="$4" "$TOD"'
	NR > 1 {
		ns = tod_ns($1)
		if (ns >= o + a * 1e9 && ns < o + b * 1e9) n++
	}
	END { print n + 0 }'
}
# samples_in CSV: the samples column of top --csv, added up
samples_in() { printf '%s\n' "$1" | awk -F, 'NR > 1 { n += $2 } END { print n + 0 }'; }

t_begin "offsets count from the recording with samples, not a 2023 javacore in the bundle"
run import -o "$W/bundle.hsdb" "$BUNDLE"
if [ "$rc" != 0 ]; then
	t_fail "cannot import the bundle: $err"
else
	# (the JDK's listing counts ObjectAllocationSample events: the JFR
	# weights, --estimate=jfr, whose samples are those events alone)
	want=$(in_window "$F/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" "$(start_ns "$A")" 2 4)
	[ "$want" -gt 0 ] || t_fail "no sample between 2 s and 4 s in the JDK's listing"
	run top "$W/bundle.hsdb" --from 2s --to 4s --csv --estimate=jfr
	expect_rc 0
	[ "$(samples_in "$out")" = "$want" ] ||
		t_fail "--from 2s --to 4s: $(samples_in "$out") samples, the JDK's listing has $want"
	run top "$W/bundle.hsdb" --recording 0 --from 2s --to 4s --csv --estimate=jfr
	[ "$(samples_in "$out")" = "$want" ] ||
		t_fail "--recording 0 --from 2s --to 4s: $(samples_in "$out") samples, expected $want"
fi
t_end

t_begin "offsets with two recordings with samples count from the earlier one, not a javacore"
run import -o "$W/two.hsdb" "$A" "$B" "$HS_FIXTURES/javacore/javacore.20230830.134339.30220.0001.txt"
expect_rc 0
sa=$(start_ns "$A") sb=$(start_ns "$B")
if [ "$sa" -lt "$sb" ]; then o=$sa; else o=$sb; fi
want=$(($(in_window "$F/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" $o 0 50) +
	$(in_window "$F/jdk17-default.ObjectAllocationSample.tsv.gz" $o 0 50)))
run top "$W/two.hsdb" --from 0s --to 50s --csv --estimate=jfr
[ "$(samples_in "$out")" = "$want" ] ||
	t_fail "--from 0s --to 50s: $(samples_in "$out") samples, expected $want"
# the later recording, chosen: its own start is time 0
want=$(in_window "$F/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" "$sa" 1 3)
run top "$W/two.hsdb" --recording 0 --from 1s --to 3s --csv --estimate=jfr
[ "$(samples_in "$out")" = "$want" ] ||
	t_fail "--recording 0 --from 1s --to 3s: $(samples_in "$out") samples, expected $want"
rm -f "$W/two.hsdb"
t_end

# --- the browser ---------------------------------------------------------------

if ! command -v tmux >/dev/null 2>&1; then
	t_begin "browse"
	t_skip "tmux is not installed (make test installs it through build-aux/deps.sh)"
	rm -f "$W/bundle.hsdb"
	t_summary
fi
. "$(dirname "$0")/../browse/lib.sh"
mkdir -p "$T/home"
UTF="TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
# title: the first screen line's end, "heapsift: NAME", or "NAME" alone
# where the tabs leave no room for more (80 columns)
title() { b_capture | head -n 1 | sed 's/.*heapsift: //; s/ *$//; s/.*   *//'; }

t_begin "browse A B, first run: imports both and shows A, no crash"
cp "$A" "$W/a.jfr"
cp "$B" "$W/b.jfr"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache" -- "$W/a.jfr" "$W/b.jfr"
[ "$(title)" = a.jfr ] || t_fail "title '$(title)', expected a.jfr"
b_capture | grep -q '2 recordings' || t_fail "the overview does not show 2 recordings"
b_quit
t_end

t_begin "browse REC, first run: the title names the recording"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache2" -- "$W/a.jfr"
[ "$(title)" = a.jfr ] || t_fail "title '$(title)', expected a.jfr"
b_quit
t_end

t_begin "a forward search with no match says no later match"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache2" -- "$W/a.jfr"
b_keys 2 /
b_type zzqqxx
b_keys Enter
b_capture | grep -q 'no later match for /zzqqxx' ||
	t_fail "no 'no later match' message: $(b_capture | tail -n 2)"
b_quit
t_end

t_begin "the browser's offsets follow the recording with samples"
# the overview shows the first sample at its offset: the JDK's first
# startTime of the recording minus the chunk's start, to the millisecond
first=$(gzip -dc "$F/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" | sed -n 2p | cut -f1)
o=$(($(start_ns "$A") % 86400000000000))
want=$(printf '%s\n' "$first" | awk -v o=$o "$TOD"'{ printf "+%.3f s\n", (tod_ns($1) - o) / 1e9 }')
b_start 100 40 $UTF -- "$W/bundle.hsdb"
b_capture | grep -qF -- "$want" ||
	t_fail "the overview does not show the first sample at $want: $(b_capture | grep ' s' | head -n 3)"
b_quit
t_end
rm -f "$W/bundle.hsdb" "$W/a.jfr" "$W/b.jfr"

t_summary
