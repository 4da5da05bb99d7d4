/*
 * The browser's trees, made as they are opened (query_tree_lazy,
 * query_tree_children), node by node, and their counts (n_all, and the
 * number of nodes query_tree_lazy_filter() keeps) against the whole tree
 * that query_tree() makes, a different walk: on random tries made of long
 * chains (a stack's own frames below where it leaves the others), stacks
 * that end inside another's chain, and siblings that print the same site
 * (one method's overloads on one line), read whole, in windows that
 * leave many stacks without samples, and under filters.  The kept count
 * expected is worked out here from the whole tree's nodes: a node is
 * kept when its label matches or a node below it is kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "record/sink.h"
#include "query/query.h"
#include "store/store.h"

#define TC_STK	 600
#define TC_DEPTH 48
#define TC_N	 4000
#define TC_T0	 1700000000000000000ll
#define TC_SPAN	 1000000000ll

static uint64_t tc_rng = 0x9b05688c2b3e6c1full;

static struct rec_frame tc_frames[TC_STK][TC_DEPTH];
static struct rec_stack tc_stacks[TC_STK];
static char tc_meth[64][8], tc_cls[8][8];
static const char *const tc_desc[] = {"()V", "(I)V", "(J)V"};

/* A frame drawn from a small pool, so that siblings often print the
 * same site; the descriptor tells overloads apart in the trie. */
static struct rec_frame tc_frame(unsigned pool)
{
	uint64_t x = test_rand(&tc_rng);
	unsigned m = (unsigned)(x % pool), c = m % 8;

	return (struct rec_frame){tc_cls[c],
				  tc_cls[c],
				  tc_meth[m],
				  tc_desc[(x >> 16) % 3],
				  (int32_t)(m % 5),
				  1,
				  "Interpreted",
				  false,
				  0};
}

static struct store *tc_make(char *dir)
{
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	static const struct rec_thread th = {1, "main", 1, 100, false};
	/* the path of each stack, outermost frame first */
	static struct rec_frame path[TC_STK][TC_DEPTH];
	static unsigned len[TC_STK];
	unsigned i, k;

	for (i = 0; i < 64; i++)
		snprintf(tc_meth[i], sizeof(tc_meth[i]), "m%u", i);
	for (i = 0; i < 8; i++)
		snprintf(tc_cls[i], sizeof(tc_cls[i]), "C%u", i);
	for (i = 0; i < TC_STK; i++) {
		uint64_t x = test_rand(&tc_rng);
		unsigned keep = 0;

		if (i) {
			/* a prefix of a stack before: the trie branches
			 * there, or the stack ends inside its chain */
			unsigned from = (unsigned)(x % i);

			keep = len[from]
				       ? (unsigned)((x >> 20) % (len[from] + 1))
				       : 0;
			memcpy(path[i], path[from], keep * sizeof(path[i][0]));
		}
		len[i] = keep;
		if ((x >> 40) % 4 || !keep) {
			/* a tail of its own: mostly a long chain */
			unsigned tail = 1 + (unsigned)((x >> 44) % 20);

			for (k = 0; k < tail && len[i] < TC_DEPTH; k++)
				path[i][len[i]++] = tc_frame(k < 2 ? 12 : 64);
		}
		for (k = 0; k < len[i]; k++)
			tc_frames[i][k] = path[i][len[i] - 1 - k];
		tc_stacks[i] = (struct rec_stack){(uint64_t)i + 1, tc_frames[i],
						  len[i], false};
	}
	for (i = 0; i < TC_N; i++) {
		uint64_t x = test_rand(&tc_rng);
		struct rec_sample s;

		rec_sample_init(&s, SAMPLE_ALLOC);
		s.time_ns = TC_T0 + (int64_t)i * (TC_SPAN / TC_N);
		s.thread = &th;
		/* skewed: the stacks drawn in a window are some of them */
		s.stack = &tc_stacks[x % (x >> 60 ? TC_STK : 40)];
		s.class_name = s.class_raw = "byte[]";
		s.weight = 1 + (int64_t)((x >> 20) % 1000);
		sink->ops->sample(sink->ctx, &s);
	}
	return test_recording_commit(w, TC_T0, TC_T0 + TC_SPAN, dir, "tc.hsdb");
}

/* the whole tree's nodes, kept under the filter, the root left out */
static size_t tc_kept(const struct query_tree_node *nodes, size_t n,
		      const char *const *labels, const char *needle)
{
	unsigned char *kept = calloc(n ? n : 1, 1);
	size_t k, count = 0;

	for (k = n; k-- > 1;) {
		if (strstr(labels[nodes[k].site], needle))
			kept[k] = 1;
		if (kept[k]) {
			count++;
			kept[nodes[k].parent] = 1;
		}
	}
	free(kept);
	return count;
}

