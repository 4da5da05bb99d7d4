/*
 * The query engine declared in query.h.
 *
 * query_open() turns every filter into a verdict per distinct thing: per
 * class, per thread, per method (a regex run once on its "class.method"
 * text), per stack node (method verdicts propagated from the root down,
 * parents before children, which the depth-first numbering makes a
 * single forward pass).  query_top(), query_tree(), query_paths() and
 * query_timeline() are then passes over the samples of the query's kind
 * in its time window, a block of the store at a time (query_next_block:
 * only the blocks that overlap the window are read, each decoded into
 * columns that stay in the cache, the window found in it by binary
 * search), that read those arrays and add into per-group accumulators
 * sized by the number of groups, allocated once per query.  Survivors
 * keeps indices into the samples, so it has the kind decoded whole
 * (query_materialize).
 */
#include "query/query.h"
#include "query/query_impl.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

#define MATCH_LIMIT 1000000
#define DEPTH_LIMIT 10000

struct re {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
};

static int re_compile(struct re *r, const char *pattern, const char *what,
		      struct err *e)
{
	int code;
	PCRE2_SIZE off;

	memset(r, 0, sizeof(*r));
	/* names come from files: match invalid UTF-8 safely rather than
	 * refuse it */
	r->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
				PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code,
				&off, NULL);
	if (!r->code) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof(msg));
		return err_set(
			e, ERR_USAGE,
			"%s: '%s' is not a valid regex: %s at offset %zu", what,
			pattern, (const char *)msg, (size_t)off);
	}
	pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE); /* else interpreted */
	r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
	r->mc = pcre2_match_context_create(NULL);
	if (!r->md || !r->mc)
		die("out of memory for a regex");
	pcre2_set_match_limit(r->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(r->mc, DEPTH_LIMIT);
	return 0;
}

/* 1 match, 0 no match (a pattern that hits its limits does not match). */
static int re_match(struct re *r, const char *s, size_t len)
{
	return pcre2_match(r->code, (PCRE2_SPTR)s, len, 0, 0, r->md, r->mc) >=
	       0;
}

static void re_free(struct re *r)
{
	pcre2_match_data_free(r->md);
	pcre2_match_context_free(r->mc);
	pcre2_code_free(r->code);
	memset(r, 0, sizeof(*r));
}

void query_options_init(struct query_options *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = -1;
	o->from_ns = INT64_MIN;
	o->to_ns = INT64_MAX;
	o->recording = -1;
}

const char *query_group_name(enum query_group g)
{
	switch (g) {
	case GROUP_CLASS:
		return "class";
	case GROUP_SITE:
		return "site";
	case GROUP_APP_SITE:
		return "app-site";
	case GROUP_THREAD:
		return "thread";
	case GROUP_RECORDING:
		return "recording";
	}
	return "?";
}

bool query_group_parse(const char *s, enum query_group *g)
{
	static const enum query_group all[] = {GROUP_CLASS, GROUP_SITE,
					       GROUP_APP_SITE, GROUP_THREAD,
					       GROUP_RECORDING};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, query_group_name(all[i]))) {
			*g = all[i];
			return true;
		}
	return false;
}

/* "class.method" of a method, into b. */
static void method_text(const struct query *q, uint32_t m, struct buf *b)
{
	const struct store_method *mm = &q->methods[m];

	buf_reset(b);
	buf_adds(b, store_str(q->s, q->classes[mm->cls].display));
	buf_addch(b, '.');
	buf_adds(b, store_str(q->s, mm->name));
}

static int load(struct query *q, struct err *e)
{
	struct store *s = q->s;

	if (store_recordings(s, &q->recs, &q->n_recs, e) < 0 ||
	    store_threads(s, &q->threads, &q->n_threads, e) < 0 ||
	    store_classes(s, &q->classes, &q->n_classes, e) < 0 ||
	    store_methods(s, &q->methods, &q->n_methods, e) < 0 ||
	    store_frames(s, &q->frames, &q->n_frames, e) < 0 ||
	    store_nodes(s, &q->nodes, &q->n_nodes, e) < 0 ||
	    store_kind_counts(s, q->kind_counts, e) < 0)
		return ERR_FAIL;
	return 0;
}

/* Per-method verdicts of one regex, 1 byte each; NULL pattern: NULL. */
static int method_verdicts(struct query *q, const char *pattern,
			   const char *what, unsigned char **out, struct err *e)
{
	struct re re;
	struct buf b = BUF_INIT;
	uint32_t m;

	*out = NULL;
	if (!pattern)
		return 0;
	if (re_compile(&re, pattern, what, e) < 0)
		return ERR_FAIL;
	*out = xcalloc(q->n_methods ? q->n_methods : 1, 1);
	for (m = 0; m < q->n_methods; m++) {
		method_text(q, m, &b);
		(*out)[m] = (unsigned char)re_match(&re, b.data, b.len);
	}
	buf_release(&b);
	re_free(&re);
	return 0;
}

