/*
 * heapsift browse: the ncurses browser (tui/) on a store, or on inputs
 * imported first into a cache store.  The cache follows XDG
 * ($XDG_CACHE_HOME/heapsift, else ~/.cache/heapsift); a store there is
 * named by a hash of the inputs' absolute paths, sizes and modification
 * times, so it is reused while they are unchanged and a changed input
 * makes a new one.  The import is `heapsift import`'s own, progress and
 * warnings included.
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
#include "cli/view.h"
#include "store/store.h"
#include "tui/tui.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char browse_help[] =
	"usage: heapsift browse CASE.hsdb\n"
	"       heapsift browse INPUT...\n"
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
	"  -h, --help   this text\n"
	"\n"
	"Environment: NO_COLOR turns colours off; a locale that is not UTF-8\n"
	"gives ASCII bars and lines.\n";

/* Import the inputs into path with heapsift import; the exit status. */
static int import_into(const char *path, int n, char **inputs)
{
	char **args = xcalloc((size_t)n + 5, sizeof(char *));
	int i, rc;

	args[0] = (char *)"import";
	args[1] = (char *)"-o";
	args[2] = (char *)path;
	args[3] = (char *)"--"; /* an input named -x is not an option */
	for (i = 0; i < n; i++)
		args[4 + i] = inputs[i];
	fprintf(stderr, "heapsift browse: importing into %s\n", path);
	/* cmd_import runs its own getopt scan: it changes optind and
	 * may permute args, so nothing here reads them afterwards */
	rc = cmd_import(n + 4, args);
	free(args);
	return rc;
}

int cmd_browse(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct store *s;
	struct err e;
	char *cached = NULL;
	const char *path, *name;
	char **inputs;
	int c, rc, n;

	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(browse_help, stdout);
			return cli_finish_output(EXIT_OK);
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
	/* kept now: import_into() runs another getopt scan */
	inputs = argv + optind;
	n = argc - optind;
	if (n == 1 && cli_is_store(inputs[0])) {
		path = inputs[0];
	} else {
		struct stat st;

		cached = cli_cache_path("browse", n, inputs);
		if (!cached)
			return EXIT_ERROR;
		if (stat(cached, &st) == 0) {
			fprintf(stderr, "heapsift browse: using %s\n", cached);
		} else {
			rc = import_into(cached, n, inputs);
			if (rc != EXIT_OK && rc != EXIT_WARNED) {
				free(cached);
				return rc;
			}
		}
		path = cached;
	}
	name = strrchr(inputs[0], '/') ? strrchr(inputs[0], '/') + 1
				       : inputs[0];
	err_init(&e);
	if (store_open(path, &s, &e) < 0) {
		view_error("browse", &e);
		free(cached);
		return EXIT_ERROR;
	}
	rc = tui_browse(s, name, &e) < 0 ? EXIT_ERROR : EXIT_OK;
	if (rc != EXIT_OK)
		view_error("browse", &e);
	store_close(s);
	free(cached);
	return rc;
}
