#!/bin/sh
# The memory half of make bench (issue 39): heapsift's time and peak
# memory on the inputs that used to take it past its budget, each beside
# the budget docs/design/memory.md states for it.  Asserts nothing
# (tests/cli/memory.sh holds the hostile cases under a hard cap).
#
#   1. A recording of STACKS_N (1,000,000) distinct stacks, made by
#      tests/bench/make_stacks_jfr.py (which prints what it wrote) and
#      kept in build/bench/: `heapsift import`, MEMORY_RUNS (3) times.
#   2. A zip in a zip in a zip in a tar.gz around a 400 MiB member (of
#      zeros, so the bundle is small and --max-ratio is lifted): `scan`.
#   3. A .jfr.gz whose one chunk is 1 GiB (padding events, then six
#      samples): `import`.
#
# Printed for each: wall and user seconds, peak RSS and its anonymous and
# file parts (tests/bench/peak_mem.py), and the budget.  The budget is
# about anonymous memory; file pages (a mapped recording, a spooled
# chunk) are page cache.  MEMORY_BENCH_OLD=/path/to/heapsift measures
# another build the same way, beside it (the build before issue 39, for
# the before-and-after figures in docs/perf-log.md).
#
# Environment: HEAPSIFT (./heapsift), MEMORY_BENCH_OLD, STACKS_N,
# MEMORY_RUNS, BENCH_DIR (build/bench; the spool's TMPDIR is in it too).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HS=${HEAPSIFT:-$top/heapsift}
OLD=${MEMORY_BENCH_OLD:-}
DIR=${BENCH_DIR:-$top/build/bench}
N=${STACKS_N:-1000000}
RUNS=${MEMORY_RUNS:-3}
PEAK="python3 $top/tests/bench/peak_mem.py"

if [ ! -x "$HS" ]; then
	echo "memory_bench: no heapsift binary at $HS (run make)" >&2
	exit 1
fi
mkdir -p "$DIR/mem-tmp" || exit 1
W=$(mktemp -d "$DIR/mem.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM
export TMPDIR="$DIR/mem-tmp"
# an import's default decoders (cli_store_jobs()): the CPUs less one,
# from 1 to 4
jobs=$(($(nproc 2>/dev/null || echo 2) - 1))
[ "$jobs" -lt 1 ] && jobs=1
[ "$jobs" -gt 4 ] && jobs=4
inflight=$((jobs > 1 ? jobs + 1 : 1))
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }

# measure LABEL BINARY ARGS...: RUNS runs of BINARY ARGS (a store
# argument's file removed first); prints the median wall and user time
# and the largest peaks
measure() {
	label=$1 bin=$2
	shift 2
	: >"$W/m.t"
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$W/out.hsdb"
		$PEAK "$bin" "$@" >>"$W/m.t"
		i=$((i + 1))
	done
	sort -n "$W/m.t" | awk -v l="$label" '
		{ w[NR] = $1; u[NR] = $2; if ($3 > r) r = $3; if ($4 > a) a = $4
		  if ($5 > f) f = $5; if ($6 != 0) st = st " exit " $6 }
		END { printf "  %-22s %6.2f s wall (%.2f..%.2f, %d runs), %6.2f s user; peak RSS %5.0f MiB: %5.0f MiB anonymous, %5.0f MiB file%s\n",
			l, w[int((NR + 1) / 2)], w[1], w[NR], NR, u[int((NR + 1) / 2)], r / 1024, a / 1024, f / 1024, st }'
}
# nodes STORE: "NODES FRAMES" of a store (its TRIE and FRAM sections,
# docs/formats/store.md)
nodes() {
	python3 - "$1" <<'EOF'
import struct, sys
with open(sys.argv[1], "rb") as f:
    h = f.read(64)
    toc, n = struct.unpack("<QI", h[24:36])
    f.seek(toc)
    t = f.read(32 * n)
sec = {}
for i in range(n):
    sid, rl, off, ln, _, _ = struct.unpack("<4sIQQII", t[32 * i:32 * i + 32])
    sec[sid.decode()] = ln // rl if rl else 0
print(sec.get("TRIE", 0), sec.get("FRAM", 0))
EOF
}

