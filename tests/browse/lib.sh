# Helpers for the tmux-driven browser suites (tests/cli/browse*.sh), in
# the manner of tmux's own regress/: the real binary in a detached tmux
# session of a fixed size on a private server (-L), keys sent with
# send-keys, the screen read back with capture-pane and compared with a
# golden screen in tests/browse/*.screen.
#
# The browser appends a line to $STAMP after each key it has handled and
# drawn (HEAPSIFT_BROWSE_STAMP), so a test waits for "the N keys sent are
# handled" and then for the screen to stop changing; it never sleeps for
# a fixed time and never asserts on wall-clock time.
#
#   b_start W H ENV... -- ARGS...  start heapsift browse ARGS in a W x H pane
#   b_keys KEY...                  send keys (tmux names or single chars)
#                                  and wait until each is handled
#   b_type TEXT                    type TEXT literally, then wait
#   b_resize W H                   resize the pane and wait until redrawn
#   b_screen NAME                  compare the screen with NAME.screen
#                                  (BROWSE_UPDATE=1 rewrites it; with
#                                  HS_NO_GOLDEN=1 it compares nothing);
#                                  a mismatch is reported as "[golden]"
#   b_quit                         q, and check the exit status and stderr
#
# Needs lib.sh's $T and t_* functions.
BROWSE_GOLDEN=$(cd "$(dirname "$0")/../browse" && pwd)
# one server per session started: a server still exiting from the last
# one must not take the next
b_n=0
B_TMUX="tmux -L hs-browse-$$-0 -f /dev/null"
STAMP=$T/work/stamp
b_sent=0

b_cleanup() {
	$B_TMUX kill-server >/dev/null 2>&1
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap b_cleanup EXIT INT TERM

b_capture() { $B_TMUX capture-pane -p -t browse 2>/dev/null; }

# Wait until tmux has drawn the screen of the $b_sent-th key (the pane
# title says which), then until the screen is the same three times in a
# row.  A browser that never gets there has
# hung or died: after a generous bound, say so.
b_settle() {
	i=0
	while [ "$(b_drawn)" -lt "$b_sent" ]; do
		i=$((i + 1))
		if [ $i -gt 3000 ] || ! $B_TMUX has-session -t browse 2>/dev/null; then
			t_fail "browser stopped handling keys ($(wc -l <"$STAMP") of $b_sent handled, $(b_drawn) drawn)"
			return 1
		fi
		sleep 0.01
	done
	b_wait_stable
}

# The last key whose screen tmux has drawn: the browser sets the pane's
# title to hs-browse-SEQ after the screen's bytes (HEAPSIFT_BROWSE_STAMP).
b_drawn() {
	n=$($B_TMUX display -p -t browse '#{pane_title}' 2>/dev/null | sed -n 's/^hs-browse-\([0-9]*\)$/\1/p')
	echo "${n:-0}"
}

b_wait_stable() {
	prev=$(b_capture) same=0 i=0
	while [ $same -lt 2 ] && [ $i -lt 1000 ]; do
		sleep 0.02
		cur=$(b_capture)
		if [ "$cur" = "$prev" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		prev=$cur
		i=$((i + 1))
	done
}

b_start() {
	w=$1 h=$2
	shift 2
	envs=
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	: >"$STAMP"
	rm -f "$T/work/rc" "$T/work/stderr"
	b_sent=0
	$B_TMUX kill-server >/dev/null 2>&1
	b_n=$((b_n + 1))
	B_TMUX="tmux -L hs-browse-$$-$b_n -f /dev/null"
	# the pane runs a shell that records the exit status and stderr
	$B_TMUX new-session -d -s browse -x "$w" -y "$h" \
		"cd '$T/cwd' && env -i PATH='$PATH' HOME='$T/home' TMPDIR='$T/tmp' \
		HEAPSIFT_BROWSE_STAMP='$STAMP' $envs '$HEAPSIFT' browse $* \
		2>'$T/work/stderr'; echo \$? >'$T/work/rc'" || {
		t_fail "tmux could not start"
		return 1
	}
	# the first screen: the status line is the last thing drawn
	i=0
	while ! b_capture | grep -q 'time '; do
		i=$((i + 1))
		if [ $i -gt 3000 ]; then
			t_fail "no first screen; stderr: $(cat "$T/work/stderr" 2>/dev/null)"
			return 1
		fi
		sleep 0.01
	done
	b_wait_stable
}

b_keys() {
	for k in "$@"; do
		$B_TMUX send-keys -t browse "$k"
		b_sent=$((b_sent + 1))
	done
	b_settle
}

b_type() {
	$B_TMUX send-keys -t browse -l "$1"
	b_sent=$((b_sent + ${#1}))
	b_settle
}

# A resize reaches the browser as a KEY_RESIZE (or a few, coalesced):
# wait until one more key was handled, then for the screen.
b_resize() {
	before=$(b_drawn)
	$B_TMUX resize-window -t browse -x "$1" -y "$2"
	i=0
	while [ "$(b_drawn)" -le "$before" ] && [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	b_wait_stable
	b_sent=$(wc -l <"$STAMP")
}

# b_mouse BUTTON X Y...: xterm (X10) mouse reports as a terminal sends
# them, at 0-based column X, row Y, all in one write; BUTTON 0 left, 3
# release, 64 wheel up, 65 wheel down.  Then wait for one more handled
# event and a still screen.
b_mouse() {
	before=$(b_drawn)
	seq=
	while [ $# -ge 3 ]; do
		seq="$seq$(printf '\033[M%b%b%b' "\\0$(printf %o $((32 + $1)))" \
			"\\0$(printf %o $((33 + $2)))" "\\0$(printf %o $((33 + $3)))")"
		shift 3
	done
	$B_TMUX send-keys -t browse -l "$seq"
	i=0
	while [ "$(b_drawn)" -le "$before" ] && [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	b_wait_stable
	b_sent=$(wc -l <"$STAMP")
}
# a press and its release together, as curses wants them for a click
b_click() { b_mouse 0 "$1" "$2" 3 "$1" "$2"; }

b_screen() {
	exp=$BROWSE_GOLDEN/$1.screen
	b_capture >"$T/work/screen"
	if [ "${BROWSE_UPDATE:-0}" = 1 ]; then
		cp "$T/work/screen" "$exp"
		return 0
	fi
	# make mutate: golden comparisons catch nothing (golden-update
	# rewrites them), only the checks of the numbers on the screen do
	[ "${HS_NO_GOLDEN:-0}" = 1 ] && return 0
	if [ ! -f "$exp" ]; then
		t_fail "[golden] no golden screen $exp (BROWSE_UPDATE=1 makes it; review it)"
	elif ! cmp -s "$T/work/screen" "$exp"; then
		t_fail "[golden] screen differs from $1.screen:
$(diff -u "$exp" "$T/work/screen" | sed 's/^/    /' | head -n 60)"
	fi
}

b_quit() {
	$B_TMUX send-keys -t browse q
	i=0
	while [ ! -s "$T/work/rc" ] && [ $i -lt 3000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	rc=$(cat "$T/work/rc" 2>/dev/null)
	[ "$rc" = 0 ] || t_fail "browser exit status '$rc'; stderr: $(cat "$T/work/stderr")"
}
