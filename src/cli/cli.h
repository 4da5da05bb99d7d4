/*
 * What the subcommands share: the command table entry, the documented
 * exit codes, option parsing for the input limits, and output helpers.
 * Each subcommand is one cmd_*.c file with one cmd_NAME() entry point.
 */
#ifndef HS_CLI_H
#define HS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct input_limits;

/* Exit codes (documented in heapsift(1)). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1, /* something asked for could not be done */
	EXIT_USAGE = 2, /* bad command line */
	EXIT_WARNED =
		3,     /* done, but damaged input was skipped or a limit hit */
	EXIT_GATE = 4, /* done, and diff's --fail-if gate failed */
};

/*
 * The words an option takes where they are a fixed set (--by's groups,
 * --kind's kinds), for shell completion: word(i) is the i-th, NULL past
 * the last, read from the table the option's own parser reads, so the
 * two cannot differ.  word NULL: the option takes a path.
 */
struct cli_option_words {
	const char *option; /* its long name */
	const char *(*word)(size_t i);
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;   /* one line: arguments after the name */
	const char *summary; /* one line for `heapsift --help` */
	/* the command's getopt_long table, the one its parser reads:
	 * `heapsift completion` writes the shells' scripts from it */
	const struct option *options;
	const struct cli_option_words *words; /* NULL: none */
};

extern const struct command command_table[];

/* Print "heapsift NAME: usage..." and return EXIT_USAGE; every argument
 * escaped as term.h's are (the values echoed are the user's). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The options every command that reads inputs takes, for getopt_long:
 * CLI_LIMIT_OPTIONS goes into the option array, and cli_limit_option()
 * handles the values (returns 0, or EXIT_USAGE after a message).
 */
enum {
	OPT_MAX_MEMBER_SIZE = 0x1000,
	OPT_MAX_INPUT_SIZE,
	OPT_MAX_RATIO,
	OPT_MAX_DEPTH,
	OPT_MAX_MEMBERS,
	OPT__CLI_NEXT, /* commands number their own long options from here */
};
#define CLI_LIMIT_OPTIONS                                                  \
	{"max-member-size", required_argument, NULL, OPT_MAX_MEMBER_SIZE}, \
		{"max-input-size", required_argument, NULL,                \
		 OPT_MAX_INPUT_SIZE},                                      \
		{"max-ratio", required_argument, NULL, OPT_MAX_RATIO},     \
		{"max-depth", required_argument, NULL, OPT_MAX_DEPTH},     \
	{                                                                  \
		"max-members", required_argument, NULL, OPT_MAX_MEMBERS    \
	}
#define CLI_LIMIT_HELP                                                     \
	"Limits against hostile input:\n"                                  \
	"      --max-member-size=SIZE  decompressed bytes per member "     \
	"(default 4G)\n"                                                   \
	"      --max-input-size=SIZE   decompressed bytes per input, all " \
	"levels (default 16G)\n"                                           \
	"      --max-ratio=N           decompressed:compressed bytes per " \
	"level (default 200)\n"                                            \
	"      --max-depth=N           archive/compression nesting "       \
	"(default 8)\n"                                                    \
	"      --max-members=N         archive members per input "         \
	"(default 100000)\n"                                               \
	"  SIZE takes K, M, G, T suffixes (powers of 1024).\n"

/* The store commands' help on their operand: a store, or inputs. */
#define CLI_STORE_OPERAND_HELP                                            \
	"CASE.hsdb is a store (heapsift import writes one).  Given\n"     \
	"inputs instead (INPUT...: recordings, bundles, code-heap\n"      \
	"reports, anything heapsift import reads), they are imported\n"   \
	"first into the cache store heapsift browse uses, reused while\n" \
	"they are unchanged; an input that is nothing heapsift reads\n"   \
	"is an error (exit status 1).\n"

int cli_limit_option(const char *cmd, int opt, const char *arg,
		     struct input_limits *lim);

