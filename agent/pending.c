/*
 * The chunked queue declared in pending.h.
 */
#include "agent/pending.h"

#include <stdint.h>
#include <stdlib.h>

/* Big enough that a chunk holds over a thousand sample entries, small
 * enough that a nearly idle JVM does not pin much memory. */
#define CHUNK_SIZE (64u * 1024)

unsigned char *pending_reserve(struct pending *q, size_t n)
{
	struct pending_chunk *c = q->tail;
	unsigned char *p;

	if (!c || c->cap - c->len < n) {
		size_t cap = n > CHUNK_SIZE ? n : CHUNK_SIZE;

		if (cap > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = NULL;
		c->len = 0;
		c->cap = cap;
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
	}
	p = c->data + c->len;
	c->len += n;
	q->bytes += n;
	return p;
}

void pending_take(struct pending *q, struct pending *out)
{
	*out = *q;
	q->head = q->tail = NULL;
	q->bytes = 0;
}

void pending_release(struct pending *q)
{
	struct pending_chunk *c, *next;

	for (c = q->head; c; c = next) {
		next = c->next;
		free(c);
	}
	q->head = q->tail = NULL;
	q->bytes = 0;
}
