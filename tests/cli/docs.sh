#!/bin/sh
# The documentation against the program (heapsift issue 18).
#
# For every command of `heapsift --help`, the options `heapsift CMD
# --help` prints and the options the man page (docs/heapsift.1) gives
# that command must be the same set, both ways.  The man page is read
# as roff, a section per command: the command's SYNOPSIS entry, its
# entry under COMMANDS, the text under COMMANDS before the first entry
# (options every command takes), and the FILTERS or LIMITS section when
# the command's synopsis or entry takes "[filters]" or "[limits]".
#
# The export tables: the list in the man page, in `export --help` and in
# docs/export.md (and the number docs/export.md spells out) must each be
# the set of files `heapsift export` writes for a store imported from a
# fixture, counted in the output folder.
. "$(dirname "$0")/lib.sh"
DOCS=$(cd "$(dirname "$0")/../../docs" && pwd)
MAN=$DOCS/heapsift.1
W=$T/work

# help CMD: `heapsift CMD --help` into $W/help.CMD; 1 when it fails.
help() {
	run "$1" --help
	printf '%s\n' "$out" >"$W/help.$1"
	[ "$rc" = 0 ] && [ -n "$out" ]
}

# long_opts / short_opts: the option names in the text on stdin, one a
# line, sorted and unique.  A short option is a dash and one letter
# standing alone (-o, -h), not -agentpath or -XX:+..., nor 0-100.
long_opts() {
	grep -oE -- '--[a-z0-9][a-z0-9-]*' | sed 's/-*$//' | LC_ALL=C sort -u
}
short_opts() {
	grep -oE -- '(^|[][ ,(|])-[A-Za-z]([^A-Za-z0-9_-]|$)' |
		sed 's/^[^-]*//; s/^\(-.\).*/\1/' | LC_ALL=C sort -u
}

