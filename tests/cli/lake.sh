#!/bin/sh
# The fleet lake (export --layout=fleet, docs/export.md "The fleet lake"),
# read by DuckDB (npm @duckdb/node-api; its libduckdb.so also writes the
# Parquet lake): every documented query runs, the ones top answers equal
# heapsift top on the same recordings, the documented DDL is the schema
# the files have, the Spark and Trino DDL name the export's folders and
# columns, and the hazards of a shared folder (collisions, stale
# recordings, mixed formats, a re-export, a kill) are tested.  The
# expected values come from heapsift top (held to the JDK's jfr by
# store.sh and truth.sh), the fixtures' own facts, and arithmetic.
. "$(dirname "$0")/lib.sh"
F="$HS_FIXTURES/jfr"
TP="$HS_FIXTURES/thirdparty"
W="$T/work"
HERE=$(cd "$(dirname "$0")/.." && pwd)
DOC="$HERE/../docs/export.md"
NPM_CACHE=${HS_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heapsift-tests/npm}

# duck_ready: node, and @duckdb/node-api in $NPM_CACHE, installed once
. "$HERE/export/npm.sh"
duck_ready() {
	command -v node >/dev/null 2>&1 && npm_need "$W/npm.log" @duckdb/node-api
}
LIBDUCKDB=$(libduckdb_path) || LIBDUCKDB=
# duck SETUP.sql QUERY...: each query's rows as JSON lines, then "--"
duck() {
	NODE_PATH="$NPM_CACHE/node_modules" node "$HERE/export/duckdb_script.cjs" "$@"
}
# views FORMAT LAKE: the documented views of the lake, for duck
views() {
	case $1 in
	parquet) sed "s|LAKE|$2|g" "$W/sql/views-parquet.sql" ;;
	csv) sed "s|LAKE|$2|g" "$W/sql/views-csv.sql" ;;
	csv.gz) sed "s|LAKE|$2|g; s|\*\.csv'|*.csv.gz'|g" "$W/sql/views-csv.sql" ;;
	esac >"$W/views.sql"
}
# one QUERY: the single value a query over $W/views.sql returns
one() {
	duck "$W/views.sql" "$1" 2>"$W/duck.err" | head -1 | tr -d '[]"'
}
# lake_export ARGS...: export with the Parquet library found
lake_export() {
	[ -n "$LIBDUCKDB" ] || LIBDUCKDB=$(libduckdb_path) || LIBDUCKDB=
	HEAPSIFT_LIBDUCKDB=$LIBDUCKDB run export "$@"
}

python3 "$HERE/jfr/make_jfr.py" --thread 'worker, "7"' --start-ns 1795301015000000000 \
	"$W/quoted.jfr" 4096 65536 >/dev/null
python3 "$HERE/agent/make_recording.py" basic "$W/basic.hsa" >/dev/null
python3 "$HERE/agent/make_recording.py" openj9 "$W/openj9.hsa" >/dev/null
gzip -dc "$TP/datadog-event-with-type-zero.jfr.gz" >"$W/datadog.jfr"
# every kind of sample: JDK ObjectAllocationSample alone (raw weights),
# with TLAB and OutsideTLAB events (the corrected estimate),
# OldObjectSample, async-profiler's, Datadog's, the agent's, and names
# that need quoting; one store, as top sees them together
"$HEAPSIFT" import -o "$W/all.hsdb" "$F/jdk17-default.jfr" \
	"$F/jdk17-profile-tlab.jfr" "$F/jdk17-leak-gcroots.jfr" "$TP/alloc.jfr" \
	"$TP/alloc-live.jfr" "$W/datadog.jfr" "$W/basic.hsa" "$W/openj9.hsa" \
	"$W/quoted.jfr" >/dev/null 2>&1
python3 "$HERE/export/lake_docs.py" sql "$DOC" "$W/sql" >"$W/queries"

t_begin lake_documented_queries_answer_as_top_in_every_format
if ! duck_ready; then
	t_skip "node or npm cannot install @duckdb/node-api here: $(tail -2 "$W/npm.log" 2>/dev/null)"
