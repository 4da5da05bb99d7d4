#!/bin/sh
# record.sh DIR RUNS SECONDS WORK OUTSIDE [JAVA]: RUNS recordings of
# EstWorkload into DIR (run-N.jfr and run-N.truth.json), seeds 1..RUNS.
# OUTSIDE: 1 with jdk.ObjectAllocationOutsideTLAB on, 2 with InNewTLAB on
# too, 0 with neither (settings=profile as it is).  The throttle is at
# 2000/s, as in issue 15's recordings.
set -e
dir=$1 runs=$2 secs=$3 work=$4 outside=$5 java=${6:-java}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/classes"
javac -d "$dir/classes" "$here/EstWorkload.java"
extra=
[ "$outside" -ge 1 ] && extra=",+jdk.ObjectAllocationOutsideTLAB#enabled=true"
[ "$outside" -ge 2 ] && extra="$extra,+jdk.ObjectAllocationInNewTLAB#enabled=true"
i=1
while [ $i -le "$runs" ]; do
	"$java" -Xmx512m -Xlog:disable -cp "$dir/classes" \
		-XX:StartFlightRecording:settings=profile,+jdk.ObjectAllocationSample#throttle=2000/s$extra,filename="$dir/run-$i.jfr" \
		EstWorkload "$secs" "$i" "$work" 2>/dev/null |
		grep '^{' >"$dir/run-$i.truth.json"
	i=$((i + 1))
done
