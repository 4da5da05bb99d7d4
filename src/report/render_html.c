/*
 * The report as one self-contained HTML page: inline CSS and SVG, no
 * network (a Content-Security-Policy forbids any), readable with
 * scripts off.  Pictures: a flame graph (each frame a <title> tooltip;
 * a small script zooms on click where scripts run), the allocation rate
 * with its peaks, the live set of the leak suspects, the heap after GC
 * and granule maps.  Every string from a file is cleaned
 * (report_clean) and then HTML-escaped; the same escaping serves the
 * inline SVG, which stays well-formed XML (only the five XML entities
 * are used).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "util/buf.h"
#include "report/report_chart.h"
#include "util/flame.h"
#include "util/human.h"

static void esc_raw(struct buf *out, const char *s, size_t len)
{
	buf_add_xml(out, s, len);
}

static void h(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;

	report_clean(&c, s ? s : "");
	esc_raw(out, c.data, c.len);
	buf_release(&c);
}

static void h_cmd(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;

	report_clean_command(&c, s);
	esc_raw(out, c.data, c.len);
	buf_release(&c);
}

static const char *const palette[] = {"#c0392b", "#2471a3", "#229954",
				      "#b9770e", "#7d3c98", "#17a589"};

static const char css[] =
	/* a path or a class name with nowhere to break breaks anywhere
	 * rather than widen the page (a case's bundle unpacked in a folder
	 * of a long name); a table still too wide scrolls in its own box */
	"body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;"
	"overflow-wrap:anywhere;"
	"max-width:1240px;padding:0 1em;color:#222;background:#fff}"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
	"code{background:#f3f3f3;padding:0 .2em;word-break:break-all}"
	".tw{max-width:100%;overflow-x:auto}"
	/* in a table only the columns of names (class w) break anywhere,
	 * so that a short word is never cut to make room */
	"table{border-collapse:collapse;font-size:13px;max-width:100%;"
	"overflow-wrap:normal}td.w{overflow-wrap:anywhere}th{white-space:"
	"nowrap}"
	"td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;"
	"vertical-align:top}"
	"td.n{text-align:right;overflow-wrap:normal;white-space:nowrap}"
	".finding{border-left:6px solid #999;padding:.3em 1em;margin:1em 0;"
	"background:#fafafa}"
	".critical{border-color:#c0392b}.warning{border-color:#e67e22}"
	".info{border-color:#2e86c1}"
	".sev{display:inline-block;min-width:5.5em;font-weight:bold;"
	"text-transform:uppercase;font-size:12px}"
	".critical .sev{color:#c0392b}.warning .sev{color:#b9770e}"
	".info .sev{color:#2471a3}"
	".few{color:#777;font-style:italic}"
	"svg{display:block;margin:.5em 0;max-width:100%;height:auto}"
	"svg text{font:12px sans-serif}"
	"tr.grew td{color:#c0392b}tr.shrank td{color:#229954}";
/* then flame_css */

/* Compared with the baseline: the sentence and a table of the sites
 * that changed, grown ones red, shrunk ones green. */
