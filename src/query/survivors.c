/*
 * Survivors over time (query.h): for each key, how many sampled objects
 * are alive at each point, from the liveness the store keeps (agent
 * samples: dead with a time, or alive at the end; OldObjectSample: alive
 * at the end, with its allocation time).
 *
 * One pass over the samples puts each object's life, a range of points,
 * into per-key difference arrays (+1 where it starts living, -1 where it
 * stops), so the cost is samples + keys x points, not their product.
 * Cohorts (by age, by GCs survived) change key along a life and are
 * walked point by point; lives are short in points, so that stays cheap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/old_emissions.h"
#include "query/query.h"
#include "query/query_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* The GCs of one recording: end times ascending, and when the last one
 * started. */
struct rec_gcs {
	int64_t *end_ns;
	size_t n;
	int64_t last_start_ns;
	int64_t last_number; /* the highest GC number (the count, when some
				were not recorded) */
	bool from_agent;     /* GCS records, not heap summaries */
};

struct survivors_state {
	struct query_survivors out;
	const struct query_survivor_series **ranked;
	struct rec_gcs *gcs; /* [n_recs] */
	uint32_t n_recs;
};

static const char *const age_names[] = {"age <1s", "age 1-10s", "age 10-60s",
					"age 1-10min", "age >=10min"};
static const char *const gcs_names[] = {"survived 0 GCs", "survived 1 GC",
					"survived 2-3 GCs", "survived 4-7 GCs",
					"survived 8+ GCs"};
#define N_COHORTS 5

static void state_free(struct survivors_state *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->out.n_series; i++) {
		free(st->out.series[i].live_samples);
		free(st->out.series[i].live_bytes);
		free(st->out.series[i].live_objects);
	}
	free(st->out.series);
	free(st->out.time_ns);
	free(st->ranked);
	for (i = 0; i < st->n_recs; i++)
		free(st->gcs[i].end_ns);
	free(st->gcs);
	free(st);
}

void query_survivors_free(struct query *q)
{
	state_free(q->surv);
	q->surv = NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The GCs of each recording: the agent's GC records where the store has
 * them, else the recording's "After GC" heap summaries (JFR), whose
 * times mark the ends of GCs.
 */
static int load_gcs(struct query *q, struct survivors_state *st, struct err *e)
{
	const struct store_gc *g;
	const struct store_heap *h;
	uint32_t n_g, n_h, i;

	if (store_gcs(q->s, &g, &n_g, e) < 0 ||
	    store_heap(q->s, &h, &n_h, e) < 0)
		return ERR_FAIL;
	st->n_recs = q->n_recs;
	st->gcs = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(*st->gcs));
	for (i = 0; i < q->n_recs; i++)
		st->gcs[i].last_start_ns = INT64_MIN;
	for (i = 0; i < n_g; i++) {
		struct rec_gcs *r = &st->gcs[g[i].recording];

		r->end_ns = xreallocarray(r->end_ns, r->n + 1, sizeof(int64_t));
		r->end_ns[r->n++] = g[i].end_ns;
		r->from_agent = true;
		if (g[i].start_ns > r->last_start_ns)
			r->last_start_ns = g[i].start_ns;
		if (g[i].number > r->last_number)
			r->last_number = g[i].number;
	}
	/* recordings without GC records (JFR): their "After GC" summaries */
	for (i = 0; i < n_h; i++) {
		struct rec_gcs *r = &st->gcs[h[i].recording];
		const char *when = store_str(q->s, h[i].when);

		if (r->from_agent || strcmp(when, "After GC") != 0)
			continue;
		r->end_ns = xreallocarray(r->end_ns, r->n + 1, sizeof(int64_t));
		r->end_ns[r->n++] = h[i].time_ns;
		r->last_number = (int64_t)r->n;
	}
	for (i = 0; i < q->n_recs; i++) {
		struct rec_gcs *r = &st->gcs[i];

		if (r->n > 1)
			qsort(r->end_ns, r->n, sizeof(int64_t), cmp_i64);
		/* heap summaries give no start: the end is the next best */
		if (r->n && r->last_start_ns == INT64_MIN)
			r->last_start_ns = r->end_ns[r->n - 1];
	}
	return 0;
}

