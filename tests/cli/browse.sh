#!/bin/sh
# heapsift browse, driven through tmux (tests/browse/lib.sh): every view
# at 80x24 and at 200x60 on a store imported from a fixture recording,
# drilling down, folding, searching, filtering, a time range, resizing,
# help, no colour and ASCII, and browse INPUT with its cache.  Screens
# are compared with tests/browse/*.screen (BROWSE_UPDATE=1 rewrites
# them: review the diff); the numbers on them are checked against
# heapsift top, tree, timeline and survivors on the same store (tested
# against the JDK's jfr by tests/cli/store.sh) and the JDK's jfr summary.
. "$(dirname "$0")/lib.sh"
if ! command -v tmux >/dev/null 2>&1; then
	t_skip_all "tmux is not installed (make test installs it through build-aux/deps.sh)"
fi
. "$(dirname "$0")/../browse/lib.sh"
FX=$HS_FIXTURES/jfr
S=$T/work/leak.hsdb
mkdir -p "$T/home"
# a relative source path keeps the store, and the screens, the same in
# every clone
(cd "$HS_FIXTURES/.." && "$HEAPSIFT" import -o "$S" fixtures/jfr/jdk17-leak-gcroots.jfr) >/dev/null 2>&1 ||
	{ echo "FAIL setup: cannot import the fixture"; echo "0 passed, 1 failed"; exit 1; }
UTF="TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"

# heapsift's own views, for the numbers on the screens
# the CLI views beside the browser, which shows names as recorded: tree,
# top and diff with --no-normalize (docs/export.md, "Normalised names")
cli() {
	case $1 in
	tree | top | diff) "$HEAPSIFT" "$@" --no-normalize 2>/dev/null | tr -d '\r' ;;
	*) "$HEAPSIFT" "$@" 2>/dev/null | tr -d '\r' ;;
	esac
}

# check_alloc CSV: the Allocations rows on the screen are the first rows
# of `heapsift top --csv` in order, with the same samples, share to one
# decimal and bytes as the browser writes them (powers of 1000).
check_alloc() {
	b_capture | awk -v csv="$1" '
	BEGIN {
		FS = ","
		while ((getline l < csv) > 0) {
			if (n++ == 0) continue
			split(l, f, ",")
			key[n - 1] = f[1]; smp[n - 1] = f[2]; byt[n - 1] = f[3]; sh[n - 1] = f[5]
		}
		FS = " "
	}
	# a shortened name: the same, or the end of it after an ellipsis,
	# or packages cut to initials: the last segment (method:line) is kept
	function name_ok(s, full) {
		sub(/^(…|~)/, "", s)
		sub(/^([a-z]\.)+/, "", s)
		return length(s) > 0 && substr(full, length(full) - length(s) + 1) == s
	}
	function fmt_bytes(v,   u, units) {
		split("B kB MB GB TB PB", units, " ")
		u = 1
		while ((v >= 1000 || v <= -1000) && u < 6) { v /= 1000; u++ }
		return u == 1 ? sprintf("%d B", v) : sprintf("%.2f %s", v, units[u])
	}
	/EST BYTES/ { on = 1; next }
	on && NF >= 5 && $3 ~ /%$/ {
		r++
		if (r >= n) { print "row " r " is not in the CSV"; bad = 1; exit }
		want = fmt_bytes(byt[r]) " " sprintf("%.1f%%", sh[r] * 100) " " smp[r]
		got = $1 " " $2 " " $3 " " $4
		if (got != want) { print "row " r ": screen \"" got "\", CSV gives \"" want "\""; bad = 1 }
		if (!name_ok($NF, key[r])) { print "row " r ": screen name " $NF " is not " key[r]; bad = 1 }
		next
	}
	on && r { on = 0 }
	END { if (!r) { print "no rows on the screen"; bad = 1 } exit bad }'
}

t_begin "browse needs a terminal"
run browse "$S"
expect_rc 2
expect_err "needs a terminal"
t_end

t_begin "80x24 overview, counts as jfr summary gives them"
b_start 80 24 $UTF -- "$S"
b_screen overview-80x24
for k in jdk.ObjectAllocationSample jdk.ObjectAllocationOutsideTLAB jdk.OldObjectSample; do
	n=$(awk -v k="$k" '$1 == k { print $2 }' "$FX/jdk17-leak-gcroots.summary.txt")
	b_capture | grep -qE "^ +$n $k\$" || t_fail "overview lacks '$n $k' (jfr summary)"
done
t_end

t_begin "80x24 allocations by site match heapsift top"
b_keys 2
b_screen alloc-site-80x24
cli top "$S" --by site --csv >"$T/work/top.csv"
out=$(check_alloc "$T/work/top.csv") || t_fail "$out"
t_end

t_begin "80x24 drill into a site: call paths, classes, threads"
b_keys j Enter
b_screen alloc-drill-80x24
key=$(sed -n 3p "$T/work/top.csv" | cut -d, -f1)
b_capture | grep -q "site = $key" || t_fail "status line does not name $key"
cli top "$S" --by class --csv --include 'HeapWorkload\.hugeArray' >"$T/work/drill.csv"
n=$(sed -n 2p "$T/work/drill.csv" | cut -d, -f2)
b_capture | grep -qE " $n .* int\[\]\$" || t_fail "the drill-down's class row is not $n samples of int[]"
# its call path, from heapsift tree: the stack with self samples, the
# frames turned round (the tree goes from the outermost caller in)
cli tree "$S" --csv --depth 0 --min-share 0 --include 'HeapWorkload\.hugeArray' |
	awk -F, 'NR > 1 && $8 > 0 { n = split($1, f, ";"); p = f[n]
		for (i = n - 1; i > 0; i--) p = p " < " f[i]; print $8 " " p }' >"$T/work/paths"
[ "$(wc -l <"$T/work/paths")" = 1 ] || t_fail "expected one call path: $(cat "$T/work/paths")"
got=$(b_capture | awk '/Call paths/ && !seen { seen = 1; getline; print $4 }')
want=$(cut -d' ' -f1 "$T/work/paths")
[ "$got" = "$want" ] || t_fail "the call path has $got samples, heapsift tree says $want"
b_capture | grep -qxF "$(cut -d' ' -f2- "$T/work/paths")" || t_fail "the detail line is not the path $(cut -d' ' -f2- "$T/work/paths")"
b_keys Escape
b_capture | grep -q "by site, sort bytes" || t_fail "Esc did not step back"
t_end

t_begin "80x24 group by class, sort keys"
b_keys C
b_screen alloc-class-80x24
cli top "$S" --by class --csv >"$T/work/cls.csv"
out=$(check_alloc "$T/work/cls.csv") || t_fail "$out"
b_keys s
b_screen alloc-class-by-samples-80x24
b_keys b
t_end

