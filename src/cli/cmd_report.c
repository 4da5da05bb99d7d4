/*
 * heapsift report: the triage report (docs/report.md).  Given inputs, it
 * walks them as scan does (every member, its kind and its fate) and
 * imports them into the cache store browse uses, keeping the inventory
 * beside it ("STORE.inventory") so that a second report reads neither
 * again; given a store, it reports on that.  The findings come from the
 * rules in src/findings/rules.c, through the query layer; this file only
 * gathers the inventory, runs them and writes the chosen format.
 */
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/intake.h"
#include "cli/output.h"
#include "cli/view.h"
#include "importers/importer.h"
#include "importers/registry.h"
#include "input/input.h"
#include "input/walk.h"
#include "report/report.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char report_help[] =
	"usage: heapsift report INPUT...|CASE.hsdb [--format=FORMAT] "
	"[-o FILE] [--force]\n"
	"                       [--base=N|--base=FROM..TO] [--rules] [LIMITS] "
	"[FILTERS]\n"
	"\n"
	"The triage report: what is in the inputs (every member, imported,\n"
	"damaged, unfinished, skipped or over a limit, with the reason),\n"
	"what looks wrong, most severe first (each finding with its\n"
	"evidence, its uncertainty, the command that shows more and what\n"
	"usually fixes it), and an appendix of the recordings and how each\n"
	"estimate is made.  Inputs are imported first into the cache store\n"
	"that heapsift browse uses ($XDG_CACHE_HOME/heapsift, default\n"
	"~/.cache/heapsift); progress goes to standard error.\n"
	"\n"
	"      --format=FORMAT  text (the default), md (Markdown for a "
	"ticket),\n"
	"                       html (one self-contained page with "
	"pictures),\n"
	"                       json (docs/report.schema.json)\n"
	"  -o, --output=FILE    write the report to FILE instead of standard\n"
	"                       output; FILE must not exist or be a report\n"
	"      --force          replace FILE even when it is not a report\n"
	"      --base=N, --base=FROM..TO\n"
	"                       compare with a baseline, recording N or the\n"
	"                       window FROM..TO (as --from and --to take\n"
	"                       them), by site as heapsift diff does: the\n"
	"                       new side is the filters' recording or window,\n"
	"                       else the next recording (after a recording),\n"
	"                       else the whole store\n"
	"      --rules          list the rules and stop\n"
	"  -h, --help           this text\n"
	"\n" CLI_LIMIT_HELP "\n" VIEW_FILTER_HELP "\n"
	"Exit status: 0 done; 1 an input or the store could not be read, or\n"
	"FILE not written; 2 usage; 3 done, but damaged or unfinished data\n"
	"was skipped or a limit was hit (the inventory says where).\n";

/* --- the inventory ---------------------------------------------------------- */

struct inventory {
	struct cli_intake intake; /* what was not recognised */
	struct report *r;
	struct store_writer *w; /* NULL: scan only */
	struct report_member *cur;
	struct buf warnings; /* the current member's importer warnings */
	bool unfinished;
	uint64_t warned; /* members with damage, limits, errors */
	uint64_t recordings;
};

static void member_add(struct report *r, const char *display)
{
	struct report_member *m;

	r->members = xreallocarray(r->members, r->n_members + 1,
				   sizeof(*r->members));
	m = &r->members[r->n_members++];
	memset(m, 0, sizeof(*m));
	m->display = xstrdup(display);
}

static void inv_warn(void *ctx, const struct err *e)
{
	struct inventory *iv = ctx;
	struct buf b = BUF_INIT;

	err_format(e, &b);
	cli_problem("report", "warning", e);
	if (iv->warnings.len)
		buf_adds(&iv->warnings, "; ");
	buf_adds(&iv->warnings, e->msg);
	if (strstr(e->msg, "still being written") ||
	    strstr(e->msg, "unfinished"))
		iv->unfinished = true;
	buf_release(&b);
}

