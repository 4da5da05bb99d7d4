/*
 * The query layer's additions for the browser: the drill-down key filter
 * (query_options.key), query_recordings() and the trees made as they are
 * opened (query_tree_lazy).  A small store is written
 * with the store writer, every sample chosen so that each expected sum
 * can be worked out by hand from the table below.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "query/query_int.h"
#include "store/store.h"
#include "util/rx.h"

/*
 *   #  time  recording  thread  stack                        class   bytes
 *   1  1000  0 a.jfr    main    Foo.alloc:10 < Main.run:5     byte[]    100
 *   2  2000  0 a.jfr    worker  Foo.alloc:10 < Other.call:7   byte[]    200
 *   3  3000  0 a.jfr    main    Bar.make:20 < Main.run:5      String    400
 *   4  4000  0 a.jfr    worker  Foo.alloc:10 (another overload of
 *                               alloc, the same line) < Main.run:5
 *                                                             String    800
 *   5  5000  1 b.jfr    (none)  (none)                        (none)   1600
 */
static struct store *make_store(char *dir)
{
	static const struct rec_frame s1[] = {
		{"Foo", "Foo", "alloc", "()V", 10, 1, "Interpreted", false, 0},
		{"Main", "Main", "run", "()V", 5, 1, "Interpreted", false, 0}};
	static const struct rec_frame s2[] = {
		{"Foo", "Foo", "alloc", "()V", 10, 1, "Interpreted", false, 0},
		{"Other", "Other", "call", "()V", 7, 1, "Interpreted", false,
		 0}};
	static const struct rec_frame s3[] = {
		{"Bar", "Bar", "make", "()V", 20, 1, "Interpreted", false, 0},
		{"Main", "Main", "run", "()V", 5, 1, "Interpreted", false, 0}};
	static const struct rec_frame s4[] = {
		{"Foo", "Foo", "alloc", "(I)V", 10, 1, "Interpreted", false, 0},
		{"Main", "Main", "run", "()V", 5, 1, "Interpreted", false, 0}};
	static const struct rec_stack stacks[] = {{1, s1, 2, false},
						  {2, s2, 2, false},
						  {3, s3, 2, false},
						  {4, s4, 2, false}};
	static const struct rec_thread threads[] = {
		{1, "main", 1, 100, false}, {2, "worker", 2, 101, false}};
	static const struct {
		int thread, stack;
		const char *cls;
		int64_t bytes;
	} rows[] = {{0, 0, "byte[]", 100},
		    {1, 1, "byte[]", 200},
		    {0, 2, "java.lang.String", 400},
		    {1, 3, "java.lang.String", 800},
		    {-1, -1, NULL, 1600}};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;
	struct store *s = NULL;
	size_t i;

	for (i = 0; i < 5; i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_ALLOC);
		x.time_ns = 1000 * (int64_t)(i + 1);
		x.thread = rows[i].thread < 0 ? NULL : &threads[rows[i].thread];
		x.stack = rows[i].stack < 0 ? NULL : &stacks[rows[i].stack];
		x.class_name = x.class_raw = rows[i].cls;
		x.weight = rows[i].bytes;
		sink->ops->sample(sink->ctx, &x);
		if (i == 3 || i == 4) {
			memset(&rec, 0, sizeof(rec));
			rec.source = i == 3 ? "a.jfr" : "b.jfr";
			rec.format = "jfr";
			rec.start_ns = i == 3 ? 500 : 4500;
			rec.end_ns = i == 3 ? 4500 : 5500;
			rec.n_chunks = 1;
			rec.bytes_skipped = i == 3 ? 0 : 77;
			sink->ops->recording(sink->ctx, &rec);
		}
	}
	s = test_store_commit(w, dir, "q.hsdb");
	return s;
}

/* samples and bytes of the samples whose key under by is key */
static void keyed(struct store *s, enum query_group by, const char *key,
		  int64_t from, uint64_t *samples, int64_t *bytes)
{
	struct query_options o;
	struct query *q;
	const struct query_row *rows;
	struct query_total t;
	size_t n;
	struct err e;

	query_options_init(&o);
	o.key = key;
	o.key_by = (int)by;
	o.from_ns = from;
	err_init(&e);
	*samples = 0;
	*bytes = -1;
	if (query_open(s, &o, &q, &e) < 0) {
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
		return;
	}
	if (query_top(q, GROUP_THREAD, &rows, &n, &t, &e) == 0) {
		*samples = t.samples;
		*bytes = t.est_bytes;
	}
	query_free(q);
}

