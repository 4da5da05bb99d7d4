/*
 * The Call tree and Inverted tree views: one tree widget over the
 * query's tree, folded and unfolded in place.  The query's nodes are
 * borrowed (the query keeps each orientation's apart) until the model
 * changes; folding only rebuilds the list of
 * visible nodes, a walk over what is shown, so it is instant however
 * big the tree.  Shares are of the whole and of the parent, by
 * estimated bytes (by samples where the kind has no sizes).  The \
 * filter keeps the nodes that match and their ancestors, unfolded.
 *
 * The query's tree is made as it is opened (query_tree_lazy): the root's
 * children first, a node's when it is opened, and the status line's
 * count from the query's counting walk.  What needs every node in the
 * whole tree's order (search, filter, expand all, expand below the
 * root) takes the whole tree then, the open nodes and the cursor
 * carried over by path.
 *
 * Against the baseline (docs/browse.md) the nodes are diff_tree()'s:
 * the two sides merged by call path, a node of one side only included,
 * each with both sides' values per second, the change and the verdict
 * of the query layer's test; the same widget folds, searches and
 * filters them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/hash.h"
#include "util/xalloc.h"

struct tree {
	bool inverted;
	unsigned gen;
	bool valid;
	/* the query's tree, borrowed (valid until the model changes, which
	 * ensure() notices before anything reads it), or the comparison's,
	 * owned (own) */
	const struct query_tree_node *nodes;
	struct query_tree_node *own;
	size_t n, n_all; /* made, and in the whole tree */
	bool lazy;	 /* made as opened, numbered so, not whole */
	size_t cap;	 /* of open and vis */
	struct query_total total;
	unsigned char *open; /* per node */
	unsigned char *keep; /* per node, with a filter: it or a descendant
				matches */
	struct regex *filter;
	char filter_text[256];
	/* labels are the query's site names, one pointer per site: each
	 * node's label as an index into the distinct ones, so that a regex
	 * runs once per site and a filter over millions of nodes is array
	 * reads.  The query's nodes carry that index (their site; the root
	 * is labels[n_labels - 1]); the comparison's get label_id */
	uint32_t *label_id;
	const char **labels;
	size_t n_labels;
	uint32_t *vis; /* visible nodes, in order */
	size_t n_vis;
	/* after E on a tree made as opened: every node open, made ones
	 * and the rest, and vis the first n_made_vis rows of the n_vis
	 * (the whole tree's count), made further as they are shown */
	bool all_open;
	size_t n_made_vis;
	/* a filter on a tree made as opened (lazy_filter): all_open over
	 * the kept nodes, n_kept_rows of them (the root's included), the
	 * folds from before it in open[] and pre_all_open; on the whole
	 * tree the folds from before it are pre_open (n bytes), which Esc
	 * gives back */
	bool lazy_filter, pre_all_open;
	size_t n_kept_rows;
	unsigned char *pre_open;
	struct list list;
	/* against the baseline: diff_tree()'s rows (a copy), one per node,
	 * in the nodes' order; NULL when the tree is the query's */
	struct diff_table *dt;
};

static void *tree_new_common(bool inverted)
{
	struct tree *tr = xcalloc(1, sizeof(*tr));

	tr->inverted = inverted;
	return tr;
}

static void *call_new(struct tui *t)
{
	(void)t;
	return tree_new_common(false);
}

static void *inv_new(struct tui *t)
{
	(void)t;
	return tree_new_common(true);
}

static void tr_free(void *st)
{
	struct tree *tr = st;

	free(tr->own);
	free(tr->open);
	free(tr->keep);
	free(tr->pre_open);
	free(tr->vis);
	free(tr->label_id);
	free(tr->labels);
	free(tr->dt);
	regex_free(tr->filter);
	free(tr);
}

static bool shown(const struct tree *tr, uint32_t i)
{
	return !tr->keep || tr->keep[i];
}

