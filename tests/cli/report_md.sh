#!/bin/sh
# heapsift report --format=md read by a real renderer (issue 41, "a
# report that pastes cleanly"), and the commands every format prints.
#
# tests/report/md_names.py makes a bundle whose members, stack classes
# and thread names carry Markdown's special characters in every place a
# name goes (a heading, a paragraph's start, a list item's start, the
# middle of a line, a table cell): pandoc renders the report (-f gfm, as
# GitHub and GitLab read it, and -f commonmark), and each name must come
# out as md_names.py wrote it by hand, with no element a name made.  The
# raw file must have no backslash a reader would see for nothing: none
# before '.', '-' or '!' after a letter, none in a plain name.  pandoc is
# installed where missing and this machine allows it; the cases that need
# it skip visibly otherwise.
#
# The "More:" commands must name what the case's reader has: the inputs
# as given (quoted for the shell), or the store given, never the cache
# store the report was made in; a printed command must run.
. "$(dirname "$0")/lib.sh"
W=$T/work
HERE=$(cd "$(dirname "$0")/.." && pwd)
NAMES="$HERE/report/md_names.py"
# the cache store goes here, never into the working directory
export XDG_CACHE_HOME="$W/cache"

python3 "$NAMES" make "$W" || {
	t_begin 0_prerequisites
	t_fail "md_names.py make failed"
	t_end
	t_summary
}
B=$W/case-77.tar.gz

# run_printed COMMAND: a command the report printed, as a reader pastes
# it into sh, with "heapsift" the binary under test: sets $out, $err, $rc
run_printed() {
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C HS_BIN="$HEAPSIFT" sh -c \
		'heapsift() { "$HS_BIN" "$@"; }; eval "$1"' sh "$1" \
		>"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# command_of REPORT.json RULE SUBJECT: the command of that finding
command_of() {
	python3 - "$@" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1], encoding="utf-8"))
c = [f["command"] for f in rep["findings"]
     if f["rule"] == sys.argv[2] and f["subject"] == sys.argv[3]]
print(c[0] if c else "")
PY
}

# operands_are FILE WORDS: every command line in FILE (one a line, the
# view's name first) names exactly WORDS as its operands
operands_are() {
	[ -s "$1" ] || t_fail "no command in $1"
	while IFS= read -r _c; do
		case $_c in
		"$2 "* | "$2") ;;
		*) t_fail "a command names '${_c%% --*}', not '$2'" ;;
		esac
	done <"$1"
}

run report --format=md "$B"
printf '%s\n' "$out" >"$W/r.md"
[ "$rc" = 0 ] || [ "$rc" = 3 ] || echo "report --format=md $B: status $rc: $err"

# rendered FLAVOR: the report rendered by pandoc as FLAVOR (gfm,
# commonmark), every name checked in the HTML by md_names.py
rendered() {
	if ! have_pandoc; then
		t_skip "$NOPANDOC"
		return
	fi
	pandoc --wrap=none -f "$1" -t html "$W/r.md" >"$W/$1.html" 2>"$W/pandoc.err" ||
		t_fail "pandoc: $(cat "$W/pandoc.err")"
	python3 "$NAMES" check "$W/$1.html" "$1" "$B" 2>"$W/bad" ||
		t_fail "$(cat "$W/bad")"
	t_end
}

t_begin report_md_names_render_as_written_in_gfm
rendered gfm

t_begin report_md_names_render_as_written_in_commonmark
rendered commonmark

t_begin report_md_title_keeps_a_trailing_hash
# "# heapsift report: x_y*z #": a closing sequence would take the '#' off
run report --format=md "$W/x_y*z #"
printf '%s\n' "$out" >"$W/t.md"
if ! have_pandoc; then
	t_skip "$NOPANDOC"
else
	for mode in gfm commonmark; do
		pandoc --wrap=none -f $mode -t html "$W/t.md" >"$W/t.html" 2>"$W/pandoc.err" ||
			t_fail "pandoc: $(cat "$W/pandoc.err")"
		python3 "$NAMES" check-title "$W/t.html" $mode 2>"$W/bad" ||
			t_fail "$mode: $(cat "$W/bad")"
	done
	t_end
fi

