/* Cursor and scrolling of lists (list.h). */
#include "tui/list.h"

void list_fix(struct list *l, int h)
{
	size_t hh = h > 0 ? (size_t)h : 1;

	if (!l->n) {
		l->cur = l->top = 0;
		return;
	}
	if (l->cur >= l->n)
		l->cur = l->n - 1;
	if (l->cur < l->top)
		l->top = l->cur;
	if (l->cur >= l->top + hh)
		l->top = l->cur - hh + 1;
	/* no empty space below the last row when there is more above */
	if (l->top + hh > l->n)
		l->top = l->n > hh ? l->n - hh : 0;
}

void list_go(struct list *l, size_t i, int h)
{
	l->cur = i;
	list_fix(l, h);
}

bool list_act(struct list *l, enum action act, int h)
{
	size_t page = h > 1 ? (size_t)h - 1 : 1;

	switch (act) {
	case ACT_UP:
		if (l->cur)
			l->cur--;
		break;
	case ACT_DOWN:
		if (l->cur + 1 < l->n)
			l->cur++;
		break;
	case ACT_PGUP:
		l->cur = l->cur > page ? l->cur - page : 0;
		break;
	case ACT_PGDN:
		l->cur += page;
		break;
	case ACT_HOME:
		l->cur = 0;
		break;
	case ACT_END:
		l->cur = l->n ? l->n - 1 : 0;
		break;
	default:
		return false;
	}
	list_fix(l, h);
	return true;
}
