/*
 * The tree views' nodes (view_tree_int.h): which of the query's nodes
 * are made (a tree made as opened gets a node's children when it is
 * opened; what needs every node takes the whole tree), which are open,
 * which the filter keeps, and the visible rows they make.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/names.h"
#include "tui/view_tree_int.h"
#include "util/hash.h"
#include "util/rx.h"
#include "util/xalloc.h"

/* The visible nodes: a walk over open, kept nodes, children in their
 * order (heaviest first).  The cursor stays on its node when it is
 * still visible, else on its nearest visible ancestor. */
void tr_rebuild_vis(struct tree *tr)
{
	uint32_t cur = tr->n_vis && tr->list.cur < tr->n_made_vis
			       ? tr->vis[tr->list.cur]
			       : 0;
	uint32_t i = 0;
	size_t k;

	if (tr->all_open) {
		/* every node open: the rows stay, made as they are shown
		 * (vis_extend) */
		tr->list.n = tr->n_vis;
		return;
	}
	tr->n_vis = 0;
	if (!tr->n)
		return;
	for (;;) {
		tr->vis[tr->n_vis++] = i;
		if (tr->open[i]) {
			uint32_t c = tr->nodes[i].first_child;

			if (c == QUERY_TREE_LATER)
				c = QUERY_TREE_NONE; /* never: opened, made */
			while (c != QUERY_TREE_NONE && !shown(tr, c))
				c = tr->nodes[c].next_sibling;
			if (c != QUERY_TREE_NONE) {
				i = c;
				continue;
			}
		}
		/* up until a node with a next shown sibling */
		for (;;) {
			uint32_t s;

			if (i == 0)
				goto done;
			s = tr->nodes[i].next_sibling;
			while (s != QUERY_TREE_NONE && !shown(tr, s))
				s = tr->nodes[s].next_sibling;
			if (s != QUERY_TREE_NONE) {
				i = s;
				break;
			}
			i = tr->nodes[i].parent;
		}
	}
done:
	tr->n_made_vis = tr->n_vis;
	tr->list.n = tr->n_vis;
	/* the cursor's node, or its nearest visible ancestor */
	for (;;) {
		for (k = 0; k < tr->n_vis; k++)
			if (tr->vis[k] == cur) {
				tr->list.cur = k;
				return;
			}
		if (!cur || cur >= tr->n)
			break;
		cur = tr->nodes[cur].parent;
	}
	tr->list.cur = 0;
}

/* Node k's label, as an index into tr->labels. */
static uint32_t label_of(const struct tree *tr, uint32_t k)
{
	if (tr->label_id)
		return tr->label_id[k];
	return tr->nodes[k].site == QUERY_TREE_NONE ? (uint32_t)tr->n_labels - 1
						    : tr->nodes[k].site;
}

/* The labels of a query's tree: its sites', and the root's last. */
static void query_labels(struct tree *tr, const struct query *q)
{
	const char *const *names;
	size_t n = query_tree_labels(q, &names);

	free(tr->label_id);
	free(tr->labels);
	tr->label_id = NULL;
	tr->labels = xmalloc((n + 1) * sizeof(*tr->labels));
	memcpy(tr->labels, names, n * sizeof(*tr->labels));
	tr->labels[n] = tr->n ? tr->nodes[0].label : "all";
	tr->n_labels = n + 1;
}

/* The labels' index (label_id, labels) of the comparison's tree. */
static void index_labels(struct tree *tr)
{
	struct u64map ids;
	size_t k, alloc = 0;

	free(tr->label_id);
	free(tr->labels);
	tr->labels = NULL;
	tr->n_labels = 0;
	tr->label_id = xmalloc((tr->n ? tr->n : 1) * sizeof(*tr->label_id));
	u64map_init(&ids);
	for (k = 0; k < tr->n; k++) {
		uint64_t key = (uint64_t)(uintptr_t)tr->nodes[k].label, v;

		if (!u64map_get(&ids, key, &v)) {
			if (tr->n_labels == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				tr->labels = xreallocarray(tr->labels, alloc,
							   sizeof(*tr->labels));
			}
			v = tr->n_labels;
			tr->labels[tr->n_labels++] = tr->nodes[k].label;
			u64map_put(&ids, key, v, NULL);
		}
		tr->label_id[k] = (uint32_t)v;
	}
	u64map_release(&ids);
}

bool tr_label_matches(const struct tree *tr, struct verdicts *v,
		      const struct rx_user *re, uint32_t node)
{
	uint32_t id = label_of(tr, node);

	if (!v->v[id])
		v->v[id] = rx_user_match(re, tr->labels[id]) ? 2 : 1;
	return v->v[id] == 2;
}