t_begin "80x24 filter hides rows, Esc clears it"
b_keys '\'
b_type 'int|long'
b_keys Enter
b_screen alloc-filter-80x24
b_capture | grep -q 'filter \\int|long' || t_fail "status does not show the filter"
b_keys Escape
b_capture | grep -q 'filter \\' && t_fail "Esc did not clear the filter"
t_end

t_begin "80x24 call tree matches heapsift tree"
b_keys 3
b_screen tree-80x24
cli tree "$S" --csv --depth 1 --min-share 0 >"$T/work/tree.csv"
awk -F, 'NR > 1 { printf "%5.1f%% %5.1f%% %9d\n", $6 * 100, $7 * 100, $4 }' "$T/work/tree.csv" >"$T/work/tree.want"
b_capture | awk '/TOTAL PARENT/ { on = 1; next } on && $1 ~ /%$/ { printf "%6s %6s %9s\n", $1, $2, $3 }' |
	head -n "$(wc -l <"$T/work/tree.want")" >"$T/work/tree.got"
cmp -s "$T/work/tree.want" "$T/work/tree.got" ||
	t_fail "tree rows differ from heapsift tree: $(diff "$T/work/tree.want" "$T/work/tree.got")"
# the selected node's ± on the detail line, as heapsift tree --csv has it
pm=$(awk -F, 'NR == 2 { r = $10 * 100; printf(r < 9.95 ? "%.1f%%" : "%.0f%%", r) }' "$T/work/tree.csv")
b_capture | grep -q "^depth 0 .* ± $pm " ||
	t_fail "the root's ± is not $pm: $(b_capture | grep '^depth')"
t_end

t_begin "80x24 tree fold, unfold, expand all, collapse all"
b_keys j Right
b_screen tree-unfold-80x24
b_keys e
b_screen tree-expand-below-80x24
b_keys Left Left
b_screen tree-fold-80x24
b_keys E
b_screen tree-expand-all-80x24
b_keys C
b_screen tree-collapse-all-80x24
t_end

t_begin "80x24 search jumps into folded nodes"
b_keys /
b_type toUpperCase
b_keys Enter
b_screen tree-search-80x24
b_capture | grep -q '^depth 3 .* java.lang.String.toUpperCase:3498$' ||
	t_fail "the search did not go to the first match, String.toUpperCase"
t_end

t_begin "80x24 invalid regex is a message"
b_keys /
b_type 'a(b'
b_keys Enter
b_capture | grep -q "'a(b' is not a valid regex: missing closing parenthesis" ||
	t_fail "no message for an invalid regex"
b_keys '\'
b_type '*'
b_keys Enter
b_capture | grep -q "is not a valid regex" || t_fail "no message for an invalid filter"
t_end

t_begin "80x24 inverted tree, filtered"
b_keys 4
b_screen inverted-80x24
b_keys '\'
b_type 'HashMap'
b_keys Enter
b_screen inverted-filter-80x24
t_end

t_begin "80x24 timeline matches heapsift timeline"
b_keys 5
b_screen timeline-80x24
cli timeline "$S" --bucket 200ms --csv | sed -n 2p >"$T/work/tl.csv"
n=$(cut -d, -f2 "$T/work/tl.csv")
# the recording starts inside the first bucket: its rates are over the
# part recorded, which the cursor's line says
b_capture | grep -q "$n samples (part recorded)\$" ||
	t_fail "the first bucket is not $n samples, part recorded"
# the axis runs from the recording's start (time 0: one recording) to
# its end, as heapsift info gives its length; never from before it
len=$(cli info "$S" | sed -n 's/^  time .*(\([0-9.]*\) s)$/\1/p')
b_capture | grep -Eq "^ +\+0\.000 s +\+$len s\$" ||
	t_fail "the axis does not run from +0.000 s to +$len s: $(b_capture | grep -E '^ +[-+][0-9.]+ s ')"
t_end

t_begin "80x24 time range filters every view"
b_keys Right Right Right Right Right Space Right Right Right Right
b_screen timeline-mark-80x24
b_keys Enter
b_screen timeline-range-80x24
range=$(b_capture | sed -n 's/^range \([^ ]*\) \.\. \([^;]*\);.*/\1 \2/p')
set -- $range
[ $# = 2 ] || t_fail "no range message"
b_keys 2
b_screen alloc-range-80x24
if [ $# = 2 ]; then
	cli top "$S" --by class --csv --from "$1" --to "$2" >"$T/work/range.csv"
	out=$(check_alloc "$T/work/range.csv") || t_fail "under the range: $out"
fi
b_keys 1
b_screen overview-range-80x24
b_keys x
b_capture | grep -q 'time all' || t_fail "x did not clear the range"
t_end

t_begin "80x24 K goes through the sample kinds the store holds"
b_keys 2 K
b_screen alloc-outside-80x24
b_capture | grep -q '│ ObjectAllocationOutsideTLAB │' || t_fail "K did not go to OutsideTLAB"
cli top "$S" --by class --kind outside --csv >"$T/work/outside.csv"
out=$(check_alloc "$T/work/outside.csv") || t_fail "OutsideTLAB: $out"
b_keys K
b_capture | grep -q '│ OldObjectSample │' || t_fail "K did not go to OldObjectSample"
b_keys K
b_capture | grep -q '│ ObjectAllocationSample │' || t_fail "K did not come back to ObjectAllocationSample"
t_end

t_begin "80x24 survivors: leak suspects first, as heapsift survivors ranks them"
b_keys 6
b_screen survivors-80x24
cli survivors "$S" --kind old --leaks --csv | awk -F, 'NR > 1 && NR < 6 { printf "%s %.1f %s\n", $7 == "yes" ? "!" : "-", $2, $1 }' >"$T/work/sv.want"
b_capture | awk '/PEAK/ { on = 1; next } on && NF >= 5 && $NF ~ /:/ {
	f = ($1 == "!") ? "!" : "-"; o = ($1 == "!") ? 1 : 0
	name = $NF; sub(/^(…|~)/, "", name)
	printf "%s %s %s\n", f, $(o + 5), name }' | head -n 4 >"$T/work/sv.got"
# the flag, the slope and the end of the name (shortened on the screen)
paste -d' ' "$T/work/sv.want" "$T/work/sv.got" | awk '{
	w = $3; g = $6; sub(/^(…|~)/, "", g)
	if ($1 != $4 || $2 != $5 || substr(w, length(w) - length(g) + 1) != g) { print; bad = 1 }
} END { exit bad }' >"$T/work/sv.diff" ||
	t_fail "survivors differ from heapsift survivors --leaks (want, got): $(cat "$T/work/sv.diff")"
