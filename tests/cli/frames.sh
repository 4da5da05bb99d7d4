#!/bin/sh
# How stacks become frames (docs/export.md, "Frames"): --frames=method,
# --leaf=class, --threads, --drop-frames and the normalisation of names,
# on tree, top, diff and the exports.  Expected values come from outside
# heapsift: the JDK's `jfr print --json` (each sample's frames, class and
# thread, for jdk17-default.jfr), arithmetic on the line-level output
# (awk), and two recordings of one workload made by two JVMs
# (tests/frames/FramesWorkload.java), whose lambdas, proxies and threads
# the JVMs number differently.
. "$(dirname "$0")/lib.sh"

W=$T/work
FX=$HS_FIXTURES/jfr/jdk17-default.jfr
run import -o "$W/d.hsdb" "$FX"
D=$W/d.hsdb

# folded FILE: "path value" lines sorted, for comparing
sorted() { LC_ALL=C sort "$1"; }

# The truth from the JDK: every jdk.ObjectAllocationSample of $FX as a
# folded line of samples, frames as class.method from the outermost
# caller, with the thread first (--threads) and the class last
# (--leaf=class) when $1 says so.
jfr_folded() {
	jfr print --json --stack-depth 10000 --events jdk.ObjectAllocationSample "$FX" |
		python3 -c '
import json, sys
mode = sys.argv[1]
prims = {"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int",
	 "J": "long", "S": "short", "Z": "boolean"}
def display(n, hidden=False):
	# a hidden class: the name by HotSpot, "+0x.." and "/N" by JFR after
	# the name of the class file, whose slashes alone are the package
	if hidden:
		head, sep, tail = n.partition("+")
		return head.replace("/", ".") + sep + tail
	dims = len(n) - len(n.lstrip("["))
	b = n[dims:]
	if dims and b.startswith("L") and b.endswith(";"):
		b = b[1:-1]
	elif dims:
		b = prims[b]
	return b.replace("/", ".") + "[]" * dims
acc = {}
for ev in json.load(sys.stdin)["recording"]["events"]:
	v = ev["values"]
	st = v.get("stackTrace")
	fr = [display(f["method"]["type"]["name"], f["method"]["type"]["hidden"]) +
	      "." + f["method"]["name"]
	      for f in (st["frames"] if st else [])][::-1] or ["(no stack)"]
	if "threads" in mode:
		fr.insert(0, "[" + v["eventThread"]["javaName"] + "]")
	if "leaf" in mode:
		fr.append(display(v["objectClass"]["name"]) + "_[k]")
	k = ";".join(fr)
	acc[k] = acc.get(k, 0) + 1
for k in sorted(acc):
	print(k, acc[k])
' "$1"
}

t_begin frames_method_adds_up_the_lines
# the same stacks at line level, lines cut off by awk and added up
run export "$D" --format=folded --value=samples --no-normalize
printf '%s\n' "$out" | awk '{
	v = $NF; sub(/ [0-9]+$/, "")
	n = split($0, f, ";"); k = ""
	for (i = 1; i <= n; i++) { sub(/:[0-9]+$/, "", f[i]); k = k (i > 1 ? ";" : "") f[i] }
	s[k] += v } END { for (k in s) print k, s[k] }' | LC_ALL=C sort >"$W/lines.txt"
run export "$D" --format=folded --value=samples --no-normalize --frames=method
expect_rc 0
printf '%s\n' "$out" | LC_ALL=C sort >"$W/method.txt"
[ -s "$W/lines.txt" ] || t_fail "no folded lines at line level"
cmp -s "$W/lines.txt" "$W/method.txt" ||
	t_fail "--frames=method is not the line-level stacks added up: $(diff "$W/lines.txt" "$W/method.txt" | head -n 5)"
# each stack once: merging after relabelling
dups=$(cut -d' ' -f1 "$W/method.txt" | uniq -d | head -n 3)
[ -z "$dups" ] || t_fail "a stack written twice: $dups"
t_end

