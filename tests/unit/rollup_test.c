/*
 * Rollups (docs/formats/store.md, 2.1): the builder's buckets hold
 * every sample once, and views over time ranges whose ends fall on a
 * bucket's edge, 1 ns before or after it, inside one bucket, or nowhere
 * (empty ranges) give what a brute-force pass over the samples gives;
 * the whole recording's rows (3.1) hold its samples by key, and a pass
 * reads them in place of the buckets exactly when its window holds
 * them all.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "query/query_int.h"
#include "store/store_write_rollup.h"
#include "store/store.h"

#define N     6000
#define W     10000000ll /* the bucket width of a 10 s recording */
#define T0    1700000000000000000ll
#define N_THR 3
#define N_STK 4

static int64_t t_of[N], b_of[N];
static int th_of[N], st_of[N];

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	return test_rand(&rng);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Samples on bucket edges, 1 ns either side, and anywhere. */
static struct store *make(char *dir)
{
	static const struct rec_frame f[N_STK][1] = {
		{{"A", "A", "a", "()V", 1, 1, "Interpreted", false, 0}},
		{{"B", "B", "b", "()V", 2, 1, "Interpreted", false, 0}},
		{{"C", "C", "c", "()V", 3, 1, "Interpreted", false, 0}},
		{{"D", "D", "d", "()V", 4, 1, "Interpreted", false, 0}}};
	static const struct rec_stack stacks[N_STK] = {{1, f[0], 1, false},
						       {2, f[1], 1, false},
						       {3, f[2], 1, false},
						       {4, f[3], 1, false}};
	static const struct rec_thread thr[N_THR] = {{1, "t0", 1, 1, false},
						     {2, "t1", 2, 2, false},
						     {3, "t2", 3, 3, false}};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	int i;

	for (i = 0; i < N; i++) {
		int64_t edge = T0 + (int64_t)(next() % 50) * W;

		switch (next() % 4) {
		case 0:
			t_of[i] = edge;
			break;
		case 1:
			t_of[i] = edge - 1;
			break;
		case 2:
			t_of[i] = edge + 1;
			break;
		default:
			t_of[i] = edge + (int64_t)(next() % W);
		}
	}
	qsort(t_of, N, sizeof(t_of[0]), cmp64);
	for (i = 0; i < N; i++) {
		struct rec_sample x;

		th_of[i] = (int)(next() % N_THR);
		st_of[i] = (int)(next() % N_STK);
		b_of[i] = 1 + (int64_t)(next() % 100000);
		rec_sample_init(&x, SAMPLE_ALLOC);
		x.time_ns = t_of[i];
		x.thread = &thr[th_of[i]];
		x.stack = &stacks[st_of[i]];
		x.class_name = x.class_raw = "byte[]";
		x.weight = b_of[i];
		sink->ops->sample(sink->ctx, &x);
	}
	return test_recording_commit(w, T0, T0 + 1000 * W - 1, dir, "r.hsdb");
}

TEST(rollup_width_ladder)
{
	CHECK_INT(rollup_width(0, 1000000000ll), ==, 1000000ll);
	CHECK_INT(rollup_width(0, 10000000000ll - 1), ==, 10000000ll);
	CHECK_INT(rollup_width(0, 10240000000ll), ==, 100000000ll);
	CHECK_INT(rollup_width(INT64_MIN, 5), ==, 1000000000ll);
	CHECK_INT(rollup_width(0, INT64_MAX), ==, 86400000000000ll);
}

TEST(rollup_buckets_hold_every_sample_once)
{
	char dir[] = "/tmp/hs-rollup-XXXXXX";
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *r;
	struct store *s;
	struct err e;
	uint32_t n, i, j;
	int p;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	err_init(&e);
	for (p = 0; p < STORE_PROJ__COUNT; p++) {
		uint64_t total = 0;

		CHECK_INT(store_rollup(s, SAMPLE_ALLOC, p, &b, &n, &r, &e), ==,
			  0);
		CHECK(n > 0 && n <= 51);
		for (i = 0; i < n; i++) {
			uint64_t want = 0, got = 0;
			int64_t want_bytes = 0, got_bytes = 0;
			int k;

			CHECK_INT(b[i].end_ns - b[i].start_ns, ==, W - 1);
			CHECK_INT((b[i].start_ns - T0) % W, ==, 0);
			for (k = 0; k < N; k++)
				if (t_of[k] >= b[i].start_ns &&
				    t_of[k] <= b[i].end_ns) {
					want++;
					want_bytes += b_of[k];
				}
			for (j = 0; j < b[i].n_rows; j++) {
				got += r[b[i].first_row + j].samples;
				got_bytes += r[b[i].first_row + j].bytes;
			}
			CHECK_UINT(got, ==, want);
			CHECK_INT(got_bytes, ==, want_bytes);
			total += got;
		}
		CHECK_UINT(total, ==, N);
	}
	CHECK_INT(store_verify(s, &e), ==, 0);
	store_close(s);
	test_store_remove(dir, "r.hsdb");
}

