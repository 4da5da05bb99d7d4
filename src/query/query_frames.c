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

bool query_frames_parse(const char *s, enum query_frames *f)
{
	if (!strcmp(s, "line"))
		*f = QUERY_FRAMES_LINE;
	else if (!strcmp(s, "method"))
		*f = QUERY_FRAMES_METHOD;
	else
		return false;
	return true;
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
	q->lab_method =
		xreallocarray(q->lab_method, q->n_labs, sizeof(char *));
	q->lab_line = xreallocarray(q->lab_line, q->n_labs, sizeof(int32_t));
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
	struct hmap idx;
	unsigned char *done;
	uint32_t f, s;
	bool changed = false;

	if (!o->normalize && o->frames == QUERY_FRAMES_LINE && !o->drop_re)
		return 0;
	if (o->drop_re) {
		drop = rx_user_new(o->drop_re, e);
		if (!drop) {
			err_prefix(e, "--drop-frames");
			return ERR_FAIL;
		}
	}
	hmap_init(&idx);
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
		q->lab[s] = label_intern(
			q, &idx, text.data, text.len, cls.data,
			o->frames == QUERY_FRAMES_LINE && fr->line >= 0
				? fr->line
				: -1);
		if (strcmp(text.data, q->site_names[s]))
			changed = true;
	}
	/* "(no stack)", the last site, has no frame */
	s = q->n_sites - 1;
	q->lab[s] = label_intern(q, &idx, q->site_names[s],
				 strlen(q->site_names[s]), NULL, -1);
	q->lab_dropped = label_intern(q, &idx, DROPPED_LABEL,
				      strlen(DROPPED_LABEL), NULL, -1);
	free(done);
	hmap_release(&idx);
	buf_release(&cls);
	buf_release(&text);
	rx_user_free(drop);
	if (!changed) {
		/* every label is its site's name: the plain paths */
		free(q->lab);
		q->lab = NULL;
		return 0;
	}
	q->relabel = true;
	u64map_init(&q->ft.kids);
	u64map_init(&q->ft.memo);
	/* the root: no frame */
	q->ft.alloc = 1024;
	q->ft.parent = xmalloc(q->ft.alloc * sizeof(uint32_t));
	q->ft.label = xmalloc(q->ft.alloc * sizeof(uint32_t));
	q->ft.depth = xmalloc(q->ft.alloc * sizeof(uint32_t));
	q->ft.parent[0] = UINT32_MAX;
	q->ft.label[0] = q->lab[q->n_sites - 1];
	q->ft.depth[0] = 0;
	q->ft.n = 1;
	return 0;
}

void query_frames_free(struct query *q)
{
	free(q->lab);
	free(q->lab_names);
	free(q->lab_method);
	free(q->lab_line);
	if (q->relabel) {
		u64map_release(&q->ft.kids);
		u64map_release(&q->ft.memo);
	}
	free(q->ft.parent);
	free(q->ft.label);
	free(q->ft.depth);
}

/* parent's child labelled label, made when it has none */
static uint32_t ft_child(struct query_ftrie *t, uint32_t parent,
			 uint32_t label)
{
	uint64_t *v;
	bool added;

	v = u64map_put(&t->kids, (uint64_t)parent << 32 | label, t->n, &added);
	if (!added)
		return (uint32_t)*v;
	if (t->n == t->alloc) {
		t->alloc *= 2;
		t->parent = xreallocarray(t->parent, t->alloc, sizeof(uint32_t));
		t->label = xreallocarray(t->label, t->alloc, sizeof(uint32_t));
		t->depth = xreallocarray(t->depth, t->alloc, sizeof(uint32_t));
	}
	t->parent[t->n] = parent;
	t->label[t->n] = label;
	t->depth[t->n] = t->depth[parent] + 1;
	return (uint32_t)t->n++;
}

/* the frame node that store node n's children hang from: its own, or
 * for a dropped frame its nearest kept caller's (0: none) */
static uint32_t ft_hang(struct query *q, uint32_t n)
{
	uint32_t up[64], *path = up, cap = 64, k = 0, at;
	uint64_t v;

	/* up to the first node already met, then down making each */
	while (n && !u64map_get(&q->ft.memo, n, &v)) {
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
	at = n ? (uint32_t)v : 0;
	while (k--) {
		uint32_t l = q->lab[q->node_site[path[k]]];

		if (l != QUERY_LAB_DROP)
			at = ft_child(&q->ft, at, l);
		u64map_put(&q->ft.memo, path[k], at, NULL);
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
	at = ft_hang(q, n);
	/* every frame dropped: the samples stay, under "[dropped]" */
	return at ? at : ft_child(&q->ft, 0, q->lab_dropped);
}