static uint32_t site_of(struct query *q, struct hmap *idx, uint32_t frame,
			struct buf *b)
{
	const struct store_frame *f = &q->frames[frame];
	uint64_t v;
	char *name;

	/* keyed by the name, not by (method, line): overloads of a method
	 * (invokeStatic(Object)Object, invokeStatic(Object,Object)Object)
	 * are one site, as docs/heapsift.1 defines a site, never two rows
	 * or two sibling tree nodes with the same name */
	method_text(q, f->method, b);
	if (f->line >= 0)
		buf_addf(b, ":%d", f->line);
	if (hmap_get(idx, b->data, b->len, &v))
		return (uint32_t)v;
	q->site_names =
		xreallocarray(q->site_names, q->n_sites + 1, sizeof(char *));
	name = arena_memdup(&q->names, b->data, b->len);
	q->site_names[q->n_sites] = name;
	hmap_put(idx, name, b->len, q->n_sites, NULL);
	return q->n_sites++;
}

static int build_sites(struct query *q, struct err *e)
{
	const char *lib =
		q->o.library_re ? q->o.library_re : QUERY_LIBRARY_DEFAULT;
	unsigned char *is_lib;
	struct hmap idx;
	struct buf b = BUF_INIT;
	uint32_t i;

	if (method_verdicts(q, lib, "--library", &is_lib, e) < 0)
		return ERR_FAIL;
	hmap_init(&idx);
	q->frame_site = xmalloc((q->n_frames ? q->n_frames : 1) * 4);
	for (i = 0; i < q->n_frames; i++)
		q->frame_site[i] = site_of(q, &idx, i, &b);
	/* a sample without a stack gets a site of its own */
	q->site_names =
		xreallocarray(q->site_names, q->n_sites + 1, sizeof(char *));
	q->site_names[q->n_sites] = "(no stack)";
	q->node_site = xmalloc(q->n_nodes * 4);
	q->node_app = xmalloc(q->n_nodes * 4);
	/* node_app first holds the innermost application frame's site on
	 * the path (STORE_NONE: none yet); parents come before children */
	q->node_site[0] = q->n_sites;
	q->node_app[0] = STORE_NONE;
	for (i = 1; i < q->n_nodes; i++) {
		uint32_t f = q->nodes[i].frame;

		q->node_site[i] = q->frame_site[f];
		q->node_app[i] = is_lib[q->frames[f].method]
					 ? q->node_app[q->nodes[i].parent]
					 : q->frame_site[f];
	}
	/* a stack of library frames only: its own site stands in */
	for (i = 0; i < q->n_nodes; i++)
		if (q->node_app[i] == STORE_NONE)
			q->node_app[i] = q->node_site[i];
	q->n_sites++;
	hmap_release(&idx);
	buf_release(&b);
	free(is_lib);
	return 0;
}

static size_t group_count(const struct query *q, enum query_group by)
{
	switch (by) {
	case GROUP_CLASS:
		return (size_t)q->n_classes + 1; /* + "unknown" */
	case GROUP_SITE:
	case GROUP_APP_SITE:
		return q->n_sites;
	case GROUP_THREAD:
		return (size_t)q->n_threads + 1;
	default:
		return q->n_recs;
	}
}

/* The key query_top() gives group g under by, into b. */
static void group_key(const struct query *q, enum query_group by, size_t g,
		      struct buf *b)
{
	buf_reset(b);
	switch (by) {
	case GROUP_CLASS:
		buf_adds(b, g == q->n_classes
				    ? "(unknown class)"
				    : store_str(q->s, q->classes[g].display));
		break;
	case GROUP_SITE:
	case GROUP_APP_SITE:
		buf_adds(b, q->site_names[g]);
		break;
	case GROUP_THREAD:
		buf_adds(b, g == q->n_threads
				    ? "(no thread)"
				    : store_str(q->s, q->threads[g].name));
		break;
	default:
		buf_addf(b, "%zu: %s", g, store_str(q->s, q->recs[g].source));
	}
}

/* options.key: a verdict per group, by name, so that two groups that
 * print the same (overloads of one method, one line) are both kept. */
static void build_key_filter(struct query *q)
{
	enum query_group by = (enum query_group)q->o.key_by;
	size_t n, g;
	struct buf b = BUF_INIT;

	if (!q->o.key)
		return;
	if (by < GROUP_CLASS || by > GROUP_RECORDING)
		by = GROUP_CLASS;
	q->o.key_by = (int)by;
	n = group_count(q, by);
	q->key_ok = xcalloc(n ? n : 1, 1);
	for (g = 0; g < n; g++) {
		group_key(q, by, g, &b);
		q->key_ok[g] = !strcmp(b.data, q->o.key);
	}
	buf_release(&b);
	q->o.key = NULL; /* borrowed only until query_open() returns */
}

