/*
 * The browser's main loop (tui.h): the tab bar, the status and message
 * lines, the help screen, the search and filter prompt, and dispatch of
 * keys (through the key table) and mouse events to the current view.
 * Redraws are driven by a dirty flag: one full redraw after each input,
 * which ncurses turns into the few cells that changed.  Everything a
 * view computes is cached by the view; this loop never queries.
 */
#include "tui/tui.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "findings/findings.h"
#include "tui/keys.h"
#include "tui/list.h"
#include "tui/names.h"
#include "tui/screen.h"
#include "tui/view.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/rx.h"
#include "util/xalloc.h"

const struct tui_view_ops *const view_table[] = {
	&view_overview, &view_alloc,	 &view_tree,	 &view_inverted,
	&view_timeline, &view_survivors, &view_codeheap, &view_findings,
};
const unsigned n_views = sizeof(view_table) / sizeof(view_table[0]);

/* --- helpers the views share -------------------------------------------- */

const char *tui_diff_amount(double v, bool sign, bool by_samples, char *out,
			    size_t size)
{
	char b[32];
	double x = fabs(v);
	const char *sg = v < 0 ? "-" : v > 0 && sign ? "+" : "";

	if (isnan(v))
		snprintf(out, size, "-");
	else if (by_samples)
		snprintf(out, size, "%s%.0f smp", sg, x);
	else
		snprintf(out, size, "%s%s", sg,
			 human_bytes(x < 9.2e18 ? (int64_t)llround(x)
						: INT64_MAX,
				     b, sizeof(b)));
	return out;
}

int tui_diff_style(const struct diff_row *r, bool cursor)
{
	return cursor	       ? ST_CURSOR
	       : r->change > 0 ? ST_GREW
	       : r->change < 0 ? ST_SHRANK
			       : ST_NORMAL;
}

int tui_diff_cells(int y, int x, int width, int style, const struct diff_row *r,
		   bool by_samples, bool samples)
{
	char b0[48], b1[48], b2[48];
	const char *v = r->change > 0 ? "grew" : r->change < 0 ? "shrank" : "";

	tui_diff_amount(r->value[0], false, by_samples, b0, sizeof(b0));
	tui_diff_amount(r->value[1], false, by_samples, b1, sizeof(b1));
	tui_diff_amount(r->delta, true, by_samples, b2, sizeof(b2));
	if (samples)
		return x + screen_putf(y, x, width - x, (enum style)style,
				       "%10s %10s %11s %6llu %6llu %-6s ", b0,
				       b1, b2,
				       (unsigned long long)r->samples[0],
				       (unsigned long long)r->samples[1], v);
	return x + screen_putf(y, x, width - x, (enum style)style,
			       "%10s %10s %11s %-6s ", b0, b1, b2, v);
}

const char *tui_offset(const struct model *m, int64_t ns, char *out,
		       size_t size)
{
	double s = ((double)ns - (double)m->start_ns) / 1e9;

	snprintf(out, size, "%s%.3f s", s < 0 ? "" : "+", s);
	return out;
}

void tui_message(struct tui *t, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
	t->msg_error = error;
}

/* --- the loop ------------------------------------------------------------ */

enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_FILTER };

struct loop {
	struct tui t;
	const char *name;
	void *state[16];
	unsigned view;
	bool help;
	struct list help_list;
	enum prompt_kind prompt;
	char line[256];
	size_t line_len;
	struct rx_user *search; /* the last search, for n and N */
	char search_text[256];
	FILE *stamp;
	unsigned long seq;
	int64_t last_press; /* for double clicks */
	int last_x, last_y;
};

static struct area body_area(void)
{
	struct area a;

	a.top = 1;
	a.height = scr.rows - 4;
	if (a.height < 1)
		a.height = 1;
	a.width = scr.cols;
	a.detail = scr.rows - 3;
	return a;
}

