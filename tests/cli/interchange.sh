#!/bin/sh
# heapsift export --format=folded, pprof, speedscope and svg, each read by
# its real consumer, installed here when missing (go tool pprof from
# Debian's golang-go, speedscope's published schema from npm;
# build-aux/deps.sh ci installs go, node and npm so that CI skips
# nothing), and the sync before every exported file's name, the fleet
# lake's included (tests/cli/lake.sh reads the lake in DuckDB).  The
# expected numbers come from outside export: the CSV export read by
# sqlite3, `heapsift top` (which store.sh holds to the JDK's jfr), the
# ground truth tests/agent/make_recording.py prints, and arithmetic.
. "$(dirname "$0")/lib.sh"
F="$HS_FIXTURES/jfr"
W="$T/work"
HERE=$(cd "$(dirname "$0")/.." && pwd)
. "$HERE/export/npm.sh"

"$HEAPSIFT" import -o "$W/c.hsdb" "$F/jdk17-profile-tlab.jfr" \
	"$F/jdk17-leak-gcroots.jfr" >/dev/null 2>&1
"$HEAPSIFT" export "$W/c.hsdb" --format=csv -o "$W/csv" >/dev/null 2>&1
python3 "$HERE/agent/make_recording.py" oddnames "$W/odd.hsa" >"$W/odd.json"
"$HEAPSIFT" import -o "$W/odd.hsdb" "$W/odd.hsa" >/dev/null 2>&1

kind_name() {
	case $1 in
	alloc) echo jdk.ObjectAllocationSample ;;
	tlab) echo jdk.ObjectAllocationInNewTLAB ;;
	outside) echo jdk.ObjectAllocationOutsideTLAB ;;
	old) echo jdk.OldObjectSample ;;
	agent) echo heapsift.AgentSample ;;
	esac
}
# sql QUERY: over the CSV export's samples and classes, one line a row
sql() {
	(cd "$W/csv" && sqlite3 -csv :memory: ".import --csv samples.csv samples" \
		".import --csv classes.csv classes" "$1") | tr -d '\r'
}
# top_total ARGS: "samples,est_bytes" summed over top --csv's rows
top_total() {
	run top "$@" --csv
	printf '%s\n' "$out" | tr -d '\r' | sed 1d |
		awk -F, '{ s += $(NF-5); b += $(NF-4) } END { printf "%.0f,%.0f\n", s, b }'
}
# folded_sum FILE: the sum of the values (the text after the last space)
folded_sum() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }

t_begin folded_sums_match_top_and_the_csv_export
# the CSV export holds the samples as recorded: the JFR weights
# (--estimate=jfr), not the estimate corrected by the OutsideTLAB
# events that this recording's views show by default
for kind in alloc tlab outside; do
	name=$(kind_name $kind)
	want=$(sql "SELECT count(*), sum(est_bytes) FROM samples WHERE kind = '$name';")
	got=$(top_total "$W/c.hsdb" --kind $kind --estimate=jfr)
	[ "$got" = "$want" ] || t_fail "$kind: top says $got, the CSV export $want"
	run export "$W/c.hsdb" --format=folded --kind $kind --estimate=jfr
	expect_rc 0
	printf '%s\n' "$out" >"$W/b.folded"
	run export "$W/c.hsdb" --format=folded --kind $kind --value=samples --estimate=jfr
	expect_rc 0
	printf '%s\n' "$out" >"$W/s.folded"
	got="$(folded_sum "$W/s.folded"),$(folded_sum "$W/b.folded")"
	[ "$got" = "$want" ] || t_fail "$kind: folded sums $got, the CSV export $want"
	# every line: frames, a space, an integer
	bad=$(grep -cvE '^[^;]+(;[^;]+)* [0-9]+$' "$W/b.folded")
	[ "$bad" = 0 ] || t_fail "$kind: $bad lines are not 'a;b;c N'"
	# each stack once: no two lines with the same frames (these
	# recordings have stack nodes that print the same: one frame by
	# JIT and interpreter, or at two bytecode indexes of one line)
	dup=$(sed 's/ [0-9]*$//' "$W/b.folded" | sort | uniq -d | head -3)
	[ -z "$dup" ] || t_fail "$kind: stacks on more than one line: $dup"
