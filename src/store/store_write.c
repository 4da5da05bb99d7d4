/*
 * The store writer (store.h): a sink that interns what importers emit;
 * store_write_commit.c lays it out as docs/formats/store.md describes and
 * writes it atomically.
 *
 * Everything is kept in growable arrays until commit; the stack trie is
 * built as stacks arrive (a hash map from (parent, frame) to node) and
 * renumbered depth first at commit, when the samples are also sorted by
 * time.  A stack seen again is found through the importer's stack id
 * without walking its frames.
 */
#include "store/store.h"
#include "store/store_write_int.h"
#include "store/store_write_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/sink.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/size.h"
#include "util/xalloc.h"

static void idmap_init(struct idmap *m, unsigned log2_fast, size_t max)
{
	u64cache_init(&m->fast, log2_fast);
	u64map_init(&m->all);
	m->max = max;
}

static void idmap_clear(struct idmap *m)
{
	u64cache_clear(&m->fast);
	u64map_clear(&m->all);
}

static void idmap_release(struct idmap *m)
{
	u64cache_release(&m->fast);
	u64map_release(&m->all);
}

static inline bool idmap_get(struct idmap *m, uint64_t id, uint64_t *v)
{
	if (u64cache_get(&m->fast, id, v))
		return true;
	if (!u64map_get(&m->all, id, v))
		return false;
	u64cache_put(&m->fast, id, *v);
	return true;
}

/*
 * A cache, so bounded: importers' ids grow with a recording's chunks (a
 * JFR chunk's stacks and frames get new ids, whether or not an earlier
 * chunk had them), and the ids of the chunks before are not asked for
 * again.  Past its max entries it starts afresh; a miss costs only the
 * interning it saved, which gives the same key.
 */
static void idmap_put(struct idmap *m, uint64_t id, uint64_t v)
{
	if (m->all.n_items >= m->max)
		idmap_clear(m);
	u64map_put(&m->all, id, v, NULL);
	u64cache_put(&m->fast, id, v);
}

/* --- interning ------------------------------------------------------------- */

static uint32_t str_id(struct store_writer *w, const char *s)
{
	struct idxset_probe p;
	size_t len;
	uint64_t h;
	uint32_t off;

	if (!s || !*s)
		return 0;
	len = strlen(s);
	h = hash_bytes(s, len);
	/* the set holds offsets into the pool: the pool is the only copy */
	for (off = idxset_first(&w->string_index, h, &p); off != IDXSET_NONE;
	     off = idxset_next(&w->string_index, &p))
		if (!strncmp(w->strings.data + off, s, len + 1))
			return off;
	if ((uint64_t)w->strings.len + len + 1 >= UINT32_MAX)
		die("store: string pool exceeds 4 GiB");
	off = (uint32_t)w->strings.len;
	buf_add(&w->strings, s, len + 1);
	idxset_add(&w->string_index, h, off);
	return off;
}

/* Intern a fixed-size record of v: the index of the one equal to rec,
 * added when new.  The set holds indexes into v, which is the only copy
 * of the records. */
static uint32_t intern(struct store_writer *w, struct idxset *m, struct vec *v,
		       const void *rec)
{
	struct idxset_probe p;
	uint64_t h = hash_bytes(rec, v->size);
	uint32_t idx;

	if (w->keys_dropped)
		BUG("store: a key interned after the commit began");
	for (idx = idxset_first(m, h, &p); idx != IDXSET_NONE;
	     idx = idxset_next(m, &p))
		if (!memcmp(v->data + (size_t)idx * v->size, rec, v->size))
			return idx;
	if (v->n >= STORE_NONE)
		die("store: more than 4 billion entries in one table");
	idx = (uint32_t)v->n;
	memcpy(vec_push(v), rec, v->size);
	idxset_add(m, h, idx);
	return idx;
}

static uint32_t thread_id(struct store_writer *w, const struct rec_thread *t)
{
	struct store_thread rec;
	uint64_t cached;
	uint32_t id;

	if (!t)
		return STORE_NONE;
	if (t->id && idmap_get(&w->thread_cache, t->id, &cached))
		return (uint32_t)cached;
	memset(&rec, 0, sizeof(rec));
	rec.name = str_id(w, t->name);
	rec.flags = t->is_virtual ? STORE_THREAD_VIRTUAL : 0;
	rec.java_id = t->java_id;
	rec.os_id = t->os_id;
	id = intern(w, &w->thread_index, &w->threads, &rec);
	if (t->id)
		idmap_put(&w->thread_cache, t->id, id);
	return id;
}

