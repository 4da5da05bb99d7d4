/*
 * The report's questions to the query layer (query.h): the evidence
 * behind a leak suspect, the heap after GC, objects above a size, and
 * settings.  Each joins the query's kind with the liveness and old-object
 * tables by sample number, with no per-sample allocation: the leak
 * evidence reads the kind whole (query_materialize), as survivors does
 * (agent samples and old objects, which are few); objects above a size
 * read it a block at a time, since OutsideTLAB events can be tens of
 * millions.  It ranks nothing and
 * judges nothing: the rules in src/findings/rules.c do.
 */
#include <stdlib.h>
#include <string.h>

#include "query/old_emissions.h"
#include "query/query_int.h"
#include "util/xalloc.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32_fn(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The end times of each recording's GCs, ascending: the agent's GC
 * records where a recording has them, else its "After GC" summaries. */
struct gc_ends {
	int64_t *t;
	size_t n;
};

static int load_gc_ends(struct query *q, struct gc_ends **out, struct err *e)
{
	const struct store_gc *g;
	const struct store_heap *h;
	uint32_t n_g, n_h, i;
	struct gc_ends *r;
	bool *agent;

	if (store_gcs(q->s, &g, &n_g, e) < 0 ||
	    store_heap(q->s, &h, &n_h, e) < 0)
		return ERR_FAIL;
	r = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(*r));
	agent = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(*agent));
	for (i = 0; i < n_g; i++) {
		struct gc_ends *x;

		if (g[i].recording >= q->n_recs)
			continue;
		x = &r[g[i].recording];
		x->t = xreallocarray(x->t, x->n + 1, sizeof(int64_t));
		x->t[x->n++] = g[i].end_ns;
		agent[g[i].recording] = true;
	}
	for (i = 0; i < n_h; i++) {
		struct gc_ends *x;

		if (h[i].recording >= q->n_recs || agent[h[i].recording] ||
		    strcmp(store_str(q->s, h[i].when), "After GC") != 0)
			continue;
		x = &r[h[i].recording];
		x->t = xreallocarray(x->t, x->n + 1, sizeof(int64_t));
		x->t[x->n++] = h[i].time_ns;
	}
	for (i = 0; i < q->n_recs; i++)
		if (r[i].n > 1)
			qsort(r[i].t, r[i].n, sizeof(int64_t), cmp_i64);
	free(agent);
	*out = r;
	return 0;
}

static void free_gc_ends(struct gc_ends *r, uint32_t n)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; i < n; i++)
		free(r[i].t);
	free(r);
}

/* GCs that ended in (from, to]. */
static size_t gcs_between(const struct gc_ends *x, int64_t from, int64_t to)
{
	size_t lo = 0, hi = x->n, a, b;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->t[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	a = lo;
	hi = x->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->t[mid] <= to)
			lo = mid + 1;
		else
			hi = mid;
	}
	b = lo;
	return b > a ? b - a : 0;
}

/* query_evidence()'s pass over the samples: the tables it joins by
 * sample number, where it is in each, and what it gathers. */
struct ev_pass {
	struct query *q;
	const struct store_liveness *live;
	const struct store_old_object *old;
	uint32_t n_live, n_old, li, oi;
	struct gc_ends *gcs;
	struct old_emissions oe;
	bool old_kind;
	int64_t *gc_counts; /* GCs survived by each object alive at the end */
	size_t n_counts;
	bool *rec_used, *rec_rooted; /* per recording */
	uint32_t *roots; /* root string offsets, to find the commonest */
	size_t n_roots;
};

/* What the tables say of one sample. */
struct ev_sample {
	uint32_t state, rec;
	int64_t alloc_gc, born, size;
	bool rooted;
};

/*
 * Sample i's liveness and, for old objects, its old-object entry:
 * advances the pass through both tables, so it is called for every
 * sample of the kind, filtered or not; a rooted one marks its
 * recording as one whose roots were searched for.
 */
