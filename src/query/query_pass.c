/*
 * Passes over a kind from its rollups (query_int.h, struct query_pass).
 *
 * The rollup buckets of the kind under the smallest projection that
 * holds what the pass needs (the filters' and the grouping's parts of
 * the key) are walked in order; a bucket that lies inside the window
 * and has no cut after its start is handed out whole, as rows; of the
 * others, the part inside the window becomes an edge, read afterwards
 * from the sample blocks (or from the kind held in memory), only the
 * samples of the bucket's recording.  A window therefore reads samples
 * only at its two ends, and a timeline only where one of its buckets
 * starts inside a rollup bucket; the results stay exact to the
 * nanosecond.  Where the window holds every bucket of a recording and
 * the store has that recording's whole rows (3.1), those are handed out
 * instead: the same sums from fewer rows.  Without rollups for the kind
 * (a 2.0 store, agent samples, negative byte counts), every block in
 * the window is read, as before.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

unsigned query_group_need(enum query_group by)
{
	switch (by) {
	case GROUP_CLASS:
		return PASS_NEED_CLASS;
	case GROUP_SITE:
	case GROUP_APP_SITE:
		return PASS_NEED_NODE;
	case GROUP_THREAD:
		return PASS_NEED_THREAD;
	default:
		return 0;
	}
}

static bool has(int proj, unsigned need)
{
	switch (proj) {
	case STORE_PROJ_FULL:
		return true;
	case STORE_PROJ_NODE:
		return !(need & ~PASS_NEED_NODE);
	case STORE_PROJ_CLASS:
		return !(need & ~PASS_NEED_CLASS);
	default:
		return !(need & ~PASS_NEED_THREAD);
	}
}

bool query_row_ok(const struct query *q, const struct query_pass *p,
		  const struct store_rollup_row *r)
{
	/* the projection holds every part a filter looks at (pass_init
	 * chose it so); the parts it does not hold are 0 and unfiltered */
	if (!q->filtered)
		return true;
	if (p->proj == STORE_PROJ_FULL || p->proj == STORE_PROJ_NODE)
		if (!q->node_ok[r->node])
			return false;
	if (q->o.class_re && (r->cls == STORE_NONE || !q->class_ok[r->cls]))
		return false;
	if (q->o.thread_re &&
	    (r->thread == STORE_NONE || !q->thread_ok[r->thread]))
		return false;
	return !q->key_ok ||
	       q->key_ok[group_of_row(q, (enum query_group)q->o.key_by, p, r)];
}

/* Start on kind: the projection with the fewest rows of those that hold
 * what is needed (the full key always does), or the samples (phase 2)
 * where there are none, or no squares where they are needed. */
static int kind_init(struct query *q, struct query_pass *p, int kind,
		     struct err *e)
{
	/* the OutsideTLAB events of the corrected estimate are exact:
	 * no pooled term, so no key added for it */
	const unsigned need =
		(kind == SAMPLE_TLAB_OUTSIDE && p->corrected ? p->need_asked
							     : p->need) &
		~PASS_NEED_SQUARES;
	int proj, best = -1;
	uint64_t best_rows = UINT64_MAX;

	p->kind = kind;
	p->exact = p->corrected && kind == SAMPLE_TLAB_OUTSIDE;
	p->phase = 0;
	p->b = NULL;
	p->n_b = p->bi = 0;
	p->n_edges = p->ei = 0;
	p->blk = 0;
	p->cur_blk = UINT32_MAX;
	p->rows = NULL;
	p->n_rows = 0;
	p->rec = PASS_ANY_REC;
	p->wi = 0;
	memset(&p->whole, 0, sizeof(p->whole));
	if (store_kind_blocks(q->s, kind, &p->blocks, &p->n_blocks, e) < 0)
		return ERR_FAIL;
	if (p->corrected && !q->rollup_est) {
		p->phase = 2;
		return 0;
	}
	if ((p->need & PASS_NEED_SQUARES) && !p->corrected && !p->all_sq) {
		p->phase = 2; /* a 2.1 store has no squares: the samples */
		return 0;
	}
	for (proj = 0; proj < STORE_PROJ__COUNT; proj++) {
		const struct store_rollup_bucket *b;
		const struct store_rollup_row *r;
		uint64_t rows = 0;
		uint32_t n, i;

		if (!has(proj, need))
			continue;
		if (store_rollup(q->s, kind, proj, &b, &n, &r, e) < 0)
			return ERR_FAIL;
		if (!n)
			continue;
		for (i = 0; i < n; i++)
			rows += b[i].n_rows;
		if (rows < best_rows) {
			best_rows = rows;
			best = proj;
		}
	}
	if (best < 0) {
		p->phase = 2; /* no rollups: the samples in the window */
		return 0;
	}
	p->proj = best;
	if (store_rollup(q->s, kind, best, &p->b, &p->n_b, &p->all_rows, e) < 0)
		return ERR_FAIL;
	return store_rollup_whole(q->s, kind, best, &p->whole, e);
}

