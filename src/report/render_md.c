/*
 * The report as Markdown to paste into a ticket (CommonMark with pipe
 * tables, as GitHub, GitLab and pandoc read it).  Every string from a
 * file is cleaned (report_clean) and then every ASCII punctuation mark
 * in it is backslash-escaped, so a class or file name can neither make
 * markup nor raw HTML; commands go into code spans with a fence longer
 * than any run of backticks in them.  Charts are fenced code blocks of
 * our own characters only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/report_chart.h"
#include "report/report.h"
#include "util/buf.h"

static void md(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;
	size_t i;

	report_clean(&c, s);
	for (i = 0; i < c.len; i++) {
		unsigned char ch = (unsigned char)c.data[i];

		if (ch < 0x80 && strchr("\\`*_{}[]()#+-.!|<>&~$^@", ch) && ch)
			buf_addch(out, '\\');
		buf_addch(out, ch);
	}
	buf_release(&c);
}

static void code_span(struct buf *out, const char *s)
{
	struct buf c = BUF_INIT;
	size_t i, run = 0, longest = 0, k;

	report_clean_command(&c, s);
	for (i = 0; i < c.len; i++) {
		run = c.data[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (k = 0; k <= longest; k++)
		buf_addch(out, '`');
	buf_addch(out, ' ');
	buf_add(out, c.data, c.len);
	buf_addch(out, ' ');
	for (k = 0; k <= longest; k++)
		buf_addch(out, '`');
	buf_release(&c);
}

/* Compared with the baseline: the sentence and a table of the sites
 * that changed. */
static void compare_md(struct buf *out, const struct report_compare *x)
{
	char b0[48], b1[48], b2[48], ra[16];
	size_t i;

	buf_adds(out, "\n## Compared with the baseline\n\nBase: ");
	md(out, x->base);
	buf_adds(out, "; new: ");
	md(out, x->new_side);
	buf_adds(out, ".\n\n");
	if (x->error) {
		buf_adds(out, "Cannot compare: ");
		md(out, x->error);
		buf_adds(out, "\n");
		return;
	}
	md(out, x->sentence);
	buf_addch(out, '\n');
	if (!x->n_changed)
		buf_adds(out, "\nNo site changed beyond noise.\n");
	else
		buf_addf(out,
			 "\n| site | base%s | new%s | change | ratio | "
			 "samples base | samples new | q | |\n"
			 "| --- | ---: | ---: | ---: | ---: | ---: | ---: | "
			 "---: | --- |\n",
			 x->per_second ? "/s" : "", x->per_second ? "/s" : "");
	for (i = 0; i < x->n_changed; i++) {
		const struct report_cmp_row *r = &x->rows[i];

		buf_adds(out, "| ");
		md(out, r->site);
		buf_adds(out, " | ");
		md(out,
		   report_cmp_value(x, r->value[0], false, b0, sizeof(b0)));
		buf_adds(out, " | ");
		md(out,
		   report_cmp_value(x, r->value[1], false, b1, sizeof(b1)));
		buf_adds(out, " | ");
		md(out, report_cmp_value(x, r->delta, true, b2, sizeof(b2)));
		buf_adds(out, " | ");
		md(out, report_cmp_ratio(r->ratio, ra, sizeof(ra)));
		buf_addf(out, " | %" PRIu64 " | %" PRIu64 " | ", r->samples[0],
			 r->samples[1]);
		snprintf(b0, sizeof(b0), "%.2g", r->q);
		md(out, b0);
		buf_addf(out, " | %s |\n", report_cmp_change(r->change));
	}
	buf_adds(out, "\nMore: ");
	code_span(out, x->command);
	buf_addch(out, '\n');
}

