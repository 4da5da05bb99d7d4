#!/bin/sh
# The store half of make bench: a synthetic store of 10 million samples
# (200,000 stacks, 50 threads, 4 recordings), kept in build/bench/, and
# the times of opening it and of the views' queries (best of 5, from
# store_bench), peak RSS of the CLI views on it, and heapsift import of
# the large JFR recording beside `jfr summary` of the same file.  It
# asserts nothing: machines here are shared and noisy.
set -u
cd "$(dirname "$0")/../.." || exit 1
HS=./heapsift
SB=${STORE_BENCH:-build/store-bench}
mkdir -p build/bench
S=build/bench/synthetic.hsdb
J=build/bench/jfr-bench.jfr

if [ ! -s "$S" ]; then
	echo "making $S (10 million samples)..."
	/usr/bin/time -f "  generated in %e s, peak RSS %M kB" "$SB" gen "$S" || exit 1
fi
echo
echo "Store benchmark"
echo "  store           $S, $(wc -c <"$S" | tr -d ' ') bytes"
"$SB" time "$S" || exit 1
echo
printf '%-40s %8s %12s\n' "command" "wall s" "peak RSS"
for args in "top $S --by class" "top $S --by site" "tree $S --inverted --depth 4" \
	"top $S --by site --include Type1[0-9].method4"; do
	/usr/bin/time -f "%e %M" -o build/bench/t.out $HS $args >/dev/null 2>&1
	set -- $(cat build/bench/t.out)
	printf '%-40s %8s %9s kB\n' "heapsift $(echo "$args" | sed "s|$S|S|")" "$1" "$2"
done
if [ -s "$J" ]; then
	echo
	/usr/bin/time -f "%e %M" -o build/bench/t.out $HS import -o build/bench/jfr.hsdb "$J" >/dev/null 2>&1
	set -- $(cat build/bench/t.out)
	imp=$1
	printf '%-40s %8s %9s kB\n' "heapsift import (large JFR)" "$1" "$2"
	if command -v jfr >/dev/null 2>&1; then
		/usr/bin/time -f "%e %M" -o build/bench/t.out jfr summary "$J" >/dev/null 2>&1
		set -- $(cat build/bench/t.out)
		printf '%-40s %8s %9s kB\n' "jfr summary (same file)" "$1" "$2"
		echo "ratio: jfr summary / heapsift import = $(echo "$1 $imp" | awk '{ printf "%.1f", $1 / $2 }')"
	fi
fi
