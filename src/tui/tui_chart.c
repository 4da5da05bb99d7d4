/* Column charts and sparklines (tui_chart.h). */
#include "tui/tui_chart.h"

#include <math.h>
#include <string.h>

static double max_of(const double *v, size_t n)
{
	double m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

void chart_columns(int top, int x, int h, const double *v, size_t n,
		   enum style st, size_t sel_a, size_t sel_b, size_t cur)
{
	double max = max_of(v, n);
	size_t i;

	if (h <= 0)
		return;
	for (i = 0; i < n; i++) {
		bool sel = sel_a != CHART_NONE && i >= sel_a && i <= sel_b;

		if (sel) {
			int r;

			for (r = 0; r < h; r++)
				screen_put(top + r, x + (int)i, 1, ST_RANGE,
					   " ");
		}
		screen_column(top + h - 1, x + (int)i, h,
			      max > 0 && v[i] > 0 ? v[i] / max : 0,
			      sel ? ST_RANGE : st);
	}
	if (cur < n)
		screen_put(top + h, x + (int)cur, 1, ST_CURSOR, "^");
}

void chart_spark(char *out, size_t size, const double *v, size_t n, size_t w)
{
	static const char *const utf[] = {" ",	    "\u2581", "\u2582",
					  "\u2583", "\u2584", "\u2585",
					  "\u2586", "\u2587", "\u2588"};
	static const char ascii[] = " .:-=+*#%@";
	double max = max_of(v, n);
	size_t col, cols = n < w ? n : w, len = 0;

	if (!size)
		return;
	out[0] = '\0';
	for (col = 0; col < cols; col++) {
		size_t b = cols > 1 ? col * (n - 1) / (cols - 1) : 0;
		double f = max > 0 && v[b] > 0 ? v[b] / max : 0;

		if (scr.utf8) {
			const char *c = utf[(int)lround(f * 8)];
			size_t l = strlen(c);

			if (len + l + 1 > size)
				break;
			memcpy(out + len, c, l);
			len += l;
		} else {
			if (len + 2 > size)
				break;
			out[len++] = ascii[(int)lround(f * 9)];
		}
	}
	out[len] = '\0';
}
