/*
 * The report's rules on leak suspects (rules_int.h: rule_leaks): the
 * survivors' suspects of the agent's and OldObjectSample's samples, each
 * weighed by its evidence, and old objects reachable from a GC root.
 * The rules on the heap after GC and on the old objects themselves are
 * rules_heap.c's: they read the GCs' heap summaries and one key's
 * evidence, not the survivors, and share with these only the thresholds
 * and the check of old objects' sizes in rules_int.h.
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
	/* old objects: a count of sampled objects known alive, never
	 * bytes drawn as a live set (query/old_emissions.h) */
	bool old = sv->kind == SAMPLE_OLD_OBJECT,
	     by_samples = sv->by_samples || old;

	for (i = 0; i < n_sus && sus[i]->suspect && i < 6; i++)
		n++;
	if (!n || !sv->n_buckets)
		return -1;
	snprintf(title, sizeof(title),
		 old ? "Sampled objects known alive, of the leak suspects (%s)"
		     : "Live set of the leak suspects (%s)",
		 kindname);
	fig = findings_add_figure(c->out, FIG_LIVE, title,
				  by_samples ? "samples" : "bytes",
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
				by_samples ? (double)sus[i]->live_samples[k]
					   : (double)sus[i]->live_bytes[k];
	}
	return fig;
}

static void old_live_evidence(struct finding *f,
			      const struct query_survivors *sv,
			      const struct query_survivor_series *x,
			      const struct query_evidence *ev)
{
	char b1[32], b2[32];

	finding_add_evidence(
		f,
		"%" PRIu64 " jdk.OldObjectSample events from %" PRIu64
		" emission%s show %" PRIu64 " objects: %" PRIu64
		" shown by the last emission (%" PRIu64
		" of them by an earlier one too), %" PRIu64
		" only by earlier ones (collected, or replaced in the "
		"sampler); an event proves its object was not yet "
		"collected when it was written, nothing after",
		ev->events, ev->emissions, ev->emissions == 1 ? "" : "s",
		ev->samples, ev->alive_at_end, ev->kept, ev->gone);
	if (old_sizes_disagree(ev))
		finding_add_evidence(
			f,
			"the data disagree: the objects the last emission "
			"shows add up to %s, more than the %s used after "
			"the GC before it, which held them all; no live set "
			"is shown",
			human_bytes(ev->size_alive, b1, sizeof(b1)),
			human_bytes(ev->heap_after_gc, b2, sizeof(b2)));
	else if (sv->by_samples || ev->size_alive < 0)
		finding_add_evidence(f,
				     "at the last emission: %" PRIu64
				     " sampled objects alive, allocated in %d "
				     "of the 4 quarters of the time window",
				     x->end_samples,
				     __builtin_popcount(x->born_quarters));
	else
		finding_add_evidence(
			f,
			"at the last emission: %" PRIu64 " sampled objects "
			"alive, %s in all (of %s used after the GC before "
			"it), allocated in %d of the 4 quarters of the time "
			"window",
			x->end_samples,
			human_bytes(ev->size_alive, b1, sizeof(b1)),
			ev->heap_after_gc > 0
				? human_bytes(ev->heap_after_gc, b2, sizeof(b2))
				: "an unknown heap",
			__builtin_popcount(x->born_quarters));
}

/* What a suspect's evidence says of it, and the severity that follows. */
struct suspect_verdict {
	bool unrooted, young, strong, bounded, turnover;
	enum finding_severity sev;
};

/* Judge a suspect of kind by its evidence ev and its growth g (percent
 * of the live set per second). */
