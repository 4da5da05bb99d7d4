/*
 * The ingest pipeline (ingest.h): the store locked, its writer made, and
 * every input walked, each member probed, imported and checked for a
 * duplicate, then the store committed.  One struct run holds what the
 * walk's callbacks share.
 */
#include "ingest/ingest.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "importers/importer.h"
#include "input/input.h"
#include "input/walk.h"
#include "store/store.h"
#include "util/newfile.h"
#include "util/xalloc.h"

struct run {
	const struct ingest_options *o;
	const struct ingest_ops *ops;
	void *ctx;
	struct ingest_result *r;
	struct ingest_intake intake;
	struct store_writer *w;
	struct store *old; /* append: the store, for duplicates' names */
	struct walk_stats stats;
};

static void progress(struct run *run, enum ingest_stage stage,
		     const char *display)
{
	struct ingest_progress p = {stage, display, 0, 0};

	if (!run->ops->progress)
		return;
	if (stage == INGEST_IMPORTED)
		p.samples = store_writer_n_samples(run->w);
	run->ops->progress(run->ctx, &p);
}

static void problem(struct run *run, enum ingest_problem from,
		    enum ingest_severity sev, const struct err *e)
{
	run->ops->problem(run->ctx, from, sev, e);
}

/* The rule's messages, and the walker's problems, go to the caller. */
static void intake_say(void *ctx, enum ingest_severity sev, const struct err *e)
{
	problem(ctx, INGEST_FROM_INTAKE, sev, e);
}

static void walk_problem(void *ctx, enum problem_severity sev,
			 const struct err *e)
{
	problem(ctx, INGEST_FROM_WALK,
		sev == PROBLEM_ERROR ? INGEST_ERROR : INGEST_WARNING, e);
}

static void import_warn(void *ctx, const struct err *e)
{
	struct run *run = ctx;

	if (e->code == ERR_NOT_READ) { /* nothing is wrong: a note */
		problem(run, INGEST_FROM_IMPORTER, INGEST_NOTE, e);
		return;
	}
	run->r->warnings++;
	problem(run, INGEST_FROM_IMPORTER, INGEST_WARNING, e);
}

/* An import that stopped: the writer's failure (said once, at the end),
 * a named input refused (the rule's), or damage it could not read past. */
static void import_stopped(struct run *run, const struct member *m,
			   uint32_t before, struct err *e)
{
	err_source(e, m->display);
	if (store_writer_failed(run->w, NULL)) {
		problem(run, INGEST_STORE_STOPPED, INGEST_WARNING, e);
	} else if (store_writer_n_recordings(run->w) == before &&
		   ingest_intake_refused(&run->intake, m, e)) {
		problem(run, INGEST_IMPORT_REFUSED, INGEST_ERROR, e);
	} else {
		run->r->warnings++;
		problem(run, INGEST_IMPORT_STOPPED, INGEST_WARNING, e);
	}
}

/* A recording append found already in the store: dropped by the writer,
 * a warning (done, but not everything given was added). */
static void note_duplicate(struct run *run, struct ingest_member *im,
			   uint32_t last)
{
	const struct store_recording *recs;
	uint32_t n = 0;
	struct err e;

	run->r->duplicates++;
	run->r->warnings++;
	im->duplicate = true;
	im->duplicate_of = last;
	err_init(&e);
	if (run->old && store_recordings(run->old, &recs, &n, &e) == 0 &&
	    last < n)
		im->duplicate_source = store_str(run->old, recs[last].source);
}

static void import_member(struct run *run, struct ingest_member *im)
{
	const struct member *m = im->m;
	struct import_env env = {m->display, import_warn, run, 0, run->o->jobs};
	uint32_t before = store_writer_n_recordings(run->w), last;
	uint32_t dups = store_writer_n_duplicates(run->w, NULL);
	struct err e;

	progress(run, INGEST_IMPORTING, m->display);
	err_init(&e);
	if (im->pr.ops->import(m->in, store_writer_sink(run->w), &env, &e) < 0)
		import_stopped(run, m, before, &e);
	im->recordings = store_writer_n_recordings(run->w) - before;
	run->r->added += im->recordings;
	if (store_writer_n_duplicates(run->w, &last) != dups)
		note_duplicate(run, im, last);
}

/* read_whole: the rest of the member, for its size and its damage */
static void read_rest(struct run *run, const struct member *m)
{
	uint64_t skipped;

	for (;;) {
		int rc = input_skip(m->in, 16 << 20, &skipped);

		if (rc < 0 || !skipped)
			break;
		if (run->ops->progress) {
			struct ingest_progress p = {INGEST_READING, m->display,
						    0, input_offset(m->in)};

			run->ops->progress(run->ctx, &p);
		}
	}
}

