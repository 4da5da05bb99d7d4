/*
 * The Code heaps view: every heap of every code-heap snapshot in the
 * store (HotSpot analytics reports, codecache summaries, javacore
 * segments) with its facts; Enter opens a heap's granule map, one cell
 * per granule (or per run of granules, zoomed out), drawn in the chosen
 * flavour and coloured by value.  The cursor's granule is described on
 * the detail line, and the blocks and methods in it listed below the
 * map.  Everything comes from src/query/query_codeheap.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_codeheap.h"
#include "tui/list.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/xalloc.h"

#define ADDR_W 20 /* "0x00007f7da8ec7000 " */

struct chview {
	bool opened;
	struct chq *q;
	char why[256];
	uint32_t *rows; /* heap indices, the filter applied */
	size_t n;
	bool filtered; /* by a filter (the \ key); Esc clears it */
	char filter_text[256];
	struct list list;
	/* the map of one heap */
	bool in_map;
	uint32_t heap;
	enum chq_flavour fl;
	uint32_t merge, fit; /* granules per cell; the merge that fits */
	uint8_t *cells;
	uint32_t n_cells;
	bool cells_valid;
	uint64_t cur; /* the cursor's cell */
	uint64_t top; /* first map line shown */
	int per_line; /* cells per map line, as last drawn */
	int map_rows; /* lines of map, as last drawn */
};

static void *ch_new(struct tui *t)
{
	struct chview *v = xcalloc(1, sizeof(*v));

	(void)t;
	v->fl = CHQ_SPACE;
	return v;
}

static void ch_free(void *st)
{
	struct chview *v = st;

	chq_free(v->q);
	free(v->rows);
	free(v->cells);
	free(v);
}

static const char *heap_name(const struct chview *v, uint32_t h)
{
	return chq_str(v->q, chq_heap(v->q, h)->name);
}

/* "CodeHeap 'profiled nmethods'" as "profiled nmethods": what tells
 * the heaps apart, for narrow columns (the detail line has it whole). */
static const char *short_name(const char *name, char *out, size_t size)
{
	size_t n = strlen(name);

	if (n > 11 && !strncmp(name, "CodeHeap '", 10) && name[n - 1] == '\'')
		snprintf(out, size, "%.*s", (int)(n - 11), name + 10);
	else
		snprintf(out, size, "%s", name);
	return out;
}

static void set_rows(struct chview *v, const struct rx_user *re)
{
	uint32_t h, n = chq_n_heaps(v->q);

	v->rows = xreallocarray(v->rows, n ? n : 1, sizeof(*v->rows));
	v->n = 0;
	for (h = 0; h < n; h++)
		if (!re || rx_user_match(re, heap_name(v, h)))
			v->rows[v->n++] = h;
	v->list.n = v->n;
	v->list.cur = v->list.top = 0;
}

static void ensure(struct tui *t, struct chview *v)
{
	struct err e;

	if (v->opened)
		return;
	v->opened = true;
	err_init(&e);
	if (chq_open(t->m.s, &v->q, &e) < 0) {
		snprintf(v->why, sizeof(v->why), "%.250s", e.msg);
		v->q = NULL;
		return;
	}
	if (!chq_n_heaps(v->q))
		snprintf(v->why, sizeof(v->why),
			 "no code-heap snapshots in this store: import a "
			 "CodeHeap_Analytics report, a codecache summary or a "
			 "javacore");
	set_rows(v, NULL);
}

static void fmt_bytes(int64_t n, char *out, size_t size)
{
	if (n == CHQ_UNKNOWN)
		snprintf(out, size, "?");
	else
		human_bytes(n, out, size);
}

/* --- the list of heaps ------------------------------------------------- */

