#!/bin/sh
# The oracle for rewrites of the store and the query engine: the md5 of
# every view on a store imported from every fixture, and of the CSV
# export's files, against the list in tests/views.md5.
#
#   tests/cli/views_md5.sh            check (a suite of tests/run)
#   tests/cli/views_md5.sh --update   write tests/views.md5 anew
#
# Each line of the list is "MD5 STORE: COMMAND", COMMAND being what ran
# in that store's folder (the store is always s.hsdb, inputs are copied
# in under their own names, so no path of this machine shows).  An md5
# covers the exit status, stdout and stderr.  A mismatch prints the
# command and both md5s.  The list is generated, not checked by hand: it
# only says that a change of the insides changed no answer.  Regenerate
# it when a change of behaviour is meant, and say so in the commit.
#
# Environment: HEAPSIFT, HS_FIXTURES (as every suite), STORE_BENCH (the
# store_bench binary, for the synthetic store; without it that store is
# a visible skip), PYTHON3 (for the agent recordings tests/agent writes).
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
LIST="$HERE/../views.md5"
MK="$HERE/../agent/make_recording.py"
W="$T/work"
GOT="$T/got.md5"
UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1
: >"$GOT"
F=$HS_FIXTURES

# v ARGS...: run heapsift ARGS in $D, add "md5 $NAME: ARGS" to $GOT
v() {
	(cd "$D" && TZ=UTC LC_ALL=C HOME="$T/tmp" "$HEAPSIFT" "$@" \
		>"$T/o" 2>"$T/e" </dev/null)
	m=$({
		echo "exit $?"
		cat "$T/o"
		echo "-- stderr"
		cat "$T/e"
	} | sed "s|$T|T|g" | md5sum | cut -c1-32)
	echo "$m $NAME: $*" >>"$GOT"
}

# files DIR: the md5 of every file under $D/DIR (none where the export
# refused, which its own line's md5 holds)
files() {
	[ -d "$D/$1" ] || return 0
	(cd "$D" && find "$1" -type f | LC_ALL=C sort) | while read -r f; do
		echo "$(md5sum <"$D/$f" | cut -c1-32) $NAME: file $f" >>"$GOT"
	done
}

# begin NAME INPUT...: a fresh folder $W/NAME with the inputs copied in
begin() {
	NAME=$1
	D="$W/$NAME"
	shift
	mkdir -p "$D"
	for f in "$@"; do
		cp "$f" "$D/"
	done
}

# import INPUT-NAMES...: import the copied inputs into s.hsdb
import() { v import -o s.hsdb "$@"; }

# kind_views KIND: every sample view of one kind, unfiltered
kind_views() {
	k="--kind=$1"
	for by in class site app-site thread recording; do
		v top s.hsdb "$k" "--by=$by"
		v top s.hsdb "$k" "--by=$by" --csv
	done
	v top s.hsdb "$k" --limit=3
	v tree s.hsdb "$k"
	v tree s.hsdb "$k" --csv
	v tree s.hsdb "$k" --inverted
	v tree s.hsdb "$k" --inverted --csv
	v tree s.hsdb "$k" --depth=3
	v tree s.hsdb "$k" --inverted --depth=4
	v tree s.hsdb "$k" --depth=0 --min-share=0 --csv
	v tree s.hsdb "$k" --inverted --depth=0 --min-share=0 --csv
	v timeline s.hsdb "$k"
	v timeline s.hsdb "$k" --csv
	v timeline s.hsdb "$k" --bucket=1s
	v timeline s.hsdb "$k" --bucket=250ms --csv
	v survivors s.hsdb "$k"
	v survivors s.hsdb "$k" --csv
	v survivors s.hsdb "$k" --leaks
	v survivors s.hsdb "$k" --leaks --csv
	for by in class app-site thread recording age gcs; do
		v survivors s.hsdb "$k" "--by=$by"
	done
	v survivors s.hsdb "$k" --by=age --csv
	v survivors s.hsdb "$k" --min-gcs=1
	v survivors s.hsdb "$k" --before-last-gc
	v survivors s.hsdb "$k" --bucket=1s --limit=0
}

# filter_views: the default kind under filters
filter_views() {
	for f in "--from=1s --to=3s" "--from=500ms" "--to=2s" \
		"--thread=main" "--thread=Worker|worker-1" \
		"--class=byte|String|Type1" "--include=java\\.util|method4" \
		"--exclude=java\\.util|method4" "--recording=0" "--recording=1" \
		"--library=^java\\.|Thing"; do
		# shellcheck disable=SC2086 # the words of $f are options
		set -- $f
		v top s.hsdb --by=site "$@"
		v top s.hsdb --by=app-site --csv "$@"
		v tree s.hsdb --csv --depth=0 --min-share=0 "$@"
		v tree s.hsdb --inverted "$@"
		v timeline s.hsdb --csv "$@"
		v survivors s.hsdb --csv "$@"
	done
}

