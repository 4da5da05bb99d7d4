/*
 * Code-heap queries; see query_codeheap.h.  The snapshots, heaps and
 * blocks are copied out of the store into the query's own types, so
 * that the front ends never see the store's.
 */
#include "query/query_codeheap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "util/xalloc.h"

_Static_assert(CHQ_PLACEMENT_ESTIMATED == STORE_CH_PLACEMENT_ESTIMATED &&
		       CHQ_BLOCK_FREE == STORE_CH_BLOCK_FREE &&
		       CHQ_BLOCK_TOP == STORE_CH_BLOCK_TOP &&
		       CHQ_BLOCK_PERMANENT_GAP == STORE_CH_BLOCK_PERMANENT_GAP,
	       "the code-heap flags are the store's, copied as they are");

struct chq {
	struct store *s;
	const struct store_recording *recs;
	struct chq_snapshot *sn;
	struct chq_heap *hp;
	const struct store_ch_map *mp;
	struct chq_block *bk;
	const struct store_ch_stat *st;
	const uint8_t *cells;
	uint64_t n_cells;
	uint32_t n_recs, n_sn, n_hp, n_mp, n_bk, n_st;
	/* per heap: block indexes sorted by address */
	uint32_t **sorted;
	uint32_t *n_sorted;
};

static struct chq_snapshot *copy_snapshots(const struct store_ch_snapshot *x,
					   uint32_t n)
{
	struct chq_snapshot *c = xcalloc(n ? n : 1, sizeof(*c));
	uint32_t i;

	for (i = 0; i < n; i++) {
		c[i].recording = x[i].recording;
		c[i].kind = x[i].kind;
		c[i].time_ns = x[i].time_ns;
		c[i].line = x[i].line;
		c[i].first_heap = x[i].first_heap;
		c[i].n_heaps = x[i].n_heaps;
		c[i].first_stat = x[i].first_stat;
		c[i].n_stats = x[i].n_stats;
		c[i].first_block = x[i].first_block;
		c[i].n_blocks = x[i].n_blocks;
	}
	return c;
}

static struct chq_heap *copy_heaps(const struct store_ch_heap *x, uint32_t n)
{
	struct chq_heap *c = xcalloc(n ? n : 1, sizeof(*c));
	uint32_t i;

	for (i = 0; i < n; i++) {
		c[i].snapshot = x[i].snapshot;
		c[i].name = x[i].name;
		c[i].low = x[i].low;
		c[i].high = x[i].high;
		c[i].high_reserved = x[i].high_reserved;
		c[i].segment_size = x[i].segment_size;
		c[i].granule_size = x[i].granule_size;
		c[i].n_granules = x[i].n_granules;
		c[i].committed = x[i].committed;
		c[i].reserved = x[i].reserved;
		c[i].used = x[i].used;
		c[i].free = x[i].free;
		c[i].max_used = x[i].max_used;
		c[i].used_blocks = x[i].used_blocks;
		c[i].free_blocks = x[i].free_blocks;
		c[i].flags = x[i].flags;
		c[i].first_map = x[i].first_map;
		c[i].n_maps = x[i].n_maps;
		c[i].first_block = x[i].first_block;
		c[i].n_blocks = x[i].n_blocks;
		c[i].first_stat = x[i].first_stat;
		c[i].n_stats = x[i].n_stats;
	}
	return c;
}

static struct chq_block *copy_blocks(const struct store_ch_block *x, uint32_t n)
{
	struct chq_block *c = xcalloc(n ? n : 1, sizeof(*c));
	uint32_t i;

	for (i = 0; i < n; i++) {
		c[i].addr = x[i].addr;
		c[i].size = x[i].size;
		c[i].temperature = x[i].temperature;
		c[i].compile_id = x[i].compile_id;
		c[i].gap = x[i].gap;
		c[i].gap_blocks = x[i].gap_blocks;
		c[i].name = x[i].name;
		c[i].compiler = x[i].compiler;
		c[i].type = x[i].type;
		c[i].level = x[i].level;
		c[i].state = x[i].state;
		c[i].flags = x[i].flags;
	}
	return c;
}

