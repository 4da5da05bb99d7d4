/*
 * The JFR importer: reads a recording chunk by chunk from an input
 * (memory stays bounded by the largest chunk), decodes each with
 * formats/jfr, and emits the heap events as normalized records, with
 * their stacks, threads and classes resolved, into a sink.
 *
 * What it reads past, it reports through env->warn and goes on: an
 * unfinished chunk (JVM killed) up to its last flush, a file cut short
 * up to the last whole event, corrupt events one by one, bytes after
 * the last chunk.  Only a stream that is not JFR at all, or a first
 * chunk with nothing usable in it, is an error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jfr/jfr.h"
#include "formats/jfr/jfr_magic.h"
#include "importers/list.h"
#include "importers/sink.h"
#include "input/input.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/xalloc.h"

static int jfr_probe(const unsigned char *p, size_t len, int complete)
{
	unsigned major;

	(void)complete;
	if (len < JFR_MAGIC_LEN || memcmp(p, JFR_MAGIC, JFR_MAGIC_LEN) != 0)
		return 0;
	if (len < 8)
		return 60; /* the magic, cut short: still surely JFR */
	major = (unsigned)p[4] << 8 | p[5];
	/* major 1 is JDK 7/8's format: ours to refuse with a clear message */
	return major == JFR_MAJOR_SUPPORTED ? 100 : 80;
}

#define DEFAULT_MAX_CHUNK  (1ull << 30)
#define WARNINGS_PER_CHUNK 5
#define SMALL_IDS	   4096

struct jfr_import {
	struct jfr_chunk *c;
	const struct sink *sink;
	const struct import_env *env;
	struct arena keep;  /* lives for the whole recording */
	struct arena chunk; /* converted stacks, per chunk */
	struct rec_recording rec;
	struct hmap setting_index; /* "event#name" -> index */
	struct rec_setting *settings;
	const char **setting_src; /* the chunk string a value came from */
	unsigned *setting_chunk;  /* ... and its chunk */
	size_t n_settings, alloc_settings;
	struct hmap count_index; /* event type name -> index */
	struct rec_count *counts;
	size_t n_counts, alloc_counts;
	struct u64map chunk_counts; /* type id -> events, this chunk */
	uint64_t *small_counts;	    /* the same for ids below SMALL_IDS */

	/* this chunk's pool keys -> converted records: nearly every event
	 * resolves a thread, a stack and a class, and these inline lookups
	 * spare most of them a call into formats/jfr */
	struct u64cache fast_thread, fast_stack, fast_class;
	const struct jfr_timebase *tb;

	uint64_t next_stack_id;
	uint64_t next_id; /* threads and classes, unique in the recording */
	unsigned chunk_no;
	unsigned warned;     /* in this chunk */
	uint64_t suppressed; /* warnings not shown in this chunk */
	int64_t last_event_ns;
};

static void warn(struct jfr_import *im, const struct err *e)
{
	struct err copy = *e;

	if (!copy.source[0])
		err_source(&copy, im->env->source);
	im->env->warn(im->env->ctx, &copy);
}

/* A corrupt event or constant: shown for the first few of a chunk. */
static void warn_damage(struct jfr_import *im, const struct err *e)
{
	if (im->warned++ < WARNINGS_PER_CHUNK)
		warn(im, e);
	else
		im->suppressed++;
}

static const struct rec_stack *convert_stack(struct jfr_import *im,
					     struct jfr_stack *st)
{
	struct rec_stack *rs;
	struct rec_frame *fr;
	uint32_t i;

	if (!st)
		return NULL;
	if (st->user)
		return st->user;
	rs = arena_calloc(&im->chunk, 1, sizeof(*rs));
	fr = arena_calloc(&im->chunk, st->n_frames ? st->n_frames : 1,
			  sizeof(*fr));
	for (i = 0; i < st->n_frames; i++) {
		const struct jfr_frame *f = &st->frames[i];

		fr[i].class_name = f->cls->display;
		fr[i].class_raw = f->cls->raw;
		fr[i].method = f->method;
		fr[i].descriptor = f->descriptor;
		fr[i].line = f->line;
		fr[i].bci = f->bci;
		fr[i].type = f->type;
		fr[i].hidden = f->hidden;
	}
	rs->id = ++im->next_stack_id;
	rs->frames = fr;
	rs->n_frames = st->n_frames;
	rs->truncated = st->truncated;
	st->user = rs;
	return rs;
}

