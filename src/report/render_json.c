/*
 * The report as JSON (docs/report.schema.json, docs/report.md): every
 * finding with its figures, the inventory, the pictures' data and the
 * appendix.  Strings keep the files' spelling where it is valid UTF-8
 * (control characters, C1 ones included, and bidi overrides as \uXXXX);
 * a byte that is not valid UTF-8 becomes the text \xNN, since JSON
 * cannot carry it.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "util/buf.h"

static void str(struct buf *out, const char *s)
{
	if (s)
		buf_add_json(out, s, strlen(s), BUF_JSON_TEXT);
	else
		buf_adds(out, "null");
}

/* v[0..n) as the items of a JSON array, the brackets the caller's. */
static void str_items(struct buf *out, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		buf_adds(out, i ? ", " : "");
		str(out, v[i]);
	}
}

static void num(struct buf *out, double v)
{
	if (!isfinite(v))
		buf_adds(out, "null");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		buf_addf(out, "%.0f", v);
	else
		buf_addf(out, "%.6g", v);
}

static void time_or_null(struct buf *out, int64_t ns)
{
	if (ns == INT64_MIN)
		buf_adds(out, "null");
	else
		buf_addf(out, "%" PRId64, ns);
}

static const char *fig_kind(enum finding_figure_kind k)
{
	switch (k) {
	case FIG_RATE:
		return "rate";
	case FIG_LIVE:
		return "live";
	case FIG_HEAP:
		return "heap";
	default:
		return "map";
	}
}

/* Compared with the baseline (null without one): each side, the
 * normalization, the test, and the sites that changed. */
static void compare_json(struct buf *out, const struct report_compare *x)
{
	size_t i;

	if (!x) {
		buf_adds(out, "null");
		return;
	}
	buf_adds(out, "{\"base\": ");
	str(out, x->base);
	buf_adds(out, ", \"new\": ");
	str(out, x->new_side);
	buf_adds(out, ", \"command\": ");
	str(out, x->command);
	buf_adds(out, ", \"error\": ");
	if (x->error) {
		str(out, x->error);
		buf_addch(out, '}');
		return;
	}
	buf_adds(out, "null, \"kind\": ");
	str(out, x->kind);
	buf_addf(out,
		 ", \"by\": \"site\", \"normalization\": \"%s\", "
		 "\"test\": \"%s\", \"estimate\": ",
		 x->per_second ? "per_second" : "total", x->test);
	if (x->estimate)
		str(out, x->estimate);
	else
		buf_adds(out, "null");
	buf_adds(out, ", \"alpha\": ");
	num(out, x->alpha);
	buf_adds(out, ", \"seconds\": [");
	num(out, x->seconds[0]);
	buf_adds(out, ", ");
	num(out, x->seconds[1]);
	buf_addf(out,
		 "], \"samples\": [%" PRIu64 ", %" PRIu64 "], \"value\": [",
		 x->samples[0], x->samples[1]);
	num(out, x->value[0]);
	buf_adds(out, ", ");
	num(out, x->value[1]);
	buf_addf(out,
		 "], \"rows_compared\": %zu, \"rows_changed\": %zu, "
		 "\"sentence\": ",
		 x->n_compared, x->n_changed);
	str(out, x->sentence);
	buf_adds(out, ", \"rows\": [");
	for (i = 0; i < x->n_changed; i++) {
		const struct report_cmp_row *r = &x->rows[i];

		buf_adds(out, i ? ",\n    " : "\n    ");
		buf_adds(out, "{\"site\": ");
		str(out, r->site);
		buf_addf(out,
			 ", \"base_samples\": %" PRIu64
			 ", \"new_samples\": %" PRIu64 ", \"base_value\": ",
			 r->samples[0], r->samples[1]);
		num(out, r->value[0]);
		buf_adds(out, ", \"new_value\": ");
		num(out, r->value[1]);
		buf_adds(out, ", \"delta\": ");
		num(out, r->delta);
		buf_adds(out, ", \"ratio\": ");
		num(out, r->ratio);
		buf_adds(out, ", \"p_value\": ");
		buf_addf(out, "%.10g", r->p);
		buf_adds(out, ", \"q_value\": ");
		buf_addf(out, "%.10g", r->q);
		buf_addf(out, ", \"change\": \"%s\"}",
			 report_cmp_change(r->change));
	}
	buf_adds(out, "]}");
}

/* A finding's JVM: its recordings' ids (indexes of "recordings"), the
 * first one's source, its name and pid; null where it names none. */
