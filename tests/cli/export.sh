# heapsift export: the CSV tables load unchanged into sqlite3, and a
# GROUP BY over them gives what heapsift top prints; top itself is
# checked against the JDK's numbers in store.sh.
. "$(dirname "$0")/lib.sh"
F="$HS_FIXTURES/jfr"
W="$T/work"

t_begin export_loads_into_sqlite_and_matches_top
run import -o "$W/c.hsdb" "$F/jdk17-profile-tlab.jfr" "$F/jdk17-leak-gcroots.jfr"
expect_rc 0
run export "$W/c.hsdb" --format=csv -o "$W/csv"
expect_rc 0
for tb in recordings settings threads classes methods frames stacks samples \
	old_objects heap_summaries; do
	[ -s "$W/csv/$tb.csv" ] || t_fail "no $tb.csv"
done
if ! command -v sqlite3 >/dev/null 2>&1; then
	t_fail "sqlite3 is missing (build-aux/deps.sh test installs it)"
else
	for kind in alloc outside; do
		case $kind in
		alloc) name=jdk.ObjectAllocationSample ;;
		outside) name=jdk.ObjectAllocationOutsideTLAB ;;
		esac
		sql=$(cd "$W/csv" && sqlite3 -csv :memory: \
			".import --csv samples.csv samples" \
			".import --csv classes.csv classes" \
			"SELECT c.name, count(*), sum(s.est_bytes) FROM samples s
			 JOIN classes c ON c.id = s.class
			 WHERE s.kind = '$name'
			 GROUP BY c.name ORDER BY 3 DESC, 2 DESC, 1;" | tr -d '\r')
		# the export holds the samples as recorded: the JFR weights
		run top "$W/c.hsdb" --kind "$kind" --csv --estimate=jfr
		top=$(printf '%s\n' "$out" | tr -d '\r' | sed 1d |
			awk -F, '{ print $1 "," $2 "," $3 }')
		[ "$sql" = "$top" ] ||
			t_fail "$kind: sqlite says
$sql
top says
$top"
	done
	# every sample of each recording is there
	n=$(cd "$W/csv" && sqlite3 :memory: ".import --csv samples.csv s" \
		"SELECT count(*) FROM s;")
	run info "$W/c.hsdb"
	printf '%s\n' "$out" | grep -q "2 recordings, $n samples" ||
		t_fail "sqlite counts $n samples; info says: $out"
fi
t_end

t_begin export_code_heaps_load_into_sqlite
gzip -dc "$HS_FIXTURES/codeheap/jdk17-seg-analytics-default.txt.gz" >"$W/seg.txt"
run import -o "$W/ch.hsdb" "$W/seg.txt"
expect_rc 0
run export "$W/ch.hsdb" --format=csv -o "$W/chcsv"
expect_rc 0
if ! command -v sqlite3 >/dev/null 2>&1; then
	t_fail "sqlite3 is missing (build-aux/deps.sh test installs it)"
else
	# README: free blocks 1, 2, 1; 'profiled nmethods' free 3300k; used
	# blocks 1360, 8711, 400 (nBlocks_used) = the method-name rows
	got=$(cd "$W/chcsv" && sqlite3 -csv :memory: \
		".import --csv codeheaps.csv h" \
		".import --csv codeheap_blocks.csv b" \
		"SELECT h.name, sum(b.state = 'free'), sum(b.state = 'used' AND b.top = 0),
		        sum(CASE WHEN b.state = 'free' THEN b.size END) / 1024
		   FROM b JOIN h ON b.heap = h.id GROUP BY h.id ORDER BY h.id;")
	want="\"CodeHeap 'non-profiled nmethods'\",1,1360,291
\"CodeHeap 'profiled nmethods'\",2,8711,3300
\"CodeHeap 'non-nmethods'\",1,400,13"
	[ "$got" = "$want" ] || t_fail "sqlite: $got"
fi
t_end

t_begin export_usage_errors
run export "$W/c.hsdb" -o "$W/x"
expect_rc 2
run export "$W/c.hsdb" --format=json -o "$W/x"
expect_rc 2
run export --format=csv -o "$W/x"
expect_rc 2
t_end

t_summary
