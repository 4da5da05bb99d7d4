/*
 * The HTML report's axes (src/report/report_chart.c): ticks at round
 * places.  Each expected value is worked out by hand: the step is the
 * fourth of the largest value rounded up to 1, 2 or 5 times a power of
 * ten; a time axis steps by the smallest round time that leaves six
 * steps or fewer, on multiples of it from the epoch.
 */
#include <stdint.h>

#include "report/report_chart.h"
#include "util/buf.h"
#include "test.h"

/* the labels of t's value ticks in unit, joined by "|" */
static void labels(struct buf *b, const struct report_ticks *t,
		   const char *unit)
{
	size_t i;

	buf_reset(b);
	for (i = 0; i < t->n; i++) {
		if (i)
			buf_addch(b, '|');
		report_tick_label(b, t->v[i], t, unit);
	}
}

TEST(chart_value_ticks_are_round)
{
	struct report_ticks t;
	struct buf b = BUF_INIT;

	/* 3.57 GB/s: a fourth is 0.89 GB, rounded up to 1 GB: 0..4 GB/s */
	report_ticks_values(3.57e9, &t);
	labels(&b, &t, "bytes/s");
	CHECK_STR(b.data, "0|1 GB/s|2 GB/s|3 GB/s|4 GB/s");
	/* 522 MB: a fourth is 130 MB, rounded up to 200 MB */
	report_ticks_values(522.1e6, &t);
	labels(&b, &t, "bytes");
	CHECK_STR(b.data, "0|200 MB|400 MB|600 MB");
	/* 180 MB: 45 MB rounded up to 50 MB: 0..200 MB by 50 */
	report_ticks_values(180e6, &t);
	labels(&b, &t, "bytes");
	CHECK_STR(b.data, "0|50 MB|100 MB|150 MB|200 MB");
	/* 1.9 GB: 0.475 GB rounded up to 0.5 GB, a decimal needed */
	report_ticks_values(1.9e9, &t);
	labels(&b, &t, "bytes");
	CHECK_STR(b.data, "0|0.5 GB|1.0 GB|1.5 GB|2.0 GB");
	/* exactly 4 steps of a round value: no fifth */
	report_ticks_values(400, &t);
	labels(&b, &t, "samples");
	CHECK_STR(b.data, "0|100|200|300|400");
	/* nothing to draw still makes an axis */
	report_ticks_values(0, &t);
	labels(&b, &t, "bytes");
	CHECK_STR(b.data, "0|1 B|2 B|3 B|4 B");
	buf_release(&b);
}

static void time_labels(struct buf *b, int64_t t0, int64_t t1, bool absolute)
{
	struct report_ticks t;
	size_t i;

	report_ticks_time(t0, t1, absolute, &t);
	buf_reset(b);
	for (i = 0; i < t.n; i++) {
		if (i)
			buf_addch(b, '|');
		report_tick_time_label(b, t.t[i], t0, absolute, &t);
	}
}

TEST(chart_time_ticks_are_round)
{
	struct buf b = BUF_INIT;
	/* 2026-11-21T23:16:47.120Z */
	const int64_t t0 = 1795303007120000000LL;

	/* 6.049 s: steps of 1 s from the next whole second */
	time_labels(&b, t0, t0 + 6049000000LL, true);
	CHECK_STR(b.data,
		  "23:16:48|23:16:49|23:16:50|23:16:51|23:16:52|23:16:53");
	/* 40 s: 10 s (5 s would be eight steps) */
	time_labels(&b, t0, t0 + 40000000000LL, true);
	CHECK_STR(b.data, "23:16:50|23:17:00|23:17:10|23:17:20");
	/* 20 min: 5 min steps, clock minutes */
	time_labels(&b, t0, t0 + 1200000000000LL, true);
	CHECK_STR(b.data, "23:20|23:25|23:30|23:35");
	/* 0.8 s: 200 ms */
	time_labels(&b, t0, t0 + 800000000LL, true);
	CHECK_STR(b.data, "23:16:47.200|23:16:47.400|23:16:47.600|"
			  "23:16:47.800");
	/* offsets, from the first point */
	time_labels(&b, 0, 90000000000LL, false);
	CHECK_STR(b.data, "+0 s|+15 s|+30 s|+45 s|+60 s|+75 s|+90 s");
	time_labels(&b, 0, 600000000000LL, false);
	CHECK_STR(b.data, "+0 min|+2 min|+4 min|+6 min|+8 min|+10 min");
	buf_release(&b);
}