else
	[ -s "$W/queries" ] || t_fail "no queries found in docs/export.md"
	for fmt in csv csv.gz parquet; do
		case $fmt in
		csv) args="--format=csv" ;;
		csv.gz) args="--format=csv --gzip" ;;
		parquet) args="--format=parquet" ;;
		esac
		lake_export "$W/all.hsdb" --layout=fleet $args --host='web, "1"' -o "$W/lake-$fmt"
		[ "$rc" = 0 ] || { t_fail "$fmt: export: rc $rc: $err"; continue; }
		views $fmt "$W/lake-$fmt"
		corrected=$(one "SELECT count(*) FROM samples WHERE alloc_estimate = 'corrected'")
		[ "${corrected:-0}" -gt 0 ] || t_fail "$fmt: no corrected rows: $(cat "$W/duck.err")"
		strip=
		[ $fmt = parquet ] && strip=--strip-guard
		while read -r q; do
			targs=$(cat "$W/sql/$q.top")
			sed 's/ LIMIT 20//' "$W/sql/$q.sql" >"$W/q.sql"
			duck "$W/views.sql" "$(cat "$W/q.sql")" >"$W/got" 2>"$W/duck.err" ||
				{ t_fail "$fmt $q: $(cat "$W/duck.err")"; continue; }
			[ "$(sed -n 1p "$W/got")" != "--" ] || t_fail "$fmt $q: no rows"
			[ -n "$targs" ] || continue
			# shellcheck disable=SC2086
			"$HEAPSIFT" top "$W/all.hsdb" $targs --csv --no-normalize >"$W/top.csv" 2>/dev/null
			bound=
			case $targs in *--estimate=jfr* | *--kind=outside*) ;; *) bound=--bound ;; esac
			python3 "$HERE/export/lake_docs.py" compare "$W/top.csv" "$W/got" $bound $strip ||
				t_fail "$fmt $q (top $targs): above"
		done <"$W/queries"
		# every kind the lake holds, by class and by thread (quoted
		# names), as top gives it with the raw weights and the names as
		# recorded (the lake does not normalise them)
		for kk in alloc=jdk.ObjectAllocationSample tlab=jdk.ObjectAllocationInNewTLAB \
			outside=jdk.ObjectAllocationOutsideTLAB old=jdk.OldObjectSample \
			agent=heapsift.AgentSample "ap-alloc=jdk.ObjectAllocationInNewTLAB (async-profiler)" \
			ap-live=profiler.LiveObject dd-alloc=datadog.ObjectSample dd-live=datadog.HeapLiveObject; do
			kind=${kk%%=*} name=${kk#*=}
			[ "$(one "SELECT count(*) FROM samples WHERE kind = '$name'")" != 0 ] || continue
			kinds_seen="${kinds_seen:-} $kind"
			for by in class thread; do
				"$HEAPSIFT" top "$W/all.hsdb" --kind=$kind --by $by --estimate=jfr --csv --no-normalize >"$W/top.csv" 2>/dev/null
				duck "$W/views.sql" "SELECT \"$by\", count(*), sum(est_bytes_jfr) FROM samples
					WHERE kind = '$name' GROUP BY 1" >"$W/got" 2>"$W/duck.err" ||
					t_fail "$fmt $kind $by: $(cat "$W/duck.err")"
				python3 "$HERE/export/lake_docs.py" compare "$W/top.csv" "$W/got" $strip \
					--null="(no $by)" || t_fail "$fmt --kind=$kind --by $by: above"
			done
		done
		# the stacks join: every sample's stack is there, every frame
		# id names a frame, the first is the sample's site, and the
		# depth is the frames'
		q=$(one "SELECT count(*) FROM samples s LEFT JOIN stacks k USING (recording_id, stack_id)
			WHERE s.stack_id <> 0 AND k.frame_ids IS NULL")
		[ "$q" = 0 ] || t_fail "$fmt: $q samples whose stack is missing $(cat "$W/duck.err")"
		q=$(one "WITH ids AS (SELECT k.recording_id, CAST(u.id AS BIGINT) AS frame_id
				FROM stacks k, unnest(string_split(k.frame_ids, ';')) AS u(id))
			SELECT count(*) FROM ids LEFT JOIN frames f USING (recording_id, frame_id)
			WHERE f.name IS NULL")
		[ "$q" = 0 ] || t_fail "$fmt: $q frame ids name no frame $(cat "$W/duck.err")"
		q=$(one "SELECT count(*) FILTER (WHERE f.name <> s.site), count(*) FILTER (WHERE k.depth <> len(string_split(k.frame_ids, ';')))
			FROM samples s JOIN stacks k USING (recording_id, stack_id)
			JOIN frames f ON f.recording_id = s.recording_id AND f.frame_id = CAST(string_split(k.frame_ids, ';')[1] AS BIGINT)")
		[ "$q" = "0,0" ] || t_fail "$fmt: sites or depths differ from the stacks': $q $(cat "$W/duck.err")"
		q=$(one "SELECT count(*) FROM samples WHERE thread = 'worker, \"7\"' AND host = 'web, \"1\"'")
		[ "$q" = 6 ] || t_fail "$fmt: the quoted thread's rows: $q, want 6 (make_jfr.py: 3 events a value)"
	done
	# the fixtures hold these kinds (docs/formats/jfr.md, tests/agent)
	for k in alloc tlab outside old agent ap-alloc ap-live dd-alloc; do
		case " $kinds_seen " in *" $k "*) ;; *) t_fail "no $k samples were compared" ;; esac
	done
	t_end
fi

t_begin lake_files_have_the_documented_schema
if ! duck_ready; then
	t_skip "node or npm cannot install @duckdb/node-api here"
else
	# the DDL's tables, loaded from every format's files: the loads fail
	# on a type the files do not convert to, and DESCRIBE compares the
	# Parquet files' own types and the CSV views' with the DDL
	for t in recordings samples stacks frames; do
		for fmt in parquet csv csv.gz; do
			views $fmt "$W/lake-$fmt"
			cat "$W/sql/ddl.sql" | sed 's/CREATE TABLE \([a-z]*\) (/CREATE TABLE ddl_\1 (/' >>"$W/views.sql"
			duck "$W/views.sql" \
				"INSERT INTO ddl_$t BY NAME SELECT * FROM $t" \
				"SELECT column_name, column_type FROM (DESCRIBE ddl_$t)" \
				"SELECT column_name, column_type FROM (DESCRIBE $t)" >"$W/desc" 2>"$W/duck.err" ||
				t_fail "$fmt $t: $(cat "$W/duck.err")"
			awk 'BEGIN { n = 0 } /^--$/ { n++; next } n == 1 { a = a $0 } n == 2 { b = b $0 } END { exit a != b || a == "" }' "$W/desc" ||
				t_fail "$fmt $t: the files' columns are not the DDL's: $(tr '\n' ' ' <"$W/desc" | head -c 600)"
		done
	done
	# the export's headers, for the engines' DDL
	python3 - "$W/lake-csv" >"$W/headers.json" <<'PY'
import glob, json, sys
h = {}
for t in ("recordings", "samples", "stacks", "frames"):
    f = sorted(glob.glob("%s/%s/day=*/part-*.csv" % (sys.argv[1], t)))[0]
    h[t] = open(f).readline().strip().split(",")
print(json.dumps(h))
PY
	python3 "$HERE/export/lake_docs.py" engines "$DOC" "$W/headers.json" ||
		t_fail "the Spark or Trino DDL: above"
	t_end
fi

t_begin lake_csv_quotes_every_text_cell_and_nothing_else
# RFC 4180 as every reader parses it: text in quotes, numbers and
# booleans bare, empty cells NULL (docs/export.md)
python3 - "$W/lake-csv" <<'PY' || t_fail "above"
import csv, glob, sys
bad = []
types = {}
for f in glob.glob(sys.argv[1] + "/*/day=*/part-*.csv"):
    lines = open(f, newline="").read().split("\r\n")
    head = lines[0].split(",")
    for line in lines[1:]:
        if not line:
            continue
        cells = next(csv.reader([line]))
        raw = []  # each cell's first character, as written
        i = 0
        for c in cells:
            raw.append(line[i:i + 1])
            j = i
            if line[i:i + 1] == '"':
                j = i + 1
                while True:
                    j = line.index('"', j)
                    if line[j + 1:j + 2] == '"':
                        j += 2
                        continue
                    break
                j += 1
            else:
                j = line.find(",", i)
                j = len(line) if j < 0 else j
            i = j + 1
        for name, c, first in zip(head, cells, raw):
            quoted = first == '"'
            if c == "" and quoted:
                bad.append("%s: %s quoted empty" % (f, name))
            elif c and not quoted and not (c.lstrip("-").replace(".", "").isdigit() or c in ("true", "false")):
                bad.append("%s: %s=%r not quoted" % (f, name, c))
            elif quoted and c.lstrip("-").isdigit() and name in ("time_ns", "stack_id", "est_bytes"):
                bad.append("%s: number %s quoted" % (f, name))
if bad:
    sys.exit("  " + "\n  ".join(bad[:6]))
PY
t_end

# --- the hazards of a shared folder -------------------------------------------
# count LAKE WHAT: the recordings (or samples) a CSV lake holds, by its files
count() {
	if [ "$2" = recordings ]; then
		cat "$1"/recordings/day=*/part-*.csv 2>/dev/null | grep -c '^"'
	else
		cat "$1"/samples/day=*/part-*.csv 2>/dev/null | grep -c '^"'
	fi
}
"$HEAPSIFT" import -o "$W/default.hsdb" "$F/jdk17-default.jfr" >/dev/null 2>&1
"$HEAPSIFT" import -o "$W/tlab.hsdb" "$F/jdk17-profile-tlab.jfr" >/dev/null 2>&1
n_default=$("$HEAPSIFT" top "$W/default.hsdb" --by recording --csv --estimate=jfr 2>/dev/null | tr -d '\r' | sed -n 2p | cut -d, -f2)
# the heap events jfr summary counts in the recording: the store's samples
all_default=$(jfr summary "$F/jdk17-default.jfr" 2>/dev/null | awk '
	$1 ~ /^jdk\.(ObjectAllocationSample|ObjectAllocationInNewTLAB|ObjectAllocationOutsideTLAB|OldObjectSample)$/ { n += $2; seen = 1 }
	END { if (seen) print n }')

t_begin lake_stores_of_one_name_in_two_folders_never_collide
mkdir -p "$W/a" "$W/b"
cp "$W/default.hsdb" "$W/a/case.hsdb"
cp "$W/tlab.hsdb" "$W/b/case.hsdb"
cp "$W/default.hsdb" "$W/my case.hsdb"
cp "$W/tlab.hsdb" "$W/my_case.hsdb"
run export "$W/a/case.hsdb" --layout=fleet --format=csv -o "$W/c1"
expect_rc 0
run export "$W/b/case.hsdb" --layout=fleet --format=csv -o "$W/c1"
expect_rc 0
[ "$(count "$W/c1" recordings)" = 2 ] || t_fail "a/case and b/case: $(count "$W/c1" recordings) recordings, want 2"
run export "$W/my case.hsdb" "$W/my_case.hsdb" --layout=fleet --format=csv -o "$W/c2"
expect_rc 0
[ "$(count "$W/c2" recordings)" = 2 ] || t_fail "'my case' and my_case: $(count "$W/c2" recordings), want 2"
grep -q "/my case.hsdb" "$W"/c2/recordings/*/*.csv || t_fail "case_id is not the store's path"
t_end

t_begin lake_one_recording_from_two_stores_is_counted_once
[ -n "$all_default" ] || t_skip "jfr is not installed" 
if [ -n "$all_default" ]; then
	cp "$W/default.hsdb" "$W/copy.hsdb"
	run export "$W/default.hsdb" "$W/copy.hsdb" --layout=fleet --format=csv -o "$W/c3"
	expect_rc 0
	[ "$(count "$W/c3" recordings)" = 1 ] || t_fail "$(count "$W/c3" recordings) recordings, want 1"
	[ "$(count "$W/c3" samples)" = "$all_default" ] ||
		t_fail "$(count "$W/c3" samples) samples, jfr summary counts $all_default"
	t_end
fi

t_begin lake_reexport_replaces_its_rows_and_drops_what_the_store_lost
"$HEAPSIFT" import -o "$W/two.hsdb" "$F/jdk17-default.jfr" "$F/jdk17-profile-tlab.jfr" >/dev/null 2>&1
run export "$W/two.hsdb" --layout=fleet --format=csv -o "$W/c4"
expect_rc 0
n1=$(count "$W/c4" samples)
files1=$(find "$W/c4" -type f | sort)
run export "$W/two.hsdb" --layout=fleet --format=csv -o "$W/c4"
expect_rc 0
case $err in *"2 recordings written (2 replaced rows already in the lake)"*) ;; *) t_fail "summary: $err" ;; esac
[ "$(count "$W/c4" samples)" = "$n1" ] || t_fail "re-export: $(count "$W/c4" samples) samples, was $n1"
[ "$(find "$W/c4" -type f | sort)" = "$files1" ] || t_fail "re-export changed the files: $(find "$W/c4" -type f)"
[ "$(count "$W/c4" recordings)" = 2 ] || t_fail "re-export: $(count "$W/c4" recordings) recordings"
# the store imported again without its second input
rm -f "$W/two.hsdb"
"$HEAPSIFT" import -o "$W/two.hsdb" "$F/jdk17-default.jfr" >/dev/null 2>&1
run export "$W/two.hsdb" --layout=fleet --format=csv -o "$W/c4"
expect_rc 0
case $err in *"1 recording dropped"*) ;; *) t_fail "summary: $err" ;; esac
[ "$(count "$W/c4" recordings)" = 1 ] || t_fail "the lost recording stayed: $(count "$W/c4" recordings) recordings"
[ -z "$all_default" ] || [ "$(count "$W/c4" samples)" = "$all_default" ] ||
	t_fail "$(count "$W/c4" samples) samples, jfr summary counts $all_default"
grep -q profile-tlab "$W"/c4/recordings/day=*/*.csv && t_fail "the lost recording is still listed"
# --id: another store taking the case over
run export "$W/tlab.hsdb" --layout=fleet --format=csv --id="$W/two.hsdb" -o "$W/c4"
expect_rc 0
case $err in *"1 recording dropped"*) ;; *) t_fail "--id summary: $err" ;; esac
t_end

