#!/bin/sh
# Run libFuzzer harnesses one after the other, each for SECONDS, at the
# lowest priority:
#
#   tests/fuzz/campaign.sh SECONDS NAME...
#
# Each starts from its committed corpus (tests/fuzz/corpus/NAME/), the
# fresh seeds (build-fuzz/corpus/NAME/, tests/fuzz/make-seeds.sh) and
# what earlier campaign runs found (build-fuzz/campaign/corpus-NAME/,
# where new inputs are written).  A crash does not end the run: it is
# kept in build-fuzz/campaign/crashes-NAME/ and the harness starts again
# for the time that remains.  The log, with libFuzzer's final stats of
# each run, is build-fuzz/campaign/NAME.log.  `make fuzz-minimize` merges
# the campaign corpora back into tests/fuzz/corpus/.
#
# `make fuzz-campaign` runs two of these at once, one per core; a harness
# whose binary is missing is skipped with a line in the log.  With
# FUZZ_STOP=1 (`make fuzz`) the first crash ends it instead, exit 1.
set -u
cd "$(dirname "$0")/../.."
secs=$1
shift
c=build-fuzz/campaign
mkdir -p "$c"
# The lowest priority.  Where the kernel groups tasks by session
# (autogroup, /proc/sys/kernel/sched_autogroup_enabled), nice only ranks
# tasks within their group, and each group gets an equal share of the
# CPUs: a harness at nice 19 in its own terminal took half the machine
# from an import started in another one (a 0.5 GB import took 11 s
# instead of 3.7).  So each harness runs in a session of its own whose
# group is at nice 19 too.
# (exec: run in the background, $! is the harness's session)
lowest() {
	if [ -w /proc/self/autogroup ] && command -v setsid >/dev/null; then
		exec setsid -w sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null
			exec nice -n 19 "$@"' lowest "$@"
	else
		exec nice -n 19 "$@"
	fi
}
for n in "$@"; do
	bin=build-fuzz/fuzz-$n
	log=$c/$n.log
	if [ ! -x "$bin" ]; then
		echo "campaign: no $bin, $n skipped" >>"$log"
		continue
	fi
	mkdir -p "$c/corpus-$n" "$c/crashes-$n" "tests/fuzz/corpus/$n" \
		"build-fuzz/corpus/$n"
	d=tests/fuzz/$n.dict
	[ -f "$d" ] || d=tests/fuzz/walk.dict
	# the stores made from the fixtures are up to 650 KB
	case $n in store) max=700000 ;; *) max=300000 ;; esac
	start=$(date +%s)
	left=$secs
	while [ "$left" -ge 30 ]; do
		echo "== $(date '+%F %T') fuzz-$n for $left s" >>"$log"
		# /usr/bin/time: the CPU a harness got, which a loaded machine
		# makes less than its wall time at nice 19
		lowest /usr/bin/time -f "== cpu user %U s, system %S s, wall %e s" \
			-a -o "$log" "$bin" -max_total_time="$left" -dict="$d" \
			-max_len=$max -rss_limit_mb=4096 -timeout=30 \
			-artifact_prefix="$c/crashes-$n/" -print_final_stats=1 \
			"$c/corpus-$n" "tests/fuzz/corpus/$n" \
			"build-fuzz/corpus/$n" >>"$log" 2>&1 &
		# in a session of its own, a ^C here does not reach it
		pid=$!
		trap 'kill -TERM -$pid 2>/dev/null || kill -TERM $pid; exit 130' INT TERM
		wait $pid
		rc=$?
		trap - INT TERM
		echo "== $(date '+%F %T') fuzz-$n exit $rc" >>"$log"
		if [ "$rc" -ne 0 ] && [ -n "${FUZZ_STOP:-}" ]; then
			tail -n 40 "$log" >&2
			echo "campaign: fuzz-$n failed, see $log and $c/crashes-$n/" >&2
			exit 1
		fi
		left=$((secs - ($(date +%s) - start)))
		# a harness that cannot start at all would loop: stop it
		[ "$rc" -eq 0 ] || [ -n "$(ls "$c/crashes-$n")" ] || break
	done
	cpu=$(awk '/^== cpu user/ { c += $4 + $7 } END { printf "%d", c }' "$log")
	# slow-unit-*: an input that took over 10 s once, which a machine
	# busy with other work (this runs at nice 19) can make of any input:
	# replay it alone before calling it a finding
	echo "campaign: fuzz-$n done: $(grep -c '^stat::number_of_executed_units' "$log") runs, $cpu CPU s in all runs of the log," \
		"$(ls "$c/crashes-$n" | grep -vc '^slow-unit-') crash, leak, timeout or oom inputs and" \
		"$(ls "$c/crashes-$n" | grep -c '^slow-unit-') slow units in $c/crashes-$n/"
done
