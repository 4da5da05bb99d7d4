/*
 * Allocation that cannot fail, and the two ways to stop the process.
 *
 * Out-of-memory and broken invariants are the only fatal conditions in
 * heapsift (bad input never is), so every allocation goes through these
 * wrappers and callers never test for NULL.  Nothing here knows about
 * files, formats or the CLI.
 */
#ifndef HS_XALLOC_H
#define HS_XALLOC_H

#include <stddef.h>

/* Print "heapsift: fatal: ..." and exit(1).  For out-of-memory only. */
_Noreturn void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A temporary file that die() removes before it exits (a store or an
 * export being written when memory runs out must not be left behind):
 * die_unlink_add(path) while the file exists, die_unlink_remove(path)
 * once it is renamed or removed.  path is borrowed; a few at a time.
 */
void die_unlink_add(const char *path);
void die_unlink_remove(const char *path);

/* A broken invariant: print file:line and abort() so that a core or a
 * sanitizer report shows where. */
#define BUG(...) bug_at(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void bug_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Owned results; free() them.  Sizes are checked for overflow. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xmemdup(const void *p, size_t len); /* adds a NUL after len bytes */

#endif