static bool is_open(const struct tree *tr, uint32_t i)
{
	return tr->all_open || tr->open[i];
}

/* The visible nodes: a walk over open, kept nodes, children in their
 * order (heaviest first).  The cursor stays on its node when it is
 * still visible, else on its nearest visible ancestor. */
static void rebuild_vis(struct tree *tr)
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

/* Verdicts of re per distinct label, computed as asked: 0 not yet, 1 no
 * match, 2 a match. */
struct verdicts {
	unsigned char *v;
};

static bool label_matches(const struct tree *tr, struct verdicts *v,
			  const struct regex *re, uint32_t node)
{
	uint32_t id = label_of(tr, node);

	if (!v->v[id])
		v->v[id] = regex_match(re, tr->labels[id]) ? 2 : 1;
	return v->v[id] == 2;
}

/* keep[]: the nodes that match the filter and their ancestors, shown
 * unfolded down to the matches.  The number of matching nodes. */
static size_t apply_filter(struct tree *tr)
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
		    label_matches(tr, &v, tr->filter, (uint32_t)k))
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
static void tr_kids(struct tui *t, struct tree *tr, uint32_t i)
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

static bool all_open_end(struct tui *t, struct tree *tr);
static bool lazy_filter_apply(struct tui *t, struct tree *tr, size_t *kept);

/* The whole tree's folds of now, which Esc gives back after a filter. */
static void save_folds(struct tree *tr)
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
static bool tr_whole(struct tui *t, struct tree *tr)
{
	const struct query_tree_node *full;
	unsigned char *open;
	struct query *q;
	uint32_t *map, cur;
	size_t n, i;
	struct err e;

	if (tr->all_open)
		return all_open_end(t, tr);
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
		save_folds(tr);
		apply_filter(tr);
	}
	rebuild_vis(tr);
	return true;
}

/* Open every node below i (i included), making them as it goes; false
 * past MADE_BELOW nodes made, where the whole tree, made at once, costs
 * less than making them one parent at a time.  HEAPSIFT_BROWSE_MADE_BELOW
 * sets it (tests: 1 takes the whole tree at once). */
static size_t made_below(void)
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
#define MADE_BELOW made_below()

static bool open_below_made(struct tui *t, struct tree *tr, uint32_t i)
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
 * vis_extend() walks on from the last one, making children as it
 * reaches them, as far as the screen or the cursor needs.  What needs
 * the rows as flags (folding a node, search, a filter, a jump past
 * MADE_BELOW more nodes, such as End) takes the whole tree, every node
 * open, the same rows: all_open_end().
 */

/* The node after i in the order the rows show with every node open,
 * of the nodes made (a whole tree's: all); QUERY_TREE_NONE past the
 * last. */
static uint32_t next_made(const struct tree *tr, uint32_t i)
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
static uint32_t next_row(struct tui *t, struct tree *tr, uint32_t i)
{
	tr_kids(t, tr, i);
	return next_made(tr, i);
}

/* Rows made up to upto, or until node `until` is the last made
 * (QUERY_TREE_NONE: no such stop). */
static void vis_extend(struct tui *t, struct tree *tr, size_t upto,
		       uint32_t until)
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
			all_open_end(t, tr);
			return;
		}
		nx = tr->n_made_vis
			     ? next_row(t, tr, tr->vis[tr->n_made_vis - 1])
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
static void all_open_start(struct tui *t, struct tree *tr, uint32_t cur)
{
	size_t k;

	tr->all_open = true;
	tr->n_made_vis = 0;
	tr->n_vis = tr->list.n = tr->lazy_filter ? tr->n_kept_rows : tr->n_all;
	vis_extend(t, tr, tr->n_vis, cur);
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
static bool all_open_end(struct tui *t, struct tree *tr)
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
			regex_free(tr->filter);
			tr->filter = NULL;
		}
		return false;
	}
	if (filtered) {
		if (tr->pre_all_open)
			memset(tr->open, 1, tr->n);
		save_folds(tr);
		apply_filter(tr);
	} else {
		memset(tr->open, 1, tr->n);
	}
	rebuild_vis(tr);
	tr->list.cur = cur < tr->n_vis ? cur : (tr->n_vis ? tr->n_vis - 1 : 0);
	tr->list.top = top;
	return true;
}

