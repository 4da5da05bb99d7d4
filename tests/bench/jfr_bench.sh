#!/bin/sh
# JFR decoding benchmark: heapsift against the JDK's own `jfr` tool on the
# same large recording.  A benchmark, not a test: it asserts nothing about
# time and exits 0 whatever the numbers are (1 only when it cannot run at
# all: no heapsift binary, or no recording and no JDK to make one).
#
# The recording (>= 25 MiB) is made once with the fixture workload
# (fixtures/jfr/src/HeapWorkload.java) and kept in build/bench/ (ignored by
# git, never committed); it is reused while it is there and big enough.
# It uses a copy of fixtures/jfr/src/heapsample.jfc with the
# ObjectAllocationSample throttle raised to 20000/s, InNewTLAB and
# OutsideTLAB switched on, and small fixed TLABs so that the workload
# refills (and so samples) often: ~30 MB in ~10 s instead of minutes.
#
# Printed, for that file: its size and largest chunk; best-of-N wall time
# of `heapsift dump --stats` (run as --bench, which is --stats plus the
# speed line), `jfr summary` and `jfr print --json --events
# jdk.ObjectAllocationSample > /dev/null` (JVM start-up included), MB/s,
# heapsift's events/s, the jfr/heapsift time ratios, and the peak RSS of
# every command (/usr/bin/time -v).
#
# Environment: HEAPSIFT (default ./heapsift), BENCH_DIR (build/bench),
# BENCH_RUNS (3; heapsift's own: BENCH_HS_RUNS, 9), BENCH_SECONDS (first
# try at the workload's run time, 10), BENCH_MIN_MB (25), BENCH_JAVA_OPTS
# (JVM options for the recording).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HEAPSIFT=${HEAPSIFT:-$top/heapsift}
DIR=${BENCH_DIR:-$top/build/bench}
RUNS=${BENCH_RUNS:-3}
SECS=${BENCH_SECONDS:-10}
MIN_BYTES=$((${BENCH_MIN_MB:-25} * 1024 * 1024))
JOPTS=${BENCH_JAVA_OPTS:--Xms1g -Xmx1g -XX:+UseG1GC -XX:TLABSize=2k -XX:-ResizeTLAB}
REC=$DIR/jfr-bench.jfr
SRC=$top/fixtures/jfr/src

