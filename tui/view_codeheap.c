/*
 * The Code heaps view, a placeholder: the code-heap store and query API
 * are being built (issue 6), and this view will show the heaps, their
 * facts and the granule maps through it.  Until then it says there is
 * nothing to show, and nothing else: it does not guess at that API.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tui/screen.h"
#include "tui/view.h"

static void *ch_new(struct tui *t)
{
	(void)t;
	return NULL;
}

static void ch_free(void *st)
{
	(void)st;
}

static void ch_draw(struct tui *t, void *st, const struct area *a)
{
	(void)t;
	(void)st;
	screen_put(a->top + 1, 2, a->width - 2, ST_DIM,
		   "no code-heap snapshots in this store");
}

static bool ch_act(struct tui *t, void *st, enum action act,
		   const struct area *a)
{
	(void)t;
	(void)st;
	(void)act;
	(void)a;
	return false;
}

static void ch_status(struct tui *t, void *st, char *out, size_t size)
{
	(void)t;
	(void)st;
	snprintf(out, size, "Code heaps");
}

const struct tui_view_ops view_codeheap = {
	.name = "Code heaps",
	.short_name = "Code",
	.new = ch_new,
	.free = ch_free,
	.draw = ch_draw,
	.act = ch_act,
	.status = ch_status,
};