int query_open(struct store *s, const struct query_options *o,
	       struct query **out, struct err *e)
{
	struct query *q = xcalloc(1, sizeof(*q));
	unsigned char *inc = NULL, *exc = NULL;
	int k;

	*out = NULL;
	q->s = s;
	q->o = *o;
	arena_init(&q->names, 0);
	if (load(q, e) < 0)
		goto fail;

	if (o->kind >= 0 && o->kind < SAMPLE__COUNT) {
		q->kind = (enum sample_kind)o->kind;
	} else {
		q->kind = SAMPLE_ALLOC;
		for (k = 0; !q->kind_counts[q->kind] && k < SAMPLE__COUNT; k++)
			if (q->kind_counts[k])
				q->kind = (enum sample_kind)k;
	}
	/* only the blocks of the kind shown are read, when a pass does */
	if (store_kind_blocks(s, q->kind, &q->blocks, &q->n_blocks, e) < 0)
		goto fail;

	q->class_ok = xmalloc(q->n_classes ? q->n_classes : 1);
	memset(q->class_ok, 1, q->n_classes ? q->n_classes : 1);
	if (o->class_re) {
		struct re re;
		uint32_t c;

		if (re_compile(&re, o->class_re, "--class", e) < 0)
			goto fail;
		for (c = 0; c < q->n_classes; c++) {
			const char *n = store_str(s, q->classes[c].display);

			q->class_ok[c] =
				(unsigned char)re_match(&re, n, strlen(n));
		}
		re_free(&re);
	}
	q->thread_ok = xmalloc(q->n_threads ? q->n_threads : 1);
	memset(q->thread_ok, 1, q->n_threads ? q->n_threads : 1);
	if (o->thread_re) {
		struct re re;
		uint32_t t;

		if (re_compile(&re, o->thread_re, "--thread", e) < 0)
			goto fail;
		for (t = 0; t < q->n_threads; t++) {
			const char *n = store_str(s, q->threads[t].name);

			q->thread_ok[t] =
				(unsigned char)re_match(&re, n, strlen(n));
		}
		re_free(&re);
	}

	/* frame filters: per method once, then down the trie */
	if (method_verdicts(q, o->include_re, "--include", &inc, e) < 0 ||
	    method_verdicts(q, o->exclude_re, "--exclude", &exc, e) < 0)
		goto fail;
	q->node_ok = xmalloc(q->n_nodes);
	{
		/* bit 0: some frame on the path matches --include; bit 1:
		 * some frame matches --exclude */
		unsigned char *path = xcalloc(q->n_nodes, 1);
		uint32_t n;

		for (n = 1; n < q->n_nodes; n++) {
			uint32_t m = q->frames[q->nodes[n].frame].method;

			path[n] = path[q->nodes[n].parent];
			if (inc && inc[m])
				path[n] |= 1;
			if (exc && exc[m])
				path[n] |= 2;
		}
		for (n = 0; n < q->n_nodes; n++)
			q->node_ok[n] =
				(!inc || (path[n] & 1)) && !(path[n] & 2);
		free(path);
	}
	free(inc);
	free(exc);
	inc = exc = NULL;
	if (build_sites(q, e) < 0)
		goto fail;
	build_key_filter(q);
	q->filtered = o->class_re || o->thread_re || o->include_re ||
		      o->exclude_re || o->recording >= 0 || q->key_ok;
	*out = q;
	return 0;
fail:
	free(inc);
	free(exc);
	query_free(q);
	return ERR_FAIL;
}

void query_free(struct query *q)
{
	if (!q)
		return;
	free(q->class_ok);
	free(q->thread_ok);
	free(q->node_ok);
	free(q->frame_site);
	free(q->node_site);
	free(q->node_app);
	free(q->site_names);
	free(q->rows);
	free(q->tree);
	free(q->buckets);
	free(q->g);
	free(q->key_ok);
	free(q->rec_info);
	free(q->paths);
	query_survivors_free(q);
	arena_release(&q->names);
	free(q);
}

enum sample_kind query_kind(const struct query *q)
{
	return q->kind;
}

/* q->lo, q->hi: the samples of q->sm inside the time window, by binary
 * search on their sorted times. */
static void window(struct query *q)
{
	uint64_t a = 0, b = q->sm.n;

	while (a < b) {
		uint64_t m = a + (b - a) / 2;

		if (q->sm.time_ns[m] < q->o.from_ns)
			a = m + 1;
		else
			b = m;
	}
	q->lo = a;
	b = q->sm.n;
	while (a < b) {
		uint64_t m = a + (b - a) / 2;

		if (q->sm.time_ns[m] < q->o.to_ns)
			a = m + 1;
		else
			b = m;
	}
	q->hi = a;
}

