# The store and the commands on it (import, info, top) against the JDK's
# own view of the fixtures: every top of every fixture against
# X.expected.json and X.ObjectAllocationSample.tsv.gz (jfr print --json),
# several recordings in one store, --append, the filters; then a store
# damaged one byte at a time, imports killed at random moments, and the
# errors.  tests/jfr/check_top.py does the comparing; no expected value
# comes from heapsift's own output, except "the same as the undamaged
# store" and "the old or the new store".
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
F="$HS_FIXTURES/jfr"
W="$T/work"
CHECK="$here/jfr/check_top.py"
ALL="default leak-gcroots multichunk profile-tlab killed-unfinished"

if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL store: python3 is needed to compare with the references"
	t_failed=1
	t_summary
fi

# check ARGS...: check_top.py ARGS; its complaints fail the test
check() {
	r=$(python3 "$CHECK" "$@") || t_fail "$r"
}
# no_crash: the last run did not die of a signal or trip a sanitizer
no_crash() {
	[ "$rc" -lt 128 ] || t_fail "$*: killed by signal $((rc - 128))"
	case "$err" in
	*Sanitizer* | *"runtime error:"*) t_fail "$*: sanitizer: $err" ;;
	esac
}
# top_csv NAME ARGS...: heapsift top ARGS --csv into $W/NAME.csv; exit 0.
# The JDK's references sum ObjectAllocationSample's weights: the raw
# estimate (--estimate=jfr), not the corrected one that recordings with
# OutsideTLAB events get by default (tests/cli/estimates.sh checks that).
top_csv() {
	_csv=$1
	shift
	run top "$@" --csv --estimate=jfr
	no_crash "top $*"
	expect_rc 0
	cp "$T/out" "$W/$_csv.csv"
}
exp() { echo "$F/jdk17-$1.expected.json"; }
tsv() { echo "$F/jdk17-$1.ObjectAllocationSample.tsv.gz"; }
has() { grep -q "\"$2\": {" "$(exp "$1")"; }

# --- 1. every fixture on its own ---------------------------------------------

for f in $ALL; do
	S="$W/$f.hsdb"
	t_begin "store_${f}_top_matches_jfr"
	run import -o "$S" "$F/jdk17-$f.jfr"
	no_crash import
	if [ "$f" = killed-unfinished ]; then
		expect_rc 3
		expect_err "was still being written"
	elif [ "$f" = profile-tlab ]; then
		# settings=profile records the GC's promotion samples, heap
		# data no reader takes: one note a type, with jfr summary's
		# counts, and exit status 0 (docs/formats/jfr.md)
		expect_rc 0
		for p in InNewPLAB OutsidePLAB; do
			n=$(jfr summary "$F/jdk17-$f.jfr" 2>/dev/null |
				awk -v t="jdk.PromoteObject$p" '$1 == t { print $2 }')
			[ -z "$n" ] ||
				expect_err "note: $F/jdk17-$f.jfr: jfr: $n events of jdk.PromoteObject$p were not read"
		done
		[ "$(printf '%s\n' "$err" | grep -vc '^heapsift import: note: ')" = 0 ] ||
			t_fail "stderr beyond the notes: $err"
	else
		expect_rc 0
		expect_no_err
	fi
	top_csv "$f.class" "$S" --by class
	top_csv "$f.site" "$S" --by site
	top_csv "$f.thread" "$S" --by=thread
	check alloc "$(exp "$f")" "$W/$f.class.csv" "$W/$f.site.csv" \
		"$W/$f.thread.csv"
	if has "$f" jdk.ObjectAllocationOutsideTLAB; then
		top_csv "$f.outside.class" "$S" --kind outside --by class
		top_csv "$f.outside.site" "$S" --kind=outside --by site
		check outside "$(exp "$f")" "$W/$f.outside.class.csv" \
			"$W/$f.outside.site.csv"
	fi
	if has "$f" jdk.ObjectAllocationInNewTLAB; then
		top_csv "$f.tlab.class" "$S" --kind tlab --by class
		check tlab "$(exp "$f")" "$W/$f.tlab.class.csv"
	fi
	if has "$f" OldObjectSample; then
		top_csv "$f.old.class" "$S" --kind old --by class
		check old "$(exp "$f")" "$W/$f.old.class.csv"
	fi
	t_end

	t_begin "store_${f}_rows_match_every_jfr_sample"
	# every class, class.method:line, thread and app-site row, not only
	# the top ten
	top_csv "$f.app" "$S" --by app-site
	check reference "$(tsv "$f")" "$W/$f.class.csv" "$W/$f.site.csv" \
		"$W/$f.thread.csv" "$W/$f.app.csv"
	t_end
done

# --- 2. five recordings in one store, and --append -----------------------------

A="$W/all.hsdb"
pairs() {
	for f in $ALL; do
		printf '%s\n' "jdk17-$f.jfr=$(exp "$f")"
	done
}

t_begin store_five_recordings_in_one
set --
for f in $ALL; do set -- "$@" "$F/jdk17-$f.jfr"; done
run import -o "$A" "$@"
no_crash import
expect_rc 3
expect_err "was still being written"
top_csv all.rec "$A" --by recording
check recordings "$W/all.rec.csv" $(pairs)
run info "$A"
expect_rc 0
n=$(printf '%s\n' "$out" | grep -c '^recording [0-9]*: ')
[ "$n" = 5 ] || t_fail "info lists $n recordings, not 5: $out"
printf '%s\n' "$out" | head -n 1 | grep -q ": 5 recordings, " ||
	t_fail "info's first line: $(printf '%s\n' "$out" | head -n 1)"