static void ensure(struct tui *t, struct tree *tr)
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
	rebuild_vis(tr);
	if (tr->filter) {
		size_t kept;

		/* the filter again on the new tree, the folds before it
		 * those of a new tree */
		if (tr->lazy && lazy_filter_apply(t, tr, &kept))
			return;
		if (!tr_whole(t, tr))
			return;
		save_folds(tr);
		apply_filter(tr);
		rebuild_vis(tr);
	}
}

static double share_of(const struct tree *tr, uint32_t i, uint32_t of)
{
	const struct query_tree_node *a = &tr->nodes[i], *b = &tr->nodes[of];
	bool bytes = tr->nodes[0].est_bytes != 0;
	double x = bytes ? (double)a->est_bytes : (double)a->samples;
	double y = bytes ? (double)b->est_bytes : (double)b->samples;

	return y ? x / y : 0;
}

/* Indentation, the fold mark and the label from column x of row y. */
static void draw_label(const struct tree *tr, const struct area *ar, int y,
		       int x, uint32_t id, enum style s)
{
	const struct query_tree_node *nd = &tr->nodes[id];
	char nm[1024];
	int ind, nw;
	const char *mark;

	/* indentation, capped so that deep stacks keep their names */
	ind = (int)nd->depth * 2;
	if (ind > (ar->width - x) / 2)
		ind = (ar->width - x) / 2;
	x += ind;
	mark = nd->first_child == QUERY_TREE_NONE ? scr.leaf
	       : is_open(tr, id)		  ? scr.open
						  : scr.closed;
	x += screen_put(y, x, 2, s, mark);
	x += screen_put(y, x, 1, s, " ");
	nw = ar->width - x;
	if (nw > 0)
		screen_put(y, x, nw, s,
			   names_shorten(nd->label, (size_t)nw, scr.ellipsis,
					 nm, sizeof(nm)));
}

/* Against the baseline: each node's base and new value, the change,
 * the samples (from 100 columns) and the verdict, coloured. */
static void diff_draw(struct tree *tr, const struct area *ar)
{
	const struct diff_table *dt = tr->dt;
	int h = ar->height - 1, i, x;
	bool wide = ar->width >= 100;
	const char *a = dt->per_second ? "BASE/s" : "BASE",
		   *b = dt->per_second ? "NEW/s" : "NEW",
		   *what = tr->inverted
				   ? "allocating frame > callers"
				   : "outermost callers > allocating frame";

	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	if (wide)
		screen_putf(ar->top, 0, ar->width, ST_HEADER,
			    "%10s %10s %11s %6s %6s %-6s %s", a, b, "CHANGE",
			    "N_BASE", "N_NEW", "", what);
	else
		screen_putf(ar->top, 0, ar->width, ST_HEADER,
			    "%10s %10s %11s %-6s %s", a, b, "CHANGE", "", what);
	tr->list.n = tr->n_vis;
	list_fix(&tr->list, h);
	for (i = 0; i < h && tr->list.top + (size_t)i < tr->n_vis; i++) {
		size_t row = tr->list.top + (size_t)i;
		uint32_t id = tr->vis[row];
		const struct diff_row *r = &dt->rows[id];
		bool cur = row == tr->list.cur;
		enum style s = (enum style)tui_diff_style(r, cur);
		int y = ar->top + 1 + i;

		if (cur)
			screen_fill(y, 0, ar->width, ST_CURSOR);
		x = tui_diff_cells(y, 0, ar->width, s, r, false, wide);
		draw_label(tr, ar, y, x, id, s);
	}
	if (tr->n_vis && tr->list.cur < tr->n_vis) {
		uint32_t id = tr->vis[tr->list.cur];
		const struct diff_row *r = &dt->rows[id];

		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "q %.2g %s %llu/%llu samples %s %zu of %zu beyond "
			    "noise %s %s",
			    r->q, scr.vline, (unsigned long long)r->samples[0],
			    (unsigned long long)r->samples[1], scr.vline,
			    dt->n_changed, dt->n_rows, scr.vline, r->key);
	} else {
		screen_put(ar->top + 2, 2, ar->width - 2, ST_DIM,
			   "no samples of this kind on either side");
	}
}