int query_next_block(struct query *q, uint32_t *b, struct err *e)
{
	/* the kind held decoded (query_hold): one pass over all of it */
	if (*b == 0 && q->n_blocks && store_kind_decoded(q->s, q->kind)) {
		if (query_materialize(q, e) < 0)
			return ERR_FAIL;
		*b = q->n_blocks;
		return 1;
	}
	while (*b < q->n_blocks) {
		const struct store_block *h = &q->blocks[*b];

		/* a kind's blocks are in time order */
		if (h->first_ns >= q->o.to_ns)
			break;
		(*b)++;
		if (h->last_ns < q->o.from_ns)
			continue;
		if (store_read_block(q->s, q->kind, *b - 1, &q->sm, e) < 0)
			return ERR_FAIL;
		window(q);
		return 1;
	}
	memset(&q->sm, 0, sizeof(q->sm));
	q->lo = q->hi = 0;
	return 0;
}

int query_hold(struct query *q, struct err *e)
{
	return query_materialize(q, e);
}

int query_materialize(struct query *q, struct err *e)
{
	if (store_kind_samples(q->s, q->kind, &q->sm, e) < 0)
		return ERR_FAIL;
	window(q);
	return 0;
}

void query_kind_counts(const struct query *q, uint64_t counts[SAMPLE__COUNT])
{
	memcpy(counts, q->kind_counts, sizeof(q->kind_counts));
}

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

int query_top(struct query *q, enum query_group by,
	      const struct query_row **rows_out, size_t *n_rows,
	      struct query_total *total, struct err *e)
{
	const struct store_samples *sm = &q->sm;
	size_t n_groups, n = 0, g;
	uint64_t i;
	double per = objects_per_sample(q->kind);

	n_groups = group_count(q, by);
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

	/*
	 * One pass.  Without filters only the kind is tested, and the key
	 * is one array read: the loop is specialised per group so that the
	 * compiler keeps it tight (this is the 100 ms over 10 million
	 * samples that make bench watches).  Samples are time-sorted, so
	 * the first and last times are taken outside the loop.
	 */
#define GROUP_LOOP(KEY)                                                        \
	for (i = q->lo; i < q->hi; i++) {                                      \
		int64_t bytes;                                                 \
                                                                               \
		if (sm->kind[i] != kind || (!plain && !query_sample_ok(q, i))) \
			continue;                                              \
		g = (KEY);                                                     \
		bytes = sm->bytes[i] == REC_NONE ? 0 : sm->bytes[i];           \
		q->g[g].samples++;                                             \
		q->g[g].bytes = add_sat(q->g[g].bytes, bytes);                 \
		if (agent && sm->size[i] > 0)                                  \
			q->g[g].objects +=                                     \
				(double)bytes / (double)sm->size[i];           \
		n_samples++;                                                   \
		sum_bytes = add_sat(sum_bytes, bytes);                         \
		if (first == UINT64_MAX)                                       \
			first = i;                                             \
		last = i;                                                      \
	}
	{
		const bool plain = !q->filtered;
		const bool agent = q->kind == SAMPLE_AGENT;
		const uint8_t kind = (uint8_t)q->kind;
		uint64_t n_samples = 0;
		int64_t sum_bytes = 0;
		uint32_t blk = 0;
		int rc;

		/* a block at a time: the loop works in the cache */
		while ((rc = query_next_block(q, &blk, e)) > 0) {
			uint64_t first = UINT64_MAX, last = 0;

			switch (by) {
			case GROUP_CLASS:
				GROUP_LOOP(sm->cls[i] == STORE_NONE
						   ? q->n_classes
						   : sm->cls[i])
				break;
			case GROUP_SITE:
				/* the per-node table is big and read at
				 * random: fetch a few samples ahead */
				GROUP_LOOP(
					(__builtin_prefetch(
						 &q->node_site[sm->node[ahead(
							 q, i)]]),
					 q->node_site[sm->node[i]]))
				break;
			case GROUP_APP_SITE:
				GROUP_LOOP((__builtin_prefetch(
						    &q->node_app[sm->node[ahead(
							    q, i)]]),
					    q->node_app[sm->node[i]]))
				break;
			case GROUP_THREAD:
				GROUP_LOOP(sm->thread[i] == STORE_NONE
						   ? q->n_threads
						   : sm->thread[i])
				break;
			default:
				GROUP_LOOP(sm->recording[i])
			}
			/* times are sorted: the first block with a sample
			 * gives the first, the last one the last */
			if (first != UINT64_MAX) {
				if (total->first_ns == INT64_MAX)
					total->first_ns = sm->time_ns[first];
				total->last_ns = sm->time_ns[last];
			}
		}
		if (rc < 0)
			return ERR_FAIL;
		total->samples = n_samples;
		total->est_bytes = sum_bytes;
	}
#undef GROUP_LOOP
	total->est_objects = per * (double)total->samples;
	if (q->kind == SAMPLE_AGENT) {
		total->est_objects = 0;
		for (g = 0; g < n_groups; g++)
			total->est_objects += q->g[g].objects;
	}
	for (g = 0; g < n_groups; g++) {
		struct query_row *r;

		if (!q->g[g].samples)
			continue;
		r = &q->rows[n++];
		r->samples = q->g[g].samples;
		r->est_bytes = q->g[g].bytes;
		r->est_objects = q->kind == SAMPLE_AGENT
					 ? q->g[g].objects
					 : per * (double)r->samples;
		/* of the bytes; of the samples where the kind has no sizes
		 * (OldObjectSample before JDK 21) */
		r->share = total->est_bytes ? (double)r->est_bytes /
						      (double)total->est_bytes
			   : total->samples
				   ? (double)r->samples / (double)total->samples
				   : 0.0;
		switch (by) {
		case GROUP_CLASS:
			r->key = g == q->n_classes
					 ? "(unknown class)"
					 : store_str(q->s,
						     q->classes[g].display);
			break;
		case GROUP_SITE:
		case GROUP_APP_SITE:
			r->key = q->site_names[g];
			break;
		case GROUP_THREAD:
			r->key = g == q->n_threads
					 ? "(no thread)"
					 : store_str(q->s, q->threads[g].name);
			break;
		default: {
			/* the number too: the same file may be in twice, and
			 * --recording takes the number */
			struct buf b = BUF_INIT;

			buf_addf(&b, "%zu: %s", g,
				 store_str(q->s, q->recs[g].source));
			r->key = arena_memdup(&q->names, b.data, b.len);
			buf_release(&b);
		}
		}
	}
	qsort(q->rows, n, sizeof(*q->rows), row_cmp);
	*rows_out = q->rows;
	*n_rows = n;
	return 0;
}

