#!/bin/sh
# The JVMTI agent, libheapsift-agent.so, run in real JVMs.  Every
# recording is checked by tests/agent/check_recording.py, a parser
# written from docs/formats/agent-recording.md (not from the agent's C):
# CRC-32C of every frame, ids defined before use, entry sizes, counters
# that agree with the file, one DEATHS or ALIVE per tracked sample.
#   - a workload with garbage, survivors and System.gc() at interval=64k:
#     a complete recording with samples, GCs, deaths and survivors;
#   - 8 threads allocating at once: no sample lost;
#   - buffer=0, max_tracked= and depth= at their edges: drops and
#     truncation are counted and flagged as the format says;
#   - a JVM killed with SIGKILL after its first flush: readable up to the
#     last whole record, no END; cut and damaged copies of it end the
#     readable part where the spec says;
#   - System.exit() amid allocating threads: a complete file; a write
#     error (file size limit): one message, the JVM runs on;
#   - bad options stop the JVM with the agent's message;
#   - dynamic attach with jcmd JVMTI.agent_load;
#   - `heapsift agent-path`, the library's exported symbols, and where
#     make install puts it.
# Asserts no times: the machines are shared.
#
# Without java and javac on PATH every case is reported as skipped
# ("skip NAME: why", counted, never a pass); so it is when the JDK has no
# jvmti.h (then make does not build the agent either).
#
# Run: HEAPSIFT=$PWD/heapsift HS_FIXTURES=$PWD/fixtures sh tests/cli/agent.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
W=$T/work
CHECK=$top/tests/agent/check_recording.py
SRC=$top/tests/agent/AgentWorkload.java

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	t_skip_all "no JDK (java and javac) on this machine"
fi
jdk_inc=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")/include
if ! LIB=$("$HEAPSIFT" agent-path 2>/dev/null); then
	if [ ! -f "$jdk_inc/jvmti.h" ] && [ ! -f /usr/lib/jvm/default-java/include/jvmti.h ]; then
		t_skip_all "no jvmti.h in this JDK, so no libheapsift-agent.so was built"
	fi
	LIB=
fi

# A guard against a hung JVM, when coreutils' timeout is there.
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

# check FILE NAME [--require-end]: run the checker; its JSON summary goes
# to $W/NAME.json, its complaints to $W/NAME.err; sets $crc.
check() {
	python3 "$CHECK" ${3:-} "$1" >"$W/$2.json" 2>"$W/$2.err"
	crc=$?
}
# jget NAME KEY.KEY...: a value from $W/NAME.json ("None" when null).
jget() {
	python3 - "$W/$1.json" "$2" 2>/dev/null <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k] if v is not None else None
print(v)
EOF
}
# expect_gt NAME KEY N: the value is a number above N.
expect_gt() {
	v=$(jget "$1" "$2")
	[ "$v" -gt "$3" ] 2>/dev/null || t_fail "$2 is $v, expected more than $3"
}
expect_eq() {
	v=$(jget "$1" "$2")
	[ "$v" = "$3" ] || t_fail "$2 is $v, expected $3"
}
expect_valid() {
	[ $crc = 0 ] || t_fail "the checker rejects it: $(head -n 5 "$W/$1.err")"
}
# jrun NAME OPTIONS ARGS...: the workload under the agent in $W; sets $jrc.
jrun() {
	name=$1 opts=$2
	shift 2
	(cd "$W" && $TO java -Xmx256m -agentpath:"$LIB=$opts" \
		-cp "$W/classes" AgentWorkload "$@" >"$W/$name.out" 2>&1)
	jrc=$?
}

t_begin 0_prerequisites
[ -f "$SRC" ] || t_fail "missing $SRC"
[ -f "$CHECK" ] || t_fail "missing $CHECK"
command -v python3 >/dev/null 2>&1 || t_fail "missing python3"
[ -n "$LIB" ] || t_fail "heapsift agent-path finds no library, yet this JDK has jvmti.h: was make run?"
if ! javac -d "$W/classes" "$SRC" >"$W/javac.log" 2>&1; then
	t_fail "javac failed: $(cat "$W/javac.log")"
fi
# the checker's CRC-32C against the standard check value
python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import check_recording as c; assert c.crc32c(b'123456789') == 0xE3069283" \
	"$top/tests/agent" 2>"$W/crc.err" || t_fail "checker CRC-32C self-test: $(cat "$W/crc.err")"
if [ $t_bad = 1 ]; then
	t_end
	t_summary
fi
t_end

