#!/bin/sh
# The layering check (build-aux/layering.py, `make layering`) can fail:
# fed fake build trees of -MMD dependency files, it passes a tree within
# the rules and names each violation in one that is not, whether the
# header is included directly or through another header (the compiler's
# .d lists both), and it refuses to pass a tree with nothing to check.
# The rules themselves are docs/development.md's; the real tree is
# checked by `make layering`, which `make test` runs.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$TOP/build-aux/layering.py

if ! command -v python3 >/dev/null 2>&1; then
	t_skip_all "python3 is not installed"
fi

# tree NAME: a new fake repository $T/work/NAME with a build folder
tree() {
	R=$T/work/$1
	mkdir -p "$R/build/src" "$R/build/pic"
}
# dep OBJ SOURCE HEADER...: SOURCE (made, empty) and its .d as gcc -MMD
# -MP writes it: the object's rule, continued over lines, then a phony
# rule per header.  OBJ is relative to the build folder.
dep() {
	_obj=$1 _src=$2
	shift 2
	mkdir -p "$R/$(dirname "$_src")" "$R/build/$(dirname "$_obj")"
	: >"$R/$_src"
	{
		printf 'build/%s: %s' "$_obj" "$_src"
		for _h in "$@"; do printf ' \\\n %s' "$_h"; done
		printf '\n'
		for _h in "$@"; do printf '%s:\n' "$_h"; done
	} >"$R/build/${_obj%.o}.d"
}
# check: run the checker on $R; sets $out, $rc
check() {
	out=$(cd "$R" && python3 "$CHECK" build 2>&1)
	rc=$?
}
expect_line() {
	printf '%s\n' "$out" | grep -qxF -- "$1" ||
		t_fail "output lacks line '$1'; output was: $out"
}

t_begin layering_clean_tree_passes
tree clean
dep src/query/query.o src/query/query.c src/query/query.h \
	src/store/store.h src/formats/store/store_format.h src/util/err.h
dep src/tui/view.o src/tui/view.c src/tui/view.h src/query/query.h \
	src/findings/findings.h src/util/buf.h
dep src/cli/cmd_top.o src/cli/cmd_top.c src/store/store.h \
	src/tui/tui.h src/importers/importer.h
dep src/export/pprof.o src/export/pprof.c src/query/query.h \
	build/gen/formats/pprof/profile.pb-c.h /usr/include/zlib.h
dep pic/agent/writer.o agent/writer.c agent/writer.h \
	src/util/crc32c.h src/formats/agentrec/agentrec.h
check
[ "$rc" = 0 ] || t_fail "exit $rc on a clean tree: $out"
expect_line "layering: 5 sources, every include within its layer's rules"
t_end

t_begin layering_direct_include_fails
tree direct
dep src/query/query.o src/query/query.c src/query/query.h
dep src/tui/view.o src/tui/view.c src/store/store.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: src/tui/view.c reaches src/store/store.h (tui may not use store)"
expect_line "layering: 1 violation in 2 sources (docs/development.md, The layers)"
t_end

t_begin layering_indirect_include_fails
# view.c includes only query_codeheap.h, which includes store.h: the .d
# lists both, and the store is what the browser must not reach
tree indirect
dep src/tui/view.o src/tui/view.c src/query/query_codeheap.h \
	src/store/store.h src/formats/store/store_format.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: src/tui/view.c reaches src/store/store.h (tui may not use store)"
expect_line "layering: src/tui/view.c reaches src/formats/store/store_format.h (tui may not use formats)"
printf '%s\n' "$out" | grep -q 'query_codeheap' &&
	t_fail "query_codeheap.h is the tui's to use: $out"
t_end

t_begin layering_upward_arrow_fails
tree upward
dep src/query/jvms.o src/query/jvms.c src/findings/findings.h \
	src/query/query.h
dep src/formats/jfr/jfr.o src/formats/jfr/jfr.c src/record/record.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: src/query/jvms.c reaches src/findings/findings.h (query may not use findings)"
expect_line "layering: src/formats/jfr/jfr.c reaches src/record/record.h (formats may not use record)"
t_end

t_begin layering_internals_fail
tree internals
dep src/findings/evidence.o src/findings/evidence.c src/query/query.h \
	src/query/query_int.h
dep src/cli/cmd_info.o src/cli/cmd_info.c src/store/store.h \
	src/store/store_block.h
dep src/query/query.o src/query/query.c src/store/store_write_int.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: src/findings/evidence.c reaches src/query/query_int.h (findings may not use query internals)"
expect_line "layering: src/cli/cmd_info.c reaches src/store/store_block.h (cli may not use store beyond src/store/store.h)"
expect_line "layering: src/query/query.c reaches src/store/store_write_int.h (query may not use store internals)"
printf '%s\n' "$out" | grep -q 'reaches src/query/query.h ' &&
	t_fail "query.h is the findings' to use: $out"
t_end

t_begin layering_agent_and_generated_fail
tree agent
dep pic/agent/msg.o agent/msg.c src/util/xalloc.h
dep src/tui/tui.o src/tui/tui.c build/gen/formats/pprof/profile.pb-c.h
dep src/cli/main.o src/cli/main.c agent/state.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: agent/msg.c reaches src/util/xalloc.h (agent may not use util beyond src/util/crc32c.h)"
expect_line "layering: src/tui/tui.c reaches gen/formats/pprof/profile.pb-c.h (tui may not use formats)"
expect_line "layering: src/cli/main.c reaches agent/state.h (cli may not use agent)"
t_end

t_begin layering_source_in_no_layer_fails
tree nolayer
dep src/newthing/x.o src/newthing/x.c src/util/buf.h
check
[ "$rc" = 1 ] || t_fail "exit $rc, expected 1"
expect_line "layering: src/newthing/x.c is in no layer (add its folder to build-aux/layering.py)"
t_end

t_begin layering_stale_dependency_files_ignored
# an object left from a source since moved away: its .d names a source
# that is gone, and a violation in it is no longer the tree's
tree stale
dep src/query/query.o src/query/query.c src/query/query.h
dep src/tui/old.o src/tui/old.c src/store/store.h
rm "$R/src/tui/old.c"
check
[ "$rc" = 0 ] || t_fail "exit $rc, expected 0: $out"
expect_line "layering: 1 sources, every include within its layer's rules"
t_end

t_begin layering_nothing_to_check_fails
tree empty
check
[ "$rc" = 2 ] || t_fail "exit $rc, expected 2: $out"
expect_line "layering: no dependency files of existing sources under build/src or build/pic: build first (make)"
# only stale ones: nothing either
dep src/tui/old.o src/tui/old.c src/util/buf.h
rm "$R/src/tui/old.c"
check
[ "$rc" = 2 ] || t_fail "exit $rc with only stale files, expected 2: $out"
t_end

t_summary
