/*
 * query_survivors() and query_leak_suspects() against lives chosen so
 * that every expected value is worked out by hand from the definitions
 * in docs/heapsift.1: live at t when born at or before t and dead after
 * it (or alive at the end, until then); cohorts by age and by the GCs
 * that ended after the birth; the leak-suspect rule and its ranking
 * (suspects first, steepest slope first).  tests/cli/survivors_truth.sh
 * checks the same definitions end to end on an agent recording.
 *
 * Times are seconds after T0 (a whole second), points are 1 s apart at
 * T0 + 1 s, ..., T0 + 20 s (the store's recording ends at T0 + 20 s).
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "findings/findings.h"
#include "query/query.h"
#include "store/store.h"

#define SEC 1000000000ll
#define T0  (1700000000ll * SEC)
#define MS  (SEC / 1000)

struct life {
	int site;		   /* index into site_frames */
	int64_t born_ms, death_ms; /* after T0; death_ms < 0: alive */
	int64_t bytes;
};

static const struct rec_frame site_frames[][1] = {
	{{"Leak", "Leak", "fast", "()V", 11, 1, "Interpreted", false, 0}},
	{{"Leak", "Leak", "slow", "()V", 13, 1, "Interpreted", false, 0}},
	{{"Leak", "Leak", "base", "()V", 14, 1, "Interpreted", false, 0}},
	{{"Burst", "Burst", "drop", "()V", 20, 1, "Interpreted", false, 0}},
	{{"Burst", "Burst", "keep", "()V", 21, 1, "Interpreted", false, 0}},
	{{"Die", "Die", "mid", "()V", 50, 1, "Interpreted", false, 0}},
	{{"Anchor", "Anchor", "keep", "()V", 60, 1, "Interpreted", false, 0}},
	{{"Turn", "Turn", "over", "()V", 70, 1, "Interpreted", false, 0}},
	{{"Late", "Late", "leak", "()V", 80, 1, "Interpreted", false, 0}},
};

#define N_SITES (sizeof(site_frames) / sizeof(site_frames[0]))

static int by_born(const void *a, const void *b)
{
	const struct life *x = a, *y = b;

	return x->born_ms < y->born_ms ? -1 : x->born_ms > y->born_ms;
}

/* GCs that ended at or before t: GC n (1..19) ends at n s + 200 ms */
static int64_t gcs_by(int64_t t_ms)
{
	int64_t n = (t_ms - 200) / 1000;

	return t_ms < 1200 ? 0 : n > 19 ? 19 : n;
}

static struct store *make_store(const char *dir, struct life *l, size_t n)
{
	static struct rec_stack stacks[N_SITES];
	static const struct rec_thread thread = {1, "main", 1, 100, false};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;
	struct store *s = NULL;
	size_t i;

	for (i = 0; i < N_SITES; i++) {
		stacks[i].id = i + 1;
		stacks[i].frames = site_frames[i];
		stacks[i].n_frames = 1;
	}
	qsort(l, n, sizeof(*l), by_born);
	for (i = 0; i < n; i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_AGENT);
		x.time_ns = T0 + l[i].born_ms * MS;
		x.thread = &thread;
		x.stack = &stacks[l[i].site];
		x.class_name = "byte[]";
		x.class_raw = "[B";
		x.alloc_size = l[i].bytes;
		x.weight = l[i].bytes;
		x.alloc_gc = gcs_by(l[i].born_ms);
		if (l[i].death_ms < 0) {
			x.liveness = LIVE_AT_END;
		} else {
			x.liveness = LIVE_DEAD;
			x.death_ns = T0 + l[i].death_ms * MS;
			x.death_gc = gcs_by(l[i].death_ms);
		}
		sink->ops->sample(sink->ctx, &x);
	}
	for (i = 1; i <= 19; i++) {
		struct rec_gc g = {(int64_t)i, T0 + (int64_t)i * SEC,
				   T0 + (int64_t)i * SEC + 200 * MS};

		sink->ops->gc(sink->ctx, &g);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "synthetic.hsa";
	rec.format = "agent";
	rec.start_ns = T0;
	rec.end_ns = T0 + 20 * SEC;
	rec.n_chunks = 1;
	rec.n_samples[SAMPLE_AGENT] = n;
	sink->ops->recording(sink->ctx, &rec);
	s = test_store_commit(w, dir, "s.hsdb");
	return s;
}

