/*
 * The stack nodes' own sums (query_node_self_sums, query_int.h): the
 * pass that the trees and the call paths share, made once per query and
 * kept in q, in the nodes' order (self_list, self).
 *
 * Of a big trie's nodes few hold samples (200,000 of the synthetic
 * store's 4.3 million), and a range or a drill-down's pass touches a few
 * thousand of those.  A table indexed by trie node, 4 bytes a node, is
 * 17 MB that a whole-recording pass touches every page of: in a browser
 * just opened those pages are fresh, and their faults were two thirds
 * of the pass.  So no table is indexed by node:
 *
 * - A rollup bucket's rows come sorted by node (docs/formats/store.md,
 *   checked when read), so a bucket is merged into the sums so far, from
 *   the back, in place: a whole-recording pass is a bucket or two per
 *   recording, and the merges are sequential work over the sums alone.
 * - The samples at a window's edges, and the rows of a pass of so many
 *   buckets that merging each would cost much more than adding its rows
 *   (a wide range of fine buckets), go to sums found through a hash map,
 *   sorted and merged with the rest at the end.
 *
 * Every sum is a sum held at the top, a minimum or a maximum, the same in
 * any order while every weight is non-negative, so the way the sums are
 * made does not change them.  A damaged store's negative bytes make a
 * held sum depend on order, here as in any pass; the trees take such a
 * store's whole tree (self_neg).
 */
#include "query/query.h"
#include "query/query_int.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/hash.h"
#include "util/sort_u64.h"
#include "util/xalloc.h"

const struct query_node_self query_self_none;

/* sums with their nodes */
struct self_set {
	uint32_t *node;
	struct query_node_self *sum;
	size_t n, alloc;
};

struct self_acc {
	struct self_set sorted; /* in node order, each node once */
	struct self_set loose;	/* as their nodes first came */
	struct u64map map;	/* node -> its index in loose */
	uint64_t merge_work;	/* the merges' steps so far */
	uint64_t rows;		/* the rows merged */
	bool no_merge;		/* later buckets' rows go to loose */
};

/* Merging costs the sums so far plus the bucket; adding a row through
 * the map costs about this many merge steps. */
#define SELF_MERGE_RATIO 8
#define SELF_MERGE_FREE	 65536

static void set_reserve(struct self_set *s, size_t n)
{
	if (n <= s->alloc)
		return;
	s->alloc = n > s->alloc * 2 ? n : s->alloc * 2;
	if (s->alloc < 1024)
		s->alloc = 1024;
	s->node = xreallocarray(s->node, s->alloc, sizeof(*s->node));
	s->sum = xreallocarray(s->sum, s->alloc, sizeof(*s->sum));
}

static void set_free(struct self_set *s)
{
	free(s->node);
	free(s->sum);
	memset(s, 0, sizeof(*s));
}

/* row r of p's bucket into s, and into the totals */
static void row_into(struct query_node_self *s, const struct query_pass *p,
		     uint32_t r, struct query_total *total)
{
	const struct store_rollup_row *x = &p->rows[r];

	s->samples += x->samples;
	s->bytes = add_sat(s->bytes, x->bytes);
	if (p->sq)
		s->sq = sq_add(s->sq, u128_of(p->sq[r].lo, p->sq[r].hi));
	s->pool = sq_add(s->pool, pool_row(p, x));
	total_add_rows(total, x->samples, x->bytes, x->first_ns, x->last_ns);
}

static struct query_node_self *loose_slot(struct self_acc *a, uint32_t node)
{
	struct self_set *l = &a->loose;
	bool added;
	uint64_t *v = u64map_put(&a->map, node, l->n, &added);

	if (!added)
		return &l->sum[*v];
	set_reserve(l, l->n + 1);
	l->node[l->n] = node;
	memset(&l->sum[l->n], 0, sizeof(l->sum[0]));
	return &l->sum[l->n++];
}

/*
 * A merge into a sorted set from the back, in place: the merged run is
 * written from the end of room for both, down, while the sums so far
 * that are past the node in hand move up ahead of it; so nothing is
 * overwritten before it is read (every step writes at most one entry,
 * and reads one).  Nodes come in descending order, a node's run of
 * entries together; back_end() closes the gap before the merged run.
 */
struct back_merge {
	struct self_set *s;
	size_t i;    /* the sums so far not yet past: s[0, i) */
	size_t o;    /* the merged run: s[o, need) */
	size_t need; /* the sums so far and the room for more */
};

static void back_begin(struct back_merge *m, struct self_set *s, size_t more)
{
	set_reserve(s, s->n + more);
	m->s = s;
	m->i = s->n;
	m->o = m->need = s->n + more;
}

/* node v's sums: the slot the last call gave it, or its sums so far
 * moved into a new one, or a new one of zeros */
static struct query_node_self *back_slot(struct back_merge *m, uint32_t v)
{
	struct self_set *s = m->s;

	while (m->i > 0 && s->node[m->i - 1] > v) {
		m->o--;
		m->i--;
		s->node[m->o] = s->node[m->i];
		s->sum[m->o] = s->sum[m->i];
	}
	if (m->o == m->need || s->node[m->o] != v) {
		m->o--;
		if (m->i > 0 && s->node[m->i - 1] == v) {
			m->i--;
			s->sum[m->o] = s->sum[m->i];
		} else {
			memset(&s->sum[m->o], 0, sizeof(s->sum[m->o]));
		}
		s->node[m->o] = v;
	}
	return &s->sum[m->o];
}

