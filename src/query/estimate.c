/*
 * Estimates (estimate.h, docs/estimates.md): the corrected estimate of
 * jdk.ObjectAllocationSample's bytes, and the query's side of it, which
 * turns a store's ObjectAllocationSample and OutsideTLAB events into one
 * set of samples carrying corrected bytes, that the passes then read in
 * place of the kind's own (query_pass.c).
 *
 * A sample's weight is every byte its thread allocated since its
 * previous sample, objects allocated outside a TLAB included; HotSpot
 * sends a sample taken at an allocation outside a TLAB just before that
 * allocation's OutsideTLAB event.  So each OutsideTLAB event belongs to
 * one sample's weight: the sample it follows at once, when that is its
 * own object, else the thread's next sample.  Its bytes go to its own
 * stack, exactly, and the sample keeps the rest (the TLAB bytes its
 * thread retired since the previous sample).  The rest of a sample whose
 * object was a large one is TLAB bytes of small objects: it goes to the
 * recording's other samples, in proportion to their rests.
 *
 * It does not correct recordings without OutsideTLAB events (nothing
 * tells there which bytes were large objects'), nor the per-sample
 * memory it needs: the set is two columns' worth per sample of the two
 * kinds, which are throttled (ObjectAllocationSample) or rare
 * (OutsideTLAB) events.
 */
#include "query/estimate.h"
#include "query/query.h"
#include "query/query_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

struct thread_state {
	uint32_t recording;
	bool used;
	size_t last;	  /* the thread's previous event, if a sample */
	bool last_sample; /* ... it was */
	int64_t pending;  /* outside bytes waiting for the next sample */
};

static int rw_cmp(const void *x, const void *y)
{
	const struct {
		uint32_t rec;
		int64_t w;
	} *a = x, *b = y;

	if (a->rec != b->rec)
		return a->rec < b->rec ? -1 : 1;
	return a->w < b->w ? -1 : a->w > b->w;
}

static int64_t add_hold(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

void estimate_correct(const struct est_event *ev, size_t n, uint32_t n_threads,
		      int64_t *out, int64_t *var, struct est_stats *st)
{
	struct thread_state *ts = xcalloc((size_t)n_threads + 1, sizeof(*ts));
	unsigned char *own = xcalloc(n ? n : 1, 1);
	/* per recording: the rests of every sample, and of those whose
	 * object was in a TLAB */
	unsigned __int128 *all = NULL, *tlab = NULL;
	uint32_t n_recs = 0;
	size_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < n; i++) {
		const struct est_event *x = &ev[i];
		uint32_t t = x->thread < n_threads ? x->thread : n_threads;
		struct thread_state *s = &ts[t];
		int64_t bytes = x->bytes > 0 ? x->bytes : 0;

		if (x->recording >= n_recs) {
			uint32_t m = x->recording + 1;

			all = xreallocarray(all, m, sizeof(*all));
			tlab = xreallocarray(tlab, m, sizeof(*tlab));
			memset(all + n_recs, 0, (m - n_recs) * sizeof(*all));
			memset(tlab + n_recs, 0, (m - n_recs) * sizeof(*tlab));
			n_recs = m;
		}
		if (!s->used || s->recording != x->recording) {
			memset(s, 0, sizeof(*s));
			s->used = true;
			s->recording = x->recording;
		}
		out[i] = 0;
		var[i] = 0;
		switch (x->kind) {
		case SAMPLE_ALLOC:
			/* out[] holds the outside bytes it covers until the
			 * second loop */
			out[i] = s->pending;
			s->pending = 0;
			s->last = i;
			s->last_sample = true;
			break;
		case SAMPLE_TLAB_OUTSIDE: {
			const struct est_event *p =
				s->last_sample ? &ev[s->last] : NULL;

			out[i] = bytes;
			if (p && !own[s->last] && p->node == x->node &&
			    p->cls == x->cls &&
			    x->time_ns - p->time_ns <= ESTIMATE_OWN_GAP_NS &&
			    add_hold(out[s->last], bytes) <=
				    (p->bytes > 0 ? p->bytes : 0)) {
				out[s->last] += bytes;
				own[s->last] = 1;
				st->own++;
			} else {
				s->pending = add_hold(s->pending, bytes);
			}
			s->last_sample = false;
			break;
		}
		default: /* InNewTLAB: the sample before it was in a TLAB */
			s->last_sample = false;
		}
	}
	/* the outside bytes still pending belong to no sample: they are
	 * counted at their own stacks, and taken from nothing */
	for (i = 0; i < n; i++) {
		int64_t w, r;

		if (ev[i].kind != SAMPLE_ALLOC)
			continue;
		w = ev[i].bytes > 0 ? ev[i].bytes : 0;
		r = w - out[i];
		if (r < 0) {
			st->negative++;
			r = 0;
		}
		out[i] = r;
		all[ev[i].recording] += (uint64_t)r;
		if (!own[i])
			tlab[ev[i].recording] += (uint64_t)r;
	}
	for (i = 0; i < n; i++) {
		unsigned __int128 a, b, c;

		if (ev[i].kind != SAMPLE_ALLOC) {
			if (ev[i].kind != SAMPLE_TLAB_OUTSIDE)
				out[i] = 0;
			continue;
		}
		if (own[i]) {
			out[i] = 0;
			continue;
		}
		a = all[ev[i].recording];
		b = tlab[ev[i].recording];
		/* exact in integers: floor(r * all / tlab); the sums of the
		 * results are then the same whatever order adds them */
		c = b ? (unsigned __int128)(uint64_t)out[i] * (a / b) +
				    (unsigned __int128)(uint64_t)out[i] *
					    (a % b) / b
		      : (uint64_t)out[i];
		out[i] = c > INT64_MAX ? INT64_MAX : (int64_t)c;
		var[i] = out[i];
	}
	/* the typical TLAB of each recording: the median weight of its
	 * samples taken in a new TLAB, which is one TLAB's bytes or a few
	 * (docs/estimates.md); an outside object smaller than that is of
	 * a size some objects of which went into TLABs */
	{
		struct rw {
			uint32_t rec;
			int64_t w;
		} *m = xmalloc((n ? n : 1) * sizeof(*m));
		int64_t *med = xcalloc(n_recs ? n_recs : 1, sizeof(*med));
		size_t k = 0, a;

		for (i = 0; i < n; i++)
			if (ev[i].kind == SAMPLE_ALLOC && !own[i])
				m[k++] = (struct rw){ev[i].recording,
						     ev[i].bytes};
		qsort(m, k, sizeof(*m), rw_cmp);
		for (a = 0; a < k;) {
			size_t b = a;

			while (b < k && m[b].rec == m[a].rec)
				b++;
			med[m[a].rec] = m[a + (b - a) / 2].w;
			a = b;
		}
		for (i = 0; i < n; i++)
			if (ev[i].kind == SAMPLE_TLAB_OUTSIDE &&
			    ev[i].bytes < med[ev[i].recording])
				var[i] = -1;
		free(m);
		free(med);
	}
	free(all);
	free(tlab);
	free(own);
	free(ts);
}

