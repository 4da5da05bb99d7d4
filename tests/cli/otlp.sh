#!/bin/sh
# heapsift export --format=otlp (an OpenTelemetry profiles request) and
# --format=pprof --kinds=all (every kind in one pprof profile), each read
# by an independent decoder: protoc --decode (Debian's protobuf-compiler,
# installed here when missing) against the vendored upstream .proto files
# (src/formats/otlp/, src/formats/pprof/profile.proto), and go tool pprof.
# The expected values come from outside the OTLP writer: the pprof export
# as protoc decodes it (stack by stack), the JDK's jfr (event counts and
# sums, jdk.JVMInformation), and the inputs given.
. "$(dirname "$0")/lib.sh"
W="$T/work"
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/.." && pwd)
STACKS="$HERE/export/profile_stacks.py"
OTLP_MSG=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest
OTLP_PROTO=opentelemetry/proto/collector/profiles/v1development/profiles_service.proto

if ! have_cmd protoc protobuf-compiler; then
	t_skip_all "no protoc (apt-get install protobuf-compiler)"
fi
if ! command -v jfr >/dev/null 2>&1; then
	t_skip_all "no jfr (a JDK: apt-get install openjdk-17-jdk-headless)"
fi

# otlp_text FILE: protoc's decoding of an OTLP request (fails on bad input)
otlp_text() {
	protoc --decode=$OTLP_MSG -I "$ROOT/src/formats/otlp" $OTLP_PROTO \
		<"$1" 2>"$W/protoc.err"
}
# pprof_text FILE: protoc's decoding of a gzipped pprof profile
pprof_text() {
	gzip -dc "$1" | protoc --decode=perftools.profiles.Profile \
		-I "$ROOT/src/formats/pprof" profile.proto 2>"$W/protoc.err"
}
# pprof_stacks STORE ARGS...: every kind's single-kind pprof export, as
# "KIND TYPE/UNIT STACK VALUE" lines (profile_stacks.py), sorted
pprof_stacks() {
	_s=$1
	shift
	for _k in alloc tlab outside old agent ap-alloc ap-live dd-alloc dd-live; do
		run export "$_s" --format=pprof --kind $_k -o "$W/k.pb.gz" --force "$@"
		[ "$rc" = 0 ] || { echo "pprof --kind $_k: $err" >&2; return 1; }
		pprof_text "$W/k.pb.gz" | python3 "$STACKS" pprof || return 1
	done | LC_ALL=C sort
}
# jfr_count FILE EVENT: the events jfr summary counts
jfr_count() {
	jfr summary "$1" | awk -v e="$2" '$1 == e { print $2 }'
}

mkdir -p "$W"
F="$HS_FIXTURES"
zcat "$F/thirdparty/datadog-event-with-type-zero.jfr.gz" >"$W/dd.jfr"
python3 "$HERE/agent/make_recording.py" oddnames "$W/odd.hsa" >/dev/null
for x in tlab:"$F/jfr/jdk17-profile-tlab.jfr" burst:"$F/workloads/jdk17-alloc-burst.jfr" \
	ap:"$F/thirdparty/alloc-live.jfr" dd:"$W/dd.jfr" agent:"$W/odd.hsa"; do
	"$HEAPSIFT" import -o "$W/${x%%:*}.hsdb" "${x#*:}" >/dev/null 2>&1
done
"$HEAPSIFT" import -o "$W/two.hsdb" "$F/jfr/jdk17-profile-tlab.jfr" \
	"$F/jfr/jdk17-leak-gcroots.jfr" >/dev/null 2>&1

t_begin otlp_decodes_and_equals_pprof_stack_by_stack
# every kind of JDK recordings, async-profiler's, Datadog's, the agent's,
# and two recordings in one store (two resources, summed per stack)
for s in tlab burst ap dd agent two; do
	run export "$W/$s.hsdb" --format=otlp -o "$W/$s.otlp"
	expect_rc 0
	otlp_text "$W/$s.otlp" >"$W/$s.txt" ||
		{ t_fail "$s: protoc cannot decode it: $(head -3 "$W/protoc.err")"; continue; }
	python3 "$STACKS" otlp <"$W/$s.txt" | LC_ALL=C sort >"$W/$s.o"
	pprof_stacks "$W/$s.hsdb" >"$W/$s.p" || t_fail "$s: pprof export unreadable"
	[ -s "$W/$s.o" ] || t_fail "$s: no samples in the OTLP request"
	cmp -s "$W/$s.o" "$W/$s.p" ||
		t_fail "$s: OTLP and pprof differ: $(diff "$W/$s.o" "$W/$s.p" | head -6)"