int query_pass_init(struct query *q, struct query_pass *p, unsigned need,
		    int64_t cut_base, int64_t cut_w, struct err *e)
{
	memset(p, 0, sizeof(*p));
	p->cut_base = cut_base;
	p->cut_w = cut_w;
	p->all = need & PASS_ALL;
	/* PASS_ALL: no filter, so none of the parts filters look at */
	need &= ~PASS_ALL;
	p->need = p->need_asked = p->all ? need : need | q->need;
	/*
	 * The corrected estimate reads two kinds as one: the rests of
	 * ObjectAllocationSample, scaled, then the OutsideTLAB events'
	 * exact bytes, both handed out as the query's kind (est_rows(),
	 * est_samples()).
	 */
	p->corrected = query_estimate(q) == QUERY_EST_CORRECTED;
	if ((need & PASS_NEED_SQUARES) && !p->all) {
		/* m by the key the rows hold already: a thread's where they
		 * hold it, else a node's, else a class's; rows with none
		 * (a timeline) are read with their thread */
		p->pool_by = p->need & PASS_NEED_THREAD	 ? POOL_THREAD
			     : p->need & PASS_NEED_NODE	 ? POOL_NODE
			     : p->need & PASS_NEED_CLASS ? POOL_CLASS
							 : POOL_THREAD;
		if (query_pool_get(q, p->pool_by, &p->pool, e) < 0)
			return ERR_FAIL;
		if (p->pool && p->pool_by == POOL_THREAD)
			p->need |= PASS_NEED_THREAD;
	}
	if (p->corrected) {
		if (store_rollup_est(q->s, &q->rollup_est, e) < 0)
			return ERR_FAIL;
	} else if ((need & PASS_NEED_SQUARES) &&
		   store_rollup_squares(q->s, &p->all_sq, e) < 0) {
		return ERR_FAIL;
	}
	return kind_init(q, p, p->corrected ? SAMPLE_ALLOC : (int)q->kind, e);
}

void query_pass_release(struct query_pass *p)
{
	free(p->edges);
	free(p->x_rows);
	free(p->x_sq);
	free(p->x_small);
	free(p->x_bytes);
	free(p->x_var);
	free(p->x_kind);
	p->edges = NULL;
	p->x_rows = NULL;
	p->x_sq = NULL;
	p->x_small = NULL;
	p->x_bytes = p->x_var = NULL;
	p->x_kind = NULL;
}

/* [a, b] of the samples of q->sm, by binary search on their times. */
static void window_of(struct query *q, int64_t a, int64_t b)
{
	uint64_t lo = 0, hi = q->sm.n;

	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (q->sm.time_ns[m] < a)
			lo = m + 1;
		else
			hi = m;
	}
	q->lo = lo;
	hi = q->sm.n;
	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (q->sm.time_ns[m] <= b)
			lo = m + 1;
		else
			hi = m;
	}
	q->hi = lo;
}

/* Whether a cut lies in (s, e]: the first one after s is at or
 * before e (128 bits: a damaged store may hold any times). */
