/*
 * The report's model (report.h): adding findings, facts and figures,
 * running the rules, the flame graph and the appendix, the sort, and
 * the helpers every renderer shares (cleaning names from files, shell
 * words, sizes).  The findings come from query_findings() (src/query/).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/diff.h"
#include "findings/findings.h"
#include "report/report.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/xalloc.h"

/* buf_add_printable()'s spelling, by its rule (utf8_printable_len()),
 * but with a choice to keep backslashes: the commands' are the regexes'
 * own (docs/report.md). */
static void clean(struct buf *out, const char *s, bool keep_backslash)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		if (p[i] == '\\' && !keep_backslash) {
			buf_adds(out, "\\\\");
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			buf_addf(out, "\\x%02x", p[i]);
			i++;
		} else if ((n = utf8_printable_len(p + i, len - i)) != 0) {
			buf_add(out, p + i, n);
			i += n;
		} else {
			/* a whole sequence that decodes to a refused code
			 * point is escaped byte by byte */
			buf_addf(out, "\\x%02x", p[i]);
			i++;
		}
	}
}

const char *report_cmp_value(const struct report_compare *x, double v,
			     bool sign, char *out, size_t size)
{
	char b[32];
	double a = fabs(v);

	human_bytes(a < 9.2e18 ? (int64_t)llround(a) : INT64_MAX, b, sizeof(b));
	snprintf(out, size, "%s%s%s",
		 v < 0		 ? "-"
		 : v > 0 && sign ? "+"
				 : "",
		 b, x->per_second ? "/s" : "");
	return out;
}

const char *report_cmp_ratio(double ratio, char *out, size_t size)
{
	if (isinf(ratio))
		snprintf(out, size, "new");
	else if (isnan(ratio))
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%.2fx", ratio);
	return out;
}

const char *report_cmp_change(int change)
{
	return change > 0 ? "grew" : change < 0 ? "shrank" : "";
}

static const struct {
	const char *name;
	enum report_format f;
} format_table[] = {
	{"text", REPORT_TEXT},
	{"md", REPORT_MD},
	{"html", REPORT_HTML},
	{"json", REPORT_JSON},
};

bool report_format_parse(const char *s, enum report_format *f)
{
	size_t i;

	if (!strcmp(s, "markdown")) /* md's long name */
		s = "md";
	for (i = 0; i < sizeof(format_table) / sizeof(format_table[0]); i++)
		if (!strcmp(s, format_table[i].name)) {
			*f = format_table[i].f;
			return true;
		}
	return false;
}

const char *report_format_word(size_t i)
{
	return i < sizeof(format_table) / sizeof(format_table[0])
		       ? format_table[i].name
		       : NULL;
}

void report_render(const struct report *r, enum report_format f,
		   struct buf *out)
{
	switch (f) {
	case REPORT_MD:
		report_render_md(r, out);
		break;
	case REPORT_HTML:
		report_render_html(r, out);
		break;
	case REPORT_JSON:
		report_render_json(r, out);
		break;
	default:
		report_render_text(r, out);
	}
}

/* The appendix's notes on how the estimates are made; those of other
 * writers' kinds only where the report has samples of them. */
