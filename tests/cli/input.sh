#!/bin/sh
# CLI tests for the input walker behind `heapsift scan`: compressed
# streams, nested tar/zip/7z archives, standard input, hostile input
# (bombs, unsafe member paths, damaged and truncated data), limits,
# I/O errors, usage errors and control characters in names.
#
# Everything is packed here, at run time, in $T/work, from the checked-in
# fixtures, with bsdtar, gzip, bzip2, xz, zstd and lz4.  Every expected
# value comes from outside heapsift: the byte size of the original file,
# the kind the fixture is known to be, and the names chosen when packing.
#
# Run: HEAPSIFT=$PWD/heapsift sh tests/cli/input.sh
. "$(dirname "$0")/lib.sh"

W=$T/work
FJ=$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr
FK=$HS_FIXTURES/jfr/jdk17-killed-unfinished.jfr
FC=$HS_FIXTURES/codeheap/jdk17-seg-jcmd-codecache.txt
FJC=$HS_FIXTURES/javacore/javacore.20230830.134339.30220.0001.txt
FU=$HS_FIXTURES/codeheap/jdk17-seg-stderr.txt # plain text: kind unknown

# Without the packing tools every case would fail for the wrong reason:
# say so once instead.
t_begin 0_prerequisites
for f in "$FJ" "$FK" "$FC" "$FJC" "$FU"; do
	[ -f "$f" ] || t_fail "missing fixture $f"
done
for tool in bsdtar gzip bzip2 xz zstd lz4 head dd awk; do
	command -v "$tool" >/dev/null 2>&1 ||
		t_fail "missing tool $tool (build-aux/deps.sh test installs it)"
done
[ -x "$HEAPSIFT" ] || t_fail "HEAPSIFT=$HEAPSIFT is not executable"
if [ $t_bad = 1 ]; then
	t_end
	t_summary
fi
t_end

J_SIZE=$(size "$FJ")
K_SIZE=$(size "$FK")
C_SIZE=$(size "$FC")
JC_SIZE=$(size "$FJC")
U_SIZE=$(size "$FU")
HEADER=input,member,kind,bytes,confidence,compression,status
ESC=$(printf '\033')

# --- helpers ------------------------------------------------------------

