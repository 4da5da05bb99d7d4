/*
 * The Allocations view: the filtered samples grouped by class, site,
 * app-site, thread or recording, each row with its estimated bytes,
 * share, samples (and the rough error they allow) and a bar.  Enter
 * drills into a row: a query with the row's key as a filter, shown as
 * its heaviest call paths, and its classes, sites and threads.  Esc
 * steps back out.  Rows are the query's (keys borrowed from it) and are
 * recomputed only when the grouping or the model changes; sorting and
 * the \ filter reorder and hide an index, never the query.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/xalloc.h"

enum sort_by { SORT_BYTES, SORT_SAMPLES, SORT_NAME };

struct arow {
	const char *key; /* borrowed (query) or owned (drill rows) */
	uint64_t samples;
	int64_t est_bytes;
	double share;
	double rel_err; /* query_row's; NaN: none */
	bool biased;	/* query_row's bias: the ± understates the error */
	bool header;	/* a section title in a drill-down */
};

struct drill {
	char *key;
	enum query_group by;
	struct query *q; /* owned */
	unsigned gen;
	struct arow *rows; /* keys owned */
	size_t n;
	struct query_total total;
	struct list list;
};

/* One grouping's rows, kept while the model's generation holds: going
 * back to a grouping seen before costs nothing. */
struct group_cache {
	struct arow *rows; /* keys borrowed from the model's query */
	size_t n;
	struct query_total total;
	unsigned gen;
	bool valid;
};

struct alloc {
	unsigned gen;
	bool valid;
	enum query_group by;
	enum sort_by sort;
	struct group_cache cache[GROUP_RECORDING + 1];
	struct arow *rows; /* cache[by]'s */
	size_t n;
	size_t *vis; /* rows shown, in order */
	size_t n_vis;
	struct query_total total;
	struct list list;
	struct rx_user *filter;
	char filter_text[256];
	struct drill *drill;
	/* against the baseline (model_diff()): a copy of the diff's rows
	 * (the tree views ask the same diff for theirs) */
	struct diff_table *dt;
	unsigned dgen;
	enum query_group dby;
	bool dvalid;
	struct list dlist;
};

static void *al_new(struct tui *t)
{
	struct alloc *a = xcalloc(1, sizeof(*a));

	(void)t;
	a->by = GROUP_SITE;
	return a;
}

static void drill_free(struct drill *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++)
		free((char *)d->rows[i].key);
	free(d->rows);
	query_free(d->q);
	free(d->key);
	free(d);
}

static void al_free(void *st)
{
	struct alloc *a = st;
	size_t g;

	drill_free(a->drill);
	rx_user_free(a->filter);
	for (g = 0; g <= GROUP_RECORDING; g++)
		free(a->cache[g].rows);
	free(a->vis);
	free(a->dt);
	free(a);
}

static const struct arow *sort_rows;
static enum sort_by sort_key;

