#!/bin/sh
# Parallel JFR decoding is deterministic (issue 12): for every JFR
# fixture, a recording of many chunks made from one (make_big_jfr.py), a
# tar.gz bundle of it, the same through a pipe, and recordings cut or
# damaged in the middle of a chunk, `heapsift dump` (text, tsv, --stats:
# stdout, stderr and exit status) and `heapsift import` (the store's
# bytes, stderr and exit status) are the same with --jobs=1 (the chunks
# decoded on the main thread, as before threads) and --jobs=2 and 4, and
# with HEAPSIFT_JOBS in place of the option.  The counts of the many-chunk
# recording are also checked against the JDK's summary of its source
# times the copies, so that "all the same" cannot mean "all empty".
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
BIG="$HERE/../bench/make_big_jfr.py"
F=$HS_FIXTURES/jfr
W=$T/work

# JOBS is a thread count, or a count and "s": the same with the decoders
# handing their records over one at a time and none of them working
# ahead of the chunk being replayed (HEAPSIFT_JFR_SEGMENT=1,
# HEAPSIFT_JFR_AHEAD=0): every record crosses between threads, and every
# decoder but the oldest's waits.  Sets _j to the count.
jobs_env() {
	_j=$1
	case $_j in
	*s)
		_j=${_j%s}
		export HEAPSIFT_JFR_SEGMENT=1 HEAPSIFT_JFR_AHEAD=0
		;;
	esac
}

# digest JOBS ARGS...: md5 of the exit status, stdout and stderr of
# `heapsift --jobs=JOBS ARGS` (a store written by it is added by same)
digest() {
	jobs_env "$1"
	shift
	run "$@" --jobs="$_j"
	# 0 to 3: read, warned, refused; more is a crash, never the same
	[ "$rc" -le 3 ] || echo "crash: $rc $err" >>"$T/crashes"
	{
		echo "exit $rc"
		printf '%s\n' "$out"
		echo "-- stderr"
		printf '%s\n' "$err"
	} | md5sum | cut -c1-32
}

# merged JOBS ARGS...: the same with stdout and stderr in one stream, as
# a terminal shows them: a warning comes between the records it was
# found between (stdout is flushed before each warning)
merged() {
	jobs_env "$1"
	shift
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" "$@" \
		--jobs="$_j" >"$T/both" 2>&1 </dev/null)
	_rc=$?
	[ "$_rc" -le 3 ] || echo "crash: $_rc" >>"$T/crashes"
	echo "exit $_rc $(md5sum <"$T/both" | cut -c1-32)"
}

# same INPUT: dump and import INPUT with 1, 2 and 4 threads; every
# result must be the one of --jobs=1.  Fails the case on a difference,
# naming the command and the thread count.
same() {
	_in=$1
	for _cmd in "dump" "dump --format=tsv --raw-names" "dump --stats"; do
		# shellcheck disable=SC2086 # the words of $_cmd are arguments
		_ref=$(digest 1 $_cmd "$_in")
		for _j in 2 4 3s; do
			# shellcheck disable=SC2086
			_got=$(digest $_j $_cmd "$_in")
			[ "$_got" = "$_ref" ] ||
				t_fail "$_cmd $(basename "$_in"): --jobs=$_j" \
					"differs from --jobs=1"
		done
	done
	_ref=$(merged 1 dump --format=tsv "$_in")
	for _j in 2 4 3s; do
		[ "$(merged $_j dump --format=tsv "$_in")" = "$_ref" ] ||
			t_fail "dump $(basename "$_in") 2>&1: --jobs=$_j" \
				"differs from --jobs=1"
	done
	_ref=
	for _j in 1 2 4 3s; do
		rm -f "$W/s.hsdb"
		_d=$(digest $_j import -o "$W/s.hsdb" "$_in")
		if [ -e "$W/s.hsdb" ]; then
			_d="$_d $(md5sum <"$W/s.hsdb" | cut -c1-32)"
		fi
		if [ -z "$_ref" ]; then
			_ref=$_d
		elif [ "$_d" != "$_ref" ]; then
			t_fail "import $(basename "$_in"): --jobs=$_j store or" \
				"messages differ from --jobs=1"
		fi
	done
	rm -f "$W/s.hsdb"
	if [ -s "$T/crashes" ]; then
		t_fail "$(cat "$T/crashes")"
		rm -f "$T/crashes"
	fi
}