static void jvm_json(struct buf *out, const struct query_jvm *j)
{
	size_t i;

	if (!j) {
		buf_adds(out, "null");
		return;
	}
	buf_adds(out, "{\"ids\": [");
	for (i = 0; i < j->n_recs; i++)
		buf_addf(out, "%s%" PRIu32, i ? ", " : "", j->recs[i]);
	buf_adds(out, "], \"source\": ");
	str(out, j->source);
	buf_adds(out, ", \"jvm\": ");
	str(out, j->name);
	buf_adds(out, ", \"pid\": ");
	if (j->pid >= 0)
		buf_addf(out, "%" PRId64, j->pid);
	else
		buf_adds(out, "null");
	buf_addch(out, '}');
}

/* Finding i (rank i + 1) as an object, after a comma when not the
 * first. */
static void finding_json(struct buf *out, const struct report *r, size_t i)
{
	const struct finding *f = &r->found.findings[i];
	size_t k;

	buf_addf(out, "%s\n    {\"rank\": %zu, \"rule\": ", i ? "," : "",
		 i + 1);
	str(out, f->rule);
	buf_adds(out, ", \"severity\": ");
	str(out, finding_severity_name(f->severity));
	buf_addf(out, ", \"few_samples\": %s,\n     \"subject\": ",
		 f->few_samples ? "true" : "false");
	str(out, f->subject);
	buf_adds(out, ",\n     \"sentence\": ");
	str(out, f->sentence);
	buf_adds(out, ",\n     \"evidence\": [");
	str_items(out, f->evidence, f->n_evidence);
	buf_adds(out, "],\n     \"command\": ");
	str(out, f->command);
	buf_adds(out, ",\n     \"fix\": ");
	str(out, f->fix);
	buf_adds(out, ",\n     \"figures\": {");
	for (k = 0; k < f->n_facts; k++) {
		buf_adds(out, k ? ", " : "");
		str(out, f->facts[k].name);
		buf_adds(out, ": {\"value\": ");
		num(out, f->facts[k].value);
		buf_adds(out, ", \"unit\": ");
		str(out, f->facts[k].unit);
		buf_addch(out, '}');
	}
	buf_adds(out, "},\n     \"figure\": ");
	if (f->figure >= 0)
		buf_addf(out, "%d", f->figure);
	else
		buf_adds(out, "null");
	buf_adds(out, ",\n     \"recording\": ");
	jvm_json(out, report_jvm_of(r, f));
	buf_addch(out, '}');
}

/* The members of the inputs and the problems met reading them. */
static void inventory_json(struct buf *out, const struct report *r)
{
	size_t i;

	buf_adds(out, "{\"members\": [");
	for (i = 0; i < r->n_members; i++) {
		const struct report_member *m = &r->members[i];

		buf_adds(out, i ? ",\n    " : "\n    ");
		buf_adds(out, "{\"member\": ");
		str(out, m->display);
		buf_adds(out, ", \"kind\": ");
		str(out, m->kind);
		buf_addf(out,
			 ", \"confidence\": %d, \"bytes\": %" PRIu64
			 ", \"compression\": ",
			 m->confidence, m->bytes);
		str(out, m->compression);
		buf_adds(out, ", \"status\": ");
		str(out, m->status);
		buf_addf(out,
			 ", \"recordings\": %u, \"reason\": ", m->recordings);
		str(out, m->reason);
		buf_addch(out, '}');
	}
	buf_adds(out, "],\n    \"problems\": [");
	str_items(out, r->problems, r->n_problems);
	buf_adds(out, "]}");
}

/* A picture's data, the i-th of the list. */
static void figure_json(struct buf *out, const struct finding_figure *g,
			size_t i)
{
	size_t k, j;

	buf_adds(out, i ? ",\n    " : "\n    ");
	buf_adds(out, "{\"kind\": ");
	str(out, fig_kind(g->kind));
	buf_adds(out, ", \"title\": ");
	str(out, g->title);
	buf_adds(out, ", \"unit\": ");
	str(out, g->unit);
	buf_adds(out, ",\n     \"time_ns\": [");
	for (k = 0; k < g->n_points && g->kind != FIG_MAP; k++)
		buf_addf(out, "%s%" PRId64, k ? ", " : "", g->t_ns[k]);
	buf_adds(out, "],\n     \"covered_ns\": ");
	if (g->covered_ns) {
		for (k = 0; k < g->n_points; k++)
			buf_addf(out, "%s%" PRId64, k ? ", " : "[",
				 g->covered_ns[k]);
		buf_adds(out, g->n_points ? "]" : "[]");
	} else {
		buf_adds(out, "null");
	}
	buf_adds(out, ",\n     \"series\": [");
	for (k = 0; k < g->n_series; k++) {
		buf_adds(out, k ? ", " : "");
		buf_adds(out, "{\"name\": ");
		str(out, g->series[k].name);
		buf_adds(out, ", \"y\": [");
		for (j = 0; j < g->n_points; j++) {
			buf_adds(out, j ? ", " : "");
			num(out, g->series[k].y[j]);
		}
		buf_adds(out, "]}");
	}
	buf_adds(out, "],\n     \"peaks\": [");
	for (k = 0; k < g->n_peaks; k++)
		buf_addf(out, "%s%zu", k ? ", " : "", g->peaks[k]);
	buf_adds(out, "], \"cells\": ");
	if (g->cells)
		str(out, g->cells);
	else
		buf_adds(out, "null");
	buf_addf(out, ", \"cell_bytes\": %" PRIu64 "}", g->cell_bytes);
}