TEST(query_key_filter_drills_into_one_row)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	uint64_t n;
	int64_t b;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	/* both overloads of Foo.alloc print as one site, and both count */
	keyed(s, GROUP_SITE, "Foo.alloc:10", INT64_MIN, &n, &b);
	CHECK_UINT(n, ==, 3);
	CHECK_INT(b, ==, 100 + 200 + 800);
	keyed(s, GROUP_SITE, "Foo.alloc:10", 1500, &n, &b);
	CHECK_UINT(n, ==, 2);
	CHECK_INT(b, ==, 200 + 800);
	keyed(s, GROUP_SITE, "(no stack)", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 1600);
	keyed(s, GROUP_APP_SITE, "Bar.make:20", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 400);
	keyed(s, GROUP_CLASS, "java.lang.String", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 400 + 800);
	keyed(s, GROUP_CLASS, "(unknown class)", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 1600);
	keyed(s, GROUP_THREAD, "main", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 100 + 400);
	keyed(s, GROUP_THREAD, "(no thread)", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 1600);
	keyed(s, GROUP_RECORDING, "0: a.jfr", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 100 + 200 + 400 + 800);
	keyed(s, GROUP_RECORDING, "1: b.jfr", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 1600);
	keyed(s, GROUP_CLASS, "no such class", INT64_MIN, &n, &b);
	CHECK_UINT(n, ==, 0);
	CHECK_INT(b, ==, 0);
	/* a regex character in a key is just a character */
	keyed(s, GROUP_CLASS, "byte.]", INT64_MIN, &n, &b);
	CHECK_UINT(n, ==, 0);
	keyed(s, GROUP_CLASS, "byte[]", INT64_MIN, &n, &b);
	CHECK_INT(b, ==, 300);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

TEST(query_key_filter_applies_to_trees)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_tree_node *nodes;
	struct query_total t;
	size_t n;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	o.key = "main";
	o.key_by = GROUP_THREAD;
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK(query_tree(q, false, 0, &nodes, &n, &t, &e) == 0);
	CHECK_UINT(nodes[0].samples, ==, 2);
	CHECK_INT(nodes[0].est_bytes, ==, 500);
	/* one outermost caller, Main.run:5, for both of main's samples */
	CHECK(nodes[0].first_child != QUERY_TREE_NONE);
	CHECK_STR(nodes[nodes[0].first_child].label, "Main.run:5");
	CHECK_UINT(nodes[nodes[0].first_child].samples, ==, 2);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* The bytes of node c's children, heaviest first, into b[]; how many. */
static size_t kid_bytes(const struct query_tree_node *nodes, uint32_t c,
			int64_t *b, size_t max)
{
	size_t n = 0;

	for (c = nodes[c].first_child; c != QUERY_TREE_NONE && n < max;
	     c = nodes[c].next_sibling)
		b[n++] = nodes[c].est_bytes;
	return n;
}

