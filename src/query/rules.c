/*
 * The report's rules: finding_rule_table[] is the one list (name, what
 * it reads, when it fires, how severe, what it means), and each row has
 * a function that asks the query layer and adds findings.  To add a
 * rule, add a row and a function; docs/report.md lists the rows, and
 * `heapsift report --rules` prints them.
 *
 * Thresholds are constants here, with the reason for each; a finding
 * that rests on fewer than FEW_SAMPLES samples says so and is ranked
 * below the others of its severity.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/codeheap.h"
#include "query/findings.h"
#include "query/findings_int.h"
#include "util/buf.h"
#include "util/size.h"
#include "util/xalloc.h"

/* Below this many samples an estimate's relative error (1/sqrt(n)) is
 * over 30%: the finding says so and ranks lower. */
#define FEW_SAMPLES 10
/* JMC's IncreasingLiveSet anchor: 1% of the live set per second */
#define LIVE_GROWTH_PCT 1.0
/* at least this many GCs after the warm-up before growth is judged */
#define MIN_GCS 5
/* a site with this share of the bytes is a hot spot */
#define HOT_SHARE 0.20
/* an allocation rate worth a warning (bytes/s): a GC every few seconds
 * on a heap of a few GB */
#define HIGH_RATE 1e9
/* code heaps: nearly full, and fragmented */
#define CH_FULL	      0.90
#define CH_FRAGMENTED 0.80
/* a javacore's JIT code or data cache near its limit (in use of all its
 * segments against 1STSEGLIMIT), and at it: the next segment does not
 * fit */
#define JC_LIMIT    0.95
#define JC_AT_LIMIT 0.99

static const char *kind_opt(enum sample_kind k)
{
	switch (k) {
	case SAMPLE_TLAB_NEW:
		return "tlab";
	case SAMPLE_TLAB_OUTSIDE:
		return "outside";
	case SAMPLE_OLD_OBJECT:
		return "old";
	case SAMPLE_AGENT:
		return "agent";
	default:
		return "alloc";
	}
}

/* "heapsift VIEW STORE ARGS FILTERS" */
static char *command(struct findings_ctx *c, const char *view, const char *args)
{
	return buf_strf("heapsift %s %s%s%s%s", view, c->store_arg,
			*args ? " " : "", args, c->filter_args);
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
	static const int order[] = {SAMPLE_ALLOC, SAMPLE_AGENT, SAMPLE_TLAB_NEW,
				    SAMPLE_TLAB_OUTSIDE};
	size_t i;

	if (c->filters->kind >= 0)
		return c->filters->kind == SAMPLE_OLD_OBJECT ? -1
							     : c->filters->kind;
	for (i = 0; i < 4; i++)
		if (c->kind_counts[order[i]])
			return order[i];
	return -1;
}

/* --- allocation hot spots ------------------------------------------------- */

