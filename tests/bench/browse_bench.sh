#!/bin/sh
# The browser half of make bench: heapsift browse on the synthetic store
# of store_bench.sh (10 million samples, 200,000 stacks; made here when
# missing), driven through tmux at 200x50.  For each action it prints the
# time from the key to the redrawn screen as the browser measures it
# (HEAPSIFT_BROWSE_STAMP: from getch() returning to the end of the
# refresh, CLOCK_MONOTONIC), and the time this script saw from send-keys
# to the stamp (tmux and polling included).  It asserts nothing: machines
# here are shared and noisy.
set -u
cd "$(dirname "$0")/../.." || exit 1
HS=${HEAPSIFT:-./heapsift}
SB=${STORE_BENCH:-build/store-bench}
S=build/bench/synthetic.hsdb
ST=build/bench/browse.stamp
SOCK=hs-browse-bench-$$
TM="tmux -L $SOCK -f /dev/null"

if ! command -v tmux >/dev/null 2>&1; then
	echo "browse benchmark skipped: no tmux"
	exit 0
fi
mkdir -p build/bench
if [ ! -s "$S" ]; then
	echo "making $S (10 million samples)..."
	"$SB" gen "$S" || exit 1
fi
trap '$TM kill-server >/dev/null 2>&1; rm -f "$ST"' EXIT INT TERM
: >"$ST"

now_ns() { date +%s%N; }
lines() { wc -l <"$ST" | tr -d ' '; }

t_start=$(now_ns)
$TM new-session -d -s b -x 200 -y 50 \
	"env TERM=screen-256color LANG=C.UTF-8 HEAPSIFT_BROWSE_STAMP='$PWD/$ST' '$HS' browse '$S'"
while ! $TM capture-pane -p -t b | grep -q 'time all'; do
	sleep 0.01
done
t_open=$(now_ns)

echo
echo "Browser benchmark: $S, 200x50, through tmux"
printf '  %-52s %10s %10s\n' "action (view)" "browser" "seen"
printf '  %-52s %10s %10.1f ms\n' "open the store, first screen (Overview)" "-" \
	"$(echo "$t_open $t_start" | awk '{ print ($1 - $2) / 1e6 }')"

# act LABEL KEY...: send the keys; the last one is timed
act() {
	label=$1
	shift
	while [ $# -gt 1 ]; do
		n=$(lines)
		$TM send-keys -t b "$1"
		while [ "$(lines)" -le "$n" ]; do sleep 0.002; done
		shift
	done
	n=$(lines)
	t0=$(now_ns)
	$TM send-keys -t b "$1"
	while [ "$(lines)" -le "$n" ]; do sleep 0.002; done
	t1=$(now_ns)
	tail -n 1 "$ST" | awk -v l="$label" -v s="$(echo "$t1 $t0" | awk '{ print ($1 - $2) / 1e6 }')" \
		'{ printf "  %-52s %7.1f ms %7.1f ms\n", l, ($3 - $2) / 1e6, s }'
}

act "Allocations by site (first query)" 2
act "drill into the top site (Enter)" Enter
act "step back (Esc)" Escape
act "regroup: app-site (first time)" c
act "regroup: thread (first time)" c
act "regroup: recording (first time)" c
act "regroup: class (first time)" c
act "regroup: site (seen before)" c
act "regroup: class (seen before)" C
act "sort by samples" c s
act "filter \\Type1[0-9] (Allocations by class)" C '\' T y p e 1 '[' 0 - 9 ']' Enter
act "clear the filter (Esc)" Escape
act "drill into the top class (Enter)" Enter
act "step back (Esc)" Escape
act "Call tree: build (once per kind and range)" 3
act "open a tree node (Right)" Right
act "open a tree node (j, Right)" j Right
act "open a tree node (j, Right)" j Right
act "fold a tree node (Left)" Left
act "expand all below (e)" e
act "expand all (E)" E
act "collapse all (C)" C
act "search /method4 (Enter)" / m e t h o d 4 Enter
act "filter \\Type1[0-9].method4 (Enter)" '\' T y p e 1 '[' 0 - 9 ']' . m e t h o d 4 Enter
act "clear the filter (Esc)" Escape
act "Inverted tree: build (once per kind and range)" 4
act "open a tree node (Right)" Right
act "filter \\Type2 (Enter)" '\' T y p e 2 Enter
act "Timeline (first time)" 5
act "apply a time range (Space, 10 buckets, Enter)" Space Right Right Right Right Right Right Right Right Right Right Enter
act "Allocations under the range (one query)" 2
act "Call tree under the range (one query)" 3
act "clear the range (x): the tree again" x
act "Overview (Tab back to it)" 1
$TM send-keys -t b q
