/*
 * The stack nodes' own sums (query_node_self_sums, query_self.c) against
 * the generator's own table: every node's samples and bytes, whole and
 * in windows that cut buckets at both ends, under a class filter.  The
 * store has rollups under the node projection (each 10 ms bucket's 400
 * samples fall on a set of 40 of its 6,000 stacks that moves with
 * time), so a pass merges buckets' rows, and a wide window's pass holds
 * so many more sums than a bucket has rows that it switches to the map;
 * the windows' edges are samples, which take the map from the start.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "query/query_int.h"
#include "store/store.h"

#define SS_N   240000
#define SS_STK 6000
#define SS_HOT 40
#define SS_T0  1700000000000000000ll
#define SS_DT  25000ll /* 25 us apart: 6 s, 600 buckets of 10 ms */

static uint64_t ss_rng = 0x5851f42d4c957f2dull;
static int ss_st[SS_N], ss_cl[SS_N];
static int64_t ss_b[SS_N];
static char ss_meth[SS_STK][16];
static struct rec_frame ss_frames[SS_STK][2];
static struct rec_stack ss_stacks[SS_STK];

static struct store *ss_make(char *dir)
{
	static const struct rec_thread th[2] = {{1, "main", 1, 100, false},
						{2, "worker", 2, 101, false}};
	static const char *const cls[2] = {"byte[]", "char[]"};
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	int i;

	for (i = 0; i < SS_STK; i++) {
		snprintf(ss_meth[i], sizeof(ss_meth[i]), "m%d", i);
		ss_frames[i][0] = (struct rec_frame){
			"A", "A",	    ss_meth[i], "()V", i,
			1,   "Interpreted", false,	0};
		ss_frames[i][1] = (struct rec_frame){
			"Main", "Main",	       "run", "()V", 1 + i % 3,
			1,	"Interpreted", false, 0};
		ss_stacks[i] = (struct rec_stack){(uint64_t)i + 1, ss_frames[i],
						  2, false};
	}
	for (i = 0; i < SS_N; i++) {
		uint64_t x = test_rand(&ss_rng);
		struct rec_sample s;

		/* the hot set of the sample's 10 ms: 40 stacks from a
		 * start that moves by 23 a bucket */
		ss_st[i] = (int)((i / 400 * 23 + x % SS_HOT) % SS_STK);
		ss_cl[i] = (int)(x >> 20 & 1);
		ss_b[i] = 1 + (int64_t)(x >> 32) % 100000;
		rec_sample_init(&s, SAMPLE_ALLOC);
		s.time_ns = SS_T0 + (int64_t)i * SS_DT;
		s.thread = &th[x >> 21 & 1];
		s.stack = &ss_stacks[ss_st[i]];
		s.class_name = s.class_raw = cls[ss_cl[i]];
		s.weight = ss_b[i];
		sink->ops->sample(sink->ctx, &s);
	}
	return test_recording_commit(w, SS_T0, SS_T0 + SS_N * SS_DT, dir,
				     "ss.hsdb");
}

/* the sums of [from, to) (class c only, c >= 0; c == 2: a thread filter
 * that both threads pass, which reads the full key's rows, a node's in a
 * run of rows) against the table */
static void ss_check(struct store *s, int64_t from, int64_t to, int c)
{
	static uint64_t want_n[SS_STK];
	static int64_t want_b[SS_STK];
	const struct query_node_self *self;
	struct query_options o;
	struct query *q = NULL;
	struct query_total tot;
	struct err e;
	uint64_t all_n = 0, seen = 0;
	size_t k;
	int i;

	memset(want_n, 0, sizeof(want_n));
	memset(want_b, 0, sizeof(want_b));
	for (i = 0; i < SS_N; i++) {
		int64_t t = SS_T0 + (int64_t)i * SS_DT;

		if (t >= from && t < to && (c < 0 || c == 2 || ss_cl[i] == c)) {
			want_n[ss_st[i]]++;
			want_b[ss_st[i]] += ss_b[i];
			all_n++;
		}
	}
	query_options_init(&o);
	o.from_ns = from;
	o.to_ns = to;
	o.class_re = c < 0 || c == 2 ? NULL : c ? "^char" : "^byte";
	o.thread_re = c == 2 ? "^(main|worker)$" : NULL;
	err_init(&e);
	CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	if (!q)
		return;
	self = query_node_self_sums(q, &tot, &e);
	CHECK(self != NULL);
	CHECK_UINT(tot.samples, ==, all_n);
	for (k = 0; self && k < q->n_self_list; k++) {
		uint32_t n = q->self_list[k];
		int j;

		if (k)
			CHECK(q->self_list[k - 1] < n); /* in order, once */
		/* the stack's leaf, A.mJ:J, is the node's frame */
		j = q->nodes[n].depth == 2
			    ? (int)q->frames[q->nodes[n].frame].line
			    : -1;
		if (j < 0 || j >= SS_STK) {
			test_fail(__FILE__, __LINE__,
				  "node %u of depth %u has samples of its own",
				  n, q->nodes[n].depth);
			continue;
		}
		CHECK_UINT(self[k].samples, ==, want_n[j]);
		CHECK_INT(self[k].bytes, ==, want_b[j]);
		CHECK(query_self_of(q, n) == &self[k]);
		seen += self[k].samples;
	}
	CHECK_UINT(seen, ==, all_n);
	query_free(q);
}

TEST(self_sums_match_the_table_merged_and_mapped)
{
	char dir[] = "/tmp/hs-self-XXXXXX";
	struct store *s;

	CHECK(mkdtemp(dir) != NULL);
	s = ss_make(dir);
	if (!s)
		return;
	ss_check(s, INT64_MIN, INT64_MAX, -1);
	ss_check(s, INT64_MIN, INT64_MAX, 1);
	ss_check(s, INT64_MIN, INT64_MAX, 2);
	/* most of the span, cut inside buckets at both ends */
	ss_check(s, SS_T0 + 1234567, SS_T0 + 5 * 1000000000ll + 7654321, -1);
	ss_check(s, SS_T0 + 1234567, SS_T0 + 5 * 1000000000ll + 7654321, 0);
	/* a few buckets, and inside one */
	ss_check(s, SS_T0 + 33333333, SS_T0 + 71111111, -1);
	ss_check(s, SS_T0 + 33333333, SS_T0 + 71111111, 2);
	ss_check(s, SS_T0 + 41000000, SS_T0 + 47000000, 1);
	store_close(s);
	test_store_remove(dir, "ss.hsdb");
}