t_begin agent_path_prints_the_library
run agent-path
expect_rc 0
expect_no_err
case "$out" in
/*libheapsift-agent.so) ;;
*) t_fail "agent-path printed '$out', not an absolute path to the library" ;;
esac
[ -f "$out" ] || t_fail "agent-path printed '$out', which is not a file"
run agent-path --help
expect_rc 0
expect_out_line "usage: heapsift agent-path"
run agent-path extra
expect_rc 2
t_end

t_begin library_exports_only_the_agent_entry_points
if command -v nm >/dev/null 2>&1; then
	syms=$(nm -D --defined-only "$LIB" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' | sort | tr '\n' ' ')
	[ "$syms" = "Agent_OnAttach Agent_OnLoad Agent_OnUnload " ] ||
		t_fail "exported: $syms"
	t_end
else
	t_skip "no nm (binutils) on this machine"
fi

t_begin install_puts_the_library_in_libdir
dest=$T/dest
if ! make -s -C "$top" --no-print-directory install DESTDIR="$dest" PREFIX=/opt/hs \
	>"$T/make.log" 2>&1; then
	t_fail "make install failed: $(cat "$T/make.log")"
fi
[ -f "$dest/opt/hs/lib/heapsift/libheapsift-agent.so" ] ||
	t_fail "no $dest/opt/hs/lib/heapsift/libheapsift-agent.so"
make -s -C "$top" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/opt/hs \
	>"$T/make.log" 2>&1 || t_fail "make uninstall failed: $(cat "$T/make.log")"
[ ! -e "$dest/opt/hs/lib/heapsift" ] || t_fail "uninstall left $(find "$dest/opt/hs/lib")"
rm -rf "$dest"
t_end

# --- 1: a whole recording ---------------------------------------------------
t_begin recording_with_deaths_and_survivors
jrun basic "file=basic-%p.hsa,interval=64k,flush_ms=200" basic
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/basic.out")"
f=$(ls "$W"/basic-*.hsa 2>/dev/null | head -n 1)
if [ -z "$f" ]; then
	t_fail "no basic-PID.hsa in $W: $(ls "$W")"
else
	check "$f" basic --require-end
	expect_valid basic
	expect_eq basic end True
	expect_gt basic samples 0
	expect_gt basic gcs 0
	expect_gt basic deaths 0
	expect_gt basic alive 0
	expect_gt basic classes 0
	expect_gt basic stacks 0
	expect_eq basic header.interval 65536
	expect_eq basic header.depth 64
	expect_eq basic header.max_tracked 1000000
	expect_eq basic header.sampler 1
	expect_eq basic header.options "file=basic-%p.hsa,interval=64k,flush_ms=200"
	expect_eq basic header.agent_version "heapsift-agent 1.0"
	# %p is the pid the header records
	pid=${f##*/basic-}
	expect_eq basic header.pid "${pid%.hsa}"
	expect_eq basic counters.dropped_buffer 0
	want=$(java -XshowSettings:properties -version 2>&1 |
		sed -n 's/^ *java\.vm\.name = //p')
	expect_eq basic header.jvm_name "$want"
	grep -q "^heapsift-agent: wrote " "$W/basic.out" ||
		t_fail "no closing summary on stderr: $(cat "$W/basic.out")"
fi
t_end

# --- 2: many threads at once ------------------------------------------------
t_begin eight_threads_lose_no_sample
jrun threads "file=threads.hsa,interval=8k,quiet" threads 8 16
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/threads.out")"
check "$W/threads.hsa" threads --require-end
expect_valid threads
n=$(jget threads samples)
expect_gt threads samples 1000
expect_eq threads counters.samples "$n"
expect_eq threads counters.written "$n"
expect_eq threads counters.dropped_buffer 0
expect_eq threads counters.tracked "$n"
v=$(jget threads threads)
[ "$v" -ge 8 ] 2>/dev/null || t_fail "$v threads defined, expected at least 8"
[ ! -s "$W/threads.out" ] || t_fail "quiet, yet: $(cat "$W/threads.out")"
# heapsift's import holds exactly what the agent counted
run import -o "$W/threads.hsdb" "$W/threads.hsa"
expect_rc 0
run info "$W/threads.hsdb"
printf '%s\n' "$out" | grep -qxF "  samples     heapsift.AgentSample $n" ||
	t_fail "the store does not hold the $n samples: $out"
printf '%s\n' "$out" | grep -qxF "  setting     agent#samples=$n" ||
	t_fail "the agent's counter is not $n: $out"
t_end

