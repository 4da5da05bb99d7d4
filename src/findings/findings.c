/*
 * The findings' model (findings.h): adding findings, evidence, facts
 * and figures, running the rules of rules.c, the ranking, and the
 * commands' quoting.  The rules themselves are in rules.c; rendering
 * is the front ends' (src/report/, src/tui/view_findings.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#include "findings/findings_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

const char *finding_severity_name(enum finding_severity s)
{
	switch (s) {
	case FINDING_CRITICAL:
		return "critical";
	case FINDING_WARNING:
		return "warning";
	default:
		return "info";
	}
}

struct finding *findings_add(struct findings_ctx *c, const char *rule,
			     enum finding_severity sev)
{
	struct findings *fs = c->out;
	struct finding *f;

	fs->findings = xreallocarray(fs->findings, fs->n_findings + 1,
				     sizeof(*fs->findings));
	f = &fs->findings[fs->n_findings++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->severity = sev;
	f->figure = -1;
	f->jvm = c->jvm;
	return f;
}

void finding_add_evidence(struct finding *f, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	f->evidence =
		xreallocarray(f->evidence, f->n_evidence + 1, sizeof(char *));
	f->evidence[f->n_evidence++] = buf_detach(&b, NULL);
}

void finding_add_fact(struct finding *f, const char *name, double value,
		      const char *unit)
{
	if (f->n_facts >= FINDING_MAX_FACTS || !isfinite(value))
		return;
	f->facts[f->n_facts].name = name;
	f->facts[f->n_facts].value = value;
	f->facts[f->n_facts].unit = unit;
	f->n_facts++;
}

struct finding *findings_move(struct findings_ctx *c, struct findings *from,
			      size_t i)
{
	struct findings *to = c->out;
	struct finding *f = findings_add(c, from->findings[i].rule,
					 from->findings[i].severity);

	*f = from->findings[i];
	f->jvm = c->jvm;
	memset(&from->findings[i], 0, sizeof(from->findings[i]));
	from->findings[i].figure = -1;
	if (f->figure >= 0 && (size_t)f->figure < from->n_figures) {
		to->figures = xreallocarray(to->figures, to->n_figures + 1,
					    sizeof(*to->figures));
		to->figures[to->n_figures] = from->figures[f->figure];
		memset(&from->figures[f->figure], 0,
		       sizeof(from->figures[f->figure]));
		f->figure = (int)to->n_figures++;
	} else {
		f->figure = -1;
	}
	return f;
}

int findings_add_figure(struct findings *fs, enum finding_figure_kind kind,
			const char *title, const char *unit, size_t n_points)
{
	struct finding_figure *g;

	fs->figures = xreallocarray(fs->figures, fs->n_figures + 1,
				    sizeof(*fs->figures));
	g = &fs->figures[fs->n_figures];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->title = xstrdup(title);
	g->unit = unit;
	g->n_points = n_points;
	g->t_ns = xcalloc(n_points ? n_points : 1, sizeof(int64_t));
	return (int)fs->n_figures++;
}

static void figure_release(struct finding_figure *g)
{
	size_t k;

	free(g->title);
	free(g->t_ns);
	free(g->covered_ns);
	for (k = 0; k < g->n_series; k++) {
		free(g->series[k].name);
		free(g->series[k].y);
	}
	free(g->series);
	free(g->peaks);
	free(g->cells);
	free(g->fill);
}

void findings_drop_figure(struct findings *fs)
{
	if (fs->n_figures)
		figure_release(&fs->figures[--fs->n_figures]);
}

int findings_query(struct findings_ctx *c, int kind, const char *key,
		   enum query_group by, struct query **q, struct err *e)
{
	struct query_options o = *c->filters;

	if (kind >= 0)
		o.kind = kind;
	if (key) {
		o.key = key;
		o.key_by = (int)by;
	}
	return query_open(c->s, &o, q, e);
}

const char *findings_duration(int64_t ns, char *out, size_t size)
{
	if (ns < 0)
		snprintf(out, size, "-");
	else if (ns < 1000000000ll)
		snprintf(out, size, "%.0f ms", (double)ns / 1e6);
	else if (ns < 600000000000ll)
		snprintf(out, size, "%.1f s", (double)ns / 1e9);
	else
		snprintf(out, size, "%.1f min", (double)ns / 6e10);
	return out;
}

void findings_shell_word(struct buf *out, const char *s)
{
	const char *p;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
			    "XYZ0123456789_-+=.,/:@%") == strlen(s)) {
		buf_adds(out, s);
		return;
	}
	buf_addch(out, '\'');
	for (p = s; *p; p++)
		if (*p == '\'')
			buf_adds(out, "'\\''");
		else
			buf_addch(out, *p);
	buf_addch(out, '\'');
}

void findings_regex_literal(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			buf_addch(out, '\\');
		buf_addch(out, *s);
	}
}

static int by_severity(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	/* a finding on too few samples ranks below the others of its
	 * severity */
	if (x->severity != y->severity)
		return x->severity < y->severity ? 1 : -1;
	if (x->few_samples != y->few_samples)
		return x->few_samples ? 1 : -1;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return strcmp(x->rule, y->rule);
}

bool findings_rec_in_scope(const struct findings_ctx *c, uint32_t rec)
{
	return query_options_keep_recording(c->filters, rec);
}