done
# objects: one per OutsideTLAB event (docs/export.md)
want=$(sql "SELECT count(*) FROM samples WHERE kind = 'jdk.ObjectAllocationOutsideTLAB';")
run export "$W/c.hsdb" --format=folded --kind outside --value=objects
printf '%s\n' "$out" >"$W/o.folded"
[ "$(folded_sum "$W/o.folded")" = "$want" ] ||
	t_fail "outside objects: $(folded_sum "$W/o.folded"), want $want"
t_end

t_begin folded_is_root_first_and_takes_filters
# the last frame of each line is the allocation site: summed by it, the
# lines give top --by site
run export "$W/c.hsdb" --format=folded --kind alloc
printf '%s\n' "$out" | awk '{ v = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";");
	s[f[n]] += v } END { for (k in s) printf "%s,%.0f\n", k, s[k] }' |
	LC_ALL=C sort >"$W/by_leaf"
run top "$W/c.hsdb" --kind alloc --by site --csv
printf '%s\n' "$out" | tr -d '\r' | sed 1d | awk -F, '{ print $1 "," $3 }' |
	LC_ALL=C sort >"$W/by_site"
cmp -s "$W/by_leaf" "$W/by_site" ||
	t_fail "folded summed by leaf frame differs from top --by site: $(diff "$W/by_leaf" "$W/by_site" | head -5)"
# a filter: --class
want=$(sql "SELECT sum(s.est_bytes) FROM samples s JOIN classes c ON c.id = s.class
	WHERE s.kind = 'jdk.ObjectAllocationSample' AND c.name = 'int[]';")
run export "$W/c.hsdb" --format=folded --kind alloc --class '^int\[\]$' --estimate=jfr
expect_rc 0
printf '%s\n' "$out" >"$W/f.folded"
[ "$(folded_sum "$W/f.folded")" = "$want" ] ||
	t_fail "--class int[]: folded $(folded_sum "$W/f.folded"), the CSV export $want"
t_end

t_begin folded_escapes_semicolons_and_keeps_spaces
run export "$W/odd.hsdb" --format=folded --kind agent
expect_rc 0
printf '%s\n' "$out" >"$W/odd.folded"
# the truth: make_recording.py's sites, weights rounded per sample
python3 - "$W/odd.json" "$W/odd.folded" <<'PY' || t_fail "odd names: see above"
import json, sys
truth = json.load(open(sys.argv[1]))
got = {}
for line in open(sys.argv[2]):
    stack, value = line.rstrip("\n").rsplit(" ", 1)
    frames = stack.split(";")
    leaf = frames[-1].replace("\\x3b", ";")
    got[leaf] = got.get(leaf, 0) + int(value)
    if len(frames) < 2 or not frames[0].startswith("com.example.App.main:"):
        sys.exit("  not root first, or a ';' split a frame: " + line)
want = {k: round(v["bytes"]) for k, v in truth["sites"].items()}
for k in want:
    if abs(got.get(k, 0) - want[k]) > truth["sites"][k]["samples"]:
        sys.exit("  %s: folded %s, truth %s" % (k, got.get(k), want[k]))
if set(got) != set(want):
    sys.exit("  sites %s, truth %s" % (sorted(got), sorted(want)))
PY
grep -q 'drop it\\x3bnow:30' "$W/odd.folded" || t_fail "no escaped frame: $(cat "$W/odd.folded")"
t_end

t_begin folded_value_errors
run export "$W/c.hsdb" --format=folded --kind alloc --value=objects
expect_rc 2
expect_err "jdk.ObjectAllocationSample samples carry no object count"
run export "$W/c.hsdb" --format=folded --value=kilos
expect_rc 2
run export "$W/c.hsdb" --format=pprof --value=samples -o "$W/x.pb.gz"
expect_rc 2
run export "$W/c.hsdb" --format=csv --kind alloc -o "$W/x"
expect_rc 2
expect_err "exports the whole store"
run export "$W/c.hsdb" --format=svg -o "$W/c.hsdb" --force
expect_rc 1
t_end

# --- pprof -------------------------------------------------------------------
# pprof_sums FILE: go tool pprof -raw's samples by leaf "func:line"
pprof_sums() {
	HOME="$W" GOCACHE="$W/gocache" GOFLAGS= go tool pprof -raw "$1" \
		2>"$W/pprof.err" | python3 "$HERE/export/pprof_raw.py" ${2:-}
}

t_begin pprof_read_by_go_tool_pprof_matches_top
if ! have_go; then
	t_skip "no go (apt-get install golang-go)"
else
	for kind in alloc tlab outside; do
		run export "$W/c.hsdb" --format=pprof --kind $kind -o "$W/$kind.pb.gz"
		expect_rc 0
		gzip -t "$W/$kind.pb.gz" || t_fail "$kind: not gzip"
		pprof_sums "$W/$kind.pb.gz" >"$W/$kind.sums"
		[ -s "$W/$kind.sums" ] || t_fail "$kind: go tool pprof read nothing: $(cat "$W/pprof.err")"
		# per site: samples and alloc_space against top --by site
		awk -F'\t' '$1 != "(total)" && $2 == "samples" { s[$1] = $3 }
			$1 != "(total)" && $2 == "alloc_space" { b[$1] = $3 }
			END { for (k in s) printf "%s,%.0f,%.0f\n", k, s[k], b[k] }' \
			"$W/$kind.sums" | LC_ALL=C sort >"$W/pp"
		run top "$W/c.hsdb" --kind $kind --by site --csv
		printf '%s\n' "$out" | tr -d '\r' | sed 1d |
			awk -F, '{ print $1 "," $2 "," $3 }' | LC_ALL=C sort >"$W/tp"
		cmp -s "$W/pp" "$W/tp" ||
			t_fail "$kind: pprof by leaf differs from top --by site: $(diff "$W/pp" "$W/tp" | head -6)"
		# per function (the line dropped), by arithmetic over top's rows
		pprof_sums "$W/$kind.pb.gz" --function |
			awk -F'\t' '$1 != "(total)" && $2 == "alloc_space" { print $1 "," $3 }' |
			LC_ALL=C sort >"$W/pf"
		awk -F, '{ k = $1; sub(/:[0-9]+$/, "", k); b[k] += $3 }
			END { for (k in b) printf "%s,%.0f\n", k, b[k] }' "$W/tp" |
			LC_ALL=C sort >"$W/tf"
		cmp -s "$W/pf" "$W/tf" ||
			t_fail "$kind: pprof per function differs from top: $(diff "$W/pf" "$W/tf" | head -6)"
		types=$(awk -F'\t' '$1 == "(total)" { print $2 }' "$W/$kind.sums" | LC_ALL=C sort | tr '\n' ' ')
		case $kind in
		outside) want="alloc_objects alloc_space samples " ;;
		*) want="alloc_space samples " ;;
		esac
		[ "$types" = "$want" ] || t_fail "$kind: sample types '$types', want '$want'"
	done
	# objects of OutsideTLAB: one each
	n=$(sql "SELECT count(*) FROM samples WHERE kind = 'jdk.ObjectAllocationOutsideTLAB';")
	got=$(awk -F'\t' '$1 == "(total)" && $2 == "alloc_objects" { print $3 }' "$W/outside.sums")
	[ "$got" = "$n" ] || t_fail "outside alloc_objects $got, want $n"
	t_end