#define KINDS_AP (1u << SAMPLE_AP_ALLOC | 1u << SAMPLE_AP_LIVE)
#define KINDS_DD (1u << SAMPLE_DD_ALLOC | 1u << SAMPLE_DD_LIVE)
static const struct {
	unsigned kinds; /* 1 << enum sample_kind; 0: always shown */
	const char *text;
} report_estimate_notes[] = {
	{0, "jdk.ObjectAllocationSample: where the recording has OutsideTLAB "
	    "events, each of them counts its bytes at its own stack and the "
	    "sample whose weight held them keeps the rest (the corrected "
	    "estimate); else estimated bytes are the sum of the events' "
	    "weight, every byte the thread allocated since its previous "
	    "sample, which can be far off for sites of large objects; the "
	    "uncertainty printed is the relative standard error of the "
	    "weights, sqrt(sum of squared weights) / estimate "
	    "(docs/estimates.md)"},
	{0, "jdk.ObjectAllocationInNewTLAB: tlabSize; "
	    "jdk.ObjectAllocationOutsideTLAB: allocationSize, exact for every "
	    "allocation outside a TLAB that the recording kept"},
	{0, "heapsift agent samples: Poisson sampling with mean interval I "
	    "(HotSpot): an object of size s weighs s / (1 - exp(-s/I)) bytes; "
	    "systematic sampling (OpenJ9): an object smaller than I weighs I "
	    "bytes, a larger one its size"},
	{0, "jdk.OldObjectSample: each event is one sampled object alive when "
	    "the recording ended, counted as one sample (sizes from JDK 21)"},
	{KINDS_AP,
	 "async-profiler's allocation samples (written as "
	 "jdk.ObjectAllocationInNewTLAB, tlabSize = max(s, I)) and its "
	 "profiler.LiveObject: JVMTI's Poisson samples, an object of size s "
	 "weighing s / (1 - exp(-s/I)) at the recording's interval I, where "
	 "async-profiler's converter counts max(s, I); a live object is one "
	 "not yet collected when the profiler stopped (no GC forced); the "
	 "JDK's jdk.ObjectAllocationSample is absent from such recordings "
	 "because async-profiler holds JVMTI's sampler (its alloc setting "
	 "is I, 0 for 524287)"},
	{KINDS_DD,
	 "datadog.ObjectSample and datadog.HeapLiveObject: size x the weight "
	 "the writer gave each sample (1 / (1 - exp(-s/I)) at the interval "
	 "of the moment, its subsampling's skipped bytes added for live "
	 "objects)"},
	{0,
	 "survivors: an object is live from its allocation until it is found "
	 "dead (the first check after the GC that collected it), or to the "
	 "end of its recording; a leak suspect's live set rises at several "
	 "points, seldom falls, still grows in the later half and ends near "
	 "its peak (heapsift(1), survivors --leaks)"},
	{0,
	 "live-set growth is judged as JDK Mission Control's IncreasingLiveSet "
	 "rule does: heap used after each GC, after a warm-up of the first "
	 "fifth of the recording, by least squares, against 1% of the mean "
	 "per second, and only with at least 5 GCs after the warm-up"},
	{0, NULL},
};

const char *report_estimate_note(const struct report *r, size_t *i)
{
	unsigned have = 0;
	size_t k, j;

	for (k = 0; k < r->n_recs; k++)
		for (j = 0; j < SAMPLE__COUNT; j++)
			if (r->recs[k].samples[j])
				have |= 1u << j;
	while (report_estimate_notes[*i].text) {
		size_t at = (*i)++;

		if (!report_estimate_notes[at].kinds ||
		    (report_estimate_notes[at].kinds & have))
			return report_estimate_notes[at].text;
	}
	return NULL;
}

void report_clean(struct buf *out, const char *s)
{
	clean(out, s, false);
}

void report_clean_command(struct buf *out, const char *s)
{
	clean(out, s, true);
}

/* --- building ------------------------------------------------------------ */

/* How many JVMs of the findings' (r->found.jvms) hold a recording the
 * filters keep. */
static size_t flame_jvms(const struct report_ctx *c)
{
	const struct findings *fs = &c->r->found;
	size_t j, k, n = 0;

	for (j = 0; j < fs->n_jvms; j++)
		for (k = 0; k < fs->jvms[j].n_recs; k++)
			if (query_options_keep_recording(c->filters,
							 fs->jvms[j].recs[k])) {
				n++;
				break;
			}
	return n;
}

/* The flame graph: the call tree of the default kind (query_flame(),
 * which export --format=svg draws too). */
static int build_flame(struct report_ctx *c, struct err *e)
{
	struct query *q;
	struct report *r = c->r;
	uint64_t counts[SAMPLE__COUNT];
	int rc;

	if (query_open(c->s, c->filters, &q, e) < 0)
		return ERR_FAIL;
	query_kind_counts(q, counts);
	if (query_kind(q) == SAMPLE_OLD_OBJECT && !counts[query_kind(q)]) {
		query_free(q);
		return 0;
	}
	rc = query_flame(q, &r->flame, &r->n_flame, e);
	if (rc == 0 && r->n_flame)
		r->flame_kind = xstrdup(sample_kind_name(query_kind(q)));
	r->flame_jvms = flame_jvms(c);
	query_free(q);
	return rc;
}

