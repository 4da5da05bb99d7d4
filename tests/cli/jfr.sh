# The JFR importer against the JDK's own view of the fixtures:
# every jdk.ObjectAllocationSample against the X.ObjectAllocationSample
# reference (jfr print --json), every event type count against
# X.summary.txt (jfr summary), the other heap events against
# X.expected.json; then damaged, cut-short and bundled recordings.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
F="$HS_FIXTURES/jfr"
W="$T/work"

if ! command -v python3 >/dev/null 2>&1; then
	echo "FAIL jfr: python3 is needed to compare with the references"
	t_failed=1
	t_summary
fi

for f in default leak-gcroots multichunk profile-tlab killed-unfinished; do
	t_begin "jfr_${f}_matches_jfr_print"
	run dump --format=tsv --raw-names "$F/jdk17-$f.jfr"
	printf '%s\n' "$out" >"$W/$f.tsv"
	if [ "$f" = killed-unfinished ]; then
		expect_rc 3
		expect_err "was still being written"
	else
		expect_rc 0
		expect_no_err
	fi
	r=$(python3 "$here/jfr/compare_tsv.py" \
		"$F/jdk17-$f.ObjectAllocationSample.tsv.gz" "$W/$f.tsv") ||
		t_fail "$r"
	t_end

	t_begin "jfr_${f}_counts_match_jfr_summary"
	run dump --stats "$F/jdk17-$f.jfr"
	printf '%s\n' "$out" >"$W/$f.stats"
	r=$(python3 "$here/jfr/check_expected.py" "$F/jdk17-$f.expected.json" \
		"$F/jdk17-$f.summary.txt" "$W/$f.tsv" "$W/$f.stats") ||
		t_fail "$r"
	t_end
done

# Chunk starts and sizes from the headers, independently of heapsift.
chunks() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off = 0
while off + 68 <= len(d) and d[off:off + 4] == b"FLR\0":
    size, = struct.unpack(">Q", d[off + 8:off + 16])
    start, = struct.unpack(">q", d[off + 32:off + 40])
    print(off, size, start)
    off += size
PY
}

t_begin jfr_cut_at_a_chunk_boundary_is_a_whole_file
# the first three of multichunk's seven chunks are a valid recording;
# its samples are the reference's samples older than chunk 4's start
set -- $(chunks "$F/jdk17-multichunk.jfr" | sed -n 4p)
head -c "$1" "$F/jdk17-multichunk.jfr" >"$W/three.jfr"
run dump --format=tsv --raw-names --events=alloc "$W/three.jfr"
expect_rc 0
expect_no_err
got=$(printf '%s\n' "$out" | grep -c '^alloc')
want=$(cd "$here/jfr" && python3 -c "
import gzip, sys
from compare_tsv import ns
n = sum(1 for l in gzip.open(sys.argv[1], 'rt') if not l.startswith('#')
        and ns(l.split('\t')[0]) < int(sys.argv[2]))
print(n)" "$F/jdk17-multichunk.ObjectAllocationSample.tsv.gz" "$3")
[ "$got" = "$want" ] || t_fail "$got samples, the reference has $want before chunk 4"
t_end

t_begin jfr_cut_inside_a_chunk_keeps_the_chunks_before
set -- $(chunks "$F/jdk17-multichunk.jfr" | sed -n 4p)
head -c $(($1 + $2 / 2)) "$F/jdk17-multichunk.jfr" >"$W/cut.jfr"
run dump --format=tsv --raw-names --events=alloc "$W/cut.jfr"
expect_rc 3
expect_err "chunk 4: chunk cut short"
got=$(printf '%s\n' "$out" | grep -c '^alloc')
[ "$got" -ge "$want" ] || t_fail "$got samples, fewer than the $want of the whole chunks"
t_end

t_begin jfr_cut_anywhere_never_crashes
size=$(size "$F/jdk17-leak-gcroots.jfr")
# 1 byte is no recognisable recording (exit 1); from the magic on, it
# is a damaged one (exit 3)
head -c 1 "$F/jdk17-leak-gcroots.jfr" >"$W/c.jfr"
run dump --stats "$W/c.jfr"
expect_rc 1
# the rule for inputs that are not recognised (docs/inputs.md): named,
# said under dump's name with why
expect_err "heapsift dump: error: $W/c.jfr: not a JFR recording (dump reads JFR recordings only"
# cut before the metadata is complete (it ends at 104807), no chunk can
# be decoded: nothing to show, exit 1, with the reason; after it, the
# events before the cut are read, exit 3
for n in 4 67 68 69 4096 8091 8200 100000; do
	head -c "$n" "$F/jdk17-leak-gcroots.jfr" >"$W/c.jfr"
	run dump --stats "$W/c.jfr"
	expect_rc 1
	expect_err "no readable JFR recording"
done
for n in 200000 $((size - 1)); do
	head -c "$n" "$F/jdk17-leak-gcroots.jfr" >"$W/c.jfr"
	run dump --stats "$W/c.jfr"
	case "$rc" in
	3) ;;
	*) t_fail "cut at $n: exit $rc; $err" ;;
	esac
done
t_end

