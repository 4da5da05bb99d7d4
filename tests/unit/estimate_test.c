/*
 * The corrected estimate (src/store/store_estimate.h, the import's walk, and
 * query_est_scale(), the readers' scaling) on event streams written by
 * hand, whose answers follow by arithmetic from docs/estimates.md.
 */
#include "store/store_estimate.h"
#include "query/query.h"
#include "query/query_int.h"

#include <math.h>
#include <stdlib.h>

#include "formats/store/store_format.h"
#include "test.h"

#define A SAMPLE_ALLOC
#define O SAMPLE_TLAB_OUTSIDE
#define T SAMPLE_TLAB_NEW

struct est_event {
	int64_t time_ns;
	uint32_t recording, thread, cls, node;
	uint8_t kind;
	int64_t bytes;
};

struct est_stats {
	uint64_t own, negative;
};

/* time, thread, node, kind, bytes; class 7, recording 0 */
static struct est_event ev(int64_t t, uint32_t th, uint32_t node, int kind,
			   int64_t bytes)
{
	struct est_event x = {t, 0, th, 7, node, (uint8_t)kind, bytes};

	return x;
}

struct got {
	int64_t *rest;
	int *order; /* the seqs of the samples the walk gave, in order */
	size_t n;
};

static void got_one(void *ctx, int kind, const struct block_sample *s)
{
	struct got *g = ctx;

	g->rest[s->seq] = kind == SAMPLE_ALLOC ? s->rest : 0;
	g->order[g->n++] = (int)s->seq;
}

/*
 * What the views show of each event under the corrected estimate, as
 * the store and the readers make it: out[i] an OutsideTLAB event's
 * bytes, a sample's rest scaled by its recording's all / tlab, 0 for an
 * InNewTLAB event; var[i] what it adds to the sum of squares as a value
 * (the sample's corrected bytes; 0 for exact bytes, -1 for those of an
 * object smaller than the typical TLAB).
 */
static void estimate_correct(const struct est_event *e, size_t n,
			     uint32_t n_threads, int64_t *out, int64_t *var,
			     struct est_stats *st)
{
	struct got g = {calloc(n, sizeof(int64_t)), calloc(n, sizeof(int)), 0};
	struct est_walk *w = est_walk_new(1, n_threads, got_one, &g);
	struct store_estimate f;
	size_t i;

	for (i = 0; i < n; i++) {
		struct block_sample x = {(uint32_t)i,	 e[i].time_ns,
					 e[i].recording, 0,
					 e[i].thread,	 e[i].cls,
					 e[i].node,	 e[i].bytes,
					 REC_NONE,	 0};

		est_walk_add(w, e[i].kind, &x);
	}
	est_walk_finish(w);
	est_walk_facts(w, 0, &f);
	CHECK_UINT(g.n, ==, n);
	for (i = 0; i < n; i++) {
		switch (e[i].kind) {
		case A:
			out[i] = query_est_scale(g.rest[i], &f);
			var[i] = out[i];
			break;
		case O:
			out[i] = e[i].bytes;
			var[i] = e[i].bytes < f.typical_tlab ? -1 : 0;
			break;
		default:
			out[i] = var[i] = 0;
		}
	}
	st->own = f.own;
	st->negative = f.negative;
	est_walk_free(w);
	free(g.rest);
	free(g.order);
}

TEST(estimate_outside_between_samples)
{
	/* thread 0: a sample of 1000 at node 1; an outside object of 300
	 * at node 2 a millisecond later (not the sample's own); the next
	 * sample of 900 at node 1 holds it: 600 is left to it */
	struct est_event e[] = {
		ev(0, 0, 1, A, 1000),
		ev(1000000, 0, 2, O, 300),
		ev(2000000, 0, 1, A, 900),
	};
	int64_t out[3], var[3];
	struct est_stats st;

	estimate_correct(e, 3, 4, out, var, &st);
	CHECK_INT(out[0], ==, 1000);
	CHECK_INT(out[1], ==, 300);
	/* exact, and smaller than the typical TLAB (the median weight of
	 * the samples, 1000): -1 */
	CHECK_INT(var[1], ==, -1);
	CHECK_INT(out[2], ==, 600);
	CHECK_INT(var[2], ==, 600);
	CHECK_UINT(st.own, ==, 0);
	/* the total is the weights' total: nothing made or lost */
	CHECK_INT(out[0] + out[1] + out[2], ==, 1900);
}