/* keep[]: the nodes that match the filter and their ancestors, shown
 * unfolded down to the matches.  The number of matching nodes. */
size_t tr_apply_filter(struct tree *tr)
{
	struct verdicts v;
	size_t k, kept = 0;

	free(tr->keep);
	tr->keep = NULL;
	if (!tr->filter || !tr->n)
		return 0;
	tr->keep = xcalloc(tr->n, 1);
	v.v = xcalloc(tr->n_labels ? tr->n_labels : 1, 1);
	/* children come after parents: backwards, a kept node keeps its
	 * parent */
	for (k = tr->n; k-- > 1;) {
		if (!tr->keep[k] &&
		    tr_label_matches(tr, &v, tr->filter, (uint32_t)k))
			tr->keep[k] = 1;
		if (tr->keep[k]) {
			tr->keep[tr->nodes[k].parent] = 1;
			kept++;
		}
	}
	tr->keep[0] = 1;
	free(v.v);
	for (k = 0; k < tr->n; k++)
		if (tr->keep[k])
			tr->open[k] = 1;
	return kept;
}

/* The nodes of the comparison with the baseline, from diff_tree()'s
 * rows (depth first, each child after its parent, siblings in the
 * diff's order: changed first, then by the size of the change).  The
 * labels point into tr->dt.  NULL with e set on failure. */
static struct query_tree_node *diff_nodes(struct tui *t, struct tree *tr,
					  size_t *n, struct err *e)
{
	const struct diff_table *dt;
	struct query_tree_node *nodes;
	uint32_t *last;
	struct diff *d;
	size_t i;

	d = model_diff(&t->m, e);
	if (!d || diff_tree(d, tr->inverted, 0, &dt, e) < 0)
		return NULL;
	tr->dt = diff_table_dup(dt);
	*n = tr->dt->n_rows;
	nodes = xcalloc(*n ? *n : 1, sizeof(*nodes));
	last = xmalloc((*n ? *n : 1) * sizeof(*last));
	for (i = 0; i < *n; i++) {
		const struct diff_row *r = &tr->dt->rows[i];
		struct query_tree_node *nd = &nodes[i];

		nd->label = r->key;
		nd->parent = r->parent;
		nd->depth = r->depth;
		nd->first_child = nd->next_sibling = QUERY_TREE_NONE;
		nd->samples = r->samples[0] + r->samples[1];
		last[i] = QUERY_TREE_NONE;
		if (r->parent == UINT32_MAX || r->parent >= i)
			continue;
		if (last[r->parent] == QUERY_TREE_NONE)
			nodes[r->parent].first_child = (uint32_t)i;
		else
			nodes[last[r->parent]].next_sibling = (uint32_t)i;
		last[r->parent] = (uint32_t)i;
	}
	free(last);
	return nodes;
}

/* n nodes made: room in open[] (the new ones folded) and vis[] */
static void tr_grow(struct tree *tr, size_t n)
{
	if (n > tr->cap) {
		size_t cap = tr->cap ? tr->cap : 256;

		while (cap < n)
			cap *= 2;
		tr->open = xrealloc(tr->open, cap);
		memset(tr->open + tr->cap, 0, cap - tr->cap);
		if (tr->keep)
			tr->keep = xrealloc(tr->keep, cap);
		tr->vis = xreallocarray(tr->vis, cap, sizeof(*tr->vis));
		tr->cap = cap;
	}
	tr->n = n;
}

/* Node i's children, made if they are not yet. */
void tr_kids(struct tui *t, struct tree *tr, uint32_t i)
{
	const struct query_tree_node *nodes;
	struct query *q;
	size_t n;
	struct err e;

	if (!tr->lazy || tr->nodes[i].first_child != QUERY_TREE_LATER)
		return;
	err_init(&e);
	q = model_query(&t->m, &e);
	if (!q)
		return;
	{
		size_t n0 = tr->n, k;

		query_tree_children(q, tr->inverted, i, &nodes, &n);
		tr->nodes = nodes;
		tr_grow(tr, n);
		if (tr->lazy_filter && tr->keep)
			for (k = n0; k < n; k++)
				tr->keep[k] = query_tree_lazy_kept(
					q, tr->inverted, (uint32_t)k);
	}
}

/* The whole tree's folds of now, which Esc gives back after a filter. */
void tr_save_folds(struct tree *tr)
{
	free(tr->pre_open);
	tr->pre_open = xmalloc(tr->n ? tr->n : 1);
	memcpy(tr->pre_open, tr->open, tr->n);
}

