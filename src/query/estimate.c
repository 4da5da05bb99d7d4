/*
 * Estimates (docs/estimates.md): the standard errors, which estimate a
 * view shows, and the readers' side of the corrected estimate of
 * jdk.ObjectAllocationSample's bytes, which the store finds at import
 * (src/store/store_estimate.h) and keeps as each sample's rest, the rollup
 * rows' sums of rests and each recording's facts (store 2.3).  The
 * passes (query_pass.c) read ObjectAllocationSample's rests, scaled by
 * est_scale(), and the OutsideTLAB events' exact bytes, as one kind.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

bool query_est_scale_one(const struct store_estimate *f)
{
	return (!f->tlab_lo && !f->tlab_hi) ||
	       (f->all_lo == f->tlab_lo && f->all_hi == f->tlab_hi);
}

/* floor(rest * all / tlab), exact while all < 2^64 (as it is for any
 * store of fewer than 2^64 bytes of weights), else in long double; the
 * rest itself where tlab is 0 (no sample of an object in a TLAB) */
int64_t query_est_scale(int64_t rest, const struct store_estimate *f)
{
	unsigned __int128 all = u128_of(f->all_lo, f->all_hi),
			  tlab = u128_of(f->tlab_lo, f->tlab_hi), r, c;

	if (rest <= 0)
		return 0;
	if (query_est_scale_one(f))
		return rest;
	r = (uint64_t)rest;
	if (!f->all_hi) {
		/* r * (all / tlab) + r * (all % tlab) / tlab: each part
		 * below 2^127 */
		c = r * (all / tlab) + r * (all % tlab) / tlab;
	} else {
		long double x = (long double)rest * (long double)all /
				(long double)tlab;

		c = x >= 0x1p63L ? (unsigned __int128)INT64_MAX
				 : (unsigned __int128)x;
	}
	return c > INT64_MAX ? INT64_MAX : (int64_t)c;
}

/* A sum of squared rests scaled as est_scale() scales each rest: by
 * (all / tlab)^2, in long double (it only feeds a standard error). */
unsigned __int128 query_est_scale_sq(uint64_t lo, uint64_t hi,
				     const struct store_estimate *f)
{
	unsigned __int128 sq = u128_of(lo, hi);
	long double all = (long double)u128_of(f->all_lo, f->all_hi),
		    tlab = (long double)u128_of(f->tlab_lo, f->tlab_hi), x;

	if (tlab == 0 || all == tlab)
		return sq;
	x = (long double)sq * (all / tlab) * (all / tlab);
	return x >= 0x1p128L ? SQ_MAX : (unsigned __int128)x;
}

double query_rel_err(enum sample_kind k, uint64_t samples, int64_t bytes,
		     unsigned __int128 sq, unsigned __int128 pool)
{
	switch (k) {
	case SAMPLE_TLAB_OUTSIDE:
		return samples ? 0.0 : NAN; /* every event: exact */
	case SAMPLE_OLD_OBJECT:
		/* no weights: the sample count is all there is */
		return samples ? 1.0 / sqrt((double)samples) : NAN;
	default:
		if (bytes <= 0)
			return samples ? 1.0 / sqrt((double)samples) : NAN;
		/* the pooled term is in bytes^2 * 2^QUERY_POOL_SHIFT */
		return sqrt(fmax((double)sq,
				 ldexp((double)pool, -QUERY_POOL_SHIFT))) /
		       (double)bytes;
	}
}

/*
 * The pooled term's m (docs/estimates.md).  A thread's is Σ w² / Σ w
 * over its ObjectAllocationSample weights (or their scaled rests) in its
 * recording: a weight is the bytes its thread allocated since that
 * thread's previous sample, so the heavy weights of a thread the
 * throttle skipped can only have fallen on that thread's sites.  A
 * node's or a class's is the mean of its threads' m weighted by its
 * bytes in each, so that rows without their thread give the same sums
 * over the whole recording.  Each is rounded to 1/65536 byte, so that
 * pool_of() stays an exact integer sum in any order.
 */
struct pool_sum {
	long double y, w; /* the bytes; Σ w² (a thread), Σ y m (the rest) */
};

/* A table up to this many entries (32 bytes each while summing, 8 once
 * made) is kept dense, by recording and id; past it, a map. */
