/*
 * Comparisons of two sides (diff.h, docs/diff.md): rows merged by key
 * from two queries' answers, then normalized, tested and sorted.  The
 * tests themselves (diff_stats.c) are a z-test on the change in the
 * estimate for weighted, throttled samples (jdk.ObjectAllocationSample),
 * the exact conditional binomial test on each row's samples for the
 * others, with Benjamini-Hochberg across a table's rows.
 *
 * It reads the query API only; it never looks at samples itself, so a
 * diff costs the two queries it asks and a merge of their rows.
 */
#include "query/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/diff_int.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/xalloc.h"

struct diff {
	struct query *q[2];
	struct query_options o[2];
	struct diff_options opt;
	enum sample_kind kind;
	double seconds[2];
	int estimate;		   /* as diff_table.estimate */
	const char *estimate_note; /* likewise */
	struct arena arena;	   /* keys of the current table */
	struct diff_table table;
	size_t rows_alloc;
};

void diff_options_init(struct diff_options *o)
{
	o->total = false;
	o->alpha = DIFF_ALPHA_DEFAULT;
}

/* --- sides ------------------------------------------------------------------- */

double diff_side_seconds(struct query *q, const struct query_options *o)
{
	const struct query_recording *r;
	enum sample_kind kind = query_kind(q);
	size_t n, i;
	double s = 0;

	query_recordings(q, &r, &n);
	for (i = 0; i < n; i++) {
		int64_t a = r[i].start_ns, b = r[i].end_ns;

		if (o->recording >= 0 && (int64_t)i != o->recording)
			continue;
		if (!r[i].samples[kind] || b <= a)
			continue;
		if (o->from_ns > a)
			a = o->from_ns;
		if (o->to_ns < b)
			b = o->to_ns;
		/* b - a in unsigned: a forged start near INT64_MIN would
		 * overflow the signed difference */
		if (b > a)
			s += (double)((uint64_t)b - (uint64_t)a) / 1e9;
	}
	return s;
}

/* Is recording r of q within o's recording and time range? */
static bool side_has(const struct query_recording *r, size_t i,
		     const struct query_options *o)
{
	if (o->recording >= 0 && (int64_t)i != o->recording)
		return false;
	return r->end_ns > o->from_ns && r->start_ns < o->to_ns;
}

/*
 * Can the side give the corrected estimate for all it shows: does every
 * recording of it with samples of the kind hold OutsideTLAB events?  A
 * store of two recordings, one with them and one without, is
 * correctable as a whole (query_estimate_correctable()), yet the
 * corrected estimate of the second is its raw weights.
 */
static bool side_correctable(struct query *q, const struct query_options *o)
{
	const struct query_recording *r;
	enum sample_kind kind = query_kind(q);
	size_t n, i, with = 0;

	if (!query_estimate_correctable(q))
		return false;
	query_recordings(q, &r, &n);
	for (i = 0; i < n; i++) {
		if (!r[i].samples[kind] || !side_has(&r[i], i, o))
			continue;
		if (!r[i].samples[SAMPLE_TLAB_OUTSIDE])
			return false;
		with++;
	}
	return with > 0;
}

enum query_estimate diff_estimate_choose(struct query *base,
					 const struct query_options *ob,
					 struct query *new_,
					 const struct query_options *on,
					 int want)
{
	if (query_kind(base) != SAMPLE_ALLOC || want == QUERY_EST_JFR)
		return QUERY_EST_JFR;
	return side_correctable(base, ob) && side_correctable(new_, on)
		       ? QUERY_EST_CORRECTED
		       : QUERY_EST_JFR;
}

/* The estimate both sides give and why; an ERR_USAGE error where they
 * differ, or where the corrected one would stand on one side only. */
