#!/bin/sh
# Other writers' heap samples (issue 38; docs/formats/jfr.md, "Other
# writers"): async-profiler 4.5's recordings of a workload that prints
# its truth, and Datadog's public recording, read as their writers mean
# them.  Every expected value comes from outside heapsift: the JDK's
# `jfr print` and the writer's definitions (tests/thirdparty/check_ap.py),
# the workload's printed truth, an independent JFR reader written from
# the format (tests/thirdparty/jfr_events.py), async-profiler's own
# converter, and the numbers the fixtures' README states.
. "$(dirname "$0")/lib.sh"

export LC_ALL=C # sort and join alike
F=$HS_FIXTURES/thirdparty
CHECK="$(dirname "$0")/../thirdparty/check_ap.py"
READER="$(dirname "$0")/../thirdparty/jfr_events.py"
GROUPS="$(dirname "$0")/../thirdparty/groups_tsv.py"
CONV="$(dirname "$0")/../../tools/async-profiler-converter/jfr-converter.jar"
W=$T/work
have_jdk=yes
command -v jfr >/dev/null 2>&1 && command -v java >/dev/null 2>&1 ||
	have_jdk=
command -v python3 >/dev/null 2>&1 || t_skip_all "no python3"

# store NAME FILE: NAME.hsdb in $W from FILE
store() {
	[ -f "$W/$1.hsdb" ] || "$HEAPSIFT" import -o "$W/$1.hsdb" "$F/$2" \
		>/dev/null 2>"$W/$1.err"
}
for n in alloc alloc-live alloc-tlab cpu-alloc; do store $n $n.jfr; done
store dd datadog-event-with-type-zero.jfr.gz

# sites KIND NAME: heapsift's per-site samples and bytes, as check_ap.py's
sites() {
	"$HEAPSIFT" top --kind="$1" --by=site --csv "$W/$2.hsdb" |
		awk -F, 'NR > 1 { print $1 "\t" $2 "\t" $3 }' | sort
}

# Counts and bytes per site equal those from `jfr print` and the writer's
# definitions: InNewTLAB events whose tlabSize is max(size, I) are the
# JVMTI samples (ap-alloc, each weighed s / (1 - exp(-s/I))), others of
# the tlab mode keep the JDK's meaning, LiveObjects weigh as their
# samples.
t_begin thirdparty_ap_sites_as_jfr_and_the_writer_define_them
if [ -z "$have_jdk" ]; then
	t_skip "no JDK (jfr, java) on PATH"
else
	for c in alloc:ap-alloc alloc-live:ap-alloc alloc-live:ap-live \
		cpu-alloc:ap-alloc alloc-tlab:tlab alloc-tlab:outside; do
		n=${c%%:*} k=${c#*:}
		python3 "$CHECK" sites "$F/$n.jfr" "$k" | sort >"$W/want"
		sites "$k" "$n" >"$W/got"
		[ -s "$W/want" ] || t_fail "$n $k: jfr print gave no events"
		cmp -s "$W/want" "$W/got" ||
			t_fail "$n $k: $(diff "$W/want" "$W/got" | head -n 6)"
	done
	# the tlab mode's InNewTLAB events are none of the JVMTI samples
	run top --kind=ap-alloc "$W/alloc-tlab.hsdb"
	case $out in *" 0 samples"* | "") ;; *) t_fail "tlab mode read as samples: $out" ;; esac
	t_end
fi

# The estimate of every site of 5% or more of the truth is within three
# standard errors (Horvitz-Thompson, computed from jfr print) of what the
# workload printed.
t_begin thirdparty_ap_estimates_within_the_sampling_error_of_the_truth
if [ -z "$have_jdk" ]; then
	t_skip "no JDK (jfr, java) on PATH"
else
	for n in alloc alloc-live cpu-alloc; do
		for m in churn:22 big:35 leak:29; do
			site=TruthAlloc.$m
			truth=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); m=d['methods']['TruthAlloc.'+sys.argv[2]]; print(m['bytes'], d['totalBytes'])" \
				"$F/$n.truth.json" "${m%%:*}")
			set -- $truth
			[ $(($1 * 20)) -ge "$2" ] || continue
			got=$("$HEAPSIFT" top --kind=ap-alloc --by=site --csv \
				"$W/$n.hsdb" | awk -F, -v s="$site" '$1 == s { print $3 }')
			se=$(python3 "$CHECK" ht "$F/$n.jfr" ap-alloc "$site")
			python3 -c "import sys; t, g, e = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]); sys.exit(0 if abs(g - t) <= 3 * e else 1)" \
				"$1" "${got:-0}" "${se#* }" ||
				t_fail "$n $site: $got against the truth $1 (se ${se#* })"
		done
	done
	t_end