fi

t_begin pprof_agent_inuse_matches_the_recordings_truth
if ! have_go; then
	t_skip "no go (apt-get install golang-go)"
else
	run export "$W/odd.hsdb" --format=pprof --kind agent -o "$W/agent.pb.gz"
	expect_rc 0
	pprof_sums "$W/agent.pb.gz" >"$W/agent.sums"
	python3 - "$W/odd.json" "$W/agent.sums" <<'PY' || t_fail "agent pprof: see above"
import json, sys
truth = json.load(open(sys.argv[1]))
got = {}
for line in open(sys.argv[2]):
    k, t, v = line.rstrip("\n").split("\t")
    got[(k, t)] = int(v)
bad = []
for site, r in truth["sites"].items():
    if got.get((site, "samples")) != r["samples"]:
        bad.append("%s samples %s, truth %s" % (site, got.get((site, "samples")), r["samples"]))
    if abs(got.get((site, "alloc_space"), 0) - r["bytes"]) > r["samples"]:
        bad.append("%s alloc_space %s, truth %.0f" % (site, got.get((site, "alloc_space")), r["bytes"]))
    a = truth["alive_sites"].get(site, {"bytes": 0, "samples": 0})
    if abs(got.get((site, "inuse_space"), 0) - a["bytes"]) > max(1, a["samples"]):
        bad.append("%s inuse_space %s, truth %.0f" % (site, got.get((site, "inuse_space")), a["bytes"]))
types = sorted(t for (k, t) in got if k == "(total)")
if types != ["alloc_objects", "alloc_space", "inuse_objects", "inuse_space", "samples"]:
    bad.append("sample types %s" % types)