[ "$(wc -l <"$T/work/sv.got")" = "$(wc -l <"$T/work/sv.want")" ] || t_fail "survivors: not as many rows as heapsift survivors"
b_keys o
b_screen survivors-age-80x24
t_end

t_begin "80x24 code heaps of a store without any, help from the key table"
b_keys 7
b_screen codeheap-80x24
b_keys 3 '?'
b_screen help-80x24
b_keys End
b_screen help-end-80x24
# every binding with a text in src/tui/keys.c is on one of the two pages
b_capture >"$T/work/help2"
grep -v 'NULL}' "$(dirname "$0")/../../src/tui/keys.c" |
	grep -oE '"[^"]+", ACT_[A-Z_0-9]+, (0|TREES[^,]*|VMASK\(VIEW_TREE\)[^,]*),' |
	sed 's/^"\([^"]*\)".*/\1/; s/\\\\/\\/g' >"$T/work/keynames"
[ -s "$T/work/keynames" ] || t_fail "no key names found in src/tui/keys.c"
while read -r k; do
	cat "$BROWSE_GOLDEN/help-80x24.screen" "$T/work/help2" | grep -qF -- "   $k " ||
		t_fail "help lacks key '$k'"
done <"$T/work/keynames"
b_keys Escape 7
b_capture | grep -q 'no code-heap snapshots' || t_fail "Esc did not close the help"
t_end

t_begin "80x24 mouse: tabs, rows, wheel, double click"
b_click 10 0
b_capture | grep -q '^ by class' || t_fail "a click on tab 2 did not open Allocations"
b_click 30 5
b_capture | grep -q '^4/14 ' || t_fail "a click on the 4th row did not select it"
b_mouse 65 30 5
b_capture | grep -q '^7/14 ' || t_fail "the wheel did not move down 3 rows"
b_mouse 64 30 5
b_capture | grep -q '^4/14 ' || t_fail "the wheel did not move up 3 rows"
b_click 19 0
b_capture | grep -q 'nodes' || t_fail "a click on tab 3 did not open the Call tree"
b_click 40 3
b_capture | grep -q '^depth 1 .* HeapWorkload.main:182$' || t_fail "a click did not select the first node"
b_mouse 0 40 3 3 40 3 0 40 3 3 40 3
b_capture | grep -q 'HeapWorkload.ioBuffers:73' || t_fail "a double click did not unfold the node"
b_keys C
t_end

t_begin "resizing keeps every view drawable, and back"
b_keys 3 E
b_resize 120 40
b_screen tree-resized-120x40
b_resize 30 8
b_resize 12 4
b_capture | grep -q 'too small' || t_fail "no 'too small' at 12x4"
b_resize 80 24
b_screen tree-resized-back-80x24
b_quit
t_end

t_begin "80x24 findings: those of heapsift report, the leak fixture's leaking site among them"
# a relative store keeps the findings' commands, and the screens, the
# same in every run
b_start 80 24 $UTF -- ../work/leak.hsdb
b_keys 8
b_screen findings-80x24
# the same findings as heapsift report, in its order: the count on the
# first line, and each one's severity, rule and subject on the line the
# cursor is on as it goes down the list
(cd "$T/cwd" && cli report --format=json ../work/leak.hsdb) >"$T/work/report.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for f in r["findings"]:
    print("%-8s %s%s" % (f["severity"], f["rule"], ": " + f["subject"] if f.get("subject") else ""))
' "$T/work/report.json" >"$T/work/findings.want" || t_fail "cannot read heapsift report's JSON"
n=$(wc -l <"$T/work/findings.want")
[ "$n" -gt 0 ] || t_fail "heapsift report has no findings on the leak fixture"
b_capture | grep -q "^ $n findings: " || t_fail "the first line does not count $n findings: $(b_capture | sed -n 2p)"
# (nth: the b_* helpers use i and k)
nth=0
while read -r want; do
	nth=$((nth + 1))
	[ $nth -gt 1 ] && b_keys j
	b_capture | grep -q "^finding $nth of $n" || t_fail "the detail line does not say finding $nth of $n"
	# the header may be wrapped at 80 columns: its first 70 characters
	b_capture | grep -qF " $(printf '%s' "$want" | cut -c1-70)" || t_fail "finding $nth is not '$want' on the screen"
done <"$T/work/findings.want"
[ $nth = "$n" ] || t_fail "went through $nth findings of $n"
# the fixture's README (../shared/fixtures/jfr) names the leaking site:
# HeapWorkload.leakIntoCache, kept forever in a static HashMap
b_keys g /
b_type leakIntoCache
b_keys Enter
b_capture | grep -qE '^ (critical|warning) +leak-suspect: HeapWorkload\.leakIntoCache:' ||
	t_fail "no leak-suspect finding names HeapWorkload.leakIntoCache"
b_screen findings-leak-80x24
# its command, as the screen shows it, runs and shows the site
cmd=$(b_capture | awk '/leak-suspect: HeapWorkload\.leakIntoCache/ { on = 1 } on && /^   more: heapsift / { sub(/^   more: heapsift /, ""); print; exit }')
[ -n "$cmd" ] || t_fail "the leak suspect shows no command"
(cd "$T/cwd" && eval "\"\$HEAPSIFT\" $cmd") 2>"$T/work/cmd.err" | grep -q 'HeapWorkload\.leakIntoCache' ||
	t_fail "'heapsift $cmd' does not show HeapWorkload.leakIntoCache: $(cat "$T/work/cmd.err")"
# Enter: the Survivors view, on the suspect's row
b_keys Enter
b_capture | grep -q '^ by site, leak suspects first' || t_fail "Enter did not open Survivors"
b_capture | grep -q '│ HeapWorkload\.leakIntoCache:[0-9]*$' || t_fail "Survivors is not on HeapWorkload.leakIntoCache"
b_keys 8 '?' End
b_screen help-findings-end-80x24
b_capture | grep -q "Keys in Findings" || t_fail "the help has no keys of Findings"
b_capture | grep -q "go to the view of the finding's subject" || t_fail "the help lacks Findings' Enter"
b_keys Escape
b_quit
t_end

# a store of code-heap snapshots: the segmented report and a javacore
CH=$T/work/ch.hsdb
(cd "$HS_FIXTURES/.." && "$HEAPSIFT" import -o "$CH" \
	fixtures/codeheap/jdk17-seg-analytics-default.txt.gz \
	fixtures/javacore/javacore.20230830.134339.30220.0001.txt) >/dev/null 2>&1 ||
	t_fail "cannot import the code-heap fixtures"
cli codeheap "$CH" --csv >"$T/work/ch.csv"
cli codeheap "$CH" --granules --csv --heap "profiled nmethods" >"$T/work/chg.csv"

