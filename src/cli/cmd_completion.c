/*
 * heapsift completion bash|zsh: the shell's completion script, written
 * from the tables the program itself reads (main.c's command_table, which
 * heapsift --help lists, each command's getopt_long table, which its
 * parser reads, and its word table, cli.h), so that a
 * command or an option added to heapsift is completed without a second
 * list to keep: subcommands, long options ("--by=" for one that takes a
 * value), the words of options whose values are a fixed set (--by,
 * --kind, --format...), and files for operands and path-valued options.
 * Short options are left out: their letters are in each command's
 * getopt string, not in a table, and each has a long name.
 *
 * The scripts hold the words as data and need nothing but the shell:
 * no bash-completion package (its _init_completion), no call back into
 * heapsift while completing.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/term.h"

static const char completion_help[] =
	"usage: heapsift completion bash|zsh\n"
	"\n"
	"Print the completion script of bash or zsh for heapsift: its\n"
	"commands, their long options, the values of options that take a\n"
	"fixed set (--by, --kind, --format, --estimate, --value, --map,\n"
	"--layout) and files for inputs and -o.  make install puts them\n"
	"where the shells look ($(PREFIX)/share/bash-completion/completions\n"
	"and $(PREFIX)/share/zsh/site-functions); by hand:\n"
	"  bash: source <(heapsift completion bash)    (in ~/.bashrc)\n"
	"  zsh:  heapsift completion zsh > ~/.zfunc/_heapsift, with\n"
	"        fpath+=(~/.zfunc) before compinit in ~/.zshrc\n"
	"\n"
	"  -h, --help  this text\n";

/* The shells, in the order the operand's words are offered. */
static const char *const shell_names[] = {"bash", "zsh"};

static const char *shell_word(size_t i)
{
	return i < sizeof(shell_names) / sizeof(shell_names[0]) ? shell_names[i]
								: NULL;
}