# finish a run: $out, $err, $rc from $T/out, $T/err and the status
finish_run() {
	rc=$1
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}
# run_stdin FILE ARGS...: like run, with FILE redirected to standard input
run_stdin() {
	_f=$1
	shift
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" "$@" \
		>"$T/out" 2>"$T/err" <"$_f")
	finish_run $?
}
# run_pipe FILE ARGS...: like run, with FILE fed through a pipe (unseekable:
# the cat is the point)
run_pipe() {
	_f=$1
	shift
	(cd "$T/cwd" && cat "$_f" | TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" "$@" \
		>"$T/out" 2>"$T/err")
	finish_run $?
}
# run_nobody BIN ARGS...: BIN as user and group nobody (65534)
run_nobody() {
	_b=$1
	shift
	(cd "$NOBODY_DIR" && TMPDIR="$NOBODY_DIR" LC_ALL=C setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$_b" "$@" \
		>"$T/out" 2>"$T/err" </dev/null)
	finish_run $?
}

# the CSV on stdout without its CRs
csv() { printf '%s\n' "$out" | tr -d '\r'; }

# expect_csv_header: stdout starts with the CSV header line, CRLF-ended
expect_csv_header() {
	_h=$(printf '%s\n' "$out" | sed -n 1p)
	[ "$_h" = "$HEADER$(printf '\r')" ] ||
		t_fail "first stdout line is '$_h', expected the CSV header + CR"
}
# expect_crlf: every stdout line ends in CR LF
expect_crlf() {
	_n=$(printf '%s\n' "$out" | grep -cv "$(printf '\r')\$")
	[ "$_n" = 0 ] || t_fail "$_n stdout lines do not end in CRLF: $out"
}
# expect_row LINE: the CSV (CRs stripped) has exactly this line, once
expect_row() {
	_n=$(csv | grep -cxF -- "$1")
	[ "$_n" = 1 ] || t_fail "CSV has $_n times the row '$1'; stdout: $(csv)"
}
# expect_row_like INPUT MEMBER KIND BYTES COMPRESSION STATUS: exactly one
# CSV row with these fields; "*" matches anything; confidence not compared.
expect_row_like() {
	_n=$(csv | sed 1d | R1=$1 R2=$2 R3=$3 R4=$4 R6=$5 R7=$6 awk -F, '
		function m(v, k) { return ENVIRON[k] == "*" || v == ENVIRON[k] }
		NF == 7 && m($1, "R1") && m($2, "R2") && m($3, "R3") &&
		m($4, "R4") && m($6, "R6") && m($7, "R7") { c++ }
		END { print c + 0 }')
	[ "$_n" = 1 ] ||
		t_fail "CSV has $_n rows like [$1|$2|$3|$4|*|$5|$6]; stdout: $(csv)"
}
# expect_no_member MEMBER: no CSV row has this member column
expect_no_member() {
	_n=$(csv | sed 1d | R2=$1 awk -F, '$2 == ENVIRON["R2"] { c++ }
		END { print c + 0 }')
	[ "$_n" = 0 ] || t_fail "member '$1' listed $_n times; stdout: $(csv)"
}
# expect_rows N: the CSV has N data rows
expect_rows() {
	_n=$(csv | sed 1d | grep -c .)
	[ "$_n" = "$1" ] || t_fail "$_n CSV rows, expected $1; stdout: $(csv)"
}
# field N of the CSV row whose member column is MEMBER
row_field() {
	csv | sed 1d | R2=$1 awk -F, -v n="$2" '$2 == ENVIRON["R2"] { print $n }'
}
# expect_msg SEVERITY DISPLAYNAME TEXT: exactly one stderr line
# "heapsift scan: SEVERITY: DISPLAYNAME: ..." that contains TEXT
expect_msg() {
	_n=$(printf '%s\n' "$err" | grep -F -- "heapsift scan: $1: $2: " |
		grep -cF -- "$3")
	[ "$_n" = 1 ] ||
		t_fail "$_n stderr lines '$1: $2: ...$3...', expected 1; stderr: $err"
}
# expect_msg_any SEVERITY DISPLAYNAME TEXT...: exactly one stderr line about
# DISPLAYNAME, containing at least one of the TEXTs
expect_msg_any() {
	_s=$1 _d=$2
	shift 2
	_lines=$(printf '%s\n' "$err" | grep -F -- "heapsift scan: $_s: $_d: ")
	_n=$(printf '%s\n' "$_lines" | grep -c .)
	[ "$_n" = 1 ] ||
		{ t_fail "$_n stderr lines about '$_d', expected 1; stderr: $err"; return; }
	for _t in "$@"; do
		printf '%s\n' "$_lines" | grep -qF -- "$_t" && return
	done
	t_fail "stderr line about '$_d' says none of: $*; stderr: $err"
}
# expect_err_lines N: stderr has N lines
expect_err_lines() {
	_n=$(printf '%s\n' "$err" | grep -c .)
	[ "$_n" = "$1" ] || t_fail "$_n stderr lines, expected $1; stderr: $err"
}
# expect_no_raw BYTE: neither stdout nor stderr contains BYTE
expect_no_raw() {
	case $out$err in
	*"$1"*) t_fail "raw control byte in the output: $(printf '%s\n%s' "$out" "$err" | od -c | head -8)" ;;
	esac
}
# build DESC COMMAND...: a packing step that must work (else the case fails)
build() {
	_d=$1
	shift
	"$@" >"$T/build.log" 2>&1 ||
		t_fail "could not build $_d: $(cat "$T/build.log")"
}

# --- 1. tar.gz > zip > .jfr.zst -----------------------------------------
t_begin 1_nested_targz_zip_zst
mkdir -p "$W/c1/stage" "$W/c1/tree/logs"
build rec.jfr.zst zstd -q -19 -o "$W/c1/stage/rec.jfr.zst" "$FJ"
build app.zip sh -c 'cd "$1/stage" && bsdtar --format zip -cf "$1/tree/logs/app.zip" rec.jfr.zst' - "$W/c1"
build case.tar.gz sh -c 'cd "$1/tree" && bsdtar -czf "$2" logs/app.zip' - "$W/c1" "$W/case.tar.gz"
run scan --csv "$W/case.tar.gz"
expect_rc 0
expect_no_err
expect_csv_header
expect_crlf
expect_row "$W/case.tar.gz,logs/app.zip!rec.jfr.zst,jfr,$J_SIZE,100,zstd,ok"
expect_rows 1
t_end

# --- 2. a bundle of nested containers -----------------------------------
# b1.tar.xz: diag/inner.7z: rec.jfr.lz4, core.javacore.txt.bz2
# b2.zip: heap.tar.bz2: codecache.txt.gz
# b3.7z: killed.jfr
# b4.tar.zst: mid.tar.gz: deep/codecache.txt   (three levels)
t_begin 2_bundle_nested_kinds
B=$W/c2
mkdir -p "$B/s1" "$B/s2/diag" "$B/s3" "$B/s4" "$B/s5/deep" "$B/s6"
build rec.jfr.lz4 sh -c 'lz4 -q -c "$1" >"$2"' - "$FJ" "$B/s1/rec.jfr.lz4"
build core.javacore.txt.bz2 sh -c 'bzip2 -c "$1" >"$2"' - "$FJC" "$B/s1/core.javacore.txt.bz2"
build inner.7z sh -c 'cd "$1/s1" && bsdtar --format 7zip -cf "$1/s2/diag/inner.7z" rec.jfr.lz4 core.javacore.txt.bz2' - "$B"
build b1.tar.xz sh -c 'cd "$1/s2" && bsdtar -cJf "$2" diag/inner.7z' - "$B" "$W/b1.tar.xz"
build codecache.txt.gz sh -c 'gzip -9 -n -c "$1" >"$2"' - "$FC" "$B/s3/codecache.txt.gz"
build heap.tar.bz2 sh -c 'cd "$1/s3" && bsdtar -cjf "$1/s4/heap.tar.bz2" codecache.txt.gz' - "$B"
build b2.zip sh -c 'cd "$1/s4" && bsdtar --format zip -cf "$2" heap.tar.bz2' - "$B" "$W/b2.zip"
build killed.jfr cp "$FK" "$B/s6/killed.jfr"
build b3.7z sh -c 'cd "$1/s6" && bsdtar --format 7zip -cf "$2" killed.jfr' - "$B" "$W/b3.7z"
build deep/codecache.txt cp "$FC" "$B/s5/deep/codecache.txt"
build mid.tar.gz sh -c 'cd "$1/s5" && bsdtar -czf "$1/mid.tar.gz" deep/codecache.txt' - "$B"
build b4.tar.zst sh -c 'cd "$1" && bsdtar --zstd -cf "$2" mid.tar.gz' - "$B" "$W/b4.tar.zst"
MID_SIZE=$(size "$B/mid.tar.gz")
run scan --csv "$W/b1.tar.xz" "$W/b2.zip" "$W/b3.7z" "$W/b4.tar.zst"
expect_rc 0
expect_no_err
expect_csv_header
expect_crlf
expect_row_like "$W/b1.tar.xz" 'diag/inner.7z!rec.jfr.lz4' jfr "$J_SIZE" lz4 ok
expect_row_like "$W/b1.tar.xz" 'diag/inner.7z!core.javacore.txt.bz2' javacore "$JC_SIZE" bzip2 ok
expect_row_like "$W/b2.zip" 'heap.tar.bz2!codecache.txt.gz' codeheap "$C_SIZE" gzip ok
expect_row_like "$W/b3.7z" killed.jfr jfr "$K_SIZE" '' ok
expect_row_like "$W/b4.tar.zst" 'mid.tar.gz!deep/codecache.txt' codeheap "$C_SIZE" '' ok
expect_rows 5
t_end

# --- 3. the same bundle on standard input --------------------------------
# Redirected (a regular file on fd 0) and through a pipe (no seeking: zip
# and 7z must be read into memory).
t_begin 3_bundle_on_stdin
check_stdin_rows() {
	expect_rc 0
	expect_no_err
	expect_csv_header
	case $1 in
	b1.tar.xz)
		expect_row_like - 'diag/inner.7z!rec.jfr.lz4' jfr "$J_SIZE" lz4 ok
		expect_row_like - 'diag/inner.7z!core.javacore.txt.bz2' javacore "$JC_SIZE" bzip2 ok
		expect_rows 2 ;;
	b2.zip)
		expect_row_like - 'heap.tar.bz2!codecache.txt.gz' codeheap "$C_SIZE" gzip ok
		expect_rows 1 ;;
	b3.7z)
		expect_row_like - killed.jfr jfr "$K_SIZE" '' ok
		expect_rows 1 ;;
	b4.tar.zst)
		expect_row_like - 'mid.tar.gz!deep/codecache.txt' codeheap "$C_SIZE" '' ok
		expect_rows 1 ;;
	esac
}
for b in b1.tar.xz b2.zip b3.7z b4.tar.zst; do
	run_stdin "$W/$b" scan --csv -
	check_stdin_rows "$b"
	run_pipe "$W/$b" scan --csv -
	check_stdin_rows "$b"
