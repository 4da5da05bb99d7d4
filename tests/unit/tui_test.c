/*
 * The browser's pure parts: name shortening (src/tui/names.c) and list
 * movement (src/tui/list.c).  The screens themselves are tested through
 * tmux by tests/cli/browse.sh.
 */
#include "test.h"
#include <curses.h>

#include "tui/keys.h"
#include "tui/list.h"
#include "tui/names.h"
#include "tui/view.h"

static const char *shorten(const char *name, size_t w)
{
	static char out[256];

	return names_shorten(name, w, "~", out, sizeof(out));
}

TEST(names_fit_unchanged)
{
	CHECK_STR(shorten("java.util.HashMap.resize:702", 28),
		  "java.util.HashMap.resize:702");
	CHECK_STR(shorten("byte[]", 80), "byte[]");
}

TEST(names_packages_abbreviated_outermost_first)
{
	const char *n =
		"java.util.concurrent.ConcurrentHashMap$Node.putVal:1234";

	CHECK_UINT(names_width(n), ==, 55);
	/* 52 after java, 49 after util, 40 after concurrent */
	CHECK_STR(shorten(n, 54),
		  "j.util.concurrent.ConcurrentHashMap$Node.putVal:1234");
	CHECK_STR(shorten(n, 50),
		  "j.u.concurrent.ConcurrentHashMap$Node.putVal:1234");
	CHECK_STR(shorten(n, 40), "j.u.c.ConcurrentHashMap$Node.putVal:1234");
}

TEST(names_cut_at_the_front_last)
{
	const char *n =
		"java.util.concurrent.ConcurrentHashMap$Node.putVal:1234";

	/* the end (method, line) is what stays */
	CHECK_STR(shorten(n, 20), "~ap$Node.putVal:1234");
	CHECK_STR(shorten("byte[]", 3), "~[]");
	CHECK_STR(shorten("byte[]", 0), "");
	/* a class without a package is never abbreviated, only cut */
	CHECK_STR(shorten("HeapWorkload$OrderWorker.run:127", 10),
		  "~r.run:127");
}

TEST(names_width_counts_code_points)
{
	CHECK_UINT(names_width("caf\xc3\xa9"), ==, 4);
	CHECK_STR(shorten("x.caf\xc3\xa9.Klass", 12), "x.caf\xc3\xa9.Klass");
	/* "x.c.Klass" is 9 columns: cut to 7 from the front */
	CHECK_STR(shorten("x.caf\xc3\xa9.Klass", 7), "~.Klass");
}

TEST(list_moves_and_scrolls)
{
	struct list l = {100, 0, 0};

	CHECK(list_act(&l, ACT_DOWN, 10));
	CHECK_UINT(l.cur, ==, 1);
	CHECK(list_act(&l, ACT_PGDN, 10));
	CHECK_UINT(l.cur, ==, 10);
	CHECK_UINT(l.top, ==, 1); /* the cursor is on the last row shown */
	CHECK(list_act(&l, ACT_END, 10));
	CHECK_UINT(l.cur, ==, 99);
	CHECK_UINT(l.top, ==, 90);
	CHECK(list_act(&l, ACT_DOWN, 10));
	CHECK_UINT(l.cur, ==, 99);
	CHECK(list_act(&l, ACT_HOME, 10));
	CHECK_UINT(l.cur, ==, 0);
	CHECK_UINT(l.top, ==, 0);
	CHECK(!list_act(&l, ACT_ENTER, 10));
	/* the list shrinks under the cursor (a filter) */
	l.cur = 50;
	l.n = 5;
	list_fix(&l, 10);
	CHECK_UINT(l.cur, ==, 4);
	CHECK_UINT(l.top, ==, 0);
	l.n = 0;
	list_fix(&l, 10);
	CHECK_UINT(l.cur, ==, 0);
}

TEST(keys_view_bindings_before_global_ones)
{
	CHECK_INT(keys_lookup('C', VIEW_TREE), ==, ACT_COLLAPSE_ALL);
	CHECK_INT(keys_lookup('C', VIEW_ALLOC), ==, ACT_GROUP_BACK);
	CHECK_INT(keys_lookup(KEY_RIGHT, VIEW_TIMELINE), ==, ACT_RIGHT);
	CHECK_INT(keys_lookup(KEY_RIGHT, VIEW_INVERTED), ==, ACT_UNFOLD);
	CHECK_INT(keys_lookup('q', VIEW_SURVIVORS), ==, ACT_QUIT);
	CHECK_INT(keys_lookup('\r', VIEW_ALLOC), ==, ACT_ENTER);
	CHECK_INT(keys_lookup('G', VIEW_OVERVIEW), ==, ACT_END);
	CHECK_INT(keys_lookup('Z', VIEW_ALLOC), ==, ACT_NONE);
}

/* A binding that an earlier one for the same key and view hides can
 * never fire, and the help would list a key that does something else. */
TEST(keys_no_binding_is_shadowed)
{
	const struct key_binding *a, *b;

	for (a = key_table; a->act != ACT_NONE; a++)
		for (b = a + 1; b->act != ACT_NONE; b++) {
			if (a->key != b->key)
				continue;
			if ((!a->views && !b->views) ||
			    (a->views && b->views && (a->views & b->views)))
				test_fail(__FILE__, __LINE__,
					  "key %d is bound twice for the same "
					  "views (actions %d and %d)",
					  a->key, a->act, b->act);
		}
}