/* --- shared sample filter ---------------------------------------------- */

bool query_sample_ok(const struct query *q, uint64_t i)
{
	const struct store_samples *sm = &q->sm;
	uint32_t cls = sm->cls[i], th = sm->thread[i];

	return sm->kind[i] == q->kind && q->node_ok[sm->node[i]] &&
	       (cls == STORE_NONE ? !q->o.class_re : q->class_ok[cls]) &&
	       (th == STORE_NONE ? !q->o.thread_re : q->thread_ok[th]) &&
	       (q->o.recording < 0 ||
		sm->recording[i] == (uint64_t)q->o.recording) &&
	       (!q->key_ok ||
		q->key_ok[group_of(q, (enum query_group)q->o.key_by, i)]);
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
		/* every kind's blocks: the reader checked every sample's
		 * recording index; a kind that cannot be read counts 0 */
		for (k = 0; k < SAMPLE__COUNT; k++) {
			struct store_samples m;
			struct err e;

			err_init(&e);
			if (!q->kind_counts[k] ||
			    store_kind_samples(q->s, k, &m, &e) < 0)
				continue;
			for (i = 0; i < m.n; i++)
				if (m.recording[i] < q->n_recs)
					q->rec_info[m.recording[i]].samples[k]++;
		}
	}
	*out = q->rec_info;
	*n = q->n_recs;
}

static void total_add(struct query_total *t, int64_t time, int64_t bytes)
{
	t->samples++;
	t->est_bytes = add_sat(t->est_bytes, bytes);
	if (time < t->first_ns)
		t->first_ns = time;
	if (time > t->last_ns)
		t->last_ns = time;
}

static void total_init(struct query_total *t)
{
	memset(t, 0, sizeof(*t));
	t->first_ns = INT64_MAX;
	t->last_ns = INT64_MIN;
}

/* --- trees ------------------------------------------------------------------ */

/*
 * The tree being built, and its children by site.  Most nodes have one
 * to three children, so a child is found by scanning its parent's list,
 * which was touched moments ago and is in the cache; a global map keyed
 * by (parent, site) cost a cache miss per trie node, 40% of a call tree
 * over 10 million samples.  A parent past KIDS_SCAN children (the roots,
 * the inverted tree's sites) moves its children into the map.
 */
#define KIDS_SCAN 8

struct tree_scratch {
	struct query_tree_node *nodes;
	uint32_t *site, *kid_count; /* per node */
	size_t n, alloc;
	struct u64map wide; /* (parent << 32 | site) -> child, wide parents */
};