printf '%s\n' "$out" >"$W/all.info"
t_end

t_begin store_recording_filter_restricts
for i in 0 1 2 3 4; do
	src=$(sed -n "s/^recording $i: //p" "$W/all.info")
	name=$(basename "$src" .jfr)
	name=${name#jdk17-}
	top_csv "rec$i" "$A" --by recording --recording "$i"
	check recordings "$W/rec$i.csv" "jdk17-$name.jfr=$(exp "$name")"
	# rows are "N: source": the number is what --recording takes
	[ "$(python3 "$CHECK" keys "$W/rec$i.csv")" = "$i: $src" ] ||
		t_fail "--recording $i: rows $(python3 "$CHECK" keys "$W/rec$i.csv"), info says $src"
	# the other groups of one recording are that recording's alone
	top_csv "rec$i.class" "$A" --recording="$i"
	[ "$(sort "$W/rec$i.class.csv")" = "$(sort "$W/$name.class.csv")" ] ||
		t_fail "--recording $i --by class differs from the store of $name alone"
done
run top "$A" --recording 5
expect_rc 2
expect_err "holds 5 recordings"
t_end

t_begin store_append_keeps_the_old_recordings
cp "$F/jdk17-leak-gcroots.jfr" "$W/copy.jfr"
# a recording already in the store, under another name, is skipped with
# a warning (heapsift(1): --append), and the store is left as it was
cp "$A" "$W/before.hsdb"
run import -o "$A" --append "$W/copy.jfr"
no_crash import
expect_rc 3
expect_err "copy.jfr: already in the store as recording"
cmp -s "$A" "$W/before.hsdb" || t_fail "--append of nothing new rewrote the store"
# --append keeps the old recordings and adds a new one
run import -o "$W/two.hsdb" "$F/jdk17-default.jfr"
run import -o "$W/two.hsdb" --append "$W/copy.jfr"
no_crash import
expect_rc 0
top_csv two.rec "$W/two.hsdb" --by recording
check recordings "$W/two.rec.csv" "jdk17-default.jfr=$(exp default)" "copy.jfr=$(exp leak-gcroots)"
# what is given without --append is all imported: the five and the copy,
# the store the filters below use
set --
for f in $ALL; do set -- "$@" "$F/jdk17-$f.jfr"; done
run import -o "$A" "$@" "$W/copy.jfr"
no_crash import
expect_rc 3
expect_err "was still being written"
run info --check "$A"
expect_rc 0
n=$(printf '%s\n' "$out" | grep -c '^recording [0-9]*: ')
[ "$n" = 6 ] || t_fail "info lists $n recordings after --append, not 6"
for f in $ALL; do
	printf '%s\n' "$out" | grep -qx "recording [0-9]*: $F/jdk17-$f.jfr" ||
		t_fail "after --append, info lacks $f"
done
printf '%s\n' "$out" | grep -qx "recording [0-9]*: $W/copy.jfr" ||
	t_fail "after --append, info lacks copy.jfr"
top_csv all6.rec "$A" --by recording
check recordings "$W/all6.rec.csv" $(pairs) "copy.jfr=$(exp leak-gcroots)"
# totals add up: the five plus leak-gcroots once more (arithmetic on the
# references)
want=$(python3 -c '
import json, sys
t = [json.load(open(p))["ObjectAllocationSample"] for p in sys.argv[1:]]
print(sum(a["count"] for a in t), sum(a["sum_weight"] for a in t))' \
	$(for f in $ALL leak-gcroots; do exp "$f"; done))
top_csv all6.class "$A"
got=$(python3 "$CHECK" total "$W/all6.class.csv")
[ "${got#* }" = "$want" ] || t_fail "after --append: totals $got, want $want"
t_end

# --- 3. filters -------------------------------------------------------------------

set --
for f in $ALL; do set -- "$@" "$(tsv "$f")"; done
# (the copy appended above is leak-gcroots once more)
set -- "$@" "$(tsv leak-gcroots)"

t_begin store_filter_class
top_csv cls "$A" --class 'byte\[\]'
check expect_rows "$W/cls.csv" class "$@" --class '^byte\[\]$'
[ "$(python3 "$CHECK" keys "$W/cls.csv")" = "byte[]" ] ||
	t_fail "--class 'byte\\[\\]' rows: $(python3 "$CHECK" keys "$W/cls.csv")"
t_end

t_begin store_filter_thread
top_csv thr "$A" --by thread --thread '^order-worker$'
check expect_rows "$W/thr.csv" thread "$@" --thread '^order-worker$'
t_end

t_begin store_filter_include_exclude
top_csv none "$A" --by site
top_csv inc "$A" --by site --include 'HeapWorkload\.ioBuffers'
check expect_rows "$W/inc.csv" site "$@" --include 'HeapWorkload\.ioBuffers'
[ "$(python3 "$CHECK" keys "$W/inc.csv")" = "HeapWorkload.ioBuffers:73" ] ||
	t_fail "--include rows: $(python3 "$CHECK" keys "$W/inc.csv")"
top_csv exc "$A" --by site --exclude 'HeapWorkload\.ioBuffers'
check expect_rows "$W/exc.csv" site "$@" --exclude 'HeapWorkload\.ioBuffers'
python3 "$CHECK" keys "$W/exc.csv" | grep -q ioBuffers &&
	t_fail "--exclude left an ioBuffers row"
# arithmetic: everything = included + excluded
set -- $(python3 "$CHECK" total "$W/none.csv") \
	$(python3 "$CHECK" total "$W/inc.csv") \
	$(python3 "$CHECK" total "$W/exc.csv")
[ "$8" = $(($2 - $5)) ] && [ "$9" = $(($3 - $6)) ] ||
	t_fail "unfiltered $2 samples $3 bytes, include $5 $6, exclude $8 $9"
t_end

t_begin store_filter_time
P="$W/profile-tlab.hsdb"
top_csv t.none "$P"
top_csv t.to0 "$P" --to 0s
[ "$(python3 "$CHECK" total "$W/t.to0.csv")" = "0 0 0" ] ||
	t_fail "--to 0s: $(python3 "$CHECK" total "$W/t.to0.csv") rows/samples/bytes"
top_csv t.from0 "$P" --from 0s
cmp -s "$W/t.from0.csv" "$W/t.none.csv" ||
	t_fail "--from 0s differs from no filter"
# the recording starts where its first chunk's header says
start=$(python3 "$CHECK" chunk_start "$F/jdk17-profile-tlab.jfr")
mid=$((start + 3000000000))
top_csv t.to3 "$P" --to 3s
check expect_rows "$W/t.to3.csv" class "$(tsv profile-tlab)" --before "$mid"
top_csv t.from3 "$P" --from +3s
check expect_rows "$W/t.from3.csv" class "$(tsv profile-tlab)" --after "$mid"
top_csv t.ms "$P" --from 1500ms --to 4s
check expect_rows "$W/t.ms.csv" class "$(tsv profile-tlab)" \
	--after $((start + 1500000000)) --before $((start + 4000000000))
a=$(python3 "$CHECK" iso $((start + 2000000000)))
b=$(python3 "$CHECK" iso $((start + 4500000000)))
top_csv t.iso "$P" --from "$a" --to "$b"
check expect_rows "$W/t.iso.csv" class "$(tsv profile-tlab)" \
	--after $((start + 2000000000)) --before $((start + 4500000000))
t_end

t_begin store_filter_time_far_out_is_refused_or_right
# times beyond what int64 nanoseconds hold (after 2262, before 1677),
# offsets as large, and strtod's nan and inf: a usage error, or the
# right answer (everything before a time after the recording, nothing
# after it; the reverse for a time before it); never a wrapped-around
# window that gives the opposite
P="$W/profile-tlab.hsdb"
# far_out EXPECT OPTION TIME: EXPECT all (the unfiltered rows), none, or
# refused (exit 2 only)
far_out() {
	run top "$P" --csv --estimate=jfr "$2" "$3"
	no_crash "top $2 $3"
	case "$1:$rc" in
	*:2) return ;;
	refused:*)
		t_fail "$2 $3: exit $rc, not a usage error; $(python3 "$CHECK" total "$T/out" | cut -d ' ' -f 2) samples"
		return
		;;
	*:0) ;;
	*)
		t_fail "$2 $3: exit $rc; $err"
		return
		;;
	esac
	if [ "$1" = all ]; then
		cmp -s "$T/out" "$W/t.none.csv" ||
			t_fail "$2 $3: $(python3 "$CHECK" total "$T/out" | cut -d ' ' -f 2) samples, not all $(python3 "$CHECK" total "$W/t.none.csv" | cut -d ' ' -f 2)"
	else
		[ "$(python3 "$CHECK" total "$T/out")" = "0 0 0" ] ||
			t_fail "$2 $3: $(python3 "$CHECK" total "$T/out" | cut -d ' ' -f 2) samples, not none"
	fi
}
for t in 9000000000s 2562048h 1e30s 99999999999999999999 \
	2300-01-01T00:00:00Z 9999-12-31T23:59:59Z; do
	far_out all --to "$t"
	far_out none --from "$t"