static int estimate_check(struct diff *d, struct err *e)
{
	enum query_estimate a, b;
	bool ca, cb;

	d->estimate = -1;
	d->estimate_note = NULL;
	if (d->kind != SAMPLE_ALLOC)
		return 0;
	a = query_estimate(d->q[0]);
	b = query_estimate(d->q[1]);
	ca = side_correctable(d->q[0], &d->o[0]);
	cb = side_correctable(d->q[1], &d->o[1]);
	if (a != b)
		return err_set(e, ERR_USAGE,
			       "the base gives the %s estimate and the new "
			       "side the %s one: both sides must give one",
			       query_estimate_name(a), query_estimate_name(b));
	if (a == QUERY_EST_CORRECTED && !(ca && cb))
		return err_set(e, ERR_USAGE,
			       "the corrected estimate on both sides, but "
			       "the %s side has recordings without "
			       "OutsideTLAB events: both sides must give the "
			       "raw weights",
			       ca ? "new" : "base");
	d->estimate = (int)a;
	if (a == QUERY_EST_CORRECTED)
		d->estimate_note =
			"estimate: corrected on both sides (every recording "
			"of each holds OutsideTLAB events; --estimate=jfr "
			"for the raw weights)";
	else if (ca && cb)
		d->estimate_note = "estimate: jfr on both sides (the raw "
				   "weights, as --estimate=jfr asks)";
	else if (ca || cb)
		d->estimate_note =
			ca ? "estimate: jfr on both sides (the raw weights): "
			     "only the base holds OutsideTLAB events, and "
			     "its corrected estimate against the new side's "
			     "raw weights would differ by the estimators "
			     "alone"
			   : "estimate: jfr on both sides (the raw weights): "
			     "only the new side holds OutsideTLAB events, "
			     "and its corrected estimate against the base's "
			     "raw weights would differ by the estimators "
			     "alone";
	else
		d->estimate_note =
			"estimate: jfr on both sides (the raw weights: the "
			"corrected estimate needs OutsideTLAB events in every "
			"recording of each side, in a store that keeps it; a "
			"site of large objects can be far off, on both sides "
			"alike)";
	return 0;
}