done
t_end

# --- 4. each compressor on a top-level file -------------------------------
t_begin 4_each_compressor
mkdir -p "$W/c4"
build rec.jfr.gz sh -c 'gzip -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.gz"
build rec.jfr.bz2 sh -c 'bzip2 -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.bz2"
build rec.jfr.xz sh -c 'xz -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.xz"
build rec.jfr.zst sh -c 'zstd -q -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.zst"
build rec.jfr.lz4 sh -c 'lz4 -q -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.lz4"
for c in gz:gzip bz2:bzip2 xz:xz zst:zstd lz4:lz4; do
	ext=${c%%:*} filter=${c#*:}
	run scan --csv "$W/c4/rec.jfr.$ext"
	expect_rc 0
	expect_no_err
	expect_row_like "$W/c4/rec.jfr.$ext" '' jfr "$J_SIZE" "$filter" ok
	expect_rows 1
done
t_end

# --- 4b. (extra) the other streams walk.h lists: .lzma, legacy lz4, stacked
t_begin 4b_lzma_legacy_lz4_stacked
build rec.jfr.lzma sh -c 'xz --format=lzma -c "$1" >"$2"' - "$FJ" "$W/c4/rec.jfr.lzma"
build rec.legacy.lz4 sh -c 'lz4 -l -q -c "$1" >"$2"' - "$FJ" "$W/c4/rec.legacy.lz4"
build rec.jfr.gz.xz sh -c 'gzip -c "$1" | xz -c >"$2"' - "$FJ" "$W/c4/rec.jfr.gz.xz"
run scan --csv "$W/c4/rec.jfr.lzma"
expect_rc 0
expect_no_err
expect_row_like "$W/c4/rec.jfr.lzma" '' jfr "$J_SIZE" lzma ok
run scan --csv "$W/c4/rec.legacy.lz4"
expect_rc 0
expect_no_err
expect_row_like "$W/c4/rec.legacy.lz4" '' jfr "$J_SIZE" lz4 ok
# outermost filter first (walk.h)
run scan --csv "$W/c4/rec.jfr.gz.xz"
expect_rc 0
expect_no_err
expect_row_like "$W/c4/rec.jfr.gz.xz" '' jfr "$J_SIZE" xz+gzip ok
t_end

# --- 5. bombs and size limits ----------------------------------------------
t_begin 5a_zip_bomb
mkdir -p "$W/c5"
build zeros.bin sh -c 'head -c 134217728 /dev/zero >"$1/zeros.bin"' - "$W/c5"
build bomb.zip sh -c 'cd "$1" && bsdtar --format zip -cf "$2" zeros.bin' - "$W/c5" "$W/bomb.zip"
rm -f "$W/c5/zeros.bin"
run scan --csv "$W/bomb.zip"
expect_rc 3
expect_row_like "$W/bomb.zip" zeros.bin '*' '*' '' limit
expect_msg warning "$W/bomb.zip!zeros.bin" --max-ratio
b=$(row_field zeros.bin 4)
[ -n "$b" ] && [ "$b" -lt 134217728 ] 2>/dev/null ||
	t_fail "bomb member read to $b bytes: not stopped early"
t_end

t_begin 5b_zstd_bomb_in_tar
build zeros.zst sh -c 'head -c 4294967296 /dev/zero | zstd -q -1 >"$1/zeros.zst"' - "$W/c5"
build zbomb.tar sh -c 'cd "$1" && bsdtar -cf "$2" zeros.zst' - "$W/c5" "$W/zbomb.tar"
run scan --csv "$W/zbomb.tar"
expect_rc 3
expect_row_like "$W/zbomb.tar" zeros.zst '*' '*' zstd limit
expect_msg warning "$W/zbomb.tar!zeros.zst" --max-ratio
t_end

t_begin 5c_max_member_size
mkdir -p "$W/c5/m"
build leak.jfr cp "$FJ" "$W/c5/m/leak.jfr"
build mm.tar.gz sh -c 'cd "$1" && bsdtar -czf "$2" leak.jfr' - "$W/c5/m" "$W/mm.tar.gz"
run scan --csv --max-member-size 100K "$W/mm.tar.gz"
expect_rc 3
expect_row_like "$W/mm.tar.gz" leak.jfr '*' '*' '' limit
expect_msg warning "$W/mm.tar.gz!leak.jfr" --max-member-size
t_end

# two members of 250 and 209 KiB: each under 300K, together over it
t_begin 5d_max_input_size
build killed.jfr cp "$FK" "$W/c5/m/killed.jfr"
build mi.tar.gz sh -c 'cd "$1" && bsdtar -czf "$2" leak.jfr killed.jfr' - "$W/c5/m" "$W/mi.tar.gz"
run scan --csv --max-input-size 300K "$W/mi.tar.gz"
expect_rc 3
expect_row_like "$W/mi.tar.gz" leak.jfr jfr "$J_SIZE" '' ok
expect_row_like "$W/mi.tar.gz" killed.jfr '*' '*' '' limit
expect_msg warning "$W/mi.tar.gz!killed.jfr" --max-input-size
t_end

# --- 6. unsafe member paths ---------------------------------------------------
t_begin 6_unsafe_member_paths
mkdir -p "$W/c6"
for n in a b c d e; do cp "$FU" "$W/c6/$n.txt"; done
build evil.tar sh -c 'cd "$1" && bsdtar -P -s ",^a.txt\$,../../etc/a.txt," \
	-s ",^b.txt\$,/etc/b.txt," -s ",^c.txt\$,x/../../c.txt," \
	-s ",^e.txt\$,..e/e..txt," -cf "$2" a.txt b.txt c.txt d.txt e.txt' \
	- "$W/c6" "$W/evil.tar"
names=$(bsdtar -tf "$W/evil.tar" | tr '\n' ' ')
[ "$names" = "../../etc/a.txt /etc/b.txt x/../../c.txt d.txt ..e/e..txt " ] ||
	t_fail "construction: evil.tar holds '$names'"
run scan --csv "$W/evil.tar"
expect_rc 3
for m in ../../etc/a.txt /etc/b.txt x/../../c.txt d.txt ..e/e..txt; do
	expect_row_like "$W/evil.tar" "$m" unknown "$U_SIZE" '' ok
done
expect_rows 5
for m in ../../etc/a.txt /etc/b.txt x/../../c.txt; do
	expect_msg warning "$W/evil.tar!$m" "absolute or leaves the archive"
done
expect_err_lines 3
t_end

# --- 7. truncated and corrupt data ----------------------------------------------
mkdir -p "$W/c7/t"
cp "$FJ" "$W/c7/t/rec.jfr"
cp "$FK" "$W/c7/t/killed.jfr"
cp "$FU" "$W/c7/after.txt"

t_begin 7a_truncated_gzip
build full.jfr.gz sh -c 'gzip -c "$1" >"$2"' - "$FJ" "$W/c7/full.jfr.gz"
n=$(size "$W/c7/full.jfr.gz")
head -c $((n / 2)) "$W/c7/full.jfr.gz" >"$W/half.jfr.gz"
run scan --csv "$W/half.jfr.gz"
expect_rc 3
expect_row_like "$W/half.jfr.gz" '' '*' '*' gzip truncated
expect_msg warning "$W/half.jfr.gz" truncated
b=$(row_field '' 4)
[ -n "$b" ] && [ "$b" -lt "$J_SIZE" ] 2>/dev/null ||
	t_fail "truncated gzip gave $b bytes of $J_SIZE"
t_end

t_begin 7b_truncated_targz
build full.tar.gz sh -c 'cd "$1" && bsdtar -czf "$2" rec.jfr killed.jfr' - "$W/c7/t" "$W/c7/full.tar.gz"
n=$(size "$W/c7/full.tar.gz")
head -c $((n / 2)) "$W/c7/full.tar.gz" >"$W/half.tar.gz"
run scan --csv "$W/half.tar.gz"
expect_rc 3
# one message, about the gzip data, naming the member it cut
expect_err_lines 1
expect_err "heapsift scan: warning: $W/half.tar.gz!"
expect_err truncated
n_trunc=$(csv | sed 1d | awk -F, '$7 == "truncated" { c++ } END { print c + 0 }')
[ "$n_trunc" = 1 ] || t_fail "$n_trunc rows with status truncated, expected 1"
t_end

t_begin 7c_truncated_zip
build full.zip sh -c 'cd "$1" && bsdtar --format zip -cf "$2" rec.jfr killed.jfr' - "$W/c7/t" "$W/c7/full.zip"
n=$(size "$W/c7/full.zip")
head -c $((n / 2)) "$W/c7/full.zip" >"$W/half.zip"
run scan --csv "$W/half.zip"
expect_rc 3
expect_msg_any warning "$W/half.zip" damaged truncated
# the same zip as a member of a tar, followed by a good member
build zipin.tar sh -c 'cp "$1" "$2/half.zip" && cd "$2" && bsdtar -cf "$3" half.zip after.txt' \
	- "$W/half.zip" "$W/c7" "$W/zipin.tar"
run scan --csv "$W/zipin.tar"
expect_rc 3
expect_msg_any warning "$W/zipin.tar!half.zip" damaged truncated
expect_row_like "$W/zipin.tar" after.txt unknown "$U_SIZE" '' ok
t_end

t_begin 7d_corrupt_zstd
build bad.jfr.zst sh -c 'zstd -q -c "$1" >"$2"' - "$FJ" "$W/c7/bad.jfr.zst"
n=$(size "$W/c7/bad.jfr.zst")
printf 'garbage!%.0s' 1 2 3 4 5 6 7 8 >"$W/c7/garbage"
[ "$(size "$W/c7/garbage")" = 64 ] || t_fail "construction: garbage is not 64 bytes"
build corrupt dd if="$W/c7/garbage" of="$W/c7/bad.jfr.zst" bs=1 seek=$((n / 2)) \
	count=64 conv=notrunc
cp "$W/c7/bad.jfr.zst" "$W/bad.jfr.zst"
run scan --csv "$W/bad.jfr.zst"
expect_rc 3
expect_row_like "$W/bad.jfr.zst" '' '*' '*' zstd damaged
expect_msg_any warning "$W/bad.jfr.zst" damaged corrupt
# as a member of a tar, followed by a good member
build badin.tar sh -c 'cd "$1" && bsdtar -cf "$2" bad.jfr.zst after.txt' - "$W/c7" "$W/badin.tar"
run scan --csv "$W/badin.tar"
expect_rc 3
expect_row_like "$W/badin.tar" bad.jfr.zst '*' '*' zstd damaged
expect_msg_any warning "$W/badin.tar!bad.jfr.zst" damaged corrupt
expect_row_like "$W/badin.tar" after.txt unknown "$U_SIZE" '' ok
expect_err_lines 1
t_end

# A compressed stream cut anywhere, from just after its magic (gzip's
# 1f 8b alone) to one byte before its end, in every filter: the stream is
# listed with its compressor and status truncated, the one message says
# "truncated NAME stream", and nothing reads it as an archive nested in
# itself (it was "more than 8 nested archive or compression levels" for
# a cut header).  The magic lengths are the formats' own (gzip 2 bytes,
# bzip2 4, xz 6, zstd 4, lz4 4; lzma's 13-byte header is what the sniff
# reads); the names are libarchive's filter names, as scan lists them.
t_begin 7e_truncated_compressed_stream_of_every_filter
mkdir -p "$W/c7e"
src=$FU
for spec in 'gzip 2 gzip -c' 'bzip2 4 bzip2 -c' 'xz 6 xz -c' \
	'lzma 13 xz --format=lzma -c' 'zstd 4 zstd -q -c' 'lz4 4 lz4 -q -c' \
	'lz4 4 lz4 -l -q -c'; do
	set -- $spec
	name=$1 magic=$2
	shift 2
	"$@" "$src" >"$W/c7e/full" 2>"$T/build.log" ||
		t_fail "could not compress with $*: $(cat "$T/build.log")"
	n=$(size "$W/c7e/full")
	# every length from the magic to 64, then every 9th, and the last
	# byte: the header, the first block and the trailer are all cut
	for cut in $({ seq "$magic" 63; seq 64 9 "$n"; echo $((n - 1)); } |
		awk -v n="$n" '$1 < n' | sort -nu); do
		head -c "$cut" "$W/c7e/full" >"$W/c7e/cut"
		run scan --csv "$W/c7e/cut"
		what="$name cut to $cut of $n bytes"
		[ "$rc" = 3 ] || t_fail "$what: exit $rc, expected 3; $err"
		case $err in
		*nested*) t_fail "$what: read as nesting: $err" ;;
		esac
		printf '%s\n' "$err" | grep -qF \
			"heapsift scan: warning: $W/c7e/cut: truncated $name stream" ||
			t_fail "$what: no 'truncated $name stream' warning: $err"
		[ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] ||
			t_fail "$what: more than one message: $err"
		[ "$(row_field '' 6)" = "$name" ] && [ "$(row_field '' 7)" = truncated ] ||
			t_fail "$what: listed as $(csv | sed 1d)"
	done
