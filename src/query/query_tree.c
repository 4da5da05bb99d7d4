/*
 * Call trees, inverted trees and call paths: one pass for the stack
 * nodes' own samples (query_node_self_sums: rollup rows under the node
 * projection, samples at the window's edges), then the trie walked once.
 * The browser's trees, made as they are opened, are query_tree_lazy.c.
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

/* --- trees ------------------------------------------------------------------ */

/*
 * The tree being built, and its children by site.  Most nodes have one
 * to three children, so a child is found by scanning its parent's list,
 * which was touched moments ago and is in the cache; a global map keyed
 * by (parent, site) cost a cache miss per trie node, 40% of a call tree
 * over 10 million samples.  A parent past QUERY_KIDS_SCAN children (the roots,
 * the inverted tree's sites) moves its children into the map.
 */

struct tree_scratch {
	struct query_tree_node *nodes;
	uint32_t *site, *kid_count; /* per node */
	struct query_var *var;	    /* per node: for the ± */
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
		t->var = xreallocarray(t->var, t->alloc, sizeof(*t->var));
	}
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->parent = parent;
	nd->first_child = nd->next_sibling = QUERY_TREE_NONE;
	nd->depth = depth;
	t->site[t->n] = UINT32_MAX;
	t->kid_count[t->n] = 0;
	t->var[t->n] = (struct query_var){0, 0};
	return (uint32_t)t->n++;
}