static uint32_t class_id(struct store_writer *w, const char *display,
			 const char *raw)
{
	struct store_class rec;

	if (!display)
		return STORE_NONE;
	rec.display = str_id(w, display);
	rec.raw = str_id(w, raw ? raw : display);
	return intern(w, &w->class_index, &w->classes, &rec);
}

static uint32_t frame_id(struct store_writer *w, const struct rec_frame *f)
{
	struct store_method m;
	struct store_frame fr;
	uint64_t cached;
	uint32_t id;

	/* a frame met again (the importer interns them: a stack's frames
	 * are mostly its neighbours') costs one look-up, not seven */
	if (f->id && idmap_get(&w->frame_cache, f->id, &cached))
		return (uint32_t)cached;
	m.cls = class_id(w, f->class_name, f->class_raw);
	m.name = str_id(w, f->method);
	m.descriptor = str_id(w, f->descriptor);
	m.flags = f->hidden ? STORE_METHOD_HIDDEN : 0;
	fr.method = intern(w, &w->method_index, &w->methods, &m);
	fr.line = f->line;
	fr.bci = f->bci;
	fr.type = str_id(w, f->type);
	id = intern(w, &w->frame_index, &w->frames, &fr);
	if (f->id)
		idmap_put(&w->frame_cache, f->id, id);
	return id;
}

static uint64_t node_hash(struct node_key k)
{
	return hash_bytes(&k, sizeof(k));
}

static void node_set_release(struct node_set *ns)
{
	free(ns->slots);
	memset(ns, 0, sizeof(*ns));
}

/* The set twice as large, every node placed again by its key's hash. */
static void node_set_grow(struct node_set *ns, const struct node_key *keys)
{
	size_t n = ns->n_slots ? 2 * ns->n_slots : 1024, mask = n - 1, i;
	uint32_t *slots = xcalloc(n, sizeof(*slots));

	for (i = 0; i < ns->n_slots; i++) {
		uint32_t v = ns->slots[i];
		size_t at;

		if (!v)
			continue;
		at = (size_t)node_hash(keys[v - 1]) & mask;
		while (slots[at])
			at = (at + 1) & mask;
		slots[at] = v;
	}
	free(ns->slots);
	ns->slots = slots;
	ns->n_slots = n;
}

static uint32_t child_node(struct store_writer *w, uint32_t parent,
			   uint32_t frame)
{
	struct node_set *ns = &w->node_index;
	const struct node_key *keys = (const struct node_key *)w->nodes.data;
	struct node_key k = {parent, frame};
	size_t mask, at;
	uint32_t v, idx;

	/* one key a probe: the id's key is read from nodes, the one copy */
	if (ns->n_slots) {
		mask = ns->n_slots - 1;
		for (at = (size_t)node_hash(k) & mask; (v = ns->slots[at]);
		     at = (at + 1) & mask)
			if (keys[v - 1].parent == parent &&
			    keys[v - 1].frame == frame)
				return v - 1;
	}
	if (w->keys_dropped)
		BUG("store: a stack interned after the commit began");
	/* the depth-first numbering marks nodes with the top bit */
	if (w->nodes.n >= 0x7fffffffu)
		die("store: more than 2 billion stack nodes");
	idx = (uint32_t)w->nodes.n;
	*(struct node_key *)vec_push(&w->nodes) = k;
	keys = (const struct node_key *)w->nodes.data;
	/* at most half full */
	if ((ns->n_items + 1) * 2 > ns->n_slots)
		node_set_grow(ns, keys);
	mask = ns->n_slots - 1;
	for (at = (size_t)node_hash(k) & mask; ns->slots[at];
	     at = (at + 1) & mask)
		;
	ns->slots[at] = idx + 1;
	ns->n_items++;
	return idx;
}

/* s's node; keep: remember it by the importer's id (not for keys():
 * an importer that asks for keys keeps them, and asks once a stack) */
static uint32_t stack_node(struct store_writer *w, const struct rec_stack *st,
			   bool keep)
{
	uint64_t cached;
	uint32_t node = 0, i;

	if (!st)
		return 0;
	if (st->id && idmap_get(&w->stack_cache, st->id, &cached))
		return (uint32_t)cached;
	/* outermost caller first: frames[n-1] down to the site */
	for (i = st->n_frames; i-- > 0;)
		node = child_node(w, node, frame_id(w, &st->frames[i]));
	if (st->id && keep)
		idmap_put(&w->stack_cache, st->id, node);
	return node;
}

void store_writer_drop_keys(struct store_writer *w)
{
	/* the trie's set is the largest thing an import of many stacks
	 * keeps: gone before the commit's node numbering needs as much */
	idxset_release(&w->thread_index);
	idxset_release(&w->class_index);
	idxset_release(&w->method_index);
	idxset_release(&w->frame_index);
	node_set_release(&w->node_index);
	idmap_clear(&w->stack_cache);
	idmap_clear(&w->frame_cache);
	w->keys_dropped = true;
}

