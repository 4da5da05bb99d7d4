/*
 * The rollups of a store (store.h, docs/formats/store.md, 2.1): the
 * bucket index is checked as a whole the first time it is used (it is
 * small: a record per bucket, a few thousand per kind and recording); a
 * kind's rows under one projection are checked, each bucket's checksum
 * and every row's values, the first time that (kind, projection) is
 * asked for.  store_verify() also rebuilds the rollups from the samples
 * (store_write_rollup.c, the writer's own builder) and compares: a rollup that
 * disagrees with its samples is a damaged store.
 */
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_estimate.h"
#include "store/store_write_rollup.h"
#include "util/crc32c.h"
#include "util/xalloc.h"

/* A level of rollups: the time buckets, or the whole recordings' (3.1). */
struct rollup_level_cache {
	/* per kind and projection: the run of buckets, checked or not */
	uint32_t first[SAMPLE__COUNT][STORE_PROJ__COUNT];
	uint32_t n[SAMPLE__COUNT][STORE_PROJ__COUNT];
	int state[SAMPLE__COUNT][STORE_PROJ__COUNT]; /* 0, 1 good, -1 bad */
	struct err bad[SAMPLE__COUNT][STORE_PROJ__COUNT];
};

struct store_rollup_cache {
	struct rollup_level_cache lv[2];
};

/* The sections of each level: buckets, rows, squares, estimates. */
static const int level_sec[2][4] = {
	{I_R_BUCKETS, I_R_ROWS, I_R_SQUARES, I_R_EST},
	{I_W_BUCKETS, I_W_ROWS, I_W_SQUARES, I_W_EST},
};

void store_rollups_free(struct store *s)
{
	free(s->rollups);
	s->rollups = NULL;
}

/*
 * check_refs() of the bucket index (recordings, the sample index and
 * the rows' section present): kinds and projections known, agent
 * samples never rolled up, recordings in range, buckets in (kind,
 * projection, recording, time) order without overlap, each owning the
 * next run of rows, together all of them; and under each projection it
 * has, a kind's buckets hold exactly its samples, as many as the sample
 * index says.
 */
const char *store_rollup_index_check(struct store *s, uint64_t *at)
{
	const struct section *ix = &s->sec[I_R_BUCKETS];
	const struct store_rollup_bucket *b = (const void *)ix->p;
	uint64_t kind_n[SAMPLE__COUNT], sum[SAMPLE__COUNT][STORE_PROJ__COUNT];
	uint64_t row = 0, i;
	struct rollup_level_cache *c;
	struct err e;
	int k, p;

	err_init(&e);
	if (store_kind_counts(s, kind_n, &e) < 0) {
		*at = 0;
		return "cannot be checked: the sample index is damaged";
	}
	if (!s->rollups)
		s->rollups = xcalloc(1, sizeof(*s->rollups));
	c = &s->rollups->lv[0];
	memset(sum, 0, sizeof(sum));
	for (i = 0; i < ix->n; i++) {
		const struct store_rollup_bucket *x = &b[i],
						 *y = i ? &b[i - 1] : x;

		*at = i;
		if (x->kind >= SAMPLE__COUNT ||
		    sample_kind_ht((enum sample_kind)x->kind) ||
		    x->proj >= STORE_PROJ__COUNT || x->reserved)
			return "holds an unknown kind or projection";
		if (x->recording >= s->sec[I_RECORDINGS].n)
			return "refers to no recording";
		if (x->start_ns > x->end_ns || !x->n_rows ||
		    x->samples < x->n_rows)
			return "is empty or ends before it starts";
		if (x->first_row != row || x->n_rows > s->sec[I_R_ROWS].n - row)
			return "does not own the next rows";
		row += x->n_rows;
		if (i && (x->kind < y->kind ||
			  (x->kind == y->kind && x->proj < y->proj) ||
			  (x->kind == y->kind && x->proj == y->proj &&
			   (x->recording < y->recording ||
			    (x->recording == y->recording &&
			     x->start_ns <= y->end_ns)))))
			return "is not in order, or overlaps the one before";
		sum[x->kind][x->proj] += x->samples;
		if (sum[x->kind][x->proj] < x->samples)
			return "holds more samples than there are";
		if (!c->n[x->kind][x->proj])
			c->first[x->kind][x->proj] = (uint32_t)i;
		c->n[x->kind][x->proj]++;
	}
	if (row != s->sec[I_R_ROWS].n) {
		*at = ix->n ? ix->n - 1 : 0;
		return "leaves rows to no bucket";
	}
	for (k = 0; k < SAMPLE__COUNT; k++) {
		for (p = 0; p < STORE_PROJ__COUNT; p++)
			if (c->n[k][p] && sum[k][p] != kind_n[k]) {
				*at = c->n[k][p] ? c->first[k][p] : 0;
				return "does not hold as many samples as the "
				       "sample index";
			}
	}
	return NULL;
}

