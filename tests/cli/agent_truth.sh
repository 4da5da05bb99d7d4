# The agent end to end against a workload's own ground truth
# (tests/agent/SiteWorkload.java prints the exact bytes each site
# allocated and what it does with its objects): every site found, bytes
# within 10% for sites with 5% of the volume or more, the retaining
# site's live set growing and ranked first as a leak suspect, the
# dropping site's near zero, the holding site's objects dying about
# HOLD seconds after allocation.  Skipped, visibly, without a JDK or
# without the agent library.
. "$(dirname "$0")/lib.sh"
W="$T/work"
SRC="$(cd "$(dirname "$0")/../agent" && pwd)"
SECS=${AGENT_TRUTH_SECONDS:-6}
HOLD=2

# HS_AGENT names a library to test instead of the one heapsift finds
agent=${HS_AGENT:-$("$HEAPSIFT" agent-path 2>/dev/null)} || agent=
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
	t_skip_all "no JDK (java, javac) on PATH"
fi
if [ -z "$agent" ] || [ ! -f "$agent" ]; then
	t_skip_all "no agent library (heapsift agent-path finds none; it is built when the JDK's jvmti.h is found)"
fi

t_begin agent_truth_workload_records_and_imports
mkdir -p "$W/classes"
javac -d "$W/classes" "$SRC/SiteWorkload.java" || t_fail "javac failed"
java -Xms1g -Xmx1g -XX:+UseG1GC \
	"-agentpath:$agent=file=$W/w.hsa,interval=64k,quiet" \
	-cp "$W/classes" SiteWorkload "$SECS" "$HOLD" >"$W/truth.json" 2>"$W/java.err" ||
	t_fail "the workload failed: $(tail -n 5 "$W/java.err")"
run import -o "$W/w.hsdb" "$W/w.hsa"
[ "$rc" = 0 ] || [ "$rc" = 3 ] || t_fail "import: status $rc: $err"
run info "$W/w.hsdb"
printf '%s\n' "$out" | grep -q "agent#complete=yes" || t_fail "the recording is not complete: $out"
printf '%s\n' "$out" | grep -q "agent#dropped_buffer=0" || t_fail "samples lost: $out"
t_end

t_begin agent_truth_sites_found_and_bytes_within_10_percent
run top "$W/w.hsdb" --kind agent --by site --limit 0 --csv
printf '%s\n' "$out" | tr -d '\r' >"$W/sites.csv"
# the checker's own status counts: one that crashes before it writes its
# verdict fails the case instead of passing it
python3 - "$W/truth.json" "$W/sites.csv" <<'PY' 2>"$W/sites.err" ||

import csv, json, sys
truth = json.load(open(sys.argv[1]))["sites"]
rows = list(csv.DictReader(open(sys.argv[2])))
total = sum(truth.values())
bad = []
for site, want in truth.items():
    got = sum(int(r["est_bytes"]) for r in rows if r["site"].startswith(site + ":"))
    n = sum(int(r["samples"]) for r in rows if r["site"].startswith(site + ":"))
    if n == 0:
        bad.append("%s: not found" % site)
    elif want >= 0.05 * total and abs(got - want) > 0.10 * want:
        bad.append("%s: estimated %d bytes, allocated %d (%+.1f%%, %d samples)"
                   % (site, got, want, 100.0 * (got - want) / want, n))
    print("%s: estimated %d, allocated %d (%+.1f%%), %d samples"
          % (site, got, want, 100.0 * (got - want) / want, n), file=sys.stderr)