static int inv_member(void *ctx, const struct member *mb)
{
	struct inventory *iv = ctx;
	struct report_member *m;
	struct probe_result pr;
	const unsigned char *p;
	size_t avail;
	uint64_t skipped;
	const struct err *ie;
	char *refused = NULL; /* the message of a named input refused */
	uint32_t before = iv->w ? store_writer_n_recordings(iv->w) : 0;

	member_add(iv->r, mb->display);
	m = iv->cur = &iv->r->members[iv->r->n_members - 1];
	buf_reset(&iv->warnings);
	iv->unfinished = false;
	if (input_peek(mb->in, PROBE_PREFIX, &p, &avail) < 0)
		avail = 0; /* the walker reports the failure */
	pr = importer_probe(p, avail, mb->in->eof && !mb->in->failed);
	cli_intake_member(&iv->intake, mb, pr.ops != NULL, avail);
	m->kind = xstrdup(import_kind_name(pr.kind));
	m->confidence = pr.score;
	m->compression = xstrdup(mb->compression);
	if (iv->w && pr.ops && pr.ops->import) {
		struct import_env env = {mb->display, inv_warn, iv, 0,
					 cli_jobs(0)};
		struct err e;

		cli_progress("importing %s", mb->display);
		err_init(&e);
		if (pr.ops->import(mb->in, store_writer_sink(iv->w), &env, &e) <
		    0) {
			err_source(&e, mb->display);
			if (store_writer_n_recordings(iv->w) == before &&
			    cli_intake_refused(&iv->intake, mb, &e)) {
				/* not read: an error (intake.h), listed as
				 * unsupported with its reason */
				cli_problem("report", "error", &e);
				refused = xstrdup(e.msg);
			} else {
				inv_warn(iv, &e);
			}
		}
		m->recordings = store_writer_n_recordings(iv->w) - before;
		iv->recordings += m->recordings;
	}
	/* read to the end: the size, and damage, are only known then */
	for (;;) {
		int rc = input_skip(mb->in, 16 << 20, &skipped);

		if (rc < 0 || !skipped)
			break;
		cli_progress("reading %s: %llu MiB", mb->display,
			     (unsigned long long)(input_offset(mb->in) >> 20));
	}
	m->bytes = input_offset(mb->in);
	ie = input_error(mb->in);
	if (refused) {
		m->status = xstrdup("unsupported");
		buf_adds(&iv->warnings, refused);
		free(refused);
	} else if (ie) {
		m->status = xstrdup(cli_member_status(ie, 1));
		if (iv->warnings.len)
			buf_adds(&iv->warnings, "; ");
		buf_adds(&iv->warnings, ie->msg);
	} else if (iv->unfinished) {
		m->status = xstrdup("unfinished");
	} else if (iv->warnings.len) {
		m->status = xstrdup("damaged");
	} else if (!pr.ops) {
		m->status = xstrdup("skipped");
		buf_adds(&iv->warnings,
			 m->bytes ? "no importer recognises it" : "empty");
	} else if (!pr.ops->import) {
		m->status = xstrdup("skipped");
		buf_addf(&iv->warnings, "%s data is not importable yet",
			 import_kind_name(pr.kind));
	} else if (!iv->w || m->recordings) {
		m->status = xstrdup("imported");
	} else {
		m->status = xstrdup("skipped");
		buf_adds(&iv->warnings, "nothing in it could be imported");
	}
	if (strcmp(m->status, "imported") && strcmp(m->status, "skipped"))
		iv->warned++;
	m->reason = xstrdup(iv->warnings.data);
	return 0;
}

