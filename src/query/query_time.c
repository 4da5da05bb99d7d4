/*
 * The timeline: two passes, one for the span of the filtered samples,
 * one that adds them into buckets; a rollup bucket is read whole when no
 * timeline bucket starts inside it, else its samples are.  Each bucket
 * also says how much of it the recordings cover (query_covered()), the
 * time its rates are over.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* --- time --------------------------------------------------------------------- */

int64_t query_round_bucket(int64_t span, int64_t max_buckets)
{
	static const int64_t steps[] = {
		1000000,	2000000,	5000000,       10000000,
		20000000,	50000000,	100000000,     200000000,
		500000000,	1000000000,	2000000000,    5000000000,
		10000000000,	15000000000,	30000000000,   60000000000,
		120000000000,	300000000000,	600000000000,  900000000000,
		1800000000000,	3600000000000,	7200000000000, 21600000000000,
		43200000000000, 86400000000000,
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (span / steps[i] + 1 <= max_buckets)
			return steps[i];
	return steps[sizeof(steps) / sizeof(steps[0]) - 1];
}

/* --- the time covered ---------------------------------------------------------- */

static int cmp_span(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* q->cover: the spans of the recordings the filters keep (rec_ok) with
 * samples of q's kind, cut to the window, sorted and merged. */
static void cover_make(struct query *q)
{
	const struct query_recording *r;
	size_t n, i, k = 0;
	int64_t *c;

	q->cover_made = true;
	query_recordings(q, &r, &n);
	c = xcalloc(2 * (n ? n : 1), sizeof(*c));
	for (i = 0; i < n; i++) {
		int64_t a = r[i].start_ns, b = r[i].end_ns;

		/* the recording filters: --recording, and a JVM's set */
		if ((q->rec_ok && !query_rec_ok(q, i)) ||
		    !r[i].samples[q->kind] || a == INT64_MIN || b <= a)
			continue;
		if (a < q->o.from_ns)
			a = q->o.from_ns;
		if (b > q->o.to_ns)
			b = q->o.to_ns;
		if (b <= a)
			continue;
		c[2 * k] = a;
		c[2 * k + 1] = b;
		k++;
	}
	qsort(c, k, 2 * sizeof(*c), cmp_span);
	q->n_cover = 0;
	for (i = 0; i < k; i++) {
		size_t m = q->n_cover;

		if (m && c[2 * i] <= c[2 * m - 1]) {
			if (c[2 * i + 1] > c[2 * m - 1])
				c[2 * m - 1] = c[2 * i + 1];
			continue;
		}
		c[2 * m] = c[2 * i];
		c[2 * m + 1] = c[2 * i + 1];
		q->n_cover++;
	}
	q->cover = c;
}

/* The covered nanoseconds inside [a, b), and the first and last (its
 * end) of them in *from, *to (a, a where none).  *at: the first span
 * that may reach a; callers that ask in increasing a keep it, so that a
 * timeline of many buckets over many recordings looks at each span a
 * few times only. */
static int64_t cover_in(const struct query *q, int64_t a, int64_t b,
			int64_t *from, int64_t *to, size_t *at)
{
	int64_t sum = 0, d;
	size_t i;

	*from = *to = a;
	while (*at < q->n_cover && q->cover[2 * *at + 1] <= a)
		(*at)++;
	for (i = *at; i < q->n_cover && q->cover[2 * i] < b; i++) {
		int64_t x = q->cover[2 * i] > a ? q->cover[2 * i] : a;
		int64_t y = q->cover[2 * i + 1] < b ? q->cover[2 * i + 1] : b;

		if (y <= x)
			continue;
		if (!sum)
			*from = x;
		*to = y;
		/* spans of a sane store; a damaged one's are held */
		if (__builtin_sub_overflow(y, x, &d) ||
		    __builtin_add_overflow(sum, d, &sum))
			sum = INT64_MAX;
	}
	return sum;
}

int64_t query_covered(struct query *q, int64_t *from_ns, int64_t *to_ns)
{
	int64_t from, to, sum;

	if (!q->cover_made)
		cover_make(q);
	if (!q->n_cover) {
		from = to = 0;
		sum = 0;
	} else {
		size_t at = 0;

		sum = cover_in(q, INT64_MIN, INT64_MAX, &from, &to, &at);
	}
	if (from_ns)
		*from_ns = from;
	if (to_ns)
		*to_ns = to;
	return sum;
}

bool query_cover_widens(int64_t first, int64_t last, int64_t cf, int64_t ct)
{
	return ct > cf && first >= cf && last <= ct &&
	       (uint64_t)ct - (uint64_t)cf <= QUERY_COVER_SPAN_MAX;
}

/* The first and last times of the samples the query counts (*first
 * INT64_MAX: none), from the rows' and the edges' samples. */
static int timeline_span(struct query *q, int64_t *first, int64_t *last,
			 struct err *e)
{
	struct query_pass p;
	uint64_t i;
	int rc;

	if (query_pass_init(q, &p, 0, 0, 0, e) < 0)
		return ERR_FAIL;
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS) {
			uint32_t r;

			for (r = 0; r < p.n_rows; r++)
				if (query_row_ok(q, &p, &p.rows[r])) {
					if (p.rows[r].first_ns < *first)
						*first = p.rows[r].first_ns;
					if (p.rows[r].last_ns > *last)
						*last = p.rows[r].last_ns;
				}
			continue;
		}
		for (i = q->lo; i < q->hi; i++)
			if ((p.rec == PASS_ANY_REC ||
			     q->sm.recording[i] == p.rec) &&
			    query_sample_ok(q, i)) {
				if (q->sm.time_ns[i] < *first)
					*first = q->sm.time_ns[i];
				if (q->sm.time_ns[i] > *last)
					*last = q->sm.time_ns[i];
			}
	}
	query_pass_release(&p);
	return rc < 0 ? ERR_FAIL : 0;
}