#define POOL_DENSE_MAX (1u << 22)

struct pool_acc {
	uint32_t n_recs, n_ids;
	bool dense;
	struct pool_sum *s; /* dense: [rec * (n_ids + 1) + id] */
	struct u64map idx;  /* else: key -> index into s */
	size_t n, alloc;
};

static void acc_init(struct pool_acc *a, uint32_t n_recs, uint32_t n_ids)
{
	memset(a, 0, sizeof(*a));
	a->n_recs = n_recs;
	a->n_ids = n_ids;
	a->dense = (uint64_t)n_recs * ((uint64_t)n_ids + 1) <= POOL_DENSE_MAX;
	if (a->dense)
		a->s = xcalloc((size_t)n_recs * (n_ids + 1) + 1, sizeof(*a->s));
}

/* NULL for an id past the table's (a row the store's checks let by
 * cannot hold one: dropped) */
static struct pool_sum *acc_at(struct pool_acc *a, uint32_t rec, uint32_t id)
{
	bool added;
	uint64_t *v;

	if (a->dense) {
		uint32_t k = id == STORE_NONE ? a->n_ids : id;

		return rec < a->n_recs && k <= a->n_ids
			       ? &a->s[(size_t)rec * (a->n_ids + 1) + k]
			       : NULL;
	}
	v = u64map_put(&a->idx, query_pool_key(rec, id), a->n, &added);
	if (added) {
		if (a->n == a->alloc) {
			a->alloc = a->alloc ? a->alloc * 2 : 64;
			a->s = xreallocarray(a->s, a->alloc, sizeof(*a->s));
		}
		a->s[a->n++] = (struct pool_sum){0, 0};
	}
	return &a->s[*v];
}

static uint64_t acc_m(const struct pool_sum *x, bool scaled)
{
	long double m = x->y > 0 ? x->w / x->y : 0;

	if (!scaled)
		m *= (long double)(1u << QUERY_POOL_SHIFT);
	m += 0.5L;
	return m >= 0x1p63L ? (uint64_t)INT64_MAX : (uint64_t)m;
}

/* Each entry's m into pool's table by, scaled by 2^QUERY_POOL_SHIFT: w /
 * y for a node's or class's (whose w is scaled already), w / y * 2^16
 * for a thread's; a released. */
static void acc_finish(struct pool_acc *a, struct query_pool *pool, int by,
		       bool scaled)
{
	size_t pos = 0, k, n = (size_t)a->n_recs * (a->n_ids + 1);
	uint64_t key, v;
	/* the threads' also make each recording's: Σ y m / Σ y */
	struct pool_sum *r = scaled ? NULL : xcalloc(a->n_recs + 1, sizeof(*r));

	pool->n_recs = a->n_recs;
	pool->n_ids[by] = a->n_ids;
	if (a->dense) {
		pool->dense[by] = xmalloc((n ? n : 1) * sizeof(uint64_t));
		for (k = 0; k < n; k++) {
			pool->dense[by][k] = acc_m(&a->s[k], scaled);
			if (r) {
				r[k / (a->n_ids + 1)].y += a->s[k].y;
				r[k / (a->n_ids + 1)].w +=
					a->s[k].y *
					(long double)pool->dense[by][k];
			}
		}
	} else {
		while (u64map_next(&a->idx, &pos, &key, &v)) {
			uint64_t m = acc_m(&a->s[v], scaled);

			u64map_put(&pool->m[by], key, m, NULL);
			if (r && key >> 32 < a->n_recs) {
				r[key >> 32].y += a->s[v].y;
				r[key >> 32].w += a->s[v].y * (long double)m;
			}
		}
		u64map_release(&a->idx);
	}
	if (r) {
		free(pool->rec_m);
		pool->rec_m = xmalloc((a->n_recs + 1) * sizeof(uint64_t));
		for (k = 0; k < a->n_recs; k++)
			pool->rec_m[k] = acc_m(&r[k], true);
		free(r);
	}
	free(a->s);
	memset(a, 0, sizeof(*a));
}

/*
 * Every rollup row of ObjectAllocationSample under proj, once: a
 * recording's whole rows (3.1) where it has them, else its time
 * buckets' (each sample is in one row of either), with its bytes and
 * squares as the passes read them (est_rows() in query_pass.c).  A
 * recording's time buckets are held in a struct store_rollup_whole too:
 * the same buckets, rows, squares and sums.
 */