# --- limits: buffer, table, depth --------------------------------------------
t_begin buffer_zero_drops_and_counts_every_sample
jrun nobuf "file=nobuf.hsa,interval=64k,buffer=0" basic
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/nobuf.out")"
check "$W/nobuf.hsa" nobuf --require-end
expect_valid nobuf
expect_eq nobuf samples 0
expect_eq nobuf counters.written 0
s=$(jget nobuf counters.samples)
[ "$s" -gt 0 ] 2>/dev/null || t_fail "counters.samples is $s"
expect_eq nobuf counters.dropped_buffer "$s"
grep -q "samples were dropped" "$W/nobuf.out" ||
	t_fail "no message about dropped samples: $(cat "$W/nobuf.out")"
t_end

t_begin small_table_and_depth_are_flagged
jrun small "file=small.hsa,interval=64k,max_tracked=50,depth=3" basic
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/small.out")"
check "$W/small.hsa" small --require-end
expect_valid small
expect_gt small table_full 0
full=$(jget small table_full)
expect_eq small counters.dropped_untracked "$full"
expect_gt small truncated_stacks 0
expect_eq small header.depth 3
expect_gt small tracked 0
t_end

t_begin max_tracked_zero_tracks_nothing
jrun notrack "file=notrack.hsa,interval=64k,max_tracked=0" basic
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/notrack.out")"
check "$W/notrack.hsa" notrack --require-end
expect_valid notrack
expect_gt notrack samples 0
expect_eq notrack tracked 0
expect_eq notrack table_full 0
expect_eq notrack deaths 0
expect_eq notrack alive 0
t_end

# --- 3: killed --------------------------------------------------------------
t_begin sigkill_leaves_a_readable_prefix
(cd "$W" && exec java -Xmx256m \
	-agentpath:"$LIB=file=killed.hsa,interval=32k,flush_ms=100,quiet" \
	-cp "$W/classes" AgentWorkload forever >"$W/killed.out" 2>&1) &
jpid=$!
# wait until a first batch follows the preamble and the header record
# (a guard of about a minute against a JVM that never gets there)
hdr_end=0 grown=0 i=0
while [ $i -lt 600 ] && kill -0 $jpid 2>/dev/null; do
	if [ $hdr_end = 0 ] && [ -f "$W/killed.hsa" ] &&
		[ "$(size "$W/killed.hsa")" -ge 20 ]; then
		hl=$(od -An -t u4 -j 16 -N 4 "$W/killed.hsa" | tr -d ' ')
		hdr_end=$((16 + 12 + hl))
	fi
	if [ $hdr_end != 0 ] && [ "$(size "$W/killed.hsa")" -gt $hdr_end ]; then
		grown=1
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
kill -9 $jpid 2>/dev/null
wait $jpid 2>/dev/null
[ $grown = 1 ] || t_fail "the file never grew past its header: $(cat "$W/killed.out")"
fsize=$(size "$W/killed.hsa")
check "$W/killed.hsa" killed
expect_valid killed
expect_eq killed end False
r=$(jget killed readable_end)
l=$(jget killed bytes_left)
[ $((r + l)) = "$fsize" ] || t_fail "readable_end $r + bytes_left $l != $fsize bytes"
[ "$r" -gt "$hdr_end" ] 2>/dev/null || t_fail "readable_end $r is not past the header ($hdr_end)"
c=$(jget killed counters)
[ "$c" != None ] || t_fail "no COUNTERS record before the kill"
# heapsift imports it, with a warning, up to the same point
ks=$(jget killed samples)
run import -o "$W/killed.hsdb" "$W/killed.hsa"
expect_rc 3
if [ "$l" -gt 0 ]; then
	expect_err "at offset $r"
else
	expect_err "no end record"
fi
run info "$W/killed.hsdb"
# on a loaded machine the kill can come before the first sample: info
# then lists no kind on the samples line
want="  samples     heapsift.AgentSample $ks"
[ "$ks" = 0 ] && want="  samples    "
printf '%s\n' "$out" | grep -qxF "$want" ||
	t_fail "import of the killed recording does not hold its $ks samples: $out"
printf '%s\n' "$out" | grep -qF "agent#complete=no" || t_fail "not marked incomplete: $out"
# the same, cut inside its last record: the readable part ends at the
# start of that record, and the rest is reported
head -c $((r - 5)) "$W/killed.hsa" >"$W/cut.hsa"
check "$W/cut.hsa" cut
expect_valid cut
expect_eq cut end False
expect_eq cut stop_reason "frame runs past the end of the file"
cr=$(jget cut readable_end)
cl=$(jget cut bytes_left)
[ "$cr" -lt $((r - 5)) ] && [ "$cl" -gt 0 ] && [ $((cr + cl)) = $((r - 5)) ] ||
	t_fail "cut file: readable_end $cr, bytes_left $cl, size $((r - 5))"