/* The timeline's buckets: n of w ns from base. */
struct grid {
	int64_t base, w;
	size_t n;
};

/*
 * The buckets over [first, last], widened to the time the recordings
 * cover where that holds the samples: *bucket_ns wide (0: a round width
 * for the span, written back), from first rounded down to a multiple of
 * it.  Fails on a span past int64's range or past 10 million buckets.
 */
static int timeline_grid(struct query *q, int64_t first, int64_t last,
			 int64_t *bucket_ns, struct grid *g, struct err *e)
{
	int64_t cf, ct, m;
	uint64_t span, r;

	/* the buckets hold the time covered too, where no sample fell */
	if (query_covered(q, &cf, &ct) > 0 &&
	    query_cover_widens(first, last, cf, ct)) {
		first = cf;
		/* a sample at the very end stays in */
		if (ct - 1 > last)
			last = ct - 1;
	}
	/* a damaged store may hold any times: no step may overflow */
	span = (uint64_t)last - (uint64_t)first;
	if (span > (uint64_t)INT64_MAX)
		return err_set(e, ERR_FORMAT,
			       "samples span more than 292 years: "
			       "the store's times are damaged");
	g->w = *bucket_ns > 0
		       ? *bucket_ns
		       : query_round_bucket((int64_t)span, QUERY_ROUND_BUCKETS);
	*bucket_ns = g->w;
	m = first % g->w;
	r = (uint64_t)(m < 0 ? m + g->w : m); /* first mod w */
	if (__builtin_sub_overflow(first, (int64_t)r, &g->base))
		g->base = first; /* only at the very bottom of int64 */
	if (((uint64_t)last - (uint64_t)g->base) / (uint64_t)g->w >= 10000000)
		return err_set(e, ERR_USAGE,
			       "%lld ns buckets make more than 10 "
			       "million over %.3f s; give a wider "
			       "--bucket",
			       (long long)g->w, (double)span / 1e9);
	g->n = (size_t)(((uint64_t)last - (uint64_t)g->base) / (uint64_t)g->w) +
	       1;
	return 0;
}

/* q->buckets anew for grid g: each one's start and the time the
 * recordings cover in it. */
static void timeline_cover(struct query *q, const struct grid *g)
{
	size_t b, at;

	free(q->buckets);
	q->buckets = xcalloc(g->n, sizeof(*q->buckets));
	for (b = 0, at = 0; b < g->n; b++) {
		struct query_bucket *x = &q->buckets[b];
		int64_t end;

		x->start_ns = (int64_t)((uint64_t)g->base +
					(uint64_t)b * (uint64_t)g->w);
		if (__builtin_add_overflow(x->start_ns, g->w, &end))
			end = INT64_MAX;
		x->covered_ns = cover_in(q, x->start_ns, end, &x->cover_from_ns,
					 &x->cover_to_ns, &at);
	}
}

/* A batch of rollup rows into the buckets, each row whole into the
 * bucket of its first sample; var: each bucket's, for its ±. */
static void timeline_add_rows(struct query *q, const struct query_pass *p,
			      const struct grid *g, struct query_var *var,
			      struct query_total *total)
{
	uint32_t r;
	size_t b;

