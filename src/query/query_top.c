/*
 * Group-bys (query_top) and the recordings' overview (query_recordings):
 * one pass over the query's kind (query_pass: rollup rows for the whole
 * buckets of the window, samples at its edges) adding into per-group
 * accumulators sized by the number of groups.
 */
#include "query/query.h"
#include "query/query_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/normalize.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

/* rows ahead whose site is fetched while the current one is added
 * (fetching the site's sums too, half as far ahead, gained nothing) */
#define TOP_AHEAD 16

/* How many objects a sample of this kind stands for (NaN: unknown). */
static double objects_per_sample(enum sample_kind k)
{
	switch (k) {
	case SAMPLE_TLAB_OUTSIDE: /* every outside allocation is an event */
	case SAMPLE_OLD_OBJECT:	  /* each is one sampled object */
		return 1.0;
	default:
		return NAN; /* bytes only: no honest object count */
	}
}

bool query_kind_objects(enum sample_kind k)
{
	return sample_kind_ht(k) || !isnan(objects_per_sample(k));
}

/* The sample to prefetch for while working on sample i. */
static inline uint64_t ahead(const struct query *q, uint64_t i)
{
	return i + 16 < q->hi ? i + 16 : i;
}

static int row_cmp(const void *a, const void *b)
{
	const struct query_row *x = a, *y = b;

	if (x->est_bytes != y->est_bytes)
		return x->est_bytes < y->est_bytes ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

/*
 * HotSpot before JDK 25 kept the bytes of a TLAB apart from the sampling
 * interval until the TLAB's end, so that an object allocated outside a
 * TLAB met a sampling point that lay too far ahead (JDK-8356372, fixed in
 * JDK 25): measured on 17.0.15, -8% at three intervals and -36 to -46%
 * below one; on 25.0.3 within 2.3% (docs/estimates.md).  A version
 * that does not begin with a feature number below 25 is not flagged.
 */
bool query_outside_undersampled(const char *jvm_version)
{
	unsigned long feature;
	char *end;

	if (!jvm_version)
		return false;
	/* JFR's jvmVersion: "OpenJDK 64-Bit Server VM (21+35-2513) for
	 * ...": the version is in the first parentheses */
	if (!(*jvm_version >= '0' && *jvm_version <= '9')) {
		const char *p = strchr(jvm_version, '(');

		if (!p || !(p[1] >= '0' && p[1] <= '9'))
			return false;
		jvm_version = p + 1;
	}
	feature = strtoul(jvm_version, &end, 10);
	if (feature == 1 && *end == '.') /* 1.8: no heap sampling */
		return false;
	return feature >= 11 && feature < 25;
}

/*
 * The mean sampling interval of HotSpot's JVMTI sampler (Poisson) that
 * recording rr's samples of the query's kind were taken at, in bytes; 0
 * where the recording does not say, or where the sampler is not
 * HotSpot's (OpenJ9's systematic one).  The agent says it in agent#*;
 * async-profiler in its "alloc" setting (0: 524287, its default);
 * Datadog in its ActiveSetting "interval" (its last: the writer moves it,
 * and weighs each sample itself).
 */
static int64_t poisson_interval(struct query *q, uint32_t rr)
{
	const char *iv = NULL, *sa;
	unsigned long long v;
	char *end;

	switch (q->kind) {
	case SAMPLE_AGENT:
		iv = query_setting(q, rr, "agent#interval");
		sa = query_setting(q, rr, "agent#sampler");
		if (!sa || strcmp(sa, "poisson"))
			return 0;
		break;
	case SAMPLE_AP_ALLOC:
	case SAMPLE_AP_LIVE:
		iv = query_setting(q, rr,
				   "jdk.ObjectAllocationInNewTLAB#alloc");
		if (iv && !strcmp(iv, "0"))
			return 524287; /* async-profiler's default */
		break;
	case SAMPLE_DD_ALLOC:
	case SAMPLE_DD_LIVE:
		iv = query_setting(q, rr, "datadog.ObjectSample#interval");
		break;
	default:
		return 0;
	}
	if (!iv)
		return 0;
	errno = 0;
	v = strtoull(iv, &end, 10);
	return !errno && !*end && v > 0 && v <= INT64_MAX ? (int64_t)v : 0;
}

/*
 * Poisson samples of HotSpot's sampler (the agent's, async-profiler's,
 * Datadog's): per recording, the sizes under QUERY_OUTSIDE_INTERVALS
 * intervals (0: none), which are undersampled outside TLABs
 * (query_outside_undersampled()).  Returned malloc'ed, [q->n_recs] (at
 * least one).
 */
static int64_t *outside_sizes(struct query *q)
{
	int64_t *under_hi =
		xcalloc(q->n_recs ? q->n_recs : 1, sizeof(*under_hi));
	uint32_t rr;

	if (!sample_kind_ht(q->kind))
		return under_hi;
	for (rr = 0; rr < q->n_recs; rr++) {
		int64_t v = poisson_interval(q, rr);

		if (!v || v > INT64_MAX / QUERY_OUTSIDE_INTERVALS ||
		    !query_outside_undersampled(
			    store_str(q->s, q->recs[rr].jvm_version)))
			continue;
		under_hi[rr] = v * QUERY_OUTSIDE_INTERVALS;
	}
	return under_hi;
}

/* What a pass adds up over every group: samples and bytes. */
struct top_sums {
	uint64_t n_samples;
	int64_t sum_bytes;
};

/* A batch of rollup rows (whole buckets of the window) into the groups,
 * the sums and the totals' first and last times. */
static void top_add_rows(struct query *q, enum query_group by,
			 const struct query_pass *p, struct query_total *total,
			 struct top_sums *sums)
{
	/* by site, each row's node finds its site in a table as long as
	 * the trie, a cache line a row: fetched a few rows ahead, as
	 * query_node_self_sums() does */
	const uint32_t *site = by == GROUP_SITE	      ? q->node_site
			       : by == GROUP_APP_SITE ? q->node_app
						      : NULL;
	uint32_t r;
	size_t g;

	for (r = 0; r < p->n_rows; r++) {
		const struct store_rollup_row *x = &p->rows[r];

		if (site && r + TOP_AHEAD < p->n_rows)
			__builtin_prefetch(&site[p->rows[r + TOP_AHEAD].node]);
		if (!query_row_ok(q, p, x))
			continue;
		g = group_of_row(q, by, p, x);
		q->g[g].samples += x->samples;
		q->g[g].bytes = add_sat(q->g[g].bytes, x->bytes);
		if (p->sq)
			q->g[g].sq = sq_add(q->g[g].sq,
					    u128_of(p->sq[r].lo, p->sq[r].hi));
		q->g[g].pool = sq_add(q->g[g].pool, pool_row(p, x));
		if (p->exact) { /* corrected */
			q->g[g].exact = add_sat(q->g[g].exact, x->bytes);
			q->g[g].small_out |= p->small && p->small[r];
		}
		sums->n_samples += x->samples;
		sums->sum_bytes = add_sat(sums->sum_bytes, x->bytes);
		if (x->first_ns < total->first_ns)
			total->first_ns = x->first_ns;
		if (x->last_ns > total->last_ns)
			total->last_ns = x->last_ns;
	}
}

/*
 * A batch of samples (the window's edges) into the groups, the sums and
 * the totals' first and last times.  Without filters only the kind (and
 * the edge's recording) is tested, and the key is one array read: the
 * loop is specialised per group so that the compiler keeps it tight.
 * Samples are time-sorted, so a batch's first and last times are taken
 * outside the loop; batches come in no particular order, so the totals'
 * are a minimum and a maximum.
 */
#define GROUP_LOOP(KEY)                                                     \
	for (i = q->lo; i < q->hi; i++) {                                   \
		int64_t bytes;                                              \
                                                                            \
		if (sm->kind[i] != kind ||                                  \
		    (rec != PASS_ANY_REC && sm->recording[i] != rec) ||     \
		    (!plain && !query_sample_ok(q, i)))                     \
			continue;                                           \
		g = (KEY);                                                  \
		bytes = sm->bytes[i] == REC_NONE ? 0 : sm->bytes[i];        \
		q->g[g].samples++;                                          \
		q->g[g].bytes = add_sat(q->g[g].bytes, bytes);              \
		q->g[g].sq = sq_add(q->g[g].sq,                             \
				    sq_of(var ? var[i] : bytes,             \
					  agent ? sm->size[i] : 0, agent)); \
		q->g[g].pool =                                              \
			sq_add(q->g[g].pool, pool_sample(q, p, i, bytes));  \
		if (var && var[i] <= 0) {                                   \
			q->g[g].exact = add_sat(q->g[g].exact, bytes);      \
			q->g[g].small_out |= var[i] < 0;                    \
		}                                                           \
		if (agent && sm->size[i] > 0)                               \
			q->g[g].objects +=                                  \
				(double)bytes / (double)sm->size[i];        \
		if (agent && sm->size[i] >= QUERY_OUTSIDE_MIN &&            \
		    sm->recording[i] < q->n_recs &&                         \
		    sm->size[i] < under_hi[sm->recording[i]])               \
			q->g[g].outside = add_sat(q->g[g].outside, bytes);  \
		n_samples++;                                                \
		sum_bytes = add_sat(sum_bytes, bytes);                      \
		if (first == UINT64_MAX)                                    \
			first = i;                                          \
		last = i;                                                   \
	}
static void top_add_samples(struct query *q, enum query_group by,
			    const struct query_pass *p, const int64_t *under_hi,
			    struct query_total *total, struct top_sums *sums)
{
	const struct store_samples *sm = &q->sm;
	const bool plain = !q->filtered;
	const bool agent = sample_kind_ht(q->kind);
	const uint8_t kind = (uint8_t)q->kind;
	const uint32_t rec = p->rec;
	const int64_t *var = p->var;
	/* locals, not *sums: stores through a pointer would be kept in
	 * step with the groups' in the loop */
	uint64_t n_samples = sums->n_samples;
	int64_t sum_bytes = sums->sum_bytes;
	uint64_t first = UINT64_MAX, last = 0, i;
	size_t g;

	switch (by) {
	case GROUP_CLASS:
		GROUP_LOOP(sm->cls[i] == STORE_NONE ? q->n_classes : sm->cls[i])
		break;
	case GROUP_SITE:
		/* the per-node table is big and read at
		 * random: fetch a few samples ahead */
		GROUP_LOOP((__builtin_prefetch(
				    &q->node_site[sm->node[ahead(q, i)]]),
			    q->node_site[sm->node[i]]))
		break;
	case GROUP_APP_SITE:
		GROUP_LOOP((
			__builtin_prefetch(&q->node_app[sm->node[ahead(q, i)]]),
			q->node_app[sm->node[i]]))
		break;
	case GROUP_THREAD:
		GROUP_LOOP(sm->thread[i] == STORE_NONE ? q->n_threads
						       : sm->thread[i])
		break;
	default:
		GROUP_LOOP(sm->recording[i])
	}
	sums->n_samples = n_samples;
	sums->sum_bytes = sum_bytes;
	if (first != UINT64_MAX) {
		if (sm->time_ns[first] < total->first_ns)
			total->first_ns = sm->time_ns[first];
		if (sm->time_ns[last] > total->last_ns)
			total->last_ns = sm->time_ns[last];
	}
}
#undef GROUP_LOOP

/* One pass (query_pass) of the groups by: rollup rows for the whole
 * buckets of the window, samples at its edges, into q->g and total. */
static int top_pass(struct query *q, enum query_group by,
		    const int64_t *under_hi, struct query_total *total,
		    struct err *e)
{
	struct top_sums sums = {0, 0};
	struct query_pass p;
	int rc;

	if (query_pass_init(q, &p, query_group_need(by) | PASS_NEED_SQUARES, 0,
			    0, e) < 0)
		return ERR_FAIL;
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS)
			top_add_rows(q, by, &p, total, &sums);
		else
			top_add_samples(q, by, &p, under_hi, total, &sums);
	}
	query_pass_release(&p);
	if (rc < 0)
		return ERR_FAIL;
	total->samples = sums.n_samples;
	total->est_bytes = sums.sum_bytes;
	return 0;
}

