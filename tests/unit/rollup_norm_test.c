/*
 * Rollups built as the samples arrive (store_write_rollup.h, with no recordings yet:
 * each series' width follows its samples' span so far, the rows keyed by
 * the writer's node ids), then put on the recordings' widths and the
 * trie's ids at finish, must be byte for byte those built with the
 * recordings known and the trie's ids from the start: every bucket, row,
 * square and estimate sum, at both levels.  And a sample outside its
 * recording's span, which makes a bucket wider than the recording's, is
 * said (ROLLUP_AGAIN), never rolled up wrong.
 */
#include "test.h"

#include <stdlib.h>

#include "record/record.h"
#include "store/store_write_rollup.h"
#include "util/buf.h"

#define N_NODES 60

static void put(void *ctx, const void *p, size_t len)
{
	buf_add(ctx, p, len);
}

/* Everything rb writes, its buckets and each part's rows, into out. */
static int dump(struct rollup_builder *rb, struct buf *out)
{
	struct err e;
	int level;

	err_init(&e);
	for (level = 0; level < 2; level++) {
		size_t n;
		const struct store_rollup_bucket *b =
			rollup_buckets(rb, level, &n);

		buf_add(out, b, n * sizeof(*b));
		if (rollup_write_rows(rb, level, put, out, &e) < 0 ||
		    rollup_write_squares(rb, level, put, out, &e) < 0 ||
		    rollup_write_est(rb, level, put, out, &e) < 0)
			return -1;
	}
	return 0;
}

struct gen {
	struct block_sample s;
	int kind;
};

static int by_time(const void *a, const void *b)
{
	const struct gen *x = a, *y = b;

	return x->s.time_ns < y->s.time_ns ? -1 : x->s.time_ns > y->s.time_ns;
}

/* n samples of the recordings recs[0..3), in time order, keys drawn
 * from few values so that rows merge; seqs in order. */
static struct gen *samples(const struct store_recording *recs, size_t n,
			   uint64_t *rnd)
{
	struct gen *g = calloc(n, sizeof(*g));
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t r = test_rand(rnd) % 100 == 0 ? 2
			     : test_rand(rnd) % 3      ? 0
						       : 1;
		int64_t span = recs[r].end_ns - recs[r].start_ns;
		struct block_sample *s = &g[i].s;
		static const int kinds[] = {SAMPLE_ALLOC, SAMPLE_TLAB_NEW,
					    SAMPLE_TLAB_OUTSIDE,
					    SAMPLE_OLD_OBJECT};

		g[i].kind = kinds[test_rand(rnd) % 4];
		s->recording = r;
		/* a few samples right at the ends */
		s->time_ns = recs[r].start_ns +
			     (i % 97 == 0   ? 0
			      : i % 89 == 0 ? span
					    : (int64_t)(test_rand(rnd) %
							(uint64_t)(span + 1)));
		/* mostly a few keys, so that a bucket's rows are fewer than
		 * half its samples (else the projection is left out) */
		s->node = (uint32_t)(test_rand(rnd) %
				     (test_rand(rnd) % 10 ? 4 : N_NODES));
		s->cls = (uint32_t)(test_rand(rnd) % 2);
		s->thread = (uint32_t)(test_rand(rnd) % 2);
		s->flags = (uint8_t)(test_rand(rnd) % 8 == 0);
		s->bytes = (int64_t)(test_rand(rnd) % 100000);
		s->size = s->bytes;
		s->rest = s->bytes - (int64_t)(test_rand(rnd) % 1000);
	}
	qsort(g, n, sizeof(*g), by_time);
	for (i = 0; i < n; i++)
		g[i].s.seq = (uint32_t)i;
	return g;
}

