#!/bin/sh
# Interrupted writers leave nothing behind (issue 39).  Every catchable
# signal whose default action ends the process, sent while a store or an
# export has its temporary name, removes that file, ends heapsift by the
# same signal (exit status 128 + its number, which python3's signal
# module gives) and leaves the old store byte for byte; the store's data
# has no name before that (O_TMPFILE), and where the file system cannot
# do that (HEAPSIFT_NO_TMPFILE=1) or cannot link (HEAPSIFT_STORE_NO_LINK=1)
# the named file is removed just the same.  HEAPSIFT_HOLD_NAMED=1 makes
# the writer wait, named, for the signal, so that it lands there every
# time; a build without it is interrupted when its temporary file shows.
# A SIGKILL cannot be caught: what it leaves is removed by the next
# import into that folder, once unlocked, old and of a dead process
# (docs/heapsift.1, FILES), and a temporary file of a live writer is not.
. "$(dirname "$0")/lib.sh"
BENCH=$(cd "$(dirname "$0")/../bench" && pwd)
F=$HS_FIXTURES/jfr
W=$T/work
cd "$W" || exit 1
ulimit -c 0 # SIGQUIT, SIGXCPU and SIGXFSZ would dump cores

SIGS="HUP INT QUIT TERM PIPE ALRM USR1 USR2 XCPU XFSZ VTALRM PROF IO PWR STKFLT"
# signum NAME: its number, from python3 (not from heapsift), asked once
NUMS=$(python3 -c 'import signal, sys
print(" ".join("%s=%d" % (n, getattr(signal, "SIG" + n)) for n in sys.argv[1:]))' $SIGS KILL)
signum() {
	for _p in $NUMS; do
		[ "${_p%=*}" = "$1" ] && echo "${_p#*=}" && return 0
	done
	return 1
}

# The child must start with every signal at its default action, whatever
# this shell inherited (a background job of sh ignores SIGINT and
# SIGQUIT; harnesses ignore SIGPIPE): env --default-signal, or python3.
if env --default-signal=INT true 2>/dev/null; then
	DFLT="env --default-signal"
else
	cat >"$T/dflt" <<'EOF'
#!/usr/bin/env python3
import os, signal, sys
for s in range(1, signal.NSIG):
    try: signal.signal(s, signal.SIG_DFL)
    except (OSError, ValueError, RuntimeError): pass
os.execvp(sys.argv[1], sys.argv[1:])
EOF
	chmod +x "$T/dflt"
	DFLT=$T/dflt
fi
# send SIG PID: signal SIG (a name) by its number (dash knows no SIGSTKFLT)
send() { kill -"$(signum "$1")" "$2" 2>/dev/null; }

# temps DIR: heapsift's temporary files in DIR (.NAME.tmpPID.NONCE.N and
# the spill's), one line
temps() { (cd "$1" && ls -A | grep -E '^\..*\.tmp[0-9]|^\.heapsift-spill' | tr '\n' ' '); }

# held ENV... -- ARGS...: heapsift ARGS in the background with the ENV
# settings and HEAPSIFT_HOLD_NAMED=1, its pid in $pid; returns once it
# says it holds a file named (or, a build without the knob, once a
# temporary file shows in $D), 1 if it ended first.
held() {
	rm -f "$T/held.err"
	: >"$T/held.err"
	(cd "$T/cwd" && exec env HEAPSIFT_HOLD_NAMED=1 TMPDIR="$T/tmp" LC_ALL=C \
		"$@" >/dev/null 2>"$T/held.err" </dev/null) &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		grep -q '^heapsift: holding ' "$T/held.err" && return 0
		for x in "$D"/.*.tmp[0-9]*; do
			[ -e "$x" ] && return 0
		done
	done
	return 1
}
# ended_by SIG WHAT: the last held run ended by signal SIG
ended_by() {
	{ wait $pid; } 2>/dev/null
	_rc=$?
	_want=$((128 + $(signum "$1")))
	[ "$_rc" = "$_want" ] || t_fail "$2: exit status $_rc, not $_want (SIG$1); stderr: $(head -c 300 "$T/held.err")"
}

# inputs: an old store of one recording, and a recording of 10 copies of
# jdk17-multichunk (25 MB, 27k samples: an append's commit writes a
# store of about 1 MB under a name, where a build without nameless
# files can be caught)
D=$W/s
mkdir -p "$D"
python3 "$BENCH/make_big_jfr.py" "$F/jdk17-multichunk.jfr" \
	"$W/big.jfr" --copies 10 >/dev/null || {
	echo "FAIL setup: make_big_jfr.py"
	echo "0 passed, 1 failed"
	exit 1
}
run import -o "$W/old.hsdb" "$F/jdk17-default.jfr"
[ "$rc" = 0 ] || {
	echo "FAIL setup: import: $err"
	echo "0 passed, 1 failed"
	exit 1
}

t_begin every_fatal_signal_removes_the_named_store
# --append: its commit names the file (a build without nameless files
# names it from the start); each signal in turn, the old store kept
n=0
for sig in $SIGS; do
	cp "$W/old.hsdb" "$D/S.hsdb"
	if ! held $DFLT "$HEAPSIFT" import --append -o "$D/S.hsdb" "$W/big.jfr"; then
		wait $pid
		t_fail "SIG$sig: the import ended (exit $?) before it was held or named"
		continue
	fi
	send "$sig" $pid
	ended_by "$sig" "SIG$sig"
	n=$((n + 1))
	[ -z "$(temps "$D")" ] || t_fail "SIG$sig left $(temps "$D")"
	cmp -s "$D/S.hsdb" "$W/old.hsdb" || t_fail "SIG$sig: the old store changed"
	rm -f "$D"/.*.tmp[0-9]*
done
echo "  ($n signals, each during a commit named)"
t_end

t_begin every_way_of_naming_is_cleaned_up
# a new store's stream, the spill's commit, no O_TMPFILE (named from the
# start), no link (a copy): SIGTERM and SIGINT while each is named
for how in stream HEAPSIFT_STORE_STREAM=0 HEAPSIFT_NO_TMPFILE=1 \
	HEAPSIFT_STORE_NO_LINK=1; do
	for sig in TERM INT; do
		cp "$W/old.hsdb" "$D/S.hsdb"
		case $how in
		stream) set -- ;;
		*) set -- "$how" ;;
		esac
		if ! held "$@" $DFLT "$HEAPSIFT" import -o "$D/S.hsdb" "$W/big.jfr"; then
			wait $pid
			t_fail "$how SIG$sig: the import ended (exit $?) before it was held or named"
			continue
		fi
		send "$sig" $pid
		ended_by "$sig" "$how SIG$sig"
		[ -z "$(temps "$D")" ] || t_fail "$how SIG$sig left $(temps "$D")"
		cmp -s "$D/S.hsdb" "$W/old.hsdb" || t_fail "$how SIG$sig: the old store changed"
		rm -f "$D"/.*.tmp[0-9]*
	done