fi

# Survivors of alloc-live.jfr: LiveObjects are the sampled objects not
# yet collected when async-profiler stopped.  The leaking site is the
# one alive at the end, first; the 40-byte MethodType from JVM start-up
# is alive too, but no leak.
t_begin thirdparty_ap_live_objects_are_survivors
run survivors --by=site --csv "$W/alloc-live.hsdb"
first=$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)
[ "$first" = TruthAlloc.leak:29 ] ||
	t_fail "first survivor $first, not TruthAlloc.leak:29: $out"
run survivors --leaks "$W/alloc-live.hsdb"
case $out in *MethodType*) t_fail "a leak of the 40-byte MethodType: $out" ;; esac
run report --format=json "$W/alloc-live.hsdb"
case $out in *'"subject": "java.lang.invoke.MethodType'*) t_fail "the report calls the MethodType a leak" ;; esac
t_end

# async-profiler's converter, on the same files: per stack (Class.method,
# root first) its counts are heapsift's samples, exactly; its --total
# sums the writer's weights, max(s, I), where heapsift sums the
# unbiased s / (1 - exp(-s/I)): the bytes differ by that, and only that.
t_begin thirdparty_ap_stacks_as_async_profilers_converter_counts_them
if [ -z "$have_jdk" ] || [ ! -f "$CONV" ]; then
	t_skip "no JDK or no converter jar"
else
	norm_conv() { # strip _[x], / to ., the class leaf; sum equal stacks
		sed 's/_\[[a-z0-9]*\]//g' "$1" | awk '{
			v = $NF; $NF = ""; sub(/ $/, "")
			n = split($0, f, ";"); s = ""
			for (i = 1; i < n; i++) { g = f[i]; gsub("/", ".", g); s = s (i > 1 ? ";" : "") g }
			a[s] += v } END { for (k in a) print k " " a[k] }' | sort
	}
	norm_hs() { # drop :line; sum equal stacks
		sed 's/:[0-9-]*;/;/g; s/:[0-9-]* \([0-9]*\)$/ \1/' "$1" |
			awk '{ v = $NF; $NF = ""; sub(/ $/, ""); a[$0] += v }
			END { for (k in a) print k " " a[k] }' | sort
	}
	for c in alloc:alloc:ap-alloc alloc-live:live:ap-live; do
		n=${c%%:*} rest=${c#*:} mode=${rest%%:*} k=${rest#*:}
		java -jar "$CONV" --"$mode" -o collapsed "$F/$n.jfr" \
			"$W/c.txt" >/dev/null 2>&1 &&
			java -jar "$CONV" --"$mode" --total -o collapsed \
				"$F/$n.jfr" "$W/ct.txt" >/dev/null 2>&1 ||
			t_fail "$n: the converter failed"
		norm_conv "$W/c.txt" >"$W/conv.n"
		norm_conv "$W/ct.txt" >"$W/conv.t"
		"$HEAPSIFT" export --format=folded --value=samples --kind="$k" \
			"$W/$n.hsdb" >"$W/hs.f"
		norm_hs "$W/hs.f" >"$W/hs.n"
		"$HEAPSIFT" export --format=folded --kind="$k" "$W/$n.hsdb" \
			>"$W/hs.b"
		norm_hs "$W/hs.b" >"$W/hs.t"
		python3 "$CHECK" stacks "$F/$n.jfr" "$k" writer >"$W/w.t"
		python3 "$CHECK" stacks "$F/$n.jfr" "$k" bytes >"$W/b.t"
		[ -s "$W/conv.n" ] || t_fail "$n: the converter wrote nothing"
		cmp -s "$W/conv.n" "$W/hs.n" ||
			t_fail "$n counts: $(diff "$W/conv.n" "$W/hs.n" | head -n 4)"
		cmp -s "$W/conv.t" "$W/w.t" ||
			t_fail "$n: the converter's --total is not max(s, I): $(diff "$W/conv.t" "$W/w.t" | head -n 4)"
		cmp -s "$W/hs.t" "$W/b.t" ||
			t_fail "$n bytes: $(diff "$W/b.t" "$W/hs.t" | head -n 4)"
	done
	t_end
fi

# The writer is named, and so is the JDK's sampled event's absence.
t_begin thirdparty_writer_named_in_info_and_report
run info "$W/alloc.hsdb"
case $out in *"async-profiler"*) ;; *) t_fail "info names no writer: $out" ;; esac
run report "$W/alloc.hsdb"
case $out in *"written by async-profiler"*) ;; *) t_fail "the report names no writer" ;; esac
run info "$W/dd.hsdb"
case $out in *"Datadog java-profiler"*) ;; *) t_fail "info names no Datadog writer" ;; esac
# the JSON report of each is what docs/report.schema.json says
if python3 -c 'import jsonschema' 2>/dev/null; then
	for n in alloc-live dd; do
		run report --format=json "$W/$n.hsdb"
		printf '%s\n' "$out" >"$W/$n.json"
		python3 "$(dirname "$0")/../report/check_report.py" schema \
			"$(dirname "$0")/../../docs/report.schema.json" "$W/$n.json" 2>"$W/bad" ||
			t_fail "$n: schema: $(cat "$W/bad")"
	done