static void figure_md(struct buf *out, const struct report *r, int fig)
{
	const struct finding_figure *g = &r->found.figures[fig];
	size_t i;

	buf_adds(out, "\n*");
	md(out, g->title);
	buf_adds(out, "*\n\n```text\n");
	if (g->kind == FIG_RATE || g->kind == FIG_HEAP) {
		report_chart_columns(out, g, 60, 6, "");
	} else if (g->kind == FIG_MAP) {
		report_chart_map(out, g, 64, "");
	} else {
		for (i = 0; i < g->n_series; i++) {
			buf_addf(out, "%zu ", i + 1);
			report_chart_spark(out, g->series[i].y, g->n_points,
					   40);
			buf_addch(out, '\n');
		}
	}
	buf_adds(out, "```\n");
	for (i = 0; g->kind == FIG_LIVE && i < g->n_series; i++) {
		buf_addf(out, "%s%zu: ", i ? "; " : "\n", i + 1);
		md(out, g->series[i].name);
		if (i + 1 == g->n_series)
			buf_addch(out, '\n');
	}
}

/* The count by severity and the table of the findings. */
static void summary_md(struct buf *out, const struct report *r)
{
	size_t i, sev[3] = {0, 0, 0};

	for (i = 0; i < r->found.n_findings; i++)
		sev[r->found.findings[i].severity]++;
	buf_addf(out, "%zu findings: %zu critical, %zu warning, %zu info.\n\n",
		 r->found.n_findings, sev[FINDING_CRITICAL],
		 sev[FINDING_WARNING], sev[FINDING_INFO]);
	if (!r->found.n_findings && r->store_error) {
		buf_adds(out, "Nothing was stored, so there is nothing to "
			      "judge: ");
		md(out, r->store_error);
		buf_adds(out, ".\n\n");
	}
	if (!r->found.n_findings)
		return;
	buf_adds(out, "| # | severity | rule | about | JVM |\n"
		      "|---:|---|---|---|---|\n");
	for (i = 0; i < r->found.n_findings; i++) {
		const struct finding *f = &r->found.findings[i];

		buf_addf(out, "| %zu | %s%s | %s | ", i + 1,
			 finding_severity_name(f->severity),
			 f->few_samples ? " (few samples)" : "", f->rule);
		md(out, f->subject ? f->subject : "");
		buf_adds(out, " | ");
		if (report_jvm_of(r, f))
			md(out, report_jvm_of(r, f)->name);
		buf_adds(out, " |\n");
	}
}

/* Finding i in full, with its figure when no finding before drew it
 * (drawn[]). */
static void finding_md(struct buf *out, const struct report *r, size_t i,
		       bool *drawn)
{
	const struct finding *f = &r->found.findings[i];
	size_t k;

	buf_addf(out, "\n### %zu. %s: %s", i + 1,
		 finding_severity_name(f->severity), f->rule);
	if (f->subject) {
		buf_adds(out, ": ");
		md(out, f->subject);
	}
	buf_adds(out, "\n\n");
	if (report_jvm_of(r, f)) {
		struct buf j = BUF_INIT;

		report_jvm_text(&j, r, f);
		buf_adds(out, "JVM: ");
		md(out, j.data);
		buf_adds(out, "\n\n");
		buf_release(&j);
	}
	md(out, f->sentence);
	if (f->few_samples)
		buf_adds(out, " *It rests on few samples or GCs, and "
			      "is ranked lower for it.*");
	buf_adds(out, "\n\n");
	for (k = 0; k < f->n_evidence; k++) {
		buf_adds(out, "- ");
		md(out, f->evidence[k]);
		buf_addch(out, '\n');
	}
	if (f->command) {
		buf_adds(out, "\nMore: ");
		code_span(out, f->command);
		buf_addch(out, '\n');
	}
	if (f->fix) {
		buf_adds(out, "\nFix: ");
		md(out, f->fix);
		buf_addch(out, '\n');
	}
	if (f->figure >= 0 && f->figure < 64 && !drawn[f->figure]) {
		drawn[f->figure] = true;
		figure_md(out, r, f->figure);
	}
}