static void draw_list(struct tui *t, struct chview *v, const struct area *a)
{
	int y, h = a->height - 1;
	size_t i;

	(void)t;
	bool kind = a->width >= 100; /* else the detail line says it */

	screen_fill(a->top, 0, a->width, ST_HEADER);
	screen_putf(a->top, 0, a->width, ST_HEADER,
		    "%4s %-*s%9s %9s %9s %9s %5s  %s", "SNAP", kind ? 10 : 0,
		    kind ? "KIND" : "", "SIZE", "USED", "FREE", "LARGEST",
		    "FRAG", "HEAP");
	list_fix(&v->list, h);
	for (y = 0, i = v->list.top; y < h && i < v->n; y++, i++) {
		uint32_t hp = v->rows[i];
		const struct chq_heap *x = chq_heap(v->q, hp);
		const struct chq_snapshot *sn = chq_snapshot(v->q, x->snapshot);
		struct ch_facts f;
		char c[16], u[16], fr[16], lf[16], fg[16];
		enum style st = i == v->list.cur ? ST_CURSOR : ST_NORMAL;

		chq_facts(v->q, hp, &f);
		/* used and free are parts of it: committed in a report,
		 * reserved in a summary (the detail line says which) */
		fmt_bytes(f.size, c, sizeof(c));
		fmt_bytes(f.used, u, sizeof(u));
		fmt_bytes(f.free, fr, sizeof(fr));
		fmt_bytes(f.largest_free, lf, sizeof(lf));
		if (isnan(f.fragmentation))
			snprintf(fg, sizeof(fg), "?");
		else
			snprintf(fg, sizeof(fg), "%.3f", f.fragmentation);
		/* "0.000": five columns */
		char nm[128];

		screen_fill(a->top + 1 + y, 0, a->width, st);
		screen_putf(
			a->top + 1 + y, 0, a->width, st,
			"%4u %-*s%9s %9s %9s %9s %5s  %s", x->snapshot,
			kind ? 10 : 0, kind ? chq_str(v->q, sn->kind) : "", c,
			u, fr, lf, fg,
			kind ? heap_name(v, hp)
			     : short_name(heap_name(v, hp), nm, sizeof(nm)));
	}
	if (v->n) {
		uint32_t hp = v->rows[v->list.cur];
		const struct chq_heap *x = chq_heap(v->q, hp);
		struct ch_facts f;

		chq_facts(v->q, hp, &f);
		screen_putf(
			a->detail, 0, a->width, ST_DIM,
			"%s, %s snapshot %u of %s line %" PRIu64
			"; SIZE is the %s size; Enter: the granule map",
			heap_name(v, hp),
			chq_str(v->q, chq_snapshot(v->q, x->snapshot)->kind),
			x->snapshot, chq_snapshot_source(v->q, x->snapshot),
			chq_snapshot(v->q, x->snapshot)->line, f.size_is);
	} else {
		screen_put(a->top + 2, 2, a->width - 2, ST_DIM,
			   "no heap matches the filter");
	}
}

/* --- the map ------------------------------------------------------------- */

static enum style cell_style(enum chq_flavour fl, uint8_t c)
{
	if (c == 0)
		return ST_DIM;
	switch (fl) {
	case CHQ_SPACE:
		return c >= CH_SPACE_FULL ? ST_SUSPECT
		       : c >= 6		  ? ST_BAR
					  : ST_BAR2;
	case CHQ_COUNT:
		return c >= CH_COUNT_MANY ? ST_SUSPECT
		       : c >= 4		  ? ST_BAR
					  : ST_BAR2;
	case CHQ_AGE: /* young code stands out */
		return c <= 3 ? ST_SUSPECT : c <= 6 ? ST_BAR : ST_BAR2;
	case CHQ_TIER:
		return c == CHQ_TIER_2	     ? ST_BAR
		       : c == CHQ_TIER_1     ? ST_BAR2
		       : c == CHQ_TIER_MIXED ? ST_SUSPECT
					     : ST_NORMAL;
	default:
		return c == CHB_NMETHOD_ACTIVE || c == CHB_NMETHOD ? ST_BAR
		       : c == CHB_NMETHOD_ZOMBIE || c == CHB_NMETHOD_UNLOADED ||
				       c == CHB_UNKNOWN
			       ? ST_SUSPECT
			       : ST_BAR2;
	}
}

