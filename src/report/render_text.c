/*
 * The report as plain text for a terminal: findings first, then the
 * inventory and the appendix; charts made of characters.  Every string
 * from a file goes through report_clean(), so no control character or
 * invalid UTF-8 reaches the terminal.
 */
#include <inttypes.h>
#include <string.h>

#include "report/report_chart.h"
#include "report/report.h"
#include "util/buf.h"
#include "util/human.h"

static void put(struct buf *out, const char *s)
{
	report_clean(out, s);
}

static void figure_text(struct buf *out, const struct report *r, int fig)
{
	const struct finding_figure *g;
	size_t i;

	if (fig < 0 || (size_t)fig >= r->found.n_figures)
		return;
	g = &r->found.figures[fig];
	buf_adds(out, "   ");
	put(out, g->title);
	buf_adds(out, ":\n");
	if (g->kind == FIG_RATE || g->kind == FIG_HEAP) {
		report_chart_columns(out, g, 60, 6, "   ");
		return;
	}
	if (g->kind == FIG_MAP) {
		report_chart_map(out, g, 64, "   ");
		return;
	}
	for (i = 0; i < g->n_series; i++) {
		buf_adds(out, "   ");
		report_chart_spark(out, g->series[i].y, g->n_points, 40);
		buf_adds(out, "  ");
		put(out, g->series[i].name);
		buf_addch(out, '\n');
	}
}

static void finding_text(struct buf *out, const struct report *r, size_t k,
			 bool *drawn)
{
	const struct finding *f = &r->found.findings[k];
	size_t i;

	buf_addf(out, "%zu. [%s] %s", k + 1, finding_severity_name(f->severity),
		 f->rule);
	if (f->subject) {
		buf_adds(out, ": ");
		put(out, f->subject);
	}
	buf_addch(out, '\n');
	if (report_jvm_of(r, f)) {
		struct buf j = BUF_INIT;

		report_jvm_text(&j, r, f);
		buf_adds(out, "   jvm:  ");
		put(out, j.data);
		buf_addch(out, '\n');
		buf_release(&j);
	}
	buf_adds(out, "   ");
	put(out, f->sentence);
	buf_addch(out, '\n');
	if (f->few_samples)
		buf_adds(out, "   (rests on few samples or GCs: ranked "
			      "lower)\n");
	for (i = 0; i < f->n_evidence; i++) {
		buf_adds(out, "   - ");
		put(out, f->evidence[i]);
		buf_addch(out, '\n');
	}
	if (f->command) {
		buf_adds(out, "   more: ");
		report_clean_command(out, f->command);
		buf_addch(out, '\n');
	}
	if (f->fix) {
		buf_adds(out, "   fix:  ");
		put(out, f->fix);
		buf_addch(out, '\n');
	}
	/* a figure shared by several findings is drawn once */
	if (f->figure >= 0 && !drawn[f->figure]) {
		drawn[f->figure] = true;
		figure_text(out, r, f->figure);
	}
	buf_addch(out, '\n');
}

