/*
 * Java names made to fit a column: packages abbreviated to their first
 * letter from the outermost in (java.util.concurrent.ConcurrentHashMap
 * -> j.u.c.ConcurrentHashMap), and only when that is not enough the
 * front cut with an ellipsis, so that the class, the method and the line
 * stay readable.  Pure string work; no curses.
 */
#ifndef HS_TUI_NAMES_H
#define HS_TUI_NAMES_H

#include <stddef.h>

/* Display width of s: UTF-8 code points (every one counted as one
 * column; names are almost always ASCII). */
size_t names_width(const char *s);

/*
 * name shortened to at most width columns into out (size bytes, always
 * NUL-terminated).  ellipsis is what marks a cut ("…" or "~").
 * Returns out.
 */
char *names_shorten(const char *name, size_t width, const char *ellipsis,
		    char *out, size_t size);

#endif