/*
 * check_refs() of the whole recordings' buckets (3.1; the time buckets'
 * section checked first): known kinds and projections, in (kind,
 * projection, recording) order, once each, each owning the next run of
 * rows, together all of them; and each the same samples as the time
 * buckets of its kind, projection and recording, from the first one's
 * start to the last one's end: a reader takes one for the other.
 */
const char *store_whole_index_check(struct store *s, uint64_t *at)
{
	const struct section *ix = &s->sec[I_W_BUCKETS];
	const struct store_rollup_bucket *w = (const void *)ix->p;
	const struct store_rollup_bucket *fb =
		(const void *)s->sec[I_R_BUCKETS].p;
	struct rollup_level_cache *c, *fine;
	uint64_t row = 0, i;

	if (!s->rollups)
		s->rollups = xcalloc(1, sizeof(*s->rollups));
	c = &s->rollups->lv[1];
	fine = &s->rollups->lv[0];
	for (i = 0; i < ix->n; i++) {
		const struct store_rollup_bucket *x = &w[i],
						 *y = i ? &w[i - 1] : x;
		uint64_t samples = 0;
		uint32_t f, end, n = 0;
		int64_t start = 0, stop = 0;

		*at = i;
		if (x->kind >= SAMPLE__COUNT ||
		    sample_kind_ht((enum sample_kind)x->kind) ||
		    x->proj >= STORE_PROJ__COUNT || x->reserved)
			return "holds an unknown kind or projection";
		if (x->first_row != row || !x->n_rows ||
		    x->n_rows > s->sec[I_W_ROWS].n - row)
			return "does not own the next rows";
		row += x->n_rows;
		if (i && (x->kind < y->kind ||
			  (x->kind == y->kind && x->proj < y->proj) ||
			  (x->kind == y->kind && x->proj == y->proj &&
			   x->recording <= y->recording)))
			return "is not in order, or repeats the one before";
		/* the time buckets of its recording: a run, found by
		 * binary search (they are in recording order), so that a
		 * store of many recordings is not checked in their square */
		f = fine->first[x->kind][x->proj];
		end = f + fine->n[x->kind][x->proj];
		while (f < end) {
			uint32_t m = f + (end - f) / 2;

			if (fb[m].recording < x->recording)
				f = m + 1;
			else
				end = m;
		}
		end = fine->first[x->kind][x->proj] + fine->n[x->kind][x->proj];
		for (; f < end && fb[f].recording == x->recording; f++) {
			if (!n++)
				start = fb[f].start_ns;
			stop = fb[f].end_ns;
			samples += fb[f].samples;
		}
		if (n < 2 || x->start_ns != start || x->end_ns != stop ||
		    x->samples != samples)
			return "does not hold the samples of its recording's "
			       "time buckets";
		if (!c->n[x->kind][x->proj])
			c->first[x->kind][x->proj] = (uint32_t)i;
		c->n[x->kind][x->proj]++;
	}
	if (row != s->sec[I_W_ROWS].n) {
		*at = ix->n ? ix->n - 1 : 0;
		return "leaves rows to no bucket";
	}
	return NULL;
}