run import -o "$W/cut.hsdb" "$W/cut.hsa"
expect_rc 3
expect_err "a record cut short"
expect_err "at offset $cr"
# and with one payload byte flipped in its last whole record: a CRC
# mismatch ends the readable part there
python3 - "$W/cut.hsa" "$W/bad.hsa" "$cr" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3]) - 6] ^= 0x40
open(sys.argv[2], "wb").write(d)
EOF
check "$W/bad.hsa" bad
expect_eq bad stop_reason "CRC mismatch"
br=$(jget bad readable_end)
[ "$br" -lt "$cr" ] 2>/dev/null || t_fail "damaged file: readable_end $br, not before $cr"
run import -o "$W/bad.hsdb" "$W/bad.hsa"
expect_rc 3
expect_err "checksum does not match"
expect_err "at offset $br"
t_end

# --- exits and write errors -------------------------------------------------
t_begin exit_amid_allocating_threads_completes_the_file
# main calls System.exit(0) while 6 daemon threads allocate, at a small
# interval and flush_ms=1: samples in flight and the writer mid-batch
jrun exit "file=exit.hsa,interval=4k,flush_ms=1,quiet" exit 6
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/exit.out")"
check "$W/exit.hsa" exit --require-end
expect_valid exit
expect_gt exit samples 0
n=$(jget exit samples)
expect_eq exit counters.samples "$n"
t_end

t_begin write_error_stops_the_recording_not_the_jvm
# a file size limit makes write() fail with EFBIG (HotSpot ignores
# SIGXFSZ): one message, the application runs on and exits normally
(cd "$W" && ulimit -f 200 && exec $TO java -Xmx256m \
	-agentpath:"$LIB=file=full.hsa,interval=16k,flush_ms=50" \
	-cp "$W/classes" AgentWorkload basic >"$W/full.out" 2>&1)
jrc=$?
[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/full.out")"
grep -q "^kept " "$W/full.out" || t_fail "the workload did not finish"
n=$(grep -c "heapsift-agent: writing .*full.hsa failed at offset" "$W/full.out")
[ "$n" = 1 ] || t_fail "$n write-error messages: $(cat "$W/full.out")"
grep -q "full.hsa is incomplete" "$W/full.out" ||
	t_fail "no closing message about the incomplete file: $(cat "$W/full.out")"
check "$W/full.hsa" full
expect_valid full
expect_eq full end False
t_end

# --- 4: bad options ---------------------------------------------------------
# bad_option OPTIONS MESSAGE: the JVM does not start and says MESSAGE
bad_option() {
	(cd "$W" && $TO java -agentpath:"$LIB$1" -version >"$W/bad.out" 2>&1)
	brc=$?
	[ $brc != 0 ] || t_fail "java started with '$1'"
	grep -qF -- "heapsift-agent: $2" "$W/bad.out" ||
		t_fail "'$1': no '$2' in: $(cat "$W/bad.out")"
}
t_begin bad_options_stop_the_jvm_with_a_message
bad_option "=file=x.hsa,interval=abc" "bad value 'abc' for interval="
bad_option "=file=x.hsa,depth=0" "bad value '0' for depth="
bad_option "=file=x.hsa,frobnicate=1" "unknown option 'frobnicate'"
bad_option "=interval=64k" "option file= is required"
bad_option "" "option file= is required"
bad_option "=file=$W/no/such/dir/x.hsa" "cannot create $W/no/such/dir/x.hsa"
[ ! -e "$W/x.hsa" ] || t_fail "a refused start left x.hsa behind"
t_end

# --- dynamic attach -----------------------------------------------------------
t_begin attach_with_jcmd
if ! command -v jcmd >/dev/null 2>&1; then
	t_skip "no jcmd in this JDK"
else
	# no timeout(1) in front: jcmd needs java's own pid
	(cd "$W" && exec java -Xmx256m -cp "$W/classes" AgentWorkload until \
		"$W/attached.hsa" >"$W/attach.out" 2>&1) &
	jpid=$!
	i=0
	while [ $i -lt 600 ] && ! grep -q waiting "$W/attach.out" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	# jcmd splits its arguments at '=': the agent's options go in quotes
	if ! jcmd $jpid JVMTI.agent_load "$LIB" "\"file=$W/attached.hsa,interval=64k\"" \
		>"$W/jcmd.out" 2>&1; then
		t_fail "jcmd failed: $(cat "$W/jcmd.out")"
		kill $jpid 2>/dev/null # it waits for a file that will not come
	fi
	wait $jpid
	jrc=$?
	[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 5 "$W/attach.out")"
	check "$W/attached.hsa" attached --require-end
	expect_valid attached
	expect_gt attached samples 0
	expect_gt attached deaths 0
	t_end
fi

t_summary