done
t_end

t_begin timeout_and_an_ignored_signal
# timeout(1) sends SIGTERM (its own exit status 124); a signal ignored
# when heapsift starts (nohup's SIGHUP) stays ignored: the writer goes
# on holding, and a SIGTERM after still cleans up
cp "$W/old.hsdb" "$D/S.hsdb"
if held timeout -s TERM 10 "$HEAPSIFT" import --append -o "$D/S.hsdb" "$W/big.jfr"; then
	wait $pid
	rc=$?
	[ "$rc" = 124 ] || t_fail "timeout: exit status $rc, not 124"
else
	t_fail "timeout: the import ended before it was held or named"
fi
[ -z "$(temps "$D")" ] || t_fail "timeout left $(temps "$D")"
cmp -s "$D/S.hsdb" "$W/old.hsdb" || t_fail "timeout: the old store changed"
rm -f "$D"/.*.tmp[0-9]*
if held sh -c 'trap "" HUP; exec "$@"' sh "$HEAPSIFT" import --append \
	-o "$D/S.hsdb" "$W/big.jfr"; then
	send HUP $pid
	# the signal is ignored: still there, still named, a while later
	sleep 1
	kill -0 $pid 2>/dev/null || t_fail "an ignored SIGHUP ended heapsift"
	[ -n "$(temps "$D")" ] || t_fail "an ignored SIGHUP removed the file"
	send TERM $pid
	ended_by TERM "SIGTERM after an ignored SIGHUP"
else
	t_fail "nohup: the import ended before it was held or named"