fi
t_end

# The independent reader is itself held to the JDK's jfr, on every file
# and chunk jfr reads right (the fixtures, async-profiler's files, the
# Datadog file's JDK chunks): counts and sums per class equal.
t_begin thirdparty_the_independent_reader_agrees_with_jfr
if [ -z "$have_jdk" ]; then
	t_skip "no JDK (jfr, java) on PATH"
else
	FIXTURES=$HS_FIXTURES sh "$(dirname "$0")/../thirdparty/check_against_jfr.sh" \
		>"$W/chk.out" 2>&1 || t_fail "$(grep -v '^ok' "$W/chk.out" | head -n 5)"
	[ "$(grep -c '^ok' "$W/chk.out")" -ge 40 ] || t_fail "fewer than 40 comparisons: $(tail -n 3 "$W/chk.out")"
	t_end
fi

# Datadog: datadog.ObjectSample per class as an independent reader
# (written from the format, not from heapsift's decoder) counts them,
# with their bytes as the writer defines them, size x weight; the JDK's
# chunks of the same file as the README states (jfr reads
# those right).
t_begin thirdparty_datadog_samples_per_class
"$HEAPSIFT" top --kind=dd-alloc --by=class --csv "$W/dd.hsdb" 2>"$W/top.err" |
	awk -F, 'NR > 1 { print $1 "\t" $2 "\t" $3 }' | sort >"$W/got"
python3 "$READER" count "$F/datadog-event-with-type-zero.jfr.gz" \
	--type datadog.ObjectSample --by class --sum 'size*weight' 2>"$W/r.err" |
	python3 "$GROUPS" 'size*weight' --float |
	sort >"$W/want"
[ "$(awk -F'\t' '{ n += $2 } END { print n }' "$W/want")" = 37103 ] ||
	t_fail "the reader does not find the README's 37,103 samples: $(cat "$W/r.err")"
# the counts exactly; the bytes within the rounding of each sample to a
# whole byte (half a byte a sample)
join -t "$(printf '\t')" "$W/want" "$W/got" | awk -F'\t' '
	$2 != $4 || ($5 - $3 > $2 / 2 + 1) || ($3 - $5 > $2 / 2 + 1) { print; bad = 1 }
	END { exit bad }' >"$W/dd.diff" || t_fail "per class (want n, bytes; got n, bytes): $(head -n 5 "$W/dd.diff")"
[ "$(join -t "$(printf '\t')" "$W/want" "$W/got" | wc -l)" = "$(wc -l <"$W/want")" ] &&
	[ "$(wc -l <"$W/want")" = "$(wc -l <"$W/got")" ] ||
	t_fail "classes: $(cut -f1 "$W/want" | wc -l) from the reader, $(wc -l <"$W/got") from heapsift: $(cat "$W/top.err")"
# the JDK's chunks of the same file: ObjectAllocationSample per class
# and its weights as the reader reads them (the reader agrees with jfr
# on those chunks, above)
# (names as recorded: the reader does not normalise a lambda's class)
"$HEAPSIFT" top --kind=alloc --estimate=jfr --by=class --csv --no-normalize "$W/dd.hsdb" |
	awk -F, 'NR > 1 { print $1 "\t" $2 "\t" $3 }' | sort >"$W/got.jdk"