static int vis_cmp(const void *x, const void *y)
{
	const struct arow *a = &sort_rows[*(const size_t *)x],
			  *b = &sort_rows[*(const size_t *)y];

	switch (sort_key) {
	case SORT_SAMPLES:
		if (a->samples != b->samples)
			return a->samples < b->samples ? 1 : -1;
		break;
	case SORT_NAME:
		return strcmp(a->key, b->key);
	default:
		break;
	}
	if (a->est_bytes != b->est_bytes)
		return a->est_bytes < b->est_bytes ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* The shown rows: filtered, then sorted. */
static void rebuild_vis(struct alloc *a)
{
	size_t i;
	const char *cur_key = a->n_vis && a->list.cur < a->n_vis
				      ? a->rows[a->vis[a->list.cur]].key
				      : NULL;

	a->vis = xreallocarray(a->vis, a->n ? a->n : 1, sizeof(*a->vis));
	a->n_vis = 0;
	for (i = 0; i < a->n; i++)
		if (!a->filter || rx_user_match(a->filter, a->rows[i].key))
			a->vis[a->n_vis++] = i;
	if (a->sort != SORT_BYTES) {
		sort_rows = a->rows;
		sort_key = a->sort;
		qsort(a->vis, a->n_vis, sizeof(*a->vis), vis_cmp);
	}
	a->list.n = a->n_vis;
	/* the cursor stays on its row when it is still shown */
	a->list.cur = 0;
	for (i = 0; cur_key && i < a->n_vis; i++)
		if (a->rows[a->vis[i]].key == cur_key)
			a->list.cur = i;
}

static void ensure(struct tui *t, struct alloc *a)
{
	struct group_cache *c = &a->cache[a->by];
	const struct query_row *rows;
	struct query *q;
	size_t n, i;
	struct err e;

	if (a->valid && a->gen == t->m.gen)
		return;
	a->valid = true;
	a->gen = t->m.gen;
	a->n_vis = 0;
	if (!c->valid || c->gen != t->m.gen) {
		c->valid = true;
		c->gen = t->m.gen;
		c->n = 0;
		err_init(&e);
		q = model_query(&t->m, &e);
		if (!q || query_top(q, a->by, &rows, &n, &c->total, &e) < 0) {
			tui_message(t, true, "cannot group the samples: %s",
				    e.msg);
			memset(&c->total, 0, sizeof(c->total));
			n = 0;
		}
		c->rows = xreallocarray(c->rows, n ? n : 1, sizeof(*c->rows));
		for (i = 0; i < n; i++) {
			c->rows[i].key = rows[i].key;
			c->rows[i].samples = rows[i].samples;
			c->rows[i].est_bytes = rows[i].est_bytes;
			c->rows[i].share = rows[i].share;
			c->rows[i].rel_err = rows[i].rel_err;
			c->rows[i].biased = rows[i].bias != QUERY_BIAS_NONE;
			c->rows[i].header = false;
		}
		c->n = n;
	}
	a->rows = c->rows;
	a->n = c->n;
	a->total = c->total;
	rebuild_vis(a);
}

/* --- drilling down ----------------------------------------------------------- */

static void drill_add(struct drill *d, size_t *alloc, const char *key,
		      uint64_t samples, int64_t bytes, double share,
		      bool header)
{
	if (d->n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 32;
		d->rows = xreallocarray(d->rows, *alloc, sizeof(*d->rows));
	}
	d->rows[d->n].key = xstrdup(key);
	d->rows[d->n].samples = samples;
	d->rows[d->n].est_bytes = bytes;
	d->rows[d->n].share = share;
	/* the caller sets the ± of paths and regroupings */
	d->rows[d->n].rel_err = NAN;
	d->rows[d->n].biased = false;
	d->rows[d->n].header = header;
	d->n++;
}

#define DRILL_PATHS 20
#define DRILL_TOP   10

/* The drill-down's rows: call paths (the stacks that end in samples,
 * heaviest first, from the allocating frame out), then the groupings
 * other than the one drilled into. */
static void drill_build(struct tui *t, struct drill *d)
{
	static const enum query_group groups[] = {GROUP_CLASS, GROUP_SITE,
						  GROUP_THREAD};
	const struct query_path *paths;
	const struct query_row *rows;
	size_t n, n_all, i, alloc = 0, g;
	struct err e;
	double all;

	err_init(&e);
	if (query_paths(d->q, DRILL_PATHS, &paths, &n, &n_all, &d->total, &e) <
	    0) {
		tui_message(t, true, "cannot find the call paths: %s", e.msg);
		return;
	}
	/* shares by bytes, or by samples where the kind has no sizes */
	all = d->total.est_bytes ? (double)d->total.est_bytes
				 : (double)d->total.samples;
	drill_add(d, &alloc, "Call paths (allocating frame < callers)", 0, 0, 0,
		  true);
	for (i = 0; i < n; i++) {
		const char *f[256];
		size_t k, nf = query_path_frames(d->q, paths[i].stack, f, 256);
		char *p = NULL;
		size_t len = 0, cap = 0;

		for (k = 0; k < nf && k < 256; k++) {
			size_t l = strlen(f[k]);

			if (len + l + 4 > cap) {
				cap = (len + l + 4) * 2;
				p = xrealloc(p, cap);
			}
			if (len) {
				memcpy(p + len, " < ", 3);
				len += 3;
			}
			memcpy(p + len, f[k], l);
			len += l;
			p[len] = '\0';
		}
		drill_add(d, &alloc, p ? p : "(no stack)", paths[i].samples,
			  paths[i].est_bytes,
			  all ? (d->total.est_bytes
					 ? (double)paths[i].est_bytes
					 : (double)paths[i].samples) /
					  all
			      : 0,
			  false);
		d->rows[d->n - 1].rel_err = paths[i].rel_err;
		free(p);
	}
	if (n_all > n) {
		char b[64];

		snprintf(b, sizeof(b), "(%zu more paths)", n_all - n);
		drill_add(d, &alloc, b, 0, 0, 0, true);
	}
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		struct query_total tt;
		char title[64];

		if (groups[g] == d->by ||
		    (groups[g] == GROUP_SITE && d->by == GROUP_APP_SITE))
			continue;
		if (query_top(d->q, groups[g], &rows, &n, &tt, &e) < 0)
			continue;
		snprintf(title, sizeof(title), "%ss (%zu)",
			 groups[g] == GROUP_CLASS  ? "Classe"
			 : groups[g] == GROUP_SITE ? "Site"
						   : "Thread",
			 n);
		drill_add(d, &alloc, title, 0, 0, 0, true);
		for (i = 0; i < n && i < DRILL_TOP; i++) {
			drill_add(d, &alloc, rows[i].key, rows[i].samples,
				  rows[i].est_bytes, rows[i].share, false);
			d->rows[d->n - 1].rel_err = rows[i].rel_err;
			d->rows[d->n - 1].biased =
				rows[i].bias != QUERY_BIAS_NONE;
		}
	}
}

