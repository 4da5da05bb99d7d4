/*
 * The store's tables as rows of cells (store_table_rows, store.h): what
 * `heapsift export --format=csv` writes, one CSV file a table, and
 * docs/export.md documents column by column.  The rows are the store
 * as it is, not a view of it: every recording, every sample of every
 * kind, the code-heap tables as stored (the facts derived from them are
 * `heapsift codeheap --csv`'s).  This is the one place outside the
 * reader that knows the sections' records field by field for export.
 */
#include "store/store.h"

#include <stdlib.h>

#include "record/record.h"
#include "util/xalloc.h"

const struct store_table store_tables[STORE_N_TABLES] = {
	{"recordings", "id,source,format,jvm_name,jvm_version,start_ns,end_ns,"
		       "chunks,bytes_skipped"},
	{"settings", "recording,name,value"},
	{"threads", "id,name,java_id,os_id,virtual"},
	{"classes", "id,name,raw_name"},
	{"methods", "id,class,name,descriptor,hidden"},
	{"frames", "id,method,line,bci,type"},
	{"stacks", "id,parent,frame,depth"},
	{"samples", "id,time_ns,recording,kind,thread,class,stack,est_bytes,"
		    "size,truncated"},
	{"old_objects", "sample,alloc_time_ns,age_ns,object_size,"
			"last_heap_used,array_elements,gc_root"},
	{"heap_summaries",
	 "recording,time_ns,gc_id,when,used,committed,reserved"},
	{"liveness", "sample,state,death_ns,alloc_gc,death_gc"},
	{"gcs", "recording,number,start_ns,end_ns"},
	{"codeheap_snapshots", "id,recording,kind,time_ns,line"},
	{"codeheaps", "id,snapshot,name,low,high,high_reserved,segment_size,"
		      "granule_size,granules,committed,reserved,used,free,"
		      "max_used,used_blocks,free_blocks,placement_estimated"},
	{"codeheap_blocks",
	 "snapshot,heap,state,addr,size,type,compiler,level,state_code,"
	 "compile_id,temperature,gap,gap_blocks,permanent_gap,top,name"},
	{"codeheap_stats", "snapshot,heap,name,value"},
};

const char *store_live_state_name(uint32_t state)
{
	static const char *const states[] = {"", "dead", "alive_at_end",
					     "alive_at_cut"};

	return state < 4 ? states[state] : "";
}

/* A row being filled: at most as many cells as the widest table's. */
struct row {
	struct store_cell c[17];
	size_t n;
	store_row_fn *fn;
	void *ctx;
};

static void c_int(struct row *r, int64_t v)
{
	r->c[r->n].type = STORE_CELL_INT;
	r->c[r->n++].i = v;
}

/* A reference to another table's row; STORE_NONE (nothing): empty. */
static void c_ref(struct row *r, uint32_t v)
{
	c_int(r, v == STORE_NONE ? REC_NONE : (int64_t)v);
}

static void c_u64(struct row *r, uint64_t v)
{
	r->c[r->n].type = STORE_CELL_U64;
	r->c[r->n++].u = v;
}

static void c_str(struct row *r, const char *s)
{
	r->c[r->n].type = STORE_CELL_STR;
	r->c[r->n++].s = s;
}

/* The row is complete: handed out, and the next one starts empty.  true
 * when the caller asks to stop. */
static bool c_end(struct row *r)
{
	size_t n = r->n;

	r->n = 0;
	return r->fn(r->ctx, r->c, n) != 0;
}

static int recordings(struct store *s, struct row *r, struct err *e)
{
	const struct store_recording *x;
	uint32_t n, i;

	if (store_recordings(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, i);
		c_str(r, store_str(s, x[i].source));
		c_str(r, store_str(s, x[i].format));
		c_str(r, store_str(s, x[i].jvm_name));
		c_str(r, store_str(s, x[i].jvm_version));
		c_int(r, x[i].start_ns);
		c_int(r, x[i].end_ns);
		c_int(r, x[i].n_chunks);
		c_int(r, (int64_t)x[i].bytes_skipped);
		if (c_end(r))
			break;
	}
	return 0;
}