static void compare_html(struct buf *out, const struct report_compare *x)
{
	char b0[48], b1[48], b2[48], ra[16];
	size_t i;

	buf_adds(out, "<section id=\"baseline\"><h2>Compared with the "
		      "baseline</h2>\n<p>Base: ");
	h(out, x->base);
	buf_adds(out, "; new: ");
	h(out, x->new_side);
	buf_adds(out, ".</p>\n");
	if (x->error) {
		buf_adds(out, "<p>Cannot compare: ");
		h(out, x->error);
		buf_adds(out, "</p>\n</section>\n");
		return;
	}
	buf_adds(out, "<p>");
	h(out, x->sentence);
	buf_adds(out, "</p>\n");
	if (!x->n_changed)
		buf_adds(out, "<p>No site changed beyond noise.</p>\n");
	else
		buf_addf(out,
			 "<div "
			 "class=\"tw\"><table><tr><th>site</th><th>base%s</"
			 "th><th>new%s"
			 "</th><th>change</th><th>ratio</th><th>samples "
			 "base</th><th>samples new</th><th>q</th><th></th>"
			 "</tr>\n",
			 x->per_second ? "/s" : "", x->per_second ? "/s" : "");
	for (i = 0; i < x->n_changed; i++) {
		const struct report_cmp_row *r = &x->rows[i];

		buf_addf(out, "<tr class=\"%s\"><td class=\"w\">",
			 report_cmp_change(r->change));
		h(out, r->site);
		buf_adds(out, "</td><td class=\"n\">");
		h(out, report_cmp_value(x, r->value[0], false, b0, sizeof(b0)));
		buf_adds(out, "</td><td class=\"n\">");
		h(out, report_cmp_value(x, r->value[1], false, b1, sizeof(b1)));
		buf_adds(out, "</td><td class=\"n\">");
		h(out, report_cmp_value(x, r->delta, true, b2, sizeof(b2)));
		buf_adds(out, "</td><td class=\"n\">");
		h(out, report_cmp_ratio(r->ratio, ra, sizeof(ra)));
		buf_addf(out,
			 "</td><td class=\"n\">%" PRIu64
			 "</td><td class=\"n\">%" PRIu64
			 "</td><td class=\"n\">%.2g</td><td>%s</td></tr>\n",
			 r->samples[0], r->samples[1], r->q,
			 report_cmp_change(r->change));
	}
	if (x->n_changed)
		buf_adds(out, "</table></div>\n");
	buf_adds(out, "<p>More: <code>");
	h_cmd(out, x->command);
	buf_adds(out, "</code></p>\n</section>\n");
}

/* The end of a chart's time axis: its last point, or for a rate the
 * end of the time that point's rate is over. */
static int64_t fig_end(const struct finding_figure *g)
{
	size_t n = g->n_points;

	return g->t_ns[n - 1] + (g->covered_ns ? g->covered_ns[n - 1] : 0);
}

/* An x position on a chart of width w for point i of n. */
static double xpos(const struct finding_figure *g, size_t i, double left,
		   double w)
{
	double span = (double)(fig_end(g) - g->t_ns[0]);

	if (g->n_points < 2 || span <= 0)
		return left;
	return left + w * (double)(g->t_ns[i] - g->t_ns[0]) / span;
}

/* Times of a store from after 1971 are instants (JFR's and the
 * agent's); smaller ones are offsets, drawn as such. */
#define ABSOLUTE_NS (365LL * 86400 * 1000000000)

/* The axes of a line chart: round values up the left (report_ticks_values,
 * with a faint line across at each), round times along the bottom,
 * clock times (UTC) where the times are instants, and what each axis
 * counts. */
static void svg_axes(struct buf *out, const struct finding_figure *g,
		     const struct report_ticks *yt, double L, double T,
		     double pw, double ph, double H)
{
	struct report_ticks xt;
	int64_t t0 = g->n_points ? g->t_ns[0] : 0;
	int64_t t1 = g->n_points ? fig_end(g) : 0;
	bool absolute = t0 >= ABSOLUTE_NS;
	double span = (double)(t1 - t0);
	struct buf lb = BUF_INIT;
	size_t i;

	for (i = 0; i < yt->n; i++) {
		double y = T + ph - ph * yt->v[i] / yt->v[yt->n - 1];

		buf_reset(&lb);
		report_tick_label(&lb, yt->v[i], yt, g->unit);
		buf_addf(
			out,
			"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
			"stroke=\"%s\"/><text class=\"ytick\" x=\"%.0f\" "
			"y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			L - 4, y, L + pw, y, i ? "#eee" : "#888", L - 7, y + 4,
			lb.data);
	}
	report_ticks_time(t0, t1, absolute, &xt);
	for (i = 0; i < xt.n; i++) {
		double x =
			span > 0 ? L + pw * (double)(xt.t[i] - t0) / span : L;

		buf_reset(&lb);
		report_tick_time_label(&lb, xt.t[i], t0, absolute, &xt);
		buf_addf(
			out,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
			"stroke=\"#888\"/><text class=\"xtick\" x=\"%.1f\" "
			"y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			x, T + ph, x, T + ph + 4, x, T + ph + 17, lb.data);
	}
	buf_addf(out,
		 "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
		 "stroke=\"#888\"/>\n",
		 L, T, L, T + ph);
	buf_addf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">",
		 L + pw, H - 4);
	if (absolute) {
		char d[HUMAN_TIME_SIZE];

		/* the date of the first point: "2024-05-01" */
		human_time(t0, 3, NULL, d, sizeof(d));
		d[10] = '\0';
		buf_addf(out, "time (UTC) on %s", d);
	} else {
		buf_adds(out, "time from the first point");
	}
	buf_addf(out, "</text><text x=\"%.0f\" y=\"%.0f\">%s</text>\n", 4.0,
		 T - 8, g->unit);
	buf_release(&lb);
}

