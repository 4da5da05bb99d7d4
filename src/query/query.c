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
#include "query/query_int.h"
#include "query/normalize.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/rx.h"
#include "util/xalloc.h"

/* The user's regex for option what ("--class"), its message naming it. */
static struct rx_user *user_regex(const char *pattern, const char *what,
				  struct err *e)
{
	struct rx_user *re = rx_user_new(pattern, e);

	if (!re)
		err_prefix(e, "%s", what);
	return re;
}

void query_options_init(struct query_options *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = -1;
	o->from_ns = INT64_MIN;
	o->to_ns = INT64_MAX;
	o->recording = -1;
	o->estimate = -1;
}

bool query_options_keep_recording(const struct query_options *o, uint32_t rec)
{
	size_t i;

	if (o->recording >= 0 && (int64_t)rec != o->recording)
		return false;
	if (!o->recordings)
		return true;
	for (i = 0; i < o->n_recordings; i++)
		if (o->recordings[i] == rec)
			return true;
	return false;
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

static const enum query_group group_table[] = {
	GROUP_CLASS, GROUP_SITE, GROUP_APP_SITE, GROUP_THREAD, GROUP_RECORDING};

bool query_group_parse(const char *s, enum query_group *g)
{
	size_t i;

	for (i = 0; i < sizeof(group_table) / sizeof(group_table[0]); i++)
		if (!strcmp(s, query_group_name(group_table[i]))) {
			*g = group_table[i];
			return true;
		}
	return false;
}

const char *query_group_word(size_t i)
{
	return i < sizeof(group_table) / sizeof(group_table[0])
		       ? query_group_name(group_table[i])
		       : NULL;
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

uint32_t query_node_frame(const struct query *q, uint32_t node, struct buf *b,
			  int32_t *line, const char **site)
{
	const struct store_frame *f;

	buf_reset(b);
	*line = -1;
	if (q->relabel) {
		uint32_t l;

		if (node == 0 || node >= q->ft.n) {
			*site = q->site_names[q->node_site[0]];
			buf_adds(b, *site);
			return 0;
		}
		l = q->ft.label[node];
		buf_adds(b, q->lab_method[l]);
		*line = q->lab_line[l];
		*site = q->lab_names[l];
		return q->ft.parent[node];
	}
	if (node == 0 || node >= q->n_nodes) {
		*site = q->site_names[q->node_site[0]]; /* "(no stack)" */
		buf_adds(b, *site);
		return 0;
	}
	f = &q->frames[q->nodes[node].frame];
	method_text(q, f->method, b);
	*line = f->line >= 0 ? f->line : -1;
	*site = q->site_names[q->node_site[node]];
	return q->nodes[node].parent;
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
	    store_kind_counts(s, q->kind_counts, e) < 0 ||
	    store_estimates(s, &q->est, e) < 0)
		return ERR_FAIL;
	return 0;
}

/* Per-method verdicts of one regex, 1 byte each; NULL pattern: NULL. */
static int method_verdicts(struct query *q, const char *pattern,
			   const char *what, unsigned char **out, struct err *e)
{
	struct rx_user *re;
	struct buf b = BUF_INIT;
	uint32_t m;

	*out = NULL;
	if (!pattern)
		return 0;
	re = user_regex(pattern, what, e);
	if (!re)
		return ERR_FAIL;
	*out = xcalloc(q->n_methods ? q->n_methods : 1, 1);
	for (m = 0; m < q->n_methods; m++) {
		method_text(q, m, &b);
		(*out)[m] = (unsigned char)rx_user_match(re, b.data);
	}
	buf_release(&b);
	rx_user_free(re);
	return 0;
}

/*
 * What a query derives from the store alone, made by a store's first
 * query and kept with the store (store_attach) for the rest: the sites'
 * names, each frame's and each trie node's site, and a verdict of 1 for
 * every trie node (node_ok without a frame filter).  On the synthetic
 * store's 4.3 M-node trie these were 7 ms of every query's open and 21 MB
 * of fresh pages, which the browser paid at each drill-down and each
 * time range.
 */
struct query_shared {
	struct arena names;
	const char **site_names;
	uint32_t *frame_site, *node_site, n_sites;
	unsigned char *all_ok;
	/* the pooled term's m of each estimate (estimate.c), made once */
	struct query_pool pool[2];
	int pool_level[2];
};

static void shared_release(void *p)
{
	struct query_shared *sh = p;
	int k;

	for (k = 0; k < 2; k++)
		query_pool_release(&sh->pool[k]);
	free(sh->site_names);
	free(sh->frame_site);
	free(sh->node_site);
	free(sh->all_ok);
	arena_release(&sh->names);
	free(sh);
}

static uint32_t site_of(const struct query *q, struct query_shared *sh,
			struct hmap *idx, uint32_t frame, struct buf *b)
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
	sh->site_names =
		xreallocarray(sh->site_names, sh->n_sites + 1, sizeof(char *));
	name = arena_memdup(&sh->names, b->data, b->len);
	sh->site_names[sh->n_sites] = name;
	hmap_put(idx, name, b->len, sh->n_sites, NULL);
	return sh->n_sites++;
}

