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
		return sqrt((double)(pool > sq ? pool : sq)) / (double)bytes;
	}
}

/*
 * m = Σ w² / Σ w over each thread's ObjectAllocationSample weights (or
 * their scaled rests), by recording, from the rollup rows of the thread
 * projection: every sample is in one row of it.  A weight is the bytes
 * its thread allocated since that thread's previous sample, so the
 * heavy weights of a thread the throttle skipped can only have fallen on
 * that thread's sites: the strata are the threads.  Rounded to the
 * nearest byte, so that pool_of() stays an exact integer sum in any
 * order.
 */
struct pool_sum {
	long double y, w2;
};

static uint64_t pool_m_of(const struct pool_sum *x)
{
	long double m = x->y > 0 ? x->w2 / x->y + 0.5L : 0;

	return m >= 0x1p63L ? (uint64_t)INT64_MAX : (uint64_t)m;
}

/* Each key's value, an index into acc, made that slot's m: the keys
 * first (u64map_put may grow the map, which a walk must not see). */
static void pool_finish(struct u64map *out, struct pool_sum *acc, size_t n)
{
	uint64_t *keys = xmalloc((n ? n : 1) * sizeof(*keys)), key, v;
	size_t pos = 0, k = 0;

	while (k < n && u64map_next(out, &pos, &key, &v))
		keys[k++] = key;
	while (k-- > 0) {
		uint64_t *slot = u64map_put(out, keys[k], 0, NULL);

		*slot = pool_m_of(&acc[*slot]);
	}
	free(keys);
	free(acc);
}

static void pool_sums(struct query *q, bool corrected,
		      const struct store_rollup_bucket *b, uint32_t n,
		      const struct store_rollup_row *rows,
		      const struct store_rollup_sq *sq,
		      const struct store_rollup_est *est, struct u64map *out)
{
	struct pool_sum *acc = NULL;
	size_t n_acc = 0, alloc = 0;
	uint32_t i, r;

	for (i = 0; i < n; i++) {
		uint32_t rec = b[i].recording;
		const struct store_estimate *f =
			q->est && rec < q->n_recs ? &q->est[rec] : NULL;

		if (rec >= q->n_recs || (corrected && !f))
			continue;
		for (r = 0; r < b[i].n_rows; r++) {
			uint64_t k = b[i].first_row + r, *slot;
			bool added;

			slot = u64map_put(out,
					  query_pool_key(rec, rows[k].thread),
					  n_acc, &added);
			if (added) {
				if (n_acc == alloc) {
					alloc = alloc ? alloc * 2 : 64;
					acc = xreallocarray(acc, alloc,
							    sizeof(*acc));
				}
				acc[n_acc++] = (struct pool_sum){0, 0};
			}
			if (!corrected) {
				acc[*slot].y += (long double)rows[k].bytes;
				acc[*slot].w2 += (long double)u128_of(sq[k].lo,
								      sq[k].hi);
			} else {
				acc[*slot].y += (long double)query_est_scale(
					est[k].a, f);
				acc[*slot].w2 +=
					(long double)query_est_scale_sq(
						est[k].lo, est[k].hi, f);
			}
		}
	}
	pool_finish(out, acc, n_acc);
}

/* The same sums from the samples, where the store has no rollups of the
 * kind or no squares (before 2.2): as the passes then read them. */
static int pool_samples(struct query *q, bool corrected, struct u64map *out,
			struct err *e)
{
	struct store_samples sm;
	struct pool_sum *acc = NULL;
	size_t n_acc = 0, alloc = 0;
	uint64_t i;

	if (store_kind_samples(q->s, SAMPLE_ALLOC, &sm, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < sm.n; i++) {
		uint32_t rec = sm.recording[i];
		int64_t w = sm.bytes[i] == REC_NONE ? 0 : sm.bytes[i];
		uint64_t *slot;
		bool added;

		if (rec >= q->n_recs)
			continue;
		if (corrected) {
			if (!q->est || !sm.rest)
				continue;
			w = query_est_scale(sm.rest[i], &q->est[rec]);
		}
		slot = u64map_put(out, query_pool_key(rec, sm.thread[i]), n_acc,
				  &added);
		if (added) {
			if (n_acc == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				acc = xreallocarray(acc, alloc, sizeof(*acc));
			}
			acc[n_acc++] = (struct pool_sum){0, 0};
		}
		if (w > 0) {
			acc[*slot].y += (long double)w;
			acc[*slot].w2 += (long double)w * (long double)w;
		}
	}
	pool_finish(out, acc, n_acc);
	return 0;
}

int query_pool_init(struct query *q, struct err *e)
{
	const bool corrected = query_estimate(q) == QUERY_EST_CORRECTED;
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *rows;
	const struct store_rollup_sq *sq = NULL;
	const struct store_rollup_est *est = NULL;
	uint32_t n;

	if (q->pool_made[corrected])
		return 0;
	q->pool_made[corrected] = true;
	if (q->kind != SAMPLE_ALLOC)
		return 0;
	if (corrected ? store_rollup_est(q->s, &est, e) < 0
		      : store_rollup_squares(q->s, &sq, e) < 0)
		return ERR_FAIL;
	if (store_rollup(q->s, SAMPLE_ALLOC, STORE_PROJ_THREAD, &b, &n, &rows,
			 e) < 0)
		return ERR_FAIL;
	if (!n || (corrected ? !est : !sq))
		return pool_samples(q, corrected, &q->pool[corrected], e);
	pool_sums(q, corrected, b, n, rows, sq, est, &q->pool[corrected]);
	return 0;
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