/* top by thread and the timeline over [from, to), against the samples */
static void check_range(struct store *s, int64_t from, int64_t to,
			int64_t bucket)
{
	struct query_options o;
	struct query *q;
	const struct query_row *rows;
	const struct query_bucket *bk;
	const struct query_tree_node *nodes;
	struct query_total tot;
	struct err e;
	size_t n_rows, n_b, n_nodes, i;
	uint64_t want_n = 0, th_n[N_THR] = {0};
	int64_t want_b = 0, first = INT64_MAX, last = INT64_MIN, w = bucket;
	int k;

	for (k = 0; k < N; k++)
		if (t_of[k] >= from && t_of[k] < to) {
			want_n++;
			want_b += b_of[k];
			th_n[th_of[k]]++;
			if (t_of[k] < first)
				first = t_of[k];
			if (t_of[k] > last)
				last = t_of[k];
		}
	query_options_init(&o);
	o.from_ns = from;
	o.to_ns = to;
	err_init(&e);
	CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	if (!q)
		return;
	CHECK_INT(query_top(q, GROUP_THREAD, &rows, &n_rows, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	CHECK_INT(tot.est_bytes, ==, want_b);
	if (want_n) {
		CHECK_INT(tot.first_ns, ==, first);
		CHECK_INT(tot.last_ns, ==, last);
	}
	for (i = 0; i < n_rows; i++)
		CHECK_UINT(rows[i].samples, ==, th_n[rows[i].key[1] - '0']);
	CHECK_INT(query_tree(q, false, 0, &nodes, &n_nodes, &tot, &e), ==, 0);
	CHECK_UINT(nodes[0].samples, ==, want_n);
	CHECK_INT(nodes[0].est_bytes, ==, want_b);
	CHECK_INT(query_timeline(q, &w, &bk, &n_b, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	for (i = 0; i < n_b; i++) {
		uint64_t in = 0;

		for (k = 0; k < N; k++)
			if (t_of[k] >= from && t_of[k] < to &&
			    t_of[k] >= bk[i].start_ns &&
			    t_of[k] - bk[i].start_ns < w)
				in++;
		CHECK_UINT(bk[i].samples, ==, in);
	}
	query_free(q);
}

TEST(rollup_ranges_at_bucket_edges_match_the_samples)
{
	char dir[] = "/tmp/hs-rollup-XXXXXX";
	struct store *s;
	int64_t e0 = T0 + 37 * W;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	check_range(s, INT64_MIN, INT64_MAX, 0);
	check_range(s, e0, e0 + 10 * W, 0);	     /* on edges */
	check_range(s, e0 - 1, e0 + 100 * W - 1, 0); /* 1 ns before */
	check_range(s, e0 + 1, e0 + 100 * W + 1, 0); /* 1 ns after */
	check_range(s, e0 + 3, e0 + W - 5, 0);	     /* inside one */
	check_range(s, e0, e0 + W, 0);		     /* one bucket */
	check_range(s, e0, e0, 0);		     /* empty */
	check_range(s, e0 + 5, e0 + 1, 0);	     /* empty */
	check_range(s, e0, e0 + 1, 0);		     /* one ns */
	check_range(s, INT64_MIN, e0, 0);
	check_range(s, e0 - 1, INT64_MAX, 0);
	/* an end on a bucket's last nanosecond, which the range leaves out
	 * (--to is exclusive): that bucket is not whole */
	for (int k = 1; k <= 12; k++)
		check_range(s, e0 - 37 * W, e0 + k * W - 1, 0);
	/* timelines finer than the rollups, aligned and not */
	check_range(s, INT64_MIN, INT64_MAX, 1000000);
	check_range(s, INT64_MIN, INT64_MAX, 3 * W + 7);
	check_range(s, e0 + 17, e0 + 200 * W, W / 2);
	store_close(s);
	test_store_remove(dir, "r.hsdb");
}

/* The PASS_ROWS batches and rows a pass over [from, to) grouping by
 * thread hands out. */
static void pass_rows(struct store *s, int64_t from, int64_t to,
		      uint32_t *batches, uint64_t *rows)
{
	struct query_options o;
	struct query *q;
	struct query_pass p;
	struct err e;
	int rc;

	*batches = 0;
	*rows = 0;
	query_options_init(&o);
	o.from_ns = from;
	o.to_ns = to;
	o.estimate = QUERY_EST_JFR;
	err_init(&e);
	CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	if (!q)
		return;
	CHECK_INT(query_pass_init(q, &p, PASS_NEED_THREAD, 0, 0, &e), ==, 0);
	while ((rc = query_pass_next(q, &p, &e)) > 0)
		if (rc == PASS_ROWS) {
			(*batches)++;
			*rows += p.n_rows;
		}
	CHECK_INT(rc, ==, PASS_END);
	query_pass_release(&p);
	query_free(q);
}

TEST(rollup_whole_recording_rows_stand_for_its_buckets)
{
	char dir[] = "/tmp/hs-rollup-XXXXXX";
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *r;
	struct store_rollup_whole w;
	const struct store_thread *thr;
	struct store *s;
	struct err e;
	uint32_t n, i, batches, n_thr;
	uint64_t rows, th_n[N_THR] = {0};
	int64_t th_b[N_THR] = {0}, th_first[N_THR], th_last[N_THR];
	int k, p;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	err_init(&e);
	for (k = 0; k < N_THR; k++) {
		th_first[k] = INT64_MAX;
		th_last[k] = INT64_MIN;
	}
	for (k = 0; k < N; k++) {
		th_n[th_of[k]]++;
		th_b[th_of[k]] += b_of[k];
		if (t_of[k] < th_first[th_of[k]])
			th_first[th_of[k]] = t_of[k];
		if (t_of[k] > th_last[th_of[k]])
			th_last[th_of[k]] = t_of[k];
	}
	for (p = 0; p < STORE_PROJ__COUNT; p++) {
		uint64_t got = 0;

		CHECK_INT(store_rollup(s, SAMPLE_ALLOC, p, &b, &n, &r, &e), ==,
			  0);
		CHECK_INT(store_rollup_whole(s, SAMPLE_ALLOC, p, &w, &e), ==,
			  0);
		CHECK_UINT(w.n, ==, 1); /* one recording */
		if (w.n != 1 || !n)
			continue;
		CHECK_INT(w.b[0].start_ns, ==, b[0].start_ns);
		CHECK_INT(w.b[0].end_ns, ==, b[n - 1].end_ns);
		CHECK_UINT(w.b[0].samples, ==, N);
		CHECK(w.sq != NULL && w.est != NULL);
		/* 3 threads, 4 stacks: a row per key */
		CHECK_UINT(w.b[0].n_rows, <=, N_THR * N_STK);
		for (i = 0; i < w.b[0].n_rows; i++)
			got += w.rows[w.b[0].first_row + i].samples;
		CHECK_UINT(got, ==, N);
		if (p != STORE_PROJ_THREAD)
			continue;
		/* by thread, against the samples the test made */
		CHECK_UINT(w.b[0].n_rows, ==, N_THR);
		CHECK_INT(store_threads(s, &thr, &n_thr, &e), ==, 0);
		for (i = 0; i < w.b[0].n_rows; i++) {
			const struct store_rollup_row *x =
				&w.rows[w.b[0].first_row + i];
			unsigned __int128 sq = 0;
			int t;

			/* the test's thread of the row: by its name, "tN" */
			CHECK(x->thread < n_thr);
			if (x->thread >= n_thr)
				continue;
			t = store_str(s, thr[x->thread].name)[1] - '0';
			CHECK(t >= 0 && t < N_THR);
			if (t < 0 || t >= N_THR)
				continue;
			CHECK_UINT(x->samples, ==, th_n[t]);
			CHECK_INT(x->bytes, ==, th_b[t]);
			CHECK_INT(x->first_ns, ==, th_first[t]);
			CHECK_INT(x->last_ns, ==, th_last[t]);
			for (k = 0; k < N; k++)
				if (th_of[k] == t)
					sq += (unsigned __int128)(uint64_t)
						      b_of[k] *
					      (uint64_t)b_of[k];
			CHECK(w.sq[w.b[0].first_row + i].lo == (uint64_t)sq &&
			      w.sq[w.b[0].first_row + i].hi ==
				      (uint64_t)(sq >> 64));
		}
	}
	/* the whole span: one batch, the whole rows */
	CHECK_INT(
		store_rollup_whole(s, SAMPLE_ALLOC, STORE_PROJ_THREAD, &w, &e),
		==, 0);
	pass_rows(s, INT64_MIN, INT64_MAX, &batches, &rows);
	CHECK_UINT(batches, ==, 1);
	CHECK_UINT(rows, ==, w.n ? w.b[0].n_rows : 0);
	/* a window that holds every bucket to the last nanosecond, and one
	 * that leaves out the first bucket's first or the last's last */
	if (w.n) {
		pass_rows(s, w.b[0].start_ns, w.b[0].end_ns + 1, &batches,
			  &rows);
		CHECK_UINT(batches, ==, 1);
		pass_rows(s, w.b[0].start_ns + 1, INT64_MAX, &batches, &rows);
		CHECK_UINT(batches, >, 1);
		pass_rows(s, INT64_MIN, w.b[0].end_ns, &batches, &rows);
		CHECK_UINT(batches, >, 1);
		/* and what they add up to, against the samples */
		check_range(s, w.b[0].start_ns, w.b[0].end_ns + 1, 0);
		check_range(s, t_of[0] + 1, INT64_MAX, 0);
		check_range(s, INT64_MIN, t_of[N - 1], 0);
	}
	store_close(s);
	test_store_remove(dir, "r.hsdb");
}

/*
 * The corrected estimate at a window's two edges in one block: its pass
 * reads the block once for the first edge and replaces the samples'
 * bytes and kinds with its copies, which it fills for that edge only;
 * the second edge read those copies, stale or never written.  The
 * ObjectAllocationSample events are all in the recording's first
 * second, so that in a later window the corrected view's bytes are the
 * OutsideTLAB events' own, summed here from the table.
 */
#define CO_N 12000
#define CO_A 400

static int64_t co_t[CO_N], co_b[CO_N];

static struct store *corrected_make(char *dir)
{
	static const struct rec_frame f[1] = {
		{"A", "A", "a", "()V", 1, 1, "Interpreted", false, 0}};
	static const struct rec_stack st = {1, f, 1, false};
	static const struct rec_thread thr = {1, "t0", 1, 1, false};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	int i;

	for (i = 0; i < CO_N; i++) {
		struct rec_sample x;

		/* ObjectAllocationSample every 2.5 ms of the first second,
		 * then OutsideTLAB events about every 0.75 ms to 10 s */
		rec_sample_init(&x,
				i < CO_A ? SAMPLE_ALLOC : SAMPLE_TLAB_OUTSIDE);
		co_t[i] = i < CO_A ? T0 + (int64_t)i * 2500000
				   : T0 + 1000000000ll +
					     (int64_t)(i - CO_A) * 775000 +
					     (int64_t)(next() % 1000);
		co_b[i] = 16 + (int64_t)(next() % 100000);
		x.time_ns = co_t[i];
		x.thread = &thr;
		x.stack = &st;
		x.class_name = x.class_raw = "byte[]";
		if (i < CO_A)
			x.weight = co_b[i] * 4;
		else
			x.alloc_size = co_b[i];
		sink->ops->sample(sink->ctx, &x);
	}
	return test_recording_commit(w, T0, T0 + 1000 * W - 1, dir, "c.hsdb");
}

TEST(corrected_estimate_two_edges_in_one_block)
{
	char dir[] = "/tmp/hs-rollup-XXXXXX";
	struct store *s;
	int k;

	CHECK(mkdtemp(dir) != NULL);
	s = corrected_make(dir);
	if (!s)
		return;
	/* windows of 3 to 15 ms from 2 s on: each cuts one or two 10 ms
	 * buckets and holds a whole one or none; 4096 events to a block
	 * span 3 s */
	for (k = 0; k < 40; k++) {
		int64_t from = T0 + 2000000000ll + (int64_t)k * 173000000 +
			       (int64_t)(k * 7919 % 10) * 1000000 + 123;
		int64_t to = from + 3000000 + (int64_t)(k % 5) * 3000000;
		struct query_options o;
		struct query *q = NULL;
		const struct query_row *rows;
		struct query_total tot;
		struct err e;
		uint64_t want_n = 0;
		int64_t want_b = 0;
		size_t n;
		int i;

		for (i = CO_A; i < CO_N; i++)
			if (co_t[i] >= from && co_t[i] < to) {
				want_n++;
				want_b += co_b[i];
			}
		query_options_init(&o);
		o.kind = SAMPLE_ALLOC;
		o.estimate = QUERY_EST_CORRECTED;
		o.from_ns = from;
		o.to_ns = to;
		err_init(&e);
		CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
		if (!q)
			continue;
		CHECK_INT(query_estimate(q), ==, QUERY_EST_CORRECTED);
		CHECK_INT(query_top(q, GROUP_THREAD, &rows, &n, &tot, &e), ==,
			  0);
		CHECK_UINT(tot.samples, ==, want_n);
		CHECK_INT(tot.est_bytes, ==, want_b);
		query_free(q);
	}
	store_close(s);
	test_store_remove(dir, "c.hsdb");
}