static const struct query_shared *shared_of(struct query *q)
{
	struct query_shared *sh = store_attached(q->s);
	size_t nn = q->n_nodes ? q->n_nodes : 1;
	struct hmap idx;
	struct buf b = BUF_INIT;
	uint32_t i;

	if (sh)
		return sh;
	sh = xcalloc(1, sizeof(*sh));
	arena_init(&sh->names, 0);
	hmap_init(&idx);
	sh->frame_site = xmalloc((q->n_frames ? q->n_frames : 1) * 4);
	for (i = 0; i < q->n_frames; i++)
		sh->frame_site[i] = site_of(q, sh, &idx, i, &b);
	/* a sample without a stack gets a site of its own */
	sh->site_names =
		xreallocarray(sh->site_names, sh->n_sites + 1, sizeof(char *));
	sh->site_names[sh->n_sites] = "(no stack)";
	sh->node_site = xmalloc(nn * 4);
	sh->node_site[0] = sh->n_sites;
	for (i = 1; i < q->n_nodes; i++)
		sh->node_site[i] = sh->frame_site[q->nodes[i].frame];
	sh->n_sites++;
	sh->all_ok = xmalloc(nn);
	memset(sh->all_ok, 1, nn);
	hmap_release(&idx);
	buf_release(&b);
	store_attach(q->s, sh, shared_release);
	return sh;
}

struct query_pool *query_pool_slot(struct query *q, bool corrected, int **level)
{
	struct query_shared *sh = store_attached(q->s);

	if (!sh) { /* shared_of(q) makes it when q is opened */
		shared_of(q);
		sh = store_attached(q->s);
	}

	*level = &sh->pool_level[corrected];
	return &sh->pool[corrected];
}

static int build_sites(struct query *q, struct err *e)
{
	const char *lib =
		q->o.library_re ? q->o.library_re : QUERY_LIBRARY_DEFAULT;
	const struct query_shared *sh;

	/* the verdicts now, for a bad --library to fail the open; the
	 * application sites from them when first grouped by */
	if (method_verdicts(q, lib, "--library", &q->is_lib, e) < 0)
		return ERR_FAIL;
	sh = shared_of(q);
	q->frame_site = sh->frame_site;
	q->node_site = sh->node_site;
	q->site_names = sh->site_names;
	q->n_sites = sh->n_sites;
	return 0;
}

void query_app_sites(struct query *q)
{
	uint32_t i;

	if (q->node_app)
		return;
	/* a pass over every trie node with a frame's method each: on a
	 * big trie (4.3 million nodes) a fifth of a drill-down's query,
	 * which most queries never group by */
	q->node_app = xmalloc(q->n_nodes * 4);
	/* node_app first holds the innermost application frame's site on
	 * the path (STORE_NONE: none yet); parents come before children */
	q->node_app[0] = STORE_NONE;
	for (i = 1; i < q->n_nodes; i++) {
		uint32_t f = q->nodes[i].frame;

		q->node_app[i] = q->is_lib[q->frames[f].method]
					 ? q->node_app[q->nodes[i].parent]
					 : q->frame_site[f];
	}
	/* a stack of library frames only: its own site stands in */
	for (i = 0; i < q->n_nodes; i++)
		if (q->node_app[i] == STORE_NONE)
			q->node_app[i] = q->node_site[i];
}

