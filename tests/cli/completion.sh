#!/bin/sh
# `heapsift completion bash|zsh`, tested in the shells themselves.  bash:
# the script is sourced, COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT
# are set as bash sets them (with '=' a word of its own, as bash's
# default COMP_WORDBREAKS makes it, and without), the completion function
# is called, and COMPREPLY is compared with what --help documents, parsed
# from the help text: an independent rendering of the same tables.  zsh:
# the script is checked by zsh -n, autoloaded through compinit, and used
# for real in an interactive zsh under zpty, keys typed and the listing
# read back.
#
# Run: HEAPSIFT=$PWD/heapsift sh tests/cli/completion.sh
. "$(dirname "$0")/lib.sh"

W=$T/work
"$HEAPSIFT" completion bash >"$W/heapsift.bash" 2>"$T/err" || {
	echo "  heapsift completion bash failed: $(cat "$T/err")"
}
"$HEAPSIFT" completion zsh >"$W/_heapsift" 2>"$T/err" || {
	echo "  heapsift completion zsh failed: $(cat "$T/err")"
}

# comp [-x] WORD...: COMPREPLY, sorted, one a line, for the command line
# heapsift WORD... with the cursor at the end of the last word; run in
# $W/files (-x: '=' not in COMP_WORDBREAKS, the words given as they are)
comp() {
	(cd "$W/files" && bash --norc --noprofile -c '
		. "$0"
		COMP_WORDS=(heapsift "$@")
		COMP_CWORD=$#
		COMP_LINE="heapsift $*"
		COMP_POINT=${#COMP_LINE}
		_heapsift heapsift "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' "$W/heapsift.bash" "$@")
}
# help_options CMD: the long options CMD's --help lists, sorted, "=" after
# those that take a value: the option lines are the ones indented 2 to 6
# spaces that start with a dash; their first column holds the options
help_options() {
	"$HEAPSIFT" "$1" --help | grep -E '^ {2,6}(-[a-zA-Z], )?--' |
		sed -E 's/^ +//; s/   *.*//' | grep -oE -- '--[a-z][a-z0-9-]*(=|\[=)?' |
		sed 's/\[=/=/' | sort -u
}
# help_words CMD OPTION [before|after]: the words CMD's --help gives for
# OPTION's value: its description, continuation lines joined, without
# parentheses, cut at the first ':' (before) or after it (after), the
# lower-case words left but "or", "and", "the", "default"
help_words() {
	"$HEAPSIFT" "$1" --help | awk -v o="$2" '
		{ match($0, /^ */); lead = RLENGTH }
		!on && lead >= 2 && lead <= 6 && index(substr($0, lead + 1), o "=") == 1 {
			on = 1; sub("^ *[^ ]+ +", ""); print; next }
		on && lead >= 8 && substr($0, lead + 1, 1) != "-" { print; next }
		on { exit }' | tr '\n' ' ' | sed -E 's/\([^)]*\)//g' |
		case ${3:-all} in
		before) sed 's/:.*//' ;;
		after) sed 's/^[^:]*://' ;;
		*) cat ;;
		esac | tr ',; ' '\n\n\n' | grep -xE '[a-z][a-z0-9-]*' |
		grep -vxE 'a|or|and|the|default' | sort -u
}

mkdir -p "$W/files/sub"
: >"$W/files/rec1.jfr"
: >"$W/files/rec2.jfr"
: >"$W/files/other.txt"

