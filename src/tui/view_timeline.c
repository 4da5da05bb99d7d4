/*
 * The Timeline view: the allocation rate and the sample rate per time
 * bucket, as two column charts over the whole span of the kind shown
 * (one bucket per screen column, a round width), with a cursor bucket.
 * Rates are over the time each bucket covers (query_bucket.covered_ns),
 * and the axis runs from where the recordings start to where they end,
 * not from the first bucket's round start.
 * Space marks one end of a range and the cursor the other; Enter makes
 * it the model's time range, which every other view then shows, until
 * x clears it.  The buckets come from a query without the range, cached
 * per bucket width and model generation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/tui_chart.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/human.h"
#include "util/size.h"
#include "util/xalloc.h"

struct timeline {
	unsigned gen;
	bool valid;
	int64_t bucket_ns;
	int64_t start_ns;     /* of bucket 0 */
	double *rate, *srate; /* bytes/s and samples/s per bucket */
	uint64_t *samples;
	/* the covered part of each bucket, [from, to); covered 0: none */
	int64_t *cov, *cov_from, *cov_to;
	size_t n;
	size_t cur, mark; /* mark CHART_NONE: none */
	bool by_samples;  /* the kind has no sizes */
};

static void *tl_new(struct tui *t)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));

	(void)t;
	tl->mark = CHART_NONE;
	return tl;
}

static void tl_free(void *st)
{
	struct timeline *tl = st;

	free(tl->rate);
	free(tl->srate);
	free(tl->samples);
	free(tl->cov);
	free(tl->cov_from);
	free(tl->cov_to);
	free(tl);
}

static void ensure(struct tui *t, struct timeline *tl, int cols)
{
	struct model *m = &t->m;
	const struct query_bucket *b;
	struct query_total tot;
	struct query *q;
	int64_t w, first = m->first_ns, last = m->last_ns, cf, ct;
	size_t n, i;
	struct err e;

	err_init(&e);
	q = model_query_all(m, &e);
	/* the buckets hold the time the recordings cover too */
	if (q && last >= first && query_covered(q, &cf, &ct) > 0 &&
	    query_cover_widens(first, last, cf, ct)) {
		first = cf;
		last = ct - 1;
	}
	/* cols - 1: the buckets start at a multiple of the width, which can
	 * add one to span / width + 1 */
	w = last >= first ? query_round_bucket(last - first, (int64_t)cols - 1)
			  : 1000000000;
	if (tl->valid && tl->gen == m->gen && tl->bucket_ns == w)
		return;
	if (tl->gen != m->gen)
		tl->mark = CHART_NONE;
	tl->valid = true;
	tl->gen = m->gen;
	tl->bucket_ns = w;
	tl->n = 0;
	if (!q || query_timeline(q, &w, &b, &n, &tot, &e) < 0) {
		tui_message(t, true, "cannot make the timeline: %s", e.msg);
		return;
	}
	tl->rate = xreallocarray(tl->rate, n ? n : 1, sizeof(double));
	tl->srate = xreallocarray(tl->srate, n ? n : 1, sizeof(double));
	tl->samples = xreallocarray(tl->samples, n ? n : 1, sizeof(uint64_t));
	tl->cov = xreallocarray(tl->cov, n ? n : 1, sizeof(int64_t));
	tl->cov_from = xreallocarray(tl->cov_from, n ? n : 1, sizeof(int64_t));
	tl->cov_to = xreallocarray(tl->cov_to, n ? n : 1, sizeof(int64_t));
	tl->by_samples = !tot.est_bytes;
	for (i = 0; i < n; i++) {
		double c = (double)b[i].covered_ns;

		/* over the time covered: a bucket cut by a recording's
		 * start or end (a killed JVM's last flush) is not diluted */
		tl->rate[i] = c > 0 ? (double)b[i].est_bytes * 1e9 / c : 0;
		tl->srate[i] = c > 0 ? (double)b[i].samples * 1e9 / c : 0;
		tl->samples[i] = b[i].samples;
		tl->cov[i] = b[i].covered_ns;
		tl->cov_from[i] = b[i].cover_from_ns;
		tl->cov_to[i] = b[i].cover_to_ns;
	}
	tl->start_ns = n ? b[0].start_ns : 0;
	tl->n = n;
	if (tl->cur >= n)
		tl->cur = n ? n - 1 : 0;
}