typedef void pool_row_fn(void *ctx, uint32_t rec,
			 const struct store_rollup_row *row, long double y,
			 long double w2);

static void src_walk(const struct query *q, bool corrected,
		     const struct store_rollup_whole *src,
		     const unsigned char *skip, unsigned char *done,
		     pool_row_fn *fn, void *ctx)
{
	uint32_t i, r;

	for (i = 0; i < src->n; i++) {
		uint32_t rec = src->b[i].recording;

		if (rec >= q->n_recs || (skip && skip[rec]))
			continue;
		if (done)
			done[rec] = 1;
		for (r = 0; r < src->b[i].n_rows; r++) {
			uint64_t k = src->b[i].first_row + r;
			long double y, w2;

			if (!corrected) {
				y = (long double)src->rows[k].bytes;
				w2 = (long double)u128_of(src->sq[k].lo,
							  src->sq[k].hi);
			} else {
				const struct store_estimate *f = &q->est[rec];

				y = (long double)query_est_scale(src->est[k].a,
								 f);
				w2 = (long double)query_est_scale_sq(
					src->est[k].lo, src->est[k].hi, f);
			}
			fn(ctx, rec, &src->rows[k], y, w2);
		}
	}
}

/* 1 when every row of proj was walked, 0 when the store has none (or
 * no squares, or no rests): then the samples */
static int rows_walk(struct query *q, bool corrected, int proj, pool_row_fn *fn,
		     void *ctx, struct err *e)
{
	struct store_rollup_whole w, bk = {0};
	unsigned char *done;

	if (corrected ? store_rollup_est(q->s, &bk.est, e) < 0
		      : store_rollup_squares(q->s, &bk.sq, e) < 0)
		return ERR_FAIL;
	if (store_rollup(q->s, SAMPLE_ALLOC, proj, &bk.b, &bk.n, &bk.rows, e) <
		    0 ||
	    store_rollup_whole(q->s, SAMPLE_ALLOC, proj, &w, e) < 0)
		return ERR_FAIL;
	if ((corrected ? !bk.est || !q->est : !bk.sq) || !bk.n)
		return 0;
	done = xcalloc(q->n_recs ? q->n_recs : 1, 1);
	if (corrected ? w.est != NULL : w.sq != NULL)
		src_walk(q, corrected, &w, NULL, done, fn, ctx);
	src_walk(q, corrected, &bk, done, NULL, fn, ctx);
	free(done);
	return 1;
}

struct pool_build {
	const struct query_pool *pool;
	struct pool_acc t, nd, cl;
};

static void add_thread(void *ctx, uint32_t rec,
		       const struct store_rollup_row *row, long double y,
		       long double w2)
{
	struct pool_build *b = ctx;
	struct pool_sum *x = acc_at(&b->t, rec, row->thread);

	if (x) {
		x->y += y;
		x->w += w2;
	}
}

/* a node's and a class's bytes, and those times their thread's m */
static void add_keyed(struct pool_build *b, uint32_t rec, uint32_t thread,
		      uint32_t node, uint32_t cls, long double y)
{
	long double ym = y * (long double)query_pool_m(b->pool, POOL_THREAD,
						       rec, thread);
	struct pool_sum *x = acc_at(&b->nd, rec, node);

	if (x) {
		x->y += y;
		x->w += ym;
	}
	x = acc_at(&b->cl, rec, cls);
	if (x) {
		x->y += y;
		x->w += ym;
	}
}

static void add_full(void *ctx, uint32_t rec,
		     const struct store_rollup_row *row, long double y,
		     long double w2)
{
	(void)w2;
	add_keyed(ctx, rec, row->thread, row->node, row->cls, y);
}

/* The same from the samples, where the store has no rollups of the kind
 * or no squares (before 2.2): as the passes then read them. */
/* One sample's weight under the estimate into the sums: its thread's
 * (step 0), or its node's and class's (step 1). */
static void weight_into(struct pool_build *b, int step, uint32_t rec,
			uint32_t thread, uint32_t node, uint32_t cls, int64_t w)
{
	struct pool_sum *x;

	if (w < 0)
		w = 0;
	if (step) {
		add_keyed(b, rec, thread, node, cls, (long double)w);
	} else if ((x = acc_at(&b->t, rec, thread))) {
		x->y += (long double)w;
		x->w += (long double)w * (long double)w;
	}
}