t_begin frames_method_matches_jfr
if ! command -v jfr >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	t_skip "no jfr or python3 on PATH"
else
	jfr_folded plain >"$W/jfr-method.txt"
	run export "$D" --format=folded --value=samples --no-normalize --frames=method
	printf '%s\n' "$out" | LC_ALL=C sort >"$W/hs-method.txt"
	cmp -s "$W/jfr-method.txt" "$W/hs-method.txt" ||
		t_fail "folded --frames=method differs from jfr print's stacks: $(diff "$W/jfr-method.txt" "$W/hs-method.txt" | head -n 6)"
	t_end
fi

t_begin frames_method_one_root_per_method
# the issue: HeapWorkload.main was six roots, one per line
run tree "$D" --csv --depth=1 --min-share=0 --no-normalize
lines=$(printf '%s\n' "$out" | grep -c '^"\{0,1\}HeapWorkload\.main:[0-9]*"\{0,1\},1,')
run tree "$D" --csv --depth=1 --min-share=0 --frames=method
roots=$(printf '%s\n' "$out" | grep -c '^HeapWorkload\.main,1,')
[ "$lines" -gt 1 ] || t_fail "the fixture has $lines line-level roots of HeapWorkload.main: the case is gone"
[ "$roots" = 1 ] || t_fail "--frames=method: $roots roots HeapWorkload.main, expected 1"
# the method's root holds what its line roots held
run tree "$D" --csv --depth=1 --min-share=0 --no-normalize
want=$(printf '%s\n' "$out" | awk -F, '$2 == 1 && $1 ~ /^HeapWorkload\.main:/ { s += $4 } END { print s + 0 }')
run tree "$D" --csv --depth=1 --min-share=0 --frames=method
got=$(printf '%s\n' "$out" | awk -F, '$1 == "HeapWorkload.main" && $2 == 1 { print $4 }')
[ "$got" = "$want" ] || t_fail "HeapWorkload.main holds $got samples, its lines $want"
t_end

t_begin frames_method_tree_nodes_add_up
# each method's node holds what its line nodes held: the line-level
# tree's rows with the lines cut off the path, added up by awk (a stack
# passes through one node a depth, so the sums are exact), for samples,
# est_bytes, self_samples and self_bytes, in both trees
for inv in "" --inverted; do
	run tree "$D" $inv --csv --depth=0 --min-share=0 --no-normalize
	printf '%s\n' "$out" | python3 -c '
import csv, re, sys
acc = {}
for r in list(csv.reader(sys.stdin))[1:]:
	k = ";".join(re.sub(r":[0-9]+$", "", f) for f in r[0].split(";"))
	a = acc.setdefault(k, [0, 0, 0, 0])
	for i, c in enumerate((3, 4, 7, 8)):
		a[i] += int(r[c])
for k in sorted(acc):
	print(k, *acc[k])' >"$W/tree-lines.txt"
	run tree "$D" $inv --csv --depth=0 --min-share=0 --no-normalize --frames=method
	printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in sorted(list(csv.reader(sys.stdin))[1:]):
	print(r[0], r[3], r[4], r[7], r[8])' >"$W/tree-method.txt"
	cmp -s "$W/tree-lines.txt" "$W/tree-method.txt" ||
		t_fail "tree $inv --frames=method is not its lines added up: $(diff "$W/tree-lines.txt" "$W/tree-method.txt" | head -n 4)"
done
t_end