t_begin "80x24 code heaps: the heaps with heapsift codeheap's facts"
b_start 80 24 $UTF -- "$CH"
b_keys 7
b_screen codeheap-list-80x24
# every heap of the CSV is a row, with its size (the committed part, for
# a report's heaps and a javacore's: the CSV's capacity), used and free as
# the browser writes bytes (powers of 1000) and its fragmentation
b_capture | awk -v csv="$T/work/ch.csv" '
	function fmt(v,   u, units) {
		if (v == "") return "?"
		split("B kB MB GB TB PB", units, " ")
		u = 1
		while (v >= 1000 && u < 6) { v /= 1000; u++ }
		return u == 1 ? sprintf("%d B", v) : sprintf("%.2f %s", v, units[u])
	}
	BEGIN {
		FS = ","
		while ((getline l < csv) > 0) {
			if (n++ == 0) continue
			split(l, f, ",")
			want[n - 1] = fmt(f[6]) "|" fmt(f[7]) "|" fmt(f[8]) "|" (f[11] == "" ? "?" : sprintf("%.3f", f[11]))
			heap[n - 1] = f[2]
		}
	}
	# at 80 columns: SNAP, then SIZE USED FREE LARGEST (9 wide),
	# FRAG (5), and the heap, "CodeHeap '''x'''" shortened to x
	NR >= 3 && NR < 3 + n - 1 {
		r++
		line = $0
		got = substr(line, 6, 9) "|" substr(line, 16, 9) "|" substr(line, 26, 9) "|" substr(line, 46, 5)
		gsub(/^ +/, "", got); gsub(/\| +/, "|", got)
		name = substr(line, 53)
		sub(/ +$/, "", name)
		if (index(heap[r], name) == 0) { print "row " r ": heap " heap[r] " is not " name; bad = 1 }
		if (got != want[r]) { print "row " r ": screen " got ", CSV " want[r]; bad = 1 }
	}
	END { if (r != n - 1) { print r " rows, CSV has " n - 1; bad = 1 } exit bad }' >"$T/work/chk" ||
	t_fail "$(cat "$T/work/chk")"
t_end

t_begin "80x24 code heaps: a granule map, the cursor's granule, zoom, search"
b_keys j Enter
b_screen codeheap-map-80x24
b_keys + + + + Home
# zoomed in to one granule a cell: the detail line is granule 0 of the
# --granules CSV (count, space as a range)
row=$(sed -n 2p "$T/work/chg.csv")
cnt=$(echo "$row" | cut -d, -f5)
sp=$(echo "$row" | cut -d, -f11)
b_capture | grep -q "^granule 0 \[0x7f7da1400000, 0x7f7da1401000): count $cnt, space " ||
	t_fail "detail of granule 0 (count $cnt, space $sp): $(b_capture | tail -4)"
b_screen codeheap-map-zoomed-80x24
b_keys l l
row=$(sed -n 4p "$T/work/chg.csv")
cnt=$(echo "$row" | cut -d, -f5)
b_capture | grep -q "^granule 2 \[0x7f7da1402000, 0x7f7da1403000): count $cnt," ||
	t_fail "detail of granule 2: $(b_capture | tail -4)"
