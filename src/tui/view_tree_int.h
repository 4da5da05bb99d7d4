/*
 * Private to the tree views (view_tree.c: drawing, keys, search and the
 * filter's entry; view_tree_nodes.c: which of the query's nodes are
 * made, open, kept by the filter and shown, in which rows): the tree's
 * state and what the two files call of each other.
 */
#ifndef HS_TUI_VIEW_TREE_INT_H
#define HS_TUI_VIEW_TREE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/list.h"
#include "tui/view.h"

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
	struct rx_user *filter;
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

/* Verdicts of re per distinct label, computed as asked: 0 not yet, 1 no
 * match, 2 a match. */
struct verdicts {
	unsigned char *v;
};

static inline bool shown(const struct tree *tr, uint32_t i)
{
	return !tr->keep || tr->keep[i];
}

static inline bool is_open(const struct tree *tr, uint32_t i)
{
	return tr->all_open || tr->open[i];
}

/* The visible nodes: a walk over open, kept nodes, children in their
 * order (heaviest first).  The cursor stays on its node when it is
 * still visible, else on its nearest visible ancestor. */
void tr_rebuild_vis(struct tree *tr);
/* Whether node's label matches re (v: the verdicts so far). */
bool tr_label_matches(const struct tree *tr, struct verdicts *v,
		      const struct rx_user *re, uint32_t node);
/* keep[]: the nodes that match the filter and their ancestors, shown
 * unfolded down to the matches.  The number of matching nodes. */
size_t tr_apply_filter(struct tree *tr);
/* Node i's children, made if they are not yet. */
void tr_kids(struct tui *t, struct tree *tr, uint32_t i);
/* The whole tree's folds of now, which Esc gives back after a filter. */
void tr_save_folds(struct tree *tr);
/* The whole tree in place of the one made as opened, the open nodes and
 * the cursor's kept; false when it cannot be built. */
bool tr_whole(struct tui *t, struct tree *tr);
/* The most nodes made one parent at a time before the whole tree is
 * taken instead. */
size_t tr_made_below(void);
#define MADE_BELOW tr_made_below()
/* Every node below i (i included) open and made; false past MADE_BELOW
 * nodes made. */
bool tr_open_below_made(struct tui *t, struct tree *tr, uint32_t i);
/* The node after i in the rows' order with every node open, of the nodes
 * made; QUERY_TREE_NONE past the last. */
uint32_t tr_next_made(const struct tree *tr, uint32_t i);
/* The row after node i, every node open, its children made first;
 * QUERY_TREE_NONE past the last. */
uint32_t tr_next_row(struct tui *t, struct tree *tr, uint32_t i);
/* Rows made up to upto, or until node `until` is the last made
 * (QUERY_TREE_NONE: no such stop). */
void tr_vis_extend(struct tui *t, struct tree *tr, size_t upto, uint32_t until);
/* E on a tree made as opened: the cursor stays on node cur. */
void tr_all_open_start(struct tui *t, struct tree *tr, uint32_t cur);
/* The whole tree, every node open, in place of all_open: the same rows. */
bool tr_all_open_end(struct tui *t, struct tree *tr);
/* The tree of the model as it is now: made again when the model has
 * changed since (its generation), the query's or the comparison's. */
void tr_ensure(struct tui *t, struct tree *tr);
/* tr->filter on a tree made as opened, without making every node; the
 * kept nodes in *kept; false where the query cannot be had. */
bool tr_lazy_filter_apply(struct tui *t, struct tree *tr, size_t *kept);

#endif
