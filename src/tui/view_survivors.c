/*
 * The Survivors view: per site (or class, thread...; or by age and GC
 * cohorts) the estimated live bytes over time, from the samples whose
 * fate the store knows (heapsift agent samples; jdk.OldObjectSample).
 * Leak suspects come first, as the query ranks them, each with a trend
 * line; the selected key's live set is drawn below as a chart.  Its
 * query is its own (the kind with liveness, the model's time range) and
 * is redone only when the grouping, the cohorts or the model change.
 *
 * Against the baseline (docs/browse.md) the rows are diff_survivors()'s,
 * as `heapsift diff --survivors` shows them: per key the live bytes at
 * the end of each side, the change, the live samples behind them and
 * the verdict of the query layer's test (equal exposure), and each
 * side's peak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_chart.h"
#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/xalloc.h"

enum sv_sort { SV_RANK, SV_PEAK, SV_SAMPLES, SV_NAME };

struct survivors {
	unsigned gen;
	bool valid;
	enum query_group by;
	enum query_cohort cohort;
	enum sv_sort sort;
	struct query *q; /* owned */
	const struct query_survivors *sv;
	const struct query_survivor_series **rows; /* owned array */
	size_t n;
	struct list list;
	char why[256]; /* why there is nothing to show */
	double *buf;   /* a series as doubles, for the charts */
	/* against the baseline: a copy of diff_survivors()'s table */
	struct diff_table *dt;
	unsigned dgen;
	bool dvalid;
	enum query_group dby;
	struct list dlist;
	char dwhy[256];
};

static void *sv_new(struct tui *t)
{
	struct survivors *s = xcalloc(1, sizeof(*s));

	(void)t;
	s->by = GROUP_SITE;
	return s;
}

static void sv_free(void *st)
{
	struct survivors *s = st;

	query_free(s->q);
	free(s->rows);
	free(s->buf);
	free(s->dt);
	free(s);
}

/* The kind to ask: the model's when it has liveness, else agent, else
 * OldObjectSample; -1 when the store has neither. */
static int live_kind(struct model *m)
{
	int k = query_fate_kind(m->kind_counts);

	if (sample_kind_has_fate(m->kind))
		return m->kind;
	return k;
}

static enum sv_sort sort_by;

static int row_cmp(const void *x, const void *y)
{
	const struct query_survivor_series *a =
		*(const struct query_survivor_series *const *)x;
	const struct query_survivor_series *b =
		*(const struct query_survivor_series *const *)y;

	switch (sort_by) {
	case SV_PEAK:
		if (a->peak_bytes != b->peak_bytes)
			return a->peak_bytes < b->peak_bytes ? 1 : -1;
		if (a->peak_samples != b->peak_samples)
			return a->peak_samples < b->peak_samples ? 1 : -1;
		break;
	case SV_SAMPLES:
		if (a->samples != b->samples)
			return a->samples < b->samples ? 1 : -1;
		break;
	default:
		break;
	}
	return strcmp(a->key, b->key);
}

static void order(struct survivors *s)
{
	const struct query_survivor_series *const *ranked;
	size_t n = query_leak_suspects(s->q, &ranked);

	s->rows = xreallocarray(s->rows, n ? n : 1, sizeof(*s->rows));
	memcpy(s->rows, ranked, n * sizeof(*s->rows));
	s->n = n;
	if (s->sort != SV_RANK) {
		sort_by = s->sort;
		qsort(s->rows, n, sizeof(*s->rows), row_cmp);
	}
}

static void ensure(struct tui *t, struct survivors *s)
{
	struct query_options o;
	struct query_survivor_options so;
	struct err e;
	int kind;

	if (s->valid && s->gen == t->m.gen)
		return;
	s->valid = true;
	s->gen = t->m.gen;
	s->n = 0;
	s->sv = NULL;
	s->why[0] = '\0';
	query_free(s->q);
	s->q = NULL;
	kind = live_kind(&t->m);
	if (kind < 0) {
		snprintf(s->why, sizeof(s->why),
			 "no liveness in this store: survivors come from "
			 "heapsift agent recordings and jdk.OldObjectSample");
		return;
	}
	query_options_init(&o);
	o.kind = kind;
	err_init(&e);
	memset(&so, 0, sizeof(so));
	so.cohort = s->cohort;
	if (model_open_query(&t->m, &o, &s->q, &e) < 0 ||
	    query_survivors(s->q, s->by, &so, &s->sv, &e) < 0) {
		snprintf(s->why, sizeof(s->why), "%.250s", e.msg);
		s->sv = NULL;
		return;
	}
	order(s);
	s->buf = xreallocarray(s->buf, s->sv->n_buckets ? s->sv->n_buckets : 1,
			       sizeof(double));
	list_fix(&s->list, 1);
}