static void inv_problem(void *ctx, enum problem_severity sev,
			const struct err *e)
{
	struct inventory *iv = ctx;
	struct report *r = iv->r;
	struct buf b = BUF_INIT;
	size_t i;

	cli_problem("report", sev == PROBLEM_ERROR ? "error" : "warning", e);
	iv->warned++;
	/* a member's own problem goes with it; the rest are the input's */
	for (i = 0; i < r->n_members; i++)
		if (!strcmp(r->members[i].display, e->source)) {
			struct report_member *m = &r->members[i];

			buf_adds(&b, m->reason);
			if (b.len)
				buf_adds(&b, "; ");
			buf_adds(&b, e->msg);
			free(m->reason);
			m->reason = buf_detach(&b, NULL);
			if (!strcmp(m->status, "imported") ||
			    !strcmp(m->status, "skipped")) {
				free(m->status);
				m->status = xstrdup(e->code == ERR_LIMIT
							    ? "limit"
							    : "damaged");
			}
			return;
		}
	err_format(e, &b);
	r->problems =
		xreallocarray(r->problems, r->n_problems + 1, sizeof(char *));
	r->problems[r->n_problems++] = buf_detach(&b, NULL);
}

/* The inventory file beside a cache store: "M" lines for members, "P"
 * lines for problems, fields tab-separated with \\, \t, \n, \r escaped. */
static void put_field(struct buf *b, const char *s)
{
	buf_addch(b, '\t');
	for (; *s; s++)
		switch (*s) {
		case '\\':
			buf_adds(b, "\\\\");
			break;
		case '\t':
			buf_adds(b, "\\t");
			break;
		case '\n':
			buf_adds(b, "\\n");
			break;
		case '\r':
			buf_adds(b, "\\r");
			break;
		default:
			buf_addch(b, *s);
		}
}

#define INVENTORY_MAGIC "heapsift report inventory 1\n"

static int write_inventory(const char *path, const struct report *r)
{
	struct buf b = BUF_INIT, tmp = BUF_INIT;
	size_t i;
	FILE *f;
	int ok;

	buf_adds(&b, INVENTORY_MAGIC);
	for (i = 0; i < r->n_members; i++) {
		const struct report_member *m = &r->members[i];
		char num[64];

		buf_addch(&b, 'M');
		put_field(&b, m->display);
		put_field(&b, m->kind);
		snprintf(num, sizeof(num), "%d", m->confidence);
		put_field(&b, num);
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)m->bytes);
		put_field(&b, num);
		put_field(&b, m->compression);
		put_field(&b, m->status);
		snprintf(num, sizeof(num), "%u", m->recordings);
		put_field(&b, num);
		put_field(&b, m->reason);
		buf_addch(&b, '\n');
	}
	for (i = 0; i < r->n_problems; i++) {
		buf_addch(&b, 'P');
		put_field(&b, r->problems[i]);
		buf_addch(&b, '\n');
	}
	buf_addf(&tmp, "%s.tmp%ld", path, (long)getpid());
	f = fopen(tmp.data, "wx");
	ok = f && fwrite(b.data, 1, b.len, f) == b.len;
	if (f && fclose(f) != 0)
		ok = 0;
	if (ok && rename(tmp.data, path) != 0)
		ok = 0;
	if (!ok)
		unlink(tmp.data);
	buf_release(&tmp);
	buf_release(&b);
	return ok ? 0 : -1;
}

/* The fields of one line, unescaped in place; returns how many. */
static size_t split_fields(char *line, char **field, size_t max)
{
	size_t n = 0;
	char *p = line, *out;

	while (n < max) {
		field[n++] = out = p;
		while (*p && *p != '\t') {
			if (*p == '\\' && p[1]) {
				p++;
				*out++ = *p == 't'   ? '\t'
					 : *p == 'n' ? '\n'
					 : *p == 'r' ? '\r'
						     : *p;
				p++;
			} else {
				*out++ = *p++;
			}
		}
		if (!*p) {
			*out = '\0';
			break;
		}
		*out = '\0';
		p++;
	}
	return n;
}