TEST(estimate_own_object)
{
	/* the sample of a 500-byte object allocated outside a TLAB, its
	 * OutsideTLAB event 1 us later (HotSpot's order), weight 800: the
	 * 300 left are TLAB bytes of small objects, and go to the other
	 * sample (node 1, rest 1000) in proportion: 1000 * 1300 / 1000 */
	struct est_event e[] = {
		ev(0, 0, 1, A, 1000),
		ev(5000000, 0, 3, A, 800),
		ev(5001000, 0, 3, O, 500),
	};
	int64_t out[3], var[3];
	struct est_stats st;

	estimate_correct(e, 3, 4, out, var, &st);
	CHECK_INT(out[0], ==, 1300);
	CHECK_INT(out[1], ==, 0);
	CHECK_INT(out[2], ==, 500);
	CHECK_INT(var[0], ==, 1300);
	CHECK_INT(var[2], ==, -1); /* 500 < 1000, the typical TLAB */
	CHECK_UINT(st.own, ==, 1);
	CHECK_INT(out[0] + out[1] + out[2], ==, 1800);
}

TEST(estimate_own_needs_same_stack_and_gap)
{
	/* the outside event after a sample at another stack, or too long
	 * after it, is not its object: it goes to the next sample */
	struct est_event e[] = {
		ev(0, 0, 1, A, 1000),
		ev(1000, 0, 2, O, 400), /* another stack */
		ev(10000000, 0, 2, A, 2000),
		ev(10000000 + EST_OWN_GAP_NS + 1, 0, 2, O, 100), /* late */
		ev(20000000, 0, 1, A, 500),
	};
	int64_t out[5], var[5];
	struct est_stats st;

	estimate_correct(e, 5, 4, out, var, &st);
	CHECK_UINT(st.own, ==, 0);
	CHECK_INT(out[0], ==, 1000);
	CHECK_INT(out[2], ==, 1600);
	CHECK_INT(out[4], ==, 400);
}

TEST(estimate_in_new_tlab_settles_it)
{
	/* an InNewTLAB event right after the sample: it was taken in a
	 * new TLAB, so the outside event that follows is another object */
	struct est_event e[] = {
		ev(0, 0, 5, A, 1000),
		ev(100, 0, 5, T, 0),
		ev(200, 0, 5, O, 300),
		ev(1000000, 0, 5, A, 700),
	};
	int64_t out[4], var[4];
	struct est_stats st;

	estimate_correct(e, 4, 4, out, var, &st);
	CHECK_UINT(st.own, ==, 0);
	CHECK_INT(out[0], ==, 1000);
	CHECK_INT(out[1], ==, 0);
	CHECK_INT(out[2], ==, 300);
	CHECK_INT(out[3], ==, 400);
}

TEST(estimate_threads_apart)
{
	/* outside bytes of thread 1 never come out of thread 0's weight */
	struct est_event e[] = {
		ev(0, 0, 1, A, 1000),
		ev(10, 1, 2, O, 300),
		ev(1000000, 0, 1, A, 1000),
		ev(2000000, 1, 1, A, 500),
	};
	int64_t out[4], var[4];
	struct est_stats st;

	estimate_correct(e, 4, 4, out, var, &st);
	CHECK_INT(out[0], ==, 1000);
	CHECK_INT(out[2], ==, 1000);
	CHECK_INT(out[3], ==, 200);
}