static void judge_suspect(enum sample_kind kind,
			  const struct query_evidence *ev, double g,
			  struct suspect_verdict *v)
{
	/* roots were searched for (some object of the recording
	 * has one) and none of these has one: unreachable at the
	 * end, garbage not yet collected */
	v->unrooted = kind == SAMPLE_OLD_OBJECT && ev->rooted_elsewhere &&
		      !ev->with_root;
	/* alive at the end, but none survived a GC */
	v->young = ev->alive_at_end && ev->young_unrooted == ev->alive_at_end;
	/* most of its sampled objects were found dead: they live a
	 * while and go, a working set that grew to its size */
	v->bounded = ev->dead > ev->alive_at_end;
	/* every object alive at the end is younger than one of its
	 * own that has died: they have not yet lived as long as
	 * that one did, a working set that turns over, however its
	 * last points rise (a site of a dozen samples can look like
	 * a steady rise by chance).  A leak that began late at a
	 * site that churned before keeps objects older than any of
	 * the churned ones. */
	v->turnover = ev->alive_at_end && ev->longest_life_ns >= 0 &&
		      ev->oldest_alive_ns >= 0 &&
		      ev->oldest_alive_ns <= ev->longest_life_ns;
	v->strong =
		ev->with_root > 0 ||
		(ev->alive_at_end && ev->old_gc_many * 2 >= ev->alive_at_end);
	/* an old-object sample proves only that its object was not
	 * yet collected at its emission (query/old_emissions.h):
	 * without a path to a GC root that is as true of garbage in
	 * the old generation as of a leak, so it is never critical */
	if (kind == SAMPLE_OLD_OBJECT && !ev->with_root)
		v->strong = false;
	if (v->unrooted || v->young || v->bounded || v->turnover)
		v->sev = FINDING_INFO;
	else if (v->strong && ev->n_gcs >= MIN_GCS && g >= LIVE_GROWTH_PCT)
		v->sev = FINDING_CRITICAL;
	else
		v->sev = FINDING_WARNING;
}

/* The sentence of suspect x of kind, from its verdict v: why it is not
 * a leak, or what makes it a suspect.  Malloc'ed. */
static char *suspect_sentence(enum sample_kind kind,
			      const struct query_survivors *sv,
			      const struct query_survivor_series *x,
			      const struct query_evidence *ev, double g,
			      const struct suspect_verdict *v)
{
	char b1[32], b2[32];

	if (v->unrooted)
		return buf_strf("%s's objects look like a growing live set, "
				"but "
				"none has a path to a GC root although the "
				"recording searched for roots: they are most "
				"likely not yet collected, not leaked.",
				x->key);
	if (v->bounded)
		return buf_strf("%s's live set grew, but most of its sampled "
				"objects were found dead (%" PRIu64
				" of %" PRIu64
				", median time to collection %s): a working "
				"set that lives a "
				"while and goes, not a leak.",
				x->key, ev->dead, ev->samples,
				findings_duration(x->median_to_collection_ns,
						  b2, sizeof(b2)));
	if (v->turnover)
		return buf_strf(
			"%s's live set grew, but its objects alive at "
			"the end are at most %s old, and one of its "
			"objects that died lived %s: a working set "
			"that turns over, not a leak.",
			x->key,
			findings_duration(ev->oldest_alive_ns, b1, sizeof(b1)),
			findings_duration(ev->longest_life_ns, b2, sizeof(b2)));
	if (v->young)
		return buf_strf("%s's objects alive at the end survived no GC "
				"and have no known root: most likely not yet "
				"collected, not leaked.",
				x->key);
	if (kind == SAMPLE_OLD_OBJECT)
		/* what the emissions show, not a live set's curve
		 * (query/old_emissions.h) */
		return buf_strf(
			"%s's sampled objects accumulate: the last "
			"emission of old objects shows %" PRIu64
			", allocated all along the recording%s%s: a "
			"leak suspect%s.",
			x->key, ev->alive_at_end,
			ev->kept ? ", and most of those earlier "
				   "emissions showed are still there"
				 : "",
			ev->with_root ? ", reachable from GC roots"
			: ev->old_gc_many
				? ", surviving many GCs (without GC "
				  "roots: not yet collected is all "
				  "the events prove)"
				: " (without GC roots: not yet "
				  "collected is all the events prove)",
			ev->n_gcs < MIN_GCS ? " (too few GCs to be sure)" : "");
	return buf_strf(
		"%s's live set keeps growing (%s/s, %.1f%% of "
		"the live set per second)%s: a leak suspect%s.",
		x->key,
		sv->by_samples
			? (snprintf(b1, sizeof(b1), "%.2f samples", x->slope),
			   b1)
			: human_bytes(i64_held(x->slope), b1, sizeof(b1)),
		g,
		ev->with_root	  ? ", its objects reachable from "
				    "GC roots"
		: ev->old_gc_many ? ", its objects surviving "
				    "many GCs"
				  : "",
		ev->n_gcs < MIN_GCS ? " (too few GCs to be sure)" : "");
}