python3 "$READER" count "$F/datadog-event-with-type-zero.jfr.gz" --chunk 1-2 \
	--type jdk.ObjectAllocationSample --by class --sum weight 2>>"$W/r.err" |
	python3 "$GROUPS" weight |
	sort >"$W/want.jdk"
[ -s "$W/want.jdk" ] && cmp -s "$W/want.jdk" "$W/got.jdk" ||
	t_fail "the JDK chunks' samples per class: $(diff "$W/want.jdk" "$W/got.jdk" | head -n 4)"
run info "$W/dd.hsdb"
for want in "jdk.ObjectAllocationSample 11988" \
	"jdk.ObjectAllocationInNewTLAB 22079" \
	"jdk.ObjectAllocationOutsideTLAB 920" "jdk.OldObjectSample 65" \
	"datadog.ObjectSample 37103"; do
	case $out in *"$want"*) ;; *) t_fail "info lacks '$want'" ;; esac
done
t_end

# HotSpot 11-24 samples objects allocated outside TLABs too seldom
# (docs/estimates.md): Datadog's samples come from that sampler, so a
# site a tenth or more of whose bytes are objects of 64 KB to four
# intervals (the writer's last interval setting, 519,828) is flagged as
# the agent's are; the sites, by the independent reader's arithmetic,
# are those heapsift flags (by method: the reader's stack top has no
# line).
t_begin thirdparty_datadog_sites_hotspot_undersamples_are_flagged
iv=519828
python3 "$READER" count "$F/datadog-event-with-type-zero.jfr.gz" --type datadog.ObjectSample \
	--by stack-top --sum 'size*weight' >"$W/all.json" 2>>"$W/r.err"
python3 "$READER" count "$F/datadog-event-with-type-zero.jfr.gz" --type datadog.ObjectSample \
	--by stack-top --sum 'size*weight' --where 'size>=65536' --where "size<$((4 * iv))" \
	>"$W/out.json" 2>>"$W/r.err"
python3 - "$W/all.json" "$W/out.json" <<'EOF2' | sort >"$W/want"
import json, sys
a, o = (json.load(open(p))["groups"] for p in sys.argv[1:3])
for k, g in o.items():
    if g["size*weight"] >= a[k]["size*weight"] / 10:
        print(k.replace("/", "."))
EOF2
"$HEAPSIFT" top --kind=dd-alloc --by=site --csv "$W/dd.hsdb" | tr -d '\r' |
	awk -F, '$7 == "outside" { sub(/:[0-9-]*$/, "", $1); print $1 }' | sort -u >"$W/got"
[ -s "$W/want" ] || t_fail "the reader finds no such site: the case is gone"
cmp -s "$W/want" "$W/got" || t_fail "flagged (want, got): $(cat "$W/want") / $(cat "$W/got")"
t_end

# A chunk the JDK wrote stays the JDK's though a Java agent declares its
# own events there (the Datadog file's second chunk holds dd-trace-java's
# datadog.ProfilerSetting, datadog.ExceptionSample...): alone, it is
# read as the JDK's, with no other writer named.
t_begin thirdparty_a_java_agents_events_leave_the_chunk_the_jdks
python3 "$READER" split "$F/datadog-event-with-type-zero.jfr.gz" "$W/chunk2.jfr" --chunk 2 >/dev/null 2>&1 ||
	t_fail "the reader could not split the chunk"
python3 "$READER" metadata "$W/chunk2.jfr" --all 2>/dev/null | grep -q '"datadog.ProfilerSetting"' ||
	t_fail "chunk 2 declares no datadog.* type: the case is gone"
run import -o "$W/chunk2.hsdb" "$W/chunk2.jfr"
[ $rc = 0 ] || t_fail "import: $err"
run info "$W/chunk2.hsdb"
case $out in *"written by"*) t_fail "a writer named for the JDK's chunk: $out" ;; esac
case $out in *"jdk.ObjectAllocationSample"*) ;; *) t_fail "its JDK samples are not read: $out" ;; esac
rm -f "$W/chunk2.hsdb"
t_end

# A recording of our own with the JDK's JFR, whose application defines
# an event named like async-profiler's (profiler.*) that looks like heap
# data: the chunk stays the JDK's (its jdk.ObjectAllocationInNewTLAB
# events mean what the JDK's do), and the application's events are named
# as not read, with the count the JVM printed.
t_begin thirdparty_an_applications_profiler_events_in_a_jdk_recording
if [ -z "$have_jdk" ] || ! command -v javac >/dev/null 2>&1; then
	t_skip "no JDK (java, javac, jfr) on PATH"