done
# the issue's own file, read by import, as a member of a tar and with
# a good recording beside it: import names it truncated and goes on
printf '\037\213' >"$W/c7e/two.gz"
run import -o "$T/c7e.hsdb" "$W/c7e/two.gz" "$FJ"
expect_rc 3
expect_err "heapsift import: warning: $W/c7e/two.gz: truncated gzip stream"
case $err in *nested*) t_fail "import read a cut gzip as nesting: $err" ;; esac
rm -f "$T/c7e.hsdb"
build two.tar sh -c 'cd "$1" && bsdtar -cf two.tar two.gz' - "$W/c7e"
run scan --csv "$W/c7e/two.tar"
expect_rc 3
expect_msg warning "$W/c7e/two.tar!two.gz" "truncated gzip stream"
expect_row_like "$W/c7e/two.tar" two.gz unknown 0 gzip truncated
t_end

# A stream that starts with a compressor's exact magic but whose header is
# not that compressor's (and goes on well past it) is read as the bytes
# it is, with a warning; it is neither truncated nor nested.
t_begin 7f_compressor_magic_with_a_foreign_header
{ printf '\037\213\011\000'; head -c 100000 "$FJ"; } >"$W/c7e/notgz"
run scan --csv "$W/c7e/notgz"
expect_rc 3
expect_msg warning "$W/c7e/notgz" "header is not gzip's"
expect_row_like "$W/c7e/notgz" '' unknown 100004 '' ok
case $err in *nested* | *truncated*) t_fail "read as nesting or a cut: $err" ;; esac
t_end

