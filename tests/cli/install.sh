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

t_begin install_puts_completions
[ -f "$dest/opt/hs/share/bash-completion/completions/heapsift" ] ||
	t_fail "no bash completion in PREFIX/share/bash-completion/completions"
[ -f "$dest/opt/hs/share/zsh/site-functions/_heapsift" ] ||
	t_fail "no zsh completion in PREFIX/share/zsh/site-functions"
t_end

# bash-completion's own loader finds it for the command heapsift (it
# looks in XDG_DATA_DIRS/bash-completion/completions)
t_begin bash_completion_loads_installed
if [ ! -f /usr/share/bash-completion/bash_completion ] && [ "$(id -u)" = 0 ] &&
	command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bash-completion >/dev/null 2>&1
fi
if [ -f /usr/share/bash-completion/bash_completion ]; then
	r=$(XDG_DATA_DIRS="$dest/opt/hs/share" bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		__load_completion heapsift 2>/dev/null || _completion_loader heapsift
		complete -p heapsift' 2>&1)
	case $r in
	*"-F _heapsift heapsift"*) ;;
	*) t_fail "bash-completion did not load it: $r" ;;
	esac
	t_end
else
	t_skip "no bash-completion, and it cannot be installed here (apt-get install bash-completion)"
fi

# zsh's compinit finds it through $fpath, whose default for a zsh built
# with prefix /usr holds /usr/local/share/zsh/site-functions: PREFIX's
t_begin zsh_finds_installed
if ! command -v zsh >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
	command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh >/dev/null 2>&1
fi
if command -v zsh >/dev/null 2>&1; then
	r=$(zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D
		print -r -- "$_comps[heapsift]"' - "$dest/opt/hs/share/zsh/site-functions" 2>&1)
	[ "$r" = _heapsift ] || t_fail "compinit registers '$r' for heapsift"
	zsh -f -c 'print -l $fpath' | grep -qx /usr/local/share/zsh/site-functions ||
		t_fail "zsh's fpath lacks /usr/local/share/zsh/site-functions: $(zsh -fc 'print $fpath')"
	t_end
else
	t_skip "no zsh, and it cannot be installed here (apt-get install zsh)"
fi

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