/*
 * --jobs=N (import, dump): threads decoding JFR chunks.  The option
 * wins, else HEAPSIFT_JOBS, else the number of online CPUs
 * (cli_jobs(), dump's), or the online CPUs less one where the decoders
 * feed a store (cli_store_jobs(): import and the commands that import
 * into the cache store), either from 1 to CLI_JOBS_DEFAULT_MAX; 1
 * decodes on the main thread.  The output is the same for every N.
 */
#define CLI_JOBS_MAX	     64
#define CLI_JOBS_DEFAULT_MAX 4
int cli_jobs_option(const char *cmd, const char *arg, unsigned *jobs);
unsigned cli_jobs(unsigned option);	  /* option 0: not given */
unsigned cli_store_jobs(unsigned option); /* option 0: not given */

/* "12", "4K", "1.5G"...; false on anything else or on overflow. */
bool cli_parse_size(const char *s, uint64_t *out);
bool cli_parse_count(const char *s, uint64_t *out);

/*
 * Before a command's getopt_long loop.  Every command parses the same
 * way: GNU getopt permutation (options may follow the operands, "--"
 * ends the options, "-" is an operand: standard input), with opterr off
 * (cli_getopt_error speaks).  It restarts getopt's scan completely, so a
 * command may run another (browse runs import).
 */
void cli_getopt_begin(void);

/*
 * A command is two halves: NAME_parse() turns argv into a struct of the
 * command's options, saying every usage error (and printing --help)
 * itself, and NAME_run() turns that struct into output.  The parse half
 * returns CLI_RUN when the command is to run, else the exit status it
 * ended with (EXIT_OK after --help, EXIT_USAGE after a message).  The
 * struct borrows argv's strings (the operands, the options' values).
 */
#define CLI_RUN (-1)

/* A command's --help text on stdout: the exit status (cli_finish_output). */
int cli_help(const char *text);

/* getopt_long's '?' (unknown option) and ':' (value missing) as a usage
 * error; returns EXIT_USAGE. */
int cli_getopt_error(const char *cmd, int c, char **argv);

/* "heapsift CMD: SEVERITY: SOURCE: message at offset N" on stderr, after
 * clearing the progress line and flushing stdout. */
struct err;
void cli_problem(const char *cmd, const char *severity, const struct err *e);

/*
 * The exit status the inputs gave, kept for the whole run: a command that
 * read inputs into the cache store (cache.h) reports the import's status
 * here, the worse one kept (EXIT_ERROR over EXIT_WARNED over EXIT_OK), and
 * main() joins it to the command's own through cli_exit_status(): a
 * command that succeeded exits with the inputs' status when that is
 * worse, so that every command ends by the same rule (heapsift(1), EXIT
 * STATUS) whatever it did with the store afterwards.
 */
void cli_inputs_status(int status);
int cli_exit_status(int status);

/* Flush stdout; on a write error say so and return EXIT_ERROR. */
int cli_finish_output(int status);

/* Is stderr a terminal we may draw a progress line on?  cli_progress()
 * escapes its arguments as term.h's (names of members). */
bool cli_progress_enabled(void);
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_done(void);

int cmd_scan(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_timeline(int argc, char **argv);
int cmd_survivors(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_browse(int argc, char **argv);
int cmd_codeheap(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_agent_path(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* Each command's option table (cmd_NAME.c) and, where some of its
 * options take a fixed set of words, its word table. */
extern const struct option scan_option_table[], dump_option_table[],
	import_option_table[], info_option_table[], top_option_table[],
	tree_option_table[], timeline_option_table[], survivors_option_table[],
	export_option_table[], browse_option_table[], codeheap_option_table[],
	report_option_table[], diff_option_table[], agent_path_option_table[],
	completion_option_table[];
extern const struct cli_option_words dump_word_table[], import_word_table[],
	top_word_table[], tree_word_table[], timeline_word_table[],
	survivors_word_table[], export_word_table[], browse_word_table[],
	codeheap_word_table[], report_word_table[], diff_word_table[],
	completion_word_table[];

/* A member's status as scan lists it (and the report's inventory): ok,
 * empty (no bytes), or from e's code: truncated, limit, unsupported,
 * error (I/O), damaged. */
struct err;
const char *cli_member_status(const struct err *e, uint64_t bytes);

#endif