static void drill_open(struct tui *t, struct alloc *a)
{
	struct query_options o;
	struct drill *d;
	struct err e;
	const struct arow *r;

	if (!a->n_vis)
		return;
	r = &a->rows[a->vis[a->list.cur]];
	d = xcalloc(1, sizeof(*d));
	d->key = xstrdup(r->key);
	d->by = a->by;
	query_options_init(&o);
	o.key = d->key;
	o.key_by = (int)a->by;
	err_init(&e);
	if (model_open_query(&t->m, &o, &d->q, &e) < 0) {
		tui_message(t, true, "cannot drill down: %s", e.msg);
		drill_free(d);
		return;
	}
	d->gen = t->m.gen;
	drill_build(t, d);
	/* on the first call path, not its section's title */
	d->list.cur = d->n > 1 ? 1 : 0;
	a->drill = d;
}

/* --- against the baseline ---------------------------------------------------- */

static bool diff_mode(const struct tui *t, const struct alloc *a)
{
	return t->m.base_on && !a->drill;
}

static void diff_ensure(struct tui *t, struct alloc *a)
{
	const struct diff_table *dt;
	struct diff *d;
	struct err e;

	if (a->dvalid && a->dgen == t->m.gen && a->dby == a->by)
		return;
	a->dvalid = true;
	a->dgen = t->m.gen;
	a->dby = a->by;
	free(a->dt);
	a->dt = NULL;
	err_init(&e);
	d = model_diff(&t->m, &e);
	if (!d || diff_top(d, a->by, &dt, &e) < 0)
		tui_message(t, true, "cannot compare with the baseline: %s",
			    e.msg);
	else
		a->dt = diff_table_dup(dt);
	a->dlist.n = a->dt ? a->dt->n_rows : 0;
	if (a->dlist.cur >= a->dlist.n)
		a->dlist.cur = a->dlist.top = 0;
}

