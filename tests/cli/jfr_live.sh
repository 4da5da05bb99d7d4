#!/bin/sh
# Live JFR cross-check: records a FRESH recording with the JDK on this
# machine (fixtures/jfr/src/HeapWorkload.java, ~4 s, G1, -Xmx512m, the
# fixtures' heapsample.jfc plus jdk.ObjectAllocationInNewTLAB) and
# compares heapsift's import of it with the JDK's own `jfr` tool, on the
# spot:
#   - every jdk.ObjectAllocationSample equals `jfr print --json
#     --stack-depth 2048` (converted by tests/jfr/json_to_tsv.py, compared
#     by tests/jfr/compare_tsv.py: thread, class, weight, truncated flag,
#     every frame, time within 1 us);
#   - `heapsift dump --stats` lists exactly the event types `jfr summary`
#     counts (count > 0), with the same counts (and `--bench` the same,
#     plus the file's byte count on its speed line);
#   - the tlab rows of `heapsift dump` add up to the tlabSize of the
#     jdk.ObjectAllocationInNewTLAB events `jfr print --json` shows.
# So heapsift is checked against JDK versions and JVM behaviour the
# committed fixtures were not made with.
#
# Without java or jfr on PATH every case is reported as skipped ("skip
# NAME: why", counted, never a pass).
#
# Run: HEAPSIFT=$PWD/heapsift sh tests/cli/jfr_live.sh
. "$(dirname "$0")/lib.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
W=$T/work
SRC=$top/fixtures/jfr/src
J2T=$top/tests/jfr/json_to_tsv.py
CMP=$top/tests/jfr/compare_tsv.py
REC=$W/live.jfr
SECONDS_TO_RUN=4

if ! command -v java >/dev/null 2>&1 || ! command -v jfr >/dev/null 2>&1; then
	t_skip_all "no JDK (java and jfr) on this machine"
fi

t_begin 0_prerequisites
for f in "$SRC/HeapWorkload.java" "$SRC/heapsample.jfc" "$J2T" "$CMP"; do
	[ -f "$f" ] || t_fail "missing $f"
done
for tool in javac python3 awk sort; do
	command -v "$tool" >/dev/null 2>&1 || t_fail "missing tool $tool"
done
[ -x "$HEAPSIFT" ] || t_fail "HEAPSIFT=$HEAPSIFT is not executable"
if [ $t_bad = 1 ]; then
	t_end
	t_summary
fi
t_end

# --- record ---------------------------------------------------------------
# A guard against a hung JVM, when coreutils' timeout is there.
TO=
command -v timeout >/dev/null 2>&1 && TO="timeout 120"

t_begin record_fresh_jfr
cp "$SRC/heapsample.jfc" "$W/heapsample.jfc"
if ! javac -d "$W/classes" "$SRC/HeapWorkload.java" >"$W/javac.log" 2>&1; then
	t_fail "javac failed: $(cat "$W/javac.log")"
else
	# relative paths on the command line, as make17.sh does
	(cd "$W" && $TO java -cp classes -Xmx512m -XX:+UseG1GC \
		"-XX:StartFlightRecording:filename=live.jfr,settings=heapsample.jfc,+jdk.ObjectAllocationInNewTLAB#enabled=true" \
		HeapWorkload "$SECONDS_TO_RUN" base >"$W/java.log" 2>&1)
	jrc=$?
	[ $jrc = 0 ] || t_fail "java exited with $jrc: $(tail -n 20 "$W/java.log")"
	[ -s "$REC" ] || t_fail "no recording at $REC"
fi
if [ $t_bad = 1 ]; then
	t_end
	t_summary
fi
t_end

java_version=$(java -version 2>&1 | head -n 1)
echo "# recorded $(size "$REC") bytes with $java_version"

# jfr summary: "TYPE COUNT SIZE" lines; the types with count > 0, sorted.
jfr summary "$REC" >"$W/summary.txt" 2>"$W/summary.err"
src=$?
awk 'NF == 3 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $2 > 0 { print $1, $2 }' \
	"$W/summary.txt" | LC_ALL=C sort >"$W/summary.counts"
# count TYPE: what jfr summary says
jfr_count() { awk -v t="$1" '$1 == t { print $2 }' "$W/summary.counts"; }