static bool cut_inside(const struct query_pass *p, int64_t s, int64_t e)
{
	__int128 d, f;

	if (p->cut_w <= 0)
		return false;
	d = (__int128)s - p->cut_base;
	f = d / p->cut_w;
	if (d % p->cut_w && d < 0)
		f--; /* floor */
	return (__int128)p->cut_base + (f + 1) * p->cut_w <= e;
}

/*
 * The whole rows of recording rec, where the window holds all of its
 * buckets (the whole bucket spans them, with no cut inside) and they add
 * up to what the buckets' rows would: under the corrected estimate,
 * ObjectAllocationSample's rests are scaled row by row, rounded down,
 * so only where the recording's scale is 1 (no OutsideTLAB events
 * apart) is the sum of the scaled the scaled sum.  NULL: the buckets.
 */
static const struct store_rollup_bucket *
whole_of(const struct query *q, struct query_pass *p, uint32_t rec)
{
	const struct store_rollup_bucket *w;
	const int64_t from = q->o.from_ns, to = q->o.to_ns;

	while (p->wi < p->whole.n && p->whole.b[p->wi].recording < rec)
		p->wi++;
	if (p->wi == p->whole.n || p->whole.b[p->wi].recording != rec)
		return NULL;
	w = &p->whole.b[p->wi];
	if (to == INT64_MIN || w->start_ns < from || w->end_ns >= to ||
	    cut_inside(p, w->start_ns, w->end_ns) ||
	    (p->all_sq && !p->whole.sq))
		return NULL;
	if (p->corrected && !p->whole.est)
		return NULL;
	if (p->corrected && p->kind == SAMPLE_ALLOC && rec < q->n_recs &&
	    !query_est_scale_one(&q->est[rec]))
		return NULL;
	return w;
}

/* Bucket b's rows handed out whole, from its level's rows, squares
 * (NULL: not asked for) and estimate sums (NULL: none). */
static int hand_out(struct query_pass *p, const struct store_rollup_bucket *b,
		    const struct store_rollup_row *rows,
		    const struct store_rollup_sq *sq,
		    const struct store_rollup_est *est)
{
	p->rows = rows + b->first_row;
	p->sq = sq ? sq + b->first_row : NULL;
	p->est = est ? est + b->first_row : NULL;
	p->n_rows = b->n_rows;
	p->rec = b->recording;
	p->start_ns = b->start_ns;
	p->end_ns = b->end_ns;
	return PASS_ROWS;
}

static int edge_cmp(const void *x, const void *y)
{
	const struct pass_edge *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->rec < b->rec ? -1 : a->rec > b->rec;
}

/* The held kind's samples for p: the query's (a drill-down's filtered
 * copy, query_held_samples()), or with PASS_ALL every one of them. */
static int held_samples(struct query *q, const struct query_pass *p,
			struct err *e)
{
	return p->all ? query_materialize(q, e) : query_held_samples(q, e);
}