static int settings(struct store *s, struct row *r, struct err *e)
{
	const struct store_recording *x;
	const struct store_setting *sets;
	uint32_t n, n_sets, i, k;

	if (store_recordings(s, &x, &n, e) < 0 ||
	    store_settings(s, &sets, &n_sets, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++)
		for (k = 0; k < x[i].n_settings; k++) {
			const struct store_setting *st =
				&sets[x[i].first_setting + k];

			c_int(r, i);
			c_str(r, store_str(s, st->name));
			c_str(r, store_str(s, st->value));
			if (c_end(r))
				return 0;
		}
	return 0;
}

static int threads(struct store *s, struct row *r, struct err *e)
{
	const struct store_thread *x;
	uint32_t n, i;

	if (store_threads(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, i);
		c_str(r, store_str(s, x[i].name));
		c_int(r, x[i].java_id);
		c_int(r, x[i].os_id);
		c_int(r, x[i].flags & STORE_THREAD_VIRTUAL);
		if (c_end(r))
			break;
	}
	return 0;
}

static int classes(struct store *s, struct row *r, struct err *e)
{
	const struct store_class *x;
	uint32_t n, i;

	if (store_classes(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, i);
		c_str(r, store_str(s, x[i].display));
		c_str(r, store_str(s, x[i].raw));
		if (c_end(r))
			break;
	}
	return 0;
}

static int methods(struct store *s, struct row *r, struct err *e)
{
	const struct store_method *x;
	uint32_t n, i;

	if (store_methods(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, i);
		c_int(r, x[i].cls);
		c_str(r, store_str(s, x[i].name));
		c_str(r, store_str(s, x[i].descriptor));
		c_int(r, x[i].flags & STORE_METHOD_HIDDEN);
		if (c_end(r))
			break;
	}
	return 0;
}

static int frames(struct store *s, struct row *r, struct err *e)
{
	const struct store_frame *x;
	uint32_t n, i;

	if (store_frames(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, i);
		c_int(r, x[i].method);
		c_int(r, x[i].line);
		c_int(r, x[i].bci);
		c_str(r, store_str(s, x[i].type));
		if (c_end(r))
			break;
	}
	return 0;
}

/* The trie's nodes but the root (0, "no stack"), each with its parent
 * (none for an outermost caller). */
static int stacks(struct store *s, struct row *r, struct err *e)
{
	const struct store_node *x;
	uint32_t n, i;

	if (store_nodes(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 1; i < n; i++) {
		c_int(r, i);
		c_ref(r, x[i].parent ? x[i].parent : STORE_NONE);
		c_int(r, x[i].frame);
		c_int(r, x[i].depth);
		if (c_end(r))
			break;
	}
	return 0;
}

/* From a pass over the blocks in seq order (store_cursor): a block of
 * each kind in memory, not every sample, so that a store of any size
 * exports in the memory of a small one. */
static int samples(struct store *s, struct row *r, struct err *e)
{
	struct store_cursor *c = NULL;
	struct store_sample_row x;
	int rc;

	rc = store_cursor_new(s, &c, e);
	while (rc >= 0 && (rc = store_cursor_next(c, &x, e)) > 0) {
		c_int(r, x.seq);
		c_int(r, x.time_ns);
		c_int(r, x.recording);
		r->c[r->n].type = STORE_CELL_KIND;
		r->c[r->n++].i = x.kind;
		c_ref(r, x.thread);
		c_ref(r, x.cls);
		c_ref(r, x.node ? x.node : STORE_NONE);
		c_int(r, x.bytes);
		c_int(r, x.size);
		c_int(r, x.flags & STORE_SAMPLE_TRUNCATED);
		if (c_end(r))
			break;
	}
	store_cursor_free(c);
	return rc < 0 ? ERR_FAIL : 0;
}

static int old_objects(struct store *s, struct row *r, struct err *e)
{
	const struct store_old_object *x;
	uint32_t n, i;

	if (store_old_objects(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, x[i].sample);
		c_int(r, x[i].alloc_time_ns);
		c_int(r, x[i].age_ns);
		c_int(r, x[i].object_size);
		c_int(r, x[i].last_heap_used);
		c_int(r, x[i].array_elements);
		c_str(r, store_str(s, x[i].root));
		if (c_end(r))
			break;
	}
	return 0;
}

static int heap_summaries(struct store *s, struct row *r, struct err *e)
{
	const struct store_heap *x;
	uint32_t n, i;

	if (store_heap(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, x[i].recording);
		c_int(r, x[i].time_ns);
		c_int(r, x[i].gc_id);
		c_str(r, store_str(s, x[i].when));
		c_int(r, x[i].used);
		c_int(r, x[i].committed);
		c_int(r, x[i].reserved);
		if (c_end(r))
			break;
	}
	return 0;
}

static int liveness(struct store *s, struct row *r, struct err *e)
{
	const struct store_liveness *x;
	uint32_t n, i;

	if (store_liveness(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, x[i].sample);
		c_str(r, store_live_state_name(x[i].state));
		c_int(r, x[i].death_ns);
		c_int(r, x[i].alloc_gc);
		c_int(r, x[i].death_gc);
		if (c_end(r))
			break;
	}
	return 0;
}

static int gcs(struct store *s, struct row *r, struct err *e)
{
	const struct store_gc *x;
	uint32_t n, i;

	if (store_gcs(s, &x, &n, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < n; i++) {
		c_int(r, x[i].recording);
		c_int(r, x[i].number);
		c_int(r, x[i].start_ns);
		c_int(r, x[i].end_ns);
		if (c_end(r))
			break;
	}
	return 0;
}

/* The code-heap tables, as stored. */
struct ch_tables {
	const struct store_ch_snapshot *sn;
	const struct store_ch_heap *hp;
	const struct store_ch_block *bk;
	const struct store_ch_stat *st;
	uint32_t n_sn, n_hp, n_bk, n_st;
};

static int ch_tables(struct store *s, struct ch_tables *t, struct err *e)
{
	return store_ch_snapshots(s, &t->sn, &t->n_sn, e) < 0 ||
			       store_ch_heaps(s, &t->hp, &t->n_hp, e) < 0 ||
			       store_ch_blocks(s, &t->bk, &t->n_bk, e) < 0 ||
			       store_ch_stats(s, &t->st, &t->n_st, e) < 0
		       ? ERR_FAIL
		       : 0;
}

static int ch_snapshots(struct store *s, struct row *r, struct err *e)
{
	struct ch_tables t;
	uint32_t i;

	if (ch_tables(s, &t, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < t.n_sn; i++) {
		c_int(r, i);
		c_int(r, t.sn[i].recording);
		c_str(r, store_str(s, t.sn[i].kind));
		c_int(r, t.sn[i].time_ns);
		c_int(r, (int64_t)t.sn[i].line);
		if (c_end(r))
			break;
	}
	return 0;
}

static int ch_heaps(struct store *s, struct row *r, struct err *e)
{
	struct ch_tables t;
	uint32_t i;

	if (ch_tables(s, &t, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < t.n_hp; i++) {
		const struct store_ch_heap *h = &t.hp[i];

		c_int(r, i);
		c_int(r, h->snapshot);
		c_str(r, store_str(s, h->name));
		c_u64(r, h->low);
		c_u64(r, h->high);
		c_u64(r, h->high_reserved);
		c_int(r, h->segment_size);
		c_int(r, h->granule_size);
		c_int(r, h->n_granules);
		c_int(r, h->committed);
		c_int(r, h->reserved);
		c_int(r, h->used);
		c_int(r, h->free);
		c_int(r, h->max_used);
		c_int(r, h->used_blocks);
		c_int(r, h->free_blocks);
		c_int(r, h->flags & STORE_CH_PLACEMENT_ESTIMATED);
		if (c_end(r))
			break;
	}
	return 0;
}

/* Snapshot i's blocks or stats: part k 0 its own (in no heap), part k >
 * 0 those of its heap k - 1; *heap that heap, STORE_NONE for part 0. */
static void ch_part(const struct ch_tables *t, uint32_t i, uint32_t k,
		    bool stats, uint32_t *first, uint32_t *n, uint32_t *heap)
{
	if (k == 0) {
		*heap = STORE_NONE;
		*first = stats ? t->sn[i].first_stat : t->sn[i].first_block;
		*n = stats ? t->sn[i].n_stats : t->sn[i].n_blocks;
	} else {
		*heap = t->sn[i].first_heap + k - 1;
		*first = stats ? t->hp[*heap].first_stat
			       : t->hp[*heap].first_block;
		*n = stats ? t->hp[*heap].n_stats : t->hp[*heap].n_blocks;
	}
}

static void ch_block_row(struct row *r, struct store *s, uint32_t snap,
			 uint32_t heap, const struct store_ch_block *b)
{
	c_int(r, snap);
	c_ref(r, heap);
	c_str(r, b->flags & STORE_CH_BLOCK_FREE ? "free" : "used");
	c_u64(r, b->addr);
	c_int(r, b->size);
	c_str(r, ch_block_type_name((enum ch_block_type)b->type));
	c_str(r, store_str(s, b->compiler));
	c_int(r, b->level < 0 ? REC_NONE : b->level);
	c_int(r, b->state < 0 ? REC_NONE : b->state);
	c_int(r, b->compile_id);
	c_int(r, b->temperature);
	c_int(r, b->gap);
	c_int(r, b->gap_blocks);
	c_int(r, !!(b->flags & STORE_CH_BLOCK_PERMANENT_GAP));
	c_int(r, !!(b->flags & STORE_CH_BLOCK_TOP));
	c_str(r, store_str(s, b->name));
}

/* A snapshot's own blocks, then its heaps' (and so for the stats). */
static int ch_parts(struct store *s, struct row *r, bool stats, struct err *e)
{
	struct ch_tables t;
	uint32_t i, k, first, n, j, heap;

	if (ch_tables(s, &t, e) < 0)
		return ERR_FAIL;
	for (i = 0; i < t.n_sn; i++)
		for (k = 0; k <= t.sn[i].n_heaps; k++) {
			ch_part(&t, i, k, stats, &first, &n, &heap);
			for (j = first; j < first + n; j++) {
				if (stats) {
					c_int(r, i);
					c_ref(r, heap);
					c_str(r, store_str(s, t.st[j].name));
					c_int(r, t.st[j].value);
				} else {
					ch_block_row(r, s, i, heap, &t.bk[j]);
				}
				if (c_end(r))
					return 0;
			}
		}
	return 0;
}

static int ch_blocks(struct store *s, struct row *r, struct err *e)
{
	return ch_parts(s, r, false, e);
}

static int ch_stats(struct store *s, struct row *r, struct err *e)
{
	return ch_parts(s, r, true, e);
}

int store_table_rows(struct store *s, unsigned t, store_row_fn *fn, void *ctx,
		     struct err *e)
{
	static int (*const fns[STORE_N_TABLES])(struct store *, struct row *,
						struct err *) = {
		recordings,   settings,	      threads,	 classes,
		methods,      frames,	      stacks,	 samples,
		old_objects,  heap_summaries, liveness,	 gcs,
		ch_snapshots, ch_heaps,	      ch_blocks, ch_stats,
	};
	struct row r;

	if (t >= STORE_N_TABLES)
		BUG("store_table_rows: no table %u", t);
	r.n = 0;
	r.fn = fn;
	r.ctx = ctx;
	return fns[t](s, &r, e);
}
