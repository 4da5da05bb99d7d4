/*
 * jdk.OldObjectSample's emissions (old_emissions.h): which events show
 * the same object, which emission is each recording's last, and what
 * each event proves.
 */
#include <stdlib.h>
#include <string.h>

#include "query/old_emissions.h"
#include "util/xalloc.h"

/* An event's identity and where it lies, for the sort. */
struct ident {
	uint64_t i; /* the sample */
	uint32_t rec, em, thread, cls, node;
	int64_t born, size, elems, time;
	bool exact;  /* born is the JDK's allocationTime, not derived */
	size_t next; /* the same object's event in the next emission */
	bool has_prev;
};

static int cmp_ident(const void *a, const void *b)
{
	const struct ident *x = a, *y = b;

#define CMP(f)            \
	if (x->f != y->f) \
		return x->f < y->f ? -1 : 1;
	CMP(rec)
	CMP(time)
	CMP(thread)
	CMP(cls)
	CMP(node)
	CMP(size)
	CMP(elems)
	CMP(born)
	CMP(i)
#undef CMP
	return 0;
}

/* Everything but the allocation time: an object's class, size, thread
 * and stack are the same in every emission that shows it. */
static bool same_kind(const struct ident *x, const struct ident *y)
{
	return x->exact && y->exact && x->thread == y->thread &&
	       x->cls == y->cls && x->node == y->node && x->size == y->size &&
	       x->elems == y->elems;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* a conversion's offset between two chunks is far below this */
#define NEAR_NS 100000
/* and a double's truncation moves one time by a nanosecond at most */
#define SAME_NS 2

/*
 * The offset between two emissions' conversions of one tick value: each
 * chunk converts ticks with its own header's start (the JDK's parser
 * uses the file's first chunk for all: ChunkParser reuses the previous
 * parser's TimeConverter), so one allocation time read from two chunks
 * differs by a constant, a few hundred nanoseconds.  It is the mode of
 * the differences between events of the same kind that lie near each
 * other; INT64_MIN where no pair does.
 */
static int64_t chunk_offset(const struct ident *id, size_t a0, size_t a1,
			    size_t b0, size_t b1)
{
	int64_t *d = NULL, best = INT64_MIN;
	size_t n = 0, alloc = 0, i, j, lo, run = 0;

	for (j = b0; j < b1; j++)
		for (i = a0; i < a1; i++) {
			int64_t x = id[j].born - id[i].born;

			if (!same_kind(&id[i], &id[j]) || x > NEAR_NS ||
			    x < -NEAR_NS)
				continue;
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 64;
				d = xreallocarray(d, alloc, sizeof(*d));
			}
			d[n++] = x;
		}
	if (n)
		qsort(d, n, sizeof(*d), cmp_i64);
	for (lo = 0, i = 0; i < n; i++) {
		while (d[i] - d[lo] > 2 * SAME_NS)
			lo++;
		if (i - lo + 1 > run) {
			run = i - lo + 1;
			best = d[lo + (i - lo) / 2];
		}
	}
	free(d);
	return best;
}

void query_old_emissions_release(struct old_emissions *o)
{
	free(o->s);
	free(o->n_emissions);
	free(o->last_ns);
	free(o->last_searched);
	memset(o, 0, sizeof(*o));
}

/* Links each event of emission [b0, b1) to the same object's event of
 * the emission before, [a0, a1). */
static void link_emissions(struct ident *id, size_t a0, size_t a1, size_t b0,
			   size_t b1)
{
	int64_t off = chunk_offset(id, a0, a1, b0, b1);
	size_t i, j;

	if (off == INT64_MIN)
		return;
	for (j = b0; j < b1; j++) {
		size_t best = SIZE_MAX;
		int64_t best_d = SAME_NS + 1;

		for (i = a0; i < a1; i++) {
			int64_t x = id[j].born - id[i].born - off;

			if (x < 0)
				x = -x;
			if (id[i].next == SIZE_MAX && x < best_d &&
			    same_kind(&id[i], &id[j])) {
				best = i;
				best_d = x;
			}
		}
		if (best != SIZE_MAX) {
			id[best].next = j;
			id[j].has_prev = true;
		}
	}
}

