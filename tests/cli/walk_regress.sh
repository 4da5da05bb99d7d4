# Walker limits and edge cases a review found wrong (each assertion from
# the option's documented meaning and the bytes packed here):
# --max-members counts per input; a member of exactly --max-member-size
# is whole; what a limit keeps is listed; an empty compressed file is an
# empty member; bytes dump and import do not read still count towards
# --max-input-size and the ratio (a bomb in a solid 7z, a big log before
# a recording in a tar.gz).
# The size limits hold for a plain stream given directly too (issue 39):
# a device, a pipe, a fifo, standard input and a regular file stop at
# the limit with its message (exit status 3), and one of exactly the
# limit is whole; the sizes are the bytes written here (1M = 1048576).
. "$(dirname "$0")/lib.sh"
W="$T/work"
cd "$W" || exit 1

printf 'x' >one
bsdtar -cf a.tar one one one 2>/dev/null || bsdtar -cf a.tar one
for i in 1 2 3; do printf "$i" >"m$i"; done
bsdtar -cf a.tar m1 m2 m3
bsdtar -cf b.tar m1 m2 m3

t_begin max_members_counts_each_input
run scan --max-members 4 "$W/a.tar" "$W/b.tar"
expect_rc 0
n=$(printf '%s\n' "$out" | grep -c '\.tar!m')
[ "$n" = 6 ] || t_fail "$n members listed, not 6"
t_end

t_begin member_of_exactly_the_limit_is_whole
head -c 1024 /dev/zero | tr '\0' 'a' >k1024
bsdtar -cf k.tar k1024
run scan --csv --max-member-size 1K "$W/k.tar"
expect_rc 0
printf '%s\n' "$out" | tr -d '\r' | grep -q ',k1024,unknown,1024,0,,ok$' ||
	t_fail "row: $out"
t_end

t_begin what_a_limit_keeps_is_listed
head -c 3000 /dev/zero | tr '\0' 'b' >k3000
bsdtar -cf k2.tar k3000
run scan --csv --max-member-size 1K "$W/k2.tar"
expect_rc 3
printf '%s\n' "$out" | tr -d '\r' | grep -q ',k3000,unknown,1024,0,,limit$' ||
	t_fail "row: $out"
t_end

t_begin empty_compressed_file_is_an_empty_member
: >empty
gzip -c empty >e.gz
xz -c empty >e.xz
zstd -q -c empty >e.zst
for f in e.gz e.xz e.zst; do
	run scan --csv "$W/$f"
	expect_rc 0
	printf '%s\n' "$out" | tr -d '\r' | grep -q ',,unknown,0,0,[a-z0-9]*,empty$' ||
		t_fail "$f: $out"
done
t_end

t_begin bytes_dump_skips_still_count
# 64 MiB of log before a recording, in a tar.gz: --max-input-size 2M
# must stop before the recording, as scan does
head -c 67108864 /dev/zero | tr '\0' 'l' >big.log
cp "$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr" rec.jfr
bsdtar -czf big.tar.gz big.log rec.jfr
rm -f big.log
run dump --stats --max-input-size 2M "$W/big.tar.gz"
[ "$rc" != 0 ] || t_fail "exit 0: the limit did not stop it"
expect_err "--max-input-size"
t_end

t_begin bomb_in_a_solid_7z_is_stopped
head -c 268435456 /dev/zero >zeros.bin
bsdtar --format 7zip -cf bomb.7z zeros.bin rec.jfr
rm -f zeros.bin
run dump --stats "$W/bomb.7z"
# the ratio stops the archive at the bomb; the recording behind it is
# never reached, so there is nothing to show (exit 1), and the warning
# says why
expect_rc 1
expect_err "--max-ratio"
t_end

# scan_pipe GEN ARGS...: as run, with standard input from the shell
# command GEN
scan_pipe() {
	_gen=$1
	shift
	(cd "$T/cwd" && sh -c "$_gen" | TMPDIR="$T/tmp" LC_ALL=C \
		"$HEAPSIFT" scan --csv "$@" >"$T/out" 2>"$T/err")
	rc=$?
	out=$(tr -d '\r' <"$T/out")
	err=$(cat "$T/err")
}
# row_is NAME BYTES STATUS: scan's one row for NAME, unknown kind
row_is() {
	printf '%s\n' "$out" | tr -d '\r' |
		grep -qx -- "$1,,unknown,$2,0,,$3" || t_fail "no row $1,$2,$3 in: $out"
}

