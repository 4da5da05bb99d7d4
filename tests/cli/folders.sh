#!/bin/sh
# A folder given as an input (an unpacked bundle) is read as the archive
# of it would be: docs/inputs.md, "Folders".  Every folder is made here,
# at run time, from the fixtures; the tar beside it is packed by tar from
# the same files.  Expected values come from outside heapsift: the JDK's
# `jfr summary` of each recording (fixtures/jfr/*.summary.txt), `wc -c`,
# tar's own listing, and the names chosen when the folder was made.
#
# Run: HEAPSIFT=$PWD/heapsift sh tests/cli/folders.sh
. "$(dirname "$0")/lib.sh"

W=$T/work
J=$HS_FIXTURES/jfr
export XDG_CACHE_HOME="$T/cache"

# events FIXTURE TYPE: TYPE's count in `jfr summary` of fixture FIXTURE
events() {
	awk -v t="$2" '$1 == t { print $2; exit }' "$J/$1.summary.txt"
}
# kind_type KIND: the JFR event type of heapsift's --kind KIND
kind_type() {
	case $1 in
	alloc) echo jdk.ObjectAllocationSample ;;
	tlab) echo jdk.ObjectAllocationInNewTLAB ;;
	outside) echo jdk.ObjectAllocationOutsideTLAB ;;
	old) echo jdk.OldObjectSample ;;
	esac
}
# expected KIND FIXTURE...: the fixtures' events of KIND, added up
expected() {
	_k=$(kind_type "$1")
	shift
	_n=0
	for _f in "$@"; do
		_n=$((_n + $(events "$_f" "$_k")))
	done
	echo "$_n"
}
# samples STORE KIND: the samples column of `top --csv` added up (JFR's
# estimate: the corrected one counts OutsideTLAB events as alloc's too)
samples() {
	run top --csv --kind="$2" --estimate=jfr "$1"
	printf '%s\n' "$out" | awk -F, 'NR > 1 { n += $(NF - 5) } END { print n + 0 }'
}