static void join_sample(struct ev_pass *p, uint64_t i, struct ev_sample *s)
{
	struct query *q = p->q;
	uint32_t seq = q->sm.seq[i];
	const struct store_old_object *o;

	s->state = 0;
	s->alloc_gc = -1;
	s->born = q->sm.time_ns[i];
	s->size = -1;
	s->rooted = false;
	s->rec = q->sm.recording[i];
	while (p->li < p->n_live && p->live[p->li].sample < seq)
		p->li++;
	if (p->li < p->n_live && p->live[p->li].sample == seq) {
		s->state = p->live[p->li].state;
		s->alloc_gc = p->live[p->li].alloc_gc;
	}
	if (q->kind != SAMPLE_OLD_OBJECT)
		return;
	while (p->oi < p->n_old && p->old[p->oi].sample < seq)
		p->oi++;
	if (p->oi >= p->n_old || p->old[p->oi].sample != seq)
		return;
	o = &p->old[p->oi];
	if (o->alloc_time_ns != REC_NONE)
		s->born = o->alloc_time_ns;
	else if (o->age_ns != REC_NONE)
		s->born = q->sm.time_ns[i] - o->age_ns;
	s->rooted = o->root != 0;
	s->size = o->object_size;
	if (s->rooted && s->rec < q->n_recs)
		p->rec_rooted[s->rec] = true;
}

/* Sample i, alive at the end (s: what the tables say of it): its age,
 * its bytes, its root and the GCs it survived. */
static void add_alive(struct ev_pass *p, struct query_evidence *ev, uint64_t i,
		      const struct ev_sample *s)
{
	struct query *q = p->q;
	const struct gc_ends *ge;
	int64_t end, life, gcs_n;

	ev->alive_at_end++;
	/* its recording's end; an old object's: the last emission */
	end = s->rec >= q->n_recs ? s->born
	      : p->old_kind	  ? p->oe.s[i].last_ns
				  : q->recs[s->rec].end_ns;
	if (s->rec < q->n_recs &&
	    !__builtin_sub_overflow(end, s->born, &life) &&
	    life > ev->oldest_alive_ns)
		ev->oldest_alive_ns = life;
	if (q->sm.bytes[i] != REC_NONE)
		ev->bytes_alive = add_sat(ev->bytes_alive, q->sm.bytes[i]);
	if (s->rooted) {
		ev->with_root++;
		p->roots = xreallocarray(p->roots, p->n_roots + 1,
					 sizeof(*p->roots));
		p->roots[p->n_roots++] = p->old[p->oi].root;
	}
	/* GCs survived by an object alive at the end */
	ge = s->rec < q->n_recs ? &p->gcs[s->rec] : NULL;
	if (s->alloc_gc >= 0 && ge)
		gcs_n = (int64_t)ge->n - s->alloc_gc;
	else
		gcs_n = ge ? (int64_t)gcs_between(ge, s->born, end) : 0;
	if (gcs_n < 0)
		gcs_n = 0;
	p->gc_counts =
		xreallocarray(p->gc_counts, p->n_counts + 1, sizeof(int64_t));
	p->gc_counts[p->n_counts++] = gcs_n;
	if (gcs_n >= 1)
		ev->old_gc_1++;
	if (gcs_n >= QUERY_MANY_GCS)
		ev->old_gc_many++;
	if (!s->rooted && gcs_n == 0)
		ev->young_unrooted++;
}

/* Sample i of the query's kind into ev: counted where it is inside the
 * window, passes the filters and has a known liveness; an old object
 * once, however many emissions show it. */
static void add_sample(struct ev_pass *p, struct query_evidence *ev, uint64_t i)
{
	struct query *q = p->q;
	struct ev_sample s;
	int64_t life;

	join_sample(p, i, &s);
	if (i < q->lo || !query_sample_ok(q, i) || !s.state)
		return;
	if (p->old_kind) {
		const struct old_sighting *o = &p->oe.s[i];

		/* one object, however many emissions show it: its
		 * last event stands for it, and it is alive at the
		 * end only if the last emission shows it */
		ev->events++;
		if (o->repeat)
			return;
		s.born = o->born;
		if (!o->in_last) {
			if (s.rec < q->n_recs)
				p->rec_used[s.rec] = true;
			ev->samples++;
			ev->gone++;
			return;
		}
		if (o->first_ns < o->last_ns)
			ev->kept++;
		if (o->size >= 0)
			ev->size_alive =
				add_sat(ev->size_alive < 0 ? 0 : ev->size_alive,
					o->size);
	}
	if (s.rec < q->n_recs)
		p->rec_used[s.rec] = true;
	if (q->sm.size && q->sm.size[i] != REC_NONE && s.size < 0)
		s.size = q->sm.size[i];
	if (s.size > ev->largest_size)
		ev->largest_size = s.size;
	ev->samples++;
	if (s.state == STORE_LIVE_DEAD) {
		ev->dead++;
		if (p->live[p->li].death_ns != INT64_MIN &&
		    !__builtin_sub_overflow(p->live[p->li].death_ns, s.born,
					    &life) &&
		    life > ev->longest_life_ns)
			ev->longest_life_ns = life;
		return;
	}
	add_alive(p, ev, i, &s);
}