fi
[ -z "$(temps "$D")" ] || t_fail "nohup then SIGTERM left $(temps "$D")"
cmp -s "$D/S.hsdb" "$W/old.hsdb" || t_fail "nohup: the old store changed"
rm -f "$D"/.*.tmp[0-9]*
t_end

t_begin export_and_report_files_are_cleaned_up
# the CSV tables, the fleet layout (gzipped), a single-file export and a
# report, each held named and interrupted: the folder holds no
# temporary file, and the fleet's and the report's old files stay
E=$W/exp
for what in csv fleet pprof report; do
	rm -rf "$E"
	mkdir -p "$E"
	case $what in
	csv) set -- export "$W/old.hsdb" --format=csv -o "$E/t" ;;
	fleet) set -- export "$W/old.hsdb" --format=csv --layout=fleet --gzip -o "$E/t" ;;
	pprof) set -- export "$W/old.hsdb" --format=pprof -o "$E/p.pb.gz" ;;
	report) set -- report "$W/old.hsdb" -o "$E/r.txt" ;;
	esac
	D=$E
	[ $what = csv ] || [ $what = fleet ] && D=$E/t
	if ! held $DFLT "$HEAPSIFT" "$@"; then
		wait $pid
		t_fail "$what: it ended (exit $?) before it was held or named"
		continue
	fi
	send TERM $pid
	ended_by TERM "$what"
	left=$(find "$E" -name '.*tmp[0-9]*' | tr '\n' ' ')
	[ -z "$left" ] || t_fail "$what left $left"
done
rm -rf "$E"
D=$W/s
t_end

t_begin signals_at_random_moments_leave_old_or_new
# without the knob: 24 imports of a new store over the old one, each
# sent one of the signals after a random delay from 0 to 1.2 times a
# whole import's time: nothing is left, the store is the old one or the
# new one byte for byte (a store is a function of its inputs), and the
# exit status is the signal's or the import's own
cp "$W/old.hsdb" "$D/S.hsdb"
(cd "$T/cwd" && TMPDIR="$T/tmp" "$HEAPSIFT" import -o "$W/new.hsdb" "$W/big.jfr" \
	>/dev/null 2>&1)
t0=$(date +%s%N)
(cd "$T/cwd" && TMPDIR="$T/tmp" "$HEAPSIFT" import -o "$D/S.hsdb" "$W/big.jfr" \
	>/dev/null 2>&1)
t1=$(date +%s%N)
cmp -s "$D/S.hsdb" "$W/new.hsdb" || t_fail "two imports of one recording differ"
case "$t0$t1" in
*N*) took=300 ;;
*) took=$(((t1 - t0) / 1000000)) ;;
esac
seed=${HS_SEED:-$(date +%s)}
delays=$(awk -v s="$seed" -v ms="$took" 'BEGIN { srand(s)
	for (i = 0; i < 24; i++) printf "%.4f\n", rand() * ms * 1.2 / 1000 }')
set -- $SIGS
olds=0 news=0 hit=0
for d in $delays; do
	sig=$1
	shift
	set -- "$@" "$sig"
	cp "$W/old.hsdb" "$D/S.hsdb"
	(cd "$T/cwd" && exec env --default-signal TMPDIR="$T/tmp" "$HEAPSIFT" \
		import -o "$D/S.hsdb" "$W/big.jfr" >/dev/null 2>&1 </dev/null) &
	pid=$!
	sleep "$d"
	send "$sig" $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null
	rc=$?
	case $rc in
	0 | 3) ;;
	$((128 + $(signum "$sig")))) hit=$((hit + 1)) ;;
	*) t_fail "SIG$sig at $d s (seed $seed): exit status $rc" ;;
	esac
	if cmp -s "$D/S.hsdb" "$W/old.hsdb"; then
		olds=$((olds + 1))
	elif cmp -s "$D/S.hsdb" "$W/new.hsdb"; then
		news=$((news + 1))
	else
		t_fail "SIG$sig at $d s (seed $seed): neither the old store nor the new"
	fi
	[ -z "$(temps "$D")" ] || t_fail "SIG$sig at $d s (seed $seed) left $(temps "$D")"
	rm -f "$D"/.*.tmp[0-9]*
done
echo "  (seed $seed, a whole import $took ms: $hit of 24 ended by the signal; old store $olds times, new $news)"
t_end