# --- 8. empty, directory, missing, unreadable ----------------------------------
t_begin 8a_empty_file
: >"$W/empty.jfr"
run scan --csv "$W/empty.jfr"
expect_rc 3
expect_row_like "$W/empty.jfr" '' '*' 0 '' '*'
expect_msg warning "$W/empty.jfr" "file is empty"
t_end

# a folder is read as an archive of it (tests/cli/folders.sh has the rest)
t_begin 8b_directory
mkdir -p "$W/adir"
cp "$FJ" "$W/adir/inside.jfr"
run scan --csv "$W/adir"
expect_rc 0
expect_row_like "$W/adir" inside.jfr jfr "$J_SIZE" '' ok
expect_rows 1
t_end

t_begin 8c_missing_file
run scan --csv "$W/no-such-file.jfr"
expect_rc 1
expect_msg error "$W/no-such-file.jfr" "cannot open"
expect_rows 0
t_end

# A file its reader may not open.  Not root: a mode 000 file of our own.
# Root reads everything: the case runs as nobody (65534) through setpriv.
t_begin 8d_unreadable_file
if [ "$(id -u)" != 0 ]; then
	cp "$FJ" "$W/secret.jfr"
	chmod 000 "$W/secret.jfr"
	[ -r "$W/secret.jfr" ] && t_fail "construction: the mode 000 file is readable"
	run scan --csv "$W/secret.jfr"
	expect_rc 1
	expect_msg error "$W/secret.jfr" "Permission denied"
	expect_rows 0
	chmod 600 "$W/secret.jfr"
	t_end