/* Group g's key, as the rows show it (query_int.h). */
const char *query_group_key(struct query *q, enum query_group by, size_t g)
{
	switch (by) {
	case GROUP_CLASS:
		return g == q->n_classes
			       ? "(unknown class)"
			       : store_str(q->s, q->classes[g].display);
	case GROUP_SITE:
	case GROUP_APP_SITE:
		return q->site_names[g];
	case GROUP_THREAD:
		return g == q->n_threads ? "(no thread)"
					 : store_str(q->s, q->threads[g].name);
	default: {
		/* the number too: the same file may be in twice, and
		 * --recording takes the number */
		struct buf b = BUF_INIT;
		const char *k;

		buf_addf(&b, "%zu: %s", g, store_str(q->s, q->recs[g].source));
		k = arena_memdup(&q->names, b.data, b.len);
		buf_release(&b);
		return k;
	}
	}
}

/*
 * options.normalize: groups whose keys normalise to the same text
 * (query/normalize.h) are one, their sums added into the first of them;
 * gkey[g] is the kept group's key (in q->names), NULL where a group
 * keeps its own.  Made once per query_top(), over the groups with
 * samples: never per sample.
 */
static void top_normalize(struct query *q, enum query_group by, size_t n_groups,
			  const char **gkey)
{
	struct buf b = BUF_INIT;
	struct hmap idx;
	size_t g;

	hmap_init(&idx);
	for (g = 0; g < n_groups; g++) {
		const char *key;
		struct acc *x = &q->g[g], *y;
		uint64_t first;
		bool changed;

		if (!x->samples)
			continue;
		key = query_group_key(q, by, g);
		buf_reset(&b);
		changed = by == GROUP_CLASS    ? normalize_class(key, &b)
			  : by == GROUP_THREAD ? normalize_thread(key, &b)
					       : normalize_frame(key, &b);
		key = changed ? arena_memdup(&q->names, b.data, b.len) : key;
		if (!hmap_get(&idx, key, strlen(key), &first)) {
			hmap_put(&idx, key, strlen(key), g, NULL);
			gkey[g] = changed ? key : NULL;
			continue;
		}
		y = &q->g[first];
		y->samples += x->samples;
		y->bytes = add_sat(y->bytes, x->bytes);
		y->objects += x->objects;
		y->sq = sq_add(y->sq, x->sq);
		y->pool = sq_add(y->pool, x->pool);
		y->exact = add_sat(y->exact, x->exact);
		y->small_out |= x->small_out;
		y->outside = add_sat(y->outside, x->outside);
		memset(x, 0, sizeof(*x));
	}
	hmap_release(&idx);
	buf_release(&b);
}

