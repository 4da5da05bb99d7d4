/*
 * One JFR chunk decoded into a job's record list (jfr_int.h), on any
 * thread: events through formats/jfr, stacks and threads converted to
 * sink records with chunk-local ids, counts, settings and damage kept
 * for the importer's thread to replay and merge in chunk order.
 *
 * It reads nothing outside its job and writes nothing else: no sink, no
 * warning callback, no id that depends on another chunk.  The records
 * are exactly the values the sink will get, but for the ids, which the
 * replay offsets by the ids the chunks before used.
 */
#include <stdlib.h>
#include <string.h>

#include "importers/jfr_int.h"
#include "util/bigmem.h"
#include "util/xalloc.h"

void jfr_job_init(struct jfr_job *j)
{
	memset(j, 0, sizeof(*j));
	j->c = jfr_chunk_new();
	arena_init(&j->arena, 0);
	u64cache_init(&j->fast_thread, 8);
	u64cache_init(&j->fast_stack, 12);
	u64cache_init(&j->fast_class, 10);
	u64map_init(&j->chunk_counts);
	j->small_counts = xcalloc(JFR_SMALL_IDS, sizeof(uint64_t));
}

void jfr_job_release(struct jfr_job *j)
{
	jfr_chunk_free(j->c);
	arena_release(&j->arena);
	u64cache_release(&j->fast_thread);
	u64cache_release(&j->fast_stack);
	u64cache_release(&j->fast_class);
	u64map_release(&j->chunk_counts);
	free(j->small_counts);
	free(j->copy);
	big_free(j->recs, j->alloc_recs * sizeof(*j->recs));
	free(j->extra);
	free(j->olds);
	free(j->heaps);
	free(j->warns);
	free(j->settings);
	free(j->counts);
	free(j->objs);
	free(j->obj_is_thread);
	free(j->stacks);
	free(j->key_thread);
	free(j->key_cls);
	free(j->key_stack);
	memset(j, 0, sizeof(*j));
}

