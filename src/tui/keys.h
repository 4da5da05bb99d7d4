/*
 * The key table: every key the browser understands, what it does and in
 * which views, in one place, from which the help screen is drawn (as
 * tmux and perf do it).  A key means an action; views handle actions,
 * never raw keys, so that rebinding is a change to the table alone.
 */
#ifndef HS_TUI_KEYS_H
#define HS_TUI_KEYS_H

#include <stdbool.h>

enum action {
	ACT_NONE,
	/* global */
	ACT_QUIT,
	ACT_HELP,
	ACT_NEXT_VIEW,
	ACT_PREV_VIEW,
	ACT_VIEW_1, /* ACT_VIEW_1 + i: view i */
	ACT_VIEW_2,
	ACT_VIEW_3,
	ACT_VIEW_4,
	ACT_VIEW_5,
	ACT_VIEW_6,
	ACT_VIEW_7,
	ACT_VIEW_8,
	ACT_VIEW_9,
	ACT_SEARCH,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_FILTER,
	ACT_KIND,
	ACT_ESTIMATE,
	ACT_CLEAR_RANGE,
	ACT_BACK,
	ACT_REDRAW,
	/* moving */
	ACT_UP,
	ACT_DOWN,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_LEFT,
	ACT_RIGHT,
	/* in views */
	ACT_ENTER,
	ACT_GROUP,
	ACT_GROUP_BACK,
	ACT_SORT_BYTES,
	ACT_SORT_SAMPLES,
	ACT_SORT_NAME,
	ACT_UNFOLD,
	ACT_FOLD,
	ACT_EXPAND_BELOW,
	ACT_EXPAND_ALL,
	ACT_COLLAPSE_ALL,
	ACT_MARK,
	ACT_COHORT,
	ACT_BASELINE,
	ACT__COUNT
};

/* Views a binding applies to: a mask of 1u << view index; 0: all. */
struct key_binding {
	int key;	  /* a curses key code or a character */
	const char *name; /* as the help shows it */
	enum action act;
	unsigned views;
	const char *help;
};

extern const struct key_binding key_table[];

/* The action of key in view (a view's own binding before a global one);
 * ACT_NONE when unbound. */
enum action keys_lookup(int key, unsigned view);

#endif
