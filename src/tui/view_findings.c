/*
 * The Findings view: what `heapsift report` finds in the store, from the
 * same query_findings() (src/findings/findings.h), most severe first, each
 * with its severity, rule, subject, sentence, evidence, the command that
 * shows more and what usually fixes it.  A page of wrapped lines in
 * which the cursor selects a whole finding; Enter goes to the view that
 * shows its subject (a leak suspect's site in Survivors, a code heap in
 * Code heaps) and searches for the subject there.
 *
 * The findings are of the whole store, as the report gives them without
 * filters: the kind and the time range chosen in the other views do not
 * change them, so they are computed once, the first time the view is
 * drawn (the rules run many queries: a large store takes a moment).
 * Nothing here knows how the report renders them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings/findings.h"
#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/buf.h"
#include "util/rx.h"
#include "util/xalloc.h"

struct fline {
	enum style st;
	int indent;
	size_t finding; /* SIZE_MAX: the summary at the top */
	char *text;	/* owned */
};

struct fview {
	bool built;
	char why[512]; /* the store could not be read */
	struct findings fs;
	struct fline *lines;
	size_t n, alloc;
	size_t *first; /* [n_findings]: the finding's first line */
	int width;     /* what the lines were wrapped for */
	size_t top;    /* first line shown */
	size_t cur;    /* the selected finding */
};

static void *fv_new(struct tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(struct fview));
}

static void drop_lines(struct fview *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->lines[i].text);
	v->n = 0;
}

static void fv_free(void *st)
{
	struct fview *v = st;

	drop_lines(v);
	free(v->lines);
	free(v->first);
	findings_release(&v->fs);
	free(v);
}

static void add_line(struct fview *v, enum style st, int indent, size_t f,
		     const char *s, size_t len)
{
	struct fline *l;

	if (v->n == v->alloc) {
		v->alloc = v->alloc ? v->alloc * 2 : 64;
		v->lines = xreallocarray(v->lines, v->alloc, sizeof(*v->lines));
	}
	l = &v->lines[v->n++];
	l->st = st;
	l->indent = indent;
	l->finding = f;
	l->text = xmalloc(len + 1);
	memcpy(l->text, s, len);
	l->text[len] = '\0';
}

/* Bytes of s that make at most w columns (a column a code point, as
 * names_width counts them). */
static size_t fit(const char *s, size_t len, size_t w)
{
	size_t i = 0, cols = 0;

	while (i < len && cols < w) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	return i;
}

