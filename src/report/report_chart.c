/*
 * Pictures made of characters, for the text and Markdown reports: a
 * column chart of one series with its peaks marked, a sparkline per
 * series, and a granule map in rows.  Only our own characters and
 * numbers go into them; names from files are printed by the callers,
 * escaped for their target, outside the chart.  And the round ticks the
 * HTML report's axes are drawn with.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report_chart.h"
#include "util/buf.h"
#include "util/human.h"

/* The column of point i when n points are drawn in cols columns. */
static size_t col_of(size_t i, size_t n, size_t cols)
{
	return n > 1 ? i * (cols - 1) / (n - 1) : 0;
}

void report_chart_columns(struct buf *out, const struct finding_figure *g,
			  size_t width, size_t height, const char *indent)
{
	const double *y = g->series[0].y;
	size_t n = g->n_points, cols = n < width ? n : width, i, row;
	double col[256], max = 0;
	bool peak[256];
	char b[32];

	if (!n || !g->n_series || cols > 256)
		return;
	memset(peak, 0, sizeof(peak));
	for (i = 0; i < cols; i++)
		col[i] = 0;
	for (i = 0; i < n; i++) {
		size_t c = col_of(i, n, cols);

		if (y[i] > col[c])
			col[c] = y[i];
		if (y[i] > max)
			max = y[i];
	}
	for (i = 0; i < g->n_peaks; i++)
		peak[col_of(g->peaks[i], n, cols)] = true;
	for (row = height; row >= 1; row--) {
		double level = max * ((double)row - 0.5) / (double)height;

		buf_adds(out, indent);
		if (row == height)
			buf_addf(out, "%11s |",
				 human_bytes((int64_t)max, b, sizeof(b)));
		else
			buf_addf(out, "%11s |", "");
		for (i = 0; i < cols; i++)
			buf_addch(out, max > 0 && col[i] >= level ? '#' : ' ');
		buf_addch(out, '\n');
	}
	buf_adds(out, indent);
	buf_addf(out, "%11s +", "0");
	for (i = 0; i < cols; i++)
		buf_addch(out, peak[i] ? '^' : '-');
	buf_addch(out, '\n');
	buf_adds(out, indent);
	buf_addf(out, "%11s  +0 s", g->unit);
	{
		char end[32];
		size_t w;

		/* a rate's last point is over a time that ends later */
		int64_t last = g->t_ns[n - 1] +
			       (g->covered_ns ? g->covered_ns[n - 1] : 0);

		snprintf(end, sizeof(end), "+%.1f s",
			 (double)(last - g->t_ns[0]) / 1e9);
		w = strlen(end);
		for (i = 4; i + w < cols; i++)
			buf_addch(out, ' ');
		buf_adds(out, end);
	}
	buf_addch(out, '\n');
	if (g->n_peaks) {
		buf_adds(out, indent);
		buf_addf(out, "%11s  ^ a peak: twice the median or more\n", "");
	}
}

void report_chart_spark(struct buf *out, const double *y, size_t n,
			size_t width)
{
	static const char levels[] = " .:-=+*#%@";
	size_t cols = n < width ? n : width, c;
	double max = 0;

	for (c = 0; c < n; c++)
		if (y[c] > max)
			max = y[c];
	for (c = 0; c < cols; c++) {
		size_t i = cols > 1 ? c * (n - 1) / (cols - 1) : 0;
		int lv = max > 0 ? (int)(9.0 * y[i] / max + 0.5) : 0;

		buf_addch(out, levels[lv < 0 ? 0 : lv > 9 ? 9 : lv]);
	}
}

void report_chart_map(struct buf *out, const struct finding_figure *g,
		      size_t width, const char *indent)
{
	size_t i;

	for (i = 0; i < g->n_cells; i += width) {
		size_t k, m = g->n_cells - i < width ? g->n_cells - i : width;

		buf_adds(out, indent);
		buf_addch(out, '|');
		for (k = 0; k < m; k++) {
			char ch = g->cells[i + k];

			/* the reports' own map characters, nothing else */
			buf_addch(out, (ch >= '0' && ch <= '9') || ch == '*'
					       ? ch
					       : ' ');
		}
		for (; k < width; k++)
			buf_addch(out, ' ');
		buf_adds(out, "|\n");
	}
}

