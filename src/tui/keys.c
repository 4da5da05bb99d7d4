/*
 * The key table (keys.h).  Order matters twice: lookups take the first
 * binding of a key for the view, and the help screen lists bindings in
 * this order, global ones first.  Keys follow perf report, htop and
 * ncdu where they agree.
 */
#include "tui/keys.h"

#include <curses.h>
#include <stddef.h>

#include "tui/view.h"

#define TREES (VMASK(VIEW_TREE) | VMASK(VIEW_INVERTED))
#define LISTS (VMASK(VIEW_ALLOC) | VMASK(VIEW_SURVIVORS))
#define ESC   27

const struct key_binding key_table[] = {
	{'?', "?", ACT_HELP, 0, "this help (generated from the key table)"},
	{KEY_F(1), "F1", ACT_HELP, 0, NULL},
	{'q', "q", ACT_QUIT, 0, "quit"},
	{'\t', "Tab", ACT_NEXT_VIEW, 0, "next view"},
	{KEY_BTAB, "S-Tab", ACT_PREV_VIEW, 0, "previous view"},
	{'1', "1-8", ACT_VIEW_1, 0, "go to view 1..8 (see the tab bar)"},
	{'2', NULL, ACT_VIEW_2, 0, NULL},
	{'3', NULL, ACT_VIEW_3, 0, NULL},
	{'4', NULL, ACT_VIEW_4, 0, NULL},
	{'5', NULL, ACT_VIEW_5, 0, NULL},
	{'6', NULL, ACT_VIEW_6, 0, NULL},
	{'7', NULL, ACT_VIEW_7, 0, NULL},
	{'8', NULL, ACT_VIEW_8, 0, NULL},
	{'9', NULL, ACT_VIEW_9, 0, NULL},
	{KEY_UP, "Up k", ACT_UP, 0, "move up"},
	{'k', NULL, ACT_UP, 0, NULL},
	{KEY_DOWN, "Down j", ACT_DOWN, 0, "move down"},
	{'j', NULL, ACT_DOWN, 0, NULL},
	{KEY_PPAGE, "PgUp", ACT_PGUP, 0, "page up"},
	{KEY_NPAGE, "PgDn", ACT_PGDN, 0, "page down"},
	{KEY_HOME, "Home g", ACT_HOME, 0, "first row"},
	{KEY_END, "End G", ACT_END, 0, "last row"},
	{'/', "/", ACT_SEARCH, 0, "search (jump to) a PCRE2 regex"},
	{'n', "n", ACT_SEARCH_NEXT, TREES | LISTS | VMASK(VIEW_FINDINGS),
	 "next match"},
	{'N', "N", ACT_SEARCH_PREV, TREES | LISTS | VMASK(VIEW_FINDINGS),
	 "previous match"},
	{'\\', "\\", ACT_FILTER, 0,
	 "filter: hide rows that do not match a regex (empty: clear)"},
	{'K', "K", ACT_KIND, 0, "next sample kind"},
	{'W', "W", ACT_ESTIMATE, 0,
	 "ObjectAllocationSample bytes: corrected or the JFR weights"},
	{'x', "x", ACT_CLEAR_RANGE, 0, "clear the time range"},
	{'B', "B", ACT_BASELINE, 0,
	 "the time range (else recording 0) as baseline; again: off"},
	{ESC, "Esc", ACT_BACK, 0, "step back (drill-down, mark, message)"},
	{KEY_BACKSPACE, NULL, ACT_BACK, 0, NULL},
	{12, "^L", ACT_REDRAW, 0, "redraw"},
	/* allocations */
	{'\n', "Enter", ACT_ENTER, VMASK(VIEW_ALLOC),
	 "drill into the row: its call paths, classes, threads"},
	{KEY_ENTER, NULL, ACT_ENTER, VMASK(VIEW_ALLOC), NULL},
	{KEY_RIGHT, NULL, ACT_ENTER, VMASK(VIEW_ALLOC), NULL},
	{KEY_LEFT, NULL, ACT_BACK, VMASK(VIEW_ALLOC), NULL},
	{'c', "c", ACT_GROUP, VMASK(VIEW_ALLOC) | VMASK(VIEW_SURVIVORS),
	 "next grouping: class, site, app-site, thread, recording"},
	{'C', "C", ACT_GROUP_BACK, VMASK(VIEW_ALLOC), "previous grouping"},
	{'b', "b", ACT_SORT_BYTES, LISTS, "sort by estimated bytes"},
	{'s', "s", ACT_SORT_SAMPLES, LISTS, "sort by samples"},
	{'a', "a", ACT_SORT_NAME, LISTS, "sort by name"},
	/* trees */
	{'\n', "Enter", ACT_ENTER, TREES, "fold or unfold the node"},
	{KEY_ENTER, NULL, ACT_ENTER, TREES, NULL},
	{'+', "+ Right l", ACT_UNFOLD, TREES, "unfold"},
	{KEY_RIGHT, NULL, ACT_UNFOLD, TREES, NULL},
	{'l', NULL, ACT_UNFOLD, TREES, NULL},
	{'-', "- Left h", ACT_FOLD, TREES, "fold, or go to the parent"},
	{KEY_LEFT, NULL, ACT_FOLD, TREES, NULL},
	{'h', NULL, ACT_FOLD, TREES, NULL},
	{'e', "e", ACT_EXPAND_BELOW, TREES, "unfold everything below"},
	{'E', "E", ACT_EXPAND_ALL, TREES, "unfold everything"},
	{'C', "C", ACT_COLLAPSE_ALL, TREES, "fold everything"},
	/* timeline */
	{KEY_LEFT, "Left h", ACT_LEFT, VMASK(VIEW_TIMELINE),
	 "previous time bucket"},
	{'h', NULL, ACT_LEFT, VMASK(VIEW_TIMELINE), NULL},
	{KEY_RIGHT, "Right l", ACT_RIGHT, VMASK(VIEW_TIMELINE),
	 "next time bucket"},
	{'l', NULL, ACT_RIGHT, VMASK(VIEW_TIMELINE), NULL},
	{' ', "Space", ACT_MARK, VMASK(VIEW_TIMELINE),
	 "mark one end of a time range"},
	{'\n', "Enter", ACT_ENTER, VMASK(VIEW_TIMELINE),
	 "apply the marked range to every view"},
	{KEY_ENTER, NULL, ACT_ENTER, VMASK(VIEW_TIMELINE), NULL},
	/* survivors */
	{'o', "o", ACT_COHORT, VMASK(VIEW_SURVIVORS),
	 "cohorts: none, by age, by GCs survived"},
	/* code heaps */
	{'\n', "Enter", ACT_ENTER, VMASK(VIEW_CODEHEAP),
	 "open the heap's granule map"},
	{KEY_ENTER, NULL, ACT_ENTER, VMASK(VIEW_CODEHEAP), NULL},
	{KEY_LEFT, "Left Right", ACT_LEFT, VMASK(VIEW_CODEHEAP),
	 "previous, next granule of the map (h, l)"},
	{'h', NULL, ACT_LEFT, VMASK(VIEW_CODEHEAP), NULL},
	{KEY_RIGHT, NULL, ACT_RIGHT, VMASK(VIEW_CODEHEAP), NULL},
	{'l', NULL, ACT_RIGHT, VMASK(VIEW_CODEHEAP), NULL},
	{'+', "+ -", ACT_UNFOLD, VMASK(VIEW_CODEHEAP),
	 "zoom the map in (fewer granules a cell), out (more)"},
	{'-', NULL, ACT_FOLD, VMASK(VIEW_CODEHEAP), NULL},
	{'m', "m", ACT_GROUP, VMASK(VIEW_CODEHEAP),
	 "next map: space, count, age, tier, type"},
	{'n', "n N", ACT_SEARCH_NEXT, VMASK(VIEW_CODEHEAP),
	 "next, previous match"},
	{'N', NULL, ACT_SEARCH_PREV, VMASK(VIEW_CODEHEAP), NULL},
	/* findings */
	{'\n', "Enter", ACT_ENTER, VMASK(VIEW_FINDINGS),
	 "go to the view of the finding's subject and find it there"},
	{KEY_ENTER, NULL, ACT_ENTER, VMASK(VIEW_FINDINGS), NULL},
	{KEY_RIGHT, NULL, ACT_ENTER, VMASK(VIEW_FINDINGS), NULL},
	{0, NULL, ACT_NONE, 0, NULL},
};

enum action keys_lookup(int key, unsigned view)
{
	const struct key_binding *k;

	if (key == KEY_HOME || key == 'g')
		key = KEY_HOME;
	else if (key == KEY_END || key == 'G')
		key = KEY_END;
	else if (key == '\r')
		key = '\n';
	else if (key == 127 || key == 8)
		key = KEY_BACKSPACE;
	for (k = key_table; k->act != ACT_NONE; k++)
		if (k->key == key && k->views && (k->views & VMASK(view)))
			return k->act;
	for (k = key_table; k->act != ACT_NONE; k++)
		if (k->key == key && !k->views)
			return k->act;
	return ACT_NONE;
}