static bool key_less(const struct store_rollup_row *x,
		     const struct store_rollup_row *y)
{
	if (x->node != y->node)
		return x->node < y->node;
	if (x->cls != y->cls)
		return x->cls < y->cls;
	if (x->thread != y->thread)
		return x->thread < y->thread;
	return x->flags < y->flags;
}

/* Bucket bi's rows, checked: NULL, or what is wrong with row *bad. */
static const char *rows_check(struct store *s,
			      const struct store_rollup_bucket *b,
			      const struct store_rollup_row *r, uint32_t *bad)
{
	uint64_t n_nodes = s->sec[I_NODES].n, n_cls = s->sec[I_CLASSES].n;
	uint64_t n_thr = s->sec[I_THREADS].n, sum = 0;
	bool node = b->proj == STORE_PROJ_FULL || b->proj == STORE_PROJ_NODE;
	bool cls = b->proj == STORE_PROJ_FULL || b->proj == STORE_PROJ_CLASS;
	bool thr = b->proj == STORE_PROJ_FULL || b->proj == STORE_PROJ_THREAD;
	uint32_t i;

	for (i = 0; i < b->n_rows; i++) {
		const struct store_rollup_row *x = &r[i];

		*bad = i;
		if ((node ? x->node >= n_nodes : x->node != 0) ||
		    (cls ? x->cls != STORE_NONE && x->cls >= n_cls
			 : x->cls != 0) ||
		    (thr ? x->thread != STORE_NONE && x->thread >= n_thr
			 : x->thread != 0) ||
		    (b->proj == STORE_PROJ_FULL
			     ? x->flags & ~STORE_SAMPLE_TRUNCATED
			     : x->flags != 0))
			return "refers outside its tables";
		if (!x->samples || x->bytes < 0 || x->first_ns > x->last_ns ||
		    x->first_ns < b->start_ns || x->last_ns > b->end_ns)
			return "holds no sample, negative bytes, or times "
			       "outside its bucket";
		if (i && !key_less(&r[i - 1], x))
			return "is not in key order";
		sum += x->samples;
		if (sum < x->samples)
			return "holds more samples than its bucket";
	}
	if (sum != b->samples)
		return "does not add up to its bucket's samples";
	return NULL;
}

static int rows_err(struct store *s, int level, struct err *e, uint64_t bi,
		    const struct store_rollup_bucket *b, uint64_t at,
		    const char *what)
{
	int rows = level_sec[level][1];

	err_set_at(e, ERR_FORMAT,
		   (uint64_t)(s->sec[rows].p - s->map) +
			   at * sizeof(struct store_rollup_row),
		   "store: section '%s'%s bucket %llu (%s, recording %u)%s",
		   store_section_name(rows),
		   what ? "," : " checksum mismatch in", (unsigned long long)bi,
		   sample_kind_name((enum sample_kind)b->kind), b->recording,
		   what ? what : ": the file is damaged");
	err_source(e, s->path);
	return ERR_FAIL;
}

static int group_check(struct store *s, int level, int kind, int proj,
		       struct err *e)
{
	const struct rollup_level_cache *c = &s->rollups->lv[level];
	const struct store_rollup_bucket *b =
		(const void *)s->sec[level_sec[level][0]].p;
	const struct store_rollup_row *rows =
		(const void *)s->sec[level_sec[level][1]].p;
	uint32_t i;

	for (i = c->first[kind][proj];
	     i < c->first[kind][proj] + c->n[kind][proj]; i++) {
		const struct store_rollup_row *r = rows + b[i].first_row;
		const char *why;
		uint32_t bad = 0;

		if (crc32c_update(0, r, b[i].n_rows * sizeof(*r)) != b[i].crc)
			return rows_err(s, level, e, i, &b[i], b[i].first_row,
					NULL);
		why = rows_check(s, &b[i], r, &bad);
		if (why) {
			char msg[128];

			snprintf(msg, sizeof(msg), ", row %u %s", bad, why);
			return rows_err(s, level, e, i, &b[i],
					b[i].first_row + bad, msg);
		}
	}
	return 0;
}