elif ! command -v setpriv >/dev/null 2>&1; then
	t_fail "setpriv (util-linux) is missing: build-aux/deps.sh test installs it"
	t_end
elif ! nobody_dir; then
	t_skip "root, and nobody cannot run heapsift: $nobody_why"
else
	# nobody runs a copy of the binary in a folder it can reach
	# (nobody_dir): the clone and $T may be closed to it
	mkdir -p "$NOBODY_DIR/locked"
	chmod 711 "$NOBODY_DIR/locked"
	cp "$FJ" "$NOBODY_DIR/locked/secret.jfr"
	chmod 000 "$NOBODY_DIR/locked/secret.jfr"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		test -r "$NOBODY_DIR/locked/secret.jfr" &&
		t_fail "construction: nobody can read the mode 000 file"
	run_nobody "$NOBODY_DIR/heapsift" scan --csv "$NOBODY_DIR/locked/secret.jfr"
	expect_rc 1
	expect_msg error "$NOBODY_DIR/locked/secret.jfr" "Permission denied"
	expect_rows 0
	nobody_dir_done
	t_end
fi

t_begin 8e_good_and_missing
cp "$FJ" "$W/good.jfr"
run scan --csv "$W/good.jfr" "$W/missing.jfr"
expect_rc 1
expect_row_like "$W/good.jfr" '' jfr "$J_SIZE" '' ok
expect_msg error "$W/missing.jfr" "cannot open"
expect_rows 1
# and the other way round
run scan --csv "$W/missing.jfr" "$W/good.jfr"
expect_rc 1
expect_row_like "$W/good.jfr" '' jfr "$J_SIZE" '' ok
expect_msg error "$W/missing.jfr" "cannot open"
t_end

