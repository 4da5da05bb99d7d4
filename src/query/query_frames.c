/*
 * How a stack becomes a path of frame labels (query_options.frames,
 * .normalize, .drop_re): every front end that shows frames (the trees,
 * the call paths, the exports) reads them from here, so that each gets
 * the same path for the same stack.
 *
 * A frame's label is its site's (class.method:line) unless an option
 * changes it, and every option is a function of the site alone: so the
 * labels are made once per site at query_open() (build_labels), never
 * per stack node nor per sample.  Where no label differs from its
 * site's name and no frame is dropped (q->relabel false), nothing else
 * here runs and the trees keep their own fast paths.
 *
 * Otherwise stacks are merged by what they print: the frame trie
 * (struct query_ftrie) holds the distinct paths of labels of the stacks
 * that have samples in the query, a node per (parent, label), made from
 * the store's trie nodes as they are met (a memo from store node to
 * frame node), a stack node's work done once however many samples it
 * has.  Dropped frames are passed over; a stack whose every frame is
 * dropped keeps its samples under a frame "[dropped]" of its own.  The
 * trees, the call paths and query_stacks() then number their stacks by
 * frame node (query.h).
 */
#include "query/query.h"
#include "query/query_int.h"

#include <stdlib.h>
#include <string.h>

#include "query/normalize.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/rx.h"
#include "util/xalloc.h"

#define DROPPED_LABEL "[dropped]"

/* --frames's values, in enum query_frames' order */
static const char *const frames_names[] = {"line", "method"};

bool query_frames_parse(const char *s, enum query_frames *f)
{
	for (size_t i = 0; i < sizeof(frames_names) / sizeof(*frames_names);
	     i++)
		if (!strcmp(s, frames_names[i])) {
			*f = (enum query_frames)i;
			return true;
		}
	return false;
}

const char *query_frames_word(size_t i)
{
	return i < sizeof(frames_names) / sizeof(*frames_names)
		       ? frames_names[i]
		       : NULL;
}

/* label text (len bytes, copied) with its method's text: its id */
static uint32_t label_intern(struct query *q, struct hmap *idx, const char *s,
			     size_t len, const char *method, int32_t line)
{
	uint64_t v;
	uint32_t l;

	if (hmap_get(idx, s, len, &v))
		return (uint32_t)v;
	l = q->n_labs++;
	q->lab_names = xreallocarray(q->lab_names, q->n_labs, sizeof(char *));
	q->lab_method = xreallocarray(q->lab_method, q->n_labs, sizeof(char *));
	q->lab_line = xreallocarray(q->lab_line, q->n_labs, sizeof(int32_t));
	q->lab_kind = xreallocarray(q->lab_kind, q->n_labs, 1);
	q->lab_kind[l] = QUERY_LAB_FRAME;
	q->lab_names[l] = arena_memdup(&q->names, s, len);
	q->lab_method[l] =
		method ? arena_strdup(&q->names, method) : q->lab_names[l];
	q->lab_line[l] = line;
	hmap_put(idx, q->lab_names[l], len, l, NULL);
	return l;
}