static uint32_t tree_add(struct tree_scratch *t, uint32_t parent,
			 const char *label, uint32_t depth)
{
	struct query_tree_node *nd;

	if (t->n == t->alloc) {
		t->alloc = t->alloc ? t->alloc * 2 : 1024;
		t->nodes = xreallocarray(t->nodes, t->alloc, sizeof(*t->nodes));
		t->site = xreallocarray(t->site, t->alloc, sizeof(*t->site));
		t->kid_count = xreallocarray(t->kid_count, t->alloc,
					     sizeof(*t->kid_count));
	}
	nd = &t->nodes[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->label = label;
	nd->parent = parent;
	nd->first_child = nd->next_sibling = QUERY_TREE_NONE;
	nd->depth = depth;
	t->site[t->n] = UINT32_MAX;
	t->kid_count[t->n] = 0;
	return (uint32_t)t->n++;
}

/* parent's child for site, added (label, depth) when it has none */
static uint32_t tree_child(struct tree_scratch *t, uint32_t parent,
			   uint32_t site, const char *label, uint32_t depth)
{
	uint64_t key = (uint64_t)parent << 32 | site, v;
	uint32_t c;

	if (t->kid_count[parent] > KIDS_SCAN) {
		if (u64map_get(&t->wide, key, &v))
			return (uint32_t)v;
	} else {
		for (c = t->nodes[parent].first_child; c != QUERY_TREE_NONE;
		     c = t->nodes[c].next_sibling)
			if (t->site[c] == site)
				return c;
	}
	c = tree_add(t, parent, label, depth);
	t->site[c] = site;
	/* linked in front; link_children orders them for real later */
	t->nodes[c].next_sibling = t->nodes[parent].first_child;
	t->nodes[parent].first_child = c;
	if (++t->kid_count[parent] == KIDS_SCAN + 1) {
		uint32_t k;

		for (k = t->nodes[parent].first_child; k != QUERY_TREE_NONE;
		     k = t->nodes[k].next_sibling)
			u64map_put(&t->wide,
				   (uint64_t)parent << 32 | t->site[k], k,
				   NULL);
	} else if (t->kid_count[parent] > KIDS_SCAN) {
		u64map_put(&t->wide, key, c, NULL);
	}
	return c;
}

static void tree_scratch_release(struct tree_scratch *t)
{
	free(t->site);
	free(t->kid_count);
	u64map_release(&t->wide);
	t->site = t->kid_count = NULL;
}

static const struct query_tree_node *sort_nodes;

static int child_cmp(const void *a, const void *b)
{
	const struct query_tree_node *x = &sort_nodes[*(const uint32_t *)a],
				     *y = &sort_nodes[*(const uint32_t *)b];

	if (x->est_bytes != y->est_bytes)
		return x->est_bytes < y->est_bytes ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->label, y->label);
}

/*
 * Chain every node's children, heaviest first.  The children are laid
 * out parent by parent (counting sort on the parent) and each parent's
 * few children sorted on their own: most have one to three, so this is
 * close to linear where one big sort of millions of nodes is not.
 */
static void link_children(struct query_tree_node *nodes, size_t n)
{
	uint32_t *start = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *kids = xmalloc((n ? n : 1) * sizeof(uint32_t));
	uint32_t *fill;
	size_t i, p;

	for (i = 1; i < n; i++)
		start[nodes[i].parent + 1]++;
	for (p = 0; p < n; p++)
		start[p + 1] += start[p];
	fill = xmalloc((n ? n : 1) * sizeof(uint32_t));
	memcpy(fill, start, (n ? n : 1) * sizeof(uint32_t));
	for (i = 1; i < n; i++)
		kids[fill[nodes[i].parent]++] = (uint32_t)i;
	free(fill);
	sort_nodes = nodes;
	for (p = 0; p < n; p++) {
		uint32_t a = start[p], b = start[p + 1], k;

		if (b - a > 1)
			qsort(kids + a, b - a, sizeof(uint32_t), child_cmp);
		nodes[p].first_child = a < b ? kids[a] : QUERY_TREE_NONE;
		for (k = a; k < b; k++)
			nodes[kids[k]].next_sibling =
				k + 1 < b ? kids[k + 1] : QUERY_TREE_NONE;
	}
	free(start);
	free(kids);
}

/* side by side: a sample's node costs one cache miss, not two */
struct node_self {
	uint64_t samples;
	int64_t bytes;
};

/*
 * The samples and bytes of every stack node that passes q's filters, as
 * the samples' own nodes (self, not yet summed up the tree), and the
 * totals: the pass tree and paths share.  An array of q->n_nodes the
 * caller frees; NULL with e set when a block is damaged.
 */
static struct node_self *
node_self_sums(struct query *q, struct query_total *total, struct err *e)
{
	struct node_self *self = xcalloc(q->n_nodes, sizeof(*self));
	uint32_t blk = 0;
	uint64_t i;
	int rc;

	total_init(total);
	while ((rc = query_next_block(q, &blk, e)) > 0)
		for (i = q->lo; i < q->hi; i++) {
			int64_t bytes =
				q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];

			if (!query_sample_ok(q, i))
				continue;
			self[q->sm.node[i]].samples++;
			self[q->sm.node[i]].bytes =
				add_sat(self[q->sm.node[i]].bytes, bytes);
			total_add(total, q->sm.time_ns[i], bytes);
		}
	if (rc < 0) {
		free(self);
		return NULL;
	}
	return self;
}

int query_tree(struct query *q, bool inverted, uint32_t max_depth,
	       const struct query_tree_node **out, size_t *n_out,
	       struct query_total *total, struct err *e)
{
	struct tree_scratch t;
	struct node_self *self;
	uint32_t n;

