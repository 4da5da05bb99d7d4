/*
 * Character pictures for the text and Markdown reports (report_chart.c).
 */
#ifndef HS_REPORT_CHART_H
#define HS_REPORT_CHART_H

#include <stddef.h>

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

#endif