/* --- the sink -------------------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v);

/* rec_identity's term for one sample: summed, so order does not count */
static uint64_t sample_identity(const struct spill_sample *x)
{
	uint64_t h = mix(0, (uint64_t)x->time_ns);

	h = mix(h, (uint64_t)x->bytes);
	h = mix(h, (uint64_t)x->size);
	h = mix(h,
		(uint64_t)x->thread << 16 | (uint64_t)x->kind << 8 | x->flags);
	return mix(h, (uint64_t)x->cls << 32 | x->node);
}

static uint32_t sample_class(struct store_writer *w, const struct rec_sample *s)
{
	uint64_t cached;
	uint32_t cls;

	if (s->class_id && idmap_get(&w->class_cache, s->class_id, &cached))
		return (uint32_t)cached;
	cls = class_id(w, s->class_name, s->class_raw);
	if (s->class_id)
		idmap_put(&w->class_cache, s->class_id, cls);
	return cls;
}

static void put_old_object(struct store_writer *w, const struct rec_sample *s,
			   uint64_t idx)
{
	struct store_old_object *o = vec_push(&w->old_objects);

	o->sample = (uint32_t)idx;
	o->root = str_id(w, s->gc_root);
	o->alloc_time_ns = s->alloc_time_ns;
	o->age_ns = s->object_age_ns;
	o->object_size = s->object_size;
	o->last_heap_used = s->last_heap_used;
	o->array_elements = s->array_elements;
}

static void put_liveness(struct store_writer *w, const struct rec_sample *s,
			 uint64_t idx)
{
	struct store_liveness *l;

	if (!(LIVENESS_KINDS >> s->kind & 1))
		return; /* the format keeps it for these only */
	if (s->liveness == LIVE_DEAD && s->death_ns == REC_NONE)
		return; /* dead with no time: the reader's "none" */
	l = vec_push(&w->liveness);
	l->sample = (uint32_t)idx;
	l->state = s->liveness == LIVE_DEAD	? STORE_LIVE_DEAD
		   : s->liveness == LIVE_AT_END ? STORE_LIVE_AT_END
						: STORE_LIVE_AT_CUT;
	l->death_ns = s->liveness == LIVE_DEAD ? s->death_ns : INT64_MIN;
	l->alloc_gc = s->alloc_gc == REC_NONE ? -1 : s->alloc_gc;
	l->death_gc = s->liveness == LIVE_DEAD && s->death_gc != REC_NONE
			      ? s->death_gc
			      : -1;
}

/* A sample's bytes and size columns, by kind (struct rec_sample's
 * fields: rec_sample_bytes). */
static inline __attribute__((always_inline)) void
sample_bytes(struct spill_sample *x, enum sample_kind kind, int64_t weight,
	     int64_t alloc_size, int64_t tlab_size, int64_t object_size)
{
	if (kind >= SAMPLE__COUNT)
		BUG("store: a sample of kind %u", (unsigned)kind);
	rec_sample_bytes(kind, weight, alloc_size, tlab_size, object_size,
			 &x->bytes, &x->size);
	x->kind = (uint8_t)kind;
}

/* The writer's ids of s's thread, class and stack, interned in this
 * order where they are new: sample() and keys() both. */
static void sample_keys(struct store_writer *w, const struct rec_sample *s,
			struct rec_keys *k, bool keep)
{
	k->thread = thread_id(w, s->thread);
	k->cls = sample_class(w, s);
	k->stack = stack_node(w, s->stack, keep);
}

/* x, complete but for its recording and import index, to the spill. */
static int add_sample(struct store_writer *w, struct spill_sample *x)
{
	x->recording = (uint32_t)w->recordings.n;
	x->import = w->n_samples;
	if (spill_add(w->spill, x, &w->spill_err) < 0)
		return ERR_FAIL;
	w->n_samples++;
	if (w->identify)
		w->id_sum += sample_identity(x);
	return 0;
}

static int w_sample(void *ctx, const struct rec_sample *s)
{
	struct store_writer *w = ctx;
	struct spill_sample x;
	struct rec_keys k;

	if (err_isset(&w->spill_err))
		return ERR_FAIL;
	sample_bytes(&x, s->kind, s->weight, s->alloc_size, s->tlab_size,
		     s->object_size);
	x.time_ns = s->time_ns;
	x.flags = s->stack && s->stack->truncated ? STORE_SAMPLE_TRUNCATED : 0;
	sample_keys(w, s, &k, true);
	x.thread = k.thread;
	x.cls = k.cls;
	x.node = k.stack;
	if (add_sample(w, &x) < 0)
		return ERR_FAIL;
	if (s->kind == SAMPLE_OLD_OBJECT) {
		if (x.import > UINT32_MAX)
			die("store: more than 4 billion samples");
		put_old_object(w, s, x.import);
	}
	if (s->liveness != LIVE_UNKNOWN)
		put_liveness(w, s, x.import);
	return 0;
}