TEST(query_tree_both_kept_labels_by_site)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_tree_node *call, *inv, *again;
	const char *const *labels;
	struct query_total t;
	size_t n_call, n_inv, n_labels, k;
	uint32_t run;
	int64_t b[4];
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK(query_tree(q, false, 0, &call, &n_call, &t, &e) == 0);
	CHECK(query_tree(q, true, 0, &inv, &n_inv, &t, &e) == 0);
	/* the call tree outlives the inverted one's build: both are kept */
	CHECK(query_tree(q, false, 0, &again, &n_call, &t, &e) == 0);
	CHECK(again == call);
	CHECK_UINT(t.samples, ==, 5);
	CHECK_INT(t.est_bytes, ==, 100 + 200 + 400 + 800 + 1600);
	CHECK_STR(call[0].label, "all");
	CHECK_UINT(call[0].site, ==, QUERY_TREE_NONE);
	CHECK_INT(call[0].self_bytes, ==, 1600);
	/* every node's site names its label */
	n_labels = query_tree_labels(q, &labels);
	for (k = 1; k < n_call; k++) {
		CHECK_UINT(call[k].site, <, n_labels);
		CHECK_STR(labels[call[k].site], call[k].label);
	}
	for (k = 1; k < n_inv; k++)
		CHECK_STR(labels[inv[k].site], inv[k].label);
	/* all > Main.run:5 (stacks 1, 3, 4) and Other.call:7 (stack 2) */
	CHECK_UINT(kid_bytes(call, 0, b, 4), ==, 2);
	CHECK_INT(b[0], ==, 100 + 400 + 800);
	CHECK_INT(b[1], ==, 200);
	run = call[0].first_child;
	CHECK_STR(call[run].label, "Main.run:5");
	/* below it Foo.alloc:10, both overloads as one site (a site is
	 * named by its text, heapsift(1)), stacks 1 and 4; Bar.make:20 */
	CHECK_UINT(kid_bytes(call, run, b, 4), ==, 2);
	CHECK_INT(b[0], ==, 100 + 800);
	CHECK_INT(b[1], ==, 400);
	CHECK_STR(call[call[run].first_child].label, "Foo.alloc:10");
	/* inverted: Foo.alloc:10 (stacks 1, 2, 4), Bar.make:20 */
	CHECK_UINT(kid_bytes(inv, 0, b, 4), ==, 2);
	CHECK_INT(b[0], ==, 100 + 200 + 800);
	CHECK_INT(b[1], ==, 400);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

TEST(query_recordings_facts_and_counts)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_recording *r;
	size_t n;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	o.from_ns = 4500; /* filters do not change the counts */
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	query_recordings(q, &r, &n);
	CHECK_UINT(n, ==, 2);
	CHECK_STR(r[0].source, "a.jfr");
	CHECK_STR(r[0].format, "jfr");
	CHECK_STR(r[0].jvm_name, "");
	CHECK_INT(r[0].start_ns, ==, 500);
	CHECK_INT(r[0].end_ns, ==, 4500);
	CHECK_UINT(r[0].samples[SAMPLE_ALLOC], ==, 4);
	CHECK_UINT(r[0].samples[SAMPLE_TLAB_NEW], ==, 0);
	CHECK_UINT(r[0].bytes_skipped, ==, 0);
	CHECK_STR(r[1].source, "b.jfr");
	CHECK_UINT(r[1].samples[SAMPLE_ALLOC], ==, 1);
	CHECK_UINT(r[1].bytes_skipped, ==, 77);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* The timeline's buckets over the store above with options o: each
 * bucket's covered time and rate-worthy facts against want[] (start,
 * covered, samples), worked out by hand from the table; and
 * query_covered()'s total, first and end. */
static void check_cover(struct store *s, const struct query_options *o,
			int64_t width, const int64_t (*want)[3], size_t n_want,
			int64_t total, int64_t from, int64_t to)
{
	const struct query_bucket *bk;
	struct query_total t;
	struct query *q;
	struct err e;
	int64_t w = width, f, e_ns;
	size_t n, i;

	err_init(&e);
	if (query_open(s, o, &q, &e) < 0) {
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
		return;
	}
	CHECK_INT(query_covered(q, &f, &e_ns), ==, total);
	CHECK_INT(f, ==, from);
	CHECK_INT(e_ns, ==, to);
	CHECK_INT(query_timeline(q, &w, &bk, &n, &t, &e), ==, 0);
	CHECK_UINT(n, ==, n_want);
	for (i = 0; i < n && i < n_want; i++) {
		CHECK_INT(bk[i].start_ns, ==, want[i][0]);
		CHECK_INT(bk[i].covered_ns, ==, want[i][1]);
		CHECK_UINT(bk[i].samples, ==, (uint64_t)want[i][2]);
	}
	query_free(q);
}

