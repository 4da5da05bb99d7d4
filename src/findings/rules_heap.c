/*
 * The report's rules on the Java heap itself (rules_int.h:
 * rule_heap_after_gc, rule_old_objects): the heap after GC rising, judged
 * on the GCs that show the live set, and the old objects alive at the
 * end with their GC roots.  Apart from the leak suspects
 * (rules_survivors.c), which weigh the survivors site by site; they
 * share the thresholds and the check of old objects' sizes in
 * rules_int.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#include "findings/findings_int.h"
#include "findings/rules_int.h"
#include "util/buf.h"
#include "util/size.h"
#include "util/xalloc.h"

/* --- heap after GC --------------------------------------------------------- */

/* at least this many points that show the live set after the warm-up
 * before its trend is judged */
#define MIN_LIVE_POINTS 4
/* G1HeapWastePercent's default (g1_globals.hpp): see within_g1_waste() */
#define G1_HEAP_WASTE_PCT 5.0
/* Theil-Sen's pairs are quadratic: above this many points, every k-th */
#define MAX_TREND_POINTS 1024

/* The heap after GC over time in a recording: which of its GCs show the
 * live set, and the trend of those. */
struct heap_trend {
	size_t n, from; /* points; the first after the warm-up */
	size_t *live;	/* indexes of the points that show it */
	size_t n_live;	/* after the warm-up */
	bool kinds;	/* the recording says which GCs were which */
	size_t n_full, n_cycle, n_mixed, n_young, n_failed;
	int64_t young_peak; /* the highest after a young GC */
	double slope, mean; /* Theil-Sen over the live points, bytes/s */
	double all_slope;   /* Theil-Sen over every point after warm-up */
	double all_mean;
};

/* Is i the last of a run of G1's mixed collections (the next young or
 * mixed collection is not mixed)? */
static bool last_mixed(const struct query_heap_point *p, size_t n, size_t i)
{
	size_t j;

	for (j = i + 1; j < n; j++)
		if (p[j].kind == QUERY_GC_YOUNG || p[j].kind == QUERY_GC_MIXED)
			return p[j].kind != QUERY_GC_MIXED;
	return true;
}

/*
 * Does point i show the live set?  A young collection's heap after GC
 * holds what it promoted and everything dead in the old generation, so
 * only a GC that collected the old generation shows the live set: a full
 * GC, the end of G1's concurrent cycle (its empty old regions freed),
 * the last of its mixed collections, or a concurrent collector's whole
 * cycle.  Where the recording does not say which GCs were which: the
 * lower envelope, the points at which the heap fell below the GC
 * before's.
 */