t_begin lake_parquet_reexport_replaces_and_drops
if ! duck_ready || [ -z "$LIBDUCKDB" ]; then
	t_skip "no libduckdb.so (npm cannot install @duckdb/node-api here)"
else
	# as the CSV case above, read through the documented views
	"$HEAPSIFT" import -o "$W/pq.hsdb" "$F/jdk17-default.jfr" "$F/jdk17-profile-tlab.jfr" >/dev/null 2>&1
	lake_export "$W/pq.hsdb" --format=parquet -o "$W/p1"
	expect_rc 0
	views parquet "$W/p1"
	n1=$(one "SELECT count(*) FROM samples")
	lake_export "$W/pq.hsdb" --format=parquet -o "$W/p1"
	expect_rc 0
	case $err in *"2 recordings written (2 replaced rows already in the lake)"*) ;; *) t_fail "summary: $err" ;; esac
	[ "$(one "SELECT count(*) FROM samples")" = "$n1" ] || t_fail "re-export: $(one "SELECT count(*) FROM samples") samples, was $n1"
	rm -f "$W/pq.hsdb"
	"$HEAPSIFT" import -o "$W/pq.hsdb" "$F/jdk17-default.jfr" >/dev/null 2>&1
	lake_export "$W/pq.hsdb" --format=parquet -o "$W/p1"
	expect_rc 0
	[ "$(one "SELECT count(*) FROM recordings")" = 1 ] || t_fail "the lost recording stayed"
	[ -z "$all_default" ] || [ "$(one "SELECT count(*) FROM samples")" = "$all_default" ] ||
		t_fail "$(one "SELECT count(*) FROM samples") samples, jfr summary counts $all_default"
	left=$(find "$W/p1" -type f ! -name 'part-*.parquet' ! -name _heapsift_lake)
	[ -z "$left" ] || t_fail "left behind: $left"
	t_end
