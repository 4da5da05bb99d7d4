# Memory follows the budget of docs/design/memory.md, not the sizes an
# input declares or decompresses to (issue 39): hostile bundles are read
# under a hard cap on the memory heapsift may take, and must come out
# right, not killed.
#
# The cap is RLIMIT_DATA (`ulimit -d`): the memory a process can make
# writable (heap, anonymous mappings, thread stacks), which is what the
# budget is about; a spooled file's mapping is page cache, read-only, and
# outside it.  ulimit -v would count that mapping, and under ASan (make
# check) either limit counts terabytes of shadow memory, so a sanitized
# build is held instead to the largest single allocation
# (max_allocation_size_mb), as faults.sh does: the old ways of holding a
# member whole were single growing buffers.  Each cap is the budget plus
# a margin; each case's input needs several times the cap held the old
# way (issue 39's figures: 1.23 GB for a 7.5 MB tar.gz, 1.07 GB for a
# 17 MB .jfr.gz).  Imports run with --jobs=2, since each decoder's
# thread reserves a stack that the cap counts: the caps do not move with
# the machine's CPUs.  Times are not asserted: `make bench` measures them.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
W="$T/work"
cd "$W" || exit 1

# limited KIB MIB ARGS...: heapsift ARGS with at most KIB KiB of data
# (MIB MiB the largest allocation when sanitized); sets out, err, rc
limited() {
	d=$1 a=$2
	shift 2
	if [ -n "${HS_SANITIZED:-}" ]; then
		(cd "$T/cwd" && exec env TMPDIR="$T/tmp" LC_ALL=C \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=$a" \
			"$HEAPSIFT" "$@") >"$T/out" 2>"$T/err" </dev/null
	else
		(cd "$T/cwd" && ulimit -d "$d" && exec env TMPDIR="$T/tmp" \
			LC_ALL=C "$HEAPSIFT" "$@") >"$T/out" 2>"$T/err" </dev/null
	fi
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}
no_oom() {
	case $err in
	*"out of memory"*) t_fail "ran out of memory under the cap: $err" ;;
	esac
}

# A zip in a zip in a zip in a tar.gz, all stored, around 48 MiB of
# zeros: each zip level must be read seekably, so each was held whole in
# memory (three copies, 150 MB peak).  Now each is spooled to a file
# without a name past 16 MiB.  --max-ratio lets the zeros through.
t_begin nested_zips_are_spooled_not_held
mkdir n && head -c 50331648 /dev/zero >n/big.bin
(cd n && for z in 3 2 1; do
	bsdtar --format zip --options zip:compression=store \
		-cf z$z.zip $([ $z = 3 ] && echo big.bin || echo z$((z + 1)).zip)
done && bsdtar -czf ../nest.tar.gz z1.zip)
limited 65536 32 scan --csv --max-ratio=1000000 "$W/nest.tar.gz"
expect_rc 0
no_oom
# the member's bytes: wc's count of the file packed
printf '%s\n' "$out" | tr -d '\r' |
	grep -q ",z1.zip!z2.zip!z3.zip!big.bin,unknown,$(size n/big.bin),0,,ok\$" ||
	t_fail "row: $out"
t_end

# A .jfr.gz whose one chunk claims 1 GiB and holds 128 MiB (of padding
# events, then six samples): the chunk was copied whole into memory to
# be decoded, as big as its bytes.  Now it is spooled and mapped; the
# six samples (tests/jfr/make_jfr.py: three a value) are imported, and
# the cut chunk is said.
t_begin jfr_gz_with_a_huge_chunk_is_spooled
python3 "$here/jfr/make_jfr.py" --pad 134217728 --declare 1073741824 - 5 7 |
	gzip -1 >huge.jfr.gz
limited 98304 32 import --jobs=2 --max-ratio=1000000 -o "$W/huge.hsdb" \
	"$W/huge.jfr.gz"
expect_rc 3
no_oom
expect_out_line "$W/huge.hsdb: 1 recording (1 new), 6 samples"
expect_err "chunk cut short: 134219244 of its 1073741824 bytes present"
t_end

# 100,000 distinct stacks in two chunks (tests/bench/make_stacks_jfr.py,
# which prints what it wrote; 740,000 trie nodes): more than 256 MiB of
# data before issue 39, at most 192 now; the cap is that with a margin.
# Sanitized, the largest allocation: the trie's map was one of 64 MiB,
# where the largest now is the rollups' rows (at most 32 MiB).
t_begin distinct_stacks_follow_the_budget
python3 "$here/bench/make_stacks_jfr.py" 100000 "$W/s.jfr" >truth
limited 229376 48 import --jobs=2 -o "$W/s.hsdb" "$W/s.jfr"
expect_rc 0
no_oom
expect_out_line "$W/s.hsdb: 1 recording (1 new), $(sed -n 's/^samples //p' truth) samples"
t_end

# Where the spool cannot make its file, the member is reported, with
# the folder (HEAPSIFT_SPOOL_MEM=0 spools every byte).
t_begin spool_without_a_temporary_folder_says_so
cp "$HS_FIXTURES/jfr/jdk17-default.jfr" rec.jfr
bsdtar --format zip -cf app.zip rec.jfr && bsdtar -czf app.tar.gz app.zip
gzip -c rec.jfr >rec.jfr.gz
(cd "$T/cwd" && TMPDIR="$W/none" HEAPSIFT_SPOOL_MEM=0 LC_ALL=C \
	"$HEAPSIFT" scan "$W/app.tar.gz" >"$T/out" 2>"$T/err" </dev/null)
rc=$? err=$(cat "$T/err")
expect_rc 1
expect_err "app.tar.gz!app.zip: cannot hold the archive whole to read it: creating a temporary file in $W/none (TMPDIR):"
(cd "$T/cwd" && TMPDIR="$W/none" HEAPSIFT_SPOOL_MEM=0 LC_ALL=C \
	"$HEAPSIFT" import -o "$W/r.hsdb" "$W/rec.jfr.gz" >"$T/out" 2>"$T/err" </dev/null)
rc=$? err=$(cat "$T/err")
expect_rc 1
expect_err "rec.jfr.gz: jfr: chunk 1 ($(size rec.jfr) bytes) cannot be held for decoding: creating a temporary file in $W/none (TMPDIR):"
t_end

t_summary