static struct query *open_agent(struct store *s)
{
	struct query_options o;
	struct query *q = NULL;
	struct err e;

	query_options_init(&o);
	o.kind = SAMPLE_AGENT;
	err_init(&e);
	if (query_open(s, &o, &q, &e) < 0)
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
	return q;
}

static const struct query_survivor_series *
find(const struct query_survivors *sv, const char *key)
{
	size_t i;

	for (i = 0; sv && i < sv->n_series; i++)
		if (!strcmp(sv->series[i].key, key))
			return &sv->series[i];
	test_fail(__FILE__, __LINE__, "no series %s", key);
	return NULL;
}

/*
 * Leak.fast: 2 objects of 100000 B a second (k + 250 ms, k + 750 ms),
 * Leak.slow: 1 a second (k + 500 ms), Leak.base: 40 at 100 ms then 1 of
 * 70000 B a second: straight lines, slopes 200000, 100000 and 70000 B/s,
 * all suspects, ranked fast, slow, base (by peak base would be first:
 * 5.4 MB).  Burst.keep: 2p + 1 objects at p + 500 ms (p = 0..19), live
 * (p + 1)^2 at point p, all alive: a suspect.  Burst.drop: the same
 * births to p = 17 (324 live at point 17), the 174 oldest dead at
 * 18.3 s, so 150 at points 18 and 19: it rises at 17 points, falls at
 * one, and its later half (points 10..19) still grows at more than half
 * its overall slope (least squares by hand: about 841000 B/s late
 * against 1473000 overall), so only "ends at half its peak or more"
 * (150 < 324 / 2) makes it no suspect.
 */
TEST(survivors_leak_rule_and_ranking)
{
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct life *l = calloc(2000, sizeof(*l));
	const struct query_survivors *sv = NULL;
	const struct query_survivor_series *const *rank;
	const struct query_survivor_series *x;
	struct query_survivor_options o;
	struct query *q;
	struct store *s;
	size_t n = 0, k, m;
	int64_t p, i;
	struct err e;

	CHECK(mkdtemp(dir) != NULL);
	for (p = 0; p < 20; p++) {
		l[n++] = (struct life){0, p * 1000 + 250, -1, 100000};
		l[n++] = (struct life){0, p * 1000 + 750, -1, 100000};
		l[n++] = (struct life){1, p * 1000 + 500, -1, 100000};
		l[n++] = (struct life){2, p * 1000 + 500, -1, 70000};
		for (i = 0; i < 2 * p + 1; i++)
			l[n++] = (struct life){4, p * 1000 + 500, -1, 100000};
		/* the oldest 174 of Burst.drop die: p = 0..12 gives
		 * 13^2 = 169 births, and 5 of p = 13's */
		for (i = 0; p < 18 && i < 2 * p + 1; i++)
			l[n++] = (struct life){
				3, p * 1000 + 500,
				p < 13 || (p == 13 && i < 5) ? 18300 : -1,
				100000};
	}
	for (i = 0; i < 40; i++)
		l[n++] = (struct life){2, 100, -1, 100000};
	s = make_store(dir, l, n);
	q = s ? open_agent(s) : NULL;
	memset(&o, 0, sizeof(o));
	o.bucket_ns = SEC;
	err_init(&e);
	if (q && query_survivors(q, GROUP_SITE, &o, &sv, &e) < 0)
		test_fail(__FILE__, __LINE__, "survivors: %s", e.msg);
	CHECK_UINT(sv ? sv->n_buckets : 0, ==, 20);
	x = find(sv, "Burst.drop:20");
	if (x) {
		CHECK_UINT(x->live_samples[0], ==, 1);
		CHECK_UINT(x->live_samples[17], ==, 324);
		CHECK_UINT(x->live_samples[18], ==, 150);
		CHECK_UINT(x->live_samples[19], ==, 150);
		CHECK_UINT(x->rising, ==, 17);
		CHECK_INT(x->peak_bytes, ==, 32400000);
		CHECK_INT(x->end_bytes, ==, 15000000);
		CHECK(!x->suspect);
	}
	x = find(sv, "Burst.keep:21");
	if (x) {
		CHECK_UINT(x->live_samples[19], ==, 400);
		CHECK(x->suspect);
	}
	x = find(sv, "Leak.base:14");
	if (x) {
		CHECK_INT(x->peak_bytes, ==, 4000000 + 20 * 70000);
		CHECK(x->slope > 69999.9 && x->slope < 70000.1);
		CHECK(x->suspect);
	}
	m = q ? query_leak_suspects(q, &rank) : 0;
	CHECK_UINT(m, ==, 5);
	if (m == 5) {
		/* Burst.keep's slope is the steepest: at point p it has
		 * (p+1)^2 x 100000 B, a least-squares slope of 2.1 MB/s */
		static const char *const want[] = {
			"Burst.keep:21", "Leak.fast:11", "Leak.slow:13",
			"Leak.base:14", "Burst.drop:20"};

		for (k = 0; k < 5; k++)
			CHECK_STR(rank[k]->key, want[k]);
		for (k = 0; k < 4; k++)
			CHECK(rank[k]->suspect);
	}
	if (q)
		query_free(q);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
	free(l);
}