/* lazy node ln, made as opened, and all below it against the whole
 * tree's node wn: the same values and the same children in the same
 * order; the first difference failed, then no more */
static bool tc_same(struct query *ql, bool inv, uint32_t ln,
		    const struct query_tree_node *w, uint32_t wn)
{
	const struct query_tree_node *l;
	uint32_t lc, wc;
	size_t n;

	query_tree_children(ql, inv, ln, &l, &n);
	if (l[ln].samples != w[wn].samples ||
	    l[ln].est_bytes != w[wn].est_bytes ||
	    l[ln].self_samples != w[wn].self_samples ||
	    l[ln].self_bytes != w[wn].self_bytes || l[ln].site != w[wn].site ||
	    l[ln].depth != w[wn].depth ||
	    (l[ln].rel_err != w[wn].rel_err &&
	     !(l[ln].rel_err != l[ln].rel_err &&
	       w[wn].rel_err != w[wn].rel_err))) {
		test_fail(__FILE__, __LINE__,
			  "%s tree: node %u (depth %u, %llu samples, %lld "
			  "bytes) is not the whole tree's %u (depth %u, %llu, "
			  "%lld)",
			  inv ? "inverted" : "call", ln, l[ln].depth,
			  (unsigned long long)l[ln].samples,
			  (long long)l[ln].est_bytes, wn, w[wn].depth,
			  (unsigned long long)w[wn].samples,
			  (long long)w[wn].est_bytes);
		return false;
	}
	lc = l[ln].first_child;
	wc = w[wn].first_child;
	while (lc != QUERY_TREE_NONE && wc != QUERY_TREE_NONE) {
		if (!tc_same(ql, inv, lc, w, wc))
			return false;
		query_tree_children(ql, inv, ln, &l, &n); /* moved, maybe */
		lc = l[lc].next_sibling;
		wc = w[wc].next_sibling;
	}
	if (lc != wc) {
		test_fail(__FILE__, __LINE__,
			  "%s tree: node %u's children are not the whole "
			  "tree's node %u's",
			  inv ? "inverted" : "call", ln, wn);
		return false;
	}
	return true;
}

/* the counts of one window, both trees, each filter */
static void tc_check(struct store *s, int64_t from, int64_t to)
{
	static const char *const needles[] = {"m3:", "C1.", "m4", "C7.m7"};
	int inv;

	for (inv = 0; inv < 2; inv++) {
		const struct query_tree_node *whole, *lazy;
		const char *const *labels;
		struct query_options o;
		struct query *qw, *ql;
		struct query_total t;
		size_t n_whole, n, n_all, n_labels, f;
		struct err e;

		err_init(&e);
		query_options_init(&o);
		o.from_ns = from;
		o.to_ns = to;
		if (query_open(s, &o, &qw, &e) < 0 ||
		    query_open(s, &o, &ql, &e) < 0) {
			test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
			return;
		}
		CHECK_INT(query_tree(qw, inv, 0, &whole, &n_whole, &t, &e), ==,
			  0);
		CHECK_INT(query_tree_lazy(ql, inv, &lazy, &n, &n_all, &t, &e),
			  ==, 0);
		if (n_all != n_whole)
			test_fail(__FILE__, __LINE__,
				  "%s tree in [%lld, %lld): %zu nodes counted, "
				  "%zu in the whole tree",
				  inv ? "inverted" : "call", (long long)from,
				  (long long)to, n_all, n_whole);
		/* every node, made as opened, against the whole tree */
		tc_same(ql, inv, 0, whole, 0);
		n_labels = query_tree_labels(qw, &labels);
		for (f = 0; f < sizeof(needles) / sizeof(needles[0]); f++) {
			unsigned char *ok = calloc(n_labels ? n_labels : 1, 1);
			size_t k, want, got;

			for (k = 0; k < n_labels; k++)
				ok[k] = strstr(labels[k], needles[f]) != NULL;
			want = tc_kept(whole, n_whole, labels, needles[f]);
			got = query_tree_lazy_filter(ql, inv, ok);
			if (got != want)
				test_fail(__FILE__, __LINE__,
					  "%s tree in [%lld, %lld), filter %s: "
					  "%zu kept, %zu in the whole tree",
					  inv ? "inverted" : "call",
					  (long long)from, (long long)to,
					  needles[f], got, want);
			free(ok);
		}
		query_free(qw);
		query_free(ql);
	}
}