/* The evidence lines of suspect x of kind: its live set (or what the
 * old objects' emissions show), its samples, the GCs they survived,
 * their roots and the time window. */
static void suspect_evidence(struct finding *f, enum sample_kind kind,
			     const struct query_survivors *sv,
			     const struct query_survivor_series *x,
			     const struct query_evidence *ev)
{
	char b1[32], b2[32], b3[32];

	if (kind == SAMPLE_OLD_OBJECT)
		old_live_evidence(f, sv, x, ev);
	else if (sv->by_samples)
		finding_add_evidence(f,
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
			human_bytes(x->peak_bytes, b2, sizeof(b2)), x->rising,
			sv->n_buckets,
			human_bytes(i64_held(x->slope), b3, sizeof(b3)));
	if (kind != SAMPLE_OLD_OBJECT)
		finding_add_evidence(
			f,
			"%" PRIu64 " sampled objects (%s), %" PRIu64
			" alive at the end, %" PRIu64 " found dead; "
			"+/-%.0f%% from the sample count",
			ev->samples, sample_kind_name(kind), ev->alive_at_end,
			ev->dead,
			ev->samples ? 100 / sqrt((double)ev->samples) : 100.0);
	finding_add_evidence(f,
			     "GCs survived by those alive at the end: "
			     "median %" PRId64 ", most %" PRId64 "; %" PRIu64
			     " survived %d or more (%" PRIu64
			     " GCs in the recording)",
			     ev->median_gcs, ev->max_gcs, ev->old_gc_many,
			     QUERY_MANY_GCS, ev->n_gcs);
	if (kind == SAMPLE_OLD_OBJECT)
		finding_add_evidence(
			f, "%" PRIu64 " with a path to a GC root%s%s%s",
			ev->with_root, ev->root ? " (mostly " : "",
			ev->root ? ev->root : "",
			ev->root	       ? ")"
			: ev->rooted_elsewhere ? "; the recording has roots "
						 "for other objects"
					       : "; the recording has no "
						 "roots (path-to-gc-roots "
						 "was off)");
	if (sv->n_buckets)
		finding_add_evidence(f, "time window: %.3f s, %zu points",
				     (double)(sv->time_ns[sv->n_buckets - 1] -
					      sv->start_ns) /
					     1e9,
				     sv->n_buckets);
}

/* The facts of suspect x of kind (g: its growth). */
static void suspect_facts(struct finding *f, enum sample_kind kind,
			  const struct query_survivors *sv,
			  const struct query_survivor_series *x,
			  const struct query_evidence *ev, double g)
{
	finding_add_fact(f, "slope", x->slope,
			 sv->by_samples ? "samples/s" : "bytes/s");
	finding_add_fact(f, "growth", g, "%/s");
	if (kind != SAMPLE_OLD_OBJECT)
		finding_add_fact(f, "end",
				 sv->by_samples ? (double)x->end_samples
						: (double)x->end_bytes,
				 sv->by_samples ? "samples" : "bytes");
	else if (!old_sizes_disagree(ev) && ev->size_alive >= 0)
		finding_add_fact(f, "end", (double)ev->size_alive, "bytes");
	else
		finding_add_fact(f, "end", (double)x->end_samples, "samples");
	finding_add_fact(f, "samples", (double)ev->samples, "samples");
	finding_add_fact(f, "with_root", (double)ev->with_root, "samples");
	finding_add_fact(f, "median_gcs_survived", (double)ev->median_gcs,
			 "gcs");
	finding_add_fact(f, "gcs", (double)ev->n_gcs, "gcs");
}

/* The finding on suspect x of kind (fig: the live set's figure), with
 * the evidence a query of its own key gives. */
