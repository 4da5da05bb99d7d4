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

#include "importers/sink.h"
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

static void touch_warn(void *ctx, const struct err *e)
{
	(void)ctx;
	touch(e->msg);
}

static const struct sink_ops touch_sink_ops = {touch_sample, touch_heap_summary,
					       touch_recording, touch_gc, NULL};

#endif