t_begin report_md_raw_has_no_needless_backslash
# no backslash before '.' or '-' inside a word, nor before '!' after one
# (an '!' before an escaped '[' excepted: "![" would be an image); the
# code spans (the commands, whose backslashes are their regexes') aside
bad=$(grep -v '^More: `' "$W/r.md" |
	grep -nE '[[:alnum:]_]\\[.-][[:alnum:]_]|[[:alnum:]_]\\!([^\\]|$)')
[ -z "$bad" ] || t_fail "needless backslashes: $(printf '%s\n' "$bad" | head -5)"
# plain names as they are, in the title, the inventory, the JVM line
grep -qx '# heapsift report: case-77.tar.gz' "$W/r.md" ||
	t_fail "the title: $(sed -n 2p "$W/r.md")"
grep -qF "| $B!case-77/app-1.0.jfr |" "$W/r.md" ||
	t_fail "the inventory does not name $B!case-77/app-1.0.jfr as it is"
grep -qF "($B!case-77/x!.jfr)" "$W/r.md" ||
	t_fail "the JVM line does not name $B!case-77/x!.jfr as it is"
grep -q '^| [0-9]* | [a-z-]* | large-arrays | com.example.App.make:3 |' "$W/r.md" ||
	t_fail "the site com.example.App.make:3 is not in the table as it is"
grep -q '^- com.example.App.make:3: 3 objects' "$W/r.md" ||
	t_fail "the site com.example.App.make:3 is not at a list item's start as it is"
# and what must stay escaped is: the '*' in a_b*c[d]e, not its '_'
grep -qF '!case-77/a_b\*c\[d\]e.jfr' "$W/r.md" ||
	t_fail "a_b*c[d]e.jfr not as a_b\\*c\\[d\\]e.jfr: $(grep -F 'a_b' "$W/r.md" | head -2)"
t_end

t_begin report_more_commands_name_the_bundle_in_every_format
# md: every More: line, the baseline's included, names the bundle as
# given, and none the cache store
sed -n 's/^More: `heapsift [a-z]* \(.*\)`$/\1/p' "$W/r.md" >"$W/ops"
operands_are "$W/ops" "$B"
grep '^More:' "$W/r.md" | grep -qF "$XDG_CACHE_HOME" &&
	t_fail "md: a command names the cache store"
run report "$B"
printf '%s\n' "$out" | sed -n 's/^   more: heapsift [a-z]* //p' >"$W/ops"
operands_are "$W/ops" "$B"
run report --format=html "$B"
printf '%s\n' "$out" | sed -n 's/.*<p>More: <code>heapsift [a-z]* \([^<]*\)<.*/\1/p' >"$W/ops"
operands_are "$W/ops" "$B"
run report --format=json "$B"
printf '%s\n' "$out" >"$W/r.json"
python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["command"]:
        print(f["command"].split(" ", 2)[2])
' "$W/r.json" >"$W/ops"
operands_are "$W/ops" "$B"
# the store is still named where the report says what it was made from
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["store"]; sys.exit(not s.startswith(sys.argv[2]))' \
	"$W/r.json" "$XDG_CACHE_HOME/heapsift/" || t_fail "json: store is not the cache store"
# a command pasted as printed runs, on the report's cache store (the
# recording numbers are the report's), and shows the finding's site
cmd=$(command_of "$W/r.json" large-arrays com.example.App.make:3)
case $cmd in
"heapsift top $B --kind=outside --by=site --recording="[0-9]*) ;;
*) t_fail "large-arrays command: $cmd" ;;
esac
grep -qxF "More: \`$cmd\`" "$W/r.md" || t_fail "md does not print $cmd"
run_printed "$cmd"
expect_rc 0
expect_err "heapsift top: using $XDG_CACHE_HOME/heapsift/"
printf '%s\n' "$out" | grep -qF com.example.App.make:3 ||
	t_fail "$cmd: no com.example.App.make:3 in $out"
t_end