static bool shows_live_set(const struct query_heap_point *p, size_t n, size_t i,
			   bool kinds)
{
	if (!kinds)
		return i > 0 && p[i].used < p[i - 1].used;
	switch (p[i].kind) {
	case QUERY_GC_FULL:
	case QUERY_GC_WHOLE:
	case QUERY_GC_CYCLE_END:
		return true;
	case QUERY_GC_MIXED:
		return !p[i].failed && last_mixed(p, n, i);
	default:
		return false;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Theil-Sen: the median of the slopes between every two live points
 * (a few outliers do not move it). */
static double theil_sen(const struct query_heap_point *p, const size_t *v,
			size_t m)
{
	size_t step = m > MAX_TREND_POINTS
			      ? (m + MAX_TREND_POINTS - 1) / MAX_TREND_POINTS
			      : 1,
	       i, j, k = 0;
	double *s, med;

	s = xcalloc(m / step * (m / step + 1) / 2 + 1, sizeof(double));
	for (i = 0; i < m; i += step)
		for (j = i + step; j < m; j += step) {
			int64_t dt = p[v[j]].time_ns - p[v[i]].time_ns;

			if (dt > 0)
				s[k++] = (double)(p[v[j]].used - p[v[i]].used) /
					 ((double)dt / 1e9);
		}
	if (!k) {
		free(s);
		return 0;
	}
	qsort(s, k, sizeof(double), cmp_double);
	med = k % 2 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
	free(s);
	return med;
}

static void heap_trend(const struct query_heap_point *p, size_t n, int64_t t0,
		       struct heap_trend *h)
{
	int64_t warm;
	size_t i;

	memset(h, 0, sizeof(*h));
	h->n = n;
	h->young_peak = -1;
	/* warm-up: the first fifth of the recording */
	warm = t0 + (p[n - 1].time_ns - t0) / 5;
	while (h->from < n && p[h->from].time_ns < warm)
		h->from++;
	for (i = 0; i < n; i++)
		h->kinds |= p[i].kind != QUERY_GC_UNKNOWN;
	h->live = xcalloc(n, sizeof(size_t));
	for (i = h->from; i < n; i++) {
		if (p[i].used == REC_NONE)
			continue;
		if (shows_live_set(p, n, i, h->kinds)) {
			h->live[h->n_live++] = i;
			h->n_full += p[i].kind == QUERY_GC_FULL ||
				     p[i].kind == QUERY_GC_WHOLE;
			h->n_cycle += p[i].kind == QUERY_GC_CYCLE_END;
			h->n_mixed += p[i].kind == QUERY_GC_MIXED;
			h->mean += (double)p[i].used;
		} else if (p[i].kind == QUERY_GC_YOUNG ||
			   p[i].kind == QUERY_GC_MIXED) {
			h->n_young++;
			h->n_failed += p[i].failed;
			if (p[i].used > h->young_peak)
				h->young_peak = p[i].used;
		}
	}
	if (h->n_live)
		h->mean /= (double)h->n_live;
	h->slope = h->n_live >= 2 ? theil_sen(p, h->live, h->n_live) : 0;
	if (n - h->from >= 2) {
		size_t *all = xcalloc(n - h->from, sizeof(size_t)), k = 0;

		for (i = h->from; i < n; i++)
			if (p[i].used != REC_NONE) {
				all[k++] = i;
				h->all_mean += (double)p[i].used;
			}
		if (k)
			h->all_mean /= (double)k;
		h->all_slope = theil_sen(p, all, k);
		free(all);
	}
}

/* Does a rise of slope bytes/s between points a and z show in them: z
 * above a by at least half what the slope claims (a headline's rate
 * must agree with the first and last points its evidence prints)? */
static bool rise_seen(const struct query_heap_point *a,
		      const struct query_heap_point *z, double slope)
{
	double span = (double)(z->time_ns - a->time_ns) / 1e9;

	return span > 0 && z->used > a->used &&
	       (double)(z->used - a->used) >= slope * span / 2;
}

/* Which GCs the live set was read from, in words. */
static char *live_points_text(const struct heap_trend *h)
{
	if (!h->kinds)
		return buf_strf("%zu points of the lower envelope (the heap "
				"after GC fell below the GC before's; the "
				"recording does not say which GCs were young)",
				h->n_live);
	return buf_strf("%zu GC%s that collected the old generation: %zu "
			"full (or whole-heap), %zu ends of G1's concurrent "
			"cycle, %zu last of a run of mixed collections",
			h->n_live, h->n_live == 1 ? "" : "s", h->n_full,
			h->n_cycle, h->n_mixed);
}

/* The figure: the points the trend comes from. */
static int heap_figure(struct findings_ctx *c, const char *source,
		       const struct query_heap_point *p, const size_t *v,
		       size_t m, const char *title)
{
	struct finding_figure *gr;
	int fig;
	size_t i;

	fig = findings_add_figure(c->out, FIG_HEAP, title, "bytes", m);
	gr = &c->out->figures[fig];
	gr->series = xcalloc(1, sizeof(*gr->series));
	gr->n_series = 1;
	gr->series[0].name = xstrdup(source);
	gr->series[0].y = xcalloc(m, sizeof(double));
	for (i = 0; i < m; i++) {
		gr->t_ns[i] = p[v ? v[i] : i].time_ns;
		gr->series[0].y[i] = (double)p[v ? v[i] : i].used;
	}
	return fig;
}

/* The heap after GC rises, but no GC after the warm-up showed the live
 * set: said at info, since promoted garbage rises the same way. */
static void heap_unjudged(struct findings_ctx *c,
			  const struct finding_rule *rule,
			  const struct query_recording *rec,
			  const struct query_heap_point *p,
			  const struct heap_trend *h)
{
	struct finding *f;
	char b1[32], b2[32];
	char *lp;

	f = findings_add(c, rule->name, FINDING_INFO);
	f->subject = xstrdup(rec->source);
	f->weight = 0;
	f->figure = heap_figure(c, rec->source, p, NULL, h->n,
				"Heap used after every GC (too few after the "
				"warm-up showed the live set)");
	f->sentence = buf_strf(
		"The heap after GC rises in %s (%s/s after the warm-up), but "
		"only %zu GC%s after the warm-up collected the old "
		"generation: a young collection's heap after GC holds what "
		"it promoted and is not yet collected, so this does not show "
		"whether the live set grows.",
		rec->source,
		human_bytes(i64_held(h->all_slope), b1, sizeof(b1)), h->n_live,
		h->n_live == 1 ? "" : "s");
	lp = live_points_text(h);
	finding_add_evidence(f,
			     "%zu GCs with an \"After GC\" heap summary, "
			     "%zu after the warm-up; the live set shows "
			     "at %s",
			     h->n, h->n - h->from, lp);
	free(lp);
	finding_add_evidence(f,
			     "heap after GC: %s after the warm-up, %s at "
			     "the last GC",
			     human_bytes(p[h->from].used, b1, sizeof(b1)),
			     human_bytes(p[h->n - 1].used, b2, sizeof(b2)));
	finding_add_fact(f, "slope_all_gcs", h->all_slope, "bytes/s");
	finding_add_fact(f, "live_points", (double)h->n_live, "gcs");
	f->command = rules_command(c, "survivors", "--leaks");
	f->fix = xstrdup("Record longer, until old collections come (or a "
			 "full GC: jcmd PID GC.run), and look at the heap "
			 "after them.");
}

/*
 * Can G1's leftovers alone make a rise of `rise` bytes between points
 * that are all G1's (ends of its concurrent cycles, last mixed
 * collections; no full GC among them)?  G1 stops its mixed collections,
 * or starts none, while the garbage its marking found in old regions
 * is G1HeapWastePercent (5 by default) of the heap's capacity or less
 * (G1Policy::next_gc_should_be_mixed() and reclaimable_bytes_percent(),
 * g1Policy.cpp: percent_of(reclaimable, _g1h->capacity()), the committed
 * heap), so the heap after those points may carry up to that much
 * garbage, more at one point than at another, with no leak at all.  A
 * rise within it is not shown to be the live set's (a healthy JDK 25
 * service rose 4.5 MB in 256 MB that way, truth corpus
 * oos-healthy-jdk25-chunks).
 */
static bool within_g1_waste(const struct heap_trend *h,
			    const struct query_heap_point *z, int64_t rise)
{
	if (!h->kinds || h->n_full || z->committed == REC_NONE ||
	    z->committed <= 0)
		return false;
	return (double)rise <= G1_HEAP_WASTE_PCT / 100.0 * (double)z->committed;
}

/*
 * The live set's trend in one recording (docs/report.md): the
 * Theil-Sen slope of the heap after the GCs that show the live set,
 * after the warm-up, ranked by that slope over their mean.  The
 * headline's rise must be seen in the evidence it prints: the first
 * and last of those points rise by at least half of what the slope
 * claims between them.
 */
static void heap_judged(struct findings_ctx *c, const struct finding_rule *rule,
			const struct query_recording *rec,
			const struct query_heap_point *p,
			const struct heap_trend *h)
{
	const struct query_heap_point *a = &p[h->live[0]],
				      *z = &p[h->live[h->n_live - 1]];
	double span = (double)(z->time_ns - a->time_ns) / 1e9,
	       g = h->mean > 0 ? 100.0 * h->slope / h->mean : 0,
	       seen = span > 0 ? (double)(z->used - a->used) / span : 0;
	int64_t t0 = rec->start_ns != INT64_MIN ? rec->start_ns : p[0].time_ns;
	struct finding *f;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	char *lp;

	if (g < LIVE_GROWTH_PCT || !rise_seen(a, z, h->slope) ||
	    within_g1_waste(h, z, z->used - a->used))
		return;
	f = findings_add(c, rule->name,
			 g >= 5 * LIVE_GROWTH_PCT ? FINDING_CRITICAL
						  : FINDING_WARNING);
	f->subject = xstrdup(rec->source);
	f->weight = g;
	f->figure = heap_figure(c, rec->source, p, h->live, h->n_live,
				h->kinds ? "Heap used after the GCs that "
					   "collected the old generation"
					 : "Heap used after GC, its lower "
					   "envelope");
	f->sentence = buf_strf(
		"The live set keeps rising in %s: the heap after the GCs that "
		"show it went from %s to %s (%s/s, %.1f%% of its mean per "
		"second after warm-up), which is how a leak looks even "
		"without survivors data.",
		rec->source, human_bytes(a->used, b1, sizeof(b1)),
		human_bytes(z->used, b2, sizeof(b2)),
		human_bytes(i64_held(h->slope), b3, sizeof(b3)), g);
	lp = live_points_text(h);
	finding_add_evidence(f,
			     "%zu GCs with an \"After GC\" heap summary, %zu "
			     "after the warm-up (the first fifth of the "
			     "recording); the live set from %s",
			     h->n, h->n - h->from, lp);
	free(lp);
	finding_add_evidence(
		f,
		"live set: %s at %.3f s, %s at %.3f s (%s/s between them), "
		"mean %s; Theil-Sen slope %s/s",
		human_bytes(a->used, b1, sizeof(b1)),
		(double)(a->time_ns - t0) / 1e9,
		human_bytes(z->used, b2, sizeof(b2)),
		(double)(z->time_ns - t0) / 1e9,
		human_bytes(i64_held(seen), b3, sizeof(b3)),
		human_bytes(i64_held(h->mean), b4, sizeof(b4)),
		human_bytes(i64_held(h->slope), b5, sizeof(b5)));
	if (h->n_young)
		finding_add_evidence(
			f,
			"not counted: %zu young collections (heap after "
			"them up to %s%s)",
			h->n_young, human_bytes(h->young_peak, b1, sizeof(b1)),
			h->n_failed ? ", some failed to copy their survivors"
				    : "");
	finding_add_fact(f, "slope", h->slope, "bytes/s");
	finding_add_fact(f, "growth", g, "%/s");
	finding_add_fact(f, "gcs", (double)h->n_live, "gcs");
	finding_add_fact(f, "first", (double)a->used, "bytes");
	finding_add_fact(f, "last", (double)z->used, "bytes");
	f->command = rules_command(c, "survivors", "--leaks");
	f->fix = xstrdup("Look at the leak suspects; where the recording has "
			 "none, record with OldObjectSample and "
			 "path-to-gc-roots=true, or with heapsift's agent, or "
			 "take a heap dump.");
}

int rule_heap_after_gc(struct findings_ctx *c, const struct finding_rule *rule,
		       struct err *e)
{
	const struct query_recording *recs;
	struct query *q;
	size_t n_recs, r;

	if (findings_query(c, -1, NULL, GROUP_SITE, &q, e) < 0)
		return ERR_FAIL;
	query_recordings(q, &recs, &n_recs);
	for (r = 0; r < n_recs; r++) {
		struct query_heap_point *p;
		struct heap_trend h;
		size_t n;

		if (!findings_rec_in_scope(c, (uint32_t)r))
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
		heap_trend(p, n,
			   recs[r].start_ns != INT64_MIN ? recs[r].start_ns
							 : p[0].time_ns,
			   &h);
		if (h.n_live >= MIN_LIVE_POINTS)
			heap_judged(c, rule, &recs[r], p, &h);
		else if (h.n - h.from >= MIN_GCS && h.all_mean > 0 &&
			 100.0 * h.all_slope / h.all_mean >= LIVE_GROWTH_PCT &&
			 rise_seen(&p[h.from], &p[n - 1], h.all_slope))
			heap_unjudged(c, rule, &recs[r], p, &h);
		free(h.live);
		free(p);
	}
	query_free(q);
	return 0;
}

/* --- old objects ------------------------------------------------------------ */

int rule_old_objects(struct findings_ctx *c, const struct finding_rule *rule,
		     struct err *e)
{
	const struct query_row *rows;
	struct query_total t;
	struct query_evidence ev;
	struct finding *f;
	struct query *q, *qe;
	size_t n, i;
	char b[32], b2[32];

	if (!c->kind_counts[SAMPLE_OLD_OBJECT])
		return 0;
	if (rules_top_rows(c, SAMPLE_OLD_OBJECT, NULL, GROUP_SITE,
			   GROUP_APP_SITE, &q, &rows, &n, &t, e) < 0)
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
	/* each object once, and alive at the end only where its
	 * recording's last emission shows it (query/old_emissions.h) */
	f->sentence = buf_strf(
		"%" PRIu64 " sampled objects were not yet collected at the "
		"recording's last emission of old objects, %" PRIu64
		" of them with a path to a GC root%s.",
		ev.alive_at_end, ev.with_root,
		ev.with_root ? ""
		: ev.rooted_elsewhere
			? ""
			: " (the recording did not search for roots: "
			  "path-to-gc-roots=false)");
	finding_add_evidence(
		f,
		"%" PRIu64 " jdk.OldObjectSample events from %" PRIu64
		" emission%s (each dump of the running recording and its "
		"stop) show %" PRIu64 " objects; %" PRIu64
		" only by earlier emissions (collected, or replaced in the "
		"sampler)",
		ev.events, ev.emissions, ev.emissions == 1 ? "" : "s",
		ev.samples, ev.gone);
	/* the sizes of one emission's objects fit in the heap after the
	 * GC before it (query/old_emissions.h): say so, or that the data
	 * disagree */
	if (old_sizes_disagree(&ev))
		finding_add_evidence(
			f,
			"the data disagree: the objects the last emission "
			"shows add up to %s, more than the %s used after the "
			"GC before it, which held them all",
			human_bytes(ev.size_alive, b, sizeof(b)),
			human_bytes(ev.heap_after_gc, b2, sizeof(b2)));
	else if (ev.size_alive >= 0 && ev.heap_after_gc > 0)
		finding_add_evidence(
			f,
			"the objects the last emission shows: %s, of the %s "
			"used after the GC before it",
			human_bytes(ev.size_alive, b, sizeof(b)),
			human_bytes(ev.heap_after_gc, b2, sizeof(b2)));
	for (i = 0; i < n && i < 5; i++) {
		struct query_evidence ek;

		if (findings_query(c, SAMPLE_OLD_OBJECT, rows[i].key,
				   GROUP_APP_SITE, &qe, e) < 0 ||
		    query_evidence(qe, &ek, e) < 0) {
			query_free(qe);
			query_free(q);
			return ERR_FAIL;
		}
		query_free(qe);
		finding_add_evidence(
			f,
			"app-site %zu: %s, %" PRIu64 " objects, %" PRIu64
			" at the last emission%s%s",
			i + 1, rows[i].key, ek.samples, ek.alive_at_end,
			ek.size_alive > 0 ? ", " : "",
			ek.size_alive > 0
				? human_bytes(ek.size_alive, b, sizeof(b))
				: "");
	}
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
	finding_add_fact(f, "objects", (double)ev.alive_at_end, "samples");
	finding_add_fact(f, "with_root", (double)ev.with_root, "samples");
	f->command = rules_command(c, "survivors", "--kind=old --by=app-site");
	query_free(q);
	return 0;
}