static void series_values(const struct survivors *s,
			  const struct query_survivor_series *x)
{
	size_t i;

	for (i = 0; i < s->sv->n_buckets; i++)
		s->buf[i] = s->sv->by_samples ? (double)x->live_samples[i]
					      : (double)x->live_bytes[i];
}

static const char *amount(const struct survivors *s, int64_t bytes,
			  uint64_t samples, char *out, size_t size)
{
	if (s->sv->by_samples)
		snprintf(out, size, "%llu smp", (unsigned long long)samples);
	else
		human_bytes(bytes, out, size);
	return out;
}

/* --- against the baseline ---------------------------------------------------- */

static void diff_ensure(struct tui *t, struct survivors *s)
{
	const struct diff_table *dt;
	struct query_survivor_options so;
	struct diff *d;
	struct err e;
	int kind;

	if (s->dvalid && s->dgen == t->m.gen && s->dby == s->by)
		return;
	s->dvalid = true;
	s->dgen = t->m.gen;
	s->dby = s->by;
	free(s->dt);
	s->dt = NULL;
	s->dwhy[0] = '\0';
	kind = live_kind(&t->m);
	if (kind < 0) {
		snprintf(s->dwhy, sizeof(s->dwhy),
			 "no liveness in this store: survivors come from "
			 "heapsift agent recordings and jdk.OldObjectSample");
		return;
	}
	err_init(&e);
	/* what heapsift diff --survivors compares: no cohorts */
	memset(&so, 0, sizeof(so));
	d = model_diff_kind(&t->m, kind, &e);
	if (!d || diff_survivors(d, s->by, &so, &dt, &e) < 0) {
		snprintf(s->dwhy, sizeof(s->dwhy),
			 "cannot compare with the baseline: %.200s", e.msg);
		return;
	}
	s->dt = diff_table_dup(dt);
	s->dlist.n = s->dt->n_rows;
	if (s->dlist.cur >= s->dlist.n)
		s->dlist.cur = s->dlist.top = 0;
}

/* Live bytes (or samples, for a kind without sizes) from a double. */
static const char *damount(const struct diff_table *dt, double v, bool sign,
			   char *out, size_t size)
{
	return tui_diff_amount(v, sign, dt->by_samples, out, size);
}

/* Each key's live set at the end of each side, the change, the samples
 * and the verdict; the peaks too from 110 columns (else on the detail
 * line). */