/* The appendix: each recording's facts and sampling settings. */
static int build_recordings(struct report_ctx *c, struct err *e)
{
	const struct query_recording *recs;
	struct report *r = c->r;
	struct query *q;
	size_t n, i, k;

	if (query_open(c->s, c->filters, &q, e) < 0)
		return ERR_FAIL;
	query_recordings(q, &recs, &n);
	r->recs = xcalloc(n ? n : 1, sizeof(*r->recs));
	r->n_recs = n;
	for (i = 0; i < n; i++) {
		struct report_recording *x = &r->recs[i];
		const char **names, **values;
		struct query_heap_point *hp;
		size_t n_hp, n_set;
		struct buf smp = BUF_INIT;
		enum rec_fact fact;

		x->source = xstrdup(recs[i].source);
		x->format = xstrdup(recs[i].format);
		if (recs[i].jvm_name[0] &&
		    !human_version_has_name(recs[i].jvm_name,
					    recs[i].jvm_version))
			x->jvm = buf_strf("%s %s", recs[i].jvm_name,
					  recs[i].jvm_version);
		else
			x->jvm = xstrdup(recs[i].jvm_version);
		x->start_ns = recs[i].start_ns;
		x->end_ns = recs[i].end_ns;
		x->n_chunks = recs[i].n_chunks;
		memcpy(x->samples, recs[i].samples, sizeof(x->samples));
		x->bytes_skipped = recs[i].bytes_skipped;
		if (query_heap_summaries(q, (uint32_t)i, "After GC", &hp, &n_hp,
					 e) < 0) {
			query_free(q);
			return ERR_FAIL;
		}
		free(hp);
		x->gcs = n_hp;
		n_set = query_settings(q, (uint32_t)i, &names, &values);
		x->settings = xcalloc(n_set ? n_set : 1, sizeof(char *));
		for (k = 0; k < n_set; k++) {
			x->settings[x->n_settings++] =
				buf_strf("%s=%s", names[k], values[k]);
			/* the writers and what nobody read, from the
			 * importer (import_jfr_facts.c) */
			fact = rec_setting_fact(names[k]);
			if (fact != REC_FACT_NONE) {
				buf_addf(&smp, "%s%s %s", smp.len ? "; " : "",
					 fact == REC_FACT_IS_WRITERS
						 ? "written by"
						 : "heap events not read:",
					 values[k]);
				continue;
			}
			/* the sampling intervals, on a line of their own */
			if (strstr(names[k], "#throttle") ||
			    strstr(names[k], "#alloc") ||
			    strstr(names[k], "#threshold") ||
			    strstr(names[k], "interval") ||
			    strstr(names[k], "sampl"))
				buf_addf(&smp, "%s%s=%s", smp.len ? ", " : "",
					 names[k], values[k]);
		}
		x->sampling = buf_detach(&smp, NULL);
		free(names);
		free(values);
	}
	query_free(q);
	return 0;
}

/* The comparison with the baseline: the sites that changed beyond
 * noise, as heapsift diff --by site finds them.  A comparison that
 * cannot be made (no samples of one kind on both sides) is said in the
 * section, not an error of the report. */
