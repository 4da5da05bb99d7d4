/*
 * A held kind (query_hold) read under a filter: the passes of a filtered
 * query read the samples that pass its filters, copied out once
 * (query_held_samples), where those are few.  The store's stacks hardly
 * repeat, so the writer leaves the full and the node projections out and
 * the browser holds the kind decoded; the classes and threads repeat, so
 * their projections are there and a windowed pass reads their rows and
 * its edges' samples.  Every sum is checked against the generator's own
 * table, for a key that a twentieth of the samples have (the copy is made)
 * and a class filter that most samples pass (it is not), and against the
 * same query not held.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "query/query_int.h"
#include "store/store.h"

#define N      5000
#define N_CLS  20
#define N_THR  4
#define N_STK  8000
#define N_LEAF 1000
#define T0     1700000000000000000ll
/* 1.1 s: 110 buckets of 10 ms, about 45 samples each, 20 classes, 4
 * threads and as many stacks as samples */
#define SPAN 1100000000ll

static int64_t t_of[N], b_of[N];
static int th_of[N], cl_of[N], st_of[N];

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	return test_rand(&rng);
}

static char cls_name[N_CLS][16], meth_name[N_STK][16], thr_name[N_THR][16];
static struct rec_frame frames[N_STK][2];
static struct rec_stack stacks[N_STK];
static struct rec_thread threads[N_THR];

static struct store *make(char *dir)
{
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	int i;

	for (i = 0; i < N_CLS; i++)
		snprintf(cls_name[i], sizeof(cls_name[i]), "C%d", i);
	for (i = 0; i < N_THR; i++) {
		snprintf(thr_name[i], sizeof(thr_name[i]), "t%d", i);
		threads[i] = (struct rec_thread){(uint64_t)i + 1, thr_name[i],
						 (uint64_t)i + 1,
						 (uint64_t)i + 1, false};
	}
	/* stack i: allocating method m(i mod N_LEAF) under the caller
	 * Main.run at line 1 + i / N_LEAF: N_LEAF sites share their leaf
	 * with N_STK / N_LEAF paths each, which only the callers tell
	 * apart */
	for (i = 0; i < N_STK; i++) {
		int m = i % N_LEAF;

		snprintf(meth_name[i], sizeof(meth_name[i]), "m%d", m);
		frames[i][0] = (struct rec_frame){
			"A", "A",	    meth_name[i], "()V", m,
			1,   "Interpreted", false,	  0};
		frames[i][1] = (struct rec_frame){
			"Main", "Main",	       "run", "()V", 1 + i / N_LEAF,
			1,	"Interpreted", false, 0};
		stacks[i] = (struct rec_stack){(uint64_t)i + 1, frames[i], 2,
					       false};
	}
	for (i = 0; i < N; i++) {
		struct rec_sample x;

		t_of[i] =
			T0 + (int64_t)i * (SPAN / N) + (int64_t)(next() % 1000);
		th_of[i] = (int)(next() % N_THR);
		cl_of[i] = (int)(next() % N_CLS);
		st_of[i] = (int)(next() % N_STK);
		b_of[i] = 1 + (int64_t)(next() % 100000);
		rec_sample_init(&x, SAMPLE_ALLOC);
		x.time_ns = t_of[i];
		x.thread = &threads[th_of[i]];
		x.stack = &stacks[st_of[i]];
		x.class_name = x.class_raw = cls_name[cl_of[i]];
		x.weight = b_of[i];
		sink->ops->sample(sink->ctx, &x);
	}
	return test_recording_commit(w, T0, T0 + SPAN, dir, "h.hsdb");
}

/* only thread t0's samples, where set */
static bool only_t0;

/* the filters of cls: */
#define ALL_BUT_C0 (-1) /* a class filter, every class but C0 */
#define T0_KEY	   (-2) /* classes C0-C4, and the key t0 by thread */

/* a drill-down into a site (site_key >= 0: "A.mJ:J", the site of the
 * stacks J mod N_LEAF, by site_by: the site or the app-site) */
static int site_key = -1;
static enum query_group site_by;
static char site_key_name[32];

/* sample k passes: class (cls >= 0: that one, the key by class; else as
 * its name says) in [from, to) */