/* Group g's row r, from its accumulator, of the totals total (per: the
 * objects a sample stands for). */
static void top_row(struct query *q, enum query_group by, size_t g, double per,
		    const struct query_total *total, struct query_row *r)
{
	r->samples = q->g[g].samples;
	r->est_bytes = q->g[g].bytes;
	r->est_objects = sample_kind_ht(q->kind) ? q->g[g].objects
						 : per * (double)r->samples;
	r->rel_err = query_rel_err(q->kind, r->samples, r->est_bytes,
				   q->g[g].sq, q->g[g].pool);
	/* the effective number of samples, (sum w)^2 / sum w^2 */
	/* a site of objects smaller than a TLAB, a tenth of whose
	 * bytes at least went outside TLABs: those that went into
	 * TLABs are partly counted at other sites (a few small
	 * objects outside a TLAB, or large ones that never fit
	 * one, are not that) */
	r->bias = q->g[g].small_out && q->g[g].exact >= r->est_bytes / 10
			  ? QUERY_BIAS_MIXED
		  : q->g[g].outside && q->g[g].outside >= r->est_bytes / 10
			  ? QUERY_BIAS_OUTSIDE
		  : q->kind != SAMPLE_TLAB_OUTSIDE &&
				  q->kind != SAMPLE_OLD_OBJECT &&
				  r->rel_err > 0 &&
				  1.0 / (r->rel_err * r->rel_err) <
					  QUERY_FEW_EFFECTIVE
			  ? QUERY_BIAS_FEW
			  : QUERY_BIAS_NONE;
	/* of the bytes; of the samples where the kind has no sizes
	 * (OldObjectSample before JDK 21) */
	r->share = total->est_bytes
			   ? (double)r->est_bytes / (double)total->est_bytes
		   : total->samples
			   ? (double)r->samples / (double)total->samples
			   : 0.0;
	r->key = query_group_key(q, by, g);
}

