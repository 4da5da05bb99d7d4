/*
 * The allocation wrappers and fatal exits declared in xalloc.h.
 */
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/size.h"

/* die() may run on a worker thread while the main one registers: the
 * slots are atomic pointers */
static const char *_Atomic die_unlink_paths[4];

void die_unlink_add(const char *path)
{
	size_t i;

	for (i = 0; i < sizeof(die_unlink_paths) / sizeof(*die_unlink_paths);
	     i++) {
		const char *none = NULL;

		if (atomic_compare_exchange_strong(&die_unlink_paths[i], &none,
						   path))
			return;
	}
}

void die_unlink_remove(const char *path)
{
	size_t i;

	for (i = 0; i < sizeof(die_unlink_paths) / sizeof(*die_unlink_paths);
	     i++) {
		const char *p = path;

		if (atomic_compare_exchange_strong(&die_unlink_paths[i], &p,
						   NULL))
			return;
	}
}

void die(const char *fmt, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < sizeof(die_unlink_paths) / sizeof(*die_unlink_paths);
	     i++) {
		const char *p = atomic_exchange(&die_unlink_paths[i], NULL);

		if (p)
			unlink(p);
	}

	fflush(stdout);
	fputs("heapsift: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void bug_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "heapsift: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		die("out of memory reallocating to %zu bytes", size);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (!size_mul(n, size, &total))
		die("allocation of %zu x %zu bytes overflows", n, size);
	return xrealloc(p, total);
}

char *xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

char *xmemdup(const void *p, size_t len)
{
	size_t total;
	char *q;

	if (!size_add(len, 1, &total))
		die("allocation of %zu bytes overflows", len);
	q = xmalloc(total);
	if (len)
		memcpy(q, p, len);
	q[len] = '\0';
	return q;
}