int diff_open(struct query *base, const struct query_options *ob,
	      struct query *new_, const struct query_options *on,
	      const struct diff_options *o, struct diff **out, struct err *e)
{
	struct diff *d;

	*out = NULL;
	if (query_kind(base) != query_kind(new_))
		return err_set(e, ERR_USAGE,
			       "the base shows %s and the new side %s: give "
			       "--kind to compare one kind",
			       sample_kind_name(query_kind(base)),
			       sample_kind_name(query_kind(new_)));
	/* each side's seconds (and, for jdk.ObjectAllocationSample, which
	 * estimate it can give) rest on its recordings' counts of the
	 * kind: a damaged block that left them 0 is said as the damage,
	 * not as a side without samples (a usage error, issue 39) */
	for (int s = 0; s < 2; s++) {
		struct query *q = s ? new_ : base;

		if (query_recordings_check(q, query_kind(q), e) < 0 ||
		    (query_kind(q) == SAMPLE_ALLOC &&
		     query_recordings_check(q, SAMPLE_TLAB_OUTSIDE, e) < 0))
			return ERR_FAIL;
	}
	d = xcalloc(1, sizeof(*d));
	d->q[0] = base;
	d->q[1] = new_;
	d->o[0] = *ob;
	d->o[1] = *on;
	d->o[0].key = d->o[1].key = NULL; /* borrowed only until open */
	d->opt = *o;
	if (!(d->opt.alpha > 0 && d->opt.alpha < 1))
		d->opt.alpha = DIFF_ALPHA_DEFAULT;
	d->kind = query_kind(base);
	d->seconds[0] = diff_side_seconds(base, ob);
	d->seconds[1] = diff_side_seconds(new_, on);
	arena_init(&d->arena, 0);
	if (estimate_check(d, e) < 0) {
		diff_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	arena_release(&d->arena);
	free(d->table.rows);
	free(d);
}

/* --- tables ------------------------------------------------------------------ */

static void table_reset(struct diff *d, enum diff_test test, bool per_second)
{
	struct diff_table *t = &d->table;

	arena_reset(&d->arena);
	t->kind = d->kind;
	t->test = test;
	t->per_second = per_second;
	t->alpha = d->opt.alpha;
	t->seconds[0] = d->seconds[0];
	t->seconds[1] = d->seconds[1];
	t->p0 = NAN;
	t->samples[0] = t->samples[1] = 0;
	t->value[0] = t->value[1] = 0;
	t->n_rows = 0;
	t->n_changed = 0;
	t->by_samples = false;
	t->estimate = d->estimate;
	t->estimate_note = d->estimate_note;
}

static struct diff_row *row_add(struct diff *d, const char *key)
{
	struct diff_table *t = &d->table;
	struct diff_row *r;

	if (t->n_rows == d->rows_alloc) {
		d->rows_alloc = d->rows_alloc ? 2 * d->rows_alloc : 64;
		t->rows = xreallocarray(t->rows, d->rows_alloc, sizeof(*r));
	}
	r = &t->rows[t->n_rows++];
	memset(r, 0, sizeof(*r));
	r->key = arena_strdup(&d->arena, key);
	r->parent = UINT32_MAX;
	r->objects[0] = r->objects[1] = NAN;
	r->peak[0] = r->peak[1] = NAN;
	r->se[0] = r->se[1] = NAN;
	return r;
}

/* The usage error for a side whose length is not known. */
static int need_seconds(const struct diff *d, struct err *e)
{
	int i;

	for (i = 0; i < 2; i++)
		if (!(d->seconds[i] > 0))
			return err_set(e, ERR_USAGE,
				       "the %s side's length of recording is "
				       "not known (no recording with %s "
				       "samples and an end in its range): "
				       "give --total for absolute values",
				       i ? "new" : "base",
				       sample_kind_name(d->kind));
	return 0;
}

/* Beyond noise first, then by |delta|, then by key. */
static int row_cmp(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if ((x->change != 0) != (y->change != 0))
		return x->change ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The row of key, added when new; the map holds the arena's copy. */
static uint64_t key_index(struct hmap *m, struct diff *d, const char *key)
{
	uint64_t ix;
	bool added;

	if (hmap_get(m, key, strlen(key), &ix))
		return ix;
	ix = d->table.n_rows;
	key = row_add(d, key)->key;
	hmap_put(m, key, strlen(key), ix, &added);
	return ix;
}

/* A table of flows (top, trees): the throttled, weighted
 * ObjectAllocationSample tested on its estimate, the reservoir of
 * OldObjectSample on shares, the others on time; per second unless
 * --total, which needs each side's seconds. */
static int rate_table_begin(struct diff *d, struct err *e)
{
	table_reset(d,
		    d->kind == SAMPLE_ALLOC	   ? DIFF_TEST_WEIGHTS
		    : d->kind == SAMPLE_OLD_OBJECT ? DIFF_TEST_SHARE
						   : DIFF_TEST_TIME,
		    !d->opt.total);
	if (!d->opt.total && need_seconds(d, e) < 0)
		return -1;
	return 0;
}

int diff_top(struct diff *d, enum query_group by, const struct diff_table **out,
	     struct err *e)
{
	struct hmap keys;
	int s;

	if (rate_table_begin(d, e) < 0)
		return -1;
	hmap_init(&keys);
	for (s = 0; s < 2; s++) {
		const struct query_row *rows;
		struct query_total tot;
		size_t n, i;

		if (query_top(d->q[s], by, &rows, &n, &tot, e) < 0) {
			hmap_release(&keys);
			return -1;
		}
		d->table.samples[s] = tot.samples;
		d->table.value[s] = (double)tot.est_bytes;
		for (i = 0; i < n; i++) {
			uint64_t k = key_index(&keys, d, rows[i].key);
			struct diff_row *r = &d->table.rows[k];

			r->samples[s] = rows[i].samples;
			r->value[s] = (double)rows[i].est_bytes;
			r->objects[s] = rows[i].est_objects;
			diff_row_se(r, s, r->value[s], rows[i].rel_err);
		}
	}
	hmap_release(&keys);
	/* a key of one side only has no objects on the other */
	for (size_t i = 0; i < d->table.n_rows; i++) {
		struct diff_row *r = &d->table.rows[i];

		for (s = 0; s < 2; s++) {
			if (!r->samples[s] && !isnan(r->objects[!s]))
				r->objects[s] = 0;
			if (isnan(r->se[s]))
				r->se[s] = 0;
		}
		if (d->table.test != DIFF_TEST_WEIGHTS)
			r->se[0] = r->se[1] = NAN;
	}
	diff_total_se(&d->table, d->table.rows, d->table.n_rows);
	diff_table_finish(&d->table, d->table.samples[0], d->table.samples[1]);
	/* no rows: rows may be NULL, which qsort must not be given */
	if (d->table.n_rows > 1)
		qsort(d->table.rows, d->table.n_rows, sizeof(struct diff_row),
		      row_cmp);
	*out = &d->table;
	return 0;
}

/* --- trees -------------------------------------------------------------------- */

struct mnode {
	uint32_t parent, depth;
	const char *label; /* the arena's */
	uint64_t samples[2];
	double bytes[2];
	double rel_err[2];
	uint32_t first_kid, n_kids; /* into kids[] after the merge */
};

struct tree_merge {
	struct mnode *n;
	size_t len, alloc;
	struct hmap map; /* parent (4 bytes) + label -> node */
};

static uint32_t merge_node(struct tree_merge *m, struct arena *a,
			   uint32_t parent, const char *label, uint32_t depth)
{
	bool added;
	uint64_t *v;
	char *k;
	size_t len = strlen(label);

	k = arena_alloc(a, 4 + len);
	memcpy(k, &parent, 4);
	memcpy(k + 4, label, len);
	v = hmap_put(&m->map, k, 4 + len, m->len, &added);
	if (added) {
		struct mnode *x;

		if (m->len == m->alloc) {
			m->alloc = m->alloc ? 2 * m->alloc : 256;
			m->n = xreallocarray(m->n, m->alloc, sizeof(*m->n));
		}
		x = &m->n[m->len++];
		memset(x, 0, sizeof(*x));
		x->parent = parent;
		x->depth = depth;
		x->label = arena_memdup(a, label, len);
	}
	return (uint32_t)*v;
}

static const struct diff_row *sort_rows;

static int kid_cmp(const void *a, const void *b)
{
	return row_cmp(&sort_rows[*(const uint32_t *)a],
		       &sort_rows[*(const uint32_t *)b]);
}

int diff_tree(struct diff *d, bool inverted, uint32_t max_depth,
	      const struct diff_table **out, struct err *e)
{
	struct tree_merge m;
	struct diff_table *t = &d->table;
	struct diff_row *flat;
	uint32_t *kids, *order, *stack, *pos;
	size_t i, nk, no, sp;
	int s;

	if (rate_table_begin(d, e) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	hmap_init(&m.map);
	merge_node(&m, &d->arena, UINT32_MAX, "all", 0);
	for (s = 0; s < 2; s++) {
		const struct query_tree_node *nodes;
		struct query_total tot;
		size_t n;
		uint32_t *map;

		if (query_tree(d->q[s], inverted, max_depth, &nodes, &n, &tot,
			       e) < 0) {
			hmap_release(&m.map);
			free(m.n);
			return -1;
		}
		t->samples[s] = tot.samples;
		t->value[s] = (double)tot.est_bytes;
		map = xcalloc(n ? n : 1, sizeof(*map));
		/* depth first from the root, so a parent is mapped before
		 * its children */
		stack = xcalloc(n ? n : 1, sizeof(*stack));
		sp = 0;
		if (n) {
			map[0] = 0;
			stack[sp++] = 0;
		}
		while (sp) {
			uint32_t x = stack[--sp], c;

			m.n[map[x]].samples[s] = nodes[x].samples;
			m.n[map[x]].bytes[s] = (double)nodes[x].est_bytes;
			m.n[map[x]].rel_err[s] = nodes[x].rel_err;
			for (c = nodes[x].first_child; c != QUERY_TREE_NONE;
			     c = nodes[c].next_sibling) {
				map[c] = merge_node(&m, &d->arena, map[x],
						    nodes[c].label,
						    m.n[map[x]].depth + 1);
				stack[sp++] = c;
			}
		}
		free(stack);
		free(map);
	}
	hmap_release(&m.map);
	/* rows in merge order to test them, then written out depth first */
	flat = xcalloc(m.len, sizeof(*flat));
	t->n_rows = 0;
	for (i = 0; i < m.len; i++) {
		struct diff_row *r = row_add(d, m.n[i].label);

		r->depth = m.n[i].depth;
		for (s = 0; s < 2; s++) {
			r->samples[s] = m.n[i].samples[s];
			r->value[s] = m.n[i].bytes[s];
			if (t->test == DIFF_TEST_WEIGHTS)
				diff_row_se(r, s, r->value[s],
					    m.n[i].rel_err[s]);
		}
	}
	/* the root (row 0, the first merged) holds every sample */
	diff_total_se(t, t->rows, t->n_rows ? 1 : 0);
	diff_table_finish(&d->table, t->samples[0], t->samples[1]);
	/* children lists, sorted as tables are */
	kids = xcalloc(m.len, sizeof(*kids));
	pos = xcalloc(m.len + 1, sizeof(*pos));
	for (i = 1; i < m.len; i++)
		m.n[m.n[i].parent].n_kids++;
	for (i = 0, nk = 0; i < m.len; i++) {
		m.n[i].first_kid = (uint32_t)nk;
		pos[i] = (uint32_t)nk;
		nk += m.n[i].n_kids;
	}
	for (i = 1; i < m.len; i++)
		kids[pos[m.n[i].parent]++] = (uint32_t)i;
	sort_rows = t->rows;
	for (i = 0; i < m.len; i++)
		if (m.n[i].n_kids > 1)
			qsort(kids + m.n[i].first_kid, m.n[i].n_kids,
			      sizeof(*kids), kid_cmp);
	sort_rows = NULL;
	/* depth-first order: pos[] becomes old index -> new index */
	order = xcalloc(m.len, sizeof(*order));
	stack = xcalloc(m.len, sizeof(*stack));
	no = sp = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t x = stack[--sp];
		uint32_t k;

		pos[x] = (uint32_t)no;
		order[no++] = x;
		for (k = m.n[x].n_kids; k-- > 0;)
			stack[sp++] = kids[m.n[x].first_kid + k];
	}
	for (i = 0; i < no; i++) {
		flat[i] = t->rows[order[i]];
		flat[i].parent =
			order[i] ? pos[m.n[order[i]].parent] : UINT32_MAX;
	}
	memcpy(t->rows, flat, no * sizeof(*flat));
	t->n_rows = no;
	free(order);
	free(stack);
	free(pos);
	free(kids);
	free(flat);
	free(m.n);
	*out = t;
	return 0;
}

/* --- survivors ---------------------------------------------------------------- */

int diff_survivors(struct diff *d, enum query_group by,
		   const struct query_survivor_options *o,
		   const struct diff_table **out, struct err *e)
{
	struct hmap keys;
	int s;

	table_reset(d, DIFF_TEST_EQUAL, false);
	hmap_init(&keys);
	for (s = 0; s < 2; s++) {
		const struct query_survivors *sv;
		size_t i;

		if (query_survivors(d->q[s], by, o, &sv, e) < 0) {
			hmap_release(&keys);
			return -1;
		}
		if (sv->by_samples)
			d->table.by_samples = true;
		for (i = 0; i < sv->n_series; i++) {
			const struct query_survivor_series *x = &sv->series[i];
			/* key_index() may move the rows: index after it */
			uint64_t k = key_index(&keys, d, x->key);
			struct diff_row *r = &d->table.rows[k];

			r->samples[s] = x->end_samples;
			r->value[s] = sv->by_samples ? (double)x->end_samples
						     : (double)x->end_bytes;
			r->peak[s] = sv->by_samples ? (double)x->peak_samples
						    : (double)x->peak_bytes;
			d->table.samples[s] += x->end_samples;
			d->table.value[s] += r->value[s];
		}
	}
	hmap_release(&keys);
	/* a key of one side only had nothing live on the other */
	for (size_t i = 0; i < d->table.n_rows; i++)
		for (s = 0; s < 2; s++)
			if (isnan(d->table.rows[i].peak[s]))
				d->table.rows[i].peak[s] = 0;
	diff_total_se(&d->table, NULL, 0); /* no z-test: unused */
	diff_table_finish(&d->table, 1, 1);
	if (d->table.n_rows > 1)
		qsort(d->table.rows, d->table.n_rows, sizeof(struct diff_row),
		      row_cmp);
	*out = &d->table;
	return 0;
}

struct diff_table *diff_table_dup(const struct diff_table *t)
{
	size_t i, keys = 0, off;
	struct diff_table *c;
	char *p;

	for (i = 0; i < t->n_rows; i++)
		keys += strlen(t->rows[i].key) + 1;
	off = sizeof(*c) + t->n_rows * sizeof(*c->rows);
	c = xmalloc(off + keys);
	*c = *t;
	c->rows = (struct diff_row *)(c + 1);
	memcpy(c->rows, t->rows, t->n_rows * sizeof(*c->rows));
	p = (char *)c + off;
	for (i = 0; i < t->n_rows; i++) {
		size_t len = strlen(t->rows[i].key) + 1;

		memcpy(p, t->rows[i].key, len);
		c->rows[i].key = p;
		p += len;
	}
	return c;
}

/* --- code heaps ----------------------------------------------------------------- */

static bool same_heap(const char *a, const char *b)
{
	if (!strcmp(a, "CodeCache"))
		a = "CodeHeap";
	if (!strcmp(b, "CodeCache"))
		b = "CodeHeap";
	return !strcmp(a, b);
}

static uint32_t find_heap(const struct chq *q, uint32_t snap, const char *name)
{
	const struct chq_snapshot *sn = chq_snapshot(q, snap);
	uint32_t i;

	for (i = 0; i < sn->n_heaps; i++)
		if (same_heap(chq_str(q, chq_heap(q, sn->first_heap + i)->name),
			      name))
			return sn->first_heap + i;
	return UINT32_MAX;
}

#define CH_FACTS 7

/* Heap h's facts, in the order of names[] below, then blocks by type. */
static void heap_values(const struct chq *q, uint32_t h, double v[CH_FACTS],
			bool known[CH_FACTS], double types[CHB__COUNT])
{
	struct ch_facts f;
	const struct chq_block *bl;
	int64_t iv[CH_FACTS];
	uint32_t n, i;

	chq_facts(q, h, &f);
	iv[0] = f.capacity;
	iv[1] = f.used;
	iv[2] = f.free;
	iv[3] = f.largest_free;
	iv[4] = CHQ_UNKNOWN; /* fragmentation, below */
	iv[5] = f.used_blocks;
	iv[6] = f.free_blocks;
	for (i = 0; i < CH_FACTS; i++) {
		known[i] = iv[i] != CHQ_UNKNOWN;
		v[i] = known[i] ? (double)iv[i] : NAN;
	}
	known[4] = !isnan(f.fragmentation);
	v[4] = f.fragmentation;
	memset(types, 0, CHB__COUNT * sizeof(*types));
	bl = chq_heap_blocks(q, h, &n);
	for (i = 0; i < n; i++)
		if (!(bl[i].flags & (CHQ_BLOCK_FREE | CHQ_BLOCK_TOP)) &&
		    bl[i].type < CHB__COUNT)
			types[bl[i].type]++;
}

int diff_codeheap(const struct chq *a, uint32_t sa, const struct chq *b,
		  uint32_t sb, struct diff_ch_row **out, size_t *n,
		  struct err *e)
{
	static const char *const names[CH_FACTS] = {
		"capacity",	 "used",	"free",	       "largest_free",
		"fragmentation", "used_blocks", "free_blocks",
	};
	const struct chq *side[2] = {a, b};
	uint32_t snap[2] = {sa, sb};
	struct diff_ch_row *rows = NULL;
	size_t len = 0, alloc = 0;
	int s;

	if (sa >= chq_n_snapshots(a) || sb >= chq_n_snapshots(b))
		return err_set(e, ERR_USAGE,
			       "no code-heap snapshot %u in the %s side",
			       sa >= chq_n_snapshots(a) ? sa : sb,
			       sa >= chq_n_snapshots(a) ? "base" : "new");
	/* the base's heaps in order, then the new side's that the base
	 * lacks */
	for (s = 0; s < 2; s++) {
		const struct chq_snapshot *sn = chq_snapshot(side[s], snap[s]);
		uint32_t i;

		for (i = 0; i < sn->n_heaps; i++) {
			uint32_t h[2], f, t;
			const char *name = chq_str(
				side[s],
				chq_heap(side[s], sn->first_heap + i)->name);
			double v[2][CH_FACTS], types[2][CHB__COUNT];
			bool known[2][CH_FACTS];
			int k;

			h[s] = sn->first_heap + i;
			h[!s] = find_heap(side[!s], snap[!s], name);
			if (s == 1 && h[0] != UINT32_MAX)
				continue; /* done with the base's */
			for (k = 0; k < 2; k++) {
				if (h[k] == UINT32_MAX) {
					memset(known[k], 0, sizeof(known[k]));
					memset(types[k], 0, sizeof(types[k]));
					continue;
				}
				heap_values(side[k], h[k], v[k], known[k],
					    types[k]);
			}
			for (f = 0; f < CH_FACTS + CHB__COUNT; f++) {
				struct diff_ch_row *r;
				bool ka, kb;
				double x, y;

				if (f < CH_FACTS) {
					ka = known[0][f];
					kb = known[1][f];
					x = ka ? v[0][f] : NAN;
					y = kb ? v[1][f] : NAN;
				} else {
					t = f - CH_FACTS;
					x = types[0][t];
					y = types[1][t];
					if (!x && !y)
						continue;
					ka = h[0] != UINT32_MAX;
					kb = h[1] != UINT32_MAX;
				}
				if (len == alloc) {
					alloc = alloc ? 2 * alloc : 32;
					rows = xreallocarray(rows, alloc,
							     sizeof(*rows));
				}
				r = &rows[len++];
				r->heap = name;
				r->by_type = f >= CH_FACTS;
				r->fact = f < CH_FACTS
						  ? names[f]
						  : ch_block_type_name((
							    enum ch_block_type)(
							    f - CH_FACTS));
				r->in_base = h[0] != UINT32_MAX && ka;
				r->in_new = h[1] != UINT32_MAX && kb;
				r->value[0] = r->in_base ? x : NAN;
				r->value[1] = r->in_new ? y : NAN;
				r->delta = r->value[1] - r->value[0];
			}
		}
	}
	*out = rows;
	*n = len;
	return 0;
}