int query_top(struct query *q, enum query_group by,
	      const struct query_row **rows_out, size_t *n_rows,
	      struct query_total *total, struct err *e)
{
	size_t n_groups, n = 0, g;
	double per = objects_per_sample(q->kind);
	int64_t *under_hi;
	int rc;

	if (by == GROUP_APP_SITE)
		query_app_sites(q);
	n_groups = query_group_count(q, by);
	if (n_groups > q->g_alloc) {
		q->g = xreallocarray(q->g, n_groups, sizeof(*q->g));
		q->rows = xreallocarray(q->rows, n_groups, sizeof(*q->rows));
		q->g_alloc = n_groups;
	}
	if (n_groups)
		memset(q->g, 0, n_groups * sizeof(*q->g));
	memset(total, 0, sizeof(*total));
	total->first_ns = INT64_MAX;
	total->last_ns = INT64_MIN;

	under_hi = outside_sizes(q);
	rc = top_pass(q, by, under_hi, total, e);
	free(under_hi);
	if (rc < 0)
		return ERR_FAIL;
	total->est_objects = per * (double)total->samples;
	if (sample_kind_ht(q->kind)) {
		total->est_objects = 0;
		for (g = 0; g < n_groups; g++)
			total->est_objects += q->g[g].objects;
	}
	if (q->o.normalize && by != GROUP_RECORDING) {
		const char **gkey =
			xcalloc(n_groups ? n_groups : 1, sizeof(*gkey));

		top_normalize(q, by, n_groups, gkey);
		for (g = 0; g < n_groups; g++)
			if (q->g[g].samples) {
				top_row(q, by, g, per, total, &q->rows[n]);
				if (gkey[g])
					q->rows[n].key = gkey[g];
				n++;
			}
		free(gkey);
	} else {
		for (g = 0; g < n_groups; g++)
			if (q->g[g].samples)
				top_row(q, by, g, per, total, &q->rows[n++]);
	}
	qsort(q->rows, n, sizeof(*q->rows), row_cmp);
	*rows_out = q->rows;
	*n_rows = n;
	return 0;
}