bool findings_jvm_text(struct buf *out, const struct findings *fs,
		       const struct finding *f)
{
	const struct query_jvm *j;
	size_t i;

	if (f->jvm < 0 || (size_t)f->jvm >= fs->n_jvms)
		return false;
	j = &fs->jvms[f->jvm];
	buf_adds(out, j->name);
	/* "JVM of recording 0" says its recording already */
	if (j->pid >= 0 || j->n_recs > 1) {
		buf_addf(out, ", recording%s ", j->n_recs == 1 ? "" : "s");
		for (i = 0; i < j->n_recs; i++)
			buf_addf(out, "%s%" PRIu32, i ? "," : "", j->recs[i]);
	}
	buf_addf(out, " (%s", j->source);
	if (j->n_recs > 1)
		buf_addf(out, " and %zu more", j->n_recs - 1);
	buf_addch(out, ')');
	return true;
}

/* " --recording=N,N..": the option that selects recs[0..n-1]. */
static char *jvm_option(const uint32_t *recs, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_adds(&b, " --recording=");
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%" PRIu32, i ? "," : "", recs[i]);
	return buf_detach(&b, NULL);
}

/* The rules on one JVM, j of c->out->jvms: its recordings are the
 * filters' (where the store has more than one JVM), its samples the
 * kinds the rules see. */
static int jvm_rules(struct findings_ctx *c, struct query *q, size_t j,
		     struct err *e)
{
	const struct query_jvm *jv = &c->out->jvms[j];
	const struct query_recording *recs;
	const struct finding_rule *rule;
	struct query_options o = *c->filters;
	const struct query_options *user = c->filters;
	uint32_t *kept;
	size_t n_recs, n_kept = 0, i;
	char *args = NULL;
	int rc = 0;
	int k;

	/* the JVM's recordings that the user's filters keep */
	kept = xcalloc(jv->n_recs ? jv->n_recs : 1, sizeof(*kept));
	for (i = 0; i < jv->n_recs; i++)
		if (query_options_keep_recording(user, jv->recs[i]))
			kept[n_kept++] = jv->recs[i];
	if (!n_kept) {
		free(kept); /* the user's --recording is another JVM's */
		return 0;
	}
	c->jvm = (int)j;
	c->jvm_args = "";
	if (c->out->n_jvms > 1) {
		/* this JVM's samples alone, and commands that say so */
		o.recordings = kept;
		o.n_recordings = n_kept;
		memset(c->kind_counts, 0, sizeof(c->kind_counts));
		query_recordings(q, &recs, &n_recs);
		for (i = 0; i < n_kept; i++)
			if (kept[i] < n_recs)
				for (k = 0; k < SAMPLE__COUNT; k++)
					c->kind_counts[k] +=
						recs[kept[i]].samples[k];
		/* the user's --recording=N holds one JVM's only; a list
		 * of several JVMs' is narrowed to this one's (the last
		 * --recording given is the one a command takes) */
		if (user->recording < 0 &&
		    (!user->recordings || n_kept < user->n_recordings) &&
		    n_kept <= FINDINGS_MAX_RECS) {
			args = jvm_option(kept, n_kept);
			c->jvm_args = args;
		}
	} else {
		query_kind_counts(q, c->kind_counts);
	}
	c->filters = &o;
	for (rule = finding_rule_table; rule->name; rule++)
		if (rule->fn(c, rule, e) < 0) {
			rc = ERR_FAIL;
			break;
		}
	c->filters = user;
	c->jvm_args = "";
	free(args);
	free(kept);
	return rc;
}

int query_findings(struct store *s, const struct query_options *filters,
		   const char *store_arg, const char *filter_args,
		   struct findings *out, struct err *e)
{
	struct findings_ctx c;
	struct query_options o = *filters;
	struct query *q;
	size_t j;

	/* a drill-down is a view's, not the findings' */
	o.key = NULL;
	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.s = s;
	c.filters = &o;
	c.store_arg = store_arg;
	c.filter_args = filter_args ? filter_args : "";
	c.jvm_args = "";
	c.out = out;
	if (findings_query(&c, -1, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	query_jvms(q, &out->jvms, &out->n_jvms);
	/* each JVM alone, one ranking of them all */
	for (j = 0; j < out->n_jvms; j++)
		if (jvm_rules(&c, q, j, e) < 0) {
			query_free(q);
			findings_release(out);
			return ERR_FAIL;
		}
	query_free(q);
	if (out->n_findings > 1)
		qsort(out->findings, out->n_findings, sizeof(*out->findings),
		      by_severity);
	return 0;
}

void findings_release(struct findings *fs)
{
	size_t i, k;

	for (i = 0; i < fs->n_findings; i++) {
		struct finding *f = &fs->findings[i];

		free(f->subject);
		free(f->sentence);
		for (k = 0; k < f->n_evidence; k++)
			free(f->evidence[k]);
		free(f->evidence);
		free(f->command);
		free(f->fix);
	}
	free(fs->findings);
	for (i = 0; i < fs->n_figures; i++)
		figure_release(&fs->figures[i]);
	free(fs->figures);
	query_jvms_free(fs->jvms, fs->n_jvms);
	memset(fs, 0, sizeof(*fs));
}
