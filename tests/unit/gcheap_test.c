/*
 * The heap after GC (issue 36, item 2): what the store keeps of each
 * GC (GCIN, store 4.1) and how query_heap_summaries() joins it to the
 * heap summaries, then heap-after-gc-rising on recordings whose every
 * point is set by hand, so that each expected slope is arithmetic:
 *
 * - a sawtooth: young collections whose heap after GC climbs 10 MB a
 *   second between full GCs that leave 50 MB each time: no rising heap
 *   (the rule before took every point and found one);
 * - the same, its full GCs leaving 50, 51, 52... MB (1 MB/s): rising,
 *   at 1 MB/s exactly (Theil-Sen on points on a line);
 * - level full GCs with one failed young collection of 900 MB late:
 *   nothing (the case: its slope came from that one point, the
 *   rule before found it critical);
 * - a recording that says nothing of its GCs: the lower envelope, the
 *   points where the heap fell, which are the full GCs' above;
 * - G1's runs of mixed collections: only the last of a run shows the
 *   live set.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "findings/findings.h"
#include "query/query.h"
#include "store/store.h"

#define SEC 1000000000ll
#define T0  (1700000000ll * SEC)
#define MB  (1024ll * 1024)

struct gc_point {
	int64_t ms;   /* after T0 */
	int64_t used; /* heap after GC, bytes */
	const char *name, *phase;
	bool failed;
};

static const struct rec_frame frame[1] = {
	{"A", "A", "a", "()V", 1, 1, "Interpreted", false, 0}};

/* A recording of one sample and these GCs (info: said of them or not),
 * 40 s long. */
static struct store *make(const char *dir, const struct gc_point *g, size_t n,
			  bool info)
{
	static const struct rec_thread th = {1, "main", 1, 1, false};
	static const struct rec_stack st = {1, frame, 1, false};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;
	struct rec_sample x;
	size_t i;

	rec_sample_init(&x, SAMPLE_ALLOC);
	x.time_ns = T0 + SEC;
	x.thread = &th;
	x.stack = &st;
	x.class_name = "byte[]";
	x.class_raw = "[B";
	x.weight = 1000;
	sink->ops->sample(sink->ctx, &x);
	for (i = 0; i < n; i++) {
		struct rec_heap_summary h = {T0 + g[i].ms * 1000000,
					     (int64_t)i,
					     "After GC",
					     g[i].used,
					     512 * MB,
					     1024 * MB};
		/* the JDK writes a GC's events at its end, name first */
		struct rec_gc_info a = {(int64_t)i, g[i].name, "Test", NULL,
					false},
				   b = {(int64_t)i, NULL, NULL, g[i].phase,
					false},
				   c = {(int64_t)i, NULL, NULL, NULL, true};

		sink->ops->heap_summary(sink->ctx, &h);
		if (!info)
			continue;
		sink->ops->gc_info(sink->ctx, &a);
		if (g[i].phase)
			sink->ops->gc_info(sink->ctx, &b);
		if (g[i].failed)
			sink->ops->gc_info(sink->ctx, &c);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "hand.jfr";
	rec.format = "jfr";
	rec.start_ns = T0;
	rec.end_ns = T0 + 40 * SEC;
	rec.n_chunks = 1;
	rec.n_samples[SAMPLE_ALLOC] = 1;
	sink->ops->recording(sink->ctx, &rec);
	return test_store_commit(w, dir, "s.hsdb");
}

/* A sawtooth over 40 s: a young GC every 250 ms whose heap after GC
 * climbs 2.5 MB each (10 MB/s), a full GC every 4 s that leaves
 * floor(k) MB, k the full GC's number; one young GC at fail_ms (if
 * not 0) that failed and left 900 MB. */
static size_t sawtooth(struct gc_point *g, int64_t (*floor_of)(int),
		       int64_t fail_ms)
{
	size_t n = 0;
	int k, y;

	for (k = 0; k < 10; k++) {
		int64_t base = floor_of(k);

		for (y = 1; y < 16; y++) {
			int64_t ms = k * 4000 + y * 250;

			g[n++] = (struct gc_point){ms, base + y * 5 * MB / 2,
						   "G1New", "Normal",
						   ms == fail_ms};
			if (ms == fail_ms)
				g[n - 1].used = 900 * MB;
		}
		g[n++] = (struct gc_point){k * 4000 + 4000, floor_of(k + 1),
					   "G1Full", NULL, false};
	}
	return n;
}

/* level but for 1 KB a cycle (0.0005% a second), so that its last
 * point is above its first, as in the issue (150.09 MB, 150.13 MB) */
static int64_t level(int k)
{
	return 50 * MB + k * 1024;
}

static int64_t rising(int k)
{
	return 50 * MB + k * 4 * MB; /* 4 MB per 4 s */
}

/* The heap-after-gc-rising findings of s: how many at warning or above,
 * and the first one's slope (facts[0]). */
static size_t rising_findings(struct store *s, double *slope)
{
	struct query_options o;
	struct findings fs;
	struct err e;
	size_t i, n = 0;

	query_options_init(&o);
	err_init(&e);
	memset(&fs, 0, sizeof(fs));
	*slope = -1;
	CHECK_INT(query_findings(s, &o, "s.hsdb", "", &fs, &e), ==, 0);
	for (i = 0; i < fs.n_findings; i++) {
		const struct finding *f = &fs.findings[i];

		if (strcmp(f->rule, "heap-after-gc-rising") != 0 ||
		    f->severity == FINDING_INFO)
			continue;
		if (!n++) {
			size_t k;

			for (k = 0; k < f->n_facts; k++)
				if (!strcmp(f->facts[k].name, "slope"))
					*slope = f->facts[k].value;
		}
	}
	findings_release(&fs);
	return n;
}

TEST(gcheap_facts_join_the_heap_summaries_by_gc_id)
{
	struct gc_point g[4] = {
		{1000, 10 * MB, NULL, NULL, false},
		{2000, 20 * MB, "G1New", "Mixed", true},
		{3000, 30 * MB, "G1Old", NULL, false},
		{4000, 40 * MB, "ParallelOld", NULL, false},
	};
	char dir[] = "/tmp/hs-gcheap-XXXXXX";
	struct query_heap_point *p;
	struct query_options o;
	struct query *q;
	struct store *s;
	struct err e;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir, g, 4, true);
	if (!s)
		return;
	query_options_init(&o);
	err_init(&e);
	CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	CHECK_INT(query_heap_summaries(q, 0, "After GC", &p, &n, &e), ==, 0);
	CHECK_UINT(n, ==, 4);
	if (n == 4) {
		/* GC 0: only a cause was said, no collector */
		CHECK_INT(p[0].kind, ==, QUERY_GC_UNKNOWN);
		CHECK_STR(p[0].cause, "Test");
		CHECK_INT(p[1].kind, ==, QUERY_GC_MIXED);
		CHECK(p[1].failed);
		CHECK_STR(p[1].name, "G1New");
		CHECK_STR(p[1].cause, "Test");
		CHECK_INT(p[2].kind, ==, QUERY_GC_CYCLE_END);
		CHECK(!p[2].failed);
		CHECK_INT(p[3].kind, ==, QUERY_GC_FULL);
		CHECK_INT(p[3].gc_id, ==, 3);
	}
	free(p);
	query_free(q);
	store_close(s);
	test_store_remove(dir, "s.hsdb");
	CHECK_INT(query_gc_kind_of("ParallelScavenge", NULL), ==,
		  QUERY_GC_YOUNG);
	CHECK_INT(query_gc_kind_of("G1New", "Concurrent Start"), ==,
		  QUERY_GC_YOUNG);
	CHECK_INT(query_gc_kind_of("G1Full", NULL), ==, QUERY_GC_FULL);
	CHECK_INT(query_gc_kind_of("Z", NULL), ==, QUERY_GC_WHOLE);
	CHECK_INT(query_gc_kind_of("SomeFutureGC", NULL), ==, QUERY_GC_UNKNOWN);
}