int chq_open(struct store *s, struct chq **out, struct err *e)
{
	struct chq *q = xcalloc(1, sizeof(*q));
	const struct store_ch_snapshot *sn;
	const struct store_ch_heap *hp;
	const struct store_ch_block *bk;

	q->s = s;
	if (store_recordings(s, &q->recs, &q->n_recs, e) < 0 ||
	    store_ch_snapshots(s, &sn, &q->n_sn, e) < 0 ||
	    store_ch_heaps(s, &hp, &q->n_hp, e) < 0 ||
	    store_ch_maps(s, &q->mp, &q->n_mp, e) < 0 ||
	    store_ch_blocks(s, &bk, &q->n_bk, e) < 0 ||
	    store_ch_stats(s, &q->st, &q->n_st, e) < 0 ||
	    store_ch_cells(s, &q->cells, &q->n_cells, e) < 0) {
		free(q);
		return ERR_FAIL;
	}
	q->sn = copy_snapshots(sn, q->n_sn);
	q->hp = copy_heaps(hp, q->n_hp);
	q->bk = copy_blocks(bk, q->n_bk);
	q->sorted = xcalloc(q->n_hp + 1, sizeof(*q->sorted));
	q->n_sorted = xcalloc(q->n_hp + 1, sizeof(*q->n_sorted));
	*out = q;
	return 0;
}

void chq_free(struct chq *q)
{
	uint32_t i;

	if (!q)
		return;
	for (i = 0; i < q->n_hp; i++)
		free(q->sorted[i]);
	free(q->sorted);
	free(q->n_sorted);
	free(q->sn);
	free(q->hp);
	free(q->bk);
	free(q);
}

uint32_t chq_n_snapshots(const struct chq *q)
{
	return q->n_sn;
}

const struct chq_snapshot *chq_snapshot(const struct chq *q, uint32_t i)
{
	return &q->sn[i];
}

const char *chq_str(const struct chq *q, uint32_t off)
{
	return store_str(q->s, off);
}

const char *chq_snapshot_source(const struct chq *q, uint32_t i)
{
	return store_str(q->s, q->recs[q->sn[i].recording].source);
}

static bool find_stat(const struct chq *q, uint32_t first, uint32_t n,
		      const char *name, int64_t *v)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(store_str(q->s, q->st[first + i].name), name)) {
			*v = q->st[first + i].value;
			return true;
		}
	return false;
}

bool chq_snapshot_stat(const struct chq *q, uint32_t snap, const char *name,
		       int64_t *v)
{
	return find_stat(q, q->sn[snap].first_stat, q->sn[snap].n_stats, name,
			 v);
}

uint32_t chq_n_heaps(const struct chq *q)
{
	return q->n_hp;
}

const struct chq_heap *chq_heap(const struct chq *q, uint32_t h)
{
	return &q->hp[h];
}

bool chq_heap_stat(const struct chq *q, uint32_t h, const char *name,
		   int64_t *v)
{
	return find_stat(q, q->hp[h].first_stat, q->hp[h].n_stats, name, v);
}

const struct chq_block *chq_heap_blocks(const struct chq *q, uint32_t h,
					uint32_t *n)
{
	*n = q->hp[h].n_blocks;
	return q->bk + q->hp[h].first_block;
}

const struct chq_block *chq_snapshot_blocks(const struct chq *q, uint32_t snap,
					    uint32_t *n)
{
	*n = q->sn[snap].n_blocks;
	return q->bk + q->sn[snap].first_block;
}

