/*
 * The ordered work queue (src/util/workq.h) and what the JFR importer
 * builds on it: jobs come back in submission order whatever order they
 * finish in, never more than depth at once; and the importer calls its
 * sink with the same records, ids included, in the same order with 0, 1,
 * 2 and 5 decoding threads, and warns the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "test.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/workq.h"
#include "util/xalloc.h"

struct job {
	unsigned n;
	unsigned delay_us; /* so that later jobs finish first */
	unsigned result;
};

static void run_job(void *p)
{
	struct job *j = p;
	struct timespec ts = {0, (long)j->delay_us * 1000};

	nanosleep(&ts, NULL);
	j->result = j->n * 3 + 1;
}

static void ordered(unsigned threads, unsigned depth)
{
	struct job jobs[64];
	struct workq *q = workq_new(threads, depth, run_job);
	unsigned next = 0, i;
	struct job *j;

	for (i = 0; i < 64; i++) {
		jobs[i].n = i;
		/* the first of each group slowest: the rest finish first */
		jobs[i].delay_us = i % depth == 0 ? 3000 : 100;
		jobs[i].result = 0;
	}
	for (i = 0; i < 64; i++) {
		if (workq_full(q)) {
			j = workq_next(q);
			CHECK_UINT(j->n, ==, next);
			CHECK_UINT(j->result, ==, next * 3 + 1);
			next++;
		}
		CHECK(workq_pending(q) < depth);
		workq_submit(q, &jobs[i]);
	}
	while ((j = workq_next(q)) != NULL) {
		CHECK_UINT(j->n, ==, next);
		CHECK_UINT(j->result, ==, next * 3 + 1);
		next++;
	}
	CHECK_UINT(next, ==, 64);
	CHECK_UINT(workq_pending(q), ==, 0);
	workq_free(q);
}

TEST(workq_returns_jobs_in_submission_order)
{
	ordered(0, 1); /* inline */
	ordered(1, 2);
	ordered(2, 3);
	ordered(4, 5);
	ordered(3, 8);
}

TEST(workq_inline_runs_in_submit)
{
	struct job j = {7, 0, 0};
	struct workq *q = workq_new(0, 1, run_job);

	workq_submit(q, &j);
	CHECK_UINT(j.result, ==, 22); /* before workq_next */
	CHECK(workq_full(q));
	CHECK(workq_next(q) == &j);
	CHECK(workq_next(q) == NULL);
	workq_free(q);
}

TEST(workq_free_with_jobs_pending)
{
	struct job jobs[3] = {{0, 1000, 0}, {1, 1000, 0}, {2, 1000, 0}};
	struct workq *q = workq_new(2, 3, run_job);
	unsigned i;

	for (i = 0; i < 3; i++)
		workq_submit(q, &jobs[i]);
	workq_free(q); /* waits for the running ones, starts no more */
}

/* --- the JFR importer's sink calls, whatever the threads ---------------- */

static void log_frame(struct buf *b, const struct rec_frame *f)
{
	buf_addf(b, " %s|%s|%s|%s|%d|%d|%s|%d", f->class_name, f->class_raw,
		 f->method, f->descriptor ? f->descriptor : "-", f->line,
		 f->bci, f->type ? f->type : "-", f->hidden);
}

/* Ids are one namespace per recording: an id met again must name what
 * it named the first time (a chunk's ids not offset by the chunks
 * before would reuse them).  names[kind][id]: what the id was. */
static char **names[3];
static size_t n_names[3];

static void same_thing(int kind, uint64_t id, const char *what)
{
	if (id >= n_names[kind]) {
		size_t n = (size_t)id * 2 + 16;

		names[kind] = xreallocarray(names[kind], n, sizeof(char *));
		memset(names[kind] + n_names[kind], 0,
		       (n - n_names[kind]) * sizeof(char *));
		n_names[kind] = n;
	}
	if (!names[kind][id])
		names[kind][id] = xstrdup(what);
	else if (strcmp(names[kind][id], what))
		test_fail(__FILE__, __LINE__,
			  "id %llu of kind %d was %s, is %s",
			  (unsigned long long)id, kind, names[kind][id], what);
}

static void forget_ids(void)
{
	size_t k, i;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < n_names[k]; i++)
			free(names[k][i]);
		free(names[k]);
		names[k] = NULL;
		n_names[k] = 0;
	}
}