/*
 * The whole tree in place of the one made as opened, for what needs
 * every node in its order: each made node is the whole tree's node of
 * the same path, and a made node's children come in the whole tree's
 * order, so the two lists of children are walked side by side.  The
 * open nodes and the cursor's stay.  false when it cannot be built.
 */
bool tr_whole(struct tui *t, struct tree *tr)
{
	const struct query_tree_node *full;
	unsigned char *open;
	struct query *q;
	uint32_t *map, cur;
	size_t n, i;
	struct err e;

	if (tr->all_open)
		return tr_all_open_end(t, tr);
	if (!tr->lazy)
		return true;
	err_init(&e);
	q = model_query(&t->m, &e);
	if (!q ||
	    query_tree(q, tr->inverted, 0, &full, &n, &tr->total, &e) < 0) {
		tui_message(t, true, "cannot build the tree: %s", e.msg);
		return false;
	}
	map = xmalloc(tr->n * sizeof(*map));
	map[0] = 0;
	for (i = 0; i < tr->n; i++) {
		uint32_t a = tr->nodes[i].first_child, b;

		if (a == QUERY_TREE_LATER)
			continue;
		for (b = full[map[i]].first_child;
		     a != QUERY_TREE_NONE && b != QUERY_TREE_NONE;
		     a = tr->nodes[a].next_sibling, b = full[b].next_sibling)
			map[a] = b;
	}
	open = xcalloc(n ? n : 1, 1);
	for (i = 0; i < tr->n; i++)
		open[map[i]] = tr->open[i];
	cur = tr->n_vis && tr->list.cur < tr->n_vis ? map[tr->vis[tr->list.cur]]
						    : 0;
	free(map);
	free(tr->open);
	tr->open = open;
	tr->vis = xreallocarray(tr->vis, n ? n : 1, sizeof(*tr->vis));
	tr->nodes = full;
	tr->n = tr->n_all = tr->cap = n;
	tr->lazy = false;
	if (tr->n_vis && tr->list.cur < tr->n_vis)
		tr->vis[tr->list.cur] = cur;
	if (tr->lazy_filter) {
		/* a filter on the tree made as opened, its rows as flags
		 * (C under it): keep is by the made nodes' ids; the whole
		 * tree's from the filter, the folds of now given back by
		 * Esc */
		free(tr->keep);
		tr->keep = NULL;
		tr->lazy_filter = false;
		tr_save_folds(tr);
		tr_apply_filter(tr);
	}
	tr_rebuild_vis(tr);
	return true;
}

/* MADE_BELOW: HEAPSIFT_BROWSE_MADE_BELOW, else 50,000. */
size_t tr_made_below(void)
{
	static size_t v;

	if (!v) {
		const char *s = getenv("HEAPSIFT_BROWSE_MADE_BELOW");
		char *end;
		unsigned long long x = s ? strtoull(s, &end, 10) : 0;

		v = s && *s && !*end && x > 0 ? (size_t)x : 50000;
	}
	return v;
}

/* Open every node below i (i included), making them as it goes; false
 * past MADE_BELOW nodes made, where the whole tree, made at once, costs
 * less than making them one parent at a time.  HEAPSIFT_BROWSE_MADE_BELOW
 * sets it (tests: 1 takes the whole tree at once). */
bool tr_open_below_made(struct tui *t, struct tree *tr, uint32_t i)
{
	uint32_t *st = xmalloc(sizeof(*st)), c;
	size_t n = 1, alloc = 1, n0 = tr->n;

	st[0] = i;
	while (n && tr->n - n0 <= MADE_BELOW) {
		uint32_t k = st[--n];

		tr_kids(t, tr, k);
		tr->open[k] = 1;
		for (c = tr->nodes[k].first_child;
		     c != QUERY_TREE_NONE && c != QUERY_TREE_LATER;
		     c = tr->nodes[c].next_sibling) {
			if (n == alloc) {
				alloc *= 2;
				st = xreallocarray(st, alloc, sizeof(*st));
			}
			st[n++] = c;
		}
	}
	free(st);
	return !n;
}

/*
 * E on a tree made as opened (all_open): every node open without making
 * every node.  The rows are then the whole tree's nodes in order, n_all
 * of them (the query's count); vis holds the first n_made_vis, and
 * tr_vis_extend() walks on from the last one, making children as it
 * reaches them, as far as the screen or the cursor needs.  What needs
 * the rows as flags (folding a node, search, a filter, a jump past
 * MADE_BELOW more nodes, such as End) takes the whole tree, every node
 * open, the same rows: tr_all_open_end().
 */