static void diff_draw(struct tui *t, struct survivors *s, const struct area *ar)
{
	const struct diff_table *dt;
	int h = ar->height - 1, i, x;
	bool wide = ar->width >= 110;
	char p0[48], p1[48], nm[1024];

	diff_ensure(t, s);
	dt = s->dt;
	if (!dt) {
		screen_put(ar->top + 1, 2, ar->width - 2, ST_DIM, s->dwhy);
		return;
	}
	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	x = 0;
	if (wide)
		x = screen_putf(ar->top, 0, ar->width, ST_HEADER, "%10s %10s ",
				"BASE PEAK", "NEW PEAK");
	x += screen_putf(ar->top, x, ar->width - x, ST_HEADER,
			 "%10s %10s %11s %6s %6s %-6s %s", "BASE END",
			 "NEW END", "CHANGE", "N_BASE", "N_NEW", "",
			 query_group_name(s->by));
	if (!dt->n_rows) {
		screen_putf(ar->top + 2, 2, ar->width - 2, ST_DIM,
			    "no %s samples alive at the end on either side",
			    sample_kind_name(dt->kind));
		return;
	}
	list_fix(&s->dlist, h);
	for (i = 0; i < h && s->dlist.top + (size_t)i < dt->n_rows; i++) {
		size_t k = s->dlist.top + (size_t)i;
		const struct diff_row *r = &dt->rows[k];
		bool cur = k == s->dlist.cur;
		enum style st = (enum style)tui_diff_style(r, cur);
		int y = ar->top + 1 + i, nw;

		if (cur)
			screen_fill(y, 0, ar->width, ST_CURSOR);
		x = 0;
		if (wide)
			x = screen_putf(
				y, 0, ar->width, st, "%10s %10s ",
				damount(dt, r->peak[0], false, p0, sizeof(p0)),
				damount(dt, r->peak[1], false, p1, sizeof(p1)));
		x = tui_diff_cells(y, x, ar->width, st, r, dt->by_samples,
				   true);
		nw = ar->width - x;
		if (nw > 0)
			screen_put(y, x, nw, st,
				   names_shorten(r->key, (size_t)nw,
						 scr.ellipsis, nm, sizeof(nm)));
	}
	{
		const struct diff_row *r = &dt->rows[s->dlist.cur];

		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%zu/%zu %s q %.2g %s %zu beyond noise %s peak "
			    "%s, %s %s %s",
			    s->dlist.cur + 1, dt->n_rows, scr.vline, r->q,
			    scr.vline, dt->n_changed, scr.vline,
			    damount(dt, r->peak[0], false, p0, sizeof(p0)),
			    damount(dt, r->peak[1], false, p1, sizeof(p1)),
			    scr.vline, r->key);
	}
}