t_begin jfr_bytes_after_the_last_chunk_are_reported
cp "$F/jdk17-leak-gcroots.jfr" "$W/tail.jfr"
printf 'this is not a chunk, just trailing bytes' >>"$W/tail.jfr"
run dump --format=tsv --raw-names --events=alloc "$W/tail.jfr"
expect_rc 3
expect_err "40 bytes after chunk 1 are not a chunk"
printf '%s\n' "$out" >"$W/tail.tsv"
r=$(python3 "$here/jfr/compare_tsv.py" \
	"$F/jdk17-leak-gcroots.ObjectAllocationSample.tsv.gz" "$W/tail.tsv") ||
	t_fail "$r"
t_end

t_begin jfr_corrupt_bytes_are_reported_not_fatal
for at in 100 9000 50000 150000 250000; do
	cp "$F/jdk17-leak-gcroots.jfr" "$W/bad.jfr"
	printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of="$W/bad.jfr" bs=1 seek="$at" conv=notrunc 2>/dev/null
	run dump --stats "$W/bad.jfr"
	case "$rc" in
	0 | 1 | 3) ;;
	*) t_fail "16 bytes of 0xff at $at: exit $rc; $err" ;;
	esac
done
t_end

t_begin jfr_inputs_the_fuzzer_broke_stay_fixed
mkdir -p "$W"
# each once crashed or tripped a sanitizer (make check runs this under
# ASan and UBSan); now each is read or refused with a message
for f in "$F"/fuzz/*.jfr; do
	[ -e "$f" ] || {
		t_fail "no fuzz inputs: $f matches nothing"
		continue
	}
	run dump --stats "$f"
	case "$rc" in
	0 | 1 | 3) ;;
	*) t_fail "$(basename "$f"): exit $rc; $err" ;;
	esac
	# the import replays records to the store by key, which dump does
	# not (new-object-key-read-past-tables.jfr read past the key tables
	# there)
	rm -f "$W/fuzz.hsdb"
	run import -o "$W/fuzz.hsdb" "$f"
	case "$rc" in
	0 | 1 | 3) ;;
	*) t_fail "$(basename "$f"): import exit $rc; $err" ;;
	esac
	case "$err" in
	*Sanitizer* | *runtime\ error*) t_fail "$(basename "$f"): $err" ;;
	esac
done
t_end

t_begin jfr_hostile_inputs_finish_in_bounded_memory
# Files a review made to blow up the decoder (fixtures/jfr/hostile/):
# overlapping checkpoint chains (were quadratic: 31 s for 1 MiB), nested
# empty structs (exponential), one pooled string referred to by every
# event (3.9 GB), tick conversions that overflowed, an event type with
# no startTime.  Each must be read or refused cleanly; the CPU and memory
# ulimits only catch a runaway, they measure nothing.
for f in "$F"/hostile/*; do
	[ -e "$f" ] || {
		t_fail "no hostile inputs: $f matches nothing"
		continue
	}
	# (no address-space limit under ASan, which maps terabytes of
	# shadow memory up front)
	(ulimit -t 120 && { [ -n "${HS_SANITIZED:-}" ] || ulimit -v 2000000; } &&
		cd "$T/cwd" &&
		LC_ALL=C "$HEAPSIFT" dump --stats "$f" >/dev/null 2>"$T/err")
	rc=$?
	case "$rc" in
	0 | 1 | 3) ;;
	*) t_fail "$(basename "$f"): exit $rc; $(head -c 300 "$T/err")" ;;
	esac
done
t_end

# Which JDKs wrote which version, from their writers and from the one
# reader that reads them all (JMC's FlightRecordingLoader: VERSION_0
# "JDK7 & JDK8", VERSION_1 "JDK9 & JDK10", VERSION_2 "JDK11"; the JDK's
# jfrChunkWriter.cpp in JDK 11 and 8u writes 2.0, jfrChunk.cpp since
# JDK 14 writes 2.1): the message must name the right ones.
t_begin jfr_refuses_older_formats_naming_their_jdks
for v in '000 011 0.9 JDK 7 and 8' '001 000 1.0 JDK 9 and 10' \
	'003 000 3.0 no JDK heapsift knows'; do
	set -- $v
	printf "FLR\\000\\000\\$1\\000\\$2" >"$W/old.jfr"
	head -c 200 /dev/zero >>"$W/old.jfr"
	want=$(echo "$v" | cut -d' ' -f4-)
	for cmd in dump import; do
		if [ $cmd = import ]; then
			run import -o "$T/old.hsdb" "$W/old.jfr"
		else
			run dump "$W/old.jfr"
		fi
		expect_rc 1
		expect_err "file format $3 is not supported: "
		expect_err "$want"
		expect_err "heapsift reads 2.x, written by JDK 11 and later"
		case $err in
		*"JDK 7/8"* | *"1.x is"*)
			t_fail "$cmd of $3 names the wrong JDKs: $err" ;;
		esac
	done
done
rm -f "$T/old.hsdb"
t_end

t_begin jfr_inside_nested_bundle_matches
mkdir -p "$W/b/logs"
zstd -q -o "$W/b/rec.jfr.zst" "$F/jdk17-profile-tlab.jfr"
(cd "$W/b" && bsdtar --format zip -cf logs/app.zip rec.jfr.zst &&
	bsdtar -czf "$W/case.tar.gz" logs)
run dump --format=tsv --raw-names --events=alloc "$W/case.tar.gz"
expect_rc 0
printf '%s\n' "$out" >"$W/b.tsv"
r=$(python3 "$here/jfr/compare_tsv.py" \
	"$F/jdk17-profile-tlab.ObjectAllocationSample.tsv.gz" "$W/b.tsv") ||
	t_fail "$r"
t_end

t_summary