static void sample_into(struct query *q, bool corrected, struct pool_build *b,
			int step, uint32_t rec, uint32_t thread, uint32_t node,
			uint32_t cls, int64_t bytes, const int64_t *rest)
{
	int64_t w = bytes == REC_NONE ? 0 : bytes;

	if (rec >= q->n_recs || (corrected && (!rest || !q->est)))
		return;
	if (corrected)
		w = query_est_scale(*rest, &q->est[rec]);
	weight_into(b, step, rec, thread, node, cls, w);
}

/*
 * The same from the samples, where the store has no rollups of the kind,
 * no squares (before 2.2) or no full projection (a synthetic store of
 * random keys): those held in memory where the kind is, else a block at
 * a time through a cursor of the store's own, whatever its size.  step
 * 0: the threads' sums; 1: the nodes' and classes'.
 */
static int pool_samples(struct query *q, bool corrected, struct pool_build *b,
			int step, struct err *e)
{
	const bool held = store_kind_decoded(q->s, SAMPLE_ALLOC);
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	struct store_samples sm;
	uint64_t i;
	int rc = 0;

	if (held) {
		if (store_kind_samples(q->s, SAMPLE_ALLOC, &sm, e) < 0)
			return ERR_FAIL;
		for (i = 0; i < sm.n; i++)
			sample_into(q, corrected, b, step, sm.recording[i],
				    sm.thread[i], sm.node[i], sm.cls[i],
				    sm.bytes[i], sm.rest ? &sm.rest[i] : NULL);
		return 0;
	}
	if (store_cursor_new(q->s, &c, e) < 0)
		return ERR_FAIL;
	while ((rc = store_cursor_next(c, &x, e)) > 0)
		if (x.kind == SAMPLE_ALLOC)
			sample_into(q, corrected, b, step, x.recording,
				    x.thread, x.node, x.cls, x.bytes, &x.rest);
	store_cursor_free(c);
	return rc < 0 ? ERR_FAIL : 0;
}

/*
 * A window's sums, from a pass of their own over it (PASS_ALL: every row
 * and sample of ObjectAllocationSample in the window, whatever the
 * filters, as the views read them): the threads' (step 0), or the nodes'
 * and classes' (step 1).
 */
static int window_sums(struct query *q, struct pool_build *b, int step,
		       struct err *e)
{
	const unsigned need =
		step ? PASS_NEED_THREAD | PASS_NEED_NODE | PASS_NEED_CLASS
		     : PASS_NEED_THREAD;
	struct query_pass p;
	uint64_t i;
	uint32_t r;
	int rc;

	if (query_pass_init(q, &p, need | PASS_NEED_SQUARES | PASS_ALL, 0, 0,
			    e) < 0)
		return ERR_FAIL;
	/* the corrected estimate's OutsideTLAB events come after: exact */
	while ((rc = query_pass_next(q, &p, e)) > 0 && p.kind == SAMPLE_ALLOC) {
		const struct store_samples *sm = &q->sm;

		if (rc == PASS_ROWS) {
			/* as rows_walk() hands them to the same sums */
			for (r = 0; r < p.n_rows; r++)
				(step ? add_full : add_thread)(
					b, p.rec, &p.rows[r],
					(long double)p.rows[r].bytes,
					p.sq ? (long double)u128_of(p.sq[r].lo,
								    p.sq[r].hi)
					     : 0);
			continue;
		}
		for (i = q->lo; i < q->hi; i++) {
			if (sm->kind[i] != SAMPLE_ALLOC ||
			    (p.rec != PASS_ANY_REC &&
			     sm->recording[i] != p.rec))
				continue;
			weight_into(b, step, sm->recording[i], sm->thread[i],
				    sm->node[i], sm->cls[i],
				    p.var		       ? p.var[i]
				    : sm->bytes[i] == REC_NONE ? 0
							       : sm->bytes[i]);
		}
	}
	query_pass_release(&p);
	return rc < 0 ? ERR_FAIL : 0;
}

/* Whether the store has rollups of ObjectAllocationSample under proj:
 * 1, 0, or <0 with e set. */