static uint32_t map_len(struct chview *v)
{
	return chq_map_len(v->q, v->heap, v->fl);
}

/* The merge that shows the whole map in rows x per_line cells. */
static uint32_t fit_merge(uint32_t n, int rows, int per_line)
{
	uint64_t room = (uint64_t)(rows > 0 ? rows : 1) *
			(uint64_t)(per_line > 0 ? per_line : 1);

	return n <= room ? 1 : (uint32_t)((n + room - 1) / room);
}

static void load_cells(struct chview *v)
{
	uint32_t n = map_len(v);

	if (v->cells_valid)
		return;
	v->cells_valid = true;
	v->cells = xrealloc(v->cells, n ? n : 1);
	v->n_cells =
		n ? chq_map_merged(v->q, v->heap, v->fl, v->merge, v->cells, n)
		  : 0;
	if (v->cur >= v->n_cells)
		v->cur = v->n_cells ? v->n_cells - 1 : 0;
}

static const char *space_text(int c, char *out, size_t size)
{
	if (c <= 0)
		snprintf(out, size, "empty");
	else if (c >= CH_SPACE_FULL)
		snprintf(out, size, "full");
	else
		snprintf(out, size, "%d-%d%%", (c - 1) * 10, c * 10);
	return out;
}

static void draw_detail(struct chview *v, const struct area *a, int list_top,
			int list_rows)
{
	uint64_t g0 = v->cur * v->merge, g1 = g0 + v->merge - 1, bfirst = 0,
		 bend = 0;
	struct ch_granule gr, gl;
	char sp[24], line[256];
	int y;

	if (!chq_granule(v->q, v->heap, g0, &gr)) {
		screen_putf(a->detail, 0, a->width, ST_DIM, "cell %" PRIu64,
			    v->cur);
		return;
	}
	if (!chq_granule(v->q, v->heap, g1, &gl))
		gl = gr;
	if (v->merge == 1)
		snprintf(line, sizeof(line),
			 "granule %" PRIu64 " [0x%" PRIx64 ", 0x%" PRIx64
			 "): count %d, space %s, age %s, %s",
			 g0, gr.start, gr.end, gr.count < 0 ? 0 : gr.count,
			 gr.space < 0 ? "?"
				      : space_text(gr.space, sp, sizeof(sp)),
			 gr.age <= 0 ? "-"
				     : (char[2]){(char)('0' + gr.age - 1), 0},
			 gr.tier == CHQ_TIER_EMPTY  ? "no live code"
			 : gr.tier == CHQ_TIER_1    ? "tier 1"
			 : gr.tier == CHQ_TIER_2    ? "tier 2"
			 : gr.tier == CHQ_TIER_STUB ? "stubs"
						    : "mixed tiers");
	else
		snprintf(line, sizeof(line),
			 "granules %" PRIu64 "..%" PRIu64 " [0x%" PRIx64
			 ", 0x%" PRIx64 "): %s %c",
			 g0, g1, gr.start, gl.end, chq_flavour_name(v->fl),
			 chq_cell_char(v->fl, v->cells[v->cur]));
	screen_put(a->detail, 0, a->width, ST_NORMAL, line);
	bfirst = gr.first_block;
	bend = gl.first_block + gl.n_blocks;
	if (bend < bfirst)
		bend = bfirst;
	for (y = 0; y < list_rows; y++) {
		const struct chq_block *b;
		char sz[16];

		if (bfirst + (uint64_t)y >= bend) {
			if (y == 0)
				screen_put(list_top, 2, a->width - 2, ST_DIM,
					   "no block listed in this cell (the "
					   "report has no method names or free "
					   "list here)");
			break;
		}
		b = chq_sorted_block(v->q, v->heap, (uint32_t)(bfirst + y));
		if (!b)
			break;
		if (y == list_rows - 1 && bfirst + y + 1 < bend) {
			screen_putf(list_top + y, 2, a->width - 2, ST_DIM,
				    "... %" PRIu64 " more",
				    bend - bfirst - (uint64_t)y);
			break;
		}
		fmt_bytes(b->size, sz, sizeof(sz));
		screen_putf(list_top + y, 2, a->width - 2,
			    b->flags & CHQ_BLOCK_FREE ? ST_DIM : ST_NORMAL,
			    "0x%016" PRIx64 " %9s  %-18s %s %s", b->addr, sz,
			    b->flags & CHQ_BLOCK_FREE
				    ? "free"
				    : ch_block_type_name(
					      (enum ch_block_type)b->type),
			    chq_str(v->q, b->compiler), chq_str(v->q, b->name));
	}
}