/*
 * The report's leak rule weighs a suspect's evidence.  Turn.over: p + 1
 * objects of 100000 B born at p s + 500 ms (p = 0..19), each dying 9 s
 * later, so those born from 11.5 s on are alive at the end (20 s).  Its
 * live set at point k is 9k - 36 samples from k = 9 on (the births of
 * p = k - 9..k - 1): it rises at every point and ends at its peak, a
 * suspect by shape.  Alive at the end: 12 + ... + 20 = 144; dead:
 * 1 + ... + 11 = 66, so "most found dead" does not hold; but the oldest
 * alive at the end (born at 11.5 s) is 8.5 s old, younger than its dead
 * ones lived (9 s): info, a working set that turns over.  Leak.slow (one
 * a second, all alive) stays a warning or worse.  So does Late.leak,
 * whose two objects of the first half (at 2.5 and 6.5 s) died 300 ms
 * later, and which then keeps two a second (from 10.5 s): its oldest
 * alive, 9.5 s, is far older than either of those lived.  (A rule that called a site a
 * working set when every object of its first half had died, as this
 * one's have, would have hidden that leak.)
 */
TEST(survivors_turnover_is_no_leak_in_the_report)
{
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct life l[400];
	const struct finding *turn = NULL, *leak = NULL, *late = NULL;
	struct query_options o;
	struct findings fs;
	struct store *s;
	struct err e;
	size_t n = 0, k;
	int64_t p, i;

	CHECK(mkdtemp(dir) != NULL);
	for (p = 0; p < 20; p++) {
		int64_t born = p * 1000 + 500;

		for (i = 0; i <= p; i++)
			l[n++] = (struct life){
				7, born, born + 9000 < 20000 ? born + 9000 : -1,
				100000};
		l[n++] = (struct life){1, born, -1, 100000};
		if (p == 2 || p == 6) {
			l[n++] = (struct life){8, born, born + 300, 100000};
		} else if (p >= 10) {
			l[n++] = (struct life){8, born, -1, 100000};
			l[n++] = (struct life){8, born + 250, -1, 100000};
		}
	}
	s = make_store(dir, l, n);
	memset(&fs, 0, sizeof(fs));
	query_options_init(&o);
	err_init(&e);
	if (s && query_findings(s, &o, "s.hsdb", "", &fs, &e) < 0)
		test_fail(__FILE__, __LINE__, "findings: %s", e.msg);
	for (k = 0; k < fs.n_findings; k++) {
		const struct finding *f = &fs.findings[k];

		if (strcmp(f->rule, "leak-suspect") || !f->subject)
			continue;
		if (!strcmp(f->subject, "Turn.over:70"))
			turn = f;
		else if (!strcmp(f->subject, "Leak.slow:13"))
			leak = f;
		else if (!strcmp(f->subject, "Late.leak:80"))
			late = f;
	}
	CHECK(turn != NULL);
	CHECK(leak != NULL);
	CHECK(late != NULL);
	if (turn) {
		CHECK_INT(turn->severity, ==, FINDING_INFO);
		CHECK(strstr(turn->sentence, "at most 8.5 s old") != NULL);
		CHECK(strstr(turn->sentence, "that died lived 9.0 s") != NULL);
	}
	if (leak)
		CHECK_INT(leak->severity, >, FINDING_INFO);
	if (late)
		CHECK_INT(late->severity, >, FINDING_INFO);
	findings_release(&fs);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
}

