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
#include <string.h>

#include "query/diff.h"
#include "query/diff_int.h"
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

/* A row as the gate sees it: its verdict, base and change. */
static struct diff_row gate_row(int change, double base, double delta)
{
	struct diff_row r = {0};

	r.change = change;
	r.value[0] = base;
	r.value[1] = base + delta;
	r.delta = delta;
	return r;
}

TEST(diff_gate_needs_the_verdict_and_every_limit)
{
	struct diff_gate g = {1, 0.05, NAN};
	struct diff_row r;

	/* grew beyond noise by 10% of 100: past 5% */
	r = gate_row(1, 100, 10);
	CHECK(diff_gate_crosses(&g, &r));
	/* 5% exactly is not past 5% */
	r = gate_row(1, 100, 5);
	CHECK(!diff_gate_crosses(&g, &r));
	/* past the limit but within noise: the test decides noise */
	r = gate_row(0, 100, 50);
	CHECK(!diff_gate_crosses(&g, &r));
	/* the other direction */
	r = gate_row(-1, 100, -50);
	CHECK(!diff_gate_crosses(&g, &r));
	/* a row the base lacks is past any share */
	r = gate_row(1, 0, 3);
	CHECK(diff_gate_crosses(&g, &r));
	/* an absolute limit too: both must hold */
	g.abs = 20;
	r = gate_row(1, 100, 10);
	CHECK(!diff_gate_crosses(&g, &r));
	r = gate_row(1, 100, 21);
	CHECK(diff_gate_crosses(&g, &r));
	/* shrank, and changed: either direction */
	g.dir = -1;
	r = gate_row(-1, 100, -30);
	CHECK(diff_gate_crosses(&g, &r));
	r = gate_row(1, 100, 30);
	CHECK(!diff_gate_crosses(&g, &r));
	g.dir = 0;
	CHECK(diff_gate_crosses(&g, &r));
	/* no limit at all: the verdict alone */
	g.rel = g.abs = NAN;
	r = gate_row(1, 100, 0.5);
	CHECK(diff_gate_crosses(&g, &r));
}

TEST(diff_total_row_is_tested_alone)
{
	/* the z-test: two rows, base estimates 60 and 40 (standard errors 3
	 * and 4: 5 for the sum), new 80 and 50 (6 and 8: 10), 2 s a side.
	 * Rates 50 and 65, standard errors 2.5 and 5: p =
	 * erfc(15 / sqrt(31.25) / sqrt(2)) = 0.007290358091535644 (Python's
	 * math.erfc), q = p (not adjusted), grew. */
	struct diff_row rows[2] = {{0}, {0}};
	struct diff_table t = {0};

	t.test = DIFF_TEST_WEIGHTS;
	t.per_second = true;
	t.alpha = 0.01;
	t.seconds[0] = t.seconds[1] = 2;
	t.rows = rows;
	t.n_rows = 2;
	rows[0].key = "a";
	rows[1].key = "b";
	rows[0].samples[0] = rows[0].samples[1] = 10;
	rows[1].samples[0] = rows[1].samples[1] = 10;
	rows[0].value[0] = 60, rows[0].value[1] = 80;
	rows[1].value[0] = 40, rows[1].value[1] = 50;
	rows[0].se[0] = 3, rows[0].se[1] = 6;
	rows[1].se[0] = 4, rows[1].se[1] = 8;
	t.samples[0] = t.samples[1] = 20;
	t.value[0] = 100;
	t.value[1] = 130;
	diff_total_se(&t, rows, 2);
	diff_table_finish(&t, 20, 20);
	CHECK(close_rel(t.total.value[0], 50) &&
	      close_rel(t.total.value[1], 65));
	CHECK(close_rel(t.total.p, 0.007290358091535644));
	CHECK(t.total.q == t.total.p);
	CHECK_INT(t.total.change, ==, 1);
	CHECK(!strcmp(t.total.key, "total"));

	/* the time test: 30 base samples and 70 new in equal seconds: p of
	 * 30 in 100 at 1/2 = 7.85013964559367e-05 (exact rationals, above) */
	memset(&t, 0, sizeof(t));
	t.test = DIFF_TEST_TIME;
	t.alpha = 0.01;
	t.seconds[0] = t.seconds[1] = 3;
	t.samples[0] = 30;
	t.samples[1] = 70;
	t.value[0] = 3e6;
	t.value[1] = 7e6;
	diff_total_se(&t, NULL, 0);
	diff_table_finish(&t, 30, 70);
	CHECK(close_rel(t.total.p, 7.85013964559367e-05));
	CHECK_INT(t.total.change, ==, 1);

	/* a share test's total is every sample: its share cannot move */
	t.test = DIFF_TEST_SHARE;
	diff_table_finish(&t, 30, 70);
	CHECK(close_rel(t.total.p, 1.0));
	CHECK_INT(t.total.change, ==, 0);
}
