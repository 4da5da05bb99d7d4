/*
 * The GC ring declared in gcring.h.  A slot is written as a small
 * seqlock: its number is cleared, the times stored, then the number set;
 * a reader that sees the same number before and after reading the times
 * has consistent times.
 */
#include "agent/gcring.h"

#include <stdatomic.h>

struct gc_slot {
	_Atomic uint32_t gc; /* 0 while being written */
	_Atomic int64_t start_ns, end_ns;
};

static struct gc_slot ring[GCRING_SIZE];
static _Atomic uint32_t n_finished;
static _Atomic int64_t last_start_ns;

void gcring_start(int64_t now_ns)
{
	atomic_store_explicit(&last_start_ns, now_ns, memory_order_relaxed);
}

uint32_t gcring_finish(int64_t now_ns)
{
	/* relaxed is enough for the number itself; the slot's own
	 * release store publishes the times */
	uint32_t n = atomic_fetch_add(&n_finished, 1) + 1;
	struct gc_slot *s = &ring[n % GCRING_SIZE];

	atomic_store_explicit(&s->gc, 0, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(
		&s->start_ns,
		atomic_load_explicit(&last_start_ns, memory_order_relaxed),
		memory_order_relaxed);
	atomic_store_explicit(&s->end_ns, now_ns, memory_order_relaxed);
	atomic_store_explicit(&s->gc, n, memory_order_release);
	return n;
}

uint32_t gcring_finished(void)
{
	return atomic_load(&n_finished);
}

void gcring_drain(uint32_t *drained, struct recbuf *out)
{
	uint32_t upto = gcring_finished(), g;
	size_t start = 0;
	int open = 0;

	if (upto - *drained > GCRING_SIZE)
		*drained = upto - GCRING_SIZE; /* overwritten: lost */
	for (g = *drained + 1; g - 1 != upto; g++) {
		struct gc_slot *s = &ring[g % GCRING_SIZE];
		int64_t start_ns, end_ns;
		uint32_t seen;

		seen = atomic_load_explicit(&s->gc, memory_order_acquire);
		if (seen != g) {
			if ((int32_t)(seen - g) > 0)
				continue; /* overwritten by a later GC: lost */
			break; /* its finish event is still writing it */
		}
		start_ns = atomic_load_explicit(&s->start_ns,
						memory_order_relaxed);
		end_ns = atomic_load_explicit(&s->end_ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->gc, memory_order_relaxed) != g)
			continue;
		if (!open) {
			start = recbuf_begin(out, AR_GCS);
			open = 1;
		}
		recbuf_u32(out, g);
		recbuf_u32(out, 0);
		recbuf_u64(out, (uint64_t)start_ns);
		recbuf_u64(out, (uint64_t)end_ns);
	}
	if (open)
		recbuf_end(out, start);
	*drained = g - 1;
}