fi

t_begin lake_damaged_part_is_said_with_its_line_and_left_as_it_is
# a row without a recording id on line 3 of a samples file, then a
# recordings file whose header is not the lake's: a re-export that
# rewrites the part stops, naming the file and the line, and writes
# nothing (it never drops the row it cannot place)
run export "$W/default.hsdb" --layout=fleet --format=csv -o "$W/dmg"
expect_rc 0
f=$(ls "$W"/dmg/samples/day=*/part-*.csv)
sed -i '3s/^"[0-9a-f]*"/"damaged"/' "$f"
before=$(cat "$W"/dmg/*/day=*/* | md5sum)
run export "$W/default.hsdb" --layout=fleet --format=csv -o "$W/dmg"
expect_rc 1
case $err in *"$f:3: a row without a recording id"*) ;; *) t_fail "message: $err" ;; esac
[ "$(cat "$W"/dmg/*/day=*/* | md5sum)" = "$before" ] || t_fail "the refused export changed the lake"
g=$(ls "$W"/dmg/recordings/day=*/part-*.csv)
sed -i '1s/^recording_id,/id,/' "$g"
run export "$W/tlab.hsdb" --layout=fleet --format=csv -o "$W/dmg"
expect_rc 1
case $err in *"$g:1: its header is not the lake's"*) ;; *) t_fail "header message: $err" ;; esac
t_end