size_t query_group_count(const struct query *q, enum query_group by)
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
	struct buf b = BUF_INIT, norm = BUF_INIT;

	if (!q->o.key)
		return;
	if (by < GROUP_CLASS || by > GROUP_RECORDING)
		by = GROUP_CLASS;
	q->o.key_by = (int)by;
	n = query_group_count(q, by);
	q->key_ok = xcalloc(n ? n : 1, 1);
	for (g = 0; g < n; g++) {
		group_key(q, by, g, &b);
		/* normalised, as query_top() names the groups then: a row's
		 * key keeps every group it holds */
		if (q->o.normalize && by != GROUP_RECORDING) {
			buf_reset(&norm);
			if (by == GROUP_CLASS)
				normalize_class(b.data, &norm);
			else if (by == GROUP_THREAD)
				normalize_thread(b.data, &norm);
			else
				normalize_frame(b.data, &norm);
			buf_reset(&b);
			buf_add(&b, norm.data, norm.len);
		}
		q->key_ok[g] = !strcmp(b.data, q->o.key);
	}
	buf_release(&b);
	buf_release(&norm);
	q->o.key = NULL; /* borrowed only until query_open() returns */
}

/* q->rec_ok from o->recording and o->recordings (borrowed: q->o keeps
 * neither list nor count). */
static void build_rec_filter(struct query *q, const struct query_options *o)
{
	size_t i;

	q->o.recordings = NULL;
	q->o.n_recordings = 0;
	if (o->recording < 0 && !o->recordings)
		return;
	q->rec_ok = xcalloc(q->n_recs ? q->n_recs : 1, 1);
	if (o->recordings) {
		for (i = 0; i < o->n_recordings; i++)
			if (o->recordings[i] < q->n_recs)
				q->rec_ok[o->recordings[i]] = 1;
	} else {
		memset(q->rec_ok, 1, q->n_recs);
	}
	if (o->recording >= 0)
		for (i = 0; i < q->n_recs; i++)
			if ((int64_t)i != o->recording)
				q->rec_ok[i] = 0;
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
	build_rec_filter(q, o);
	/* only the blocks of the kind shown are read, when a pass does */
	if (store_kind_blocks(s, q->kind, &q->blocks, &q->n_blocks, e) < 0)
		goto fail;

	q->class_ok = xmalloc(q->n_classes ? q->n_classes : 1);
	memset(q->class_ok, 1, q->n_classes ? q->n_classes : 1);
	if (o->class_re) {
		struct rx_user *re = user_regex(o->class_re, "--class", e);
		uint32_t c;

		if (!re)
			goto fail;
		for (c = 0; c < q->n_classes; c++) {
			const char *n = store_str(s, q->classes[c].display);

			q->class_ok[c] = (unsigned char)rx_user_match(re, n);
		}
		rx_user_free(re);
	}
	q->thread_ok = xmalloc(q->n_threads ? q->n_threads : 1);
	memset(q->thread_ok, 1, q->n_threads ? q->n_threads : 1);
	if (o->thread_re) {
		struct rx_user *re = user_regex(o->thread_re, "--thread", e);
		uint32_t t;

		if (!re)
			goto fail;
		for (t = 0; t < q->n_threads; t++) {
			const char *n = store_str(s, q->threads[t].name);

			q->thread_ok[t] = (unsigned char)rx_user_match(re, n);
		}
		rx_user_free(re);
	}

	/* frame filters: per method once, then down the trie */
	if (method_verdicts(q, o->include_re, "--include", &inc, e) < 0 ||
	    method_verdicts(q, o->exclude_re, "--exclude", &exc, e) < 0)
		goto fail;
	if (!inc && !exc) {
		/* no frame filter: every node passes, and the walk down
		 * the trie (millions of nodes, a random frame each) is
		 * not needed */
		q->node_ok = shared_of(q)->all_ok;
	} else {
		/* bit 0: some frame on the path matches --include; bit 1:
		 * some frame matches --exclude */
		unsigned char *path = xcalloc(q->n_nodes, 1);
		unsigned char *ok = xmalloc(q->n_nodes ? q->n_nodes : 1);
		uint32_t n;

		q->node_ok = ok;
		q->node_ok_own = true;

		for (n = 1; n < q->n_nodes; n++) {
			uint32_t m = q->frames[q->nodes[n].frame].method;

			path[n] = path[q->nodes[n].parent];
			if (inc && inc[m])
				path[n] |= 1;
			if (exc && exc[m])
				path[n] |= 2;
		}
		for (n = 0; n < q->n_nodes; n++)
			ok[n] = (!inc || (path[n] & 1)) && !(path[n] & 2);
		free(path);
	}
	free(inc);
	free(exc);
	inc = exc = NULL;
	if (build_sites(q, e) < 0 || query_frames_open(q, e) < 0)
		goto fail;
	build_key_filter(q);
	if (q->key_ok && q->o.key_by == GROUP_APP_SITE)
		query_app_sites(q); /* group_of() in every pass */
	q->filtered = o->class_re || o->thread_re || o->include_re ||
		      o->exclude_re || q->rec_ok || q->key_ok;
	/* the parts of a rollup row's key the filters look at */
	q->need = (o->class_re ? PASS_NEED_CLASS : 0) |
		  (o->thread_re ? PASS_NEED_THREAD : 0) |
		  (o->include_re || o->exclude_re ? PASS_NEED_NODE : 0) |
		  (q->key_ok ? query_group_need((enum query_group)q->o.key_by)
			     : 0);
	*out = q;
	return 0;
fail:
	free(inc);
	free(exc);
	query_free(q);
	return ERR_FAIL;
}