# --- 9. 10,000 members -------------------------------------------------------------
t_begin 9_ten_thousand_members
mkdir -p "$W/c9"
printf 'one small line\n' >"$W/c9/small.txt"
SMALL=$(size "$W/c9/small.txt")
awk -v c="$W/c9/small.txt" 'BEGIN {
	print "#mtree"
	for (i = 1; i <= 10000; i++)
		printf "f%05d type=file mode=0644 contents=%s\n", i, c
}' >"$W/c9/spec.mtree"
build many.tar sh -c 'cd "$1" && bsdtar -cf "$2" @spec.mtree' - "$W/c9" "$W/many.tar"
nm=$(bsdtar -tf "$W/many.tar" | grep -c '^f[0-9]\{5\}$')
[ "$nm" = 10000 ] || t_fail "construction: many.tar holds $nm members"
run scan --csv "$W/many.tar"
expect_rc 0
expect_no_err
expect_rows 10000
expect_row_like "$W/many.tar" f00001 '*' "$SMALL" '' ok
expect_row_like "$W/many.tar" f10000 '*' "$SMALL" '' ok
run scan --csv --max-members 5000 "$W/many.tar"
expect_rc 3
expect_msg warning "$W/many.tar" --max-members
expect_rows 5000
expect_row_like "$W/many.tar" f05000 '*' "$SMALL" '' ok
expect_no_member f05001
t_end