TEST(query_timeline_rates_are_over_the_time_covered)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	/* a.jfr covers [500, 4500), b.jfr [4500, 5500): buckets of 2000
	 * from 0; the first starts before a.jfr, the last ends after b.jfr */
	static const int64_t all[][3] = {
		{0, 1500, 1}, {2000, 2000, 2}, {4000, 1500, 2}};
	/* the window [1500, 5200) cuts both ends */
	static const int64_t win[][3] = {
		{0, 500, 0}, {2000, 2000, 2}, {4000, 1200, 2}};
	/* recording 1 alone: [4500, 5500) */
	static const int64_t rec1[][3] = {{4000, 1000, 1}};
	/* buckets of 1000: the last holds b.jfr's end, 500 of it */
	static const int64_t fine[][3] = {{0, 500, 0},	   {1000, 1000, 1},
					  {2000, 1000, 1}, {3000, 1000, 1},
					  {4000, 1000, 1}, {5000, 500, 1}};

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	check_cover(s, &o, 2000, all, 3, 5000, 500, 5500);
	check_cover(s, &o, 1000, fine, 6, 5000, 500, 5500);
	o.from_ns = 1500;
	o.to_ns = 5200;
	check_cover(s, &o, 2000, win, 3, 3700, 1500, 5200);
	query_options_init(&o);
	o.recording = 1;
	check_cover(s, &o, 2000, rec1, 1, 1000, 4500, 5500);
	/* a kind no recording holds: nothing covered, no bucket */
	query_options_init(&o);
	o.kind = SAMPLE_TLAB_NEW;
	check_cover(s, &o, 2000, NULL, 0, 0, 0, 0);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

TEST(query_paths_merge_stacks_with_the_same_sites)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_path *p;
	const char *f[4];
	struct query_total t;
	size_t n, all;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK(query_paths(q, 10, &p, &n, &all, &t, &e) == 0);
	CHECK_UINT(n, ==, 4);
	CHECK_UINT(all, ==, 4);
	CHECK_UINT(t.samples, ==, 5);
	/* (no stack) 1600; both overloads of Foo.alloc:10 from Main.run:5,
	 * 100 + 800; Bar.make:20 400; Foo.alloc:10 from Other.call:7 200 */
	CHECK_INT(p[0].est_bytes, ==, 1600);
	CHECK_UINT(query_path_frames(q, p[0].stack, f, 4), ==, 0);
	CHECK_INT(p[1].est_bytes, ==, 900);
	CHECK_UINT(p[1].samples, ==, 2);
	CHECK_UINT(query_path_frames(q, p[1].stack, f, 4), ==, 2);
	CHECK_STR(f[0], "Foo.alloc:10");
	CHECK_STR(f[1], "Main.run:5");
	CHECK_INT(p[2].est_bytes, ==, 400);
	CHECK_UINT(query_path_frames(q, p[2].stack, f, 1), ==, 2);
	CHECK_STR(f[0], "Bar.make:20");
	CHECK_INT(p[3].est_bytes, ==, 200);
	CHECK_UINT(query_path_frames(q, p[3].stack, f, 4), ==, 2);
	CHECK_STR(f[1], "Other.call:7");
	/* at most max; all still counts every path */
	CHECK(query_paths(q, 2, &p, &n, &all, &t, &e) == 0);
	CHECK_UINT(n, ==, 2);
	CHECK_UINT(all, ==, 4);
	query_free(q);
	/* under a drill-down key: only main's paths */
	o.key = "main";
	o.key_by = GROUP_THREAD;
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK(query_paths(q, 10, &p, &n, &all, &t, &e) == 0);
	CHECK_UINT(n, ==, 2);
	CHECK_INT(p[0].est_bytes, ==, 400);
	CHECK_INT(p[1].est_bytes, ==, 100);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* The child of node p labelled label in a tree made as it is opened,
 * QUERY_TREE_NONE when there is none. */
static uint32_t lazy_kid(const struct query_tree_node *nodes, uint32_t p,
			 const char *label)
{
	uint32_t c;

	for (c = nodes[p].first_child;
	     c != QUERY_TREE_NONE && c != QUERY_TREE_LATER;
	     c = nodes[c].next_sibling)
		if (!strcmp(nodes[c].label, label))
			return c;
	return QUERY_TREE_NONE;
}