/* The first of n ascending times that is > t (n when none). */
static size_t first_after(const int64_t *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* GCs of r that ended in (a, b]. */
static size_t gcs_between(const struct rec_gcs *r, int64_t a, int64_t b)
{
	return first_after(r->end_ns, r->n, b) -
	       first_after(r->end_ns, r->n, a);
}

/* One object's life, as the passes see it. */
struct life {
	uint64_t i;	   /* sample */
	size_t key;	   /* its group (plain groupings) */
	int64_t born, end; /* end: death, or the recording's end */
	int64_t gcs;	   /* GCs lived through (--min-gcs's count) */
	bool dead;
	bool gone;     /* OldObjectSample: not in its recording's last
			  emission; alive until end, then not known */
	bool rooted;   /* OldObjectSample: a root at its last showing */
	bool searched; /* ... whose emission searched for roots */
	bool kept;     /* ... in the last emission and an earlier one */
	int64_t bytes;
	double objects;
};

/*
 * The times at which a life enters each cohort: edge[c] is where cohort
 * c starts, edge[c + 1] where it ends (INT64_MAX: never).  By age, at
 * 1 s, 10 s, 1 min and 10 min after the allocation; by GCs survived, at
 * the ends of the 1st, 2nd, 4th and 8th GCs after it.
 */
static void cohort_edges(const struct survivors_state *st,
			 const struct query *q, enum query_cohort cohort,
			 const struct life *l, int64_t edge[N_COHORTS + 1])
{
	static const int64_t age[] = {1000000000ll, 10000000000ll,
				      60000000000ll, 600000000000ll};
	static const size_t nth[] = {1, 2, 4, 8};
	size_t c;

	edge[0] = INT64_MIN;
	edge[N_COHORTS] = INT64_MAX;
	for (c = 0; c < N_COHORTS - 1; c++) {
		if (cohort == COHORT_AGE) {
			if (__builtin_add_overflow(l->born, age[c],
						   &edge[c + 1]))
				edge[c + 1] = INT64_MAX;
		} else {
			const struct rec_gcs *r =
				&st->gcs[q->sm.recording[l->i]];
			size_t k = first_after(r->end_ns, r->n, l->born) +
				   nth[c] - 1;

			edge[c + 1] = k < r->n ? r->end_ns[k] : INT64_MAX;
		}
	}
}

/* First point whose time is >= t (n when none). */
static size_t point_at_or_after(const int64_t *time, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (time[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Points [from, to) at which the object is alive. */
static void life_points(const struct query_survivors *s, const struct life *l,
			size_t *from, size_t *to)
{
	*from = point_at_or_after(s->time_ns, s->n_buckets, l->born);
	/* dead: alive while t < death; else through its recording's end */
	*to = point_at_or_after(s->time_ns, s->n_buckets,
				l->dead || l->end == INT64_MAX ? l->end
							       : l->end + 1);
	if (!l->dead && l->end == INT64_MAX)
		*to = s->n_buckets; /* alive through the last point */
	if (*to < *from)
		*to = *from;
}

/* The quarter (0-3) of the range [s->start_ns, end] that t lies in. */
static unsigned born_quarter(const struct query_survivors *s, int64_t end,
			     int64_t t)
{
	double span = (double)end - (double)s->start_ns,
	       x = ((double)t - (double)s->start_ns) / (span > 0 ? span : 1);

	/* held in doubles: an object born long before a --from window's
	 * start is far below 0, past what an int holds */
	if (!(x * 4 >= 1)) /* NaN too */
		return 0;
	if (x * 4 >= 3)
		return 3;
	return (unsigned)(x * 4);
}

static void series_stats(const struct query_survivors *s,
			 struct query_survivor_series *x)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = (double)s->n_buckets;
	size_t b;

	double peak = 0, prev = 0, end = 0, late;
	double hx = 0, hy = 0, hxx = 0, hxy = 0, hn = 0; /* the later half */
	uint32_t falling = 0;

	x->peak_bytes = 0;
	x->peak_samples = 0;
	x->rising = 0;
	for (b = 0; b < s->n_buckets; b++) {
		double t = (double)(s->time_ns[b] - s->time_ns[0]) / 1e9,
		       v = s->by_samples ? (double)x->live_samples[b]
					 : (double)x->live_bytes[b];

		if (x->live_bytes[b] > x->peak_bytes)
			x->peak_bytes = x->live_bytes[b];
		if (x->live_samples[b] > x->peak_samples)
			x->peak_samples = x->live_samples[b];
		if (v > peak)
			peak = v;
		if (b && v > prev)
			x->rising++;
		if (b && v < prev)
			falling++;
		if (b >= s->n_buckets / 2) {
			hx += t;
			hy += v;
			hxx += t * t;
			hxy += t * v;
			hn++;
		}
		prev = end = v;
		sx += t;
		sy += v;
		sxx += t * t;
		sxy += t * v;
	}
	x->end_bytes = s->n_buckets ? x->live_bytes[s->n_buckets - 1] : 0;
	x->end_samples = s->n_buckets ? x->live_samples[s->n_buckets - 1] : 0;
	x->slope = s->n_buckets > 1 && n * sxx - sx * sx > 0
			   ? (n * sxy - sx * sy) / (n * sxx - sx * sx)
			   : 0;
	late = hn > 1 && hn * hxx - hx * hx > 0
		       ? (hn * hxy - hx * hy) / (hn * hxx - hx * hx)
		       : 0;
	/*
	 * A leak suspect: the live set rises at several points and seldom
	 * falls (a working set that churns falls as often as it rises), it
	 * still grows in the later half of the range at half its overall
	 * rate or more (a cache or a pool of held objects that fills and
	 * then stays level is not a leak), and it ends near its peak (a
	 * burst that died is not).
	 */
	x->suspect = s->n_buckets >= 4 && x->slope > 0 && x->rising >= 3 &&
		     falling * 4 <= x->rising && late >= 0.5 * x->slope &&
		     2 * end >= peak && peak > 0;
	/*
	 * jdk.OldObjectSample (old_emissions.h): an object is known alive
	 * only up to the last emission that shows it, so where one emission
	 * shows them all (a recording never dumped while it ran) every
	 * key's curve is the running count of its survivors' allocation
	 * times and cannot fall, and where the sampler's queue is still
	 * filling every key's count rises from one emission to the next.
	 * The curve's shape says nothing here; what does:
	 *  - its objects alive at the last emission were allocated all
	 *    along: in three quarters of the range at least (a working set
	 *    of the last seconds was allocated in the last quarter only, a
	 *    structure built at the start in the first);
	 *  - where earlier emissions showed some of its objects, the last
	 *    shows most of them again (kept >= gone): a working set's are
	 *    gone by the next emission;
	 *  - where the last emission searched for roots, some have one
	 *    (eventEmitter.cpp writes unreachable samples too, with no
	 *    root: garbage not yet collected).
	 */
	if (s->kind == SAMPLE_OLD_OBJECT)
		x->suspect = s->n_buckets >= 4 && x->slope > 0 &&
			     x->alive >= 3 &&
			     __builtin_popcount(x->born_quarters) >= 3 &&
			     x->kept >= x->gone &&
			     !(x->unrooted_searched == x->alive);
}

static int by_peak(const void *a, const void *b)
{
	const struct query_survivor_series *x = a, *y = b;

	if (x->peak_bytes != y->peak_bytes)
		return x->peak_bytes < y->peak_bytes ? 1 : -1;
	if (x->peak_samples != y->peak_samples)
		return x->peak_samples < y->peak_samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

/*
 * One sample's life from its liveness record rec (state set) and, for
 * jdk.OldObjectSample, its sightings; false when the options leave it
 * out (--before-last-gc, --min-gcs).
 */
static bool life_of(struct query *q, const struct survivors_state *st,
		    enum query_group by, const struct query_survivor_options *o,
		    const struct old_emissions *oe,
		    const struct store_liveness *rec, uint64_t i,
		    struct life *l)
{
	const struct rec_gcs *rg;
	int64_t alloc_gc = rec->alloc_gc, death_gc = rec->death_gc;

	l->i = i;
	l->key = o->cohort ? 0 : group_of(q, by, i);
	l->born = q->sm.time_ns[i];
	l->gone = l->rooted = l->searched = l->kept = false;
	l->dead = rec->state == STORE_LIVE_DEAD;
	l->end = l->dead ? rec->death_ns : q->recs[q->sm.recording[i]].end_ns;
	if (q->kind == SAMPLE_OLD_OBJECT) {
		/* alive from its allocation until the last emission
		 * that shows it, and not known after that */
		l->born = oe->s[i].born;
		l->end = oe->s[i].last_ns;
		l->gone = !oe->s[i].in_last;
		l->rooted = oe->s[i].root != 0;
		l->searched = oe->s[i].searched;
		l->kept = oe->s[i].in_last &&
			  oe->s[i].first_ns < oe->s[i].last_ns;
	}
	if (l->end < l->born)
		l->end = l->born;
	rg = &st->gcs[q->sm.recording[i]];
	if (o->before_last_gc && !(rg->n && l->born < rg->last_start_ns))
		return false;
	if (alloc_gc >= 0 && l->dead && death_gc >= 0)
		l->gcs = death_gc - alloc_gc - 1;
	else if (alloc_gc >= 0 && !l->dead)
		l->gcs = rg->last_number - alloc_gc;
	else /* from the GC times */
		l->gcs = (int64_t)gcs_between(rg, l->born, l->end) -
			 (l->dead ? 1 : 0);
	if (l->gcs < 0)
		l->gcs = 0; /* a damaged store's GC numbers */
	if (o->min_gcs > 0 && l->gcs < o->min_gcs)
		return false;
	l->bytes = q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
	l->objects = sample_kind_ht(q->kind) && q->sm.size[i] > 0
			     ? (double)l->bytes / (double)q->sm.size[i]
			     : 1.0;
	return true;
}

/* The lives that count, in sample order, and the range they span. */
struct lives {
	struct life *v;
	size_t n, alloc;
	int64_t lo, hi;
};

/*
 * The lives of the query's samples of its kind that pass its filters
 * and have a known liveness, in sample order: the passes below add the
 * objects' fractional counts in this order, so it fixes their sums.
 * Samples without a liveness record are counted as unknown.
 */
static void collect_lives(struct query *q, enum query_group by,
			  const struct query_survivor_options *o,
			  struct survivors_state *st,
			  const struct old_emissions *oe,
			  const struct store_liveness *live, uint32_t n_live,
			  struct lives *lv)
{
	size_t li = 0;
	uint64_t i;

	lv->lo = INT64_MAX;
	lv->hi = INT64_MIN;
	for (i = 0; i < q->sm.n && i < q->hi; i++) {
		const struct store_liveness *rec = NULL;
		uint32_t seq = q->sm.seq[i]; /* what the records name */
		struct life l;

		if (q->sm.kind[i] != q->kind)
			continue;
		while (li < n_live && live[li].sample < seq)
			li++;
		if (li < n_live && live[li].sample == seq && live[li].state)
			rec = &live[li];
		if (!query_sample_ok(q, i))
			continue;
		if (q->kind == SAMPLE_OLD_OBJECT && oe->s[i].repeat)
			continue; /* a later event shows this object */
		if (!rec) {
			st->out.samples_unknown++;
			continue;
		}
		if (!life_of(q, st, by, o, oe, rec, i, &l))
			continue;
		if (lv->n == lv->alloc) {
			lv->alloc = lv->alloc ? 2 * lv->alloc : 1024;
			lv->v = xreallocarray(lv->v, lv->alloc, sizeof(*lv->v));
		}
		lv->v[lv->n++] = l;
		if (l.born < lv->lo)
			lv->lo = l.born;
		if (l.end > lv->hi)
			lv->hi = l.end;
	}
}

/*
 * The points of [lo, hi]: every w ns (bucket_ns, else a round width for
 * the span) from lo rounded down to a multiple of w, the last at hi
 * itself.  Fails on a span past int64's range or past 100,000 points.
 */
static int place_points(struct query_survivors *s, int64_t lo, int64_t hi,
			int64_t bucket_ns, struct err *e)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;
	int64_t w, m;
	size_t b;

	if (span > (uint64_t)INT64_MAX)
		return err_set(e, ERR_FORMAT,
			       "lives span more than 292 years: the "
			       "store's times are damaged");
	w = bucket_ns > 0
		    ? bucket_ns
		    : query_round_bucket((int64_t)span, QUERY_ROUND_BUCKETS);
	if (span / (uint64_t)w >= 100000)
		return err_set(e, ERR_USAGE,
			       "%lld ns buckets make more than 100,000 "
			       "points over %.3f s; give a wider "
			       "--bucket",
			       (long long)w, (double)span / 1e9);
	m = lo % w;
	if (__builtin_sub_overflow(lo, m < 0 ? m + w : m, &s->start_ns))
		s->start_ns = lo; /* only at the bottom of int64 */
	s->bucket_ns = w;
	s->n_buckets =
		(size_t)(((uint64_t)hi - (uint64_t)s->start_ns) / (uint64_t)w) +
		1;
	s->time_ns = xmalloc(s->n_buckets * sizeof(int64_t));
	for (b = 0; b < s->n_buckets; b++)
		if (__builtin_mul_overflow((int64_t)(b + 1), w, &m) ||
		    __builtin_add_overflow(s->start_ns, m, &s->time_ns[b]))
			s->time_ns[b] = INT64_MAX;
	/* the last point is the end of the range, not past it */
	s->time_ns[s->n_buckets - 1] = hi;
	if (s->n_buckets > 1 && s->time_ns[s->n_buckets - 2] >= hi)
		s->n_buckets--, s->time_ns[s->n_buckets - 1] = hi;
	return 0;
}

/*
 * A series for each key in use, numbered as the lives first name them
 * (for cohorts, every cohort, in order), with zeroed difference arrays;
 * *slot_out[key] is the key's series, SIZE_MAX when unused (the
 * caller frees it).  Fails, allocating nothing, where keys x points
 * would take more memory than a view is worth.
 */
static int make_series(struct query *q, enum query_group by,
		       const struct query_survivor_options *o,
		       struct query_survivors *s, const struct lives *lv,
		       size_t **slot_out, struct err *e)
{
	size_t n_keys, k, *slot;

	n_keys = o->cohort		 ? N_COHORTS
		 : by == GROUP_CLASS	 ? (size_t)q->n_classes + 1
		 : by == GROUP_THREAD	 ? (size_t)q->n_threads + 1
		 : by == GROUP_RECORDING ? q->n_recs
					 : q->n_sites;
	slot = xmalloc((n_keys ? n_keys : 1) * sizeof(size_t));
	for (k = 0; k < n_keys; k++)
		slot[k] = SIZE_MAX;
	if (o->cohort) /* every cohort, in order */
		for (k = 0; k < N_COHORTS; k++)
			slot[k] = s->n_series++;
	else
		for (k = 0; k < lv->n; k++)
			if (slot[lv->v[k].key] == SIZE_MAX)
				slot[lv->v[k].key] = s->n_series++;
	/* every key keeps three values a point: bound what that costs */
	if ((double)s->n_series * (double)(s->n_buckets + 1) > 20e6) {
		size_t keys = s->n_series;

		s->n_series = 0;
		free(slot);
		return err_set(e, ERR_USAGE,
			       "%zu keys over %zu points would take %.0f MB; "
			       "give a wider --bucket, a coarser --by or a "
			       "filter",
			       keys, s->n_buckets,
			       (double)keys * (double)(s->n_buckets + 1) * 24 /
				       1e6);
	}
	s->series = xcalloc(s->n_series ? s->n_series : 1, sizeof(*s->series));
	for (k = 0; k < n_keys; k++) {
		struct query_survivor_series *x;

		if (slot[k] == SIZE_MAX)
			continue;
		x = &s->series[slot[k]];
		x->key = o->cohort == COHORT_AGE   ? age_names[k]
			 : o->cohort == COHORT_GCS ? gcs_names[k]
						   : query_group_key(q, by, k);
		/* one extra slot: the difference arrays' far end */
		x->live_samples = xcalloc(s->n_buckets + 1, sizeof(uint64_t));
		x->live_bytes = xcalloc(s->n_buckets + 1, sizeof(int64_t));
		x->live_objects = xcalloc(s->n_buckets + 1, sizeof(double));
		x->median_to_collection_ns = x->median_gcs = -1;
	}
	*slot_out = slot;
	return 0;
}

/* The lifetimes and the GCs lived through of each series' dead objects,
 * whose medians the series report. */
struct deaths {
	int64_t **lifetimes, **gcs_lived; /* [n_series][n[series]] */
	size_t *n;
};

/* Life l, alive at points [from, to), into series x (index si) of a
 * plain grouping: its counts and its difference arrays. */
static void add_life(const struct query_survivors *s,
		     struct query_survivor_series *x, size_t si,
		     struct deaths *d, const struct life *l, size_t from,
		     size_t to)
{
	x->samples++;
	if (l->dead) {
		x->dead++;
		d->lifetimes[si] = xreallocarray(d->lifetimes[si], d->n[si] + 1,
						 sizeof(int64_t));
		d->gcs_lived[si] = xreallocarray(d->gcs_lived[si], d->n[si] + 1,
						 sizeof(int64_t));
		d->gcs_lived[si][d->n[si]] = l->gcs;
		d->lifetimes[si][d->n[si]++] = l->end - l->born;
	} else if (l->gone) {
		x->gone++;
	} else {
		x->alive++;
		x->kept += l->kept;
		x->born_quarters |=
			1u << born_quarter(s, s->time_ns[s->n_buckets - 1],
					   l->born);
		if (l->rooted)
			x->rooted++;
		else if (l->searched)
			x->unrooted_searched++;
	}
	/* differences: summed into levels by finish_series() */
	x->live_samples[from]++;
	x->live_samples[to]--;
	x->live_bytes[from] = add_wrap(x->live_bytes[from], l->bytes);
	x->live_bytes[to] = add_wrap(x->live_bytes[to], -l->bytes);
	x->live_objects[from] += l->objects;
	x->live_objects[to] -= l->objects;
}

/* Life l, alive at points [from, to), into the cohorts' series: it
 * crosses cohorts at known times, so it makes at most five ranges of
 * points, each a difference-array update. */
static void add_cohort_life(const struct survivors_state *st,
			    const struct query *q, enum query_cohort cohort,
			    struct query_survivors *s, const size_t *slot,
			    const struct life *l, size_t from, size_t to)
{
	int64_t edge[N_COHORTS + 1];
	size_t c;

	cohort_edges(st, q, cohort, l, edge);
	for (c = 0; c < N_COHORTS; c++) {
		struct query_survivor_series *x = &s->series[slot[c]];
		size_t a = point_at_or_after(s->time_ns, s->n_buckets, edge[c]);
		size_t z = point_at_or_after(s->time_ns, s->n_buckets,
					     edge[c + 1]);

		if (a < from)
			a = from;
		if (z > to)
			z = to;
		if (a >= z)
			continue;
		x->live_samples[a]++;
		x->live_samples[z]--;
		x->live_bytes[a] = add_wrap(x->live_bytes[a], l->bytes);
		x->live_bytes[z] = add_wrap(x->live_bytes[z], -l->bytes);
		x->live_objects[a] += l->objects;
		x->live_objects[z] -= l->objects;
	}
}

/* Each series' differences summed into levels, the medians of its dead
 * (freeing d's per-series arrays) and its statistics. */
static void finish_series(struct query_survivors *s, struct deaths *d)
{
	size_t k, b;

	for (k = 0; k < s->n_series; k++) {
		struct query_survivor_series *x = &s->series[k];

		for (b = 1; b < s->n_buckets; b++) {
			x->live_samples[b] += x->live_samples[b - 1];
			x->live_bytes[b] = add_wrap(x->live_bytes[b],
						    x->live_bytes[b - 1]);
			x->live_objects[b] += x->live_objects[b - 1];
		}
		for (b = 0; b < s->n_buckets; b++)
			if (fabs(x->live_objects[b]) < 1e-6)
				x->live_objects[b] = 0; /* float residue */
		if (d->n[k]) {
			qsort(d->lifetimes[k], d->n[k], sizeof(int64_t),
			      cmp_i64);
			x->median_to_collection_ns =
				d->lifetimes[k][d->n[k] / 2];
			qsort(d->gcs_lived[k], d->n[k], sizeof(int64_t),
			      cmp_i64);
			x->median_gcs = d->gcs_lived[k][d->n[k] / 2];
		}
		free(d->lifetimes[k]);
		free(d->gcs_lived[k]);
		series_stats(s, x);
	}
}

int query_survivors(struct query *q, enum query_group by,
		    const struct query_survivor_options *o,
		    const struct query_survivors **out, struct err *e)
{
	struct survivors_state *st;
	struct query_survivors *s;
	const struct store_liveness *live;
	uint32_t n_live;
	struct lives lv = {0};
	struct deaths d;
	size_t *slot = NULL, k, n;
	struct old_emissions oe;

	if (by == GROUP_APP_SITE)
		query_app_sites(q);
	query_survivors_free(q);
	*out = NULL;
	if (!sample_kind_has_fate(q->kind))
		return err_set(e, ERR_USAGE,
			       "%s samples carry no liveness; survivors come "
			       "from heapsift agent recordings "
			       "(--kind agent) and jdk.OldObjectSample "
			       "(--kind old)",
			       sample_kind_name(q->kind));
	if (store_liveness(q->s, &live, &n_live, e) < 0 ||
	    query_materialize(q, e) < 0)
		return ERR_FAIL;
	st = xcalloc(1, sizeof(*st));
	q->surv = st;
	s = &st->out;
	s->kind = q->kind;
	if (load_gcs(q, st, e) < 0)
		return ERR_FAIL;
	memset(&oe, 0, sizeof(oe));
	if (q->kind == SAMPLE_OLD_OBJECT && query_old_emissions(q, &oe, e) < 0)
		return ERR_FAIL;

	collect_lives(q, by, o, st, &oe, live, n_live, &lv);
	s->samples_used = lv.n;
	s->by_samples = true;
	for (k = 0; k < lv.n; k++)
		if (lv.v[k].bytes) {
			s->by_samples = false;
			break;
		}
	query_old_emissions_release(&oe);
	if (q->o.from_ns != INT64_MIN && q->o.from_ns > lv.lo)
		lv.lo = q->o.from_ns;
	if (q->o.to_ns != INT64_MAX && q->o.to_ns < lv.hi)
		lv.hi = q->o.to_ns;
	if (!lv.n || lv.hi < lv.lo) {
		free(lv.v);
		*out = s;
		return 0;
	}
	if (place_points(s, lv.lo, lv.hi, o->bucket_ns, e) < 0 ||
	    make_series(q, by, o, s, &lv, &slot, e) < 0) {
		free(lv.v);
		return ERR_FAIL;
	}

	n = s->n_series ? s->n_series : 1;
	d.lifetimes = xcalloc(n, sizeof(int64_t *));
	d.gcs_lived = xcalloc(n, sizeof(int64_t *));
	d.n = xcalloc(n, sizeof(size_t));
	for (k = 0; k < lv.n; k++) {
		const struct life *l = &lv.v[k];
		size_t from, to;

		life_points(s, l, &from, &to);
		if (o->cohort)
			add_cohort_life(st, q, o->cohort, s, slot, l, from, to);
		else
			add_life(s, &s->series[slot[l->key]], slot[l->key], &d,
				 l, from, to);
	}
	finish_series(s, &d);
	free(d.lifetimes);
	free(d.gcs_lived);
	free(d.n);
	free(slot);
	free(lv.v);
	if (s->n_series > 1 && !o->cohort)
		qsort(s->series, s->n_series, sizeof(*s->series), by_peak);
	*out = s;
	return 0;
}

static int by_suspicion(const void *a, const void *b)
{
	const struct query_survivor_series *x =
		*(const struct query_survivor_series *const *)a;
	const struct query_survivor_series *y =
		*(const struct query_survivor_series *const *)b;

	if (x->suspect != y->suspect)
		return x->suspect ? -1 : 1;
	if (x->slope != y->slope)
		return x->slope < y->slope ? 1 : -1;
	return strcmp(x->key, y->key);
}

size_t query_leak_suspects(struct query *q,
			   const struct query_survivor_series *const **out)
{
	struct survivors_state *st = q->surv;
	size_t i;

	*out = NULL;
	if (!st)
		return 0;
	free(st->ranked);
	st->ranked = xmalloc((st->out.n_series ? st->out.n_series : 1) *
			     sizeof(*st->ranked));
	for (i = 0; i < st->out.n_series; i++)
		st->ranked[i] = &st->out.series[i];
	if (st->out.n_series > 1)
		qsort(st->ranked, st->out.n_series, sizeof(*st->ranked),
		      by_suspicion);
	*out = st->ranked;
	return st->out.n_series;
}