# The man page as tagged plain text, one roff line a line:
#   SYN CMD<TAB>text      the command's SYNOPSIS entry (CMD heapsift: the
#                         first, heapsift's own)
#   JOIN CMD<TAB>PREV     CMD's synopsis entry starts with no .br after PREV's
#   ALL<TAB>text          COMMANDS before the first entry
#   CMD NAME<TAB>text     NAME's entry under COMMANDS
#   FILTERS<TAB>text, LIMITS<TAB>text
# Fonts are dropped, \- is -, \e is \, and the arguments of the
# alternating-font macros (.BR, .RB, .BI, ...) are joined as roff joins
# them.
awk '
function plain(s) {
	gsub(/\\f[BIRP]/, "", s)
	gsub(/\\-/, "-", s)
	gsub(/\\e/, "\\", s)
	gsub(/\\\(sr/, "sqrt", s)
	gsub(/\\&/, "", s)
	return s
}
# roff arguments: words, or "quoted strings"
function args(s, joined,   out, w, n, i, q) {
	out = ""; n = 0
	while (length(s) > 0) {
		sub(/^[ \t]+/, "", s)
		if (s == "") break
		if (substr(s, 1, 1) == "\"") {
			q = index(substr(s, 2), "\"")
			if (q == 0) q = length(s)
			w = substr(s, 2, q - 1); s = substr(s, q + 2)
		} else {
			i = match(s, /[ \t]/)
			if (i == 0) { w = s; s = "" } else { w = substr(s, 1, i - 1); s = substr(s, i) }
		}
		out = out (n++ && !joined ? " " : "") w
	}
	return out
}
function text(line,   m, rest) {
	if (substr(line, 1, 1) != ".")
		return plain(line)
	m = line; sub(/[ \t].*/, "", m)
	rest = substr(line, length(m) + 1)
	if (m == ".B" || m == ".I" || m == ".SM")
		return plain(args(rest, 0))
	if (m ~ /^\.(BR|RB|BI|IB|IR|RI)$/)
		return plain(args(rest, 1))
	return ""
}
/^\.SH/ { sec = args(substr($0, 4), 0); entry = ""; depth = 0; syn = ""; next }
sec == "SYNOPSIS" {
	if ($0 ~ /^\.br/) { syn_open = 0; next }
	t = text($0)
	if ($1 == ".B" && $2 == "heapsift") {
		name = NF >= 3 ? plain($3) : "heapsift"
		if (syn_open) print "JOIN " name "\t" syn
		syn = name; syn_open = 1
		print "SYN " syn "\t" t
		next
	}
	if (syn != "" && t != "") print "SYN " syn "\t" t
	next
}
sec == "COMMANDS" {
	if ($0 ~ /^\.RS/) { depth++; next }
	if ($0 ~ /^\.RE/) { depth--; next }
	if ($0 ~ /^\.TP/ && depth == 0) { head = 1; next }
	t = text($0)
	if (head) {
		head = 0
		entry = t; sub(/[ \t].*/, "", entry)
	}
	if (t == "") next
	if (entry == "") print "ALL\t" t
	else print "CMD " entry "\t" t
	next
}
sec == "FILTERS" || sec == "LIMITS" { t = text($0); if (t != "") print sec "\t" t }
' "$MAN" >"$W/man.txt"

# man_section CMD: the man page text that documents CMD.
man_section() {
	grep -E "^(SYN|CMD) $1	" "$W/man.txt" | cut -f2- >"$W/own.$1"
	cat "$W/own.$1"
	grep '^ALL	' "$W/man.txt" | cut -f2-
	if grep -qF '[filters]' "$W/own.$1"; then
		grep '^FILTERS	' "$W/man.txt" | cut -f2-
	fi
	if grep -qF '[limits]' "$W/own.$1"; then
		grep '^LIMITS	' "$W/man.txt" | cut -f2-
	fi
}

# --- the commands -----------------------------------------------------------
t_begin "every command has a SYNOPSIS entry and a COMMANDS entry, and no other"
run --help
printf '%s\n' "$out" | sed -n '/^Commands:/,/^$/p' |
	sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' >"$W/commands"
[ -s "$W/commands" ] || t_fail "no commands in heapsift --help: $out"
sed -n 's/^SYN \([^	]*\)	.*/\1/p' "$W/man.txt" | grep -vx heapsift | uniq >"$W/syn"
sed -n 's/^CMD \([^	]*\)	.*/\1/p' "$W/man.txt" | uniq >"$W/cmd"
while read -r c; do
	grep -qx -- "$c" "$W/syn" ||
		t_fail "command '$c' (heapsift --help) has no SYNOPSIS entry (.B heapsift $c) in docs/heapsift.1"
	grep -qx -- "$c" "$W/cmd" ||
		t_fail "command '$c' (heapsift --help) has no entry (.TP .B $c) under COMMANDS in docs/heapsift.1"
done <"$W/commands"
for c in $(cat "$W/syn" "$W/cmd" | sort -u); do
	grep -qx -- "$c" "$W/commands" ||
		t_fail "docs/heapsift.1 documents a command '$c' that heapsift --help does not list"
done
t_end

t_begin "every SYNOPSIS entry is on a line of its own (.br between them)"
if grep -q '^JOIN ' "$W/man.txt"; then
	while IFS='	' read -r tag prev; do
		t_fail "docs/heapsift.1 SYNOPSIS: no .br between the entries of '$prev' and '${tag#JOIN }', so roff joins them on one line"
	done <<EOF
$(grep '^JOIN ' "$W/man.txt")
EOF
fi
t_end

t_begin "heapsift --help and the man page's first SYNOPSIS line give the same options"
run --help
printf '%s\n' "$out" >"$W/help.main"
grep '^SYN heapsift	' "$W/man.txt" | cut -f2- >"$W/man.main"
for kind in long short; do
	${kind}_opts <"$W/help.main" >"$W/hopts"
	${kind}_opts <"$W/man.main" >"$W/mopts"
	for o in $(LC_ALL=C comm -23 "$W/hopts" "$W/mopts"); do
		t_fail "option $o is in 'heapsift --help' but not in the man page's 'heapsift' SYNOPSIS line"
	done
	for o in $(LC_ALL=C comm -13 "$W/hopts" "$W/mopts"); do
		t_fail "option $o is in the man page's 'heapsift' SYNOPSIS line but not in 'heapsift --help'"
	done
done
t_end

while read -r c; do
	t_begin "$c: the options of heapsift $c --help and of its man page section are the same"
	if ! help "$c"; then
		t_fail "heapsift $c --help: exit status $rc, stdout: $out, stderr: $err"
		t_end
		continue
	fi
	man_section "$c" >"$W/man.$c"
	grep -q . "$W/own.$c" || t_fail "docs/heapsift.1 has no section for $c"
	for kind in long short; do
		${kind}_opts <"$W/help.$c" >"$W/hopts"
		${kind}_opts <"$W/man.$c" >"$W/mopts"
		for o in $(LC_ALL=C comm -23 "$W/hopts" "$W/mopts"); do
			t_fail "option $o is in 'heapsift $c --help' but not in the man page's $c section (docs/heapsift.1: its SYNOPSIS and COMMANDS entries, FILTERS or LIMITS where they say [filters] or [limits])"
		done
		for o in $(LC_ALL=C comm -13 "$W/hopts" "$W/mopts"); do
			t_fail "option $o is in the man page's $c section (docs/heapsift.1) but not in 'heapsift $c --help'"
		done
	done
	t_end
done <"$W/commands"

# --- the export tables -------------------------------------------------------
# The truth: the files export writes, for a store of a JFR recording and
# a code-heap report.
S=$W/case.hsdb
"$HEAPSIFT" import -o "$S" "$HS_FIXTURES/jfr/jdk17-killed-unfinished.jfr" \
	"$HS_FIXTURES/codeheap/jdk17-seg-analytics-default.txt.gz" >/dev/null 2>&1

t_begin "export: the tables the docs list are the files export writes"
run export "$S" --format=csv -o "$W/csv"
expect_rc 0
(cd "$W/csv" && ls -A) >"$W/files"
sed -n 's/\.csv$//p' "$W/files" | LC_ALL=C sort >"$W/written"
other=$(grep -v '\.csv$' "$W/files")
[ -z "$other" ] || t_fail "export left files that are not tables: $other"
n=$(wc -l <"$W/written" | tr -d ' ')
[ "$n" -ge 10 ] || t_fail "export wrote only $n tables: $(cat "$W/files")"

# same_set WHERE FILE: the names in FILE are the tables written.
same_set() {
	LC_ALL=C sort -u "$2" >"$2.s"
	for x in $(LC_ALL=C comm -23 "$W/written" "$2.s"); do
		t_fail "table $x.csv is written by heapsift export but not listed in $1"
	done
	for x in $(LC_ALL=C comm -13 "$W/written" "$2.s"); do
		t_fail "table $x is listed in $1 but heapsift export writes no $x.csv"
	done
}
# tables: the first list "recordings, a, b, ..." in the text on stdin
tables() {
	tr '\n' ' ' | grep -oE 'recordings(, *(and )?[a-z_]+)+' | head -n 1 |
		sed 's/, *\(and \)\{0,1\}/,/g' | tr ',' '\n'
}

# export --help: the list of tables it writes
help export >/dev/null
tables <"$W/help.export" >"$W/t.help"
[ -s "$W/t.help" ] || t_fail "no list of tables (recordings, ...) in heapsift export --help"
same_set "'heapsift export --help'" "$W/t.help"

# the man page: the list in the export entry
grep '^CMD export	' "$W/man.txt" | cut -f2- | tables >"$W/t.man"
[ -s "$W/t.man" ] || t_fail "no list of tables (recordings, ...) in the man page's export entry"
same_set "docs/heapsift.1 (export)" "$W/t.man"

# docs/export.md: the rows of the table under the export heading, and
# the number of tables its text spells out
sed -n '/^## `heapsift export/,/^## /p' "$DOCS/export.md" >"$W/export.md"
sed -n 's/^| `\([a-z_]*\)` |.*/\1/p' "$W/export.md" >"$W/t.md"
[ -s "$W/t.md" ] || t_fail "no table rows under the export heading of docs/export.md"
same_set "docs/export.md" "$W/t.md"
word=$(sed -n 's/^Writes \([a-z-]*\) tables.*/\1/p' "$W/export.md")
i=0
for w in zero one two three four five six seven eight nine ten eleven twelve \
	thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty; do
	[ "$w" = "$word" ] && break
	i=$((i + 1))
done
[ "$i" = "$n" ] ||
	t_fail "docs/export.md says 'Writes ${word:-(no number)} tables', heapsift export writes $n"
rm -rf "$W/csv"
t_end

# --- the sample kinds ------------------------------------------------------
# The truth: the kinds top's usage error names, each of which top must
# then accept.  The man page's --kind item lists them (the parentheses
# say what each is), as does every filter command's --help.
t_begin "--kind: the man page and --help list the kinds the program takes"
run top "$S" --kind=no-such-kind
expect_rc 2
printf '%s\n' "$err" | sed -n "s/.*--kind: 'no-such-kind' is not \(.*\)$/\1/p" |
	sed 's/ or /, /; s/, */\n/g' | LC_ALL=C sort -u | grep . >"$W/kinds"
[ -s "$W/kinds" ] || t_fail "no list of kinds in top's usage error: $err"
for k in $(cat "$W/kinds"); do
	run top "$S" --kind="$k"
	[ "$rc" = 0 ] || t_fail "top --kind=$k: exit status $rc ($err), though the usage error lists $k"
done
# the --kind item of FILTERS without its parentheses, from "Which
# samples:" to the first full stop
grep '^FILTERS	' "$W/man.txt" | cut -f2- | tr '\n' ' ' | sed 's/([^)]*)//g' |
	sed -n 's/.*--kind=kind *Which samples: *\([^.]*\)\..*/\1/p' |
	sed 's/ or /, /g; s/ and /, /g' | tr ',' '\n' | tr -d ' ' |
	LC_ALL=C sort -u | grep . >"$W/kinds.man"
[ -s "$W/kinds.man" ] || t_fail "no '--kind=kind Which samples: ...' item in the man page's FILTERS"
for k in $(LC_ALL=C comm -23 "$W/kinds" "$W/kinds.man"); do
	t_fail "kind '$k' is taken by --kind but not listed under --kind in the man page's FILTERS"
done
for k in $(LC_ALL=C comm -13 "$W/kinds" "$W/kinds.man"); do
	t_fail "kind '$k' is listed under --kind in the man page's FILTERS, but --kind does not take it"
done
for c in top tree timeline survivors; do
	help "$c" || continue
	# the --kind=KIND line and its continuation lines, parentheses out
	awk '/--kind=KIND/ { on = 1; sub(/.*--kind=KIND/, ""); print; next }
		on && /^      --/ { exit }
		on { print }' "$W/help.$c" | tr '\n' ' ' | sed 's/([^)]*)//g' |
		tr ',' '\n' | tr -d ' ' | LC_ALL=C sort -u | grep . >"$W/kinds.$c"
	for k in $(LC_ALL=C comm -23 "$W/kinds" "$W/kinds.$c"); do
		t_fail "kind '$k' is taken by --kind but not listed under --kind=KIND in 'heapsift $c --help'"
	done
	for k in $(LC_ALL=C comm -13 "$W/kinds" "$W/kinds.$c"); do
		t_fail "'heapsift $c --help' lists a kind '$k' under --kind=KIND that --kind does not take"
	done
done
t_end

t_begin "the man page renders without roff warnings"
if ! command -v groff >/dev/null 2>&1; then
	t_skip "groff is not installed"
else
	w=$(groff -ww -z -man "$MAN" 2>&1)
	[ -z "$w" ] || t_fail "groff -ww -z -man docs/heapsift.1: $w"
	t_end
fi

t_summary