/*
 * Die.mid: 3 objects born at 500 ms, dead at 3.3 s (found after GC 3);
 * Anchor: 1 born at 500 ms and alive to the end (20 s).  By age, at the
 * points t = 1..20 s: all 4 are 0.5 s old at 1 s; 1.5 and 2.5 s old at
 * 2 and 3 s; from 4 s on only Anchor lives, 1-10 s old to 10 s (9.5 s),
 * 10-60 s from 11 s.  By GCs (GC n ends at n s + 200 ms): none had ended
 * at 1 s, one at 2 s, two at 3 s; Anchor has survived 3 at 4 s, 4-7 at
 * 5..8 s, 8+ from 9 s.  A cohort that does not clip lives at death
 * would keep Die.mid's 3 in "age 1-10s" to 10 s and in "survived 2-3
 * GCs" to 4 s, then in the next cohorts to the end.
 */
TEST(survivors_cohorts_clip_lives_at_death)
{
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct life l[4] = {{5, 500, 3300, 90000},
			    {5, 500, 3300, 90000},
			    {5, 500, 3300, 90000},
			    {6, 500, -1, 100000}};
	static const uint64_t age[5][20] = {
		{4},
		{0, 4, 4, 1, 1, 1, 1, 1, 1, 1},
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{0},
		{0}};
	static const uint64_t gcs[5][20] = {
		{4},
		{0, 4},
		{0, 0, 4, 1},
		{0, 0, 0, 0, 1, 1, 1, 1},
		{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
	struct query_survivor_options o;
	const struct query_survivors *sv = NULL;
	struct query *q;
	struct store *s;
	struct err e;
	size_t c, b;
	int pass;

	CHECK(mkdtemp(dir) != NULL);
	s = make_store(dir, l, 4);
	q = s ? open_agent(s) : NULL;
	for (pass = 0; q && pass < 2; pass++) {
		const uint64_t(*want)[20] = pass ? gcs : age;

		memset(&o, 0, sizeof(o));
		o.bucket_ns = SEC;
		o.cohort = pass ? COHORT_GCS : COHORT_AGE;
		err_init(&e);
		if (query_survivors(q, GROUP_SITE, &o, &sv, &e) < 0) {
			test_fail(__FILE__, __LINE__, "survivors: %s", e.msg);
			continue;
		}
		CHECK_UINT(sv->n_buckets, ==, 20);
		CHECK_UINT(sv->n_series, ==, 5);
		for (c = 0; c < 5 && c < sv->n_series; c++) {
			const struct query_survivor_series *x = &sv->series[c];

			for (b = 0; b < 20 && b < sv->n_buckets; b++)
				if (x->live_samples[b] != want[c][b])
					test_fail(
						__FILE__, __LINE__,
						"%s at %zu s: %llu live, "
						"expected %llu",
						x->key, b + 1,
						(unsigned long long)
							x->live_samples[b],
						(unsigned long long)want[c][b]);
		}
	}
	if (q)
		query_free(q);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
}

/*
 * jdk.OldObjectSample: alive at the end by definition, live from its
 * allocation time; where the JDK wrote only the object's age, from the
 * event's time less the age.  Three events at 20 s (the recording's
 * end), without sizes (so trends are in samples): Leak.fast allocated
 * at 2.5 s, Leak.slow 12.5 s old (allocated at 7.5 s), Leak.base at
 * 0.5 s.  By hand, live at the points t = 1..20 s: Leak.base from 1 s,
 * Leak.fast from 3 s, Leak.slow from 8 s, each to the last point.
 */
TEST(survivors_old_object_samples_live_from_their_allocation)
{
	static const struct rec_thread thread = {1, "main", 1, 100, false};
	static struct rec_stack stacks[3];
	static const int64_t born_ms[3] = {2500, 7500, 500};
	static const size_t first_point[3] = {2, 7, 0};
	static const char *const keys[3] = {"Leak.fast:11", "Leak.slow:13",
					    "Leak.base:14"};
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	const struct query_survivors *sv = NULL;
	struct query_survivor_options o;
	struct query_options qo;
	struct rec_recording rec;
	struct query *q = NULL;
	struct store *s = NULL;
	struct err e;
	size_t i, b;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < 3; i++) {
		struct rec_sample x;

		stacks[i].id = i + 1;
		stacks[i].frames = site_frames[i];
		stacks[i].n_frames = 1;
		rec_sample_init(&x, SAMPLE_OLD_OBJECT);
		x.time_ns = T0 + 20 * SEC;
		x.thread = &thread;
		x.stack = &stacks[i];
		x.class_name = "byte[]";
		x.class_raw = "[B";
		x.liveness = LIVE_AT_END;
		if (i == 1)
			x.object_age_ns = x.time_ns - (T0 + born_ms[i] * MS);
		else
			x.alloc_time_ns = T0 + born_ms[i] * MS;
		sink->ops->sample(sink->ctx, &x);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "old.jfr";
	rec.format = "jfr";
	rec.start_ns = T0;
	rec.end_ns = T0 + 20 * SEC;
	rec.n_chunks = 1;
	rec.n_samples[SAMPLE_OLD_OBJECT] = 3;
	sink->ops->recording(sink->ctx, &rec);
	s = test_store_commit(w, dir, "s.hsdb");
	err_init(&e);
	query_options_init(&qo);
	qo.kind = SAMPLE_OLD_OBJECT;
	if (s && query_open(s, &qo, &q, &e) < 0)
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
	memset(&o, 0, sizeof(o));
	o.bucket_ns = SEC;
	if (q && query_survivors(q, GROUP_SITE, &o, &sv, &e) < 0)
		test_fail(__FILE__, __LINE__, "survivors: %s", e.msg);
	CHECK_UINT(sv ? sv->samples_used : 0, ==, 3);
	CHECK(sv && sv->by_samples);
	CHECK_UINT(sv ? sv->n_buckets : 0, ==, 20);
	for (i = 0; sv && sv->n_buckets == 20 && i < 3; i++) {
		const struct query_survivor_series *x = find(sv, keys[i]);

		for (b = 0; x && b < 20; b++)
			if (x->live_samples[b] != (b >= first_point[i]))
				test_fail(
					__FILE__, __LINE__,
					"%s at %zu s: %llu live", keys[i],
					b + 1,
					(unsigned long long)x->live_samples[b]);
	}
	if (q)
		query_free(q);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
}

/*
 * jdk.OldObjectSample in three emissions (query/old_emissions.h): at 6 s
 * and 12 s (dumps of the running recording) and at 20 s (its stop), each
 * written into a chunk that converts ticks with its own time base, so
 * one allocation time reads 260 ns later in the second chunk's events
 * and 10 ns earlier in the third's than in the first's.  Leak.fast:
 * Keep, allocated at 0.5 s, shown by all three; Twin, allocated 500 ns
 * after Keep, shown by the first only.  Leak.slow: Mid, allocated at
 * 2.5 s, shown by the first two; New, at 15 s, by the last.  By hand: 4
 * objects of 7 events; Keep and New alive at the end, Twin and Mid gone
 * (live until 6 s and 12 s); Keep kept.  Live at the points t = 1..20 s:
 * Leak.fast 2 to 6 s, then 1; Leak.slow 1 from 3 to 12 s and from 15 s.
 * Without the chunks' offset (times compared as they are), Keep would
 * be three objects, two of them gone, and nothing kept.
 */
TEST(survivors_old_objects_once_across_emissions)
{
	static const struct rec_thread thread = {1, "main", 1, 100, false};
	static struct rec_stack stacks[2];
	static const struct {
		int site, emission;
		int64_t born_ns; /* after T0, as the first chunk reads it */
	} ev[] = {
		{0, 0, 500 * MS}, {0, 0, 500 * MS + 500}, {1, 0, 2500 * MS},
		{0, 1, 500 * MS}, {1, 1, 2500 * MS},	  {0, 2, 500 * MS},
		{1, 2, 15 * SEC},
	};
	static const int64_t at[3] = {6 * SEC, 12 * SEC, 20 * SEC};
	static const int64_t off[3] = {0, 260, -10};
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	const struct query_survivors *sv = NULL;
	const struct query_survivor_series *fast, *slow;
	struct query_survivor_options o;
	struct query_evidence qe;
	struct query_options qo;
	struct rec_recording rec;
	struct query *q = NULL;
	struct store *s = NULL;
	struct err e;
	size_t i, b;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < 2; i++) {
		stacks[i].id = i + 1;
		stacks[i].frames = site_frames[i];
		stacks[i].n_frames = 1;
	}
	for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_OLD_OBJECT);
		x.time_ns = T0 + at[ev[i].emission] + off[ev[i].emission];
		x.thread = &thread;
		x.stack = &stacks[ev[i].site];
		x.class_name = "byte[]";
		x.class_raw = "[B";
		x.array_elements = 4096;
		x.liveness = LIVE_AT_END;
		x.alloc_time_ns = T0 + ev[i].born_ns + off[ev[i].emission];
		sink->ops->sample(sink->ctx, &x);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "old.jfr";
	rec.format = "jfr";
	rec.start_ns = T0;
	rec.end_ns = T0 + 20 * SEC;
	rec.n_chunks = 3;
	rec.n_samples[SAMPLE_OLD_OBJECT] = sizeof(ev) / sizeof(ev[0]);
	sink->ops->recording(sink->ctx, &rec);
	s = test_store_commit(w, dir, "s.hsdb");
	err_init(&e);
	query_options_init(&qo);
	qo.kind = SAMPLE_OLD_OBJECT;
	if (s && query_open(s, &qo, &q, &e) < 0)
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
	memset(&o, 0, sizeof(o));
	o.bucket_ns = SEC;
	if (q && query_survivors(q, GROUP_SITE, &o, &sv, &e) < 0)
		test_fail(__FILE__, __LINE__, "survivors: %s", e.msg);
	CHECK_UINT(sv ? sv->samples_used : 0, ==, 4);
	CHECK_UINT(sv ? sv->n_buckets : 0, ==, 20);
	fast = sv ? find(sv, "Leak.fast:11") : NULL;
	slow = sv ? find(sv, "Leak.slow:13") : NULL;
	CHECK(fast != NULL && slow != NULL);
	if (fast && slow && sv->n_buckets == 20) {
		CHECK_UINT(fast->alive, ==, 1);
		CHECK_UINT(fast->gone, ==, 1);
		CHECK_UINT(fast->kept, ==, 1);
		CHECK_UINT(slow->alive, ==, 1);
		CHECK_UINT(slow->gone, ==, 1);
		CHECK_UINT(slow->kept, ==, 0);
		for (b = 0; b < 20; b++) {
			uint64_t t = b + 1, want_f = t <= 6 ? 2 : 1,
				 want_s = (t >= 3 && t <= 12) || t >= 15;

			if (fast->live_samples[b] != want_f ||
			    slow->live_samples[b] != want_s)
				test_fail(__FILE__, __LINE__,
					  "at %llu s: fast %llu (want %llu), "
					  "slow %llu (want %llu)",
					  (unsigned long long)t,
					  (unsigned long long)
						  fast->live_samples[b],
					  (unsigned long long)want_f,
					  (unsigned long long)
						  slow->live_samples[b],
					  (unsigned long long)want_s);
		}
	}
	if (q && query_evidence(q, &qe, &e) < 0)
		test_fail(__FILE__, __LINE__, "evidence: %s", e.msg);
	if (q) {
		CHECK_UINT(qe.events, ==, 7);
		CHECK_UINT(qe.samples, ==, 4);
		CHECK_UINT(qe.alive_at_end, ==, 2);
		CHECK_UINT(qe.gone, ==, 2);
		CHECK_UINT(qe.kept, ==, 1);
		CHECK_UINT(qe.emissions, ==, 3);
		CHECK_UINT(qe.dead, ==, 0);
	}
	if (q)
		query_free(q);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
}

