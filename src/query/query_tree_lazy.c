/*
 * The browser's trees, made as they are opened (query_tree_lazy,
 * query_tree_children in query.h): the same nodes as query_tree()'s
 * whole tree (query_tree.c), from the same pass over the stack nodes'
 * own samples, and the exact count of the whole tree's nodes from a
 * walk that makes none.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/sort_u64.h"
#include "util/xalloc.h"

/* --- trees made as they are opened --------------------------------------- */

/* how far ahead a walk over scattered trie nodes or sums fetches */
#define COUNT_AHEAD 8

/*
 * The browser's trees (query_tree_lazy): a node is made with its
 * members, its children when it is opened.  A node's values are sums
 * over the stack nodes with samples of their own below its members,
 * read off their ordered list (self_list): of the synthetic store's 4.3
 * million trie nodes, 200,000 hold samples.  Every weight being
 * non-negative (self_neg otherwise), a sum held at the top is the same
 * in any order, so each node has query_tree()'s values.
 */

/* whether trie node k or a node below it has samples of its own */
static bool has_below(const struct query *q, uint32_t k)
{
	size_t j = query_self_from(q, k);

	return j < q->n_self_list && q->self_list[j] < q->nodes[k].end;
}

struct lazy_sum {
	uint64_t samples;
	int64_t bytes;
	struct query_var var;
};

static void sum_add(struct lazy_sum *s, const struct query_node_self *x)
{
	s->samples += x->samples;
	s->bytes = add_sat(s->bytes, x->bytes);
	var_add(&s->var, x);
}