static size_t cols_of(const char *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/* s wrapped at spaces to width columns, the first line after prefix
 * (which hangs: the next lines are indented by its width). */
static void add_wrapped(struct fview *v, enum style st, int indent, size_t f,
			const char *prefix, const char *s, int width)
{
	struct buf b = BUF_INIT;
	size_t pw = names_width(prefix);
	size_t w = width > indent + (int)pw + 10 ? (size_t)(width - indent) - pw
						 : 10;
	const char *p = s;
	bool first = true;

	while (*p || first) {
		size_t len = strlen(p), take;

		buf_reset(&b);
		if (first)
			buf_adds(&b, prefix);
		else
			buf_addf(&b, "%*s", (int)pw, "");
		if (cols_of(p, len) <= w) {
			take = len;
		} else {
			size_t cut = fit(p, len, w + 1), k = cut;

			/* the last space that fits; a word longer than the
			 * line is cut where the line ends */
			while (k > 0 && p[k - 1] != ' ')
				k--;
			take = k > 0 ? k - 1 : fit(p, len, w);
			if (!take)
				take = fit(p, len, w);
		}
		buf_add(&b, p, take);
		add_line(v, st, indent, f, b.data, b.len);
		p += take;
		while (*p == ' ')
			p++;
		first = false;
	}
	buf_release(&b);
}

static enum style sev_style(enum finding_severity s)
{
	return s == FINDING_CRITICAL  ? ST_ERROR
	       : s == FINDING_WARNING ? ST_SUSPECT
				      : ST_NORMAL;
}

static void wrap_all(struct fview *v, int width)
{
	size_t i, k, sev[3] = {0, 0, 0};
	char head[128];

	drop_lines(v);
	v->width = width;
	if (v->why[0]) {
		add_wrapped(v, ST_ERROR, 1, SIZE_MAX, "", v->why, width);
		return;
	}
	for (i = 0; i < v->fs.n_findings; i++)
		sev[v->fs.findings[i].severity]++;
	snprintf(head, sizeof(head),
		 "%zu finding%s: %zu critical, %zu warning, %zu info "
		 "(of the whole store, as heapsift report gives them)",
		 v->fs.n_findings, v->fs.n_findings == 1 ? "" : "s",
		 sev[FINDING_CRITICAL], sev[FINDING_WARNING],
		 sev[FINDING_INFO]);
	add_wrapped(v, ST_HEADER, 1, SIZE_MAX, "", head, width);
	if (!v->fs.n_findings)
		add_wrapped(v, ST_NORMAL, 1, SIZE_MAX, "",
			    "No rule fired: see heapsift report --rules for "
			    "what each looks for.",
			    width);
	for (i = 0; i < v->fs.n_findings; i++) {
		const struct finding *f = &v->fs.findings[i];
		struct buf h = BUF_INIT;

		v->first[i] = v->n;
		buf_addf(&h, "%-8s %s%s%s%s",
			 finding_severity_name(f->severity), f->rule,
			 f->subject ? ": " : "", f->subject ? f->subject : "",
			 f->few_samples ? " (few samples)" : "");
		add_wrapped(v, sev_style(f->severity), 1, i, "", h.data, width);
		buf_release(&h);
		if (findings_jvm_text(&h, &v->fs, f)) {
			add_wrapped(v, ST_DIM, 3, i, "jvm: ", h.data, width);
			buf_release(&h);
		}
		add_wrapped(v, ST_NORMAL, 3, i, "", f->sentence, width);
		for (k = 0; k < f->n_evidence; k++)
			add_wrapped(v, ST_DIM, 3, i, "- ", f->evidence[k],
				    width);
		if (f->command)
			add_wrapped(v, ST_NORMAL, 3, i, "more: ", f->command,
				    width);
		if (f->fix)
			add_wrapped(v, ST_DIM, 3, i, "fix: ", f->fix, width);
	}
}

static void build(struct tui *t, struct fview *v)
{
	struct query_options o;
	struct buf arg = BUF_INIT;
	struct err e;

	query_options_init(&o);
	err_init(&e);
	findings_shell_word(&arg, t->store_path ? t->store_path : "STORE");
	if (query_findings(t->m.s, &o, arg.data, "", &v->fs, &e) < 0)
		snprintf(v->why, sizeof(v->why),
			 "cannot make the findings: %.400s", e.msg);
	buf_release(&arg);
	v->first = xcalloc(v->fs.n_findings + 1, sizeof(size_t));
	v->built = true;
}

/* The last line of finding i. */
static size_t last_line(const struct fview *v, size_t i)
{
	return i + 1 < v->fs.n_findings ? v->first[i + 1] - 1 : v->n - 1;
}

/* Keep the selected finding in sight: its first line, and as much of
 * the rest as fits. */
static void show_cur(struct fview *v, int h)
{
	size_t a, z;

	if (!v->fs.n_findings)
		return;
	a = v->first[v->cur];
	z = last_line(v, v->cur);
	if (z >= v->top + (size_t)h)
		v->top = z + 1 - (size_t)h;
	if (a < v->top || z - a >= (size_t)h)
		v->top = a;
	/* the summary line stays in sight above the first finding */
	if (v->cur == 0)
		v->top = 0;
}

static const char *target_name(const char *rule, unsigned *view)
{
	static const struct {
		const char *rule;
		unsigned view;
	} to[] = {
		{"leak-suspect", VIEW_SURVIVORS},
		{"heap-after-gc-rising", VIEW_SURVIVORS},
		{"old-objects", VIEW_SURVIVORS},
		{"code-heap", VIEW_CODEHEAP},
		{"allocation-hot-spot", VIEW_ALLOC},
		{"large-arrays", VIEW_ALLOC},
		{"estimation-caveat", VIEW_ALLOC},
		{"allocation-rate", VIEW_TIMELINE},
	};
	size_t i;

	for (i = 0; i < sizeof(to) / sizeof(to[0]); i++)
		if (!strcmp(rule, to[i].rule)) {
			*view = to[i].view;
			return view_table[to[i].view]->name;
		}
	return NULL;
}

static void fv_draw(struct tui *t, void *st, const struct area *a)
{
	struct fview *v = st;
	size_t i;

	if (!v->built)
		build(t, v);
	if (v->width != a->width || !v->n)
		wrap_all(v, a->width);
	if (v->cur >= v->fs.n_findings)
		v->cur = v->fs.n_findings ? v->fs.n_findings - 1 : 0;
	if (v->top >= v->n)
		v->top = v->n ? v->n - 1 : 0;
	for (i = 0; i < (size_t)a->height && v->top + i < v->n; i++) {
		const struct fline *l = &v->lines[v->top + i];
		bool sel = v->fs.n_findings && l->finding == v->cur;
		int y = a->top + (int)i;

		/* the selected finding: its first line as the cursor, a bar
		 * in the margin beside the rest */
		if (sel && v->top + i == v->first[v->cur]) {
			screen_fill(y, 0, a->width, ST_CURSOR);
			screen_put(y, l->indent, a->width - l->indent,
				   ST_CURSOR, l->text);
			continue;
		}
		if (sel)
			screen_put(y, 0, 1, ST_CURSOR, " ");
		screen_put(y, l->indent, a->width - l->indent, l->st, l->text);
	}
	if (v->fs.n_findings) {
		unsigned to;
		const char *name =
			target_name(v->fs.findings[v->cur].rule, &to);

		screen_putf(a->detail, 0, a->width, ST_DIM,
			    "finding %zu of %zu%s%s;  Up/Down: finding, "
			    "PgUp/PgDn: scroll",
			    v->cur + 1, v->fs.n_findings,
			    name ? ";  Enter: go to " : "", name ? name : "");
	} else {
		screen_put(a->detail, 0, a->width, ST_DIM,
			   "the findings of heapsift report");
	}
}

static bool fv_act(struct tui *t, void *st, enum action act,
		   const struct area *a)
{
	struct fview *v = st;
	size_t n = v->fs.n_findings, h = (size_t)a->height;
	unsigned to;

	switch (act) {
	case ACT_UP:
		if (v->cur)
			v->cur--;
		show_cur(v, a->height);
		return true;
	case ACT_DOWN:
		if (v->cur + 1 < n)
			v->cur++;
		show_cur(v, a->height);
		return true;
	case ACT_HOME:
		v->cur = 0;
		v->top = 0;
		return true;
	case ACT_END:
		v->cur = n ? n - 1 : 0;
		show_cur(v, a->height);
		return true;
	case ACT_PGDN:
	case ACT_PGUP:
		/* scroll a page; the cursor goes to the first finding that
		 * begins in sight, else the one the top line is part of */
		if (act == ACT_PGDN)
			v->top = v->top + h < v->n ? v->top + h : v->top;
		else
			v->top = v->top > h ? v->top - h : 0;
		if (n && v->top < v->n) {
			size_t f = v->lines[v->top].finding;

			v->cur = f == SIZE_MAX ? 0 : f;
			if (v->first[v->cur] < v->top && v->cur + 1 < n &&
			    v->first[v->cur + 1] < v->top + h)
				v->cur++;
		}
		return true;
	case ACT_ENTER:
		if (!n || !target_name(v->fs.findings[v->cur].rule, &to))
			return true;
		t->jump_view = (int)to;
		snprintf(t->jump_key, sizeof(t->jump_key), "%s",
			 v->fs.findings[v->cur].subject &&
					 to != VIEW_CODEHEAP &&
					 strcmp(v->fs.findings[v->cur].rule,
						"heap-after-gc-rising")
				 ? v->fs.findings[v->cur].subject
				 : "");
		return true;
	default:
		return false;
	}
}

static void fv_status(struct tui *t, void *st, char *out, size_t size)
{
	struct fview *v = st;

	(void)t;
	if (v->fs.n_findings)
		snprintf(out, size, "Findings, %s first",
			 finding_severity_name(v->fs.findings[0].severity));
	else
		snprintf(out, size, "Findings");
}

/* A search: the next finding after the cursor with a line that
 * matches. */
static bool fv_search(struct tui *t, void *st, const struct rx_user *re,
		      int dir)
{
	struct fview *v = st;
	size_t n = v->fs.n_findings, k, i;

	(void)t;
	for (k = dir == 0 ? 0 : 1; k <= n && n; k++) {
		size_t f =
			dir < 0 ? (v->cur + n - k % n) % n : (v->cur + k) % n;

		for (i = v->first[f]; i <= last_line(v, f); i++)
			if (rx_user_match(re, v->lines[i].text)) {
				v->cur = f;
				v->top = v->first[f];
				return true;
			}
		if (k == n)
			break;
	}
	return false;
}

const struct tui_view_ops view_findings = {
	.name = "Findings",
	.short_name = "Find",
	.new = fv_new,
	.free = fv_free,
	.draw = fv_draw,
	.act = fv_act,
	.status = fv_status,
	.search = fv_search,
};