t_begin lake_refuses_a_second_format_and_the_old_layout
run export "$W/default.hsdb" --layout=fleet --format=csv -o "$W/c5"
expect_rc 0
before=$(find "$W/c5" | sort)
run export "$W/tlab.hsdb" --layout=fleet --format=csv --gzip -o "$W/c5"
expect_rc 1
case $err in *"lake of csv tables"*) ;; *) t_fail "--gzip into a csv lake: $err" ;; esac
lake_export "$W/tlab.hsdb" --format=parquet -o "$W/c5"
expect_rc 1
[ "$(find "$W/c5" | sort)" = "$before" ] || t_fail "a refused export changed the lake"
mkdir -p "$W/old/recording=x-0"
run export "$W/default.hsdb" --layout=fleet --format=csv -o "$W/old"
expect_rc 1
case $err in *"recording=*/ folders, schema 1"*) ;; *) t_fail "old layout: $err" ;; esac
mkdir -p "$W/other" && echo hi >"$W/other/notes.txt"
run export "$W/default.hsdb" --layout=fleet --format=csv -o "$W/other"
expect_rc 1
run export "$W/default.hsdb" --layout=fleet --format=csv --force -o "$W/other"
expect_rc 0
[ "$(cat "$W/other/notes.txt")" = hi ] || t_fail "--force touched another file"
t_end

