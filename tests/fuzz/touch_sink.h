/*
 * A record sink for the importer harnesses that reads every field of
 * every record it is handed, so that a dangling pointer or an
 * unterminated string shows up under ASan.  Header-only: each harness is
 * one translation unit linked against libheapsift.a.
 */
#ifndef HS_FUZZ_TOUCH_SINK_H
#define HS_FUZZ_TOUCH_SINK_H

#include <stdint.h>
#include <string.h>

#include "record/sink.h"
#include "util/err.h"

static volatile size_t touch_hole;

static void touch(const char *s)
{
	if (s)
		touch_hole += strlen(s);
}

static int touch_sample(void *ctx, const struct rec_sample *s)
{
	uint32_t i;

	(void)ctx;
	touch(s->class_name);
	touch(s->class_raw);
	touch(s->gc_root);
	touch_hole += (size_t)s->liveness + (size_t)s->death_ns +
		      (size_t)s->weight + (size_t)s->alloc_gc;
	if (s->thread)
		touch(s->thread->name);
	if (s->stack)
		for (i = 0; i < s->stack->n_frames; i++) {
			touch(s->stack->frames[i].class_name);
			touch(s->stack->frames[i].class_raw);
			touch(s->stack->frames[i].method);
			touch(s->stack->frames[i].descriptor);
			touch(s->stack->frames[i].type);
		}
	return 0;
}

static int touch_heap_summary(void *ctx, const struct rec_heap_summary *h)
{
	(void)ctx;
	touch(h->when);
	return 0;
}

static int touch_gc_info(void *ctx, const struct rec_gc_info *g)
{
	(void)ctx;
	touch(g->name);
	touch(g->cause);
	touch(g->phase);
	touch_hole += g->failed;
	return 0;
}

static int touch_recording(void *ctx, const struct rec_recording *r)
{
	uint32_t i;

	(void)ctx;
	touch(r->source);
	touch(r->jvm_name);
	touch(r->jvm_version);
	for (i = 0; i < r->n_settings; i++) {
		touch(r->settings[i].name);
		touch(r->settings[i].value);
	}
	for (i = 0; i < r->n_event_types; i++)
		touch(r->event_types[i].name);
	return 0;
}

static int touch_gc(void *ctx, const struct rec_gc *g)
{
	(void)ctx;
	touch_hole += (size_t)g->number + (size_t)g->end_ns;
	return 0;
}

static void touch_ch_block(const struct rec_ch_block *b)
{
	touch(b->compiler);
	touch(b->name);
	touch_hole += (size_t)b->kind + (size_t)b->addr + (size_t)b->size +
		      (size_t)b->type + (size_t)b->level +
		      (size_t)b->temperature + (size_t)b->compile_id +
		      (size_t)b->state + (size_t)b->gap +
		      (size_t)b->gap_blocks + (size_t)b->permanent_gap +
		      (size_t)b->top;
}

static void touch_ch_stats(const struct rec_ch_stat *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		touch(s[i].name);
		touch_hole += (size_t)s[i].value;
	}
}

/* Every byte of every map, every block and stat of every heap. */
static int touch_codeheap(void *ctx, const struct rec_codeheap *c)
{
	uint32_t i, j, k;

	(void)ctx;
	touch(c->kind);
	touch_hole += (size_t)c->line + (size_t)c->time_ns;
	for (i = 0; i < c->n_heaps; i++) {
		const struct rec_ch_heap *h = &c->heaps[i];

		touch(h->name);
		touch_hole +=
			(size_t)h->low + (size_t)h->high +
			(size_t)h->high_reserved + (size_t)h->segment_size +
			(size_t)h->granule_size + (size_t)h->n_granules +
			(size_t)h->committed + (size_t)h->reserved +
			(size_t)h->used + (size_t)h->free +
			(size_t)h->max_used + (size_t)h->used_blocks +
			(size_t)h->free_blocks + (size_t)h->placement_estimated;
		for (j = 0; j < h->n_maps; j++) {
			const struct rec_ch_map *m = &h->maps[j];

			touch_hole += (size_t)m->measure + (size_t)m->part +
				      (size_t)m->bundle + m->n;
			for (k = 0; k < m->n; k++)
				touch_hole += m->cells[k];
		}
		for (j = 0; j < h->n_blocks; j++)
			touch_ch_block(&h->blocks[j]);
		touch_ch_stats(h->stats, h->n_stats);
	}
	touch_ch_stats(c->stats, c->n_stats);
	for (i = 0; i < c->n_blocks; i++)
		touch_ch_block(&c->blocks[i]);
	return 0;
}

static void touch_warn(void *ctx, const struct err *e)
{
	(void)ctx;
	touch(e->msg);
}

/* Samples by key too, so that the importers' keyed path is fuzzed: the
 * sample behind the keys touched as sample() would, keys made up. */
static int touch_keys(void *ctx, const struct rec_sample *s, struct rec_keys *k)
{
	touch_sample(ctx, s);
	k->thread = (uint32_t)touch_hole;
	k->cls = k->thread + 1;
	k->stack = k->thread + 2;
	return 0;
}

/* Room for a few keyed samples at a time, so that the importers' room
 * runs out often. */
#define TOUCH_ROOM 7
static int64_t touch_k_time[TOUCH_ROOM], touch_k_bytes[TOUCH_ROOM],
	touch_k_size[TOUCH_ROOM];
static uint32_t touch_k_thread[TOUCH_ROOM], touch_k_cls[TOUCH_ROOM],
	touch_k_stack[TOUCH_ROOM];
static uint8_t touch_k_kind[TOUCH_ROOM], touch_k_flags[TOUCH_ROOM];

static int touch_keyed_room(void *ctx, struct rec_keyed_cols *c, size_t *room)
{
	(void)ctx;
	*c = (struct rec_keyed_cols){
		touch_k_time, touch_k_bytes, touch_k_size, touch_k_thread,
		touch_k_cls,  touch_k_stack, touch_k_kind, touch_k_flags};
	*room = TOUCH_ROOM;
	return 0;
}

static int touch_keyed_added(void *ctx, size_t n)
{
	size_t i;

	(void)ctx;
	if (n > TOUCH_ROOM)
		__builtin_trap();
	for (i = 0; i < n; i++) {
		/* what sample() takes by key: no old object, one flag */
		if (touch_k_kind[i] >= SAMPLE__COUNT ||
		    touch_k_kind[i] == SAMPLE_OLD_OBJECT ||
		    touch_k_flags[i] > REC_KEYED_TRUNCATED)
			__builtin_trap();
		touch_hole +=
			(size_t)touch_k_kind[i] + (size_t)touch_k_time[i] +
			(size_t)touch_k_bytes[i] + (size_t)touch_k_size[i] +
			touch_k_thread[i] + touch_k_cls[i] + touch_k_stack[i] +
			touch_k_flags[i];
	}
	return 0;
}

static const struct sink_ops touch_sink_ops = {
	.sample = touch_sample,
	.heap_summary = touch_heap_summary,
	.recording = touch_recording,
	.gc = touch_gc,
	.gc_info = touch_gc_info,
	.codeheap = touch_codeheap,
	.keys = touch_keys,
	.keyed_room = touch_keyed_room,
	.keyed_added = touch_keyed_added,
};

#endif
