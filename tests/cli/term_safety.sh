#!/bin/sh
# Terminal and spreadsheet safety (issue 16).  Class, method and thread
# names come from the file.  fixtures/jfr/names/jdk17-evil-names.jfr (made by
# fixtures/jfr/src/make-evil-names.sh from EvilNames.java) has a thread
# named ESC "[31mevil" BEL U+009B ESC "]0;pwned" BEL <lone surrogate>
# "end", a class "EvilNames$Pay" ESC "load" U+009B, a method "all" ESC
# "oc" U+202E "ate", and four threads named like spreadsheet formulas.
# None of it may reach a terminal raw (no C0 or C1 control, no bidi
# override, no invalid UTF-8) from any CLI view, the report or the
# browser; export's CSV must not hand a spreadsheet a formula.  And the
# browser in odd terminals: TERM=dumb, TERM unset, 1x1 and 10x3, stdin
# not a terminal, resize storms during a long query.
. "$(dirname "$0")/lib.sh"
E=$HS_FIXTURES/jfr/names/jdk17-evil-names.jfr
W=$T/work
S=$W/evil.hsdb
# the names, as EvilNames.java writes them (the JDK keeps them as they
# are: jfr print shows them), with heapsift's escapes (docs/export.md)
THREAD_ESC='\x1b[31mevil\x07\xc2\x9b\x1b]0;pwned\x07'
CLASS_ESC='EvilNames$Pay\x1bload\xc2\x9b'
METHOD_ESC='all\x1boc\xe2\x80\xaeate'

# clean FILE WHAT: FILE holds nothing a terminal would act on: no C0
# control but LF, CR (CSV line ends) and TAB, no DEL, no C1 control, no
# bidi override or isolate, only valid UTF-8 (no surrogates)
cat >"$W/clean.py" <<'EOF'
import re, sys
b = open(sys.argv[1], "rb").read()
m = re.search(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", b)
if m:
    sys.exit("raw control byte 0x%02x at %d: %r" % (b[m.start()], m.start(), b[max(0, m.start() - 20):m.start() + 20]))
try:
    s = b.decode("utf-8")  # strict: no surrogates, no stray bytes
except UnicodeDecodeError as e:
    sys.exit("invalid UTF-8 at %d: %r" % (e.start, b[max(0, e.start - 20):e.start + 20]))
m = re.search("[\u0080-\u009f\u202a-\u202e\u2066-\u2069]", s)
if m:
    sys.exit("raw U+%04X at character %d: %r" % (ord(m.group()), m.start(), s[max(0, m.start() - 20):m.start() + 20]))
EOF
clean() {
	why=$(python3 "$W/clean.py" "$1" 2>&1) || t_fail "$2: $why"
}

run import -o "$S" "$E"
expect_rc 0
# the JDK's counts (fixtures/README.md, from jfr summary): 480
# ObjectAllocationSample and 1 OldObjectSample events
expect_out_line "$S: 1 recording (1 new), $((480 + 1)) samples"

t_begin every_cli_view_escapes_the_names
n=0
for cmd in "info $S" "info --check $S" "top $S --by thread" "top $S --by class" \
	"top $S --by site" "top $S --by app-site" "top $S --by thread --csv" \
	"top $S --by site --csv" "tree $S" "tree $S --inverted" "tree $S --csv" \
	"tree $S --paths" "timeline $S" "timeline $S --csv" "survivors $S" \
	"survivors $S --leaks" "survivors $S --by thread" "diff $S $S --by thread" \
	"diff $S $S --by site" "diff $S $S --tree" "diff $S $S --by class --csv" \
	"report $S" "report $S --format=md" "report $S --format=json" \
	"report $S --format=html" "dump $E" "dump --events=alloc $E" \
	"export $S --format=folded" "export $S --format=speedscope" \
	"export $S --format=svg" "scan $E"; do
	# shellcheck disable=SC2086
	run $cmd
	n=$((n + 1))
	case $rc in
	0 | 1 | 2 | 3) ;;
	*) t_fail "$cmd: exit $rc" ;;
	esac
	clean "$T/out" "$cmd: stdout"
	clean "$T/err" "$cmd: stderr"
done
# and the names are there, escaped, not dropped
run top "$S" --by thread
printf '%s\n' "$out" | grep -qF "$THREAD_ESC" || t_fail "top --by thread lacks $THREAD_ESC: $out"
run top "$S" --by site
printf '%s\n' "$out" | grep -qF "EvilNames.$METHOD_ESC" || t_fail "top --by site lacks $METHOD_ESC: $out"
printf '%s\n' "$out" | grep -qF "$CLASS_ESC.<init>" || t_fail "top --by site lacks $CLASS_ESC: $out"
run report "$S"
printf '%s\n' "$out" | grep -qF "$THREAD_ESC" || t_fail "the report lacks $THREAD_ESC"
echo "  ($n commands)"
t_end

t_begin report_json_escapes_c1_controls
run report "$S" --format=json
# U+009B as \u009b (JSON's own escape, lossless), ESC as \u001b
printf '%s\n' "$out" | grep -qF 'EvilNames$Pay\u001bload\u009b' ||
	t_fail "the JSON report does not escape the class name's ESC and U+009B"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" ||
	t_fail "the JSON report is not JSON"