static void draw_map(struct tui *t, struct chview *v, const struct area *a)
{
	const struct chq_heap *x = chq_heap(v->q, v->heap);
	int per_line = a->width - ADDR_W - 2, rows, list_rows, y;
	uint64_t lines, i;

	(void)t;
	if (per_line < 8)
		per_line = 8;
	/* a third of the area (at least 3 rows) lists the cell's blocks */
	list_rows = a->height / 3 < 3 ? 3 : a->height / 3;
	rows = a->height - 2 - list_rows;
	if (rows < 1) {
		rows = 1;
		list_rows = a->height - 3 > 0 ? a->height - 3 : 0;
	}
	if (per_line != v->per_line || rows != v->map_rows) {
		uint32_t fit = fit_merge(map_len(v), rows, per_line);

		/* a new size: the cursor stays on its granule */
		if (v->merge == v->fit || !v->merge) {
			v->cur = v->cur * (v->merge ? v->merge : 1) / fit;
			v->merge = fit;
		}
		v->fit = fit;
		v->per_line = per_line;
		v->map_rows = rows;
		v->cells_valid = false;
	}
	load_cells(v);
	screen_fill(a->top, 0, a->width, ST_HEADER);
	screen_putf(a->top, 0, a->width, ST_HEADER,
		    "%s: %s map, 1 cell = %u granule%s%s  (m: map, +/-: zoom, "
		    "Esc: heaps)",
		    heap_name(v, v->heap), chq_flavour_name(v->fl), v->merge,
		    v->merge == 1 ? "" : "s",
		    x->flags & CHQ_PLACEMENT_ESTIMATED
			    ? ", used total, placement unknown"
			    : "");
	if (!v->n_cells) {
		screen_putf(a->top + 2, 2, a->width - 2, ST_DIM,
			    "no %s map for this heap (m: another map)",
			    chq_flavour_name(v->fl));
		return;
	}
	lines = (v->n_cells + (uint64_t)per_line - 1) / (uint64_t)per_line;
	if (v->cur / (uint64_t)per_line < v->top)
		v->top = v->cur / (uint64_t)per_line;
	if (v->cur / (uint64_t)per_line >= v->top + (uint64_t)rows)
		v->top = v->cur / (uint64_t)per_line - (uint64_t)rows + 1;
	for (y = 0, i = v->top; y < rows && i < lines; y++, i++) {
		uint64_t c0 = i * (uint64_t)per_line, c;
		int col = ADDR_W;

		if (x->low && x->granule_size > 0)
			screen_putf(a->top + 1 + y, 0, ADDR_W, ST_DIM,
				    "0x%016" PRIx64,
				    x->low + c0 * v->merge *
						     (uint64_t)x->granule_size);
		else
			screen_putf(a->top + 1 + y, 0, ADDR_W, ST_DIM,
				    "%18" PRIu64, c0 * v->merge);
		for (c = c0; c < v->n_cells && c < c0 + (uint64_t)per_line;
		     c++, col++) {
			char s[2] = {chq_cell_char(v->fl, v->cells[c]), 0};

			if (s[0] == ' ')
				s[0] = scr.utf8 ? ' ' : '.';
			screen_put(a->top + 1 + y, col, 1,
				   c == v->cur ? ST_CURSOR
					       : cell_style(v->fl, v->cells[c]),
				   s);
		}
	}
	draw_detail(v, a, a->top + 2 + rows, list_rows);
}