static void diff_draw(struct tui *t, struct alloc *a, const struct area *ar)
{
	int h = ar->height - 1, i, x;
	const struct diff_table *dt;

	diff_ensure(t, a);
	dt = a->dt;
	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	x = screen_putf(ar->top, 0, ar->width, ST_HEADER,
			"%10s %10s %11s %6s %6s %-6s ",
			dt && dt->per_second ? "BASE/s" : "BASE",
			dt && dt->per_second ? "NEW/s" : "NEW", "CHANGE",
			"N_BASE", "N_NEW", "");
	screen_put(ar->top, x, ar->width - x, ST_HEADER,
		   query_group_name(a->by));
	if (!dt || !dt->n_rows) {
		screen_put(ar->top + 2, 2, ar->width - 2, ST_DIM,
			   "no samples of this kind on either side");
		return;
	}
	list_fix(&a->dlist, h);
	for (i = 0; i < h && a->dlist.top + (size_t)i < dt->n_rows; i++) {
		size_t k = a->dlist.top + (size_t)i;
		const struct diff_row *r = &dt->rows[k];
		bool cur = k == a->dlist.cur;
		enum style st = (enum style)tui_diff_style(r, cur);
		char nm[1024];
		int y = ar->top + 1 + i, nw;

		if (cur)
			screen_fill(y, 0, ar->width, ST_CURSOR);
		x = tui_diff_cells(y, 0, ar->width, st, r, false, true);
		nw = ar->width - x;
		if (nw > 0)
			screen_put(y, x, nw, st,
				   names_shorten(r->key, (size_t)nw,
						 scr.ellipsis, nm, sizeof(nm)));
	}
	{
		const struct diff_row *r = &dt->rows[a->dlist.cur];

		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%zu/%zu %s q %.2g %s %zu beyond noise %s %s",
			    a->dlist.cur + 1, dt->n_rows, scr.vline, r->q,
			    scr.vline, dt->n_changed, scr.vline, r->key);
	}
}

/* --- drawing --------------------------------------------------------------- */

static int bar_width(int width)
{
	return width >= 200 ? 30 : width >= 120 ? 20 : 10;
}

static void draw_row(const struct area *ar, int y, const struct arow *r,
		     bool cur, double max_share)
{
	char b[32], nm[1024];
	int x = 0, bw = bar_width(ar->width), nw;
	enum style st = cur ? ST_CURSOR : ST_NORMAL;
	bool err_col = ar->width >= 100;

	if (r->header) {
		screen_put(y, 1, ar->width - 1, cur ? ST_CURSOR : ST_HEADER,
			   r->key);
		return;
	}
	if (cur)
		screen_fill(y, 0, ar->width, ST_CURSOR);
	x += screen_putf(y, x, 11, st, "%10s ",
			 human_bytes(r->est_bytes, b, sizeof(b)));
	x += screen_putf(y, x, 7, st, "%5.1f%% ", r->share * 100.0);
	x += screen_putf(y, x, 10, st, "%9llu ",
			 (unsigned long long)r->samples);
	if (err_col) {
		if (isnan(r->rel_err))
			x += screen_putf(y, x, 7, st, "%6s ", "-");
		else
			x += screen_putf(y, x, 7, st, "%5.*f%%%s",
					 r->rel_err * 100.0 < 9.95 ? 1 : 0,
					 r->rel_err * 100.0,
					 r->biased ? "!" : " ");
	}
	screen_bar(y, x, bw, max_share > 0 ? r->share / max_share : 0,
		   cur ? ST_CURSOR : ST_BAR);
	x += bw + 1;
	nw = ar->width - x;
	if (nw > 0)
		screen_put(y, x, nw, st,
			   names_shorten(r->key, (size_t)nw, scr.ellipsis, nm,
					 sizeof(nm)));
}

static void draw_header(const struct area *ar, const char *keyname)
{
	int x = 0, bw = bar_width(ar->width);

	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	x += screen_putf(ar->top, x, 11, ST_HEADER, "%10s ", "EST BYTES");
	x += screen_putf(ar->top, x, 7, ST_HEADER, "%6s ", "SHARE");
	x += screen_putf(ar->top, x, 10, ST_HEADER, "%9s ", "SAMPLES");
	if (ar->width >= 100)
		x += screen_putf(ar->top, x, 7, ST_HEADER, "%6s ", "+-ERR");
	x += bw + 1;
	screen_put(ar->top, x, ar->width - x, ST_HEADER, keyname);
}