/* One step of the pass over p->kind. */
static int pass_step(struct query *q, struct query_pass *p, struct err *e)
{
	const int64_t from = q->o.from_ns, to = q->o.to_ns;

	if (p->phase == 0) {
		/* the buckets: whole ones out, the others kept as edges */
		while (p->bi < p->n_b) {
			const struct store_rollup_bucket *b = &p->b[p->bi++];
			const struct store_rollup_bucket *w;
			struct pass_edge *x;

			if ((q->rec_ok && !query_rec_ok(q, b->recording)) ||
			    to == INT64_MIN || b->end_ns < from ||
			    b->start_ns >= to)
				continue;
			if (p->whole.n &&
			    (p->bi == 1 ||
			     p->b[p->bi - 2].recording != b->recording) &&
			    (w = whole_of(q, p, b->recording)) != NULL) {
				/* the recording's first bucket: all of them */
				while (p->bi < p->n_b &&
				       p->b[p->bi].recording == b->recording)
					p->bi++;
				return hand_out(p, w, p->whole.rows,
						p->all_sq ? p->whole.sq : NULL,
						p->whole.est);
			}
			if (b->start_ns >= from && b->end_ns < to &&
			    !cut_inside(p, b->start_ns, b->end_ns))
				return hand_out(p, b, p->all_rows, p->all_sq,
						q->rollup_est);
			if (p->n_edges == p->alloc_edges) {
				p->alloc_edges = p->alloc_edges
							 ? p->alloc_edges * 2
							 : 16;
				p->edges =
					xreallocarray(p->edges, p->alloc_edges,
						      sizeof(*p->edges));
			}
			x = &p->edges[p->n_edges++];
			x->a = b->start_ns > from ? b->start_ns : from;
			x->b = b->end_ns < to - 1 ? b->end_ns : to - 1;
			x->rec = b->recording;
		}
		if (p->n_edges > 1)
			qsort(p->edges, p->n_edges, sizeof(*p->edges),
			      edge_cmp);
		p->phase = 1;
		p->ei = 0;
		p->blk = 0;
		p->rows = NULL;
		p->n_rows = 0;
	}
	if (p->phase == 1) {
		/* the edges: the blocks that overlap each, or the kind held
		 * in memory */
		bool held = !p->corrected && q->n_blocks &&
			    store_kind_decoded(q->s, q->kind);

		while (p->ei < p->n_edges) {
			const struct pass_edge *x = &p->edges[p->ei];

			p->rec = x->rec;
			if (held) {
				p->ei++;
				if (held_samples(q, p, e) < 0)
					return ERR_FAIL;
				window_of(q, x->a, x->b);
				return PASS_SAMPLES;
			}
			if (p->blk == 0) {
				/* the first block that ends at a or later */
				uint32_t lo = 0, hi = p->n_blocks;

				while (lo < hi) {
					uint32_t m = lo + (hi - lo) / 2;

					if (p->blocks[m].last_ns < x->a)
						lo = m + 1;
					else
						hi = m;
				}
				p->blk = lo + 1; /* blk - 1 is next */
			}
			if (p->blk - 1 < p->n_blocks &&
			    p->blocks[p->blk - 1].first_ns <= x->b) {
				uint32_t b = p->blk - 1;

				p->blk++;
				if (b != p->cur_blk) {
					if (store_read_block(q->s, p->kind, b,
							     &q->sm, e) < 0)
						return ERR_FAIL;
					p->cur_blk = b;
				}
				window_of(q, x->a, x->b);
				return PASS_SAMPLES;
			}
			p->ei++;
			p->blk = 0;
		}
		p->phase = 3;
		return PASS_END;
	}
	if (p->phase == 2 && p->corrected) {
		/* the blocks of p->kind in the window */
		p->rec = PASS_ANY_REC;
		while (p->blk < p->n_blocks && to != INT64_MIN) {
			const struct store_block *h = &p->blocks[p->blk++];

			if (h->first_ns >= to)
				break;
			if (h->last_ns < from)
				continue;
			if (store_read_block(q->s, p->kind, p->blk - 1, &q->sm,
					     e) < 0)
				return ERR_FAIL;
			window_of(q, from, to - 1);
			return PASS_SAMPLES;
		}
		p->phase = 3;
		return PASS_END;
	}
	if (p->phase == 2) {
		int rc;

		if (p->all && p->blk == 0 && q->n_blocks &&
		    store_kind_decoded(q->s, q->kind)) {
			/* query_next_block()'s held case, whole */
			p->blk = q->n_blocks;
			rc = held_samples(q, p, e) < 0 ? ERR_FAIL : 1;
		} else {
			rc = query_next_block(q, &p->blk, e);
		}

		p->rec = PASS_ANY_REC;
		if (rc <= 0) {
			p->phase = 3;
			return rc < 0 ? ERR_FAIL : PASS_END;
		}
		return PASS_SAMPLES;
	}
	return PASS_END;
}

/* The corrected estimate's copies, n long at least. */
static void est_room(struct query_pass *p, uint64_t n)
{
	if (n <= p->x_n)
		return;
	p->x_n = n;
	p->x_bytes = xreallocarray(p->x_bytes, n, sizeof(*p->x_bytes));
	p->x_var = xreallocarray(p->x_var, n, sizeof(*p->x_var));
	p->x_kind = xreallocarray(p->x_kind, n, sizeof(*p->x_kind));
}

