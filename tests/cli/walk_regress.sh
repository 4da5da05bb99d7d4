# Walker limits and edge cases a review found wrong (each assertion from
# the option's documented meaning and the bytes packed here):
# --max-members counts per input; a member of exactly --max-member-size
# is whole; what a limit keeps is listed; an empty compressed file is an
# empty member; bytes dump and import do not read still count towards
# --max-input-size and the ratio (a bomb in a solid 7z, a big log before
# a recording in a tar.gz).
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

t_summary
