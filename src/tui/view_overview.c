/*
 * The Overview view: what the store holds (recordings, JVMs, time span,
 * sample kinds and their counts), the totals of the kind shown within
 * the time range, the heaviest classes and sites, and warnings (damaged
 * input that was skipped).  A scrollable page of lines, rebuilt when the
 * model's generation changes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/human.h"
#include "util/xalloc.h"

#define TOP_N 8

struct line {
	enum style st;
	char text[256];
	/* a second column (the top sites beside the top classes) */
	char right[256];
};

struct overview {
	unsigned gen;
	bool built;
	struct line *lines;
	size_t n, alloc;
	int split; /* column of the right half, 0: none */
	int width; /* what the names were shortened for */
	struct list list;
};

static void *ov_new(struct tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(struct overview));
}

static void ov_free(void *st)
{
	struct overview *o = st;

	free(o->lines);
	free(o);
}

static struct line *add(struct overview *o, enum style st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct line *add(struct overview *o, enum style st, const char *fmt, ...)
{
	va_list ap;
	struct line *l;

	if (o->n == o->alloc) {
		o->alloc = o->alloc ? o->alloc * 2 : 64;
		o->lines = xreallocarray(o->lines, o->alloc, sizeof(*o->lines));
	}
	l = &o->lines[o->n++];
	l->st = st;
	l->right[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof(l->text), fmt, ap);
	va_end(ap);
	return l;
}

static void row_text(char *out, size_t size, const struct query_row *r,
		     int name_w)
{
	char b[32], nm[512];

	names_shorten(r->key, (size_t)(name_w > 8 ? name_w : 8), scr.ellipsis,
		      nm, sizeof(nm));
	snprintf(out, size, "%10s %5.1f%% %7llu  %.200s",
		 human_bytes(r->est_bytes, b, sizeof(b)), r->share * 100.0,
		 (unsigned long long)r->samples, nm);
}

static void build(struct tui *t, struct overview *o, int width)
{
	struct model *m = &t->m;
	const struct query_recording *rec;
	const struct query_row *rows;
	struct query_total total;
	struct query *q;
	size_t n_rec, n, i, k;
	struct err e;
	char a[64], b[64], c[64];
	uint64_t all = 0;
	bool warned = false;
	int half = width >= 150 ? width / 2 : 0;
	int name_w = (half ? half : width) - 30;

	o->n = 0;
	o->split = half;
	err_init(&e);
	q = model_query(m, &e);
	if (!q) {
		add(o, ST_ERROR, "cannot read the store: %s", e.msg);
		return;
	}
	query_recordings(q, &rec, &n_rec);
	for (k = 0; k < SAMPLE__COUNT; k++)
		all += m->kind_counts[k];
	add(o, ST_HEADER, "Store");
	add(o, ST_NORMAL, "  %zu recording%s, %llu samples", n_rec,
	    n_rec == 1 ? "" : "s", (unsigned long long)all);
	for (i = 0; i < n_rec; i++) {
		const struct query_recording *r = &rec[i];
		const char *jvm;

		add(o, ST_HEADER, "Recording %zu", i);
		add(o, ST_NORMAL, "  %s", r->source);
		/* JDK 21+ versions begin with the name: print it once */
		jvm = !r->jvm_name[0] ? "(not recorded)"
		      : human_version_has_name(r->jvm_name, r->jvm_version)
			      ? ""
			      : r->jvm_name;
		add(o, ST_NORMAL, "  %s, %u chunk%s; JVM %s%s%s", r->format,
		    r->n_chunks, r->n_chunks == 1 ? "" : "s", jvm,
		    jvm[0] && r->jvm_version[0] ? " " : "", r->jvm_version);
		if (r->start_ns == INT64_MIN)
			add(o, ST_NORMAL, "  time not recorded");
		else
			add(o, ST_NORMAL, "  %s .. %s (%.3f s)",
			    human_time(r->start_ns, 3, "?", a, sizeof(a)),
			    human_time(r->end_ns, 3, "?", b, sizeof(b)),
			    ((double)r->end_ns - (double)r->start_ns) / 1e9);
		for (k = 0; k < SAMPLE__COUNT; k++)
			if (r->samples[k])
				add(o, ST_NORMAL, "  %9llu %s",
				    (unsigned long long)r->samples[k],
				    sample_kind_name((enum sample_kind)k));
	}
	if (query_top(q, GROUP_CLASS, &rows, &n, &total, &e) < 0) {
		add(o, ST_ERROR, "cannot read the samples: %s", e.msg);
		return;
	}
	add(o, ST_HEADER, "Shown: %s%s", sample_kind_name(model_kind(m)),
	    model_has_range(m) ? ", in the time range" : "");
	if (total.samples)
		add(o, ST_NORMAL, "  %llu samples, %s estimated, %s .. %s",
		    (unsigned long long)total.samples,
		    human_bytes(total.est_bytes, a, sizeof(a)),
		    tui_offset(m, total.first_ns, b, sizeof(b)),
		    tui_offset(m, total.last_ns, c, sizeof(c)));
	else
		add(o, ST_NORMAL, "  no samples");
	{
		/* the top classes, and the top sites beside or below them */
		struct line *head;
		size_t first = o->n, n_cls = n < TOP_N ? n : TOP_N;
		char txt[256];

		head = add(o, ST_HEADER, "Top classes");
		for (i = 0; i < n_cls; i++) {
			row_text(txt, sizeof(txt), &rows[i], name_w);
			add(o, ST_NORMAL, "  %s", txt);
		}
		if (query_top(q, GROUP_SITE, &rows, &n, &total, &e) < 0)
			return;
		n = n < TOP_N ? n : TOP_N;
		if (half) {
			snprintf(head->right, sizeof(head->right), "Top sites");
			for (i = 0; i < n; i++) {
				struct line *l;

				if (first + 1 + i >= o->n)
					add(o, ST_NORMAL, "%s", "");
				l = &o->lines[first + 1 + i];
				row_text(txt, sizeof(txt), &rows[i], name_w);
				snprintf(l->right, sizeof(l->right), "  %.250s",
					 txt);
			}
		} else {
			add(o, ST_HEADER, "Top sites");
			for (i = 0; i < n; i++) {
				row_text(txt, sizeof(txt), &rows[i], name_w);
				add(o, ST_NORMAL, "  %s", txt);
			}
		}
	}
	add(o, ST_HEADER, "Warnings");
	for (i = 0; i < n_rec; i++)
		if (rec[i].bytes_skipped) {
			add(o, ST_ERROR,
			    "  recording %zu: %llu bytes of damaged or "
			    "unfinished input were skipped",
			    i, (unsigned long long)rec[i].bytes_skipped);
			warned = true;
		}
	if (!warned)
		add(o, ST_NORMAL, "  none: every recording was read whole");
}

static void ov_draw(struct tui *t, void *st, const struct area *a)
{
	struct overview *o = st;
	size_t i;

	if (!o->built || o->gen != t->m.gen || o->width != a->width) {
		build(t, o, a->width);
		o->width = a->width;
		o->gen = t->m.gen;
		o->built = true;
	}
	o->list.n = o->n;
	list_fix(&o->list, a->height);
	for (i = 0; i < (size_t)a->height && o->list.top + i < o->n; i++) {
		const struct line *l = &o->lines[o->list.top + i];
		int w = o->split ? o->split : a->width;

		screen_put(a->top + (int)i, 1, w - 1, l->st, l->text);
		if (o->split && l->right[0])
			screen_put(a->top + (int)i, o->split,
				   a->width - o->split,
				   l->right[0] == ' ' ? ST_NORMAL : ST_HEADER,
				   l->right);
	}
	screen_put(a->detail, 0, a->width, ST_DIM,
		   "2 alloc  3 tree  4 inverted  5 timeline  "
		   "6 survivors  7 code heaps  8 findings");
}

static bool ov_act(struct tui *t, void *st, enum action act,
		   const struct area *a)
{
	struct overview *o = st;

	(void)t;
	/* a page: the arrows scroll it */
	if (act == ACT_DOWN || act == ACT_UP) {
		size_t max =
			o->n > (size_t)a->height ? o->n - (size_t)a->height : 0;

		if (act == ACT_DOWN && o->list.top < max)
			o->list.top++;
		else if (act == ACT_UP && o->list.top)
			o->list.top--;
		o->list.cur = o->list.top;
		return true;
	}
	return list_act(&o->list, act, a->height);
}

static void ov_status(struct tui *t, void *st, char *out, size_t size)
{
	(void)t;
	(void)st;
	snprintf(out, size, "Overview");
}

const struct tui_view_ops view_overview = {
	.name = "Overview",
	.short_name = "Over",
	.new = ov_new,
	.free = ov_free,
	.draw = ov_draw,
	.act = ov_act,
	.status = ov_status,
};
