/*
 * The large-array allocator declared in bigmem.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap */
#endif
#include "util/bigmem.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIGMEM_PLAIN 1
#endif
#endif
#else
#define BIGMEM_PLAIN 1
#endif

#ifndef BIGMEM_PLAIN
#include <sys/mman.h>

static int mapped(size_t size)
{
	return size >= BIGMEM_MIN;
}

static void *map_new(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("out of memory mapping %zu bytes", size);
#ifdef MADV_HUGEPAGE
	/* advice only: a kernel without THP ignores it */
	(void)madvise(p, size, MADV_HUGEPAGE);
#endif
	return p;
}

void *big_realloc(void *p, size_t old_size, size_t new_size)
{
	void *q;

	if (!p)
		old_size = 0;
	if (!mapped(new_size)) {
		if (!mapped(old_size))
			return xrealloc(p, new_size);
		q = xmalloc(new_size);
		memcpy(q, p, new_size);
		munmap(p, old_size);
		return q;
	}
	if (!mapped(old_size)) {
		q = map_new(new_size);
		if (old_size)
			memcpy(q, p, old_size);
		free(p);
		return q;
	}
	q = mremap(p, old_size, new_size, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		die("out of memory growing a mapping to %zu bytes", new_size);
#ifdef MADV_HUGEPAGE
	if (new_size > old_size)
		(void)madvise(q, new_size, MADV_HUGEPAGE);
#endif
	return q;
}

void big_free(void *p, size_t size)
{
	if (!p)
		return;
	if (mapped(size))
		munmap(p, size);
	else
		free(p);
}

#else /* BIGMEM_PLAIN */

void *big_realloc(void *p, size_t old_size, size_t new_size)
{
	(void)old_size;
	return xrealloc(p, new_size);
}

void big_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

#endif