/* 0 read, -1 missing or not ours (then the inputs are read again). */
static int read_inventory(const char *path, struct report *r, uint64_t *warned)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f = fopen(path, "r");
	int ok = 0;

	if (!f)
		return -1;
	len = getline(&line, &cap, f);
	if (len > 0 && !strcmp(line, INVENTORY_MAGIC)) {
		ok = 1;
		while ((len = getline(&line, &cap, f)) > 0) {
			char *fl[9];
			size_t n;

			if (line[len - 1] == '\n')
				line[--len] = '\0';
			n = split_fields(line, fl, 9);
			if (!strcmp(fl[0], "M") && n == 9) {
				struct report_member *m;

				member_add(r, fl[1]);
				m = &r->members[r->n_members - 1];
				m->kind = xstrdup(fl[2]);
				m->confidence = atoi(fl[3]);
				m->bytes = strtoull(fl[4], NULL, 10);
				m->compression = xstrdup(fl[5]);
				m->status = xstrdup(fl[6]);
				m->recordings =
					(uint32_t)strtoul(fl[7], NULL, 10);
				m->reason = xstrdup(fl[8]);
				if (strcmp(m->status, "imported") &&
				    strcmp(m->status, "skipped"))
					(*warned)++;
			} else if (!strcmp(fl[0], "P") && n == 2) {
				r->problems = xreallocarray(r->problems,
							    r->n_problems + 1,
							    sizeof(char *));
				r->problems[r->n_problems++] = xstrdup(fl[1]);
				(*warned)++;
			} else {
				ok = 0;
				break;
			}
		}
	}
	free(line);
	fclose(f);
	return ok ? 0 : -1;
}

/* Walk the inputs, importing into a store at store_path (NULL: scan
 * only).  The exit status so far; *have_store when one was written. */
/* Another heapsift writes the cache store: said once, before waiting. */
static void say_waiting(void *ctx)
{
	cli_progress_done();
	fprintf(stderr,
		"heapsift report: waiting for another heapsift writing %s\n",
		(const char *)ctx);
}

static int gather(struct report *r, struct input_limits *lim, int n,
		  char **inputs, const char *store_path, bool *have_store,
		  uint64_t *warned)
{
	static const struct walk_ops ops = {inv_member, inv_problem};
	struct walk_stats stats = {0, 0, 0, 0};
	struct inventory iv;
	struct err e;
	int i, failed = 0;

	memset(&iv, 0, sizeof(iv));
	buf_init(&iv.warnings);
	iv.r = r;
	iv.w = store_path ? store_writer_new() : NULL;
	if (iv.w) {
		/* the samples go into the cache store's file as they come,
		 * where its folder can have a file without a name */
		char *copy = xstrdup(store_path);

		store_writer_stream(iv.w, dirname(copy));
		free(copy);
	}
	cli_intake_init(&iv.intake, "report");
	for (i = 0; i < n; i++) {
		cli_intake_begin(&iv.intake, inputs[i]);
		if (walk_input(inputs[i], lim, &ops, &iv, &stats) < 0)
			failed++;
		else if (cli_intake_end(&iv.intake))
			failed++;
	}
	cli_intake_release(&iv.intake);
	cli_progress_done();
	*have_store = false;
	err_init(&e);
	if (iv.w && iv.recordings) {
		int lock_fd = -1;

		/* another report or browse may be making the same cache
		 * store: they take turns, as imports do */
		if (store_lock(store_path, say_waiting, (void *)store_path,
			       &lock_fd, &e) < 0 ||
		    store_writer_commit(iv.w, store_path, &e) < 0) {
			cli_problem("report", "error", &e);
			failed++;
		} else {
			*have_store = true;
		}
		store_unlock(lock_fd);
	}
	if (iv.w)
		store_writer_free(iv.w);
	buf_release(&iv.warnings);
	*warned += iv.warned;
	return failed || stats.errors ? EXIT_ERROR : EXIT_OK;
}