done
# the kinds and types each recording has (jfr summary's events; the
# pprof export's types, after Go's heap profiles)
cut -f1,2 "$W/tlab.o" | LC_ALL=C sort -u | tr '\t' ' ' >"$W/types"
cat >"$W/types.want" <<'EOT'
jdk.ObjectAllocationInNewTLAB alloc_space/bytes
jdk.ObjectAllocationInNewTLAB samples/count
jdk.ObjectAllocationOutsideTLAB alloc_objects/count
jdk.ObjectAllocationOutsideTLAB alloc_space/bytes
jdk.ObjectAllocationOutsideTLAB samples/count
jdk.ObjectAllocationSample alloc_space/bytes
jdk.ObjectAllocationSample samples/count
jdk.OldObjectSample alloc_objects/count
jdk.OldObjectSample alloc_space/bytes
jdk.OldObjectSample inuse_objects/count
jdk.OldObjectSample inuse_space/bytes
jdk.OldObjectSample samples/count
EOT
cmp -s "$W/types" "$W/types.want" ||
	t_fail "tlab: kinds and types: $(diff "$W/types" "$W/types.want" | head -6)"
kinds=$(cut -f1 "$W/ap.o" | LC_ALL=C sort -u | tr '\n' ',')
[ "$kinds" = "jdk.ObjectAllocationInNewTLAB (async-profiler),profiler.LiveObject," ] ||
	t_fail "async-profiler kinds: $kinds"
grep -q '^datadog.ObjectSample	' "$W/dd.o" || t_fail "no datadog.ObjectSample profile"
grep -q '^heapsift.AgentSample	inuse_space/bytes	' "$W/agent.o" ||
	t_fail "no agent inuse_space profile"
t_end