# count FILE TYPE: TYPE's count in `jfr summary`'s or dump --stats's table
count() {
	awk -v t="$2" '$1 == t { print $2; exit }' "$1"
}

n=0
for f in "$F"/*.jfr "$F"/fuzz/*.jfr "$F"/hostile/*; do
	[ -e "$f" ] || {
		t_begin jobs_fixtures
		t_fail "no fixture matches $f"
		t_end
		continue
	}
	n=$((n + 1))
	t_begin "jobs_$(basename "$f")"
	same "$f"
	t_end
done

# Seven chunks times five copies: 35 chunks, more than the threads and
# the queue hold, so that decoders run ahead of the sink.
python3 "$BIG" "$F/jdk17-multichunk.jfr" "$W/big.jfr" --copies 5 \
	>/dev/null

t_begin jobs_many_chunks
same "$W/big.jfr"
# the counts the JDK gives for one copy, five times
run dump --stats --jobs=4 "$W/big.jfr"
printf '%s\n' "$out" >"$W/stats"
for ty in jdk.ObjectAllocationSample jdk.OldObjectSample \
	jdk.GCHeapSummary jdk.ActiveSetting; do
	want=$(($(count "$F/jdk17-multichunk.summary.txt" "$ty") * 5))
	got=$(count "$W/stats" "$ty")
	[ "$got" = "$want" ] || t_fail "$ty: $got, expected $want"
done
head -n 1 "$W/stats" | grep -q "^# $W/big.jfr: jfr, 35 chunks, " ||
	t_fail "not 35 chunks: $(head -n 1 "$W/stats")"
t_end

t_begin jobs_env_is_the_option
# HEAPSIFT_JOBS in place of --jobs: the same store
rm -f "$W/a.hsdb" "$W/b.hsdb"
(cd "$T/cwd" && HEAPSIFT_JOBS=1 "$HEAPSIFT" import -o "$W/a.hsdb" \
	"$W/big.jfr" >/dev/null 2>&1)
(cd "$T/cwd" && HEAPSIFT_JOBS=3 "$HEAPSIFT" import -o "$W/b.hsdb" \
	"$W/big.jfr" >/dev/null 2>&1)
if [ ! -s "$W/a.hsdb" ] || ! cmp -s "$W/a.hsdb" "$W/b.hsdb"; then
	t_fail "HEAPSIFT_JOBS=1 and 3 made different stores"
fi
rm -f "$W/a.hsdb" "$W/b.hsdb"
t_end

t_begin jobs_bad_option
run dump --jobs=0 "$W/big.jfr"
expect_rc 2
expect_err "--jobs: '0' is not a number from 1 to 64"
run import -o "$W/x.hsdb" --jobs=65 "$W/big.jfr"
expect_rc 2
[ -e "$W/x.hsdb" ] && t_fail "a usage error wrote a store"
t_end

t_begin jobs_tar_gz_bundle
# a stream, not a mapping: chunks are copied out of libarchive's buffers
mkdir -p "$W/b"
cp "$W/big.jfr" "$F/jdk17-leak-gcroots.jfr" "$W/b/"
(cd "$W/b" && tar czf ../bundle.tar.gz big.jfr jdk17-leak-gcroots.jfr)
same "$W/bundle.tar.gz"
t_end

t_begin jobs_pipe
# standard input: pulled, never mapped
for j in 1 2 4; do
	(cd "$T/cwd" && "$HEAPSIFT" dump --format=tsv --jobs=$j - \
		<"$W/big.jfr" >"$W/pipe.$j" 2>&1)
	echo "exit $?" >>"$W/pipe.$j"
done
run dump --format=tsv --jobs=1 "$W/big.jfr"
{
	printf '%s\n' "$out"
	echo "exit $rc"
} >"$W/file.1"
[ "$(wc -l <"$W/file.1")" -gt 10000 ] ||
	t_fail "the dump of big.jfr has too few lines"
for j in 1 2 4; do
	cmp -s "$W/pipe.$j" "$W/file.1" ||
		t_fail "dump - --jobs=$j differs from the file's dump"
done
t_end

# chunk START SIZE of the big recording's chunk N (1-based), from the
# headers, independently of heapsift
chunk() {
	python3 - "$W/big.jfr" "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, n = 0, int(sys.argv[2])
while n > 1:
    off += struct.unpack(">Q", d[off + 8:off + 16])[0]
    n -= 1
print(off, struct.unpack(">Q", d[off + 8:off + 16])[0])
PY
}

t_begin jobs_cut_inside_a_chunk
# the file ends in the middle of chunk 17: chunks before it in flight
set -- $(chunk 17)
head -c $(($1 + $2 / 2)) "$W/big.jfr" >"$W/cut.jfr"
same "$W/cut.jfr"
run dump --stats --jobs=4 "$W/cut.jfr"
expect_rc 3
expect_err "jfr: chunk 17: chunk cut short"
t_end

t_begin jobs_damaged_chunks
# events damaged in the middle of chunks 3, 11 and 30, their framing
# kept (tests/jfr/damage_events.py): each warning must come in the same
# place among the records whatever the threads, and chunk 11's eight
# must be five and "3 more"
cp "$W/big.jfr" "$W/bad.jfr"
n_oas=$(($(count "$F/jdk17-multichunk.summary.txt" \
	jdk.ObjectAllocationSample) * 5))
python3 "$HERE/../jfr/damage_events.py" "$W/bad.jfr" "$n_oas" 3:2 11:8 \
	30:3 >"$W/damaged" || t_fail "damage_events.py failed"
same "$W/bad.jfr"
run dump --stats --jobs=4 "$W/bad.jfr"
expect_rc 3
shown=0
while read -r c at _; do
	if printf '%s\n' "$err" | grep -qF "(chunk $c) at offset $at"; then
		shown=$((shown + 1))
	fi
done <"$W/damaged"
[ "$shown" = 10 ] || t_fail "$shown of the 10 first damaged events shown"
expect_err "jfr: 3 more damaged events in chunk 11"
# and each shown where it belongs: after the sound events before it
for j in 1 4; do
	(cd "$T/cwd" && "$HEAPSIFT" dump --format=tsv --events=alloc \
		--jobs=$j "$W/bad.jfr" 2>&1) | awk '
		/^heapsift dump: warning: .* at offset [0-9]+$/ {
			if (match($0, /\(chunk [0-9]+\) at offset [0-9]+$/)) {
				split(substr($0, RSTART), w, /[ )]+/)
				print w[2], w[5], n
			}
			next
		}
		/^heapsift/ { next }
		NR > 1 { n++ }' >"$W/placed.$j"
	awk 'NR == FNR { shown[$1 " " $2] = 1; next }
		($1 " " $2) in shown' "$W/placed.$j" "$W/damaged" >"$W/want.$j"
	cmp -s "$W/placed.$j" "$W/want.$j" ||
		t_fail "--jobs=$j: warnings not among the records where the" \
			"damage is: got $(cat "$W/placed.$j"), want" \
			"$(cat "$W/want.$j")"
done
t_end

t_begin jobs_trailing_bytes
# bytes after the last chunk: reported after every chunk's warnings
cp "$W/bad.jfr" "$W/tail.jfr"
printf 'this is not a chunk, just trailing bytes' >>"$W/tail.jfr"
same "$W/tail.jfr"
run dump --stats --jobs=4 "$W/tail.jfr"
printf '%s\n' "$err" | tail -n 1 | grep -q "bytes after chunk 35" ||
	t_fail "the trailing bytes' warning is not the last: $err"
t_end

t_summary