/* --- the query's side ------------------------------------------------------ */

struct corr_set {
	struct store_samples sm; /* points into the arrays below */
	uint32_t *seq, *recording, *thread, *cls, *node;
	int64_t *time_ns, *bytes, *var;
	uint8_t *kind, *flags;
	struct est_stats st;
};

void query_corrected_free(struct query *q)
{
	struct corr_set *c = q->corr;

	if (!c)
		return;
	free(c->seq);
	free(c->recording);
	free(c->thread);
	free(c->cls);
	free(c->node);
	free(c->time_ns);
	free(c->bytes);
	free(c->var);
	free(c->kind);
	free(c->flags);
	free(c);
	q->corr = NULL;
}

/* The store's samples of ObjectAllocationSample, OutsideTLAB and, where
 * there are some, InNewTLAB, merged by seq into one corrected set whose
 * samples are all of the query's kind (ObjectAllocationSample). */
int query_corrected_build(struct query *q, struct err *e)
{
	static const int kinds[] = {SAMPLE_ALLOC, SAMPLE_TLAB_OUTSIDE,
				    SAMPLE_TLAB_NEW};
	struct store_samples m[3];
	uint64_t at[3] = {0, 0, 0}, n = 0, k_n = 0, i;
	struct est_event *ev;
	int64_t *out, *var;
	struct corr_set *c;
	int k;

	if (q->corr)
		return 0;
	memset(m, 0, sizeof(m));
	for (k = 0; k < 3; k++) {
		if (!q->kind_counts[kinds[k]])
			continue;
		if (store_kind_samples(q->s, kinds[k], &m[k], e) < 0)
			return ERR_FAIL;
		n += m[k].n;
	}
	ev = xmalloc((n ? n : 1) * sizeof(*ev));
	out = xmalloc((n ? n : 1) * sizeof(*out));
	var = xmalloc((n ? n : 1) * sizeof(*var));
	/* merge by seq: the store's time order, ties in import order */
	for (i = 0; i < n; i++) {
		int best = -1;

		for (k = 0; k < 3; k++)
			if (at[k] < m[k].n &&
			    (best < 0 ||
			     m[k].seq[at[k]] < m[best].seq[at[best]]))
				best = k;
		{
			const struct store_samples *s = &m[best];
			uint64_t j = at[best]++;

			ev[i].time_ns = s->time_ns[j];
			ev[i].recording = s->recording[j];
			ev[i].thread = s->thread[j];
			ev[i].cls = s->cls[j];
			ev[i].node = s->node[j];
			ev[i].kind = (uint8_t)kinds[best];
			ev[i].bytes = s->bytes[j] == REC_NONE ? 0 : s->bytes[j];
			if (kinds[best] != SAMPLE_TLAB_NEW)
				k_n++;
		}
	}
	c = xcalloc(1, sizeof(*c));
	estimate_correct(ev, n, q->n_threads, out, var, &c->st);
	c->seq = xmalloc((k_n ? k_n : 1) * sizeof(uint32_t));
	c->recording = xmalloc((k_n ? k_n : 1) * sizeof(uint32_t));
	c->thread = xmalloc((k_n ? k_n : 1) * sizeof(uint32_t));
	c->cls = xmalloc((k_n ? k_n : 1) * sizeof(uint32_t));
	c->node = xmalloc((k_n ? k_n : 1) * sizeof(uint32_t));
	c->time_ns = xmalloc((k_n ? k_n : 1) * sizeof(int64_t));
	c->bytes = xmalloc((k_n ? k_n : 1) * sizeof(int64_t));
	c->var = xmalloc((k_n ? k_n : 1) * sizeof(int64_t));
	c->kind = xmalloc(k_n ? k_n : 1);
	c->flags = xcalloc(k_n ? k_n : 1, 1);
	{
		uint64_t j = 0;

		memset(at, 0, sizeof(at));
		for (i = 0; i < n; i++) {
			if (ev[i].kind == SAMPLE_TLAB_NEW)
				continue;
			c->seq[j] = (uint32_t)j;
			c->recording[j] = ev[i].recording;
			c->thread[j] = ev[i].thread;
			c->cls[j] = ev[i].cls;
			c->node[j] = ev[i].node;
			c->time_ns[j] = ev[i].time_ns;
			c->bytes[j] = out[i];
			c->var[j] = var[i];
			c->kind[j] = SAMPLE_ALLOC;
			j++;
		}
	}
	/* the truncated flags, from the kinds' own columns, in the same
	 * merge order */
	{
		uint64_t j = 0;

		memset(at, 0, sizeof(at));
		for (i = 0; i < n; i++) {
			int best = -1;

			for (k = 0; k < 3; k++)
				if (at[k] < m[k].n &&
				    (best < 0 ||
				     m[k].seq[at[k]] < m[best].seq[at[best]]))
					best = k;
			if (kinds[best] != SAMPLE_TLAB_NEW)
				c->flags[j++] = m[best].flags[at[best]];
			at[best]++;
		}
	}
	free(ev);
	free(out);
	free(var);
	c->sm.n = k_n;
	c->sm.seq = c->seq;
	c->sm.time_ns = c->time_ns;
	c->sm.recording = c->recording;
	c->sm.kind = c->kind;
	c->sm.flags = c->flags;
	c->sm.thread = c->thread;
	c->sm.cls = c->cls;
	c->sm.node = c->node;
	c->sm.bytes = c->bytes;
	c->sm.size = NULL;
	q->corr = c;
	return 0;
}