static void svg_lines(struct buf *out, const struct finding_figure *g)
{
	const double W = 760, H = 250, L = 84, R = 30, T = 24, B = 42;
	double max = 0, pw = W - L - R, ph = H - T - B;
	struct report_ticks yt;
	char b[32];
	size_t i, k;

	for (k = 0; k < g->n_series; k++)
		for (i = 0; i < g->n_points; i++)
			if (g->series[k].y[i] > max)
				max = g->series[k].y[i];
	report_ticks_values(max, &yt);
	max = yt.v[yt.n - 1];
	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" "
		 "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		 "role=\"img\"><title>",
		 W, H, W, H);
	h(out, g->title);
	buf_adds(out, "</title>\n");
	svg_axes(out, g, &yt, L, T, pw, ph, H);
	for (k = 0; k < g->n_series; k++) {
		buf_addf(out,
			 "<polyline fill=\"none\" stroke=\"%s\" "
			 "stroke-width=\"1.5\" points=\"",
			 palette[k % 6]);
		for (i = 0; i < g->n_points; i++)
			buf_addf(out, "%s%.1f,%.1f", i ? " " : "",
				 xpos(g, i, L, pw),
				 T + ph - ph * g->series[k].y[i] / max);
		buf_adds(out, "\"><title>");
		h(out, g->series[k].name);
		buf_adds(out, "</title></polyline>\n");
	}
	for (i = 0; i < g->n_peaks && g->n_series; i++) {
		size_t p = g->peaks[i];

		buf_addf(out,
			 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			 "fill=\"#c0392b\"><title>peak at +%.3f s: %s/s"
			 "</title></circle>\n",
			 xpos(g, p, L, pw),
			 T + ph - ph * g->series[0].y[p] / max,
			 (double)(g->t_ns[p] - g->t_ns[0]) / 1e9,
			 human_bytes((int64_t)g->series[0].y[p], b, sizeof(b)));
	}
	buf_adds(out, "</svg>\n");
	if (g->n_series > 1 || g->kind == FIG_LIVE) {
		buf_adds(out, "<p>");
		for (k = 0; k < g->n_series; k++) {
			buf_addf(out,
				 "%s<span style=\"color:%s\">&#9632;</span> ",
				 k ? " &nbsp; " : "", palette[k % 6]);
			h(out, g->series[k].name);
		}
		buf_adds(out, "</p>\n");
	}
}

static const char *fill_colour(double f)
{
	static const char *const c[] = {"#fff5eb", "#fee6ce", "#fdd0a2",
					"#fdae6b", "#fd8d3c", "#f16913",
					"#d94801", "#a63603", "#7f2704"};

	if (f < 0)
		return "#ffffff";
	return c[f >= 1 ? 8 : (int)(f * 8.999)];
}