note() { echo "note: $*"; }
have() { command -v "$1" >/dev/null 2>&1; }
fsize() { wc -c <"$1" | tr -d ' '; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

if [ ! -x "$HEAPSIFT" ]; then
	echo "jfr_bench: no heapsift binary at $HEAPSIFT (run make)" >&2
	exit 1
fi
mkdir -p "$DIR" || exit 1
W=$(mktemp -d "$DIR/run.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT INT TERM

JDK=yes
if ! have java || ! have javac || ! have jfr; then
	JDK=
	note "no JDK (java, javac, jfr) on PATH: the jfr columns are skipped"
fi

# --- the recording ----------------------------------------------------------
# make_recording SECONDS: one run of the workload; the result replaces $REC
# only when the JVM finished cleanly.
make_recording() {
	g=$W/gen
	rm -rf "$g"
	mkdir -p "$g"
	javac -d "$g/classes" "$SRC/HeapWorkload.java" || return 1
	sed 's#<setting name="throttle">[^<]*</setting>#<setting name="throttle">20000/s</setting>#' \
		"$SRC/heapsample.jfc" >"$g/bench.jfc"
	grep -q '20000/s' "$g/bench.jfc" || note "could not raise the throttle in the .jfc copy"
	echo "generating $REC: HeapWorkload $1 base, $JOPTS ..."
	# shellcheck disable=SC2086 # JOPTS is a list of options
	(cd "$g" && java -cp classes $JOPTS \
		"-XX:StartFlightRecording:filename=bench.jfr,settings=bench.jfc,+jdk.ObjectAllocationInNewTLAB#enabled=true,+jdk.ObjectAllocationOutsideTLAB#enabled=true" \
		HeapWorkload "$1" base >"$g/java.log" 2>&1) || {
		note "the workload failed: $(tail -n 5 "$g/java.log")"
		return 1
	}
	mv "$g/bench.jfr" "$REC.tmp" && mv "$REC.tmp" "$REC"
}

if [ -f "$REC" ] && [ "$(fsize "$REC")" -ge "$MIN_BYTES" ]; then
	echo "reusing $REC"
elif [ -z "$JDK" ]; then
	echo "jfr_bench: no recording of $MIN_BYTES bytes at $REC and no JDK to make one" >&2
	exit 1
else
	s=$SECS
	while :; do
		make_recording "$s" || break
		[ "$(fsize "$REC")" -ge "$MIN_BYTES" ] && break
		if [ "$s" -ge 160 ]; then
			note "recording is only $(fsize "$REC") bytes after $s s; benchmarking it anyway"
			break
		fi
		s=$((s * 2))
		echo "  only $(fsize "$REC") bytes; again with $s s"
	done
	[ -f "$REC" ] || {
		echo "jfr_bench: could not make $REC" >&2
		exit 1
	}
fi
BYTES=$(fsize "$REC")

# --- chunks: 'FLR\0' magic, big-endian u64 chunk size at offset 8 ------------
n_chunks=0 max_chunk=0 off=0
while [ "$off" -lt "$BYTES" ]; do
	magic=$(od -An -tx1 -j "$off" -N4 "$REC" | tr -d ' \n')
	if [ "$magic" != 464c5200 ]; then
		note "no chunk magic at offset $off ($magic): chunk scan stopped"
		break
	fi
	hex=$(od -An -tx1 -j $((off + 8)) -N8 "$REC" | tr -d ' \n')
	csize=$((0x$hex))
	if [ "$csize" -le 0 ] || [ $((off + csize)) -gt "$BYTES" ]; then
		note "chunk at offset $off has size $csize: chunk scan stopped"
		break
	fi
	n_chunks=$((n_chunks + 1))
	[ "$csize" -gt "$max_chunk" ] && max_chunk=$csize
	off=$((off + csize))
done

# --- peak RSS ------------------------------------------------------------------
TIMEV=/usr/bin/time
if [ ! -x "$TIMEV" ] && [ "$(id -u)" = 0 ] && have apt-get; then
	echo "installing GNU time for the peak RSS ..."
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q time >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q time >/dev/null 2>&1; }
fi
if [ ! -x "$TIMEV" ] || ! "$TIMEV" -v true >/dev/null 2>&1; then
	TIMEV=
	note "no GNU /usr/bin/time (apt-get install time): peak RSS skipped"
fi

# measure N CMD...: runs CMD N times (stdout to /dev/null, stderr kept in
# $W/err.best for the fastest run); sets best_ns (fastest wall time, ns),
# peak_kb (largest max RSS over the runs, KiB, or empty) and mrc (the
# exit status of the last run).
measure() {
	n=$1
	shift
	best_ns= peak_kb= mrc=0 i=0
	while [ $i -lt "$n" ]; do
		i=$((i + 1))
		t0=$(date +%s%N)
		if [ -n "$TIMEV" ]; then
			"$TIMEV" -v -o "$W/time.txt" "$@" >/dev/null 2>"$W/err"
		else
			"$@" >/dev/null 2>"$W/err"
		fi
		mrc=$?
		t1=$(date +%s%N)
		grep '^heapsift dump: decoded' "$W/err" >>"$W/self.all" 2>/dev/null
		ns=$((t1 - t0))
		if [ -z "$best_ns" ] || [ "$ns" -lt "$best_ns" ]; then
			best_ns=$ns
			cp "$W/err" "$W/err.best"
		fi
		if [ -n "$TIMEV" ]; then
			kb=$(awk -F': *' '/Maximum resident set size/ { print $2 }' "$W/time.txt")
			if [ -n "$kb" ] && { [ -z "$peak_kb" ] || [ "$kb" -gt "$peak_kb" ]; }; then
				peak_kb=$kb
			fi
		fi
	done
}

# --- heapsift ----------------------------------------------------------------------
HS_OPT=--stats
"$HEAPSIFT" dump --help 2>&1 | grep -q -- '--bench' && HS_OPT=--bench
# heapsift's own clock is read on every run: a shared machine's noise
# shows in the spread between the best and the median
HS_RUNS=${BENCH_HS_RUNS:-9}
echo "timing heapsift dump $HS_OPT ($HS_RUNS runs) ..."
: >"$W/self.all"
measure "$HS_RUNS" "$HEAPSIFT" dump "$HS_OPT" "$REC"
hs_spread=$(sed -n 's/.* s: \([0-9]*\) MB\/s.*/\1/p' "$W/self.all" | sort -n |
	awk '{ v[NR] = $1 } END { if (NR) printf "best %d MB/s, median %d MB/s, worst %d MB/s over %d runs", v[NR], v[int((NR + 1) / 2)], v[1], NR }')
hs_ns=$best_ns hs_kb=$peak_kb hs_rc=$mrc
hs_line=$(grep '^heapsift dump: decoded' "$W/err.best" | tail -n 1)
[ "$hs_rc" = 0 ] || note "heapsift exited with $hs_rc: $(head -n 3 "$W/err.best")"
# "heapsift dump: decoded N bytes, M heap events in T s: X MB/s, Y events/s"
hs_events=$(printf '%s\n' "$hs_line" | sed -n 's/.* bytes, \([0-9]*\) heap events.*/\1/p')
hs_self=$(printf '%s\n' "$hs_line" | sed -n 's/.* in \([0-9.]* s: .*\)/\1/p')
"$HEAPSIFT" dump --stats "$REC" >"$W/stats.txt" 2>/dev/null
all_events=$(awk '!/^#/ && NF { s += $2 } END { print s + 0 }' "$W/stats.txt")
samples=$(awk '$1 == "jdk.ObjectAllocationSample" { print $2 }' "$W/stats.txt")

# --- jfr ---------------------------------------------------------------------------
js_ns= js_kb= jp_ns= jp_kb=
if [ -n "$JDK" ]; then
	echo "timing jfr summary ($RUNS runs) ..."
	measure "$RUNS" jfr summary "$REC"
	js_ns=$best_ns js_kb=$peak_kb
	[ "$mrc" = 0 ] || note "jfr summary exited with $mrc"
	echo "timing jfr print --json --events jdk.ObjectAllocationSample ($RUNS runs) ..."
	measure "$RUNS" jfr print --json --events jdk.ObjectAllocationSample "$REC"
	jp_ns=$best_ns jp_kb=$peak_kb
	[ "$mrc" = 0 ] || note "jfr print exited with $mrc"
	jdk_version=$(java -version 2>&1 | head -n 1)
fi

# --- table -----------------------------------------------------------------------
# row LABEL NS KB: wall s, MB/s, events/s (heapsift only), peak RSS,
# RSS / largest chunk, time / heapsift time
row() {
	awk -v l="$1" -v ns="$2" -v kb="$3" -v b="$BYTES" -v ev="${4:-}" \
		-v hs="$hs_ns" -v ch="$max_chunk" 'BEGIN {
		if (ns == "") { printf "%-44s %9s\n", l, "n/a"; exit }
		s = ns / 1e9
		eps = (ev == "") ? "-" : sprintf("%.2fM", ev / s / 1e6)
		rss = (kb == "") ? "n/a" : sprintf("%.1f MiB", kb / 1024)
		rc = (kb == "" || ch == 0) ? "n/a" : sprintf("%.2fx", kb * 1024 / ch)
		printf "%-44s %9.3f %9.1f %10s %11s %10s %9.1fx\n", l, s, b / 1e6 / s, eps, rss, rc,
			ns / hs
	}'
}

