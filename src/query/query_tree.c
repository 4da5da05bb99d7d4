/*
 * Call trees, inverted trees and call paths: one pass for the stack
 * nodes' own samples (node_self_sums: rollup rows under the node
 * projection, samples at the window's edges), then the trie walked once.
 */
#include "query/query.h"
#include "query/query_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* --- trees ------------------------------------------------------------------ */

/*
 * The tree being built, and its children by site.  Most nodes have one
 * to three children, so a child is found by scanning its parent's list,
 * which was touched moments ago and is in the cache; a global map keyed
 * by (parent, site) cost a cache miss per trie node, 40% of a call tree
 * over 10 million samples.  A parent past KIDS_SCAN children (the roots,
 * the inverted tree's sites) moves its children into the map.
 */
#define KIDS_SCAN 8

struct tree_scratch {
	struct query_tree_node *nodes;
	uint32_t *site, *kid_count; /* per node */
	unsigned __int128 *sq;	    /* per node: its samples' squares */
	size_t n, alloc;
	struct u64map wide; /* (parent << 32 | site) -> child, wide parents */
};

static uint32_t tree_add(struct tree_scratch *t, uint32_t parent,
			 const char *label, uint32_t depth)
{
	struct query_tree_node *nd;

	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 1024;
		t->nodes = xreallocarray(t->nodes, t->alloc, sizeof(*t->nodes));
		t->site = xreallocarray(t->site, t->alloc, sizeof(*t->site));
		t->kid_count = xreallocarray(t->kid_count, t->alloc,
					     sizeof(*t->kid_count));
		t->sq = xreallocarray(t->sq, t->alloc, sizeof(*t->sq));
	}
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->parent = parent;
	nd->first_child = nd->next_sibling = QUERY_TREE_NONE;
	nd->depth = depth;
	t->site[t->n] = UINT32_MAX;
	t->kid_count[t->n] = 0;
	t->sq[t->n] = 0;
	return (uint32_t)t->n++;
}

/* parent's child for site, added (label, depth) when it has none */
static uint32_t tree_child(struct tree_scratch *t, uint32_t parent,
			   uint32_t site, const char *label, uint32_t depth)
{
	uint64_t key = (uint64_t)parent << 32 | site, v;
	uint32_t c;

	if (t->kid_count[parent] > KIDS_SCAN) {
		if (u64map_get(&t->wide, key, &v))
			return (uint32_t)v;
	} else {
		for (c = t->nodes[parent].first_child; c != QUERY_TREE_NONE;
		     c = t->nodes[c].next_sibling)
			if (t->site[c] == site)
				return c;
	}
	c = tree_add(t, parent, label, depth);
	t->site[c] = site;
	t->nodes[c].site = site;
	/* linked in front; link_children orders them for real later */
	t->nodes[c].next_sibling = t->nodes[parent].first_child;
	t->nodes[parent].first_child = c;
	if (++t->kid_count[parent] == KIDS_SCAN + 1) {
		uint32_t k;

		for (k = t->nodes[parent].first_child; k != QUERY_TREE_NONE;
		     k = t->nodes[k].next_sibling)
			u64map_put(&t->wide,
				   (uint64_t)parent << 32 | t->site[k], k,
				   NULL);
	} else if (t->kid_count[parent] > KIDS_SCAN) {
		u64map_put(&t->wide, key, c, NULL);
	}
	return c;
}

/* Room for cap nodes at once: growing by doubling copied the nodes
 * and touched twice the pages, and fresh pages are zeroed by the
 * kernel; pages of the bound never used are never touched. */
static void tree_reserve(struct tree_scratch *t, size_t cap)
{
	t->alloc = cap ? cap : 1;
	t->nodes = xreallocarray(t->nodes, t->alloc, sizeof(*t->nodes));
	t->site = xreallocarray(t->site, t->alloc, sizeof(*t->site));
	t->kid_count =
		xreallocarray(t->kid_count, t->alloc, sizeof(*t->kid_count));
	t->sq = xreallocarray(t->sq, t->alloc, sizeof(*t->sq));
}

static void tree_scratch_release(struct tree_scratch *t)
{
	free(t->site);
	free(t->kid_count);
	free(t->sq);
	u64map_release(&t->wide);
	t->site = t->kid_count = NULL;
	t->sq = NULL;
}

static const struct query_tree_node *sort_nodes;

static int child_cmp(const void *a, const void *b)
{
	const struct query_tree_node *x = &sort_nodes[*(const uint32_t *)a],
				     *y = &sort_nodes[*(const uint32_t *)b];

	if (x->est_bytes != y->est_bytes)
		return x->est_bytes < y->est_bytes ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->label, y->label);
}

/*
 * Chain every node's children, heaviest first.  The children are laid
 * out parent by parent (counting sort on the parent) and each parent's
 * few children sorted on their own: most have one to three, so this is
 * close to linear where one big sort of millions of nodes is not.
 */