static int w_keys(void *ctx, const struct rec_sample *s, struct rec_keys *k)
{
	struct store_writer *w = ctx;

	if (err_isset(&w->spill_err))
		return ERR_FAIL;
	sample_keys(w, s, k, false);
	return 0;
}

_Static_assert(REC_KEYED_TRUNCATED == STORE_SAMPLE_TRUNCATED,
	       "a keyed sample's flags are the spill's");

/* The spill's run, lent to the importer: its columns are the keyed
 * samples' (rec_keyed_cols), so they go into the run as they are
 * decoded, with no copy between. */
static int w_keyed_room(void *ctx, struct rec_keyed_cols *k, size_t *room)
{
	struct store_writer *w = ctx;
	struct spill_cols *c;
	size_t at;

	if (err_isset(&w->spill_err))
		return ERR_FAIL;
	c = spill_room(w->spill, (uint32_t)w->recordings.n, w->n_samples, &at,
		       room, &w->spill_err);
	if (!c)
		return ERR_FAIL;
	k->time_ns = c->time + at;
	k->bytes = c->bytes + at;
	k->size = c->size + at;
	k->thread = c->thread + at;
	k->cls = c->cls + at;
	k->stack = c->node + at;
	k->kind = c->kind + at;
	k->flags = c->flags + at;
	w->lent = *k;
	return 0;
}

/* w_sample() of each of the n samples written into the room lent; a
 * kind that sample() would refuse, or an old object (which carries more
 * than a key), is the importer's bug, as it was when the samples came
 * as records */
static inline bool keyed_kind_bad(uint8_t kind)
{
	return kind >= SAMPLE__COUNT || kind == SAMPLE_OLD_OBJECT;
}

static int w_keyed_added(void *ctx, size_t n)
{
	struct store_writer *w = ctx;
	const struct rec_keyed_cols *k = &w->lent;
	bool bad = false;
	size_t i;

	/* without a branch a sample; the culprit found only on a bug */
	for (i = 0; i < n; i++)
		bad |= keyed_kind_bad(k->kind[i]);
	for (i = 0; bad && i < n; i++)
		if (keyed_kind_bad(k->kind[i]))
			BUG("store: a keyed sample of kind %u",
			    (unsigned)k->kind[i]);

	if (w->identify) {
		for (i = 0; i < n; i++) {
			struct spill_sample y = {
				.time_ns = k->time_ns[i],
				.kind = k->kind[i],
				.flags = k->flags[i],
				.thread = k->thread[i],
				.cls = k->cls[i],
				.node = k->stack[i],
				.bytes = k->bytes[i],
				.size = k->size[i],
			};

			w->id_sum += sample_identity(&y);
		}
	}
	w->n_samples += n;
	return spill_added(w->spill, n, &w->spill_err);
}

static int w_gc(void *ctx, const struct rec_gc *g)
{
	struct store_writer *w = ctx;
	struct store_gc *r = vec_push(&w->gcs);

	r->recording = (uint32_t)w->recordings.n;
	r->reserved = 0;
	r->number = g->number;
	r->start_ns = g->start_ns;
	r->end_ns = g->end_ns;
	return 0;
}

/* How far back a GC's later events look for its record: the events of
 * one GC are written together, at its end.  A record not found there is
 * added again; readers merge records that repeat a GC id. */
#define GC_INFO_LOOKBACK 64

static int w_gc_info(void *ctx, const struct rec_gc_info *g)
{
	struct store_writer *w = ctx;
	struct store_gc_info *r = NULL;
	uint32_t rec = (uint32_t)w->recordings.n;
	size_t i;

	for (i = w->gc_info.n;
	     i > w->mark.gc_info && i + GC_INFO_LOOKBACK > w->gc_info.n; i--) {
		struct store_gc_info *x =
			(struct store_gc_info *)w->gc_info.data + (i - 1);

		if (x->recording == rec && x->gc_id == g->gc_id) {
			r = x;
			break;
		}
	}
	if (!r) {
		r = vec_push(&w->gc_info);
		memset(r, 0, sizeof(*r));
		r->recording = rec;
		r->gc_id = g->gc_id;
	}
	if (g->name)
		r->name = str_id(w, g->name);
	if (g->cause)
		r->cause = str_id(w, g->cause);
	if (g->phase)
		r->phase = str_id(w, g->phase);
	if (g->failed)
		r->flags |= STORE_GC_FAILED;
	return 0;
}