# --- (a) every ObjectAllocationSample ---------------------------------------
t_begin alloc_samples_match_jfr_print
if ! jfr print --json --stack-depth 2048 --events jdk.ObjectAllocationSample \
	"$REC" >"$W/alloc.json" 2>"$W/alloc.err"; then
	t_fail "jfr print failed: $(cat "$W/alloc.err")"
fi
n_ref=$(python3 "$J2T" "$W/alloc.json" "$W/alloc.ref.tsv.gz" 2>"$W/j2t.err") ||
	t_fail "json_to_tsv.py failed: $(cat "$W/j2t.err")"
n_sum=$(jfr_count jdk.ObjectAllocationSample)
# The converter must see every event jfr summary counts, and there must
# be something to compare.
[ "$n_ref" = "${n_sum:-0}" ] ||
	t_fail "jfr print --json has $n_ref samples, jfr summary counts ${n_sum:-0}"
[ "${n_ref:-0}" -gt 0 ] 2>/dev/null || t_fail "the recording has no ObjectAllocationSample"
run dump --format=tsv --raw-names --events=alloc "$REC"
expect_rc 0
expect_no_err
printf '%s\n' "$out" >"$W/alloc.dump.tsv"
if ! python3 "$CMP" "$W/alloc.ref.tsv.gz" "$W/alloc.dump.tsv" >"$W/cmp.out" 2>&1; then
	t_fail "heapsift differs from jfr print:
$(cat "$W/cmp.out")"
fi
t_end

# --- (b) event type counts ----------------------------------------------------
t_begin stats_counts_match_jfr_summary
[ $src = 0 ] || t_fail "jfr summary failed: $(cat "$W/summary.err")"
[ -s "$W/summary.counts" ] || t_fail "no counts in jfr summary output"
run dump --stats "$REC"
expect_rc 0
heads=$(printf '%s\n' "$out" | grep -c '^# ')
[ "$heads" = 1 ] || t_fail "$heads '# SOURCE' lines for one recording; stdout: $out"
printf '%s\n' "$out" | awk '!/^#/ && NF { print $1, $2 }' | LC_ALL=C sort \
	>"$W/stats.counts"
# every type jfr counts, with its count; nothing else
d=$(LC_ALL=C join -a 1 -a 2 -e MISSING -o 0,1.2,2.2 \
	"$W/summary.counts" "$W/stats.counts" | awk '$2 != $3')
[ -z "$d" ] || t_fail "TYPE jfr-summary heapsift differ:
$d"
expect_no_err
stats_out=$out
# --bench: the same counts, and a speed line on stderr that reports the
# bytes of the (plain) file
run dump --bench "$REC"
expect_rc 0
[ "$out" = "$stats_out" ] || t_fail "dump --bench prints other counts than dump --stats"
expect_err "heapsift dump: decoded $(size "$REC") bytes, "
t_end

# --- (c) TLAB sizes -----------------------------------------------------------
t_begin tlab_sizes_match_jfr_print
if ! jfr print --json --stack-depth 1 --events jdk.ObjectAllocationInNewTLAB \
	"$REC" >"$W/tlab.json" 2>"$W/tlab.err"; then
	t_fail "jfr print failed: $(cat "$W/tlab.err")"
fi
# "COUNT SUM" of tlabSize, as jfr print shows them
exp=$(python3 - "$top/tests/jfr" "$W/tlab.json" <<'EOF' 2>"$W/py.err"
import sys
sys.path.insert(0, sys.argv[1])
from json_to_tsv import events
n = s = 0
for e in events(sys.argv[2], "jdk.ObjectAllocationInNewTLAB"):
    n += 1
    s += e["values"]["tlabSize"]
print(n, s)
EOF
) || t_fail "summing tlabSize failed: $(cat "$W/py.err")"
n_tl=$(jfr_count jdk.ObjectAllocationInNewTLAB)
[ "${exp%% *}" = "${n_tl:-0}" ] ||
	t_fail "jfr print --json has ${exp%% *} InNewTLAB events, jfr summary counts ${n_tl:-0}"
[ "${n_tl:-0}" -gt 0 ] 2>/dev/null || t_fail "the recording has no ObjectAllocationInNewTLAB"
run dump --format=tsv --raw-names --events=tlab "$REC"
expect_rc 0
expect_no_err
printf '%s\n' "$out" >"$W/tlab.dump.tsv"
got=$(python3 - "$W/tlab.dump.tsv" <<'EOF'
import sys
n = s = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        c = line.rstrip("\n").split("\t")
        if c[0] == "tlab":
            n += 1
            s += int(c[5])
print(n, s)
EOF
)
[ "$got" = "$exp" ] ||
	t_fail "rows and Σ tlabSize: jfr print '$exp', heapsift '$got'"