static bool want(int k, int cls, int64_t from, int64_t to)
{
	return t_of[k] >= from && t_of[k] < to &&
	       (site_key < 0 || st_of[k] % N_LEAF == site_key) &&
	       (cls >= 0	    ? cl_of[k] == cls
		: cls == ALL_BUT_C0 ? cl_of[k] != 0
				    : cl_of[k] < 5 && th_of[k] == 0) &&
	       (!only_t0 || th_of[k] == 0);
}

/* top by thread, top by site, the call paths and the tree of the query,
 * each against the table */
static void check(struct query *q, int cls, int64_t from, int64_t to)
{
	const struct query_row *rows;
	const struct query_path *paths;
	const struct query_tree_node *nodes;
	struct query_total tot;
	struct err e;
	size_t n, n_all, i;
	uint64_t th_n[N_THR] = {0}, want_n = 0, site_n = 0;
	int64_t th_b[N_THR] = {0}, want_b = 0;
	static bool site_seen[N_LEAF], path_seen[N_STK];
	uint64_t path_n = 0;
	int k;

	memset(site_seen, 0, sizeof(site_seen));
	memset(path_seen, 0, sizeof(path_seen));
	for (k = 0; k < N; k++)
		if (want(k, cls, from, to)) {
			want_n++;
			want_b += b_of[k];
			th_n[th_of[k]]++;
			th_b[th_of[k]] += b_of[k];
			if (!site_seen[st_of[k] % N_LEAF])
				site_n++;
			site_seen[st_of[k] % N_LEAF] = true;
			if (!path_seen[st_of[k]])
				path_n++;
			path_seen[st_of[k]] = true;
		}
	CHECK(want_n > 0);
	err_init(&e);
	n = 0; /* a query that fails leaves it: no rows to read */
	CHECK_INT(query_top(q, GROUP_THREAD, &rows, &n, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	CHECK_INT(tot.est_bytes, ==, want_b);
	for (i = 0; i < n; i++) {
		int t = rows[i].key[1] - '0';

		CHECK_UINT(rows[i].samples, ==, th_n[t]);
		CHECK_INT(rows[i].est_bytes, ==, th_b[t]);
	}
	n = 0;
	CHECK_INT(query_top(q, GROUP_SITE, &rows, &n, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	CHECK_UINT(n, ==, site_n);
	for (i = 0; i < n; i++) {
		/* "A.mJ:J": the site of the stacks J mod N_LEAF */
		int j = atoi(rows[i].key + 3);
		uint64_t sn = 0;

		for (k = 0; k < N; k++)
			if (st_of[k] % N_LEAF == j && want(k, cls, from, to))
				sn++;
		CHECK_UINT(rows[i].samples, ==, sn);
	}
	/* from the class projection's rows, and its edges' samples */
	n = 0;
	CHECK_INT(query_top(q, GROUP_CLASS, &rows, &n, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	CHECK_INT(tot.est_bytes, ==, want_b);
	for (i = 0; i < n; i++) {
		int c = atoi(rows[i].key + 1);
		uint64_t cn = 0;

		for (k = 0; k < N; k++)
			if (cl_of[k] == c && want(k, cls, from, to))
				cn++;
		CHECK_UINT(rows[i].samples, ==, cn);
	}
	n = 0;
	CHECK_INT(query_paths(q, 5, &paths, &n, &n_all, &tot, &e), ==, 0);
	CHECK_UINT(tot.samples, ==, want_n);
	CHECK_UINT(n_all, ==, path_n);
	for (i = 0; i < n; i++) {
		const char *f[4];
		uint64_t sn = 0;
		int j;

		CHECK_UINT(query_path_frames(q, paths[i].stack, f, 4), ==, 2);
		/* "A.mM:M" < "Main.run:L": stack M + (L - 1) * N_LEAF */
		j = atoi(f[0] + 3) + (atoi(strchr(f[1], ':') + 1) - 1) * N_LEAF;
		for (k = 0; k < N; k++)
			if (st_of[k] == j && want(k, cls, from, to))
				sn++;
		CHECK_UINT(paths[i].samples, ==, sn);
	}
	n = 0;
	CHECK_INT(query_tree(q, false, 0, &nodes, &n, &tot, &e), ==, 0);
	CHECK_UINT(n, >, 0);
	if (n) {
		CHECK_UINT(nodes[0].samples, ==, want_n);
		CHECK_INT(nodes[0].est_bytes, ==, want_b);
	}
}

static struct query *open_q(struct store *s, int cls, int64_t from, int64_t to,
			    bool hold)
{
	struct query_options o;
	struct query *q = NULL;
	struct err e;

	query_options_init(&o);
	o.from_ns = from;
	o.to_ns = to;
	if (cls >= 0) {
		o.key = cls_name[cls];
		o.key_by = GROUP_CLASS;
	} else if (cls == ALL_BUT_C0) {
		o.class_re = "^C([1-9]|1[0-9])$";
	} else {
		o.class_re = "^C[0-4]$";
		o.key = "t0";
		o.key_by = GROUP_THREAD;
	}
	if (site_key >= 0) {
		snprintf(site_key_name, sizeof(site_key_name), "A.m%d:%d",
			 site_key, site_key);
		o.key = site_key_name;
		o.key_by = (int)site_by;
	}
	if (only_t0)
		o.thread_re = "^t0$";
	err_init(&e);
	CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	if (q && hold)
		CHECK_INT(query_hold(q, &e), ==, 0);
	return q;
}

TEST(held_kind_filtered_passes_read_the_copied_samples)
{
	char dir[] = "/tmp/hs-held-XXXXXX";
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *r;
	struct store *s;
	struct err e;
	uint32_t nb;
	/* a whole window, one that cuts buckets at both ends, and one
	 * that cuts them on the class projection's rows */
	static const int64_t win[][2] = {
		{INT64_MIN, INT64_MAX},
		{T0 + 1234567, T0 + SPAN / 2 + 7654321},
		{T0 + SPAN / 3, T0 + SPAN / 3 + 40000000}};
	size_t wi;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	err_init(&e);
	/* the shape this test is about: no full projection, a class one */
	CHECK_INT(
		store_rollup(s, SAMPLE_ALLOC, STORE_PROJ_FULL, &b, &nb, &r, &e),
		==, 0);
	CHECK_UINT(nb, ==, 0);
	CHECK_INT(store_rollup(s, SAMPLE_ALLOC, STORE_PROJ_CLASS, &b, &nb, &r,
			       &e),
		  ==, 0);
	CHECK(nb > 0);
	/* not held, before the store holds the kind decoded for the
	 * others: a block at a time, no copy */
	for (wi = 0; wi < sizeof(win) / sizeof(win[0]); wi++) {
		struct query *q = open_q(s, 3, win[wi][0], win[wi][1], false);

		if (q) {
			check(q, 3, win[wi][0], win[wi][1]);
			CHECK_INT(q->sel.state, ==, SEL_UNTRIED);
			query_free(q);
		}
	}
	for (wi = 0; wi < sizeof(win) / sizeof(win[0]); wi++) {
		int64_t from = win[wi][0], to = win[wi][1];
		struct query *q;

		/* a key a twentieth of the samples have: copied out */
		q = open_q(s, 3, from, to, true);
		if (q) {
			check(q, 3, from, to);
			CHECK_INT(q->sel.state, ==, SEL_MADE);
			check(q, 3, from, to); /* again, from the copy */
			query_free(q);
		}
		/* an eightieth: few enough nodes that the call paths hash
		 * each one's path on its own */
		only_t0 = true;
		q = open_q(s, 3, from, to, true);
		if (q) {
			check(q, 3, from, to);
			CHECK_INT(q->sel.state, ==, SEL_MADE);
			CHECK_UINT(q->n_self_list, <=, q->n_nodes / 32);
			query_free(q);
		}
		only_t0 = false;
		/* a sixteenth, by a class filter and a key by thread */
		q = open_q(s, T0_KEY, from, to, true);
		if (q) {
			check(q, T0_KEY, from, to);
			CHECK_INT(q->sel.state, ==, SEL_MADE);
			query_free(q);
		}
		/* a filter nineteen twentieths pass: read in place */
		q = open_q(s, ALL_BUT_C0, from, to, true);
		if (q) {
			check(q, ALL_BUT_C0, from, to);
			CHECK_INT(q->sel.state, ==, SEL_NONE);
			query_free(q);
		}
	}
	/* a drill-down into a site and into an app-site (the sieve's bits
	 * per stack node), under a class filter: the leaf most samples
	 * have, in each window where it has some */
	{
		int hits[N_LEAF] = {0}, k, by;

		for (k = 0; k < N; k++)
			if (++hits[st_of[k] % N_LEAF] >
			    hits[site_key < 0 ? 0 : site_key])
				site_key = st_of[k] % N_LEAF;
		for (wi = 0; wi < sizeof(win) / sizeof(win[0]); wi++)
			for (by = 0; by < 2; by++) {
				int64_t from = win[wi][0], to = win[wi][1];
				struct query *q;
				int in = 0;

				site_by = by ? GROUP_APP_SITE : GROUP_SITE;
				for (k = 0; k < N; k++)
					in += want(k, ALL_BUT_C0, from, to);
				if (!in)
					continue;
				q = open_q(s, ALL_BUT_C0, from, to, true);
				if (q) {
					check(q, ALL_BUT_C0, from, to);
					CHECK_INT(q->sel.state, ==, SEL_MADE);
					query_free(q);
				}
			}
		site_key = -1;
	}
	store_close(s);
	test_store_remove(dir, "h.hsdb");
}

/*
 * The ± of ObjectAllocationSample on this store, which keeps no full
 * projection: a thread's rows take its thread's m (Σ w² / Σ w over its
 * samples, in 1/65536 byte, to the nearest), a site's its recording's
 * (the threads' m weighted by their bytes, docs/estimates.md), and each
 * row's variance is the larger of its squares and its bytes times m;
 * here from the generator's own table.
 */
/* The generator's samples in [from, to) of class cls (-1: any), their
 * bytes and squares added by thread and, where y_s is given, by site. */
static void tally(int64_t from, int64_t to, int cls, unsigned __int128 *y_t,
		  unsigned __int128 *q_t, int64_t *y_s, unsigned __int128 *q_s)
{
	int k;

	for (k = 0; k < N; k++) {
		unsigned __int128 b = (unsigned __int128)b_of[k];

		if (t_of[k] < from || t_of[k] >= to ||
		    (cls >= 0 && cl_of[k] != cls))
			continue;
		y_t[th_of[k]] += b;
		q_t[th_of[k]] += b * b;
		if (y_s) {
			y_s[st_of[k] % N_LEAF] += b_of[k];
			q_s[st_of[k] % N_LEAF] += b * b;
		}
	}
}

/* Each thread's m (Σ w² / Σ w in 1/2^QUERY_POOL_SHIFT byte, to the
 * nearest) into m_t; the recording's, their mean weighted by bytes. */
static uint64_t thread_m(const unsigned __int128 *y_t,
			 const unsigned __int128 *q_t, uint64_t *m_t)
{
	unsigned __int128 ym = 0, yy = 0;
	int k;

	for (k = 0; k < N_THR; k++) {
		m_t[k] =
			(uint64_t)((2 * (q_t[k] << QUERY_POOL_SHIFT) + y_t[k]) /
				   (2 * y_t[k]));
		ym += y_t[k] * m_t[k];
		yy += y_t[k];
	}
	return (uint64_t)((2 * ym + yy) / (2 * yy));
}

/* The ± the pooled term gives a row of y bytes whose squares sum to sq,
 * at m (in 1/2^QUERY_POOL_SHIFT byte): docs/estimates.md. */
static double want_rel(unsigned __int128 sq, unsigned __int128 y, uint64_t m)
{
	return sqrt(fmax((double)sq,
			 ldexp((double)(y * m), -QUERY_POOL_SHIFT))) /
	       (double)y;
}

/* q's rows by thread (thread t: y_t[t] bytes, q_t[t] squares, m_t[t])
 * and by site (site j: y_s[j], q_s[j], every one at m_rec), each held to
 * want_rel(); the sites whose pooled term is the larger in *pooled.
 * The sites' rows seen. */
static size_t check_pooled(struct query *q, const unsigned __int128 *y_t,
			   const unsigned __int128 *q_t, const uint64_t *m_t,
			   const int64_t *y_s, const unsigned __int128 *q_s,
			   uint64_t m_rec, size_t *pooled)
{
	const struct query_row *rows;
	struct query_total tot;
	struct err e;
	size_t n, i, seen = 0;

	err_init(&e);
	*pooled = 0;
	CHECK_INT(query_top(q, GROUP_THREAD, &rows, &n, &tot, &e), ==, 0);
	for (i = 0; i < n; i++) {
		int t = rows[i].key[1] - '0';
		double want = want_rel(q_t[t], y_t[t], m_t[t]);

		CHECK(fabs(rows[i].rel_err - want) <= 1e-12 * want);
		seen++;
	}
	CHECK_UINT(seen, ==, N_THR);
	CHECK_INT(query_top(q, GROUP_SITE, &rows, &n, &tot, &e), ==, 0);
	for (i = 0, seen = 0; i < n; i++) {
		int j;
		double want;

		CHECK(sscanf(rows[i].key, "A.m%d:", &j) == 1);
		if (j < 0 || j >= N_LEAF || !y_s[j])
			continue;
		want = want_rel(q_s[j], (unsigned __int128)y_s[j], m_rec);
		CHECK(fabs(rows[i].rel_err - want) <= 1e-12 * want);
		*pooled += ldexp((double)((unsigned __int128)y_s[j] * m_rec),
				 -QUERY_POOL_SHIFT) > (double)q_s[j];
		seen++;
	}
	CHECK_UINT(seen, ==, n);
	return seen;
}

TEST(held_pooled_term_by_thread_and_by_recording)
{
	char dir[] = "/tmp/hs-held-XXXXXX";
	unsigned __int128 y_t[N_THR] = {0}, q_t[N_THR] = {0};
	uint64_t m_t[N_THR], m_rec;
	int64_t y_s[N_LEAF] = {0};
	unsigned __int128 q_s[N_LEAF] = {0};
	struct query *q;
	struct store *s;
	struct err e;
	size_t n, pooled = 0;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	tally(INT64_MIN, INT64_MAX, -1, y_t, q_t, y_s, q_s);
	m_rec = thread_m(y_t, q_t, m_t);
	{
		struct query_options o;

		query_options_init(&o);
		err_init(&e);
		q = NULL;
		CHECK_INT(query_open(s, &o, &q, &e), ==, 0);
	}
	if (q) {
		n = check_pooled(q, y_t, q_t, m_t, y_s, q_s, m_rec, &pooled);
		/* both terms win somewhere, or the test tells nothing */
		CHECK(pooled > 0 && pooled < n);
		query_free(q);
	}
	store_close(s);
	test_store_remove(dir, "h.hsdb");
}

/* m over a query's window, of every sample in it (C3's drill-down's
 * copy holds C3's alone): the threads' from the generator's own table,
 * each row's sums from C3's samples in the window */
TEST(held_pooled_term_over_the_window_whatever_the_filters)
{
	char dir[] = "/tmp/hs-held-XXXXXX";
	const int64_t from = T0 + SPAN / 3, to = T0 + 2 * (SPAN / 3) + 12345;
	unsigned __int128 y_t[N_THR] = {0}, q_t[N_THR] = {0}, a_y[N_THR] = {0},
			  a_q[N_THR] = {0}, f_y[N_THR] = {0}, f_q[N_THR] = {0};
	uint64_t m_t[N_THR], m_all[N_THR], m_rec;
	int64_t y_s[N_LEAF] = {0};
	unsigned __int128 q_s[N_LEAF] = {0};
	struct query *q;
	struct store *s;
	struct err e;
	size_t n, pooled;
	int k, moved = 0;

	CHECK(mkdtemp(dir) != NULL);
	s = make(dir);
	if (!s)
		return;
	tally(INT64_MIN, INT64_MAX, -1, a_y, a_q, NULL, NULL);
	tally(from, to, -1, y_t, q_t, NULL, NULL);
	tally(from, to, 3, f_y, f_q, y_s, q_s);
	thread_m(a_y, a_q, m_all);
	m_rec = thread_m(y_t, q_t, m_t);
	/* the window's m is not the recording's, or the test tells nothing */
	for (k = 0; k < N_THR; k++)
		moved += m_t[k] != m_all[k];
	CHECK_INT(moved, ==, N_THR);
	err_init(&e);
	q = open_q(s, 3, from, to, true);
	if (q) {
		n = check_pooled(q, f_y, f_q, m_t, y_s, q_s, m_rec, &pooled);
		CHECK_UINT(n, >, 0);
		/* the drill-down read its copy of C3's samples */
		CHECK_INT(q->sel.state, ==, SEL_MADE);
		query_free(q);
	}
	store_close(s);
	test_store_remove(dir, "h.hsdb");
}
