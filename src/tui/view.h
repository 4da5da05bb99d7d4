/*
 * What the browser's main loop and its views agree on.  Each view is a
 * const struct tui_view_ops in view_table[] (as tmux's modes are): a
 * name and number for the tab bar, and functions that draw it, act on
 * actions from the key table, and answer searches and filters.  A view
 * keeps its state (cursor, folds, cached query results) in an object of
 * its own that lives while the browser runs, so that switching away and
 * back finds it as it was.  A new view is one more entry in
 * view_table[].
 */
#ifndef HS_TUI_VIEW_H
#define HS_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/keys.h"
#include "tui/model.h"

struct rx_user;

/* The area a view draws in: rows top .. top + height - 1, all columns;
 * the row below it is the detail line the view fills too. */
struct area {
	int top, height, width;
	int detail; /* row of the detail line */
};

struct tui {
	struct model m;
	char msg[512]; /* shown on the last line until the next key */
	bool msg_error;
	/* the store as a command names it (the findings' commands) */
	const char *store_path;
	/* set by a view's act: go to view jump_view (-1: stay) and search
	 * there for jump_key literally ("": no search) */
	int jump_view;
	char jump_key[512];
};

/* Say something on the message line (errors in their style). */
void tui_message(struct tui *t, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct tui_view_ops {
	const char *name;	/* on the tab bar and in the help */
	const char *short_name; /* on the tab bar when names do not fit */
	void *(*new)(struct tui *t);
	void (*free)(void *st);
	void (*draw)(struct tui *t, void *st, const struct area *a);
	/* true when the action was the view's (ACT_BACK included: false
	 * lets the main loop treat Esc as "nothing to step back from") */
	bool (*act)(struct tui *t, void *st, enum action act,
		    const struct area *a);
	/* One line for the status bar: grouping, drill-down, filter. */
	void (*status)(struct tui *t, void *st, char *out, size_t size);
	/* Move to the next (dir 1) or previous (-1) row that matches re
	 * after the cursor; false when none does.  NULL: not searchable. */
	bool (*search)(struct tui *t, void *st, const struct rx_user *re,
		       int dir);
	/* Hide what does not match re (NULL: show all again). */
	void (*filter)(struct tui *t, void *st, const struct rx_user *re,
		       const char *pattern);
	/* A click on row y, column x of the area (twice: a double click,
	 * which opens).  NULL: clicks do nothing. */
	void (*click)(struct tui *t, void *st, const struct area *a, int y,
		      int x, bool twice);
};

extern const struct tui_view_ops *const view_table[];
extern const unsigned n_views;

/* Views' indices, for the key table's masks. */
enum {
	VIEW_OVERVIEW,
	VIEW_ALLOC,
	VIEW_TREE,
	VIEW_INVERTED,
	VIEW_TIMELINE,
	VIEW_SURVIVORS,
	VIEW_CODEHEAP,
	VIEW_FINDINGS,
};
#define VMASK(v) (1u << (v))

/* Against the baseline (the Allocations, tree and Survivors views): an
 * amount of a diff row, "+1.23 MB" ("+" only with sign), "12 smp" where
 * the table counts samples, "-" for none (NaN). */
const char *tui_diff_amount(double v, bool sign, bool by_samples, char *out,
			    size_t size);
/* A diff row's cells from column x of screen row y: base, new, change,
 * with the samples on both sides when samples, and the verdict ("grew",
 * "shrank"); returns the column after them.  Its style: the cursor's,
 * else grew or shrank beyond noise, else normal. */
int tui_diff_cells(int y, int x, int width, int style, const struct diff_row *r,
		   bool by_samples, bool samples);
int tui_diff_style(const struct diff_row *r, bool cursor);
/* "+1.200 s" from the model's time 0 */
const char *tui_offset(const struct model *m, int64_t ns, char *out,
		       size_t size);

extern const struct tui_view_ops view_overview, view_alloc, view_tree,
	view_inverted, view_timeline, view_survivors, view_codeheap,
	view_findings;

#endif