static void al_draw(struct tui *t, void *st, const struct area *ar)
{
	struct alloc *a = st;
	int h = ar->height - 1, i;
	char b[32];

	if (diff_mode(t, a)) {
		diff_draw(t, a, ar);
		return;
	}
	ensure(t, a);
	if (a->drill && a->drill->gen != t->m.gen) {
		/* the range or kind changed under the drill-down: redo it */
		char *key = xstrdup(a->drill->key);
		size_t k;

		drill_free(a->drill);
		a->drill = NULL;
		for (k = 0; k < a->n_vis; k++)
			if (!strcmp(a->rows[a->vis[k]].key, key))
				a->list.cur = k;
		if (a->n_vis && !strcmp(a->rows[a->vis[a->list.cur]].key, key))
			drill_open(t, a);
		free(key);
	}
	if (a->drill) {
		struct drill *d = a->drill;
		struct list *l = &d->list;
		double max = 0;
		size_t k;

		for (k = 0; k < d->n; k++)
			if (!d->rows[k].header && d->rows[k].share > max)
				max = d->rows[k].share;
		draw_header(ar, "call path, class, site or thread");
		l->n = d->n;
		list_fix(l, h);
		for (i = 0; i < h && l->top + (size_t)i < d->n; i++)
			draw_row(ar, ar->top + 1 + i,
				 &d->rows[l->top + (size_t)i],
				 l->top + (size_t)i == l->cur, max);
		if (d->n)
			screen_put(ar->detail, 0, ar->width, ST_DIM,
				   d->rows[l->cur].key);
		return;
	}
	draw_header(ar, query_group_name(a->by));
	a->list.n = a->n_vis;
	list_fix(&a->list, h);
	for (i = 0; i < h && a->list.top + (size_t)i < a->n_vis; i++)
		draw_row(ar, ar->top + 1 + i,
			 &a->rows[a->vis[a->list.top + (size_t)i]],
			 a->list.top + (size_t)i == a->list.cur,
			 a->n ? a->rows[0].share : 0);
	if (!a->n_vis) {
		screen_put(ar->top + 2, 2, ar->width - 2, ST_DIM,
			   a->n ? "no row matches the filter (\\ and Enter "
				  "clears it)"
				: "no samples of this kind in the time range");
		return;
	}
	screen_putf(ar->detail, 0, ar->width, ST_DIM, "%zu/%zu %s %s",
		    a->list.cur + 1, a->n_vis, scr.vline,
		    a->rows[a->vis[a->list.cur]].key);
	(void)b;
}

/* --- keys ------------------------------------------------------------------- */

