/*
 * The report's rules: finding_rule_table[] is the one list (name, what
 * it reads, when it fires, how severe, what it means), and each row has
 * a function that asks the query layer and adds findings.  To add a
 * rule, add a row and a function; docs/report.md lists the rows, and
 * `heapsift report --rules` prints them.  This file holds the table and
 * the rules on allocation (hot spots, the rate, large arrays, the
 * estimates' caveats); rules_survivors.c the leak suspects among what
 * survives, rules_heap.c the heap after GC and the old objects,
 * rules_codeheap.c the code heaps' (rules_int.h is what they share).
 *
 * Thresholds are constants beside the rules that use them, with the
 * reason for each; a finding that rests on fewer than FEW_SAMPLES
 * samples says so and is ranked below the others of its severity.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_codeheap.h"
#include "findings/findings.h"
#include "findings/findings_int.h"
#include "findings/rules_int.h"
#include "util/buf.h"
#include "util/size.h"
#include "util/xalloc.h"

/* a site with this share of the bytes is a hot spot */
#define HOT_SHARE 0.20
/* an allocation rate worth a warning (bytes/s): a GC every few seconds
 * on a heap of a few GB */
#define HIGH_RATE 1e9

const char *rules_kind_opt(enum sample_kind k)
{
	return sample_kind_word(k);
}

char *rules_command(struct findings_ctx *c, const char *view, const char *args)
{
	return buf_strf("heapsift %s %s%s%s%s%s", view, c->store_arg,
			*args ? " " : "", args, c->filter_args, c->jvm_args);
}