/* parent's child for site, added (label, depth) when it has none */
static uint32_t tree_child(struct tree_scratch *t, uint32_t parent,
			   uint32_t site, const char *label, uint32_t depth)
{
	uint64_t key = (uint64_t)parent << 32 | site, v;
	uint32_t c;

	if (t->kid_count[parent] > QUERY_KIDS_SCAN) {
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
	if (++t->kid_count[parent] == QUERY_KIDS_SCAN + 1) {
		uint32_t k;

		for (k = t->nodes[parent].first_child; k != QUERY_TREE_NONE;
		     k = t->nodes[k].next_sibling)
			u64map_put(&t->wide,
				   (uint64_t)parent << 32 | t->site[k], k,
				   NULL);
	} else if (t->kid_count[parent] > QUERY_KIDS_SCAN) {
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
	t->var = xreallocarray(t->var, t->alloc, sizeof(*t->var));
}

static void tree_scratch_release(struct tree_scratch *t)
{
	free(t->site);
	free(t->kid_count);
	free(t->var);
	u64map_release(&t->wide);
	t->site = t->kid_count = NULL;
	t->var = NULL;
}

/* for child_cmp (qsort has no context): the browser and the CLI make
 * trees on one thread */
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

void query_tree_sort_kids(const struct query_tree_node *nodes, uint32_t *ids,
			  size_t n)
{
	sort_nodes = nodes;
	qsort(ids, n, sizeof(*ids), child_cmp);
	sort_nodes = NULL;
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
	for (p = 0; p < n; p++) {
		uint32_t a = start[p], b = start[p + 1], k;

		if (b - a > 1)
			query_tree_sort_kids(nodes, kids + a, b - a);
		nodes[p].first_child = a < b ? kids[a] : QUERY_TREE_NONE;
		for (k = a; k < b; k++)
			nodes[kids[k]].next_sibling =
				k + 1 < b ? kids[k + 1] : QUERY_TREE_NONE;
	}
	free(start);
	free(kids);
}

/* Totals flow up from the nodes' own: a merged node comes after its
 * parent. */
static void tree_flow_up(struct tree_scratch *t)
{
	size_t k;

	for (k = 0; k < t->n; k++) {
		t->nodes[k].samples = t->nodes[k].self_samples;
		t->nodes[k].est_bytes = t->nodes[k].self_bytes;
	}
	for (k = t->n; k-- > 1;) {
		uint32_t p = t->nodes[k].parent;

		t->var[p].sq = sq_add(t->var[p].sq, t->var[k].sq);
		t->var[p].pool = sq_add(t->var[p].pool, t->var[k].pool);
		t->nodes[p].samples += t->nodes[k].samples;
		t->nodes[p].est_bytes =
			add_sat(t->nodes[p].est_bytes, t->nodes[k].est_bytes);
	}
}

/*
 * query_tree() where frames are relabelled: the call tree is the frame
 * trie's nodes with samples below them; the inverted tree goes out from
 * each frame node with samples of its own to the root.  The root (its
 * own sums: samples without a stack) is t's node 0.
 */
static int tree_frames(struct query *q, bool inverted, uint32_t max_depth,
		       const struct query_node_self *self,
		       struct query_total *total, struct tree_scratch *t,
		       struct err *e)
{
	struct query_node_self *fs = query_frames_sums(q, self, total, e);
	const struct query_ftrie *ft = &q->ft;
	uint32_t v;

	if (!fs)
		return ERR_FAIL;
	t->nodes[0].self_samples = fs[0].samples;
	t->nodes[0].self_bytes = fs[0].bytes;
	t->var[0] = var_of(&fs[0]);
	if (!inverted) {
		uint64_t *sub = xcalloc(ft->n, sizeof(*sub));
		uint32_t *merged = xmalloc(ft->n * sizeof(*merged));

		for (v = 0; v < ft->n; v++)
			sub[v] = fs[v].samples;
		for (v = (uint32_t)ft->n; v-- > 1;)
			sub[ft->parent[v]] += sub[v];
		merged[0] = 0;
		for (v = 1; v < ft->n; v++) {
			uint32_t up = merged[ft->parent[v]], m;

			if (!sub[v])
				continue;
			m = tree_child(t, up, ft->label[v],
				       q->lab_names[ft->label[v]],
				       t->nodes[up].depth + 1);
			merged[v] = m;
			var_add(&t->var[m], &fs[v]);
			t->nodes[m].self_samples += fs[v].samples;
			t->nodes[m].self_bytes =
				add_sat(t->nodes[m].self_bytes, fs[v].bytes);
		}
		tree_flow_up(t);
		free(sub);
		free(merged);
	} else {
		t->nodes[0].samples = total->samples;
		t->nodes[0].est_bytes = total->est_bytes;
		for (v = 1; v < ft->n; v++) {
			uint32_t at = 0, x, depth = 0;

			if (!fs[v].samples)
				continue;
			var_add(&t->var[0], &fs[v]);
			for (x = v; x; x = ft->parent[x]) {
				if (max_depth && depth >= max_depth)
					break;
				at = tree_child(t, at, ft->label[x],
						q->lab_names[ft->label[x]],
						depth + 1);
				t->nodes[at].samples += fs[v].samples;
				t->nodes[at].est_bytes = add_sat(
					t->nodes[at].est_bytes, fs[v].bytes);
				var_add(&t->var[at], &fs[v]);
				if (depth == 0) {
					t->nodes[at].self_samples +=
						fs[v].samples;
					t->nodes[at].self_bytes =
						add_sat(t->nodes[at].self_bytes,
							fs[v].bytes);
				}
				depth++;
			}
		}
	}
	free(fs);
	return 0;
}

int query_tree(struct query *q, bool inverted, uint32_t max_depth,
	       const struct query_tree_node **out, size_t *n_out,
	       struct query_total *total, struct err *e)
{
	struct query_tree_cache *c = &q->trees[inverted];
	struct tree_scratch t;
	const struct query_node_self *self;
	uint32_t n;
	size_t k;

	if (c->valid && c->max_depth == max_depth) {
		*out = c->nodes;
		*n_out = c->n;
		*total = c->total;
		return 0;
	}
	self = query_node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	memset(&t, 0, sizeof(t));
	u64map_init(&t.wide);
	{
		/* a bound on the nodes: a node per trie node with samples
		 * below it, or per frame of each stack with samples */
		size_t cap = 1;

		for (k = 0; inverted && k < q->n_self_list; k++) {
			uint32_t d = q->nodes[q->self_list[k]].depth;

			cap += max_depth && d > max_depth ? max_depth : d;
		}
		tree_reserve(&t, inverted ? cap : q->n_nodes);
	}
	tree_add(&t, QUERY_TREE_NONE, "all", 0);
	t.nodes[0].site = QUERY_TREE_NONE;
	t.nodes[0].self_samples = query_self_of(q, 0)->samples;
	t.nodes[0].self_bytes = query_self_of(q, 0)->bytes;
	t.var[0] = var_of(query_self_of(q, 0));
	if (q->relabel) {
		if (tree_frames(q, inverted, max_depth, self, total, &t, e) <
		    0) {
			tree_scratch_release(&t);
			free(t.nodes);
			return ERR_FAIL;
		}
	} else if (!inverted) {
		/* The trie, with the children of one parent that share a
		 * site merged (frames that differ only in bytecode index or
		 * compilation): one map lookup per trie node, parents first
		 * as the depth-first numbering guarantees. */
		uint64_t *sub = xcalloc(q->n_nodes, sizeof(uint64_t));
		uint32_t *merged = xmalloc(q->n_nodes * sizeof(uint32_t));
		size_t j = 0; /* self_list's first at or after n */

		for (k = 0; k < q->n_self_list; k++)
			sub[q->self_list[k]] = self[k].samples;
		for (n = q->n_nodes; n-- > 1;)
			sub[q->nodes[n].parent] += sub[n];
		merged[0] = 0;
		for (n = 1; n < q->n_nodes; n++) {
			uint32_t up = merged[q->nodes[n].parent], m;
			const struct query_node_self *sn;

			if (!sub[n])
				continue; /* nothing below: no node */
			while (j < q->n_self_list && q->self_list[j] < n)
				j++;
			m = tree_child(&t, up, q->node_site[n],
				       q->site_names[q->node_site[n]],
				       t.nodes[up].depth + 1);
			merged[n] = m;
			sn = j < q->n_self_list && q->self_list[j] == n
				     ? &self[j]
				     : &query_self_none;
			var_add(&t.var[m], sn);
			t.nodes[m].self_samples += sn->samples;
			t.nodes[m].self_bytes =
				add_sat(t.nodes[m].self_bytes, sn->bytes);
		}
		tree_flow_up(&t);
		free(sub);
		free(merged);
	} else {
		/* From each stack that has samples, out from its site to the
		 * outermost caller, merging (parent, site) pairs. */
		t.nodes[0].samples = total->samples;
		t.nodes[0].est_bytes = total->est_bytes;
		for (k = 0; k < q->n_self_list; k++) {
			uint32_t at = 0, node, depth = 0;
			const struct query_node_self *sn = &self[k];

			n = q->self_list[k];
			if (!n)
				continue; /* the root's own: no frame */
			var_add(&t.var[0], sn);
			for (node = n; node; node = q->nodes[node].parent) {
				if (max_depth && depth >= max_depth)
					break;
				at = tree_child(
					&t, at, q->node_site[node],
					q->site_names[q->node_site[node]],
					depth + 1);
				t.nodes[at].samples += sn->samples;
				t.nodes[at].est_bytes = add_sat(
					t.nodes[at].est_bytes, sn->bytes);
				var_add(&t.var[at], sn);
				if (depth == 0) {
					t.nodes[at].self_samples += sn->samples;
					t.nodes[at].self_bytes =
						add_sat(t.nodes[at].self_bytes,
							sn->bytes);
				}
				depth++;
			}
		}
	}
	for (n = 0; n < t.n; n++)
		t.nodes[n].rel_err = (float)query_rel_err(
			q->kind, t.nodes[n].samples, t.nodes[n].est_bytes,
			t.var[n].sq, t.var[n].pool);
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

/* The hash of stack node k's path, as the walk down from the root
 * makes it: the sites from the root's child to k, mixed in that order. */
static uint64_t path_hash(const struct query *q, const uint64_t *site_h,
			  uint32_t k)
{
	/* k's path below the root has depth(k) nodes (the store checks
	 * each node's depth against its parent's) */
	uint32_t d = q->nodes[k].depth, up[64], n = 0, m;
	uint32_t *path = d <= 64 ? up : xmalloc(d * sizeof(*path));
	uint64_t h = 0;

	for (m = k; m && n < d; m = q->nodes[m].parent)
		path[n++] = m;
	while (n--)
		h = path_mix(h, site_h[q->node_site[path[n]]]);
	if (path != up)
		free(path);
	return h;
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

/* query_paths() where frames are relabelled: a path is a frame node with
 * samples of its own, stacks that print the same being one already */
static int paths_frames(struct query *q, size_t max,
			const struct query_node_self *self,
			const struct query_path **out, size_t *n_out,
			size_t *n_all, struct query_total *total, struct err *e)
{
	struct query_node_self *fs = query_frames_sums(q, self, total, e);
	struct query_path *acc;
	size_t n = 0;
	uint32_t v;

	if (!fs)
		return ERR_FAIL;
	acc = xcalloc(q->ft.n, sizeof(*acc));
	for (v = 0; v < q->ft.n; v++) {
		if (!fs[v].samples)
			continue;
		acc[n].stack = v;
		acc[n].samples = fs[v].samples;
		acc[n].est_bytes = fs[v].bytes;
		acc[n].rel_err =
			query_rel_err(q->kind, fs[v].samples, fs[v].bytes,
				      fs[v].sq, fs[v].pool);
		n++;
	}
	free(fs);
	if (n > 1)
		qsort(acc, n, sizeof(*acc), path_cmp);
	*n_all = n;
	free(q->paths);
	q->paths = acc;
	*out = acc;
	*n_out = n < max ? n : max;
	return 0;
}

int query_paths(struct query *q, size_t max, const struct query_path **out,
		size_t *n_out, size_t *n_all, struct query_total *total,
		struct err *e)
{
	struct query_path *acc = NULL;
	struct query_var *var = NULL; /* per path: for the ± */
	const struct query_node_self *self;
	uint64_t *h;
	struct u64map idx;
	size_t n = 0, alloc = 0, i;
	uint32_t k;

	self = query_node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	if (q->relabel)
		return paths_frames(q, max, self, out, n_out, n_all, total, e);
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
		h = xmalloc(q->n_self_list * sizeof(*h));
		if (q->n_self_list > q->n_nodes / 32) {
			/* most of the trie: every node's, down from the
			 * root */
			uint64_t *all = xmalloc(q->n_nodes * sizeof(*all));

			all[0] = 0;
			for (k = 1; k < q->n_nodes; k++)
				all[k] = path_mix(all[q->nodes[k].parent],
						  site_h[q->node_site[k]]);
			for (i = 0; i < q->n_self_list; i++)
				h[i] = all[q->self_list[i]];
			free(all);
		} else {
			/* a few (a drill-down): each up its own path */
			for (i = 0; i < q->n_self_list; i++)
				h[i] = path_hash(q, site_h, q->self_list[i]);
		}
		free(site_h);
	}
	u64map_init(&idx);
	for (i = 0; i < q->n_self_list; i++) {
		uint64_t *slot;
		bool added;

		k = q->self_list[i];
		slot = u64map_put(&idx, h[i], n, &added);
		if (added) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				acc = xreallocarray(acc, alloc, sizeof(*acc));
				var = xreallocarray(var, alloc, sizeof(*var));
			}
			var[n] = (struct query_var){0, 0};
			acc[n].stack = k;
			acc[n].samples = 0;
			acc[n].est_bytes = 0;
			n++;
		}
		acc[*slot].samples += self[i].samples;
		acc[*slot].est_bytes =
			add_sat(acc[*slot].est_bytes, self[i].bytes);
		var_add(&var[*slot], &self[i]);
	}
	for (k = 0; k < n; k++)
		acc[k].rel_err =
			query_rel_err(q->kind, acc[k].samples, acc[k].est_bytes,
				      var[k].sq, var[k].pool);
	free(var);
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
	if (q->relabel) {
		*labels = q->lab_names;
		return q->n_labs;
	}
	*labels = q->site_names;
	return q->n_sites;
}

size_t query_path_frames(const struct query *q, uint32_t stack,
			 const char **labels, size_t max)
{
	size_t n = 0;

	if (q->relabel) {
		for (; stack && stack < q->ft.n;
		     stack = q->ft.parent[stack], n++)
			if (n < max)
				labels[n] = q->lab_names[q->ft.label[stack]];
		return n;
	}
	if (stack >= q->n_nodes)
		return 0;
	for (; stack; stack = q->nodes[stack].parent, n++)
		if (n < max)
			labels[n] = q->site_names[q->node_site[stack]];
	return n;
}