TEST(estimate_negative_rest_and_tail)
{
	/* more outside bytes than the weight (a lost sample, say): the
	 * rest is 0 and counted; outside bytes after the thread's last
	 * sample stay at their own stack */
	struct est_event e[] = {
		ev(0, 0, 2, O, 700),
		ev(1000000, 0, 1, A, 500),
		ev(2000000, 0, 2, O, 50),
	};
	int64_t out[3], var[3];
	struct est_stats st;

	estimate_correct(e, 3, 4, out, var, &st);
	CHECK_INT(out[0], ==, 700);
	CHECK_INT(out[1], ==, 0);
	CHECK_INT(out[2], ==, 50);
	CHECK_UINT(st.negative, ==, 1);
}

TEST(estimate_huge_weights_held)
{
	/* weights near INT64_MAX: the spread is computed in 128 bits and
	 * held at INT64_MAX, never wrapped */
	struct est_event e[] = {
		ev(0, 0, 1, A, INT64_MAX),
		ev(1000000, 0, 3, A, INT64_MAX),
		ev(1000100, 0, 3, O, 10),
	};
	int64_t out[3], var[3];
	struct est_stats st;

	estimate_correct(e, 3, 4, out, var, &st);
	CHECK_UINT(st.own, ==, 1);
	CHECK_INT(out[0], ==, INT64_MAX);
	CHECK_INT(out[1], ==, 0);
	CHECK_INT(out[2], ==, 10);
	CHECK_INT(var[2], ==, -1);
}

TEST(estimate_standard_error)
{
	/* four samples of 1000 bytes: sqrt(4 * 1000^2) / 4000 = 1/2, as
	 * 1/sqrt(n) gives for equal weights */
	unsigned __int128 sq = 0;
	int i;

	for (i = 0; i < 4; i++)
		sq = sq_add(sq, sq_of(1000, 0, false));
	CHECK(query_rel_err(SAMPLE_ALLOC, 4, 4000, sq, 0) == 0.5);
	/* weights 3000 and 1000: sqrt(10^7) / 4000 */
	sq = sq_add(sq_of(3000, 0, false), sq_of(1000, 0, false));
	CHECK(fabs(query_rel_err(SAMPLE_ALLOC, 2, 4000, sq, 0) -
		   sqrt(1e7) / 4000) < 1e-12);
	/* agent samples (Horvitz-Thompson): an object of 2000 bytes at
	 * probability 1/4 weighs 8000 and adds 8000^2 (1 - 1/4); one
	 * sampled for sure (weight = size) adds nothing */
	CHECK(sq_of(8000, 2000, true) == (unsigned __int128)48000000);
	CHECK(sq_of(1000, 1000, true) == 0);
	/* exact kinds, and no bytes */
	CHECK(query_rel_err(SAMPLE_TLAB_OUTSIDE, 3, 10, 0, 5) == 0.0);
	CHECK(isnan(query_rel_err(SAMPLE_ALLOC, 0, 0, 0, 0)));
	/* squares held at 2^128 - 1: never wrapped to something small */
	CHECK(sq_add(SQ_MAX, sq_of(INT64_MAX, 0, false)) == SQ_MAX);
}