/* The recordings the counted samples come from: their GCs, whether
 * they have roots, and for old objects their emissions, window and
 * heap after the GC before the last emission. */
static void add_recordings(struct ev_pass *p, struct query_evidence *ev)
{
	struct query *q = p->q;
	uint32_t r;

	if (p->old_kind)
		ev->heap_after_gc = 0;
	for (r = 0; r < q->n_recs; r++) {
		if (!p->rec_used[r])
			continue;
		ev->n_gcs += p->gcs[r].n;
		if (p->rec_rooted[r])
			ev->rooted_elsewhere = 1;
		if (!p->old_kind)
			continue;
		if (p->oe.n_emissions[r] > ev->emissions)
			ev->emissions = p->oe.n_emissions[r];
		if (p->oe.last_ns[r] != INT64_MIN &&
		    q->recs[r].start_ns != INT64_MIN &&
		    p->oe.last_ns[r] - q->recs[r].start_ns > ev->window_ns)
			ev->window_ns = p->oe.last_ns[r] - q->recs[r].start_ns;
		if (ev->heap_after_gc >= 0) {
			int64_t h = query_heap_after_gc_before(
				q, r, p->oe.last_ns[r]);

			ev->heap_after_gc =
				h < 0 ? -1 : add_sat(ev->heap_after_gc, h);
		}
	}
}

/* The commonest of n root string offsets (sorted in place; the first
 * of the longest run after sorting wins a tie). */
static uint32_t commonest_root(uint32_t *roots, size_t n_roots)
{
	size_t k, best = 0, run = 1, best_run = 0;

	qsort(roots, n_roots, sizeof(*roots), cmp_u32_fn);
	for (k = 1; k <= n_roots; k++) {
		if (k < n_roots && roots[k] == roots[k - 1]) {
			run++;
			continue;
		}
		if (run > best_run) {
			best_run = run;
			best = k - 1;
		}
		run = 1;
	}
	return roots[best];
}

int query_evidence(struct query *q, struct query_evidence *ev, struct err *e)
{
	struct ev_pass p;
	uint64_t i;

	memset(ev, 0, sizeof(*ev));
	ev->median_gcs = ev->max_gcs = -1;
	ev->longest_life_ns = ev->oldest_alive_ns = -1;
	ev->largest_size = -1;
	if (!sample_kind_has_fate(q->kind))
		return 0;
	memset(&p, 0, sizeof(p));
	p.q = q;
	p.old_kind = q->kind == SAMPLE_OLD_OBJECT;
	if (store_liveness(q->s, &p.live, &p.n_live, e) < 0 ||
	    store_old_objects(q->s, &p.old, &p.n_old, e) < 0 ||
	    query_materialize(q, e) < 0 || load_gc_ends(q, &p.gcs, e) < 0)
		return ERR_FAIL;
	if (p.old_kind && query_old_emissions(q, &p.oe, e) < 0) {
		free_gc_ends(p.gcs, q->n_recs);
		return ERR_FAIL;
	}
	ev->size_alive = -1;
	p.rec_used = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(bool));
	p.rec_rooted = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(bool));
	for (i = 0; i < q->sm.n && i < q->hi; i++)
		if (q->sm.kind[i] == q->kind)
			add_sample(&p, ev, i);
	add_recordings(&p, ev);
	query_old_emissions_release(&p.oe);
	if (p.n_counts) {
		qsort(p.gc_counts, p.n_counts, sizeof(int64_t), cmp_i64);
		ev->median_gcs = p.gc_counts[p.n_counts / 2];
		ev->max_gcs = p.gc_counts[p.n_counts - 1];
	}
	if (p.n_roots)
		ev->root = store_str(q->s, commonest_root(p.roots, p.n_roots));
	free(p.roots);
	free(p.gc_counts);
	free(p.rec_used);
	free(p.rec_rooted);
	free_gc_ends(p.gcs, q->n_recs);
	return 0;
}