t_begin otlp_totals_match_jfr
# --estimate=jfr: the events' own weights, which jfr prints
run export "$W/tlab.hsdb" --format=otlp --estimate=jfr -o "$W/jfr.otlp"
expect_rc 0
otlp_text "$W/jfr.otlp" | python3 "$STACKS" otlp >"$W/jfr.o"
J="$F/jfr/jdk17-profile-tlab.jfr"
for e in jdk.ObjectAllocationSample jdk.ObjectAllocationInNewTLAB \
	jdk.ObjectAllocationOutsideTLAB jdk.OldObjectSample; do
	want=$(jfr_count "$J" $e)
	got=$(awk -F'\t' -v e=$e '$1 == e && $2 == "samples/count" { s += $4 }
		END { printf "%.0f", s }' "$W/jfr.o")
	[ "$got" = "$want" ] || t_fail "$e: $got samples, jfr summary counts $want"
done
jfr print --json --events jdk.ObjectAllocationSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB \
	"$J" >"$W/ev.json"
python3 - "$W/ev.json" "$W/jfr.o" <<'PY' || t_fail "bytes: see above"
import json, sys
field = {"jdk.ObjectAllocationSample": "weight",
         "jdk.ObjectAllocationInNewTLAB": "tlabSize",
         "jdk.ObjectAllocationOutsideTLAB": "allocationSize"}
want = {}
for ev in json.load(open(sys.argv[1]))["recording"]["events"]:
    t = ev["type"]
    want[t] = want.get(t, 0) + int(ev["values"][field[t]])
got = {}
for line in open(sys.argv[2]):
    k, t, st, v = line.rstrip("\n").split("\t")
    if t == "alloc_space/bytes":
        got[k] = got.get(k, 0) + int(v)
bad = ["%s: %d bytes, jfr's events %d" % (k, got.get(k, 0), v)
       for k, v in want.items() if got.get(k, 0) != v]
if bad:
    sys.exit("  " + "\n  ".join(bad))
PY
t_end

t_begin otlp_resource_is_the_recordings_jvm
J="$F/workloads/jdk17-alloc-burst.jfr"
otlp_text "$W/burst.otlp" | python3 "$STACKS" otlp --resources >"$W/burst.res"
jfr print --events jdk.JVMInformation "$J" >"$W/jvm.txt"
jfr summary "$J" >"$W/sum.txt"
python3 - "$W/jvm.txt" "$W/sum.txt" "$W/burst.res" "$J" <<'PY' || t_fail "resource: see above"
import calendar, re, sys, time
jvm = {}
for line in open(sys.argv[1]):
    m = re.match(r'^\s+(\w+) = (.*)$', line)
    if m:
        v = m.group(2)
        jvm[m.group(1)] = v[1:-1] if v.startswith('"') else v
s = open(sys.argv[2]).read()
start = calendar.timegm(time.strptime(
    re.search(r"Start: (\S+ \S+) \(UTC\)", s).group(1), "%Y-%m-%d %H:%M:%S"))
dur = int(re.search(r"Duration: (\d+) s", s).group(1))
attrs, profiles = {}, []
for line in open(sys.argv[3]):
    i, k, v = line.rstrip("\n").split("\t")
    if k == "profile":
        profiles.append(v.split(" "))
    else:
        attrs[k] = v
want = {"process.runtime.name": jvm["jvmName"],
        "process.runtime.version": jvm["jvmVersion"],
        "process.pid": jvm["pid"],
        "heapsift.recording.name": sys.argv[4],
        "heapsift.recording.format": "jfr"}
bad = ["%s = %r, want %r" % (k, attrs.get(k), v)
       for k, v in want.items() if attrs.get(k) != v]
if not profiles:
    bad.append("no profile")
for p in profiles:
    t0, d = int(p[-3]), int(p[-2])
    # jfr summary gives the start to the second and the duration rounded
    if t0 // 10**9 != start or abs(d / 1e9 - dur) > 1:
        bad.append("profile %s: time %d + %d ns, jfr says %d + %d s" % (p[:2], t0, d, start, dur))
if bad:
    sys.exit("  " + "\n  ".join(bad))
PY
# two recordings: a resource each, named by its input
otlp_text "$W/two.otlp" | python3 "$STACKS" otlp --resources |
	awk -F'\t' '$2 == "heapsift.recording.name" { print $1 " " $3 }' >"$W/two.names"
printf '0 %s\n1 %s\n' "$F/jfr/jdk17-profile-tlab.jfr" "$F/jfr/jdk17-leak-gcroots.jfr" >"$W/two.want"
cmp -s "$W/two.names" "$W/two.want" || t_fail "two recordings: $(cat "$W/two.names")"
t_end

t_begin otlp_filters_and_usage
run export "$W/tlab.hsdb" --format=otlp --kind tlab -o "$W/k.otlp"
expect_rc 0
kinds=$(otlp_text "$W/k.otlp" | python3 "$STACKS" otlp | cut -f1 | sort -u)
[ "$kinds" = jdk.ObjectAllocationInNewTLAB ] || t_fail "--kind tlab gave $kinds"
# a class filter: the same stacks as pprof's with the same filter
run export "$W/tlab.hsdb" --format=otlp --class '^byte' -o "$W/c.otlp"
expect_rc 0
otlp_text "$W/c.otlp" | python3 "$STACKS" otlp | LC_ALL=C sort >"$W/c.o"
pprof_stacks "$W/tlab.hsdb" --class '^byte' >"$W/c.p"
[ -s "$W/c.o" ] && cmp -s "$W/c.o" "$W/c.p" || t_fail "--class: OTLP and pprof differ"
cmp -s "$W/c.o" "$W/tlab.o" && t_fail "--class filtered nothing"
run export "$W/tlab.hsdb" --format=otlp --kinds=all -o "$W/x"
expect_rc 2
run export "$W/tlab.hsdb" --format=pprof --kinds=some -o "$W/x"
expect_rc 2
run export "$W/tlab.hsdb" --format=pprof --kinds=all --kind tlab -o "$W/x"
expect_rc 2
[ -e "$W/x" ] && t_fail "a usage error wrote a file"
t_end

t_begin pprof_kinds_all_holds_each_kinds_export
run export "$W/tlab.hsdb" --format=pprof --kinds=all --estimate=jfr -o "$W/all.pb.gz"
expect_rc 0
pprof_text "$W/all.pb.gz" >"$W/all.txt" || t_fail "protoc cannot decode it"
pprof_stacks "$W/tlab.hsdb" --estimate=jfr | awk -F'\t' '$4 != 0' >"$W/one.p"
# the all-kinds profile: types KIND.TYPE, a kind's samples 0 elsewhere
python3 "$STACKS" pprof <"$W/all.txt" | python3 -c '
import sys
name = {"alloc": "jdk.ObjectAllocationSample", "tlab": "jdk.ObjectAllocationInNewTLAB",
        "outside": "jdk.ObjectAllocationOutsideTLAB", "old": "jdk.OldObjectSample"}
sums = {}
for line in sys.stdin:
    _, t, st, v = line.rstrip("\n").split("\t")
    w, t = t.split(".", 1)
    sums[(name[w], t, st)] = sums.get((name[w], t, st), 0) + int(v)
for (k, t, st), v in sorted(sums.items()):
    if v:
        print("%s\t%s\t%s\t%d" % (k, t, st, v))' | LC_ALL=C sort >"$W/all.p"
[ -s "$W/all.p" ] && cmp -s "$W/all.p" "$W/one.p" ||
	t_fail "all kinds differ from each kind's export: $(diff "$W/all.p" "$W/one.p" | head -6)"
if ! have_go; then
	t_skip "no go (apt-get install golang-go)"
else
	# go tool pprof switches between the kinds with -sample_index; each
	# kind's samples are the events jfr counts
	J="$F/jfr/jdk17-profile-tlab.jfr"
	for x in alloc:jdk.ObjectAllocationSample tlab:jdk.ObjectAllocationInNewTLAB \
		outside:jdk.ObjectAllocationOutsideTLAB old:jdk.OldObjectSample; do
		got=$(HOME="$W" GOCACHE="$W/gocache" GOFLAGS= go tool pprof -top \
			-sample_index=${x%%:*}.samples "$W/all.pb.gz" 2>&1 |
			sed -n 's/.*Total samples = \([0-9]*\) *$/\1/p')
		want=$(jfr_count "$J" ${x#*:})
		[ "$got" = "$want" ] ||
			t_fail "-sample_index=${x%%:*}.samples: $got, jfr summary counts $want"
	done
	t_end
fi

t_summary