/* A bucket's rows under the corrected estimate: ObjectAllocationSample's
 * with their rests' sums scaled in place of their bytes and squares;
 * OutsideTLAB's as they are, exact, with whether each holds an event
 * smaller than a typical TLAB. */
static void est_rows(struct query *q, struct query_pass *p)
{
	const struct store_rollup_est *est = p->est;
	const struct store_estimate *f =
		p->rec < q->n_recs ? &q->est[p->rec] : NULL;
	uint32_t r;

	if (p->n_rows > p->x_alloc) {
		p->x_alloc = p->n_rows;
		p->x_rows = xreallocarray(p->x_rows, p->x_alloc,
					  sizeof(*p->x_rows));
		p->x_sq = xreallocarray(p->x_sq, p->x_alloc, sizeof(*p->x_sq));
		p->x_small = xreallocarray(p->x_small, p->x_alloc,
					   sizeof(*p->x_small));
	}
	if (p->kind == SAMPLE_TLAB_OUTSIDE) {
		for (r = 0; r < p->n_rows; r++)
			p->x_small[r] = f && est[r].a < f->typical_tlab;
		p->small = p->x_small;
		p->sq = NULL;
		return;
	}
	for (r = 0; r < p->n_rows; r++) {
		unsigned __int128 sq;

		p->x_rows[r] = p->rows[r];
		if (!f) { /* a damaged store: its rests as they are */
			p->x_rows[r].bytes = est[r].a > 0 ? est[r].a : 0;
			sq = u128_of(est[r].lo, est[r].hi);
		} else {
			p->x_rows[r].bytes = query_est_scale(est[r].a, f);
			sq = query_est_scale_sq(est[r].lo, est[r].hi, f);
		}
		p->x_sq[r] = (struct store_rollup_sq){(uint64_t)sq,
						      (uint64_t)(sq >> 64)};
	}
	p->rows = p->x_rows;
	p->sq = p->x_sq;
	p->small = NULL;
}

/* The samples q->sm[q->lo, q->hi) under the corrected estimate: as
 * est_rows(), each with what it adds to the sum of squares (p->var). */
static void est_samples(struct query *q, struct query_pass *p)
{
	const struct store_samples *sm = &q->sm;
	uint64_t i;

	est_room(p, sm->n);
	for (i = q->lo; i < q->hi; i++) {
		uint32_t rec = sm->recording[i];
		const struct store_estimate *f =
			rec < q->n_recs ? &q->est[rec] : NULL;
		int64_t b = sm->bytes[i] == REC_NONE ? 0 : sm->bytes[i];

		if (p->kind == SAMPLE_TLAB_OUTSIDE) {
			p->x_bytes[i] = sm->bytes[i];
			p->x_var[i] = f && b < f->typical_tlab ? -1 : 0;
		} else {
			int64_t rest = sm->rest ? sm->rest[i] : b;

			p->x_bytes[i] = f ? query_est_scale(rest, f)
					  : (rest > 0 ? rest : 0);
			p->x_var[i] = p->x_bytes[i];
		}
		p->x_kind[i] = SAMPLE_ALLOC;
	}
	q->sm.bytes = p->x_bytes;
	q->sm.kind = p->x_kind;
	p->var = p->x_var;
	/* q->sm's bytes and kinds are these copies now, made for [lo, hi)
	 * only: an edge in the same block reads the block again (it read
	 * the copies, stale or never written) */
	p->cur_blk = UINT32_MAX;
}

int query_pass_next(struct query *q, struct query_pass *p, struct err *e)
{
	for (;;) {
		int rc = pass_step(q, p, e);

		if (!p->corrected || rc < 0)
			return rc;
		if (rc == PASS_ROWS) {
			est_rows(q, p);
		} else if (rc == PASS_SAMPLES) {
			est_samples(q, p);
		} else if (p->kind == SAMPLE_ALLOC) {
			/* ObjectAllocationSample done: the OutsideTLAB events */
			if (kind_init(q, p, SAMPLE_TLAB_OUTSIDE, e) < 0)
				return ERR_FAIL;
			continue;
		}
		return rc;
	}
}