/* The chunk's thread as a record, built once per chunk. */
static const struct rec_thread *convert_thread(struct jfr_import *im,
					       struct jfr_thread *t)
{
	struct rec_thread *rt;

	if (t->user)
		return (const struct rec_thread *)(uintptr_t)t->user;
	rt = arena_calloc(&im->chunk, 1, sizeof(*rt));
	rt->id = ++im->next_id;
	rt->name = t->name;
	rt->java_id = t->java_id;
	rt->os_id = t->os_id;
	rt->is_virtual = t->is_virtual;
	t->user = (uint64_t)(uintptr_t)rt;
	return rt;
}

static inline const struct rec_thread *thread_of(struct jfr_import *im,
						 uint64_t key)
{
	struct jfr_thread *t;
	const struct rec_thread *rt;
	uint64_t v;

	if (u64cache_get(&im->fast_thread, key, &v))
		return (const struct rec_thread *)(uintptr_t)v;
	if (!(t = jfr_thread(im->c, key)))
		return NULL;
	rt = convert_thread(im, t);
	u64cache_put(&im->fast_thread, key, (uint64_t)(uintptr_t)rt);
	return rt;
}

static inline const struct rec_stack *stack_of(struct jfr_import *im,
					       uint64_t key)
{
	const struct rec_stack *rs;
	uint64_t v;

	if (u64cache_get(&im->fast_stack, key, &v))
		return (const struct rec_stack *)(uintptr_t)v;
	if (!(rs = convert_stack(im, jfr_stack(im->c, key))))
		return NULL;
	u64cache_put(&im->fast_stack, key, (uint64_t)(uintptr_t)rs);
	return rs;
}

static inline struct jfr_class *class_of(struct jfr_import *im, uint64_t key)
{
	struct jfr_class *k;
	uint64_t v;

	if (u64cache_get(&im->fast_class, key, &v))
		return (struct jfr_class *)(uintptr_t)v;
	if (!(k = jfr_class(im->c, key)))
		return NULL;
	u64cache_put(&im->fast_class, key, (uint64_t)(uintptr_t)k);
	return k;
}

/* A JFR long that is a size or a weight: exact up to INT64_MAX; the
 * file's 64 bits read as a Java long are negative beyond that, which no
 * size can be, so the value is "not recorded" (docs/formats/jfr.md) and
 * never a negative estimate in a sum. */
static int64_t size_of(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? REC_NONE : (int64_t)v;
}