if bad:
    sys.exit("  " + "\n  ".join(bad))
PY
	t_end
fi

# --- speedscope --------------------------------------------------------------
# npm_ready: speedscope in $NPM_CACHE, installed once (tests/export/npm.sh)
. "$HERE/export/npm.sh"
npm_ready() {
	npm_need "$W/npm.log" speedscope@1.25.0
}
SCHEMA=$NPM_CACHE/node_modules/speedscope/dist/release/file-format-schema.json

t_begin speedscope_validates_and_sums_match_top
if ! PYJS=$(py_jsonschema); then
	t_skip "python3-jsonschema missing (apt-get install python3-jsonschema)"
elif ! npm_ready "$W/npm.log"; then
	t_skip "npm cannot install speedscope here (its schema): $(tail -2 "$W/npm.log" 2>/dev/null)"
else
	run export "$W/c.hsdb" --format=speedscope --estimate=jfr -o "$W/all.speedscope.json"
	expect_rc 0
	for kind in alloc tlab outside; do
		echo "$(kind_name $kind) (bytes),$(sql "SELECT sum(est_bytes) FROM samples WHERE kind = '$(kind_name $kind)';")"
	done >"$W/want"
	echo "jdk.OldObjectSample (bytes),0" >>"$W/want"
	"$PYJS" - "$SCHEMA" "$W/all.speedscope.json" "$W/want" <<'PY' || t_fail "speedscope: see above"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
want = dict(l.strip().rsplit(",", 1) for l in open(sys.argv[3]))
got = {p["name"]: int(sum(p["weights"])) for p in doc["profiles"]}
if got != {k: int(v) for k, v in want.items()}:
    sys.exit("  profiles %s\n  want %s" % (got, want))
n = len(doc["shared"]["frames"])
for p in doc["profiles"]:
    if p["endValue"] != sum(p["weights"]) or len(p["samples"]) != len(p["weights"]):
        sys.exit("  %s: endValue or lengths wrong" % p["name"])
    for s in p["samples"]:
        if not s or max(s) >= n:
            sys.exit("  %s: a sample names no frame" % p["name"])
PY
	run export "$W/odd.hsdb" --format=speedscope --kind agent --value=objects -o "$W/odd.speedscope.json"
	expect_rc 0
	"$PYJS" - "$SCHEMA" "$W/odd.speedscope.json" <<'PY' || t_fail "speedscope agent objects: see above"
import json, sys, jsonschema
doc = json.load(open(sys.argv[2]))
jsonschema.validate(doc, json.load(open(sys.argv[1])))
if [p["name"] for p in doc["profiles"]] != ["heapsift.AgentSample (objects)"]:
    sys.exit("  profiles: %s" % [p["name"] for p in doc["profiles"]])
if not any(f["name"] == "com.example.App.drop it;now:30" for f in doc["shared"]["frames"]):
    sys.exit("  the odd frame is not there as it is named")
PY
	t_end
fi

# --- svg ---------------------------------------------------------------------
t_begin svg_is_well_formed_and_drawn_by_chromium
run export "$W/c.hsdb" --format=svg --kind alloc -o "$W/flame.svg"
expect_rc 0
if ! command -v xmllint >/dev/null 2>&1; then
	t_skip "no xmllint (apt-get install libxml2-utils)"
else
	xmllint --noout "$W/flame.svg" 2>"$W/xml.err" || t_fail "xmllint: $(head -3 "$W/xml.err")"
	# the root frame spans the width and says the total top gives
	total=$(sql "SELECT sum(est_bytes) FROM samples WHERE kind = 'jdk.ObjectAllocationSample';")
	n=$(xmllint --xpath 'count(//*[local-name()="g"])' "$W/flame.svg")
	[ "$n" -gt 10 ] || t_fail "only $n frames drawn"
	w=$(xmllint --xpath 'string((//*[local-name()="g"])[1]/@data-w)' "$W/flame.svg")
	[ "$w" = "1.000000" ] || t_fail "the root's width is $w"
	# with the JFR estimate (the CSV export's weights), to the byte
	run export "$W/c.hsdb" --format=svg --kind alloc --estimate=jfr -o "$W/flame_jfr.svg"
	expect_rc 0
	python3 - "$total" "$W/flame_jfr.svg" <<'PY' || t_fail "svg: the root's width in bytes"