static bool al_act(struct tui *t, void *st, enum action act,
		   const struct area *ar)
{
	struct alloc *a = st;
	int h = ar->height - 1;

	if (diff_mode(t, a)) {
		diff_ensure(t, a);
		if (list_act(&a->dlist, act, h))
			return true;
		if (act == ACT_GROUP || act == ACT_GROUP_BACK) {
			a->by = (enum query_group)(
				(a->by + (act == ACT_GROUP ? 1 : 4)) % 5);
			a->valid = false;
			a->dlist.cur = a->dlist.top = 0;
			return true;
		}
		if (act == ACT_ENTER) {
			tui_message(t, false,
				    "B turns the baseline off to drill down");
			return true;
		}
		return false;
	}
	ensure(t, a);
	if (a->drill) {
		struct drill *d = a->drill;

		if (act == ACT_BACK) {
			drill_free(d);
			a->drill = NULL;
			return true;
		}
		d->list.n = d->n;
		return list_act(&d->list, act, h);
	}
	if (list_act(&a->list, act, h))
		return true;
	switch (act) {
	case ACT_ENTER:
		drill_open(t, a);
		return true;
	case ACT_GROUP:
	case ACT_GROUP_BACK:
		a->by = (enum query_group)(
			(a->by + (act == ACT_GROUP ? 1 : 4)) % 5);
		a->valid = false;
		a->list.cur = a->list.top = 0;
		a->n_vis = 0;
		return true;
	case ACT_SORT_BYTES:
	case ACT_SORT_SAMPLES:
	case ACT_SORT_NAME:
		a->sort = act == ACT_SORT_BYTES	    ? SORT_BYTES
			  : act == ACT_SORT_SAMPLES ? SORT_SAMPLES
						    : SORT_NAME;
		rebuild_vis(a);
		list_fix(&a->list, h);
		return true;
	case ACT_BACK:
		if (a->filter) {
			rx_user_free(a->filter);
			a->filter = NULL;
			rebuild_vis(a);
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void al_status(struct tui *t, void *st, char *out, size_t size)
{
	struct alloc *a = st;
	static const char *const sorts[] = {"bytes", "samples", "name"};

	if (diff_mode(t, a))
		/* one estimate on both sides (docs/diff.md): which, last */
		snprintf(out, size, "by %s against the baseline, per second%s",
			 query_group_name(a->by),
			 !a->dt || a->dt->estimate < 0 ? ""
			 : a->dt->estimate == QUERY_EST_CORRECTED
				 ? ", corrected on both sides"
				 : ", JFR weights on both sides");
	else if (a->drill)
		snprintf(out, size, "%s = %s (Esc: back)",
			 query_group_name(a->drill->by), a->drill->key);
	else {
		struct err e;
		struct query *q;
		const char *est = "";

		err_init(&e);
		q = model_query(&t->m, &e);
		if (q && query_kind(q) == SAMPLE_ALLOC)
			est = query_estimate(q) == QUERY_EST_CORRECTED
				      ? ", corrected (W)"
				      : ", JFR weights (W)";
		/* the estimate last: a narrow screen cuts it first */
		snprintf(out, size, "by %s, sort %s%s%s%s",
			 query_group_name(a->by), sorts[a->sort],
			 a->filter ? ", filter \\" : "",
			 a->filter ? a->filter_text : "", est);
	}
}

static bool al_search(struct tui *t, void *st, const struct rx_user *re,
		      int dir)
{
	struct alloc *a = st;
	size_t n, i, start;
	struct list *l;
	const struct arow *rows;

	ensure(t, a);
	if (a->drill) {
		l = &a->drill->list;
		n = a->drill->n;
		rows = a->drill->rows;
	} else {
		l = &a->list;
		n = a->n_vis;
		rows = NULL;
	}
	if (!n)
		return false;
	start = l->cur;
	for (i = dir ? 1 : 0; i <= n; i++) {
		size_t k = dir >= 0 ? (start + i) % n : (start + n - i % n) % n;
		const struct arow *r = rows ? &rows[k] : &a->rows[a->vis[k]];

		if (!r->header && rx_user_match(re, r->key)) {
			l->cur = k;
			l->n = n;
			return true;
		}
	}
	return false;
}

static void al_filter(struct tui *t, void *st, const struct rx_user *re,
		      const char *pattern)
{
	struct alloc *a = st;

	ensure(t, a);
	rx_user_free(a->filter);
	a->filter = NULL;
	if (re) {
		struct err e;

		a->filter = rx_user_new(pattern, &e);
		snprintf(a->filter_text, sizeof(a->filter_text), "%s", pattern);
	}
	rebuild_vis(a);
	if (a->filter)
		tui_message(t, false, "%zu of %zu rows match \\%s", a->n_vis,
			    a->n, pattern);
}

static void al_click(struct tui *t, void *st, const struct area *ar, int y,
		     int x, bool twice)
{
	struct alloc *a = st;
	struct list *l = a->drill ? &a->drill->list : &a->list;

	(void)x;

	if (y < 1)
		return;
	if (l->top + (size_t)(y - 1) < l->n) {
		l->cur = l->top + (size_t)(y - 1);
		if (twice && !a->drill)
			al_act(t, st, ACT_ENTER, ar);
	}
}

const struct tui_view_ops view_alloc = {
	.name = "Allocations",
	.short_name = "Alloc",
	.new = al_new,
	.free = al_free,
	.draw = al_draw,
	.act = al_act,
	.status = al_status,
	.search = al_search,
	.filter = al_filter,
	.click = al_click,
};