/* Compared with the baseline: the sentence, the sites that changed. */
static void compare_text(struct buf *out, const struct report_compare *x)
{
	char b0[48], b1[48], b2[48], ra[16];
	size_t i;

	buf_adds(out, "COMPARED WITH THE BASELINE (base: ");
	put(out, x->base);
	buf_adds(out, "; new: ");
	put(out, x->new_side);
	buf_adds(out, ")\n");
	if (x->error) {
		buf_adds(out, "Cannot compare: ");
		put(out, x->error);
		buf_adds(out, "\n\n");
		return;
	}
	put(out, x->sentence);
	buf_addch(out, '\n');
	buf_addf(out,
		 "base: %.3f s, %" PRIu64 " samples; new: %.3f s, %" PRIu64
		 " samples\n",
		 x->seconds[0], x->samples[0], x->seconds[1], x->samples[1]);
	if (!x->n_changed)
		buf_adds(out, "No site changed beyond noise.\n");
	else
		buf_addf(out, "%12s %12s %13s %7s %7s %7s %9s %-6s %s\n",
			 x->per_second ? "BASE/s" : "BASE",
			 x->per_second ? "NEW/s" : "NEW", "CHANGE", "RATIO",
			 "N_BASE", "N_NEW", "Q", "", "SITE");
	for (i = 0; i < x->n_changed; i++) {
		const struct report_cmp_row *r = &x->rows[i];

		buf_addf(
			out,
			"%12s %12s %13s %7s %7" PRIu64 " %7" PRIu64
			" %9.2g %-6s ",
			report_cmp_value(x, r->value[0], false, b0, sizeof(b0)),
			report_cmp_value(x, r->value[1], false, b1, sizeof(b1)),
			report_cmp_value(x, r->delta, true, b2, sizeof(b2)),
			report_cmp_ratio(r->ratio, ra, sizeof(ra)),
			r->samples[0], r->samples[1], r->q,
			report_cmp_change(r->change));
		put(out, r->site);
		buf_addch(out, '\n');
	}
	buf_adds(out, "more: ");
	report_clean_command(out, x->command);
	buf_adds(out, "\n\n");
}

/* The findings, then the figures no finding drew. */
static void findings_text(struct buf *out, const struct report *r)
{
	size_t i, sev[3] = {0, 0, 0};
	bool drawn[64];

	memset(drawn, 0, sizeof(drawn));
	for (i = 0; i < r->found.n_findings; i++)
		sev[r->found.findings[i].severity]++;
	buf_addf(out,
		 "\nFINDINGS (%zu: %zu critical, %zu warning, %zu info)"
		 "\n\n",
		 r->found.n_findings, sev[FINDING_CRITICAL],
		 sev[FINDING_WARNING], sev[FINDING_INFO]);
	if (!r->found.n_findings && r->store_error) {
		buf_adds(out, "Nothing was stored, so there is nothing to "
			      "judge: ");
		put(out, r->store_error);
		buf_adds(out, ".\n\n");
	} else if (!r->found.n_findings) {
		buf_adds(out, r->store_path ? "No rule fired.\n\n"
					    : "Nothing could be imported, so "
					      "there is nothing to judge.\n\n");
	}
	for (i = 0; i < r->found.n_findings; i++)
		finding_text(out, r, i, drawn);
	for (i = 0; i < r->found.n_figures && i < 64; i++)
		if (!drawn[i]) {
			figure_text(out, r, (int)i);
			buf_addch(out, '\n');
		}
}

/* The flame graph's heaviest path, from the root always into the
 * heaviest child: what a terminal can show of it. */
static void heaviest_path_text(struct buf *out, const struct report *r)
{
	const struct flame_node *fn = r->flame;
	size_t at = 0, k;

	buf_adds(out, "HEAVIEST CALL PATH (");
	put(out, r->flame_kind);
	if (r->flame_jvms > 1)
		buf_addf(out,
			 " of %zu JVMs together, a fleet picture: "
			 "--recording picks one JVM's",
			 r->flame_jvms);
	buf_adds(out, "; the HTML report has the flame graph)\n");
	for (;;) {
		size_t best = SIZE_MAX;

		for (k = at + 1; k < r->n_flame; k++)
			if (fn[k].parent == at &&
			    (best == SIZE_MAX || fn[k].bytes > fn[best].bytes))
				best = k;
		if (best == SIZE_MAX)
			break;
		buf_addf(out, "  %5.1f%%  %*s",
			 100.0 * (double)fn[best].bytes / (double)fn[0].bytes,
			 (int)(fn[best].depth > 30 ? 30 : fn[best].depth), "");
		put(out, fn[best].label);
		buf_addch(out, '\n');
		at = best;
	}
	buf_addch(out, '\n');
}

