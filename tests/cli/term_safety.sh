#!/bin/sh
# Terminal and spreadsheet safety (issue 16).  Class, method and thread
# names come from the file.  fixtures/jfr/names/jdk17-evil-names.jfr (made by
# fixtures/jfr/src/make-evil-names.sh from EvilNames.java) has a thread
# named ESC "[31mevil" BEL U+009B ESC "]0;pwned" BEL <lone surrogate>
# "end", a class "EvilNames$Pay" ESC "load" U+009B, a method "all" ESC
# "oc" U+202E "ate", and four threads named like spreadsheet formulas.
# None of it may reach a terminal raw (no C0 or C1 control, no bidi
# control, no line or paragraph separator, no invalid UTF-8) from any
# CLI view, the report or the browser; export's CSV must not hand a
# spreadsheet a formula.  A copy of the recording with names respelt
# (same lengths) carries U+2028, U+2029 and U+200F too, and paths and
# arguments with escapes in them are echoed escaped (issue 39).  And the
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
# bidi control (Unicode's Bidi_Control: ALM, LRM, RLM, the embeddings,
# overrides and isolates), no line or paragraph separator (U+2028,
# U+2029), only valid UTF-8 (no surrogates)
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
m = re.search("[\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]", s)
if m:
    sys.exit("raw U+%04X at character %d: %r" % (ord(m.group()), m.start(), s[max(0, m.start() - 20):m.start() + 20]))
EOF
clean() {
	why=$(python3 "$W/clean.py" "$1" 2>&1) || t_fail "$2: $why"
}
# shown TEXT: TEXT as cat -v shows it, cut: a failure's message must not
# hand the terminal the escapes it reports
shown() {
	printf '%s' "$1" | cat -v | head -c 600
}

run import -o "$S" "$E"
expect_rc 0
# the JDK's counts (fixtures/README.md, from jfr summary): 480
# ObjectAllocationSample and 1 OldObjectSample events
expect_out_line "$S: 1 recording (1 new), $((480 + 1)) samples"

# every_view STORE RECORDING: every CLI view of them, each output clean;
# n counts the commands
every_view() {
	for cmd in "info $1" "info --check $1" "top $1 --by thread" "top $1 --by class" \
		"top $1 --by site" "top $1 --by app-site" "top $1 --by thread --csv" \
		"top $1 --by site --csv" "tree $1" "tree $1 --inverted" "tree $1 --csv" \
		"tree $1 --paths" "timeline $1" "timeline $1 --csv" "survivors $1" \
		"survivors $1 --leaks" "survivors $1 --by thread" \
		"survivors $1 --by thread --csv" "diff $1 $1 --by thread" \
		"diff $1 $1 --by site" "diff $1 $1 --tree" "diff $1 $1 --by class --csv" \
		"report $1" "report $1 --format=md" "report $1 --format=json" \
		"report $1 --format=html" "dump $2" "dump --events=alloc $2" \
		"export $1 --format=folded" "export $1 --format=speedscope" \
		"export $1 --format=svg" "scan $2"; do
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
}

t_begin every_cli_view_escapes_the_names
n=0
every_view "$S" "$E"
# and the names are there, escaped, not dropped (as recorded: top's
# normalisation would write the digits of the escape sequence as N)
run top "$S" --by thread --no-normalize
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

# The evil recording with three names respelt, byte for byte of the same
# length (JFR's UTF-8 strings carry their length, and no checksum), as
# make-evil-names.sh respells class files: the class EvilNames$Pa U+2028
# ESC "l" U+2029, the method "a" U+2028 "oc" U+2029 "ate", and the thread
# ESC "[31me" U+2029 BEL U+009B ESC "]0;pw" U+200F (RLM) BEL ...
SEP=$W/sep.jfr
python3 - "$E" "$SEP" <<'EOF' || t_fail "cannot respell $E"
import sys
d = open(sys.argv[1], "rb").read()
for a, b in [(b"Pay\x1bload\xc2\x9b", b"Pa\xe2\x80\xa8\x1bl\xe2\x80\xa9"),
             (b"all\x1boc\xe2\x80\xaeate", b"a\xe2\x80\xa8oc\xe2\x80\xa9ate"),
             (b"[31mevil", b"[31me\xe2\x80\xa9"), (b"pwned", b"pw\xe2\x80\x8f")]:
    assert len(a) == len(b) and a in d, a
    d = d.replace(a, b)