enum query_gc_kind query_gc_kind_of(const char *name, const char *phase)
{
	/* jdk.GarbageCollection's names: the JDK's gcName.hpp
	 * (GCNameHelper::to_string) */
	static const struct {
		const char *name;
		enum query_gc_kind kind;
	} names[] = {
		{"G1Full", QUERY_GC_FULL},
		{"ParallelOld", QUERY_GC_FULL},
		{"SerialOld", QUERY_GC_FULL},
		{"PSMarkSweep", QUERY_GC_FULL},
		{"G1Old", QUERY_GC_CYCLE_END},
		{"G1New", QUERY_GC_YOUNG},
		{"ParallelScavenge", QUERY_GC_YOUNG},
		{"DefNew", QUERY_GC_YOUNG},
		{"ParNew", QUERY_GC_YOUNG},
		{"Z", QUERY_GC_WHOLE},
		{"ZGC Major", QUERY_GC_WHOLE}, /* generational ZGC (21+) */
		{"ZGC Minor", QUERY_GC_YOUNG},
		{"Shenandoah", QUERY_GC_WHOLE},
	};
	size_t i;

	if (!name)
		return QUERY_GC_UNKNOWN;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i].name) != 0)
			continue;
		/* G1's young collections: "Mixed" (g1YCTypes.hpp in JDK
		 * 11, G1GCPauseTypeHelper::to_string in g1GCPauseType.hpp
		 * since) also evacuates old regions the last marking chose */
		if (names[i].kind == QUERY_GC_YOUNG && phase &&
		    !strcmp(phase, "Mixed"))
			return QUERY_GC_MIXED;
		return names[i].kind;
	}
	return QUERY_GC_UNKNOWN;
}

static int cmp_gc_info(const void *a, const void *b)
{
	const struct store_gc_info *x = *(const struct store_gc_info *const *)a,
				   *y = *(const struct store_gc_info *const *)b;

	return x->gc_id < y->gc_id ? -1 : x->gc_id > y->gc_id;
}

/* Recording rec's GC facts by gc id (*out: pointers into the store,
 * sorted, malloc'ed); a GC with several records is looked up in all. */
static int gc_facts(struct query *q, uint32_t rec,
		    const struct store_gc_info ***out, size_t *n, struct err *e)
{
	const struct store_gc_info *g, **v = NULL;
	uint32_t n_g, i;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (store_gc_info(q->s, &g, &n_g, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n_g; i++)
		if (g[i].recording == rec) {
			v = xreallocarray(v, k + 1, sizeof(*v));
			v[k++] = &g[i];
		}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_gc_info);
	*out = v;
	*n = k;
	return 0;
}

/* Point x's GC facts: every record of its gc id merged. */
static void join_gc(struct query *q, const struct store_gc_info **v, size_t n,
		    struct query_heap_point *x)
{
	const char *phase = NULL;
	size_t lo = 0, hi = n;

	x->kind = QUERY_GC_UNKNOWN;
	x->failed = false;
	x->name = x->cause = NULL;
	if (x->gc_id == REC_NONE)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid]->gc_id < x->gc_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo]->gc_id == x->gc_id; lo++) {
		if (v[lo]->name)
			x->name = store_str(q->s, v[lo]->name);
		if (v[lo]->cause)
			x->cause = store_str(q->s, v[lo]->cause);
		if (v[lo]->phase)
			phase = store_str(q->s, v[lo]->phase);
		if (v[lo]->flags & STORE_GC_FAILED)
			x->failed = true;
	}
	x->kind = query_gc_kind_of(x->name, phase);
}

int query_heap_summaries(struct query *q, uint32_t rec, const char *when,
			 struct query_heap_point **out, size_t *n,
			 struct err *e)
{
	const struct store_heap *h;
	const struct store_gc_info **facts;
	uint32_t n_h, i;
	struct query_heap_point *p = NULL;
	size_t k = 0, n_facts;

