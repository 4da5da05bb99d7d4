/*
 * heapsift report: the triage report (docs/report.md).  Given inputs, it
 * imports them into the cache store browse uses through the ingest
 * pipeline (ingest/ingest.h), listing every member as scan does (its
 * kind and its fate), and keeps that inventory beside the store
 * ("STORE.inventory") so that a second report reads neither again; given
 * a store, it reports on that.  The findings come from the
 * rules in src/findings/rules.c, through the query layer; this file only
 * gathers the inventory, runs them and writes the chosen format.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "cli/intake.h"
#include "cli/output.h"
#include "cli/cli_view.h"
#include "importers/importer.h"
#include "ingest/ingest.h"
#include "input/input.h"
#include "input/walk.h"
#include "report/report.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/newfile.h"
#include "util/term.h"
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

/* What report hears from the ingest pipeline, as each member goes by. */
struct inventory {
	struct cli_ingest cli; /* "report", the cache store */
	struct report *r;
	struct buf warnings; /* the current member's importer warnings */
	struct buf notes;    /* ... and its notes: events nobody read */
	char *refused;	     /* ... the message of a named input refused */
	bool unfinished;
	bool store_stopped; /* ... its import stopped by the store's writer */
	bool *stopped;	 /* [r->n_members]: store_stopped, member by member */
	uint64_t warned; /* members with damage, limits, errors */
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

static void inv_warn(struct inventory *iv, const struct err *e)
{
	cli_problem("report", "warning", e);
	if (iv->warnings.len)
		buf_adds(&iv->warnings, "; ");
	buf_adds(&iv->warnings, e->msg);
	if (strstr(e->msg, "still being written") ||
	    strstr(e->msg, "unfinished"))
		iv->unfinished = true;
}

static void inv_begin(void *ctx, const struct member *mb)
{
	struct inventory *iv = ctx;

	member_add(iv->r, mb->display);
	iv->stopped = xreallocarray(iv->stopped, iv->r->n_members,
				    sizeof(*iv->stopped));
	iv->stopped[iv->r->n_members - 1] = false;
	buf_reset(&iv->warnings);
	buf_reset(&iv->notes);
	iv->unfinished = false;
	iv->store_stopped = false;
	free(iv->refused);
	iv->refused = NULL;
}

/* A member's status and its reason, from what its import and its
 * reading to the end said. */
static void member_status(struct inventory *iv, struct report_member *m,
			  const struct ingest_member *im)
{
	const struct err *ie = input_error(im->m->in);
	const struct probe_result *pr = &im->pr;

	if (iv->refused) {
		/* not read: an error (ingest.h), listed as unsupported
		 * with its reason */
		m->status = xstrdup("unsupported");
		buf_adds(&iv->warnings, iv->refused);
	} else if (iv->store_stopped) {
		/* store_failed() gives the reason: the cache store's */
		m->status = xstrdup("error");
	} else if (ie) {
		m->status = xstrdup(cli_member_status(ie, 1));
		if (iv->warnings.len)
			buf_adds(&iv->warnings, "; ");
		buf_adds(&iv->warnings, ie->msg);
	} else if (iv->unfinished) {
		m->status = xstrdup("unfinished");
	} else if (iv->warnings.len) {
		m->status = xstrdup("damaged");
	} else if (!pr->ops) {
		m->status = xstrdup("skipped");
		buf_adds(&iv->warnings,
			 m->bytes ? "no importer recognises it" : "empty");
	} else if (!pr->ops->import) {
		m->status = xstrdup("skipped");
		buf_addf(&iv->warnings, "%s data is not importable yet",
			 import_kind_name(pr->kind));
	} else if (m->recordings) {
		m->status = xstrdup("imported");
	} else {
		m->status = xstrdup("skipped");
		buf_adds(&iv->warnings, "nothing in it could be imported");
	}
}

static void inv_done(void *ctx, const struct ingest_member *im)
{
	struct inventory *iv = ctx;
	struct report_member *m = &iv->r->members[iv->r->n_members - 1];

	m->kind = xstrdup(import_kind_name(im->pr.kind));
	m->confidence = im->pr.score;
	m->compression = xstrdup(im->m->compression);
	m->recordings = im->recordings;
	iv->stopped[iv->r->n_members - 1] = iv->store_stopped;
	/* read to the end (read_whole): the size, and damage, are known */
	m->bytes = input_offset(im->m->in);
	member_status(iv, m, im);
	if (strcmp(m->status, "imported") && strcmp(m->status, "skipped"))
		iv->warned++;
	/* notes say what was not read; they are no damage (the status) */
	if (iv->notes.len) {
		if (iv->warnings.len)
			buf_adds(&iv->warnings, "; ");
		buf_add(&iv->warnings, iv->notes.data, iv->notes.len);
	}
	m->reason = xstrdup(iv->warnings.data);
}

/* The walker's problem: a member's own goes with it; the rest are the
 * input's. */
static void inv_walk_problem(struct inventory *iv, enum ingest_severity sev,
			     const struct err *e)
{
	struct report *r = iv->r;
	struct buf b = BUF_INIT;
	size_t i;

	cli_problem("report", ingest_severity_name(sev), e);
	iv->warned++;
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

static void inv_problem(void *ctx, enum ingest_problem from,
			enum ingest_severity sev, const struct err *e)
{
	struct inventory *iv = ctx;

	switch (from) {
	case INGEST_FROM_WALK:
		inv_walk_problem(iv, sev, e);
		break;
	case INGEST_FROM_INTAKE:
		cli_problem("report", ingest_severity_name(sev), e);
		break;
	case INGEST_IMPORT_REFUSED:
		cli_problem("report", "error", e);
		free(iv->refused);
		iv->refused = xstrdup(e->msg);
		break;
	case INGEST_FROM_IMPORTER:
		if (sev == INGEST_NOTE) {
			cli_problem("report", "note", e);
			if (iv->notes.len)
				buf_adds(&iv->notes, "; ");
			buf_adds(&iv->notes, e->msg);
			break;
		}
		inv_warn(iv, e);
		break;
	case INGEST_IMPORT_STOPPED:
		inv_warn(iv, e);
		break;
	case INGEST_STORE_STOPPED:
		/* no damage of the member's: the writer failed (its spill:
		 * a full disk), which the run's end says once, and gather()
		 * puts beside every member it stopped or kept from the store */
		iv->store_stopped = true;
		break;
	}
}

/* import's progress lines, but for the samples so far: what the member
 * holds is read to its end next */
static void inv_progress(void *ctx, const struct ingest_progress *p)
{
	if (p->stage != INGEST_IMPORTED)
		cli_ingest_progress(ctx, p);
}

static void inv_waiting(void *ctx)
{
	struct inventory *iv = ctx;

	cli_ingest_waiting(&iv->cli);
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
	struct buf b = BUF_INIT;
	struct newfile nf;
	size_t i, done;
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
	/* newfile.h: nothing left behind by a signal */
	ok = newfile_open(&nf, path, 0666) == 0;
	for (done = 0; ok && done < b.len;) {
		ssize_t n = write(nf.fd, b.data + done, b.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ok = 0;
		else
			done += (size_t)n;
	}
	if (!ok)
		newfile_abandon(&nf);
	else
		ok = newfile_commit(&nf, path) == 0;
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

/*
 * The cache store at path could not be written (e: a full disk, an I/O
 * error): no member's recordings were kept, whatever its import did.
 * Every member that was imported, or whose import the writer stopped,
 * is an error with that reason, and the report says it where it would
 * have said "Nothing could be imported" (issue 39: the inventory said
 * "imported" beside "Nothing could be imported", and neither said the
 * disk was full).
 */
static void store_failed(struct inventory *iv, const char *path,
			 const struct err *e)
{
	struct report *r = iv->r;
	struct buf why = BUF_INIT, b = BUF_INIT;
	size_t i;

	buf_addf(&why, "the cache store %s could not be written: ", path);
	err_format(e, &why);
	for (i = 0; i < r->n_members; i++) {
		struct report_member *m = &r->members[i];

		if (!m->status ||
		    (strcmp(m->status, "imported") && !iv->stopped[i]))
			continue;
		free(m->status);
		m->status = xstrdup("error");
		m->recordings = 0;
		buf_reset(&b);
		buf_addf(&b, "read, but not stored: %s", why.data);
		if (m->reason[0])
			buf_addf(&b, "; %s", m->reason);
		free(m->reason);
		m->reason = buf_detach(&b, NULL);
	}
	r->store_error = buf_detach(&why, NULL);
	buf_release(&b);
}

/*
 * Walk the inputs into the cache store at store_path (the ingest
 * pipeline, every member read to its end), listing each member in r.
 * The exit status so far; *have_store when the store was written.
 */
static int gather(struct report *r, const struct input_limits *lim, int n,
		  char **inputs, const char *store_path, bool *have_store,
		  uint64_t *warned)
{
	static const struct ingest_ops ops = {
		inv_begin, inv_done, inv_problem, inv_progress, inv_waiting,
	};
	struct ingest_options io = {store_path, false, cli_store_jobs(0), lim,
				    true};
	struct ingest_result res;
	struct inventory iv;
	struct err e;
	uint64_t failed;

	memset(&iv, 0, sizeof(iv));
	iv.cli.cmd = "report";
	iv.cli.out = store_path;
	buf_init(&iv.warnings);
	buf_init(&iv.notes);
	iv.r = r;
	err_init(&e);
	ingest_run(&io, n, inputs, &ops, &iv, &res, &e);
	failed = res.inputs_failed;
	/* nothing imported is no error here: the inventory says why */
	if (res.outcome == INGEST_LOCK_FAILED ||
	    res.outcome == INGEST_WRITE_FAILED) {
		cli_problem("report", "error", &e);
		failed++;
	}
	if (res.outcome == INGEST_WRITE_FAILED)
		store_failed(&iv, store_path, &e);
	free(iv.stopped);
	*have_store = res.outcome == INGEST_WRITTEN;
	buf_release(&iv.warnings);
	buf_release(&iv.notes);
	free(iv.refused);
	*warned += iv.warned;
	return failed || res.walk_errors ? EXIT_ERROR : EXIT_OK;
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

/* --- the command --------------------------------------------------------------- */

static void print_rules(void)
{
	const struct finding_rule *r;

	for (r = finding_rule_table; r->name; r++)
		term_fprintf(
			stdout,
			"%s\n  reads:    %s\n  fires:    %s\n  severity: %s\n"
			"  means:    %s\n",
			r->name, r->reads, r->fires, r->severity, r->text);
}

/* The command line, parsed. */
struct report_opts {
	struct cli_output o;
	enum report_format fmt;
	struct view_filters f;
	struct input_limits lim;
	struct buf fargs; /* the filters again, for the commands it prints */
	const char *base_arg;
	char **inputs; /* the operands, in argv */
	int n;
};

/* report_parse() returns PARSED when the command is to run */
#define PARSED (-1)

/* " --NAME=VALUE" of option c (a filter), as one shell word */
static void filter_word(struct buf *fargs, const struct option *opts, int c,
			const char *arg)
{
	const struct option *op;

	for (op = opts; op->name; op++)
		if (op->val == c) {
			struct buf w = BUF_INIT;

			buf_addf(&w, "--%s=%s", op->name, arg);
			buf_addch(fargs, ' ');
			findings_shell_word(fargs, w.data);
			buf_release(&w);
		}
}

enum { OPT_FORMAT = OPT__VIEW_NEXT, OPT_FORCE, OPT_RULES, OPT_BASE };
const struct option report_option_table[] = {
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
const struct cli_option_words report_word_table[] = {
	{"format", report_format_word},
	{"output", NULL},
	{"base", NULL},
	VIEW_FILTER_WORDS,
	{NULL, NULL},
};

/* The options into *o (o->fargs to release in every case): PARSED, or
 * the exit status (--help, --rules, a usage error). */
static int report_parse(int argc, char **argv, struct report_opts *o)
{
	struct cli_output out = {NULL, CLI_OUTPUT_REPORT, NULL, false};
	int c;

	memset(o, 0, sizeof(*o));
	o->o = out;
	o->fmt = REPORT_TEXT;
	buf_init(&o->fargs);
	view_filters_init(&o->f);
	input_limits_default(&o->lim);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":ho:", report_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(report_help, stdout);
			return cli_finish_output(EXIT_OK);
		case OPT_FORMAT:
			if (!report_format_parse(optarg, &o->fmt))
				return cli_usage_error("report",
						       "--format: '%s' is not "
						       "one of text, md, "
						       "html, json",
						       optarg);
			break;
		case 'o':
			if (cli_output_arg("report", optarg,
					   "the file to write, -o FILE (or "
					   "no -o: standard output)"))
				return EXIT_USAGE;
			o->o.path = optarg;
			break;
		case OPT_FORCE:
			o->o.force = true;
			break;
		case OPT_RULES:
			print_rules();
			return cli_finish_output(EXIT_OK);
		case OPT_BASE:
			o->base_arg = optarg;
			break;
		case '?':
		case ':':
			return cli_getopt_error("report", c, argv);
		default:
			if (c >= OPT_MAX_MEMBER_SIZE && c < OPT__CLI_NEXT) {
				if (cli_limit_option("report", c, optarg,
						     &o->lim))
					return EXIT_USAGE;
				break;
			}
			if (view_filter_option("report", c, optarg, &o->f))
				return EXIT_USAGE;
			filter_word(&o->fargs, report_option_table, c, optarg);
		}
	}
	if (optind >= argc)
		return cli_usage_error(
			"report", "give a store or the inputs to report on");
	o->inputs = argv + optind;
	o->n = argc - optind;
	return PARSED;
}

/* The report's title (the inputs' base names), version and filters. */
static void report_head(struct report *r, const struct report_opts *o)
{
	struct buf title = BUF_INIT;
	int i;

	for (i = 0; i < o->n; i++) {
		const char *base = strrchr(o->inputs[i], '/');

		buf_addf(&title, "%s%s", i ? ", " : "",
			 base ? base + 1 : o->inputs[i]);
	}
	r->title = buf_detach(&title, NULL);
	r->version = xstrdup(HS_VERSION);
	r->filters = xstrdup(o->fargs.len ? o->fargs.data + 1 : "");
}

/*
 * The inputs' cache store (*cached, malloc'ed; NULL after a message when
 * there is none to use) and r's inventory: read from beside a cache
 * store made before, else gathered by importing the inputs again.
 * *have_store when the store is there to report on; the exit status so
 * far.
 */
static int report_inventory(const struct report_opts *o, struct report *r,
			    char **cached, bool *have_store, uint64_t *warned)
{
	struct buf ip = BUF_INIT;
	char *inv_path;
	int rc, status = EXIT_OK;

	*cached = cli_cache_path("report", o->n, o->inputs);
	if (!*cached)
		return EXIT_ERROR;
	buf_addf(&ip, "%s.inventory", *cached);
	inv_path = buf_detach(&ip, NULL);
	/* a link, fifo or another's file in the cache is refused
	 * (cli_cache_check); a store that is ours but not one, or
	 * damaged, is made again */
	rc = cli_cache_check("report", *cached);
	if (rc >= 0) {
		int irc = cli_cache_check("report", inv_path);

		rc = irc < 0 ? irc : rc && irc;
	}
	if (rc < 0) {
		/* nothing to report on */
		free(*cached);
		*cached = NULL;
		status = EXIT_ERROR;
	} else if (rc > 0 && cli_is_store(*cached) &&
		   read_inventory(inv_path, r, warned) == 0) {
		term_fprintf(stderr, "heapsift report: using %s\n", *cached);
		*have_store = true;
	} else {
		/* what a cache store cannot tell (the members and the
		 * reasons) is found again with the import */
		term_fprintf(stderr, "heapsift report: importing into %s\n",
			     *cached);
		status = gather(r, &o->lim, o->n, o->inputs, *cached,
				have_store, warned);
		if (write_inventory(inv_path, r) < 0)
			term_fprintf(stderr,
				     "heapsift report: warning: cannot write "
				     "%s: %s\n",
				     inv_path, strerror(errno));
		/* an input not read is said again next time: the inventory
		 * does not keep the exit status (the status file does, for
		 * the other commands) */
		if (!*have_store || status == EXIT_ERROR)
			unlink(inv_path);
		if (*have_store)
			cli_cache_keep_status("report", *cached,
					      status == EXIT_OK && *warned
						      ? EXIT_WARNED
						      : status);
	}
	free(inv_path);
	return status;
}

/* What report_analyse() opens and makes, released by analysis_release() */
struct analysis {
	struct store *s;
	struct base_sides bs;
	struct buf store_arg, diff_arg;
};

static void analysis_release(struct analysis *a)
{
	if (a->s)
		store_close(a->s);
	base_sides_release(&a->bs);
	buf_release(&a->store_arg);
	buf_release(&a->diff_arg);
}

/*
 * What the commands the report prints read (report_ctx's store_arg and
 * diff_arg), as shell words: the store given, or else the inputs as
 * given, which the case's reader has too (each command imports them into
 * the cache store the report used, or reuses it: the recordings' numbers
 * are the same); an input that begins with '-' gets "./" before it, so
 * that no command takes it for an option.  heapsift diff takes one
 * operand a side, so it names the cache store where there were several
 * inputs.
 */
static void command_operands(const struct report_opts *o,
			     const struct report *r, const char *store_path,
			     struct analysis *a)
{
	int i;

	if (r->from_store || o->n < 1) {
		findings_shell_word(&a->store_arg, store_path);
		findings_shell_word(&a->diff_arg, store_path);
		return;
	}
	for (i = 0; i < o->n; i++) {
		struct buf w = BUF_INIT;

		buf_addf(&w, "%s%s", o->inputs[i][0] == '-' ? "./" : "",
			 o->inputs[i]);
		if (i)
			buf_addch(&a->store_arg, ' ');
		findings_shell_word(&a->store_arg, w.data);
		buf_release(&w);
	}
	if (o->n == 1)
		buf_add(&a->diff_arg, a->store_arg.data, a->store_arg.len);
	else
		findings_shell_word(&a->diff_arg, store_path);
}

/* The findings on the store at store_path, into r: 0, or the exit
 * status after a message. */
static int report_analyse(struct report_opts *o, struct report *r,
			  const char *store_path, struct analysis *a)
{
	char *operand[1] = {(char *)store_path};
	struct report_ctx ctx;
	struct query *q = NULL;
	struct err e;
	int rc;

	command_operands(o, r, store_path, a);
	r->store_path = xstrdup(store_path);
	rc = view_open_operands("report", 1, operand, &o->f, &a->s, &q);
	if (rc)
		return rc;
	query_free(q);
	memset(&ctx, 0, sizeof(ctx));
	ctx.r = r;
	ctx.s = a->s;
	ctx.filters = &o->f.q;
	ctx.store_arg = a->store_arg.data;
	ctx.diff_arg = a->diff_arg.data;
	ctx.filter_args = o->fargs.data;
	if (o->base_arg) {
		rc = base_resolve(a->s, &o->f, o->base_arg, &a->bs);
		if (rc)
			return rc;
		ctx.base = &a->bs.base.q;
		ctx.base_new = &a->bs.new_side;
		ctx.base_name = a->bs.base_name;
		ctx.new_name = a->bs.new_name;
		ctx.base_args = a->bs.args;
	}
	err_init(&e);
	if (report_build(&ctx, &e) < 0) {
		view_error("report", &e);
		return EXIT_ERROR;
	}
	return 0;
}

/* The report in its format, to -o FILE or standard output: 0, or
 * EXIT_ERROR after a message. */
static int report_write(const struct report_opts *o, struct report *r)
{
	struct buf out = BUF_INIT;
	int rc = 0;

	report_render(r, o->fmt, &out);
	if (o->o.path) {
		if (cli_write_file("report", o->o.path, out.data, out.len) < 0)
			rc = EXIT_ERROR;
		else
			term_fprintf(stderr,
				     "heapsift report: wrote %s (%zu "
				     "finding%s)\n",
				     o->o.path, r->found.n_findings,
				     r->found.n_findings == 1 ? "" : "s");
	} else {
		fwrite(out.data, 1, out.len, stdout);
	}
	buf_release(&out);
	return rc;
}

/* The report on what was parsed into o: the exit status. */
static int report_run(struct report_opts *o)
{
	struct report r;
	struct analysis a;
	char *cached = NULL;
	const char *store_path;
	bool have_store = false;
	uint64_t warned = 0;
	int rc, status = EXIT_OK;

	memset(&r, 0, sizeof(r));
	memset(&a, 0, sizeof(a));
	buf_init(&a.store_arg);
	buf_init(&a.diff_arg);
	report_head(&r, o);
	if (o->n == 1 && cli_is_store(o->inputs[0])) {
		r.from_store = true;
		store_path = o->inputs[0];
		have_store = true;
	} else {
		status = report_inventory(o, &r, &cached, &have_store, &warned);
		if (!cached)
			goto done;
		store_path = cached;
	}
	if (have_store) {
		rc = report_analyse(o, &r, store_path, &a);
		if (rc) {
			status = rc;
			goto done;
		}
	}
	if (report_write(o, &r))
		status = EXIT_ERROR;
	if (status == EXIT_OK && warned)
		status = EXIT_WARNED;
done:
	analysis_release(&a);
	report_release(&r);
	free(cached);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int rc = report_parse(argc, argv, &o);

	if (rc != PARSED) {
		buf_release(&o.fargs);
		return rc;
	}
	if (o.o.path && cli_output_check("report", &o.o, o.inputs, o.n))
		rc = EXIT_ERROR;
	else
		rc = cli_finish_output(report_run(&o));
	buf_release(&o.fargs);
	return rc;
}