/* the stack nodes of self_list from its i-th up to node b, into s */
static void sum_range(const struct query *q, size_t i, uint32_t b,
		      struct lazy_sum *s)
{
	for (; i < q->n_self_list && q->self_list[i] < b; i++)
		sum_add(s, &q->self[i]);
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
					   all->var.sq, all->var.pool);
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
		if (n <= QUERY_KIDS_SCAN) {
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
		struct lazy_sum all = {0}, own = {0};
		bool more = false;
		size_t m;

		for (m = lt->mem_at[first + g];
		     m < lt->mem_at[first + g] + lt->mem_n[first + g]; m++) {
			uint32_t a = lt->mem[m];

			if (inverted) {
				/* the stacks' sums are in the trie's order,
				 * the members by site: fetched a few ahead */
				if (m + COUNT_AHEAD < lt->n_mem)
					__builtin_prefetch(
						&q->self[lt->org[m +
								 COUNT_AHEAD]]);
				sum_add(&all, &q->self[lt->org[m]]);
				/* a trie node is a cache miss: the root's
				 * 200,000 kids were a sixth of its build */
				if (!more && q->nodes[a].parent != 0)
					more = true;
			} else {
				size_t j = query_self_from(q, a);

				if (j < q->n_self_list && q->self_list[j] == a)
					sum_add(&own, &q->self[j]);
				sum_range(q, j, q->nodes[a].end, &all);
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
		if (n_groups > 1)
			query_tree_sort_kids(lt->nodes, ids, n_groups);
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
					 q->self_list[i], (uint32_t)i);
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
				size_t j = query_self_from(q, c);

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

struct count_walk {
	uint64_t *kids; /* site << 32 | trie node */
	size_t n_kids, kids_alloc;
	uint32_t *buf; /* the groups' members */
	size_t n_buf, buf_alloc;
	struct count_group *st;
	size_t n_st, st_alloc;
	/* the kids put in groups by site without a sort (count_buckets):
	 * per site, the serial of the last kids that held it and their
	 * count or offset of it (n_sites of them, 0 where not made); the
	 * kids' distinct sites and the kids by site */
	uint32_t *stamp, *cnt, serial, n_sites;
	uint32_t *dsite;
	uint64_t *by_site;
	size_t scratch_alloc;
};

/* w's scratch for kids put in groups by site, past COUNT_SORT kids */
#define COUNT_SORT 32

static void count_walk_init(struct count_walk *w, const struct query *q)
{
	memset(w, 0, sizeof(*w));
	w->n_sites = q->n_sites;
	w->stamp = xcalloc(q->n_sites ? q->n_sites : 1, sizeof(*w->stamp));
	w->cnt = xmalloc((q->n_sites ? q->n_sites : 1) * sizeof(*w->cnt));
}

static void count_walk_free(struct count_walk *w)
{
	free(w->kids);
	free(w->buf);
	free(w->st);
	free(w->stamp);
	free(w->cnt);
	free(w->dsite);
	free(w->by_site);
}

static void count_kid(struct count_walk *w, uint32_t site, uint32_t node)
{
	if (w->n_kids == w->kids_alloc) {
		w->kids_alloc = w->kids_alloc ? w->kids_alloc * 2 : 1024;
		w->kids =
			xreallocarray(w->kids, w->kids_alloc, sizeof(*w->kids));
	}
	w->kids[w->n_kids++] = (uint64_t)site << 32 | node;
}

/*
 * The inverted tree's verdict under a filter: the depth of the outermost
 * match on each trie node's way out, 0 for none (a node is kept when it
 * has one).  Two bytes a node where the trie's depths fit: of the
 * synthetic store's 4.3 million nodes, written in one sweep into fresh
 * pages, whose faults were most of the filter's time past the count.
 */
struct outer {
	const uint16_t *d16;
	const uint32_t *d32;
};

static inline uint32_t outer_at(const struct outer *om, uint32_t x)
{
	return om->d16 ? om->d16[x] : om->d32[x];
}

static inline void outer_prefetch(const struct outer *om, uint32_t x)
{
	if (om->d16)
		__builtin_prefetch(&om->d16[x]);
	else
		__builtin_prefetch(&om->d32[x]);
}

/* the nodes of an inverted chain out from trie node a: one per frame
 * out to the outermost caller, or under a filter (om) out to the
 * outermost frame that matches */
static uint32_t chain_len(const struct query *q, const struct outer *om,
			  uint32_t a)
{
	uint32_t o;

	if (!om)
		return q->nodes[a].depth;
	o = outer_at(om, a);
	return o ? q->nodes[a].depth - o + 1 : 0;
}

/* The kids k[0, n) of one site as a group, a trie node next to itself
 * once.  An inverted tree's group of one trie node is a chain out to the
 * outermost caller, a node per frame: counted at once (chain_len), not
 * walked.  A trie node twice in a group (the inverted tree's members
 * that are siblings printing one site share their parent) changes no
 * count: each group is counted once whatever its members, and their
 * kids fall in the same groups; it only walks a chain that one member
 * would have counted at once. */
static void count_group(const struct query *q, bool inverted,
			const struct outer *om, struct count_walk *w,
			const uint64_t *k, size_t n, size_t *count)
{
	size_t at = w->n_buf, j;

	for (j = 0; j < n; j++)
		if (j == 0 || k[j] != k[j - 1])
			w->buf[w->n_buf++] = (uint32_t)k[j];
	if (inverted && w->n_buf - at == 1) {
		*count += chain_len(q, om, w->buf[at]);
		w->n_buf = at;
		return;
	}
	if (w->n_st == w->st_alloc) {
		w->st_alloc = w->st_alloc ? w->st_alloc * 2 : 256;
		w->st = xreallocarray(w->st, w->st_alloc, sizeof(*w->st));
	}
	w->st[w->n_st].at = at;
	w->st[w->n_st++].n = w->n_buf - at;
}

/*
 * The kids in groups by site without sorting them: a count per distinct
 * site (stamped with the kids' serial, so nothing is cleared between
 * them), then the kids placed by site, in the order they came (a trie
 * node twice in a group is harmless: count_group).  Deep in a walk most
 * kids have sites of their own, each a group of one.  false where a
 * site is past the table.
 */
static bool count_buckets(const struct query *q, bool inverted,
			  const struct outer *om, struct count_walk *w,
			  size_t *count)
{
	size_t n = w->n_kids, nd = 0, i, from;

	if (n > w->scratch_alloc) {
		w->scratch_alloc = n * 2;
		w->dsite = xreallocarray(w->dsite, w->scratch_alloc,
					 sizeof(*w->dsite));
		w->by_site = xreallocarray(w->by_site, w->scratch_alloc,
					   sizeof(*w->by_site));
	}
	if (++w->serial == 0) {
		memset(w->stamp, 0, w->n_sites * sizeof(*w->stamp));
		w->serial = 1;
	}
	for (i = 0; i < n; i++) {
		uint32_t s = (uint32_t)(w->kids[i] >> 32);

		if (s >= w->n_sites)
			return false;
		if (w->stamp[s] != w->serial) {
			w->stamp[s] = w->serial;
			w->cnt[s] = 0;
			w->dsite[nd++] = s;
		}
		w->cnt[s]++;
	}
	if (nd == n) {
		/* every kid a site of its own */
		for (i = 0; i < n; i++)
			count_group(q, inverted, om, w, &w->kids[i], 1, count);
		return true;
	}
	/* each site's offset, in the order the sites came */
	for (i = 0, from = 0; i < nd; i++) {
		uint32_t c = w->cnt[w->dsite[i]];

		w->cnt[w->dsite[i]] = (uint32_t)from;
		from += c;
	}
	for (i = 0; i < n; i++)
		w->by_site[w->cnt[w->kids[i] >> 32]++] = w->kids[i];
	/* cnt[s] is now the end of site s's kids, the start of the next */
	for (i = 0, from = 0; i < nd; i++) {
		size_t end = w->cnt[w->dsite[i]];

		count_group(q, inverted, om, w, w->by_site + from, end - from,
			    count);
		from = end;
	}
	return true;
}

/* The kids as groups by site, each trie node once (count_group). */
static void count_push(const struct query *q, bool inverted,
		       const struct outer *om, struct count_walk *w,
		       size_t *count)
{
	size_t i, j;

	if (w->n_buf + w->n_kids > w->buf_alloc) {
		w->buf_alloc = (w->n_buf + w->n_kids) * 2;
		w->buf = xreallocarray(w->buf, w->buf_alloc, sizeof(*w->buf));
	}
	if (w->n_kids > COUNT_SORT &&
	    count_buckets(q, inverted, om, w, count)) {
		w->n_kids = 0;
		return;
	}
	sort_u64(w->kids, w->n_kids);
	for (i = 0; i < w->n_kids; i = j) {
		for (j = i;
		     j < w->n_kids && w->kids[j] >> 32 == w->kids[i] >> 32; j++)
			;
		count_group(q, inverted, om, w, &w->kids[i], j - i, count);
	}
	w->n_kids = 0;
}

/* the groups on w's stack and all below them, counted; under a filter
 * (query_tree_lazy_filter) the call tree's kept verdicts kv, the
 * inverted tree's om; NULL: every node */
static size_t count_walk(const struct query *q, bool inverted,
			 const unsigned char *kv, const struct outer *om,
			 struct count_walk *w)
{
	size_t count = 0, i;

	while (w->n_st) {
		struct count_group g = w->st[--w->n_st];

		count++;
		for (i = g.at; i < g.at + g.n; i++) {
			uint32_t a = w->buf[i], c;

			if (inverted) {
				/* a member's parent and its site are two
				 * cache misses each: the site is read in
				 * count_push, after the group's misses
				 * have been started together */
				if (i + COUNT_AHEAD < g.at + g.n)
					__builtin_prefetch(
						&q->nodes[w->buf[i +
								 COUNT_AHEAD]]);
				c = q->nodes[a].parent;
				if (c != 0) {
					__builtin_prefetch(&q->node_site[c]);
					__builtin_prefetch(&q->nodes[c]);
					if (om)
						outer_prefetch(om, c);
					count_kid(w, 0, c);
				}
				continue;
			}
			for (c = a + 1; c < q->nodes[a].end;
			     c = q->nodes[c].end)
				if ((!kv || kv[c]) && has_below(q, c))
					count_kid(w, q->node_site[c], c);
		}
		w->n_buf = g.at;
		if (inverted) {
			size_t k = 0;

			for (i = 0; i < w->n_kids; i++) {
				uint32_t c = (uint32_t)w->kids[i];

				if (!om || outer_at(om, c))
					w->kids[k++] = (uint64_t)q->node_site[c]
							       << 32 |
						       c;
			}
			w->n_kids = k;
		}
		if (w->n_kids)
			count_push(q, inverted, om, w, &count);
	}
	return count;
}

/* the trie nodes with samples below them (and kept, under kv) in m's
 * subtree, m included: a walk in the trie's order, beside self_list */
static size_t count_below(const struct query *q, const unsigned char *kv,
			  uint32_t m)
{
	size_t n = 0, j = query_self_from(q, m);
	uint32_t k = m;

	while (k < q->nodes[m].end) {
		while (j < q->n_self_list && q->self_list[j] < k)
			j++;
		if (j == q->n_self_list || q->self_list[j] >= q->nodes[k].end ||
		    (kv && !kv[k])) {
			k = q->nodes[k].end;
		} else {
			n++;
			k++;
		}
	}
	return n;
}

/* a site among the children of the node being swept at a depth */
struct sweep_sib {
	uint32_t site, node;
};

/* the sweep's lists of siblings, by depth: sib[lstart[d]..lend[d]) */
struct sweep_lists {
	size_t *lstart, *lend, n_depth;
};

static void sweep_depths(struct sweep_lists *sw, size_t need)
{
	size_t old = sw->n_depth, k;

	if (need <= old)
		return;
	sw->n_depth = need * 2;
	sw->lstart =
		xreallocarray(sw->lstart, sw->n_depth, sizeof(*sw->lstart));
	sw->lend = xreallocarray(sw->lend, sw->n_depth, sizeof(*sw->lend));
	for (k = old; k < sw->n_depth; k++)
		sw->lstart[k] = sw->lend[k] = old ? sw->lend[old - 1] : 0;
}

/*
 * The sweep's fast path.  Node n has one child, n + 1, when that
 * child's subtree ends where n's does; most of a big trie's nodes are
 * in such chains (a stack's own frames below where it leaves the
 * others), and down a chain no node has a sibling to share its site
 * with.  So the chain's nodes with samples below them (and kept, under
 * kv) are counted at once: they are n to the last one returned, found
 * from where the chain ends and from self_list (j: its first at or
 * after n, moved on to its first at or after the chain's last node).
 * n has samples below it, and kv[n] is set.
 */
static uint32_t chain_down(const struct query *q, const unsigned char *kv,
			   uint32_t n, size_t *j)
{
	uint32_t e = q->nodes[n].end, b = n, x;

	while (b + 1 < e && q->nodes[b + 1].end == e)
		b++;
	if (b == n)
		return n;
	while (*j < q->n_self_list && q->self_list[*j] < b)
		(*j)++;
	if (*j < q->n_self_list && q->self_list[*j] < e)
		x = b; /* samples at or below the chain's last node */
	else
		x = q->self_list[*j - 1]; /* the last with samples of its own */
	if (kv) /* kept nodes are a chain's first ones: a kept node's
		   parent is kept */
		while (x > n && !kv[x])
			x--;
	return x;
}

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

static size_t count_call(const struct query *q, const unsigned char *kv)
{
	struct sweep_sib *sib = NULL;
	struct sweep_lists sw = {NULL, NULL, 0};
	size_t n_sib = 0, sib_alloc = 0, count = 1, i;
	uint64_t *coll = NULL; /* parent << 32 | site, in sweep order */
	size_t n_coll = 0, coll_alloc = 0;
	struct u64map wide;
	uint32_t n = 1;
	size_t j = 0; /* self_list's first at or after n */

	u64map_init(&wide);
	while (n < q->n_nodes) {
		const struct store_node *nd = &q->nodes[n];
		uint32_t d = nd->depth, site = q->node_site[n], x;
		size_t *lstart, *lend, k, len;
		bool dup = false;

		while (j < q->n_self_list && q->self_list[j] < n)
			j++;
		if (j == q->n_self_list || q->self_list[j] >= nd->end ||
		    (kv && !kv[n])) {
			n = nd->end; /* no samples below, or none kept */
			continue;
		}
		sweep_depths(&sw, d + 2);
		lstart = sw.lstart;
		lend = sw.lend;
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
		x = chain_down(q, kv, n, &j);
		if (x != n) {
			/* x's children start a list of siblings */
			d = q->nodes[x].depth;
			sweep_depths(&sw, d + 2);
			sw.lstart[d + 1] = sw.lend[d + 1] = n_sib;
			count += x - n;
		}
		n = x + 1;
	}
	u64map_release(&wide);
	free(sib);
	free(sw.lstart);
	free(sw.lend);
	if (n_coll) {
		/* outermost first: parents in the trie's order */
		unsigned char *in = xcalloc(q->n_nodes, 1); /* walked */
		struct count_walk w;

		count_walk_init(&w, q);
		sort_u64(coll, n_coll);
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
				if (q->node_site[c] != site || (kv && !kv[c]) ||
				    !has_below(q, c))
					continue;
				count_kid(&w, site, c);
				count -= count_below(q, kv, c);
				in[c] = 1;
			}
			count_push(q, false, NULL, &w, &at);
			count += count_walk(q, false, kv, NULL, &w);
		}
		free(in);
		count_walk_free(&w);
	}
	free(coll);
	return count;
}