echo "Memory benchmark: the budget is docs/design/memory.md's ($jobs decoders, $inflight chunks in flight)"

# --- 1. distinct stacks ----------------------------------------------------
REC=$DIR/stacks-$N.jfr
if [ ! -s "$REC" ] || [ ! -s "$REC.truth" ]; then
	echo "making $REC (tests/bench/make_stacks_jfr.py $N)..."
	python3 "$top/tests/bench/make_stacks_jfr.py" "$N" "$REC" >"$REC.truth" || exit 1
fi
echo
echo "== $N distinct stacks: $REC, $(wc -c <"$REC" | tr -d ' ') bytes"
echo "  the generator's account: $(tr '\n' ' ' <"$REC.truth")"
measure "heapsift import" "$HS" import -o "$W/out.hsdb" "$REC"
rm -f "$W/out.hsdb"
"$HS" import -o "$W/out.hsdb" "$REC" >/dev/null 2>&1
set -- $(nodes "$W/out.hsdb")
per_chunk=$(awk '$1 == "stacks" { s = $2 } $1 == "chunks" { c = $2 } END { printf "%d", (s + c - 1) / c }' "$REC.truth")
# fixed 180 MiB; a chunk in flight 16 MiB and 1 KiB a stack of it; a
# trie node 32 bytes; a frame 40 bytes
awk -v n="$1" -v f="$2" -v c="$inflight" -v s="$per_chunk" 'BEGIN {
	b = 180 * 1048576 + c * (16 * 1048576 + 1024 * s) + 32 * n + 40 * f
	printf "  %-22s %5.0f MiB: 180 MiB fixed + %d chunks x (16 MiB + 1 KiB x %d stacks) + 32 B x %d trie nodes + 40 B x %d frames\n",
		"budget (anonymous)", b / 1048576, c, s, n, f }'
printf '  %-22s %s bytes\n' store "$(wc -c <"$W/out.hsdb" | tr -d ' ')"
[ -n "$OLD" ] && measure "before (OLD)" "$OLD" import -o "$W/out.hsdb" "$REC"

# --- 2. nested zips --------------------------------------------------------
echo
echo "== a zip in a zip in a zip in a tar.gz, around a 400 MiB member"
mkdir -p "$W/n"
head -c 419430400 /dev/zero >"$W/n/big.bin"
(cd "$W/n" && for z in 3 2 1; do
	bsdtar --format zip --options zip:compression=store \
		-cf z$z.zip $([ $z = 3 ] && echo big.bin || echo z$((z + 1)).zip)
done && bsdtar -czf ../nest.tar.gz z1.zip) || exit 1
rm -rf "$W/n"
measure "heapsift scan" "$HS" scan --max-ratio=1000000 "$W/nest.tar.gz"
printf '  %-22s %5s MiB: %s\n' "budget (anonymous)" 64 "scan's fixed 16 MiB + 3 levels x 16 MiB; in TMPDIR, 3 x 400 MiB while the member is read"
[ -n "$OLD" ] && measure "before (OLD)" "$OLD" scan --max-ratio=1000000 "$W/nest.tar.gz"
rm -f "$W/nest.tar.gz"

# --- 3. a 1 GiB chunk in a .jfr.gz --------------------------------------------
echo
echo "== a .jfr.gz of one 1 GiB chunk"
python3 "$top/tests/jfr/make_jfr.py" --pad 1072693248 - 5 7 | gzip -1 >"$W/gib.jfr.gz" || exit 1
measure "heapsift import" "$HS" import --max-ratio=1000000 -o "$W/out.hsdb" "$W/gib.jfr.gz"
printf '  %-22s %5s MiB: %s\n' "budget (anonymous)" 30 "import's fixed 14 MiB (a small recording) + 16 MiB of the chunk; in TMPDIR, the chunk's 1 GiB while it is decoded"
[ -n "$OLD" ] && measure "before (OLD)" "$OLD" import --max-ratio=1000000 -o "$W/out.hsdb" "$W/gib.jfr.gz"
exit 0