t_begin report_more_commands_quote_a_path_for_the_shell
# a space and a quote: single quotes, the quote as '\''
Q="$W/it's a case.tar.gz"
cp "$B" "$Q"
qw="'$W/it'\\''s a case.tar.gz'"
run report --format=json "$Q"
printf '%s\n' "$out" >"$W/q.json"
cmd=$(command_of "$W/q.json" large-arrays com.example.App.make:3)
case $cmd in
"heapsift top $qw --kind=outside --by=site --recording="[0-9]*) ;;
*) t_fail "large-arrays command: $cmd (want heapsift top $qw ...)" ;;
esac
run report --format=md "$Q"
printf '%s\n' "$out" | grep -qxF "More: \`$cmd\`" || t_fail "md does not print $cmd"
run_printed "$cmd"
expect_rc 0
expect_err "heapsift top: using $XDG_CACHE_HOME/heapsift/"
printf '%s\n' "$out" | grep -qF com.example.App.make:3 ||
	t_fail "$cmd: no com.example.App.make:3 in $out"
rm -f "$Q"
t_end

t_begin report_more_commands_of_a_store_name_the_store
run import -o "$W/c.hsdb" "$B"
run report --format=md "$W/c.hsdb"
printf '%s\n' "$out" | sed -n 's/^More: `heapsift [a-z]* \(.*\)`$/\1/p' >"$W/ops"
operands_are "$W/ops" "$W/c.hsdb"
t_end

t_begin report_more_commands_of_two_inputs_name_both
python3 "$HERE/jfr/make_jfr.py" "$W/one.jfr" 1000000 2000000 50000000
python3 "$HERE/jfr/make_jfr.py" --thread other "$W/two.jfr" 1000000 2000000 50000000
run report --format=json --base=0 "$W/one.jfr" "$W/two.jfr"
printf '%s\n' "$out" >"$W/two.json"
python3 - "$W/two.json" "$W/one.jfr $W/two.jfr" >"$W/bad" 2>&1 <<'PY' || t_fail "$(cat "$W/bad")"
import json, sys
rep = json.load(open(sys.argv[1]))
ops = sys.argv[2]
cmds = [f["command"] for f in rep["findings"] if f["command"]]
assert cmds, "no command"
for c in cmds:
    assert c.split(" ", 2)[2].startswith(ops + " "), c
# heapsift diff reads one operand a side: the two inputs would be two
# sides, so it names the cache store the report was made in
d = rep["baseline"]["command"]
assert d.startswith("heapsift diff %s --base-recording=0 " % rep["store"]), d
PY
cmd=$(python3 -c 'import json,sys; print([f["command"] for f in json.load(open(sys.argv[1]))["findings"] if f["command"]][0])' "$W/two.json")
run_printed "$cmd"
expect_rc 0
expect_err "using $XDG_CACHE_HOME/heapsift/"
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseline"]["command"])' "$W/two.json")
run_printed "$cmd"
expect_rc 0
t_end

t_begin report_more_diff_command_names_a_single_bundle
run report --format=md --base=0 "$B"
cmd=$(printf '%s\n' "$out" | sed -n '/^## Compared with the baseline/,$s/^More: `\(heapsift diff .*\)`$/\1/p')
case $cmd in
"heapsift diff $B --base-recording=0 --recording=1 --by site") ;;
*) t_fail "the baseline's command: '$cmd'" ;;
esac
run_printed "$cmd"
expect_rc 0
t_end

t_begin report_names_no_cache_store_from_inputs
# the cache store's path is the analyst's: a report made from inputs
# names the inputs, never it (JSON's "store" keeps it for tools); one
# made from a store names that store
for f in text md html; do
	run report --format=$f "$B"
	case $out in
	*"$XDG_CACHE_HOME"*) t_fail "--format=$f names the cache store: $(printf '%s\n' "$out" | grep -F "$XDG_CACHE_HOME" | head -n 2)" ;;
	esac
	case $out in
	*case-77.tar.gz*) ;;
	*) t_fail "--format=$f does not name the bundle" ;;
	esac
done
run report --format=json "$B"
printf '%s\n' "$out" | grep -qF "\"store\": \"$XDG_CACHE_HOME/heapsift/" ||
	t_fail "JSON's store is not the cache store"
"$HEAPSIFT" import -o "$W/named.hsdb" "$B" >/dev/null 2>&1
run report --format=md "$W/named.hsdb"
printf '%s\n' "$out" | grep -qF "from the store \`$W/named.hsdb\`" ||
	t_fail "a store given is not named: $(printf '%s\n' "$out" | head -n 5)"
t_end

t_summary