done
far_out none --to 1000-01-01T00:00:00Z
far_out all --from 1000-01-01T00:00:00Z
far_out all --to inf
far_out none --from inf
far_out refused --to nan
far_out refused --from nan
t_end

t_begin store_filter_invalid_regex
for o in --class --include --exclude --thread --library; do
	run top "$A" "$o" '('
	no_crash "top $o '('"
	expect_rc 2
	expect_err "is not a valid regex"
	[ -z "$out" ] || t_fail "$o '(': stdout: $out"
done
t_end

# --- 4. one byte damaged anywhere ----------------------------------------------

t_begin store_damaged_byte_is_an_error_never_a_crash
S="$W/flip.hsdb"
cp "$W/leak-gcroots.hsdb" "$S"
run info --check "$S"
expect_rc 0
cp "$T/out" "$W/flip.info"
run top --csv --estimate=jfr "$S"
expect_rc 0
cp "$T/out" "$W/flip.top"
python3 "$CHECK" layout "$S" >"$W/layout" || t_fail "$(cat "$W/layout")"
bad=0 n=0 quiet_pad=0 quiet_top=0
# bad_flip MSG: one problem (the first 15 are shown)
bad_flip() {
	bad=$((bad + 1))
	[ $bad -le 15 ] && t_fail "$@"
}
# put BYTE_IN_OCTAL OFFSET: write one byte into the store
put() {
	printf "\\$1" >"$T/byte"
	dd if="$T/byte" of="$S" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# (run, lighter: some 400 offsets, two commands each)
while read -r off where flipped orig; do
	n=$((n + 1))
	put "$flipped" "$off"
	for cmd in info top; do
		if [ $cmd = info ]; then
			set -- info --check "$S"
			ref="$W/flip.info"
		else
			set -- top --csv --estimate=jfr "$S"
			ref="$W/flip.top"
		fi
		(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C exec "$HEAPSIFT" "$@" \
			>"$T/out" 2>"$T/err" </dev/null)
		rc=$?
		err=
		[ -s "$T/err" ] && read -r err <"$T/err"
		what="byte $off ($where) ^0xff: $cmd"
		if [ "$rc" -ge 128 ]; then
			bad_flip "$what: killed by signal $((rc - 128)); $(head -c 300 "$T/err")"
			continue
		fi
		case "$err" in
		*Sanitizer* | *"runtime error:"*)
			bad_flip "$what: sanitizer: $(head -c 600 "$T/err")"
			continue
			;;
		esac
		case "$rc" in
		0)
			if ! cmp -s "$T/out" "$ref"; then
				bad_flip "$what: exit 0 with different output: $(diff "$ref" "$T/out" | head -n 6)"
			elif [ -n "$err" ]; then
				bad_flip "$what: exit 0, stderr: $err"
			elif [ "$where" = pad ]; then
				quiet_pad=$((quiet_pad + 1))
			elif [ $cmd = info ]; then
				bad_flip "$what: --check found nothing wrong"
			else
				quiet_top=$((quiet_top + 1))
			fi
			;;
		1)
			[ -s "$T/out" ] && bad_flip "$what: exit 1 with output: $(head -c 200 "$T/out")"
			case "$where:$err" in
			header:"heapsift $cmd: error: "*header* | \
				header:"heapsift $cmd: error: "*magic* | \
				header:"heapsift $cmd: error: "*"format version"* | \
				toc:"heapsift $cmd: error: "*"table of sections"* | \
				pad:"heapsift $cmd: error: "*) ;;
			*:"heapsift $cmd: error: "*"section '"*"' checksum mismatch"*) ;;
			*) bad_flip "$what: exit 1 without naming what is damaged: $err" ;;
			esac
			;;
		*) bad_flip "$what: exit $rc; $(head -c 300 "$T/err")" ;;
		esac
	done
	put "$orig" "$off"