static int w_heap_summary(void *ctx, const struct rec_heap_summary *h)
{
	struct store_writer *w = ctx;
	struct store_heap *r = vec_push(&w->heap);

	r->recording = (uint32_t)w->recordings.n;
	r->when = str_id(w, h->when);
	r->time_ns = h->time_ns;
	r->gc_id = h->gc_id;
	r->used = h->heap_used;
	r->committed = h->committed;
	r->reserved = h->reserved;
	return 0;
}

/* --- duplicates ------------------------------------------------------------ */

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* splitmix64's finalizer over the running value */
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

#define AT(v, type, i) (((const type *)(v).data)[i])

/* What a recording is, whatever it was called: its facts (string ids
 * are interned, so equal strings are equal ids), and its records since
 * the mark, samples summed so that their order does not matter.  Two
 * imports of the same file, or of copies of it, give the same value. */
static uint64_t rec_identity(const struct store_writer *w,
			     const struct store_recording *rec)
{
	const struct writer_mark *m = &w->mark;
	uint64_t h = 0x6865617073696674ull;
	size_t i;

	h = mix(h, rec->format);
	h = mix(h, (uint64_t)rec->jvm_name << 32 | rec->jvm_version);
	h = mix(h, (uint64_t)rec->start_ns);
	h = mix(h, (uint64_t)rec->end_ns);
	h = mix(h, (uint64_t)rec->n_chunks << 32 ^ rec->bytes_skipped);
	for (i = m->settings; i < w->settings.n; i++)
		h = mix(h,
			(uint64_t)AT(w->settings, struct store_setting, i).name
					<< 32 |
				AT(w->settings, struct store_setting, i).value);
	for (i = m->counts; i < w->counts.n; i++)
		h = mix(h, AT(w->counts, struct store_count, i).n ^
				   AT(w->counts, struct store_count, i).name);
	h = mix(h, w->id_sum); /* summed as the samples arrived */
	h = mix(h, w->n_samples - m->samples);
	h = mix(h, (w->heap.n - m->heap) << 32 ^ (w->gcs.n - m->gcs));
	h = mix(h, (w->liveness.n - m->liveness) << 32 ^
			   (w->old_objects.n - m->old_objects));
	for (i = m->ch_snaps; i < w->ch_snaps.n; i++) {
		const struct store_ch_snapshot *sn =
			&AT(w->ch_snaps, struct store_ch_snapshot, i);

		h = mix(h, sn->kind);
		h = mix(h, (uint64_t)sn->time_ns ^ sn->line);
		h = mix(h, (uint64_t)sn->n_heaps << 32 | sn->n_stats);
	}
	for (i = m->ch_stats; i < w->ch_stats.n; i++)
		h = mix(h,
			(uint64_t)AT(w->ch_stats, struct store_ch_stat, i).value ^
				AT(w->ch_stats, struct store_ch_stat, i).name);
	h = mix(h, (w->ch_blocks.n - m->ch_blocks) << 32 ^
			   (w->ch_maps.n - m->ch_maps));
	return h;
}

static void set_mark(struct store_writer *w)
{
	struct writer_mark *m = &w->mark;

	m->samples = w->n_samples;
	m->runs = spill_n_runs(w->spill);
	w->id_sum = 0;
	m->old_objects = w->old_objects.n;
	m->heap = w->heap.n;
	m->liveness = w->liveness.n;
	m->gcs = w->gcs.n;
	m->gc_info = w->gc_info.n;
	m->settings = w->settings.n;
	m->counts = w->counts.n;
	m->ch_snaps = w->ch_snaps.n;
	m->ch_heaps = w->ch_heaps.n;
	m->ch_maps = w->ch_maps.n;
	m->ch_blocks = w->ch_blocks.n;
	m->ch_stats = w->ch_stats.n;
	m->ch_cells = w->ch_cells.len;
}

/* Forget the last recording and its records (what was interned stays:
 * a duplicate's names, threads and classes are the kept one's anyway). */
static void drop_since_mark(struct store_writer *w)
{
	const struct writer_mark *m = &w->mark;

	w->recordings.n--;
	/* its samples are whole runs (one ended with it): cut them off */
	spill_truncate(w->spill, m->runs);
	w->n_samples = m->samples;
	w->old_objects.n = m->old_objects;
	w->heap.n = m->heap;
	w->liveness.n = m->liveness;
	w->gcs.n = m->gcs;
	w->gc_info.n = m->gc_info;
	w->settings.n = m->settings;
	w->counts.n = m->counts;
	w->ch_snaps.n = m->ch_snaps;
	w->ch_heaps.n = m->ch_heaps;
	w->ch_maps.n = m->ch_maps;
	w->ch_blocks.n = m->ch_blocks;
	w->ch_stats.n = m->ch_stats;
	if (w->ch_cells.len != m->ch_cells)
		buf_setlen(&w->ch_cells, m->ch_cells);
}