void chq_facts(const struct chq *q, uint32_t h, struct ch_facts *f)
{
	const struct chq_heap *x = &q->hp[h];
	const struct chq_block *b = q->bk + x->first_block;
	uint32_t i;
	int64_t v, listed = 0, top_size = CHQ_UNKNOWN, any_size = CHQ_UNKNOWN;
	const char *top_name = NULL, *any_name = NULL;
	bool have_list = false;

	f->capacity = x->committed;
	f->size = x->committed;
	f->size_is = "committed";
	if (!strcmp(store_str(q->s, q->sn[x->snapshot].kind), "summary")) {
		f->size = x->reserved;
		f->size_is = "reserved";
	}
	f->used = x->used;
	f->free = x->free;
	f->free_blocks = x->free_blocks;
	f->used_blocks = x->used_blocks;
	f->reserved = x->reserved;
	f->max_used = x->max_used;
	f->largest_free = CHQ_UNKNOWN;
	f->maps = f->top_rows = f->named_rows = f->free_rows = 0;
	for (i = 0; i < x->n_maps; i++) {
		const struct store_ch_map *m = &q->mp[x->first_map + i];

		/* a bundle's components are in a row, tier 1 first */
		if (!(m->flags & STORE_CH_MAP_BUNDLE) || m->part == CH_TIER1)
			f->maps++;
	}
	for (i = 0; i < x->n_blocks; i++) {
		if (b[i].flags & CHQ_BLOCK_FREE)
			f->free_rows++;
		else if (b[i].flags & CHQ_BLOCK_TOP)
			f->top_rows++;
		else
			f->named_rows++;
		if (b[i].flags & CHQ_BLOCK_FREE) {
			have_list = true;
			if (b[i].size != CHQ_UNKNOWN) {
				/* a forged store may hold any sizes */
				if (b[i].size < 0 ||
				    __builtin_add_overflow(listed, b[i].size,
							   &listed))
					listed = INT64_MAX;
				if (b[i].size > f->largest_free)
					f->largest_free = b[i].size;
			}
		} else if (b[i].size != CHQ_UNKNOWN) {
			/* the first of equal sizes: the table's order */
			if ((b[i].flags & CHQ_BLOCK_TOP) &&
			    b[i].size > top_size) {
				top_size = b[i].size;
				top_name = store_str(q->s, b[i].name);
			}
			if (b[i].size > any_size) {
				any_size = b[i].size;
				any_name = store_str(q->s, b[i].name);
			}
		}
	}
	f->free_listed = have_list ? listed : CHQ_UNKNOWN;
	if (f->largest_free == CHQ_UNKNOWN &&
	    chq_heap_stat(q, h, "topten.largest_free", &v))
		f->largest_free = v;
	if (f->largest_free == CHQ_UNKNOWN && f->free_blocks == 0)
		f->largest_free = 0;
	f->largest_used = top_size != CHQ_UNKNOWN ? top_size : any_size;
	f->largest_used_name = top_size != CHQ_UNKNOWN ? top_name : any_name;
	f->fragmentation = NAN;
	if (f->largest_free != CHQ_UNKNOWN) {
		int64_t total = have_list ? listed : f->free;

		if (total == 0 || f->free_blocks == 0)
			f->fragmentation = 0.0;
		else if (total != CHQ_UNKNOWN && total > 0)
			f->fragmentation =
				1.0 - (double)f->largest_free / (double)total;
	}
}

static const char *const flavour_names[CHQ__FLAVOURS] = {"count", "space",
							 "age", "tier", "type"};

bool chq_flavour_parse(const char *s, enum chq_flavour *f)
{
	int i;

	for (i = 0; i < CHQ__FLAVOURS; i++)
		if (!strcmp(s, flavour_names[i])) {
			*f = (enum chq_flavour)i;
			return true;
		}
	return false;
}

const char *chq_flavour_word(size_t i)
{
	return i < CHQ__FLAVOURS ? flavour_names[i] : NULL;
}

const char *chq_flavour_name(enum chq_flavour f)
{
	return (unsigned)f < CHQ__FLAVOURS ? flavour_names[f] : "?";
}

const uint8_t *chq_map(const struct chq *q, uint32_t h, enum ch_measure m,
		       enum ch_part p, uint32_t *n)
{
	const struct chq_heap *x = &q->hp[h];
	const uint8_t *bundle = NULL;
	uint32_t i, bn = 0;

	for (i = 0; i < x->n_maps; i++) {
		const struct store_ch_map *mp = &q->mp[x->first_map + i];

		if (mp->measure != m || mp->part != p)
			continue;
		if (!(mp->flags & STORE_CH_MAP_BUNDLE)) {
			*n = mp->n;
			return q->cells + mp->cells;
		}
		if (!bundle) {
			bundle = q->cells + mp->cells;
			bn = mp->n;
		}
	}
	*n = bn;
	return bundle;
}