static void tr_draw(struct tui *t, void *st, const struct area *ar)
{
	struct tree *tr = st;
	int h = ar->height - 1, i, x;
	char b[32];

	ensure(t, tr);
	if (tr->dt) {
		diff_draw(tr, ar);
		return;
	}
	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	screen_putf(ar->top, 0, ar->width, ST_HEADER, "%6s %6s %9s %10s  %s",
		    "TOTAL", "PARENT", "SAMPLES", "EST BYTES",
		    tr->inverted ? "allocating frame > callers"
				 : "outermost callers > allocating frame");
	tr->list.n = tr->n_vis;
	list_fix(&tr->list, h);
	vis_extend(t, tr, tr->list.top + (size_t)h, QUERY_TREE_NONE);
	list_fix(&tr->list, h);
	for (i = 0; i < h && tr->list.top + (size_t)i < tr->n_vis; i++) {
		size_t row = tr->list.top + (size_t)i;
		uint32_t id = tr->vis[row];
		const struct query_tree_node *nd = &tr->nodes[id];
		bool cur = row == tr->list.cur;
		enum style s = cur ? ST_CURSOR : ST_NORMAL;
		int y = ar->top + 1 + i;

		if (cur)
			screen_fill(y, 0, ar->width, ST_CURSOR);
		x = screen_putf(y, 0, 36, s, "%5.1f%% %5.1f%% %9llu %10s  ",
				share_of(tr, id, 0) * 100.0,
				id ? share_of(tr, id, nd->parent) * 100.0
				   : 100.0,
				(unsigned long long)nd->samples,
				tui_bytes(nd->est_bytes, b, sizeof(b)));
		draw_label(tr, ar, y, x, id, s);
	}
	if (tr->n_vis && tr->list.cur < tr->n_vis) {
		const struct query_tree_node *nd =
			&tr->nodes[tr->vis[tr->list.cur]];

		char pm[16];

		/* the node's ± (docs/estimates.md), as heapsift tree's */
		if (isnan(nd->rel_err))
			snprintf(pm, sizeof(pm), "-");
		else
			snprintf(pm, sizeof(pm), "%.*f%%",
				 nd->rel_err * 100.0f < 9.95f ? 1 : 0,
				 (double)nd->rel_err * 100.0);
		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "depth %u %s %s %s %s self %llu samples, %s %s %s",
			    nd->depth, scr.vline, scr.utf8 ? "±" : "+/-", pm,
			    scr.vline, (unsigned long long)nd->self_samples,
			    tui_bytes(nd->self_bytes, b, sizeof(b)), scr.vline,
			    nd->label);
	} else {
		screen_put(ar->top + 2, 2, ar->width - 2, ST_DIM,
			   "no samples of this kind in the time range");
	}
}

/* Open every node below i (i included). */
static void open_below(struct tree *tr, uint32_t i)
{
	size_t k;

	/* children come after their parents: one forward pass that marks
	 * the nodes whose parent is being opened */
	unsigned char *in = xcalloc(tr->n, 1);

	in[i] = 1;
	tr->open[i] = 1;
	for (k = (size_t)i + 1; k < tr->n; k++)
		if (in[tr->nodes[k].parent]) {
			in[k] = 1;
			tr->open[k] = 1;
		}
	free(in);
}