static int emit_sample(struct jfr_import *im, const struct jfr_event *ev)
{
	struct jfr_chunk *c = im->c;
	struct rec_sample s;
	struct jfr_class *k = NULL;

	/* rec_sample_init()'s fields one by one: it memsets the whole
	 * record first, and this runs for every event */
	s.thread = NULL;
	s.stack = NULL;
	s.class_name = s.class_raw = s.gc_root = NULL;
	s.class_id = 0;
	s.weight = s.alloc_size = s.tlab_size = REC_NONE;
	s.alloc_time_ns = s.object_age_ns = s.object_size = REC_NONE;
	s.last_heap_used = s.array_elements = REC_NONE;
	s.liveness = LIVE_UNKNOWN;
	s.death_ns = s.alloc_gc = s.death_gc = REC_NONE;
	/* a type without startTime (damaged metadata): the chunk's start */
	s.time_ns = jfr_has(ev, JS_START)
			    ? jfr_timebase_epoch_ns(im->tb, ev->v[JS_START])
			    : im->tb->start_ns;
	if (jfr_has(ev, JS_THREAD))
		s.thread = thread_of(im, ev->v[JS_THREAD]);
	if (jfr_has(ev, JS_STACK))
		s.stack = stack_of(im, ev->v[JS_STACK]);
	if (jfr_has(ev, JS_CLASS))
		k = class_of(im, ev->v[JS_CLASS]);
	switch (ev->kind) {
	case JFR_ALLOC_SAMPLE:
		s.kind = SAMPLE_ALLOC;
		if (jfr_has(ev, JS_WEIGHT))
			s.weight = size_of(ev->v[JS_WEIGHT]);
		break;
	case JFR_TLAB_NEW:
		s.kind = SAMPLE_TLAB_NEW;
		if (jfr_has(ev, JS_TLAB_SIZE))
			s.tlab_size = size_of(ev->v[JS_TLAB_SIZE]);
		if (jfr_has(ev, JS_ALLOC_SIZE))
			s.alloc_size = size_of(ev->v[JS_ALLOC_SIZE]);
		break;
	case JFR_TLAB_OUTSIDE:
		s.kind = SAMPLE_TLAB_OUTSIDE;
		if (jfr_has(ev, JS_ALLOC_SIZE))
			s.alloc_size = size_of(ev->v[JS_ALLOC_SIZE]);
		break;
	case JFR_OLD_OBJECT:
		s.kind = SAMPLE_OLD_OBJECT;
		s.liveness = LIVE_AT_END; /* what the event means */
		if (jfr_has(ev, JS_OBJECT))
			k = jfr_old_object_class(c, ev->v[JS_OBJECT]);
		if (jfr_has(ev, JS_ALLOC_TIME))
			s.alloc_time_ns =
				jfr_ticks_to_epoch_ns(c, ev->v[JS_ALLOC_TIME]);
		if (jfr_has(ev, JS_OBJECT_AGE))
			s.object_age_ns =
				jfr_ticks_to_ns(c, ev->v[JS_OBJECT_AGE]);
		if (jfr_has(ev, JS_OBJECT_SIZE))
			s.object_size = size_of(ev->v[JS_OBJECT_SIZE]);
		if (jfr_has(ev, JS_HEAP_USAGE))
			s.last_heap_used = (int64_t)ev->v[JS_HEAP_USAGE];
		/* an int; the JDK writes INT_MIN for "not an array" */
		if (jfr_has(ev, JS_ARRAY_ELEMS) &&
		    (int32_t)(uint32_t)ev->v[JS_ARRAY_ELEMS] >= 0)
			s.array_elements =
				(int32_t)(uint32_t)ev->v[JS_ARRAY_ELEMS];
		if (jfr_has(ev, JS_ROOT))
			s.gc_root = jfr_gc_root(c, ev->v[JS_ROOT]);
		break;
	default:
		return 0;
	}
	if (k) {
		if (!k->user)
			k->user = ++im->next_id;
		s.class_id = k->user;
		s.class_name = k->display;
		s.class_raw = k->raw;
	}
	if (s.time_ns > im->last_event_ns)
		im->last_event_ns = s.time_ns;
	im->rec.n_samples[s.kind]++;
	return im->sink->ops->sample ? im->sink->ops->sample(im->sink->ctx, &s)
				     : 0;
}

static int emit_heap_summary(struct jfr_import *im, const struct jfr_event *ev)
{
	struct jfr_chunk *c = im->c;
	struct rec_heap_summary h;
	const char *when = NULL;

	h.time_ns = jfr_has(ev, JS_START)
			    ? jfr_ticks_to_epoch_ns(c, ev->v[JS_START])
			    : jfr_chunk_header(c)->start_ns;
	h.gc_id = jfr_has(ev, JS_GC_ID) ? (int64_t)(uint32_t)ev->v[JS_GC_ID]
					: REC_NONE;
	if (jfr_has(ev, JS_WHEN))
		when = jfr_gc_when(c, ev->v[JS_WHEN]);
	h.when = when ? when : "unknown";
	h.heap_used = jfr_has(ev, JS_HEAP_USED) ? (int64_t)ev->v[JS_HEAP_USED]
						: REC_NONE;
	h.committed = jfr_has(ev, JS_COMMITTED) ? (int64_t)ev->v[JS_COMMITTED]
						: REC_NONE;
	h.reserved = jfr_has(ev, JS_RESERVED) ? (int64_t)ev->v[JS_RESERVED]
					      : REC_NONE;
	if (h.time_ns > im->last_event_ns)
		im->last_event_ns = h.time_ns;
	im->rec.n_heap_summaries++;
	return im->sink->ops->heap_summary
		       ? im->sink->ops->heap_summary(im->sink->ctx, &h)
		       : 0;
}

