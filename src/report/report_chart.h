/*
 * Character pictures for the text and Markdown reports, and the round
 * ticks of the HTML report's axes (report_chart.c).
 */
#ifndef HS_REPORT_CHART_H
#define HS_REPORT_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* Series 0 of g as a column chart height rows high, at most width
 * columns, peaks marked under it; every line starts with indent. */
void report_chart_columns(struct buf *out, const struct finding_figure *g,
			  size_t width, size_t height, const char *indent);
/* A sparkline of y in ten levels, at most width characters. */
void report_chart_spark(struct buf *out, const double *y, size_t n,
			size_t width);
/* A granule map in rows of width cells between bars. */
void report_chart_map(struct buf *out, const struct finding_figure *g,
		      size_t width, const char *indent);

/*
 * The ticks of an axis, at round places so that a reader can read a
 * value off it: every multiple of step in [v[0], v[n - 1]].  A value
 * axis's step is 1, 2 or 5 times a power of ten (in its unit: bytes
 * count in powers of 1000, so 50 MB is a step of 5 times 10^7); a time
 * axis's is a round time (1, 2, 5, 10, 15, 30 s or min, 1, 2, 3, 6, 12
 * hours, 1-2-5 days; 1-2-5 ms under a second).
 */
#define REPORT_TICKS_MAX 16
struct report_ticks {
	double v[REPORT_TICKS_MAX];  /* a value axis's */
	int64_t t[REPORT_TICKS_MAX]; /* a time axis's, in ns */
	size_t n;
	double step;	 /* a value axis's */
	int64_t step_ns; /* a time axis's */
};

/* From 0 to the first tick at or above max (the axis's top; max <= 0
 * counts as 4), about four steps. */
void report_ticks_values(double max, struct report_ticks *t);
/* A tick's label: v in unit, "bytes" and "bytes/s" as "50 MB" and
 * "1.5 GB/s" (powers of 1000, as human_bytes()), others as the plain
 * number; the digits step needs, no more. */
void report_tick_label(struct buf *out, double v, const struct report_ticks *t,
		       const char *unit);
/* Times in ns inside [t0, t1]: the multiples of the step, counted from
 * the epoch where the times are absolute (the ticks fall on round clock
 * times) and from t0 where they are not. */
void report_ticks_time(int64_t t0, int64_t t1, bool absolute,
		       struct report_ticks *t);
/* A time tick's label: the UTC clock time ("12:05", "12:05:30",
 * "12:05:30.250", as the step needs) where absolute, else the offset
 * from t0 ("+30 s", "+2 min"). */
void report_tick_time_label(struct buf *out, int64_t ns, int64_t t0,
			    bool absolute, const struct report_ticks *t);

#endif