/* --- the command --------------------------------------------------------------- */

static void print_rules(void)
{
	const struct finding_rule *r;

	for (r = finding_rule_table; r->name; r++)
		printf("%s\n  reads:    %s\n  fires:    %s\n  severity: %s\n"
		       "  means:    %s\n",
		       r->name, r->reads, r->fires, r->severity, r->text);
}

/* --- the baseline ----------------------------------------------------------- */

/* The two sides of report --base: the base's filters (the report's with
 * the recording or the window of --base in place of theirs), the new
 * side's, and how the report and the diff command name them. */
struct base_sides {
	struct view_filters base;
	struct query_options new_side;
	char *from; /* --base's FROM..TO, split */
	char *base_name, *new_name, *args;
};

/* " --NAME=VALUE" as one shell word, when value is set */
static void base_word(struct buf *out, const char *name, const char *value)
{
	struct buf w = BUF_INIT;

	if (!value)
		return;
	buf_addf(&w, "%s=%s", name, value);
	if (out->len)
		buf_addch(out, ' ');
	findings_shell_word(out, w.data);
	buf_release(&w);
}

static void base_sides_release(struct base_sides *b)
{
	free(b->from);
	free(b->base_name);
	free(b->new_name);
	free(b->args);
}

/*
 * --base=N or --base=FROM..TO (as browse takes it) against the open
 * store and the report's resolved filters f.  The new side is f's own
 * recording or window; without one, after a recording the next one (the
 * last one's: the one before), else the whole store.  0, or the exit
 * status after a message.
 */
