/*
 * Estimates at and beyond 2^32 and up to INT64_MAX through the store and
 * the query layer: each weight must come back exact, and a sum past
 * INT64_MAX must be held there (saturated, docs/formats/jfr.md), never
 * wrap to a negative number.  The expected values are the weights written
 * and their sums worked out here with 128-bit arithmetic.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "store/store.h"

#define P32 ((int64_t)1 << 32)

/* class "Big" gets two INT64_MAX weights (the sum overflows), class
 * "Mid" the values around 2^32 and 2^40, whose sum is exact */
static const struct {
	const char *cls;
	int64_t weight;
} rows[] = {
	{"Mid", P32 - 1},  {"Mid", P32},       {"Mid", P32 + 1},
	{"Mid", P32 << 8}, {"Big", INT64_MAX}, {"Big", INT64_MAX},
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static struct store *big_store(const char *dir)
{
	static const struct rec_frame f[] = {
		{"Big", "Big", "make", "()V", 3, 1, "Interpreted", false, 0}};
	static const struct rec_stack st = {1, f, 1, false};
	static const struct rec_thread th = {1, "main", 1, 100, false};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;
	size_t i;

	for (i = 0; i < N_ROWS; i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_ALLOC);
		/* all in one 1 s bucket */
		x.time_ns = 1000000000LL + 1000 * (int64_t)i;
		x.thread = &th;
		x.stack = &st;
		x.class_name = x.class_raw = rows[i].cls;
		x.weight = rows[i].weight;
		sink->ops->sample(sink->ctx, &x);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "big.jfr";
	rec.format = "jfr";
	rec.start_ns = 1000000000LL;
	rec.end_ns = 2000000000LL;
	rec.n_chunks = 1;
	sink->ops->recording(sink->ctx, &rec);
	return test_store_commit(w, dir, "big.hsdb");
}

/* the sum of the weights of class cls (NULL: all), held at INT64_MAX */
static int64_t want_sum(const char *cls)
{
	__int128 sum = 0;
	size_t i;

	for (i = 0; i < N_ROWS; i++)
		if (!cls || !strcmp(rows[i].cls, cls))
			sum += rows[i].weight;
	return sum > INT64_MAX ? INT64_MAX : (int64_t)sum;
}

TEST(query_sums_past_int64_max_saturate_and_smaller_ones_are_exact)
{
	char dir[] = "/tmp/hs-bigsum-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_row *r;
	const struct query_tree_node *nodes;
	const struct query_bucket *b;
	struct query_total t;
	int64_t width = 1000000000LL;
	size_t n, i, seen = 0;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = big_store(dir);
	if (!s)
		return;
	/* the arithmetic of the test itself: Mid is exact, Big overflows */
	CHECK_INT(want_sum("Mid"), ==, 3 * P32 + (P32 << 8));
	CHECK_INT(want_sum("Big"), ==, INT64_MAX);
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);

	CHECK(query_top(q, GROUP_CLASS, &r, &n, &t, &e) == 0);
	CHECK_UINT(t.samples, ==, N_ROWS);
	CHECK_INT(t.est_bytes, ==, want_sum(NULL));
	for (i = 0; i < n; i++) {
		CHECK_INT(r[i].est_bytes, ==, want_sum(r[i].key));
		CHECK(r[i].est_bytes > 0);
		seen++;
	}
	CHECK_UINT(seen, ==, 2);

	CHECK(query_tree(q, false, 0, &nodes, &n, &t, &e) == 0);
	CHECK(n >= 2);
	CHECK_INT(nodes[0].est_bytes, ==, INT64_MAX);
	CHECK_INT(nodes[0].self_bytes, ==, 0);
	if (n >= 2) {
		/* one stack: Big.make:3 holds everything, as its own */
		CHECK_STR(nodes[1].label, "Big.make:3");
		CHECK_INT(nodes[1].est_bytes, ==, INT64_MAX);
		CHECK_INT(nodes[1].self_bytes, ==, INT64_MAX);
	}
	CHECK(query_tree(q, true, 0, &nodes, &n, &t, &e) == 0);
	CHECK_INT(nodes[0].est_bytes, ==, INT64_MAX);

	CHECK(query_timeline(q, &width, &b, &n, &t, &e) == 0);
	CHECK_UINT(n, ==, 1);
	if (n == 1) {
		CHECK_UINT(b[0].samples, ==, N_ROWS);
		CHECK_INT(b[0].est_bytes, ==, INT64_MAX);
	}
	query_free(q);

	/* without the two INT64_MAX weights every sum is exact */
	query_options_init(&o);
	o.class_re = "^Mid$";
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK(query_tree(q, false, 0, &nodes, &n, &t, &e) == 0);
	CHECK_INT(nodes[0].est_bytes, ==, want_sum("Mid"));
	CHECK(query_timeline(q, &width, &b, &n, &t, &e) == 0);
	CHECK_INT(n ? b[0].est_bytes : -1, ==, want_sum("Mid"));
	query_free(q);
	store_close(s);
	test_store_remove(dir, "big.hsdb");
}