t_begin leaf_class_and_threads_match_jfr
if ! command -v jfr >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	t_skip "no jfr or python3 on PATH"
else
	jfr_folded threads,leaf >"$W/jfr-lt.txt"
	run export "$D" --format=folded --value=samples --no-normalize \
		--frames=method --leaf=class --threads
	expect_rc 0
	printf '%s\n' "$out" | LC_ALL=C sort >"$W/hs-lt.txt"
	cmp -s "$W/jfr-lt.txt" "$W/hs-lt.txt" ||
		t_fail "folded --leaf=class --threads differs from jfr print's: $(diff "$W/jfr-lt.txt" "$W/hs-lt.txt" | head -n 6)"
	# the inverted tree starts at the class
	run tree "$D" --inverted --csv --depth=1 --min-share=0 --leaf=class
	bad=$(printf '%s\n' "$out" | awk -F, 'NR > 2 && $2 == 1 && $3 !~ /_\[k\]"?$/' | head -n 2)
	[ -z "$bad" ] || t_fail "inverted tree roots that are no class: $bad"
	# the SVG draws the class frames as the allocated class and the
	# thread roots as threads (its titles' kinds), and no other frame
	# so: the names from jfr print's stacks, not heapsift's
	run export "$D" --format=svg --no-normalize --frames=method \
		--leaf=class --threads
	expect_rc 0
	printf '%s\n' "$out" >"$W/lt.svg"
	python3 - "$W/jfr-lt.txt" "$W/lt.svg" >"$W/svg.bad" 2>&1 <<'PY' ||
import html, re, sys
threads, classes = set(), set()
for line in open(sys.argv[1]):
    fr = line.rsplit(" ", 1)[0].split(";")
    threads.add(fr[0])
    classes.add(fr[-1])
bad, seen = [], {"thread": 0, "allocated class": 0}
for label, kind in re.findall(r'<g class="fr"[^>]*><title>([^\n]*)\n([^,<]*)',
                              open(sys.argv[2]).read()):
    label = html.unescape(label)
    want = ("thread" if label in threads else
            "allocated class" if label in classes else None)
    if kind in seen:
        seen[kind] += 1
    if (want or kind) in seen and want != kind:
        bad.append("%s: drawn as %s" % (label, kind))
if not seen["thread"] or not seen["allocated class"]:
    bad.append("no thread or class frame drawn: %s" % seen)
if bad:
    sys.exit("\n".join(bad[:10]))
PY
		t_fail "$(cat "$W/svg.bad")"
	t_end
fi

t_begin leaf_class_and_threads_match_async_profiler
# async-profiler's own converter (tools/async-profiler-converter) on the
# same recording, --alloc --threads: its collapsed stacks differ from
# heapsift's only where docs/export.md says (the frame types' suffixes
# _[0] _[j] _[i] _[1] of Java frames, a thread's " tid=N", and with
# --norm, which keeps a lambda's counter, $$Lambda$86): taken out by awk
CONV="$(dirname "$0")/../../tools/async-profiler-converter/jfr-converter.jar"
if ! command -v java >/dev/null 2>&1 || [ ! -f "$CONV" ]; then
	t_skip "no java, or no $CONV"
else
	for norm in "" --norm; do
		java -jar "$CONV" --alloc --threads --dot $norm -o collapsed "$FX" \
			"$W/ap.collapsed" >"$W/ap.log" 2>&1 ||
			t_fail "the converter failed: $(tail -n 2 "$W/ap.log")"
		awk -v norm="$norm" '{
			v = $NF; sub(/ [0-9]+$/, "")
			n = split($0, f, ";"); k = ""
			for (i = 1; i <= n; i++) {
				x = f[i]
				if (i == 1) sub(/ tid=[0-9]+\]$/, "]", x)
				else if (i < n) sub(/_\[[0-9a-z]\]$/, "", x)
				if (norm != "") sub(/\$\$Lambda\$[0-9]+\./, "$$Lambda.", x)
				k = k (i > 1 ? ";" : "") x
			}
			s[k] += v } END { for (k in s) print k, s[k] }' "$W/ap.collapsed" |
			LC_ALL=C sort >"$W/ap.txt"
		if [ -n "$norm" ]; then
			run export "$D" --format=folded --value=samples --frames=method \
				--leaf=class --threads
		else
			# the converter writes a hidden class's '/' as '.' with --dot
			run export "$D" --format=folded --value=samples --frames=method \
				--leaf=class --threads --no-normalize
			out=$(printf '%s\n' "$out" | sed 's|\(+0x[0-9a-f]*\)/|\1.|g')
		fi
		printf '%s\n' "$out" | LC_ALL=C sort >"$W/hs-ap.txt"
		[ "$(wc -l <"$W/ap.txt")" -gt 5 ] || t_fail "the converter wrote $(wc -l <"$W/ap.txt") stacks"
		cmp -s "$W/ap.txt" "$W/hs-ap.txt" ||
			t_fail "${norm:-plain}: differs from async-profiler's converter: $(diff "$W/ap.txt" "$W/hs-ap.txt" | head -n 4)"
	done
	t_end