TEST(tree_counts_equal_the_whole_tree_on_random_tries)
{
	char dir[] = "/tmp/hs-tc-XXXXXX";
	struct store *s;
	int64_t w;

	if (!mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "mkdtemp");
		return;
	}
	s = tc_make(dir);
	if (!s)
		return;
	tc_check(s, INT64_MIN, INT64_MAX);
	/* windows of a hundredth to a half of the span, from each tenth */
	for (w = TC_SPAN / 100; w <= TC_SPAN / 2; w *= 7) {
		int64_t from = TC_T0 + (int64_t)(test_rand(&tc_rng) % 10) *
					       (TC_SPAN / 10);

		tc_check(s, from, from + w);
	}
	tc_check(s, TC_T0 + TC_SPAN / 3, TC_T0 + TC_SPAN / 3 + TC_SPAN / 50);
	store_close(s);
	test_store_remove(dir, "tc.hsdb");
}

/*
 * The inverted tree's filter on a trie deeper than two bytes count: one
 * stack of TD_DEPTH frames, each its own method, one sample at its
 * innermost frame.  Its inverted tree is one chain from that frame out
 * to the outermost, TD_DEPTH nodes; under a filter the chain ends at the
 * outermost frame that matches, so a filter whose outermost match is at
 * depth d (the outermost frame's depth being 1) keeps TD_DEPTH - d + 1
 * nodes.  Depths past 65535 fail a verdict held in 16 bits.
 */
#define TD_DEPTH 70000u

TEST(inverted_filter_counts_a_trie_deeper_than_65535)
{
	static const struct rec_thread th = {1, "main", 1, 100, false};
	static const struct {
		const char *needle;
		size_t kept;
	} cases[] = {
		/* outermost match at depth 4 (f00003), another at 69991 */
		{"f00003:", TD_DEPTH - 4 + 1},
		{"f6999", TD_DEPTH - 69991 + 1},
		/* the only match at depth 66001 */
		{"f66000:", TD_DEPTH - 66001 + 1},
		{"f00000:", TD_DEPTH},
		{"nowhere", 0},
	};
	char dir[] = "/tmp/hs-td-XXXXXX";
	struct rec_frame *fr = calloc(TD_DEPTH, sizeof(*fr));
	char(*names)[8] = calloc(TD_DEPTH, sizeof(*names));
	struct store_writer *w = store_writer_new();
	const struct sink *sink = store_writer_sink(w);
	const struct query_tree_node *nodes;
	const char *const *labels;
	struct rec_stack st;
	struct rec_sample s;
	struct query_options o;
	struct query_total t;
	struct query *q;
	struct store *sto;
	size_t n, n_all, n_labels, c, k;
	struct err e;

	if (!fr || !names || !mkdtemp(dir)) {
		test_fail(__FILE__, __LINE__, "setup");
		return;
	}
	/* frames innermost first: the outermost, at depth 1, is f00000 */
	for (k = 0; k < TD_DEPTH; k++) {
		snprintf(names[k], sizeof(names[k]), "f%05zu", k);
		fr[TD_DEPTH - 1 - k] = (struct rec_frame){
			"D", "D",	    names[k], "()V", 1,
			1,   "Interpreted", false,    0};
	}
	st = (struct rec_stack){1, fr, TD_DEPTH, false};
	rec_sample_init(&s, SAMPLE_ALLOC);
	s.time_ns = TC_T0;
	s.thread = &th;
	s.stack = &st;
	s.class_name = s.class_raw = "byte[]";
	s.weight = 16;
	sink->ops->sample(sink->ctx, &s);
	sto = test_recording_commit(w, TC_T0, TC_T0 + TC_SPAN, dir, "td.hsdb");
	if (!sto)
		goto out;
	err_init(&e);
	query_options_init(&o);
	if (query_open(sto, &o, &q, &e) < 0) {
		test_fail(__FILE__, __LINE__, "query_open: %s", e.msg);
		goto close;
	}
	CHECK_INT(query_tree_lazy(q, true, &nodes, &n, &n_all, &t, &e), ==, 0);
	CHECK_INT(n_all, ==, TD_DEPTH + 1); /* the root too */
	n_labels = query_tree_labels(q, &labels);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned char *ok = calloc(n_labels ? n_labels : 1, 1);
		size_t got;

		for (k = 0; ok && k < n_labels; k++)
			ok[k] = strstr(labels[k], cases[c].needle) != NULL;
		got = ok ? query_tree_lazy_filter(q, true, ok) : 0;
		if (got != cases[c].kept)
			test_fail(__FILE__, __LINE__,
				  "filter %s on a %u-deep stack: %zu kept, "
				  "want %zu",
				  cases[c].needle, TD_DEPTH, got,
				  cases[c].kept);
		free(ok);
	}
	query_free(q);
close:
	store_close(sto);
	test_store_remove(dir, "td.hsdb");
out:
	free(fr);
	free(names);
}
