/*
 * Comparisons of two sides (two stores, two recordings of one store, two
 * time ranges): the groupings of query_top(), the call tree and the
 * inverted tree, survivors and code heaps, row by row, with each row's
 * difference marked as beyond noise or not (docs/diff.md).  The CLI's
 * `heapsift diff`, the browser's baseline and the report's "compared with
 * the baseline" all ask here; none computes a difference itself.
 *
 * It reads only query.h and codeheap.h: each side is a query the caller
 * opened (with its own filters, recording and time range) and keeps open
 * while the diff lives.
 *
 * The tests (docs/diff.md), by what a row's value rests on:
 *  - jdk.ObjectAllocationSample (weighted, throttled samples): a z-test
 *    on the change in the estimate shown (bytes per second), each side's
 *    variance that of its weights (query_row.rel_err: sum of squared
 *    weights, or of rests for the corrected estimate), its relative
 *    standard error taken as at least 1/sqrt(N) for N samples and
 *    events (exact OutsideTLAB bytes still vary as a count does);
 *  - agent samples and TLAB events (sampled in proportion to the bytes):
 *    the exact conditional binomial test on the samples, p0 =
 *    E_base / (E_base + E_new) with E each side's seconds of recording;
 *  - jdk.OldObjectSample (a reservoir): the same on shares, E the
 *    side's total samples of the kind;
 *  - survivors (a stock): the same with p0 = 1/2.
 * Benjamini-Hochberg adjusts the p-values across the rows of a table,
 * and a row changed beyond noise when its adjusted value is below
 * alpha.  A row's verdict always has the sign of the change shown
 * beside it (delta): a row whose samples moved the other way from its
 * estimate (possible with the binomial tests, where a few heavy
 * samples dominate) gets no verdict.
 *
 * Both sides of jdk.ObjectAllocationSample must give one estimate
 * (query_estimate()): the corrected one only where both sides' every
 * recording holds OutsideTLAB events (diff_estimate_choose()).
 *
 * It deliberately does not decide what a front end shows: rows come
 * sorted (tables) or in tree order; limits, columns and colours are the
 * front end's.
 */
#ifndef HS_QUERY_DIFF_H
#define HS_QUERY_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query/query_codeheap.h"
#include "query/query.h"

#define DIFF_ALPHA_DEFAULT 0.01

/* What a row's samples are tested against. */
enum diff_test {
	DIFF_TEST_TIME,	 /* rates: exposure = seconds of recording */
	DIFF_TEST_SHARE, /* shares: exposure = total samples of the kind */
	DIFF_TEST_EQUAL, /* stocks: equal exposure, p0 = 1/2 */
	/* weighted samples: a z-test on the change in the estimate, with
	 * the variance of each side's weights */
	DIFF_TEST_WEIGHTS,
};

/* One sentence naming the test and its exposure, for a header
 * (static storage). */
const char *diff_test_text(enum diff_test t);

struct diff_options {
	bool total;   /* absolute values; else per second of recording */
	double alpha; /* false discovery rate; <= 0: DIFF_ALPHA_DEFAULT */
};

void diff_options_init(struct diff_options *o);

/* One row: a key (a group, a tree node, a survivor key). */
struct diff_row {
	const char *key; /* owned by the diff */
	uint32_t depth;	 /* trees: 0 for the root; else 0 */
	uint32_t parent; /* trees: index of the parent row; UINT32_MAX */
	uint64_t samples[2];
	double value[2];   /* est bytes: per second, or total (--total) */
	double objects[2]; /* est objects likewise; NaN when not known */
	double peak[2];	   /* survivors: the peak of the live bytes (live
			      samples with by_samples) in each side's range;
			      NaN in other tables */
	double delta;	   /* value[1] - value[0] */
	double ratio;	   /* value[1] / value[0]: INFINITY when the base is
			      0, NaN when both are */
	double se[2];	   /* DIFF_TEST_WEIGHTS: each value's standard error,
			      normalized as value[]; NaN in other tests */
	double p;	   /* two-sided p-value; NaN: untested */
	double q;	   /* Benjamini-Hochberg adjusted p-value */
	int change;	   /* +1 grew, -1 shrank beyond noise; 0 within noise,
			      or the samples moved against delta's sign;
			      never the other sign than delta's */
};