/* The tab of view i; short names when the long ones do not fit. */
static int tab_text(unsigned i, char *b, size_t size)
{
	unsigned k;
	int all = 0;

	for (k = 0; k < n_views; k++)
		all += (int)names_width(view_table[k]->name) + 4;
	snprintf(b, size, " %u %s ", i + 1,
		 all > scr.cols && view_table[i]->short_name
			 ? view_table[i]->short_name
			 : view_table[i]->name);
	return (int)names_width(b);
}

static void draw_tabs(struct loop *l)
{
	unsigned i;
	int x = 0;

	screen_fill(0, 0, scr.cols, ST_TITLE);
	for (i = 0; i < n_views; i++) {
		char b[64];
		int w = tab_text(i, b, sizeof(b));

		screen_put(0, x, w, i == l->view ? ST_TAB : ST_TITLE, b);
		x += w;
	}
	if (x + 2 < scr.cols) {
		char b[256];
		int w;

		/* what is browsed matters more than the program's name:
		 * eight tabs leave 80 columns little room */
		snprintf(b, sizeof(b), " heapsift: %s ", l->name);
		w = (int)names_width(b);
		if (x + w >= scr.cols) {
			snprintf(b, sizeof(b), " %s ", l->name);
			w = (int)names_width(b);
		}
		if (x + w < scr.cols)
			screen_put(0, scr.cols - w, w, ST_TITLE, b);
	}
}

/* The kind without "jdk.": the status line has 80 columns for all. */
static void kind_label(struct model *m, char *out, size_t size)
{
	const char *k = sample_kind_name(model_kind(m));

	snprintf(out, size, "%s", strncmp(k, "jdk.", 4) ? k : k + 4);
}

/* The status line: what the view shows (grouping, drill-down, filter)
 * on the left, cut first when space is short, so that the kind and the
 * time range are always there. */
static void draw_status(struct loop *l)
{
	char v[512], k[96], r[128], a[40], b[40], right[512], left[1024];
	struct model *m = &l->t.m;
	int y = scr.rows - 2, rw, lw;

	v[0] = '\0';
	if (view_table[l->view]->status)
		view_table[l->view]->status(&l->t, l->state[l->view], v,
					    sizeof(v));
	kind_label(m, k, sizeof(k));
	if (model_has_range(m))
		snprintf(r, sizeof(r), "%s..%s",
			 tui_offset(m, m->from_ns, a, sizeof(a)),
			 tui_offset(m, m->to_ns, b, sizeof(b)));
	else
		snprintf(r, sizeof(r), "all");
	if (m->base_on) {
		char base[128];

		if (m->base_recording >= 0)
			snprintf(base, sizeof(base), " vs base rec %lld",
				 (long long)m->base_recording);
		else
			snprintf(base, sizeof(base), " vs base %s..%s",
				 tui_offset(m, m->base_from_ns, a, sizeof(a)),
				 tui_offset(m, m->base_to_ns, b, sizeof(b)));
		snprintf(right, sizeof(right), " %s %s %s time %s%s ",
			 scr.vline, k, scr.vline, r, base);
	} else {
		snprintf(right, sizeof(right), " %s %s %s time %s ", scr.vline,
			 k, scr.vline, r);
	}
	rw = (int)names_width(right);
	if (l->search)
		snprintf(left, sizeof(left), " %s %s /%s", v, scr.vline,
			 l->search_text);
	else
		snprintf(left, sizeof(left), " %s", v);
	lw = (int)names_width(left);
	if (lw + rw > scr.cols) {
		/* the view's part is cut, with a mark */
		lw = scr.cols - rw - 1;
		if (lw < 0)
			lw = 0;
		screen_fill(y, 0, scr.cols, ST_STATUS);
		screen_put(y, 0, lw, ST_STATUS, left);
		screen_put(y, lw, 1, ST_STATUS, scr.ellipsis);
		screen_put(y, lw + 1, rw, ST_STATUS, right);
		return;
	}
	screen_fill(y, 0, scr.cols, ST_STATUS);
	screen_put(y, 0, lw, ST_STATUS, left);
	screen_put(y, lw, rw, ST_STATUS, right);
}