/* The node after i in the order the rows show with every node open,
 * of the nodes made (a whole tree's: all); QUERY_TREE_NONE past the
 * last. */
uint32_t tr_next_made(const struct tree *tr, uint32_t i)
{
	uint32_t c = tr->nodes[i].first_child;

	if (c == QUERY_TREE_LATER)
		c = QUERY_TREE_NONE;
	while (c != QUERY_TREE_NONE && !shown(tr, c))
		c = tr->nodes[c].next_sibling;
	if (c != QUERY_TREE_NONE)
		return c;
	while (i != 0) {
		c = tr->nodes[i].next_sibling;
		while (c != QUERY_TREE_NONE && !shown(tr, c))
			c = tr->nodes[c].next_sibling;
		if (c != QUERY_TREE_NONE)
			return c;
		i = tr->nodes[i].parent;
	}
	return QUERY_TREE_NONE;
}

/* The row after node i, every node open, its children made first;
 * QUERY_TREE_NONE past the last. */
uint32_t tr_next_row(struct tui *t, struct tree *tr, uint32_t i)
{
	tr_kids(t, tr, i);
	return tr_next_made(tr, i);
}

/* Rows made up to upto, or until node `until` is the last made
 * (QUERY_TREE_NONE: no such stop). */
void tr_vis_extend(struct tui *t, struct tree *tr, size_t upto, uint32_t until)
{
	size_t n0 = tr->n;

	if (!tr->all_open)
		return;
	if (upto > tr->n_vis)
		upto = tr->n_vis;
	while (tr->n_made_vis < upto &&
	       (!tr->n_made_vis || tr->vis[tr->n_made_vis - 1] != until)) {
		uint32_t nx;

		if (tr->n - n0 > MADE_BELOW) {
			tr_all_open_end(t, tr);
			return;
		}
		nx = tr->n_made_vis
			     ? tr_next_row(t, tr, tr->vis[tr->n_made_vis - 1])
			     : 0;
		if (nx == QUERY_TREE_NONE) {
			/* children that could not be made: fewer rows */
			tr->n_vis = tr->list.n = tr->n_made_vis;
			return;
		}
		tr->vis[tr->n_made_vis++] = nx;
	}
}

/* E on a tree made as opened (or the folds before a filter were all
 * open): the cursor stays on node cur. */
void tr_all_open_start(struct tui *t, struct tree *tr, uint32_t cur)
{
	size_t k;

	tr->all_open = true;
	tr->n_made_vis = 0;
	tr->n_vis = tr->list.n = tr->lazy_filter ? tr->n_kept_rows : tr->n_all;
	tr_vis_extend(t, tr, tr->n_vis, cur);
	if (!tr->all_open)
		return; /* the whole tree took over: its cursor stands */
	for (k = tr->n_made_vis; k-- > 0;)
		if (tr->vis[k] == cur) {
			tr->list.cur = k;
			return;
		}
}

/* The whole tree, every node open, in place of all_open: the same rows,
 * so the cursor and the scroll keep their row numbers. */
bool tr_all_open_end(struct tui *t, struct tree *tr)
{
	size_t cur = tr->list.cur, top = tr->list.top, n_vis = tr->n_vis;
	bool filtered = tr->lazy_filter;

	if (!tr->all_open)
		return true;
	tr->all_open = false;
	if (filtered) {
		/* the kept nodes are the rows; open[] holds the folds from
		 * before the filter, carried over by tr_whole */
		free(tr->keep);
		tr->keep = NULL;
		tr->lazy_filter = false;
	} else {
		memset(tr->open, 1, tr->n);
	}
	tr->n_vis = tr->n_made_vis;
	tr->list.cur = cur < tr->n_made_vis ? cur : 0;
	if (!tr_whole(t, tr)) {
		/* the filter is lost with the tree: it shows unfiltered */
		tr->all_open = true;
		tr->n_vis = filtered ? tr->n_all : n_vis;
		tr->list.cur = 0;
		if (filtered) {
			rx_user_free(tr->filter);
			tr->filter = NULL;
		}
		return false;
	}
	if (filtered) {
		if (tr->pre_all_open)
			memset(tr->open, 1, tr->n);
		tr_save_folds(tr);
		tr_apply_filter(tr);
	} else {
		memset(tr->open, 1, tr->n);
	}
	tr_rebuild_vis(tr);
	tr->list.cur = cur < tr->n_vis ? cur : (tr->n_vis ? tr->n_vis - 1 : 0);
	tr->list.top = top;
	return true;
}