# --- 10. --max-depth ---------------------------------------------------------------
# b4.tar.zst > mid.tar.gz > deep/codecache.txt
t_begin 10_max_depth
run scan --csv --max-depth 1 "$W/b4.tar.zst"
expect_rc 3
expect_err --max-depth
expect_err "heapsift scan: warning: $W/b4.tar.zst"
expect_err_lines 1
expect_no_member 'mid.tar.gz!deep/codecache.txt'
# the container it may not open is listed as it is
expect_row_like "$W/b4.tar.zst" mid.tar.gz '*' "$MID_SIZE" '' '*'
t_end

# --- 11. usage errors -------------------------------------------------------------------
t_begin 11_usage_errors
run scan
expect_rc 2
[ -z "$out" ] || t_fail "stdout on a usage error: $out"
[ -n "$err" ] || t_fail "no message for a missing input"
run scan --csv
expect_rc 2
run scan --max-ratio abc "$W/good.jfr"
expect_rc 2
expect_err --max-ratio
run scan --no-such-option "$W/good.jfr"
expect_rc 2
expect_err --no-such-option
run scan --help
expect_rc 0
expect_no_err
case $out in
"usage: heapsift scan"*) ;;
*) t_fail "scan --help stdout does not start with the usage: $out" ;;
esac
t_end

# --- 12. control characters in names ------------------------------------------------------
t_begin 12_control_chars_escaped
mkdir -p "$W/c12"
cp "$FU" "$W/c12/a.txt"
cp "$FU" "$W/c12/b.txt"
cp "$FU" "$W/c12/c.txt"
NL='
'
CTL=$W/ctl${ESC}.tar
build "ctl.tar" sh -c 'cd "$1" && bsdtar -P -s ",^a.txt\$,a$2[31mred.txt," \
	-s ",^b.txt\$,../x$2y.txt," -s ",^c.txt\$,new$3line.txt," \
	-cf "$4" a.txt b.txt c.txt' - "$W/c12" "$ESC" "$NL" "$CTL"
[ "$(grep -c "$ESC" "$CTL")" -ge 1 ] 2>/dev/null ||
	t_fail "construction: no raw ESC byte in the tar"
run scan --csv "$CTL"
expect_rc 3 # ../ member
expect_no_raw "$ESC"
expect_rows 3
expect_row_like "$W/ctl\\x1b.tar" 'a\x1b[31mred.txt' unknown "$U_SIZE" '' ok
expect_row_like "$W/ctl\\x1b.tar" '../x\x1by.txt' unknown "$U_SIZE" '' ok
expect_row_like "$W/ctl\\x1b.tar" 'new\x0aline.txt' unknown "$U_SIZE" '' ok
expect_msg warning "$W/ctl\\x1b.tar!../x\\x1by.txt" "absolute or leaves the archive"
# the table output too
run scan "$CTL"
expect_rc 3
expect_no_raw "$ESC"
expect_err 'x\x1by.txt'
printf '%s\n' "$out" | grep -qF 'a\x1b[31mred.txt' ||
	t_fail "table lacks the escaped name: $out"
# and an input that cannot be opened
run scan --csv "$W/miss${ESC}ing"
expect_rc 1
expect_no_raw "$ESC"
expect_msg error "$W/miss\\x1bing" "cannot open"
t_end

t_summary