	self = node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	memset(&t, 0, sizeof(t));
	u64map_init(&t.wide);
	tree_add(&t, QUERY_TREE_NONE, "all", 0);
	t.nodes[0].self_samples = self[0].samples;
	t.nodes[0].self_bytes = self[0].bytes;
	if (!inverted) {
		/* The trie, with the children of one parent that share a
		 * site merged (frames that differ only in bytecode index or
		 * compilation): one map lookup per trie node, parents first
		 * as the depth-first numbering guarantees. */
		uint64_t *sub = xcalloc(q->n_nodes, sizeof(uint64_t));
		uint32_t *merged = xmalloc(q->n_nodes * sizeof(uint32_t));
		size_t k;

		for (n = q->n_nodes; n-- > 1;) {
			sub[n] += self[n].samples;
			sub[q->nodes[n].parent] += sub[n];
		}
		merged[0] = 0;
		for (n = 1; n < q->n_nodes; n++) {
			uint32_t up = merged[q->nodes[n].parent], m;

			if (!sub[n])
				continue; /* nothing below: no node */
			m = tree_child(&t, up, q->node_site[n],
				       q->site_names[q->node_site[n]],
				       t.nodes[up].depth + 1);
			merged[n] = m;
			t.nodes[m].self_samples += self[n].samples;
			t.nodes[m].self_bytes =
				add_sat(t.nodes[m].self_bytes, self[n].bytes);
		}
		/* totals flow up: a merged node comes after its parent */
		for (k = 0; k < t.n; k++) {
			t.nodes[k].samples = t.nodes[k].self_samples;
			t.nodes[k].est_bytes = t.nodes[k].self_bytes;
		}
		for (k = t.n; k-- > 1;) {
			t.nodes[t.nodes[k].parent].samples +=
				t.nodes[k].samples;
			t.nodes[t.nodes[k].parent].est_bytes =
				add_sat(t.nodes[t.nodes[k].parent].est_bytes,
					t.nodes[k].est_bytes);
		}
		free(sub);
		free(merged);
	} else {
		/* From each stack that has samples, out from its site to the
		 * outermost caller, merging (parent, site) pairs. */
		t.nodes[0].samples = total->samples;
		t.nodes[0].est_bytes = total->est_bytes;
		for (n = 1; n < q->n_nodes; n++) {
			uint32_t at = 0, node, depth = 0;

			if (!self[n].samples)
				continue;
			for (node = n; node; node = q->nodes[node].parent) {
				if (max_depth && depth >= max_depth)
					break;
				at = tree_child(
					&t, at, q->node_site[node],
					q->site_names[q->node_site[node]],
					depth + 1);
				t.nodes[at].samples += self[n].samples;
				t.nodes[at].est_bytes = add_sat(
					t.nodes[at].est_bytes, self[n].bytes);
				if (depth == 0) {
					t.nodes[at].self_samples +=
						self[n].samples;
					t.nodes[at].self_bytes =
						add_sat(t.nodes[at].self_bytes,
							self[n].bytes);
				}
				depth++;
			}
		}
	}
	tree_scratch_release(&t);
	free(self);
	link_children(t.nodes, t.n);
	free(q->tree);
	q->tree = t.nodes;
	*out = t.nodes;
	*n_out = t.n;
	return 0;
}

/* --- call paths ---------------------------------------------------------- */