/* The flame graph's nodes, parents before children; null without. */
static void flame_json(struct buf *out, const struct report *r)
{
	size_t i;

	if (!r->n_flame) {
		buf_adds(out, "null");
		return;
	}
	buf_adds(out, "{\"kind\": ");
	str(out, r->flame_kind);
	buf_addf(out, ", \"jvms\": %zu", r->flame_jvms);
	buf_adds(out, ", \"nodes\": [");
	for (i = 0; i < r->n_flame; i++) {
		const struct flame_node *fn = &r->flame[i];

		buf_adds(out, i ? ",\n    " : "\n    ");
		buf_adds(out, "{\"label\": ");
		str(out, fn->label);
		buf_adds(out, ", \"parent\": ");
		if (fn->parent == UINT32_MAX)
			buf_adds(out, "null");
		else
			buf_addf(out, "%u", fn->parent);
		buf_addf(out,
			 ", \"depth\": %u, \"bytes\": %" PRId64
			 ", \"samples\": %" PRIu64 ", \"x\": ",
			 fn->depth, fn->bytes, fn->samples);
		num(out, fn->x);
		buf_addch(out, '}');
	}
	buf_adds(out, "]}");
}

/* Recording i of the appendix. */
static void recording_json(struct buf *out, const struct report_recording *x,
			   size_t i)
{
	bool first = true;
	size_t k;

	buf_adds(out, i ? ",\n    " : "\n    ");
	buf_adds(out, "{\"source\": ");
	str(out, x->source);
	buf_adds(out, ", \"format\": ");
	str(out, x->format);
	buf_adds(out, ", \"jvm\": ");
	str(out, x->jvm);
	buf_adds(out, ", \"start_ns\": ");
	time_or_null(out, x->start_ns);
	buf_adds(out, ", \"end_ns\": ");
	time_or_null(out, x->start_ns == INT64_MIN ? INT64_MIN : x->end_ns);
	buf_addf(out, ", \"chunks\": %u, \"samples\": {", x->n_chunks);
	for (k = 0; k < SAMPLE__COUNT; k++) {
		if (!x->samples[k])
			continue;
		buf_adds(out, first ? "" : ", ");
		first = false;
		str(out, sample_kind_name((enum sample_kind)k));
		buf_addf(out, ": %" PRIu64, x->samples[k]);
	}
	buf_addf(out,
		 "}, \"bytes_skipped\": %" PRIu64 ", \"gcs\": %" PRIu64
		 ", \"sampling\": ",
		 x->bytes_skipped, x->gcs);
	str(out, x->sampling);
	buf_adds(out, ", \"settings\": [");
	str_items(out, x->settings, x->n_settings);
	buf_adds(out, "]}");
}

void report_render_json(const struct report *r, struct buf *out)
{
	const char *note;
	bool first;
	size_t i;

	buf_adds(out, "{\n  \"generator\": ");
	str(out, "heapsift report");
	buf_adds(out, ",\n  \"mark\": ");
	str(out, REPORT_MARK);
	buf_adds(out, ",\n  \"version\": ");
	str(out, r->version);
	buf_adds(out, ",\n  \"schema\": 1,\n  \"title\": ");
	str(out, r->title);
	buf_adds(out, ",\n  \"store\": ");
	str(out, r->store_path);
	buf_addf(out, ",\n  \"from_store\": %s,\n  \"filters\": ",
		 r->from_store ? "true" : "false");
	str(out, r->filters ? r->filters : "");
	buf_adds(out, ",\n  \"findings\": [");
	for (i = 0; i < r->found.n_findings; i++)
		finding_json(out, r, i);
	buf_adds(out, "\n  ],\n  \"inventory\": ");
	inventory_json(out, r);
	buf_adds(out, ",\n  \"figures\": [");
	for (i = 0; i < r->found.n_figures; i++)
		figure_json(out, &r->found.figures[i], i);
	buf_adds(out, "],\n  \"baseline\": ");
	compare_json(out, r->cmp);
	buf_adds(out, ",\n  \"flame\": ");
	flame_json(out, r);
	buf_adds(out, ",\n  \"recordings\": [");
	for (i = 0; i < r->n_recs; i++)
		recording_json(out, &r->recs[i], i);
	buf_adds(out, "],\n  \"estimates\": [");
	for (i = 0, first = true; (note = report_estimate_note(r, &i));
	     first = false) {
		buf_adds(out, first ? "\n    " : ",\n    ");
		str(out, note);
	}
	buf_adds(out, "]\n}\n");
}
