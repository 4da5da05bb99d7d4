/*
 * Per-stack sums for the exports (query_stacks): what the folded,
 * pprof and speedscope writers need, the samples, bytes and objects of
 * every stack node, and for the kinds with liveness the part still
 * alive when its recording ended (an old object: in use once, where
 * its recording's last emission shows it, however many emissions show
 * it, query/old_emissions.h; its events are samples as top counts them).
 * Kinds without liveness go through
 * the usual pass (rollup rows where they can); kinds with it are
 * decoded whole, as survivors does, since the fate is per sample.
 * It does not merge stacks that print the same, but where frames are
 * relabelled (query_frames.c: the stacks are then the frame trie's):
 * the writers' formats (and their readers) add up equal stacks
 * themselves.
 */
#include "query/query.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/old_emissions.h"
#include "query/query_int.h"
#include "store/store.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* Objects one sample i stands for; NaN where unknown. */
static double sample_objects(const struct query *q, uint64_t i, int64_t bytes)
{
	if (sample_kind_ht(q->kind))
		return q->sm.size[i] > 0 ? (double)bytes / (double)q->sm.size[i]
					 : 0;
	return query_kind_objects(q->kind) ? 1.0 : NAN;
}

/* The sums a sample of store node node, class cls and thread th adds
 * to: its node's, or where frames split a node's samples (q->split,
 * query_frames.c) its frame node's, acc grown to the frame trie's
 * room. */
static struct query_stack *stack_slot(struct query *q, struct query_stack **acc,
				      size_t *room, uint32_t node, uint32_t cls,
				      uint32_t th)
{
	uint32_t v;

	if (!q->split)
		return &(*acc)[node];
	v = query_frames_node_ct(q, node, cls, th);
	if (q->ft.alloc > *room) {
		size_t old = *room;

		*room = q->ft.alloc;
		*acc = xreallocarray(*acc, *room, sizeof(**acc));
		memset(*acc + old, 0, (*room - old) * sizeof(**acc));
	}
	return &(*acc)[v];
}

static int sums_by_pass(struct query *q, struct query_stack **acc, size_t *room,
			struct query_total *total, struct err *e)
{
	struct query_pass p;
	uint64_t i;
	int rc;

	if (query_pass_init(
		    q, &p,
		    PASS_NEED_NODE |
			    (q->split ? PASS_NEED_CLASS | PASS_NEED_THREAD : 0),
		    0, 0, e) < 0)
		return ERR_FAIL;
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS) {
			uint32_t r;

			for (r = 0; r < p.n_rows; r++) {
				const struct store_rollup_row *x = &p.rows[r];
				struct query_stack *a;

				if (!query_row_ok(q, &p, x))
					continue;
				a = stack_slot(q, acc, room, x->node, x->cls,
					       x->thread);
				a->samples += x->samples;
				a->est_bytes = add_sat(a->est_bytes, x->bytes);
				/* rows exist only for kinds of one object a
				 * sample or none (agent samples have none) */
				a->est_objects += (double)x->samples;
				total_add_rows(total, x->samples, x->bytes,
					       x->first_ns, x->last_ns);
			}
			continue;
		}
		for (i = q->lo; i < q->hi; i++) {
			int64_t bytes =
				q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
			struct query_stack *a;

			if (q->sm.kind[i] != q->kind ||
			    (p.rec != PASS_ANY_REC &&
			     q->sm.recording[i] != p.rec) ||
			    !query_sample_ok(q, i))
				continue;
			a = stack_slot(q, acc, room, q->sm.node[i],
				       q->sm.cls[i], q->sm.thread[i]);
			a->samples++;
			a->est_bytes = add_sat(a->est_bytes, bytes);
			a->est_objects += sample_objects(q, i, bytes);
			total_add(total, q->sm.time_ns[i], bytes);
		}
	}
	query_pass_release(&p);
	return rc < 0 ? ERR_FAIL : 0;
}

/* Kinds with liveness: every sample of the window, decoded, with its
 * fate from the LIVE records (sorted by the sample's seq, as the kind's
 * samples are). */
static int sums_with_fate(struct query *q, struct query_stack **acc,
			  size_t *room, struct query_total *total,
			  struct err *e)
{
	const struct store_liveness *live;
	uint32_t n_live, li = 0;
	uint64_t i;
	struct old_emissions oe;

