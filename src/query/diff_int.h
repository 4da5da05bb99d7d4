/*
 * Between the two halves of heapsift diff: diff.c merges the sides'
 * rows into a table, diff_stats.c tests them.  Private to src/query
 * (and its tests).
 */
#ifndef HS_DIFF_INT_H
#define HS_DIFF_INT_H

#include <stdint.h>

#include "query/diff.h"

/*
 * Side s's standard error of row r's estimate (est bytes with relative
 * standard error rel_err, from r->samples[s] samples and events), into
 * r->se[s], for the z-test: at least 1/sqrt(n) of the estimate.
 */
void diff_row_se(struct diff_row *r, int s, double est, double rel_err);

/*
 * Normalize, test and adjust the rows of t, whose values are the
 * sides' sums: per second where t->per_second, each row tested as
 * t->test says, with exposures exp_base and exp_new where the test
 * takes the sides' samples (DIFF_TEST_SHARE), then Benjamini-Hochberg
 * across the rows and each row's verdict; t->n_changed counts them.
 * The total row (t->total) is made from t->samples and t->value and
 * tested alone; for the z-test the caller sets t->total.se[] first
 * (diff_total_se()).
 */
/* t->total.se[]: the standard error of the sum of rows[0..n-1]'s
 * estimates, which must not overlap (a table's rows, or a tree's root
 * alone), each side's the root of the sum of their squares. */
void diff_total_se(struct diff_table *t, const struct diff_row *rows, size_t n);

void diff_table_finish(struct diff_table *t, uint64_t exp_base,
		       uint64_t exp_new);

#endif