TEST(query_tree_lazy_call_tree_made_as_opened)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_tree_node *nodes;
	struct query_total t;
	size_t n, n_all;
	uint32_t run, other, foo, bar;
	int64_t b[4];
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK_INT(query_tree_lazy(q, false, &nodes, &n, &n_all, &t, &e), ==, 0);
	/* all, Main.run:5 > {Foo.alloc:10 (both overloads), Bar.make:20},
	 * Other.call:7 > Foo.alloc:10: six nodes, only the root made */
	CHECK_UINT(n_all, ==, 6);
	CHECK_UINT(n, ==, 1);
	CHECK_UINT(nodes[0].samples, ==, 5);
	CHECK_INT(nodes[0].est_bytes, ==, 3100);
	CHECK_UINT(nodes[0].self_samples, ==, 1);
	CHECK_INT(nodes[0].self_bytes, ==, 1600);
	CHECK_UINT(nodes[0].first_child, ==, QUERY_TREE_LATER);
	query_tree_children(q, false, 0, &nodes, &n);
	CHECK_UINT(n, ==, 3);
	/* heaviest first: Main.run:5 (100 + 400 + 800), Other.call:7 */
	CHECK_UINT(kid_bytes(nodes, 0, b, 4), ==, 2);
	CHECK_INT(b[0], ==, 1300);
	CHECK_INT(b[1], ==, 200);
	run = nodes[0].first_child;
	other = nodes[run].next_sibling;
	CHECK_STR(nodes[run].label, "Main.run:5");
	CHECK_UINT(nodes[run].samples, ==, 3);
	CHECK_UINT(nodes[run].self_samples, ==, 0);
	CHECK_UINT(nodes[run].depth, ==, 1);
	CHECK_UINT(nodes[run].parent, ==, 0);
	CHECK_UINT(nodes[run].first_child, ==, QUERY_TREE_LATER);
	CHECK_STR(nodes[other].label, "Other.call:7");
	CHECK_UINT(nodes[other].first_child, ==, QUERY_TREE_LATER);
	/* opening a node makes its children only */
	query_tree_children(q, false, run, &nodes, &n);
	CHECK_UINT(n, ==, 5);
	CHECK_UINT(nodes[other].first_child, ==, QUERY_TREE_LATER);
	foo = lazy_kid(nodes, run, "Foo.alloc:10");
	bar = lazy_kid(nodes, run, "Bar.make:20");
	CHECK(foo != QUERY_TREE_NONE && bar != QUERY_TREE_NONE);
	if (foo == QUERY_TREE_NONE || bar == QUERY_TREE_NONE)
		goto out;
	CHECK_UINT(nodes[run].first_child, ==, foo);
	CHECK_UINT(nodes[foo].samples, ==, 2);
	CHECK_INT(nodes[foo].est_bytes, ==, 900);
	CHECK_UINT(nodes[foo].self_samples, ==, 2);
	CHECK_INT(nodes[foo].self_bytes, ==, 900);
	CHECK_UINT(nodes[foo].depth, ==, 2);
	CHECK_UINT(nodes[foo].first_child, ==, QUERY_TREE_NONE);
	CHECK_INT(nodes[bar].est_bytes, ==, 400);
	CHECK_UINT(nodes[bar].first_child, ==, QUERY_TREE_NONE);
	/* made again: nothing new */
	query_tree_children(q, false, run, &nodes, &n);
	CHECK_UINT(n, ==, 5);
	query_tree_children(q, false, other, &nodes, &n);
	CHECK_UINT(n, ==, 6);
	foo = lazy_kid(nodes, other, "Foo.alloc:10");
	CHECK(foo != QUERY_TREE_NONE);
	if (foo != QUERY_TREE_NONE)
		CHECK_INT(nodes[foo].est_bytes, ==, 200);
	/* once the whole tree is built, it is what comes back */
	{
		const struct query_tree_node *whole;
		size_t n_whole;

		CHECK(query_tree(q, false, 0, &whole, &n_whole, &t, &e) == 0);
		CHECK_INT(query_tree_lazy(q, false, &nodes, &n, &n_all, &t, &e),
			  ==, 1);
		CHECK(nodes == whole);
		CHECK_UINT(n, ==, 6);
		CHECK_UINT(n_all, ==, 6);
	}
out:
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