TEST(estimate_pooled_term_when_the_heavy_weights_fell_elsewhere)
{
	/* a thread's ten samples: one of 91,000 bytes (a throttle's gap)
	 * at site A, nine of 1,000 at site B.  m = sum w^2 / sum w =
	 * (91000^2 + 9 * 1000^2) / 100000 = 82,900 bytes, kept in 1/65536
	 * byte.  B's own squares, 9 * 10^6, say 1/3 (as nine equal samples
	 * do); its pooled term, 9000 * 82900, says sqrt(746,100,000) /
	 * 9000: B drew none of the heavy weight, which it was as likely to
	 * draw as its share */
	const uint64_t m = (91000ull * 91000 + 9ull * 1000 * 1000) / 100000
			   << QUERY_POOL_SHIFT;
	unsigned __int128 own_a = sq_of(91000, 0, false), own_b = 0, pool_a,
			  pool_b = 0;
	int i;

	CHECK_UINT(m >> QUERY_POOL_SHIFT, ==, 82900);
	for (i = 0; i < 9; i++) {
		own_b = sq_add(own_b, sq_of(1000, 0, false));
		pool_b = sq_add(pool_b, pool_of(1000, m));
	}
	pool_a = pool_of(91000, m);
	CHECK(pool_b == (unsigned __int128)746100000 << QUERY_POOL_SHIFT);
	CHECK(fabs(query_rel_err(SAMPLE_ALLOC, 9, 9000, own_b, pool_b) -
		   sqrt(746100000.0) / 9000) < 1e-12);
	/* A's own square is the larger: the ± keeps it */
	CHECK(pool_a >> QUERY_POOL_SHIFT < own_a);
	CHECK(query_rel_err(SAMPLE_ALLOC, 1, 91000, own_a, pool_a) == 1.0);
	/* no pool (other kinds, exact bytes, m 0): the squares alone */
	CHECK(pool_of(1000, 0) == 0);
	CHECK(pool_of(-5, m) == 0);
	CHECK(query_rel_err(SAMPLE_ALLOC, 9, 9000, own_b, 0) == 1.0 / 3);
	/* the largest weight and m: below 2^127, no wrap */
	CHECK(pool_of(INT64_MAX, UINT64_MAX) ==
	      (unsigned __int128)INT64_MAX * UINT64_MAX);
}

TEST(estimate_large_objects_not_flagged)
{
	/* an outside object larger than the median weight of the samples
	 * taken in TLABs (1000, 1200: median 1200) never fits a TLAB:
	 * exact, var 0 */
	struct est_event e[] = {
		ev(0, 0, 1, A, 1000),
		ev(10000000, 0, 1, A, 1200),
		ev(20000000, 0, 2, O, 5000),
		ev(30000000, 0, 1, A, 6000),
	};
	int64_t out[4], var[4];
	struct est_stats st;

	estimate_correct(e, 4, 4, out, var, &st);
	CHECK_INT(var[2], ==, 0);
	CHECK_INT(out[3], ==, 1000);
}

TEST(estimate_agent_outside_undersampled_versions)
{
	/* JDK-8356372: HotSpot 11 to 24 sample objects allocated outside
	 * TLABs too seldom; 25 has the fix; 8 has no heap sampling */
	CHECK(query_outside_undersampled("17.0.15+6"));
	CHECK(query_outside_undersampled("11.0.2+9"));
	CHECK(query_outside_undersampled("21.0.4+7-LTS"));
	CHECK(query_outside_undersampled("24"));
	CHECK(!query_outside_undersampled("25.0.3+9-LTS"));
	CHECK(!query_outside_undersampled("26-ea+3"));
	CHECK(!query_outside_undersampled("1.8.0_392-b08"));
	CHECK(!query_outside_undersampled("10.0.2"));
	/* JFR's jvmVersion: the version in the first parentheses */
	CHECK(query_outside_undersampled(
		"OpenJDK 64-Bit Server VM (21+35-2513) for linux-amd64 JRE "
		"(21+35-2513), built on 2023-08-09T20:25:10Z"));
	CHECK(query_outside_undersampled("OpenJDK 64-Bit Server VM "
					 "(17.0.15+6-Debian-1deb12u1)"));
	CHECK(!query_outside_undersampled("OpenJDK 64-Bit Server VM "
					  "(25.0.3+9-LTS) for linux-amd64"));
	CHECK(!query_outside_undersampled("OpenJDK 64-Bit Server VM"));
	CHECK(!query_outside_undersampled(""));
	CHECK(!query_outside_undersampled(NULL));
	CHECK(!query_outside_undersampled("OpenJDK 17"));
}