/* Room for one more of n items of size bytes in *p. */
static void *grow(void *p, size_t *alloc, size_t n, size_t size)
{
	if (n < *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 64;
	return xreallocarray(p, *alloc, size);
}

/* A record: every field but kind is the caller's to set (a sample sets
 * them all; the others only a). */
static inline struct jfr_rec *new_rec(struct jfr_job *j, uint8_t kind)
{
	struct jfr_rec *r;

	/* a chunk's records are tens of MB: on huge pages (bigmem.h),
	 * grown without copies; with malloc, a 22 MB recording's import
	 * took half its page faults here */
	if (j->n_recs == j->alloc_recs) {
		size_t n = j->alloc_recs ? j->alloc_recs * 2 : 1024;

		j->recs = big_realloc(j->recs, j->alloc_recs * sizeof(*j->recs),
				      n * sizeof(*j->recs));
		j->alloc_recs = n;
	}
	r = &j->recs[j->n_recs++];
	r->kind = kind;
	return r;
}

/* A new chunk-local id for a thread or a class (one counter, as the
 * recording's ids are one namespace). */
static uint32_t new_obj(struct jfr_job *j, void *p, bool thread)
{
	if (j->n_objs == UINT32_MAX)
		BUG("jfr: more than 2^32 threads and classes in a chunk");
	if (j->n_objs == j->alloc_objs) {
		j->objs = grow(j->objs, &j->alloc_objs, j->n_objs,
			       sizeof(*j->objs));
		j->obj_is_thread =
			xreallocarray(j->obj_is_thread, j->alloc_objs, 1);
	}
	j->objs[j->n_objs] = p;
	j->obj_is_thread[j->n_objs] = thread;
	return ++j->n_objs;
}

static void warn_damage(struct jfr_job *j, unsigned *warned,
			const struct err *e)
{
	if ((*warned)++ >= JFR_WARNINGS_PER_CHUNK) {
		j->suppressed++;
		return;
	}
	j->warns =
		grow(j->warns, &j->alloc_warns, j->n_warns, sizeof(*j->warns));
	j->warns[j->n_warns] = *e;
	new_rec(j, JREC_WARN)->a = (int64_t)j->n_warns++;
}

static uint32_t convert_stack(struct jfr_job *j, struct jfr_stack *st)
{
	struct rec_stack *rs;
	struct rec_frame *fr;
	uint32_t i;

	if (!st)
		return 0;
	if (st->user)
		return (uint32_t)((struct rec_stack *)st->user)->id;
	rs = arena_calloc(&j->arena, 1, sizeof(*rs));
	fr = arena_calloc(&j->arena, st->n_frames ? st->n_frames : 1,
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
	if (j->n_stacks == UINT32_MAX)
		BUG("jfr: more than 2^32 stacks in a chunk");
	j->stacks = grow(j->stacks, &j->alloc_stacks, j->n_stacks,
			 sizeof(*j->stacks));
	j->stacks[j->n_stacks++] = rs;
	rs->id = j->n_stacks; /* local: the replay adds the chunks' before */
	rs->frames = fr;
	rs->n_frames = st->n_frames;
	rs->truncated = st->truncated;
	st->user = rs;
	return (uint32_t)rs->id;
}

/* The chunk's thread as a record, built once per chunk. */
static uint32_t convert_thread(struct jfr_job *j, struct jfr_thread *t)
{
	struct rec_thread *rt;

	if (t->user)
		return (uint32_t)t->user;
	rt = arena_calloc(&j->arena, 1, sizeof(*rt));
	rt->name = t->name;
	rt->java_id = t->java_id;
	rt->os_id = t->os_id;
	rt->is_virtual = t->is_virtual;
	rt->id = new_obj(j, rt, true);
	t->user = rt->id;
	return (uint32_t)rt->id;
}

static inline uint32_t thread_of(struct jfr_job *j, uint64_t key)
{
	struct jfr_thread *t;
	uint32_t id;
	uint64_t v;

	if (u64cache_get(&j->fast_thread, key, &v))
		return (uint32_t)v;
	if (!(t = jfr_thread(j->c, key)))
		return 0;
	id = convert_thread(j, t);
	u64cache_put(&j->fast_thread, key, id);
	return id;
}

static inline uint32_t stack_of(struct jfr_job *j, uint64_t key)
{
	uint32_t id;
	uint64_t v;

	if (u64cache_get(&j->fast_stack, key, &v))
		return (uint32_t)v;
	if (!(id = convert_stack(j, jfr_stack(j->c, key))))
		return 0;
	u64cache_put(&j->fast_stack, key, id);
	return id;
}

static inline struct jfr_class *class_of(struct jfr_job *j, uint64_t key)
{
	struct jfr_class *k;
	uint64_t v;

	if (u64cache_get(&j->fast_class, key, &v))
		return (struct jfr_class *)(uintptr_t)v;
	if (!(k = jfr_class(j->c, key)))
		return NULL;
	u64cache_put(&j->fast_class, key, (uint64_t)(uintptr_t)k);
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

/* An OldObjectSample's fields beyond the common ones, as a whole
 * record (they are rare); r->a is its index. */
static void old_object(struct jfr_job *j, const struct jfr_event *ev,
		       struct jfr_rec *r, struct jfr_class **k)
{
	struct jfr_chunk *c = j->c;
	struct rec_sample *s;

	j->olds = grow(j->olds, &j->alloc_olds, j->n_olds, sizeof(*j->olds));
	r->a = (int64_t)j->n_olds;
	s = &j->olds[j->n_olds++];
	rec_sample_init(s, SAMPLE_OLD_OBJECT);
	s->liveness = LIVE_AT_END; /* what the event means */
	if (jfr_has(ev, JS_OBJECT))
		*k = jfr_old_object_class(c, ev->v[JS_OBJECT]);
	if (jfr_has(ev, JS_ALLOC_TIME))
		s->alloc_time_ns =
			jfr_ticks_to_epoch_ns(c, ev->v[JS_ALLOC_TIME]);
	if (jfr_has(ev, JS_OBJECT_AGE))
		s->object_age_ns = jfr_ticks_to_ns(c, ev->v[JS_OBJECT_AGE]);
	if (jfr_has(ev, JS_OBJECT_SIZE))
		s->object_size = size_of(ev->v[JS_OBJECT_SIZE]);
	if (jfr_has(ev, JS_HEAP_USAGE))
		s->last_heap_used = (int64_t)ev->v[JS_HEAP_USAGE];
	/* an int; the JDK writes INT_MIN for "not an array" */
	if (jfr_has(ev, JS_ARRAY_ELEMS) &&
	    (int32_t)(uint32_t)ev->v[JS_ARRAY_ELEMS] >= 0)
		s->array_elements = (int32_t)(uint32_t)ev->v[JS_ARRAY_ELEMS];
	if (jfr_has(ev, JS_ROOT))
		s->gc_root = jfr_gc_root(c, ev->v[JS_ROOT]);
}

static void decode_sample(struct jfr_job *j, const struct jfr_event *ev)
{
	const struct jfr_timebase *tb = j->tb;
	struct jfr_rec *r = new_rec(j, 0);
	struct jfr_class *k = NULL;

	r->thread = r->stack = r->cls = 0;
	/* a type without startTime (damaged metadata): the chunk's start */
	r->time_ns = jfr_has(ev, JS_START)
			     ? jfr_timebase_epoch_ns(tb, ev->v[JS_START])
			     : tb->start_ns;
	if (jfr_has(ev, JS_THREAD))
		r->thread = thread_of(j, ev->v[JS_THREAD]);
	if (jfr_has(ev, JS_STACK))
		r->stack = stack_of(j, ev->v[JS_STACK]);
	if (jfr_has(ev, JS_CLASS))
		k = class_of(j, ev->v[JS_CLASS]);
	r->a = REC_NONE;
	switch (ev->kind) {
	case JFR_ALLOC_SAMPLE:
		r->kind = SAMPLE_ALLOC;
		if (jfr_has(ev, JS_WEIGHT))
			r->a = size_of(ev->v[JS_WEIGHT]);
		break;
	case JFR_TLAB_NEW:
		r->kind = SAMPLE_TLAB_NEW;
		if (jfr_has(ev, JS_TLAB_SIZE))
			r->a = size_of(ev->v[JS_TLAB_SIZE]);
		if (j->n_extra == j->alloc_extra)
			j->extra = grow(j->extra, &j->alloc_extra, j->n_extra,
					sizeof(*j->extra));
		j->extra[j->n_extra++] = jfr_has(ev, JS_ALLOC_SIZE)
						 ? size_of(ev->v[JS_ALLOC_SIZE])
						 : REC_NONE;
		break;
	case JFR_TLAB_OUTSIDE:
		r->kind = SAMPLE_TLAB_OUTSIDE;
		if (jfr_has(ev, JS_ALLOC_SIZE))
			r->a = size_of(ev->v[JS_ALLOC_SIZE]);
		break;
	default: /* JFR_OLD_OBJECT: the caller's switch says */
		r->kind = SAMPLE_OLD_OBJECT;
		old_object(j, ev, r, &k);
		break;
	}
	if (k) {
		if (!k->user)
			k->user = new_obj(j, k, false);
		r->cls = (uint32_t)k->user;
	}
	if (r->time_ns > j->last_event_ns)
		j->last_event_ns = r->time_ns;
	j->n_samples[r->kind]++;
}

static void decode_heap_summary(struct jfr_job *j, const struct jfr_event *ev)
{
	struct jfr_chunk *c = j->c;
	struct rec_heap_summary *h;
	const char *when = NULL;

	j->heaps =
		grow(j->heaps, &j->alloc_heaps, j->n_heaps, sizeof(*j->heaps));
	new_rec(j, JREC_HEAP)->a = (int64_t)j->n_heaps;
	h = &j->heaps[j->n_heaps++];
	h->time_ns = jfr_has(ev, JS_START)
			     ? jfr_ticks_to_epoch_ns(c, ev->v[JS_START])
			     : jfr_chunk_header(c)->start_ns;
	h->gc_id = jfr_has(ev, JS_GC_ID) ? (int64_t)(uint32_t)ev->v[JS_GC_ID]
					 : REC_NONE;
	if (jfr_has(ev, JS_WHEN))
		when = jfr_gc_when(c, ev->v[JS_WHEN]);
	h->when = when ? when : "unknown";
	h->heap_used = jfr_has(ev, JS_HEAP_USED) ? (int64_t)ev->v[JS_HEAP_USED]
						 : REC_NONE;
	h->committed = jfr_has(ev, JS_COMMITTED) ? (int64_t)ev->v[JS_COMMITTED]
						 : REC_NONE;
	h->reserved = jfr_has(ev, JS_RESERVED) ? (int64_t)ev->v[JS_RESERVED]
					       : REC_NONE;
	if (h->time_ns > j->last_event_ns)
		j->last_event_ns = h->time_ns;
	j->n_heap_summaries++;
}

/* A setting of a heap event, for the importer to keep (last wins). */
static void note_setting(struct jfr_job *j, const struct jfr_event *ev)
{
	static const char *const heap_events[] = {
		"jdk.ObjectAllocationSample",
		"jdk.ObjectAllocationInNewTLAB",
		"jdk.ObjectAllocationOutsideTLAB",
		"jdk.OldObjectSample",
		"jdk.GCHeapSummary",
	};
	const char *event, *name = ev->s[JS_NAME], *value = ev->s[JS_VALUE];
	struct jfr_setting_note *n;
	bool heap = false;
	size_t i;

	if (!jfr_has(ev, JS_SETTING_ID) || !jfr_has(ev, JS_NAME) ||
	    !jfr_has(ev, JS_VALUE) || !name || !value)
		return;
	event = jfr_type_name(j->c, ev->v[JS_SETTING_ID]);
	if (!event)
		return;
	for (i = 0; i < sizeof(heap_events) / sizeof(heap_events[0]); i++)
		heap |= !strcmp(event, heap_events[i]);
	if (!heap)
		return;
	j->settings = grow(j->settings, &j->alloc_settings, j->n_settings,
			   sizeof(*j->settings));
	n = &j->settings[j->n_settings++];
	n->event = event;
	n->name = name;
	n->value = value;
}

/* The chunk's event counts by type name, in the map's order. */
static void fold_counts(struct jfr_job *j)
{
	size_t i, pos = 0;
	uint64_t type_id, count;

	for (i = 0; i < JFR_SMALL_IDS; i++)
		if (j->small_counts[i]) {
			*u64map_put(&j->chunk_counts, i, 0, NULL) +=
				j->small_counts[i];
			j->small_counts[i] = 0;
		}
	while (u64map_next(&j->chunk_counts, &pos, &type_id, &count)) {
		const char *name;

		switch (type_id) {
		case 0:
			name = "jdk.Metadata";
			break;
		case 1:
			name = "jdk.CheckPoint";
			break;
		default:
			name = jfr_type_name(j->c, type_id);
		}
		j->counts = grow(j->counts, &j->alloc_counts, j->n_counts,
				 sizeof(*j->counts));
		j->counts[j->n_counts].name =
			name ? name : "(unknown event type)";
		j->counts[j->n_counts++].n = count;
	}
	u64map_clear(&j->chunk_counts);
}

static void read_events(struct jfr_job *j)
{
	struct jfr_event ev;
	struct err e;
	unsigned warned = 0;
	int rc;

	err_init(&e);
	while ((rc = jfr_chunk_next(j->c, &ev, &e)) <= 0) {
		if (ev.type_id < JFR_SMALL_IDS)
			j->small_counts[ev.type_id]++;
		else
			(*u64map_put(&j->chunk_counts, ev.type_id, 0, NULL))++;
		if (rc < 0) {
			warn_damage(j, &warned, &e);
			continue;
		}
		switch (ev.kind) {
		case JFR_ALLOC_SAMPLE:
		case JFR_TLAB_NEW:
		case JFR_TLAB_OUTSIDE:
		case JFR_OLD_OBJECT:
			decode_sample(j, &ev);
			break;
		case JFR_HEAP_SUMMARY:
			decode_heap_summary(j, &ev);
			break;
		case JFR_ACTIVE_SETTING:
			note_setting(j, &ev);
			break;
		case JFR_JVM_INFO:
			if (jfr_has(&ev, JS_JVM_NAME) && ev.s[JS_JVM_NAME])
				j->jvm_name = ev.s[JS_JVM_NAME];
			if (jfr_has(&ev, JS_JVM_VERSION) &&
			    ev.s[JS_JVM_VERSION])
				j->jvm_version = ev.s[JS_JVM_VERSION];
			break;
		default:
			break;
		}
		if (j->flush && j->n_recs >= JFR_BATCH &&
		    j->flush(j->flush_ctx, j) < 0)
			break;
	}
}

static void reset_output(struct jfr_job *j)
{
	arena_reset(&j->arena);
	/* keys are the chunk's: what they meant in the last is gone */
	u64cache_clear(&j->fast_thread);
	u64cache_clear(&j->fast_stack);
	u64cache_clear(&j->fast_class);
	err_init(&j->open_err);
	j->n_recs = j->n_extra = j->n_olds = j->n_heaps = j->n_warns = 0;
	j->n_settings = j->n_counts = 0;
	j->n_objs = j->n_stacks = 0;
	j->suppressed = 0;
	j->jvm_name = j->jvm_version = NULL;
	memset(j->n_samples, 0, sizeof(j->n_samples));
	j->n_heap_summaries = 0;
	j->last_event_ns = INT64_MIN;
	j->end = 0;
	j->why = NULL;
	j->begun = false;
	j->id_base = j->stack_base = 0;
	j->objs_done = j->stacks_done = 0;
}

void jfr_job_decode(void *job)
{
	struct jfr_job *j = job;

	reset_output(j);
	j->orc = jfr_chunk_open(j->c, j->data, j->take, j->chunk_no, j->at,
				&j->open_err);
	if (j->orc < 0)
		return;
	j->tb = jfr_chunk_timebase(j->c);
	read_events(j);
	fold_counts(j);
	j->end = jfr_chunk_consistent_end(j->c);
	j->why = jfr_chunk_lost_reason(j->c);
}
