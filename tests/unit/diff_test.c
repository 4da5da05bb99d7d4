/*
 * The statistics of heapsift diff (src/query/diff_stats.c) against values
 * computed outside it.  The p-values below are exact: the minimum-
 * likelihood two-sided p-value (R's binom.test, scipy's binomtest)
 * summed with Python's exact rationals, by this script:
 *
 *   from fractions import Fraction as F
 *   from math import comb
 *   def pval(k, n, p):
 *       pmf = [comb(n, i) * p**i * (1-p)**(n-i) for i in range(n+1)]
 *       lim = pmf[k] * (1 + F(1, 10**7))
 *       return float(sum(x for x in pmf if x <= lim))
 *
 * and the Benjamini-Hochberg values by hand from the definition.
 */
#include <math.h>

#include "query/diff.h"
#include "test.h"

static bool close_rel(double got, double want)
{
	if (want == 0)
		return got == 0;
	return fabs(got - want) <= 1e-9 * fabs(want);
}

TEST(diff_binom_p_exact)
{
	static const struct {
		uint64_t k, n;
		double p, want;
	} c[] = {
		{3, 10, 1.0 / 2.0, 0.34375},
		{0, 10, 1.0 / 2.0, 0.001953125},
		{5, 10, 1.0 / 2.0, 1},
		{2, 20, 3.0 / 10.0, 0.05262794872972712},
		{9, 20, 3.0 / 10.0, 0.1488145951754471},
		{15, 40, 1.0 / 4.0, 0.097711230590650427},
		{0, 7, 1.0 / 3.0, 0.10379515317786922},
		{7, 7, 1.0 / 3.0, 0.00045724737082761773},
		{120, 300, 1.0 / 2.0, 0.00063422000692835688},
		{366, 1074, 1.0 / 2.0, 9.0924442132020798e-26},
		{40, 100, 3.0 / 5.0, 5.8878264959416997e-05},
		{1, 1, 1.0 / 2.0, 1},
		{60, 200, 1.0 / 4.0, 0.10297644047580294},
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double got = diff_binom_p(c[i].k, c[i].n, c[i].p);

		if (!close_rel(got, c[i].want))
			test_fail(__FILE__, __LINE__,
				  "binom p(%" PRIu64 ", %" PRIu64
				  ", %g) = %.17g, want %.17g",
				  c[i].k, c[i].n, c[i].p, got, c[i].want);
	}
	/* symmetric: k under p is n - k under 1 - p */
	CHECK(close_rel(diff_binom_p(30, 100, 0.4),
			diff_binom_p(70, 100, 0.6)));
	/* outside (0, 1), or k > n: untestable */
	CHECK(isnan(diff_binom_p(1, 2, 0)));
	CHECK(isnan(diff_binom_p(1, 2, 1)));
	CHECK(isnan(diff_binom_p(3, 2, 0.5)));
	/* large n: finite, in (0, 1], and 1 at the mean */
	CHECK(diff_binom_p(50000000, 100000000, 0.5) == 1);
	{
		double v = diff_binom_p(49990000, 100000000, 0.5);

		/* z = -2 with sd 5000: about 0.0455 */
		CHECK(v > 0.045 && v < 0.046);
	}
}

TEST(diff_bh_adjust_by_hand)
{
	const double p[] = {0.01, 0.04, 0.03, 0.005, NAN};
	/* m = 4: 0.005*4/1 = 0.02, 0.01*4/2 = 0.02, 0.03*4/3 = 0.04,
	 * 0.04*4/4 = 0.04, each the minimum of its own and those above */
	const double want[] = {0.02, 0.04, 0.04, 0.02, NAN};
	double q[5];
	size_t i;

	diff_bh_adjust(p, q, 5);
	for (i = 0; i < 4; i++)
		if (!close_rel(q[i], want[i]))
			test_fail(__FILE__, __LINE__, "q[%zu] = %.17g, want %g",
				  i, q[i], want[i]);
	CHECK(isnan(q[4]));
	/* capped at 1 */
	{
		const double p2[] = {0.9, 0.8};
		double q2[2];

		diff_bh_adjust(p2, q2, 2);
		CHECK(close_rel(q2[0], 0.9) && close_rel(q2[1], 0.9));
	}
}

/* The z-test of jdk.ObjectAllocationSample's rows: erfc(|z| / sqrt 2),
 * the values from Python's math.erfc:
 *   erfc(abs(x1 - x0) / sqrt(se0**2 + se1**2) / sqrt(2)) */
TEST(diff_z_p_against_erfc)
{
	CHECK(close_rel(diff_z_p(10, 1, 12, 1), 0.1572992070502852));
	CHECK(close_rel(diff_z_p(19.1e6, 1.2e6, 40.06e6, 2.5e6),
			4.081538042856634e-14));
	/* one side exact (an OutsideTLAB-only row of the corrected
	 * estimate, before its floor) */
	CHECK(close_rel(diff_z_p(100, 0, 103, 4), 0.4532547047537364));
	CHECK(diff_z_p(5, 3, 5, 1) == 1);
	CHECK(diff_z_p(5, 0, 6, 0) == 0);
	CHECK(isnan(diff_z_p(NAN, 1, 6, 1)));
}

/* A verdict never has the other sign than the change beside it (issue
 * 36: "+35.11 MB/s 4.44x ... shrank"). */
TEST(diff_verdict_has_the_sign_of_the_change)
{
	/* q below alpha, and the test saw the change's direction */
	CHECK_INT(diff_verdict(1e-5, 0.01, 35e6, 1), ==, 1);
	CHECK_INT(diff_verdict(1e-5, 0.01, -3, -1), ==, -1);
	/* within noise, no change, untested */
	CHECK_INT(diff_verdict(0.02, 0.01, 35e6, 1), ==, 0);
	CHECK_INT(diff_verdict(0.01, 0.01, 35e6, 1), ==, 0);
	CHECK_INT(diff_verdict(1e-5, 0.01, 0, 1), ==, 0);
	CHECK_INT(diff_verdict(NAN, 0.01, 5, 1), ==, 0);
	/* the test saw the other direction (a share test's fallen share
	 * beside a grown rate, a few heavy samples against the count, a
	 * rate that grew beside a total that fell): no verdict, never the
	 * test's direction beside the other sign */
	CHECK_INT(diff_verdict(1e-4, 0.01, 35e6, -1), ==, 0);
	CHECK_INT(diff_verdict(1e-4, 0.01, -2e6, 1), ==, 0);
	CHECK_INT(diff_verdict(1e-4, 0.01, -2e6, 0), ==, 0);
}
