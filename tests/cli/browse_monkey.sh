#!/bin/sh
# A monkey on heapsift browse: thousands of random keys (every bound key,
# regex characters typed into the search and filter prompts) and random
# resizes from 10x3 to 300x100, on a real store (two fixture recordings,
# five sample kinds between them, a code-heap report and a javacore),
# through tmux.  The browser must
# neither die nor hang: at the end it must still answer keys and quit
# with status 0 (under make check, with ASan and UBSan watching).
# MONKEY_SEED and MONKEY_KEYS change the run; the seed is printed.
. "$(dirname "$0")/lib.sh"
no_tmux=
command -v tmux >/dev/null 2>&1 || no_tmux=1
. "$(dirname "$0")/../browse/lib.sh"
SEED=${MONKEY_SEED:-7}
N=${MONKEY_KEYS:-3000}
S=$T/work/case.hsdb
mkdir -p "$T/home"
"$HEAPSIFT" import -o "$S" "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr" \
	"$HS_FIXTURES/jfr/jdk17-profile-tlab.jfr" \
	"$HS_FIXTURES/codeheap/jdk17-seg-analytics-all-128.txt.gz" \
	"$HS_FIXTURES/javacore/javacore.20230830.134339.30220.0001.txt" >/dev/null 2>&1 ||
	{ echo "FAIL setup: cannot import the fixtures"; echo "0 passed, 1 failed"; exit 1; }

# the script of the run: batches of keys, then a resize
awk -v seed="$SEED" -v n="$N" 'BEGIN {
	srand(seed)
	k = "j k Up Down Left Right PageUp PageDown Home End Enter Escape Tab BTab " \
	    "1 2 3 4 5 6 7 8 9 / \\\\ n N K x c C b s a + - e E h l g G o ? Space BSpace " \
	    "( ) [ ] * . ^ $ | byte Heap { } m m 7 7 Enter"
	nk = split(k, keys, " ")
	line = ""
	for (i = 0; i < n; i++) {
		line = line " " keys[int(rand() * nk) + 1]
		if (i % 25 == 24) {
			print "keys" line
			line = ""
			if (rand() < 0.3)
				print "resize", 10 + int(rand() * 291), 3 + int(rand() * 98)
		}
	}
	if (line != "") print "keys" line
}' >"$T/work/script"

for term in "TERM=screen-256color LANG=C.UTF-8 LC_ALL=C.UTF-8" "TERM=vt100 LANG=C LC_ALL=C NO_COLOR=1"; do
	t_begin "monkey, seed $SEED, $N keys, $term"
	if [ -n "$no_tmux" ]; then
		t_skip "tmux is not installed (make test installs it through build-aux/deps.sh)"
		continue
	fi
	b_start 80 24 $term -- "$S"
	while read -r what a b; do
		if ! $B_TMUX has-session -t browse 2>/dev/null; then
			t_fail "the browser died; stderr: $(cat "$T/work/stderr" 2>/dev/null)"
			break
		fi
		case $what in
		keys)
			# one batch a send-keys; no globbing of the * key
			set -f
			# shellcheck disable=SC2086
			set -- $a $b
			set +f
			$B_TMUX send-keys -t browse "$@"
			;;
		resize) $B_TMUX resize-window -t browse -x "$a" -y "$b" ;;
		esac
	done <"$T/work/script"
	# it must still be alive and answer: close any prompt or help, go to
	# the overview at 80x24, and quit
	if $B_TMUX has-session -t browse 2>/dev/null; then
		$B_TMUX resize-window -t browse -x 80 -y 24
		# wait until it has caught up: no new stamp for half a second
		# (a bound says "hung" rather than waiting for ever)
		n=-1 i=0
		while [ "$n" != "$(wc -l <"$STAMP")" ] && [ $i -lt 240 ]; do
			n=$(wc -l <"$STAMP")
			sleep 0.5
			i=$((i + 1))
		done
		b_sent=$(wc -l <"$STAMP")
		# one key at a time: ESC and what follows it must not read as
		# one escape sequence
		b_keys Escape
		b_keys Escape
		b_keys Escape
		b_keys 1
		b_capture | grep -q 'Overview' ||
			t_fail "the browser does not answer any more (hung?): $(b_capture)"
		b_quit
	else
		t_fail "the browser died; stderr: $(cat "$T/work/stderr" 2>/dev/null)"
	fi
	[ -s "$T/work/stderr" ] && t_fail "stderr: $(cat "$T/work/stderr")"
	echo "  $(wc -l <"$STAMP") keys and resizes handled"
	t_end
done
t_summary