# search for a method: the cursor moves to the granule that holds it
b_keys /
b_type 'URLStreamHandler.parseURL|parseURL'
b_keys Enter
# where it should land: the first method-name row of parseURL in the
# heap, from the export's block table, as a granule of 4096 bytes
"$HEAPSIFT" export "$CH" --format=csv -o "$T/work/chx" >/dev/null 2>&1
g=$(awk -F, 'FILENAME ~ /codeheaps/ { if ($1 == 1) low = $4; next }
	$2 == 1 && $3 == "used" && $15 == 0 && $16 ~ /^parseURL\(/ {
	a = $4 + 0; if (!m || a < m) m = a } END { printf "%d", (m - low) / 4096 }' \
	"$T/work/chx/codeheaps.csv" "$T/work/chx/codeheap_blocks.csv")
b_capture | grep -q "^granule $g \[" || t_fail "search did not land on granule $g: $(b_capture | tail -4)"
b_capture | grep -q ' parseURL(' || t_fail "parseURL is not listed in the granule"
b_keys m m
b_capture | grep -q "tier map" || t_fail "m did not reach the tier map"
b_screen codeheap-map-tier-80x24
b_keys Escape
b_capture | grep -q "^SNAP  *SIZE" || t_fail "Esc did not go back to the heaps"
b_quit
t_end

# docs/browse.md: Esc clears a \ filter, in the Code heaps view as in
# the others (it used to do nothing there).  The heap counts come from
# the codeheap --csv rows, not from the browser.
t_begin "80x24 code heaps: a filter hides heaps, Esc clears it"
all=$(($(wc -l <"$T/work/ch.csv") - 1))
some=$(awk -F, 'NR > 1 && index($2, "non-") { n++ } END { print n + 0 }' "$T/work/ch.csv")
b_start 80 24 $UTF -- "$CH"
b_keys 7 '\'
b_type 'non-'
b_keys Enter
b_capture | grep -q "Code heaps: $some of $all heaps" ||
	t_fail "filter 'non-' should keep $some of $all heaps: $(b_capture | tail -2)"
b_keys Escape
b_capture | grep -q "Code heaps: $all of $all heaps" ||
	t_fail "Esc did not clear the filter: $(b_capture | tail -2)"
# a filter that hides every heap is cleared the same way
b_keys '\'
b_type 'matches-no-heap'
b_keys Enter
b_capture | grep -q "no heap matches the filter" || t_fail "the filter hid nothing"
b_keys Escape
b_capture | grep -q "Code heaps: $all of $all heaps" ||
	t_fail "Esc did not clear a filter that hid every heap: $(b_capture | tail -2)"
b_quit
t_end

t_begin "code heaps: zoom keys that come before the map is first drawn"
# the 20,000-key monkey under UBSan found it: Enter opens a map that is
# laid out at its first draw, and on a screen too small to draw views
# a zoom key divided by the zero merge of a map never laid out
b_start 80 24 $UTF -- "$CH"
b_keys 7
b_resize 10 3
b_keys Enter - + -
b_resize 80 24
b_keys + -
b_capture | grep -q "granule" || t_fail "no map after Enter and zooms: $(b_capture | tail -2)"
b_quit
t_end

t_begin "200x60 code heaps: list, map and the javacore's occupancy bar"
b_start 200 60 $UTF -- "$CH"
b_keys 7
b_screen codeheap-list-200x60
b_keys j Enter
b_screen codeheap-map-200x60
# the javacore's code cache, the row above its data cache
b_keys Escape End k Enter
b_capture | grep -q "used total, placement unknown" ||
	t_fail "the javacore map does not say its placement is unknown"
b_screen codeheap-javacore-200x60
b_resize 80 24
b_resize 200 60
b_quit
t_end

t_begin "200x60 every view"
# relative: the findings' commands name the store as it was given
b_start 200 60 $UTF -- ../work/leak.hsdb
b_screen overview-200x60
b_keys 2
b_screen alloc-site-200x60
out=$(check_alloc "$T/work/top.csv") || t_fail "$out"
b_keys Enter
b_screen alloc-drill-200x60
# the top site has one call path: its ± is the site's, as top says it
pm=$(awk -F, 'NR == 2 { r = $6 * 100; printf(r < 9.95 ? "%.1f%%" : "%.0f%%", r) }' "$T/work/top.csv")
b_capture | grep -A1 "^ *Call paths" | tail -n 1 | grep -q " $pm " ||
	t_fail "the first call path's ± is not the site's $pm: $(b_capture | grep -A1 'Call paths')"
b_keys Escape 3 E
b_screen tree-expand-all-200x60
b_keys 4
b_screen inverted-200x60
b_keys 5
b_screen timeline-200x60
b_keys 6
b_screen survivors-200x60
b_keys 7
b_screen codeheap-200x60
b_keys 8
b_screen findings-200x60
b_keys '?'
b_screen help-200x60
b_keys Escape
b_quit
t_end

t_begin "300x100 every view fills the screen"
b_start 300 100 $UTF -- "$S"
for v in 1 2 3 4 5 6 7 8; do
	b_keys "$v"
	b_capture >"$T/work/big"
	[ "$(wc -l <"$T/work/big")" = 100 ] || t_fail "view $v: $(wc -l <"$T/work/big") rows, not 100"
	sed -n 99p "$T/work/big" | grep -q 'time all' || t_fail "view $v: no status line on row 99"
	head -n 1 "$T/work/big" | grep -q '8 Findings  *heapsift: leak.hsdb$' || t_fail "view $v: tabs or title wrong"
done
b_keys 3 E
b_capture >"$T/work/big"
# every node on a row of its own from row 3 down, with no gap: all the
# rows up to 97, or as many as the status line says there are nodes
n=$(sed -n 's/^ *\([0-9][0-9]*\) nodes .*/\1/p' "$T/work/big" | head -n 1)
[ -n "$n" ] || t_fail "no node count on the status line"
awk -v n="${n:-0}" 'NR > 2 && NR < 98 && NR <= n + 2 && NF == 0 { bad = 1 }
	END { exit bad }' "$T/work/big" ||
	t_fail "the expanded tree of $n nodes does not fill 300x100"
b_quit
t_end

# tree_page CSV top|bottom: the tree rows on the screen are heapsift
# tree --csv's rows (every node, in order) from the first, or up to the
# last: total and parent share, samples, and the end of the name
tree_page() {
	b_capture | awk -v csv="$1" -v at="$2" '
	BEGIN {
		FS = ","
		while ((getline l < csv) > 0) {
			if (n++ == 0) continue
			split(l, f, ",")
			want[n - 1] = sprintf("%.1f%% %.1f%% %d", f[6] * 100, f[7] * 100, f[4])
			name[n - 1] = f[3]
		}
		n--
		FS = " "
	}
	function name_ok(s, full) {
		sub(/^(…|~)/, "", s)
		sub(/^([a-z]\.)+/, "", s)
		return length(s) > 0 && substr(full, length(full) - length(s) + 1) == s
	}
	/TOTAL PARENT/ { on = 1; next }
	on && $1 ~ /%$/ { r++; got[r] = $1 " " $2 " " $3; gn[r] = $NF; next }
	on && r { on = 0 }
	END {
		if (!r) { print "no rows on the screen"; exit 1 }
		for (k = 1; k <= r; k++) {
			i = at == "top" ? k : n - r + k
			if (got[k] != want[i] || !name_ok(gn[k], name[i])) {
				print "screen row " k " \"" got[k] " " gn[k] "\" is not row " i " of the tree: \"" want[i] " " name[i] "\""
				exit 1
			}
		}
	}'
}

# tree_match CSV REGEX K: the K-th node of heapsift tree --csv's order
# whose frame matches REGEX, as "depth D ... FRAME" on the detail line
tree_match() {
	awk -F, -v re="$2" -v k="$3" 'NR > 1 && $3 ~ re && ++m == k { print "^depth " $2 " .* " $3 "$"; exit }' "$1"
}

t_begin "200x60 E and search: heapsift tree's rows, in its order, made as shown or whole"
cli tree "$S" --csv --depth 0 --min-share 0 >"$T/work/all-3.csv"
cli tree "$S" --csv --depth 0 --min-share 0 --inverted >"$T/work/all-4.csv"
# 1: every step past one node made takes the whole tree
for mb in 50000 1; do
	b_start 200 60 $UTF HEAPSIFT_BROWSE_MADE_BELOW=$mb -- "$S"
	for v in 3 4; do
		csv=$T/work/all-$v.csv re='Arrays\.copyOf' fre='Arrays\.copyOf'
		# the inverted tree's filter: matches halfway out, so that
		# a chain of frames is kept only up to its outermost match
		[ $v = 4 ] && re='ArrayList\.grow' fre='HashMap'
		n=$(($(wc -l <"$csv") - 1))
		# the \ filter: the nodes that match and those that lead to
		# one, from the CSV's paths, every one unfolded; Esc gives
		# back the folds from before
		awk -F, -v re="$fre" 'NR == 1 { print; next }
			{ row[NR] = $0; path[NR] = $1; last = NR }
			$3 ~ re { p = $1; keep[p] = 1
				while (sub(/;[^;]*$/, "", p)) keep[p] = 1
				keep[""] = 1 }
			END { keep[""] = 1
				for (i = 2; i <= last; i++) if (path[i] in keep) print row[i] }' \
			"$csv" >"$T/work/kept-$v.csv"
		kept=$(($(wc -l <"$T/work/kept-$v.csv") - 2))
		b_keys "$v" Home
		b_capture | awk '/TOTAL PARENT/ { on = 1; next } on && $1 ~ /%$/' >"$T/work/before"
		b_keys '\'
		b_type "$fre"
		b_keys Enter
		b_capture | grep -q "$kept of $((n - 1)) nodes match" ||
			t_fail "view $v ($mb): not $kept of $((n - 1)) kept: $(b_capture | tail -1)"
		tree_page "$T/work/kept-$v.csv" top >"$T/work/why" ||
			t_fail "view $v ($mb), filter: $(cat "$T/work/why")"
		b_keys End
		tree_page "$T/work/kept-$v.csv" bottom >"$T/work/why" ||
			t_fail "view $v ($mb), filter, End: $(cat "$T/work/why")"
		b_keys Home Escape
		b_capture | awk '/TOTAL PARENT/ { on = 1; next } on && $1 ~ /%$/' >"$T/work/after"
		cmp -s "$T/work/before" "$T/work/after" ||
			t_fail "view $v ($mb): Esc did not give back the rows before the filter"
		# folded under the filter, then N takes the whole tree: the
		# kept nodes by its ids
		b_keys '\'
		b_type "$fre"
		b_keys Enter C /
		b_type "$fre"
		b_keys Enter N
		b_capture | grep '^depth' | grep -Eq "$fre" ||
			t_fail "view $v ($mb): N under a folded filter is not on a match: $(b_capture | grep '^depth')"
		b_capture | grep -qF "filter \\$fre" ||
			t_fail "view $v ($mb): the filter is gone after N"
		b_keys Escape Home
		# search before E: from the root, folded nodes too
		b_keys /
		b_type "$re"
		b_keys Enter
		b_capture | grep -q "$(tree_match "$csv" "$re" 1)" ||
			t_fail "view $v ($mb): the first match is not $(tree_match "$csv" "$re" 1): $(b_capture | grep '^depth')"
		b_keys n n N
		b_capture | grep -q "$(tree_match "$csv" "$re" 2)" ||
			t_fail "view $v ($mb): n n N is not on the second match: $(b_capture | grep '^depth')"
		b_keys Home E
		b_capture | grep -q "^ *$n nodes" || t_fail "view $v ($mb): not $n nodes"
		tree_page "$csv" top >"$T/work/why" || t_fail "view $v ($mb), E: $(cat "$T/work/why")"
		b_keys /
		b_type "$re"
		b_keys Enter n
		b_capture | grep -q "$(tree_match "$csv" "$re" 2)" ||
			t_fail "view $v ($mb): after E, / and n are not on the second match: $(b_capture | grep '^depth')"
		b_keys End
		tree_page "$csv" bottom >"$T/work/why" || t_fail "view $v ($mb), End: $(cat "$T/work/why")"
		b_capture | grep -q "$(awk -F, -v n="$n" 'NR == n + 1 { print "^depth " $2 " .* " $3 "$" }' "$csv")" ||
			t_fail "view $v ($mb): End is not on the last node"
		# folding after E: the rows as flags, the node folded
		b_keys Home Down Left
		b_capture | grep -q "^ *$n nodes" || t_fail "view $v ($mb): not $n nodes after a fold"
		[ "$(b_capture | awk '/TOTAL PARENT/ { on = 1; next } on && $1 ~ /%$/ { r++ } END { print r }')" -lt 58 ] ||
			t_fail "view $v ($mb): folding the first node after E hid no row"
		b_keys C
	done
	b_quit
done
t_end

t_begin "no colour and ASCII: NO_COLOR, TERM=vt100, LANG=C"
b_start 80 24 TERM=vt100 LANG=C LC_ALL=C NO_COLOR=1 -- "$S"
b_screen overview-ascii-80x24
b_keys 2
b_screen alloc-ascii-80x24
b_keys 3 j Right
b_screen tree-ascii-80x24
b_keys 5
b_screen timeline-ascii-80x24
b_capture | LC_ALL=C grep -q "$(printf '[\200-\377]')" && t_fail "non-ASCII bytes on an ASCII terminal"
b_quit
t_end

t_begin "256 colours, 8 colours, NO_COLOR: the same text, the colours asked for"
# capture-pane -e gives the cells' colours as SGR sequences
b_start 80 24 $UTF -- "$S"
b_screen overview-80x24
$B_TMUX capture-pane -e -p -t browse | grep -q '48;5;24m' || t_fail "256 colours: no 256-colour background"
b_quit
b_start 80 24 TERM=screen LANG=C.UTF-8 LC_ALL=C.UTF-8 -- "$S"
b_screen overview-80x24
b_keys 2
b_screen alloc-site-80x24
$B_TMUX capture-pane -e -p -t browse | grep -q '\[44m' || t_fail "8 colours: no blue background"
$B_TMUX capture-pane -e -p -t browse | grep -q '[34]8;5;' && t_fail "8 colours: 256-colour codes"
b_quit
b_start 80 24 $UTF NO_COLOR=1 -- "$S"
b_screen overview-80x24
$B_TMUX capture-pane -e -p -t browse | grep -qE '\[([34][0-7]|[34]8;5;[0-9]+)m' && t_fail "NO_COLOR: colours used"
$B_TMUX capture-pane -e -p -t browse | grep -q '7m' || t_fail "NO_COLOR: no reverse video for the tabs and status"
b_quit
t_end

t_begin "120x30 baseline: allocations against --base match heapsift diff"
# two recordings of different workloads in one store, the first as the
# baseline (--base=0), the second the new side: the rows, their order,
# their samples on both sides and the verdicts are heapsift diff's
"$HEAPSIFT" import -o "$T/work/two.hsdb" "$FX/jdk17-leak-gcroots.jfr" "$FX/jdk17-default.jfr" >/dev/null 2>&1 ||
	t_fail "import of two recordings failed"
b_start 120 30 $UTF -- "$T/work/two.hsdb" --base=0
b_keys 2
cli diff "$T/work/two.hsdb" --base-recording 0 --recording 1 --by site --csv >"$T/work/diff.csv"
b_capture | grep -q 'vs base rec 0' || t_fail "the status line does not name the baseline"
b_capture | awk -F, -v csv="$T/work/diff.csv" '
	BEGIN { FS = " "; n = 0
		while ((getline line < csv) > 0) { if (n++ == 0) continue
			sub(/\r$/, "", line); split(line, f, ",")
			key[n - 1] = f[1]; nb[n - 1] = f[2]; nn[n - 1] = f[3]; ch[n - 1] = f[10] } }
	/N_BASE/ { on = 1; next }
	on && NF >= 6 && $0 !~ /beyond noise/ {
		r++
		# BASE/s NEW/s CHANGE are two words each
		got = $7 " " $8; want = nb[r] " " nn[r]
		v = (NF >= 10 && ($9 == "grew" || $9 == "shrank")) ? $9 : ""
		if (got != want) { print "row " r ": samples " got ", diff says " want; bad = 1 }
		if (v != ch[r]) { print "row " r ": verdict \"" v "\", diff says \"" ch[r] "\""; bad = 1 }
		name = $NF; sub(/^(…|~)/, "", name); sub(/^([a-z]\.)+/, "", name)
		if (substr(key[r], length(key[r]) - length(name) + 1) != name) { print "row " r ": " $NF " is not " key[r]; bad = 1 }
		next
	}
	on && r && NF < 6 { on = 0 }
	END { if (!r) { print "no rows"; bad = 1 } exit bad }' >"$T/work/base.err" ||
	t_fail "$(cat "$T/work/base.err")"
grep -q ',grew,\|,shrank,' "$T/work/diff.csv" || t_fail "nothing changed beyond noise between the two: the case checks no verdict"
# off the first row (the cursor's colour wins there): a row that grew
# is drawn in the colour of growth (ST_GREW: 256-colour 203), one that
# shrank in that of shrinking (ST_SHRANK: 71)
b_keys End
b_capture | grep -q ' grew ' || t_fail "no row marked grew"
$B_TMUX capture-pane -e -p -t browse | grep ' grew ' | grep -q '38;5;203' ||
	t_fail "a row that grew is not drawn in the growth colour"
if grep -q ',shrank,' "$T/work/diff.csv"; then
	$B_TMUX capture-pane -e -p -t browse | grep ' shrank ' | grep -q '38;5;71' ||
		t_fail "a row that shrank is not drawn in the colour of shrinking"
fi
b_keys Home
b_keys B
b_capture | grep -q "by site, sort bytes" || t_fail "B did not switch back"
b_keys B
b_capture | grep -q "baseline: recording 0" || t_fail "B without a range: recording 0 is not the baseline"
b_quit
b_start 80 24 $UTF -- "$S"
b_keys B
b_capture | grep -q "select a time range" || t_fail "B with one recording and no range: no message"
b_quit
t_end

t_begin "120x30 baseline: one estimate on both sides when only the base holds OutsideTLAB events"
# fixtures/truth/jdk17-diff-outside and -base (make-diff.sh): the same
# workload, OutsideTLAB events in the first only.  The store holds them,
# so each side alone could give the corrected estimate; against the
# baseline both must give the raw weights, the status line says so, and
# the 2 MiB arrays' site, whose rate the truth files give as the same,
# has no verdict (the corrected base against the raw new side made one)
TR=$HS_FIXTURES/truth
"$HEAPSIFT" import -o "$T/work/est.hsdb" "$TR/jdk17-diff-outside.jfr.gz" "$TR/jdk17-diff-base.jfr.gz" >/dev/null 2>&1 ||
	t_fail "import of the two recordings failed"
python3 -c 'import json, sys
a, b = (json.load(open(f))["sites"]["large"]["bytes_per_s"] for f in sys.argv[1:])
sys.exit(abs(b / a - 1) > 0.02)' "$TR/jdk17-diff-outside.truth.json" "$TR/jdk17-diff-base.truth.json" ||
	t_fail "truth: the large site's rate differs between the two runs"
b_start 120 30 $UTF -- "$T/work/est.hsdb" --base=0
b_keys 2
b_capture | grep -q 'against the baseline, per second, JFR weights on both sides' ||
	t_fail "the status line does not say the one estimate: $(b_capture | tail -3)"
b_capture | grep -E 'DiffTruth\.large' | grep -qE ' (grew|shrank) ' &&
	t_fail "the large arrays' site has a verdict: $(b_capture | grep DiffTruth.large)"
b_capture | grep -q 'DiffTruth\.large' || t_fail "no row of the large arrays' site"
b_quit
t_end

t_begin "120x30 baseline: call tree, inverted and survivors flag the doubled site as heapsift diff does"
# fixtures/workloads/diff-base.hsa and diff-double.hsa: DiffWorkload under
# the agent, the second with beta's rate doubled (their truth files say
# so), every array kept to the end; appended into one store, the first
# the baseline (--base=0).  Each view, unfolded, shows heapsift diff's
# rows in its order with its samples and verdicts, and the rows flagged
# are the doubled site (and, in the trees, its callers) alone
# (tests/browse/check_diff_screen.py).
WL=$HS_FIXTURES/workloads
D=$T/work/diffw.hsdb
{ "$HEAPSIFT" import -o "$D" "$WL/diff-base.hsa" &&
	"$HEAPSIFT" import --append -o "$D" "$WL/diff-double.hsa"; } >/dev/null 2>&1 ||
	t_fail "import of the two DiffWorkload recordings failed"
cli diff "$D" --base-recording 0 --recording 1 --tree --csv >"$T/work/d-tree.csv"
cli diff "$D" --base-recording 0 --recording 1 --inverted --csv >"$T/work/d-inverted.csv"
cli diff "$D" --base-recording 0 --recording 1 --survivors --csv >"$T/work/d-survivors.csv"
check_screen() {
	b_capture >"$T/work/d-$1.screen"
	python3 "$BROWSE_GOLDEN/check_diff_screen.py" "$1" "$T/work/d-$1.screen" "$T/work/d-$1.csv" \
		"$WL/diff-base.truth.json" "$WL/diff-double.truth.json" >"$T/work/d-$1.err" 2>&1 ||
		t_fail "$1: $(cat "$T/work/d-$1.err")"
}
b_start 120 30 $UTF -- "$D" --base=0
b_keys 3 E
b_capture | grep -q 'nodes against the baseline, per second' || t_fail "call tree: the status line does not say baseline"
check_screen tree
# off the cursor's row, a node that grew is drawn in the colour of growth
$B_TMUX capture-pane -e -p -t browse | grep 'DiffWorkload.beta:' | grep -q '38;5;203' ||
	t_fail "call tree: the doubled site is not drawn in the growth colour"
b_keys 4 E
check_screen inverted
b_keys 6
b_capture | grep -q 'by site against the baseline, live at the end' || t_fail "survivors: the status line does not say baseline"
check_screen survivors
# B: back to the plain views
b_keys B
b_capture | grep -q 'PEAK *AT END *SLOPE' || t_fail "survivors: B did not switch back: $(b_capture | head -n 3)"
b_keys 3
b_capture | grep -q 'TOTAL *PARENT *SAMPLES' || t_fail "call tree: B did not switch back"
b_capture | grep -q 'against the baseline' && t_fail "call tree: still against the baseline after B"
b_keys 4
b_capture | grep -q 'TOTAL *PARENT *SAMPLES' || t_fail "inverted: B did not switch back"
b_quit
t_end

t_begin "browse INPUT imports into the XDG cache once, reimports when its bytes change"
cp "$FX/jdk17-leak-gcroots.jfr" "$T/work/rec.jfr"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache" -- "$T/work/rec.jfr"
b_capture | grep -q 'rec.jfr' || t_fail "title does not name the input"
b_quit
grep -q "importing into $T/work/cache/heapsift/" "$T/work/stderr" || t_fail "no import into the cache: $(cat "$T/work/stderr")"
n=$(ls "$T/work/cache/heapsift" | wc -l)
[ "$n" = 1 ] || t_fail "$n files in the cache, expected 1"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache" -- "$T/work/rec.jfr"
b_quit
grep -q "using $T/work/cache/heapsift/" "$T/work/stderr" || t_fail "the cache was not reused: $(cat "$T/work/stderr")"
# the cache store is named by the input's bytes (issue 39): a new time
# alone reuses it, other bytes under the same name and time do not
touch -d '2020-01-01' "$T/work/rec.jfr"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache" -- "$T/work/rec.jfr"
b_quit
grep -q "using $T/work/cache/heapsift/" "$T/work/stderr" ||
	t_fail "the same bytes at a new time were not reused: $(cat "$T/work/stderr")"
cp "$FX/jdk17-default.jfr" "$T/work/rec.jfr"
touch -d '2020-01-01' "$T/work/rec.jfr"
b_start 80 24 $UTF XDG_CACHE_HOME="$T/work/cache" -- "$T/work/rec.jfr"
b_quit
grep -q "importing into" "$T/work/stderr" || t_fail "a changed input was not imported again"
b_start 80 24 $UTF -- "$T/work/rec.jfr"
b_quit
[ -d "$T/home/.cache/heapsift" ] || t_fail "without XDG_CACHE_HOME the cache is not in ~/.cache/heapsift"
t_end

t_begin "120x40 findings of a bundle of two JVMs: each names its own JVM, as heapsift report does"
# fixtures/truth/jvms-together.tar.gz: two JVMs (make-jvms.sh), alpha
# with its code-heap files; each finding, as the cursor reaches it, is
# shown with a jvm: line naming the JVM heapsift report gives it
# (a copy named by a short relative path, as the leak store above: a
# finding's subject holds its path, which must fit in a line of the
# screen wherever the tree is checked out)
cp "$HS_FIXTURES/truth/jvms-together.tar.gz" "$T/work/j2.tar.gz"
J2=../work/j2.tar.gz
b_start 120 40 $UTF XDG_CACHE_HOME="$T/work/cache-jvms" -- "$J2"
b_keys 8
(cd "$T/cwd" && XDG_CACHE_HOME="$T/work/cache-jvms" cli report --format=json "$J2") >"$T/work/jvms.json"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for f in r["findings"]:
    j = f["recording"]
    ids = ",".join(str(i) for i in j["ids"])
    print("%s%s\tjvm: %s, recording%s %s (" % (f["rule"], ": " + f["subject"] if f.get("subject") else "",
          j["jvm"], "" if len(j["ids"]) == 1 else "s", ids))
' "$T/work/jvms.json" >"$T/work/jvms.want" || t_fail "cannot read heapsift report's JSON"
n=$(wc -l <"$T/work/jvms.want")
[ "$n" -gt 4 ] || t_fail "heapsift report has $n findings on the bundle"
pids=$(cut -f2 "$T/work/jvms.want" | sort -u | wc -l)
[ "$pids" = 2 ] || t_fail "the findings name $pids JVMs, not the bundle's 2"
# the pairs of a finding's header and its jvm: line on each screen as
# the cursor goes down the list: every pair shown is one of the report's,
# and every one of the report's is shown
: >"$T/work/jvms.seen"
nth=0
while [ $nth -lt "$n" ]; do
	nth=$((nth + 1))
	[ $nth -gt 1 ] && b_keys j
	b_capture | grep -q "^finding $nth of $n" || t_fail "the detail line does not say finding $nth of $n"
	b_capture | awk '
		/^ *(critical|warning|info) +[a-z-]+/ { h = $0; sub(/^ *(critical|warning|info) +/, "", h); sub(/ \(few samples\)$/, "", h); next }
		h != "" && /jvm: / { j = $0; sub(/^.*jvm: /, "jvm: ", j); sub(/\(.*$/, "(", j); print h "\t" j }
		{ h = "" }' >>"$T/work/jvms.seen"
done
sort -u "$T/work/jvms.seen" >"$T/work/jvms.seen.u"
sort -u "$T/work/jvms.want" >"$T/work/jvms.want.u"
cmp -s "$T/work/jvms.seen.u" "$T/work/jvms.want.u" ||
	t_fail "the findings and JVMs shown are not the report's: $(diff "$T/work/jvms.want.u" "$T/work/jvms.seen.u")"
b_quit
t_end

t_begin "120x30 --estimate=jfr starts on the JFR weights, W switches to the corrected estimate"
# the store holds OutsideTLAB events: corrected is the default, and the
# raw weights one option or one key away; each screen's rows are what
# heapsift top says under the same estimate
b_start 120 30 $UTF -- --estimate=jfr "$S"
b_keys 2
cli top "$S" --by site --csv --estimate=jfr >"$T/work/est-jfr.csv"
out=$(check_alloc "$T/work/est-jfr.csv") || t_fail "JFR weights: $out"
b_capture | grep -q "JFR weights (W)" || t_fail "the status line does not say JFR weights"
b_keys W
cli top "$S" --by site --csv >"$T/work/est-cor.csv"
cmp -s "$T/work/est-jfr.csv" "$T/work/est-cor.csv" &&
	t_fail "the corrected estimate gives the JFR weights' rows"
out=$(check_alloc "$T/work/est-cor.csv") || t_fail "corrected: $out"
b_capture | grep -q "corrected (W)" || t_fail "the status line does not say corrected"
b_quit
t_end

t_begin "120x30 async-profiler: allocations, K to its live objects, survivors with the leaking site first"
# another writer's kinds in the same views: the Allocations rows are
# heapsift top's on ap-alloc, K goes to profiler.LiveObject, and the
# Survivors view opens on the live objects with the workload's leaking
# site first (tests/cli/thirdparty.sh checks those against jfr print
# and the workload's truth)
AP=$T/work/ap.hsdb
(cd "$HS_FIXTURES/.." && "$HEAPSIFT" import -o "$AP" fixtures/thirdparty/alloc-live.jfr) >/dev/null 2>&1 ||
	t_fail "cannot import alloc-live.jfr"
b_start 120 30 $UTF -- "$AP"
b_keys 2
b_screen ap-alloc-120x30
b_capture | grep -q 'ObjectAllocationInNewTLAB (async-profiler)' || t_fail "the kind is not named async-profiler's"
cli top "$AP" --by site --csv >"$T/work/ap.csv"
out=$(check_alloc "$T/work/ap.csv") || t_fail "ap-alloc: $out"
b_keys K
b_capture | grep -q 'profiler.LiveObject' || t_fail "K did not go to profiler.LiveObject"
b_keys 6
b_screen ap-survivors-120x30
first=$(b_capture | awk '/PEAK/ { on = 1; next } on && $NF ~ /:/ { print $NF; exit }')
case $first in *TruthAlloc.leak:29) ;; *) t_fail "the first survivor is $first, not TruthAlloc.leak:29" ;; esac
b_quit
t_end

t_summary