static int log_sample(void *ctx, const struct rec_sample *s)
{
	struct buf *b = ctx;
	uint32_t i;
	size_t at;

	if (s->class_id)
		same_thing(0, s->class_id, s->class_raw);
	if (s->thread)
		same_thing(1, s->thread->id, s->thread->name);

	buf_addf(b, "S %d %lld %lld %lld %lld %lld %lld %lld %lld %lld %d",
		 (int)s->kind, (long long)s->time_ns, (long long)s->weight,
		 (long long)s->alloc_size, (long long)s->tlab_size,
		 (long long)s->alloc_time_ns, (long long)s->object_age_ns,
		 (long long)s->object_size, (long long)s->last_heap_used,
		 (long long)s->array_elements, (int)s->liveness);
	buf_addf(b, " class %llu %s %s root %s",
		 (unsigned long long)s->class_id,
		 s->class_name ? s->class_name : "-",
		 s->class_raw ? s->class_raw : "-",
		 s->gc_root ? s->gc_root : "-");
	if (s->thread)
		buf_addf(b, " thread %llu %s %lld %lld %d",
			 (unsigned long long)s->thread->id, s->thread->name,
			 (long long)s->thread->java_id,
			 (long long)s->thread->os_id, s->thread->is_virtual);
	if (s->stack) {
		buf_addf(b, " stack %llu %u %d",
			 (unsigned long long)s->stack->id, s->stack->n_frames,
			 s->stack->truncated);
		at = b->len;
		for (i = 0; i < s->stack->n_frames; i++)
			log_frame(b, &s->stack->frames[i]);
		same_thing(2, s->stack->id, b->data + at);
	}
	buf_addf(b, "\n");
	return 0;
}

static int log_heap(void *ctx, const struct rec_heap_summary *h)
{
	buf_addf(ctx, "H %lld %lld %s %lld %lld %lld\n", (long long)h->time_ns,
		 (long long)h->gc_id, h->when, (long long)h->heap_used,
		 (long long)h->committed, (long long)h->reserved);
	return 0;
}

static int log_recording(void *ctx, const struct rec_recording *r)
{
	struct buf *b = ctx;
	uint32_t i;

	buf_addf(b, "R %s %s %lld %lld %u %llu %llu %llu %llu %llu\n",
		 r->jvm_name ? r->jvm_name : "-",
		 r->jvm_version ? r->jvm_version : "-", (long long)r->start_ns,
		 (long long)r->end_ns, r->n_chunks,
		 (unsigned long long)r->n_samples[SAMPLE_ALLOC],
		 (unsigned long long)r->n_samples[SAMPLE_OLD_OBJECT],
		 (unsigned long long)r->n_heap_summaries,
		 (unsigned long long)r->bytes_skipped,
		 (unsigned long long)r->n_event_types);
	for (i = 0; i < r->n_settings; i++)
		buf_addf(b, "  %s=%s\n", r->settings[i].name,
			 r->settings[i].value);
	for (i = 0; i < r->n_event_types; i++)
		buf_addf(b, "  %s %llu\n", r->event_types[i].name,
			 (unsigned long long)r->event_types[i].n);
	return 0;
}

struct logged {
	struct buf calls; /* sink calls and warnings, in order */
};

static void log_warn(void *ctx, const struct err *e)
{
	buf_addf(ctx, "W %s %llu\n", e->msg, (unsigned long long)e->offset);
}

static void import_logged(const unsigned char *data, size_t len, unsigned jobs,
			  struct buf *b)
{
	static const struct sink_ops ops = {.sample = log_sample,
					    .heap_summary = log_heap,
					    .recording = log_recording};
	struct sink sink = {&ops, b};
	struct import_env env = {"rec.jfr", log_warn, b, 0, jobs};
	struct input in;
	struct err e;

	input_init_memory(&in, "rec.jfr", data, len);
	err_init(&e);
	buf_addf(b, "rc %d\n", importer_jfr.import(&in, &sink, &env, &e));
	input_release(&in);
	forget_ids();
}

/* The multichunk fixture three times over (21 chunks), cut inside the
 * last chunk, with a corrupt byte run in chunk 10. */
TEST(jfr_import_same_calls_whatever_the_threads)
{
	static const unsigned jobs[] = {1, 2, 5};
	size_t len, i, total;
	unsigned char *one = (unsigned char *)test_read_file(
		test_fixture("jfr/jdk17-multichunk.jfr"), &len);
	unsigned char *rec;
	struct buf ref = BUF_INIT;

	if (!one) {
		test_fail(__FILE__, __LINE__, "cannot read the fixture");
		return;
	}
	total = 3 * len - len / 3;
	rec = xmalloc(3 * len);
	for (i = 0; i < 3; i++)
		memcpy(rec + i * len, one, len);
	memset(rec + len + len / 2, 0xff, 16);
	import_logged(rec, total, 0, &ref);
	/* the damage and the cut are seen, and the recording's facts */
	CHECK_CONTAINS(ref.data, "W jfr: chunk 11: event at chunk offset");
	CHECK_CONTAINS(ref.data, "W jfr: chunk 19: chunk cut short");
	CHECK_CONTAINS(ref.data, "\nR - - 1795303013663477683 ");
	CHECK(ref.len > 1000000);
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct buf got = BUF_INIT;

		import_logged(rec, total, jobs[i], &got);
		CHECK_UINT(got.len, ==, ref.len);
		if (got.len == ref.len && memcmp(got.data, ref.data, ref.len))
			test_fail(__FILE__, __LINE__,
				  "%u threads: other calls than 0", jobs[i]);
		buf_release(&got);
	}
	buf_release(&ref);
	free(rec);
	free(one);
}