static void link_children(struct query_tree_node *nodes, size_t n)
{
	uint32_t *start = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *kids = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *fill;
	size_t i, p;

	for (i = 1; i < n; i++)
		start[nodes[i].parent + 1]++;
	for (p = 0; p < n; p++)
		start[p + 1] += start[p];
	fill = xmalloc((n ? n : 1) * sizeof(uint32_t));
	memcpy(fill, start, (n ? n : 1) * sizeof(uint32_t));
	for (i = 1; i < n; i++)
		kids[fill[nodes[i].parent]++] = (uint32_t)i;
	free(fill);
	sort_nodes = nodes;
	for (p = 0; p < n; p++) {
		uint32_t a = start[p], b = start[p + 1], k;

		if (b - a > 1)
			qsort(kids + a, b - a, sizeof(uint32_t), child_cmp);
		nodes[p].first_child = a < b ? kids[a] : QUERY_TREE_NONE;
		for (k = a; k < b; k++)
			nodes[kids[k]].next_sibling =
				k + 1 < b ? kids[k + 1] : QUERY_TREE_NONE;
	}
	free(start);
	free(kids);
}

/*
 * The samples and bytes of every stack node that passes q's filters, as
 * the samples' own nodes (self, not yet summed up the tree), and the
 * totals: the pass the trees and the call paths share, made once per
 * query and kept in q->self (an array of q->n_nodes, freed by
 * query_free).  NULL with e set when a block is damaged.
 *
 * The rows of a rollup bucket are sorted by node and spread over the
 * whole trie, so each lands on a cache line of its own: the line a few
 * rows ahead is fetched while the current one is added, which halves
 * the pass over ten million samples' rows.
 */
#define SELF_AHEAD 16

static const struct query_node_self *
node_self_sums(struct query *q, struct query_total *total, struct err *e)
{
	struct query_node_self *self;
	struct query_pass p;
	const bool agent = q->kind == SAMPLE_AGENT;
	uint64_t i;
	int rc;

	if (q->self) {
		*total = q->self_total;
		return q->self;
	}
	self = xcalloc(q->n_nodes, sizeof(*self));
	free(q->self_bits);
	q->self_bits = xcalloc((q->n_nodes + 63) / 64, sizeof(uint64_t));
	total_init(total);
	if (query_pass_init(q, &p, PASS_NEED_NODE | PASS_NEED_SQUARES, 0, 0,
			    e) < 0) {
		free(self);
		return NULL;
	}
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS) {
			uint32_t r;

			for (r = 0; r < p.n_rows; r++) {
				const struct store_rollup_row *x = &p.rows[r];

				if (r + SELF_AHEAD < p.n_rows)
					__builtin_prefetch(
						&self[p.rows[r + SELF_AHEAD]
							      .node],
						1);
				if (!query_row_ok(q, &p, x))
					continue;
				q->self_bits[x->node >> 6] |= 1ull
							      << (x->node & 63);
				self[x->node].samples += x->samples;
				self[x->node].bytes =
					add_sat(self[x->node].bytes, x->bytes);
				if (p.sq)
					self[x->node].sq =
						sq_add(self[x->node].sq,
						       u128_of(p.sq[r].lo,
							       p.sq[r].hi));
				total_add_rows(total, x->samples, x->bytes,
					       x->first_ns, x->last_ns);
			}
			continue;
		}
		for (i = q->lo; i < q->hi; i++) {
			int64_t bytes =
				q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];

			if ((p.rec != PASS_ANY_REC &&
			     q->sm.recording[i] != p.rec) ||
			    !query_sample_ok(q, i))
				continue;
			q->self_bits[q->sm.node[i] >> 6] |=
				1ull << (q->sm.node[i] & 63);
			self[q->sm.node[i]].samples++;
			self[q->sm.node[i]].bytes =
				add_sat(self[q->sm.node[i]].bytes, bytes);
			self[q->sm.node[i]].sq =
				sq_add(self[q->sm.node[i]].sq,
				       sq_of(p.var ? p.var[i] : bytes,
					     agent ? q->sm.size[i] : 0, agent));
			total_add(total, q->sm.time_ns[i], bytes);
		}
	}
	query_pass_release(&p);
	if (rc < 0) {
		free(self);
		return NULL;
	}
	q->self = self;
	q->self_total = *total;
	return self;
}

int query_tree(struct query *q, bool inverted, uint32_t max_depth,
	       const struct query_tree_node **out, size_t *n_out,
	       struct query_total *total, struct err *e)
{
	struct query_tree_cache *c = &q->trees[inverted];
	struct tree_scratch t;
	const struct query_node_self *self;
	uint32_t n;