t_begin killed_writers_files_swept_by_the_next_import
# a SIGKILL while named leaves the file: kept while it is young, removed
# by the next import into the folder once it is older than 10 minutes
# (the writer's lock went with it, its PID is gone); a file that a live
# process holds locked, or whose PID is alive, or a live heapsift's own,
# is kept however old; other names are never touched
K=$W/k
mkdir -p "$K"
D=$K
old=$(($(date +%s) - 660)) # 11 minutes ago
cp "$W/old.hsdb" "$K/S.hsdb"
if held $DFLT "$HEAPSIFT" import --append -o "$K/S.hsdb" "$W/big.jfr"; then
	send KILL $pid
	{ wait $pid; } 2>/dev/null
else
	t_fail "the import ended before it was held or named"
fi
killed=$(temps "$K")
[ -n "$killed" ] || t_fail "SIGKILL left no file to sweep"
killed=${killed% }
# a dead PID: a shell that has exited
dead=$(sh -c 'echo $$')
kill -0 "$dead" 2>/dev/null && t_fail "pid $dead is alive"
# a file locked by a live process, named with the dead PID
: >"$K/.locked.hsdb.tmp$dead.abc.0"
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(600)' "$K/.locked.hsdb.tmp$dead.abc.0" "$W/locked" &
locker=$!
while [ ! -e "$W/locked" ] && kill -0 $locker 2>/dev/null; do sleep 0.05; done
[ -e "$W/locked" ] || t_fail "the locker did not lock"
# a live PID on an unlocked file
sleep 600 &
alive=$!
: >"$K/.alive.hsdb.tmp$alive.abc.0"
# names that are not heapsift's temporary files
: >"$K/.notes.tmp"
: >"$K/.x.hsdb.tmp$dead.xyz.0"
: >"$K/x.hsdb.tmp$dead.abc.0"
: >"$K/.young.hsdb.tmp$dead.abc.0"
for f in "$K/.locked.hsdb.tmp$dead.abc.0" "$K/.alive.hsdb.tmp$alive.abc.0" \
	"$K/.notes.tmp" "$K/.x.hsdb.tmp$dead.xyz.0" "$K/x.hsdb.tmp$dead.abc.0"; do
	touch -d "@$old" "$f"
done
# young: nothing removed yet, not even the killed writer's file
run import -o "$K/T.hsdb" "$F/jdk17-default.jfr"
expect_rc 0
[ -e "$K/$killed" ] || t_fail "a young file of a killed writer was removed"
touch -d "@$old" "$K/$killed"
# a live heapsift held while named, its file made old
mkdir -p "$K/live"
D=$K/live
cp "$W/old.hsdb" "$K/live/L.hsdb"
held $DFLT "$HEAPSIFT" import --append -o "$K/live/L.hsdb" "$W/big.jfr" ||
	t_fail "the live import ended before it was held or named"
livepid=$pid
livefile=$(temps "$K/live")
livefile=${livefile% }
[ -n "$livefile" ] && mv "$K/live/$livefile" "$K/$livefile" &&
	touch -d "@$old" "$K/$livefile"
D=$K
run import -o "$K/T.hsdb" "$F/jdk17-default.jfr"
expect_rc 0
[ -e "$K/$killed" ] && t_fail "the killed writer's old file was not removed"
for f in ".locked.hsdb.tmp$dead.abc.0" ".alive.hsdb.tmp$alive.abc.0" \
	".notes.tmp" ".x.hsdb.tmp$dead.xyz.0" "x.hsdb.tmp$dead.abc.0" \
	".young.hsdb.tmp$dead.abc.0" "$livefile"; do
	[ -e "$K/$f" ] || t_fail "$f was removed"
done
# the holders gone, the next import removes theirs
kill $locker $alive
{ wait $locker $alive; } 2>/dev/null
send KILL $livepid
{ wait $livepid; } 2>/dev/null
run import -o "$K/T.hsdb" "$F/jdk17-default.jfr"
expect_rc 0
for f in ".locked.hsdb.tmp$dead.abc.0" ".alive.hsdb.tmp$alive.abc.0" "$livefile"; do
	[ -e "$K/$f" ] && t_fail "$f was not removed once its holder was gone"
done
cmp -s "$K/S.hsdb" "$W/old.hsdb" || t_fail "the killed import changed the old store"
rm -rf "$K"
D=$W/s
t_end

t_summary
