/*
 * The statistics of heapsift diff (diff.h, docs/diff.md): the exact
 * conditional binomial test, the z-test on two estimates, Benjamini-
 * Hochberg's adjustment, each row's standard error and verdict, and
 * the finishing of a table (normalized, tested, adjusted) that diff.c
 * has filled with the two sides' rows.  Nothing here reads a query.
 */
#include "query/diff.h"

#include <math.h>
#include <stdlib.h>

#include "query/diff_int.h"
#include "util/xalloc.h"

/* --- statistics -------------------------------------------------------------- */

static double log_pmf(uint64_t k, uint64_t n, double lp, double lq)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	       lgamma((double)(n - k) + 1) + (double)k * lp +
	       (double)(n - k) * lq;
}

/*
 * log P(X <= k) or log P(X >= k) (upper) relative to log pmf(k): the
 * sum of the terms from k outwards, each from the one before by the
 * ratio of neighbouring binomial terms, until they stop counting.  Past
 * the mode the ratios only shrink, so the rest of the sum is below the
 * last term times a geometric series: 1e-17 of the sum.
 */
static double log_tail(uint64_t k, uint64_t n, double p, bool upper)
{
	double t = 1, s = 1, r = p / (1 - p);
	uint64_t i = k;

	for (;;) {
		double f;

		if (upper) {
			if (i >= n)
				break;
			f = (double)(n - i) / (double)(i + 1) * r;
			i++;
		} else {
			if (i == 0)
				break;
			f = (double)i / (double)(n - i + 1) / r;
			i--;
		}
		t *= f;
		s += t;
		if (f < 1 && t < s * 1e-17)
			break;
	}
	return log(s);
}

double diff_binom_p(uint64_t k, uint64_t n, double p)
{
	double lp, lq, ld, mean, lim, pv;
	uint64_t lo, hi;

	if (!(p > 0 && p < 1) || k > n)
		return NAN;
	if (n == 0)
		return 1;
	lp = log(p);
	lq = log1p(-p);
	ld = log_pmf(k, n, lp, lq);
	mean = (double)n * p;
	/* the relative tolerance scipy and R use: outcomes as likely as k
	 * up to rounding count as "no more likely" */
	lim = ld + log1p(1e-7);
	if ((double)k == mean)
		return 1;
	if ((double)k < mean) {
		/* the first i >= ceil(mean) with pmf(i) <= pmf(k): pmf
		 * decreases from the mode on */
		lo = (uint64_t)ceil(mean);
		hi = n + 1; /* n + 1: none */
		if (lo > n)
			lo = n;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (log_pmf(mid, n, lp, lq) <= lim)
				hi = mid;
			else
				lo = mid + 1;
		}
		pv = exp(ld + log_tail(k, n, p, false));
		if (lo <= n)
			pv += exp(log_pmf(lo, n, lp, lq) +
				  log_tail(lo, n, p, true));
	} else {
		/* the last i <= floor(mean) with pmf(i) <= pmf(k) */
		int64_t l = -1, h = (int64_t)floor(mean);

		if (h > (int64_t)n)
			h = (int64_t)n;
		/* invariant: pmf(l) <= lim (or l = -1), pmf(h+1..) > lim
		 * up to the mode */
		while (l < h) {
			int64_t mid = l + (h - l + 1) / 2;

			if (log_pmf((uint64_t)mid, n, lp, lq) <= lim)
				l = mid;
			else
				h = mid - 1;
		}
		pv = exp(ld + log_tail(k, n, p, true));
		if (l >= 0)
			pv += exp(log_pmf((uint64_t)l, n, lp, lq) +
				  log_tail((uint64_t)l, n, p, false));
	}
	return pv > 1 ? 1 : pv;
}

static const double *bh_p;

static int bh_cmp(const void *a, const void *b)
{
	double x = bh_p[*(const size_t *)a], y = bh_p[*(const size_t *)b];

	return x < y ? -1 : x > y ? 1 : 0;
}

void diff_bh_adjust(const double *p, double *q, size_t n)
{
	size_t *ix = xcalloc(n ? n : 1, sizeof(*ix)), m = 0, i;
	double run = 1;

	for (i = 0; i < n; i++) {
		q[i] = NAN;
		if (!isnan(p[i]))
			ix[m++] = i;
	}
	bh_p = p;
	qsort(ix, m, sizeof(*ix), bh_cmp);
	bh_p = NULL;
	for (i = m; i-- > 0;) {
		double v = p[ix[i]] * (double)m / (double)(i + 1);

		if (v < run)
			run = v;
		q[ix[i]] = run;
	}
	free(ix);
}