int query_old_emissions(struct query *q, struct old_emissions *o, struct err *e)
{
	const struct store_old_object *old;
	struct ident *id;
	uint32_t n_old, oi = 0;
	size_t n = 0, a, b, c, k, r;
	uint64_t i;

	memset(o, 0, sizeof(*o));
	if (store_old_objects(q->s, &old, &n_old, e) < 0)
		return ERR_FAIL;
	o->s = xcalloc(q->sm.n ? q->sm.n : 1, sizeof(*o->s));
	o->n_emissions = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(uint32_t));
	o->last_ns = xmalloc((q->n_recs ? q->n_recs : 1) * sizeof(int64_t));
	o->last_searched = xcalloc(q->n_recs ? q->n_recs : 1, sizeof(bool));
	for (r = 0; r < q->n_recs; r++)
		o->last_ns[r] = INT64_MIN;
	id = xmalloc((q->sm.n ? q->sm.n : 1) * sizeof(*id));
	/* up to the end of the query's window: the last emission is the
	 * window's last, and an object shown after it was alive at its
	 * end (the samples before the window's start link its objects) */
	for (i = 0; i < q->sm.n && i < q->hi; i++) {
		struct old_sighting *s = &o->s[i];
		struct ident *x;

		if (q->sm.kind[i] != SAMPLE_OLD_OBJECT)
			continue;
		x = &id[n++];
		memset(x, 0, sizeof(*x));
		x->i = i;
		x->next = SIZE_MAX;
		x->rec = q->sm.recording[i];
		x->thread = q->sm.thread[i];
		x->cls = q->sm.cls[i];
		x->node = q->sm.node[i];
		x->time = q->sm.time_ns[i];
		x->born = x->time;
		x->size = x->elems = REC_NONE;
		s->size = REC_NONE;
		while (oi < n_old && old[oi].sample < q->sm.seq[i])
			oi++;
		if (oi < n_old && old[oi].sample == q->sm.seq[i]) {
			if (old[oi].alloc_time_ns != REC_NONE) {
				x->born = old[oi].alloc_time_ns;
				x->exact = true;
			} else if (old[oi].age_ns != REC_NONE) {
				x->born = x->time - old[oi].age_ns;
			}
			x->size = s->size = old[oi].object_size;
			x->elems = old[oi].array_elements;
			s->root = old[oi].root;
		}
		s->born = x->born;
	}
	o->n_events = n;
	/* the emissions: each recording's runs of one event time (all the
	 * events of one emission have its start time, and an emission is
	 * written into one chunk) */
	qsort(id, n, sizeof(*id), cmp_ident);
	for (a = 0, c = SIZE_MAX; a < n; a = b) {
		bool searched = false;

		for (b = a; b < n && id[b].rec == id[a].rec &&
			    id[b].time == id[a].time;
		     b++)
			searched |= o->s[id[b].i].root != 0;
		for (k = a; k < b; k++) {
			id[k].em = id[a].rec < q->n_recs
					   ? o->n_emissions[id[a].rec]
					   : 0;
			o->s[id[k].i].searched = searched;
		}
		if (id[a].rec < q->n_recs) {
			o->n_emissions[id[a].rec]++;
			o->last_ns[id[a].rec] = id[a].time;
			o->last_searched[id[a].rec] = searched;
		}
		/* an object still held at the next emission is written
		 * again there (alive then means alive now, and the sweep
		 * time only moves on): link consecutive emissions */
		if (c != SIZE_MAX && id[c].rec == id[a].rec)
			link_emissions(id, c, a, a, b);
		c = a;
	}
	/* the objects: chains of events, one an emission */
	for (a = 0; a < n; a++) {
		size_t last = a, m = 1;

		if (id[a].has_prev)
			continue;
		while (id[last].next != SIZE_MAX)
			last = id[last].next, m++;
		o->n_objects++;
		for (k = a;; k = id[k].next) {
			struct old_sighting *s = &o->s[id[k].i];

			s->first_ns = id[a].time;
			s->last_ns = id[last].time;
			s->n_shown = (uint32_t)m;
			s->repeat = k != last;
			s->in_last = id[a].rec < q->n_recs &&
				     id[last].time == o->last_ns[id[a].rec];
			if (k == last)
				break;
		}
	}
	free(id);
	return 0;
}

int64_t query_heap_after_gc_before(struct query *q, uint32_t rec, int64_t t)
{
	const struct store_heap *h;
	uint32_t n_h, i;
	int64_t best_t = INT64_MIN, used = -1;
	struct err e;

	err_init(&e);
	if (store_heap(q->s, &h, &n_h, &e) < 0)
		return -1;
	for (i = 0; i < n_h; i++)
		if (h[i].recording == rec && h[i].time_ns <= t &&
		    h[i].time_ns >= best_t && h[i].used >= 0 &&
		    !strcmp(store_str(q->s, h[i].when), "After GC")) {
			best_t = h[i].time_ns;
			used = h[i].used;
		}
	return used;
}