TEST(gcheap_sawtooth_is_no_rising_heap_and_a_rising_floor_is)
{
	static struct gc_point g[200];
	char dir[] = "/tmp/hs-gcheap-XXXXXX";
	struct store *s;
	double slope;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	/* level floors: every young GC climbs, the live set does not */
	n = sawtooth(g, level, 0);
	if ((s = make(dir, g, n, true))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 0);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
		CHECK_INT(mkdir(dir, 0700), ==, 0);
	}
	/* rising floors, 1 MB/s: Theil-Sen on points on a line */
	n = sawtooth(g, rising, 0);
	if ((s = make(dir, g, n, true))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 1);
		CHECK(slope > 0.999 * MB && slope < 1.001 * MB);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
		CHECK_INT(mkdir(dir, 0700), ==, 0);
	}
	/* level floors, one failed young collection of 900 MB at 37.25 s */
	n = sawtooth(g, level, 37250);
	if ((s = make(dir, g, n, true))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 0);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
		CHECK_INT(mkdir(dir, 0700), ==, 0);
	}
	/* nothing said of the GCs: the lower envelope (the points where
	 * the heap fell) is the full GCs', level, then rising */
	n = sawtooth(g, level, 0);
	if ((s = make(dir, g, n, false))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 0);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
		CHECK_INT(mkdir(dir, 0700), ==, 0);
	}
	n = sawtooth(g, rising, 0);
	if ((s = make(dir, g, n, false))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 1);
		CHECK(slope > 0.999 * MB && slope < 1.001 * MB);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
		CHECK_INT(mkdir(dir, 0700), ==, 0);
	}
	rmdir(dir);
}

/*
 * G1 without full GCs or cycle ends: each 4 s, young collections, then a
 * run of mixed collections whose first three leave 400 MB (old regions
 * still to collect: garbage) and whose last leaves 50 MB + 8 MB a cycle.
 * Only the last of a run shows the live set, which rises 2 MB/s exactly
 * (8 MB per 4 s, points on a line); read from every mixed collection,
 * the 400 MB points would hide the rise.
 */
TEST(gcheap_g1_only_the_last_mixed_collection_shows_the_live_set)
{
	static struct gc_point g[200];
	char dir[] = "/tmp/hs-gcheap-XXXXXX";
	struct store *s;
	double slope;
	size_t n = 0;
	int k, y;

	for (k = 0; k < 10; k++) {
		int64_t base = 50 * MB + k * 8 * MB;

		for (y = 1; y <= 12; y++)
			g[n++] = (struct gc_point){k * 4000 + y * 250,
						   base + y * 5 * MB / 2,
						   "G1New", "Normal", false};
		for (y = 13; y <= 15; y++)
			g[n++] = (struct gc_point){k * 4000 + y * 250, 400 * MB,
						   "G1New", "Mixed", false};
		g[n++] = (struct gc_point){k * 4000 + 4000,
					   50 * MB + (k + 1) * 8 * MB, "G1New",
					   "Mixed", false};
	}
	CHECK(mkdtemp(dir) != NULL);
	if ((s = make(dir, g, n, true))) {
		CHECK_UINT(rising_findings(s, &slope), ==, 1);
		CHECK(slope > 1.999 * MB && slope < 2.001 * MB);
		store_close(s);
		test_store_remove(dir, "s.hsdb");
	}
	rmdir(dir);
}