int query_frames_open(struct query *q, struct err *e)
{
	const struct query_options *o = &q->o;
	struct rx_user *drop = NULL;
	struct buf cls = BUF_INIT, text = BUF_INIT;
	struct hmap *idx = &q->lab_idx;
	unsigned char *done;
	uint32_t f, s;
	bool changed = false;

	if (!o->normalize && o->frames == QUERY_FRAMES_LINE && !o->drop_re &&
	    !o->leaf_class && !o->threads)
		return 0;
	if (o->drop_re) {
		drop = rx_user_new(o->drop_re, e);
		if (!drop) {
			err_prefix(e, "--drop-frames");
			return ERR_FAIL;
		}
	}
	hmap_init(idx);
	q->lab = xmalloc((q->n_sites ? q->n_sites : 1) * sizeof(*q->lab));
	done = xcalloc(q->n_sites ? q->n_sites : 1, 1);
	for (f = 0; f < q->n_frames; f++) {
		const struct store_frame *fr = &q->frames[f];
		const struct store_method *m = &q->methods[fr->method];

		s = q->frame_site[f];
		if (done[s])
			continue;
		done[s] = 1;
		buf_reset(&cls);
		buf_reset(&text);
		if (o->normalize)
			normalize_class(
				store_str(q->s, q->classes[m->cls].display),
				&text);
		else
			buf_adds(&text,
				 store_str(q->s, q->classes[m->cls].display));
		buf_addch(&text, '.');
		buf_adds(&text, store_str(q->s, m->name));
		if (drop && rx_user_match(drop, text.data)) {
			q->lab[s] = QUERY_LAB_DROP;
			changed = true;
			continue;
		}
		buf_adds(&cls, text.data); /* the method's text */
		if (o->frames == QUERY_FRAMES_LINE && fr->line >= 0)
			buf_addf(&text, ":%d", fr->line);
		q->lab[s] = label_intern(q, idx, text.data, text.len, cls.data,
					 o->frames == QUERY_FRAMES_LINE &&
							 fr->line >= 0
						 ? fr->line
						 : -1);
		if (strcmp(text.data, q->site_names[s]))
			changed = true;
	}
	/* "(no stack)", the last site, has no frame */
	s = q->n_sites - 1;
	q->lab[s] = label_intern(q, idx, q->site_names[s],
				 strlen(q->site_names[s]), NULL, -1);
	q->lab_dropped = label_intern(q, idx, DROPPED_LABEL,
				      strlen(DROPPED_LABEL), NULL, -1);
	free(done);
	buf_release(&cls);
	buf_release(&text);
	rx_user_free(drop);
	q->split = o->leaf_class || o->threads;
	if (!changed && !q->split) {
		/* every label is its site's name: the plain paths (the index
		 * goes too: query_frames_free() releases it only with q->lab) */
		hmap_release(idx);
		free(q->lab);
		q->lab = NULL;
		return 0;
	}
	q->relabel = true;
	if (o->leaf_class) {
		q->cls_lab = xmalloc(((size_t)q->n_classes + 1) * 4);
		memset(q->cls_lab, 0xff, ((size_t)q->n_classes + 1) * 4);
	}
	if (o->threads) {
		q->thr_lab = xmalloc(((size_t)q->n_threads + 1) * 4);
		memset(q->thr_lab, 0xff, ((size_t)q->n_threads + 1) * 4);
	}
	u64map_init(&q->ft.kids);
	u64map_init(&q->ft.memo);
	/* the root: no frame */
	q->ft.alloc = 1024;
	q->ft.parent = xmalloc(q->ft.alloc * sizeof(uint32_t));
	q->ft.label = xmalloc(q->ft.alloc * sizeof(uint32_t));
	q->ft.depth = xmalloc(q->ft.alloc * sizeof(uint32_t));
	if (!o->threads) {
		q->ft.memo_node = xmalloc((q->n_nodes ? q->n_nodes : 1) *
					  sizeof(uint32_t));
		memset(q->ft.memo_node, 0xff,
		       (q->n_nodes ? q->n_nodes : 1) * sizeof(uint32_t));
	}
	q->ft.parent[0] = UINT32_MAX;
	q->ft.label[0] = q->lab[q->n_sites - 1];
	q->ft.depth[0] = 0;
	q->ft.n = 1;
	return 0;
}

void query_frames_free(struct query *q)
{
	if (q->lab)
		hmap_release(&q->lab_idx);
	free(q->cls_lab);
	free(q->thr_lab);
	free(q->lab);
	free(q->lab_names);
	free(q->lab_method);
	free(q->lab_line);
	free(q->lab_kind);
	if (q->relabel) {
		u64map_release(&q->ft.kids);
		u64map_release(&q->ft.memo);
	}
	free(q->ft.memo_node);
	free(q->ft.parent);
	free(q->ft.label);
	free(q->ft.depth);
}

/* parent's child labelled label, made when it has none */
static uint32_t ft_child(struct query_ftrie *t, uint32_t parent, uint32_t label)
{
	uint64_t *v;
	bool added;

	v = u64map_put(&t->kids, (uint64_t)parent << 32 | label, t->n, &added);
	if (!added)
		return (uint32_t)*v;
	if (t->n == t->alloc) {
		t->alloc *= 2;
		t->parent =
			xreallocarray(t->parent, t->alloc, sizeof(uint32_t));
		t->label = xreallocarray(t->label, t->alloc, sizeof(uint32_t));
		t->depth = xreallocarray(t->depth, t->alloc, sizeof(uint32_t));
	}
	t->parent[t->n] = parent;
	t->label[t->n] = label;
	t->depth[t->n] = t->depth[parent] + 1;
	return (uint32_t)t->n++;
}