TEST(estimate_walk_order_and_queue)
{
	/* each kind's samples leave the walk in their own order, samples
	 * of ObjectAllocationSample once settled.  Thread 0's sample waits
	 * for its thread's next event and holds every later one behind it;
	 * past EST_QUEUE_MAX waiting (all at one time, as a damaged file may
	 * have them) it goes as it stands, not own: the OutsideTLAB event
	 * that comes for it after that is counted as pending */
	size_t n = EST_QUEUE_MAX + 10, i;
	struct got g = {calloc(n + 1, sizeof(int64_t)),
			calloc(n + 1, sizeof(int)), 0};
	struct est_walk *w = est_walk_new(1, 4, got_one, &g);
	struct store_estimate f;
	struct block_sample o = {(uint32_t)n, 6, 0,  0,	       0,
				 7,	      1, 10, REC_NONE, 0};

	for (i = 0; i < n; i++) {
		struct block_sample x = {(uint32_t)i, 5, 0, 0,
					 i ? 1u : 0u, 7, 1, 10,
					 REC_NONE,    0};

		est_walk_add(w, A, &x);
		if (i == EST_QUEUE_MAX - 1)
			CHECK_UINT(g.n, ==, 0); /* all behind thread 0's */
	}
	/* only thread 1's last still waits */
	CHECK_UINT(g.n, ==, n - 1);
	for (i = 0; i < g.n; i++)
		if (g.order[i] != (int)i)
			break;
	CHECK_UINT(i, ==, g.n);
	est_walk_add(w, O, &o);
	est_walk_finish(w);
	CHECK_UINT(g.n, ==, n + 1);
	CHECK_INT(g.rest[0], ==, 10);
	est_walk_facts(w, 0, &f);
	CHECK_UINT(f.own, ==, 0);
	CHECK_UINT(f.all_lo, ==, 10 * n);
	CHECK_UINT(f.tlab_lo, ==, 10 * n);
	CHECK_INT(f.typical_tlab, ==, 10);
	est_walk_free(w);
	free(g.rest);
	free(g.order);
}

TEST(estimate_typical_tlab_to_1_in_128)
{
	/* the median of weights 100, 70000, 70001 is 70000: its histogram
	 * step (2^16 .. 2^17 in 128 steps of 512) starts at 69632 */
	struct est_event e[] = {
		ev(0, 0, 1, A, 100),
		ev(1000000, 0, 1, A, 70000),
		ev(2000000, 0, 1, A, 70001),
		ev(3000000, 0, 2, O, 69631), /* below: flagged */
		ev(4000000, 0, 2, O, 69632), /* at it: not */
	};
	int64_t out[5], var[5];
	struct est_stats st;

	estimate_correct(e, 5, 4, out, var, &st);
	CHECK_INT(var[3], ==, -1);
	CHECK_INT(var[4], ==, 0);
}

TEST(estimate_scale_exact)
{
	/* floor(rest * all / tlab), exact in 128 bits: 7 * 10 / 3 = 23 */
	struct store_estimate f = {10, 0, 3, 0, 0, 0, 0, 0};

	CHECK_INT(query_est_scale(7, &f), ==, 23);
	CHECK_INT(query_est_scale(0, &f), ==, 0);
	CHECK_INT(query_est_scale(-5, &f), ==, 0);
	/* near 2^63: held there, never wrapped */
	CHECK_INT(query_est_scale(INT64_MAX, &f), ==, INT64_MAX);
	/* no sample in a TLAB: the rest itself */
	f.tlab_lo = 0;
	CHECK_INT(query_est_scale(7, &f), ==, 7);
	/* squares by (all / tlab)^2: 9 * (10 / 3)^2 = 100 */
	f.tlab_lo = 3;
	CHECK(query_est_scale_sq(9, 0, &f) == 100 ||
	      query_est_scale_sq(9, 0, &f) == 99);
}