/* The buckets of (kind, proj) at a level, their rows checked on first
 * use: *n 0 where there are none. */
static int level_rollup(struct store *s, int level, int kind, int proj,
			const struct store_rollup_bucket **buckets, uint32_t *n,
			const struct store_rollup_row **rows, struct err *e)
{
	struct rollup_level_cache *c;

	if (kind < 0 || kind >= SAMPLE__COUNT || proj < 0 ||
	    proj >= STORE_PROJ__COUNT)
		BUG("store: rollup of kind %d, projection %d", kind, proj);
	*buckets = NULL;
	*rows = NULL;
	*n = 0;
	if (!s->sec[level_sec[level][0]].present)
		return 0; /* a 2.0 store: no rollups; before 3.1 no whole */
	if (store_section(s, I_NODES, e) < 0 ||
	    store_section(s, I_CLASSES, e) < 0 ||
	    store_section(s, I_THREADS, e) < 0 ||
	    store_section(s, level_sec[level][0], e) < 0)
		return ERR_FAIL;
	if (!s->rollups)
		return 0;
	c = &s->rollups->lv[level];
	if (!c->n[kind][proj])
		return 0;
	if (c->state[kind][proj] == 0) {
		err_init(&c->bad[kind][proj]);
		c->state[kind][proj] = group_check(s, level, kind, proj,
						   &c->bad[kind][proj]) < 0
					       ? -1
					       : 1;
	}
	if (c->state[kind][proj] < 0) {
		*e = c->bad[kind][proj];
		return ERR_FAIL;
	}
	*buckets =
		(const struct store_rollup_bucket *)s->sec[level_sec[level][0]]
			.p +
		c->first[kind][proj];
	*n = c->n[kind][proj];
	*rows = (const struct store_rollup_row *)s->sec[level_sec[level][1]].p;
	return 0;
}

int store_rollup(struct store *s, int kind, int proj,
		 const struct store_rollup_bucket **buckets, uint32_t *n,
		 const struct store_rollup_row **rows, struct err *e)
{
	return level_rollup(s, 0, kind, proj, buckets, n, rows, e);
}

int store_rollup_whole(struct store *s, int kind, int proj,
		       struct store_rollup_whole *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (level_rollup(s, 1, kind, proj, &out->b, &out->n, &out->rows, e) < 0)
		return ERR_FAIL;
	if (!out->n)
		return 0;
	if (s->sec[I_W_SQUARES].present) {
		if (store_section(s, I_W_SQUARES, e) < 0)
			return ERR_FAIL;
		out->sq = (const void *)s->sec[I_W_SQUARES].p;
	}
	if (s->sec[I_W_EST].present) {
		if (store_section(s, I_W_EST, e) < 0)
			return ERR_FAIL;
		out->est = (const void *)s->sec[I_W_EST].p;
	}
	return 0;
}

int store_rollup_squares(struct store *s, const struct store_rollup_sq **sq,
			 struct err *e)
{
	*sq = NULL;
	if (!s->sec[I_R_SQUARES].present || !s->sec[I_R_BUCKETS].present)
		return 0;
	if (store_section(s, I_R_SQUARES, e) < 0)
		return ERR_FAIL;
	*sq = (const struct store_rollup_sq *)s->sec[I_R_SQUARES].p;
	return 0;
}

int store_rollup_est(struct store *s, const struct store_rollup_est **est,
		     struct err *e)
{
	*est = NULL;
	if (!s->sec[I_R_EST].present || !s->sec[I_R_BUCKETS].present)
		return 0;
	if (store_section(s, I_R_EST, e) < 0)
		return ERR_FAIL;
	*est = (const struct store_rollup_est *)s->sec[I_R_EST].p;
	return 0;
}