	memset(&oe, 0, sizeof(oe));
	if (store_liveness(q->s, &live, &n_live, e) < 0 ||
	    query_materialize(q, e) < 0 ||
	    (q->kind == SAMPLE_OLD_OBJECT &&
	     query_old_emissions(q, &oe, e) < 0))
		return ERR_FAIL;
	for (i = q->lo; i < q->hi && i < q->sm.n; i++) {
		int64_t bytes = q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
		struct query_stack *a;
		uint32_t seq = q->sm.seq[i];
		double obj;

		if (q->sm.kind[i] != q->kind || !query_sample_ok(q, i))
			continue;
		a = stack_slot(q, acc, room, q->sm.node[i], q->sm.cls[i],
			       q->sm.thread[i]);

		obj = sample_objects(q, i, bytes);
		a->samples++;
		a->est_bytes = add_sat(a->est_bytes, bytes);
		a->est_objects += obj;
		total_add(total, q->sm.time_ns[i], bytes);
		while (li < n_live && live[li].sample < seq)
			li++;
		if (li < n_live && live[li].sample == seq &&
		    (live[li].state == STORE_LIVE_AT_END ||
		     live[li].state == STORE_LIVE_AT_CUT) &&
		    /* an old object is in use once, where its
		     * recording's last emission shows it, however many
		     * show it (old_emissions.h); its events still count
		     * as top counts them */
		    (!oe.s || (oe.s[i].in_last && !oe.s[i].repeat))) {
			a->inuse_samples++;
			a->inuse_bytes = add_sat(a->inuse_bytes, bytes);
			a->inuse_objects += obj;
		}
	}
	query_old_emissions_release(&oe);
	return 0;
}

/* acc[0, m), store nodes' sums, merged by frame node (query_frames.c)
 * in place, in the order each frame node is first met: how many */
static size_t by_frames(struct query *q, struct query_stack *acc, size_t m)
{
	struct u64map at;
	size_t k, n = 0;

	u64map_init(&at);
	for (k = 0; k < m; k++) {
		uint32_t v = query_frames_node(q, acc[k].stack);
		bool added;
		uint64_t *slot = u64map_put(&at, v, n, &added);
		struct query_stack *y = &acc[*slot];

		if (added) {
			acc[n] = acc[k];
			acc[n++].stack = v;
			continue;
		}
		y->samples += acc[k].samples;
		y->est_bytes = add_sat(y->est_bytes, acc[k].est_bytes);
		y->est_objects += acc[k].est_objects;
		y->inuse_samples += acc[k].inuse_samples;
		y->inuse_bytes = add_sat(y->inuse_bytes, acc[k].inuse_bytes);
		y->inuse_objects += acc[k].inuse_objects;
	}
	u64map_release(&at);
	return n;
}

int query_stacks(struct query *q, const struct query_stack **out, size_t *n,
		 bool *has_fate, struct query_total *total, struct err *e)
{
	struct query_stack *acc;
	size_t k, m = 0, room = q->n_nodes ? q->n_nodes : 1, n_acc;
	int rc;

	*out = NULL;
	*n = 0;
	*has_fate = sample_kind_has_fate(q->kind);
	total_init(total);
	acc = xcalloc(room, sizeof(*acc));
	rc = *has_fate ? sums_with_fate(q, &acc, &room, total, e)
		       : sums_by_pass(q, &acc, &room, total, e);
	if (rc < 0) {
		free(acc);
		return ERR_FAIL;
	}
	total->est_objects = query_kind_objects(q->kind) ? 0 : NAN;
	/* split: acc is by frame node already, as far as its room: a frame
	 * node past it (made by an earlier tree) has no sample here */
	n_acc = q->split ? (q->ft.n < room ? q->ft.n : room) : q->n_nodes;
	for (k = 0; k < n_acc; k++) {
		if (!acc[k].samples)
			continue;
		acc[m] = acc[k];
		acc[m].stack = (uint32_t)k;
		if (!query_kind_objects(q->kind))
			acc[m].est_objects = acc[m].inuse_objects = NAN;
		else
			total->est_objects += acc[m].est_objects;
		m++;
	}
	if (q->relabel && !q->split)
		m = by_frames(q, acc, m);
	free(q->stacks);
	q->stacks = acc;
	*out = acc;
	*n = m;
	return 0;
}