done <"$W/layout"
[ $bad -gt 15 ] && t_fail "... $bad problems in all"
[ $n -ge 300 ] || t_fail "only $n offsets damaged"
cmp -s "$S" "$W/leak-gcroots.hsdb" || t_fail "the store was not restored"
echo "  ($n offsets, 2 commands each; $quiet_pad runs unchanged by a padding byte, $quiet_top tops that never read the damaged section)"
t_end

t_begin store_damage_behind_good_checksums_never_crashes
# the same, past the checksums: words of every section set to edge values
# with every checksum made to agree (check_top.py forge), so that the
# checks of references and the queries see them.  Exit 0 with other
# output is fine here (the file is a valid store, only a different one);
# a signal or a sanitizer report (make check) is not.
S="$W/profile-tlab.hsdb"
G="$W/forged"
total=$(python3 "$CHECK" forge "$S" "$G" 0 0)
bad=0 n=0 k=0
while [ "$k" -lt "$total" ]; do
	rm -rf "$G"
	mkdir "$G"
	python3 "$CHECK" forge "$S" "$G" "$k" 50 >"$W/forged.list"
	while read -r i sid at bytes; do
		n=$((n + 1))
		for a in "info --check" \
			"top --csv --by site --from 1s --to 5s" \
			"top --csv --kind tlab --by thread --include Heap" \
			"top --csv --kind outside --by app-site" \
			"top --csv --kind old --by recording"; do
			# shellcheck disable=SC2086
			(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C exec "$HEAPSIFT" \
				$a "$G/$i.hsdb" >"$T/out" 2>"$T/err" </dev/null)
			rc=$?
			what="$sid at $at set to $bytes: $a"
			if [ "$rc" -ge 128 ]; then
				bad_flip "$what: killed by signal $((rc - 128))"
			elif grep -q 'Sanitizer\|runtime error:' "$T/err"; then
				bad_flip "$what: sanitizer: $(grep -m 1 'Sanitizer\|runtime error:' "$T/err")"
			elif [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
				bad_flip "$what: exit $rc; $(head -c 300 "$T/err")"
			fi
		done
	done <"$W/forged.list"
	k=$((k + 50))
done
rm -rf "$G"
[ $bad -gt 15 ] && t_fail "... $bad problems in all"
[ "$n" -ge 200 ] || t_fail "only $n damaged stores"
t_end

# --- 5. import killed at random moments ------------------------------------

t_begin store_import_killed_leaves_old_or_new
C="$W/crash"
mkdir -p "$C"
S="$C/S.hsdb"
# the old store: one recording; the new: the five fixtures, eight times
# over; the kills are spread over 0 to 1.2 times the time a whole import
# takes here, so that they land in every phase and some after the end
run import -o "$C/old.hsdb" "$F/jdk17-leak-gcroots.jfr"
expect_rc 0
set --
i=0
while [ $i -lt 8 ]; do
	for f in $ALL; do set -- "$@" "$F/jdk17-$f.jfr"; done
	i=$((i + 1))
done
cp "$C/old.hsdb" "$S"
run top --by recording --csv --estimate=jfr "$S"
cp "$T/out" "$C/old.top"
t0=$(date +%s%N)
run import -o "$S" "$@"
t1=$(date +%s%N)
expect_rc 3
case "$t0$t1" in
*N*) took=200 ;; # no nanoseconds from date: 0 to 240 ms
*) took=$(((t1 - t0) / 1000000)) ;;
esac
run top --by recording --csv --estimate=jfr "$S"
cp "$T/out" "$C/new.top"
cmp -s "$C/old.top" "$C/new.top" && t_fail "old and new stores look alike"
seed=${HS_SEED:-$(date +%s)}
delays=$(awk -v s="$seed" -v ms="$took" 'BEGIN { srand(s)
	for (i = 0; i < 15; i++) printf "%.3f\n", rand() * ms * 1.2 / 1000 }')