static int has_rows(struct query *q, int proj, struct err *e)
{
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *r;
	uint32_t n = 0;

	if (store_rollup(q->s, SAMPLE_ALLOC, proj, &b, &n, &r, e) < 0)
		return ERR_FAIL;
	return n > 0;
}

/* step's sums (0: the threads', 1: the nodes' and classes'): over the
 * window from a pass of its own; else from the rows (the thread
 * projection's, the full one's where pool->rows), or where they are
 * not there the samples.  pool->rows: the store's thread rows (with
 * their squares, or the rests) were there. */
static int sums(struct query *q, bool corrected, bool window,
		struct query_pool *pool, struct pool_build *b, int step,
		struct err *e)
{
	int rc;

	if (window) {
		rc = step ? 0 : has_rows(q, STORE_PROJ_THREAD, e);
		if (rc < 0)
			return ERR_FAIL;
		if (!step)
			pool->rows = rc > 0;
		return window_sums(q, b, step, e);
	}
	rc = !step ? rows_walk(q, corrected, STORE_PROJ_THREAD, add_thread, b,
			       e)
	     : pool->rows
		     ? rows_walk(q, corrected, STORE_PROJ_FULL, add_full, b, e)
		     : 0;
	if (!step)
		pool->rows = rc > 0;
	if (rc == 0)
		rc = pool_samples(q, corrected, b, step, e);
	return rc;
}

/* The threads' m (level 1), then where want is 2 the nodes' and
 * classes' (sums()): where the store has rollups without a full
 * projection (a store of random keys, whose full rows would be its
 * samples), each node and class takes its recording's m instead, not a
 * pass over every sample, and no table of theirs is made. */
static int pool_make(struct query *q, bool corrected, bool window,
		     struct query_pool *pool, int *level, int want,
		     struct err *e)
{
	struct pool_build b = {pool, {0}, {0}, {0}};
	int rc = 0;

	if (*level < 1) {
		acc_init(&b.t, q->n_recs, q->n_threads);
		rc = sums(q, corrected, window, pool, &b, 0, e);
		if (rc >= 0) {
			acc_finish(&b.t, pool, POOL_THREAD, false);
			*level = 1;
		}
	}
	if (rc >= 0 && want > 1) {
		int full = pool->rows ? has_rows(q, STORE_PROJ_FULL, e) : 1;

		if (full < 0)
			rc = ERR_FAIL;
		pool->by_rec = full == 0;
		if (rc >= 0 && !pool->by_rec) {
			acc_init(&b.nd, q->n_recs, q->n_nodes);
			acc_init(&b.cl, q->n_recs, q->n_classes);
			rc = sums(q, corrected, window, pool, &b, 1, e);
			if (rc >= 0) {
				acc_finish(&b.nd, pool, POOL_NODE, true);
				acc_finish(&b.cl, pool, POOL_CLASS, true);
			}
		}
		if (rc >= 0)
			*level = 2;
	}
	free(b.t.s);
	free(b.nd.s);
	free(b.cl.s);
	u64map_release(&b.t.idx);
	u64map_release(&b.nd.idx);
	u64map_release(&b.cl.idx);
	return rc < 0 ? ERR_FAIL : 0;
}

int query_pool_get(struct query *q, int by, const struct query_pool **out,
		   struct err *e)
{
	const bool corrected = query_estimate(q) == QUERY_EST_CORRECTED;
	const bool window =
		q->o.from_ns != INT64_MIN || q->o.to_ns != INT64_MAX;
	const int want = by == POOL_THREAD ? 1 : 2;
	struct query_pool *pool;
	int *level;

	*out = NULL;
	if (q->kind != SAMPLE_ALLOC)
		return 0;
	if (window) {
		pool = &q->wpool[corrected];
		level = &q->wpool_level[corrected];
	} else {
		pool = query_pool_slot(q, corrected, &level);
	}
	/* a damaged store fails this query; the next tries again and
	 * fails alike (a table is only kept whole) */
	if (*level < want &&
	    pool_make(q, corrected, window, pool, level, want, e) < 0)
		return ERR_FAIL;
	*out = pool;
	return 0;
}