	*out = NULL;
	*n = 0;
	if (store_heap(q->s, &h, &n_h, e) < 0)
		return ERR_FAIL;
	if (gc_facts(q, rec, &facts, &n_facts, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n_h; i++) {
		if (h[i].recording != rec ||
		    strcmp(store_str(q->s, h[i].when), when) != 0)
			continue;
		p = xreallocarray(p, k + 1, sizeof(*p));
		p[k].time_ns = h[i].time_ns;
		p[k].used = h[i].used;
		p[k].committed = h[i].committed;
		p[k].reserved = h[i].reserved;
		p[k].gc_id = h[i].gc_id;
		join_gc(q, facts, n_facts, &p[k]);
		k++;
	}
	free(facts);
	/* in time order (insertion sort: summaries come nearly sorted) */
	for (i = 1; i < k; i++) {
		struct query_heap_point x = p[i];
		size_t j = i;

		while (j > 0 && p[j - 1].time_ns > x.time_ns) {
			p[j] = p[j - 1];
			j--;
		}
		p[j] = x;
	}
	*out = p;
	*n = k;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct query_size_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* One sample of q->sm at or above min_size into its site's row. */
static void add_large(struct query *q, struct query_size_row *acc, uint64_t i,
		      int64_t size, int64_t min_size)
{
	uint32_t site;

	if (i < q->lo || size == REC_NONE || size < min_size ||
	    !query_sample_ok(q, i))
		return;
	site = q->node_site[q->sm.node[i]];
	if (site >= q->n_sites)
		return;
	acc[site].objects++;
	acc[site].bytes = add_sat(acc[site].bytes, size);
	if (size > acc[site].largest)
		acc[site].largest = size;
}

/* jdk.OldObjectSample's: the objects of each recording's last emission,
 * each once (query/old_emissions.h), which are few: read whole. */
static int large_old_objects(struct query *q, int64_t min_size,
			     struct query_size_row *acc, struct err *e)
{
	struct old_emissions oe;
	uint64_t i;

	if (query_materialize(q, e) < 0 || query_old_emissions(q, &oe, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < q->sm.n && i < q->hi; i++)
		if (q->sm.kind[i] == q->kind && !oe.s[i].repeat &&
		    oe.s[i].in_last)
			add_large(q, acc, i, oe.s[i].size, min_size);
	query_old_emissions_release(&oe);
	return 0;
}

int query_large_objects(struct query *q, int64_t min_size,
			struct query_size_row **rows, size_t *n_rows,
			struct err *e)
{
	struct query_size_row *acc;
	size_t n = 0, k;
	uint64_t i;
	uint32_t b = 0;
	int rc;

	*rows = NULL;
	*n_rows = 0;
	acc = xcalloc(q->n_sites ? q->n_sites : 1, sizeof(*acc));
	if (q->kind == SAMPLE_OLD_OBJECT) {
		rc = large_old_objects(q, min_size, acc, e) < 0 ? -1 : 0;
	} else {
		/* a block at a time: the OutsideTLAB events of a big
		 * recording are tens of millions, too many to hold
		 * decoded for a few large ones */
		while ((rc = query_next_block(q, &b, e)) > 0)
			for (i = 0; i < q->sm.n && i < q->hi; i++)
				if (q->sm.kind[i] == q->kind && q->sm.size)
					add_large(q, acc, i, q->sm.size[i],
						  min_size);
	}
	if (rc < 0) {
		free(acc);
		return ERR_FAIL;
	}
	for (k = 0; k < q->n_sites; k++)
		if (acc[k].objects) {
			acc[n] = acc[k];
			acc[n].key = q->site_names[k];
			n++;
		}
	if (n > 1)
		qsort(acc, n, sizeof(*acc), by_bytes);
	*rows = acc;
	*n_rows = n;
	return 0;
}

const char *query_setting(struct query *q, uint32_t rec, const char *name)
{
	const struct store_setting *st;
	uint32_t n, k;
	struct err e;

	err_init(&e);
	if (rec >= q->n_recs || store_settings(q->s, &st, &n, &e) < 0)
		return NULL;
	for (k = 0; k < q->recs[rec].n_settings; k++) {
		uint32_t j = q->recs[rec].first_setting + k;

		if (j < n && !strcmp(store_str(q->s, st[j].name), name))
			return store_str(q->s, st[j].value);
	}
	return NULL;
}

size_t query_settings(struct query *q, uint32_t rec, const char ***names,
		      const char ***values)
{
	const struct store_setting *st;
	uint32_t n, k;
	size_t m = 0;
	struct err e;

	*names = *values = NULL;
	err_init(&e);
	if (rec >= q->n_recs || store_settings(q->s, &st, &n, &e) < 0)
		return 0;
	*names = xcalloc(q->recs[rec].n_settings + 1, sizeof(char *));
	*values = xcalloc(q->recs[rec].n_settings + 1, sizeof(char *));
	for (k = 0; k < q->recs[rec].n_settings; k++) {
		uint32_t j = q->recs[rec].first_setting + k;

		if (j >= n)
			break;
		(*names)[m] = store_str(q->s, st[j].name);
		(*values)[m] = store_str(q->s, st[j].value);
		m++;
	}
	return m;
}