	if (c->valid && c->max_depth == max_depth) {
		*out = c->nodes;
		*n_out = c->n;
		*total = c->total;
		return 0;
	}
	self = node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	memset(&t, 0, sizeof(t));
	u64map_init(&t.wide);
	{
		/* a bound on the nodes: a node per trie node with samples
		 * below it, or per frame of each stack with samples */
		size_t cap = 1;

		for (n = 1; inverted && n < q->n_nodes; n++) {
			uint32_t d = q->nodes[n].depth;

			if (!self[n].samples)
				continue;
			cap += max_depth && d > max_depth ? max_depth : d;
		}
		tree_reserve(&t, inverted ? cap : q->n_nodes);
	}
	tree_add(&t, QUERY_TREE_NONE, "all", 0);
	t.nodes[0].site = QUERY_TREE_NONE;
	t.nodes[0].self_samples = self[0].samples;
	t.nodes[0].self_bytes = self[0].bytes;
	t.sq[0] = self[0].sq;
	if (!inverted) {
		/* The trie, with the children of one parent that share a
		 * site merged (frames that differ only in bytecode index or
		 * compilation): one map lookup per trie node, parents first
		 * as the depth-first numbering guarantees. */
		uint64_t *sub = xcalloc(q->n_nodes, sizeof(uint64_t));
		uint32_t *merged = xmalloc(q->n_nodes * sizeof(uint32_t));
		size_t k;

		for (n = q->n_nodes; n-- > 1;) {
			sub[n] += self[n].samples;
			sub[q->nodes[n].parent] += sub[n];
		}
		merged[0] = 0;
		for (n = 1; n < q->n_nodes; n++) {
			uint32_t up = merged[q->nodes[n].parent], m;

			if (!sub[n])
				continue; /* nothing below: no node */
			m = tree_child(&t, up, q->node_site[n],
				       q->site_names[q->node_site[n]],
				       t.nodes[up].depth + 1);
			merged[n] = m;
			t.sq[m] = sq_add(t.sq[m], self[n].sq);
			t.nodes[m].self_samples += self[n].samples;
			t.nodes[m].self_bytes =
				add_sat(t.nodes[m].self_bytes, self[n].bytes);
		}
		/* totals flow up: a merged node comes after its parent */
		for (k = 0; k < t.n; k++) {
			t.nodes[k].samples = t.nodes[k].self_samples;
			t.nodes[k].est_bytes = t.nodes[k].self_bytes;
		}
		for (k = t.n; k-- > 1;) {
			t.sq[t.nodes[k].parent] =
				sq_add(t.sq[t.nodes[k].parent], t.sq[k]);
			t.nodes[t.nodes[k].parent].samples +=
				t.nodes[k].samples;
			t.nodes[t.nodes[k].parent].est_bytes =
				add_sat(t.nodes[t.nodes[k].parent].est_bytes,
					t.nodes[k].est_bytes);
		}
		free(sub);
		free(merged);
	} else {
		/* From each stack that has samples, out from its site to the
		 * outermost caller, merging (parent, site) pairs. */
		t.nodes[0].samples = total->samples;
		t.nodes[0].est_bytes = total->est_bytes;
		for (n = 1; n < q->n_nodes; n++) {
			uint32_t at = 0, node, depth = 0;

			if (!self[n].samples)
				continue;
			t.sq[0] = sq_add(t.sq[0], self[n].sq);
			for (node = n; node; node = q->nodes[node].parent) {
				if (max_depth && depth >= max_depth)
					break;
				at = tree_child(
					&t, at, q->node_site[node],
					q->site_names[q->node_site[node]],
					depth + 1);
				t.nodes[at].samples += self[n].samples;
				t.nodes[at].est_bytes = add_sat(
					t.nodes[at].est_bytes, self[n].bytes);
				t.sq[at] = sq_add(t.sq[at], self[n].sq);
				if (depth == 0) {
					t.nodes[at].self_samples +=
						self[n].samples;
					t.nodes[at].self_bytes =
						add_sat(t.nodes[at].self_bytes,
							self[n].bytes);
				}
				depth++;
			}
		}
	}
	for (n = 0; n < t.n; n++)
		t.nodes[n].rel_err =
			(float)query_rel_err(q->kind, t.nodes[n].samples,
					     t.nodes[n].est_bytes, t.sq[n]);
	tree_scratch_release(&t);
	link_children(t.nodes, t.n);
	free(c->nodes);
	c->nodes = t.nodes;
	c->n = t.n;
	c->max_depth = max_depth;
	c->total = *total;
	c->valid = true;
	*out = t.nodes;
	*n_out = t.n;
	return 0;
}

/* --- trees made as they are opened --------------------------------------- */

/*
 * The browser's trees (query_tree_lazy): a node is made with its
 * members, its children when it is opened.  A node's values are sums
 * over the stack nodes with samples of their own below its members,
 * read off their ordered list (self_list): of the synthetic store's 4.3
 * million trie nodes, 200,000 hold samples.  Every weight being
 * non-negative (self_neg otherwise), a sum held at the top is the same
 * in any order, so each node has query_tree()'s values.
 */

static void self_list_make(struct query *q)
{
	size_t w, n_words = (q->n_nodes + 63) / 64, n = 0, alloc = 0;
	uint32_t *list = NULL;

	if (q->self_listed)
		return;
	for (w = 0; w < n_words; w++) {
		uint64_t b = q->self_bits[w];

		while (b) {
			uint32_t k = (uint32_t)(w * 64 +
						(unsigned)__builtin_ctzll(b));

			b &= b - 1;
			if (!q->self[k].samples)
				continue;
			if (q->self[k].bytes < 0)
				q->self_neg = true;
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 1024;
				list = xreallocarray(list, alloc,
						     sizeof(*list));
			}
			list[n++] = k;
		}
	}
	q->self_list = list;
	q->n_self_list = n;
	q->self_listed = true;
}