/* The settings of the heap events; the last value written wins. */
static void note_setting(struct jfr_import *im, const struct jfr_event *ev)
{
	static const char *const heap_events[] = {
		"jdk.ObjectAllocationSample",
		"jdk.ObjectAllocationInNewTLAB",
		"jdk.ObjectAllocationOutsideTLAB",
		"jdk.OldObjectSample",
		"jdk.GCHeapSummary",
	};
	const char *event, *name = ev->s[JS_NAME], *value = ev->s[JS_VALUE];
	struct buf key = BUF_INIT;
	uint64_t idx;
	bool heap = false;
	size_t i;

	if (!jfr_has(ev, JS_SETTING_ID) || !jfr_has(ev, JS_NAME) ||
	    !jfr_has(ev, JS_VALUE) || !name || !value)
		return;
	event = jfr_type_name(im->c, ev->v[JS_SETTING_ID]);
	if (!event)
		return;
	for (i = 0; i < sizeof(heap_events) / sizeof(heap_events[0]); i++)
		heap |= !strcmp(event, heap_events[i]);
	if (!heap)
		return;
	buf_addf(&key, "%s#%s", event, name);
	/* copies only for a new name or a changed value: every event of a
	 * hostile file may repeat the same long setting */
	if (!hmap_get(&im->setting_index, key.data, key.len, &idx)) {
		char *k = arena_memdup(&im->keep, key.data, key.len);

		if (im->n_settings == im->alloc_settings) {
			im->alloc_settings = im->alloc_settings
						     ? im->alloc_settings * 2
						     : 16;
			im->settings =
				xreallocarray(im->settings, im->alloc_settings,
					      sizeof(*im->settings));
			im->setting_src = xreallocarray(im->setting_src,
							im->alloc_settings,
							sizeof(char *));
			im->setting_chunk = xreallocarray(im->setting_chunk,
							  im->alloc_settings,
							  sizeof(unsigned));
		}
		idx = im->n_settings++;
		im->settings[idx].name = k;
		im->settings[idx].value = NULL;
		im->setting_src[idx] = NULL;
		im->setting_chunk[idx] = 0;
		hmap_put(&im->setting_index, k, key.len, idx, NULL);
	}
	/* the same pooled string of the same chunk: nothing to compare */
	if (im->setting_src[idx] == value &&
	    im->setting_chunk[idx] == im->chunk_no)
		goto out;
	im->setting_src[idx] = value;
	im->setting_chunk[idx] = im->chunk_no;
	if (!im->settings[idx].value || strcmp(im->settings[idx].value, value))
		im->settings[idx].value = arena_strdup(&im->keep, value);
out:
	buf_release(&key);
}

static void fold_counts(struct jfr_import *im)
{
	size_t i, pos;
	uint64_t type_id, count;

	for (i = 0; i < SMALL_IDS; i++)
		if (im->small_counts[i]) {
			*u64map_put(&im->chunk_counts, i, 0, NULL) +=
				im->small_counts[i];
			im->small_counts[i] = 0;
		}

	pos = 0;
	while (u64map_next(&im->chunk_counts, &pos, &type_id, &count)) {
		const char *name;
		uint64_t idx;

		switch (type_id) {
		case 0:
			name = "jdk.Metadata";
			break;
		case 1:
			name = "jdk.CheckPoint";
			break;
		default:
			name = jfr_type_name(im->c, type_id);
		}
		if (!name)
			name = "(unknown event type)";
		if (!hmap_get(&im->count_index, name, strlen(name), &idx)) {
			/* the name is the chunk's; the map keeps its own */
			char *k = arena_strdup(&im->keep, name);

			if (im->n_counts == im->alloc_counts) {
				im->alloc_counts =
					im->alloc_counts ? im->alloc_counts * 2
							 : 64;
				im->counts = xreallocarray(im->counts,
							   im->alloc_counts,
							   sizeof(*im->counts));
			}
			idx = im->n_counts++;
			im->counts[idx].name = k;
			im->counts[idx].n = 0;
			hmap_put(&im->count_index, k, strlen(k), idx, NULL);
		}
		im->counts[idx].n += count;
	}
	u64map_clear(&im->chunk_counts);
}