static int build_compare(struct report_ctx *c, struct err *e)
{
	struct report_compare *x = xcalloc(1, sizeof(*x));
	struct query_options on = *c->base_new;
	struct query *q[2] = {NULL, NULL};
	const struct diff_table *t;
	struct diff_options dopt;
	struct diff *d = NULL;
	struct err de;
	size_t i, k;
	int rc = 0;

	c->r->cmp = x;
	x->base = xstrdup(c->base_name);
	x->new_side = xstrdup(c->new_name);
	/* filter_args: each word after a space */
	x->command =
		buf_strf("heapsift diff %s %s --by site%s", c->diff_arg,
			 c->base_args, c->filter_args ? c->filter_args : "");
	err_init(&de);
	if (query_open(c->s, c->base, &q[0], e) < 0)
		return ERR_FAIL;
	/* the kind the base shows, on both sides */
	if (on.kind < 0)
		on.kind = (int)query_kind(q[0]);
	if (query_open(c->s, &on, &q[1], e) < 0) {
		rc = ERR_FAIL;
		goto out;
	}
	/* one estimate on both sides (docs/diff.md): a side that gives
	 * another is opened again with the one both can give */
	{
		struct query_options ob = *c->base;
		enum query_estimate est = diff_estimate_choose(
			q[0], c->base, q[1], &on, c->base->estimate);

		if (query_kind(q[0]) == SAMPLE_ALLOC &&
		    query_estimate(q[0]) != est) {
			query_free(q[0]);
			q[0] = NULL;
			ob.estimate = (int)est;
			if (query_open(c->s, &ob, &q[0], e) < 0) {
				rc = ERR_FAIL;
				goto out;
			}
		}
		if (query_kind(q[1]) == SAMPLE_ALLOC &&
		    query_estimate(q[1]) != est) {
			query_free(q[1]);
			q[1] = NULL;
			on.estimate = (int)est;
			if (query_open(c->s, &on, &q[1], e) < 0) {
				rc = ERR_FAIL;
				goto out;
			}
		}
	}
	x->kind = xstrdup(sample_kind_name(query_kind(q[0])));
	diff_options_init(&dopt);
	/* per second where both sides' lengths are known */
	dopt.total = !(diff_side_seconds(q[0], c->base) > 0 &&
		       diff_side_seconds(q[1], &on) > 0);
	if (diff_open(q[0], c->base, q[1], &on, &dopt, &d, &de) < 0 ||
	    diff_top(d, GROUP_SITE, &t, &de) < 0) {
		x->error = xstrdup(de.msg);
		goto out;
	}
	x->per_second = t->per_second;
	x->test = t->test == DIFF_TEST_WEIGHTS ? "weights"
		  : t->test == DIFF_TEST_SHARE ? "shares"
					       : "rates";
	x->estimate =
		t->estimate >= 0
			? query_estimate_name((enum query_estimate)t->estimate)
			: NULL;
	x->alpha = t->alpha;
	for (k = 0; k < 2; k++) {
		x->seconds[k] = t->seconds[k];
		x->samples[k] = t->samples[k];
		x->value[k] = t->value[k];
	}
	x->n_compared = t->n_rows;
	x->n_changed = t->n_changed;
	x->rows = xcalloc(t->n_changed ? t->n_changed : 1, sizeof(*x->rows));
	for (i = 0, k = 0; i < t->n_rows && k < t->n_changed; i++) {
		const struct diff_row *dr = &t->rows[i];
		struct report_cmp_row *r = &x->rows[k];

		if (!dr->change)
			continue;
		r->site = xstrdup(dr->key);
		r->samples[0] = dr->samples[0];
		r->samples[1] = dr->samples[1];
		r->value[0] = dr->value[0];
		r->value[1] = dr->value[1];
		r->delta = dr->delta;
		r->ratio = dr->ratio;
		r->p = dr->p;
		r->q = dr->q;
		r->change = dr->change;
		k++;
	}
	x->sentence = buf_strf(
		"%s of %s by site, %s against %s, %s: %zu of %zu sites "
		"changed beyond noise (%s; Benjamini-Hochberg at %g)%s%s.",
		x->per_second ? "Estimated bytes per second of recording"
			      : "Estimated bytes in all",
		x->kind, x->new_side, x->base,
		x->per_second ? "each side divided by its seconds of "
				"recording"
			      : "not divided by time (a side's length is "
				"not known)",
		x->n_changed, x->n_compared, diff_test_text(t->test), x->alpha,
		t->estimate_note ? "; " : "",
		t->estimate_note ? t->estimate_note : "");
out:
	diff_free(d);
	query_free(q[0]);
	query_free(q[1]);
	return rc;
}

int report_build(struct report_ctx *c, struct err *e)
{
	if (query_findings(c->s, c->filters, c->store_arg, c->filter_args,
			   &c->r->found, e) < 0)
		return ERR_FAIL;
	if (c->base && build_compare(c, e) < 0)
		return ERR_FAIL;
	if (build_flame(c, e) < 0 || build_recordings(c, e) < 0)
		return ERR_FAIL;
	return 0;
}

static void free_strs(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void report_release(struct report *r)
{
	size_t i;

	findings_release(&r->found);
	for (i = 0; i < r->n_flame; i++)
		free(r->flame[i].label);
	free(r->flame);
	free(r->flame_kind);
	for (i = 0; i < r->n_members; i++) {
		struct report_member *m = &r->members[i];

		free(m->display);
		free(m->kind);
		free(m->compression);
		free(m->status);
		free(m->reason);
	}
	free(r->members);
	free_strs(r->problems, r->n_problems);
	free(r->store_error);
	for (i = 0; i < r->n_recs; i++) {
		struct report_recording *x = &r->recs[i];

		free(x->source);
		free(x->format);
		free(x->jvm);
		free(x->sampling);
		free_strs(x->settings, x->n_settings);
	}
	free(r->recs);
	if (r->cmp) {
		struct report_compare *x = r->cmp;

		for (i = 0; i < x->n_changed && x->rows; i++)
			free(x->rows[i].site);
		free(x->rows);
		free(x->base);
		free(x->new_side);
		free(x->kind);
		free(x->sentence);
		free(x->command);
		free(x->error);
		free(x);
	}
	free(r->title);
	free(r->store_path);
	free(r->version);
	free(r->filters);
	memset(r, 0, sizeof(*r));
}

const struct query_jvm *report_jvm_of(const struct report *r,
				      const struct finding *f)
{
	if (f->jvm < 0 || (size_t)f->jvm >= r->found.n_jvms)
		return NULL;
	return &r->found.jvms[f->jvm];
}

void report_jvm_text(struct buf *out, const struct report *r,
		     const struct finding *f)
{
	findings_jvm_text(out, &r->found, f);
}