static size_t sel_lo(const struct timeline *tl)
{
	return tl->mark == CHART_NONE ? CHART_NONE
	       : tl->mark < tl->cur   ? tl->mark
				      : tl->cur;
}

static size_t sel_hi(const struct timeline *tl)
{
	return tl->mark == CHART_NONE ? CHART_NONE
	       : tl->mark > tl->cur   ? tl->mark
				      : tl->cur;
}

/* The buckets the model's range covers, to show it on the chart. */
static void range_buckets(const struct model *m, const struct timeline *tl,
			  size_t *a, size_t *b)
{
	int64_t from = m->from_ns, to = m->to_ns;

	*a = *b = CHART_NONE;
	if (!model_has_range(m) || !tl->n)
		return;
	if (from < tl->start_ns)
		from = tl->start_ns;
	*a = (size_t)((from - tl->start_ns) / tl->bucket_ns);
	if (to == INT64_MAX ||
	    to - tl->start_ns >= (int64_t)tl->n * tl->bucket_ns)
		*b = tl->n - 1;
	else
		*b = (size_t)((to - 1 - tl->start_ns) / tl->bucket_ns);
	if (*a >= tl->n)
		*a = *b = CHART_NONE;
}

static void tl_draw(struct tui *t, void *st, const struct area *ar)
{
	struct timeline *tl = st;
	struct model *m = &t->m;
	int axis = 11, cols = ar->width - axis - 1;
	int h1, h2, y;
	size_t a, b;
	double max1 = 0, max2 = 0;
	char x1[40], x2[40], x3[40];
	size_t i;

	ensure(t, tl, cols);
	if (!tl->n) {
		screen_put(ar->top + 1, 2, ar->width - 2, ST_DIM,
			   "no samples of this kind");
		return;
	}
	for (i = 0; i < tl->n; i++) {
		if (tl->rate[i] > max1)
			max1 = tl->rate[i];
		if (tl->srate[i] > max2)
			max2 = tl->srate[i];
	}
	/* two charts: the rate of bytes (or samples) and of samples */
	h1 = (ar->height - 5) * 3 / 5;
	h2 = ar->height - 5 - h1;
	if (h1 < 1)
		h1 = 1;
	if (h2 < 1)
		h2 = 1;
	if (tl->mark != CHART_NONE) {
		a = sel_lo(tl);
		b = sel_hi(tl);
	} else {
		range_buckets(m, tl, &a, &b);
	}
	y = ar->top;
	screen_putf(y++, 0, ar->width, ST_HEADER,
		    "%s per second, buckets of %.3f s",
		    tl->by_samples ? "samples" : "estimated bytes allocated",
		    (double)tl->bucket_ns / 1e9);
	screen_put(y, 0, axis, ST_DIM,
		   tl->by_samples ? ""
				  : human_bytes((int64_t)max1, x1, sizeof(x1)));
	chart_columns(y, axis, h1, tl->by_samples ? tl->srate : tl->rate, tl->n,
		      ST_BAR, a, b, CHART_NONE);
	y += h1;
	screen_putf(y++, 0, ar->width, ST_HEADER, "samples per second");
	screen_putf(y, 0, axis, ST_DIM, "%.0f", max2);
	chart_columns(y, axis, h2, tl->srate, tl->n, ST_BAR2, a, b, tl->cur);
	y += h2 + 1;
	/* the axis: from the first covered instant to the last, where the
	 * recordings start and end inside the first and last buckets */
	screen_putf(y++, 0, ar->width, ST_DIM, "%-*s%s", axis, "",
		    tui_offset(m, tl->cov[0] ? tl->cov_from[0] : tl->start_ns,
			       x1, sizeof(x1)));
	{
		int64_t end =
			tl->cov[tl->n - 1]
				? tl->cov_to[tl->n - 1]
				: tl->start_ns + (int64_t)tl->n * tl->bucket_ns;
		const char *e = tui_offset(m, end, x2, sizeof(x2));
		int ew = (int)strlen(e);

		if (axis + (int)tl->n - ew > axis + 12)
			screen_put(y - 1, axis + (int)tl->n - ew, ew, ST_DIM,
				   e);
	}
	/* the cursor's bucket: the part of it recorded, and its rates */
	{
		size_t c = tl->cur;
		int64_t s = tl->start_ns + (int64_t)c * tl->bucket_ns;
		const char *mk = tl->mark != CHART_NONE
					 ? " | marked: Enter applies, Esc drops"
					 : "";

		if (!tl->cov[c])
			screen_putf(ar->detail, 0, ar->width, ST_DIM,
				    "%s .. %s %s not recorded%s",
				    tui_offset(m, s, x1, sizeof(x1)),
				    tui_offset(m, s + tl->bucket_ns, x2,
					       sizeof(x2)),
				    scr.vline, mk);
		else
			screen_putf(
				ar->detail, 0, ar->width, ST_DIM,
				"%s .. %s %s %s/s %s %.0f samples/s %s %llu "
				"samples%s%s",
				tui_offset(m, tl->cov_from[c], x1, sizeof(x1)),
				tui_offset(m, tl->cov_to[c], x2, sizeof(x2)),
				scr.vline,
				human_bytes(i64_held(tl->rate[c]), x3,
					    sizeof(x3)),
				scr.vline, tl->srate[c], scr.vline,
				(unsigned long long)tl->samples[c],
				tl->cov[c] < tl->bucket_ns ? " (part recorded)"
							   : "",
				mk);
	}
}