/* The recording just added: remember its identity, or drop it when it
 * is one of the kept ones. */
static void check_duplicate(struct store_writer *w)
{
	uint32_t r = (uint32_t)w->recordings.n - 1, i;
	uint64_t id;

	if (!w->identify)
		return; /* nothing kept to compare with (no store added) */
	id = rec_identity(w, &AT(w->recordings, struct store_recording, r));

	for (i = 0; i < w->n_kept && i < w->ids.n; i++)
		if (AT(w->ids, uint64_t, i) == id) {
			drop_since_mark(w);
			w->n_dups++;
			w->last_dup = i;
			return;
		}
	*(uint64_t *)vec_push(&w->ids) = id;
}

static int w_recording(void *ctx, const struct rec_recording *r)
{
	struct store_writer *w = ctx;
	struct store_recording *rec;
	uint32_t i;

	if (w->recordings.n >= STORE_NONE)
		die("store: too many recordings");
	/* runs never span recordings: a duplicate's are dropped whole */
	if (!err_isset(&w->spill_err) &&
	    spill_end_run(w->spill, &w->spill_err) < 0)
		return ERR_FAIL;
	rec = vec_push(&w->recordings);
	memset(rec, 0, sizeof(*rec));
	rec->source = str_id(w, r->source);
	rec->format = str_id(w, r->format);
	rec->jvm_name = str_id(w, r->jvm_name);
	rec->jvm_version = str_id(w, r->jvm_version);
	rec->start_ns = r->start_ns;
	rec->end_ns = r->end_ns;
	rec->n_chunks = r->n_chunks;
	rec->first_setting = (uint32_t)w->settings.n;
	rec->n_settings = r->n_settings;
	rec->first_count = (uint32_t)w->counts.n;
	rec->n_counts = r->n_event_types;
	rec->bytes_skipped = r->bytes_skipped;
	for (i = 0; i < r->n_settings; i++) {
		struct store_setting *s = vec_push(&w->settings);

		s->name = str_id(w, r->settings[i].name);
		s->value = str_id(w, r->settings[i].value);
	}
	for (i = 0; i < r->n_event_types; i++) {
		struct store_count *c = vec_push(&w->counts);

		c->name = str_id(w, r->event_types[i].name);
		c->reserved = 0;
		c->n = r->event_types[i].n;
	}
	check_duplicate(w);
	set_mark(w);
	/* importer ids start again with the next recording */
	idmap_clear(&w->stack_cache);
	idmap_clear(&w->frame_cache);
	idmap_clear(&w->thread_cache);
	idmap_clear(&w->class_cache);
	return 0;
}

/* --- code heaps ------------------------------------------------------------ */

static void ch_put_stats(struct store_writer *w, const struct rec_ch_stat *st,
			 uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct store_ch_stat *r = vec_push(&w->ch_stats);

		r->name = str_id(w, st[i].name);
		r->reserved = 0;
		r->value = st[i].value;
	}
}

static void ch_put_blocks(struct store_writer *w, const struct rec_ch_block *b,
			  uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct store_ch_block *r = vec_push(&w->ch_blocks);

		memset(r, 0, sizeof(*r));
		r->addr = b[i].addr;
		r->size = b[i].size;
		r->temperature = b[i].temperature;
		r->compile_id = b[i].compile_id;
		r->gap = b[i].gap;
		r->gap_blocks = b[i].gap_blocks;
		r->name = str_id(w, b[i].name);
		r->compiler = str_id(w, b[i].compiler);
		r->type = (uint8_t)(b[i].type < CHB__COUNT ? b[i].type
							   : CHB_UNKNOWN);
		r->level = (int8_t)(b[i].level >= -1 && b[i].level < 100
					    ? b[i].level
					    : -1);
		r->state = (int8_t)(b[i].state >= -1 && b[i].state < 100
					    ? b[i].state
					    : -1);
		r->flags =
			(b[i].kind == CHK_FREE ? STORE_CH_BLOCK_FREE : 0) |
			(b[i].top ? STORE_CH_BLOCK_TOP : 0) |
			(b[i].permanent_gap ? STORE_CH_BLOCK_PERMANENT_GAP : 0);
	}
}