import sys, re
total = int(sys.argv[1])
s = open(sys.argv[2]).read()
t = re.search(r'<g class="fr" data-x="0.000000" data-w="1.000000" data-p="-1"><title>all\nall samples, [^(]*\(([0-9,]+) bytes\)', s)
if not t or int(t.group(1).replace(",", "")) != total:
    sys.exit("  root says %s, the CSV export %d" % (t and t.group(1), total))
PY
	# a flame graph splits each frame's width among its callees, so the
	# frames of one row (one depth) never overlap and all lie in [0, 1]
	python3 - "$W/flame.svg" <<'PY' || t_fail "svg: frames overlap"
import re, sys
rows = {}
for x, w, y in re.findall(r'<g class="fr" data-x="([-0-9.]+)" data-w="([-0-9.]+)" data-p="[-0-9]+"><title>.*?</title><rect x="[-0-9.]+" y="([-0-9.]+)"',
                          open(sys.argv[1]).read(), re.S):
    rows.setdefault(float(y), []).append((float(x), float(w)))
if len(rows) < 3:
    sys.exit("  %d rows of frames" % len(rows))
for y, fr in rows.items():
    fr.sort()
    for (x0, w0), (x1, w1) in zip(fr, fr[1:]):
        if x0 + w0 > x1 + 1e-5:
            sys.exit("  row y=%s: the frame at %f (width %f) overlaps the one at %f" % (y, x0, w0, x1))
    if fr[0][0] < 0 or fr[-1][0] + fr[-1][1] > 1 + 1e-5:
        sys.exit("  row y=%s goes past the root's width" % y)
PY
	# the report draws the same frames for the same kind, under a header
	# of its own (its recordings are in its appendix), so at another
	# height: the frames are compared with their y left out
	run report --format=html "$W/c.hsdb"
	printf '%s\n' "$out" >"$W/report.html"
	python3 - "$W/report.html" "$W/flame.svg" <<'PY' || t_fail "the report's flame graph and the export's differ"
import re, sys
def frames(path):
    s = open(path, encoding="utf-8").read()
    s = s[s.index('<svg xmlns="http://www.w3.org/2000/svg" class="flame"'):]
    s = s[:s.index("</svg>")]
    return [re.sub(r' y="[-0-9.]+"', "", g) for g in re.findall(r'<g class="fr".*?</g>', s, re.S)]
r, e = frames(sys.argv[1]), frames(sys.argv[2])
if not r or r != e:
    sys.exit("  %d frames in the report, %d in the export" % (len(r), len(e)))
PY
	t_end
fi

t_begin svg_screenshot_in_headless_chromium
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	t_skip "no chromium (apt-get install chromium)"
else
	HOME="$W" timeout 120 "$chrome" --headless=new --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$W/chrome" --window-size=1200,560 \
		--enable-logging=stderr --v=0 --screenshot="$W/flame.png" \
		"file://$W/flame.svg" >"$W/chrome.out" 2>"$W/chrome.err" ||
		t_fail "chromium failed: $(tail -3 "$W/chrome.err")"
	grep -E 'CONSOLE|Uncaught|Refused to' "$W/chrome.err" >"$W/console" &&
		t_fail "console: $(head -3 "$W/console")"
	# a drawn page is not one colour: a PNG of one colour compresses to
	# well under 8 KB at this size
	[ "$(size "$W/flame.png")" -gt 8000 ] || t_fail "screenshot of $(size "$W/flame.png") bytes: blank?"
	[ -n "${EXPORT_SCREENSHOTS:-}" ] && cp "$W/flame.png" "$W/flame.svg" "$EXPORT_SCREENSHOTS"/
	t_end
fi

# --- the folded stacks opened by a real reader -------------------------------
# speedscope (the npm package's own app) in headless Chromium, served over
# loopback: it imports collapsed stacks and then names its tab after the
# file; a file it cannot read leaves the title alone (it raises an alert,
# which a headless browser never dismisses: the time limit ends it)
t_begin folded_opened_by_speedscope_in_headless_chromium
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	t_skip "no chromium (apt-get install chromium)"
elif ! npm_ready "$W/npm.log"; then
	t_skip "npm cannot install speedscope here: $(tail -2 "$W/npm.log" 2>/dev/null)"
