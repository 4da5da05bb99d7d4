/*
 * Every sample of the store, one by one, with its names and its fate
 * (query_cursor): the store's cursor (one decoded block of each kind in
 * memory at a time) joined with the threads, classes and liveness
 * tables, for the exports that write the whole store, whatever the
 * filters.  And the recordings' facts without a pass over the samples.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <stdlib.h>

#include "store/store.h"
#include "util/xalloc.h"

struct query_cursor {
	struct query *q;
	struct store_cursor *c;
	const struct store_liveness *live;
	uint32_t n_live, li, rec;
};

uint32_t query_n_recordings(const struct query *q)
{
	return q->n_recs;
}

void query_recording_facts(const struct query *q, uint32_t rec,
			   struct query_recording *out)
{
	const struct store_recording *sr = &q->recs[rec];

	memset(out, 0, sizeof(*out));
	out->source = store_str(q->s, sr->source);
	out->format = store_str(q->s, sr->format);
	out->jvm_name = store_str(q->s, sr->jvm_name);
	out->jvm_version = store_str(q->s, sr->jvm_version);
	out->start_ns = sr->start_ns;
	out->end_ns = sr->end_ns;
	out->n_chunks = sr->n_chunks;
	out->bytes_skipped = sr->bytes_skipped;
}

uint32_t query_n_stacks(const struct query *q)
{
	return q->n_nodes;
}

int query_cursor_new(struct query *q, struct query_cursor **out, struct err *e)
{
	struct query_cursor *c = xcalloc(1, sizeof(*c));

	c->q = q;
	c->rec = STORE_NONE;
	if (store_liveness(q->s, &c->live, &c->n_live, e) < 0 ||
	    store_cursor_new(q->s, &c->c, e) < 0) {
		free(c);
		return ERR_FAIL;
	}
	*out = c;
	return 0;
}

int query_cursor_rewind(struct query_cursor *c, uint32_t rec, struct err *e)
{
	c->li = 0;
	c->rec = rec;
	return store_cursor_rewind(c->c, rec, e);
}

/* A sample's part in the estimate of ObjectAllocationSample's bytes
 * that top gives by default: est_rows() and est_samples() of
 * query_pass.c, for one sample (a rest is scaled alone, rounded down, as
 * those do at a time range's edges). */
static void cursor_estimate(const struct query_cursor *c,
			    const struct store_sample_row *r,
			    struct query_sample *x)
{
	const struct query *q = c->q;
	bool corrected = q->kind_counts[SAMPLE_ALLOC] > 0 &&
			 q->kind_counts[SAMPLE_TLAB_OUTSIDE] > 0 && q->est;
	const struct store_estimate *f;

	if (x->kind == SAMPLE_TLAB_OUTSIDE) {
		x->alloc_estimate = corrected ? "corrected" : NULL;
		return;
	}
	x->alloc_estimate = corrected ? "corrected" : "jfr";
	if (!corrected)
		return;
	f = r->recording < q->n_recs ? &q->est[r->recording] : NULL;
	x->est_bytes =
		f ? query_est_scale(r->rest, f) : (r->rest > 0 ? r->rest : 0);
}

int query_cursor_next(struct query_cursor *c, struct query_sample *x,
		      struct err *e)
{
	const struct query *q = c->q;
	struct store_sample_row r;
	int rc;

	for (;;) {
		rc = store_cursor_next(c->c, &r, e);
		if (rc <= 0)
			return rc;
		/* the liveness records are in sample order, as the samples
		 * come: the join walks both once */
		while (c->li < c->n_live && c->live[c->li].sample < r.seq)
			c->li++;
		if (c->rec == STORE_NONE || r.recording == c->rec)
			break;
	}
	x->seq = r.seq;
	x->recording = r.recording;
	x->stack = r.node;
	x->kind = (enum sample_kind)r.kind;
	x->time_ns = r.time_ns;
	x->bytes = r.bytes;
	x->size = r.size;
	x->truncated = (r.flags & STORE_SAMPLE_TRUNCATED) != 0;
	x->thread = r.thread < q->n_threads
			    ? store_str(q->s, q->threads[r.thread].name)
			    : "";
	x->cls = r.cls < q->n_classes
			 ? store_str(q->s, q->classes[r.cls].display)
			 : "";
	x->est_bytes = r.bytes == REC_NONE ? 0 : r.bytes;
	x->alloc_estimate = NULL;
	if (x->kind == SAMPLE_ALLOC || x->kind == SAMPLE_TLAB_OUTSIDE)
		cursor_estimate(c, &r, x);
	x->fate = NULL;
	x->death_ns = REC_NONE;
	if (c->li < c->n_live && c->live[c->li].sample == r.seq) {
		x->fate = store_live_state_name(c->live[c->li].state);
		x->death_ns = c->live[c->li].death_ns;
	}
	return 1;
}

void query_cursor_free(struct query_cursor *c)
{
	if (!c)
		return;
	store_cursor_free(c->c);
	free(c);
}