open(sys.argv[2] + ".bad", "w").write("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	t_fail "the checker failed: $(cat "$W/sites.csv.bad" 2>/dev/null) $(tail -n 5 "$W/sites.err")"
t_end

t_begin agent_truth_survivors_match_what_each_site_kept_and_dropped
# The workload prints how many objects each site kept alive to the end
# and how many it dropped, and collects after the last drop; the live
# objects estimated at the last point, and the estimated objects less
# those, must match within 5 standard deviations of the sampling
# estimate (tests/agent/check_kept.py derives them from the 64 KiB
# interval and each site's sizes).  Hold's counts are of its long[]; the
# other sites allocate byte[].
for cls in 'byte\[\]' 'long\[\]'; do
	case $cls in
	byte*) sites="SiteWorkload.retain SiteWorkload.drop SiteWorkload.churn" ;;
	*) sites=SiteWorkload.hold ;;
	esac
	run survivors "$W/w.hsdb" --kind agent --by site --limit 0 --csv "--class=^$cls\$"
	[ "$rc" = 0 ] || t_fail "survivors: status $rc: $err"
	printf '%s\n' "$out" | tr -d '\r' >"$W/kept.csv"
	run top "$W/w.hsdb" --kind agent --by site --limit 0 --csv "--class=^$cls\$"
	[ "$rc" = 0 ] || t_fail "top: status $rc: $err"
	printf '%s\n' "$out" | tr -d '\r' >"$W/kepttop.csv"
	# shellcheck disable=SC2086
	python3 "$SRC/check_kept.py" "$W/truth.json" 65536 "$W/kept.csv" \
		"$W/kepttop.csv" $sites >"$W/kept.bad" 2>"$W/kept.err" ||
		t_fail "$(cat "$W/kept.bad")" "$([ -s "$W/kept.bad" ] || tail -n 5 "$W/kept.err")"
	cat "$W/kept.err"
done
run survivors "$W/w.hsdb" --kind agent --by site
printf '%s\n' "$out" | grep -q '(0 untracked' ||
	t_fail "untracked samples would be missing from the live estimates: $out"
t_end

t_begin agent_truth_survivors_follow_each_sites_fate
run survivors "$W/w.hsdb" --kind agent --by site --limit 0 --csv
printf '%s\n' "$out" | tr -d '\r' >"$W/surv.csv"
run top "$W/w.hsdb" --kind agent --by site --limit 0 --csv
printf '%s\n' "$out" | tr -d '\r' >"$W/top.csv"
python3 - "$W/surv.csv" "$W/top.csv" <<'PY' >"$W/surv.out" 2>&1 || t_fail "$(cat "$W/surv.out")"
import csv, sys
series = {}
for r in csv.DictReader(open(sys.argv[1])):
    series.setdefault(r["site"].split(":")[0], []).append(int(r["live_samples"]))
samples = {}
for r in csv.DictReader(open(sys.argv[2])):
    k = r["site"].split(":")[0]
    samples[k] = samples.get(k, 0) + int(r["samples"])
bad = []
ret = series.get("SiteWorkload.retain", [])
if not ret or ret[-1] < 0.9 * max(ret) or ret[len(ret) // 3] >= ret[-1]:
    bad.append("retain's live set does not grow to the end: %s" % ret)
drop = series.get("SiteWorkload.drop", [])
# alive between GCs at most: a small share of everything it allocated
if not drop or max(drop) > 0.2 * samples.get("SiteWorkload.drop", 1):
    bad.append("drop's live set is not near zero: peak %s of %s samples"
               % (max(drop) if drop else None, samples.get("SiteWorkload.drop")))
print("retain", ret[:3], "...", ret[-3:], "drop peak", max(drop) if drop else None)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
t_end

t_begin agent_truth_hold_site_dies_after_hold_seconds
run survivors "$W/w.hsdb" --kind agent --by site --limit 0
line=$(printf '%s\n' "$out" | grep 'SiteWorkload.hold:')
life=$(printf '%s\n' "$line" | awk '{ for (i = 1; i <= NF; i++) if ($(i + 1) == "s" && $i ~ /^[0-9.]+$/) { print $i; exit } }')
[ -n "$life" ] || t_fail "no median life for hold: $line"
awk -v l="${life:-0}" -v h=$HOLD 'BEGIN { exit !(l >= h - 0.25 && l <= h + 1.5) }' ||
	t_fail "hold's objects live $life s (median), held $HOLD s: $line"
t_end

t_begin agent_truth_retain_is_the_first_leak_suspect
run survivors "$W/w.hsdb" --kind agent --by site --leaks --csv
first=$(printf '%s\n' "$out" | tr -d '\r' | sed -n 2p)
case $first in
SiteWorkload.retain:*,yes) ;;
*) t_fail "first ranked: $first; all: $out" ;;
esac
printf '%s\n' "$out" | tr -d '\r' | grep '^SiteWorkload.drop:' | grep -q ',yes$' &&
	t_fail "drop ranked as a leak suspect: $out"
t_end

t_summary
