/*
 * Charts for the timeline and the survivors: columns of values over
 * time in a box of the screen, and one-line sparklines.  Values are
 * scaled to the largest; NaN and negative values draw nothing.
 */
#ifndef HS_TUI_CHART_H
#define HS_TUI_CHART_H

#include <stddef.h>

#include "tui/screen.h"

#define CHART_NONE ((size_t)-1)

/*
 * n values as columns in rows top .. top + h - 1 from column x (one
 * column per value: the caller picks n <= the width).  Values with an
 * index in [sel_a, sel_b] are drawn in ST_RANGE (sel_a CHART_NONE: no
 * selection); the column cur gets a marker on the row below the box.
 */
void chart_columns(int top, int x, int h, const double *v, size_t n,
		   enum style st, size_t sel_a, size_t sel_b, size_t cur);

/* n values squeezed into w columns as a sparkline, into out (UTF-8
 * eighths, or " .:-=+*#%@" without UTF-8). */
void chart_spark(char *out, size_t size, const double *v, size_t n, size_t w);

#endif