static int walk_member(void *ctx, const struct member *m)
{
	struct run *run = ctx;
	struct ingest_member im;
	const unsigned char *p = NULL;
	size_t avail;
	bool imports;

	memset(&im, 0, sizeof(im));
	im.m = m;
	if (run->ops->member_begin)
		run->ops->member_begin(run->ctx, m);
	if (input_peek(m->in, PROBE_PREFIX, &p, &avail) < 0)
		avail = 0; /* the walker reports the failure */
	im.pr = importer_probe(p, avail, m->in->eof && !m->in->failed);
	ingest_intake_member(&run->intake, m, im.pr.ops != NULL, avail);
	imports = im.pr.ops && im.pr.ops->import;
	if (imports)
		import_member(run, &im);
	if (run->o->read_whole)
		read_rest(run, m);
	if (run->ops->member_done)
		run->ops->member_done(run->ctx, &im);
	if (imports)
		progress(run, INGEST_IMPORTED, m->display);
	return 0;
}

/*
 * The writer spills its samples beside the store (not in /tmp, which
 * may be small or in memory), where the store's own temporary file goes
 * (a link's target's directory); a new store's samples are encoded into
 * that file as they arrive (store_writer_stream), which append's
 * duplicates rule out.  The folder is swept of the temporary files of
 * writers that died first.
 */
static void spill_beside(struct store_writer *w, const char *out, bool stream)
{
	char *real = realpath(out, NULL);
	char *copy = real ? real : xstrdup(out);
	const char *parent = dirname(copy);
	char *dir = realpath(parent, NULL);

	/* the full path, for the messages */
	store_writer_set_spill_dir(w, dir ? dir : parent);
	/* what writers that died left in this folder, the store's lock
	 * held: their temporary files, stores' or exports', no longer
	 * locked, old, of a process gone (newfile.h) */
	newfile_sweep(dir ? dir : parent);
	if (stream)
		store_writer_stream(w, dir ? dir : parent);
	free(dir);
	free(copy);
}

/* append: the recordings already in the store first (a store that is
 * not there yet is made); 0, or ERR_FAIL with e. */
static int add_old(struct run *run, struct err *e)
{
	if (access(run->o->out, F_OK) < 0 && errno == ENOENT)
		return 0;
	if (store_open(run->o->out, &run->old, e) < 0 ||
	    store_writer_add_store(run->w, run->old, e) < 0)
		return ERR_FAIL;
	/* a recording already in the store is not added again */
	store_writer_skip_duplicates(run->w);
	return 0;
}

static void walk_all(struct run *run, int n, char **inputs)
{
	static const struct walk_ops ops = {walk_member, walk_problem};
	int i;

	ingest_intake_init(&run->intake, intake_say, run);
	for (i = 0; i < n; i++) {
		ingest_intake_begin(&run->intake, inputs[i]);
		if (walk_input(inputs[i], run->o->lim, &ops, run, &run->stats) <
		    0)
			run->r->inputs_failed++;
		else
			ingest_intake_end(&run->intake);
	}
	run->r->inputs_failed += run->intake.not_read;
	run->r->walk_warnings = run->stats.warnings;
	run->r->walk_errors = run->stats.errors;
	ingest_intake_release(&run->intake);
}

/* What became of the store; 0 or ERR_FAIL as ingest_run(). */
static int commit(struct run *run, struct err *e)
{
	struct ingest_result *r = run->r;

	if (store_writer_failed(run->w, e)) {
		r->outcome = INGEST_WRITE_FAILED; /* the spill: no space, I/O */
	} else if (!r->added && r->duplicates) {
		r->outcome = INGEST_UNCHANGED;
	} else if (!r->added) {
		r->outcome = INGEST_EMPTY;
		err_set(e, ERR_FORMAT,
			"no recording could be imported from the inputs");
	} else if (store_writer_commit(run->w, run->o->out, e) < 0) {
		r->outcome = INGEST_WRITE_FAILED;
	} else {
		r->outcome = INGEST_WRITTEN;
	}
	r->recordings = store_writer_n_recordings(run->w);
	r->samples = store_writer_n_samples(run->w);
	return r->outcome == INGEST_WRITTEN || r->outcome == INGEST_UNCHANGED
		       ? 0
		       : ERR_FAIL;
}

int ingest_run(const struct ingest_options *o, int n, char **inputs,
	       const struct ingest_ops *ops, void *ctx, struct ingest_result *r,
	       struct err *e)
{
	struct run run;
	int lock_fd, rc;

	memset(r, 0, sizeof(*r));
	memset(&run, 0, sizeof(run));
	run.o = o;
	run.ops = ops;
	run.ctx = ctx;
	run.r = r;
	/* writers of one store take turns (docs/formats/store.md): with
	 * append, so that no writer's recordings are lost; without, so
	 * that one import's store follows the other's whole */
	if (store_lock(o->out, ops->waiting, ctx, &lock_fd, e) < 0) {
		r->outcome = INGEST_LOCK_FAILED;
		return ERR_FAIL;
	}
	run.w = store_writer_new();
	spill_beside(run.w, o->out, !o->append);
	if (o->append && add_old(&run, e) < 0) {
		r->outcome = INGEST_OPEN_FAILED;
		rc = ERR_FAIL;
	} else {
		walk_all(&run, n, inputs);
		progress(&run, INGEST_WALKED, NULL);
		rc = commit(&run, e);
	}
	if (run.old)
		store_close(run.old);
	store_writer_free(run.w);
	store_unlock(lock_fd);
	return rc;
}