# sample_views: everything a store of samples answers
sample_views() {
	v info s.hsdb
	v info --check s.hsdb
	for kind in alloc tlab outside old agent; do
		v top s.hsdb "--kind=$kind" --csv
		# the kinds the store has (rows after the header), all views
		[ "$(wc -l <"$T/o")" -gt 1 ] && kind_views $kind
	done
	filter_views
	v export s.hsdb --format=csv -o csv
	files csv
}

# codeheap_views: the code-heap views and the export
codeheap_views() {
	v info s.hsdb
	for map in space count age tier type; do
		v codeheap s.hsdb "--map=$map"
	done
	v codeheap s.hsdb --width=16
	v codeheap s.hsdb --csv
	v codeheap s.hsdb --csv --granules
	v codeheap s.hsdb --snapshot=0
	v codeheap s.hsdb --heap="non-profiled nmethods"
	v codeheap s.hsdb --compare=0,1
	v export s.hsdb --format=csv -o csv
	files csv
}

t_begin views_md5_jfr
for f in "$F"/jfr/*.jfr; do
	b=${f##*/}
	begin "${b%.jfr}" "$f"
	import "$b"
	v dump --format=tsv "$b"
	v dump --stats "$b"
	v dump --raw-names --events=old,gc "$b"
	sample_views
done
t_end

t_begin views_md5_multi_recording
begin multi "$F"/jfr/jdk17-default.jfr "$F"/jfr/jdk17-profile-tlab.jfr \
	"$F"/jfr/jdk17-leak-gcroots.jfr "$F"/agent/review/dead_and_alive.hsa \
	"$F"/codeheap/jdk17-seg-jcmd-codecache.txt
import jdk17-default.jfr
v import --append -o s.hsdb jdk17-profile-tlab.jfr jdk17-leak-gcroots.jfr
v import --append -o s.hsdb dead_and_alive.hsa jdk17-seg-jcmd-codecache.txt
sample_views
codeheap_views
t_end

t_begin views_md5_bundle
begin bundle "$F"/bundles/case-demo.tar.gz
import case-demo.tar.gz
sample_views
codeheap_views
t_end

t_begin views_md5_agent
for f in "$F"/agent/review/*.hsa; do
	b=${f##*/}
	begin "agent-${b%.hsa}" "$f"
	import "$b"
	sample_views
done
if command -v python3 >/dev/null 2>&1; then
	for sc in basic openj9 killed; do
		begin "agent-made-$sc"
		python3 "$MK" "$sc" "$D/$sc.hsa" >/dev/null
		import "$sc.hsa"
		sample_views
	done
else
	t_fail "python3 is missing (build-aux/deps.sh test installs it)"
fi
t_end

t_begin views_md5_codeheap_and_javacore
for f in "$F"/codeheap/*.txt "$F"/codeheap/*.gz "$F"/javacore/*; do
	b=${f##*/}
	begin "ch-$b" "$f"
	import "$b"
	codeheap_views
done
t_end

t_begin views_md5_synthetic
if [ -x "${STORE_BENCH:-}" ]; then
	begin synthetic
	# 200,000 samples of store_bench's generator: a function of N alone
	(cd "$D" && "$STORE_BENCH" gen s.hsdb 200000) ||
		t_fail "store_bench gen failed"
	sample_views
	t_end
else
	t_skip "STORE_BENCH does not name the store_bench binary (make test sets it)"
fi

if [ $UPDATE = 1 ]; then
	LC_ALL=C sort -k2 "$GOT" >"$LIST"
	echo "views_md5: wrote $(wc -l <"$LIST") lines to $LIST"
	t_begin views_md5_update
	t_end
	t_summary
fi

# Every command of the list ran and gave the same md5; no command ran
# that the list lacks (a list made on another set of fixtures).
t_begin views_md5_list
if [ ! -s "$LIST" ]; then
	t_fail "no list: run tests/cli/views_md5.sh --update"
else
	if [ ! -x "${STORE_BENCH:-}" ]; then
		grep -v ' synthetic: ' "$LIST" >"$T/want"
	else
		cp "$LIST" "$T/want"
	fi
	bad=$(LC_ALL=C awk '
		NR == FNR { want[substr($0, 34)] = $1; next }
		{ k = substr($0, 34); got[k] = $1
		  if (!(k in want)) print "not in the list: " k " (md5 " $1 ")"
		  else if (want[k] != $1) print k ": want " want[k] ", got " $1 }
		END { for (k in want) if (!(k in got)) print "did not run: " k }
	' "$T/want" "$GOT")
	[ -z "$bad" ] || t_fail "$(printf '%s\n' "$bad" | head -n 200)
($(printf '%s\n' "$bad" | wc -l) mismatches)"
fi
t_end
t_summary
