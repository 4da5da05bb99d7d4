/*
 * The arena declared in arena.h.  Blocks are chained newest first; a
 * request larger than a quarter of the block size gets a block of its own
 * so that big objects do not waste the tail of the current block.
 */
#include "util/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/size.h"
#include "util/xalloc.h"

#define ARENA_ALIGN alignof(max_align_t)

struct arena_block {
	struct arena_block *next;
	size_t size; /* bytes in data[] */
	size_t pos;  /* next free byte in data[] */
	alignas(max_align_t) unsigned char data[];
};

void arena_init(struct arena *a, size_t block_size)
{
	a->head = NULL;
	a->block_size = block_size ? block_size : 64 * 1024;
	a->used = 0;
}

void arena_release(struct arena *a)
{
	struct arena_block *b = a->head, *next;

	while (b) {
		next = b->next;
		free(b);
		b = next;
	}
	arena_init(a, a->block_size);
}

void arena_reset(struct arena *a)
{
	struct arena_block *keep = NULL, *b = a->head, *next;

	/* Keep one ordinary-sized block; oversized ones go. */
	while (b) {
		next = b->next;
		if (!keep && b->size == a->block_size) {
			keep = b;
			keep->next = NULL;
			keep->pos = 0;
		} else {
			free(b);
		}
		b = next;
	}
	a->head = keep;
	a->used = 0;
}

static struct arena_block *block_new(size_t size)
{
	struct arena_block *b;
	size_t total;

	if (!size_add(sizeof(*b), size, &total))
		die("arena block of %zu bytes overflows", size);
	b = xmalloc(total);
	b->size = size;
	b->pos = 0;
	b->next = NULL;
	return b;
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct arena_block *b = a->head;
	size_t need, pos;

	if (!size_align(size ? size : 1, ARENA_ALIGN, &need))
		die("arena allocation of %zu bytes overflows", size);
	a->used += need;
	if (need > a->block_size / 4) {
		/* Its own block, linked behind the current one. */
		struct arena_block *big = block_new(need);

		big->pos = need;
		if (b) {
			big->next = b->next;
			b->next = big;
		} else {
			a->head = big;
		}
		return big->data;
	}
	if (!b || b->size - b->pos < need) {
		b = block_new(a->block_size);
		b->next = a->head;
		a->head = b;
	}
	pos = b->pos;
	b->pos += need;
	return b->data + pos;
}

void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	size_t total;
	void *p;

	if (!size_mul(n, size, &total))
		die("arena allocation of %zu x %zu bytes overflows", n, size);
	p = arena_alloc(a, total);
	memset(p, 0, total);
	return p;
}

char *arena_memdup(struct arena *a, const void *p, size_t len)
{
	size_t total;
	char *q;

	if (!size_add(len, 1, &total))
		die("arena allocation of %zu bytes overflows", len);
	q = arena_alloc(a, total);
	if (len)
		memcpy(q, p, len);
	q[len] = '\0';
	return q;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_memdup(a, s, strlen(s));
}