t_begin lake_usage_errors
run export "$W/default.hsdb" "$W/tlab.hsdb" --layout=fleet --format=csv --id=x -o "$W/u"
expect_rc 2
run export "$W/default.hsdb" --format=parquet --gzip -o "$W/u"
expect_rc 2
run export "$W/default.hsdb" --format=csv --gzip -o "$W/u"
expect_rc 2
run export "$W/default.hsdb" --layout=fleet --format=csv --part-rows=0 -o "$W/u"
expect_rc 2
run export "$W/default.hsdb" --layout=fleet --format=folded -o "$W/u"
expect_rc 2
[ ! -e "$W/u" ] || t_fail "a usage error wrote $W/u"
t_end

t_begin lake_parquet_without_duckdb_says_how_to_get_it
HEAPSIFT_LIBDUCKDB="$W/nowhere/libduckdb.so" run export "$W/default.hsdb" --format=parquet -o "$W/p0"
expect_rc 1
case $err in *"$W/nowhere/libduckdb.so"*node-bindings*) ;; *) t_fail "message: $err" ;; esac
[ -z "$(ls -A "$W/p0" 2>/dev/null)" ] || t_fail "wrote into the lake: $(ls -A "$W/p0")"
t_end

t_begin lake_parts_grow_to_the_part_size
# ten distinct recordings of one day (make_jfr.py --start-ns: 3 samples
# each), exported one at a time: with parts of 1 row each is its own
# part, with the default all share one; in one export with parts of 7
# rows, a part takes recordings until it holds 7 or more: 3, 3, 3 and 1
i=0
while [ $i -lt 10 ]; do
	python3 "$HERE/jfr/make_jfr.py" --start-ns $((1795301015000000000 + i * 1000000000)) \
		"$W/r$i.jfr" $((4096 + i)) >/dev/null
	"$HEAPSIFT" import -o "$W/r$i.hsdb" "$W/r$i.jfr" >/dev/null 2>&1
	run export "$W/r$i.hsdb" --layout=fleet --format=csv -o "$W/g1"
	[ "$rc" = 0 ] || t_fail "export $i: $err"
	run export "$W/r$i.hsdb" --layout=fleet --format=csv --part-rows=1 -o "$W/g2"
	[ "$rc" = 0 ] || t_fail "export $i: $err"
	i=$((i + 1))
