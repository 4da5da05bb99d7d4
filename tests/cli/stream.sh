#!/bin/sh
# The streaming store writer (docs/design/store-writer.md)
# spills samples to disk in sorted runs of HEAPSIFT_STORE_RUN_SAMPLES and
# merges them at commit.  The store it writes must not depend on the run
# size: every fixture recording, several multi-file imports and --append
# sequences (duplicates dropped among kept recordings included) are
# imported with runs of 1, 7, 4096 and 100000 samples and the default
# (and the rollups' rows kept in memory up to as many bytes, past which
# they go to their own spill file),
# and the store files must be byte-identical to each other and to
# tests/stream.md5.  The list began as the md5s of the stores that the
# writer before streaming (commit bc5bd63, which held every sample in
# memory) wrote for the same inputs; store 4.0's node map changed every
# store with samples, and it was written anew then, the views' answers
# held by views_md5.sh, unchanged.  Each case also checks that the import left nothing behind but
# the store (the spill file is never linked into the folder).
#
#   tests/cli/stream.sh            check (a suite of tests/run)
#   tests/cli/stream.sh --update   write tests/stream.md5 anew, with the
#                                  default run size only
#
# Each line of the list is "MD5 exit=N NAME"; MD5 is "none" when no store
# was written.  Environment: HEAPSIFT, HS_FIXTURES, PYTHON3 optional.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
LIST="$HERE/../stream.md5"
MK="$HERE/../agent/make_recording.py"
F=$HS_FIXTURES
W="$T/work"
GOT="$T/got.md5"
UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1
# run sizes, each with the samples encoded as they arrive (the import's
# default), then the default spilled and merged at commit (spill), and
# windows of 5 and 1000 samples with runs of 7 (win5, win1000): runs out
# of order in the window give the samples back to the spill
# (store_write_stream.h), early or late
RUNS="1 7 4096 100000 default spill win5 win1000"
[ $UPDATE = 1 ] && RUNS=default
: >"$GOT"

# imp ARGS...: heapsift ARGS in $D with the run size $RUN; sets $rc
imp() {
	if [ "$RUN" = default ] || [ "$RUN" = spill ]; then
		stream=1
		[ "$RUN" = spill ] && stream=0
		(cd "$D" && HEAPSIFT_STORE_STREAM=$stream TMPDIR="$T/tmp" \
			LC_ALL=C TZ=UTC "$HEAPSIFT" "$@" \
			>"$T/o" 2>"$T/e" </dev/null)
	elif [ "${RUN#win}" != "$RUN" ]; then
		(cd "$D" && HEAPSIFT_STORE_RUN_SAMPLES=7 \
			HEAPSIFT_STORE_WINDOW_SAMPLES=${RUN#win} \
			TMPDIR="$T/tmp" LC_ALL=C TZ=UTC "$HEAPSIFT" "$@" \
			>"$T/o" 2>"$T/e" </dev/null)
	else
		# the rollups' rows go to their spill file past $RUN bytes
		# (32 MiB by default, which no fixture reaches)
		(cd "$D" && HEAPSIFT_STORE_RUN_SAMPLES=$RUN \
			HEAPSIFT_STORE_ROLLUP_MEM=$RUN TMPDIR="$T/tmp" \
			LC_ALL=C TZ=UTC "$HEAPSIFT" "$@" \
			>"$T/o" 2>"$T/e" </dev/null)
	fi
	rc=$?
	[ "$rc" -lt 128 ] || t_fail "$NAME (run $RUN): killed by signal $((rc - 128))"
	case $(cat "$T/e") in
	*Sanitizer* | *"runtime error:"*) t_fail "$NAME (run $RUN): sanitizer: $(cat "$T/e")" ;;
	esac
}