int store_estimates(struct store *s, const struct store_estimate **out,
		    struct err *e)
{
	*out = NULL;
	if (!s->sec[I_ESTIMATES].present)
		return 0;
	if (store_section(s, I_ESTIMATES, e) < 0)
		return ERR_FAIL;
	*out = (const struct store_estimate *)s->sec[I_ESTIMATES].p;
	return 0;
}

/* --- the corrected estimate, walked again --------------------------------- */

struct est_check {
	uint64_t bad; /* samples whose rest differs, and the first */
	uint32_t first_bad;
};

/* The walk's est_emit_fn: the stored rest rode through it in size, which
 * the walk leaves alone (ObjectAllocationSample has no size). */
static void est_check_one(void *ctx, int kind, const struct block_sample *s)
{
	struct est_check *c = ctx;

	if (kind == SAMPLE_ALLOC && s->rest != s->size && !c->bad++)
		c->first_bad = s->seq;
}

int store_estimates_verify(struct store *s, struct err *e)
{
	const struct store_estimate *est;
	struct est_check c = {0, 0};
	struct est_walk *w;
	struct seq_cursor sc;
	struct store_sample_row x;
	uint32_t n_recs = (uint32_t)s->sec[I_RECORDINGS].n, r;
	int rc;

	if (store_estimates(s, &est, e) < 0)
		return ERR_FAIL;
	if (!est)
		return 0; /* 2.x: nothing to walk */
	if (seq_cursor_init(&sc, s, e) < 0)
		return ERR_FAIL;
	w = est_walk_new(n_recs, (uint32_t)s->sec[I_THREADS].n, est_check_one,
			 &c);
	while ((rc = seq_cursor_next(&sc, &x, e)) > 0) {
		struct block_sample b = {
			x.seq, x.time_ns, x.recording, x.flags, x.thread,
			x.cls, x.node,	  x.bytes,     x.rest,	0};

		est_walk_add(w, x.kind, &b);
	}
	seq_cursor_release(&sc);
	if (rc < 0) {
		est_walk_free(w);
		return ERR_FAIL;
	}
	est_walk_finish(w);
	for (r = 0; r < n_recs && !c.bad; r++) {
		struct store_estimate f;

		est_walk_facts(w, r, &f);
		if (memcmp(&f, &est[r], sizeof(f)))
			c.bad = 1, c.first_bad = UINT32_MAX;
	}
	est_walk_free(w);
	if (!c.bad)
		return 0;
	if (c.first_bad == UINT32_MAX)
		err_set_at(e, ERR_FORMAT,
			   (uint64_t)(s->sec[I_ESTIMATES].p - s->map),
			   "store: section 'estimates' disagrees with the "
			   "samples: the file is damaged");
	else
		err_set(e, ERR_FORMAT,
			"store: section 'sample blocks': %llu samples' rests "
			"disagree with the samples (the first: sample %u): the "
			"file is damaged",
			(unsigned long long)c.bad, c.first_bad);
	err_source(e, s->path);
	return ERR_FAIL;
}

/* --- the rebuild store_verify() compares with ------------------------------ */

struct cmp_rows {
	const unsigned char *p, *end;
	bool same;
};

static void cmp_rows_fn(void *ctx, const void *p, size_t len)
{
	struct cmp_rows *c = ctx;

	if (!c->same || (size_t)(c->end - c->p) < len ||
	    memcmp(c->p, p, len) != 0) {
		c->same = false;
		return;
	}
	c->p += len;
}

/* Whether a level of the rebuilt rollups is what the file holds: its
 * buckets, rows, squares and estimate sums (the last two where the file
 * has them: 2.1 has no squares, 2.2 no estimate sums).  1 the same, 0
 * not, <0 with e set when the rebuild's spill could not be read. */