static void draw_bottom(struct loop *l)
{
	int y = scr.rows - 1;

	if (l->prompt) {
		screen_putf(y, 0, scr.cols, ST_NORMAL, "%s%s",
			    l->prompt == PROMPT_SEARCH ? "search /"
						       : "filter \\",
			    l->line);
		return;
	}
	if (l->t.msg[0]) {
		screen_put(y, 0, scr.cols,
			   l->t.msg_error ? ST_ERROR : ST_NORMAL, l->t.msg);
		return;
	}
	screen_put(y, 0, scr.cols, ST_DIM,
		   "? help  Tab views  / search  \\ filter  K kind  q quit");
}

/* The help screen: every binding with text, global ones first, then
 * the current view's. */
static size_t help_lines(struct loop *l, char lines[][160], size_t max)
{
	const struct key_binding *k;
	size_t n = 0;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if (n < max)
			snprintf(lines[n++], 160, "%s",
				 pass ? "" : "Keys everywhere");
		if (pass && n < max)
			snprintf(lines[n++], 160, "Keys in %s",
				 view_table[l->view]->name);
		for (k = key_table; k->act != ACT_NONE && n < max; k++) {
			if (!k->help || !k->name)
				continue;
			if (pass == 0 && k->views)
				continue;
			if (pass == 1 && !(k->views & VMASK(l->view)))
				continue;
			snprintf(lines[n++], 160, "  %-10s %s", k->name,
				 k->help);
		}
	}
	if (n < max)
		snprintf(lines[n++], 160, "%s", "");
	if (n < max)
		snprintf(lines[n++], 160, "%s",
			 "Mouse: click selects, double-click opens, the wheel "
			 "scrolls; click a tab to switch.");
	return n;
}

static void draw_help(struct loop *l, const struct area *a)
{
	static char lines[128][160];
	size_t n = help_lines(l, lines, 128), i;

	l->help_list.n = n;
	list_fix(&l->help_list, a->height);
	for (i = 0; i < (size_t)a->height && l->help_list.top + i < n; i++) {
		const char *s = lines[l->help_list.top + i];

		screen_put(a->top + (int)i, 1, a->width - 1,
			   s[0] == 'K' ? ST_HEADER : ST_NORMAL, s);
	}
	screen_put(a->detail, 0, a->width, ST_DIM,
		   "Esc, q or ? closes the help; j/k scroll");
}

static void draw(struct loop *l)
{
	struct area a = body_area();

	screen_size();
	screen_clear();
	if (scr.rows < 6 || scr.cols < 20) {
		screen_put(0, 0, scr.cols, ST_NORMAL, "too small");
		screen_show();
		return;
	}
	a = body_area();
	draw_tabs(l);
	if (l->help)
		draw_help(l, &a);
	else
		view_table[l->view]->draw(&l->t, l->state[l->view], &a);
	draw_status(l);
	draw_bottom(l);
	screen_show();
}

static void switch_view(struct loop *l, unsigned v)
{
	if (v >= n_views)
		return;
	l->view = v;
	l->help = false;
}

static void run_search(struct loop *l, int dir)
{
	const struct tui_view_ops *v = view_table[l->view];

	if (!l->search) {
		tui_message(&l->t, false, "no search yet: / starts one");
		return;
	}
	if (!v->search) {
		tui_message(&l->t, false, "%s: nothing to search here",
			    v->name);
		return;
	}
	if (!v->search(&l->t, l->state[l->view], l->search, dir))
		tui_message(&l->t, false, "no %s match for /%s",
			    dir >= 0 ? "later" : "earlier", l->search_text);
}

static void prompt_done(struct loop *l)
{
	struct err e;
	const struct tui_view_ops *v = view_table[l->view];
	struct rx_user *re = NULL;

	if (l->line_len) {
		re = rx_user_new(l->line, &e);
		if (!re) {
			tui_message(&l->t, true, "%s", e.msg);
			l->prompt = PROMPT_NONE;
			return;
		}
	}
	if (l->prompt == PROMPT_SEARCH) {
		l->prompt = PROMPT_NONE;
		if (!re)
			return;
		rx_user_free(l->search);
		l->search = re;
		snprintf(l->search_text, sizeof(l->search_text), "%s", l->line);
		run_search(l, 0);
		return;
	}
	l->prompt = PROMPT_NONE;
	if (!v->filter) {
		tui_message(&l->t, false, "%s: nothing to filter here",
			    v->name);
		rx_user_free(re);
		return;
	}
	v->filter(&l->t, l->state[l->view], re, l->line);
	rx_user_free(re);
}

