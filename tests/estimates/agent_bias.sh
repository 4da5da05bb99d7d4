#!/bin/sh
# agent_bias.sh DIR [JAVA_HOME]: EstWorkload (exact per-site bytes) under
# the heapsift agent at intervals of 64 KiB, 128 KiB, 512 KiB and 1 MiB,
# RUNS seeds each (default 3), 8 s a run, then each site's estimate
# against the workload's own truth (agent_bias.py).  A campaign for
# docs/estimates.md ("The agent's large objects"), not a test: it asserts
# nothing and takes a few minutes.  HEAPSIFT names the binary.
set -e
dir=$1
jh=${2:-}
HS=${HEAPSIFT:-heapsift}
here=$(cd "$(dirname "$0")" && pwd)
java=java javac=javac
[ -n "$jh" ] && java=$jh/bin/java javac=$jh/bin/javac
mkdir -p "$dir/classes"
"$javac" -d "$dir/classes" "$here/EstWorkload.java"
agent=$("$HS" agent-path)
for iv in 64k 128k 512k 1m; do
	seed=1
	while [ $seed -le "${RUNS:-3}" ]; do
		f=$dir/a-$iv-$seed
		"$java" -Xmx512m -Xlog:disable -cp "$dir/classes" \
			"-agentpath:$agent=file=$f.hsa,interval=$iv,quiet" \
			EstWorkload 8 $seed 40 2>/dev/null | grep '^{' >"$f.truth.json"
		"$HS" import "$f.hsa" -o "$f.hsdb" >/dev/null 2>&1 || true
		"$HS" top "$f.hsdb" --kind agent --by site --csv --limit 0 >"$f.top.csv"
		seed=$((seed + 1))
	done
done
python3 "$here/agent_bias.py" "$dir"