static int level_same(struct store *s, struct rollup_builder *rb, int level,
		      struct err *e)
{
	static int (*const part[])(struct rollup_builder *, int,
				   rollup_write_fn *, void *, struct err *) = {
		rollup_write_rows, rollup_write_squares, rollup_write_est};
	const struct section *bs = &s->sec[level_sec[level][0]];
	const struct store_rollup_bucket *want;
	struct cmp_rows cr;
	size_t n;
	int i;

	want = rollup_buckets(rb, level, &n);
	if (n != bs->n || (n && memcmp(want, bs->p, n * sizeof(*want))))
		return 0;
	for (i = 0; i < 3; i++) {
		const struct section *ps = &s->sec[level_sec[level][i + 1]];

		if (i && !ps->present)
			continue;
		cr.p = ps->p;
		cr.end = ps->p ? ps->p + ps->len : ps->p; /* none: empty */
		cr.same = true;
		if (part[i](rb, level, cmp_rows_fn, &cr, e) < 0)
			return ERR_FAIL;
		if (!cr.same || cr.p != cr.end)
			return 0;
	}
	return 1;
}

int store_rollups_verify(struct store *s, struct err *e)
{
	const struct section *bs = &s->sec[I_R_BUCKETS];
	const struct store_recording *recs;
	struct rollup_builder *rb;
	uint32_t n_recs;
	uint64_t i;
	int k, p, level, rc;

	if (!bs->present)
		return 0; /* 2.0: nothing to compare */
	if (store_recordings(s, &recs, &n_recs, e) < 0)
		return ERR_FAIL;
	for (k = 0; k < SAMPLE__COUNT; k++)
		for (p = 0; p < STORE_PROJ__COUNT; p++) {
			const struct store_rollup_bucket *b;
			const struct store_rollup_row *r;
			uint32_t nb;

			struct store_rollup_whole w;

			if (store_rollup(s, k, p, &b, &nb, &r, e) < 0 ||
			    store_rollup_whole(s, k, p, &w, e) < 0)
				return ERR_FAIL;
		}
	/* a kind at a time, a block at a time: the builder keeps each
	 * kind's buckets apart, so this order gives the rows interleaving
	 * kinds would, and memory holds one block, not every sample */
	rb = rollup_builder_new(recs, n_recs, -1);
	for (k = 0; k < SAMPLE__COUNT; k++) {
		const struct store_block *blocks;
		uint32_t n_blocks, b;

		if (store_kind_blocks(s, k, &blocks, &n_blocks, e) < 0) {
			rollup_builder_free(rb);
			return ERR_FAIL;
		}
		for (b = 0; b < n_blocks; b++) {
			struct store_samples sm;

			if (store_read_block(s, k, b, &sm, e) < 0) {
				rollup_builder_free(rb);
				return ERR_FAIL;
			}
			for (i = 0; i < sm.n; i++) {
				struct block_sample x = {
					sm.seq[i],
					sm.time_ns[i],
					sm.recording[i],
					sm.flags[i],
					sm.thread[i],
					sm.cls[i],
					sm.node[i],
					sm.bytes[i],
					sm.size ? sm.size[i] : REC_NONE,
					sm.rest ? sm.rest[i] : 0,
				};

				rollup_add(rb, k, &x);
			}
		}
	}
	if (rollup_finish(rb, e) < 0) {
		rollup_builder_free(rb);
		return ERR_FAIL;
	}
	for (level = 0; level < 2; level++) {
		const struct section *lb = &s->sec[level_sec[level][0]];

		if (!lb->present)
			continue; /* before 3.1: no whole recordings' */
		rc = level_same(s, rb, level, e);
		if (rc <= 0) {
			rollup_builder_free(rb);
			if (rc < 0)
				return ERR_FAIL;
			err_set_at(e, ERR_FORMAT, (uint64_t)(lb->p - s->map),
				   "store: section '%s' disagrees with the "
				   "samples: the file is damaged",
				   store_section_name(level_sec[level][0]));
			err_source(e, s->path);
			return ERR_FAIL;
		}
	}
	rollup_builder_free(rb);
	return 0;
}
