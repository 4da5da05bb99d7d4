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
 */
void diff_table_finish(struct diff_table *t, uint64_t exp_base,
		       uint64_t exp_new);

#endif
