/*
 * heapsift import: read recordings from any inputs (files, bundles,
 * standard input) into a store, written atomically.  --append copies the
 * store's recordings first and writes a new file the same way, so the
 * old one is intact until the new one is complete.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/intake.h"
#include "cli/output.h"
#include "importers/registry.h"
#include "record/record.h"
#include "input/input.h"
#include "input/walk.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char import_help[] =
	"usage: heapsift import -o CASE.hsdb [--append] [--force] "
	"[--jobs=N] [LIMITS] INPUT...\n"
	"\n"
	"Import everything found in the inputs (JFR and heapsift agent\n"
	"recordings, code-heap reports, OpenJ9 javacores; also inside\n"
	"compressed files and tar/zip/7z bundles, nested; '-' for standard\n"
	"input) into the store CASE.hsdb.  The store is written to a\n"
	"temporary file and renamed over CASE.hsdb only when complete.\n"
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
	"                     HEAPSIFT_JOBS, else the CPUs, at most 4);\n"
	"                     the store is the same for every N\n"
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

struct import {
	const char *cmd; /* whose messages: "import", or a command importing
			    into the cache store */
	struct cli_intake intake;
	struct store_writer *w;
	struct store *old; /* --append: the store, for duplicates' names */
	uint64_t duplicates;
	uint64_t warnings;
	uint64_t recordings;
	uint64_t not_importable;
	unsigned jobs;
};

static void print_problem(const struct import *im, const char *sev,
			  const struct err *e)
{
	cli_problem(im->cmd, sev, e);
}

static void import_warn(void *ctx, const struct err *e)
{
	struct import *im = ctx;

	im->warnings++;
	print_problem(im, "warning", e);
}

static void import_problem(void *ctx, enum problem_severity sev,
			   const struct err *e)
{
	print_problem(ctx, sev == PROBLEM_ERROR ? "error" : "warning", e);
}

/* A recording --append found already in the store: skipped, with a
 * warning (exit status 3: done, but not everything given was added). */
static void note_duplicate(struct import *im, const char *display,
			   uint32_t last)
{
	const struct store_recording *recs;
	uint32_t n = 0;
	struct err e;

	im->duplicates++;
	im->warnings++;
	err_init(&e);
	cli_progress_done();
	if (im->old && store_recordings(im->old, &recs, &n, &e) == 0 &&
	    last < n)
		fprintf(stderr,
			"heapsift %s: warning: %s: already in the store "
			"as recording %u (%s); skipped\n",
			im->cmd, display, last,
			store_str(im->old, recs[last].source));
	else
		fprintf(stderr,
			"heapsift %s: warning: %s: already in the store "
			"as recording %u; skipped\n",
			im->cmd, display, last);
}

static int import_member(void *ctx, const struct member *m)
{
	struct import *im = ctx;
	const unsigned char *p;
	size_t avail;
	struct probe_result pr;
	struct import_env env = {m->display, import_warn, im, 0, im->jobs};
	uint32_t before = store_writer_n_recordings(im->w), last;
	uint32_t dups = store_writer_n_duplicates(im->w, NULL);
	struct err e;

	if (input_peek(m->in, PROBE_PREFIX, &p, &avail) < 0)
		avail = 0; /* the walker reports the failure */
	pr = importer_probe(p, avail, m->in->eof && !m->in->failed);
	cli_intake_member(&im->intake, m, pr.ops != NULL, avail);
	if (!pr.ops)
		return 0;
	if (!pr.ops->import) {
		im->not_importable++;
		cli_progress_done();
		fprintf(stderr,
			"heapsift %s: note: %s: %s data is not "
			"importable yet; skipped\n",
			im->cmd, m->display, import_kind_name(pr.kind));
		return 0;
	}
	cli_progress("importing %s", m->display);
	err_init(&e);
	if (pr.ops->import(m->in, store_writer_sink(im->w), &env, &e) < 0 &&
	    !store_writer_failed(im->w, NULL)) {
		/* (a writer that failed says why once, at the end) */
		err_source(&e, m->display);
		if (store_writer_n_recordings(im->w) == before &&
		    cli_intake_refused(&im->intake, m, &e)) {
			print_problem(im, "error", &e);
		} else {
			im->warnings++;
			print_problem(im, "warning", &e);
		}
	}
	im->recordings += store_writer_n_recordings(im->w) - before;
	if (store_writer_n_duplicates(im->w, &last) != dups)
		note_duplicate(im, m->display, last);
	cli_progress("imported %s: %llu samples so far", m->display,
		     (unsigned long long)store_writer_n_samples(im->w));
	return 0;
}

/* Write the store, or say why not; EXIT_OK or the failure's status. */
static int finish(struct import *im, const char *out, FILE *summary,
		  struct err *e)
{
	if (store_writer_failed(im->w, e)) {
		/* the spill file: no space left, or an I/O error */
		print_problem(im, "error", e);
		fprintf(stderr, "heapsift %s: %s not written\n", im->cmd, out);
		return EXIT_ERROR;
	}
	if (!im->recordings && im->duplicates) {
		fprintf(stderr,
			"heapsift %s: every recording is already in %s; "
			"not rewritten\n",
			im->cmd, out);
		return EXIT_OK; /* the warnings make it 3 */
	}
	if (!im->recordings) {
		fprintf(stderr,
			"heapsift %s: error: no recording could "
			"be imported from the inputs; %s not written\n",
			im->cmd, out);
		return EXIT_ERROR;
	}
	if (store_writer_commit(im->w, out, e) < 0) {
		print_problem(im, "error", e);
		/* the spill's and the folder's errors do not name it */
		fprintf(stderr, "heapsift %s: %s not written\n", im->cmd, out);
		return EXIT_ERROR;
	}
	fprintf(summary, "%s: %u recording%s (%llu new), %llu samples\n", out,
		store_writer_n_recordings(im->w),
		store_writer_n_recordings(im->w) == 1 ? "" : "s",
		(unsigned long long)im->recordings,
		(unsigned long long)store_writer_n_samples(im->w));
	return EXIT_OK;
}