# scenario NAME FUNC INPUT...: run FUNC in a fresh folder with the inputs
# copied in, once per run size; every run's store must have one md5
scenario() {
	NAME=$1
	func=$2
	shift 2
	first=
	for RUN in $RUNS; do
		D="$W/$NAME.$RUN"
		rm -rf "$D"
		mkdir -p "$D"
		for f in "$@"; do
			[ -e "$f" ] || t_fail "$NAME: no input $f"
			cp "$f" "$D/"
		done
		before=$(ls -A "$D" | LC_ALL=C sort | tr '\n' ' ')
		$func
		if [ -f "$D/s.hsdb" ]; then
			m=$(md5sum <"$D/s.hsdb" | cut -c1-32)
			after=$(ls -A "$D" | grep -vx s.hsdb | LC_ALL=C sort | tr '\n' ' ')
		else
			m=none
			after=$(ls -A "$D" | LC_ALL=C sort | tr '\n' ' ')
		fi
		[ "$after" = "$before" ] ||
			t_fail "$NAME (run $RUN): left behind: $after (had: $before)"
		line="$m exit=$rc $NAME"
		if [ -z "$first" ]; then
			first=$line
			echo "$line" >>"$GOT"
		elif [ "$line" != "$first" ]; then
			t_fail "run $RUN gave '$line', the first run size '$first'"
		fi
		rm -rf "$D"
	done
}

one() { imp import -o s.hsdb "$(ls "$D" | head -n 1)"; }