done
n1=$(ls "$W"/g1/samples/day=*/ | wc -l | tr -d ' ')
n2=$(ls "$W"/g2/samples/day=*/ | wc -l | tr -d ' ')
[ "$n1" = 1 ] || t_fail "default part size: $n1 files, want 1"
[ "$n2" = 10 ] || t_fail "parts of 1 row: $n2 files, want 10"
run export "$W"/r[0-9].hsdb --layout=fleet --format=csv --part-rows=7 -o "$W/g3"
expect_rc 0
sizes=$(for f in "$W"/g3/recordings/day=*/part-*.csv; do grep -c '^"' "$f"; done | sort | tr '\n' ' ')
[ "$sizes" = "1 3 3 3 " ] || t_fail "parts of 7 rows hold $sizes recordings, want 1 3 3 3"
[ "$(count "$W/g1" samples)" = 30 ] || t_fail "$(count "$W/g1" samples) samples, want 30 (3 a recording)"
[ "$(count "$W/g2" samples)" = 30 ] || t_fail "$(count "$W/g2" samples) samples, want 30"
t_end

t_begin lake_more_days_than_open_files_allow_is_refused_whole
# 2 days in one export where the open files allow one part at a time
# ((140 - 128) / 8): refused, the lake as it was (a new one: its marker)
"$HEAPSIFT" import -o "$W/d2.hsdb" "$F/jdk17-default.jfr" "$TP/alloc.jfr" >/dev/null 2>&1
(ulimit -n 140 && exec "$HEAPSIFT" export "$W/d2.hsdb" --layout=fleet --format=csv -o "$W/lim") \
	>/dev/null 2>"$W/lim.err"
[ $? = 1 ] || t_fail "exit status $?: $(cat "$W/lim.err")"
grep -q "export fewer stores at a time" "$W/lim.err" || t_fail "message: $(cat "$W/lim.err")"
[ "$(find "$W/lim" -type f)" = "$W/lim/_heapsift_lake" ] || t_fail "wrote $(find "$W/lim" -type f)"
t_end

