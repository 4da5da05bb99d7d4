/*
 * Pictures made of characters, for the text and Markdown reports: a
 * column chart of one series with its peaks marked, a sparkline per
 * series, and a granule map in rows.  Only our own characters and
 * numbers go into them; names from files are printed by the callers,
 * escaped for their target, outside the chart.
 */
#include <inttypes.h>
#include <string.h>

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