static void ch_draw(struct tui *t, void *st, const struct area *a)
{
	struct chview *v = st;

	ensure(t, v);
	if (!v->q || !chq_n_heaps(v->q)) {
		screen_put(a->top + 1, 2, a->width - 2, ST_DIM, v->why);
		return;
	}
	if (v->in_map)
		draw_map(t, v, a);
	else
		draw_list(t, v, a);
}

static void zoom(struct chview *v, bool in)
{
	uint64_t g = v->cur * v->merge;
	uint32_t n = map_len(v);

	/* not laid out yet (the map was entered and keys came before a
	 * draw): the first draw fits the map, nothing to zoom from */
	if (!v->merge)
		return;
	if (in && v->merge > 1)
		v->merge /= 2;
	else if (!in && v->merge < n)
		v->merge = v->merge * 2 > n ? n : v->merge * 2;
	else
		return;
	v->cur = g / v->merge; /* the same granule stays under the cursor */
	v->cells_valid = false;
}

static bool map_act(struct chview *v, enum action act)
{
	int64_t per = v->per_line > 0 ? v->per_line : 1;
	int64_t cur = (int64_t)v->cur, n = (int64_t)v->n_cells;

	switch (act) {
	case ACT_LEFT:
		cur--;
		break;
	case ACT_RIGHT:
		cur++;
		break;
	case ACT_UP:
		cur -= per;
		break;
	case ACT_DOWN:
		cur += per;
		break;
	case ACT_PGUP:
		cur -= per * (v->map_rows > 1 ? v->map_rows - 1 : 1);
		break;
	case ACT_PGDN:
		cur += per * (v->map_rows > 1 ? v->map_rows - 1 : 1);
		break;
	case ACT_HOME:
		cur = 0;
		break;
	case ACT_END:
		cur = n - 1;
		break;
	case ACT_UNFOLD:
		zoom(v, true);
		return true;
	case ACT_FOLD:
		zoom(v, false);
		return true;
	case ACT_GROUP:
		v->fl = (enum chq_flavour)((v->fl + 1) % CHQ__FLAVOURS);
		v->cells_valid = false;
		v->per_line = 0; /* refit: the maps' lengths may differ */
		return true;
	case ACT_BACK:
		v->in_map = false;
		return true;
	default:
		return false;
	}
	if (cur < 0)
		cur = 0;
	if (cur >= n)
		cur = n ? n - 1 : 0;
	v->cur = (uint64_t)cur;
	return true;
}

static bool ch_act(struct tui *t, void *st, enum action act,
		   const struct area *a)
{
	struct chview *v = st;

	ensure(t, v);
	/* before the emptiness test: a filter that hides every heap must
	 * still be cleared by Esc, as in the other views */
	if (!v->in_map && act == ACT_BACK && v->filtered && v->q) {
		v->filtered = false;
		set_rows(v, NULL);
		return true;
	}
	if (!v->q || !v->n)
		return false;
	if (v->in_map)
		return map_act(v, act);
	if (act == ACT_ENTER || act == ACT_RIGHT) {
		v->in_map = true;
		v->heap = v->rows[v->list.cur];
		v->cur = v->top = 0;
		v->merge = v->fit = 0;
		v->per_line = 0;
		v->cells_valid = false;
		return true;
	}
	if (act == ACT_GROUP) {
		v->fl = (enum chq_flavour)((v->fl + 1) % CHQ__FLAVOURS);
		return true;
	}
	return list_act(&v->list, act, a->height - 1);
}