/* Another heapsift writes the store: said once, before waiting. */
struct waiting {
	const char *cmd, *out;
};

static void say_waiting(void *ctx)
{
	const struct waiting *wt = ctx;

	cli_progress_done();
	fprintf(stderr,
		"heapsift %s: waiting for another heapsift writing %s\n",
		wt->cmd, wt->out);
}

/* The writer spills its samples beside the store (not in /tmp, which
 * may be small or in memory), where the store's own temporary file goes
 * (a link's target's directory); a new store's samples are encoded into
 * that file as they arrive (store_writer_stream), which --append's
 * duplicates rule out. */
static void spill_beside(struct store_writer *w, const char *out, bool stream)
{
	char *real = realpath(out, NULL);
	char *copy = real ? real : xstrdup(out);
	const char *parent = dirname(copy);
	char *dir = realpath(parent, NULL);

	/* the full path, for the messages */
	store_writer_set_spill_dir(w, dir ? dir : parent);
	if (stream)
		store_writer_stream(w, dir ? dir : parent);
	free(dir);
	free(copy);
}

int cli_import(const struct cli_import_opts *o, int n, char **inputs)
{
	static const struct walk_ops ops = {import_member, import_problem};
	struct walk_stats stats = {0, 0, 0, 0};
	struct waiting wt = {o->cmd, o->out};
	struct import im;
	int i, rc, failed_inputs = 0, lock_fd;
	struct err e;

	memset(&im, 0, sizeof(im));
	im.cmd = o->cmd;
	im.jobs = cli_jobs(o->jobs);
	err_init(&e);
	/* writers of one store take turns (docs/formats/store.md): with
	 * --append, so that no writer's recordings are lost; without, so
	 * that one import's store follows the other's whole */
	if (store_lock(o->out, say_waiting, &wt, &lock_fd, &e) < 0) {
		print_problem(&im, "error", &e);
		return EXIT_ERROR;
	}
	im.w = store_writer_new();
	spill_beside(im.w, o->out, !o->append);
	if (o->append) {
		/* appending to a store that is not there yet makes it */
		if (access(o->out, F_OK) < 0 && errno == ENOENT) {
			im.old = NULL;
		} else if (store_open(o->out, &im.old, &e) < 0 ||
			   store_writer_add_store(im.w, im.old, &e) < 0) {
			print_problem(&im, "error", &e);
			fprintf(stderr, "heapsift %s: %s not written\n", o->cmd,
				o->out);
			if (im.old)
				store_close(im.old);
			store_writer_free(im.w);
			store_unlock(lock_fd);
			return EXIT_ERROR;
		}
		/* a recording already in the store is not added again */
		store_writer_skip_duplicates(im.w);
	}
	cli_intake_init(&im.intake, o->cmd);
	for (i = 0; i < n; i++) {
		cli_intake_begin(&im.intake, inputs[i]);
		if (walk_input(inputs[i], o->lim, &ops, &im, &stats) < 0)
			failed_inputs++;
		else
			cli_intake_end(&im.intake);
	}
	cli_progress_done();
	rc = finish(&im, o->out, o->summary ? o->summary : stdout, &e);
	if (rc == EXIT_OK &&
	    (failed_inputs || stats.errors || im.intake.not_read))
		rc = EXIT_ERROR;
	if (rc == EXIT_OK && (stats.warnings || im.warnings))
		rc = EXIT_WARNED;
	cli_intake_release(&im.intake);
	if (im.old)
		store_close(im.old);
	store_writer_free(im.w);
	store_unlock(lock_fd);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	enum { OPT_APPEND = OPT__CLI_NEXT, OPT_FORCE, OPT_JOBS };
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"append", no_argument, NULL, OPT_APPEND},
		{"force", no_argument, NULL, OPT_FORCE},
		{"jobs", required_argument, NULL, OPT_JOBS},
		{"help", no_argument, NULL, 'h'},
		CLI_LIMIT_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct input_limits lim;
	struct cli_import_opts io = {"import", NULL, false, 0, &lim, NULL};
	struct cli_output o = {NULL, CLI_OUTPUT_STORE, NULL, false};
	int c;

	input_limits_default(&lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(import_help, stdout);
			return cli_finish_output(EXIT_OK);
		case 'o':
			io.out = optarg;
			break;
		case OPT_APPEND:
			io.append = true;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_JOBS:
			if (cli_jobs_option("import", optarg, &io.jobs))
				return EXIT_USAGE;
			break;
		case '?':
		case ':':
			return cli_getopt_error("import", c, argv);
		default:
			if (cli_limit_option("import", c, optarg, &lim))
				return EXIT_USAGE;
		}
	}
	if (!io.out)
		return cli_usage_error("import",
				       "no store given (-o CASE.hsdb)");
	if (optind >= argc)
		return cli_usage_error("import", "no input given");
	o.path = io.out;
	if (cli_output_check("import", &o, argv + optind, argc - optind))
		return EXIT_ERROR;
	return cli_finish_output(cli_import(&io, argc - optind, argv + optind));
}