const int64_t *query_corrected_var(const struct query *q)
{
	return q->corr ? q->corr->var : NULL;
}

const struct store_samples *query_corrected_samples(const struct query *q)
{
	return q->corr ? &q->corr->sm : NULL;
}

double query_rel_err(enum sample_kind k, uint64_t samples, int64_t bytes,
		     unsigned __int128 sq)
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
		return sqrt((double)sq) / (double)bytes;
	}
}

/* --- what the views say ------------------------------------------------------ */

bool query_estimate_correctable(const struct query *q)
{
	return q->kind == SAMPLE_ALLOC &&
	       q->kind_counts[SAMPLE_TLAB_OUTSIDE] > 0;
}

enum query_estimate query_estimate(const struct query *q)
{
	/* the raw weights unless asked: the correction is computed per
	 * query from two kinds' samples (estimate.c), which on a large
	 * recording costs more memory and time than every other view
	 * (5.4 GB and 5-8 s on 38 M samples); it becomes the default when
	 * the store keeps it, rolled up at import */
	if (!query_estimate_correctable(q))
		return QUERY_EST_JFR;
	return q->o.estimate == QUERY_EST_CORRECTED ? QUERY_EST_CORRECTED
						    : QUERY_EST_JFR;
}

const char *query_estimate_name(enum query_estimate e)
{
	return e == QUERY_EST_CORRECTED ? "corrected" : "jfr";
}

bool query_estimate_parse(const char *s, enum query_estimate *e)
{
	if (!strcmp(s, "jfr"))
		*e = QUERY_EST_JFR;
	else if (!strcmp(s, "corrected"))
		*e = QUERY_EST_CORRECTED;
	else
		return false;
	return true;
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
		return "estimate: jfr (the raw weights; without "
		       "OutsideTLAB events no correction is possible: a "
		       "site of large objects can be far off, while sample "
		       "counts and per-thread totals hold)";
	case SAMPLE_AGENT:
		return "estimate: unbiased weights of Poisson samples, "
		       "Horvitz-Thompson standard error";
	case SAMPLE_TLAB_OUTSIDE:
		return "estimate: exact bytes of every event recorded";
	case SAMPLE_OLD_OBJECT:
		return "estimate: one sample each; ± from the sample count "
		       "only";
	default:
		return "estimate: TLAB sizes";
	}
}