static void ch_status(struct tui *t, void *st, char *out, size_t size)
{
	struct chview *v = st;

	(void)t;
	if (v->in_map && v->q)
		snprintf(out, size,
			 "Code heaps: %s, %s map, %u granule%s a cell",
			 heap_name(v, v->heap), chq_flavour_name(v->fl),
			 v->merge, v->merge == 1 ? "" : "s");
	else if (v->q && !chq_n_heaps(v->q))
		snprintf(out, size, "Code heaps: none in this store");
	else if (v->q)
		snprintf(out, size,
			 "Code heaps: %zu of %u heaps, %u snapshots%s%s", v->n,
			 chq_n_heaps(v->q), chq_n_snapshots(v->q),
			 v->filtered ? ", filter \\" : "",
			 v->filtered ? v->filter_text : "");
	else
		snprintf(out, size, "Code heaps");
}

/* In the list: the next heap whose name matches; in a map: the next
 * cell with a block whose name matches (a method, a stub). */
static bool ch_search(struct tui *t, void *st, const struct rx_user *re,
		      int dir)
{
	struct chview *v = st;

	ensure(t, v);
	if (!v->q || !v->n)
		return false;
	if (!v->in_map) {
		size_t i, n = v->n;

		/* dir 0: from the cursor's row on, as a new search starts */
		for (i = dir ? 1 : 0; i <= n; i++) {
			size_t k = (v->list.cur + (dir >= 0 ? i : n - i)) % n;

			if (rx_user_match(re, heap_name(v, v->rows[k]))) {
				v->list.cur = k;
				return true;
			}
		}
		return false;
	} else {
		const struct chq_heap *x = chq_heap(v->q, v->heap);
		uint32_t k, nb = chq_n_sorted_blocks(v->q, v->heap);
		uint64_t best = UINT64_MAX;

		if (!x->low || x->granule_size <= 0 || !v->merge)
			return false;
		for (k = 0; k < nb; k++) {
			const struct chq_block *b =
				chq_sorted_block(v->q, v->heap, k);
			uint64_t g, c;

			if (!b || b->addr < x->low ||
			    !rx_user_match(re, chq_str(v->q, b->name)))
				continue;
			g = (b->addr - x->low) / (uint64_t)x->granule_size;
			c = g / v->merge;
			if (c >= v->n_cells)
				continue;
			if (dir > 0    ? c > v->cur
			    : dir == 0 ? c >= v->cur
				       : c < v->cur) {
				if (best == UINT64_MAX ||
				    (dir >= 0 ? c < best : c > best))
					best = c;
			}
		}
		if (best == UINT64_MAX)
			return false;
		v->cur = best;
		return true;
	}
}

static void ch_filter(struct tui *t, void *st, const struct rx_user *re,
		      const char *pattern)
{
	struct chview *v = st;

	ensure(t, v);
	if (!v->q)
		return;
	v->in_map = false;
	v->filtered = re != NULL;
	snprintf(v->filter_text, sizeof(v->filter_text), "%s",
		 re ? pattern : "");
	set_rows(v, re);
}

static void ch_click(struct tui *t, void *st, const struct area *a, int y,
		     int x, bool twice)
{
	struct chview *v = st;

	ensure(t, v);
	if (!v->q || !v->n)
		return;
	if (!v->in_map) {
		size_t i = v->list.top + (size_t)(y - 1);

		if (y >= 1 && i < v->n) {
			v->list.cur = i;
			if (twice)
				ch_act(t, v, ACT_ENTER, a);
		}
		return;
	}
	if (y >= 1 && y <= v->map_rows && x >= ADDR_W &&
	    x < ADDR_W + v->per_line) {
		uint64_t c =
			(v->top + (uint64_t)(y - 1)) * (uint64_t)v->per_line +
			(uint64_t)(x - ADDR_W);

		if (c < v->n_cells)
			v->cur = c;
	}
}

const struct tui_view_ops view_codeheap = {
	.name = "Code heaps",
	.short_name = "Code",
	.new = ch_new,
	.free = ch_free,
	.draw = ch_draw,
	.act = ch_act,
	.status = ch_status,
	.search = ch_search,
	.filter = ch_filter,
	.click = ch_click,
};