/* splitmix64's finaliser over a path's hash and its next frame's */
static uint64_t path_mix(uint64_t h, uint64_t frame)
{
	uint64_t x = h + frame * 0x9e3779b97f4a7c15ull + 1;

	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int path_cmp(const void *a, const void *b)
{
	const struct query_path *x = a, *y = b;

	if (x->est_bytes != y->est_bytes)
		return x->est_bytes < y->est_bytes ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int query_paths(struct query *q, size_t max, const struct query_path **out,
		size_t *n_out, size_t *n_all, struct query_total *total,
		struct err *e)
{
	struct query_path *acc = NULL;
	struct node_self *self;
	uint64_t *h;
	struct u64map idx;
	size_t n = 0, alloc = 0;
	uint32_t k;

	self = node_self_sums(q, total, e);
	if (!self)
		return ERR_FAIL;
	/* a path's hash from its parent's (parents come first) and the
	 * text of its frame: overloads of a method on one line print the
	 * same, and a list that shows them twice looks broken */
	{
		uint64_t *site_h = xmalloc(q->n_sites * sizeof(*site_h));
		uint32_t st;

		for (st = 0; st < q->n_sites; st++) {
			const char *c = q->site_names[st];
			uint64_t x = 0xcbf29ce484222325ull;

			for (; *c; c++)
				x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
			site_h[st] = x;
		}
		h = xmalloc(q->n_nodes * sizeof(*h));
		h[0] = 0;
		for (k = 1; k < q->n_nodes; k++)
			h[k] = path_mix(h[q->nodes[k].parent],
					site_h[q->node_site[k]]);
		free(site_h);
	}
	u64map_init(&idx);
	for (k = 0; k < q->n_nodes; k++) {
		uint64_t *slot;
		bool added;

		if (!self[k].samples)
			continue;
		slot = u64map_put(&idx, h[k], n, &added);
		if (added) {
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 256;
				acc = xreallocarray(acc, alloc, sizeof(*acc));
			}
			acc[n].stack = k;
			acc[n].samples = 0;
			acc[n].est_bytes = 0;
			n++;
		}
		acc[*slot].samples += self[k].samples;
		acc[*slot].est_bytes =
			add_sat(acc[*slot].est_bytes, self[k].bytes);
	}
	u64map_release(&idx);
	free(h);
	free(self);
	if (n > 1)
		qsort(acc, n, sizeof(*acc), path_cmp);
	*n_all = n;
	if (n > max)
		n = max;
	free(q->paths);
	q->paths = acc;
	*out = acc;
	*n_out = n;
	return 0;
}

size_t query_path_frames(const struct query *q, uint32_t stack,
			 const char **labels, size_t max)
{
	size_t n = 0;

	if (stack >= q->n_nodes)
		return 0;
	for (; stack; stack = q->nodes[stack].parent, n++)
		if (n < max)
			labels[n] = q->site_names[q->node_site[stack]];
	return n;
}

/* --- time --------------------------------------------------------------------- */

int64_t query_round_bucket(int64_t span)
{
	static const int64_t steps[] = {
		1000000,	2000000,	5000000,       10000000,
		20000000,	50000000,	100000000,     200000000,
		500000000,	1000000000,	2000000000,    5000000000,
		10000000000,	15000000000,	30000000000,   60000000000,
		120000000000,	300000000000,	600000000000,  900000000000,
		1800000000000,	3600000000000,	7200000000000, 21600000000000,
		43200000000000, 86400000000000,
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (span / steps[i] <= 60)
			return steps[i];
	return steps[sizeof(steps) / sizeof(steps[0]) - 1];
}

int query_timeline(struct query *q, int64_t *bucket_ns,
		   const struct query_bucket **out, size_t *n_out,
		   struct query_total *total, struct err *e)
{
	uint64_t i;
	int64_t first = INT64_MAX, last = INT64_MIN, w, base;
	size_t n, b;
	uint32_t blk = 0;
	int rc;

	/* two passes, a block at a time: the span, then the buckets */
	while ((rc = query_next_block(q, &blk, e)) > 0)
		for (i = q->lo; i < q->hi; i++)
			if (query_sample_ok(q, i)) {
				if (q->sm.time_ns[i] < first)
					first = q->sm.time_ns[i];
				last = q->sm.time_ns[i];
			}
	if (rc < 0)
		return ERR_FAIL;
	total_init(total);
	*out = NULL;
	*n_out = 0;
	if (first == INT64_MAX)
		return 0;
	{
		/* a damaged store may hold any times: no step may overflow */
		uint64_t span = (uint64_t)last - (uint64_t)first, r;

		if (span > (uint64_t)INT64_MAX)
			return err_set(e, ERR_FORMAT,
				       "samples span more than 292 years: "
				       "the store's times are damaged");
		w = *bucket_ns > 0 ? *bucket_ns
				   : query_round_bucket((int64_t)span);
		*bucket_ns = w;
		{
			int64_t m = first % w;

			r = (uint64_t)(m < 0 ? m + w : m); /* first mod w */
		}
		if (__builtin_sub_overflow(first, (int64_t)r, &base))
			base = first; /* only at the very bottom of int64 */
		if (((uint64_t)last - (uint64_t)base) / (uint64_t)w >= 10000000)
			return err_set(e, ERR_USAGE,
				       "%lld ns buckets make more than 10 "
				       "million over %.3f s; give a wider "
				       "--bucket",
				       (long long)w, (double)span / 1e9);
		n = (size_t)(((uint64_t)last - (uint64_t)base) / (uint64_t)w) +
		    1;
	}
	free(q->buckets);
	q->buckets = xcalloc(n, sizeof(*q->buckets));
	for (b = 0; b < n; b++)
		q->buckets[b].start_ns =
			(int64_t)((uint64_t)base + (uint64_t)b * (uint64_t)w);
	blk = 0;
	while ((rc = query_next_block(q, &blk, e)) > 0)
		for (i = q->lo; i < q->hi; i++) {
			int64_t bytes;

			if (!query_sample_ok(q, i))
				continue;
			bytes = q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
			b = (size_t)(((uint64_t)q->sm.time_ns[i] -
				      (uint64_t)base) /
				     (uint64_t)w);
			if (b >= n)
				b = n - 1; /* base clamped at the bottom */
			q->buckets[b].samples++;
			q->buckets[b].est_bytes =
				add_sat(q->buckets[b].est_bytes, bytes);
			total_add(total, q->sm.time_ns[i], bytes);
		}
	if (rc < 0)
		return ERR_FAIL;
	*out = q->buckets;
	*n_out = n;
	return 0;
}