static int w_codeheap(void *ctx, const struct rec_codeheap *c)
{
	struct store_writer *w = ctx;
	struct store_ch_snapshot *sn;
	uint32_t i, k;
	uint64_t maps = 0, blocks = c->n_blocks, stats = c->n_stats;

	/* every index the store keeps is a uint32 */
	for (i = 0; i < c->n_heaps; i++) {
		maps += c->heaps[i].n_maps;
		blocks += c->heaps[i].n_blocks;
		stats += c->heaps[i].n_stats;
	}
	if (w->ch_snaps.n >= STORE_NONE ||
	    w->ch_heaps.n + c->n_heaps >= STORE_NONE ||
	    w->ch_maps.n + maps >= STORE_NONE ||
	    w->ch_blocks.n + blocks >= STORE_NONE ||
	    w->ch_stats.n + stats >= STORE_NONE)
		die("store: too many code-heap snapshots, heaps or blocks");
	sn = vec_push(&w->ch_snaps);
	memset(sn, 0, sizeof(*sn));
	sn->recording = (uint32_t)w->recordings.n;
	sn->kind = str_id(w, c->kind);
	sn->time_ns = c->time_ns;
	sn->line = c->line;
	sn->first_heap = (uint32_t)w->ch_heaps.n;
	sn->n_heaps = c->n_heaps;
	sn->first_stat = (uint32_t)w->ch_stats.n;
	sn->n_stats = c->n_stats;
	ch_put_stats(w, c->stats, c->n_stats);
	sn->first_block = (uint32_t)w->ch_blocks.n;
	sn->n_blocks = c->n_blocks;
	ch_put_blocks(w, c->blocks, c->n_blocks);
	for (i = 0; i < c->n_heaps; i++) {
		const struct rec_ch_heap *h = &c->heaps[i];
		struct store_ch_heap *r = vec_push(&w->ch_heaps);

		memset(r, 0, sizeof(*r));
		r->snapshot = (uint32_t)(w->ch_snaps.n - 1);
		r->name = str_id(w, h->name);
		r->low = h->low;
		r->high = h->high;
		r->high_reserved = h->high_reserved;
		r->segment_size = h->segment_size;
		r->granule_size = h->granule_size;
		r->n_granules = h->n_granules;
		r->committed = h->committed;
		r->reserved = h->reserved;
		r->used = h->used;
		r->free = h->free;
		r->max_used = h->max_used;
		r->used_blocks = h->used_blocks;
		r->free_blocks = h->free_blocks;
		r->flags = h->placement_estimated ? STORE_CH_PLACEMENT_ESTIMATED
						  : 0;
		r->first_map = (uint32_t)w->ch_maps.n;
		r->n_maps = h->n_maps;
		r->first_block = (uint32_t)w->ch_blocks.n;
		r->n_blocks = h->n_blocks;
		r->first_stat = (uint32_t)w->ch_stats.n;
		r->n_stats = h->n_stats;
		ch_put_blocks(w, h->blocks, h->n_blocks);
		ch_put_stats(w, h->stats, h->n_stats);
		for (k = 0; k < h->n_maps; k++) {
			const struct rec_ch_map *m = &h->maps[k];
			struct store_ch_map *rm = vec_push(&w->ch_maps);

			memset(rm, 0, sizeof(*rm));
			rm->heap = (uint32_t)(w->ch_heaps.n - 1);
			rm->measure = (uint8_t)m->measure;
			rm->part = (uint8_t)m->part;
			rm->flags = m->bundle ? STORE_CH_MAP_BUNDLE : 0;
			rm->cells = w->ch_cells.len;
			rm->n = m->n;
			buf_add(&w->ch_cells, m->cells, m->n);
		}
	}
	return 0;
}

static const struct sink_ops writer_ops = {
	.sample = w_sample,
	.heap_summary = w_heap_summary,
	.recording = w_recording,
	.gc = w_gc,
	.gc_info = w_gc_info,
	.codeheap = w_codeheap,
	.keys = w_keys,
	.keyed_room = w_keyed_room,
	.keyed_added = w_keyed_added,
};

struct store_writer *store_writer_new(void)
{
	struct store_writer *w = xcalloc(1, sizeof(*w));