/* Fill fraction of a space cell: the middle of its printed range. */
static double space_fill(uint8_t v)
{
	if (v == 0)
		return 0.0;
	if (v >= CH_SPACE_FULL)
		return 1.0;
	return ((double)(v - 1) + 0.5) / 10.0;
}

static uint8_t space_code(double fill)
{
	int d;

	if (fill <= 0.0)
		return 0;
	if (fill >= 0.999)
		return CH_SPACE_FULL;
	d = (int)(fill * 10.0);
	return (uint8_t)(1 + (d > 9 ? 9 : d));
}

static uint8_t tier_of(const uint8_t *t1, const uint8_t *t2, const uint8_t *st,
		       uint32_t i)
{
	int kinds = (t1 && t1[i]) + (t2 && t2[i]) + (st && st[i]);

	if (!kinds)
		return CHQ_TIER_EMPTY;
	if (kinds > 1)
		return CHQ_TIER_MIXED;
	return t1 && t1[i]   ? CHQ_TIER_1
	       : t2 && t2[i] ? CHQ_TIER_2
			     : CHQ_TIER_STUB;
}

uint32_t chq_map_merged(const struct chq *q, uint32_t h, enum chq_flavour f,
			uint32_t merge, uint8_t *out, uint32_t room)
{
	const uint8_t *c = NULL, *t1 = NULL, *t2 = NULL, *st = NULL;
	uint32_t n = 0, n1 = 0, n2 = 0, n3 = 0, i, k, cells;

	if (!merge)
		merge = 1;
	switch (f) {
	case CHQ_COUNT:
		c = chq_map(q, h, CH_COUNT, CH_ALL, &n);
		break;
	case CHQ_SPACE:
		c = chq_map(q, h, CH_SPACE, CH_ALL, &n);
		break;
	case CHQ_AGE:
		c = chq_map(q, h, CH_AGE, CH_ALL, &n);
		break;
	case CHQ_TYPE:
		c = chq_map(q, h, CH_TYPE, CH_ALL, &n);
		break;
	case CHQ_TIER:
		t1 = chq_map(q, h, CH_COUNT, CH_TIER1, &n1);
		t2 = chq_map(q, h, CH_COUNT, CH_TIER2, &n2);
		st = chq_map(q, h, CH_COUNT, CH_STUB, &n3);
		n = n1 > n2 ? n1 : n2;
		n = n > n3 ? n : n3;
		/* the maps that exist must agree on the length */
		if ((t1 && n1 != n) || (t2 && n2 != n) || (st && n3 != n))
			return 0;
		c = t1 ? t1 : t2 ? t2 : st;
		break;
	default:
		return 0;
	}
	if (!c || !n)
		return 0;
	cells = (uint32_t)((n + (uint64_t)merge - 1) / merge);
	if (cells > room)
		return 0;
	for (k = 0; k < cells; k++) {
		uint32_t lo = k * merge, hi = lo + merge > n ? n : lo + merge;
		unsigned sum = 0;
		double fill = 0.0;
		uint8_t v = 0, first = 0;
		bool mixed = false;

		for (i = lo; i < hi; i++) {
			uint8_t x =
				f == CHQ_TIER ? tier_of(t1, t2, st, i) : c[i];

			switch (f) {
			case CHQ_COUNT:
				sum += x;
				break;
			case CHQ_SPACE:
				fill += space_fill(x);
				break;
			case CHQ_AGE: /* the youngest: the lowest digit */
				if (x && (!v || x < v))
					v = x;
				break;
			default:
				if (i == lo)
					first = x;
				else if (x != first)
					mixed = true;
			}
		}
		switch (f) {
		case CHQ_COUNT:
			out[k] = (uint8_t)(sum > CH_COUNT_MANY ? CH_COUNT_MANY
							       : sum);
			break;
		case CHQ_SPACE:
			out[k] = space_code(fill / (double)(hi - lo));
			break;
		case CHQ_AGE:
			out[k] = v;
			break;
		case CHQ_TIER:
			out[k] = mixed ? CHQ_TIER_MIXED : first;
			break;
		default:
			out[k] = mixed ? CHB_UNKNOWN : first;
		}
	}
	return cells;
}