echo
echo "JFR decoding benchmark"
echo "  file           $REC"
echo "  size           $BYTES bytes ($(mib "$BYTES")), $n_chunks chunks, largest chunk $max_chunk bytes ($(mib "$max_chunk"))"
echo "  events         ${all_events} in all, ${samples:-0} ObjectAllocationSample, ${hs_events:-?} heap events (heapsift)"
[ -n "$JDK" ] && echo "  JDK            $jdk_version"
echo "  heapsift self  ${hs_self:-n/a} (its own clock, best run)"
echo "  spread         ${hs_spread:-n/a}"
echo "  runs           best of $HS_RUNS (heapsift) and $RUNS (jfr) wall-clock times; RSS = peak over the runs"
echo
printf "%-44s %9s %9s %10s %11s %10s %10s\n" "command" "wall s" "MB/s" "events/s" \
	"peak RSS" "RSS/chunk" "vs heapsift"
printf "%-44s %9s %9s %10s %11s %10s %10s\n" "--------------------------------------------" \
	"--------" "--------" "---------" "----------" "---------" "----------"
row "heapsift dump $HS_OPT" "$hs_ns" "$hs_kb" "${hs_events:-}"
if [ -n "$JDK" ]; then
	row "jfr summary" "$js_ns" "$js_kb"
	row "jfr print --json --events ObjectAllocSample" "$jp_ns" "$jp_kb"
	echo
	awk -v hs="$hs_ns" -v js="$js_ns" -v jp="$jp_ns" 'BEGIN {
		printf "ratios: jfr summary / heapsift = %.1f, jfr print --json / heapsift = %.1f\n", js / hs, jp / hs
	}'
fi
echo "(MB = 10^6 bytes of the file per wall second; events/s = heap events"
echo " (alloc, tlab, outside, old, gc) per wall second; jfr times include JVM start-up)"
exit 0