TEST(rollup_rows_built_as_samples_come_are_the_recordings_own)
{
	/* 300 s (1 s buckets), 5 s (10 ms) and 100 s (100 ms) from an odd
	 * start: the first grows its width from 1 ms to 1 s as its samples
	 * come; the last has few samples, so that a bucket of the
	 * recording's may hold one narrower bucket alone */
	static const int64_t t0 = 1700000000123456789ll;
	const struct store_recording recs[3] = {
		{.start_ns = t0, .end_ns = t0 + 300000000000ll},
		{.start_ns = t0 + 100000000000ll,
		 .end_ns = t0 + 105000000000ll},
		{.start_ns = t0 + 50000000000ll, .end_ns = t0 + 150000000000ll},
	};
	uint32_t perm[N_NODES], i;
	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	size_t n = 120000, j;
	struct gen *g = samples(recs, n, &rnd);
	struct rollup_builder *known = rollup_builder_new(recs, 3, -1);
	struct rollup_builder *come = rollup_builder_new(NULL, 0, -1);
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct err e;

	/* the writer's id i is the trie's perm[i] */
	for (i = 0; i < N_NODES; i++)
		perm[i] = i;
	for (i = N_NODES - 1; i > 0; i--) {
		uint32_t k = (uint32_t)(test_rand(&rnd) % (i + 1)), t = perm[i];

		perm[i] = perm[k];
		perm[k] = t;
	}
	for (j = 0; j < n; j++) {
		struct block_sample s = g[j].s;

		rollup_add(come, g[j].kind, &s);
		s.node = perm[s.node];
		rollup_add(known, g[j].kind, &s);
	}
	rollup_builder_set_recordings(come, recs, 3);
	rollup_builder_set_node_map(come, perm, N_NODES);
	err_init(&e);
	CHECK_INT(rollup_finish(known, &e), ==, 0);
	CHECK_INT(rollup_finish(come, &e), ==, 0);
	CHECK_INT(dump(known, &a), ==, 0);
	CHECK_INT(dump(come, &b), ==, 0);
	CHECK_UINT(a.len, >, 1000);
	CHECK_UINT(b.len, ==, a.len);
	CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	{
		/* the recordings' own widths: 1 s and 10 ms buckets */
		size_t nb;
		const struct store_rollup_bucket *bk =
			rollup_buckets(come, 0, &nb);
		size_t wide = 0, narrow = 0;

		for (j = 0; j < nb; j++) {
			int64_t w = bk[j].end_ns - bk[j].start_ns + 1;

			CHECK_INT(w, ==,
				  bk[j].recording == 2	 ? 100000000ll
				  : bk[j].recording == 1 ? 10000000ll
							 : 1000000000ll);
			if (bk[j].recording == 1)
				narrow++;
			else if (!bk[j].recording)
				wide++;
		}
		CHECK_UINT(wide, >, 300);
		CHECK_UINT(narrow, >, 100);
	}
	buf_release(&a);
	buf_release(&b);
	rollup_builder_free(known);
	rollup_builder_free(come);
	free(g);
}

TEST(rollup_rows_wider_than_their_recordings_are_built_again)
{
	/* a sample 1000 s before its recording's start (a damaged file):
	 * the span so far widens the buckets past the recording's 10 ms */
	static const int64_t t0 = 1700000000000000000ll;
	const struct store_recording rec = {.start_ns = t0,
					    .end_ns = t0 + 5000000000ll};
	struct rollup_builder *come = rollup_builder_new(NULL, 0, -1);
	struct block_sample s;
	struct err e;
	int k;

	memset(&s, 0, sizeof(s));
	for (k = 0; k < 3; k++) {
		s.seq = (uint32_t)k;
		s.time_ns = k ? t0 + k * 1000000ll : t0 - 1000000000000ll;
		s.bytes = 100;
		rollup_add(come, SAMPLE_TLAB_NEW, &s);
	}
	rollup_builder_set_recordings(come, &rec, 1);
	err_init(&e);
	CHECK_INT(rollup_finish(come, &e), ==, ROLLUP_AGAIN);
	rollup_builder_free(come);
}