static void svg_map(struct buf *out, const struct finding_figure *g)
{
	const size_t per_row = 64, cell = 11;
	size_t rows = (g->n_cells + per_row - 1) / per_row, i;
	char b[32];

	buf_addf(out,
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" "
		 "height=\"%zu\" viewBox=\"0 0 %zu %zu\" role=\"img\"><title>",
		 per_row * cell + 2, rows * cell + 2, per_row * cell + 2,
		 rows * cell + 2);
	h(out, g->title);
	buf_adds(out, "</title>\n");
	for (i = 0; i < g->n_cells; i++)
		buf_addf(out,
			 "<rect x=\"%zu\" y=\"%zu\" width=\"%zu\" "
			 "height=\"%zu\" fill=\"%s\" stroke=\"#ccc\" "
			 "stroke-width=\"0.5\"><title>cell %zu (%s): %s"
			 "</title></rect>\n",
			 1 + (i % per_row) * cell, 1 + (i / per_row) * cell,
			 cell, cell, fill_colour(g->fill[i]), i,
			 human_bytes((int64_t)g->cell_bytes, b, sizeof(b)),
			 g->fill[i] < 0	      ? "empty"
			 : g->cells[i] == '*' ? "full"
					      : "partly used");
	buf_adds(out, "</svg>\n<p>Lighter is emptier; white is free. One "
		      "cell per granule group, as in the report's space "
		      "map.</p>\n");
}

static void figure_html(struct buf *out, const struct report *r, int fig)
{
	const struct finding_figure *g = &r->found.figures[fig];

	buf_adds(out, "<figure><figcaption>");
	h(out, g->title);
	buf_adds(out, "</figcaption>\n");
	if (g->kind == FIG_MAP)
		svg_map(out, g);
	else
		svg_lines(out, g);
	buf_adds(out, "</figure>\n");
}

/* From the doctype to the links to the sections. */
static void head_html(struct buf *out, const struct report *r)
{
	buf_addf(out,
		 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		 "<meta charset=\"utf-8\">\n"
		 "<!-- made by heapsift report %s (%s) -->\n"
		 "<meta http-equiv=\"Content-Security-Policy\" "
		 "content=\"default-src 'none'; style-src "
		 "'unsafe-inline'; script-src 'unsafe-inline'\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width\">"
		 "\n<title>heapsift report: ",
		 r->version, REPORT_MARK);
	h(out, r->title);
	buf_addf(out, "</title>\n<style>%s%s</style>\n</head>\n<body>\n", css,
		 flame_css);
	buf_adds(out, "<h1>heapsift report: ");
	h(out, r->title);
	buf_adds(out, "</h1>\n<p>");
	/* the cache store's path is the analyst's, not the case's
	 * reader's: named only where a store was given */
	if (r->store_path && r->from_store) {
		buf_adds(out, "Store <code>");
		h(out, r->store_path);
		buf_adds(out, "</code>. ");
	}
	if (r->filters && *r->filters) {
		buf_adds(out, "Filters <code>");
		h(out, r->filters);
		buf_adds(out, "</code>. ");
	}
	buf_addf(out, "Made by heapsift report %s.</p>\n", r->version);
	buf_addf(out,
		 "<p><a href=\"#findings\">Findings</a> &middot; "
		 "%s<a href=\"#flamegraph\">Flame graph</a> &middot; "
		 "<a href=\"#inventory\">Inventory</a> &middot; "
		 "<a href=\"#appendix\">Appendix</a></p>\n",
		 r->cmp ? "<a href=\"#baseline\">Compared with the baseline"
			  "</a> &middot; "
			: "");
}

/* Finding i as an article, with its figure when no finding before drew
 * it (drawn[]). */
