/*
 * A bump allocator for objects that all die together (git's mem_pool).
 *
 * An import allocates its names and records from one arena and frees them
 * with one call; a parser keeps a second arena for per-chunk scratch and
 * resets it between chunks.  Memory from arena_alloc() is owned by the
 * arena and stays valid until arena_reset() or arena_release().
 * Allocation never fails (out-of-memory is fatal).
 */
#ifndef HS_ARENA_H
#define HS_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head; /* current block, newest first */
	size_t block_size;	  /* size of ordinary blocks */
	size_t used;		  /* bytes handed out, for statistics */
};

/* block_size 0 picks a default (64 KiB). */
void arena_init(struct arena *a, size_t block_size);
void arena_release(struct arena *a);
/* Forget every allocation but keep one block for reuse. */
void arena_reset(struct arena *a);

/* Aligned for any object type; size 0 yields a unique valid pointer. */
void *arena_alloc(struct arena *a, size_t size);
void *arena_calloc(struct arena *a, size_t n, size_t size);
char *arena_memdup(struct arena *a, const void *p, size_t len); /* + NUL */
char *arena_strdup(struct arena *a, const char *s);

#endif