static bool tl_act(struct tui *t, void *st, enum action act,
		   const struct area *ar)
{
	struct timeline *tl = st;
	struct model *m = &t->m;

	ensure(t, tl, ar->width - 12);
	if (!tl->n)
		return false;
	switch (act) {
	case ACT_LEFT:
	case ACT_UP:
		if (tl->cur)
			tl->cur--;
		return true;
	case ACT_RIGHT:
	case ACT_DOWN:
		if (tl->cur + 1 < tl->n)
			tl->cur++;
		return true;
	case ACT_PGUP:
		tl->cur = tl->cur > 10 ? tl->cur - 10 : 0;
		return true;
	case ACT_PGDN:
		tl->cur = tl->cur + 10 < tl->n ? tl->cur + 10 : tl->n - 1;
		return true;
	case ACT_HOME:
		tl->cur = 0;
		return true;
	case ACT_END:
		tl->cur = tl->n - 1;
		return true;
	case ACT_MARK:
		tl->mark = tl->mark == CHART_NONE ? tl->cur : CHART_NONE;
		return true;
	case ACT_ENTER: {
		size_t a = tl->mark == CHART_NONE ? tl->cur : sel_lo(tl);
		size_t b = tl->mark == CHART_NONE ? tl->cur : sel_hi(tl);
		int64_t from = tl->start_ns + (int64_t)a * tl->bucket_ns;
		int64_t to = tl->start_ns + (int64_t)(b + 1) * tl->bucket_ns;
		char x1[40], x2[40];
		unsigned gen = m->gen;

		model_set_range(m, from, to);
		tl->mark = CHART_NONE;
		/* the chart stays the whole span: only the range moved */
		if (tl->gen == gen)
			tl->gen = m->gen;
		/* absolute times, exact to the millisecond: what --from and
		 * --to take to ask the CLI the same question */
		tui_message(t, false, "range %s .. %s; x clears it",
			    human_time(from, 3, "?", x1, sizeof(x1)),
			    human_time(to, 3, "?", x2, sizeof(x2)));
		return true;
	}
	case ACT_BACK:
		if (tl->mark != CHART_NONE) {
			tl->mark = CHART_NONE;
			return true;
		}
		return false;
	default:
		return false;
	}
}

static void tl_status(struct tui *t, void *st, char *out, size_t size)
{
	struct timeline *tl = st;

	(void)t;
	snprintf(out, size, "%zu buckets of %.3f s", tl->n,
		 (double)tl->bucket_ns / 1e9);
}

/* A click on a column of the charts puts the cursor on its bucket. */
static void tl_click(struct tui *t, void *st, const struct area *ar, int y,
		     int x, bool twice)
{
	struct timeline *tl = st;

	(void)t;
	(void)ar;
	(void)y;
	if (x >= 11 && (size_t)(x - 11) < tl->n)
		tl->cur = (size_t)(x - 11);
	if (twice)
		tl_act(t, st, ACT_ENTER, ar);
}

const struct tui_view_ops view_timeline = {
	.name = "Timeline",
	.short_name = "Time",
	.new = tl_new,
	.free = tl_free,
	.draw = tl_draw,
	.act = tl_act,
	.status = tl_status,
	.click = tl_click,
};