# run_bounded ARGS...: run, ended after 60 s (status 124): a walk that
# loops or blocks must show as a failure, not hang the suite
run_bounded() {
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C timeout 60 "$HEAPSIFT" "$@" \
		>"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# The folder of the first cases: a recording at the top, one two folders
# down, one inside a tar.gz in a subfolder, and a note.
B=$W/bundle
mkdir -p "$B/sub/deeper" "$B/arch" "$W/pack"
cp "$J/jdk17-leak-gcroots.jfr" "$B/"
cp "$J/jdk17-killed-unfinished.jfr" "$B/sub/deeper/"
printf 'case notes\n' >"$B/notes.txt"
(cd "$J" && tar czf "$B/arch/in.tar.gz" jdk17-profile-tlab.jfr)
(cd "$B" && tar czf "$W/bundle.tar.gz" arch jdk17-leak-gcroots.jfr notes.txt sub)
ALL="jdk17-leak-gcroots jdk17-killed-unfinished jdk17-profile-tlab"

t_begin folder_as_its_archive
# 3: the killed recording's unfinished chunk, said of both
run import -o "$W/folder.hsdb" "$B"
expect_rc 3
run import -o "$W/tar.hsdb" "$W/bundle.tar.gz"
expect_rc 3
for k in alloc tlab outside old; do
	run top --csv --kind=$k --by=site "$W/folder.hsdb"
	f=$out
	run top --csv --kind=$k --by=site "$W/tar.hsdb"
	[ "$f" = "$out" ] || t_fail "--kind=$k: the folder's top differs from its tar's"
	want=$(expected $k $ALL)
	[ "$want" -gt 0 ] || [ $k = old ] || t_fail "no $k events in jfr summary"
	got=$(samples "$W/folder.hsdb" $k)
	[ "$got" = "$want" ] || t_fail "--kind=$k: $got samples, jfr summary counts $want"
done
t_end

t_begin member_names_are_paths
run info "$W/folder.hsdb"
names=$(printf '%s\n' "$out" | sed -n 's/^recording [0-9]*: //p')
want="$B/arch/in.tar.gz!jdk17-profile-tlab.jfr
$B/jdk17-leak-gcroots.jfr
$B/sub/deeper/jdk17-killed-unfinished.jfr"
[ "$names" = "$want" ] || t_fail "recordings named: $names"
# scan's member column: the paths inside, with tar's sizes
run scan --csv "$B"
expect_rc 0
out=$(printf '%s\n' "$out" | tr -d '\r')
printf '%s\n' "$out" | grep -qxF "$B,notes.txt,unknown,$(size "$B/notes.txt"),0,,ok" ||
	t_fail "no notes.txt row: $out"
printf '%s\n' "$out" | grep -qF "$B,sub/deeper/jdk17-killed-unfinished.jfr,jfr,$(size "$J/jdk17-killed-unfinished.jfr")," ||
	t_fail "no sub/deeper row: $out"
t_end

t_begin same_store_byte_for_byte
# the same tree made in another order (readdir's order differs)
rm -rf "$W/again"
mkdir -p "$W/again/sub/deeper" "$W/again/arch"
cp "$B/notes.txt" "$W/again/"
cp "$B/sub/deeper/jdk17-killed-unfinished.jfr" "$W/again/sub/deeper/"
cp "$B/arch/in.tar.gz" "$W/again/arch/"
cp "$B/jdk17-leak-gcroots.jfr" "$W/again/"
run import -o "$W/again1.hsdb" "$W/again"
expect_rc 3
rm -rf "$W/again"
mkdir -p "$W/again/arch" "$W/again/sub/deeper"
cp "$B/jdk17-leak-gcroots.jfr" "$W/again/"
cp "$B/arch/in.tar.gz" "$W/again/arch/"
cp "$B/sub/deeper/jdk17-killed-unfinished.jfr" "$W/again/sub/deeper/"
cp "$B/notes.txt" "$W/again/"
run import -o "$W/again2.hsdb" "$W/again"
expect_rc 3
cmp -s "$W/again1.hsdb" "$W/again2.hsdb" || t_fail "two imports of one tree differ"
t_end

t_begin link_out_not_read
L=$W/links
mkdir -p "$L"
cp "$J/jdk17-leak-gcroots.jfr" "$L/"
cp "$J/jdk17-default.jfr" "$W/outside.jfr"
ln -s "$W/outside.jfr" "$L/escape.jfr"
ln -s ../outside.jfr "$L/escape2.jfr"
ln -s jdk17-leak-gcroots.jfr "$L/alias.jfr" # inside: read once, as itself
run import -o "$W/links.hsdb" "$L"
expect_rc 3
expect_err "$L/escape.jfr: a symbolic link out of the folder (to $W/outside.jfr): not followed"
expect_err "$L/escape2.jfr: a symbolic link out of the folder (to ../outside.jfr)"
case $err in *alias.jfr*) t_fail "the link inside was reported: $err" ;; esac
for k in alloc old; do
	got=$(samples "$W/links.hsdb" $k)
	want=$(expected $k jdk17-leak-gcroots)
	[ "$got" = "$want" ] || t_fail "--kind=$k: $got samples, the file inside alone has $want"
done
run info "$W/links.hsdb"
case $out in *outside* | *escape*) t_fail "read through the link: $out" ;; esac
t_end

t_begin link_loops_end
P=$W/loops
mkdir -p "$P/d"
cp "$J/jdk17-leak-gcroots.jfr" "$P/d/"
ln -s . "$P/self"
ln -s .. "$P/d/up"
ln -s loop-b "$P/loop-a"
ln -s loop-a "$P/loop-b"
ln -s nothing-here "$P/dangling"
run_bounded scan --csv "$P"
[ $rc = 124 ] && t_fail "scan of a folder with link loops did not end"
expect_rc 3
expect_err "$P/loop-a: a symbolic link round a loop (to loop-b)"
expect_err "$P/loop-b: a symbolic link round a loop (to loop-a)"
expect_err "$P/dangling: a symbolic link to nothing (to nothing-here)"
[ "$(printf '%s\n' "$out" | grep -c ',d/jdk17-leak-gcroots.jfr,jfr,')" = 1 ] ||
	t_fail "the recording is not listed once: $out"
