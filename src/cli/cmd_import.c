/*
 * heapsift import: read recordings from any inputs (files, bundles,
 * standard input) into a store, written atomically.  --append copies the
 * store's recordings first and writes a new file the same way, so the
 * old one is intact until the new one is complete.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/intake.h"
#include "cli/output.h"
#include "input/walk.h"

static const char import_help[] =
	"usage: heapsift import -o CASE.hsdb [--append] [--force] "
	"[--jobs=N] [LIMITS] INPUT...\n"
	"\n"
	"Import everything found in the inputs (JFR and heapsift agent\n"
	"recordings, code-heap reports, OpenJ9 javacores; also inside\n"
	"compressed files and tar/zip/7z bundles, nested, and folders, read\n"
	"as their archives are; '-' for standard input) into the store\n"
	"CASE.hsdb.  The store is written to a temporary file and renamed\n"
	"over CASE.hsdb only when complete.\n"
	"CASE.hsdb must not exist or be a heapsift store: any other file is\n"
	"replaced only with --force; a folder, device, fifo, socket, symbolic\n"
	"link or one of the inputs never.  Options may come after the inputs;\n"
	"'--' ends them.\n"
	"\n"
	"  -o, --output=FILE  the store to write\n"
	"      --append       keep the recordings already in FILE; an input\n"
	"                     recording already there is skipped (a warning)\n"
	"      --force        replace FILE even when it is not a store\n"
	"      --jobs=N       threads decoding JFR chunks (default:\n"
	"                     HEAPSIFT_JOBS, else the CPUs less one for\n"
	"                     the store writer, 1 to 4); the store is the\n"
	"                     same for every N\n"
	"  -h, --help         this text\n"
	"\n" CLI_LIMIT_HELP "\n"
	"An input that no importer recognises (a file named here, or a\n"
	"bundle with nothing heapsift reads in it) is an error; a bundle's\n"
	"other members (its logs, its README) get one note per bundle.\n"
	"\n"
	"Exit status: 0 done; 1 an input could not be read or was not\n"
	"recognised, nothing to import, or the store could not be written;\n"
	"2 usage; 3 done, but damaged or unfinished data was skipped, a\n"
	"limit was hit, or --append skipped a recording already in the\n"
	"store.\n";

/* The command line, parsed. */
struct import_opts {
	struct cli_import_opts io;
	struct input_limits lim;
	struct cli_output out;
	int n;	       /* the inputs */
	char **inputs; /* ... in argv */
};

/* import_parse() returns PARSED when the command is to run */
#define PARSED (-1)

enum { OPT_APPEND = OPT__CLI_NEXT, OPT_FORCE, OPT_JOBS };
const struct option import_option_table[] = {
	{"output", required_argument, NULL, 'o'},
	{"append", no_argument, NULL, OPT_APPEND},
	{"force", no_argument, NULL, OPT_FORCE},
	{"jobs", required_argument, NULL, OPT_JOBS},
	{"help", no_argument, NULL, 'h'},
	CLI_LIMIT_OPTIONS,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words import_word_table[] = {
	{"output", NULL},
	{NULL, NULL},
};

/* The options into *o: PARSED, or the exit status (--help, a usage
 * error). */
static int import_parse(int argc, char **argv, struct import_opts *o)
{
	struct cli_import_opts io = {"import", NULL, false, 0, &o->lim, NULL};
	struct cli_output out = {NULL, CLI_OUTPUT_STORE, NULL, false};
	int c;

	o->io = io;
	o->out = out;
	input_limits_default(&o->lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", import_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(import_help, stdout);
			return cli_finish_output(EXIT_OK);
		case 'o':
			if (cli_output_arg("import", optarg,
					   "the store to write, -o CASE.hsdb"))
				return EXIT_USAGE;
			o->io.out = optarg;
			break;
		case OPT_APPEND:
			o->io.append = true;
			break;
		case OPT_FORCE:
			o->out.force = true;
			break;
		case OPT_JOBS:
			if (cli_jobs_option("import", optarg, &o->io.jobs))
				return EXIT_USAGE;
			break;
		case '?':
		case ':':
			return cli_getopt_error("import", c, argv);
		default:
			if (cli_limit_option("import", c, optarg, &o->lim))
				return EXIT_USAGE;
		}
	}
	if (!o->io.out)
		return cli_usage_error("import",
				       "no store given (-o CASE.hsdb)");
	if (optind >= argc)
		return cli_usage_error("import", "no input given");
	o->out.path = o->io.out;
	o->inputs = argv + optind;
	o->n = argc - optind;
	return PARSED;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o;
	int rc = import_parse(argc, argv, &o);

	if (rc != PARSED)
		return rc;
	if (cli_output_check("import", &o.out, o.inputs, o.n))
		return EXIT_ERROR;
	return cli_finish_output(cli_import(&o.io, o.n, o.inputs));
}
