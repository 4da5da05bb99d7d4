#!/bin/sh
# Code-heap import and the codeheap command, against the facts the
# fixtures' README lists (tests/codeheap/check_readme.py) and against the
# reports' own text; plus damaged and interleaved reports.
. "$(dirname "$0")/lib.sh"
CH=$HS_FIXTURES/codeheap
W=$T/work

gz() { gzip -dc "$CH/$1.gz"; }

t_begin "codeheap: every fixture gives the facts its README lists"
mkdir -p "$W/readme"
python3 "$(dirname "$0")/../codeheap/check_readme.py" "$HEAPSIFT" "$CH" \
	"$W/readme" >"$W/readme.log" 2>&1 ||
	t_fail "$(grep -v '^ok' "$W/readme.log")"
t_end

t_begin "codeheap: --granules --csv cells are the report's map characters"
gz jdk17-seg-analytics-default.txt >"$W/seg.txt"
run import -o "$W/seg.hsdb" "$W/seg.txt"
expect_rc 0
run codeheap "$W/seg.hsdb" --granules --csv --heap "non-nmethods"
expect_rc 0
printf '%s\n' "$out" >"$W/granules.csv"
# the report's "Total (all tiers) count" map of 'non-nmethods', read here
# with awk: cells between the bars, 128 per line
awk '/B L O C K   C O U N T S   for CodeHeap .non-nmethods/ {s=1}
     s && /Total \(all tiers\) count/ {m=1; next}
     m && /^0x/ {sub(/^[^|]*\|/, ""); sub(/\|[ \t]*$/, ""); printf "%s", $0; got=1; next}
     m && got {exit}' "$W/seg.txt" >"$W/cells.txt"
python3 - "$W/granules.csv" "$W/cells.txt" <<'PY' || t_fail "cells differ"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = open(sys.argv[2]).read()
assert len(rows) == 624 == len(cells), (len(rows), len(cells))
conv = lambda ch: 0 if ch == ' ' else 16 if ch == '*' else int(ch, 16)
bad = [i for i, (r, ch) in enumerate(zip(rows, cells)) if int(r["count"]) != conv(ch)]
assert not bad, bad[:5]
# addresses: segment start + i * granule size (the README's start)
assert rows[0]["address"] == "0x00007f7da8938000", rows[0]["address"]
assert int(rows[5]["address"], 16) == 0x00007f7da8938000 + 5 * 4096
PY
t_end

t_begin "codeheap: two reports in one file, compared"
gz jdk17-full-seg-stdout.txt >"$W/full.txt"
run import -o "$W/full.hsdb" "$W/full.txt"
expect_rc 0
# snapshots: 0 the summary at the full event, 1 report 1, 2 the summary
# at exit, 3 report 2
run codeheap "$W/full.hsdb" --compare 1,3 --csv
expect_rc 0
out=$(printf '%s\n' "$out" | tr -d '\r')
# README: report 1 'non-profiled nmethods' 2595 used blocks, report 2 1768
expect_out_line "CodeHeap 'non-profiled nmethods',used_blocks,2595,1768,-827"
# and free blocks 0 -> 57 (the full heap had a "no free blocks" box)
expect_out_line "CodeHeap 'non-profiled nmethods',free_blocks,0,57,57"
t_end

t_begin "codeheap: a report cut short imports what is complete, warns"
# cut inside the profiled heap's space map: its earlier maps stay
n=$(grep -n "Tier1 space consumption" "$W/seg.txt" | sed -n 2p | cut -d: -f1)
head -n $((n + 10)) "$W/seg.txt" >"$W/cut.txt"
run import -o "$W/cut.hsdb" "$W/cut.txt"
expect_rc 3
expect_err "cut short after"
expect_err "ends without its closing line"
run codeheap "$W/cut.hsdb" --csv
expect_rc 0
# the profiled heap keeps its 5 count maps and 1 space map; the cut map
# and everything after it are gone, and nothing is invented
echo "$out" | tr -d '\r' |
	grep -q "^0,CodeHeap 'profiled nmethods',128,4096,3536,.*,6,100,0,2$" ||
	t_fail "profiled heap row: $out"
t_end

t_begin "codeheap: log lines interleaved inside a map are skipped"
awk '/^0x00007f7da1404000 \(\+0x00004000\): \|/ && !done {
	print "[1.234s][warning][codecache] CodeCache is full. Compiler has been disabled."
	print "OpenJDK 64-Bit Server VM warning: CodeCache is full."; done=1 }
     {print}' "$W/seg.txt" >"$W/noisy.txt"
run import -o "$W/noisy.hsdb" "$W/noisy.txt"
expect_rc 0
run codeheap "$W/noisy.hsdb" --csv
a=$out
run codeheap "$W/seg.hsdb" --csv
[ "$(echo "$a" | cut -d, -f1-11,14-)" = "$(echo "$out" | cut -d, -f1-11,14-)" ] ||
	t_fail "facts differ with the log lines: $a"
t_end

