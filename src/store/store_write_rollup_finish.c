/*
 * The rollup builder's finish (store_write_rollup.h: rollup_finish and
 * what follows it): once the samples end, the open buckets closed, the
 * rows built as the samples came put on the recordings' widths and the
 * trie's nodes (normalize), the projections too sparse to pay left out,
 * the whole recordings' rows made (build_whole), and every bucket's rows,
 * squares and estimate sums read back from the spill and written out.
 * It works on rows, never on samples, once per store: apart from the
 * builder (store_write_rollup.c), whose per-sample path it leaves alone,
 * and with which it shares store_write_rollup_int.h.
 */
#include "store/store_write_rollup_int.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "util/xalloc.h"

static int bucket_cmp(const void *a, const void *b)
{
	const struct store_rollup_bucket *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->proj != y->proj)
		return x->proj < y->proj ? -1 : 1;
	if (x->recording != y->recording)
		return x->recording < y->recording ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* n rows from the spill's row at: in memory, or read into *buf. */
static const struct brow *spilled_rows(struct rollup_builder *rb, uint64_t at,
				       uint32_t n, struct brow **buf,
				       uint32_t *alloc)
{
	size_t len = (size_t)n * sizeof(**buf), done = 0;

	if (!rb->in_file)
		return rb->mem + at;
	if (n > *alloc) {
		*alloc = n;
		*buf = xreallocarray(*buf, n, sizeof(**buf));
	}
	while (done < len) {
		ssize_t got = pread(rb->fd, (char *)*buf + done, len - done,
				    (off_t)(at * sizeof(**buf) + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rb->failed = true;
			rb->err_no = got < 0 ? errno : EIO;
			return NULL;
		}
		done += (size_t)got;
	}
	return *buf;
}

/* Bucket b's rows added into pr, their nodes through map (NULL: as
 * they are); false when they could not be read back. */
static bool merge_rows(struct rollup_builder *rb, struct proj_rows *pr,
		       const struct store_rollup_bucket *b, const uint32_t *map,
		       uint32_t n_map, struct brow **buf, uint32_t *alloc)
{
	const struct brow *r =
		spilled_rows(rb, b->first_row, b->n_rows, buf, alloc);
	uint32_t k;

	if (!r)
		return false;
	for (k = 0; k < b->n_rows; k++) {
		struct est_add ea = {r[k].est_a, r[k].est_sq,
				     b->kind == SAMPLE_TLAB_OUTSIDE};
		struct store_rollup_row key = r[k].r;

		if (map && key.node < n_map)
			key.node = map[key.node];
		rollup_proj_add(pr, &key, key.samples, key.bytes, r[k].sq, &ea,
				key.first_ns, key.last_ns);
	}
	return true;
}

/* pr's rows, sorted and checksummed, spilled as the bucket *b (whose
 * kind, projection, recording, times and samples the caller set); pr
 * emptied for the next. */
static void spill_merged(struct rollup_builder *rb, struct proj_rows *pr,
			 struct store_rollup_bucket *b)
{
	uint32_t k;

	qsort(pr->rows, pr->n, sizeof(*pr->rows), rollup_key_cmp);
	b->first_row = rb->n_rows;
	b->n_rows = pr->n;
	b->crc = 0;
	for (k = 0; k < pr->n; k++)
		b->crc = crc32c_update(b->crc, &pr->rows[k].r,
				       sizeof(pr->rows[k].r));
	rollup_spill_rows(rb, pr->rows, pr->n);
	pr->n = 0;
	if (pr->slots)
		memset(pr->slots, 0, ((size_t)pr->mask + 1) * sizeof(uint32_t));
}

/*
 * The whole recordings' rollups (3.1): the rows of each kind, projection
 * and recording merged over its buckets, which a window holding the
 * whole recording reads instead of a row per key and bucket (on the
 * synthetic store of store_bench, 3.38 M rows of the node projection
 * against 667,000).  Rows of every bucket are sums and extremes that do
 * not depend on order (proj_add), so a view that adds up the whole
 * recording's row gets what it got from the buckets' rows.  A recording
 * with one bucket, or whose rows would merge to more than half of them,
 * gets none: readers take the buckets.  The memory is one recording's
 * distinct keys under one projection at a time; the rows go to the
 * spill after the buckets'.
 */
static void build_whole(struct rollup_builder *rb)
{
	struct proj_rows pr;
	struct brow *buf = NULL;
	uint32_t alloc = 0;
	size_t i = 0, j, n_fine = rb->n_b;

	memset(&pr, 0, sizeof(pr));
	while (i < n_fine && !rb->failed) {
		const struct store_rollup_bucket g = rb->b[i];
		uint64_t fine_rows = 0, samples = 0;

		for (j = i; j < n_fine && rb->b[j].kind == g.kind &&
			    rb->b[j].proj == g.proj &&
			    rb->b[j].recording == g.recording;
		     j++) {
			if (!merge_rows(rb, &pr, &rb->b[j], NULL, 0, &buf,
					&alloc))
				break;
			fine_rows += rb->b[j].n_rows;
			samples += rb->b[j].samples;
		}
		if (j - i > 1 && (uint64_t)pr.n * 2 <= fine_rows &&
		    !rb->failed) {
			struct store_rollup_bucket *w;

			if (rb->n_wb == rb->alloc_wb) {
				rb->alloc_wb =
					rb->alloc_wb ? rb->alloc_wb * 2 : 64;
				rb->wb = xreallocarray(rb->wb, rb->alloc_wb,
						       sizeof(*rb->wb));
			}
			w = &rb->wb[rb->n_wb++];
			memset(w, 0, sizeof(*w));
			w->kind = g.kind;
			w->proj = g.proj;
			w->recording = g.recording;
			w->start_ns = g.start_ns;
			w->end_ns = rb->b[j - 1].end_ns;
			w->samples = samples;
			spill_merged(rb, &pr, w);
		}
		pr.n = 0;
		if (pr.slots)
			memset(pr.slots, 0,
			       ((size_t)pr.mask + 1) * sizeof(uint32_t));
		i = j;
	}
	free(pr.rows);
	free(pr.slots);
	free(buf);
	if (rb->in_file)
		rollup_spill_flush(rb);
}

/* The bucket of width w that holds t, as rollup_add() opens it. */
static void bucket_of(int64_t t, int64_t w, int64_t *start, int64_t *end)
{
	int64_t m = t % w;

	if (m < 0)
		m += w;
	if (__builtin_sub_overflow(t, m, start))
		*start = INT64_MIN;
	if (__builtin_add_overflow(*start, w - 1, end))
		*end = INT64_MAX;
}

static int bucket_key_cmp(const void *a, const void *b)
{
	const struct store_rollup_bucket *x = a, *y = b;
	int c = x->kind != y->kind   ? (x->kind < y->kind ? -1 : 1)
		: x->proj != y->proj ? (x->proj < y->proj ? -1 : 1)
		: x->recording != y->recording
			? (x->recording < y->recording ? -1 : 1)
			: 0;

	if (c)
		return c;
	/* buckets of one cell may overlap (widths grew as samples came):
	 * by start, then by end, so that the order is a total one */
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/*
 * Rows built before the recordings were known (as_they_come) or keyed
 * by the writer's node ids (a node map): each kind, projection and
 * recording's buckets are put on the recording's own width, the rows of
 * the buckets that fall in one of its buckets merged by key (sums and
 * extremes, which do not depend on order: the rows are those the samples
 * would have made there), their nodes mapped.  A bucket that is already
 * one of the recording's, whose rows need no map, stays as it is.
 * 1 when a bucket is wider than its recording's (a sample outside the
 * recording's span widened it): the rows cannot be split, and the
 * caller builds them again from the samples.
 */
static int normalize(struct rollup_builder *rb)
{
	struct store_rollup_bucket *nb = NULL;
	size_t n_nb = 0, alloc_nb = 0, i = 0, j, n = rb->n_b;
	struct proj_rows pr;
	struct brow *buf = NULL;
	uint32_t alloc = 0;
	int rc = 0;

	if (!rb->as_they_come && !rb->node_map)
		return 0;
	if (n > 1)
		qsort(rb->b, n, sizeof(*rb->b), bucket_key_cmp);
	memset(&pr, 0, sizeof(pr));
	while (i < n && !rb->failed && !rc) {
		const struct store_rollup_bucket g = rb->b[i];
		int64_t w =
			g.recording < rb->n_recs
				? rollup_width(rb->recs[g.recording].start_ns,
					       rb->recs[g.recording].end_ns)
				: 1000000000ll;
		int64_t start, end;
		bool map = rb->node_map && (g.proj == STORE_PROJ_FULL ||
					    g.proj == STORE_PROJ_NODE);
		uint64_t samples = 0;

		bucket_of(g.start_ns, w, &start, &end);
		for (j = i; j < n && rb->b[j].kind == g.kind &&
			    rb->b[j].proj == g.proj &&
			    rb->b[j].recording == g.recording &&
			    rb->b[j].start_ns <= end;
		     j++)
			if (rb->b[j].end_ns > end) {
				rc = 1;
				break;
			}
		if (rc)
			break;
		if (n_nb == alloc_nb) {
			alloc_nb = alloc_nb ? alloc_nb * 2 : 256;
			nb = xreallocarray(nb, alloc_nb, sizeof(*nb));
		}
		if (j == i + 1 && g.start_ns == start && g.end_ns == end &&
		    !map) {
			nb[n_nb++] = g;
			i = j;
			continue;
		}
		for (; i < j; i++) {
			if (!merge_rows(rb, &pr, &rb->b[i],
					map ? rb->node_map : NULL, rb->n_map,
					&buf, &alloc))
				break;
			samples += rb->b[i].samples;
		}
		if (rb->failed)
			break;
		{
			struct store_rollup_bucket *b = &nb[n_nb++];

			memset(b, 0, sizeof(*b));
			b->kind = g.kind;
			b->proj = g.proj;
			b->recording = g.recording;
			b->start_ns = start;
			b->end_ns = end;
			b->samples = samples;
			spill_merged(rb, &pr, b);
		}
	}
	free(pr.rows);
	free(pr.slots);
	free(buf);
	if (rc || rb->failed) {
		free(nb);
		return rc;
	}
	free(rb->b);
	rb->b = nb;
	rb->n_b = n_nb;
	rb->alloc_b = alloc_nb;
	return 0;
}

int rollup_finish(struct rollup_builder *rb, struct err *e)
{
	size_t i, n = 0;
	uint64_t row = 0;
	int k;
	uint32_t r;

	for (k = 0; k < SAMPLE__COUNT; k++)
		for (r = 0; r < rb->n_s[k]; r++)
			if (rb->s[k][r] && rb->s[k][r]->open)
				rollup_close_bucket(rb, rb->s[k][r], k, r);
	if (rb->in_file)
		rollup_spill_flush(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: writing the rollups: %s",
			       strerror(rb->err_no));
	if (normalize(rb) > 0)
		return ROLLUP_AGAIN;
	if (rb->in_file)
		rollup_spill_flush(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: writing the rollups: %s",
			       strerror(rb->err_no));
	/* a projection with more rows than half its samples (keys that
	 * hardly repeat, as in a synthetic store of random ones) would
	 * make the store bigger for little gain: left out, its views read
	 * the samples or another projection */
	{
		uint64_t rows[SAMPLE__COUNT][STORE_PROJ__COUNT] = {{0}};
		uint64_t smp[SAMPLE__COUNT][STORE_PROJ__COUNT] = {{0}};

		for (i = 0; i < rb->n_b; i++) {
			rows[rb->b[i].kind][rb->b[i].proj] += rb->b[i].n_rows;
			smp[rb->b[i].kind][rb->b[i].proj] += rb->b[i].samples;
		}
		for (i = 0; i < rb->n_b; i++) {
			const struct store_rollup_bucket *x = &rb->b[i];

			if (!rb->negative[x->kind] &&
			    rows[x->kind][x->proj] * 2 <= smp[x->kind][x->proj])
				rb->b[n++] = *x;
		}
	}
	rb->n_b = n;
	if (n > 1)
		qsort(rb->b, n, sizeof(*rb->b), bucket_cmp);
	build_whole(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: the rollups' spill file: %s",
			       strerror(rb->err_no));
	rb->spill_row = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		rb->spill_row[i] = rb->b[i].first_row;
		rb->b[i].first_row = row;
		row += rb->b[i].n_rows;
	}
	rb->w_spill_row = xmalloc((rb->n_wb ? rb->n_wb : 1) * sizeof(uint64_t));
	for (i = 0, row = 0; i < rb->n_wb; i++) {
		rb->w_spill_row[i] = rb->wb[i].first_row;
		rb->wb[i].first_row = row;
		row += rb->wb[i].n_rows;
	}
	return 0;
}

const struct store_rollup_bucket *
rollup_buckets(const struct rollup_builder *rb, int level, size_t *n)
{
	*n = level ? rb->n_wb : rb->n_b;
	return level ? rb->wb : rb->b;
}

enum part { PART_ROWS, PART_SQUARES, PART_EST };

static size_t part_len(enum part what)
{
	switch (what) {
	case PART_SQUARES:
		return sizeof(struct store_rollup_sq);
	case PART_EST:
		return sizeof(struct store_rollup_est);
	default:
		return sizeof(struct store_rollup_row);
	}
}

/* Each bucket's rows, their squares or their estimate sums, in the
 * buckets' order, a bucket at a time. */
static int write_part(struct rollup_builder *rb, int level, enum part what,
		      rollup_write_fn *fn, void *ctx, struct err *e)
{
	const struct store_rollup_bucket *b = level ? rb->wb : rb->b;
	const uint64_t *spill_row = level ? rb->w_spill_row : rb->spill_row;
	size_t n_b = level ? rb->n_wb : rb->n_b;
	struct brow *buf = NULL;
	unsigned char *part = NULL;
	uint32_t buf_alloc = 0;
	size_t alloc = 0, i;

	for (i = 0; i < n_b; i++) {
		const struct brow *from;
		uint32_t j;

		if (b[i].n_rows > alloc) {
			alloc = b[i].n_rows;
			part = xreallocarray(part, alloc,
					     sizeof(struct store_rollup_row));
			static_assert(sizeof(struct store_rollup_row) >=
					      sizeof(struct store_rollup_est),
				      "a part's record fits a row's room");
		}
		from = spilled_rows(rb, spill_row[i], b[i].n_rows, &buf,
				    &buf_alloc);
		if (!from) {
			free(buf);
			free(part);
			return err_set(e, ERR_IO,
				       "store: reading the rollups back: %s",
				       strerror(rb->err_no));
		}
		for (j = 0; j < b[i].n_rows; j++) {
			if (what == PART_SQUARES) {
				struct store_rollup_sq q = {
					(uint64_t)from[j].sq,
					(uint64_t)(from[j].sq >> 64)};

				memcpy(part + (size_t)j * sizeof(q), &q,
				       sizeof(q));
			} else if (what == PART_EST) {
				struct store_rollup_est q = {
					from[j].est_a, (uint64_t)from[j].est_sq,
					(uint64_t)(from[j].est_sq >> 64)};

				memcpy(part + (size_t)j * sizeof(q), &q,
				       sizeof(q));
			} else {
				memcpy(part + (size_t)j * sizeof(from[j].r),
				       &from[j].r, sizeof(from[j].r));
			}
		}
		fn(ctx, part, (size_t)b[i].n_rows * part_len(what));
	}
	free(buf);
	free(part);
	return 0;
}

int rollup_write_rows(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		      void *ctx, struct err *e)
{
	return write_part(rb, level, PART_ROWS, fn, ctx, e);
}

int rollup_write_squares(struct rollup_builder *rb, int level,
			 rollup_write_fn *fn, void *ctx, struct err *e)
{
	return write_part(rb, level, PART_SQUARES, fn, ctx, e);
}

int rollup_write_est(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		     void *ctx, struct err *e)
{
	return write_part(rb, level, PART_EST, fn, ctx, e);
}