open(sys.argv[2], "wb").write(d)
EOF
SEPS=$W/sep.hsdb
run import -o "$SEPS" "$SEP"
expect_rc 0
expect_out_line "$SEPS: 1 recording (1 new), $((480 + 1)) samples"
# heapsift's spelling of the respelt names (docs/inputs.md, "Names on a
# terminal"): each byte of a refused code point as \xNN
SEP_CLASS='EvilNames$Pa\xe2\x80\xa8\x1bl\xe2\x80\xa9'
SEP_METHOD='EvilNames.a\xe2\x80\xa8oc\xe2\x80\xa9ate'
SEP_THREAD='\x1b[31me\xe2\x80\xa9\x07\xc2\x9b\x1b]0;pw\xe2\x80\x8f\x07'

# U+2028 and U+2029 end a line (of a listing, of JavaScript) and U+200F
# reorders one: escaped like the other controls in every view, the same
# text \xe2\x80\xa8 in folded (where a newline is \x0a) and speedscope
# (folded's names), and \u2028 in the JSON report
t_begin separators_and_bidi_marks_are_escaped
n=0
every_view "$SEPS" "$SEP"
for v in "top --by site" tree report dump "export --format=folded" \
	"report --format=html"; do
	case $v in
	dump) run dump "$SEP" ;;
	# shellcheck disable=SC2086
	*) run $v "$SEPS" ;;
	esac
	printf '%s\n' "$out" | grep -qF -- "$SEP_METHOD" || t_fail "$v lacks $SEP_METHOD"
	printf '%s\n' "$out" | grep -qF -- "$SEP_CLASS" || t_fail "$v lacks $SEP_CLASS"
done
# (top with the names as recorded: its default normalisation would
# write the escape sequence's digits as N, docs/export.md)
for v in "top --by thread --no-normalize" report; do
	# shellcheck disable=SC2086
	run $v "$SEPS"
	printf '%s\n' "$out" | grep -qF -- "$SEP_THREAD" || t_fail "$v lacks $SEP_THREAD: $(shown "$out")"
done
run dump "$SEP"
printf '%s\n' "$out" | grep -qF -- "$SEP_THREAD" || t_fail "dump lacks $SEP_THREAD"
# folded: one stack a line, the frame whole
run export "$SEPS" --format=folded
printf '%s\n' "$out" | grep -qF -- ";$SEP_CLASS.<init>:20 " ||
	t_fail "folded lacks the frame $SEP_CLASS.<init>:20"
# speedscope: valid JSON whose frame names are folded's, with no U+2028,
# U+2029 or U+200F left even once decoded (so none raw in the file)
run export "$SEPS" --format=speedscope
python3 - "$T/out" "$SEP_METHOD" >"$T/why" 2>&1 <<'EOF' || t_fail "speedscope: $(cat "$T/why")"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
names = [f["name"] for f in doc["shared"]["frames"]]
if not any(n.startswith(sys.argv[2] + ":") for n in names):
    sys.exit("no frame %s:LINE in %r" % (sys.argv[2], names[:8]))
bad = [n for n in names if "\u2028" in n or "\u2029" in n or "\u200f" in n]
if bad:
    sys.exit("separators in %r" % bad[:3])
EOF
# the JSON report keeps the file's spelling, in JSON's own escapes
# (valid JSON, inert JavaScript)
run report "$SEPS" --format=json
printf '%s\n' "$out" | grep -qF 'EvilNames$Pa\u2028\u001bl\u2029' ||
	t_fail "the JSON report does not write the class as EvilNames\$Pa\\u2028\\u001bl\\u2029"
printf '%s\n' "$out" | grep -qF '\u001b]0;pw\u200f\u0007' ||
	t_fail "the JSON report does not write the thread's RLM as \\u200f"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$T/out" ||
	t_fail "the JSON report is not JSON"