static void prompt_key(struct loop *l, int c)
{
	if (c == 27) {
		l->prompt = PROMPT_NONE;
	} else if (c == '\n' || c == '\r' || c == KEY_ENTER) {
		prompt_done(l);
	} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
		if (l->line_len)
			l->line[--l->line_len] = '\0';
		else
			l->prompt = PROMPT_NONE;
	} else if (c == 21) { /* ^U */
		l->line_len = 0;
		l->line[0] = '\0';
	} else if (c >= 0x20 && c < 0x100 && c != 0x7f &&
		   l->line_len + 1 < sizeof(l->line)) {
		l->line[l->line_len++] = (char)c;
		l->line[l->line_len] = '\0';
	}
}

static void start_prompt(struct loop *l, enum prompt_kind k)
{
	l->prompt = k;
	l->line_len = 0;
	l->line[0] = '\0';
	l->t.msg[0] = '\0';
}

static void next_kind(struct loop *l)
{
	struct model *m = &l->t.m;
	int k = m->kind, i;

	for (i = 1; i <= SAMPLE__COUNT; i++) {
		int c = (k + i) % SAMPLE__COUNT;

		if (m->kind_counts[c]) {
			if (c == k)
				tui_message(
					&l->t, false,
					"%s is the only kind in this store",
					sample_kind_name((enum sample_kind)k));
			model_set_kind(m, c);
			return;
		}
	}
}

/* The other estimate of ObjectAllocationSample's bytes, where the
 * store has OutsideTLAB events to correct them with. */