t_begin bash_subcommands_are_the_command_table
[ -s "$W/heapsift.bash" ] || t_fail "no bash script"
want=$("$HEAPSIFT" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' | sort)
[ -n "$want" ] || t_fail "no commands in heapsift --help"
case $want in *completion*) ;; *) t_fail "--help lists no completion command" ;; esac
got=$(comp '' | grep -v '^-')
[ "$got" = "$want" ] || t_fail "subcommands: $(echo $got), --help lists $(echo $want)"
got=$(comp --)
[ "$got" = "--help
--version" ] || t_fail "options before a command: $got"
got=$(comp ti)
[ "$got" = timeline ] || t_fail "'ti' completes to $got"
t_end

t_begin bash_options_are_each_help
for c in $("$HEAPSIFT" --help | awk '/^Commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'); do
	want=$(help_options "$c")
	[ -n "$want" ] || t_fail "$c --help lists no option"
	got=$(comp "$c" --)
	[ "$got" = "$want" ] || t_fail "$c: completes $(echo $got); --help lists $(echo $want)"
done
t_end

t_begin bash_values_are_the_documented_sets
# --by, --kind, --estimate of top; --format of report and export; --value
# and --layout of export; --map of codeheap; --by, --format and
# --fail-scope of diff
for spec in "top --by" "top --kind" "top --estimate before" "diff --by after" \
	"report --format" "export --format" "export --value after" \
	"export --layout after" "codeheap --map after" "survivors --by" \
	"diff --format" "diff --fail-scope after"; do
	set -- $spec
	want=$(help_words "$1" "$2" "${3:-all}")
	[ -n "$want" ] || t_fail "$1 --help documents no words for $2"
	# '=' a word of its own (bash's default), typed as --by= and --by=x
	got=$(comp "$1" "$2" =)
	[ "$got" = "$want" ] || t_fail "$1 $2=: $(echo $got); --help: $(echo $want)"
	first=$(printf '%s\n' "$want" | head -n 1)
	got=$(comp "$1" "$2" = "$(printf %s "$first" | cut -c1-2)")
	printf '%s\n' "$got" | grep -qxF "$first" || t_fail "$1 $2=${first%??}..: $got"
	# '=' inside the word (COMP_WORDBREAKS without it)
	got=$(comp "$1" "$2=" | sed "s/^$2=//")
	[ "$got" = "$want" ] || t_fail "$1 $2= (one word): $(echo $got)"
	# the value as the next word
	got=$(comp "$1" "$2" '')
	[ "$got" = "$want" ] || t_fail "$1 $2 VALUE: $(echo $got)"
done
t_end

t_begin bash_files_for_operands_and_paths
got=$(comp top rec)
[ "$got" = "rec1.jfr
rec2.jfr" ] || t_fail "top rec: $got"
got=$(comp import --output = o)
[ "$got" = other.txt ] || t_fail "import --output=o: $got"
got=$(comp import --output=s)
[ "$got" = --output=sub ] || t_fail "import --output=s (one word): $got"
got=$(comp completion '')
[ "$got" = "bash
zsh" ] || t_fail "completion's operand: $got"
# free text (a number) completes nothing, not files
got=$(comp top --limit = '')
[ -z "$got" ] || t_fail "top --limit= offers $got"
t_end

t_begin zsh_script_loads
if ! command -v zsh >/dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
	command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh >/dev/null 2>&1
fi
if ! command -v zsh >/dev/null 2>&1; then
	t_skip "no zsh, and it cannot be installed here (apt-get install zsh)"
else
	zsh -n "$W/_heapsift" 2>"$T/zerr" || t_fail "zsh -n: $(cat "$T/zerr")"
	head -n 1 "$W/_heapsift" | grep -qx '#compdef heapsift' || t_fail "no #compdef line"
	mkdir -p "$W/zfunc"
	cp "$W/_heapsift" "$W/zfunc/"
	r=$(HOME=$W zsh -f -c 'fpath=("$1" $fpath); autoload -U compinit
		compinit -u -D; print -r -- "$_comps[heapsift]"' - "$W/zfunc" 2>&1)
	[ "$r" = _heapsift ] || t_fail "compinit registers '$r' for heapsift"
	t_end
fi

# ztype KEYS...: what an interactive zsh under zpty shows after KEYS (a
# command line ending in two tabs: the listing), escapes and CRs removed
ztype() {
	cat >"$W/zpty.zsh" <<'EOF'
zmodload zsh/zpty || exit 1
zpty z "zsh -f -i"
zpty -w z "PS1='P> '; fpath=(\"$1\" \$fpath); autoload -U compinit; compinit -u -D; path=(\"$2\" \$path); cd \"$3\"; echo RE''ADY"
# read until a marker the shell prints (the typed line holds it split
# by quotes) and the prompt after it, from where zle reads keys; never
# for a fixed time (timeout 30 bounds it)
zpty -r z out '*READY*P> *' && print -rn -- $out
zpty -w -n z "$4"$'\t\t\x15'"echo EN''D"$'\n'
zpty -r z out '*END*' && print -rn -- $out
zpty -d z
EOF
	HOME=$W timeout 30 zsh -f "$W/zpty.zsh" "$W/zfunc" "$(dirname "$HEAPSIFT")" \
		"$W/files" "$1" 2>&1 | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/.\x08//g' | tr -d '\r\007'
}
# zlisted OUTPUT LINE: the words zsh listed in the lines under the echo of
# LINE, up to where it draws LINE again, sorted
zlisted() {
	printf '%s\n' "$1" | awk -v l="P> $2" 'index($0, l) > 0 && !on { on = 1; next }
		on && /heapsift / { sub(/heapsift .*/, ""); print; exit }
		on { print }' | tr ' ' '\n' | grep . | sort -u
}

t_begin zsh_completes_values_and_files
if ! command -v zsh >/dev/null 2>&1 || ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
	t_skip "no zsh with zsh/zpty"
else
	# the binary must be named heapsift on the PATH zsh gets
	case $(basename "$HEAPSIFT") in
	heapsift) ;;
	*) t_fail "HEAPSIFT is not named heapsift: $HEAPSIFT" ;;
	esac
	for spec in "top --by" "top --kind"; do
		set -- $spec
		out=$(ztype "heapsift $1 $2=")
		got=$(zlisted "$out" "heapsift $1 $2=")
		want=$(help_words "$1" "$2")
		[ "$got" = "$want" ] || t_fail "zsh: $1 $2=: $(echo $got); --help: $(echo $want)"
	done
	out=$(ztype "heapsift top rec")
	got=$(zlisted "$out" "heapsift top rec")
	[ "$got" = "rec1.jfr
rec2.jfr" ] || t_fail "zsh: top rec: $(echo $got) (screen: $out)"
	t_end
fi

t_begin usage_errors
run completion
expect_rc 2
expect_err "give one shell: bash or zsh"
run completion fish
expect_rc 2
expect_err "'fish' is not bash or zsh"
t_end

t_summary