uint32_t chq_map_len(const struct chq *q, uint32_t h, enum chq_flavour f)
{
	static const enum ch_measure measure[CHQ__FLAVOURS] = {
		CH_COUNT, CH_SPACE, CH_AGE, CH_COUNT, CH_TYPE};
	uint32_t n = 0, best = 0;
	int p;

	if ((unsigned)f >= CHQ__FLAVOURS)
		return 0;
	if (f != CHQ_TIER) {
		chq_map(q, h, measure[f], CH_ALL, &n);
		return n;
	}
	for (p = CH_TIER1; p <= CH_STUB; p++) {
		if (p == CH_INACTIVE)
			continue;
		chq_map(q, h, CH_COUNT, (enum ch_part)p, &n);
		if (n > best)
			best = n;
	}
	return best;
}

/* Stable letters for block types (JDK 17's legend). */
static const char type_letters[CHB__COUNT] = {
	[CHB_NONE] = ' ',
	[CHB_NMETHOD_BUILDING] = 'C',
	[CHB_NMETHOD_ACTIVE] = 'N',
	[CHB_NMETHOD_INACTIVE] = 'I',
	[CHB_NMETHOD_DEOPT] = 'X',
	[CHB_NMETHOD_ZOMBIE] = 'Z',
	[CHB_NMETHOD_UNLOADED] = 'U',
	[CHB_RUNTIME_STUB] = 'R',
	[CHB_RICOCHET_STUB] = '?',
	[CHB_DEOPT_STUB] = 'D',
	[CHB_UNCOMMON_TRAP_STUB] = 'T',
	[CHB_EXCEPTION_STUB] = 'E',
	[CHB_SAFEPOINT_STUB] = 'S',
	[CHB_ADAPTER_BLOB] = 'A',
	[CHB_MH_ADAPTER_BLOB] = 'M',
	[CHB_BUFFER_BLOB] = 'B',
	[CHB_STALE_BLOB] = '!',
	[CHB_NMETHOD] = 'n',
	[CHB_UNKNOWN] = '#',
};

char chq_cell_char(enum chq_flavour f, uint8_t v)
{
	switch (f) {
	case CHQ_COUNT:
		return v == 0		    ? ' '
		       : v >= CH_COUNT_MANY ? '*'
					    : "0123456789abcdef"[v];
	case CHQ_SPACE:
		return v == 0		    ? ' '
		       : v >= CH_SPACE_FULL ? '*'
					    : (char)('0' + v - 1);
	case CHQ_AGE:
		return v == 0 || v > 9 ? ' ' : (char)('0' + v - 1);
	case CHQ_TIER:
		return " 12sm"[v <= CHQ_TIER_MIXED ? v : 0];
	case CHQ_TYPE:
		return v < CHB__COUNT ? type_letters[v] : '#';
	default:
		return '?';
	}
}

