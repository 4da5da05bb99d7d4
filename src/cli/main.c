/*
 * heapsift's entry point: one binary, git-style subcommands from a table.
 * main() only finds the command; each command parses its own options.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/term.h"

const struct command command_table[] = {
	{"scan", cmd_scan, "[--csv] [LIMITS] INPUT...",
	 "list every member of the inputs and what kind of file each is",
	 scan_option_table, NULL},
	{"dump", cmd_dump,
	 "[--format=text|tsv] [--raw-names] [--events=LIST] [--stats] INPUT...",
	 "print the heap events of the recordings, one per line",
	 dump_option_table, dump_word_table},
	{"import", cmd_import, "-o CASE.hsdb [--append] [--force] INPUT...",
	 "import recordings into a store", import_option_table,
	 import_word_table},
	{"info", cmd_info, "[--check] CASE.hsdb|INPUT...",
	 "describe the recordings in a store", info_option_table, NULL},
	{"top", cmd_top,
	 "CASE.hsdb|INPUT... [--by=GROUP] [--limit=N] [--csv] [FILTERS]",
	 "the heaviest classes, sites, threads or recordings", top_option_table,
	 top_word_table},
	{"tree", cmd_tree,
	 "CASE.hsdb|INPUT... [--inverted] [--depth=N] [--min-share=P] [--csv]",
	 "the call tree, or the inverted tree from the allocation sites",
	 tree_option_table, tree_word_table},
	{"timeline", cmd_timeline,
	 "CASE.hsdb|INPUT... [--bucket=DURATION] [--csv]",
	 "allocation rate and sample rate over time", timeline_option_table,
	 timeline_word_table},
	{"survivors", cmd_survivors,
	 "CASE.hsdb|INPUT... [--by=GROUP] [--bucket=DURATION] [--leaks] "
	 "[--csv]",
	 "live objects over time by site or class; leak suspects",
	 survivors_option_table, survivors_word_table},
	{"browse", cmd_browse, "CASE.hsdb | INPUT...",
	 "browse a store (or inputs, imported into a cache) in the terminal",
	 browse_option_table, browse_word_table},
	{"codeheap", cmd_codeheap,
	 "CASE.hsdb|INPUT... [--heap=NAME] [--map=FLAVOUR] [--csv] "
	 "[--granules]",
	 "JIT code heaps: facts, granule maps, two snapshots compared",
	 codeheap_option_table, codeheap_word_table},
	{"diff", cmd_diff,
	 "BASE [NEW] [--by=GROUP|--tree|--inverted|--survivors|--codeheap]",
	 "two stores, recordings or time ranges compared, noise marked",
	 diff_option_table, diff_word_table},
	{"report", cmd_report,
	 "INPUT...|CASE.hsdb [--format=text|md|html|json] [-o FILE]",
	 "the triage report: inventory, findings ranked, evidence",
	 report_option_table, report_word_table},
	{"export", cmd_export,
	 "CASE.hsdb|INPUT... --format=csv -o DIR [--force]",
	 "write a store as CSV tables for SQL", export_option_table,
	 export_word_table},
	{"agent-path", cmd_agent_path, "",
	 "print the path of the JVMTI agent, for java -agentpath:",
	 agent_path_option_table, NULL},
	{"completion", cmd_completion, "bash|zsh",
	 "print the shell's completion script (bash, zsh)",
	 completion_option_table, completion_word_table},
	{NULL, NULL, NULL, NULL, NULL, NULL},
};

static void main_help(FILE *out)
{
	const struct command *c;

	fputs("usage: heapsift [--version] [--help] COMMAND [ARGS]\n\n"
	      "heapsift reads JVM heap samples (JFR recordings, heapsift "
	      "agent\n"
	      "recordings) and JIT code-heap reports (HotSpot, OpenJ9\n"
	      "javacores), compressed or bundled in archives, without\n"
	      "extracting anything to disk.\n\nCommands:\n",
	      out);
	for (c = command_table; c->name; c++)
		term_fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fputs("\n'heapsift COMMAND --help' describes a command; "
	      "man heapsift has it all.\n"
	      "Exit status: 0 ok, 1 error, 2 usage, 3 done with warnings.\n",
	      out);
}

static const struct command *find_command(const char *name)
{
	const struct command *c;

	for (c = command_table; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		main_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		term_fprintf(stdout, "heapsift %s\n", HS_VERSION);
		return cli_finish_output(EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help(stdout);
		return cli_finish_output(EXIT_OK);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			main_help(stdout);
			return cli_finish_output(EXIT_OK);
		}
		c = find_command(argv[2]);
		if (!c) {
			term_fprintf(stderr,
				     "heapsift: '%s' is not a command; see "
				     "'heapsift --help'\n",
				     argv[2]);
			return EXIT_USAGE;
		}
		{
			char *args[] = {argv[2], (char *)"--help", NULL};

			return c->fn(2, args);
		}
	}
	if (argv[1][0] == '-') {
		term_fprintf(stderr,
			     "heapsift: unknown option '%s'; see "
			     "'heapsift --help'\n",
			     argv[1]);
		return EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c) {
		term_fprintf(stderr,
			     "heapsift: '%s' is not a command; see 'heapsift "
			     "--help'\n",
			     argv[1]);
		return EXIT_USAGE;
	}
	/* the inputs' own status (cli_inputs_status) joins the command's */
	return cli_exit_status(c->fn(argc - 1, argv + 1));
}