static void sel_free(struct query_sel *x)
{
	free(x->seq);
	free(x->recording);
	free(x->thread);
	free(x->cls);
	free(x->node);
	free(x->time_ns);
	free(x->bytes);
	free(x->size);
	free(x->rest);
	free(x->kind);
	free(x->flags);
	memset(x, 0, sizeof(*x));
}

void query_free(struct query *q)
{
	int o;

	if (!q)
		return;
	free(q->class_ok);
	free(q->thread_ok);
	free(q->rec_ok);
	if (q->node_ok_own)
		free((void *)q->node_ok);
	free(q->node_app);
	free(q->is_lib);
	free(q->rows);
	free(q->trees[0].nodes);
	free(q->trees[1].nodes);
	free(q->self);
	free(q->self_list);
	for (o = 0; o < 2; o++) {
		if (!q->lazy[o].whole)
			free(q->lazy[o].nodes);
		free(q->lazy[o].mem_at);
		free(q->lazy[o].mem_n);
		free(q->lazy[o].mem);
		free(q->lazy[o].org);
		free(q->lazy[o].kept);
		free(q->lazy[o].outer);
	}
	free(q->buckets);
	free(q->cover);
	free(q->g);
	free(q->key_ok);
	free(q->rec_info);
	free(q->paths);
	free(q->stacks);
	query_pool_release(&q->wpool[0]);
	query_pool_release(&q->wpool[1]);
	query_frames_free(q);
	query_survivors_free(q);
	sel_free(&q->sel);
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
		if (query_held_samples(q, e) < 0)
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
	const struct store_rollup_bucket *b;
	const struct store_rollup_row *r;
	uint32_t n;

	/* with the full key's rollups every pass reads rows, and samples
	 * only at the edges of its window, a block or two: decoding the
	 * whole kind would cost more than every pass together.  Without
	 * them (a 2.0 store, agent samples, or keys too many to roll up,
	 * which left the full projection out) some passes read every
	 * sample, and the browser makes one at every key */
	if (store_rollup(q->s, q->kind, STORE_PROJ_FULL, &b, &n, &r, e) < 0)
		return ERR_FAIL;
	if (n)
		return 0;
	return query_materialize(q, e);
}

int query_materialize(struct query *q, struct err *e)
{
	if (store_kind_samples(q->s, q->kind, &q->sm, e) < 0)
		return ERR_FAIL;
	window(q);
	return 0;
}

#define GATHER(col, type)                                              \
	do {                                                           \
		x->col = xreallocarray(NULL, n ? n : 1, sizeof(type)); \
		for (k = 0; k < n; k++)                                \
			x->col[k] = sm->col[ix[k]];                    \
		x->view.col = x->col;                                  \
	} while (0)

/*
 * The sieve's verdict per stack node, a bit each, where a drill-down's
 * key is a site or an app-site (NULL otherwise): the key's table through
 * node_site or node_app, and node_ok.  Looked up per sample, node_site is
 * a cache miss in a big trie's 17 MB, and was most of a drill-down's
 * first pass; the bits (half a MB for 4.3 M nodes) stay in the cache, and
 * leave out the most samples first.
 */
static uint64_t *node_sieve(const struct query *q)
{
	const uint32_t *grp;
	uint64_t *bits;
	uint32_t n;

	if (!q->key_ok)
		return NULL;
	if (q->o.key_by == GROUP_SITE)
		grp = q->node_site;
	else if (q->o.key_by == GROUP_APP_SITE)
		grp = q->node_app;
	else
		return NULL;
	if (!grp)
		return NULL;
	bits = xcalloc(((size_t)q->n_nodes + 63) / 64 + 1, sizeof(*bits));
	for (n = 0; n < q->n_nodes; n++)
		if (q->key_ok[grp[n]] && q->node_ok[n])
			bits[n >> 6] |= (uint64_t)1 << (n & 63);
	return bits;
}