t_begin device_input_stops_at_the_limit
# timeout is a guard against reading for ever, not a measure: the
# limit must stop it, with its message, whatever the time
for lim in input:1M member:64K; do
	opt=--max-${lim%%:*}-size
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C timeout 120 "$HEAPSIFT" \
		scan --csv "$opt=${lim#*:}" /dev/zero >"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	err=$(cat "$T/err")
	out=$(tr -d '\r' <"$T/out")
	[ "$rc" = 124 ] && t_fail "$opt: /dev/zero still read after 120 s"
	expect_rc 3
	expect_err "/dev/zero: ${lim%%:*} larger than"
	expect_err "($opt): rest skipped"
	case $lim in
	input:*) row_is /dev/zero 1048576 limit ;;
	*) row_is /dev/zero 65536 limit ;;
	esac
done
t_end

t_begin pipe_over_the_limit_is_cut_under_it_whole
# one byte over the limit is refused with the limit's message; exactly
# the limit and one byte under pass; the issue's 3G for 2G, scaled down
scan_pipe 'head -c 1048577 /dev/zero' --max-input-size=1M -
expect_rc 3
expect_err "-: input larger than 1 MiB (--max-input-size): rest skipped at offset 1048576"
row_is - 1048576 limit
scan_pipe 'head -c 3145728 /dev/zero' --max-input-size=2M -
expect_rc 3
expect_err "(--max-input-size): rest skipped"
row_is - 2097152 limit
for n in 1048576 1048575; do
	scan_pipe "head -c $n /dev/zero" --max-input-size=1M -
	expect_rc 0
	expect_no_err
	row_is - $n ok
done
scan_pipe 'head -c 70000 /dev/zero' --max-member-size=64K -
expect_rc 3
expect_err "-: member larger than 64 KiB (--max-member-size): rest skipped at offset 65536"
row_is - 65536 limit
# a limit smaller than the first look at the stream
scan_pipe 'head -c 1000 /dev/zero' --max-input-size=100 -
expect_rc 3
row_is - 100 limit
t_end

t_begin fifo_over_the_limit_is_cut
mkfifo "$W/fifo"
(head -c 3145728 /dev/zero >"$W/fifo" 2>/dev/null) &
feeder=$!
(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C timeout 120 "$HEAPSIFT" scan --csv \
	--max-input-size=1M "$W/fifo" >"$T/out" 2>"$T/err" </dev/null)
rc=$?
err=$(cat "$T/err")
out=$(tr -d '\r' <"$T/out")
kill $feeder 2>/dev/null
wait $feeder 2>/dev/null
expect_rc 3
expect_err "(--max-input-size): rest skipped at offset 1048576"
row_is "$W/fifo" 1048576 limit
rm -f "$W/fifo"
t_end

t_begin regular_file_obeys_the_limits
# a regular file is mapped, not read: the same limits, the same words
head -c 3000 /dev/zero >z3000
head -c 1024 /dev/zero >z1024
run scan --csv --max-member-size 1K "$W/z3000" "$W/z1024"
expect_rc 3
expect_err "$W/z3000: member larger than 1 KiB (--max-member-size): rest skipped at offset 1024"
row_is "$W/z3000" 1024 limit
row_is "$W/z1024" 1024 ok
run scan --csv --max-input-size 2000 "$W/z3000"
expect_rc 3
expect_err "(--max-input-size): rest skipped at offset 2000"
row_is "$W/z3000" 2000 limit
t_end

t_begin recording_on_a_pipe_is_cut_as_a_compressed_one
# jdk17-multichunk.jfr is 2520480 bytes: with --max-member-size=1M the
# bytes after 1048576 are skipped, and a pipe, a plain file and a gzip
# of it say so alike and keep as much of the recording
R=$HS_FIXTURES/jfr/jdk17-multichunk.jfr
gzip -c "$R" >mc.jfr.gz
run import -o "$W/plain.hsdb" --max-member-size=1M "$R"
expect_rc 3
expect_err "$R: member larger than 1 MiB (--max-member-size): rest skipped at offset 1048576"
run import -o "$W/gz.hsdb" --max-member-size=1M "$W/mc.jfr.gz"
expect_rc 3
expect_err "rest skipped at offset 1048576"
(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=C "$HEAPSIFT" import -o "$W/pipe.hsdb" \
	--max-member-size=1M - <"$R" >"$T/out" 2>"$T/err")
rc=$?
err=$(cat "$T/err")
expect_rc 3
expect_err "-: member larger than 1 MiB (--max-member-size): rest skipped at offset 1048576"
for s in gz pipe; do
	run top --by kind --csv "$W/$s.hsdb"
	a=$out
	run top --by kind --csv "$W/plain.hsdb"
	[ "$a" = "$out" ] || t_fail "$s: not the plain file's samples: $a / $out"
done
rm -f "$W"/*.hsdb
t_end

t_summary