static void sv_draw(struct tui *t, void *st, const struct area *ar)
{
	struct survivors *s = st;
	int chart_h, list_h, i, spark_w, y;
	char a[40], b[40], sp[512], nm[1024];
	const struct query_survivor_series *cur;

	if (t->m.base_on) {
		diff_draw(t, s, ar);
		return;
	}
	ensure(t, s);
	if (!s->sv) {
		screen_put(ar->top + 1, 2, ar->width - 2, ST_DIM, s->why);
		return;
	}
	if (!s->n) {
		screen_putf(ar->top + 1, 2, ar->width - 2, ST_DIM,
			    "no %s samples with a known fate in the time range",
			    sample_kind_name(s->sv->kind));
		return;
	}
	chart_h = ar->height * 2 / 5;
	if (chart_h < 3)
		chart_h = 0;
	list_h = ar->height - 1 - chart_h;
	spark_w = ar->width >= 160 ? 40 : ar->width >= 120 ? 24 : 12;
	screen_fill(ar->top, 0, ar->width, ST_HEADER);
	screen_putf(ar->top, 0, ar->width, ST_HEADER,
		    "  %10s %10s %12s %-*s %s", "PEAK", "AT END",
		    s->sv->by_samples ? "SLOPE smp/s" : "SLOPE B/s", spark_w,
		    "TREND", s->cohort ? "cohort" : query_group_name(s->by));
	s->list.n = s->n;
	list_fix(&s->list, list_h);
	for (i = 0; i < list_h && s->list.top + (size_t)i < s->n; i++) {
		size_t r = s->list.top + (size_t)i;
		const struct query_survivor_series *x = s->rows[r];
		bool c = r == s->list.cur;
		enum style stl = c	      ? ST_CURSOR
				 : x->suspect ? ST_SUSPECT
					      : ST_NORMAL;
		int x0;

		y = ar->top + 1 + i;
		if (c)
			screen_fill(y, 0, ar->width, ST_CURSOR);
		series_values(s, x);
		chart_spark(sp, sizeof(sp), s->buf, s->sv->n_buckets,
			    (size_t)spark_w);
		x0 = screen_putf(
			y, 0, ar->width, stl, "%s %10s %10s %12.1f ",
			x->suspect ? "!" : " ",
			amount(s, x->peak_bytes, x->peak_samples, a, sizeof(a)),
			amount(s, x->end_bytes, x->end_samples, b, sizeof(b)),
			x->slope);
		x0 += screen_put(y, x0, spark_w, c ? ST_CURSOR : ST_BAR, sp);
		x0 += screen_put(y, x0, 1, stl, " ");
		if (ar->width - x0 > 0)
			screen_put(y, x0, ar->width - x0, stl,
				   names_shorten(x->key,
						 (size_t)(ar->width - x0),
						 scr.ellipsis, nm, sizeof(nm)));
	}
	cur = s->rows[s->list.cur];
	if (chart_h) {
		int axis = 11, w = ar->width - axis - 1;
		size_t n = s->sv->n_buckets;

		y = ar->top + 1 + list_h;
		screen_putf(y, 0, ar->width, ST_HEADER,
			    "live %s over time, a point every %.3f s: %s",
			    s->sv->by_samples ? "samples" : "bytes",
			    (double)s->sv->bucket_ns / 1e9, cur->key);
		series_values(s, cur);
		screen_put(y + 1, 0, axis, ST_DIM,
			   amount(s, cur->peak_bytes, cur->peak_samples, a,
				  sizeof(a)));
		/* one column a point; more points than columns: the last
		 * w (the end is where leaks show) */
		if (n > (size_t)w && w > 0)
			chart_columns(y + 1, axis, chart_h - 1,
				      s->buf + (n - (size_t)w), (size_t)w,
				      ST_BAR, CHART_NONE, 0, CHART_NONE);
		else
			chart_columns(y + 1, axis, chart_h - 1, s->buf, n,
				      ST_BAR, CHART_NONE, 0, CHART_NONE);
	}
	if (s->cohort) /* a life crosses cohorts: no fates to count */
		screen_putf(ar->detail, 0, ar->width, ST_DIM, "%s%s",
			    cur->suspect ? "LEAK SUSPECT | " : "", cur->key);
	else if (s->sv && s->sv->kind == SAMPLE_OLD_OBJECT)
		/* an old object left out by the last emission was
		 * collected or replaced in the JVM's sampler: gone, not
		 * dead (query/old_emissions.h) */
		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%s%llu objects: %llu gone, %llu at the last "
			    "emission %s %s",
			    cur->suspect ? "LEAK SUSPECT " : "",
			    (unsigned long long)cur->samples,
			    (unsigned long long)cur->gone,
			    (unsigned long long)cur->alive, scr.vline,
			    cur->key);
	else if (s->sv && sample_kind_live(s->sv->kind))
		/* another profiler's live objects: no death recorded */
		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%s%llu sampled objects not yet collected when "
			    "the profiler looked (deaths not recorded) %s %s",
			    cur->suspect ? "LEAK SUSPECT " : "",
			    (unsigned long long)cur->alive, scr.vline,
			    cur->key);
	else if (cur->median_to_collection_ns < 0)
		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%s%llu samples: %llu died, %llu alive at the end "
			    "%s %s",
			    cur->suspect ? "LEAK SUSPECT " : "",
			    (unsigned long long)cur->samples,
			    (unsigned long long)cur->dead,
			    (unsigned long long)cur->alive, scr.vline,
			    cur->key);
	else /* not a life: a death is seen after the GC that freed it */
		screen_putf(ar->detail, 0, ar->width, ST_DIM,
			    "%s%llu samples: %llu died (median %.3g s to "
			    "collection, after %lld GCs), %llu alive at the "
			    "end %s %s",
			    cur->suspect ? "LEAK SUSPECT " : "",
			    (unsigned long long)cur->samples,
			    (unsigned long long)cur->dead,
			    (double)cur->median_to_collection_ns / 1e9,
			    (long long)cur->median_gcs,
			    (unsigned long long)cur->alive, scr.vline,
			    cur->key);
}

