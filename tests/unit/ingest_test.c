/*
 * The ingest pipeline's contract (src/ingest/ingest.h): what its caller
 * hears and gets back, on fixtures whose contents are known from outside
 * (jdk17-default.jfr: 2188 ObjectAllocationSample and 120 OldObjectSample
 * events by the JDK's jfr, fixtures/jfr/jdk17-default.expected.json).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "input/walk.h"
#include "store/store.h"
#include "test.h"

#define DEFAULT_SAMPLES (2188 + 120)

/* What a run told its caller. */
struct heard {
	unsigned begun, done, imported, refused, intake_errors, intake_notes;
	unsigned walk_problems, importer_warnings, walked, duplicates;
	uint32_t duplicate_of;
	char duplicate_source[512];
	char last_kind[32];
};

static void begin(void *ctx, const struct member *m)
{
	struct heard *h = ctx;

	(void)m;
	h->begun++;
}

static void done(void *ctx, const struct ingest_member *im)
{
	struct heard *h = ctx;

	h->done++;
	snprintf(h->last_kind, sizeof(h->last_kind), "%s",
		 import_kind_name(im->pr.kind));
	if (im->duplicate) {
		h->duplicates++;
		h->duplicate_of = im->duplicate_of;
		snprintf(h->duplicate_source, sizeof(h->duplicate_source), "%s",
			 im->duplicate_source ? im->duplicate_source : "");
	}
}

static void problem(void *ctx, enum ingest_problem from,
		    enum ingest_severity sev, const struct err *e)
{
	struct heard *h = ctx;

	(void)e;
	switch (from) {
	case INGEST_FROM_WALK:
		h->walk_problems++;
		break;
	case INGEST_FROM_INTAKE:
		if (sev == INGEST_ERROR)
			h->intake_errors++;
		else
			h->intake_notes++;
		break;
	case INGEST_IMPORT_REFUSED:
		h->refused++;
		break;
	case INGEST_FROM_IMPORTER:
	case INGEST_IMPORT_STOPPED:
	case INGEST_STORE_STOPPED:
		h->importer_warnings++;
		break;
	}
}

static void progress(void *ctx, const struct ingest_progress *p)
{
	struct heard *h = ctx;

	if (p->stage == INGEST_IMPORTED)
		h->imported++;
	if (p->stage == INGEST_WALKED)
		h->walked++;
}

static const struct ingest_ops ops = {begin, done, problem, progress, NULL};

/* One run of inputs into dir/s.hsdb; what it returned. */
static int run(const char *dir, bool append, int n, char **inputs,
	       struct heard *h, struct ingest_result *r, struct err *e)
{
	struct input_limits lim;
	char out[256];
	struct ingest_options o = {out, append, 1, &lim, false};

	snprintf(out, sizeof(out), "%s/s.hsdb", dir);
	input_limits_default(&lim);
	memset(h, 0, sizeof(*h));
	err_init(e);
	return ingest_run(&o, n, inputs, &ops, h, r, e);
}

TEST(ingest_writes_a_store_and_drops_a_recording_appended_again)
{
	char dir[] = "/tmp/hs-ingest-XXXXXX", path[256];
	char *inputs[1] = {(char *)test_fixture("jfr/jdk17-default.jfr")};
	struct ingest_result r;
	struct heard h;
	struct store *s;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(run(dir, false, 1, inputs, &h, &r, &e), ==, 0);
	CHECK_INT(r.outcome, ==, INGEST_WRITTEN);
	CHECK_UINT(r.recordings, ==, 1);
	CHECK_UINT(r.added, ==, 1);
	CHECK_UINT(r.samples, ==, DEFAULT_SAMPLES);
	CHECK_UINT(r.warnings + r.walk_warnings + r.walk_errors, ==, 0);
	CHECK_UINT(r.inputs_failed, ==, 0);
	CHECK_UINT(h.begun, ==, 1);
	CHECK_UINT(h.done, ==, 1);
	CHECK_UINT(h.imported, ==, 1);
	CHECK_UINT(h.walked, ==, 1);
	CHECK_STR(h.last_kind, "jfr");
	snprintf(path, sizeof(path), "%s/s.hsdb", dir);
	err_init(&e);
	CHECK_INT(store_open(path, &s, &e), ==, 0);
	if (s)
		store_close(s);

	/* the same recording again: dropped, the store left as it was */
	CHECK_INT(run(dir, true, 1, inputs, &h, &r, &e), ==, 0);
	CHECK_INT(r.outcome, ==, INGEST_UNCHANGED);
	CHECK_UINT(r.added, ==, 0);
	CHECK_UINT(r.duplicates, ==, 1);
	CHECK_UINT(r.warnings, ==, 1);
	CHECK_UINT(h.duplicates, ==, 1);
	CHECK_UINT(h.duplicate_of, ==, 0);
	CHECK_STR(h.duplicate_source, inputs[0]);
	test_store_remove(dir, "s.hsdb");
}

TEST(ingest_counts_an_input_no_importer_recognises_as_not_read)
{
	char dir[] = "/tmp/hs-ingest-XXXXXX";
	char *inputs[2];
	struct ingest_result r;
	struct heard h;
	struct err e;

	/* (test_fixture()'s path is overwritten by the next call) */
	inputs[0] = strdup(test_fixture("README.md"));
	inputs[1] = strdup(test_fixture("jfr/jdk17-default.jfr"));
	CHECK(mkdtemp(dir) != NULL);
	/* alone: nothing to write, and the one error of the rule */
	CHECK_INT(run(dir, false, 1, inputs, &h, &r, &e), ==, ERR_FAIL);
	CHECK_INT(r.outcome, ==, INGEST_EMPTY);
	CHECK_UINT(r.inputs_failed, ==, 1);
	CHECK_UINT(h.intake_errors, ==, 1);
	CHECK_UINT(h.done, ==, 1);
	CHECK_UINT(h.imported, ==, 0);
	CHECK_STR(h.last_kind, "unknown");
	CHECK(access(dir, F_OK) == 0);
	/* beside a recording: the store is written, the input still not
	 * read */
	CHECK_INT(run(dir, false, 2, inputs, &h, &r, &e), ==, 0);
	CHECK_INT(r.outcome, ==, INGEST_WRITTEN);
	CHECK_UINT(r.inputs_failed, ==, 1);
	CHECK_UINT(r.samples, ==, DEFAULT_SAMPLES);
	CHECK_UINT(h.intake_errors, ==, 1);
	CHECK_UINT(h.begun, ==, 2);
	test_store_remove(dir, "s.hsdb");
	free(inputs[0]);
	free(inputs[1]);
}

TEST(ingest_reports_an_input_that_cannot_be_opened)
{
	char dir[] = "/tmp/hs-ingest-XXXXXX";
	char *inputs[1] = {(char *)"/nonexistent/heapsift/rec.jfr"};
	struct ingest_result r;
	struct heard h;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(run(dir, false, 1, inputs, &h, &r, &e), ==, ERR_FAIL);
	CHECK_INT(r.outcome, ==, INGEST_EMPTY);
	CHECK_UINT(r.inputs_failed, ==, 1);
	CHECK_UINT(h.walk_problems, ==, 1);
	CHECK_UINT(h.begun, ==, 0);
	test_store_remove(dir, "s.hsdb");
}
