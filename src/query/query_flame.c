/*
 * The flame graph's nodes (query_flame): the call tree cut to what a
 * drawing can show, laid out left to right.  util/flame.h draws them.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/flame.h"
#include "util/xalloc.h"

/* What a node's frame is where the query made it (util/flame.h guesses
 * the rest from the label): --leaf=class's class, --threads' thread. */
static int frame_of(const struct query *q, const struct query_tree_node *t)
{
	if (!q->relabel || t->site == QUERY_TREE_NONE || t->site >= q->n_labs)
		return FLAME_FRAME_GUESS;
	switch (q->lab_kind[t->site]) {
	case QUERY_LAB_CLASS:
		return FLAME_FRAME_CLASS;
	case QUERY_LAB_THREAD:
		return FLAME_FRAME_THREAD;
	default:
		return FLAME_FRAME_GUESS;
	}
}

int query_flame(struct query *q, struct flame_node **out, size_t *n_out,
		struct err *e)
{
	const struct query_tree_node *nodes;
	struct query_total total;
	struct flame_node *fl;
	size_t n, i, m = 0;
	uint32_t *map;
	double *next_x;

	*out = NULL;
	*n_out = 0;
	if (query_tree(q, false, 0, &nodes, &n, &total, e) < 0)
		return ERR_FAIL;
	if (!n || nodes[0].est_bytes <= 0)
		return 0;
	map = xmalloc(n * sizeof(*map));
	next_x = xcalloc(n, sizeof(*next_x));
	fl = xcalloc(n, sizeof(*fl));
	/* nodes come parents first: a node's x is where its parent's next
	 * child starts */
	for (i = 0; i < n; i++) {
		const struct query_tree_node *t = &nodes[i];
		struct flame_node *fn;
		double share =
			(double)t->est_bytes / (double)nodes[0].est_bytes;
		uint32_t p = t->parent;

		map[i] = UINT32_MAX;
		if (i && (p == QUERY_TREE_NONE || map[p] == UINT32_MAX ||
			  share < 0.002))
			continue;
		fn = &fl[m];
		fn->label = xstrdup(t->label);
		fn->parent = i ? map[p] : UINT32_MAX;
		fn->depth = t->depth;
		fn->bytes = t->est_bytes;
		fn->samples = t->samples;
		fn->frame = frame_of(q, t);
		fn->x = i ? next_x[p] : 0;
		if (i)
			next_x[p] += share;
		next_x[i] = fn->x;
		map[i] = (uint32_t)m++;
	}
	free(map);
	free(next_x);
	*out = fl;
	*n_out = m;
	return 0;
}