t_begin stream_fixtures_each
n=0
for f in "$F"/jfr/*.jfr "$F"/jfr/hostile/* "$F"/jfr/fuzz/* \
	"$F"/agent/review/*.hsa "$F"/codeheap/*.txt "$F"/codeheap/*.gz \
	"$F"/codeheap/fuzz/* "$F"/javacore/* "$F"/bundles/*.tar.gz; do
	[ -e "$f" ] || {
		t_fail "no fixture matches $f"
		continue
	}
	b=${f#"$F"/}
	scenario "$(echo "$b" | tr / _)" one "$f"
	n=$((n + 1))
done
[ $n -ge 70 ] || t_fail "only $n fixtures"
t_end

t_begin stream_agent_made
if command -v python3 >/dev/null 2>&1; then
	for sc in basic openj9 killed; do
		python3 "$MK" "$sc" "$W/$sc.hsa" >/dev/null ||
			t_fail "make_recording.py $sc failed"
		scenario "agent-made-$sc" one "$W/$sc.hsa"
	done
else
	t_fail "python3 is missing (build-aux/deps.sh test installs it)"
fi
t_end

J=$F/jfr
multi() {
	imp import -o s.hsdb jdk17-default.jfr jdk17-profile-tlab.jfr \
		jdk17-leak-gcroots.jfr dead_and_alive.hsa gc_ring.hsa \
		jdk17-multichunk.jfr javacore.20230830.134339.30220.0001.txt
}
overflow_mixed() {
	# a sample at INT64_MIN beside a real recording's: the corrected
	# estimate's walk took their gap (signed overflow, UBSan)
	imp import -o s.hsdb tick-overflow-2.jfr jdk17-default.jfr
}
same_twice() {
	# no --append: the same recording twice is kept twice
	imp import -o s.hsdb jdk17-leak-gcroots.jfr jdk17-leak-gcroots.jfr \
		dead_and_alive.hsa
}
append_seq() {
	imp import -o s.hsdb jdk17-default.jfr
	imp import --append -o s.hsdb jdk17-profile-tlab.jfr \
		jdk17-leak-gcroots.jfr
	imp import --append -o s.hsdb dead_and_alive.hsa \
		jdk17-seg-jcmd-codecache.txt
}
append_dups() {
	# duplicates dropped between kept recordings: the kept ones' old
	# objects and liveness records must still name their samples
	imp import -o s.hsdb jdk17-leak-gcroots.jfr dead_and_alive.hsa
	imp import --append -o s.hsdb jdk17-leak-gcroots.jfr \
		jdk17-multichunk.jfr dead_and_alive.hsa partial_deaths.hsa \
		jdk17-leak-gcroots.jfr
}
append_all_dups() {
	imp import -o s.hsdb jdk17-multichunk.jfr
	imp import --append -o s.hsdb jdk17-multichunk.jfr
}

t_begin stream_multi_file
scenario multi multi "$J"/jdk17-default.jfr "$J"/jdk17-profile-tlab.jfr \
	"$J"/jdk17-leak-gcroots.jfr "$F"/agent/review/dead_and_alive.hsa \
	"$F"/agent/review/gc_ring.hsa "$J"/jdk17-multichunk.jfr \
	"$F"/javacore/javacore.20230830.134339.30220.0001.txt
scenario same-twice same_twice "$J"/jdk17-leak-gcroots.jfr \
	"$F"/agent/review/dead_and_alive.hsa
scenario overflow-mixed overflow_mixed "$J"/hostile/tick-overflow-2.jfr \
	"$J"/jdk17-default.jfr
t_end

t_begin stream_append
scenario append append_seq "$J"/jdk17-default.jfr "$J"/jdk17-profile-tlab.jfr \
	"$J"/jdk17-leak-gcroots.jfr "$F"/agent/review/dead_and_alive.hsa \
	"$F"/codeheap/jdk17-seg-jcmd-codecache.txt
scenario append-dups append_dups "$J"/jdk17-leak-gcroots.jfr \
	"$J"/jdk17-multichunk.jfr "$F"/agent/review/dead_and_alive.hsa \
	"$F"/agent/review/partial_deaths.hsa
scenario append-all-dups append_all_dups "$J"/jdk17-multichunk.jfr
t_end

# The spill file, or the new store's file that a new store's samples go
# into as they arrive, cannot grow (a file size limit; SIGXFSZ ignored,
# so the write fails with EFBIG as it would with ENOSPC): the import
# fails with exit 1 naming the file's folder, the old store is untouched
# and nothing is left behind.
t_begin stream_spill_error
if [ $UPDATE = 0 ]; then
	D="$W/spillerr"
	mkdir -p "$D"
	cp "$J"/jdk17-leak-gcroots.jfr "$J"/jdk17-multichunk.jfr "$D/"
	(cd "$D" && TMPDIR="$T/tmp" "$HEAPSIFT" import -o s.hsdb \
		jdk17-leak-gcroots.jfr >/dev/null 2>&1) || t_fail "first import failed"
	want=$(md5sum <"$D/s.hsdb")
	for args in "--append -o s.hsdb jdk17-multichunk.jfr" \
		"-o new.hsdb jdk17-multichunk.jfr jdk17-leak-gcroots.jfr"; do
		# shellcheck disable=SC2086
		(cd "$D" && trap '' XFSZ && ulimit -f 1 &&
			HEAPSIFT_STORE_RUN_SAMPLES=100 TMPDIR="$T/tmp" LC_ALL=C \
				"$HEAPSIFT" import $args >"$T/o" 2>"$T/e" </dev/null)
		rc=$?
		[ "$rc" = 1 ] || t_fail "import $args: exit $rc, want 1"
		grep -Eq "error: store: writing the (spill file|new store) in $D: " "$T/e" ||
			t_fail "import $args: stderr: $(cat "$T/e")"
		[ "$(md5sum <"$D/s.hsdb")" = "$want" ] ||
			t_fail "import $args: the old store changed"
		left=$(ls -A "$D" | LC_ALL=C sort | tr '\n' ' ')
		[ "$left" = "jdk17-leak-gcroots.jfr jdk17-multichunk.jfr s.hsdb " ] ||
			t_fail "import $args: left $left"
	done
fi
t_end

# The new store's file is written a MiB at a time with O_DIRECT where the
# file system allows it (ext4 here, not tmpfs), by a thread of its own.
# A direct write cut short (a 512 KiB limit inside the first MiB) or a
# later write refused (a limit past the first MiB, met by the last,
# partial buffer) fails the import as the page cache's would: exit 1,
# the reason named, nothing left behind.  The store of that recording is
# 1.3 MB, so its first MiB is a direct write.
t_begin stream_direct_write_error
if [ $UPDATE = 0 ]; then
	D="$W/directerr"
	mkdir -p "$D"
	cp "$J"/jdk17-profile-tlab.jfr "$D/"
	for kib in 512 1100; do
		(cd "$D" && trap '' XFSZ && ulimit -f $kib &&
			TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" import -o new.hsdb \
				jdk17-profile-tlab.jfr >"$T/o" 2>"$T/e" </dev/null)
		rc=$?
		[ "$rc" = 1 ] || t_fail "limit $kib KiB: exit $rc, want 1"
		grep -q "error: store: writing .*$D.*: File too large" "$T/e" ||
			t_fail "limit $kib KiB: stderr: $(cat "$T/e")"
		left=$(ls -A "$D" | tr '\n' ' ')
		[ "$left" = "jdk17-profile-tlab.jfr " ] ||
			t_fail "limit $kib KiB: left $left"
	done
	# without a limit, the same bytes as through the page cache; and a
	# direct write that fails once (HEAPSIFT_STORE_DIRECT_FAIL: the first
	# MiB) is written again through the page cache: the same bytes again
	(cd "$D" && TMPDIR="$T/tmp" "$HEAPSIFT" import -o a.hsdb \
		jdk17-profile-tlab.jfr >/dev/null 2>&1 &&
		HEAPSIFT_STORE_DIRECT=0 TMPDIR="$T/tmp" "$HEAPSIFT" import \
			-o b.hsdb jdk17-profile-tlab.jfr >/dev/null 2>&1 &&
		HEAPSIFT_STORE_DIRECT_FAIL=1 TMPDIR="$T/tmp" "$HEAPSIFT" \
			import -o c.hsdb jdk17-profile-tlab.jfr >/dev/null 2>&1) ||
		t_fail "import without a limit failed"
	cmp -s "$D/a.hsdb" "$D/b.hsdb" ||
		t_fail "direct and page-cache writes made different stores"
	cmp -s "$D/a.hsdb" "$D/c.hsdb" ||
		t_fail "a direct write that failed was not written again"
fi
t_end

# Where the store's file cannot be linked (no /proc, a link refused;
# HEAPSIFT_STORE_NO_LINK=1 makes it so), the commit copies it into a
# named temporary file: the same bytes, the mode a new store gets (0644
# under umask 022) and nothing left behind.
t_begin stream_copy_where_no_link
if [ $UPDATE = 0 ]; then
	D="$W/nolink"
	mkdir -p "$D"
	cp "$J"/jdk17-multichunk.jfr "$D/"
	(cd "$D" && umask 022 && HEAPSIFT_STORE_NO_LINK=1 TMPDIR="$T/tmp" \
		"$HEAPSIFT" import -o a.hsdb jdk17-multichunk.jfr \
		>"$T/o" 2>"$T/e" </dev/null)
	rc=$?
	[ "$rc" = 0 ] || t_fail "exit $rc: $(cat "$T/e")"
	(cd "$D" && HEAPSIFT_STORE_STREAM=0 TMPDIR="$T/tmp" \
		"$HEAPSIFT" import -o b.hsdb jdk17-multichunk.jfr \
		>/dev/null 2>&1 </dev/null)
	cmp -s "$D/a.hsdb" "$D/b.hsdb" ||
		t_fail "the copied store differs from the spilled one"
	[ "$(stat -c %a "$D/a.hsdb")" = 644 ] ||
		t_fail "mode $(stat -c %a "$D/a.hsdb"), want 644"
	left=$(ls -A "$D" | LC_ALL=C sort | tr '\n' ' ')
	[ "$left" = "a.hsdb b.hsdb jdk17-multichunk.jfr " ] ||
		t_fail "left: $left"
fi
t_end

if [ $UPDATE = 1 ]; then
	cp "$GOT" "$LIST"
	echo "stream: wrote $(wc -l <"$LIST") lines to $LIST"
	t_begin stream_update
	t_end
	t_summary
fi

# every store's md5 is the one the writer before streaming wrote
t_begin stream_same_as_before
if [ ! -s "$LIST" ]; then
	t_fail "no list: tests/stream.md5"
else
	bad=$(awk '
		NR == FNR { want[$3] = $1 " " $2; next }
		{ got[$3] = 1
		  if (!($3 in want)) print "not in the list: " $0
		  else if (want[$3] != $1 " " $2) print $3 ": want " want[$3] ", got " $1 " " $2 }
		END { for (k in want) if (!(k in got)) print "did not run: " k }
	' "$LIST" "$GOT")
	[ -z "$bad" ] || t_fail "$bad"
	# the list is not empty of stores: most cases wrote one
	[ "$(grep -c -v '^none' "$LIST")" -ge 60 ] ||
		t_fail "fewer than 60 stores in the list"
fi
t_end
t_summary