/* --- a table's tests --------------------------------------------------------- */

/*
 * Side s's standard error of a row's estimate (est bytes with relative
 * standard error rel_err, from n samples and events), for the z-test:
 * at least 1/sqrt(n) of the estimate.  Weighted samples give that or
 * more by themselves (sum w^2 >= (sum w)^2 / n); the corrected
 * estimate's OutsideTLAB bytes are exact (rel_err 0), yet how many
 * large objects a window holds still varies as a count does, and a
 * row of them alone would otherwise call every byte of difference a
 * change.
 */
void diff_row_se(struct diff_row *r, int s, double est, double rel_err)
{
	double floor_;

	if (!r->samples[s] || est == 0) {
		r->se[s] = 0;
		return;
	}
	floor_ = 1 / sqrt((double)r->samples[s]);
	if (isnan(rel_err) || rel_err < floor_)
		rel_err = floor_;
	r->se[s] = rel_err * fabs(est);
}

const char *diff_test_text(enum diff_test t)
{
	switch (t) {
	case DIFF_TEST_WEIGHTS:
		return "z-test on each row's change in bytes per second, "
		       "each side's standard error from the variance of its "
		       "weights (at least 1/sqrt of its samples)";
	case DIFF_TEST_TIME:
		return "exact binomial on each row's samples (N_BASE, N_NEW), "
		       "rates (each side's exposure: its seconds of "
		       "recording)";
	case DIFF_TEST_SHARE:
		return "exact binomial on each row's samples (N_BASE, N_NEW), "
		       "shares (each side's exposure: its samples of the "
		       "kind, which a reservoir fixes)";
	default:
		return "exact binomial on each row's samples (N_BASE, N_NEW), "
		       "stocks (equal exposure)";
	}
}

double diff_z_p(double x0, double se0, double x1, double se1)
{
	double v = se0 * se0 + se1 * se1;

	if (isnan(x0) || isnan(x1) || isnan(v))
		return NAN;
	if (x1 == x0)
		return 1;
	if (!(v > 0))
		return 0; /* exact on both sides, and different */
	return erfc(fabs(x1 - x0) / sqrt(v) / sqrt(2));
}

int diff_verdict(double q, double alpha, double delta, int test_dir)
{
	int dir;

	if (isnan(q) || !(q < alpha) || isnan(delta) || delta == 0)
		return 0;
	dir = delta > 0 ? 1 : -1;
	/* the test saw the other direction (the samples against the
	 * estimate, or a rate against the absolute change of --total): no
	 * verdict rather than one that contradicts the change beside it */
	return test_dir == dir ? dir : 0;
}

/* The z-test's p-value of a row: its rates (est / seconds, or the
 * estimates where a side's seconds are not known) and their standard
 * errors (r->se: of the estimates, not yet normalized).  *dir: the sign
 * of the rates' change. */
static double weights_p(const struct diff_table *t, const struct diff_row *r,
			int *dir)
{
	double x[2], se[2];
	int s;

	for (s = 0; s < 2; s++) {
		double sec = t->seconds[0] > 0 && t->seconds[1] > 0
				     ? t->seconds[s]
				     : 1;

		x[s] = r->value[s] / sec;
		se[s] = r->se[s] / sec;
	}
	*dir = x[1] > x[0] ? 1 : x[1] < x[0] ? -1 : 0;
	return diff_z_p(x[0], se[0], x[1], se[1]);
}

void diff_total_se(struct diff_table *t, const struct diff_row *rows, size_t n)
{
	int s;

	for (s = 0; s < 2; s++) {
		double v = 0;

		for (size_t i = 0; i < n; i++)
			if (!isnan(rows[i].se[s]))
				v += rows[i].se[s] * rows[i].se[s];
		t->total.se[s] = sqrt(v);
	}
}

/* The total row's values and, for the z-test, its p-value, before the
 * values are divided (t->total.se[] set by the caller).  A test of one
 * row: q is p. */
static void total_begin(struct diff_table *t)
{
	struct diff_row *r = &t->total;
	int s, dir = 0;

	r->key = "total";
	r->depth = 0;
	r->parent = UINT32_MAX;
	for (s = 0; s < 2; s++) {
		r->samples[s] = t->samples[s];
		r->value[s] = t->value[s];
		r->objects[s] = r->peak[s] = NAN;
	}
	if (t->test != DIFF_TEST_WEIGHTS) {
		r->se[0] = r->se[1] = NAN;
		r->p = NAN;
	} else {
		r->p = r->samples[0] + r->samples[1] ? weights_p(t, r, &dir)
						     : NAN;
	}
	r->change = dir; /* the rates' direction, until total_finish() */
}