static bool sv_act(struct tui *t, void *st, enum action act,
		   const struct area *ar)
{
	struct survivors *s = st;
	int list_h = ar->height - 1 -
		     (ar->height * 2 / 5 >= 3 ? ar->height * 2 / 5 : 0);

	if (t->m.base_on) {
		diff_ensure(t, s);
		if (list_act(&s->dlist, act, ar->height - 1))
			return true;
		switch (act) {
		case ACT_GROUP:
			break; /* as without the baseline, below */
		case ACT_COHORT:
		case ACT_SORT_BYTES:
		case ACT_SORT_SAMPLES:
		case ACT_SORT_NAME:
			tui_message(t, false,
				    "B turns the baseline off for cohorts and "
				    "sorting");
			return true;
		default:
			return false;
		}
		s->dlist.cur = s->dlist.top = 0;
	} else {
		ensure(t, s);
		if (list_act(&s->list, act, list_h))
			return true;
	}
	switch (act) {
	case ACT_GROUP:
		s->by = s->by == GROUP_SITE	  ? GROUP_CLASS
			: s->by == GROUP_CLASS	  ? GROUP_APP_SITE
			: s->by == GROUP_APP_SITE ? GROUP_THREAD
						  : GROUP_SITE;
		s->cohort = COHORT_NONE;
		s->valid = false;
		s->list.cur = s->list.top = 0;
		return true;
	case ACT_COHORT:
		s->cohort = (enum query_cohort)((s->cohort + 1) % 3);
		s->valid = false;
		s->list.cur = s->list.top = 0;
		return true;
	case ACT_SORT_BYTES:
	case ACT_SORT_SAMPLES:
	case ACT_SORT_NAME:
		if (!s->sv)
			return true;
		s->sort = act == ACT_SORT_BYTES	    ? SV_PEAK
			  : act == ACT_SORT_SAMPLES ? SV_SAMPLES
						    : SV_NAME;
		order(s);
		return true;
	case ACT_BACK:
		if (s->sort != SV_RANK && s->sv) {
			s->sort = SV_RANK;
			order(s);
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void sv_status(struct tui *t, void *st, char *out, size_t size)
{
	struct survivors *s = st;
	static const char *const sorts[] = {"leak suspects first", "peak",
					    "samples", "name"};

	const char *k = s->sv ? sample_kind_name(s->sv->kind) : "";

	if (t->m.base_on) {
		k = s->dt ? sample_kind_name(s->dt->kind) : "";
		if (!strncmp(k, "jdk.", 4))
			k += 4;
		snprintf(out, size,
			 "by %s against the baseline, live at the end, of %s",
			 query_group_name(s->by), k);
		return;
	}
	if (!strncmp(k, "jdk.", 4))
		k += 4;
	if (s->cohort)
		snprintf(out, size, "%s cohorts, %s, of %s",
			 s->cohort == COHORT_AGE ? "age" : "GC", sorts[s->sort],
			 k);
	else
		snprintf(out, size, "by %s, %s, of %s", query_group_name(s->by),
			 sorts[s->sort], k);
}

static bool sv_search(struct tui *t, void *st, const struct rx_user *re,
		      int dir)
{
	struct survivors *s = st;
	size_t i;

	if (t->m.base_on) {
		size_t n;

		diff_ensure(t, s);
		n = s->dt ? s->dt->n_rows : 0;
		for (i = dir ? 1 : 0; i <= n && n; i++) {
			size_t k = dir >= 0 ? (s->dlist.cur + i) % n
					    : (s->dlist.cur + n - i % n) % n;

			if (rx_user_match(re, s->dt->rows[k].key)) {
				s->dlist.cur = k;
				return true;
			}
		}
		return false;
	}
	ensure(t, s);
	for (i = dir ? 1 : 0; i <= s->n && s->n; i++) {
		size_t k = dir >= 0 ? (s->list.cur + i) % s->n
				    : (s->list.cur + s->n - i % s->n) % s->n;

		if (rx_user_match(re, s->rows[k]->key)) {
			s->list.cur = k;
			return true;
		}
	}
	return false;
}

static void sv_click(struct tui *t, void *st, const struct area *ar, int y,
		     int x, bool twice)
{
	struct survivors *s = st;

	(void)ar;
	(void)x;
	(void)twice;
	if (t->m.base_on) {
		if (y >= 1 && s->dt &&
		    s->dlist.top + (size_t)(y - 1) < s->dt->n_rows)
			s->dlist.cur = s->dlist.top + (size_t)(y - 1);
		return;
	}
	if (y >= 1 && s->list.top + (size_t)(y - 1) < s->n)
		s->list.cur = s->list.top + (size_t)(y - 1);
}

const struct tui_view_ops view_survivors = {
	.name = "Survivors",
	.short_name = "Surv",
	.new = sv_new,
	.free = sv_free,
	.draw = sv_draw,
	.act = sv_act,
	.status = sv_status,
	.search = sv_search,
	.click = sv_click,
};