void tr_ensure(struct tui *t, struct tree *tr)
{
	const struct query_tree_node *nodes;
	struct query_tree_node *dnodes = NULL;
	struct query *q = NULL;
	size_t n, n_all = 0;
	int rc = 1;
	struct err e;

	if (tr->valid && tr->gen == t->m.gen)
		return;
	tr->valid = true;
	tr->gen = t->m.gen;
	tr->n = tr->n_all = tr->n_vis = tr->n_made_vis = 0;
	tr->all_open = tr->lazy_filter = tr->pre_all_open = false;
	free(tr->pre_open);
	tr->pre_open = NULL;
	tr->lazy = false;
	free(tr->dt);
	tr->dt = NULL;
	err_init(&e);
	if (t->m.base_on) {
		dnodes = diff_nodes(t, tr, &n, &e);
		if (!dnodes) {
			tui_message(t, true,
				    "cannot compare with the baseline: %s",
				    e.msg);
			return;
		}
		nodes = dnodes;
	} else {
		q = model_query(&t->m, &e);
		if (!q || (rc = query_tree_lazy(q, tr->inverted, &nodes, &n,
						&n_all, &tr->total, &e)) < 0) {
			tui_message(t, true, "cannot build the tree: %s",
				    e.msg);
			return;
		}
	}
	free(tr->own);
	free(tr->open);
	free(tr->vis);
	free(tr->keep);
	tr->keep = NULL;
	tr->own = dnodes;
	tr->nodes = nodes;
	tr->n = n;
	tr->n_all = dnodes ? n : n_all;
	tr->lazy = rc == 0;
	tr->cap = n ? n : 1;
	tr->open = xcalloc(tr->cap, 1);
	tr->vis = xmalloc(tr->cap * sizeof(*tr->vis));
	if (n) {
		tr_kids(t, tr, 0);
		tr->open[0] = 1; /* the root's children are the first view */
	}
	tr->list.cur = tr->list.top = 0;
	if (dnodes)
		index_labels(tr);
	else
		query_labels(tr, q);
	tr_rebuild_vis(tr);
	if (tr->filter) {
		size_t kept;

		/* the filter again on the new tree, the folds before it
		 * those of a new tree */
		if (tr->lazy && tr_lazy_filter_apply(t, tr, &kept))
			return;
		if (!tr_whole(t, tr))
			return;
		tr_save_folds(tr);
		tr_apply_filter(tr);
		tr_rebuild_vis(tr);
	}
}

/*
 * tr->filter on a tree made as opened, without making every node: the
 * query's verdicts per trie node (query_tree_lazy_filter), each made
 * node's keep from them, and the rows the kept nodes all open (all_open
 * with shown()), the cursor on its node or its nearest kept ancestor.
 * open[] keeps the folds from before.  The kept nodes, the root left
 * out; false where the query cannot be had.
 */
bool tr_lazy_filter_apply(struct tui *t, struct tree *tr, size_t *kept)
{
	unsigned char *site_ok;
	struct query *q;
	struct err e;
	uint32_t cur, k;
	size_t i;

	err_init(&e);
	q = model_query(&t->m, &e);
	if (!q)
		return false;
	/* labels: the sites, then the root's */
	site_ok = xcalloc(tr->n_labels ? tr->n_labels : 1, 1);
	for (k = 0; k + 1 < tr->n_labels; k++)
		site_ok[k] = rx_user_match(tr->filter, tr->labels[k]);
	*kept = query_tree_lazy_filter(q, tr->inverted, site_ok);
	free(site_ok);
	cur = tr->n_vis && tr->list.cur < tr->n_made_vis ? tr->vis[tr->list.cur]
							 : 0;
	free(tr->keep);
	tr->keep = xmalloc(tr->cap);
	for (i = 0; i < tr->n; i++)
		tr->keep[i] =
			query_tree_lazy_kept(q, tr->inverted, (uint32_t)i);
	tr->keep[0] = 1;
	while (cur && !tr->keep[cur])
		cur = tr->nodes[cur].parent;
	tr->lazy_filter = true;
	tr->n_kept_rows = *kept + 1;
	tr->all_open = true;
	tr->n_made_vis = 0;
	tr->n_vis = tr->list.n = tr->n_kept_rows;
	tr->list.cur = tr->list.top = 0;
	tr_vis_extend(t, tr, tr->n_vis, cur);
	if (tr->all_open)
		for (i = tr->n_made_vis; i-- > 0;)
			if (tr->vis[i] == cur) {
				tr->list.cur = i;
				break;
			}
	return true;
}