/* The filter cleared (Esc): the folds from before it come back. */
static void filter_clear(struct tui *t, struct tree *tr)
{
	uint32_t cur = tr->n_vis && tr->list.cur < tr->n_made_vis
			       ? tr->vis[tr->list.cur]
			       : 0;

	regex_free(tr->filter);
	tr->filter = NULL;
	free(tr->keep);
	tr->keep = NULL;
	if (tr->lazy_filter) {
		tr->lazy_filter = false;
		tr->all_open = false;
		if (tr->pre_all_open) {
			all_open_start(t, tr, cur);
			return;
		}
		rebuild_vis(tr);
		return;
	}
	if (tr->pre_open) {
		memcpy(tr->open, tr->pre_open, tr->n);
		free(tr->pre_open);
		tr->pre_open = NULL;
	}
	rebuild_vis(tr);
}

static bool tr_act(struct tui *t, void *st, enum action act,
		   const struct area *ar)
{
	struct tree *tr = st;
	int h = ar->height - 1;
	uint32_t id;

	ensure(t, tr);
	if (list_act(&tr->list, act, h))
		return true;
	if (!tr->n_vis)
		return false;
	vis_extend(t, tr, tr->list.cur + 1, QUERY_TREE_NONE);
	id = tr->vis[tr->list.cur];
	if (tr->all_open) {
		bool kids = tr->nodes[id].first_child != QUERY_TREE_NONE;

		switch (act) {
		case ACT_EXPAND_BELOW:
		case ACT_EXPAND_ALL:
			return true; /* open already */
		case ACT_UNFOLD:
			return list_act(&tr->list, ACT_DOWN, h);
		case ACT_ENTER:
		case ACT_FOLD:
			/* folding a node: the rows as flags, the node's
			 * id the whole tree's */
			if (!kids || (act == ACT_FOLD && !id))
				break;
			if (!all_open_end(t, tr))
				return true;
			id = tr->vis[tr->list.cur];
			break;
		case ACT_COLLAPSE_ALL:
			tr->all_open = false;
			break;
		default:
			break;
		}
		if (tr->all_open && act == ACT_ENTER)
			return true; /* a leaf: nothing to fold */
	}
	switch (act) {
	case ACT_ENTER:
		if (!tr->open[id])
			tr_kids(t, tr, id);
		tr->open[id] = !tr->open[id];
		break;
	case ACT_UNFOLD:
		if (tr->open[id] ||
		    tr->nodes[id].first_child == QUERY_TREE_NONE)
			return list_act(&tr->list, ACT_DOWN, h);
		tr_kids(t, tr, id);
		tr->open[id] = 1;
		break;
	case ACT_FOLD:
		if (tr->open[id] &&
		    tr->nodes[id].first_child != QUERY_TREE_NONE && id) {
			tr->open[id] = 0;
		} else if (id) {
			/* to the parent */
			uint32_t p = tr->nodes[id].parent;
			size_t k;

			for (k = tr->list.cur; k-- > 0;)
				if (tr->vis[k] == p) {
					list_go(&tr->list, k, h);
					break;
				}
			return true;
		}
		break;
	case ACT_EXPAND_BELOW:
		/* below the root: the whole tree, made at once */
		if (tr->lazy && id != 0 && open_below_made(t, tr, id))
			break;
		if (!tr_whole(t, tr))
			return true;
		open_below(tr, tr->vis[tr->list.cur]);
		break;
	case ACT_EXPAND_ALL:
		if (tr->lazy) {
			all_open_start(t, tr, id);
			list_fix(&tr->list, h);
			return true;
		}
		memset(tr->open, 1, tr->n);
		break;
	case ACT_COLLAPSE_ALL:
		memset(tr->open, 0, tr->n);
		tr->open[0] = 1;
		break;
	case ACT_BACK:
		if (tr->filter) {
			filter_clear(t, tr);
			break;
		}
		return false;
	default:
		return false;
	}
	rebuild_vis(tr);
	list_fix(&tr->list, h);
	return true;
}

