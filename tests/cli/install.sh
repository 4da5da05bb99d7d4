# make install / make uninstall into a staging DESTDIR: the binary and the
# man page land under PREFIX, the installed binary runs and finds nothing
# missing, and uninstall removes exactly what install put there.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
dest="$T/dest"

t_begin install_puts_binary_and_man_page
if ! make -s -C "$top" --no-print-directory install DESTDIR="$dest" PREFIX=/opt/hs \
	>"$T/log" 2>&1; then
	t_fail "make install failed: $(cat "$T/log")"
fi
[ -x "$dest/opt/hs/bin/heapsift" ] || t_fail "no $dest/opt/hs/bin/heapsift"
[ -f "$dest/opt/hs/share/man/man1/heapsift.1" ] || t_fail "no man page"
v=$("$dest/opt/hs/bin/heapsift" --version 2>&1)
case "$v" in
"heapsift "[0-9]*) ;;
*) t_fail "installed binary says '$v'" ;;
esac
t_end

t_begin installed_man_page_renders
if command -v man >/dev/null 2>&1; then
	man -l "$dest/opt/hs/share/man/man1/heapsift.1" 2>/dev/null |
		grep -q "EXIT STATUS" || t_fail "man page does not render"
	t_end
else
	t_skip "no man (man-db) on this machine"
fi

t_begin uninstall_removes_what_install_put
make -s -C "$top" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/opt/hs \
	>"$T/log" 2>&1 || t_fail "make uninstall failed: $(cat "$T/log")"
left=$(find "$dest" -type f)
[ -z "$left" ] || t_fail "left behind: $left"
t_end

t_summary
