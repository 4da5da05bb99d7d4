/*
 * The cursor and scroll position of a list of n rows shown in h rows:
 * what every list and tree view moves the same way.  The rows
 * themselves are the view's; this knows only their count.
 */
#ifndef HS_TUI_LIST_H
#define HS_TUI_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/keys.h"

struct list {
	size_t n, cur, top;
};

/* Keep cur within n and visible in h rows. */
void list_fix(struct list *l, int h);
/* Apply a moving action (up, down, pages, home, end); false for any
 * other action. */
bool list_act(struct list *l, enum action act, int h);
/* Put the cursor on row i and keep it visible. */
void list_go(struct list *l, size_t i, int h);

#endif