struct diff_table {
	enum sample_kind kind;
	enum diff_test test;
	bool per_second;
	bool by_samples; /* survivors of a kind without sizes (OldObjectSample
			    before JDK 21): values are live samples */
	double alpha;
	double seconds[2]; /* each side's seconds of recording */
	double p0;	   /* the base's expected share of a key's samples */
	uint64_t samples[2];
	double value[2]; /* all rows' total, normalized as the rows */
	struct diff_row *rows;
	size_t n_rows;
	size_t n_changed; /* rows beyond noise */
	/* all the rows' samples as one row (key "total"), tested alone
	 * (q = p: no adjustment), as a gate on the whole asks: its value
	 * is value[] above; its standard errors (the z-test) those of the
	 * sum of the rows' estimates, or the tree's root's.  For
	 * DIFF_TEST_SHARE the total is every sample of each side, so its
	 * share never changes and it never gets a verdict. */
	struct diff_row total;
	/* jdk.ObjectAllocationSample: the estimate both sides give (enum
	 * query_estimate) and a sentence saying which and why (static
	 * storage); -1 and NULL for other kinds */
	int estimate;
	const char *estimate_note;
};

struct diff;

/*
 * A comparison of two queries, base and new, opened with the options
 * ob and on (their time ranges and recordings make each side's
 * seconds).  Both must show the same sample kind: otherwise an
 * ERR_USAGE error naming both.  With per-second values and a side whose
 * length is not known (no recording with samples of the kind, or one
 * without an end), an ERR_USAGE error suggesting --total; where a side's
 * counts of its samples cannot be read (query_recordings_check(): the
 * kind's, and OutsideTLAB's for jdk.ObjectAllocationSample), that
 * damage, whose code is not ERR_USAGE.  For
 * jdk.ObjectAllocationSample both must give the estimate that
 * diff_estimate_choose() picks for them: otherwise an ERR_USAGE error.
 * The queries are borrowed and must outlive the diff.
 */
int diff_open(struct query *base, const struct query_options *ob,
	      struct query *new_, const struct query_options *on,
	      const struct diff_options *o, struct diff **out, struct err *e);
void diff_free(struct diff *d);

/*
 * The one estimate of jdk.ObjectAllocationSample's bytes both sides are
 * to give (docs/diff.md): the corrected one when want is not
 * QUERY_EST_JFR and every recording of each side (those with samples of
 * the kind in its range, as diff_side_seconds() counts them) holds
 * OutsideTLAB events, else the raw weights (QUERY_EST_JFR).  A side
 * whose query gives another estimate is to be opened again with
 * query_options.estimate set to it.  Other kinds: QUERY_EST_JFR.
 */
enum query_estimate diff_estimate_choose(struct query *base,
					 const struct query_options *ob,
					 struct query *new_,
					 const struct query_options *on,
					 int want);

/* Each side's seconds of recording: the overlap of the recordings that
 * hold samples of the kind (o->recording alone when set) with o's time
 * range.  0 when none is known. */
double diff_side_seconds(struct query *q, const struct query_options *o);

/*
 * The groupings of query_top(), rows sorted: those beyond noise first,
 * then by the size of the difference.  *out is owned by d, valid until
 * the next call or diff_free().
 */
int diff_top(struct diff *d, enum query_group by, const struct diff_table **out,
	     struct err *e);

/*
 * The call tree (inverted: the inverted tree, max_depth as query_tree()
 * takes it), merged by path: a node is the same on both sides when its
 * labels from the root are.  Rows in depth-first order, row 0 the root,
 * children ordered as diff_top() orders rows.
 */
int diff_tree(struct diff *d, bool inverted, uint32_t max_depth,
	      const struct diff_table **out, struct err *e);