else
	mkdir -p "$W/app"
	cat >"$W/app/Notes.java" <<'JAVA'
import jdk.jfr.Event;
import jdk.jfr.Name;

public class Notes {
	@Name("profiler.AllocationNote")
	static class Note extends Event {
		Class<?> objectClass;
		long size;
	}

	public static void main(String[] a) {
		int n = 0;
		for (int i = 0; i < 50; i++) {
			Note e = new Note();
			e.objectClass = byte[].class;
			e.size = 1024;
			e.commit();
			n++;
		}
		byte[][] keep = new byte[2000][];
		for (int i = 0; i < keep.length; i++)
			keep[i] = new byte[4096];
		System.out.println(n + " " + keep.length);
	}
}
JAVA
	(cd "$W/app" && javac Notes.java &&
		java -XX:StartFlightRecording:filename=notes.jfr,settings=profile \
			-XX:FlightRecorderOptions:stackdepth=64 Notes >notes.out) \
		>"$W/app/java.log" 2>&1
	if [ ! -s "$W/app/notes.jfr" ]; then
		t_fail "the JVM made no recording: $(tail -n 3 "$W/app/java.log")"
	else
		n=$(cut -d' ' -f1 "$W/app/notes.out")
		run import -o "$W/notes.hsdb" "$W/app/notes.jfr"
		[ $rc = 0 ] || t_fail "import: status $rc: $err"
		expect_err "$n events of profiler.AllocationNote were not read"
		run info "$W/notes.hsdb"
		case $out in *"written by"*) t_fail "the JDK's chunk was given another writer: $out" ;; esac
		case $out in *"(async-profiler)"*) t_fail "the JDK's TLAB events read as async-profiler's" ;; esac
		rm -f "$W/notes.hsdb"
	fi
	t_end
fi

# Every kind has its word: --kind, dump --events, the CSV.
t_begin thirdparty_kinds_have_words
run dump --events=ap-live --format=tsv "$F/alloc-live.jfr"
n=$(printf '%s\n' "$out" | grep -c '^ap-live	')
[ "$n" = 17 ] || t_fail "dump --events=ap-live: $n lines, not 17"
run top --kind=profiler.LiveObject --csv "$W/alloc-live.hsdb"
[ $rc = 0 ] || t_fail "--kind by event name: $err"
run export --format=pprof --kind=dd-alloc -o - "$W/dd.hsdb"
[ $rc = 0 ] || t_fail "pprof of dd-alloc: $err"
t_end

# An event type that looks like heap data and that nothing reads gives
# one warning per type and is listed by info.
t_begin thirdparty_unread_heap_events_are_warned
python3 - "$F/alloc-live.jfr" "$W/renamed.jfr" <<'EOF'
import sys
# the metadata names its types as strings: rename profiler.LiveObject
# (19 bytes) to one of the same length that nothing reads
b = open(sys.argv[1], "rb").read()
assert b.count(b"profiler.LiveObject") == 1
open(sys.argv[2], "wb").write(b.replace(b"profiler.LiveObject", b"profiler.DeadObject"))
EOF
run import -o "$W/renamed.hsdb" "$W/renamed.jfr"
case $err in *"17 events of profiler.DeadObject were not read"*) ;;
*) t_fail "no warning for the unread events: $err" ;; esac
[ "$(printf '%s\n' "$err" | grep -c DeadObject)" = 1 ] || t_fail "not one warning: $err"
run info "$W/renamed.hsdb"
case $out in *"not read"*"profiler.DeadObject 17"*) ;; *) t_fail "info does not list it: $out" ;; esac
rm -f "$W/renamed.hsdb"
# the report made from the recording: its inventory names them, and the
# member is imported, not damaged (nothing is wrong with it)
mkdir -p "$W/home"
(cd "$T/cwd" && HOME=$W/home XDG_CACHE_HOME=$W/home "$HEAPSIFT" report \
	"$W/renamed.jfr" >"$W/rep.txt" 2>"$W/rep.err")
rc=$?
[ $rc = 0 ] || t_fail "report: exit status $rc"
grep -A1 ' imported ' "$W/rep.txt" | grep -q '17 events of profiler.DeadObject were not read' ||
	t_fail "the report's inventory does not name them: $(grep -A3 INVENTORY "$W/rep.txt")"
t_end

t_summary