else
	mkdir -p "$W/www"
	rm -rf "$W/www/app"
	cp -r "$NPM_CACHE/node_modules/speedscope/dist/release" "$W/www/app"
	run export "$W/c.hsdb" --format=folded --kind alloc -o "$W/www/heap.folded"
	expect_rc 0
	# a free port, then a server on it for as long as the test needs
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	(cd "$W/www" && exec timeout 150 python3 -m http.server "$port" \
		--bind 127.0.0.1 >"$W/http.log" 2>&1) &
	srv=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q "Serving" "$W/http.log" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	url="http://127.0.0.1:$port"
	HOME="$W" timeout 120 "$chrome" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --user-data-dir="$W/chrome-ss" \
		--virtual-time-budget=15000 --dump-dom \
		"$url/app/index.html#profileURL=$url/heap.folded" \
		>"$W/ss.dom" 2>"$W/ss.err"
	title=$(grep -o '<title>[^<]*</title>' "$W/ss.dom" | head -1)
	[ "$title" = "<title>heap.folded - speedscope</title>" ] ||
		t_fail "speedscope did not open the folded file: title '$title'; $(tail -2 "$W/ss.err")"
	grep -q 'GET /heap.folded' "$W/http.log" ||
		t_fail "speedscope never asked for the file: $(tail -3 "$W/http.log")"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	t_end
fi

# --- every exported file is on disk before it is named ----------------------
# Each file is made without a name (O_TMPFILE) or under its temporary
# name (.NAME.tmpPID.NONCE.N, where there is no O_TMPFILE), synced, then
# linked under that name (the first way), then renamed over its target
# (src/util/newfile.h): read from the system calls, a name may appear
# (link) or be renamed only on a descriptor synced since it was opened.
t_begin export_files_plain_and_gzipped_are_synced_before_the_rename
if ! command -v strace >/dev/null 2>&1; then
	t_skip "strace is not installed (build-aux/deps.sh ci installs it)"
else
	for how in "" HEAPSIFT_NO_TMPFILE=1; do
		for gz in "" --gzip; do
			rm -rf "$W/synced"
			# LeakSanitizer (make check) cannot run under ptrace
			env $how ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
				strace -f -qq -e trace=openat,fsync,close,rename,linkat \
				-o "$W/st" "$HEAPSIFT" export "$W/c.hsdb" --format=csv \
				--layout=fleet $gz -o "$W/synced" >/dev/null 2>"$W/st.err" ||
				t_fail "export $how $gz: $(cat "$W/st.err")"
			python3 - "$W/st" <<'PY' || t_fail "export $how $gz: see above"
import re, sys
TMP = r'\.tmp\d+\.[0-9a-f]+\.\d+'
synced = {}   # descriptor -> synced since it was opened
name_ok = {}  # temporary name -> its file was synced when it got it
fd_of = {}    # temporary name -> descriptor (made under its name)
renamed = 0
for line in open(sys.argv[1]):
    m = re.search(r'openat\(AT_FDCWD, "([^"]*)", ([A-Z_|]+)[^)]*\) = (\d+)', line)
    if m and ("O_TMPFILE" in m.group(2) or
              (re.search(TMP + '$', m.group(1)) and "O_CREAT" in m.group(2))):
        synced[m.group(3)] = False
        if "O_TMPFILE" not in m.group(2):
            fd_of[m.group(1)] = m.group(3)
        continue
    m = re.search(r'fsync\((\d+)\) += 0', line)
    if m and m.group(1) in synced:
        synced[m.group(1)] = True
        continue
    m = re.search(r'linkat\(AT_FDCWD, "/proc/self/fd/(\d+)", AT_FDCWD, "([^"]*)", [^)]*\) = 0', line)
    if m:
        if not synced.get(m.group(1)):
            sys.exit("  %s linked before its file was synced" % m.group(2))
        name_ok[m.group(2)] = True
        continue
    m = re.search(r'rename\("([^"]*' + TMP + r')", "([^"]*)"\) = 0', line)
    if m:
        renamed += 1
        tmp = m.group(1)
        if not (name_ok.get(tmp) or synced.get(fd_of.get(tmp))):
            sys.exit("  %s renamed to %s without an fsync" % m.groups())
        continue
    m = re.search(r'close\((\d+)\)', line)
    if m:  # a closed descriptor's number is free again
        synced.pop(m.group(1), None)
if renamed < 4:
    sys.exit("  %d files renamed, want every fleet table" % renamed)
PY
			n=$(find "$W/synced" -name "*.csv${gz:+.gz}" | wc -l | tr -d ' ')
			[ "$n" -ge 4 ] || t_fail "export $how $gz: $n files"
		done
	done
	t_end
fi

t_summary