void query_recordings(struct query *q, const struct query_recording **out,
		      size_t *n)
{
	uint64_t i;
	uint32_t r;
	int k;

	if (!q->rec_info) {
		q->rec_info = xcalloc(q->n_recs ? q->n_recs : 1,
				      sizeof(*q->rec_info));
		for (r = 0; r < q->n_recs; r++) {
			const struct store_recording *sr = &q->recs[r];
			struct query_recording *x = &q->rec_info[r];

			x->source = store_str(q->s, sr->source);
			x->format = store_str(q->s, sr->format);
			x->jvm_name = store_str(q->s, sr->jvm_name);
			x->jvm_version = store_str(q->s, sr->jvm_version);
			x->start_ns = sr->start_ns;
			x->end_ns = sr->end_ns;
			x->n_chunks = sr->n_chunks;
			x->bytes_skipped = sr->bytes_skipped;
		}
		/* every kind's samples per recording: from the rollups'
		 * buckets where the kind has them, else from its blocks,
		 * whose recording indices the reader checked; a kind that
		 * cannot be read counts 0 */
		for (k = 0; k < SAMPLE__COUNT; k++) {
			const struct store_rollup_bucket *b = NULL;
			const struct store_rollup_row *rows;
			struct store_samples m;
			struct err e;
			uint32_t nb = 0, j;

			err_init(&e);
			if (!q->kind_counts[k])
				continue;
			if (store_rollup(q->s, k, STORE_PROJ_THREAD, &b, &nb,
					 &rows, &e) == 0 &&
			    nb) {
				for (j = 0; j < nb; j++)
					if (b[j].recording < q->n_recs)
						q->rec_info[b[j].recording]
							.samples[k] +=
							b[j].samples;
				continue;
			}
			err_init(&e);
			if (store_kind_samples(q->s, k, &m, &e) < 0) {
				/* counted 0, and kept to be said by
				 * whoever needs these counts */
				if (!q->rec_bad)
					q->rec_err = e;
				q->rec_bad |= 1u << k;
				continue;
			}
			for (i = 0; i < m.n; i++)
				if (m.recording[i] < q->n_recs)
					q->rec_info[m.recording[i]].samples[k]++;
		}
	}
	*out = q->rec_info;
	*n = q->n_recs;
}

_Static_assert(SAMPLE__COUNT <= 32, "query.rec_bad holds a bit a kind");

int query_recordings_check(struct query *q, enum sample_kind kind,
			   struct err *e)
{
	const struct query_recording *r;
	size_t n;

	query_recordings(q, &r, &n);
	if (!(q->rec_bad & (1u << kind)))
		return 0;
	*e = q->rec_err;
	return ERR_FAIL;
}