void report_ticks_values(double max, struct report_ticks *t)
{
	double raw, p, m, step;
	size_t i, n;

	/* nothing to draw still gets an axis, of whole units */
	if (!(max > 0) || !isfinite(max))
		max = 4;
	/* about four steps: the step is raw rounded up to 1, 2 or 5
	 * times a power of ten, so two to four of them reach max */
	raw = max / 4;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	step = (m <= 1 + 1e-9	? 1
		: m <= 2 + 1e-9 ? 2
		: m <= 5 + 1e-9 ? 5
				: 10) *
	       p;
	n = (size_t)ceil(max / step - 1e-9);
	if (n < 1)
		n = 1;
	if (n >= REPORT_TICKS_MAX)
		n = REPORT_TICKS_MAX - 1;
	t->n = n + 1;
	t->step = step;
	for (i = 0; i <= n; i++)
		t->v[i] = (double)i * step;
}

void report_tick_label(struct buf *out, double v, const struct report_ticks *t,
		       const char *unit)
{
	static const char *const pre[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	bool bytes = !strncmp(unit, "bytes", 5);
	double scale = 1, top = t->n ? t->v[t->n - 1] : v;
	int u = 0, d = 0;

	if (bytes)
		while (top / scale >= 1000 && u < 5) {
			scale *= 1000;
			u++;
		}
	/* the decimals the step needs: 0.5 GB one, 50 MB none */
	while (d < 6) {
		double x = t->step / scale * pow(10, d);

		if (fabs(x - round(x)) < 1e-6 * (x > 1 ? x : 1))
			break;
		d++;
	}
	if (v == 0) {
		buf_adds(out, "0");
		return;
	}
	buf_addf(out, "%.*f", d, v / scale);
	if (bytes)
		buf_addf(out, " %s%s", pre[u],
			 strcmp(unit, "bytes/s") ? "" : "/s");
}

void report_ticks_time(int64_t t0, int64_t t1, bool absolute,
		       struct report_ticks *t)
{
	/* round times, in ms: 1-2-5 under a second, then the clock's */
	static const int64_t steps_ms[] = {
		1,	  2,	    5,	      10,	 20,	    50,
		100,	  200,	    500,      1000,	 2000,	    5000,
		10000,	  15000,    30000,    60000,	 120000,    300000,
		600000,	  900000,   1800000,  3600000,	 7200000,   10800000,
		21600000, 43200000, 86400000, 172800000, 432000000, 864000000};
	int64_t span = t1 > t0 ? t1 - t0 : 0, step = 0, x;
	size_t i;

	for (i = 0; i < sizeof(steps_ms) / sizeof(steps_ms[0]); i++) {
		step = steps_ms[i] * 1000000;
		if (span / step <= 6)
			break;
	}
	t->step_ns = step;
	t->n = 0;
	if (absolute) {
		int64_t r = t0 % step;

		x = r > 0 ? t0 - r + step : r < 0 ? t0 - r : t0;
	} else {
		x = t0;
	}
	for (; x <= t1 && t->n < REPORT_TICKS_MAX; x += step)
		t->t[t->n++] = x;
}

void report_tick_time_label(struct buf *out, int64_t ns, int64_t t0,
			    bool absolute, const struct report_ticks *t)
{
	int64_t step = t->step_ns;

	if (absolute) {
		int64_t secs = ns / 1000000000, ms = ns % 1000000000 / 1000000;
		time_t tt;
		struct tm tm;

		if (ns < 0 && ns % 1000000000) {
			secs--;
			ms += 1000;
		}
		tt = (time_t)secs;
		gmtime_r(&tt, &tm);
		if (step >= 86400000000000LL)
			buf_addf(out, "%04d-%02d-%02d", tm.tm_year + 1900,
				 tm.tm_mon + 1, tm.tm_mday);
		else if (step >= 60000000000LL)
			buf_addf(out, "%02d:%02d", tm.tm_hour, tm.tm_min);
		else if (step >= 1000000000)
			buf_addf(out, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
				 tm.tm_sec);
		else
			buf_addf(out, "%02d:%02d:%02d.%03d", tm.tm_hour,
				 tm.tm_min, tm.tm_sec, (int)ms);
		return;
	}
	ns -= t0;
	if (step >= 3600000000000LL && step % 3600000000000LL == 0)
		buf_addf(out, "+%" PRId64 " h",
			 (int64_t)(ns / 3600000000000LL));
	else if (step >= 60000000000LL)
		buf_addf(out, "+%" PRId64 " min",
			 (int64_t)(ns / 60000000000LL));
	else if (step >= 1000000000)
		buf_addf(out, "+%" PRId64 " s", ns / 1000000000);
	else
		buf_addf(out, "+%" PRId64 " ms", ns / 1000000);
}