static void finding_html(struct buf *out, const struct report *r, size_t i,
			 bool *drawn)
{
	const struct finding *f = &r->found.findings[i];
	size_t k;

	buf_addf(out,
		 "<article class=\"finding %s\" id=\"f%zu\"><h3>"
		 "<span class=\"sev\">%s</span> %zu. %s",
		 finding_severity_name(f->severity), i + 1,
		 finding_severity_name(f->severity), i + 1, f->rule);
	if (f->subject) {
		buf_adds(out, ": ");
		h(out, f->subject);
	}
	buf_adds(out, "</h3>\n");
	if (report_jvm_of(r, f)) {
		struct buf j = BUF_INIT;

		report_jvm_text(&j, r, f);
		buf_adds(out, "<p class=\"jvm\">JVM: ");
		h(out, j.data);
		buf_adds(out, "</p>\n");
		buf_release(&j);
	}
	buf_adds(out, "<p>");
	h(out, f->sentence);
	buf_adds(out, "</p>\n");
	if (f->few_samples)
		buf_adds(out, "<p class=\"few\">It rests on few samples "
			      "or GCs, and is ranked lower for "
			      "it.</p>\n");
	buf_adds(out, "<ul>\n");
	for (k = 0; k < f->n_evidence; k++) {
		buf_adds(out, "<li>");
		h(out, f->evidence[k]);
		buf_adds(out, "</li>\n");
	}
	buf_adds(out, "</ul>\n");
	if (f->command) {
		buf_adds(out, "<p>More: <code>");
		h_cmd(out, f->command);
		buf_adds(out, "</code></p>\n");
	}
	if (f->fix) {
		buf_adds(out, "<p>Fix: ");
		h(out, f->fix);
		buf_adds(out, "</p>\n");
	}
	if (f->figure >= 0 && f->figure < 64 && !drawn[f->figure]) {
		drawn[f->figure] = true;
		figure_html(out, r, f->figure);
	}
	buf_adds(out, "</article>\n");
}

static void findings_html(struct buf *out, const struct report *r)
{
	size_t i, sev[3] = {0, 0, 0};
	bool drawn[64];

	memset(drawn, 0, sizeof(drawn));
	for (i = 0; i < r->found.n_findings; i++)
		sev[r->found.findings[i].severity]++;
	buf_addf(out,
		 "<section id=\"findings\"><h2>Findings</h2>\n<p>%zu "
		 "findings: %zu critical, %zu warning, %zu info, most severe "
		 "first.</p>\n",
		 r->found.n_findings, sev[FINDING_CRITICAL],
		 sev[FINDING_WARNING], sev[FINDING_INFO]);
	if (!r->found.n_findings && r->store_error) {
		buf_adds(out, "<p>Nothing was stored, so there is nothing to "
			      "judge: ");
		h(out, r->store_error);
		buf_adds(out, ".</p>\n");
	}
	for (i = 0; i < r->found.n_findings; i++)
		finding_html(out, r, i, drawn);
	buf_adds(out, "</section>\n");
}

/* The flame graph as wide as the page, saying where its samples came
 * from in one line: the recordings are the appendix's table. */
static void flame_report(struct buf *out, const struct report *r)
{
	struct buf lines = BUF_INIT;
	struct flame_info in = {
		.kind = r->flame_kind,
		.unit = "bytes",
		.library_re = QUERY_LIBRARY_DEFAULT,
	};

	if (r->n_recs == 1)
		buf_addf(&lines, "Recording %s (the appendix has its facts)",
			 r->recs[0].source);
	else
		buf_addf(&lines, "%zu recordings (the appendix lists them)",
			 r->n_recs);
	in.lines = lines.data;
	flame_svg(out, r->flame, r->n_flame, &in);
	buf_release(&lines);
}

static void flame_html(struct buf *out, const struct report *r)
{
	buf_adds(out, "<section id=\"flamegraph\"><h2>Flame graph</h2>\n");
	if (r->n_flame) {
		buf_adds(out, "<p>The call tree of the ");
		h(out, r->flame_kind);
		buf_adds(out, " samples, callers above, allocating frames "
			      "below, width the share of the bytes (frames "
			      "under 0.2% left out). Hover for the numbers; "
			      "where scripts run, click a frame to zoom, "
			      "Reset zoom to go back, and Search (or /) to "
			      "highlight the frames a regex matches.</p>\n");
		if (r->flame_jvms > 1)
			buf_addf(out,
				 "<p class=\"fleet\">It adds %zu JVMs' samples "
				 "together: a fleet picture. Each finding's "
				 "command selects its own JVM "
				 "(--recording).</p>\n",
				 r->flame_jvms);
		flame_report(out, r);
	} else {
		buf_adds(out, "<p>No allocation samples.</p>\n");
	}
	buf_adds(out, "</section>\n");
}

