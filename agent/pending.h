/*
 * The in-memory queue between allocating threads and the writer thread:
 * a list of chunks that bytes are appended to and that is handed over
 * whole.
 *
 * Chunks, not one growing array, so that an append never copies what is
 * already queued (the callers hold the agent's lock while appending, and
 * a realloc of megabytes there would stall every allocating thread) and
 * so that the writer takes everything with two pointer moves.  An item
 * never straddles chunks: a chunk holds whole records or whole entries.
 * No locking here: the caller serialises access (agent/state.h).
 */
#ifndef HS_AGENT_PENDING_H
#define HS_AGENT_PENDING_H

#include <stddef.h>

struct pending_chunk {
	struct pending_chunk *next;
	size_t len, cap;
	unsigned char data[];
};

struct pending {
	struct pending_chunk *head, *tail; /* owned */
	size_t bytes;			   /* sum of the chunks' len */
};

#define PENDING_INIT          \
	{                     \
		NULL, NULL, 0 \
	}

/*
 * n contiguous bytes at the end of the queue, for the caller to fill
 * before it lets go of its lock; NULL when out of memory (the queue is
 * unchanged).
 */
unsigned char *pending_reserve(struct pending *q, size_t n);

/* Move everything from q to out (which must be empty); q ends empty. */
void pending_take(struct pending *q, struct pending *out);

/* Free every chunk; q ends empty. */
void pending_release(struct pending *q);

#endif