fi

t_begin drop_frames_keeps_every_sample
run export "$D" --format=folded --value=samples --no-normalize --frames=method
total=$(printf '%s\n' "$out" | awk '{ s += $NF } END { print s }')
# the truth: java.* frames taken out of each line by awk, lines added up
printf '%s\n' "$out" | awk '{
	v = $NF; sub(/ [0-9]+$/, "")
	n = split($0, f, ";"); k = ""
	for (i = 1; i <= n; i++) if (f[i] !~ /^java\./) k = k (k == "" ? "" : ";") f[i]
	if (k == "") k = "[dropped]"
	s[k] += v } END { for (k in s) print k, s[k] }' | LC_ALL=C sort >"$W/drop-awk.txt"
run export "$D" --format=folded --value=samples --no-normalize --frames=method \
	--drop-frames='^java\.'
expect_rc 0
printf '%s\n' "$out" | LC_ALL=C sort >"$W/drop-hs.txt"
cmp -s "$W/drop-awk.txt" "$W/drop-hs.txt" ||
	t_fail "--drop-frames differs from the frames removed by awk: $(diff "$W/drop-awk.txt" "$W/drop-hs.txt" | head -n 6)"
run export "$D" --format=folded --value=samples --drop-frames=.
[ "$out" = "[dropped] $total" ] ||
	t_fail "every frame dropped: '$out', expected '[dropped] $total'"
# the trees keep the total too
run tree "$D" --csv --depth=0 --min-share=0 --drop-frames=.
got=$(printf '%s\n' "$out" | awk -F, '$3 == "[dropped]" { print $4 }')
[ "$got" = "$total" ] || t_fail "tree: [dropped] holds $got samples of $total"
t_end

t_begin frame_options_refuse_bad_values
run tree "$D" --frames=lines
expect_rc 2
expect_err "--frames: 'lines' is not line or method"
run export "$D" --format=folded --drop-frames='('
expect_rc 2
expect_err "--drop-frames"
run tree "$D" --leaf=thread
expect_rc 2
expect_err "--leaf: 'thread' is not class or none"
t_end

# --- normalisation, on two JVMs' recordings of one workload ------------------

if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	for c in normalize_makes_two_runs_match normalize_off_keeps_run_numbers \
		normalize_diff_rows_meet; do
		t_begin $c
		t_skip "no JDK (java, javac) on PATH"
	done
	t_summary
fi

J=$W/java
mkdir -p "$J"
cp "$(dirname "$0")/../frames/FramesWorkload.java" "$J/"
(cd "$J" && javac FramesWorkload.java &&
	for shift in 0 3; do
		java -Dsun.reflect.noInflation=true \
			-XX:StartFlightRecording:filename=run$shift.jfr,settings=profile \
			FramesWorkload $shift || exit 1
	done) >"$J/java.log" 2>&1
run import -o "$W/run0.hsdb" "$J/run0.jfr"
run import -o "$W/run3.hsdb" "$J/run3.jfr"

