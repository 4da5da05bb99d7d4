/*
 * The bounded table of tracked samples: a weak global reference to the
 * sampled object, its sample id and the GC count at its allocation, so
 * that the writer thread can later tell when the object died.
 *
 * Concurrency: slots are added by allocating threads and removed by the
 * scanner (the writer thread, then VMDeath), both under the agent's
 * lock; the scanner reads slots WITHOUT the lock, since it must make a
 * JNI call per slot and JNI calls are not allowed under the lock.  That
 * is safe because a slot's fields are written before its `live` flag is
 * set (release) and are not touched again until the scanner itself
 * frees it, and because the pages that hold slots are never moved:
 * they are allocated as the table fills and stay until the agent is
 * unloaded, so a scanner's pointer never dangles.
 *
 * The weak references belong to the caller: track_release() frees the
 * table's memory, not the references.
 */
#ifndef HS_AGENT_TRACK_H
#define HS_AGENT_TRACK_H

#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>

#define TRACK_PAGE 4096u /* slots per page */

struct track_slot {
	jweak ref;
	uint64_t sample;
	uint32_t gc;	       /* GCs finished before the allocation */
	_Atomic uint32_t live; /* 1: the fields above hold a sample */
	uint32_t next_free;    /* while free: index + 1 of the next */
};

struct track {
	_Atomic(struct track_slot *) *pages; /* owned, n_pages of them */
	uint32_t n_pages, max;
	_Atomic uint32_t high;	 /* slots ever used; all their pages exist */
	uint32_t free_head;	 /* index + 1 of a free slot below high, or 0 */
	_Atomic uint32_t n_live; /* read without the lock as a hint */
};

/* An empty table of max slots (0: a table that tracks nothing).  0, or
 * -1 out of memory. */
int track_init(struct track *t, uint32_t max);
void track_release(struct track *t);

/* Lock held.  Store a sample; 0, or -1 when the table is full (or a page
 * could not be allocated). */
int track_add(struct track *t, jweak ref, uint64_t sample, uint32_t gc);

/* Any thread: the slots to look at are [0, track_high()). */
static inline uint32_t track_high(struct track *t)
{
	return atomic_load_explicit(&t->high, memory_order_acquire);
}

/* Any thread: slot i < track_high(). */
static inline struct track_slot *track_at(struct track *t, uint32_t i)
{
	struct track_slot *page = atomic_load_explicit(
		&t->pages[i / TRACK_PAGE], memory_order_acquire);

	return &page[i % TRACK_PAGE];
}

/* Any thread: slots in use (exact under the lock, a hint without). */
static inline uint32_t track_count(struct track *t)
{
	return atomic_load_explicit(&t->n_live, memory_order_relaxed);
}

/* Lock held.  Free live slot i (its reference already deleted). */
void track_remove(struct track *t, uint32_t i);

#endif