t_end

t_begin jvm_facts_match_jfr_print
# default settings record jdk.JVMInformation; its name and version must
# come through as `jfr print` shows them, and info must show them
(cd "$T/work" && java -XX:StartFlightRecording:filename=jv.jfr,settings=default \
	-version >/dev/null 2>&1)
if [ ! -s "$T/work/jv.jfr" ]; then
	t_fail "java -version recorded nothing"
else
	want_name=$(jfr print --events jdk.JVMInformation "$T/work/jv.jfr" |
		sed -n 's/^ *jvmName = "\(.*\)"$/\1/p' | head -n 1)
	run import -o "$T/work/jv.hsdb" "$T/work/jv.jfr"
	run info "$T/work/jv.hsdb"
	printf '%s\n' "$out" | grep -F "  jvm         $want_name " >/dev/null ||
		t_fail "info does not show the JVM '$want_name': $out"
	want_version=$(jfr print --events jdk.JVMInformation "$T/work/jv.jfr" |
		sed -n 's/^ *jvmVersion = "\(.*\)"$/\1/p' | head -n 1)
	printf '%s\n' "$out" | grep -F "$want_version" >/dev/null ||
		t_fail "info does not show the version '$want_version'"
	[ -n "$want_name" ] && [ -n "$want_version" ] ||
		t_fail "jfr print shows no JVMInformation"
fi
t_end

t_begin names_outside_the_bmp_as_java_wrote_them
# The JVM keeps names in its modified UTF-8: a character outside the
# Basic Multilingual Plane is a surrogate pair, 3 bytes each (ED A0..
# ED B0..), which JFR writes as it is.  A class and a method named with
# U+1D49C (MATHEMATICAL SCRIPT CAPITAL A, a Java letter) must come out
# as the source spells them, in proper UTF-8 (F0 9D 92 9C): the reader's
# rare path for such strings.  The source is the truth here.  Its one
# allocation is an array of that class in that method, so every sample
# names both (an Ob𝒜 of its own, 16 bytes, was seldom sampled beside the
# array it held: the case failed one run in two).
mkdir -p "$W/supp"
printf '%s\n' 'public class Supp {' \
	'  static class Ob𝒜 { }' \
	'  static volatile Object sink;' \
	'  static void make𝒜() { for (int i = 0; i < 10000; i++) sink = new Ob𝒜[16]; }' \
	'  public static void main(String[] a) {' \
	'    long end = System.nanoTime() + 1_500_000_000L;' \
	'    while (System.nanoTime() < end) make𝒜();' \
	'  }' \
	'}' >"$W/supp/Supp.java"
if ! javac -encoding UTF-8 -d "$W/supp" "$W/supp/Supp.java" >"$W/supp/javac.log" 2>&1; then
	t_fail "javac failed: $(cat "$W/supp/javac.log")"
else
	(cd "$W/supp" && $TO java -cp . -XX:StartFlightRecording:filename=supp.jfr,settings=profile \
		Supp >"$W/supp/java.log" 2>&1) ||
		t_fail "java failed: $(tail -n 5 "$W/supp/java.log")"
	run import -o "$W/supp/supp.hsdb" "$W/supp/supp.jfr"
	expect_rc 0
	run top "$W/supp/supp.hsdb" --by class --csv --limit 0
	printf '%s\n' "$out" | grep -F 'Supp$Ob𝒜[],' >/dev/null ||
		t_fail "no class Supp\$Ob𝒜[]: $(printf '%s\n' "$out" | head -n 5 | cat -v)"
	run top "$W/supp/supp.hsdb" --by site --csv --limit 0
	printf '%s\n' "$out" | grep -F 'Supp.make𝒜:' >/dev/null ||
		t_fail "no site Supp.make𝒜: $(printf '%s\n' "$out" | head -n 5 | cat -v)"
	run dump "$W/supp/supp.hsdb"
	printf '%s\n' "$out" | LC_ALL=C grep "$(printf '\355[\240-\277]')" >/dev/null &&
		t_fail "a surrogate's bytes came through: $(printf '%s\n' "$out" | LC_ALL=C grep "$(printf '\355')" | head -n 2 | cat -v)"
fi
t_end

t_summary