olds=0 news=0 killed=0 temps=0
for d in $delays; do
	cp "$C/old.hsdb" "$S"
	(cd "$T/cwd" && TMPDIR="$T/tmp" exec "$HEAPSIFT" import -o "$S" "$@" \
		>/dev/null 2>&1 </dev/null) &
	pid=$!
	sleep "$d"
	kill -KILL "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	[ $? = 137 ] && killed=$((killed + 1))
	run info --check "$S"
	no_crash "info after a kill at $d s"
	[ "$rc" = 0 ] || t_fail "killed at $d s (seed $seed): info --check exit $rc; $err"
	run top --by recording --csv --estimate=jfr "$S"
	if cmp -s "$T/out" "$C/old.top"; then
		olds=$((olds + 1))
	elif cmp -s "$T/out" "$C/new.top"; then
		news=$((news + 1))
	else
		t_fail "killed at $d s (seed $seed): neither old nor new: exit $rc; $(head -c 300 "$T/out") $err"
	fi
	for x in "$C"/* "$C"/.[!.]*; do
		[ -e "$x" ] || continue
		case "${x#"$C"/}" in
		S.hsdb | old.hsdb | old.top | new.top) ;;
		.S.hsdb.tmp"$pid" | .S.hsdb.tmp"$pid".*)
			temps=$((temps + 1))
			rm -f "$x"
			;;
		*) t_fail "killed at $d s: unexpected file ${x#"$C"/}" ;;
		esac
	done
done
echo "  (seed $seed, a whole import $took ms: $killed of 15 imports killed; old store $olds times, new $news; $temps temporary files left)"
t_end

# --- 6. errors -------------------------------------------------------------------

t_begin store_info_refuses_what_is_no_store
run info "$W/no-such.hsdb"
no_crash info
expect_rc 1
expect_err "no-such.hsdb"
: >"$W/empty.hsdb"
run info "$W/empty.hsdb"
no_crash info
expect_rc 1
expect_err "not a heapsift store"
head -c 100 "$W/leak-gcroots.hsdb" >"$W/cut.hsdb"
run info "$W/cut.hsdb"
no_crash info
expect_rc 1
expect_err "cut short"
# a folder is read as its archive would be (docs/inputs.md, Folders):
# one that holds nothing heapsift reads is that error, not a store's
mkdir -p "$W/notes-only"
echo "a note" >"$W/notes-only/notes.txt"
run info "$W/notes-only"
no_crash info
expect_rc 1
expect_err "nothing in it is a recording or report heapsift reads"
t_end

t_begin store_version_1_is_refused_saying_how_to_reimport
# a store as heapsift wrote it before format 2: the same header with
# major 1, its checksum made to agree
python3 - "$W/leak-gcroots.hsdb" "$W/v1.hsdb" "$here/jfr" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[3])
from check_top import crc32c
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<HH", d, 8, 1, 2)
struct.pack_into("<I", d, 40, 0)
struct.pack_into("<I", d, 40, crc32c(bytes(d[:64])))
open(sys.argv[2], "wb").write(d)
EOF
run top "$W/v1.hsdb"
no_crash top
expect_rc 1
expect_err "format version 1.2, made by an older heapsift"
expect_err "import the recordings again"
t_end

t_begin store_version_2_reads_with_the_raw_weights_and_says_to_reimport
# a 2.x store, as heapsift wrote it before 3.0: no rest column, no RCOR
# or ESTM (forge_store.py writes the blocks again without the column);
# it opens and checks, and its views give the raw weights, their header
# saying how to get the corrected estimate
python3 - "$W/profile-tlab.hsdb" "$W/v2.hsdb" "$here/jfr" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
from forge_store import read, write, samples, set_samples
secs = read(sys.argv[1])
rows = samples(secs)
secs = [s for s in secs if s[0] not in
        ("ESTM", "RCOR", "RWBK", "RWRO", "RWSQ", "RWCO", "NMAP")]
set_samples(secs, rows)
write(sys.argv[2], secs)
EOF
[ "$(od -An -tu2 -j8 -N2 "$W/v2.hsdb" | tr -d ' ')" = 2 ] ||
	t_fail "the forged store is not of major 2"
run info --check "$W/v2.hsdb"
expect_rc 0
run top "$W/v2.hsdb" --by site
expect_rc 0
printf '%s\n' "$out" | grep -q "^estimate: jfr (the raw weights; the store was made by an older heapsift: import the recordings again" ||
	t_fail "the header does not say to import again: $out"
a=$out
run top "$W/profile-tlab.hsdb" --by site --estimate=jfr
[ "$(printf '%s\n' "$out" | sed 1,2d)" = "$(printf '%s\n' "$a" | sed 1,2d)" ] ||
	t_fail "the 2.x store's raw weights differ from the 3.0 store's"
run top "$W/profile-tlab.hsdb" --by site
printf '%s\n' "$out" | grep -q "^estimate: corrected" ||
	t_fail "the 3.0 store does not give the corrected estimate: $out"
t_end

t_begin store_check_walks_the_corrected_estimate_again
# info --check finds the rests and the estimate facts again from the
# samples: a forged rest (blocks written anew by forge_store.py, their
# checksums right) or a forged typical TLAB is a damaged store, as the
# untouched store is not
python3 - "$W/profile-tlab.hsdb" "$W/rest.hsdb" "$W/tlab.hsdb" "$here/jfr" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[4])
from forge_store import read, write, samples, set_samples, sec
secs = read(sys.argv[1])
rows = samples(secs)
a = [r for r in rows if r["kind"] == 0]
assert a and all(r["rest"] is not None for r in a)
a[len(a) // 2]["rest"] += 1
set_samples(secs, rows)
write(sys.argv[2], secs)
secs = read(sys.argv[1])
est = sec(secs, "ESTM")
t, = struct.unpack_from("<q", est, 32)
assert t > 0
struct.pack_into("<q", est, 32, t + 1)
write(sys.argv[3], secs)
EOF
run info --check "$W/profile-tlab.hsdb"
expect_rc 0
run info --check "$W/rest.hsdb"
expect_rc 1
expect_err "samples' rests disagree with the samples"
run info --check "$W/tlab.hsdb"
expect_rc 1
expect_err "section 'estimates' disagrees with the samples"
t_end

t_begin store_version_5_is_refused_as_newer
python3 - "$W/leak-gcroots.hsdb" "$W/v5.hsdb" "$here/jfr" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[3])
from check_top import crc32c
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<HH", d, 8, 5, 0)
struct.pack_into("<I", d, 40, 0)
struct.pack_into("<I", d, 40, crc32c(bytes(d[:64])))
open(sys.argv[2], "wb").write(d)
EOF
run top "$W/v5.hsdb"
no_crash top
expect_rc 1
expect_err "format version 5.0, made by a newer heapsift; this heapsift reads 2.x to 4.x"
t_end

t_begin store_a_kind_reads_only_its_own_blocks
# one byte of the old-object samples' block damaged: the views of the
# other kinds never read it and answer as before; the old objects' view
# and info --check name the block
S="$W/oldblock.hsdb"
cp "$W/profile-tlab.hsdb" "$S"
run top "$S" --kind tlab --csv
cp "$T/out" "$W/oldblock.want"
at=$(python3 - "$S" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
toc, n = struct.unpack("<QI", d[24:36])
secs = {}
for i in range(n):
    e = d[toc + 32 * i:toc + 32 * i + 32]
    sid, _, off, ln, _, _ = struct.unpack("<4sIQQII", e)
    secs[sid] = (off, ln)
ix, ixlen = secs[b"SIDX"]
for b in range(ix, ix + ixlen, 48):
    kind, = struct.unpack("<B", d[b:b + 1])
    boff, = struct.unpack("<Q", d[b + 8:b + 16])
    if kind == 3:  # jdk.OldObjectSample
        print(secs[b"SBLK"][0] + boff)
        break
EOF
)
if [ -z "$at" ]; then
	t_fail "profile-tlab's store has no old-object block"
else
	printf '\377' | dd of="$S" bs=1 seek="$at" conv=notrunc 2>/dev/null
	run top "$S" --kind tlab --csv
	expect_rc 0
	cmp -s "$T/out" "$W/oldblock.want" || t_fail "top --kind tlab changed"
	# the view of the old objects reads their rollups (2.1), not their
	# samples; what reads the samples (export) names the block
	run top "$S" --kind old
	expect_rc 0
	run export "$S" --format=csv -o "$W/oldblock-x"
	expect_rc 1
	expect_err "section 'sample blocks' checksum mismatch in block"
	expect_err "jdk.OldObjectSample"
	run info --check "$S"
	expect_rc 1
	expect_err "checksum mismatch"
fi
t_end

t_begin store_a_time_range_reads_only_its_blocks
# the last block of the in-new-TLAB samples damaged: a range that ends
# before it starts never reads it, the whole range does and says so
S="$W/lastblock.hsdb"
cp "$W/profile-tlab.hsdb" "$S"
set -- $(python3 - "$S" <<'EOF'
import struct, sys, time
d = open(sys.argv[1], "rb").read()
toc, n = struct.unpack("<QI", d[24:36])
secs = {}
for i in range(n):
    e = d[toc + 32 * i:toc + 32 * i + 32]
    sid, _, off, ln, _, _ = struct.unpack("<4sIQQII", e)
    secs[sid] = (off, ln)
ix, ixlen = secs[b"SIDX"]
last = None
for b in range(ix, ix + ixlen, 48):
    kind, _, boff, _, _, t0, _, _ = struct.unpack("<B3xIQIIqqQ", d[b:b + 48])
    if kind == 1:  # jdk.ObjectAllocationInNewTLAB
        last = (secs[b"SBLK"][0] + boff, t0)
# the whole second before the block's first sample
print(last[0], time.strftime("%Y-%m-%dT%H:%M:%SZ",
                             time.gmtime(last[1] // 10**9)))
EOF
)
at=$1 to=$2
run top "$S" --kind tlab --to "$to" --csv
expect_rc 0
cp "$T/out" "$W/lastblock.want"
printf '\377' | dd of="$S" bs=1 seek="$at" conv=notrunc 2>/dev/null
run top "$S" --kind tlab --to "$to" --csv
expect_rc 0
cmp -s "$T/out" "$W/lastblock.want" || t_fail "top --to $to changed"
[ "$(printf '%s\n' "$out" | wc -l)" -gt 1 ] || t_fail "top --to $to has no rows"
# the whole range reads the rollups (2.1), the samples never; what
# reads them all (export) finds the damage
run top "$S" --kind tlab
expect_rc 0
run export "$S" --format=csv -o "$W/lastblock-x"
expect_rc 1
expect_err "section 'sample blocks' checksum mismatch"
t_end

t_begin store_damaged_block_is_damage_in_every_command
# one byte of the first OutsideTLAB block damaged (profile-tlab: a kind
# without rollups, whose counts per recording come from its blocks): a
# command that reads the block says the store's damage, exit 1, as top
# does, never a usage error (diff said "the base side's length of
# recording is not known ... give --total", exit 2, and took the damaged
# side's alloc samples for ones without OutsideTLAB events: issue 39);
# one that never reads it answers as on the whole store.  The block's
# index and offset are read from the store's index here.
S="$W/outblock.hsdb"
P="$W/profile-tlab.hsdb"
cp "$P" "$S"
set -- $(python3 - "$S" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
toc, n = struct.unpack("<QI", d[24:36])
secs = {}
for i in range(n):
    e = d[toc + 32 * i:toc + 32 * i + 32]
    sid, _, off, ln, _, _ = struct.unpack("<4sIQQII", e)
    secs[sid] = (off, ln)
ix, ixlen = secs[b"SIDX"]
for i, b in enumerate(range(ix, ix + ixlen, 48)):
    kind, = struct.unpack("<B", d[b:b + 1])
    boff, = struct.unpack("<Q", d[b + 8:b + 16])
    if kind == 2:  # jdk.ObjectAllocationOutsideTLAB
        print(i, secs[b"SBLK"][0] + boff)
        break
EOF
)
blk=${1:-} at=${2:-}
if [ -z "$at" ]; then
	t_fail "profile-tlab's store has no OutsideTLAB block"
else
	run diff "$S" "$S" --kind tlab
	expect_rc 0
	cp "$T/out" "$W/outblock.tlab"
	printf '\377' | dd of="$S" bs=1 seek=$((at + 20)) conv=notrunc 2>/dev/null
	want="section 'sample blocks' checksum mismatch in block $blk (jdk.ObjectAllocationOutsideTLAB"
	for args in "top $S --kind outside" "diff $S $P --kind outside" \
		"diff $P $S --kind outside --tree" "diff $S $P --kind outside --total" \
		"diff $S --kind outside --base-from 0s --base-to 2s --from 2s --to 4s" \
		"diff $S $P" "diff $P $S --inverted" "diff $S $P --kind alloc --by site" \
		"tree $S --kind outside" "timeline $S --kind outside" \
		"export $S --kind outside --format folded" "report $S" "info --check $S"; do
		# shellcheck disable=SC2086
		run $args
		no_crash "$args"
		[ "$rc" = 1 ] || t_fail "$args: exit $rc, not 1: $(printf '%s' "$err" | head -n 2)"
		expect_err "heapsift ${args%% *}: error: $S: store: $want"
		expect_err "the file is damaged at offset $at"
		[ -z "$out" ] || t_fail "$args: output on damage: $(printf '%s' "$out" | head -n 2)"
	done
	# the in-new-TLAB samples never touch the block
	run diff "$S" "$S" --kind tlab
	expect_rc 0
	cmp -s "$W/outblock.tlab" "$T/out" ||
		t_fail "diff --kind tlab changed: $(diff "$W/outblock.tlab" "$T/out" | head -n 4)"
fi
t_end

t_begin store_usage_errors
run top
expect_rc 2
expect_err "give a store, or the recordings or bundles to read"
# a store is read alone: beside inputs it is a usage error (the inputs
# alone would be imported into the cache store)
run top "$W/leak-gcroots.hsdb" "$A"
expect_rc 2
expect_err "is a heapsift store: give it alone"
run top "$W/leak-gcroots.hsdb" "$W/leak-gcroots.hsdb"
expect_rc 2
run import
expect_rc 2
run import -o "$W/u.hsdb"
expect_rc 2
expect_err "no input given"
[ -e "$W/u.hsdb" ] && t_fail "import with no input created the store"
run info
expect_rc 2
t_end

t_begin store_import_of_nothing_importable_writes_nothing
printf 'just some text\n' >"$W/notes.txt"
run import -o "$W/n.hsdb" "$W/notes.txt"
no_crash import
expect_rc 1
expect_err "no recording could be imported"
[ -e "$W/n.hsdb" ] && t_fail "the store was created"
ls -A "$W" | grep -q '^\.n\.hsdb\.tmp' && t_fail "a temporary file was left"
# an existing store is left as it was
cp "$W/leak-gcroots.hsdb" "$W/n.hsdb"
run import -o "$W/n.hsdb" "$W/notes.txt"
expect_rc 1
cmp -s "$W/n.hsdb" "$W/leak-gcroots.hsdb" || t_fail "the old store was changed"
t_end

t_begin store_rollup_squares_match_the_samples
# the rollup rows' sums of squared bytes (RSQR, 2.2), from which the ±
# of top comes, against the samples as tests/jfr/check_squares.py
# decodes them from the format's page
for f in $ALL; do
	[ -e "$W/$f.hsdb" ] || t_fail "$f: no store"
	r=$(python3 "$here/jfr/check_squares.py" "$W/$f.hsdb" 2>&1) ||
		t_fail "$f: $r"
done
t_end

t_begin store_timeline_rel_err_is_top_s_over_one_bucket
# a timeline of one bucket holds every sample, so its ± is the one top
# gives the recording (whose ± check_top.py holds to the JDK's weights),
# for each estimate; and the buckets of a finer timeline each have one
for f in $ALL; do
	S="$W/$f.hsdb"
	for e in jfr corrected; do
		run top "$S" --by recording --csv --estimate=$e
		want=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR == 2 { print $6 }')
		run timeline "$S" --bucket=24h --csv --estimate=$e
		got=$(printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 && $2 > 0 { print $6 }')
		[ "$(printf '%s\n' "$got" | wc -l)" = 1 ] ||
			t_fail "$f: more than one bucket of a day"
		[ "$got" = "$want" ] ||
			t_fail "$f --estimate=$e: the day's ± $got, top's $want"
		run timeline "$S" --csv --estimate=$e
		printf '%s\n' "$out" | tr -d '\r' | awk -F, 'NR > 1 && $3 > 0 && $6 == "" { bad = 1 } END { exit bad }' ||
			t_fail "$f: a bucket with bytes has no ±"
	done
done
t_end

t_begin store_without_squares_reads_the_samples_alike
# a store of before 2.2 has rollups but no squares: the views that show
# a ± read the samples instead, and say the same to the byte
python3 -c '
import sys
sys.path.insert(0, sys.argv[3])
from forge_store import read, write
secs = [s for s in read(sys.argv[1]) if s[0] != "RSQR"]
write(sys.argv[2], secs)' "$W/leak-gcroots.hsdb" "$W/nosq.hsdb" "$here/jfr" ||
	t_fail "could not forge the store"
for e in jfr corrected; do
	for by in class site thread; do
		run top "$W/leak-gcroots.hsdb" --by $by --csv --estimate=$e
		cp "$T/out" "$W/sq.csv"
		run top "$W/nosq.hsdb" --by $by --csv --estimate=$e
		expect_rc 0
		cmp -s "$T/out" "$W/sq.csv" ||
			t_fail "--by $by --estimate=$e: $(diff "$W/sq.csv" "$T/out" | head -4)"
	done
done
t_end

t_begin store_node_map_names_the_tries_nodes
# 4.0: the blocks hold the writer's node ids and NMAP the trie's id of
# each.  The same samples written here (forge_store.py, its own encoder)
# as a 3.x store with the trie's ids and no map, and as a 4.0 store whose
# map is the reverse of the ids, read as heapsift's own store without its
# rollups does (forge_store.py drops them: the corrected estimate rounds
# per row or per sample, docs/estimates.md), to the byte; the second under a 3.x header (map not applied) reads other
# nodes, so the reader's use of the map is what the first two hold.  A
# map that is no permutation, or none at all, is a damaged store.
python3 - "$W/profile-tlab.hsdb" "$W" "$here/jfr" <<'EOF' ||
import struct, sys
sys.path.insert(0, sys.argv[3])
from forge_store import read, write, samples, set_samples, sec, drop_rollups
from check_top import crc32c


def major4(path):
    d = bytearray(open(path, "rb").read())
    struct.pack_into("<HH", d, 8, 4, 0)
    struct.pack_into("<I", d, 40, 0)
    struct.pack_into("<I", d, 40, crc32c(bytes(d[:64])))
    open(path, "wb").write(d)


src, out = sys.argv[1], sys.argv[2]
assert struct.unpack_from("<H", open(src, "rb").read(), 8)[0] == 4
secs = read(src)
drop_rollups(secs)
write(out + "/nmap-base.hsdb", secs)
secs = read(src)
rows = samples(secs)
n = len(sec(secs, "TRIE")) // 16
assert n > 2 and len({r["node"] for r in rows}) > 2
v3 = [x for x in secs if x[0] != "NMAP"]
set_samples(v3, rows)
write(out + "/nmap-v3.hsdb", v3)
secs = read(src)
set_samples(secs, rows)
write(out + "/nmap-rev.hsdb", secs)
d = bytearray(open(out + "/nmap-rev.hsdb", "rb").read())
struct.pack_into("<HH", d, 8, 3, 0)
struct.pack_into("<I", d, 40, 0)
struct.pack_into("<I", d, 40, crc32c(bytes(d[:64])))
open(out + "/nmap-as-v3.hsdb", "wb").write(d)
secs = read(src)
m = sec(secs, "NMAP")
m[4:8] = m[0:4]
write(out + "/nmap-dup.hsdb", secs)
write(out + "/nmap-none.hsdb", [x for x in read(src) if x[0] != "NMAP"])
major4(out + "/nmap-none.hsdb")
EOF
	t_fail "could not forge the stores"
[ "$(od -An -tu2 -j8 -N2 "$W/nmap-v3.hsdb" | tr -d ' ')" = 3 ] ||
	t_fail "the store without a map is not of major 3"
for v in "tree" "tree --inverted" "top --by site" "top --by class" \
	"top --by thread" "top --by site --estimate=jfr" "top --by app-site"; do
	# shellcheck disable=SC2086
	run $v --csv "$W/nmap-base.hsdb"
	expect_rc 0
	cp "$T/out" "$W/nmap.want"
	for f in nmap-v3 nmap-rev; do
		# shellcheck disable=SC2086
		run $v --csv "$W/$f.hsdb"
		expect_rc 0
		cmp -s "$T/out" "$W/nmap.want" ||
			t_fail "$f, $v: $(diff "$W/nmap.want" "$T/out" | head -4)"
	done
done
run tree --csv "$W/profile-tlab.hsdb"
a=$out
run tree --csv "$W/nmap-as-v3.hsdb"
[ "$out" != "$a" ] || t_fail "the blocks' ids read without the map give the same tree"
run info --check "$W/nmap-rev.hsdb"
expect_rc 0
run info --check "$W/nmap-dup.hsdb"
expect_rc 1
expect_err "section 'node map', record 1 is not a permutation of the stack nodes"
run top "$W/nmap-dup.hsdb" --by site
no_crash top
expect_rc 1
expect_err "is not a permutation"
run top "$W/nmap-none.hsdb"
no_crash top
expect_rc 1
expect_err "the node map section is missing"
t_end

t_summary
