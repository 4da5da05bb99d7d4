/*
 * The tracking table declared in track.h: pages of slots allocated on
 * demand (a default table of a million slots costs nothing until it
 * fills), and a free list threaded through the free slots.
 */
#include "agent/track.h"

#include <stdlib.h>

int track_init(struct track *t, uint32_t max)
{
	uint32_t i;

	t->max = max;
	t->n_pages = (uint32_t)(((uint64_t)max + TRACK_PAGE - 1) / TRACK_PAGE);
	t->free_head = 0;
	atomic_init(&t->n_live, 0);
	atomic_init(&t->high, 0);
	t->pages = NULL;
	if (!t->n_pages)
		return 0;
	t->pages = malloc(sizeof(*t->pages) * t->n_pages);
	if (!t->pages)
		return -1;
	for (i = 0; i < t->n_pages; i++)
		atomic_init(&t->pages[i], NULL);
	return 0;
}

void track_release(struct track *t)
{
	uint32_t i;

	for (i = 0; i < t->n_pages && t->pages; i++)
		free(atomic_load(&t->pages[i]));
	free(t->pages);
	t->pages = NULL;
	t->n_pages = 0;
	t->max = 0;
	atomic_store(&t->high, 0);
}

int track_add(struct track *t, jweak ref, uint64_t sample, uint32_t gc)
{
	struct track_slot *s;
	uint32_t i;

	if (t->free_head) {
		i = t->free_head - 1;
		s = track_at(t, i);
		t->free_head = s->next_free;
	} else {
		i = atomic_load_explicit(&t->high, memory_order_relaxed);
		if (i >= t->max)
			return -1;
		if (i % TRACK_PAGE == 0) {
			/* calloc: a fresh slot reads as not live */
			struct track_slot *page =
				calloc(TRACK_PAGE, sizeof(*page));

			if (!page)
				return -1;
			atomic_store_explicit(&t->pages[i / TRACK_PAGE], page,
					      memory_order_release);
		}
		s = track_at(t, i);
		atomic_store_explicit(&t->high, i + 1, memory_order_release);
	}
	s->ref = ref;
	s->sample = sample;
	s->gc = gc;
	s->next_free = 0;
	atomic_store_explicit(&s->live, 1, memory_order_release);
	atomic_fetch_add_explicit(&t->n_live, 1, memory_order_relaxed);
	return 0;
}

void track_remove(struct track *t, uint32_t i)
{
	struct track_slot *s = track_at(t, i);

	atomic_store_explicit(&s->live, 0, memory_order_relaxed);
	s->ref = NULL;
	s->next_free = t->free_head;
	t->free_head = i + 1;
	atomic_fetch_sub_explicit(&t->n_live, 1, memory_order_relaxed);
}