t_begin "codeheap: an unknown legend letter is a warning, not a crash"
gz jdk17-seg-analytics-all-128.txt | sed 's/^  B - buffer blob$/  B - frobnicated blob/' >"$W/legend.txt"
run import -o "$W/legend.hsdb" "$W/legend.txt"
expect_rc 3
expect_err "unknown block type 'frobnicated blob'"
run codeheap "$W/legend.hsdb" --granules --csv --heap non-nmethods
expect_rc 0
echo "$out" | tr -d '\r' | grep -q ",unknown$" ||
	t_fail "no granule of unknown type"
t_end

t_begin "codeheap: letters no legend explains are warned about"
gz jdk17-seg-analytics-all-128.txt | sed '/^0x00007f7da8938000 (+0x00000000): |/s/|B/|Q/' >"$W/letter.txt"
run import -o "$W/letter.hsdb" "$W/letter.txt"
expect_rc 3
expect_err "'Q' is not in the report's block-type legend"
t_end

t_begin "codeheap: a report naming 20000 heaps keeps 64 and says so"
awk 'BEGIN { print "   General JIT info   "
	for (i = 0; i < 20000; i++) {
		printf "|  Global CodeHeap statistics for segment H%d  |\n", i
		print "freeSpace        =      291k, nBlocks_free     =      1,     11.689% of capacity,      0.243% of max_capacity"
	} }' >"$W/many.txt"
run import -o "$W/many.hsdb" "$W/many.txt"
expect_rc 3
expect_err "more than 64 code heaps in one report"
run codeheap "$W/many.hsdb" --csv
# a header and 64 heaps, each with the 291 KiB its own line gave it
[ "$(printf '%s\n' "$out" | grep -c ',297984,')" = 64 ] || t_fail "heap rows: $out"
t_end

t_begin "codeheap: empty and data-less files say so"
: >"$W/empty.log"
run import -o "$W/e.hsdb" "$W/empty.log"
expect_rc 1
gz jdk17-seg-analytics-unsupported-function.txt >"$W/bogus.txt"
run import -o "$W/e.hsdb" "$W/bogus.txt"
expect_err "Function bogus is not supported"
expect_err "no code heap data"
t_end

t_begin "codeheap: text view draws the map and the facts"
run codeheap "$W/seg.hsdb" --heap "non-profiled nmethods" --map count --width 64
expect_rc 0
expect_out_line "    largest free block 298.75 kB (298752 bytes), fragmentation 0.000"
# 624 granules, 64 a line: 10 lines of the map
[ "$(echo "$out" | grep -c '^    0x00007f7da[0-9a-f]* |')" = 10 ] ||
	t_fail "map lines: $out"
# the method-name rows by type against the global statistics the README
# lists for 'profiled nmethods': t1 7478, alive (not entrant) 10, dead 1223
run codeheap "$W/seg.hsdb" --heap "profiled nmethods"
echo "$out" | grep -q "named blocks by type: nMethod (active) 7478 (.*), nMethod (deopt) 10 (.*), nMethod (zombie) 1223$" ||
	t_fail "blocks by type: $out"
run codeheap "$W/seg.hsdb" --map bogus
expect_rc 2
run codeheap "$W/seg.hsdb" --heap nosuch
expect_rc 1
t_end

t_begin "codeheap: --append keeps the snapshots"
run import -o "$W/both.hsdb" "$W/seg.txt"
run import --append -o "$W/both.hsdb" "$W/full.txt"
expect_rc 0
run codeheap "$W/both.hsdb" --csv
[ "$(echo "$out" | grep -c ',analytics,')" = 9 ] || t_fail "rows: $out"
run info --check "$W/both.hsdb"
expect_rc 0
t_end

t_begin "codeheap: javacore code and data caches as heaps (README facts)"
JC=$HS_FIXTURES/javacore
run import -o "$W/jc.hsdb" "$JC/javacore.20230830.134339.30220.0001.txt"
expect_rc 0
run codeheap "$W/jc.hsdb" --csv
out=$(printf '%s\n' "$out" | tr -d '\r')
# start 0x00007FF8EEC00000, end 0x00007FF8FEC00000, size 268435456,
# used 29696, free 268405760; the data cache 2 MB, full
echo "$out" | grep -q "^0,JIT Code Cache #1,,[0-9]*,[0-9]*,268435456,29696,268405760,.*,0x00007ff8eec00000,0x00007ff8fec00000," ||
	t_fail "code cache row: $out"
echo "$out" | grep -q "^0,JIT Data Cache #1,,[0-9]*,[0-9]*,2097152,2097152,0," ||
	t_fail "data cache row: $out"
run import -o "$W/jc2.hsdb" "$JC/javacore.20220606.114458.32888.0001.txt.gz" \
	"$JC/javacore.20220606.114502.32888.0002.txt.gz"
expect_rc 3 # the first file's two date lines disagree: a warning
run codeheap "$W/jc2.hsdb" --compare 0,1 --csv
out=$(printf '%s\n' "$out" | tr -d '\r')
# README: 57951648 -> 57978240 bytes used, 26592 more
expect_out_line "JIT Code Cache #1,used,57951648,57978240,26592"
run codeheap "$W/jc2.hsdb" --snapshot 1
# README: internal memory 110 segments, 131072000 bytes; JIT native
# 435,660,872 bytes
expect_out_line "  internal  memory 131.07 MB in 110 segments, in use 114.04 MB"
expect_out_line "  native memory of the JIT 435.66 MB"
t_end

t_summary