/* The members of the inputs and the problems met reading them. */
static void inventory_html(struct buf *out, const struct report *r)
{
	size_t i;

	buf_adds(out, "<section id=\"inventory\"><h2>Inventory</h2>\n");
	if (r->from_store)
		buf_adds(out, "<p>A store was given: its recordings are listed "
			      "in the appendix; the members of the bundles "
			      "it came from are not kept in it.</p>\n");
	if (r->n_members) {
		buf_adds(out,
			 "<div "
			 "class=\"tw\"><table><tr><th>member</th><th>kind</th>"
			 "<th>confidence</th><th>bytes</th>"
			 "<th>compression</th><th>status</th>"
			 "<th>reason</th></tr>\n");
		for (i = 0; i < r->n_members; i++) {
			const struct report_member *m = &r->members[i];

			buf_adds(out, "<tr><td class=\"w\">");
			h(out, m->display);
			buf_adds(out, "</td><td>");
			h(out, m->kind);
			buf_addf(out,
				 "</td><td class=\"n\">%d</td><td "
				 "class=\"n\">%" PRIu64 "</td><td>",
				 m->confidence, m->bytes);
			h(out, m->compression[0] ? m->compression : "none");
			buf_adds(out, "</td><td>");
			h(out, m->status);
			buf_adds(out, "</td><td class=\"w\">");
			h(out, m->reason);
			buf_adds(out, "</td></tr>\n");
		}
		buf_adds(out, "</table></div>\n");
	}
	for (i = 0; i < r->n_problems; i++) {
		buf_adds(out, "<p>Problem: ");
		h(out, r->problems[i]);
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "</section>\n");
}

static void recording_html(struct buf *out, const struct report *r, size_t i)
{
	const struct report_recording *x = &r->recs[i];
	char t[HUMAN_TIME_SIZE];
	size_t k;

	buf_addf(out, "<tr><td class=\"n\">%zu</td><td class=\"w\">", i);
	h(out, x->source);
	buf_adds(out, "</td><td>");
	h(out, x->format);
	buf_adds(out, "</td><td>");
	h(out, x->jvm[0] ? x->jvm : "not recorded");
	buf_adds(out, "</td><td class=\"n\">");
	buf_adds(out,
		 human_time(x->start_ns, 3, "(not recorded)", t, sizeof(t)));
	buf_adds(out, "</td><td class=\"n\">");
	if (x->start_ns != INT64_MIN)
		buf_addf(out, "%.3f s",
			 ((double)x->end_ns - (double)x->start_ns) / 1e9);
	buf_adds(out, "</td><td>");
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (x->samples[k])
			buf_addf(out, "%s %" PRIu64 "<br>",
				 sample_kind_name((enum sample_kind)k),
				 x->samples[k]);
	buf_addf(out, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"w\">",
		 x->gcs);
	h(out, x->sampling);
	buf_adds(out, "</td></tr>\n");
}

/* The recordings and how the estimates are made. */
static void appendix_html(struct buf *out, const struct report *r)
{
	const char *note;
	size_t i;

	buf_adds(out, "<section id=\"appendix\"><h2>Appendix</h2>\n"
		      "<h3>Recordings</h3>\n");
	if (r->n_recs)
		buf_adds(
			out,
			"<div class=\"tw\"><table><tr><th>#</th><th>source</th>"
			"<th>format</th><th>JVM</th><th>start</th>"
			"<th>span</th><th>samples</th><th>GCs</th>"
			"<th>sampling</th></tr>\n");
	for (i = 0; i < r->n_recs; i++)
		recording_html(out, r, i);
	if (r->n_recs)
		buf_adds(out, "</table></div>\n");
	buf_adds(out, "<h3>How the estimates are made</h3>\n<ul>\n");
	for (i = 0; (note = report_estimate_note(r, &i));) {
		buf_adds(out, "<li>");
		h(out, note);
		buf_adds(out, "</li>\n");
	}
	buf_adds(out, "</ul>\n</section>\n");
}

void report_render_html(const struct report *r, struct buf *out)
{
	head_html(out, r);
	findings_html(out, r);
	if (r->cmp)
		compare_html(out, r->cmp);
	flame_html(out, r);
	inventory_html(out, r);
	appendix_html(out, r);
	buf_addf(out, "<script>%s</script>\n</body>\n</html>\n", flame_script);
}