static int
suspect_finding(struct findings_ctx *c, const struct finding_rule *rule,
		enum sample_kind kind, const struct query_survivors *sv,
		const struct query_survivor_series *x, int fig, struct err *e)
{
	struct query_evidence ev;
	struct suspect_verdict v;
	struct finding *f;
	struct query *qk;
	double g = growth_pct(sv, x);
	char *a;

	if (findings_query(c, kind, x->key, GROUP_SITE, &qk, e) < 0 ||
	    query_evidence(qk, &ev, e) < 0) {
		query_free(qk);
		return ERR_FAIL;
	}
	query_free(qk);
	judge_suspect(kind, &ev, g, &v);
	f = findings_add(c, rule->name, v.sev);
	f->subject = xstrdup(x->key);
	f->weight = g;
	f->few_samples = ev.samples < FEW_SAMPLES;
	f->figure = fig;
	f->sentence = suspect_sentence(kind, sv, x, &ev, g, &v);
	if (ev.n_gcs < MIN_GCS && f->severity > FINDING_INFO)
		f->few_samples = true;
	suspect_evidence(f, kind, sv, x, &ev);
	suspect_facts(f, kind, sv, x, &ev, g);
	a = buf_strf("--kind=%s --leaks", rules_kind_opt(kind));
	f->command = rules_command(c, "survivors", a);
	free(a);
	if (!v.unrooted && !v.young && !v.bounded)
		f->fix =
			xstrdup("Find what holds these objects (often a static "
				"collection or a cache without eviction) and "
				"bound it or remove entries; a heap dump "
				"(jcmd PID GC.heap_dump) shows the path.");
	return 0;
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
	for (i = 0; i < n && sus[i]->suspect && i < 5; i++)
		if (suspect_finding(c, rule, kind, sv, sus[i], fig, e) < 0) {
			query_free(q);
			return ERR_FAIL;
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

	if (rules_top_rows(c, SAMPLE_OLD_OBJECT, NULL, GROUP_SITE,
			   GROUP_APP_SITE, &q, &rows, &n, &t, e) < 0)
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
		/* reachable and old is as true of a steady cache as of a
		 * leak: some must date from the first half of the data
		 * (its start to the last emission), where earlier
		 * emissions showed some, the last must show most of them
		 * again (a working set's are gone by then), and one or two
		 * objects held by a static field show no growth at all */
		if (ev.oldest_alive_ns * 2 < ev.window_ns ||
		    ev.kept < ev.gone || ev.alive_at_end < 3)
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
			"a GC root at the recording's last emission of old "
			"objects, after surviving "
			"%" PRId64 " GCs: a leak suspect%s.",
			rows[i].key, ev.median_gcs,
			f->few_samples ? " resting on few samples" : "");
		finding_add_evidence(f,
				     "%" PRIu64 " sampled objects by this "
				     "app-site (%" PRIu64 " events), %" PRIu64
				     " shown by the last emission, %" PRIu64
				     " of them with a path to a GC root "
				     "(mostly %s)",
				     ev.samples, ev.events, ev.alive_at_end,
				     ev.with_root,
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
		a = buf_strf("--kind=old --leaks --by=app-site");
		f->command = rules_command(c, "survivors", a);
		free(a);
		f->fix = xstrdup("Find what holds these objects (the GC root "
				 "names it: a static field, a class loader, a "
				 "thread) and bound or clear it.");
	}
	query_free(q);
	return 0;
}

int rule_leaks(struct findings_ctx *c, const struct finding_rule *rule,
	       struct err *e)
{
	static const enum sample_kind weighed[] = {SAMPLE_AGENT, SAMPLE_AP_LIVE,
						   SAMPLE_DD_LIVE};
	size_t i;

	for (i = 0; i < sizeof(weighed) / sizeof(weighed[0]); i++)
		if (c->kind_counts[weighed[i]] &&
		    leaks_of_kind(c, rule, weighed[i], e) < 0)
			return ERR_FAIL;
	if (c->kind_counts[SAMPLE_OLD_OBJECT]) {
		if (leaks_of_kind(c, rule, SAMPLE_OLD_OBJECT, e) < 0 ||
		    rooted_old(c, rule, e) < 0)
			return ERR_FAIL;
	}
	return 0;
}