/* The members of the inputs and the problems met reading them. */
static void inventory_md(struct buf *out, const struct report *r)
{
	size_t i;

	buf_adds(out, "\n## Inventory\n\n");
	if (r->from_store)
		buf_adds(out, "A store was given: its recordings are listed "
			      "in the appendix; the members of the bundles it "
			      "came from are not kept in it.\n");
	if (r->n_members) {
		buf_adds(out, "| member | kind | confidence | bytes | "
			      "compression | status | reason |\n"
			      "|---|---|---:|---:|---|---|---|\n");
		for (i = 0; i < r->n_members; i++) {
			const struct report_member *m = &r->members[i];

			buf_adds(out, "| ");
			md(out, m->display);
			buf_addf(out, " | %s | %d | %" PRIu64 " | ", m->kind,
				 m->confidence, m->bytes);
			md(out, m->compression[0] ? m->compression : "none");
			buf_addf(out, " | %s | ", m->status);
			md(out, m->reason);
			buf_adds(out, " |\n");
		}
	}
	for (i = 0; i < r->n_problems; i++) {
		buf_adds(out, "\nProblem: ");
		md(out, r->problems[i]);
		buf_addch(out, '\n');
	}
}

static void recording_md(struct buf *out, const struct report *r, size_t i)
{
	const struct report_recording *x = &r->recs[i];
	struct buf smp = BUF_INIT;
	size_t k;

	buf_addf(out, "| %zu | ", i);
	md(out, x->source);
	buf_adds(out, " | ");
	md(out, x->format);
	buf_adds(out, " | ");
	md(out, x->jvm[0] ? x->jvm : "not recorded");
	if (x->start_ns != INT64_MIN)
		buf_addf(out, " | %.3f s | ",
			 ((double)x->end_ns - (double)x->start_ns) / 1e9);
	else
		buf_adds(out, " | not recorded | ");
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (x->samples[k])
			buf_addf(&smp, "%s%s %" PRIu64, smp.len ? ", " : "",
				 sample_kind_name((enum sample_kind)k),
				 x->samples[k]);
	md(out, smp.data);
	buf_addf(out, " | %" PRIu64 " | ", x->gcs);
	md(out, x->sampling);
	buf_adds(out, " |\n");
	buf_release(&smp);
}

/* The recordings and how the estimates are made. */
static void appendix_md(struct buf *out, const struct report *r)
{
	const char *note;
	size_t i;

	buf_adds(out, "\n## Appendix: recordings\n\n");
	if (r->n_recs)
		buf_adds(out, "| # | source | format | JVM | span | samples | "
			      "GCs | sampling |\n"
			      "|---:|---|---|---|---:|---|---:|---|\n");
	for (i = 0; i < r->n_recs; i++)
		recording_md(out, r, i);
	buf_adds(out, "\n## Appendix: how the estimates are made\n\n");
	for (i = 0; (note = report_estimate_note(r, &i));) {
		buf_adds(out, "- ");
		md(out, note);
		buf_addch(out, '\n');
	}
}

void report_render_md(const struct report *r, struct buf *out)
{
	size_t i;
	bool drawn[64];

	memset(drawn, 0, sizeof(drawn));
	/* the mark in Markdown's comment, before the title */
	buf_addf(out, "<!-- %s: written by heapsift report %s -->\n",
		 REPORT_MARK, r->version);
	buf_addf(out, "# heapsift report: ");
	md(out, r->title);
	buf_addf(out, "\n\nMade by heapsift report %s", r->version);
	if (r->store_path) {
		buf_adds(out, " from the store ");
		code_span(out, r->store_path);
	}
	if (r->filters && *r->filters) {
		buf_adds(out, " with the filters ");
		code_span(out, r->filters);
	}
	buf_adds(out, ".\n\n## Findings\n\n");
	summary_md(out, r);
	for (i = 0; i < r->found.n_findings; i++)
		finding_md(out, r, i, drawn);
	if (r->cmp)
		compare_md(out, r->cmp);
	inventory_md(out, r);
	appendix_md(out, r);
}