	w->sink.ops = &writer_ops;
	w->sink.ctx = w;
	buf_init(&w->strings);
	buf_addch(&w->strings, '\0'); /* offset 0 is "" */
	idxset_init(&w->string_index);
	idxset_init(&w->thread_index);
	idxset_init(&w->class_index);
	idxset_init(&w->method_index);
	idxset_init(&w->frame_index);
	/* at most 32 MB each for stacks, threads and classes (the agent's
	 * ids are its recording's: a million stacks), 8 MB for frames (a
	 * JFR chunk's, whose ids the next chunk does not use) */
	idmap_init(&w->stack_cache, 12, (size_t)1 << 20);
	idmap_init(&w->frame_cache, 14, (size_t)1 << 18);
	idmap_init(&w->thread_cache, 8, (size_t)1 << 20);
	idmap_init(&w->class_cache, 10, (size_t)1 << 20);
	vec_init(&w->recordings, sizeof(struct store_recording));
	vec_init(&w->ids, sizeof(uint64_t));
	vec_init(&w->settings, sizeof(struct store_setting));
	vec_init(&w->counts, sizeof(struct store_count));
	vec_init(&w->threads, sizeof(struct store_thread));
	vec_init(&w->classes, sizeof(struct store_class));
	vec_init(&w->methods, sizeof(struct store_method));
	vec_init(&w->frames, sizeof(struct store_frame));
	vec_init(&w->nodes, sizeof(struct node_key));
	w->spill = spill_new(0, LIVENESS_KINDS);
	err_init(&w->spill_err);
	vec_init(&w->old_objects, sizeof(struct store_old_object));
	vec_init(&w->heap, sizeof(struct store_heap));
	vec_init(&w->liveness, sizeof(struct store_liveness));
	vec_init(&w->gcs, sizeof(struct store_gc));
	vec_init(&w->gc_info, sizeof(struct store_gc_info));
	vec_init(&w->ch_snaps, sizeof(struct store_ch_snapshot));
	vec_init(&w->ch_heaps, sizeof(struct store_ch_heap));
	vec_init(&w->ch_maps, sizeof(struct store_ch_map));
	vec_init(&w->ch_blocks, sizeof(struct store_ch_block));
	vec_init(&w->ch_stats, sizeof(struct store_ch_stat));
	buf_init(&w->ch_cells);
	/* node 0: the root, "no stack" */
	*(struct node_key *)vec_push(&w->nodes) =
		(struct node_key){STORE_NONE, STORE_NONE};
	return w;
}

void store_writer_free(struct store_writer *w)
{
	if (!w)
		return;
	buf_release(&w->strings);
	idxset_release(&w->string_index);
	idxset_release(&w->thread_index);
	idxset_release(&w->class_index);
	idxset_release(&w->method_index);
	idxset_release(&w->frame_index);
	node_set_release(&w->node_index);
	idmap_release(&w->stack_cache);
	idmap_release(&w->frame_cache);
	idmap_release(&w->thread_cache);
	idmap_release(&w->class_cache);
	vec_release(&w->recordings);
	vec_release(&w->ids);
	vec_release(&w->settings);
	vec_release(&w->counts);
	vec_release(&w->threads);
	vec_release(&w->classes);
	vec_release(&w->methods);
	vec_release(&w->frames);
	vec_release(&w->nodes);
	spill_free(w->spill); /* first: its writer thread may be in it */
	stream_free(w->stream);
	vec_release(&w->old_objects);
	vec_release(&w->heap);
	vec_release(&w->liveness);
	vec_release(&w->gcs);
	vec_release(&w->gc_info);
	vec_release(&w->ch_snaps);
	vec_release(&w->ch_heaps);
	vec_release(&w->ch_maps);
	vec_release(&w->ch_blocks);
	vec_release(&w->ch_stats);
	buf_release(&w->ch_cells);
	free(w);
}

const struct sink *store_writer_sink(struct store_writer *w)
{
	return &w->sink;
}

uint64_t store_writer_n_samples(const struct store_writer *w)
{
	return w->n_samples;
}

bool store_writer_failed(const struct store_writer *w, struct err *e)
{
	if (!err_isset(&w->spill_err))
		return false;
	if (e)
		*e = w->spill_err;
	return true;
}

void store_writer_set_spill_dir(struct store_writer *w, const char *dir)
{
	spill_set_dir(w->spill, dir);
}

bool store_writer_stream(struct store_writer *w, const char *dir)
{
	const char *v = getenv("HEAPSIFT_STORE_STREAM");

	if (w->stream || w->n_samples || w->n_kept || (v && !strcmp(v, "0")))
		return w->stream != NULL;
	w->stream = stream_new(w, dir);
	return w->stream != NULL;
}

uint32_t store_writer_n_recordings(const struct store_writer *w)
{
	return (uint32_t)w->recordings.n;
}

void store_writer_skip_duplicates(struct store_writer *w)
{
	if (w->stream)
		BUG("store: duplicates skipped by a writer that streams");
	w->n_kept = (uint32_t)w->recordings.n;
}

uint32_t store_writer_n_duplicates(const struct store_writer *w, uint32_t *last)
{
	if (last)
		*last = w->last_dup;
	return w->n_dups;
}