const struct option completion_option_table[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
/* "" is the operand */
const struct cli_option_words completion_word_table[] = {
	{"", shell_word},
	{NULL, NULL},
};

/* What value option (a long name; "" the operands) of c takes. */
enum value_kind { VALUE_TEXT, VALUE_WORDS, VALUE_PATH };

static enum value_kind option_value(const struct command *c, const char *option,
				    const char *(**word)(size_t))
{
	const struct cli_option_words *w;

	*word = NULL;
	for (w = c->words; w && w->option; w++)
		if (!strcmp(w->option, option)) {
			*word = w->word;
			return w->word ? VALUE_WORDS : VALUE_PATH;
		}
	return *option ? VALUE_TEXT : VALUE_PATH; /* operands: files */
}

/* word's words, separated by sep. */
static void put_words(FILE *out, const char *(*word)(size_t), const char *sep)
{
	const char *s;
	size_t i;

	for (i = 0; (s = word(i)) != NULL; i++)
		fprintf(out, "%s%s", i ? sep : "", s);
}

/* --- bash ---------------------------------------------------------------- */

static void bash_script(FILE *out)
{
	const struct command *c;
	const struct option *o;
	const struct cli_option_words *w;

	fprintf(out,
		"# bash completion for heapsift %s, written by `heapsift "
		"completion bash`\n"
		"# from the command and option tables heapsift's parsers "
		"read.\n\n",
		HS_VERSION);
	fputs("# _heapsift_options COMMAND: its long options in REPLY, a "
	      "value's with '='\n"
	      "_heapsift_options() {\n\tcase $1 in\n",
	      out);
	for (c = command_table; c->name; c++) {
		fprintf(out, "\t%s) REPLY='", c->name);
		for (o = c->options; o && o->name; o++)
			fprintf(out, "%s--%s%s", o == c->options ? "" : " ",
				o->name,
				o->has_arg == required_argument ? "=" : "");
		fputs("' ;;\n", out);
	}
	fputs("\t*) REPLY= ;;\n\tesac\n}\n\n", out);
	fputs("# _heapsift_words COMMAND OPTION: the words OPTION (\"\": an "
	      "operand) takes,\n"
	      "# in REPLY; status 1 for a path, 2 for free text\n"
	      "_heapsift_words() {\n\tcase \"$1 $2\" in\n",
	      out);
	for (c = command_table; c->name; c++)
		for (w = c->words; w && w->option; w++) {
			fprintf(out, "\t'%s%s%s') ", c->name,
				*w->option ? " --" : " ", w->option);
			if (!w->word) {
				fputs("return 1 ;;\n", out);
				continue;
			}
			fputs("REPLY='", out);
			put_words(out, w->word, " ");
			fputs("' ;;\n", out);
		}
	fputs("\t'* ') return 1 ;;\n\t*) return 2 ;;\n\tesac\n}\n\n", out);
	fputs("# files for the word being completed, $2 before each\n"
	      "_heapsift_files() {\n"
	      "\tlocal IFS=$'\\n'\n"
	      "\tCOMPREPLY=($(compgen -P \"$2\" -f -- \"$1\"))\n"
	      "\t[[ -z $2 ]] && compopt -o filenames 2>/dev/null\n"
	      "\treturn 0\n}\n\n",
	      out);
	fputs("_heapsift() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= cmd opt= val= pre= "
	      "opts REPLY=\n"
	      "\tCOMPREPLY=()\n"
	      "\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
	      "\tif ((COMP_CWORD == 1)); then\n"
	      "\t\tCOMPREPLY=($(compgen -W '--help --version",
	      out);
	for (c = command_table; c->name; c++)
		fprintf(out, " %s", c->name);
	fputs("' -- \"$cur\"))\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\tcmd=${COMP_WORDS[1]}\n"
	      "\tif [[ $cmd == help ]]; then\n"
	      "\t\t((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W '",
	      out);
	for (c = command_table; c->name; c++)
		fprintf(out, "%s%s", c == command_table ? "" : " ", c->name);
	fputs("' -- \"$cur\"))\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\t_heapsift_options \"$cmd\"\n"
	      "\topts=$REPLY\n"
	      "\t# the option whose value is typed: '=' is a word of its "
	      "own where\n"
	      "\t# COMP_WORDBREAKS has it (bash's default), else part of "
	      "the word\n"
	      "\tif [[ $cur == --*=* ]]; then\n"
	      "\t\topt=${cur%%=*} val=${cur#*=} pre=${cur%%=*}=\n"
	      "\telif [[ $cur == = && $prev == --* ]]; then\n"
	      "\t\topt=$prev\n"
	      "\telif [[ $prev == = ]] && ((COMP_CWORD > 2)) &&\n"
	      "\t\t[[ ${COMP_WORDS[COMP_CWORD - 2]} == --* ]]; then\n"
	      "\t\topt=${COMP_WORDS[COMP_CWORD - 2]} val=$cur\n"
	      "\telif [[ $prev == --* && $cur != -* && \" $opts \" == *\" "
	      "$prev= \"* ]]; then\n"
	      "\t\topt=$prev val=$cur\n"
	      "\tfi\n"
	      "\tif [[ -n $opt ]]; then\n"
	      "\t\t_heapsift_words \"$cmd\" \"$opt\"\n"
	      "\t\tcase $? in\n"
	      "\t\t0) COMPREPLY=($(compgen -P \"$pre\" -W \"$REPLY\" -- "
	      "\"$val\")) ;;\n"
	      "\t\t1) _heapsift_files \"$val\" \"$pre\" ;;\n"
	      "\t\tesac\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\tif [[ $cur == -* ]]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\t\t[[ ${#COMPREPLY[@]} == 1 && $COMPREPLY == *= ]] &&\n"
	      "\t\t\tcompopt -o nospace 2>/dev/null\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\tif _heapsift_words \"$cmd\" ''; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"$REPLY\" -- \"$cur\"))\n"
	      "\t\treturn 0\n"
	      "\tfi\n"
	      "\t_heapsift_files \"$cur\" ''\n"
	      "}\n\n"
	      "complete -F _heapsift heapsift\n",
	      out);
}

/* --- zsh ----------------------------------------------------------------- */

/* s inside zsh's single quotes, with ':' (and the brackets
 * _arguments reads) escaped for _describe. */
static void zsh_escaped(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", out);
		else if (*s == ':' || *s == '[' || *s == ']')
			fprintf(out, "\\%c", *s);
		else
			fputc(*s, out);
}

static void zsh_command(FILE *out, const struct command *c)
{
	const char *(*word)(size_t);
	const struct option *o;

	fprintf(out, "\t(%s)\n\t\t_arguments -S", c->name);
	for (o = c->options; o && o->name; o++) {
		fprintf(out, " \\\n\t\t\t'--%s", o->name);
		if (o->has_arg != required_argument) {
			fputc('\'', out);
			continue;
		}
		switch (option_value(c, o->name, &word)) {
		case VALUE_WORDS:
			fprintf(out, "=:%s:(", o->name);
			put_words(out, word, " ");
			fputs(")'", out);
			break;
		case VALUE_PATH:
			fprintf(out, "=:%s:_files'", o->name);
			break;
		case VALUE_TEXT:
			fprintf(out, "=:%s: '", o->name);
			break;
		}
	}
	if (option_value(c, "", &word) == VALUE_WORDS) {
		fputs(" \\\n\t\t\t'1:argument:(", out);
		put_words(out, word, " ");
		fputs(")'", out);
	} else {
		fputs(" \\\n\t\t\t'*:file:_files'", out);
	}
	fputs("\n\t\t;;\n", out);
}

static void zsh_script(FILE *out)
{
	const struct command *c;

	fprintf(out,
		"#compdef heapsift\n"
		"# zsh completion for heapsift %s, written by `heapsift "
		"completion zsh`\n"
		"# from the command and option tables heapsift's parsers "
		"read.\n\n",
		HS_VERSION);
	fputs("_heapsift() {\n\tlocal -a commands\n\tcommands=(\n", out);
	for (c = command_table; c->name; c++) {
		fprintf(out, "\t\t'%s:", c->name);
		zsh_escaped(out, c->summary);
		fputs("'\n", out);
	}
	fputs("\t)\n"
	      "\tif ((CURRENT == 2)); then\n"
	      "\t\tif [[ $words[CURRENT] == -* ]]; then\n"
	      "\t\t\tcompadd -- --help --version\n"
	      "\t\telse\n"
	      "\t\t\t_describe -t commands 'heapsift command' commands\n"
	      "\t\tfi\n"
	      "\t\treturn\n"
	      "\tfi\n"
	      "\tlocal cmd=$words[2]\n"
	      "\tshift words\n"
	      "\t((CURRENT--))\n"
	      "\tcase $cmd in\n"
	      "\t(help)\n"
	      "\t\t_describe -t commands 'heapsift command' commands\n"
	      "\t\t;;\n",
	      out);
	for (c = command_table; c->name; c++)
		zsh_command(out, c);
	fputs("\tesac\n}\n\n"
	      "# autoloaded from $fpath, or sourced\n"
	      "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
	      "\t_heapsift \"$@\"\n"
	      "else\n"
	      "\tcompdef _heapsift heapsift\n"
	      "fi\n",
	      out);
}

int cmd_completion(int argc, char **argv)
{
	int c;

	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", completion_option_table,
				NULL)) != -1) {
		if (c == 'h')
			return cli_help(completion_help);
		return cli_getopt_error("completion", c, argv);
	}
	if (argc - optind != 1)
		return cli_usage_error("completion",
				       "give one shell: bash or zsh");
	if (!strcmp(argv[optind], shell_names[0]))
		bash_script(stdout);
	else if (!strcmp(argv[optind], shell_names[1]))
		zsh_script(stdout);
	else
		return cli_usage_error("completion", "'%s' is not bash or zsh",
				       argv[optind]);
	return cli_finish_output(EXIT_OK);
}
