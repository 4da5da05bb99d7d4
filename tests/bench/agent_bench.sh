#!/bin/sh
# The agent's overhead: tests/bench/AllocBench.java (threads allocating
# objects of mixed sizes, most small) without any sampling, with the
# heapsift agent at 512 KiB and at 64 KiB, and with JFR's
# ObjectAllocationSample at its default settings (default.jfc); each
# prints its allocation throughput, and this prints the ratios against
# no sampling.  Runs alternate between configurations so that all see
# the same load; best and median of AGENT_BENCH_RUNS (5).  Asserts
# nothing: the machines here are shared and noisy.
#
# Environment: HEAPSIFT (./heapsift), HS_AGENT (the library; default
# `heapsift agent-path`), AGENT_BENCH_RUNS (5), AGENT_BENCH_THREADS (2),
# AGENT_BENCH_SECONDS (4, after 2 s of warm-up).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
HEAPSIFT=${HEAPSIFT:-$top/heapsift}
RUNS=${AGENT_BENCH_RUNS:-5}
THREADS=${AGENT_BENCH_THREADS:-2}
SECS=${AGENT_BENCH_SECONDS:-4}
D=$top/build/bench/agent
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	echo "agent_bench: no JDK on PATH: skipped"
	exit 0
fi
AGENT=${HS_AGENT:-$("$HEAPSIFT" agent-path 2>/dev/null)}
if [ -z "$AGENT" ] || [ ! -f "$AGENT" ]; then
	echo "agent_bench: no agent library (heapsift agent-path): skipped"
	exit 0
fi
mkdir -p "$D"
javac -d "$D" "$top/tests/bench/AllocBench.java" || exit 1
JOPTS="-Xms1g -Xmx1g -XX:+UseG1GC"

run() { # NAME JVM-OPTIONS...
	name=$1
	shift
	# shellcheck disable=SC2086 # JOPTS is a list of options
	v=$(java $JOPTS "$@" -cp "$D" AllocBench "$THREADS" 2 "$SECS" 2>/dev/null | tail -n 1)
	echo "${v:-0}" >>"$D/$name.t"
	rm -f "$D"/out.hsa "$D"/out.jfr
}
for n in none agent512 agent64 jfr; do : >"$D/$n.t"; done
echo "agent overhead: AllocBench, $THREADS threads, ${SECS} s after a 2 s warm-up, $RUNS runs each, alternating ..."
i=0
while [ $i -lt "$RUNS" ]; do
	run none
	run agent512 "-agentpath:$AGENT=file=$D/out.hsa,interval=512k,quiet"
	run agent64 "-agentpath:$AGENT=file=$D/out.hsa,interval=64k,quiet"
	run jfr "-XX:StartFlightRecording:filename=$D/out.jfr,settings=default"
	i=$((i + 1))
done
best() { sort -n "$1" | tail -n 1; }
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
b0=$(best "$D/none.t") m0=$(median "$D/none.t")
printf '%-46s %14s %14s %8s %8s\n' "configuration" "best ops/s" "median ops/s" "best" "median"
for n in none agent512 agent64 jfr; do
	case $n in
	none) label="no sampling" ;;
	agent512) label="heapsift agent, interval 512 KiB" ;;
	agent64) label="heapsift agent, interval 64 KiB" ;;
	jfr) label="JFR ObjectAllocationSample (default.jfc)" ;;
	esac
	b=$(best "$D/$n.t") m=$(median "$D/$n.t")
	awk -v l="$label" -v b="$b" -v m="$m" -v b0="$b0" -v m0="$m0" 'BEGIN {
		printf "%-46s %14.0f %14.0f %7.1f%% %7.1f%%\n", l, b, m,
			b0 ? 100 * b / b0 : 0, m0 ? 100 * m / m0 : 0 }'
done
echo "(percentages: throughput against no sampling; the target for the agent at 512 KiB is 97% or more)"