static int base_resolve(struct store *s, const struct view_filters *f,
			const char *arg, struct base_sides *b)
{
	const char *dots = strstr(arg, "..");
	const struct store_recording *recs;
	struct buf bn = BUF_INIT, nn = BUF_INIT, args = BUF_INIT;
	uint32_t n_recs = 0;
	uint64_t n;
	struct err e;
	int rc;

	b->base = *f;
	b->base.q.from_ns = INT64_MIN;
	b->base.q.to_ns = INT64_MAX;
	if (dots) {
		b->from = xmemdup(arg, (size_t)(dots - arg));
		b->base.from = *b->from ? b->from : NULL;
		b->base.to = dots[2] ? dots + 2 : NULL;
		if (!b->base.from && !b->base.to)
			return cli_usage_error(
				"report", "--base: '%s' is an empty window",
				arg);
	} else if (cli_parse_count(arg, &n) && n <= UINT32_MAX) {
		b->base.q.recording = (int64_t)n;
	} else {
		return cli_usage_error("report",
				       "--base: '%s' is neither a recording "
				       "number nor a window FROM..TO",
				       arg);
	}
	rc = view_resolve("report", s, &b->base);
	if (rc)
		return rc;
	err_init(&e);
	if (store_recordings(s, &recs, &n_recs, &e) < 0) {
		view_error("report", &e);
		return EXIT_ERROR;
	}
	b->new_side = f->q;
	if (!dots && f->q.recording < 0 && !f->from && !f->to && n_recs > 1)
		b->new_side.recording = b->base.q.recording + 1 < n_recs
						? b->base.q.recording + 1
						: b->base.q.recording - 1;
	/* the names, and the options heapsift diff takes for them */
	if (dots) {
		buf_addf(&bn, "the window %s..%s",
			 b->base.from ? b->base.from : "",
			 b->base.to ? b->base.to : "");
		base_word(&args, "--base-from", b->base.from);
		base_word(&args, "--base-to", b->base.to);
	} else {
		buf_addf(&bn, "recording %lld", (long long)b->base.q.recording);
		buf_addf(&args, "--base-recording=%lld",
			 (long long)b->base.q.recording);
	}
	if (b->new_side.recording >= 0)
		buf_addf(&nn, "recording %lld",
			 (long long)b->new_side.recording);
	if (f->from || f->to)
		buf_addf(&nn, "%sthe window %s..%s", nn.len ? ", " : "",
			 f->from ? f->from : "", f->to ? f->to : "");
	if (!nn.len)
		buf_adds(&nn, "the whole store");
	if (b->new_side.recording >= 0 && f->q.recording < 0)
		buf_addf(&args, " --recording=%lld",
			 (long long)b->new_side.recording);
	b->base_name = buf_detach(&bn, NULL);
	b->new_name = buf_detach(&nn, NULL);
	b->args = buf_detach(&args, NULL);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	enum { OPT_FORMAT = OPT__VIEW_NEXT, OPT_FORCE, OPT_RULES, OPT_BASE };
	static const struct option opts[] = {
		{"format", required_argument, NULL, OPT_FORMAT},
		{"base", required_argument, NULL, OPT_BASE},
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, OPT_FORCE},
		{"rules", no_argument, NULL, OPT_RULES},
		{"help", no_argument, NULL, 'h'},
		VIEW_FILTER_OPTIONS,
		CLI_LIMIT_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	struct cli_output o = {NULL, CLI_OUTPUT_REPORT, NULL, false};
	enum report_format fmt = REPORT_TEXT;
	struct view_filters f;
	struct input_limits lim;
	struct report r;
	struct report_ctx ctx;
	struct buf fargs = BUF_INIT, store_arg = BUF_INIT, out = BUF_INIT,
		   title = BUF_INIT;
	struct store *s = NULL;
	struct query *q = NULL;
	char **inputs, *cached = NULL, *inv_path = NULL;
	const char *store_path = NULL, *base_arg = NULL;
	struct base_sides bs;
	bool have_store = false;
	uint64_t warned = 0;
	int c, n, i, status = EXIT_OK;
	struct err e;

	view_filters_init(&f);
	input_limits_default(&lim);
	memset(&r, 0, sizeof(r));
	memset(&bs, 0, sizeof(bs));
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		const struct option *op;

		switch (c) {
		case 'h':
			fputs(report_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_FORMAT:
			if (!report_format_parse(optarg, &fmt))
				return cli_usage_error("report",
						       "--format: '%s' is not "
						       "one of text, md, "
						       "html, json",
						       optarg);
			break;
		case 'o':
			o.path = optarg;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_RULES:
			print_rules();
			return cli_finish_output(EXIT_OK);
		case OPT_BASE:
			base_arg = optarg;
			break;
		case '?':
		case ':':
			return cli_getopt_error("report", c, argv);
		default:
			if (c >= OPT_MAX_MEMBER_SIZE && c < OPT__CLI_NEXT) {
				if (cli_limit_option("report", c, optarg, &lim))
					return EXIT_USAGE;
				break;
			}
			if (view_filter_option("report", c, optarg, &f))
				return EXIT_USAGE;
			/* the filters again, for the commands it prints */
			for (op = opts; op->name; op++)
				if (op->val == c) {
					struct buf w = BUF_INIT;

					buf_addf(&w, "--%s=%s", op->name,
						 optarg);
					buf_addch(&fargs, ' ');
					findings_shell_word(&fargs, w.data);
					buf_release(&w);
				}
		}
	}
	if (optind >= argc) {
		buf_release(&fargs);
		return cli_usage_error(
			"report", "give a store or the inputs to report on");
	}
	inputs = argv + optind;
	n = argc - optind;
	if (o.path && cli_output_check("report", &o, inputs, n)) {
		buf_release(&fargs);
		return EXIT_ERROR;
	}
	for (i = 0; i < n; i++) {
		const char *base = strrchr(inputs[i], '/');

		buf_addf(&title, "%s%s", i ? ", " : "",
			 base ? base + 1 : inputs[i]);
	}
	r.title = buf_detach(&title, NULL);
	r.version = xstrdup(HS_VERSION);
	r.filters = xstrdup(fargs.len ? fargs.data + 1 : "");
	if (n == 1 && cli_is_store(inputs[0])) {
		r.from_store = true;
		store_path = inputs[0];
		have_store = true;
	} else {
		struct buf ip = BUF_INIT;
		int rc;

		cached = cli_cache_path("report", n, inputs);
		if (!cached) {
			status = EXIT_ERROR;
			goto done;
		}
		buf_addf(&ip, "%s.inventory", cached);
		inv_path = buf_detach(&ip, NULL);
		/* a link, fifo or another's file in the cache is refused
		 * (cli_cache_check); a store that is ours but not one, or
		 * damaged, is made again */
		rc = cli_cache_check("report", cached);
		if (rc >= 0) {
			int irc = cli_cache_check("report", inv_path);

			rc = irc < 0 ? irc : rc && irc;
		}
		if (rc < 0) {
			status = EXIT_ERROR;
			goto done;
		}
		if (rc > 0 && cli_is_store(cached) &&
		    read_inventory(inv_path, &r, &warned) == 0) {
			fprintf(stderr, "heapsift report: using %s\n", cached);
			have_store = true;
		} else {
			/* what a cache store cannot tell (the members and
			 * the reasons) is found again with the import */
			fprintf(stderr, "heapsift report: importing into %s\n",
				cached);
			status = gather(&r, &lim, n, inputs, cached,
					&have_store, &warned);
			if (write_inventory(inv_path, &r) < 0)
				fprintf(stderr,
					"heapsift report: warning: cannot "
					"write "
					"%s: %s\n",
					inv_path, strerror(errno));
			/* an input not read is said again next time: the
			 * inventory does not keep the exit status (the
			 * status file does, for the other commands) */
			if (!have_store || status == EXIT_ERROR)
				unlink(inv_path);
			if (have_store)
				cli_cache_keep_status("report", cached,
						      status == EXIT_OK &&
								      warned
							      ? EXIT_WARNED
							      : status);
		}
		store_path = cached;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.r = &r;
	if (have_store) {
		char *fake[3] = {(char *)"report", (char *)store_path, NULL};
		int rc;

		findings_shell_word(&store_arg, store_path);
		r.store_path = xstrdup(store_path);
		optind = 1;
		rc = view_open("report", 2, fake, &f, &s, &q);
		if (rc) {
			status = rc;
			goto done;
		}
		query_free(q);
		ctx.s = s;
		ctx.filters = &f.q;
		ctx.store_arg = store_arg.data;
		ctx.filter_args = fargs.data;
		if (base_arg) {
			rc = base_resolve(s, &f, base_arg, &bs);
			if (rc) {
				status = rc;
				goto done;
			}
			ctx.base = &bs.base.q;
			ctx.base_new = &bs.new_side;
			ctx.base_name = bs.base_name;
			ctx.new_name = bs.new_name;
			ctx.base_args = bs.args;
		}
		err_init(&e);
		if (report_build(&ctx, &e) < 0) {
			view_error("report", &e);
			status = EXIT_ERROR;
			goto done;
		}
	}
	report_render(&r, fmt, &out);
	if (o.path) {
		if (cli_write_file("report", o.path, out.data, out.len) < 0)
			status = EXIT_ERROR;
		else
			fprintf(stderr,
				"heapsift report: wrote %s (%zu "
				"finding%s)\n",
				o.path, r.found.n_findings,
				r.found.n_findings == 1 ? "" : "s");
	} else {
		fwrite(out.data, 1, out.len, stdout);
	}
	if (status == EXIT_OK && warned)
		status = EXIT_WARNED;
done:
	if (s)
		store_close(s);
	base_sides_release(&bs);
	report_release(&r);
	buf_release(&fargs);
	buf_release(&store_arg);
	buf_release(&out);
	free(cached);
	free(inv_path);
	return cli_finish_output(status);
}
