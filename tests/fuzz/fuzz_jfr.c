/*
 * libFuzzer harness for the JFR decoder and importer: any bytes as a
 * recording, every event decoded and every constant it refers to
 * resolved, through a sink that reads every field of every record (so
 * that a dangling pointer or an unterminated string shows up under
 * ASan).  Seeds: the fixtures' recordings, whole and cut.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "importers/list.h"
#include "importers/sink.h"
#include "input/input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink_hole;

static void touch(const char *s)
{
	if (s)
		sink_hole += strlen(s);
}

static int sample(void *ctx, const struct rec_sample *s)
{
	uint32_t i;

	(void)ctx;
	touch(s->class_name);
	touch(s->class_raw);
	touch(s->gc_root);
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

static int heap_summary(void *ctx, const struct rec_heap_summary *h)
{
	(void)ctx;
	touch(h->when);
	return 0;
}

static int recording(void *ctx, const struct rec_recording *r)
{
	uint32_t i;

	(void)ctx;
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

static void warn(void *ctx, const struct err *e)
{
	(void)ctx;
	touch(e->msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct sink_ops ops = {sample, heap_summary, recording,
					    NULL};
	struct sink sink = {&ops, NULL};
	struct import_env env = {"fuzz.jfr", warn, NULL, 16 << 20};
	struct input in;
	struct err e;

	input_init_memory(&in, "fuzz.jfr", data, size);
	err_init(&e);
	importer_jfr.import(&in, &sink, &env, &e);
	input_release(&in);
	return 0;
}