static int top_rows(struct findings_ctx *c, int kind, const char *key,
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
	if (top_rows(c, kind, NULL, GROUP_SITE, GROUP_SITE, &q, &rows, &n, &t,
		     e) < 0)
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
	if (top_rows(c, kind, key, GROUP_SITE, GROUP_THREAD, &qs, &sub, &ns,
		     &ts, e) < 0) {
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
			     t.samples, (double)(t.last_ns - t.first_ns) / 1e9);
	list_rows(f, "site", rows, n, 3);
	for (i = 0; i < 2; i++) {
		const struct query_row *gr;
		struct query_total gt;
		size_t gn;

		if (top_rows(c, kind, NULL, GROUP_SITE, groups[i], &qt, &gr,
			     &gn, &gt, e) < 0) {
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
				   kind_opt((enum sample_kind)kind), inc);

		f->command = command(c, "tree", a);
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

/* --- leak suspects --------------------------------------------------------- */

/* The live set's growth, percent of the whole live set at the end per
 * second. */
static double growth_pct(const struct query_survivors *sv,
			 const struct query_survivor_series *x)
{
	double all = 0;
	size_t k;

	for (k = 0; k < sv->n_series; k++)
		all += sv->by_samples ? (double)sv->series[k].end_samples
				      : (double)sv->series[k].end_bytes;
	return all > 0 ? 100.0 * x->slope / all : 0;
}

static int live_figure(struct findings_ctx *c, const struct query_survivors *sv,
		       const struct query_survivor_series *const *sus,
		       size_t n_sus, const char *kindname)
{
	char title[128];
	struct finding_figure *g;
	size_t i, k, n = 0;
	int fig;

	for (i = 0; i < n_sus && sus[i]->suspect && i < 6; i++)
		n++;
	if (!n || !sv->n_buckets)
		return -1;
	snprintf(title, sizeof(title), "Live set of the leak suspects (%s)",
		 kindname);
	fig = findings_add_figure(c->out, FIG_LIVE, title,
				  sv->by_samples ? "samples" : "bytes",
				  sv->n_buckets);
	g = &c->out->figures[fig];
	memcpy(g->t_ns, sv->time_ns, sv->n_buckets * sizeof(int64_t));
	g->series = xcalloc(n, sizeof(*g->series));
	g->n_series = n;
	for (i = 0; i < n; i++) {
		g->series[i].name = xstrdup(sus[i]->key);
		g->series[i].y = xcalloc(sv->n_buckets, sizeof(double));
		for (k = 0; k < sv->n_buckets; k++)
			g->series[i].y[k] =
				sv->by_samples ? (double)sus[i]->live_samples[k]
					       : (double)sus[i]->live_bytes[k];
	}
	return fig;
}

/* The survivors' suspects of one kind, each weighed by its evidence. */
static int leaks_of_kind(struct findings_ctx *c,
			 const struct finding_rule *rule, enum sample_kind kind,
			 struct err *e)
{
	const struct query_survivor_series *const *sus;
	const struct query_survivors *sv;
	struct query_survivor_options so;
	struct query *q;
	size_t n, i;
	int fig;

	memset(&so, 0, sizeof(so));
	if (findings_query(c, kind, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	if (query_survivors(q, GROUP_SITE, &so, &sv, e) < 0) {
		query_free(q);
		return ERR_FAIL;
	}
	n = query_leak_suspects(q, &sus);
	fig = live_figure(c, sv, sus, n, sample_kind_name(kind));
	for (i = 0; i < n && sus[i]->suspect && i < 5; i++) {
		const struct query_survivor_series *x = sus[i];
		struct query_evidence ev;
		struct finding *f;
		struct query *qk;
		double g = growth_pct(sv, x);
		bool unrooted, young, strong, bounded, turnover;
		enum finding_severity sev;
		char b1[32], b2[32], b3[32];
		char *a;

		if (findings_query(c, kind, x->key, GROUP_SITE, &qk, e) < 0 ||
		    query_evidence(qk, &ev, e) < 0) {
			query_free(qk);
			query_free(q);
			return ERR_FAIL;
		}
		query_free(qk);
		/* roots were searched for (some object of the recording
		 * has one) and none of these has one: unreachable at the
		 * end, garbage not yet collected */
		unrooted = kind == SAMPLE_OLD_OBJECT && ev.rooted_elsewhere &&
			   !ev.with_root;
		/* alive at the end, but none survived a GC */
		young = ev.alive_at_end && ev.young_unrooted == ev.alive_at_end;
		/* most of its sampled objects were found dead: they live a
		 * while and go, a working set that grew to its size */
		bounded = ev.dead > ev.alive_at_end;
		/* every object alive at the end is younger than one of its
		 * own that has died: they have not yet lived as long as
		 * that one did, a working set that turns over, however its
		 * last points rise (a site of a dozen samples can look like
		 * a steady rise by chance).  A leak that began late at a
		 * site that churned before keeps objects older than any of
		 * the churned ones. */
		turnover = ev.alive_at_end && ev.longest_life_ns >= 0 &&
			   ev.oldest_alive_ns >= 0 &&
			   ev.oldest_alive_ns <= ev.longest_life_ns;
		strong = ev.with_root > 0 ||
			 (ev.alive_at_end &&
			  ev.old_gc_many * 2 >= ev.alive_at_end);
		if (unrooted || young || bounded || turnover)
			sev = FINDING_INFO;
		else if (strong && ev.n_gcs >= MIN_GCS && g >= LIVE_GROWTH_PCT)
			sev = FINDING_CRITICAL;
		else
			sev = FINDING_WARNING;
		f = findings_add(c, rule->name, sev);
		f->subject = xstrdup(x->key);
		f->weight = g;
		f->few_samples = ev.samples < FEW_SAMPLES;
		f->figure = fig;
		if (unrooted)
			f->sentence = buf_strf(
				"%s's objects look like a growing live set, "
				"but "
				"none has a path to a GC root although the "
				"recording searched for roots: they are most "
				"likely not yet collected, not leaked.",
				x->key);
		else if (bounded)
			f->sentence = buf_strf(
				"%s's live set grew, but most of its sampled "
				"objects were found dead (%" PRIu64
				" of %" PRIu64
				", median time to collection %s): a working "
				"set that lives a "
				"while and goes, not a leak.",
				x->key, ev.dead, ev.samples,
				findings_duration(x->median_to_collection_ns,
						  b2, sizeof(b2)));
		else if (turnover)
			f->sentence = buf_strf(
				"%s's live set grew, but its objects alive at "
				"the end are at most %s old, and one of its "
				"objects that died lived %s: a working set "
				"that turns over, not a leak.",
				x->key,
				findings_duration(ev.oldest_alive_ns, b1,
						  sizeof(b1)),
				findings_duration(ev.longest_life_ns, b2,
						  sizeof(b2)));
		else if (young)
			f->sentence = buf_strf(
				"%s's objects alive at the end survived no GC "
				"and have no known root: most likely not yet "
				"collected, not leaked.",
				x->key);
		else
			f->sentence = buf_strf(
				"%s's live set keeps growing (%s/s, %.1f%% of "
				"the live set per second)%s: a leak suspect%s.",
				x->key,
				sv->by_samples
					? (snprintf(b1, sizeof(b1),
						    "%.2f samples", x->slope),
					   b1)
					: human_bytes(i64_held(x->slope), b1,
						      sizeof(b1)),
				g,
				ev.with_root ? ", its objects reachable from "
					       "GC roots"
				: ev.old_gc_many ? ", its objects surviving "
						   "many GCs"
						 : "",
				ev.n_gcs < MIN_GCS ? " (too few GCs to be sure)"
						   : "");
		if (ev.n_gcs < MIN_GCS && f->severity > FINDING_INFO)
			f->few_samples = true;
		if (sv->by_samples)
			finding_add_evidence(
				f,
				"live set: %" PRIu64 " samples at the "
				"end, peak %" PRIu64 ", rising at %u of "
				"%zu points",
				x->end_samples, x->peak_samples, x->rising,
				sv->n_buckets);
		else
			finding_add_evidence(
				f,
				"live set: %s at the end, peak %s, "
				"rising at %u of %zu points, slope %s/s",
				human_bytes(x->end_bytes, b1, sizeof(b1)),
				human_bytes(x->peak_bytes, b2, sizeof(b2)),
				x->rising, sv->n_buckets,
				human_bytes(i64_held(x->slope), b3,
					    sizeof(b3)));
		finding_add_evidence(
			f,
			"%" PRIu64 " sampled objects (%s), %" PRIu64
			" alive at the end, %" PRIu64 " found dead; "
			"+/-%.0f%% from the sample count",
			ev.samples, sample_kind_name(kind), ev.alive_at_end,
			ev.dead,
			ev.samples ? 100 / sqrt((double)ev.samples) : 100.0);
		finding_add_evidence(f,
				     "GCs survived by those alive at the end: "
				     "median %" PRId64 ", most %" PRId64
				     "; %" PRIu64
				     " survived %d or more (%" PRIu64
				     " GCs in the recording)",
				     ev.median_gcs, ev.max_gcs, ev.old_gc_many,
				     QUERY_MANY_GCS, ev.n_gcs);
		if (kind == SAMPLE_OLD_OBJECT)
			finding_add_evidence(
				f, "%" PRIu64 " with a path to a GC root%s%s%s",
				ev.with_root, ev.root ? " (mostly " : "",
				ev.root ? ev.root : "",
				ev.root ? ")"
				: ev.rooted_elsewhere
					? "; the recording has roots "
					  "for other objects"
					: "; the recording has no "
					  "roots (path-to-gc-roots "
					  "was off)");
		if (sv->n_buckets)
			finding_add_evidence(
				f, "time window: %.3f s, %zu points",
				(double)(sv->time_ns[sv->n_buckets - 1] -
					 sv->start_ns) /
					1e9,
				sv->n_buckets);
		finding_add_fact(f, "slope", x->slope,
				 sv->by_samples ? "samples/s" : "bytes/s");
		finding_add_fact(f, "growth", g, "%/s");
		finding_add_fact(f, "end",
				 sv->by_samples ? (double)x->end_samples
						: (double)x->end_bytes,
				 sv->by_samples ? "samples" : "bytes");
		finding_add_fact(f, "samples", (double)ev.samples, "samples");
		finding_add_fact(f, "with_root", (double)ev.with_root,
				 "samples");
		finding_add_fact(f, "median_gcs_survived",
				 (double)ev.median_gcs, "gcs");
		finding_add_fact(f, "gcs", (double)ev.n_gcs, "gcs");
		a = buf_strf("--kind=%s --leaks", kind_opt(kind));
		f->command = command(c, "survivors", a);
		free(a);
		if (!unrooted && !young && !bounded)
			f->fix = xstrdup(
				"Find what holds these objects (often a static "
				"collection or a cache without eviction) and "
				"bound it or remove entries; a heap dump "
				"(jcmd PID GC.heap_dump) shows the path.");
	}
	query_free(q);
	return 0;
}

/* Old objects of the recording's OldObjectSample that are reachable
 * from a GC root and were alive for most of it: a leak candidate even
 * when their (fixed-size) sample set cannot show growth. */
static int rooted_old(struct findings_ctx *c, const struct finding_rule *rule,
		      struct err *e)
{
	const struct query_row *rows;
	struct query_total t;
	struct query *q;
	size_t n, i;

	if (top_rows(c, SAMPLE_OLD_OBJECT, NULL, GROUP_SITE, GROUP_APP_SITE, &q,
		     &rows, &n, &t, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n && i < 20; i++) {
		struct query_evidence ev;
		struct finding *f;
		struct query *qk;
		char *a;
		size_t k;
		bool dup = false;

		if (findings_query(c, SAMPLE_OLD_OBJECT, rows[i].key,
				   GROUP_APP_SITE, &qk, e) < 0 ||
		    query_evidence(qk, &ev, e) < 0) {
			query_free(qk);
			query_free(q);
			return ERR_FAIL;
		}
		query_free(qk);
		if (!ev.with_root || ev.old_gc_1 * 2 < ev.alive_at_end)
			continue;
		for (k = 0; k < c->out->n_findings; k++)
			if (c->out->findings[k].subject &&
			    !strcmp(c->out->findings[k].rule, rule->name) &&
			    !strcmp(c->out->findings[k].subject, rows[i].key))
				dup = true;
		if (dup)
			continue;
		f = findings_add(c, rule->name, FINDING_WARNING);
		f->subject = xstrdup(rows[i].key);
		f->weight = (double)ev.with_root;
		f->few_samples = ev.samples < FEW_SAMPLES;
		f->sentence = buf_strf(
			"%s allocated objects that were still reachable from "
			"a GC root when the recording ended, after surviving "
			"%" PRId64 " GCs: a leak suspect%s.",
			rows[i].key, ev.median_gcs,
			f->few_samples ? " resting on few samples" : "");
		finding_add_evidence(f,
				     "%" PRIu64 " old-object samples by this "
				     "app-site, %" PRIu64
				     " with a path to a GC root "
				     "(mostly %s)",
				     ev.samples, ev.with_root,
				     ev.root ? ev.root : "unknown");
		finding_add_evidence(f,
				     "GCs survived: median %" PRId64
				     ", most %" PRId64 " of %" PRIu64
				     " in the recording",
				     ev.median_gcs, ev.max_gcs, ev.n_gcs);
		finding_add_evidence(f,
				     "jdk.OldObjectSample keeps a fixed number "
				     "of samples, so its live set cannot show "
				     "growth; the roots and the age are the "
				     "evidence");
		finding_add_fact(f, "samples", (double)ev.samples, "samples");
		finding_add_fact(f, "with_root", (double)ev.with_root,
				 "samples");
		finding_add_fact(f, "median_gcs_survived",
				 (double)ev.median_gcs, "gcs");
		a = buf_strf("--kind=old --by=app-site");
		f->command = command(c, "survivors", a);
		free(a);
		f->fix = xstrdup("Find what holds these objects (the GC root "
				 "names it: a static field, a class loader, a "
				 "thread) and bound or clear it.");
	}
	query_free(q);
	return 0;
}

static int rule_leaks(struct findings_ctx *c, const struct finding_rule *rule,
		      struct err *e)
{
	if (c->kind_counts[SAMPLE_AGENT] &&
	    leaks_of_kind(c, rule, SAMPLE_AGENT, e) < 0)
		return ERR_FAIL;
	if (c->kind_counts[SAMPLE_OLD_OBJECT]) {
		if (leaks_of_kind(c, rule, SAMPLE_OLD_OBJECT, e) < 0 ||
		    rooted_old(c, rule, e) < 0)
			return ERR_FAIL;
	}
	return 0;
}

/* --- heap after GC --------------------------------------------------------- */

static int rule_heap_after_gc(struct findings_ctx *c,
			      const struct finding_rule *rule, struct err *e)
{
	const struct query_recording *recs;
	struct query *q;
	size_t n_recs, r;

	if (findings_query(c, -1, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	query_recordings(q, &recs, &n_recs);
	for (r = 0; r < n_recs; r++) {
		struct query_heap_point *p;
		size_t n, i, from = 0, m;
		double sx = 0, sy = 0, sxx = 0, sxy = 0, slope, mean, g;
		int64_t t0, warm;
		struct finding *f;
		char b1[32], b2[32], b3[32];
		int fig;

		if (c->filters->recording >= 0 &&
		    (size_t)c->filters->recording != r)
			continue;
		if (query_heap_summaries(q, (uint32_t)r, "After GC", &p, &n,
					 e) < 0) {
			query_free(q);
			return ERR_FAIL;
		}
		if (n < 2) {
			free(p);
			continue;
		}
		/* warm-up: the first fifth of the recording */
		t0 = recs[r].start_ns != INT64_MIN ? recs[r].start_ns
						   : p[0].time_ns;
		warm = t0 + (p[n - 1].time_ns - t0) / 5;
		while (from < n && p[from].time_ns < warm)
			from++;
		m = n - from;
		if (m < MIN_GCS) {
			free(p);
			continue;
		}
		for (i = from; i < n; i++) {
			double x = (double)(p[i].time_ns - p[from].time_ns) /
				   1e9,
			       y = (double)p[i].used;

			sx += x;
			sy += y;
			sxx += x * x;
			sxy += x * y;
		}
		mean = sy / (double)m;
		if (m * sxx - sx * sx <= 0 || mean <= 0) {
			free(p);
			continue;
		}
		slope = ((double)m * sxy - sx * sy) /
			((double)m * sxx - sx * sx);
		g = 100.0 * slope / mean;
		if (g < LIVE_GROWTH_PCT || p[n - 1].used <= p[from].used) {
			free(p);
			continue;
		}
		fig = findings_add_figure(c->out, FIG_HEAP,
					  "Heap used after GC", "bytes", n);
		{
			struct finding_figure *gr = &c->out->figures[fig];

			gr->series = xcalloc(1, sizeof(*gr->series));
			gr->n_series = 1;
			gr->series[0].name = xstrdup(recs[r].source);
			gr->series[0].y = xcalloc(n, sizeof(double));
			for (i = 0; i < n; i++) {
				gr->t_ns[i] = p[i].time_ns;
				gr->series[0].y[i] = (double)p[i].used;
			}
		}
		f = findings_add(c, rule->name,
				 g >= 5 * LIVE_GROWTH_PCT ? FINDING_CRITICAL
							  : FINDING_WARNING);
		f->subject = xstrdup(recs[r].source);
		f->weight = g;
		f->figure = fig;
		f->sentence = buf_strf(
			"The heap after GC keeps rising in %s (%s/s, %.1f%% of "
			"its mean per second after warm-up): the live set "
			"grows, which is how a leak looks even without "
			"survivors data.",
			recs[r].source,
			human_bytes(i64_held(slope), b1, sizeof(b1)), g);
		finding_add_evidence(
			f,
			"%zu GCs with an \"After GC\" heap summary, %zu "
			"after the warm-up (the first fifth of the "
			"recording)",
			n, m);
		finding_add_evidence(
			f,
			"heap used after GC: %s after the warm-up, "
			"%s at the last GC, mean %s",
			human_bytes(p[from].used, b1, sizeof(b1)),
			human_bytes(p[n - 1].used, b2, sizeof(b2)),
			human_bytes(i64_held(mean), b3, sizeof(b3)));
		finding_add_evidence(
			f,
			"time window: %.3f s from the first GC "
			"after the warm-up to the last",
			(double)(p[n - 1].time_ns - p[from].time_ns) / 1e9);
		finding_add_fact(f, "slope", slope, "bytes/s");
		finding_add_fact(f, "growth", g, "%/s");
		finding_add_fact(f, "gcs", (double)m, "gcs");
		finding_add_fact(f, "first", (double)p[from].used, "bytes");
		finding_add_fact(f, "last", (double)p[n - 1].used, "bytes");
		f->command = command(c, "survivors", "--leaks");
		f->fix =
			xstrdup("Look at the leak suspects; where the "
				"recording has none, record with "
				"OldObjectSample and path-to-gc-roots=true, or "
				"with heapsift's agent, or take a heap dump.");
		free(p);
	}
	query_free(q);
	return 0;
}

/* --- old objects ------------------------------------------------------------ */

static int rule_old_objects(struct findings_ctx *c,
			    const struct finding_rule *rule, struct err *e)
{
	const struct query_row *rows;
	struct query_total t;
	struct query_evidence ev;
	struct finding *f;
	struct query *q, *qe;
	size_t n, i;
	char b[32];

	if (!c->kind_counts[SAMPLE_OLD_OBJECT])
		return 0;
	if (top_rows(c, SAMPLE_OLD_OBJECT, NULL, GROUP_SITE, GROUP_APP_SITE, &q,
		     &rows, &n, &t, e) < 0)
		return ERR_FAIL;
	if (findings_query(c, SAMPLE_OLD_OBJECT, NULL, GROUP_SITE, &qe, e) <
		    0 ||
	    query_evidence(qe, &ev, e) < 0) {
		query_free(qe);
		query_free(q);
		return ERR_FAIL;
	}
	query_free(qe);
	if (!t.samples) {
		query_free(q);
		return 0;
	}
	f = findings_add(c, rule->name, FINDING_INFO);
	f->weight = (double)ev.with_root;
	f->sentence = buf_strf(
		"%" PRIu64 " sampled objects were alive when the recording "
		"ended, %" PRIu64 " of them with a path to a GC root%s.",
		t.samples, ev.with_root,
		ev.with_root ? ""
		: ev.rooted_elsewhere
			? ""
			: " (the recording did not search for roots: "
			  "path-to-gc-roots=false)");
	for (i = 0; i < n && i < 5; i++)
		finding_add_evidence(
			f, "app-site %zu: %s, %" PRIu64 " objects%s%s", i + 1,
			rows[i].key, rows[i].samples,
			rows[i].est_bytes > 0 ? ", " : "",
			rows[i].est_bytes > 0
				? human_bytes(rows[i].est_bytes, b, sizeof(b))
				: "");
	if (ev.largest_size > 0)
		finding_add_evidence(
			f, "largest object: %s",
			human_bytes(ev.largest_size, b, sizeof(b)));
	if (ev.root)
		finding_add_evidence(f, "most common GC root: %s", ev.root);
	finding_add_evidence(f,
			     "GCs survived by these objects: median %" PRId64
			     ", most %" PRId64,
			     ev.median_gcs, ev.max_gcs);
	finding_add_fact(f, "objects", (double)t.samples, "samples");
	finding_add_fact(f, "with_root", (double)ev.with_root, "samples");
	f->command = command(c, "survivors", "--kind=old --by=app-site");
	query_free(q);
	return 0;
}

/* --- large arrays ------------------------------------------------------------ */

/* G1's region size as JDK 17's ergonomics pick it: the heap's reserved
 * size / 2048, a power of two between 1 and 32 MiB. */
static int64_t region_size(struct findings_ctx *c, struct query *q, bool *known)
{
	const struct query_recording *recs;
	size_t n, r;
	int64_t reserved = 0, region = 1 << 20;
	struct err e;

	*known = false;
	err_init(&e);
	query_recordings(q, &recs, &n);
	for (r = 0; r < n; r++) {
		struct query_heap_point *p;
		size_t np, i;

		if (query_heap_summaries(q, (uint32_t)r, "After GC", &p, &np,
					 &e) < 0)
			continue;
		for (i = 0; i < np; i++)
			if (p[i].reserved != REC_NONE &&
			    p[i].reserved > reserved)
				reserved = p[i].reserved;
		free(p);
	}
	(void)c;
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
		SAMPLE_TLAB_OUTSIDE, SAMPLE_AGENT, SAMPLE_OLD_OBJECT};
	struct query *q;
	int64_t region;
	bool known;
	size_t k;

	if (findings_query(c, -1, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	region = region_size(c, q, &known);
	query_free(q);
	for (k = 0; k < 3; k++) {
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
						   : "OldObjectSample events",
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
		a = buf_strf("--kind=%s --by=site", kind_opt(kinds[k]));
		f->command = command(c, "top", a);
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

static int rule_alloc_rate(struct findings_ctx *c,
			   const struct finding_rule *rule, struct err *e)
{
	const struct query_bucket *bk;
	struct query_total t;
	struct finding_figure *g;
	struct finding *f;
	struct query *q;
	int64_t width = 0;
	size_t n, i, top = 0;
	double *rates, median, mean, span;
	int kind = alloc_kind(c), fig;
	char b1[32], b2[32], b3[32];

	if (kind < 0)
		return 0;
	if (findings_query(c, kind, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	if (query_timeline(q, &width, &bk, &n, &t, e) < 0) {
		query_free(q);
		return ERR_FAIL;
	}
	if (n < 3 || width <= 0 || t.est_bytes <= 0) {
		query_free(q);
		return 0;
	}
	rates = xmalloc(n * sizeof(double));
	fig = findings_add_figure(c->out, FIG_RATE, "Allocation rate",
				  "bytes/s", n);
	g = &c->out->figures[fig];
	g->series = xcalloc(1, sizeof(*g->series));
	g->n_series = 1;
	g->series[0].name = xstrdup(sample_kind_name((enum sample_kind)kind));
	g->series[0].y = xcalloc(n, sizeof(double));
	for (i = 0; i < n; i++) {
		rates[i] = (double)bk[i].est_bytes / ((double)width / 1e9);
		g->t_ns[i] = bk[i].start_ns;
		g->series[0].y[i] = rates[i];
		if (rates[i] > rates[top])
			top = i;
	}
	span = (double)(bk[n - 1].start_ns + width - bk[0].start_ns) / 1e9;
	mean = (double)t.est_bytes / span;
	qsort(rates, n, sizeof(double), cmp_dbl);
	median = rates[n / 2];
	free(rates);
	/* peaks: twice the median and well above the mean */
	g->peaks = xcalloc(n, sizeof(size_t));
	for (i = 0; i < n; i++)
		if (g->series[0].y[i] >= 2 * median &&
		    g->series[0].y[i] >= 1.5 * mean)
			g->peaks[g->n_peaks++] = i;
	if (mean < HIGH_RATE && !g->n_peaks) {
		findings_drop_figure(c->out);
		query_free(q);
		return 0;
	}
	f = findings_add(c, rule->name,
			 mean >= HIGH_RATE ? FINDING_WARNING : FINDING_INFO);
	f->figure = fig;
	f->weight = mean;
	f->few_samples = t.samples < 10 * FEW_SAMPLES;
	f->sentence =
		buf_strf("The application allocates %s/s on average%s%s%s.",
			 human_bytes(i64_held(mean), b1, sizeof(b1)),
			 g->n_peaks ? ", with peaks up to " : "",
			 g->n_peaks ? human_bytes(i64_held(g->series[0].y[top]),
						  b2, sizeof(b2))
				    : "",
			 g->n_peaks ? "/s" : "");
	finding_add_evidence(
		f,
		"%s over %.3f s, %" PRIu64 " samples (%s), buckets of "
		"%s; median bucket %s/s",
		human_bytes(t.est_bytes, b1, sizeof(b1)), span, t.samples,
		sample_kind_name((enum sample_kind)kind),
		findings_duration(width, b2, sizeof(b2)),
		human_bytes(i64_held(median), b3, sizeof(b3)));
	finding_add_fact(f, "mean_rate", mean, "bytes/s");
	finding_add_fact(f, "peak_rate", g->series[0].y[top], "bytes/s");
	finding_add_fact(f, "samples", (double)t.samples, "samples");
	if (g->n_peaks) {
		struct query_options o = *c->filters;
		const struct query_row *rows;
		struct query_total pt;
		struct query *qp;
		size_t np;

		/* the sites of the highest peak's window */
		o.kind = kind;
		o.from_ns = bk[top].start_ns;
		o.to_ns = bk[top].start_ns + width;
		if (query_open(c->s, &o, &qp, e) < 0 ||
		    query_top(qp, GROUP_SITE, &rows, &np, &pt, e) < 0) {
			query_free(qp);
			query_free(q);
			return ERR_FAIL;
		}
		finding_add_evidence(
			f,
			"%zu peak bucket%s (twice the median or "
			"more); the highest at +%.3f s, %s/s",
			g->n_peaks, g->n_peaks == 1 ? "" : "s",
			(double)(bk[top].start_ns - bk[0].start_ns) / 1e9,
			human_bytes(i64_held(g->series[0].y[top]), b1,
				    sizeof(b1)));
		for (i = 0; i < np && i < 3; i++)
			finding_add_evidence(
				f,
				"in that window: %s, %.0f%% (%" PRIu64
				" samples)",
				rows[i].key, 100 * rows[i].share,
				rows[i].samples);
		query_free(qp);
	}
	{
		char *a =
			buf_strf("--kind=%s", kind_opt((enum sample_kind)kind));

		f->command = command(c, "timeline", a);
		free(a);
	}
	if (mean >= HIGH_RATE)
		f->fix = xstrdup("A high allocation rate means frequent young "
				 "GCs: reduce allocation at the hot spots "
				 "above, or give the young generation more "
				 "room.");
	query_free(q);
	return 0;
}

/* --- code heaps ------------------------------------------------------------- */

static void kib(struct buf *b, const char *what, int64_t v)
{
	if (v == CHQ_UNKNOWN)
		return;
	buf_addf(b, "%s%s %" PRId64 " KiB", b->len ? ", " : "", what, v / 1024);
}

/* Heap h's space map, merged to at most 256 cells, as a figure; -1
 * when the heap has none. */
static int map_figure(struct findings_ctx *c, struct chq *q, uint32_t h)
{
	uint32_t n = chq_map_len(q, h, CHQ_SPACE), merge, cells, i;
	const struct store_ch_heap *hp = chq_heap(q, h);
	struct finding_figure *g;
	struct buf title = BUF_INIT;
	uint8_t *v;
	int fig;

	if (!n)
		return -1;
	merge = (n + 255) / 256;
	v = xmalloc(n / merge + 2);
	cells = chq_map_merged(q, h, CHQ_SPACE, merge, v, n / merge + 2);
	buf_addf(&title, "Space map of %s", chq_str(q, hp->name));
	fig = findings_add_figure(c->out, FIG_MAP, title.data, "", 0);
	buf_release(&title);
	g = &c->out->figures[fig];
	g->cells = xmalloc(cells + 1);
	g->fill = xmalloc((cells ? cells : 1) * sizeof(double));
	g->n_cells = cells;
	g->cell_bytes =
		hp->granule_size > 0 ? (uint64_t)hp->granule_size * merge : 0;
	for (i = 0; i < cells; i++) {
		g->cells[i] = chq_cell_char(CHQ_SPACE, v[i]);
		g->fill[i] = v[i] == 0		     ? -1
			     : v[i] >= CH_SPACE_FULL ? 1
						     : (v[i] - 0.5) / 10.0;
	}
	g->cells[cells] = '\0';
	free(v);
	return fig;
}

static bool worse(const struct finding *a, const struct finding *b)
{
	return a->severity != b->severity ? a->severity > b->severity
					  : a->weight > b->weight;
}

/* Several snapshots of one recording (reports taken one after another,
 * the summaries beside them) are the same heaps again: each recording
 * keeps the finding of its worst snapshot, which says how many of its
 * snapshots had one.  The others are left in snaps. */
static void code_heap_fold(struct findings_ctx *c, struct chq *q,
			   struct findings *snaps, const uint32_t *snap_of)
{
	size_t n = snaps->n_findings, i, k;
	bool *done = xcalloc(n ? n : 1, sizeof(bool));

	for (i = 0; i < n; i++) {
		uint64_t rec = chq_snapshot(q, snap_of[i])->recording;
		size_t worst = i, n_with = 0, n_all = 0;
		struct buf lines = BUF_INIT;
		struct finding *f;
		uint32_t s;

		if (done[i])
			continue;
		for (k = i; k < n; k++) {
			if (chq_snapshot(q, snap_of[k])->recording != rec)
				continue;
			done[k] = true;
			n_with++;
			if (n_with <= 8)
				buf_addf(&lines, "%s%" PRIu64,
					 lines.len ? ", " : "",
					 chq_snapshot(q, snap_of[k])->line);
			if (worse(&snaps->findings[k], &snaps->findings[worst]))
				worst = k;
		}
		for (s = 0; s < chq_n_snapshots(q); s++)
			if (chq_snapshot(q, s)->recording == rec)
				n_all++;
		f = findings_move(c, snaps, worst);
		if (n_with > 1)
			finding_add_evidence(
				f,
				"%zu of the %zu snapshots in this file show "
				"it (lines %s%s); the worst is shown, at line "
				"%" PRIu64,
				n_with, n_all, lines.data,
				n_with > 8 ? ", ..." : "",
				chq_snapshot(q, snap_of[worst])->line);
		finding_add_fact(f, "snapshots", (double)n_with, "snapshots");
		buf_release(&lines);
	}
	free(done);
}

static int rule_code_heaps(struct findings_ctx *c,
			   const struct finding_rule *rule, struct err *e)
{
	struct findings *found = c->out, snaps;
	struct chq *q;
	uint32_t s, h;
	/* per finding of snaps: its snapshot */
	uint32_t *snap_of = NULL;

	if (chq_open(c->s, &q, e) < 0)
		return ERR_FAIL;
	/* each snapshot's finding goes to snaps first; then each recording
	 * keeps its worst (code_heap_fold) */
	memset(&snaps, 0, sizeof(snaps));
	c->out = &snaps;
	for (s = 0; s < chq_n_snapshots(q); s++) {
		const struct store_ch_snapshot *sn = chq_snapshot(q, s);
		const char *src = chq_snapshot_source(q, s);
		const char *kind = chq_str(q, sn->kind);
		struct finding *f = NULL;
		int64_t v, full = 0, disabled = 0;
		enum finding_severity sev = FINDING_INFO;
		double worst = 0, jc_worst = 0;
		/* OpenJ9 allocates its JIT caches a segment after another:
		 * a full segment is normal, the total against the limit is
		 * what counts */
		bool javacore = !strcmp(kind, "javacore");
		uint32_t map_heap = UINT32_MAX;
		struct buf what = BUF_INIT;
		char *a;

		if (c->filters->recording >= 0 &&
		    sn->recording != (uint64_t)c->filters->recording)
			continue;
		if (chq_snapshot_stat(q, s, "compilation.enabled", &v) && !v)
			disabled = 1;
		/* an analytics report's "JIT is off" says the same */
		if (chq_snapshot_stat(q, s, "jit.on", &v) && !v)
			disabled = 1;
		if (chq_snapshot_stat(q, s, "full_count", &v))
			full = v;
		if (disabled || full > 0) {
			sev = FINDING_CRITICAL;
			if (disabled &&
			    !chq_snapshot_stat(q, s, "compilation.enabled", &v))
				buf_adds(&what, "JIT is off (compilation is "
						"disabled)");
			else if (disabled)
				buf_adds(&what, "compilation is disabled");
			if (full > 0)
				buf_addf(&what,
					 "%sthe code cache was full %" PRId64
					 " time%s",
					 disabled ? ", " : "", full,
					 full == 1 ? "" : "s");
		}
#define NEED_FINDING()                                                     \
	do {                                                               \
		if (!f) {                                                  \
			f = findings_add(c, rule->name, FINDING_INFO);     \
			f->subject = buf_strf("%s (%s, line %" PRIu64 ")", \
					      src, kind, sn->line);        \
		}                                                          \
	} while (0)
		if (what.len) {
			NEED_FINDING();
			finding_add_evidence(f, "%s: %s%s", kind, what.data,
					     disabled ? " (the JIT stopped "
							"compiling: the code "
							"runs slower from then "
							"on)"
						      : "");
		}
		for (h = sn->first_heap; h < sn->first_heap + sn->n_heaps;
		     h++) {
			const struct store_ch_heap *hp = chq_heap(q, h);
			const char *name = chq_str(q, hp->name);
			struct ch_facts fa;
			struct buf fig = BUF_INIT;
			double use, hw;

			chq_facts(q, h, &fa);
			/* the size it may grow to: reserved, where the
			 * report says (a summary's free is relative to it) */
			if (fa.reserved != CHQ_UNKNOWN &&
			    fa.reserved > fa.capacity)
				fa.capacity = fa.reserved;
			if (fa.capacity == CHQ_UNKNOWN || fa.capacity <= 0)
				continue;
			use = fa.used != CHQ_UNKNOWN
				      ? (double)fa.used / (double)fa.capacity
				      : 0;
			hw = fa.max_used != CHQ_UNKNOWN
				     ? (double)fa.max_used / (double)fa.capacity
				     : 0;
			kib(&fig, "size", fa.capacity);
			kib(&fig, "used", fa.used);
			kib(&fig, "max used", fa.max_used);
			kib(&fig, "free", fa.free);
			if (!javacore && (use >= CH_FULL || hw >= CH_FULL)) {
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				if (use >= 0.99 || hw >= 0.99)
					sev = FINDING_CRITICAL;
				if (use > worst)
					worst = use;
				if (hw > worst)
					worst = hw;
				if (map_heap == UINT32_MAX)
					map_heap = h;
				if (hw > use)
					finding_add_evidence(
						f,
						"%s %s: %s (%.1f%% used, "
						"%.1f%% "
						"at its highest)",
						name,
						use >= CH_FULL
							? "is nearly full"
							: "was nearly full",
						fig.data, 100 * use, 100 * hw);
				else
					finding_add_evidence(
						f,
						"%s is nearly full: %s "
						"(%.1f%% used)",
						name, fig.data, 100 * use);
				finding_add_fact(f, "used_pct", 100 * use, "%");
				if (fa.max_used != CHQ_UNKNOWN)
					finding_add_fact(f, "max_used_pct",
							 100 * hw, "%");
			}
			if (!isnan(fa.fragmentation) &&
			    fa.fragmentation >= CH_FRAGMENTED &&
			    fa.free != CHQ_UNKNOWN &&
			    fa.largest_free != CHQ_UNKNOWN &&
			    fa.free >= fa.capacity / 20) {
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				finding_add_evidence(
					f,
					"%s is fragmented: the largest free "
					"block is %" PRId64 " bytes of %" PRId64
					" KiB free in %" PRId64
					" blocks (fragmentation %.3f)",
					name, fa.largest_free, fa.free / 1024,
					fa.free_blocks, fa.fragmentation);
				finding_add_fact(f, "fragmentation",
						 fa.fragmentation, "");
				if (map_heap == UINT32_MAX)
					map_heap = h;
				finding_add_fact(f, "largest_free",
						 (double)fa.largest_free,
						 "bytes");
			}
			buf_release(&fig);
		}
		/* a javacore: the JIT's code and data caches at their limit
		 * (1STSEGLIMIT: -Xcodecachetotal, the data cache's total),
		 * the bytes in use of all their segments against it */
		{
			static const char *const jt[] = {"jit_code",
							 "jit_data"};
			static const char *const jname[] = {"JIT code cache",
							    "JIT data cache"};
			size_t i;

			for (i = 0; i < 2; i++) {
				char n1[64], n2[64], n3[64];
				int64_t used, limit, segs = -1;
				double u;

				snprintf(n1, sizeof(n1), "mem.%s.in_use",
					 jt[i]);
				snprintf(n2, sizeof(n2), "mem.%s.limit", jt[i]);
				snprintf(n3, sizeof(n3), "mem.%s.segments",
					 jt[i]);
				if (!chq_snapshot_stat(q, s, n1, &used) ||
				    !chq_snapshot_stat(q, s, n2, &limit) ||
				    limit <= 0)
					continue;
				u = (double)used / (double)limit;
				if (u < JC_LIMIT)
					continue;
				chq_snapshot_stat(q, s, n3, &segs);
				NEED_FINDING();
				if (sev < FINDING_WARNING)
					sev = FINDING_WARNING;
				if (u >= JC_AT_LIMIT)
					sev = FINDING_CRITICAL;
				if (u > jc_worst)
					jc_worst = u;
				finding_add_evidence(
					f,
					"%s: %" PRId64
					" KiB in use of a %" PRId64
					" KiB limit (%.1f%%)%s%s%s",
					jname[i], used / 1024, limit / 1024,
					100 * u, segs >= 0 ? " in " : "",
					segs >= 0 ? (snprintf(n3, sizeof(n3),
							      "%" PRId64, segs),
						     n3)
						  : "",
					segs < 0    ? ""
					: segs == 1 ? " segment"
						    : " segments");
				finding_add_fact(f,
						 i ? "jit_data_used_pct"
						   : "jit_code_used_pct",
						 100 * u, "%");
			}
		}
#undef NEED_FINDING
		if (f && map_heap != UINT32_MAX)
			f->figure = map_figure(c, q, map_heap);
		if (f) {
			f->severity = sev;
			if (jc_worst > worst)
				worst = jc_worst;
			f->weight = worst + (disabled ? 1 : 0);
			f->sentence = xstrdup(
				disabled || full
					? "The JIT code cache filled up and "
					  "compilation stopped."
				: jc_worst >= JC_AT_LIMIT
					? "A JIT cache is at its limit: the "
					  "JIT cannot allocate another "
					  "segment."
				: jc_worst > 0
					? "A JIT cache is near its limit."
				: worst >= CH_FULL
					? "A JIT code heap is nearly full."
					: "A JIT code heap is fragmented.");
			finding_add_fact(f, "full_count", (double)full,
					 "times");
			finding_add_fact(f, "compilation_disabled",
					 (double)disabled, "");
			a = buf_strf("--map=space");
			f->command = command(c, "codeheap", a);
			free(a);
			f->fix = xstrdup(
				javacore
					? "Give the JIT more room with "
					  "-Xcodecachetotal (OpenJ9 scales the "
					  "data cache's limit with it; the "
					  "javacore's 1STSEGLIMIT lines are "
					  "both limits), and look for "
					  "generated classes that are loaded "
					  "again and again."
					: "Give the code cache more room "
					  "(-XX:ReservedCodeCacheSize=, or the "
					  "heap's own "
					  "-XX:ProfiledCodeHeapSize= / "
					  "-XX:NonProfiledCodeHeapSize=), keep "
					  "-XX:+UseCodeCacheFlushing on, and "
					  "look for generated classes that are "
					  "loaded again and again.");
		}
		if (f) {
			snap_of = xreallocarray(snap_of, snaps.n_findings,
						sizeof(*snap_of));
			snap_of[snaps.n_findings - 1] = s;
		}
		buf_release(&what);
	}
	c->out = found;
	code_heap_fold(c, q, &snaps, snap_of);
	free(snap_of);
	findings_release(&snaps);
	chq_free(q);
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
	if (top_rows(c, SAMPLE_ALLOC, NULL, GROUP_SITE, GROUP_SITE, &q, &rows,
		     &n, &t, e) < 0)
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
			f->command =
				command(c, "top", "--kind=alloc --by=site");
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
	f->command = command(c, "top", "--kind=outside --by=site");
	if (c->kind_counts[SAMPLE_TLAB_OUTSIDE]) {
		if (top_rows(c, SAMPLE_TLAB_OUTSIDE, NULL, GROUP_SITE,
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
	 "against 1STSEGLIMIT, never one segment); one finding per file, "
	 "its worst snapshot",
	 "critical when compilation stopped, a heap is 99% used or a "
	 "javacore cache 99% of its limit, else warning",
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
