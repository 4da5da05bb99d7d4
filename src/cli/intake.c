/*
 * The commands' side of the ingest pipeline (intake.h): import's words
 * for what the pipeline finds, and its exit status.
 */
#include "cli/intake.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "importers/importer.h"
#include "input/walk.h"
#include "util/err.h"
#include "util/term.h"

/* --- heapsift import's words --------------------------------------------- */

static void say_problem(void *ctx, enum ingest_problem from,
			enum ingest_severity sev, const struct err *e)
{
	const struct cli_ingest *c = ctx;

	/* a writer that failed says why once, at the end */
	if (from == INGEST_STORE_STOPPED)
		return;
	cli_problem(c->cmd, ingest_severity_name(sev), e);
}

/* A member recognised that no importer imports yet, and a recording
 * already in the store (append: skipped, a warning). */
static void say_member(void *ctx, const struct ingest_member *im)
{
	const struct cli_ingest *c = ctx;
	const char *display = im->m->display;

	if (im->pr.ops && !im->pr.ops->import) {
		cli_progress_done();
		term_fprintf(stderr,
			     "heapsift %s: note: %s: %s data is not "
			     "importable yet; skipped\n",
			     c->cmd, display, import_kind_name(im->pr.kind));
	}
	if (!im->duplicate)
		return;
	cli_progress_done();
	if (im->duplicate_source)
		term_fprintf(stderr,
			     "heapsift %s: warning: %s: already in the store "
			     "as recording %u (%s); skipped\n",
			     c->cmd, display, im->duplicate_of,
			     im->duplicate_source);
	else
		term_fprintf(stderr,
			     "heapsift %s: warning: %s: already in the store "
			     "as recording %u; skipped\n",
			     c->cmd, display, im->duplicate_of);
}

void cli_ingest_progress(void *ctx, const struct ingest_progress *p)
{
	(void)ctx;
	switch (p->stage) {
	case INGEST_IMPORTING:
		cli_progress("importing %s", p->display);
		break;
	case INGEST_IMPORTED:
		cli_progress("imported %s: %llu samples so far", p->display,
			     (unsigned long long)p->samples);
		break;
	case INGEST_READING:
		cli_progress("reading %s: %llu MiB", p->display,
			     (unsigned long long)(p->offset >> 20));
		break;
	case INGEST_WALKED:
		cli_progress_done();
		break;
	}
}

void cli_ingest_waiting(void *ctx)
{
	const struct cli_ingest *c = ctx;

	cli_progress_done();
	term_fprintf(stderr,
		     "heapsift %s: waiting for another heapsift writing %s\n",
		     c->cmd, c->out);
}

static const struct ingest_ops import_ops = {
	NULL, say_member, say_problem, cli_ingest_progress, cli_ingest_waiting,
};

/* How the run ended, said; EXIT_OK or the failure's status. */
static int say_outcome(const struct cli_ingest *c,
		       const struct ingest_result *r, const struct err *e,
		       FILE *summary)
{
	switch (r->outcome) {
	case INGEST_LOCK_FAILED:
		cli_problem(c->cmd, "error", e);
		return EXIT_ERROR;
	case INGEST_OPEN_FAILED:
	case INGEST_WRITE_FAILED:
		cli_problem(c->cmd, "error", e);
		/* the spill's and the folder's errors do not name it */
		term_fprintf(stderr, "heapsift %s: %s not written\n", c->cmd,
			     c->out);
		return EXIT_ERROR;
	case INGEST_UNCHANGED:
		term_fprintf(stderr,
			     "heapsift %s: every recording is already in %s; "
			     "not rewritten\n",
			     c->cmd, c->out);
		return EXIT_OK; /* the warnings make it 3 */
	case INGEST_EMPTY:
		term_fprintf(stderr,
			     "heapsift %s: error: no recording could "
			     "be imported from the inputs; %s not written\n",
			     c->cmd, c->out);
		return EXIT_ERROR;
	case INGEST_WRITTEN:
		break;
	}
	term_fprintf(summary, "%s: %u recording%s (%llu new), %llu samples\n",
		     c->out, r->recordings, r->recordings == 1 ? "" : "s",
		     (unsigned long long)r->added,
		     (unsigned long long)r->samples);
	return EXIT_OK;
}

int cli_import(const struct cli_import_opts *o, int n, char **inputs)
{
	struct ingest_options io = {o->out, o->append, cli_store_jobs(o->jobs),
				    o->lim, false};
	struct cli_ingest c = {o->cmd, o->out};
	struct ingest_result r;
	struct err e;
	int rc;

	err_init(&e);
	ingest_run(&io, n, inputs, &import_ops, &c, &r, &e);
	rc = say_outcome(&c, &r, &e, o->summary ? o->summary : stdout);
	if (rc == EXIT_OK && (r.inputs_failed || r.walk_errors))
		rc = EXIT_ERROR;
	if (rc == EXIT_OK && (r.walk_warnings || r.warnings))
		rc = EXIT_WARNED;
	return rc;
}

/* --- the rule, for a command that walks its own way ------------------------ */

static void intake_say(void *ctx, enum ingest_severity sev, const struct err *e)
{
	const struct cli_intake *t = ctx;

	cli_problem(t->cmd, ingest_severity_name(sev), e);
}

void cli_intake_init_kind(struct cli_intake *t, const char *cmd,
			  const char *one, const char *many, const char *reads)
{
	t->cmd = cmd;
	ingest_intake_init_kind(&t->rule, one, many, reads, intake_say, t);
}

void cli_intake_init(struct cli_intake *t, const char *cmd)
{
	t->cmd = cmd;
	ingest_intake_init(&t->rule, intake_say, t);
}

void cli_intake_release(struct cli_intake *t)
{
	ingest_intake_release(&t->rule);
}

void cli_intake_begin(struct cli_intake *t, const char *input)
{
	ingest_intake_begin(&t->rule, input);
}

void cli_intake_member(struct cli_intake *t, const struct member *m,
		       bool recognised, size_t bytes)
{
	ingest_intake_member(&t->rule, m, recognised, bytes);
}

bool cli_intake_refused(struct cli_intake *t, const struct member *m,
			const struct err *e)
{
	return ingest_intake_refused(&t->rule, m, e);
}

bool cli_intake_end(struct cli_intake *t)
{
	return ingest_intake_end(&t->rule);
}