/*
 * Survivors by key (query_survivors() with o): the estimated live bytes
 * at the end of each side's range and the live samples behind them.  A
 * stock, not a rate: never per second, and tested with equal exposure.
 */
int diff_survivors(struct diff *d, enum query_group by,
		   const struct query_survivor_options *o,
		   const struct diff_table **out, struct err *e);

/*
 * A copy of t that lives on its own (rows and keys in one allocation),
 * for a front end that keeps several tables of one diff at once: each
 * diff_top(), diff_tree() and diff_survivors() call replaces the last
 * one's table.  Free it with free().
 */
struct diff_table *diff_table_dup(const struct diff_table *t);

/* --- the gate ------------------------------------------------------------- */

/*
 * What fails a build (heapsift diff --fail-if, docs/diff.md "The
 * allocation gate"): a row that changed beyond noise in the direction
 * asked (its verdict, diff_row.change, so the test and its
 * Benjamini-Hochberg adjustment decide noise) AND moved past every
 * limit given.  Limits are of the change shown (delta): rel of the
 * base's value (0.05: 5%), abs in the table's unit (bytes per second,
 * bytes, or samples: the caller checks that the unit asked is the
 * table's).  A row the base lacks is past every relative limit.
 */
struct diff_gate {
	int dir;    /* +1 grew, -1 shrank, 0 either */
	double rel; /* NaN: no relative limit */
	double abs; /* NaN: no absolute limit */
};

bool diff_gate_crosses(const struct diff_gate *g, const struct diff_row *r);

/* --- code heaps ----------------------------------------------------------- */

/* One fact of one heap in two snapshots.  Snapshots are not samples:
 * there is no test, the difference is exact. */
struct diff_ch_row {
	const char *heap;     /* borrowed from the base's chq */
	const char *fact;     /* "used", "free", ...; a block type's name */
	bool by_type;	      /* fact is a block type: named blocks of it */
	bool in_base, in_new; /* the heap, and the fact, are in each side */
	double value[2];      /* bytes, counts or (fragmentation) a ratio */
	double delta;
};

/*
 * Heap by heap (matched as chq_match_heap() does: by name, CodeCache and
 * CodeHeap alike), snapshot sa of a against snapshot sb of b: capacity,
 * used, free, largest_free, fragmentation, used_blocks, free_blocks,
 * then the named blocks by type.  Heaps of one side only are rows with
 * in_base or in_new false.  *out is malloc'ed, free() it.  a and b may
 * be the same chq.
 */
int diff_codeheap(const struct chq *a, uint32_t sa, const struct chq *b,
		  uint32_t sb, struct diff_ch_row **out, size_t *n,
		  struct err *e);

/* --- statistics (exposed for the tests) ------------------------------------ */

/*
 * P-value of k successes in n trials under a binomial with probability
 * p, two-sided: the probability of every outcome no more likely than k
 * (the "minimum likelihood" p-value, as R's binom.test and scipy's
 * binomtest give).  NaN when p is not in (0, 1) or k > n.
 */
double diff_binom_p(uint64_t k, uint64_t n, double p);

/*
 * The z-test's two-sided p-value of x1 - x0, each with its standard
 * error: erfc(|z| / sqrt(2)).  1 when x1 == x0, 0 when both standard
 * errors are 0 and the values differ; NaN for NaN inputs.
 */
double diff_z_p(double x0, double se0, double x1, double se1);

/*
 * A row's verdict: +1 grew, -1 shrank, 0 within noise.  Changed when q
 * is below alpha; the direction is delta's sign (the change shown), and
 * a row whose test saw the other direction (test_dir: the samples
 * against what the exposure expects for the binomial tests, the rates'
 * change for the z-test, which under --total may differ from the
 * totals') gets 0: a verdict never has the other sign than the change
 * shown.
 */
int diff_verdict(double q, double alpha, double delta, int test_dir);

/* Benjamini-Hochberg: q[i] for p[i], NaN entries skipped (and left
 * NaN); m is the number of non-NaN entries. */
void diff_bh_adjust(const double *p, double *q, size_t n);

#endif