/* The members of the inputs and the problems met reading them. */
static void inventory_text(struct buf *out, const struct report *r)
{
	size_t i;

	buf_adds(out, "INVENTORY\n");
	if (r->from_store)
		buf_adds(out, "A store was given: its recordings are listed "
			      "below; the members of the bundles it came "
			      "from are not kept in it.\n");
	else
		buf_addf(out, "%-9s %4s %12s  %-11s %-10s %s\n", "KIND", "CONF",
			 "BYTES", "COMPRESSION", "STATUS", "MEMBER");
	for (i = 0; i < r->n_members; i++) {
		const struct report_member *m = &r->members[i];

		buf_addf(out, "%-9s %4d %12" PRIu64 "  %-11s %-10s ", m->kind,
			 m->confidence, m->bytes,
			 m->compression[0] ? m->compression : "-", m->status);
		put(out, m->display);
		buf_addch(out, '\n');
		if (m->reason[0]) {
			buf_adds(out, "          ");
			put(out, m->reason);
			buf_addch(out, '\n');
		}
	}
	for (i = 0; i < r->n_problems; i++) {
		buf_adds(out, "problem: ");
		put(out, r->problems[i]);
		buf_addch(out, '\n');
	}
}

static void recording_text(struct buf *out, const struct report *r, size_t i)
{
	const struct report_recording *x = &r->recs[i];
	char t[HUMAN_TIME_SIZE];
	size_t k;

	buf_addf(out, "recording %zu: ", i);
	put(out, x->source);
	buf_adds(out, "\n  format   ");
	put(out, x->format); /* the store's word: a forged one has anything */
	buf_addf(out, ", %u chunk%s; jvm ", x->n_chunks,
		 x->n_chunks == 1 ? "" : "s");
	put(out, x->jvm[0] ? x->jvm : "(not recorded)");
	buf_adds(out, "\n  time     ");
	buf_adds(out,
		 human_time(x->start_ns, 3, "(not recorded)", t, sizeof(t)));
	if (x->start_ns != INT64_MIN) {
		buf_adds(out, " .. ");
		buf_adds(out, human_time(x->end_ns, 3, "(not recorded)", t,
					 sizeof(t)));
		buf_addf(out, " (%.3f s)",
			 ((double)x->end_ns - (double)x->start_ns) / 1e9);
	}
	buf_adds(out, "\n  samples ");
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (x->samples[k])
			buf_addf(out, " %s %" PRIu64,
				 sample_kind_name((enum sample_kind)k),
				 x->samples[k]);
	buf_addf(out, "; %" PRIu64 " GCs seen", x->gcs);
	if (x->bytes_skipped)
		buf_addf(out, "; %" PRIu64 " bytes damaged, skipped",
			 x->bytes_skipped);
	buf_addch(out, '\n');
	if (x->sampling[0]) {
		buf_adds(out, "  sampling ");
		put(out, x->sampling);
		buf_addch(out, '\n');
	}
}

void report_render_text(const struct report *r, struct buf *out)
{
	const char *note;
	size_t i;

	/* the mark before the title, whose length the inputs set */
	buf_addf(out, "heapsift report %s (%s)\ninputs: ", r->version,
		 REPORT_MARK);
	put(out, r->title);
	buf_addch(out, '\n');
	/* the cache store's path is the analyst's, not the case's
	 * reader's: named only where a store was given */
	if (r->store_path && r->from_store) {
		buf_adds(out, "store: ");
		put(out, r->store_path);
		buf_addch(out, '\n');
	}
	if (r->filters && *r->filters) {
		buf_adds(out, "filters: ");
		put(out, r->filters);
		buf_addch(out, '\n');
	}
	findings_text(out, r);
	if (r->cmp)
		compare_text(out, r->cmp);
	if (r->n_flame > 1)
		heaviest_path_text(out, r);
	inventory_text(out, r);
	buf_adds(out, "\nAPPENDIX: RECORDINGS\n");
	for (i = 0; i < r->n_recs; i++)
		recording_text(out, r, i);
	buf_adds(out, "\nAPPENDIX: HOW THE ESTIMATES ARE MADE\n");
	for (i = 0; (note = report_estimate_note(r, &i));)
		buf_addf(out, "- %s\n", note);
}