# keys WHAT RUN [OPTIONS]: the keys of `top --by=WHAT` (or the paths of
# `tree` for WHAT=tree) with their samples, "samples key" lines
keys() {
	what=$1 store=$2
	shift 2
	if [ "$what" = tree ]; then
		run tree "$store" --csv --depth=0 --min-share=0 "$@"
		printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in list(csv.reader(sys.stdin))[1:]:
	print(r[3], r[0])'
	else
		run top "$store" --by="$what" --csv --limit=0 "$@"
		printf '%s\n' "$out" | python3 -c '
import csv, sys
for r in list(csv.reader(sys.stdin))[1:]:
	print(r[1], r[0])'
	fi
}

# meet A B: every key with 40 samples or more in A has 5 or more in B (the
# sampling moves small keys between runs; a big one cannot vanish by
# chance); prints those that do not, and how many big keys A has
meet() {
	awk 'NR == FNR { if ($1 >= 5) { sub(/^[0-9]+ /, ""); have[$0] = 1 }; next }
	     $1 >= 40 { big++; sub(/^[0-9]+ /, ""); if (!($0 in have)) print "missing: " $0 }
	     END { print "big " big + 0 }' "$2" "$1"
}

t_begin normalize_makes_two_runs_match
if [ ! -s "$J/run0.jfr" ] || [ ! -s "$J/run3.jfr" ]; then
	t_fail "the workload made no recordings: $(tail -n 3 "$J/java.log")"
else
	for what in class thread tree; do
		keys $what "$W/run0.hsdb" >"$W/a.$what"
		keys $what "$W/run3.hsdb" >"$W/b.$what"
		for pair in "a b" "b a"; do
			set -- $pair
			m=$(meet "$W/$1.$what" "$W/$2.$what")
			case $m in
			*missing:*) t_fail "$what: normalised keys of one run missing in the other: $(printf '%s\n' "$m" | head -n 3)" ;;
			"big 0") t_fail "$what: no key with 40 samples" ;;
			esac
		done
	done
	# what the rules made of the workload's names
	grep -q ' FramesWorkload\$\$Lambda$' "$W/a.class" ||
		t_fail "no class FramesWorkload\$\$Lambda in: $(cat "$W/a.class")"
	for th in pool-N-thread-N Thread-N ForkJoinPool-N-worker-N main; do
		grep -q " $th\$" "$W/b.thread" || t_fail "no thread $th in: $(cat "$W/b.thread")"
	done
fi
t_end

t_begin normalize_off_keeps_run_numbers
for what in class thread tree; do
	keys $what "$W/run0.hsdb" --no-normalize >"$W/a.$what"
	keys $what "$W/run3.hsdb" --no-normalize >"$W/b.$what"
	m=$(meet "$W/a.$what" "$W/b.$what")
	case $m in
	*missing:*) ;;
	*) t_fail "$what: without normalisation the runs still match: the case is gone ($m)" ;;
	esac
done
grep -q ' pool-1-thread-1$' "$W/a.thread" || t_fail "run 0 has no pool-1-thread-1: $(cat "$W/a.thread")"
grep -q ' pool-4-thread-1$' "$W/b.thread" || t_fail "run 3 has no pool-4-thread-1: $(cat "$W/b.thread")"
t_end

t_begin normalize_diff_rows_meet
# diff's rows of the two runs by thread: each of the workload's threads
# is one row with samples on both sides
run diff "$W/run0.hsdb" "$W/run3.hsdb" --by=thread --csv
expect_rc 0
for th in pool-N-thread-N Thread-N ForkJoinPool-N-worker-N; do
	row=$(printf '%s\n' "$out" | grep "^$th,")
	[ -n "$row" ] || t_fail "diff has no row $th: $out"
done
run diff "$W/run0.hsdb" "$W/run3.hsdb" --by=thread --csv --no-normalize
printf '%s\n' "$out" | grep -q '^pool-1-thread-1,' ||
	t_fail "diff --no-normalize lost the run's own thread names: $out"
t_end

t_summary