/* the first of self_list at or after stack node k */
static size_t self_from(const struct query *q, uint32_t k)
{
	size_t lo = 0, hi = q->n_self_list;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->self_list[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct lazy_sum {
	uint64_t samples;
	int64_t bytes;
	unsigned __int128 sq;
};

static void sum_add(struct lazy_sum *s, const struct query_node_self *x)
{
	s->samples += x->samples;
	s->bytes = add_sat(s->bytes, x->bytes);
	s->sq = sq_add(s->sq, x->sq);
}

/* the stack nodes of self_list from its i-th up to node b, into s */
static void sum_range(const struct query *q, size_t i, uint32_t b,
		      struct lazy_sum *s)
{
	for (; i < q->n_self_list && q->self_list[i] < b; i++)
		sum_add(s, &q->self[q->self_list[i]]);
}

static uint32_t lazy_add(struct query_lazy_tree *lt, uint32_t parent,
			 uint32_t site, const char *label, uint32_t depth)
{
	struct query_tree_node *nd;

	if (lt->n == lt->alloc) {
		lt->alloc = lt->alloc ? lt->alloc * 2 : 256;
		lt->nodes =
			xreallocarray(lt->nodes, lt->alloc, sizeof(*lt->nodes));
		lt->mem_at = xreallocarray(lt->mem_at, lt->alloc,
					   sizeof(*lt->mem_at));
		lt->mem_n =
			xreallocarray(lt->mem_n, lt->alloc, sizeof(*lt->mem_n));
	}
	nd = &lt->nodes[lt->n];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->parent = parent;
	nd->first_child = nd->next_sibling = QUERY_TREE_NONE;
	nd->depth = depth;
	nd->site = site;
	lt->mem_at[lt->n] = lt->n_mem;
	lt->mem_n[lt->n] = 0;
	return (uint32_t)lt->n++;
}

static void lazy_mem_reserve(struct query_lazy_tree *lt, size_t more)
{
	if (lt->n_mem + more <= lt->mem_alloc)
		return;
	lt->mem_alloc = lt->mem_alloc ? lt->mem_alloc * 2 : 1024;
	if (lt->mem_alloc < lt->n_mem + more)
		lt->mem_alloc = lt->n_mem + more;
	lt->mem = xreallocarray(lt->mem, lt->mem_alloc, sizeof(*lt->mem));
	lt->org = xreallocarray(lt->org, lt->mem_alloc, sizeof(*lt->org));
}

static void lazy_values(const struct query *q, struct query_tree_node *nd,
			const struct lazy_sum *all, const struct lazy_sum *own)
{
	nd->samples = all->samples;
	nd->est_bytes = all->bytes;
	nd->self_samples = own->samples;
	nd->self_bytes = own->bytes;
	nd->rel_err = (float)query_rel_err(q->kind, all->samples, all->bytes,
					   all->sq);
}

/* a would-be child: its site, the trie node it reaches, whose samples */
struct lazy_kid {
	uint32_t site, at, org, group;
};

/*
 * The children of parent from its members' kids (in the order
 * query_tree() meets them): one node per site, made in the order of
 * each site's first kid, as query_tree() makes them, then chained as
 * link_children() does, so that equal siblings come out alike.
 */
static void lazy_make(struct query *q, struct query_lazy_tree *lt,
		      bool inverted, uint32_t parent, struct lazy_kid *kid,
		      size_t n)
{
	struct u64map groups;
	uint32_t first = (uint32_t)lt->n, n_groups = 0, depth, g;
	size_t *start, i, base;

	depth = lt->nodes[parent].depth + 1;
	u64map_init(&groups);
	for (i = 0; i < n; i++) {
		bool added = true;
		uint64_t v = n_groups;

		/* a few kids (most parents): their sites side by side */
		if (n <= KIDS_SCAN) {
			for (g = 0; g < n_groups; g++)
				if (lt->nodes[first + g].site == kid[i].site) {
					added = false;
					v = g;
					break;
				}
		} else {
			v = *u64map_put(&groups, kid[i].site, n_groups, &added);
		}
		if (added) {
			lazy_add(lt, parent, kid[i].site,
				 q->site_names[kid[i].site], depth);
			n_groups++;
		}
		kid[i].group = (uint32_t)v;
	}
	u64map_release(&groups);
	/* the members, group by group, each in the kids' order */
	lazy_mem_reserve(lt, n);
	base = lt->n_mem;
	start = xcalloc(n_groups + 1, sizeof(*start));
	for (i = 0; i < n; i++)
		start[kid[i].group + 1]++;
	for (g = 0; g < n_groups; g++) {
		start[g + 1] += start[g];
		lt->mem_at[first + g] = base + start[g];
		lt->mem_n[first + g] = (uint32_t)(start[g + 1] - start[g]);
	}
	for (i = 0; i < n; i++) {
		size_t at = base + start[kid[i].group]++;

		lt->mem[at] = kid[i].at;
		lt->org[at] = kid[i].org;
	}
	lt->n_mem = base + n;
	free(start);
	for (g = 0; g < n_groups; g++) {
		struct query_tree_node *nd = &lt->nodes[first + g];
		struct lazy_sum all = {0, 0, 0}, own = {0, 0, 0};
		bool more = false;
		size_t m;

		for (m = lt->mem_at[first + g];
		     m < lt->mem_at[first + g] + lt->mem_n[first + g]; m++) {
			uint32_t a = lt->mem[m];

			if (inverted) {
				sum_add(&all, &q->self[lt->org[m]]);
				if (q->nodes[a].parent != 0)
					more = true;
			} else {
				sum_add(&own, &q->self[a]);
				sum_range(q, self_from(q, a), q->nodes[a].end,
					  &all);
			}
		}
		if (inverted) {
			if (depth == 1)
				own = all;
		} else {
			more = all.samples > own.samples;
		}
		lazy_values(q, nd, &all, &own);
		nd->first_child = more ? QUERY_TREE_LATER : QUERY_TREE_NONE;
	}
	/* chained heaviest first, as link_children() */
	{
		uint32_t *ids =
			xmalloc((n_groups ? n_groups : 1) * sizeof(*ids));

		for (g = 0; g < n_groups; g++)
			ids[g] = first + g;
		sort_nodes = lt->nodes;
		if (n_groups > 1)
			qsort(ids, n_groups, sizeof(*ids), child_cmp);
		lt->nodes[parent].first_child =
			n_groups ? ids[0] : QUERY_TREE_NONE;
		for (g = 0; g < n_groups; g++)
			lt->nodes[ids[g]].next_sibling =
				g + 1 < n_groups ? ids[g + 1] : QUERY_TREE_NONE;
		free(ids);
	}
}

static void kid_push(struct lazy_kid **kid, size_t *n, size_t *alloc,
		     uint32_t site, uint32_t at, uint32_t org)
{
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 256;
		*kid = xreallocarray(*kid, *alloc, sizeof(**kid));
	}
	(*kid)[(*n)++] = (struct lazy_kid){site, at, org, 0};
}

void query_tree_children(struct query *q, bool inverted, uint32_t node,
			 const struct query_tree_node **out, size_t *n_out)
{
	struct query_lazy_tree *lt = &q->lazy[inverted];
	struct lazy_kid *kid = NULL;
	size_t n = 0, alloc = 0, m, i;

	if (!lt->valid || lt->whole || node >= lt->n ||
	    lt->nodes[node].first_child != QUERY_TREE_LATER)
		goto out;
	if (inverted && node == 0) {
		/* every stack with samples, out from its allocating frame */
		for (i = 0; i < q->n_self_list; i++)
			if (q->self_list[i])
				kid_push(&kid, &n, &alloc,
					 q->node_site[q->self_list[i]],
					 q->self_list[i], q->self_list[i]);
	} else if (inverted) {
		/* each path one caller further out */
		for (m = lt->mem_at[node];
		     m < lt->mem_at[node] + lt->mem_n[node]; m++) {
			uint32_t p = q->nodes[lt->mem[m]].parent;

			if (p != 0)
				kid_push(&kid, &n, &alloc, q->node_site[p], p,
					 lt->org[m]);
		}
	} else {
		/* the members' children with samples below them, in the
		 * trie's order (the depth-first ranges) */
		for (m = lt->mem_at[node];
		     m < lt->mem_at[node] + lt->mem_n[node]; m++) {
			uint32_t a = lt->mem[m], c;

			for (c = a + 1; c < q->nodes[a].end;
			     c = q->nodes[c].end) {
				size_t j = self_from(q, c);

				if (j < q->n_self_list &&
				    q->self_list[j] < q->nodes[c].end)
					kid_push(&kid, &n, &alloc,
						 q->node_site[c], c, c);
			}
		}
	}
	lazy_make(q, lt, inverted, node, kid, n);
	free(kid);
out:
	*out = lt->nodes;
	*n_out = lt->n;
}

/*
 * The number of nodes query_tree() makes, counted without making them:
 * the distinct paths of sites, found as lazy_make() would find them,
 * group by group (a group: the trie nodes one tree node is made of,
 * each with samples below it), every group's kids sorted by site.
 * The order of the groups does not matter to a count.
 */
struct count_group {
	size_t at, n;
};

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Many keys (an inverted tree's root: every stack): least significant
 * digit first, 11 bits a pass, the digits all keys share skipped. */
static void radix_keys(uint64_t *k, size_t n)
{
	uint64_t *tmp = xmalloc(n * sizeof(*tmp)), *from = k, *to = tmp;
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	size_t cnt[2048], i;
	unsigned shift;

	for (i = 0; i < n; i++) {
		all_or |= k[i];
		all_and &= k[i];
	}
	for (shift = 0; shift < 64; shift += 11) {
		uint64_t *swap;
		size_t sum = 0, c, d;

		if (!(((all_or ^ all_and) >> shift) & 2047))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(from[i] >> shift) & 2047]++;
		for (d = 0; d < 2048; d++) {
			c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[cnt[(from[i] >> shift) & 2047]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
	free(tmp);
}

static void sort_keys(uint64_t *k, size_t n)
{
	size_t i, j;

	if (n > 1024) {
		radix_keys(k, n);
		return;
	}
	if (n > 16) {
		qsort(k, n, sizeof(*k), key_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		uint64_t x = k[i];

		for (j = i; j > 0 && k[j - 1] > x; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

struct count_walk {
	uint64_t *kids; /* site << 32 | trie node */
	size_t n_kids, kids_alloc;
	uint32_t *buf; /* the groups' members */
	size_t n_buf, buf_alloc;
	struct count_group *st;
	size_t n_st, st_alloc;
};

static void count_kid(struct count_walk *w, uint32_t site, uint32_t node)
{
	if (w->n_kids == w->kids_alloc) {
		w->kids_alloc = w->kids_alloc ? w->kids_alloc * 2 : 1024;
		w->kids =
			xreallocarray(w->kids, w->kids_alloc, sizeof(*w->kids));
	}
	w->kids[w->n_kids++] = (uint64_t)site << 32 | node;
}

/* The kids as groups by site, each trie node once.  An inverted
 * tree's group of one trie node is a chain out to the outermost caller,
 * a node per frame: counted at once (its depth), not walked. */
static void count_push(const struct query *q, bool inverted,
		       struct count_walk *w, size_t *count)
{
	size_t i, j;

	sort_keys(w->kids, w->n_kids);
	if (w->n_buf + w->n_kids > w->buf_alloc) {
		w->buf_alloc = (w->n_buf + w->n_kids) * 2;
		w->buf = xreallocarray(w->buf, w->buf_alloc, sizeof(*w->buf));
	}
	for (i = 0; i < w->n_kids; i = j) {
		size_t at = w->n_buf;

		for (j = i;
		     j < w->n_kids && w->kids[j] >> 32 == w->kids[i] >> 32; j++)
			if (j == i || w->kids[j] != w->kids[j - 1])
				w->buf[w->n_buf++] = (uint32_t)w->kids[j];
		if (inverted && w->n_buf - at == 1) {
			*count += q->nodes[w->buf[at]].depth;
			w->n_buf = at;
			continue;
		}
		if (w->n_st == w->st_alloc) {
			w->st_alloc = w->st_alloc ? w->st_alloc * 2 : 256;
			w->st = xreallocarray(w->st, w->st_alloc,
					      sizeof(*w->st));
		}
		w->st[w->n_st].at = at;
		w->st[w->n_st++].n = w->n_buf - at;
	}
	w->n_kids = 0;
}

/* the groups on w's stack and all below them, counted */
static size_t count_walk(const struct query *q, bool inverted,
			 const uint32_t *nxt, struct count_walk *w)
{
	size_t count = 0, i;

	while (w->n_st) {
		struct count_group g = w->st[--w->n_st];

		count++;
		for (i = g.at; i < g.at + g.n; i++) {
			uint32_t a = w->buf[i], c;

			if (inverted) {
				c = q->nodes[a].parent;
				if (c != 0)
					count_kid(w, q->node_site[c], c);
				continue;
			}
			for (c = a + 1; c < q->nodes[a].end;
			     c = q->nodes[c].end)
				if (nxt[c] < q->nodes[c].end)
					count_kid(w, q->node_site[c], c);
		}
		w->n_buf = g.at;
		if (w->n_kids)
			count_push(q, inverted, w, &count);
	}
	return count;
}

/* the trie nodes with samples below them in m's subtree, m included */
static size_t count_below(const struct query *q, const uint32_t *nxt,
			  uint32_t m)
{
	size_t n = 0;
	uint32_t k = m;

	while (k < q->nodes[m].end)
		if (nxt[k] >= q->nodes[k].end) {
			k = q->nodes[k].end;
		} else {
			n++;
			k++;
		}
	return n;
}

/* a site among the children of the node being swept at a depth */
struct sweep_sib {
	uint32_t site, node;
};

/*
 * The call tree's count.  Every trie node with samples below it is a
 * node of its own unless a sibling prints the same site: one sweep in
 * the trie's order counts them, with the sites of each depth's
 * siblings so far (in a map past SWEEP_SCAN of them), and notes every
 * parent whose children share a site.  Then each such group of
 * siblings, outermost first, has its subtrees counted again merged (the
 * group walk), in place of the sweep's count of them; groups inside one
 * counted so are in its walk already.
 */
#define SWEEP_SCAN 16

/* nxt[k]: the first stack node with samples of its own from k on */
static uint32_t *nxt_make(const struct query *q)
{
	uint32_t *nxt = xmalloc(((size_t)q->n_nodes + 1) * sizeof(*nxt));
	uint32_t k, next = q->n_nodes;
	size_t i;

	nxt[q->n_nodes] = q->n_nodes;
	for (k = q->n_nodes, i = q->n_self_list; k-- > 0;) {
		if (i && q->self_list[i - 1] == k) {
			next = k;
			i--;
		}
		nxt[k] = next;
	}
	return nxt;
}

static size_t count_call(const struct query *q)
{
	struct sweep_sib *sib = NULL;
	size_t n_sib = 0, sib_alloc = 0, *lstart = NULL, *lend = NULL;
	size_t n_depth = 0, count = 1, i;
	uint64_t *coll = NULL; /* parent << 32 | site, in sweep order */
	size_t n_coll = 0, coll_alloc = 0;
	struct u64map wide;
	uint32_t n = 1;
	size_t j = 0; /* self_list's first at or after n */

	u64map_init(&wide);
	while (n < q->n_nodes) {
		const struct store_node *nd = &q->nodes[n];
		uint32_t d = nd->depth, site = q->node_site[n];
		bool dup = false;
		size_t k, len;

		while (j < q->n_self_list && q->self_list[j] < n)
			j++;
		if (j == q->n_self_list || q->self_list[j] >= nd->end) {
			n = nd->end; /* no samples below */
			continue;
		}
		if (d + 2 > n_depth) {
			size_t old = n_depth;

			n_depth = (d + 2) * 2;
			lstart =
				xreallocarray(lstart, n_depth, sizeof(*lstart));
			lend = xreallocarray(lend, n_depth, sizeof(*lend));
			for (k = old; k < n_depth; k++)
				lstart[k] = lend[k] = old ? lend[old - 1] : 0;
		}
		n_sib = lend[d];
		len = lend[d] - lstart[d];
		if (len > SWEEP_SCAN) {
			uint64_t key = (uint64_t)nd->parent << 32 | site;
			bool added;

			u64map_put(&wide, key, 0, &added);
			dup = !added;
		} else {
			for (k = lstart[d]; k < lend[d]; k++)
				if (sib[k].site == site) {
					dup = true;
					break;
				}
			if (len == SWEEP_SCAN) {
				for (k = lstart[d]; k < lend[d]; k++)
					u64map_put(&wide,
						   (uint64_t)nd->parent << 32 |
							   sib[k].site,
						   0, NULL);
				u64map_put(&wide,
					   (uint64_t)nd->parent << 32 | site, 0,
					   NULL);
			}
		}
		if (dup) {
			uint64_t c = (uint64_t)nd->parent << 32 | site;

			if (n_coll == coll_alloc) {
				coll_alloc = coll_alloc ? coll_alloc * 2 : 64;
				coll = xreallocarray(coll, coll_alloc,
						     sizeof(*coll));
			}
			coll[n_coll++] = c;
		}
		if (n_sib == sib_alloc) {
			sib_alloc = sib_alloc ? sib_alloc * 2 : 256;
			sib = xreallocarray(sib, sib_alloc, sizeof(*sib));
		}
		sib[n_sib++] = (struct sweep_sib){site, n};
		lend[d] = n_sib;
		lstart[d + 1] = lend[d + 1] = n_sib;
		count++;
		n++;
	}
	u64map_release(&wide);
	free(sib);
	free(lstart);
	free(lend);
	if (n_coll) {
		/* outermost first: parents in the trie's order */
		unsigned char *in = xcalloc(q->n_nodes, 1); /* walked */
		uint32_t *nxt = nxt_make(q);
		struct count_walk w;

		memset(&w, 0, sizeof(w));
		sort_keys(coll, n_coll);
		for (i = 0; i < n_coll; i++) {
			uint32_t p = (uint32_t)(coll[i] >> 32), a, c;
			uint32_t site = (uint32_t)coll[i];
			size_t at;

			if (i && coll[i] == coll[i - 1])
				continue;
			for (a = p; a && !in[a]; a = q->nodes[a].parent)
				;
			if (in[a])
				continue; /* inside a group walked */
			/* the siblings of the site: one node, not several */
			at = w.n_buf = 0;
			for (c = p + 1; c < q->nodes[p].end;
			     c = q->nodes[c].end) {
				if (q->node_site[c] != site ||
				    nxt[c] >= q->nodes[c].end)
					continue;
				count_kid(&w, site, c);
				count -= count_below(q, nxt, c);
				in[c] = 1;
			}
			count_push(q, false, &w, &at);
			count += count_walk(q, false, nxt, &w);
		}
		free(in);
		free(nxt);
		free(w.kids);
		free(w.buf);
		free(w.st);
	}
	free(coll);
	return count;
}

static size_t count_nodes(const struct query *q, bool inverted)
{
	struct count_walk w;
	size_t count = 1, i;

	if (!inverted)
		return count_call(q);
	memset(&w, 0, sizeof(w));
	for (i = 0; i < q->n_self_list; i++)
		if (q->self_list[i])
			count_kid(&w, q->node_site[q->self_list[i]],
				  q->self_list[i]);
	if (w.n_kids)
		count_push(q, true, &w, &count);
	count += count_walk(q, true, NULL, &w);
	free(w.kids);
	free(w.buf);
	free(w.st);
	return count;
}

/* lt given up for query_tree()'s whole tree */
static void lazy_whole(struct query_lazy_tree *lt,
		       const struct query_tree_cache *c)
{
	if (!lt->whole)
		free(lt->nodes);
	lt->alloc = 0;
	lt->nodes = c->nodes;
	lt->n = lt->n_all = c->n;
	lt->total = c->total;
	lt->whole = lt->valid = true;
}

int query_tree_lazy(struct query *q, bool inverted,
		    const struct query_tree_node **out, size_t *n_out,
		    size_t *n_all, struct query_total *total, struct err *e)
{
	struct query_lazy_tree *lt = &q->lazy[inverted];
	struct query_tree_cache *c = &q->trees[inverted];
	const struct query_node_self *self;

	if (c->valid && c->max_depth == 0) {
		lazy_whole(lt, c);
	} else if (!lt->valid || lt->whole) {
		struct lazy_sum all = {0, 0, 0}, own = {0, 0, 0};
		struct query_tree_node *root;
		size_t i;

		self = node_self_sums(q, total, e);
		if (!self)
			return ERR_FAIL;
		self_list_make(q);
		if (q->self_neg) {
			const struct query_tree_node *nodes;
			size_t n;

			if (query_tree(q, inverted, 0, &nodes, &n, total, e) <
			    0)
				return ERR_FAIL;
			lazy_whole(lt, c);
			goto out;
		}
		if (lt->whole)
			lt->nodes = NULL;
		lt->whole = false;
		lt->n = lt->n_mem = 0;
		lazy_add(lt, QUERY_TREE_NONE, QUERY_TREE_NONE, "all", 0);
		lazy_mem_reserve(lt, 1);
		lt->mem[0] = lt->org[0] = 0;
		lt->n_mem = lt->mem_n[0] = 1;
		sum_add(&own, &self[0]);
		sum_range(q, 0, q->n_nodes, &all);
		root = &lt->nodes[0];
		if (inverted) {
			/* as query_tree(): the totals, and every square */
			all.samples = total->samples;
			all.bytes = total->est_bytes;
			lazy_values(q, root, &all, &own);
			root->first_child = QUERY_TREE_NONE;
			for (i = 0; i < q->n_self_list; i++)
				if (q->self_list[i])
					root->first_child = QUERY_TREE_LATER;
		} else {
			lazy_values(q, root, &all, &own);
			root->first_child = all.samples > own.samples
						    ? QUERY_TREE_LATER
						    : QUERY_TREE_NONE;
		}
		lt->n_all = count_nodes(q, inverted);
		lt->total = *total;
		lt->valid = true;
	}
out:
	*out = lt->nodes;
	*n_out = lt->n;
	*n_all = lt->n_all;
	*total = lt->total;
	return lt->whole;
}

/* --- call paths ---------------------------------------------------------- */

/* splitmix64's finaliser over a path's hash and its next frame's */
static uint64_t path_mix(uint64_t h, uint64_t frame)
{
	uint64_t x = h + frame * 0x9e3779b97f4a7c15ull + 1;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int path_cmp(const void *a, const void *b)
{
	const struct query_path *x = a, *y = b;

	if (x->est_bytes != y->est_bytes)
		return x->est_bytes < y->est_bytes ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int query_paths(struct query *q, size_t max, const struct query_path **out,
		size_t *n_out, size_t *n_all, struct query_total *total,
		struct err *e)
{
	struct query_path *acc = NULL;
	unsigned __int128 *sq = NULL; /* per path: the squares, for the ± */
	const struct query_node_self *self;
	uint64_t *h;
	struct u64map idx;
	size_t n = 0, alloc = 0;
	uint32_t k;

	self = node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	/* a path's hash from its parent's (parents come first) and the
	 * text of its frame: overloads of a method on one line print the
	 * same, and a list that shows them twice looks broken */
	{
		uint64_t *site_h = xmalloc(q->n_sites * sizeof(*site_h));
		uint32_t st;

		for (st = 0; st < q->n_sites; st++) {
			const char *c = q->site_names[st];
			uint64_t x = 0xcbf29ce484222325ull;

			for (; *c; c++)
				x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
			site_h[st] = x;
		}
		h = xmalloc(q->n_nodes * sizeof(*h));
		h[0] = 0;
		for (k = 1; k < q->n_nodes; k++)
			h[k] = path_mix(h[q->nodes[k].parent],
					site_h[q->node_site[k]]);
		free(site_h);
	}
	u64map_init(&idx);
	for (k = 0; k < q->n_nodes; k++) {
		uint64_t *slot;
		bool added;

		if (!self[k].samples)
			continue;
		slot = u64map_put(&idx, h[k], n, &added);
		if (added) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				acc = xreallocarray(acc, alloc, sizeof(*acc));
				sq = xreallocarray(sq, alloc, sizeof(*sq));
			}
			sq[n] = 0;
			acc[n].stack = k;
			acc[n].samples = 0;
			acc[n].est_bytes = 0;
			n++;
		}
		acc[*slot].samples += self[k].samples;
		acc[*slot].est_bytes =
			add_sat(acc[*slot].est_bytes, self[k].bytes);
		sq[*slot] = sq_add(sq[*slot], self[k].sq);
	}
	for (k = 0; k < n; k++)
		acc[k].rel_err = query_rel_err(q->kind, acc[k].samples,
					       acc[k].est_bytes, sq[k]);
	free(sq);
	u64map_release(&idx);
	free(h);
	if (n > 1)
		qsort(acc, n, sizeof(*acc), path_cmp);
	*n_all = n;
	if (n > max)
		n = max;
	free(q->paths);
	q->paths = acc;
	*out = acc;
	*n_out = n;
	return 0;
}

size_t query_tree_labels(const struct query *q, const char *const **labels)
{
	*labels = q->site_names;
	return q->n_sites;
}

size_t query_path_frames(const struct query *q, uint32_t stack,
			 const char **labels, size_t max)
{
	size_t n = 0;

	if (stack >= q->n_nodes)
		return 0;
	for (; stack; stack = q->nodes[stack].parent, n++)
		if (n < max)
			labels[n] = q->site_names[q->node_site[stack]];
	return n;
}