/*
 * An old-object leak suspect whose sizes exceed the heap: Leak.fast, 20
 * objects of 10 MB allocated at 0.5, 1.5, ..., 19.5 s, all shown by the
 * one emission at 20 s; "After GC" heap summaries at 5, 10, 15 and 19.8
 * s say 50 MB used.  Every object of an emission was in the heap after
 * the GC before it (query/old_emissions.h), so 200 MB cannot be; the
 * finding must say the data disagree, show no live set in bytes (its
 * "end" is in samples), and, without GC roots, not be critical.
 */
TEST(survivors_old_object_sizes_above_the_heap_disagree)
{
	static const struct rec_thread thread = {1, "main", 1, 100, false};
	static struct rec_stack stack;
	static const int64_t gc_ms[4] = {5000, 10000, 15000, 19800};
	char dir[] = "/tmp/hs-survtest-XXXXXX";
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	const struct finding *leak = NULL;
	struct query_options qo;
	struct rec_recording rec;
	struct findings fs;
	struct store *s = NULL;
	struct err e;
	size_t i, k;

	CHECK(mkdtemp(dir) != NULL);
	stack.id = 1;
	stack.frames = site_frames[0];
	stack.n_frames = 1;
	for (i = 0; i < 4; i++) {
		struct rec_heap_summary h;

		memset(&h, 0, sizeof(h));
		h.time_ns = T0 + gc_ms[i] * MS;
		h.gc_id = (int64_t)i + 1;
		h.when = "After GC";
		h.heap_used = 50000000;
		h.committed = 100000000;
		h.reserved = 200000000;
		sink->ops->heap_summary(sink->ctx, &h);
	}
	for (i = 0; i < 20; i++) {
		struct rec_sample x;

		rec_sample_init(&x, SAMPLE_OLD_OBJECT);
		x.time_ns = T0 + 20 * SEC;
		x.thread = &thread;
		x.stack = &stack;
		x.class_name = "byte[]";
		x.class_raw = "[B";
		x.liveness = LIVE_AT_END;
		x.alloc_time_ns = T0 + (int64_t)i * SEC + 500 * MS;
		x.object_size = 10000000;
		x.alloc_size = 10000000;
		sink->ops->sample(sink->ctx, &x);
	}
	memset(&rec, 0, sizeof(rec));
	rec.source = "old.jfr";
	rec.format = "jfr";
	rec.start_ns = T0;
	rec.end_ns = T0 + 20 * SEC;
	rec.n_chunks = 1;
	rec.n_samples[SAMPLE_OLD_OBJECT] = 20;
	sink->ops->recording(sink->ctx, &rec);
	s = test_store_commit(w, dir, "s.hsdb");
	memset(&fs, 0, sizeof(fs));
	query_options_init(&qo);
	err_init(&e);
	if (s && query_findings(s, &qo, "s.hsdb", "", &fs, &e) < 0)
		test_fail(__FILE__, __LINE__, "findings: %s", e.msg);
	for (k = 0; k < fs.n_findings; k++)
		if (!strcmp(fs.findings[k].rule, "leak-suspect") &&
		    fs.findings[k].subject &&
		    !strcmp(fs.findings[k].subject, "Leak.fast:11"))
			leak = &fs.findings[k];
	CHECK(leak != NULL);
	if (leak) {
		bool disagree = false;

		CHECK_INT(leak->severity, <, FINDING_CRITICAL);
		for (k = 0; k < leak->n_evidence; k++) {
			if (strstr(leak->evidence[k], "the data disagree") &&
			    strstr(leak->evidence[k], "200.00 MB") &&
			    strstr(leak->evidence[k], "50.00 MB"))
				disagree = true;
			if (strstr(leak->evidence[k], "live set:"))
				test_fail(__FILE__, __LINE__,
					  "a live set shown: %s",
					  leak->evidence[k]);
		}
		CHECK(disagree);
		for (k = 0; k < leak->n_facts; k++)
			if (!strcmp(leak->facts[k].name, "end"))
				CHECK(strcmp(leak->facts[k].unit, "bytes") !=
				      0);
	}
	findings_release(&fs);
	if (s)
		store_close(s);
	test_store_remove(dir, "s.hsdb");
}