static int by_addr(const void *a, const void *b, void *ctx)
{
	const struct chq *q = ctx;
	const struct chq_block *x = &q->bk[*(const uint32_t *)a];
	const struct chq_block *y = &q->bk[*(const uint32_t *)b];

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void sort_blocks(const struct chq *cq, uint32_t h)
{
	struct chq *q = (struct chq *)cq; /* a cache filled on demand */
	const struct chq_heap *x = &q->hp[h];
	const struct chq_block *b = q->bk + x->first_block;
	uint32_t i, n = 0;
	bool names = false;

	if (q->sorted[h] || !x->n_blocks)
		return;
	for (i = 0; i < x->n_blocks; i++)
		if (!(b[i].flags & (CHQ_BLOCK_FREE | CHQ_BLOCK_TOP)))
			names = true;
	q->sorted[h] = xmalloc(x->n_blocks * sizeof(uint32_t));
	for (i = 0; i < x->n_blocks; i++)
		if (!names || !(b[i].flags & CHQ_BLOCK_TOP))
			q->sorted[h][n++] = x->first_block + i;
	qsort_r(q->sorted[h], n, sizeof(uint32_t), by_addr, q);
	q->n_sorted[h] = n;
}

uint32_t chq_n_sorted_blocks(const struct chq *q, uint32_t h)
{
	sort_blocks(q, h);
	return q->n_sorted[h];
}

const struct chq_block *chq_sorted_block(const struct chq *q, uint32_t h,
					 uint32_t k)
{
	sort_blocks(q, h);
	return k < q->n_sorted[h] ? &q->bk[q->sorted[h][k]] : NULL;
}

static int cell_at(const struct chq *q, uint32_t h, enum ch_measure m,
		   enum ch_part p, uint64_t g)
{
	uint32_t n;
	const uint8_t *c = chq_map(q, h, m, p, &n);

	return c && g < n ? c[g] : -1;
}

bool chq_granule(const struct chq *q, uint32_t h, uint64_t g,
		 struct ch_granule *o)
{
	const struct chq_heap *x = &q->hp[h];
	const uint8_t *t1, *t2, *st;
	uint32_t n1, n2, n3, lo, hi, n;

	if (x->n_granules == CHQ_UNKNOWN || g >= (uint64_t)x->n_granules)
		return false;
	memset(o, 0, sizeof(*o));
	if (x->low && x->granule_size > 0) {
		o->start = x->low + g * (uint64_t)x->granule_size;
		o->end = o->start + (uint64_t)x->granule_size;
	}
	o->count = cell_at(q, h, CH_COUNT, CH_ALL, g);
	o->space = cell_at(q, h, CH_SPACE, CH_ALL, g);
	o->age = cell_at(q, h, CH_AGE, CH_ALL, g);
	o->type = cell_at(q, h, CH_TYPE, CH_ALL, g);
	t1 = chq_map(q, h, CH_COUNT, CH_TIER1, &n1);
	t2 = chq_map(q, h, CH_COUNT, CH_TIER2, &n2);
	st = chq_map(q, h, CH_COUNT, CH_STUB, &n3);
	o->tier = tier_of(g < n1 ? t1 : NULL, g < n2 ? t2 : NULL,
			  g < n3 ? st : NULL, (uint32_t)g);
	n = chq_n_sorted_blocks(q, h);
	o->first_block = o->n_blocks = 0;
	if (!o->end || !n)
		return true;
	/* first block at or after start, and the one before if it reaches in */
	lo = 0;
	hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (chq_sorted_block(q, h, mid)->addr < o->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const struct chq_block *b = chq_sorted_block(q, h, lo - 1);

		if (b->size != CHQ_UNKNOWN && b->size > 0 &&
		    b->addr + (uint64_t)b->size > o->start)
			lo--;
	}
	hi = lo;
	while (hi < n && chq_sorted_block(q, h, hi)->addr < o->end)
		hi++;
	o->first_block = lo;
	o->n_blocks = hi - lo;
	return true;
}

static bool same_heap_name(const char *a, const char *b)
{
	if (!strcmp(a, "CodeCache"))
		a = "CodeHeap";
	if (!strcmp(b, "CodeCache"))
		b = "CodeHeap";
	return !strcmp(a, b);
}

uint32_t chq_match_heap(const struct chq *q, uint32_t snap_b, uint32_t h)
{
	const char *name = store_str(q->s, q->hp[h].name);
	uint32_t i;

	for (i = 0; i < q->sn[snap_b].n_heaps; i++) {
		uint32_t k = q->sn[snap_b].first_heap + i;

		if (same_heap_name(store_str(q->s, q->hp[k].name), name))
			return k;
	}
	return UINT32_MAX;
}

/* --- one JVM's texts, and its code lists' states ------------------------- */

static bool snap_pid(const struct chq *q, uint32_t s, int64_t *pid)
{
	return chq_snapshot_stat(q, s, "pid", pid) && *pid > 0;
}

/* Does any heap of snapshot s hold address a? */
static bool heaps_hold(const struct chq *q, uint32_t s, uint64_t a)
{
	uint32_t i;

	for (i = 0; i < q->sn[s].n_heaps; i++) {
		const struct chq_heap *h = &q->hp[q->sn[s].first_heap + i];
		uint64_t end = h->high_reserved ? h->high_reserved : h->high;

		if (h->low && a >= h->low && a < end)
			return true;
	}
	return false;
}

/* Does a code list's method lie inside snapshot s's heaps? */
static bool list_inside(const struct chq *q, uint32_t list, uint32_t s)
{
	const struct chq_snapshot *l = &q->sn[list];
	uint32_t i;

	for (i = 0; i < l->n_blocks; i++)
		if (q->bk[l->first_block + i].addr)
			return heaps_hold(q, s, q->bk[l->first_block + i].addr);
	return false;
}

bool chq_same_jvm(const struct chq *q, uint32_t a, uint32_t b)
{
	const struct chq_snapshot *x = &q->sn[a], *y = &q->sn[b];
	int64_t pa, pb;
	uint32_t i, k;

	if (a == b)
		return true;
	if (snap_pid(q, a, &pa) && snap_pid(q, b, &pb) && pa != pb)
		return false;
	if (!x->n_heaps && !y->n_heaps) {
		if (snap_pid(q, a, &pa) && snap_pid(q, b, &pb))
			return true; /* equal, from above */
		/* a's first method in b, at its address with its compile
		 * id: linear, code lists hold thousands */
		for (i = 0; i < x->n_blocks && !q->bk[x->first_block + i].addr;
		     i++)
			;
		for (k = 0; i < x->n_blocks && k < y->n_blocks; k++) {
			const struct chq_block *p = &q->bk[x->first_block + i];
			const struct chq_block *r = &q->bk[y->first_block + k];

			if (p->addr == r->addr &&
			    p->compile_id == r->compile_id)
				return true;
		}
		return false;
	}
	if (!x->n_heaps)
		return list_inside(q, a, b);
	if (!y->n_heaps)
		return list_inside(q, b, a);
	for (i = 0; i < x->n_heaps; i++)
		for (k = 0; k < y->n_heaps; k++) {
			uint64_t la = q->hp[x->first_heap + i].low;

			if (la && la == q->hp[y->first_heap + k].low)
				return true;
		}
	return false;
}

/* What snapshot s's own wording says of the numbering. */
static enum chq_numbering dated(const struct chq *q, uint32_t s)
{
	int64_t v;

	if (chq_snapshot_stat(q, s, "jdk.min", &v) && v >= 23)
		return CHQ_NUM_JDK23;
	if (chq_snapshot_stat(q, s, "jdk.max", &v) && v <= 22)
		return CHQ_NUM_JDK17;
	return CHQ_NUM_UNKNOWN;
}

enum chq_numbering chq_codelist_numbering(const struct chq *q, uint32_t snap,
					  uint32_t *why)
{
	const struct chq_snapshot *l = &q->sn[snap];
	enum chq_numbering n;
	uint32_t i;

	if (why)
		*why = UINT32_MAX;
	for (i = 0; i < l->n_blocks; i++)
		if (q->bk[l->first_block + i].state >= 2) {
			if (why)
				*why = snap;
			return CHQ_NUM_JDK17;
		}
	for (i = 0; i < q->n_sn; i++) {
		if (i == snap || (n = dated(q, i)) == CHQ_NUM_UNKNOWN ||
		    !chq_same_jvm(q, snap, i))
			continue;
		if (why)
			*why = i;
		return n;
	}
	return CHQ_NUM_UNKNOWN;
}

enum chq_nm_state chq_nm_state(enum chq_numbering n, int state)
{
	if (state == 0)
		return CHQ_NM_IN_USE;
	if (state == 1)
		return n == CHQ_NUM_JDK17   ? CHQ_NM_NOT_USED
		       : n == CHQ_NUM_JDK23 ? CHQ_NM_NOT_ENTRANT
					    : CHQ_NM_STATE1;
	if (state == 2 && n != CHQ_NUM_JDK23)
		return CHQ_NM_NOT_ENTRANT;
	return CHQ_NM_OTHER;
}

const char *chq_nm_state_name(enum chq_nm_state s)
{
	static const char *const names[CHQ_NM__COUNT] = {
		"in use", "not used", "not entrant",
		"not used (JDK 17-22) or not entrant (23+)", "unknown"};

	return s < CHQ_NM__COUNT ? names[s] : "unknown";
}