t_end

t_begin a_hostile_recording_name_is_escaped_too
# the recording's source is the input's name: one with escapes in it
cp "$E" "$W/$(printf 'rec\033[31m\007.jfr')"
run import -o "$W/src.hsdb" "$W/$(printf 'rec\033[31m\007.jfr')"
expect_rc 0
clean "$T/out" "import's summary"
for cmd in info "top --by recording" report; do
	# shellcheck disable=SC2086
	run $cmd "$W/src.hsdb"
	clean "$T/out" "$cmd with a hostile source name"
	clean "$T/err" "$cmd with a hostile source name: stderr"
done
run info "$W/src.hsdb"
printf '%s\n' "$out" | grep -qF 'rec\x1b[31m\x07.jfr' || t_fail "info does not show the escaped source: $out"
t_end

# --- spreadsheets ---------------------------------------------------------------

# Every text cell of every table: none begins with = + - @ unless it is
# a number (then it is a number column's); the formula threads' names
# are there with a ' in front; and negative numbers stay numbers.
t_begin export_csv_never_hands_a_spreadsheet_a_formula
for layout in tables fleet; do
	run export "$S" --format=csv --layout=$layout -o "$W/csv-$layout"
	expect_rc 0
done
python3 - "$W/csv-tables" "$W/csv-fleet" >"$T/why" 2>&1 <<'EOF' || t_fail "$(cat "$T/why")"
import csv, glob, os, re, sys
bad = []
num = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$")
names = {}
for d in sys.argv[1:]:
    for f in glob.glob(os.path.join(d, "**", "*.csv"), recursive=True):
        with open(f, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        for r in rows[1:]:
            for i, c in enumerate(r):
                if c[:1] in ("=", "+", "-", "@") and not num.match(c):
                    bad.append("%s: %s = %r" % (os.path.basename(f), rows[0][i], c))
        if os.path.basename(f) == "threads.csv":
            col = rows[0].index("name")
            names[d] = set(r[col] for r in rows[1:])
# EvilNames.java's formula threads, each with a ' in front
want = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-3-4", "@SUM(A1)"]
for w in want:
    if "'" + w not in names.get(sys.argv[1], set()):
        bad.append("threads.csv lacks %r" % ("'" + w))
# a negative number stays a number: the fleet samples carry none here,
# so check the guard does not touch numbers with a table that has one
if bad:
    print("\n".join(bad[:10]))
    sys.exit(1)
EOF
# the fleet layout has the thread name on every sample row
grep -qF "\"'-3-4\"" "$W"/csv-fleet/recording=*/fleet_samples.csv ||
	t_fail "fleet_samples.csv lacks the guarded thread name \"'-3-4\""
# numbers keep their sign: a frame's line is -1 where the JVM gives
# none (docs/export.md), as for the interpreted frames here
grep -q '^[0-9]*,[0-9]*,-1,' "$W/csv-tables/frames.csv" ||
	t_fail "frames.csv lost its negative numbers: $(head -3 "$W/csv-tables/frames.csv")"
grep -q "'-1" "$W"/csv-tables/*.csv && t_fail "a number got a ' in front"
t_end

# Every view's --csv the same way, through the one writer (buf_add_csv):
# top, tree, survivors and diff by thread show the formula threads'
# names with a ' in front; and scan --csv guards member names (a tar
# of members named like formulas, the issue's own examples).
t_begin views_and_scan_csv_never_hand_a_spreadsheet_a_formula
for v in "top --by=thread" "tree --thread=." "survivors --by=thread" \
	"diff $S --by=thread"; do
	# shellcheck disable=SC2086
	run $v "$S" --csv
	printf '%s\n' "$out" >"$T/view.csv"
	python3 - "$T/view.csv" "$v" >"$T/why" 2>&1 <<'EOF2' || t_fail "$(cat "$T/why")"
import csv, re, sys
num = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?%?$")
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
cells = [c for r in rows[1:] for c in r]
bad = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not num.match(c)]
if bad:
    print("%s: unguarded %r" % (sys.argv[2], bad[:4]))
    sys.exit(1)
if sys.argv[2].startswith("top") and not any(c.startswith("'=HYPERLINK") for c in cells):
    print("%s: no guarded formula thread in %d cells" % (sys.argv[2], len(cells)))
    sys.exit(1)
EOF2
done
mkdir -p "$W/formulas"
for n in '=HYPERLINK("http:__evil_","click").jfr' '+cmd|calc' '@SUM(1)' '-2+3'; do
	printf 'x' >"$W/formulas/$n"
done
(cd "$W/formulas" && tar -cf ../formulas.tar -- *) || t_fail "cannot make the tar"
run scan --csv "$W/formulas.tar"
for n in "\"'=HYPERLINK(\"\"http:__evil_\"\",\"\"click\"\").jfr\"" "\"'+cmd|calc\"" \
	"\"'@SUM(1)\"" "\"'-2+3\""; do
	printf '%s\n' "$out" | grep -qF -- "$n" || t_fail "scan --csv lacks $n: $out"
done
t_end

# --- the browser ------------------------------------------------------------------

if command -v tmux >/dev/null 2>&1; then
	. "$(dirname "$0")/../browse/lib.sh"
	have_tmux=1
else
	have_tmux=0
fi
NOTMUX="tmux is not installed (make test installs it through build-aux/deps.sh)"

# Every view on the evil store, with NO_COLOR so that the browser draws
# no red: a raw ESC [31m from the thread's name would make tmux draw in
# red (capture-pane -e shows it) and hide "[31m"; drawn safely, the text
# "[31mevil" is on the screen and nothing is red.
t_begin browser_never_draws_a_name_raw
if [ $have_tmux = 0 ]; then
	t_skip "$NOTMUX"
else
	mkdir -p "$T/home"
	b_start 120 30 TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 NO_COLOR=1 -- "$S"
	for step in "2" "c c" "c" "3 E" "4" "5" "6" "1"; do
		# shellcheck disable=SC2086
		b_keys $step
		$B_TMUX capture-pane -p -e -t browse >"$W/pane-e"
		b_capture >"$W/pane"
		if grep -q "$(printf '\033')\[31m" "$W/pane-e"; then
			t_fail "after keys '$step': red on the screen, a raw escape: $(grep -n "$(printf '\033')\[31m" "$W/pane" | head -3)"
		fi
		clean "$W/pane" "the screen after keys '$step'"
	done
	# the groupings go round (class, site, app-site, thread, recording):
	# one of them lists the thread
	b_keys 2
	i=0
	while ! b_capture | grep -qF '?[31mevil' && [ $i -lt 5 ]; do
		b_keys c
		i=$((i + 1))
	done
	b_capture | grep -qF '?[31mevil' || t_fail "the thread's name is not on the screen, drawn safely: $(b_capture | head -8)"
	b_quit
	t_end
fi

t_begin browser_in_odd_terminals
if [ $have_tmux = 0 ]; then
	t_skip "$NOTMUX"
else
	# stdin not a terminal: a usage error, at once
	run browse "$S"
	expect_rc 2
	expect_err "needs a terminal"
	# TERM=dumb, unset, unknown: a clear message, exit 1, never a hang
	# or curses' own exit
	for term in TERM=dumb "" TERM=no-such-terminal; do
		rm -f "$W/odd.rc" "$W/odd.err"
		$B_TMUX kill-server >/dev/null 2>&1
		$B_TMUX new-session -d -s odd -x 80 -y 24 \
			"env -i PATH='$PATH' HOME='$T/home' $term '$HEAPSIFT' browse '$S' \
			2>'$W/odd.err'; echo \$? >'$W/odd.rc'"
		i=0
		while [ ! -s "$W/odd.rc" ] && [ $i -lt 500 ]; do
			sleep 0.02
			i=$((i + 1))
		done
		[ "$(cat "$W/odd.rc" 2>/dev/null)" = 1 ] || t_fail "${term:-TERM unset}: exit '$(cat "$W/odd.rc" 2>/dev/null)' (a hang?)"
		case $term in
		TERM=dumb) want="cannot place the cursor" ;;
		"") want="TERM is not set" ;;
		*) want="not one curses knows" ;;
		esac
		grep -q "heapsift browse: error: .*$want" "$W/odd.err" ||
			t_fail "${term:-TERM unset}: stderr: $(cat "$W/odd.err")"
	done
	$B_TMUX kill-server >/dev/null 2>&1
	# 1x1 and 10x3, keys in every view, then back: a working screen
	b_start 80 24 TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 -- "$S"
	for size in "10 3" "1 1" "10 3"; do
		# shellcheck disable=SC2086
		b_resize $size
		b_keys 1 2 j Enter Escape 3 E 4 5 6 7 "?" Escape
		$B_TMUX has-session -t browse 2>/dev/null || t_fail "the browser died at $size"
	done
	b_resize 80 24
	b_keys 2
	b_capture | grep -q "EST BYTES" || t_fail "no allocations after the small sizes: $(b_capture | head -5)"
	# a storm of resizes while the views' queries run: keys and sizes
	# sent together, without waiting
	i=0
	while [ $i -lt 40 ]; do
		$B_TMUX resize-window -t browse -x $((10 + i * 7 % 190)) -y $((3 + i * 5 % 57))
		$B_TMUX send-keys -t browse $((i % 7 + 1))
		i=$((i + 1))
	done
	# the storm is over when the browser stops stamping keys
	prev=-1 i=0
	while [ "$(wc -l <"$STAMP")" != "$prev" ] && [ $i -lt 100 ]; do
		prev=$(wc -l <"$STAMP")
		sleep 0.2
		i=$((i + 1))
	done
	b_sent=$(wc -l <"$STAMP")
	b_resize 80 24
	b_keys 1
	i=0
	while ! b_capture | grep -q "Overview" && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	b_capture | grep -q "Overview" || t_fail "no overview after the storm: $(b_capture | head -5)"
	b_quit
	t_end
fi

t_summary