/* the sums before every node merged stay; the merged run follows them */
static void back_end(struct back_merge *m)
{
	struct self_set *s = m->s;
	size_t run = m->need - m->o;

	memmove(s->node + m->i, s->node + m->o, run * sizeof(*s->node));
	memmove(s->sum + m->i, s->sum + m->o, run * sizeof(*s->sum));
	s->n = m->i + run;
}

/*
 * The passing rows of p's bucket merged into a->sorted (back_merge).  A
 * row whose node is past the one after it (rows out of order, which the
 * store's checks rule out) goes to loose.
 */
static void merge_rows(struct query *q, struct query_pass *p,
		       struct self_acc *a, struct query_total *total)
{
	struct back_merge m;
	uint32_t r = p->n_rows, after = UINT32_MAX;

	back_begin(&m, &a->sorted, p->n_rows);
	while (r-- > 0) {
		const struct store_rollup_row *x = &p->rows[r];
		uint32_t v = x->node;

		if (!query_row_ok(q, p, x))
			continue;
		if (v > after) {
			row_into(loose_slot(a, v), p, r, total);
			continue;
		}
		after = v;
		row_into(back_slot(&m, v), p, r, total);
	}
	back_end(&m);
	a->merge_work += m.need;
	a->rows += p->n_rows;
}

static void add_rows(struct query *q, struct query_pass *p, struct self_acc *a,
		     struct query_total *total)
{
	uint32_t r;

	if (!a->no_merge &&
	    a->merge_work + a->sorted.n + p->n_rows >
		    SELF_MERGE_RATIO * (a->rows + p->n_rows) + SELF_MERGE_FREE)
		a->no_merge = true;
	if (!a->no_merge) {
		merge_rows(q, p, a, total);
		return;
	}
	for (r = 0; r < p->n_rows; r++)
		if (query_row_ok(q, p, &p->rows[r]))
			row_into(loose_slot(a, p->rows[r].node), p, r, total);
}

static void add_samples(struct query *q, const struct query_pass *p,
			struct self_acc *a, struct query_total *total)
{
	const bool agent = sample_kind_ht(q->kind);
	uint64_t i;

	for (i = q->lo; i < q->hi; i++) {
		int64_t bytes = q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
		struct query_node_self *s;

		if ((p->rec != PASS_ANY_REC && q->sm.recording[i] != p->rec) ||
		    !query_sample_ok(q, i))
			continue;
		s = loose_slot(a, q->sm.node[i]);
		s->samples++;
		s->bytes = add_sat(s->bytes, bytes);
		s->sq = sq_add(s->sq, sq_of(p->var ? p->var[i] : bytes,
					    agent ? q->sm.size[i] : 0, agent));
		s->pool = sq_add(s->pool, pool_sample(q, p, i, bytes));
		total_add(total, q->sm.time_ns[i], bytes);
	}
}

/* loose, put in node order, merged into sorted; sorted handed to q */
static void self_finish(struct query *q, struct self_acc *a)
{
	struct self_set *s = &a->sorted, *l = &a->loose;
	struct back_merge m;
	size_t i, j;

	if (l->n) {
		uint64_t *key = xmalloc(l->n * sizeof(*key));

		for (i = 0; i < l->n; i++)
			key[i] = (uint64_t)l->node[i] << 32 | i;
		sort_u64(key, l->n);
		/* merged from the back, as merge_rows() */
		back_begin(&m, s, l->n);
		for (j = l->n; j-- > 0;) {
			const struct query_node_self *x =
				&l->sum[(uint32_t)key[j]];
			struct query_node_self *y =
				back_slot(&m, (uint32_t)(key[j] >> 32));

			self_add(y, x);
		}
		back_end(&m);
		free(key);
	}
	set_free(l);
	u64map_release(&a->map);
	/* every sum has a sample at least: a row holds one, a sample is one */
	q->self_neg = false;
	for (i = 0; i < s->n; i++)
		if (s->sum[i].bytes < 0)
			q->self_neg = true;
	if (s->n && s->n < s->alloc) {
		s->node = xreallocarray(s->node, s->n, sizeof(*s->node));
		s->sum = xreallocarray(s->sum, s->n, sizeof(*s->sum));
	}
	q->self = s->sum ? s->sum : xcalloc(1, sizeof(*q->self));
	q->self_list = s->node ? s->node : xcalloc(1, sizeof(*q->self_list));
	q->n_self_list = s->n;
	memset(s, 0, sizeof(*s));
}

const struct query_node_self *
query_node_self_sums(struct query *q, struct query_total *total, struct err *e)
{
	struct self_acc a;
	struct query_pass p;
	int rc;

	if (q->self) {
		*total = q->self_total;
		return q->self;
	}
	memset(&a, 0, sizeof(a));
	u64map_init(&a.map);
	total_init(total);
	if (query_pass_init(q, &p, PASS_NEED_NODE | PASS_NEED_SQUARES, 0, 0,
			    e) < 0) {
		u64map_release(&a.map);
		return NULL;
	}
	while ((rc = query_pass_next(q, &p, e)) > 0)
		if (rc == PASS_ROWS)
			add_rows(q, &p, &a, total);
		else
			add_samples(q, &p, &a, total);
	query_pass_release(&p);
	if (rc < 0) {
		set_free(&a.sorted);
		set_free(&a.loose);
		u64map_release(&a.map);
		return NULL;
	}
	self_finish(q, &a);
	q->self_total = *total;
	return q->self;
}

size_t query_self_from(const struct query *q, uint32_t node)
{
	size_t lo = 0, hi = q->n_self_list;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->self_list[mid] < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct query_node_self *query_self_of(const struct query *q,
					    uint32_t node)
{
	size_t i = query_self_from(q, node);

	return i < q->n_self_list && q->self_list[i] == node ? &q->self[i]
							     : &query_self_none;
}
