#!/bin/sh
# Member names outside ASCII, in every way an archive stores them
# (issue 39).  A pax "path" (bsdtar's tars, Python's pax tars), a zip
# name flagged UTF-8 (bsdtar, Python) and a 7z name (UTF-16) are
# Unicode, which libarchive converts to the locale's charset: in the "C"
# locale heapsift ran in, "réunion.jfr" could not be converted, so a
# bsdtar tar warned "Pathname can't be converted from UTF-8 to current
# locale" and exited 3 and a zip's or 7z's member lost its name, under
# LANG=C.UTF-8 too, while the same file packed by GNU tar (bytes) read
# fine.  Names stored as bytes (GNU tar, a zip name not flagged) are kept
# as bytes: valid UTF-8 shown as it is, anything else escaped \xNN
# (docs/inputs.md), never lost.
#
# Every archive holds one fixture under a name chosen here; what must
# come out is that name (spelt by hand below), status ok, exit 0 and no
# warning, from scan and from import, under LC_ALL=C and C.UTF-8.
. "$(dirname "$0")/lib.sh"

W=$T/work
FJ=$HS_FIXTURES/jfr/jdk17-leak-gcroots.jfr
U8=$(printf 'r\303\251union.jfr')  # réunion.jfr, é as UTF-8 (C3 A9)
L1=$(printf 'r\351union.jfr')      # the same in Latin-1 (E9): not UTF-8
L1E='r\xe9union.jfr'                # how heapsift shows that one

# bsdtar (libarchive-tools) is what macOS packs with; make test installs
# it (build-aux/deps.sh test), and so does this suite where it can
have_bsdtar() {
	command -v bsdtar >/dev/null 2>&1 && return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends libarchive-tools >/dev/null 2>&1
	fi
	command -v bsdtar >/dev/null 2>&1
}
NOBSDTAR="bsdtar is not installed (apt-get install libarchive-tools)"
have_gnutar() {
	tar --version 2>/dev/null | grep -q 'GNU tar'
}