static void next_estimate(struct loop *l)
{
	struct model *m = &l->t.m;
	struct err e;
	struct query *q;

	err_init(&e);
	q = model_query(m, &e);
	if (!q)
		return;
	if (!query_estimate_correctable(q)) {
		/* the note says why: no OutsideTLAB events, another
		 * kind, or a store of before 3.0 */
		tui_message(&l->t, false, "%s", query_estimate_note(q));
		return;
	}
	model_set_estimate(m, query_estimate(q) == QUERY_EST_CORRECTED
				      ? QUERY_EST_JFR
				      : QUERY_EST_CORRECTED);
	q = model_query(m, &e);
	if (q)
		tui_message(&l->t, false, "%s", query_estimate_note(q));
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void mouse(struct loop *l)
{
	MEVENT ev;
	struct area a = body_area();
	enum action act = ACT_NONE;
	bool twice;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & BUTTON4_PRESSED)
		act = ACT_UP;
#ifdef BUTTON5_PRESSED
	else if (ev.bstate & BUTTON5_PRESSED)
		act = ACT_DOWN;
#endif
	if (act != ACT_NONE) {
		int i;

		for (i = 0; i < 3; i++)
			if (l->help)
				list_act(&l->help_list, act, a.height);
			else
				view_table[l->view]->act(
					&l->t, l->state[l->view], act, &a);
		return;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return;
	/* a second press on the same cell soon after the first: a double
	 * click (curses' own detection delays every click) */
	{
		int64_t t = now_ns();

		twice = ev.x == l->last_x && ev.y == l->last_y &&
			t - l->last_press < 400000000;
		l->last_press = twice ? 0 : t;
		l->last_x = ev.x;
		l->last_y = ev.y;
	}
	if (ev.y == 0) {
		/* which tab: the same widths draw_tabs used */
		unsigned i;
		int x = 0;

		for (i = 0; i < n_views; i++) {
			char b[64];
			int w = tab_text(i, b, sizeof(b));

			if (ev.x >= x && ev.x < x + w) {
				switch_view(l, i);
				return;
			}
			x += w;
		}
		return;
	}
	if (!l->help && ev.y >= a.top && ev.y < a.top + a.height &&
	    view_table[l->view]->click)
		view_table[l->view]->click(&l->t, l->state[l->view], &a,
					   ev.y - a.top, ev.x, twice);
}

/* A view asked to go to another (the Findings view's Enter): switch,
 * and search there for the key, literally, as / would. */
static void jump(struct loop *l)
{
	const struct tui_view_ops *v;
	struct buf re = BUF_INIT;
	struct err e;
	struct rx_user *r;

	switch_view(l, (unsigned)l->t.jump_view);
	l->t.jump_view = -1;
	v = view_table[l->view];
	if (!l->t.jump_key[0] || !v->search)
		return;
	findings_regex_literal(&re, l->t.jump_key);
	r = rx_user_new(re.data, &e);
	buf_release(&re);
	if (!r)
		return;
	/* draw once first: a view builds its rows when drawn */
	draw(l);
	if (v->search(&l->t, l->state[l->view], r, 0)) {
		rx_user_free(l->search);
		l->search = r;
		snprintf(l->search_text, sizeof(l->search_text), "%.200s",
			 l->t.jump_key);
	} else {
		tui_message(&l->t, false, "%s: %s is not among the rows shown",
			    v->name, l->t.jump_key);
		rx_user_free(r);
	}
}

/* B: the time range becomes the baseline (and is cleared, so that the
 * next range is compared with it); without one, recording 0 when there
 * are several; with a baseline, back to plain views. */
static void baseline_key(struct loop *l)
{
	struct model *m = &l->t.m;
	const struct query_recording *r;
	size_t n = 0;
	struct query *q;
	struct err e;
	char a[40], b[40];

	if (m->base_on) {
		model_clear_base(m);
		tui_message(&l->t, false, "baseline off");
		return;
	}
	if (model_has_range(m)) {
		tui_offset(m, m->from_ns, a, sizeof(a));
		tui_offset(m, m->to_ns, b, sizeof(b));
		model_set_base(m, -1, m->from_ns, m->to_ns);
		model_set_range(m, INT64_MIN, INT64_MAX);
		tui_message(&l->t, false,
			    "baseline: %s..%s; select another range to compare "
			    "(B: off)",
			    a, b);
		return;
	}
	err_init(&e);
	q = model_query_all(m, &e);
	if (q)
		query_recordings(q, &r, &n);
	if (n < 2) {
		tui_message(&l->t, true,
			    "select a time range in the Timeline first (or "
			    "give browse --base)");
		return;
	}
	model_set_base(m, 0, 0, 0);
	tui_message(
		&l->t, false,
		"baseline: recording 0, compared with recording 1 (B: off)");
}

static bool key(struct loop *l, int c)
{
	struct area a = body_area();
	enum action act;
	const struct tui_view_ops *v = view_table[l->view];

	if (c == KEY_RESIZE) {
		screen_size();
		return true;
	}
	if (l->prompt) {
		prompt_key(l, c);
		return true;
	}
	l->t.msg[0] = '\0';
	if (c == KEY_MOUSE) {
		mouse(l);
		return true;
	}
	act = keys_lookup(c, l->view);
	if (l->help) {
		if (act == ACT_HELP || act == ACT_BACK || act == ACT_QUIT)
			l->help = false;
		else if (act >= ACT_VIEW_1 && act <= ACT_VIEW_9)
			switch_view(l, (unsigned)(act - ACT_VIEW_1));
		else if (act == ACT_NEXT_VIEW || act == ACT_PREV_VIEW)
			l->help = false;
		else
			list_act(&l->help_list, act, a.height);
		if (act != ACT_NEXT_VIEW && act != ACT_PREV_VIEW)
			return true;
	}
	switch (act) {
	case ACT_QUIT:
		return false;
	case ACT_HELP:
		l->help = true;
		l->help_list.cur = l->help_list.top = 0;
		break;
	case ACT_NEXT_VIEW:
		switch_view(l, (l->view + 1) % n_views);
		break;
	case ACT_PREV_VIEW:
		switch_view(l, (l->view + n_views - 1) % n_views);
		break;
	case ACT_VIEW_1:
	case ACT_VIEW_2:
	case ACT_VIEW_3:
	case ACT_VIEW_4:
	case ACT_VIEW_5:
	case ACT_VIEW_6:
	case ACT_VIEW_7:
	case ACT_VIEW_8:
	case ACT_VIEW_9:
		switch_view(l, (unsigned)(act - ACT_VIEW_1));
		break;
	case ACT_SEARCH:
		start_prompt(l, PROMPT_SEARCH);
		break;
	case ACT_FILTER:
		start_prompt(l, PROMPT_FILTER);
		break;
	case ACT_SEARCH_NEXT:
		run_search(l, 1);
		break;
	case ACT_SEARCH_PREV:
		run_search(l, -1);
		break;
	case ACT_KIND:
		next_kind(l);
		break;
	case ACT_ESTIMATE:
		next_estimate(l);
		break;
	case ACT_CLEAR_RANGE:
		if (model_has_range(&l->t.m)) {
			model_set_range(&l->t.m, INT64_MIN, INT64_MAX);
			tui_message(&l->t, false, "time range cleared");
		} else {
			v->act(&l->t, l->state[l->view], ACT_CLEAR_RANGE, &a);
		}
		break;
	case ACT_BASELINE:
		baseline_key(l);
		break;
	case ACT_REDRAW:
		clearok(stdscr, TRUE);
		break;
	case ACT_NONE:
		break;
	default:
		if (!v->act(&l->t, l->state[l->view], act, &a) &&
		    act == ACT_BACK && l->search) {
			/* nothing to step back from: forget the search */
			rx_user_free(l->search);
			l->search = NULL;
		}
		if (l->t.jump_view >= 0)
			jump(l);
	}
	return true;
}

int tui_browse(struct store *s, const char *name, const char *store_path,
	       const struct tui_base *base, int estimate, struct err *e)
{
	struct loop *l = xcalloc(1, sizeof(*l));
	const char *stamp = getenv("HEAPSIFT_BROWSE_STAMP");
	unsigned i, errors = 0;
	int rc = 0;
	char why[256];

	if (model_init(&l->t.m, s, e) < 0) {
		free(l);
		return ERR_FAIL;
	}
	if (estimate >= 0)
		model_set_estimate(&l->t.m, estimate);
	if (screen_init(why, sizeof(why)) < 0) {
		model_release(&l->t.m);
		free(l);
		return err_set(e, ERR_USAGE, "%s", why);
	}
	l->name = name;
	l->t.store_path = store_path;
	l->t.jump_view = -1;
	if (base && base->set)
		model_set_base(&l->t.m, base->recording, base->from_ns,
			       base->to_ns);
	for (i = 0; i < n_views; i++)
		l->state[i] = view_table[i]->new (&l->t);
	if (stamp && *stamp)
		l->stamp = fopen(stamp, "a");
	draw(l);
	for (;;) {
		int c = getch();
		int64_t t0 = now_ns();

		if (c == ERR) {
			/* the terminal went away: stop instead of spinning */
			if (++errors > 1000)
				break;
			continue;
		}
		errors = 0;
		if (!key(l, c))
			break;
		draw(l);
		if (l->stamp) {
			fprintf(l->stamp, "%lu %lld %lld\n", ++l->seq,
				(long long)t0, (long long)now_ns());
			fflush(l->stamp);
			/* the same number as the terminal's title, after the
			 * screen's bytes: a terminal (tmux) that shows it has
			 * drawn everything before it */
			printf("\033]2;hs-browse-%lu\033\\", l->seq);
			fflush(stdout);
		}
	}
	screen_end();
	if (l->stamp)
		fclose(l->stamp);
	for (i = 0; i < n_views; i++)
		view_table[i]->free(l->state[i]);
	rx_user_free(l->search);
	model_release(&l->t.m);
	free(l);
	return rc;
}