t_begin lake_a_killed_export_leaves_each_recording_once
# SIGKILL at a random moment of a re-export into a shared part: after
# each, every recording's sample rows are there whole (as many as a clean
# export of the same stores writes) or, for a recording the kill caught
# between its part's renames, not yet; never twice, never in part
per_recording() {
	cat "$1"/samples/day=*/part-*.csv | grep '^"' | cut -d, -f1 | sort | uniq -c | awk '{ print $2, $1 }'
}
stores="$W/r0.hsdb $W/r1.hsdb $W/r2.hsdb $W/r3.hsdb $W/r4.hsdb $W/r5.hsdb $W/r6.hsdb $W/r7.hsdb $W/r8.hsdb $W/r9.hsdb $W/two.hsdb"
# shellcheck disable=SC2086
"$HEAPSIFT" export $stores --layout=fleet --format=csv -o "$W/ref" >/dev/null 2>&1
per_recording "$W/ref" >"$W/ref.counts"
[ "$(wc -l <"$W/ref.counts")" = 11 ] || t_fail "the clean export holds $(wc -l <"$W/ref.counts") recordings, want 11"
pids=
i=0
while [ $i -lt 12 ]; do
	"$HEAPSIFT" export "$W/r$((i % 10)).hsdb" "$W/two.hsdb" --layout=fleet --format=csv -o "$W/g1" >/dev/null 2>&1 &
	pid=$!
	pids="$pids $pid"
	sleep "0.0$((i % 10))"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	per_recording "$W/g1" >"$W/got.counts"
	bad=$(awk 'NR == FNR { want[$1] = $2; next } want[$1] != $2 { print $1 ": " $2 " rows, a clean export writes " want[$1] }' \
		"$W/ref.counts" "$W/got.counts")
	[ -z "$bad" ] || t_fail "after kill $i: $bad"
	i=$((i + 1))
done
# one more, killed where the window is (HEAPSIFT_HOLD_NAMED: held with
# a part's new file named, between the link and the rename)
(exec env HEAPSIFT_HOLD_NAMED=1 "$HEAPSIFT" export "$W/r3.hsdb" --layout=fleet --format=csv \
	-o "$W/g1" >/dev/null 2>"$W/held.err" </dev/null) &
pid=$!
pids="$pids $pid"
while kill -0 $pid 2>/dev/null && ! grep -q '^heapsift: holding ' "$W/held.err"; do
	sleep 0.01
done
held=$(sed -n 's/^heapsift: holding //p' "$W/held.err")
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
[ -n "$held" ] && [ -f "$held" ] || t_fail "no export held a named file: $(head -c 300 "$W/held.err")"
per_recording "$W/g1" >"$W/got.counts"
cmp -s "$W/got.counts" "$W/ref.counts" || t_fail "with a held temporary, the parts hold: $(tr '\n' ' ' <"$W/got.counts")"
# nothing a glob reads is left half written, nor any name but the parts'
# and a killed export's hidden temporaries (newfile.h: a SIGKILL between
# the link and the rename leaves one where there is O_TMPFILE; anywhere
# in the writing where there is none)
find "$W/g1" -type f ! -name 'part-*.csv' ! -name _heapsift_lake >"$W/left"
tmps=
while IFS= read -r f; do
	pid=$(printf '%s\n' "$f" | sed -n 's|.*/\.part-[0-9a-f]*\.csv\.tmp\([0-9]*\)\.[0-9a-f]*\.[0-9]*$|\1|p')
	case "$pid: $pids " in
	:*) t_fail "left behind: $f" ;;
	*": "*" $pid "*) tmps="$tmps $f" ;;
	*) t_fail "left behind, not by a killed export: $f" ;;
	esac
done <"$W/left"
case " $tmps " in
*" $held "*) ;;
*) t_fail "the held temporary $held is not among those left: $tmps" ;;
esac
# ... which the next export into the folder removes once stale (10
# minutes old, unlocked, its process gone), and not before
"$HEAPSIFT" export "$W/r0.hsdb" --layout=fleet --format=csv -o "$W/g1" >/dev/null 2>"$W/sweep.err" ||
	t_fail "the export after the kills failed: $(cat "$W/sweep.err")"
[ -f "$held" ] || t_fail "a fresh temporary was swept: $held"
old=$(($(date +%s) - 660))
# shellcheck disable=SC2086
touch -d "@$old" $tmps
"$HEAPSIFT" export "$W/r0.hsdb" --layout=fleet --format=csv -o "$W/g1" >/dev/null 2>"$W/sweep.err" ||
	t_fail "the export after the kills failed: $(cat "$W/sweep.err")"
for f in $tmps; do
	[ ! -e "$f" ] || t_fail "a stale temporary is not swept: $f"
done
per_recording "$W/g1" >"$W/got.counts"
cmp -s "$W/got.counts" "$W/ref.counts" || t_fail "after the sweep, the parts hold: $(tr '\n' ' ' <"$W/got.counts")"
t_end

t_summary
