#!/bin/sh
# Merge what the fuzzers found back into the committed corpora:
#
#   tests/fuzz/minimize.sh [NAME...]      (all harnesses when none given)
#
# For each harness, libFuzzer's -merge=1 runs into a fresh folder that
# first holds the fresh seeds (build-fuzz/corpus/NAME/, which
# make-seeds.sh makes from fixtures/ every time): of the committed corpus
# (tests/fuzz/corpus/NAME/) and the campaign's (build-fuzz/campaign/
# corpus-NAME/) only the inputs that reach something the seeds and the
# smaller inputs do not are kept, and the seeds are then taken out again.
# The result replaces tests/fuzz/corpus/NAME/.  It is kept under
# FUZZ_CORPUS_KB (2048) per harness: past that, the biggest inputs are
# dropped, and the script says how many.
set -eu
cd "$(dirname "$0")/../.."
cap=${FUZZ_CORPUS_KB:-2048}
[ $# -gt 0 ] || set -- walk probe jfr jfr_struct store agentrec codeheap javacore
for n in "$@"; do
	bin=build-fuzz/fuzz-$n
	if [ ! -x "$bin" ]; then
		echo "minimize: no $bin (make fuzz-build), $n skipped" >&2
		continue
	fi
	case $n in store) max=700000 ;; *) max=300000 ;; esac
	m=build-fuzz/merge-$n
	rm -rf "$m"
	mkdir -p "$m" "tests/fuzz/corpus/$n" "build-fuzz/campaign/corpus-$n"
	seeds=build-fuzz/corpus/$n
	[ -d "$seeds" ] && cp "$seeds"/* "$m"/ 2>/dev/null || true
	nice -n 19 "$bin" -merge=1 -max_len=$max -rss_limit_mb=4096 \
		-timeout=30 "$m" "tests/fuzz/corpus/$n" \
		"build-fuzz/campaign/corpus-$n" >"build-fuzz/merge-$n.log" 2>&1 || {
		echo "minimize: merge of $n failed, see build-fuzz/merge-$n.log" >&2
		continue
	}
	if [ -d "$seeds" ]; then
		for s in "$seeds"/*; do
			[ -e "$s" ] && rm -f "$m/$(basename "$s")"
		done
	fi
	dropped=0
	while [ "$(du -sk --apparent-size "$m" | cut -f1)" -gt "$cap" ]; do
		big=$(ls -S "$m" | head -1)
		[ -n "$big" ] || break
		rm -f "$m/$big"
		dropped=$((dropped + 1))
	done
	rm -rf "tests/fuzz/corpus/$n"
	mkdir -p "tests/fuzz/corpus/$n"
	cp "$m"/* "tests/fuzz/corpus/$n"/ 2>/dev/null || true
	echo "minimize: $n: $(ls "tests/fuzz/corpus/$n" | wc -l) inputs," \
		"$(du -sk --apparent-size "tests/fuzz/corpus/$n" | cut -f1) KB" \
		"(the biggest $dropped dropped to stay under $cap KB)"
done