[ "$(printf '%s\n' "$out" | sed 1d | wc -l)" = 1 ] || t_fail "more than one member: $out"
t_end

t_begin fifo_not_opened
F=$W/fifo
mkdir -p "$F"
cp "$J/jdk17-leak-gcroots.jfr" "$F/"
mkfifo "$F/pipe"
run_bounded scan --csv "$F"
[ $rc = 124 ] && t_fail "scan blocked on a fifo in the folder"
expect_rc 0
case $out in *pipe*) t_fail "the fifo was listed: $out" ;; esac
t_end

t_begin max_members_counts_entries
# tar lists a folder as entries too: a, b, sub/, sub/c; the fourth is
# past --max-members=3 in both
M=$W/members
mkdir -p "$M/sub"
for f in a b sub/c; do printf '%s\n' "$f" >"$M/$f"; done
(cd "$M" && tar cf "$W/members.tar" a b sub)
[ "$(tar tf "$W/members.tar" | sed -n 3p)" = sub/ ] || t_fail "tar's third entry: $(tar tf "$W/members.tar")"
run scan --csv --max-members=3 "$M"
expect_rc 3
expect_err "--max-members"
rows_dir=$(printf '%s\n' "$out" | sed 1d | cut -d, -f2)
run scan --csv --max-members=3 "$W/members.tar"
rows_tar=$(printf '%s\n' "$out" | sed 1d | cut -d, -f2)
[ "$rows_dir" = "a
b" ] || t_fail "folder members within the limit: $rows_dir"
[ "$rows_dir" = "$rows_tar" ] || t_fail "the folder lists $rows_dir, its tar $rows_tar"
run scan --csv --max-members=4 "$M"
expect_rc 0
t_end

t_begin max_input_size_adds_files
# two recordings; the input may hold the first and 1000 bytes more
S=$W/sizes
mkdir -p "$S"
cp "$J/jdk17-killed-unfinished.jfr" "$S/a.jfr"
cp "$J/jdk17-leak-gcroots.jfr" "$S/b.jfr"
lim=$(($(size "$S/a.jfr") + 1000))
run scan --csv --max-input-size=$lim "$S"
expect_rc 3
expect_err "$S/b.jfr: input larger than"
expect_err "(--max-input-size): rest skipped at offset 1000"
printf '%s\n' "$out" | grep -q ",b.jfr,[a-z]*,1000," || t_fail "b.jfr not cut at 1000 bytes: $out"
t_end

t_begin cache_follows_the_folder
C=$W/cached
mkdir -p "$C/logs"
cp "$J/jdk17-leak-gcroots.jfr" "$C/logs/app.jfr"
run top "$C"
expect_err "importing into"
run top "$C"
expect_err "using"
# the same size, other bytes, the time kept: a new import
touch -r "$C/logs/app.jfr" "$W/stamp"
printf 'x' | dd of="$C/logs/app.jfr" bs=1 seek=200000 conv=notrunc 2>/dev/null
touch -r "$W/stamp" "$C/logs/app.jfr"
[ "$(size "$C/logs/app.jfr")" = "$(size "$J/jdk17-leak-gcroots.jfr")" ] || t_fail "the size changed"
run top "$C"
expect_err "importing into"
# another file in place of the first: its samples
cp "$J/jdk17-default.jfr" "$C/logs/app.jfr"
got=$(samples "$C" alloc)
[ "$got" = "$(expected alloc jdk17-default)" ] || t_fail "after the change: $got samples"
# a file added, then removed
cp "$J/jdk17-leak-gcroots.jfr" "$C/second.jfr"
got=$(samples "$C" alloc)
[ "$got" = "$(expected alloc jdk17-default jdk17-leak-gcroots)" ] ||
	t_fail "after a file was added: $got samples"
rm "$C/second.jfr"
got=$(samples "$C" alloc)
[ "$got" = "$(expected alloc jdk17-default)" ] || t_fail "after it was removed: $got samples"
t_end

t_begin empty_folder
mkdir -p "$W/empty"
run scan --csv "$W/empty"
expect_rc 3
expect_err "$W/empty: folder holds no files"
t_end

t_summary