TEST(query_tree_lazy_inverted_and_filtered)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_tree_node *nodes;
	struct query_total t;
	size_t n, n_all;
	uint32_t foo, run, other, bar;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK_INT(query_tree_lazy(q, true, &nodes, &n, &n_all, &t, &e), ==, 0);
	/* all, Foo.alloc:10 > {Main.run:5, Other.call:7}, Bar.make:20 >
	 * Main.run:5 */
	CHECK_UINT(n_all, ==, 6);
	CHECK_UINT(nodes[0].samples, ==, 5);
	CHECK_INT(nodes[0].est_bytes, ==, 3100);
	CHECK_INT(nodes[0].self_bytes, ==, 1600);
	query_tree_children(q, true, 0, &nodes, &n);
	CHECK_UINT(n, ==, 3);
	foo = nodes[0].first_child;
	CHECK_STR(nodes[foo].label, "Foo.alloc:10");
	/* stacks 1, 2 and 4 allocate there: all their samples its own */
	CHECK_UINT(nodes[foo].samples, ==, 3);
	CHECK_INT(nodes[foo].est_bytes, ==, 1100);
	CHECK_UINT(nodes[foo].self_samples, ==, 3);
	CHECK_INT(nodes[foo].self_bytes, ==, 1100);
	bar = nodes[foo].next_sibling;
	CHECK_STR(nodes[bar].label, "Bar.make:20");
	CHECK_INT(nodes[bar].est_bytes, ==, 400);
	CHECK_UINT(nodes[bar].next_sibling, ==, QUERY_TREE_NONE);
	query_tree_children(q, true, foo, &nodes, &n);
	CHECK_UINT(n, ==, 5);
	run = lazy_kid(nodes, foo, "Main.run:5");
	other = lazy_kid(nodes, foo, "Other.call:7");
	CHECK(run != QUERY_TREE_NONE && other != QUERY_TREE_NONE);
	if (run != QUERY_TREE_NONE && other != QUERY_TREE_NONE) {
		/* the callers: stacks 1 and 4 through Main.run, 2 through
		 * Other.call; none further out */
		CHECK_UINT(nodes[foo].first_child, ==, run);
		CHECK_UINT(nodes[run].samples, ==, 2);
		CHECK_INT(nodes[run].est_bytes, ==, 900);
		CHECK_UINT(nodes[run].self_samples, ==, 0);
		CHECK_UINT(nodes[run].depth, ==, 2);
		CHECK_UINT(nodes[run].first_child, ==, QUERY_TREE_NONE);
		CHECK_INT(nodes[other].est_bytes, ==, 200);
	}
	query_free(q);

	/* String's samples only (3 and 4): the call tree is all >
	 * Main.run:5 > {Foo.alloc:10, Bar.make:20} */
	o.class_re = "String";
	CHECK(query_open(s, &o, &q, &e) == 0);
	CHECK_INT(query_tree_lazy(q, false, &nodes, &n, &n_all, &t, &e), ==, 0);
	CHECK_UINT(n_all, ==, 4);
	CHECK_UINT(nodes[0].samples, ==, 2);
	CHECK_INT(nodes[0].est_bytes, ==, 1200);
	query_tree_children(q, false, 0, &nodes, &n);
	CHECK_UINT(n, ==, 2);
	run = nodes[0].first_child;
	CHECK_STR(nodes[run].label, "Main.run:5");
	CHECK_UINT(nodes[run].next_sibling, ==, QUERY_TREE_NONE);
	query_tree_children(q, false, run, &nodes, &n);
	CHECK_UINT(n, ==, 4);
	foo = nodes[run].first_child;
	CHECK_STR(nodes[foo].label, "Foo.alloc:10");
	CHECK_INT(nodes[foo].est_bytes, ==, 800);
	CHECK_INT(nodes[nodes[foo].next_sibling].est_bytes, ==, 400);
	/* the inverted tree: Foo.alloc:10 > Main.run:5, Bar.make:20 >
	 * Main.run:5 */
	CHECK_INT(query_tree_lazy(q, true, &nodes, &n, &n_all, &t, &e), ==, 0);
	CHECK_UINT(n_all, ==, 5);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* A stack node of negative weight (a damaged recording's): sums held at
 * the top would depend on their order, so the tree is the whole one. */
TEST(query_tree_lazy_negative_weight_gives_the_whole_tree)
{
	static const struct rec_frame f1[] = {
		{"Foo", "Foo", "alloc", "()V", 10, 1, "Interpreted", false, 0}};
	static const struct rec_frame f2[] = {
		{"Bar", "Bar", "make", "()V", 20, 1, "Interpreted", false, 0}};
	static const struct rec_stack st[] = {{1, f1, 1, false},
					      {2, f2, 1, false}};
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;
	struct store *s;
	struct query_options o;
	struct query *q;
	const struct query_tree_node *nodes;
	struct query_total t;
	size_t n, n_all, i;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < 2; i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_ALLOC);
		x.time_ns = 1000 * (int64_t)(i + 1);
		x.stack = &st[i];
		x.class_name = x.class_raw = "byte[]";
		x.weight = i ? 300 : -100;
		sink->ops->sample(sink->ctx, &x);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "a.jfr";
	rec.format = "jfr";
	rec.start_ns = 500;
	rec.end_ns = 2500;
	rec.n_chunks = 1;
	sink->ops->recording(sink->ctx, &rec);
	s = test_store_commit(w, dir, "q.hsdb");
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK(query_open(s, &o, &q, &e) == 0);
	/* all > {Bar.make:20, Foo.alloc:10}, made at once */
	CHECK_INT(query_tree_lazy(q, false, &nodes, &n, &n_all, &t, &e), ==, 1);
	CHECK_UINT(n, ==, 3);
	CHECK_UINT(n_all, ==, 3);
	CHECK_INT(nodes[0].est_bytes, ==, 200);
	CHECK(nodes[0].first_child != QUERY_TREE_LATER);
	CHECK_INT(query_tree_lazy(q, true, &nodes, &n, &n_all, &t, &e), ==, 1);
	CHECK_UINT(n, ==, 3);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* the tables a query derives from the store alone are made once per
 * store and shared: a query freed leaves the others whole, and a frame
 * filter's verdicts stay the query's own */
TEST(query_site_tables_shared_by_a_stores_queries)
{
	char dir[] = "/tmp/hs-query-XXXXXX";
	struct store *s;
	struct query_options o;
	struct query *a = NULL, *b = NULL, *c = NULL;
	const struct query_row *rows;
	struct query_total t;
	size_t n, i;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	err_init(&e);
	query_options_init(&o);
	CHECK(query_open(s, &o, &a, &e) == 0);
	CHECK(query_open(s, &o, &b, &e) == 0);
	o.include_re = "Other";
	CHECK(query_open(s, &o, &c, &e) == 0);
	if (a && b && c) {
		CHECK(a->node_site == b->node_site);
		CHECK(a->site_names == c->site_names);
		CHECK(a->node_ok == b->node_ok);
		CHECK(c->node_ok != a->node_ok);
		query_free(a);
		a = NULL;
		/* from the table: Foo.alloc:10 3 samples (700 bytes),
		 * Bar.make:20 1 (400), (no stack) 1 (1600) */
		CHECK_INT(query_top(b, GROUP_SITE, &rows, &n, &t, &e), ==, 0);
		CHECK_UINT(n, ==, 3);
		for (i = 0; i < n; i++) {
			if (!strcmp(rows[i].key, "Foo.alloc:10"))
				CHECK_UINT(rows[i].samples, ==, 3);
			else if (!strcmp(rows[i].key, "Bar.make:20"))
				CHECK_UINT(rows[i].samples, ==, 1);
			else
				CHECK_STR(rows[i].key, "(no stack)");
		}
		/* --include Other: sample 2 alone */
		CHECK_INT(query_top(c, GROUP_SITE, &rows, &n, &t, &e), ==, 0);
		CHECK_UINT(t.samples, ==, 1);
		CHECK_INT(t.est_bytes, ==, 200);
	}
	query_free(a);
	query_free(b);
	query_free(c);
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* The samples --class pattern keeps in make_store()'s store (2 of
 * java.lang.String's, 2 of byte[], 1 without a class); -1 when the
 * query does not open, its message in msg. */
static int64_t class_filter_samples(struct store *s, const char *pattern,
				    char *msg, size_t msg_size)
{
	struct query_options o;
	struct query *q;
	const struct query_row *rows;
	struct query_total t;
	size_t n;
	struct err e;
	int64_t kept = -1;

	query_options_init(&o);
	o.class_re = pattern;
	err_init(&e);
	if (query_open(s, &o, &q, &e) < 0) {
		snprintf(msg, msg_size, "%s", e.msg);
		return -1;
	}
	if (query_top(q, GROUP_CLASS, &rows, &n, &t, &e) == 0)
		kept = (int64_t)t.samples;
	query_free(q);
	return kept;
}

/*
 * The CLI's filters and the browser's search and filter are one regex
 * (rx_user): the same answer for the same pattern and name, the same
 * message for one that does not compile.  "(.+)+#|String" on
 * "java.lang.String" backtracks through about 2^16 ways of splitting
 * "java.lang." before "String" matches: more steps than the limit of
 * 100,000 and fewer than 1,000,000, so before, with those two limits,
 * the CLI's --class kept String's samples and the browser's filter hid
 * its row.  Now both stop at the limit: no match.
 */
TEST(cli_and_browser_regexes_agree_at_the_limits)
{
	static const char *const slow[] = {"(.+)+#|String"};
	static struct rx_table unlimited = RX_TABLE(slow);
	char dir[] = "/tmp/hs-query-XXXXXX", msg[ERR_MSG_MAX] = "";
	struct rx_match m;
	struct rx_user *re;
	struct err e;
	struct store *s;
	int64_t kept;
	bool browser;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir);
	if (!s)
		return;
	/* it does match, given PCRE2's own limit of 10,000,000 steps */
	rx_match_init(&m);
	CHECK(rx_match(&unlimited, 0, "java.lang.String", 16, &m));
	rx_match_release(&m);

	re = rx_user_new(slow[0], &e);
	CHECK(re != NULL);
	browser = re && rx_user_match(re, "java.lang.String");
	rx_user_free(re);
	kept = class_filter_samples(s, slow[0], msg, sizeof(msg));
	CHECK_INT(kept, ==, browser ? 2 : 0);
	CHECK(!browser);

	/* a plain pattern: both keep String */
	re = rx_user_new("String$", &e);
	CHECK(re && rx_user_match(re, "java.lang.String"));
	rx_user_free(re);
	CHECK_INT(class_filter_samples(s, "String$", msg, sizeof(msg)), ==, 2);

	/* one wording; the CLI's names the option */
	CHECK(rx_user_new("a(b", &e) == NULL);
	CHECK_INT(e.code, ==, ERR_USAGE);
	CHECK_STR(e.msg, "'a(b' is not a valid regex: missing closing "
			 "parenthesis at offset 3");
	CHECK_INT(class_filter_samples(s, "a(b", msg, sizeof(msg)), ==, -1);
	CHECK_STR(msg, "--class: 'a(b' is not a valid regex: missing closing "
		       "parenthesis at offset 3");
	store_close(s);
	test_store_remove(dir, "q.hsdb");
}

/* One table of round widths for the CLI's timelines and the browser's,
 * each expected width worked out as span / width + 1 against the
 * buckets allowed. */
TEST(round_bucket_widths_are_one_table)
{
	const int64_t s = 1000000000, min = 60 * s, h = 60 * min;

	/* 1 min over 61 buckets: 1 s (61 buckets); over 60: 2 s */
	CHECK_INT(query_round_bucket(min, QUERY_ROUND_BUCKETS), ==, s);
	CHECK_INT(query_round_bucket(min, 60), ==, 2 * s);
	/* 12 h: 10 min would be 73 buckets, 15 min 49; the browser's
	 * table used to go from 10 min to 30 min */
	CHECK_INT(query_round_bucket(12 * h, QUERY_ROUND_BUCKETS), ==,
		  15 * min);
	CHECK_INT(query_round_bucket(12 * h, 67), ==, 15 * min);
	/* 30 days: 6 h would be 121 buckets, 12 h 61 (the day before) */
	CHECK_INT(query_round_bucket(30 * 24 * h, 67), ==, 12 * h);
	/* nothing fits: the widest, a day */
	CHECK_INT(query_round_bucket(400 * 24 * h, 67), ==, 24 * h);
	CHECK_INT(query_round_bucket(0, 0), ==, 24 * h);
	CHECK_INT(query_round_bucket(0, 1), ==, s / 1000);
}