void query_pool_release(struct query_pool *pool)
{
	int by;

	for (by = 0; by < POOL__COUNT; by++) {
		u64map_release(&pool->m[by]);
		free(pool->dense[by]);
	}
	free(pool->rec_m);
	memset(pool, 0, sizeof(*pool));
}

/* --- what the views say ------------------------------------------------------ */

bool query_estimate_correctable(const struct query *q)
{
	return q->kind == SAMPLE_ALLOC &&
	       q->kind_counts[SAMPLE_TLAB_OUTSIDE] > 0 && q->est;
}

enum query_estimate query_estimate(const struct query *q)
{
	/* the corrected estimate wherever it can be given: it is read
	 * from the rollups and the rests the store keeps (2.3), at the
	 * cost of the raw weights */
	if (!query_estimate_correctable(q))
		return QUERY_EST_JFR;
	return q->o.estimate == QUERY_EST_JFR ? QUERY_EST_JFR
					      : QUERY_EST_CORRECTED;
}

const char *query_estimate_name(enum query_estimate e)
{
	return e == QUERY_EST_CORRECTED ? "corrected" : "jfr";
}

static const enum query_estimate estimate_table[] = {QUERY_EST_JFR,
						     QUERY_EST_CORRECTED};

bool query_estimate_parse(const char *s, enum query_estimate *e)
{
	size_t i;

	for (i = 0; i < sizeof(estimate_table) / sizeof(estimate_table[0]); i++)
		if (!strcmp(s, query_estimate_name(estimate_table[i]))) {
			*e = estimate_table[i];
			return true;
		}
	return false;
}

const char *query_estimate_word(size_t i)
{
	return i < sizeof(estimate_table) / sizeof(estimate_table[0])
		       ? query_estimate_name(estimate_table[i])
		       : NULL;
}

const char *query_estimate_note(const struct query *q)
{
	switch (q->kind) {
	case SAMPLE_ALLOC:
		if (query_estimate(q) == QUERY_EST_CORRECTED)
			return "estimate: corrected (OutsideTLAB bytes exact "
			       "at their own stacks, the rest of each weight "
			       "to its sample; --estimate=jfr for the raw "
			       "weights)";
		if (query_estimate_correctable(q))
			return "estimate: jfr (the raw weights, which put a "
			       "large object's bytes on the next sample; "
			       "--estimate=corrected attributes the "
			       "OutsideTLAB events' bytes exactly)";
		if (q->kind_counts[SAMPLE_TLAB_OUTSIDE] > 0)
			return "estimate: jfr (the raw weights; the store was "
			       "made by an older heapsift: import the "
			       "recordings again for the corrected estimate, "
			       "which attributes the OutsideTLAB events' "
			       "bytes exactly)";
		return "estimate: jfr (the raw weights; without "
		       "OutsideTLAB events no correction is possible: a "
		       "site of large objects can be far off, while sample "
		       "counts and per-thread totals hold)";
	case SAMPLE_AGENT:
		return "estimate: unbiased weights of Poisson samples, "
		       "Horvitz-Thompson standard error";
	case SAMPLE_AP_ALLOC:
		return "estimate: async-profiler's JVMTI samples, each "
		       "weighed s / (1 - exp(-s/I)) at its interval I (its "
		       "alloc setting, 0 for 524287; its own converter counts "
		       "max(s, I)); Horvitz-Thompson standard error; the "
		       "JDK's ObjectAllocationSample is absent because "
		       "async-profiler holds JVMTI's sampler";
	case SAMPLE_AP_LIVE:
		return "estimate: objects async-profiler sampled and found "
		       "not yet collected when it stopped, each weighed as "
		       "its sample (s / (1 - exp(-s/I))); no GC was forced, "
		       "and samples taken while its 1024-slot table was "
		       "full are missing";
	case SAMPLE_DD_ALLOC:
	case SAMPLE_DD_LIVE:
		return "estimate: Datadog's samples, size x the weight its "
		       "writer gave each (1 / (1 - exp(-s/I)) at the "
		       "interval of the moment); Horvitz-Thompson standard "
		       "error";
	case SAMPLE_TLAB_OUTSIDE:
		return "estimate: exact bytes of every event recorded";
	case SAMPLE_OLD_OBJECT:
		return "estimate: one sample each; ± from the sample count "
		       "only";
	default:
		return "estimate: TLAB sizes";
	}
}