	for (r = 0; r < p->n_rows; r++) {
		const struct store_rollup_row *x = &p->rows[r];

		if (!query_row_ok(q, p, x))
			continue;
		b = (size_t)(((uint64_t)x->first_ns - (uint64_t)g->base) /
			     (uint64_t)g->w);
		if (b >= g->n)
			b = g->n - 1;
		q->buckets[b].samples += x->samples;
		q->buckets[b].est_bytes =
			add_sat(q->buckets[b].est_bytes, x->bytes);
		if (p->sq)
			var[b].sq = sq_add(var[b].sq,
					   u128_of(p->sq[r].lo, p->sq[r].hi));
		var[b].pool = sq_add(var[b].pool, pool_row(p, x));
		total_add_rows(total, x->samples, x->bytes, x->first_ns,
			       x->last_ns);
	}
}

/* A batch of samples (the window's edges, and rollup buckets a timeline
 * bucket starts in) into the buckets; var: theirs, for the ±. */
static void timeline_add_samples(struct query *q, const struct query_pass *p,
				 const struct grid *g, struct query_var *var,
				 struct query_total *total)
{
	const bool agent = sample_kind_ht(q->kind);
	uint64_t i;
	size_t b;

	for (i = q->lo; i < q->hi; i++) {
		int64_t bytes;

		if ((p->rec != PASS_ANY_REC && q->sm.recording[i] != p->rec) ||
		    !query_sample_ok(q, i))
			continue;
		bytes = q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
		b = (size_t)(((uint64_t)q->sm.time_ns[i] - (uint64_t)g->base) /
			     (uint64_t)g->w);
		if (b >= g->n)
			b = g->n - 1; /* base clamped at the bottom */
		q->buckets[b].samples++;
		q->buckets[b].est_bytes =
			add_sat(q->buckets[b].est_bytes, bytes);
		var[b].sq = sq_add(var[b].sq,
				   sq_of(p->var ? p->var[i] : bytes,
					 agent ? q->sm.size[i] : 0, agent));
		var[b].pool = sq_add(var[b].pool, pool_sample(q, p, i, bytes));
		total_add(total, q->sm.time_ns[i], bytes);
	}
}

/*
 * The second pass: the samples into q->buckets (timeline_cover()'s),
 * then each bucket's ± and, where samples fell outside every
 * recording's time (a damaged store), the bucket as its cover.
 */
static int timeline_fill(struct query *q, const struct grid *g,
			 struct query_total *total, struct err *e)
{
	/* each bucket's sum of squares and pooled term, for its ± (as
	 * query_top's) */
	struct query_var *var = xcalloc(g->n, sizeof(*var));
	struct query_pass p;
	size_t b;
	int rc;

	/* rollup buckets in which a timeline bucket starts are read as
	 * samples: the others fall in one timeline bucket each */
	if (query_pass_init(q, &p, PASS_NEED_SQUARES, g->base, g->w, e) < 0) {
		free(var);
		return ERR_FAIL;
	}
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS)
			timeline_add_rows(q, &p, g, var, total);
		else
			timeline_add_samples(q, &p, g, var, total);
	}
	query_pass_release(&p);
	for (b = 0; b < g->n; b++) {
		struct query_bucket *x = &q->buckets[b];

		x->rel_err = query_rel_err(q->kind, x->samples, x->est_bytes,
					   var[b].sq, var[b].pool);
		/* samples where no recording's time is: a damaged store */
		if (x->samples && !x->covered_ns) {
			x->cover_from_ns = x->start_ns;
			if (__builtin_add_overflow(x->start_ns, g->w,
						   &x->cover_to_ns))
				x->cover_to_ns = INT64_MAX;
			x->covered_ns = x->cover_to_ns - x->start_ns;
		}
	}
	free(var);
	return rc < 0 ? ERR_FAIL : 0;
}

int query_timeline(struct query *q, int64_t *bucket_ns,
		   const struct query_bucket **out, size_t *n_out,
		   struct query_total *total, struct err *e)
{
	int64_t first = INT64_MAX, last = INT64_MIN;
	struct grid g = {0, 0, 0};

	/* two passes: the span, then the buckets */
	if (timeline_span(q, &first, &last, e) < 0)
		return ERR_FAIL;
	total_init(total);
	*out = NULL;
	*n_out = 0;
	if (first == INT64_MAX)
		return 0;
	if (timeline_grid(q, first, last, bucket_ns, &g, e) < 0)
		return ERR_FAIL;
	timeline_cover(q, &g);
	if (timeline_fill(q, &g, total, e) < 0)
		return ERR_FAIL;
	*out = q->buckets;
	*n_out = g.n;
	return 0;
}