static void tr_status(struct tui *t, void *st, char *out, size_t size)
{
	struct tree *tr = st;

	(void)t;
	snprintf(out, size, "%zu nodes%s%s%s", tr->n_all,
		 tr->dt ? tr->dt->per_second
				  ? " against the baseline, per second"
				  : " against the baseline"
			: "",
		 tr->filter ? ", filter \\" : "",
		 tr->filter ? tr->filter_text : "");
}

/* On a tree made as opened: from node `from` on (after it where dir),
 * in the rows' order with every node open, making children as it goes,
 * the first node that matches; QUERY_TREE_NONE where none does, or
 * QUERY_TREE_LATER past MADE_BELOW nodes made (the whole tree costs less
 * then). */
static uint32_t search_made(struct tui *t, struct tree *tr, struct verdicts *v,
			    const struct regex *re, uint32_t from, int dir)
{
	size_t n0 = tr->n;
	uint32_t k = from;

	if (!dir && label_matches(tr, v, re, k))
		return k;
	for (;;) {
		k = next_row(t, tr, k);
		if (k == QUERY_TREE_NONE)
			k = 0; /* past the last row: the first */
		if (k == from)
			return QUERY_TREE_NONE;
		if (label_matches(tr, v, re, k))
			return k;
		if (tr->n - n0 > MADE_BELOW)
			return QUERY_TREE_LATER;
	}
}

/* On a whole tree: the same order, both ways, over the shown nodes. */
static uint32_t search_whole(struct tree *tr, struct verdicts *v,
			     const struct regex *re, uint32_t from, int dir)
{
	uint32_t *rows = xmalloc((tr->n ? tr->n : 1) * sizeof(*rows));
	uint32_t k = 0, found = QUERY_TREE_NONE;
	size_t n = 0, at = 0, i;

	do {
		if (k == from)
			at = n;
		rows[n++] = k;
		k = next_made(tr, k);
	} while (k != QUERY_TREE_NONE && n < tr->n);
	for (i = dir ? 1 : 0; i <= n; i++) {
		size_t r = dir >= 0 ? (at + i) % n : (at + n - i % n) % n;

		if (shown(tr, rows[r]) && label_matches(tr, v, re, rows[r])) {
			found = rows[r];
			break;
		}
	}
	free(rows);
	return found;
}

static bool tr_search(struct tui *t, void *st, const struct regex *re, int dir)
{
	struct tree *tr = st;
	struct verdicts v;
	uint32_t found = QUERY_TREE_LATER;

	ensure(t, tr);
	if (!tr->n || !tr->n_vis)
		return false;
	/*
	 * Over every node, folded ones too, in the order the rows show
	 * with every node open, from the cursor's node (after it for n and
	 * N; backwards for N).  Forwards on a tree made as opened it makes
	 * children as it goes, and takes the whole tree only past
	 * MADE_BELOW nodes made.  The verdicts are per label, which the
	 * whole tree shares with the tree made as opened.
	 */
	vis_extend(t, tr, tr->list.cur + 1, QUERY_TREE_NONE);
	v.v = xcalloc(tr->n_labels ? tr->n_labels : 1, 1);
	if (tr->lazy && dir >= 0)
		found = search_made(t, tr, &v, re, tr->vis[tr->list.cur], dir);
	if (found == QUERY_TREE_LATER) {
		if (!tr_whole(t, tr)) {
			free(v.v);
			return false;
		}
		found = search_whole(tr, &v, re, tr->vis[tr->list.cur], dir);
	}
	if (found != QUERY_TREE_NONE && tr->all_open) {
		/* every row is there: the cursor on its row, made up to it
		 * (its nodes are, by the search) */
		size_t k;

		for (k = 0; k < tr->n_made_vis; k++)
			if (tr->vis[k] == found)
				break;
		if (k == tr->n_made_vis) {
			vis_extend(t, tr, tr->n_vis, found);
			k = tr->n_made_vis ? tr->n_made_vis - 1 : 0;
		}
		if (tr->all_open) {
			free(v.v);
			if (!tr->n_made_vis || tr->vis[k] != found)
				return false;
			tr->list.cur = k;
			return true;
		}
		/* the whole tree took over: its ids; search it again */
		found = search_whole(tr, &v, re, tr->vis[tr->list.cur], dir);
	}
	free(v.v);
	if (found == QUERY_TREE_NONE)
		return false;
	/* unfold its ancestors and put the cursor on it */
	{
		uint32_t p = tr->nodes[found].parent;
		size_t k;

		while (p != QUERY_TREE_NONE) {
			tr->open[p] = 1;
			p = tr->nodes[p].parent;
		}
		rebuild_vis(tr);
		for (k = 0; k < tr->n_vis; k++)
			if (tr->vis[k] == found)
				tr->list.cur = k;
	}
	return true;
}