/* q->sel from q->sm[q->lo, q->hi), or SEL_NONE past a quarter of it */
static void sel_make(struct query *q)
{
	const struct store_samples *sm = &q->sm;
	struct query_sel *x = &q->sel;
	uint64_t cap = (q->hi - q->lo) / 4, i;
	uint32_t *ix = NULL, c;
	size_t n = 0, alloc = 0, k;
	/*
	 * A first sieve in locals, which the compiler keeps in registers:
	 * the kind, and a verdict per class and per thread, slot 0 for
	 * none (STORE_NONE + 1 wraps to 0), the key's folded in where it
	 * groups by class or thread.  query_sample_ok() has the last word,
	 * so the sieve only has to let every passing sample through.
	 */
	const uint8_t *kind = sm->kind, want = (uint8_t)q->kind;
	const uint32_t *cls = sm->cls, *thr = sm->thread, *node = sm->node;
	unsigned char *cok = xmalloc((size_t)q->n_classes + 1);
	unsigned char *tok = xmalloc((size_t)q->n_threads + 1);
	const bool key_cls = q->key_ok && q->o.key_by == GROUP_CLASS;
	const bool key_thr = q->key_ok && q->o.key_by == GROUP_THREAD;
	uint64_t *nok = node_sieve(q);

	cok[0] = (unsigned char)(!q->o.class_re &&
				 (!key_cls || q->key_ok[q->n_classes]));
	for (c = 0; c < q->n_classes; c++)
		cok[c + 1] = q->class_ok[c] && (!key_cls || q->key_ok[c]);
	tok[0] = (unsigned char)(!q->o.thread_re &&
				 (!key_thr || q->key_ok[q->n_threads]));
	for (c = 0; c < q->n_threads; c++)
		tok[c + 1] = q->thread_ok[c] && (!key_thr || q->key_ok[c]);
	for (i = q->lo; i < q->hi; i++) {
		/* a class or thread past the tables is in no store's
		 * samples (the blocks' check) */
		if (kind[i] != want ||
		    (nok && !(nok[node[i] >> 6] >> (node[i] & 63) & 1)) ||
		    !cok[(uint32_t)(cls[i] + 1)] ||
		    !tok[(uint32_t)(thr[i] + 1)])
			continue;
		if (!query_sample_ok(q, i))
			continue;
		if (n == cap) {
			free(ix);
			free(cok);
			free(tok);
			free(nok);
			x->state = SEL_NONE;
			return;
		}
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 1024;
			ix = xreallocarray(ix, alloc, sizeof(*ix));
		}
		ix[n++] = (uint32_t)i; /* a store holds under 2^32 samples */
	}
	GATHER(seq, uint32_t);
	GATHER(time_ns, int64_t);
	GATHER(recording, uint32_t);
	GATHER(kind, uint8_t);
	GATHER(flags, uint8_t);
	GATHER(thread, uint32_t);
	GATHER(cls, uint32_t);
	GATHER(node, uint32_t);
	GATHER(bytes, int64_t);
	if (sm->size)
		GATHER(size, int64_t);
	if (sm->rest)
		GATHER(rest, int64_t);
	x->view.n = n;
	x->state = SEL_MADE;
	free(ix);
	free(cok);
	free(tok);
	free(nok);
}

int query_held_samples(struct query *q, struct err *e)
{
	if (query_materialize(q, e) < 0)
		return ERR_FAIL;
	if (!q->filtered)
		return 0;
	if (q->sel.state == SEL_UNTRIED)
		sel_make(q);
	if (q->sel.state == SEL_MADE) {
		q->sm = q->sel.view;
		window(q);
	}
	return 0;
}

int query_fate_kind(const uint64_t counts[SAMPLE__COUNT])
{
	static const enum sample_kind order[] = {SAMPLE_AGENT, SAMPLE_AP_LIVE,
						 SAMPLE_DD_LIVE,
						 SAMPLE_OLD_OBJECT};
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (counts[order[i]])
			return (int)order[i];
	return -1;
}

void query_kind_counts(const struct query *q, uint64_t counts[SAMPLE__COUNT])
{
	memcpy(counts, q->kind_counts, sizeof(q->kind_counts));
}
