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
		run top "$W/c.hsdb" --kind "$kind" --csv
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

t_begin export_usage_errors
run export "$W/c.hsdb" -o "$W/x"
expect_rc 2
run export "$W/c.hsdb" --format=json -o "$W/x"
expect_rc 2
run export --format=csv -o "$W/x"
expect_rc 2
t_end

t_summary