/*
 * tr->filter on a tree made as opened, without making every node: the
 * query's verdicts per trie node (query_tree_lazy_filter), each made
 * node's keep from them, and the rows the kept nodes all open (all_open
 * with shown()), the cursor on its node or its nearest kept ancestor.
 * open[] keeps the folds from before.  The kept nodes, the root left
 * out; false where the query cannot be had.
 */
static bool lazy_filter_apply(struct tui *t, struct tree *tr, size_t *kept)
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
		site_ok[k] = regex_match(tr->filter, tr->labels[k]);
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
	vis_extend(t, tr, tr->n_vis, cur);
	if (tr->all_open)
		for (i = tr->n_made_vis; i-- > 0;)
			if (tr->vis[i] == cur) {
				tr->list.cur = i;
				break;
			}
	return true;
}

static void tr_filter(struct tui *t, void *st, const struct regex *re,
		      const char *pattern)
{
	struct tree *tr = st;
	size_t kept, of;
	char err[256];
	bool was = tr->filter != NULL;

	ensure(t, tr);
	if (re && !was) {
		/* the folds Esc gives back: on a tree made as opened they
		 * stay in open[] (and all_open); else a copy */
		if (tr->lazy)
			tr->pre_all_open = tr->all_open;
		else
			save_folds(tr);
	}
	regex_free(tr->filter);
	tr->filter = NULL;
	if (re) {
		tr->filter = regex_new(pattern, err, sizeof(err));
		snprintf(tr->filter_text, sizeof(tr->filter_text), "%s",
			 pattern);
	}
	if (!tr->filter) {
		filter_clear(t, tr);
		return;
	}
	if (tr->lazy && lazy_filter_apply(t, tr, &kept)) {
		of = tr->n_all;
	} else {
		if (!tr_whole(t, tr))
			return;
		kept = apply_filter(tr);
		of = tr->n;
		rebuild_vis(tr);
	}
	tui_message(t, false, "%zu of %zu nodes match \\%s or lead to a match",
		    kept, of ? of - 1 : 0, pattern);
}

static void tr_click(struct tui *t, void *st, const struct area *ar, int y,
		     int x, bool twice)
{
	struct tree *tr = st;

	(void)x;
	if (y < 1 || tr->list.top + (size_t)(y - 1) >= tr->n_vis)
		return;
	tr->list.cur = tr->list.top + (size_t)(y - 1);
	if (twice)
		tr_act(t, st, ACT_ENTER, ar);
}

const struct tui_view_ops view_tree = {
	.name = "Call tree",
	.short_name = "Tree",
	.new = call_new,
	.free = tr_free,
	.draw = tr_draw,
	.act = tr_act,
	.status = tr_status,
	.search = tr_search,
	.filter = tr_filter,
	.click = tr_click,
};

const struct tui_view_ops view_inverted = {
	.name = "Inverted",
	.short_name = "Inv",
	.new = inv_new,
	.free = tr_free,
	.draw = tr_draw,
	.act = tr_act,
	.status = tr_status,
	.search = tr_search,
	.filter = tr_filter,
	.click = tr_click,
};