/* the call tree's count under kv, the inverted tree's under om (NULL:
 * unfiltered) */
static size_t count_nodes(const struct query *q, bool inverted,
			  const unsigned char *kv, const struct outer *om)
{
	struct count_walk w;
	size_t count = 1, i;

	if (!inverted)
		return count_call(q, kv);
	count_walk_init(&w, q);
	for (i = 0; i < q->n_self_list; i++)
		if (q->self_list[i] && (!om || outer_at(om, q->self_list[i])))
			count_kid(&w, q->node_site[q->self_list[i]],
				  q->self_list[i]);
	if (w.n_kids)
		count_push(q, true, om, &w, &count);
	count += count_walk(q, true, kv, om, &w);
	count_walk_free(&w);
	return count;
}

/* lt's filter verdicts, if any, gone */
static void lazy_unfilter(struct query_lazy_tree *lt)
{
	free(lt->kept);
	free(lt->outer);
	lt->kept = lt->outer = NULL;
	lt->outer32 = false;
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
		struct lazy_sum all = {0}, own = {0};
		struct query_tree_node *root;
		size_t i;

		self = query_node_self_sums(q, total, e);
		if (!self)
			return ERR_FAIL;
		/* relabelled frames (query_frames.c): the whole tree, made
		 * from the frame trie */
		if (q->self_neg || q->relabel) {
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
		lazy_unfilter(lt);
		lazy_add(lt, QUERY_TREE_NONE, QUERY_TREE_NONE, "all", 0);
		lazy_mem_reserve(lt, 1);
		lt->mem[0] = lt->org[0] = 0;
		lt->n_mem = lt->mem_n[0] = 1;
		sum_add(&own, query_self_of(q, 0));
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
		lt->n_all = count_nodes(q, inverted, NULL, NULL);
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

/*
 * A trie node's verdict under a filter, one sweep: for the call tree,
 * whether its subtree holds a node with samples below it whose site
 * matches (from the last node back, each into its parent); for the
 * inverted tree, whether it or a frame out from it, up to the root,
 * matches (from the root on).  A made node is kept when one of its
 * members is; the count is the counting walk's with the verdict in
 * place of "samples below".
 */
size_t query_tree_lazy_filter(struct query *q, bool inverted,
			      const unsigned char *site_ok)
{
	struct query_lazy_tree *lt = &q->lazy[inverted];
	size_t nn = q->n_nodes ? q->n_nodes : 1;
	unsigned char *kv;
	uint32_t x;

	if (!lt->valid || lt->whole)
		return 0;
	lazy_unfilter(lt);
	if (!inverted) {
		unsigned char *below = xcalloc(nn, 1);
		size_t j = q->n_self_list; /* past self_list's last below x */

		kv = lt->kept = xcalloc(nn, 1);
		for (x = q->n_nodes; x-- > 1;) {
			uint32_t p = q->nodes[x].parent;

			while (j > 0 && q->self_list[j - 1] > x)
				j--;
			below[x] |= j > 0 && q->self_list[j - 1] == x;
			if (below[x] && site_ok[q->node_site[x]])
				kv[x] = 1;
			below[p] |= below[x];
			kv[p] |= kv[x];
		}
		free(below);
		return count_nodes(q, false, kv, NULL) - 1;
	} else {
		/* om: the depth of the outermost match on the way out, in
		 * two bytes a node until a depth needs more (parents come
		 * before children) */
		uint16_t *d16 = xmalloc(nn * sizeof(*d16));
		struct outer om = {d16, NULL};

		d16[0] = 0;
		for (x = 1; x < q->n_nodes; x++) {
			uint32_t p = q->nodes[x].parent, d = q->nodes[x].depth;

			if (d > UINT16_MAX)
				break;
			d16[x] = d16[p]			    ? d16[p]
				 : site_ok[q->node_site[x]] ? (uint16_t)d
							    : 0;
		}
		lt->outer = d16;
		if (x < q->n_nodes) {
			uint32_t *d32 = xmalloc(nn * sizeof(*d32));

			free(d16);
			d32[0] = 0;
			for (x = 1; x < q->n_nodes; x++) {
				uint32_t p = q->nodes[x].parent;

				d32[x] = d32[p] ? d32[p]
					 : site_ok[q->node_site[x]]
						 ? q->nodes[x].depth
						 : 0;
			}
			lt->outer = d32;
			lt->outer32 = true;
			om.d16 = NULL;
			om.d32 = d32;
		}
		/* the root is kept whatever it holds, and not counted */
		return count_nodes(q, true, NULL, &om) - 1;
	}
}

bool query_tree_lazy_kept(const struct query *q, bool inverted, uint32_t node)
{
	const struct query_lazy_tree *lt = &q->lazy[inverted];
	struct outer om = {lt->outer32 ? NULL : lt->outer,
			   lt->outer32 ? lt->outer : NULL};
	size_t m;

	if ((!lt->kept && !lt->outer) || lt->whole || node >= lt->n)
		return true;
	if (node == 0)
		return true;
	for (m = lt->mem_at[node]; m < lt->mem_at[node] + lt->mem_n[node]; m++)
		if (lt->outer ? outer_at(&om, lt->mem[m]) != 0
			      : lt->kept[lt->mem[m]])
			return true;
	return false;
}