/* Row r normalized (its values divided by div[]), its change and
 * ratio. */
static void row_normalize(struct diff_row *r, const double div[2])
{
	int s;

	for (s = 0; s < 2; s++) {
		r->value[s] /= div[s];
		r->objects[s] /= div[s];
		r->se[s] /= div[s];
	}
	r->delta = r->value[1] - r->value[0];
	r->ratio = r->value[0] != 0   ? r->value[1] / r->value[0]
		   : r->value[1] != 0 ? INFINITY
				      : NAN;
}

/* The binomial tests' p-value of row r, and in *dir the direction its
 * samples moved against what the exposure expects. */
static double row_binom_p(const struct diff_table *t, const struct diff_row *r,
			  int *dir)
{
	uint64_t n = r->samples[0] + r->samples[1];
	double a = (double)r->samples[0], e = t->p0 * (double)n;

	*dir = a > e ? -1 : a < e ? 1 : 0;
	return n && !isnan(t->p0) ? diff_binom_p(r->samples[0], n, t->p0) : NAN;
}

/* The total row normalized as the rows are, and its verdict. */
static void total_finish(struct diff_table *t, const double div[2])
{
	struct diff_row *r = &t->total;
	int dir = r->change;

	row_normalize(r, div);
	if (t->test != DIFF_TEST_WEIGHTS)
		r->p = row_binom_p(t, r, &dir);
	r->q = r->p;
	r->change = diff_verdict(r->q, t->alpha, r->delta, dir);
}

void diff_table_finish(struct diff_table *t, uint64_t exp_base,
		       uint64_t exp_new)
{
	double *p = xcalloc(t->n_rows ? t->n_rows : 1, sizeof(*p));
	double *q = xcalloc(t->n_rows ? t->n_rows : 1, sizeof(*q));
	int *dir = xcalloc(t->n_rows ? t->n_rows : 1, sizeof(*dir));
	double ea, eb, div[2] = {1, 1};
	size_t i;
	int s;

	switch (t->test) {
	case DIFF_TEST_TIME:
		ea = t->seconds[0];
		eb = t->seconds[1];
		break;
	case DIFF_TEST_SHARE:
		ea = (double)exp_base;
		eb = (double)exp_new;
		break;
	default:
		ea = eb = 1;
	}
	t->p0 = t->test != DIFF_TEST_WEIGHTS && ea > 0 && eb > 0
			? ea / (ea + eb)
			: NAN;
	for (i = 0; t->test == DIFF_TEST_WEIGHTS && i < t->n_rows; i++) {
		struct diff_row *r = &t->rows[i];

		/* before the values are divided: the test takes rates */
		p[i] = r->samples[0] + r->samples[1] ? weights_p(t, r, &dir[i])
						     : NAN;
	}
	total_begin(t);
	if (t->per_second) {
		div[0] = t->seconds[0];
		div[1] = t->seconds[1];
	}
	for (s = 0; s < 2; s++)
		t->value[s] /= div[s];
	total_finish(t, div);
	for (i = 0; i < t->n_rows; i++) {
		row_normalize(&t->rows[i], div);
		if (t->test != DIFF_TEST_WEIGHTS)
			p[i] = row_binom_p(t, &t->rows[i], &dir[i]);
	}
	diff_bh_adjust(p, q, t->n_rows);
	for (i = 0; i < t->n_rows; i++) {
		struct diff_row *r = &t->rows[i];

		r->p = p[i];
		r->q = q[i];
		r->change = diff_verdict(q[i], t->alpha, r->delta, dir[i]);
		if (r->change)
			t->n_changed++;
	}
	free(p);
	free(q);
	free(dir);
}

bool diff_gate_crosses(const struct diff_gate *g, const struct diff_row *r)
{
	double d = fabs(r->delta);

	if (!r->change || (g->dir && r->change != g->dir))
		return false;
	/* a verdict has delta's sign (diff_verdict()), so d is the change
	 * in the direction asked */
	if (!isnan(g->abs) && !(d > g->abs))
		return false;
	if (!isnan(g->rel) && r->value[0] != 0 &&
	    !(d > g->rel * fabs(r->value[0])))
		return false;
	return true;
}