/* the frame node that store node n's children hang from below frame
 * node root (a thread's, or 0): its own, or for a dropped frame its
 * nearest kept caller's (root: none) */
static uint32_t ft_hang(struct query *q, uint32_t root, uint32_t n)
{
	uint32_t up[64], *path = up, cap = 64, k = 0, at;
	uint64_t v, key = (uint64_t)root << 32;

	/* up to the first node already met, then down making each */
	while (n && !(q->ft.memo_node ? (v = q->ft.memo_node[n]) != UINT32_MAX
				      : u64map_get(&q->ft.memo, key | n, &v))) {
		if (k == cap) {
			cap *= 2;
			path = path == up ? memcpy(xmalloc(cap * sizeof(*path)),
						   up, sizeof(up))
					  : xreallocarray(path, cap,
							  sizeof(*path));
		}
		path[k++] = n;
		n = q->nodes[n].parent;
	}
	at = n ? (uint32_t)v : root;
	while (k--) {
		uint32_t l = q->lab[q->node_site[path[k]]];

		if (l != QUERY_LAB_DROP)
			at = ft_child(&q->ft, at, l);
		if (q->ft.memo_node)
			q->ft.memo_node[path[k]] = at;
		else
			u64map_put(&q->ft.memo, key | path[k], at, NULL);
	}
	if (path != up)
		free(path);
	return at;
}

uint32_t query_frames_node(struct query *q, uint32_t n)
{
	uint32_t at;

	if (!n || n >= q->n_nodes)
		return 0; /* no stack: the root, as a store's node 0 */
	at = ft_hang(q, 0, n);
	/* every frame dropped: the samples stay, under "[dropped]" */
	return at ? at : ft_child(&q->ft, 0, q->lab_dropped);
}

/* The label of a class's or a thread's name, made once (*slot,
 * UINT32_MAX until then): prefix, the name (by norm where the query
 * normalises), suffix. */
static uint32_t name_label(struct query *q, uint32_t *slot, const char *name,
			   bool (*norm)(const char *, struct buf *),
			   const char *prefix, const char *suffix, int kind)
{
	struct buf b = BUF_INIT;

	if (*slot != UINT32_MAX)
		return *slot;
	buf_adds(&b, prefix);
	if (q->o.normalize)
		norm(name, &b);
	else
		buf_adds(&b, name);
	buf_adds(&b, suffix);
	*slot = label_intern(q, &q->lab_idx, b.data, b.len, NULL, -1);
	q->lab_kind[*slot] = (unsigned char)kind;
	buf_release(&b);
	return *slot;
}

/* Class c's (STORE_NONE: none) with async-profiler's suffix for an
 * allocated class: _[i] in a new TLAB, _[k] otherwise. */
static uint32_t class_label(struct query *q, uint32_t c)
{
	bool known = c < q->n_classes;

	return name_label(q, &q->cls_lab[known ? c : q->n_classes],
			  known ? store_str(q->s, q->classes[c].display)
				: "(unknown class)",
			  normalize_class, "",
			  q->kind == SAMPLE_TLAB_NEW ? "_[i]" : "_[k]",
			  QUERY_LAB_CLASS);
}

/* Thread t's: "[NAME]", as async-profiler's --threads. */
static uint32_t thread_label(struct query *q, uint32_t t)
{
	bool known = t < q->n_threads;

	return name_label(q, &q->thr_lab[known ? t : q->n_threads],
			  known ? store_str(q->s, q->threads[t].name)
				: "no thread",
			  normalize_thread, "[", "]", QUERY_LAB_THREAD);
}

uint32_t query_frames_node_ct(struct query *q, uint32_t n, uint32_t cls,
			      uint32_t th)
{
	uint32_t root = 0, at;

	if (!q->split)
		return query_frames_node(q, n);
	if (q->o.threads)
		root = ft_child(&q->ft, 0, thread_label(q, th));
	if (!n || n >= q->n_nodes) {
		/* no stack: its frame, between the thread and the class */
		at = ft_child(&q->ft, root, q->lab[q->n_sites - 1]);
	} else {
		at = ft_hang(q, root, n);
		if (at == root)
			at = ft_child(&q->ft, root, q->lab_dropped);
	}
	if (q->o.leaf_class)
		at = ft_child(&q->ft, at, class_label(q, cls));
	return at;
}