static int read_chunk_events(struct jfr_import *im)
{
	struct jfr_event ev;
	struct err e;
	int rc;

	err_init(&e);
	for (;;) {
		rc = jfr_chunk_next(im->c, &ev, &e);
		if (rc > 0)
			return 0;
		if (ev.type_id < SMALL_IDS)
			im->small_counts[ev.type_id]++;
		else
			(*u64map_put(&im->chunk_counts, ev.type_id, 0, NULL))++;
		if (rc < 0) {
			warn_damage(im, &e);
			continue;
		}
		switch (ev.kind) {
		case JFR_ALLOC_SAMPLE:
		case JFR_TLAB_NEW:
		case JFR_TLAB_OUTSIDE:
		case JFR_OLD_OBJECT:
			rc = emit_sample(im, &ev);
			break;
		case JFR_HEAP_SUMMARY:
			rc = emit_heap_summary(im, &ev);
			break;
		case JFR_ACTIVE_SETTING:
			note_setting(im, &ev);
			break;
		case JFR_JVM_INFO:
			if (jfr_has(&ev, JS_JVM_NAME) && ev.s[JS_JVM_NAME])
				im->rec.jvm_name = arena_strdup(
					&im->keep, ev.s[JS_JVM_NAME]);
			if (jfr_has(&ev, JS_JVM_VERSION) &&
			    ev.s[JS_JVM_VERSION])
				im->rec.jvm_version = arena_strdup(
					&im->keep, ev.s[JS_JVM_VERSION]);
			break;
		default:
			break;
		}
		if (rc < 0)
			return rc;
	}
}

