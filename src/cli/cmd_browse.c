/*
 * heapsift browse: the ncurses browser (src/tui/) on a store, or on inputs
 * imported first into a cache store.  The cache follows XDG
 * ($XDG_CACHE_HOME/heapsift, else ~/.cache/heapsift); a store there is
 * named by a hash of the inputs' absolute paths, sizes and modification
 * times, so it is reused while they are unchanged and a changed input
 * makes a new one.  The store is opened as every store command opens
 * one (cli_store_open(), cache.c): the import is the ingest pipeline's
 * (ingest/ingest.h), worded as `heapsift import` words it, progress and
 * warnings included, under browse's name.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/cli_view.h"
#include "store/store.h"
#include "tui/tui.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char browse_help[] =
	"usage: heapsift browse CASE.hsdb [--base=N|--base=FROM..TO]\n"
	"                       [--estimate=jfr|corrected]\n"
	"       heapsift browse INPUT... [--base=N|--base=FROM..TO]\n"
	"\n"
	"Browse a store in the terminal: overview, allocations by class,\n"
	"site, app-site, thread or recording with drill-down, the call tree\n"
	"and the inverted tree, the timeline (select a time range there and\n"
	"every view shows only it), survivors and leak suspects, and the\n"
	"code heaps with their granule maps.  Press ? in the browser for\n"
	"every key.\n"
	"\n"
	"Given inputs (recordings, bundles: anything heapsift import reads)\n"
	"instead of a store, imports them first (with the default limits)\n"
	"into a cache store in $XDG_CACHE_HOME/heapsift (default\n"
	"~/.cache/heapsift), reused while the inputs' paths, sizes and\n"
	"modification times are unchanged.\n"
	"\n"
	"      --base=N, --base=FROM..TO\n"
	"               start with recording N, or the time window FROM..TO\n"
	"               (as --from and --to take them), as the baseline that\n"
	"               the Allocations view compares with (B in the browser)\n"
	"      --estimate=EST\n"
	"               jfr or corrected: the bytes of ObjectAllocationSample\n"
	"               to start with (corrected, the default, where the "
	"store\n"
	"               holds OutsideTLAB events; W in the browser switches)\n"
	"  -h, --help   this text\n"
	"\n"
	"Environment: NO_COLOR turns colours off; a locale that is not UTF-8\n"
	"gives ASCII bars and lines.\n";

/* --base=N or --base=FROM..TO against the open store; 0 or the exit
 * status after a message. */
static int parse_base(struct store *s, const char *arg, struct tui_base *b)
{
	struct view_filters f;
	const char *dots = strstr(arg, "..");
	char *from = NULL;
	uint64_t n;
	int rc;

	view_filters_init(&f);
	if (dots) {
		from = xmemdup(arg, (size_t)(dots - arg));
		f.from = *from ? from : NULL;
		f.to = dots[2] ? dots + 2 : NULL;
	} else if (cli_parse_count(arg, &n) && n <= UINT32_MAX) {
		f.q.recording = (int64_t)n;
	} else {
		return cli_usage_error("browse",
				       "--base: '%s' is neither a recording "
				       "number nor a window FROM..TO",
				       arg);
	}
	rc = view_resolve("browse", s, &f);
	free(from);
	if (rc)
		return rc;
	b->set = true;
	b->recording = dots ? -1 : f.q.recording;
	b->from_ns = f.q.from_ns;
	b->to_ns = f.q.to_ns;
	return 0;
}

/* The command line, parsed. */
struct browse_opts {
	const char *base_arg;
	int estimate;  /* enum query_estimate, -1: the store's default */
	char **inputs; /* the operands, in argv */
	int n;
};

/* browse_parse() returns PARSED when the command is to run */
#define PARSED (-1)

enum { OPT_BASE = 0x100, OPT_EST };
const struct option browse_option_table[] = {
	{"base", required_argument, NULL, OPT_BASE},
	{"estimate", required_argument, NULL, OPT_EST},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};
const struct cli_option_words browse_word_table[] = {
	{"base", NULL},
	{"estimate", query_estimate_word},
	{NULL, NULL},
};

/* The options into *o: PARSED, or the exit status (--help, a usage
 * error, no terminal). */
static int browse_parse(int argc, char **argv, struct browse_opts *o)
{
	enum query_estimate est;
	int c;

	o->base_arg = NULL;
	o->estimate = -1;
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", browse_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			fputs(browse_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_BASE:
			o->base_arg = optarg;
			break;
		case OPT_EST:
			if (!query_estimate_parse(optarg, &est))
				return cli_usage_error(
					"browse",
					"--estimate: '%s' is neither "
					"jfr nor corrected",
					optarg);
			o->estimate = (int)est;
			break;
		default:
			return cli_getopt_error("browse", c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error("browse",
				       "give a store or the inputs to import");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return cli_usage_error("browse", "needs a terminal; the other "
						 "commands print to pipes");
	o->inputs = argv + optind;
	o->n = argc - optind;
	return PARSED;
}

/* The browser on the store of what was parsed into o: the exit status. */
static int browse_run(const struct browse_opts *o)
{
	struct tui_base base = {false, -1, INT64_MIN, INT64_MAX};
	struct store *s = NULL;
	char *cached = NULL;
	const char *name = strrchr(o->inputs[0], '/');
	struct err e;
	int rc, status;

	/* one store, or the inputs to read into the cache store */
	rc = cli_store_open("browse", o->n, o->inputs, &s, &cached, &status);
	if (rc)
		return rc;
	name = name ? name + 1 : o->inputs[0];
	if (o->base_arg) {
		rc = parse_base(s, o->base_arg, &base);
		if (rc) {
			store_close(s);
			free(cached);
			return rc;
		}
	}
	err_init(&e);
	rc = tui_browse(s, name, cached, &base, o->estimate, &e) < 0
		     ? EXIT_ERROR
		     : EXIT_OK;
	if (rc != EXIT_OK)
		view_error("browse", &e);
	store_close(s);
	free(cached);
	return rc;
}

int cmd_browse(int argc, char **argv)
{
	struct browse_opts o;
	int rc = browse_parse(argc, argv, &o);

	return rc == PARSED ? browse_run(&o) : rc;
}