/* fs[v] made to exist: grown to the frame trie's room */
static struct query_node_self *sums_at(struct query_node_self **fs,
				       size_t *room, size_t n, uint32_t v)
{
	if (n > *room) {
		size_t old = *room;

		*room = n;
		*fs = xreallocarray(*fs, *room, sizeof(**fs));
		memset(*fs + old, 0, (*room - old) * sizeof(**fs));
	}
	return &(*fs)[v];
}

/* one pass over the query's samples by (node, class, thread) */
static int split_pass(struct query *q, struct query_node_self **fs,
		      size_t *room, struct query_total *total, struct err *e)
{
	const bool agent = sample_kind_ht(q->kind);
	struct query_pass p;
	uint64_t i;
	uint32_t r;
	int rc;

	if (query_pass_init(q, &p,
			    PASS_NEED_NODE | PASS_NEED_CLASS |
				    PASS_NEED_THREAD | PASS_NEED_SQUARES,
			    0, 0, e) < 0)
		return ERR_FAIL;
	while ((rc = query_pass_next(q, &p, e)) > 0) {
		if (rc == PASS_ROWS) {
			for (r = 0; r < p.n_rows; r++) {
				const struct store_rollup_row *x = &p.rows[r];
				struct query_node_self *y;
				uint32_t v;

				if (!query_row_ok(q, &p, x))
					continue;
				v = query_frames_node_ct(q, x->node, x->cls,
							 x->thread);
				y = sums_at(fs, room, q->ft.alloc, v);
				y->samples += x->samples;
				y->bytes = add_sat(y->bytes, x->bytes);
				if (p.sq)
					y->sq = sq_add(y->sq,
						       u128_of(p.sq[r].lo,
							       p.sq[r].hi));
				y->pool = sq_add(y->pool, pool_row(&p, x));
				total_add_rows(total, x->samples, x->bytes,
					       x->first_ns, x->last_ns);
			}
			continue;
		}
		for (i = q->lo; i < q->hi; i++) {
			int64_t bytes =
				q->sm.bytes[i] == REC_NONE ? 0 : q->sm.bytes[i];
			struct query_node_self *y;
			uint32_t v;

			if ((p.rec != PASS_ANY_REC &&
			     q->sm.recording[i] != p.rec) ||
			    !query_sample_ok(q, i))
				continue;
			v = query_frames_node_ct(q, q->sm.node[i], q->sm.cls[i],
						 q->sm.thread[i]);
			y = sums_at(fs, room, q->ft.alloc, v);
			y->samples++;
			y->bytes = add_sat(y->bytes, bytes);
			y->sq = sq_add(y->sq,
				       sq_of(p.var ? p.var[i] : bytes,
					     agent ? q->sm.size[i] : 0, agent));
			y->pool = sq_add(y->pool, pool_sample(q, &p, i, bytes));
			total_add(total, q->sm.time_ns[i], bytes);
		}
	}
	query_pass_release(&p);
	return rc < 0 ? ERR_FAIL : 0;
}

struct query_node_self *query_frames_sums(struct query *q,
					  const struct query_node_self *self,
					  struct query_total *total,
					  struct err *e)
{
	struct query_node_self *fs = NULL;
	size_t room = 0, k;

	if (q->split) {
		total_init(total);
		if (split_pass(q, &fs, &room, total, e) < 0) {
			free(fs);
			return NULL;
		}
		total->est_objects = q->self_total.est_objects;
		sums_at(&fs, &room, q->ft.n, 0);
		return fs;
	}
	{
		uint32_t *at = xmalloc((q->n_self_list ? q->n_self_list : 1) *
				       sizeof(*at));

		/* the frame nodes first: the trie grows as they are made */
		for (k = 0; k < q->n_self_list; k++)
			at[k] = query_frames_node(q, q->self_list[k]);
		fs = xcalloc(q->ft.n, sizeof(*fs));
		for (k = 0; k < q->n_self_list; k++) {
			self_add(&fs[at[k]], &self[k]);
		}
		free(at);
	}
	return fs;
}

bool query_stacks_shared(const struct query *q)
{
	return !q->relabel;
}