static int count_cmp(const void *a, const void *b)
{
	const struct rec_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int jfr_import(struct input *in, const struct sink *sink,
		      const struct import_env *env, struct err *e)
{
	struct jfr_import im;
	uint64_t max_chunk =
		env->max_chunk_bytes ? env->max_chunk_bytes : DEFAULT_MAX_CHUNK;
	int rc = 0;

	memset(&im, 0, sizeof(im));
	im.c = jfr_chunk_new();
	im.sink = sink;
	im.env = env;
	arena_init(&im.keep, 0);
	arena_init(&im.chunk, 0);
	hmap_init(&im.setting_index);
	hmap_init(&im.count_index);
	u64map_init(&im.chunk_counts);
	u64cache_init(&im.fast_thread, 8);
	u64cache_init(&im.fast_stack, 12);
	u64cache_init(&im.fast_class, 10);
	im.tb = jfr_chunk_timebase(im.c);
	im.small_counts = xcalloc(SMALL_IDS, sizeof(uint64_t));

	im.rec.source = env->source;
	im.rec.format = "jfr";
	im.rec.start_ns = INT64_MAX;
	im.last_event_ns = INT64_MIN;

	for (;;) {
		const unsigned char *p;
		size_t avail;
		uint64_t at = input_offset(in), take, skipped;
		struct jfr_header h;
		struct err ce;
		int orc;

		err_init(&ce);
		if (input_peek(in, JFR_HEADER_LEN, &p, &avail) < 0 && !avail)
			break; /* the input's own failure: the walker reports */
		if (!avail)
			break;
		if (jfr_header_parse_frame(p, avail, &h, &ce) < 0) {
			if (!im.chunk_no) {
				rc = err_set_at(e, ce.code, at, "%s", ce.msg);
				break;
			}
			input_skip(in, UINT64_MAX, &skipped);
			import_warnf(im.env, ERR_FORMAT, at,
				     "jfr: %llu bytes after chunk %u are not a "
				     "chunk "
				     "(%s); skipped",
				     (unsigned long long)skipped, im.chunk_no,
				     ce.msg);
			break;
		}
		if (h.size > max_chunk) {
			input_skip(in, UINT64_MAX, &skipped);
			import_warnf(
				im.env, ERR_LIMIT, at,
				"jfr: chunk %u claims %llu bytes, more than "
				"the "
				"%llu allowed; it and the %llu bytes after it "
				"skipped",
				im.chunk_no + 1, (unsigned long long)h.size,
				(unsigned long long)max_chunk,
				(unsigned long long)skipped);
			break;
		}
		input_peek(in, (size_t)h.size, &p, &avail);
		take = avail < h.size ? avail : h.size;
		im.chunk_no++;
		im.warned = 0;
		im.suppressed = 0;
		arena_reset(&im.chunk);
		/* keys are the chunk's: what they meant in the last is gone */
		u64cache_clear(&im.fast_thread);
		u64cache_clear(&im.fast_stack);
		u64cache_clear(&im.fast_class);

		orc = jfr_chunk_open(im.c, p, (size_t)take, im.chunk_no, at,
				     &ce);
		if (orc < 0) {
			warn(&im, &ce);
			im.rec.bytes_skipped += take;
		} else {
			const char *why;
			uint64_t end;

			if (orc > 0)
				warn(&im, &ce);
			im.rec.n_chunks++;
			if (h.start_ns < im.rec.start_ns)
				im.rec.start_ns = h.start_ns;
			rc = read_chunk_events(&im);
			fold_counts(&im);
			if (im.suppressed)
				import_warnf(im.env, ERR_FORMAT, at,
					     "jfr: %llu more damaged events in "
					     "chunk "
					     "%u",
					     (unsigned long long)im.suppressed,
					     im.chunk_no);
			end = jfr_chunk_consistent_end(im.c);
			why = jfr_chunk_lost_reason(im.c);
			/* the header's duration holds only for a whole,
			 * finished chunk; otherwise the events say */
			if (h.state == 0 && !why &&
			    h.start_ns + h.duration_ns > im.rec.end_ns)
				im.rec.end_ns = h.start_ns + h.duration_ns;
			if (why) {
				import_warnf(im.env,
					     avail < h.size ? ERR_TRUNC
							    : ERR_FORMAT,
					     at + end,
					     "jfr: chunk %u: %s; %llu bytes "
					     "from here "
					     "skipped, events before kept",
					     im.chunk_no, why,
					     (unsigned long long)(take - end));
				im.rec.bytes_skipped += take - end;
			} else if (h.state != 0) {
				import_warnf(
					im.env, ERR_TRUNC, at,
					"jfr: chunk %u was still being written "
					"(state %u: the JVM died or is "
					"running); "
					"read up to its last flush, %llu bytes",
					im.chunk_no, h.state,
					(unsigned long long)h.size);
			}
			if (rc < 0) {
				err_set(e, ERR_IO, "output failed");
				break;
			}
		}
		input_consume(in, (size_t)take);
		if (take < h.size)
			break; /* the file ends inside this chunk */
	}

	if (rc >= 0) {
		if (im.n_counts)
			qsort(im.counts, im.n_counts, sizeof(*im.counts),
			      count_cmp);
		im.rec.settings = im.settings;
		im.rec.n_settings = (uint32_t)im.n_settings;
		im.rec.event_types = im.counts;
		im.rec.n_event_types = (uint32_t)im.n_counts;
		if (im.rec.start_ns == INT64_MAX)
			im.rec.start_ns = 0;
		if (im.last_event_ns > im.rec.end_ns)
			im.rec.end_ns = im.last_event_ns;
		if (im.rec.n_chunks && sink->ops->recording &&
		    sink->ops->recording(sink->ctx, &im.rec) < 0)
			rc = err_set(e, ERR_IO, "output failed");
	}
	jfr_chunk_free(im.c);
	arena_release(&im.keep);
	arena_release(&im.chunk);
	hmap_release(&im.setting_index);
	hmap_release(&im.count_index);
	u64map_release(&im.chunk_counts);
	u64cache_release(&im.fast_thread);
	u64cache_release(&im.fast_stack);
	u64cache_release(&im.fast_class);

	free(im.settings);
	free(im.setting_src);
	free(im.setting_chunk);
	free(im.counts);
	free(im.small_counts);
	return rc < 0 ? rc : 0;
}

const struct importer_ops importer_jfr = {
	.name = "jfr",
	.kind = KIND_JFR,
	.probe_class = PROBE_SIGNATURE,
	.probe = jfr_probe,
	.import = jfr_import,
};