echo "  ($n commands)"
t_end

# Paths and arguments are the user's, or a script's that took them from
# a bundle: every message and summary that echoes one escapes it, the
# same way (the issue's: import's summary, info's store line, the usage
# errors of --by and --thread, and their kin).
t_begin paths_and_arguments_are_escaped
X=$(printf 'x\033]0;pwned\007\342\200\250')
XE='x\x1b]0;pwned\x07\xe2\x80\xa8'
A=$W/args
mkdir -p "$A"
cp "$E" "$A/r$X.jfr"
printf 'notes\n' >"$A/notes$X.txt"
run import -o "$A/s$X.hsdb" "$A/r$X.jfr"
expect_rc 0
clean "$T/out" "import: stdout"
expect_out_line "$A/s$XE.hsdb: 1 recording (1 new), $((480 + 1)) samples"
# on the store: ARGS|o or e (stdout, stderr)|the text, escaped by hand
for c in "info|o|store $A/s$XE.hsdb: 1 recording, 481 samples" \
	"top --by $X|e|heapsift top: --by: '$XE' is not class, site" \
	"top --thread=$X(|e|heapsift top: --thread: '$XE(' is not a valid regex" \
	"tree --thread=$X(|e|heapsift tree: --thread: '$XE(' is not a valid regex" \
	"survivors --by $X|e|heapsift survivors: --by: '$XE' is not" \
	"top --kind=$X|e|heapsift top: --kind: '$XE' is not" \
	"top --$X|e|heapsift top: unknown option '--$XE'" \
	"codeheap|e|heapsift codeheap: $A/s$XE.hsdb holds no code-heap" \
	"report -o $A/o$X.md|e|heapsift report: wrote $A/o$XE.md" \
	"report -o $A/notes$X.txt|e|heapsift report: error: $A/notes$XE.txt" \
	"export --format=folded -o $A/notes$X.txt|e|heapsift export: error: $A/notes$XE.txt"; do
	args=${c%%|*} rest=${c#*|}
	where=${rest%%|*} want=${rest#*|}
	# shellcheck disable=SC2086
	run $args "$A/s$X.hsdb"
	clean "$T/out" "$(shown "$args"): stdout"
	clean "$T/err" "$(shown "$args"): stderr"
	case $where in
	o) printf '%s\n' "$out" | grep -qF -- "$want" || t_fail "$(shown "$args"): stdout lacks '$want': $(shown "$out")" ;;
	*) printf '%s\n' "$err" | grep -qF -- "$want" || t_fail "$(shown "$args"): stderr lacks '$want': $(shown "$err")" ;;
	esac
done
# the rest: ARGS|the text, on stdout or stderr
for c in "$X|heapsift: '$XE' is not a command" \
	"diff $A/s$X.hsdb $A/s$X.hsdb --by $X|heapsift diff: --by: '$XE' is not" \
	"top $A/n$X.hsdb|heapsift top: error: $A/n$XE.hsdb: cannot open" \
	"import -o $A/t$X.hsdb $A/n$X|heapsift import: error: $A/n$XE: cannot open" \
	"import -o $A/t$X.hsdb $A/n$X|$A/t$XE.hsdb not written" \
	"import -o $A/notes$X.txt $E|heapsift import: error: $A/notes$XE.txt" \
	"scan $A/r$X.jfr|$A/r$XE.jfr"; do
	args=${c%%|*} want=${c#*|}
	# shellcheck disable=SC2086
	run $args
	clean "$T/out" "$(shown "$args"): stdout"
	clean "$T/err" "$(shown "$args"): stderr"
	printf '%s\n%s\n' "$out" "$err" | grep -qF -- "$want" ||
		t_fail "$(shown "$args"): lacks '$want': $(shown "$out $err")"
done
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
# the fleet lake has the thread name on every sample row
grep -qF "\"'-3-4\"" "$W"/csv-fleet/samples/day=*/part-*.csv ||
	t_fail "the lake's samples lack the guarded thread name \"'-3-4\""
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
