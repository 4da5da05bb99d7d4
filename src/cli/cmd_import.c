/*
 * heapsift import: read recordings from any inputs (files, bundles,
 * standard input) into a store, written atomically.  --append copies the
 * store's recordings first and writes a new file the same way, so the
 * old one is intact until the new one is complete.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/output.h"
#include "importers/registry.h"
#include "importers/sink.h"
#include "input/input.h"
#include "input/walk.h"
#include "store/store.h"
#include "util/buf.h"

static const char import_help[] =
	"usage: heapsift import -o CASE.hsdb [--append] [--force] [LIMITS] "
	"INPUT...\n"
	"\n"
	"Import every recording found in the inputs (JFR recordings, also\n"
	"inside compressed files and tar/zip/7z bundles, nested; '-' for\n"
	"standard input) into the store CASE.hsdb.  The store is written\n"
	"to a temporary file and renamed over CASE.hsdb only when complete.\n"
	"CASE.hsdb must not exist or be a heapsift store: any other file is\n"
	"replaced only with --force; a folder, device, fifo, socket, symbolic\n"
	"link or one of the inputs never.  Options may come after the inputs;\n"
	"'--' ends them.\n"
	"\n"
	"  -o, --output=FILE  the store to write\n"
	"      --append       keep the recordings already in FILE\n"
	"      --force        replace FILE even when it is not a store\n"
	"  -h, --help         this text\n"
	"\n" CLI_LIMIT_HELP "\n"
	"Exit status: 0 done; 1 an input could not be read, nothing to\n"
	"import, or the store could not be written; 2 usage; 3 done, but\n"
	"damaged or unfinished data was skipped.\n";

struct import {
	struct store_writer *w;
	uint64_t warnings;
	uint64_t recordings;
	uint64_t not_importable;
};

static void print_problem(const char *sev, const struct err *e)
{
	cli_problem("import", sev, e);
}

static void import_warn(void *ctx, const struct err *e)
{
	struct import *im = ctx;

	im->warnings++;
	print_problem("warning", e);
}

static void import_problem(void *ctx, enum problem_severity sev,
			   const struct err *e)
{
	(void)ctx;
	print_problem(sev == PROBLEM_ERROR ? "error" : "warning", e);
}

static int import_member(void *ctx, const struct member *m)
{
	struct import *im = ctx;
	const unsigned char *p;
	size_t avail;
	struct probe_result pr;
	struct import_env env = {m->display, import_warn, im, 0};
	uint32_t before = store_writer_n_recordings(im->w);
	struct err e;

	input_peek(m->in, PROBE_PREFIX, &p, &avail);
	pr = importer_probe(p, avail, m->in->eof && !m->in->failed);
	if (!pr.ops)
		return 0;
	if (!pr.ops->import) {
		im->not_importable++;
		cli_progress_done();
		fprintf(stderr,
			"heapsift import: note: %s: %s data is not "
			"importable yet; skipped\n",
			m->display, import_kind_name(pr.kind));
		return 0;
	}
	cli_progress("importing %s", m->display);
	err_init(&e);
	if (pr.ops->import(m->in, store_writer_sink(im->w), &env, &e) < 0) {
		err_source(&e, m->display);
		im->warnings++;
		print_problem("warning", &e);
	}
	im->recordings += store_writer_n_recordings(im->w) - before;
	cli_progress("imported %s: %llu samples so far", m->display,
		     (unsigned long long)store_writer_n_samples(im->w));
	return 0;
}

int cmd_import(int argc, char **argv)
{
	enum { OPT_APPEND = OPT__CLI_NEXT, OPT_FORCE };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"append", no_argument, NULL, OPT_APPEND},
		{"force", no_argument, NULL, OPT_FORCE},
		{"help", no_argument, NULL, 'h'},
		CLI_LIMIT_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	static const struct walk_ops ops = {import_member, import_problem};
	struct input_limits lim;
	struct walk_stats stats = {0, 0, 0, 0};
	struct import im;
	const char *out = NULL;
	struct cli_output o = {NULL, CLI_OUTPUT_STORE, NULL, false};
	bool append = false;
	int c, i, failed_inputs = 0;
	struct err e;

	memset(&im, 0, sizeof(im));
	input_limits_default(&lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(import_help, stdout);
			return cli_finish_output(EXIT_OK);
		case 'o':
			out = optarg;
			break;
		case OPT_APPEND:
			append = true;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case '?':
		case ':':
			return cli_getopt_error("import", c, argv);
		default:
			if (cli_limit_option("import", c, optarg, &lim))
				return EXIT_USAGE;
		}
	}
	if (!out)
		return cli_usage_error("import",
				       "no store given (-o CASE.hsdb)");
	if (optind >= argc)
		return cli_usage_error("import", "no input given");
	o.path = out;
	if (cli_output_check("import", &o, argv + optind, argc - optind))
		return EXIT_ERROR;

	err_init(&e);
	im.w = store_writer_new();
	if (append) {
		struct store *old;

		/* appending to a store that is not there yet makes it */
		if (access(out, F_OK) < 0 && errno == ENOENT) {
			old = NULL;
		} else if (store_open(out, &old, &e) < 0 ||
			   store_writer_add_store(im.w, old, &e) < 0) {
			print_problem("error", &e);
			if (old)
				store_close(old);
			store_writer_free(im.w);
			return EXIT_ERROR;
		}
		if (old)
			store_close(old);
	}
	for (i = optind; i < argc; i++)
		if (walk_input(argv[i], &lim, &ops, &im, &stats) < 0)
			failed_inputs++;
	cli_progress_done();
	if (!im.recordings) {
		fprintf(stderr,
			"heapsift import: error: no recording could "
			"be imported from the inputs; %s not written\n",
			out);
		store_writer_free(im.w);
		return EXIT_ERROR;
	}
	if (store_writer_commit(im.w, out, &e) < 0) {
		print_problem("error", &e);
		store_writer_free(im.w);
		return EXIT_ERROR;
	}
	printf("%s: %u recording%s (%llu new), %llu samples\n", out,
	       store_writer_n_recordings(im.w),
	       store_writer_n_recordings(im.w) == 1 ? "" : "s",
	       (unsigned long long)im.recordings,
	       (unsigned long long)store_writer_n_samples(im.w));
	store_writer_free(im.w);
	if (failed_inputs || stats.errors)
		return cli_finish_output(EXIT_ERROR);
	if (stats.warnings || im.warnings)
		return cli_finish_output(EXIT_WARNED);
	return cli_finish_output(EXIT_OK);
}