static char *include_arg(const char *key)
{
	struct buf re = BUF_INIT, w = BUF_INIT;
	const char *colon = strrchr(key, ':');
	size_t len = colon ? (size_t)(colon - key) : strlen(key);
	char *method = xmalloc(len + 1);

	memcpy(method, key, len);
	method[len] = '\0';

	/* --include takes class.method; the site adds :line */
	buf_addch(&re, '^');
	findings_regex_literal(&re, method);
	buf_addch(&re, '$');
	buf_adds(&w, "--include=");
	buf_adds(&w, re.data);
	buf_release(&re);
	free(method);
	re = w;
	buf_init(&w);
	findings_shell_word(&w, re.data);
	buf_release(&re);
	return buf_detach(&w, NULL);
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* The kind allocation findings use: the filters' kind, else the
 * query's default when it is an allocation kind. */
static int alloc_kind(struct findings_ctx *c)
{
	static const int order[] = {SAMPLE_ALLOC,    SAMPLE_AGENT,
				    SAMPLE_AP_ALLOC, SAMPLE_DD_ALLOC,
				    SAMPLE_TLAB_NEW, SAMPLE_TLAB_OUTSIDE};
	size_t i;

	if (c->filters->kind >= 0)
		return sample_kind_live(c->filters->kind) ? -1
							  : c->filters->kind;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (c->kind_counts[order[i]])
			return order[i];
	return -1;
}

/* --- allocation hot spots ------------------------------------------------- */

int rules_top_rows(struct findings_ctx *c, int kind, const char *key,
		   enum query_group key_by, enum query_group by,
		   struct query **q, const struct query_row **rows, size_t *n,
		   struct query_total *t, struct err *e)
{
	if (findings_query(c, kind, key, key_by, q, e) < 0)
		return ERR_FAIL;
	if (query_top(*q, by, rows, n, t, e) < 0) {
		query_free(*q);
		*q = NULL;
		return ERR_FAIL;
	}
	return 0;
}

static void list_rows(struct finding *f, const char *what,
		      const struct query_row *rows, size_t n, size_t max)
{
	size_t i;
	char b[32];

	for (i = 0; i < n && i < max; i++) {
		double rel = isnan(rows[i].rel_err) ? 1.0 : rows[i].rel_err;

		/* the standard error of the weights (query_row.rel_err),
		 * printed to two significant digits */
		finding_add_evidence(
			f,
			"%s %zu: %s, %.1f%% of the bytes (%s, %" PRIu64
			" samples, +/-%.*f%%%s)",
			what, i + 1, rows[i].key, 100 * rows[i].share,
			human_bytes(rows[i].est_bytes, b, sizeof(b)),
			rows[i].samples, 100 * rel < 9.95 ? 1 : 0, 100 * rel,
			rows[i].bias == QUERY_BIAS_FEW
				? "; few effective samples: biased"
			: rows[i].bias == QUERY_BIAS_MIXED
				? "; large objects partly in TLABs: "
				  "biased"
			: rows[i].bias == QUERY_BIAS_OUTSIDE
				? "; large objects HotSpot samples too "
				  "seldom: low"
				: "");
	}
}

/* The seconds the query's samples come from: the time its recordings
 * cover (query_covered()), not the span of its samples, which starts at
 * the first sample and ends at the last; the samples' span where the
 * recordings' times do not hold the samples (a damaged store). */
static double rules_covered_s(struct query *q, const struct query_total *t)
{
	int64_t c = query_covered(q, NULL, NULL);

	return c > 0 ? (double)c / 1e9
		     : (double)(t->last_ns - t->first_ns) / 1e9;
}

static int rule_hot_spots(struct findings_ctx *c,
			  const struct finding_rule *rule, struct err *e)
{
	const struct query_row *rows, *sub;
	struct query_total t, ts;
	struct query *q, *qs = NULL, *qt = NULL;
	struct finding *f;
	size_t n, ns, i;
	int kind = alloc_kind(c);
	enum query_group groups[] = {GROUP_APP_SITE, GROUP_CLASS};
	const char *names[] = {"app-site", "class"};
	char b1[32], b2[32], b3[32];
	char *key;

	if (kind < 0)
		return 0;
	if (rules_top_rows(c, kind, NULL, GROUP_SITE, GROUP_SITE, &q, &rows, &n,
			   &t, e) < 0)
		return ERR_FAIL;
	if (!n || rows[0].share < HOT_SHARE || t.est_bytes <= 0) {
		query_free(q);
		return 0;
	}
	key = xstrdup(rows[0].key);
	f = findings_add(c, rule->name,
			 rows[0].share >= 0.5 ? FINDING_WARNING : FINDING_INFO);
	f->weight = rows[0].share;
	f->subject = xstrdup(key);
	f->few_samples = rows[0].samples < FEW_SAMPLES;
	/* the thread that does most of it */
	if (rules_top_rows(c, kind, key, GROUP_SITE, GROUP_THREAD, &qs, &sub,
			   &ns, &ts, e) < 0) {
		query_free(q);
		free(key);
		return ERR_FAIL;
	}
	f->sentence = buf_strf(
		"%s allocates %.0f%% of the sampled bytes (%s of %s)%s%s%s%s.",
		key, 100 * rows[0].share,
		human_bytes(rows[0].est_bytes, b1, sizeof(b1)),
		human_bytes(t.est_bytes, b2, sizeof(b2)),
		ns ? ", mostly on thread " : "", ns ? sub[0].key : "",
		ns ? (snprintf(b3, sizeof(b3), " (%.0f%%)", 100 * sub[0].share),
		      b3)
		   : "",
		f->few_samples ? "; it rests on few samples" : "");
	finding_add_fact(f, "share", 100 * rows[0].share, "%");
	finding_add_fact(f, "bytes", (double)rows[0].est_bytes, "bytes");
	finding_add_fact(f, "samples", (double)rows[0].samples, "samples");
	finding_add_fact(f, "total_bytes", (double)t.est_bytes, "bytes");
	finding_add_evidence(f,
			     "%s samples, %" PRIu64 " in all, from %.3f s of "
			     "recording",
			     sample_kind_name((enum sample_kind)kind),
			     t.samples, rules_covered_s(q, &t));
	list_rows(f, "site", rows, n, 3);
	for (i = 0; i < 2; i++) {
		const struct query_row *gr;
		struct query_total gt;
		size_t gn;

		if (rules_top_rows(c, kind, NULL, GROUP_SITE, groups[i], &qt,
				   &gr, &gn, &gt, e) < 0) {
			query_free(q);
			query_free(qs);
			free(key);
			return ERR_FAIL;
		}
		list_rows(f, names[i], gr, gn, 2);
		query_free(qt);
	}
	for (i = 0; i < ns && i < 2; i++)
		finding_add_evidence(
			f,
			"thread of the top site: %s, %.0f%% (%" PRIu64
			" samples)",
			sub[i].key, 100 * sub[i].share, sub[i].samples);
	{
		char *inc = include_arg(key);
		char *a = buf_strf("--kind=%s --inverted %s",
				   rules_kind_opt((enum sample_kind)kind), inc);

		f->command = rules_command(c, "tree", a);
		free(a);
		free(inc);
	}
	f->fix = xstrdup("Allocate less at this site: reuse buffers, size "
			 "collections up front, avoid boxing and copies; "
			 "the inverted tree shows which callers to change.");
	query_free(qs);
	query_free(q);
	free(key);
	return 0;
}

/* --- large arrays ------------------------------------------------------------ */

/* G1's region size as JDK 17's ergonomics pick it: the heap's reserved
 * size / 2048, a power of two between 1 and 32 MiB.  *not_g1: the
 * recordings name their collectors (jdk.GarbageCollection, store 4.1)
 * and none is G1's. */
static int64_t region_size(struct findings_ctx *c, struct query *q, bool *known,
			   bool *not_g1)
{
	const struct query_recording *recs;
	size_t n, r;
	int64_t reserved = 0, region = 1 << 20;
	struct err e;

	bool g1 = false, other = false;

	*known = false;
	err_init(&e);
	query_recordings(q, &recs, &n);
	for (r = 0; r < n; r++) {
		struct query_heap_point *p;
		size_t np, i;

		if (!findings_rec_in_scope(c, (uint32_t)r))
			continue;
		if (query_heap_summaries(q, (uint32_t)r, "After GC", &p, &np,
					 &e) < 0)
			continue;
		for (i = 0; i < np; i++) {
			if (p[i].reserved != REC_NONE &&
			    p[i].reserved > reserved)
				reserved = p[i].reserved;
			if (p[i].name && !strncmp(p[i].name, "G1", 2))
				g1 = true;
			else if (p[i].name)
				other = true;
		}
		free(p);
	}
	*not_g1 = other && !g1;
	if (reserved > 0) {
		*known = true;
		while (region < (32 << 20) && region * 2 <= reserved / 2048)
			region *= 2;
	}
	return region;
}

static int rule_large_arrays(struct findings_ctx *c,
			     const struct finding_rule *rule, struct err *e)
{
	static const enum sample_kind kinds[] = {
		SAMPLE_TLAB_OUTSIDE, SAMPLE_AGENT, SAMPLE_AP_ALLOC,
		SAMPLE_DD_ALLOC, SAMPLE_OLD_OBJECT};
	struct query *q;
	int64_t region;
	bool known, not_g1;
	size_t k;

	if (findings_query(c, -1, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	region = region_size(c, q, &known, &not_g1);
	query_free(q);
	/* humongous objects are G1's: under another collector (Parallel,
	 * Serial, ZGC, Shenandoah) nothing here follows from the events */
	if (not_g1)
		return 0;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct query_size_row *rows;
		struct finding *f;
		struct query_total t;
		const struct query_row *all;
		size_t n, i, n_all;
		uint64_t objs = 0;
		int64_t bytes = 0;
		char b1[32], b2[32], b3[32];
		char *a;

		if (!c->kind_counts[kinds[k]])
			continue;
		if (findings_query(c, kinds[k], NULL, GROUP_SITE, &q, e) < 0)
			return ERR_FAIL;
		/* G1: an object of half a region or more is humongous */
		rows = NULL;
		if (query_large_objects(q, region / 2, &rows, &n, e) < 0 ||
		    query_top(q, GROUP_SITE, &all, &n_all, &t, e) < 0) {
			free(rows); /* the rows, when only query_top failed */
			query_free(q);
			return ERR_FAIL;
		}
		for (i = 0; i < n; i++) {
			objs += rows[i].objects;
			bytes += rows[i].bytes;
		}
		if (!n) {
			free(rows);
			query_free(q);
			continue;
		}
		if (kinds[k] == SAMPLE_OLD_OBJECT) {
			/* the rows are the last emission's objects, once
			 * each: so is the whole they are a share of */
			struct query_evidence ev;

			if (query_evidence(q, &ev, e) < 0) {
				free(rows);
				query_free(q);
				return ERR_FAIL;
			}
			t.est_bytes = ev.size_alive > 0 ? ev.size_alive : 0;
		}
		f = findings_add(c, rule->name,
				 kinds[k] != SAMPLE_OLD_OBJECT &&
						 pct((double)bytes,
						     (double)t.est_bytes) >= 10
					 ? FINDING_WARNING
					 : FINDING_INFO);
		f->subject = xstrdup(rows[0].key);
		f->weight = (double)bytes;
		f->sentence = buf_strf(
			"%" PRIu64 " %s of %s or more (humongous in G1, whose "
			"regions are %s%s), most from %s.",
			objs,
			kinds[k] == SAMPLE_OLD_OBJECT
				? "objects alive at the end"
				: "allocations",
			human_bytes(region / 2, b1, sizeof(b1)),
			human_bytes(region, b2, sizeof(b2)),
			known ? " for this heap" : ", assumed", rows[0].key);
		for (i = 0; i < n && i < 3; i++)
			finding_add_evidence(
				f,
				"%s: %" PRIu64 " objects, %s, the largest "
				"%s",
				rows[i].key, rows[i].objects,
				human_bytes(rows[i].bytes, b1, sizeof(b1)),
				human_bytes(rows[i].largest, b2, sizeof(b2)));
		finding_add_evidence(
			f,
			"from %s: sizes as the %s give them; "
			"%s of %s (%.1f%%)",
			sample_kind_name(kinds[k]),
			kinds[k] == SAMPLE_TLAB_OUTSIDE ? "JVM's events"
			: kinds[k] == SAMPLE_AGENT	? "agent's samples"
			: kinds[k] == SAMPLE_OLD_OBJECT
				? "OldObjectSample events"
				: "profiler's samples",
			human_bytes(bytes, b1, sizeof(b1)),
			human_bytes(t.est_bytes, b3, sizeof(b3)),
			pct((double)bytes, (double)t.est_bytes));
		finding_add_evidence(
			f, "region size %s: %s",
			human_bytes(region, b1, sizeof(b1)),
			known ? "G1's default for the heap's reserved "
				"size (reserved / 2048, 1 to 32 MiB)"
			      : "not known from the recording; G1's "
				"smallest, 1 MiB, assumed");
		finding_add_fact(f, "objects", (double)objs, "objects");
		finding_add_fact(f, "bytes", (double)bytes, "bytes");
		finding_add_fact(f, "region_size", (double)region, "bytes");
		a = buf_strf("--kind=%s --by=site", rules_kind_opt(kinds[k]));
		f->command = rules_command(c, "top", a);
		free(a);
		f->fix = xstrdup(
			"Humongous objects go straight to the old generation "
			"and fragment it: allocate in smaller pieces, reuse "
			"the buffers, or raise -XX:G1HeapRegionSize.");
		free(rows);
		query_free(q);
	}
	return 0;
}

/* --- allocation rate ---------------------------------------------------------- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The allocation rate over a timeline's buckets that a recording
 * covers: the figure's points. */
struct rate_points {
	const struct query_bucket *bk; /* the timeline's */
	int64_t width;		       /* of its buckets */
	size_t m;		       /* covered buckets: the points */
	size_t *idx;		       /* [m]: each point's bucket */
	size_t top;    /* the highest point resting on half a bucket */
	double span;   /* seconds covered */
	double median; /* bytes/s, of the points */
};

/*
 * The figure of the rate at each point (kind: the samples'), with the
 * time each covers; fills rp's idx, top, span and median.  Each rate is
 * over the time its bucket covers, never over the width: a bucket cut
 * by a recording's start or end (a killed JVM's last flush) holds only
 * what its covered part did.
 */
static int rate_figure(struct findings_ctx *c, int kind, size_t n,
		       struct rate_points *rp)
{
	const struct query_bucket *bk = rp->bk;
	struct finding_figure *g;
	double *rates = xmalloc(rp->m * sizeof(double));
	size_t i, k;
	int fig;

	rp->idx = xmalloc(rp->m * sizeof(size_t));
	fig = findings_add_figure(c->out, FIG_RATE, "Allocation rate",
				  "bytes/s", rp->m);
	g = &c->out->figures[fig];
	g->series = xcalloc(1, sizeof(*g->series));
	g->n_series = 1;
	g->series[0].name = xstrdup(sample_kind_name((enum sample_kind)kind));
	g->series[0].y = xcalloc(rp->m, sizeof(double));
	g->covered_ns = xcalloc(rp->m, sizeof(int64_t));
	rp->top = SIZE_MAX;
	rp->span = 0;
	for (i = 0, k = 0; i < n; i++) {
		if (bk[i].covered_ns <= 0)
			continue;
		rp->idx[k] = i;
		rates[k] = (double)bk[i].est_bytes /
			   ((double)bk[i].covered_ns / 1e9);
		g->t_ns[k] = bk[i].cover_from_ns;
		g->covered_ns[k] = bk[i].covered_ns;
		g->series[0].y[k] = rates[k];
		rp->span += (double)bk[i].covered_ns / 1e9;
		/* a peak rests on half a bucket at least */
		if (2 * bk[i].covered_ns >= rp->width &&
		    (rp->top == SIZE_MAX || rates[k] > rates[rp->top]))
			rp->top = k;
		k++;
	}
	if (rp->top == SIZE_MAX)
		rp->top = 0;
	qsort(rates, rp->m, sizeof(double), cmp_dbl);
	rp->median = rates[rp->m / 2];
	free(rates);
	return fig;
}

/* Peaks: twice the median and well above the mean, in buckets covered
 * for half their width or more (a rate over a few milliseconds rests
 * on a few samples). */
static void rate_peaks(struct finding_figure *g, const struct rate_points *rp,
		       double mean)
{
	size_t k;

	g->peaks = xcalloc(rp->m, sizeof(size_t));
	for (k = 0; k < rp->m; k++)
		if (2 * g->covered_ns[k] >= rp->width &&
		    g->series[0].y[k] >= 2 * rp->median &&
		    g->series[0].y[k] >= 1.5 * mean)
			g->peaks[g->n_peaks++] = k;
}

/* The evidence on the peaks: how many, the highest, and the sites that
 * allocated most in its bucket. */
static int peak_sites(struct findings_ctx *c, int kind, struct finding *f,
		      const struct finding_figure *g,
		      const struct rate_points *rp, struct err *e)
{
	struct query_options o = *c->filters;
	const struct query_row *rows;
	struct query_total pt;
	struct query *qp;
	size_t np, i;
	char b1[32];

	/* the sites of the highest peak's window */
	o.kind = kind;
	o.from_ns = rp->bk[rp->idx[rp->top]].start_ns;
	o.to_ns = rp->bk[rp->idx[rp->top]].start_ns + rp->width;
	if (query_open(c->s, &o, &qp, e) < 0 ||
	    query_top(qp, GROUP_SITE, &rows, &np, &pt, e) < 0) {
		query_free(qp);
		return ERR_FAIL;
	}
	finding_add_evidence(
		f,
		"%zu peak bucket%s (twice the median or "
		"more); the highest at +%.3f s, %s/s",
		g->n_peaks, g->n_peaks == 1 ? "" : "s",
		(double)(g->t_ns[rp->top] - g->t_ns[0]) / 1e9,
		human_bytes(i64_held(g->series[0].y[rp->top]), b1, sizeof(b1)));
	for (i = 0; i < np && i < 3; i++)
		finding_add_evidence(
			f, "in that window: %s, %.0f%% (%" PRIu64 " samples)",
			rows[i].key, 100 * rows[i].share, rows[i].samples);
	query_free(qp);
	return 0;
}

static int rule_alloc_rate(struct findings_ctx *c,
			   const struct finding_rule *rule, struct err *e)
{
	struct rate_points rp = {0};
	struct query_total t;
	struct finding_figure *g;
	struct finding *f;
	struct query *q;
	size_t n, i;
	double mean;
	int kind = alloc_kind(c), fig;
	char b1[32], b2[32], b3[32];
	char *a;

	if (kind < 0)
		return 0;
	if (findings_query(c, kind, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	if (query_timeline(q, &rp.width, &rp.bk, &n, &t, e) < 0) {
		query_free(q);
		return ERR_FAIL;
	}
	/* the buckets no recording covers (between two recordings, or
	 * outside the window) have no rate: they are no point */
	for (i = 0; i < n; i++)
		if (rp.bk[i].covered_ns > 0)
			rp.m++;
	if (rp.m < 3 || rp.width <= 0 || t.est_bytes <= 0) {
		query_free(q);
		return 0;
	}
	fig = rate_figure(c, kind, n, &rp);
	g = &c->out->figures[fig];
	mean = (double)t.est_bytes / rp.span;
	rate_peaks(g, &rp, mean);
	if (mean < HIGH_RATE && !g->n_peaks) {
		free(rp.idx);
		findings_drop_figure(c->out);
		query_free(q);
		return 0;
	}
	f = findings_add(c, rule->name,
			 mean >= HIGH_RATE ? FINDING_WARNING : FINDING_INFO);
	f->figure = fig;
	f->weight = mean;
	f->few_samples = t.samples < 10 * FEW_SAMPLES;
	f->sentence = buf_strf(
		"The application allocates %s/s on average%s%s%s.",
		human_bytes(i64_held(mean), b1, sizeof(b1)),
		g->n_peaks ? ", with peaks up to " : "",
		g->n_peaks ? human_bytes(i64_held(g->series[0].y[rp.top]), b2,
					 sizeof(b2))
			   : "",
		g->n_peaks ? "/s" : "");
	finding_add_evidence(
		f,
		"%s over %.3f s, %" PRIu64 " samples (%s), buckets of "
		"%s; median bucket %s/s",
		human_bytes(t.est_bytes, b1, sizeof(b1)), rp.span, t.samples,
		sample_kind_name((enum sample_kind)kind),
		findings_duration(rp.width, b2, sizeof(b2)),
		human_bytes(i64_held(rp.median), b3, sizeof(b3)));
	finding_add_fact(f, "mean_rate", mean, "bytes/s");
	finding_add_fact(f, "peak_rate", g->series[0].y[rp.top], "bytes/s");
	finding_add_fact(f, "samples", (double)t.samples, "samples");
	if (g->n_peaks && peak_sites(c, kind, f, g, &rp, e) < 0) {
		query_free(q);
		free(rp.idx);
		return ERR_FAIL;
	}
	a = buf_strf("--kind=%s", rules_kind_opt((enum sample_kind)kind));
	f->command = rules_command(c, "timeline", a);
	free(a);
	free(rp.idx);
	if (mean >= HIGH_RATE)
		f->fix = xstrdup("A high allocation rate means frequent young "
				 "GCs: reduce allocation at the hot spots "
				 "above, or give the young generation more "
				 "room.");
	query_free(q);
	return 0;
}

/* --- estimation caveats ------------------------------------------------------ */

static int rule_caveats(struct findings_ctx *c, const struct finding_rule *rule,
			struct err *e)
{
	const struct query_row *rows, *orow;
	struct query_total t, ot;
	struct finding *f = NULL;
	struct query *q, *qo = NULL;
	size_t n, i, k, no = 0, few = 0;
	char b1[32], b2[32];

	if (!c->kind_counts[SAMPLE_ALLOC] ||
	    (c->filters->kind >= 0 && c->filters->kind != SAMPLE_ALLOC))
		return 0;
	if (rules_top_rows(c, SAMPLE_ALLOC, NULL, GROUP_SITE, GROUP_SITE, &q,
			   &rows, &n, &t, e) < 0)
		return ERR_FAIL;
	/* sites of 1% or more of the bytes on 3 samples or fewer */
	for (i = 0; i < n && i < 50; i++) {
		if (rows[i].share < 0.01 || rows[i].samples > 3)
			continue;
		if (!f) {
			f = findings_add(c, rule->name, FINDING_INFO);
			f->sentence = buf_strf(
				"Some sites' bytes rest on one or a few JFR "
				"samples: their numbers are far less certain "
				"than they look.");
			f->command = rules_command(c, "top",
						   "--kind=alloc --by=site");
		}
		few++;
		finding_add_evidence(
			f, "%s: %s (%.1f%%) from %" PRIu64 " sample%s",
			rows[i].key,
			human_bytes(rows[i].est_bytes, b1, sizeof(b1)),
			100 * rows[i].share, rows[i].samples,
			rows[i].samples == 1 ? "" : "s");
	}
	if (f)
		finding_add_fact(f, "sites", (double)few, "sites");
	/* JFR's weights and large objects: compare with the exact bytes
	 * of OutsideTLAB, where the recording has them */
	f = findings_add(c, rule->name, FINDING_INFO);
	f->sentence = xstrdup(
		"JFR's per-site bytes (the weight of ObjectAllocationSample) "
		"are biased for sites of large objects: a large object's "
		"bytes are counted to whichever small object is sampled next, "
		"so such sites can be off by 70-100% while sample counts and "
		"per-thread totals hold.");
	f->command = rules_command(c, "top", "--kind=outside --by=site");
	if (c->kind_counts[SAMPLE_TLAB_OUTSIDE]) {
		if (rules_top_rows(c, SAMPLE_TLAB_OUTSIDE, NULL, GROUP_SITE,
				   GROUP_SITE, &qo, &orow, &no, &ot, e) < 0) {
			query_free(q);
			return ERR_FAIL;
		}
		for (i = 0, k = 0; i < no && k < 3; i++) {
			size_t j;
			int64_t w = 0;

			for (j = 0; j < n; j++)
				if (!strcmp(rows[j].key, orow[i].key))
					w = rows[j].est_bytes;
			/* a site of large objects: its bytes outside TLABs
			 * are at least half what JFR weighs it at, and 1%
			 * of all; elsewhere small objects dominate the
			 * weight and the two do not measure the same */
			if ((double)orow[i].est_bytes < 0.5 * (double)w ||
			    (double)orow[i].est_bytes <
				    0.01 * (double)t.est_bytes)
				continue;
			k++;
			finding_add_evidence(
				f,
				"%s: %s outside TLABs (exact, %" PRIu64
				" events) against a JFR weight of %s (%+.0f%%)",
				orow[i].key,
				human_bytes(orow[i].est_bytes, b1, sizeof(b1)),
				orow[i].samples, human_bytes(w, b2, sizeof(b2)),
				orow[i].est_bytes
					? 100.0 *
						  ((double)w -
						   (double)orow[i].est_bytes) /
						  (double)orow[i].est_bytes
					: 0);
		}
		query_free(qo);
	} else {
		finding_add_evidence(f,
				     "the recordings hold no "
				     "ObjectAllocationOutsideTLAB events, so "
				     "the bias cannot be measured here; record "
				     "with +jdk.ObjectAllocationOutsideTLAB#"
				     "enabled=true to see it");
	}
	f->fix = xstrdup("Record large-object sites with OutsideTLAB events "
			 "(or heapsift's agent) before trusting their bytes.");
	query_free(q);
	return 0;
}

const struct finding_rule finding_rule_table[] = {
	{"leak-suspect",
	 "survivors (agent samples, jdk.OldObjectSample), GC "
	 "roots, GCs survived",
	 "a key's live set rises steadily (survivors --leaks), or old "
	 "objects are reachable from a GC root after surviving GCs",
	 "critical with roots or many GCs survived, 5+ GCs and growth of "
	 "1%/s of the live set; info when the objects are only not yet "
	 "collected (no root although roots were searched, or no GC "
	 "survived); else warning",
	 "objects that stay reachable and accumulate", rule_leaks},
	{"heap-after-gc-rising", "jdk.GCHeapSummary \"After GC\"",
	 "heap used after GC grows by 1% of its mean per second or more "
	 "after the warm-up (the first fifth), with 5+ GCs after it",
	 "critical at 5%/s, else warning",
	 "the live set grows: a leak signal that needs no survivors data",
	 rule_heap_after_gc},
	{"code-heap", "code-heap reports, code-cache summaries, javacores",
	 "a heap used 90%+ (or its high-water mark), fragmentation 0.8+ with "
	 "5%+ free, compilation disabled or the cache full, a javacore JIT "
	 "code or data cache in use at 95% of its limit (all its segments "
	 "against 1STSEGLIMIT, never one segment); one finding per JVM "
	 "(its texts told by their heaps' addresses and jcmd's pid), its "
	 "worst snapshot's with each of its files' evidence",
	 "critical when compilation stopped, a heap is 99% used (unless "
	 "the JIT puts its code into another heap with room and goes on) "
	 "or a javacore cache 99% of its limit, else warning",
	 "the JIT is out of room for compiled code", rule_code_heaps},
	{"allocation-hot-spot", "allocation samples (alloc, agent, tlab)",
	 "the heaviest site has 20%+ of the sampled bytes",
	 "warning at 50%+, else info", "one site does most of the allocating",
	 rule_hot_spots},
	{"allocation-rate", "allocation samples over time",
	 "the mean rate is 1 GB/s or more, or buckets reach twice the median",
	 "warning at 1 GB/s, else info",
	 "the allocation rate and its peaks, with the sites of the highest",
	 rule_alloc_rate},
	{"large-arrays",
	 "OutsideTLAB allocationSize, agent sizes, "
	 "OldObjectSample objectSize",
	 "objects of half a G1 region or more (humongous)",
	 "warning when they are 10%+ of the bytes, else info",
	 "large arrays that G1 allocates as humongous", rule_large_arrays},
	{"old-objects", "jdk.OldObjectSample",
	 "the recording holds old-object samples", "info",
	 "the objects alive at the end, with their GC roots", rule_old_objects},
	{"estimation-caveat", "jdk.ObjectAllocationSample, OutsideTLAB",
	 "sites of 1%+ of the bytes on 3 samples or fewer; every JFR "
	 "recording (weights of large objects)",
	 "info", "where the numbers are less certain than they look",
	 rule_caveats},
	{NULL, NULL, NULL, NULL, NULL, NULL},
};
