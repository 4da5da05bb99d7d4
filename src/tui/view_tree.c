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
 * This file draws the rows and takes the keys, the search and the
 * filter; view_tree_nodes.c keeps which nodes are made, open, kept and
 * shown (view_tree_int.h).
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
#include "tui/view_tree_int.h"
#include "util/hash.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/xalloc.h"

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
	rx_user_free(tr->filter);
	free(tr);
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

	tr_ensure(t, tr);
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
	tr_vis_extend(t, tr, tr->list.top + (size_t)h, QUERY_TREE_NONE);
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
				human_bytes(nd->est_bytes, b, sizeof(b)));
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
			    human_bytes(nd->self_bytes, b, sizeof(b)),
			    scr.vline, nd->label);
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

	rx_user_free(tr->filter);
	tr->filter = NULL;
	free(tr->keep);
	tr->keep = NULL;
	if (tr->lazy_filter) {
		tr->lazy_filter = false;
		tr->all_open = false;
		if (tr->pre_all_open) {
			tr_all_open_start(t, tr, cur);
			return;
		}
		tr_rebuild_vis(tr);
		return;
	}
	if (tr->pre_open) {
		memcpy(tr->open, tr->pre_open, tr->n);
		free(tr->pre_open);
		tr->pre_open = NULL;
	}
	tr_rebuild_vis(tr);
}

static bool tr_act(struct tui *t, void *st, enum action act,
		   const struct area *ar)
{
	struct tree *tr = st;
	int h = ar->height - 1;
	uint32_t id;

	tr_ensure(t, tr);
	if (list_act(&tr->list, act, h))
		return true;
	if (!tr->n_vis)
		return false;
	tr_vis_extend(t, tr, tr->list.cur + 1, QUERY_TREE_NONE);
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
			if (!tr_all_open_end(t, tr))
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
		if (tr->lazy && id != 0 && tr_open_below_made(t, tr, id))
			break;
		if (!tr_whole(t, tr))
			return true;
		open_below(tr, tr->vis[tr->list.cur]);
		break;
	case ACT_EXPAND_ALL:
		if (tr->lazy) {
			tr_all_open_start(t, tr, id);
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
	tr_rebuild_vis(tr);
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
			    const struct rx_user *re, uint32_t from, int dir)
{
	size_t n0 = tr->n;
	uint32_t k = from;

	if (!dir && tr_label_matches(tr, v, re, k))
		return k;
	for (;;) {
		k = tr_next_row(t, tr, k);
		if (k == QUERY_TREE_NONE)
			k = 0; /* past the last row: the first */
		if (k == from)
			return QUERY_TREE_NONE;
		if (tr_label_matches(tr, v, re, k))
			return k;
		if (tr->n - n0 > MADE_BELOW)
			return QUERY_TREE_LATER;
	}
}

/* On a whole tree: the same order, both ways, over the shown nodes. */
static uint32_t search_whole(struct tree *tr, struct verdicts *v,
			     const struct rx_user *re, uint32_t from, int dir)
{
	uint32_t *rows = xmalloc((tr->n ? tr->n : 1) * sizeof(*rows));
	uint32_t k = 0, found = QUERY_TREE_NONE;
	size_t n = 0, at = 0, i;

	do {
		if (k == from)
			at = n;
		rows[n++] = k;
		k = tr_next_made(tr, k);
	} while (k != QUERY_TREE_NONE && n < tr->n);
	for (i = dir ? 1 : 0; i <= n; i++) {
		size_t r = dir >= 0 ? (at + i) % n : (at + n - i % n) % n;

		if (shown(tr, rows[r]) &&
		    tr_label_matches(tr, v, re, rows[r])) {
			found = rows[r];
			break;
		}
	}
	free(rows);
	return found;
}

static bool tr_search(struct tui *t, void *st, const struct rx_user *re,
		      int dir)
{
	struct tree *tr = st;
	struct verdicts v;
	uint32_t found = QUERY_TREE_LATER;

	tr_ensure(t, tr);
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
	tr_vis_extend(t, tr, tr->list.cur + 1, QUERY_TREE_NONE);
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
			tr_vis_extend(t, tr, tr->n_vis, found);
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
		tr_rebuild_vis(tr);
		for (k = 0; k < tr->n_vis; k++)
			if (tr->vis[k] == found)
				tr->list.cur = k;
	}
	return true;
}

static void tr_filter(struct tui *t, void *st, const struct rx_user *re,
		      const char *pattern)
{
	struct tree *tr = st;
	size_t kept, of;
	struct err e;
	bool was = tr->filter != NULL;

	tr_ensure(t, tr);
	if (re && !was) {
		/* the folds Esc gives back: on a tree made as opened they
		 * stay in open[] (and all_open); else a copy */
		if (tr->lazy)
			tr->pre_all_open = tr->all_open;
		else
			tr_save_folds(tr);
	}
	rx_user_free(tr->filter);
	tr->filter = NULL;
	if (re) {
		tr->filter = rx_user_new(pattern, &e);
		snprintf(tr->filter_text, sizeof(tr->filter_text), "%s",
			 pattern);
	}
	if (!tr->filter) {
		filter_clear(t, tr);
		return;
	}
	if (tr->lazy && tr_lazy_filter_apply(t, tr, &kept)) {
		of = tr->n_all;
	} else {
		if (!tr_whole(t, tr))
			return;
		kept = tr_apply_filter(tr);
		of = tr->n;
		tr_rebuild_vis(tr);
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
