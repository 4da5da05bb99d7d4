#!/bin/sh
# The code-heap part of make bench: a 97 MB file of 30 concatenated
# `Compiler.CodeHeap_Analytics all 128` reports (the largest fixture:
# 136,704 granules a map, 6,429 method-name rows), imported into a store,
# beside the floor of any tool that reads the text: grep and awk counting
# its map lines (what a user scripting it by hand would start from).
# There is no JDK tool that parses these reports.  Best and median of 5,
# alternating; it asserts nothing.
set -u
cd "$(dirname "$0")/../.." || exit 1
HS=./heapsift
B=build/bench
mkdir -p "$B"
R=$B/codeheap-30x128.txt
if [ ! -s "$R" ]; then
	gzip -dc fixtures/codeheap/jdk17-noseg-analytics-all-128.txt.gz >"$B/one.txt" || exit 1
	for i in $(seq 30); do cat "$B/one.txt"; done >"$R"
	rm -f "$B/one.txt"
fi
echo
echo "Code-heap import"
echo "  input           $R, $(wc -c <"$R" | tr -d ' ') bytes, 30 reports"
: >"$B/ch-import.t"
: >"$B/ch-awk.t"
: >"$B/ch-grep.t"
for i in 1 2 3 4 5; do
	/usr/bin/time -a -o "$B/ch-import.t" -f "%e %M" \
		$HS import -o "$B/codeheap.hsdb" "$R" >/dev/null 2>&1
	/usr/bin/time -a -o "$B/ch-awk.t" -f "%e %M" \
		awk '/^0x/ {n++} END {print n}' "$R" >/dev/null
	/usr/bin/time -a -o "$B/ch-grep.t" -f "%e %M" grep -c '^0x' "$R" >/dev/null
done
printf '%-34s %8s %8s %12s\n' "command" "best s" "median s" "peak RSS"
for t in import awk grep; do
	sort -n "$B/ch-$t.t" | awk -v name="$t" '
		{ s[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%-34s %8.2f %8.2f %9d kB\n",
			(name == "import" ? "heapsift import" : name " counting map lines"),
			s[1], s[3], m }'
done
$HS codeheap "$B/codeheap.hsdb" --csv | awk -F, 'NR > 1 { n++ } END {
	printf "  %d heap rows (30 expected)\n", n }'