# run_lc LOCALE ARGS...: run, under LC_ALL=LOCALE and LANG=LOCALE
run_lc() {
	_lc=$1
	shift
	(cd "$T/cwd" && TMPDIR="$T/tmp" LC_ALL=$_lc LANG=$_lc "$HEAPSIFT" "$@" \
		>"$T/out" 2>"$T/err" </dev/null)
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# the samples the fixture holds, read under its own name: the count an
# archive's member must give
run import -o "$W/plain.hsdb" "$FJ"
N=$(printf '%s\n' "$out" | sed -n 's/.*(1 new), \([0-9]*\) samples$/\1/p')
[ -n "$N" ] || {
	t_begin 0_prerequisites
	t_fail "cannot import $FJ: $out $err"
	t_end
	t_summary
}

# names ARCHIVE SHOWN: for LC_ALL=C and C.UTF-8, scan --csv lists one
# jfr member named SHOWN, status ok, exit 0, nothing on stderr; import
# reads its samples, exit 0, nothing on stderr
names() {
	for lc in C C.UTF-8; do
		run_lc $lc scan --csv "$1"
		[ "$rc" = 0 ] || t_fail "$lc: scan $(basename "$1"): exit $rc: $err"
		[ -z "$err" ] || t_fail "$lc: scan $(basename "$1"): stderr: $err"
		printf '%s\n' "$out" | tr -d '\r' | grep -qxF -- "$1,$2,jfr,$(size "$FJ"),100,,ok" ||
			t_fail "$lc: scan $(basename "$1"): no row for '$2': $out"
		rm -f "$W/a.hsdb"
		run_lc $lc import -o "$W/a.hsdb" "$1"
		[ "$rc" = 0 ] || t_fail "$lc: import $(basename "$1"): exit $rc: $err"
		[ -z "$err" ] || t_fail "$lc: import $(basename "$1"): stderr: $err"
		expect_out_line "$W/a.hsdb: 1 recording (1 new), $N samples"
	done
}

mkdir -p "$W/u8" "$W/l1"
cp "$FJ" "$W/u8/$U8"
cp "$FJ" "$W/l1/$L1"

# Python's tarfile and zipfile write what bsdtar writes for these names
# (a pax "path" record; the zip's UTF-8 flag, bit 11): no bsdtar needed
t_begin pax_path_and_zip_utf8_flag_from_python
python3 - "$W/u8/$U8" "$W/py-pax.tar" "$W/py-flag.zip" <<'EOF' || t_fail "python3 cannot pack"
import sys, tarfile, zipfile
src, tar, zf = sys.argv[1:]
name = "r\u00e9union.jfr"
with tarfile.open(tar, "w", format=tarfile.PAX_FORMAT) as t:
    t.add(src, arcname=name)
assert b"path=" + name.encode() in open(tar, "rb").read(), "no pax path record"
with zipfile.ZipFile(zf, "w") as z:
    z.write(src, arcname=name)
assert zipfile.ZipFile(zf).infolist()[0].flag_bits & 0x800, "no UTF-8 flag"
EOF
names "$W/py-pax.tar" "$U8"
names "$W/py-flag.zip" "$U8"
t_end

# A zip name not flagged UTF-8 is bytes (what old Info-ZIP wrote): UTF-8
# bytes show as they are, Latin-1 bytes escaped.  Python flags every
# name outside ASCII, so an ASCII name is written and then respelt, in
# both headers, to bytes of the same length.
t_begin zip_name_without_the_utf8_flag_is_bytes
python3 - "$FJ" "$W/noflag-u8.zip" "$W/noflag-l1.zip" <<'EOF' || t_fail "python3 cannot pack"
import sys, zipfile
src, u8, l1 = sys.argv[1:]
for out, placeholder, name in ((u8, b"rXXunion.jfr", b"r\xc3\xa9union.jfr"),
                               (l1, b"rXunion.jfr", b"r\xe9union.jfr")):
    with zipfile.ZipFile(out, "w") as z:
        z.write(src, arcname=placeholder.decode())
    d = open(out, "rb").read()
    assert d.count(placeholder) == 2 and len(placeholder) == len(name)
    open(out, "wb").write(d.replace(placeholder, name))
    assert not zipfile.ZipFile(out).infolist()[0].flag_bits & 0x800
EOF
names "$W/noflag-u8.zip" "$U8"
names "$W/noflag-l1.zip" "$L1E"
t_end

# The issue's own: bsdtar's tar (restricted pax: a "path" record for the
# name outside ASCII), its pax tar, its zip (flagged) and its 7z (UTF-16
# names); a Latin-1 name, which bsdtar marks hdrcharset=BINARY in C
t_begin bsdtar_tar_zip_7z
if ! have_bsdtar; then
	t_skip "$NOBSDTAR"
else
	(cd "$W/u8" && bsdtar -cf "$W/bsd.tar" -- * &&
		bsdtar --format=pax -cf "$W/bsd-pax.tar" -- * &&
		bsdtar --format=zip -cf "$W/bsd.zip" -- * &&
		bsdtar --format=7zip -cf "$W/bsd.7z" -- *) ||
		t_fail "bsdtar cannot pack"
	# (bsdtar says it cannot translate the name, and stores its bytes)
	(cd "$W/l1" && LC_ALL=C bsdtar -cf "$W/bsd-l1.tar" -- * 2>/dev/null) ||
		t_fail "bsdtar cannot pack the Latin-1 name"
	grep -q "path=$U8" "$W/bsd.tar" || t_fail "bsd.tar has no pax path record"
	for a in bsd.tar bsd-pax.tar bsd.zip bsd.7z; do
		names "$W/$a" "$U8"
	done
	names "$W/bsd-l1.tar" "$L1E"
	t_end
fi

# GNU tar's default format stores the name as bytes: the same name read
# the same way as bsdtar's (the issue's "exits 0" side), Latin-1 escaped
t_begin gnu_tar
if ! have_gnutar; then
	t_skip "tar is not GNU tar"
else
	(cd "$W/u8" && tar --format=gnu -cf "$W/gnu.tar" -- *) || t_fail "tar cannot pack"
	(cd "$W/l1" && tar --format=gnu -cf "$W/gnu-l1.tar" -- *) || t_fail "tar cannot pack"
	names "$W/gnu.tar" "$U8"
	names "$W/gnu-l1.tar" "$L1E"
	t_end
fi

t_summary
