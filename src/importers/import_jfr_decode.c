/*
 * One JFR chunk decoded into a job's record list (jfr_int.h), on any
 * thread: events through src/formats/jfr, stacks and threads converted to
 * sink records with chunk-local ids, counts, settings and damage kept
 * for the importer's thread to replay and merge in chunk order.
 *
 * It reads nothing outside its job and writes nothing else: no sink, no
 * warning callback, no id that depends on another chunk.  The records
 * are exactly the values the sink will get, but for the ids, which the
 * replay offsets by the ids the chunks before used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "importers/import_jfr_int.h"
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
	u64map_init(&j->stack_ids);
	idxset_init(&j->frame_index);
	j->small_counts = xcalloc(JFR_SMALL_IDS, sizeof(uint64_t));
	spool_init(&j->spool, spool_mem_max());
}

void jfr_job_release(struct jfr_job *j)
{
	struct jfr_seg *s;

	jfr_chunk_free(j->c);
	arena_release(&j->arena);
	u64cache_release(&j->fast_thread);
	u64cache_release(&j->fast_stack);
	u64cache_release(&j->fast_class);
	u64map_release(&j->chunk_counts);
	u64map_release(&j->stack_ids);
	idxset_release(&j->frame_index);
	free(j->cframes);
	free(j->refs);
	free(j->small_counts);
	spool_release(&j->spool);
	jfr_seg_free(j->seg);
	while ((s = j->pub)) {
		j->pub = s->next;
		jfr_seg_free(s);
	}
	free(j->settings);
	free(j->counts);
	free(j->objs);
	free(j->stacks);
	free(j->key_thread);
	free(j->key_cls);
	free(j->key_stack);
	memset(j, 0, sizeof(*j));
}

struct jfr_seg *jfr_seg_new(uint32_t cap)
{
	struct jfr_seg *s = xcalloc(1, sizeof(*s));

	s->cap = cap;
	s->recs = xreallocarray(NULL, cap, sizeof(*s->recs));
	s->extra = xreallocarray(NULL, cap, sizeof(*s->extra));
	return s;
}

void jfr_seg_free(struct jfr_seg *s)
{
	if (!s)
		return;
	free(s->recs);
	free(s->extra);
	free(s);
}

void jfr_feed_init(struct jfr_feed *f, uint32_t seg_recs, unsigned ahead)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	/* a sample's event adds at most 4 records (thread, stack, class and
	 * itself), which need not share a segment */
	f->seg_recs = seg_recs ? seg_recs : 1;
	f->ahead = ahead;
}

void jfr_feed_release(struct jfr_feed *f)
{
	struct jfr_seg *s;

	while ((s = f->free)) {
		f->free = s->next;
		jfr_seg_free(s);
	}
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
}

/* Room for one more of n items of size bytes in *p. */
static void *grow(void *p, size_t *alloc, size_t n, size_t size)
{
	if (n < *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 64;
	return xreallocarray(p, *alloc, size);
}

/* The filled segment (if any) to the replay, and an empty one in its
 * place, once the job may hold one more. */
static void next_seg(struct jfr_job *j)
{
	struct jfr_feed *f = j->feed;
	struct jfr_seg *s;

	pthread_mutex_lock(&f->lock);
	if (j->seg) {
		j->seg->next = NULL;
		*j->pub_tail = j->seg;
		j->pub_tail = &j->seg->next;
		j->seg = NULL;
		pthread_cond_broadcast(&f->cond);
	}
	while (!j->replaying && !f->stop && j->n_held >= f->ahead)
		pthread_cond_wait(&f->cond, &f->lock);
	if ((s = f->free))
		f->free = s->next;
	else
		f->n_segs++;
	j->n_held++;
	pthread_mutex_unlock(&f->lock);
	if (!s)
		s = jfr_seg_new(f->seg_recs);
	s->n_recs = s->n_extra = 0;
	j->seg = s;
}

/* The decode is over: the last segment to the replay, and the replay
 * told. */
static void end_feed(struct jfr_job *j)
{
	struct jfr_feed *f = j->feed;

	pthread_mutex_lock(&f->lock);
	if (j->seg && j->seg->n_recs) {
		j->seg->next = NULL;
		*j->pub_tail = j->seg;
		j->pub_tail = &j->seg->next;
	} else if (j->seg) {
		j->seg->next = f->free;
		f->free = j->seg;
		j->n_held--;
	}
	j->seg = NULL;
	j->fin = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

/* A segment with room for one more record.  Decoded where it is
 * replayed, the job's one segment grows instead (flush empties it every
 * JFR_BATCH records, and an event adds at most 4). */
static inline struct jfr_seg *room(struct jfr_job *j)
{
	struct jfr_seg *s = j->seg;

	if (s && s->n_recs < s->cap)
		return s;
	if (j->feed) {
		next_seg(j);
		return j->seg;
	}
	if (!s)
		return j->seg = jfr_seg_new(JFR_BATCH + 64);
	s->cap *= 2;
	s->recs = xreallocarray(s->recs, s->cap, sizeof(*s->recs));
	s->extra = xreallocarray(s->extra, s->cap, sizeof(*s->extra));
	return s;
}

/* A record that is not a sample: kind and a pointer. */
static void put_rec(struct jfr_job *j, uint8_t kind, const void *p,
		    uint32_t thread)
{
	struct jfr_seg *s = room(j);
	struct jfr_rec *r = &s->recs[s->n_recs++];

	r->time_ns = 0;
	r->a = (int64_t)(intptr_t)p;
	r->thread = thread;
	r->stack = r->cls = 0;
	r->kind = kind;
}

/* A new chunk-local id for a thread or a class (one counter, as the
 * recording's ids are one namespace). */
static uint32_t new_obj(struct jfr_job *j, void *p, bool thread)
{
	if (j->n_objs == UINT32_MAX)
		BUG("jfr: more than 2^32 threads and classes in a chunk");
	/* in the segment being filled: the caller finishes p before any
	 * record after this one, so before the segment goes to the replay */
	put_rec(j, JREC_OBJ, p, thread);
	return ++j->n_objs;
}

static void warn_damage(struct jfr_job *j, unsigned *warned,
			const struct err *e)
{
	if ((*warned)++ >= JFR_WARNINGS_PER_CHUNK) {
		j->suppressed++;
		return;
	}
	struct err *copy = arena_alloc(&j->arena, sizeof(*copy));

	*copy = *e;
	put_rec(j, JREC_WARN, copy, 0);
}

/* The chunk's frame of ref, kept once: found by its fields, added (and
 * resolved) when new. */
static const struct jfr_cframe *intern_frame(struct jfr_job *j,
					     const struct jfr_frame_ref *ref)
{
	struct idxset_probe p;
	struct jfr_cframe *cf;
	struct jfr_frame f;
	uint64_t key[3], h;
	uint32_t i;

	key[0] = ref->method;
	key[1] = ref->has_type ? ref->type : 0;
	key[2] = (uint64_t)(uint32_t)ref->line << 32 | (uint32_t)ref->bci;
	h = hash_bytes(key, sizeof(key));
	for (i = idxset_first(&j->frame_index, h, &p); i != IDXSET_NONE;
	     i = idxset_next(&j->frame_index, &p)) {
		const struct jfr_frame_ref *o = &j->cframes[i]->ref;

		if (o->method == ref->method && o->line == ref->line &&
		    o->bci == ref->bci && o->has_type == ref->has_type &&
		    (!o->has_type || o->type == ref->type))
			return j->cframes[i];
	}
	if (j->n_frames >= UINT32_MAX - 1)
		BUG("jfr: more than 2^32 frames in a chunk");
	if (j->n_frames == j->alloc_cframes) {
		j->alloc_cframes =
			j->alloc_cframes ? 2 * j->alloc_cframes : 1024;
		j->cframes = xreallocarray(j->cframes, j->alloc_cframes,
					   sizeof(*j->cframes));
	}
	cf = arena_calloc(&j->arena, 1, sizeof(*cf));
	cf->ref = *ref;
	jfr_frame_resolve(j->c, ref, &f);
	cf->rec.class_name = f.cls->display;
	cf->rec.class_raw = f.cls->raw;
	cf->rec.method = f.method;
	cf->rec.descriptor = f.descriptor;
	cf->rec.line = f.line;
	cf->rec.bci = f.bci;
	cf->rec.type = f.type;
	cf->rec.hidden = f.hidden;
	cf->rec.id = j->n_frames + 1; /* local, as a stack's */
	j->cframes[j->n_frames] = cf;
	idxset_add(&j->frame_index, h, j->n_frames++);
	return cf;
}

/* The chunk's stack at key as a local id, converted once (0: none): its
 * frames kept once a chunk, the stack as pointers to them. */
static uint32_t convert_stack(struct jfr_job *j, uint64_t key)
{
	struct jfr_cstack *cs;
	uint64_t v;
	uint32_t i, n;
	bool truncated;

	if (u64map_get(&j->stack_ids, key, &v))
		return (uint32_t)v;
	if (jfr_stack_refs(j->c, key, &j->refs, &j->alloc_refs, &n,
			   &truncated) < 0)
		return 0;
	cs = arena_alloc(&j->arena,
			 sizeof(*cs) + (size_t)n * sizeof(cs->frames[0]));
	cs->n_frames = n;
	cs->truncated = truncated;
	for (i = 0; i < n; i++)
		cs->frames[i] = intern_frame(j, &j->refs[i]);
	if (j->n_stacks == UINT32_MAX)
		BUG("jfr: more than 2^32 stacks in a chunk");
	/* local: the replay adds the chunks' before */
	u64map_put(&j->stack_ids, key, ++j->n_stacks, NULL);
	put_rec(j, JREC_STACK, cs, 0);
	return j->n_stacks;
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
	if (!(id = convert_stack(j, key)))
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

	s = arena_alloc(&j->arena, sizeof(*s));
	r->a = (int64_t)(intptr_t)s;
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

/* What a sample's record needs before it goes in: its class's id (a
 * new class gets its id now, and its record goes first), r->cls, and
 * the chunk's last event time. */
static inline __attribute__((always_inline)) void
sample_class(struct jfr_job *j, struct jfr_rec *r, struct jfr_class *k)
{
	r->cls = 0;
	if (k) {
		if (!k->user)
			k->user = new_obj(j, k, false);
		r->cls = (uint32_t)k->user;
	}
	if (r->time_ns > j->last_event_ns)
		j->last_event_ns = r->time_ns;
}

/* A sample's record into the segment (sample_class() first). */
static inline __attribute__((always_inline)) void
put_sample(struct jfr_job *j, struct jfr_rec *r, struct jfr_class *k,
	   int64_t tlab_alloc)
{
	struct jfr_seg *sg;

	sample_class(j, r, k);
	j->n_samples[r->kind]++;
	sg = room(j);
	if (r->kind == SAMPLE_TLAB_NEW)
		sg->extra[sg->n_extra++] = tlab_alloc;
	sg->recs[sg->n_recs++] = *r;
}

/* The time, thread and stack of a sample event that may lack any of its
 * fields, into r; its class returned (NULL: none).  The record goes in
 * last: the new thread, stack and class it names go before it
 * (put_rec). */
static struct jfr_class *
sample_fields(struct jfr_job *j, const struct jfr_event *ev, struct jfr_rec *r)
{
	const struct jfr_timebase *tb = j->tb;

	r->thread = r->stack = r->cls = 0;
	/* a type without startTime (damaged metadata): the chunk's start */
	r->time_ns = jfr_has(ev, JS_START)
			     ? jfr_timebase_epoch_ns(tb, ev->v[JS_START])
			     : tb->start_ns;
	if (jfr_has(ev, JS_THREAD))
		r->thread = thread_of(j, ev->v[JS_THREAD]);
	if (jfr_has(ev, JS_STACK))
		r->stack = stack_of(j, ev->v[JS_STACK]);
	return jfr_has(ev, JS_CLASS) ? class_of(j, ev->v[JS_CLASS]) : NULL;
}

static void decode_sample(struct jfr_job *j, const struct jfr_event *ev)
{
	struct jfr_rec rec, *r = &rec;
	struct jfr_class *k = sample_fields(j, ev, r);
	int64_t tlab_alloc = REC_NONE;

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
		if (jfr_has(ev, JS_ALLOC_SIZE))
			tlab_alloc = size_of(ev->v[JS_ALLOC_SIZE]);
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
	put_sample(j, r, k, tlab_alloc);
}

#define HAVE(s) (1u << (s))
#define HAVE_KEYS \
	(HAVE(JS_START) | HAVE(JS_THREAD) | HAVE(JS_STACK) | HAVE(JS_CLASS))

/* The fields decode_heap() needs of each kind: with them all, it does
 * what decode_sample() does, without a test a field.  Any other kind
 * needs a field no event has. */
#define HAVE_NEVER (1u << 31)
_Static_assert(JS__COUNT < 31, "a slot's bit is below HAVE_NEVER");
static const uint32_t heap_fields[JFR_KIND__COUNT] = {
	[JFR_OTHER] = HAVE_NEVER,
	[JFR_ALLOC_SAMPLE] = HAVE_KEYS | HAVE(JS_WEIGHT),
	[JFR_TLAB_NEW] = HAVE_KEYS | HAVE(JS_TLAB_SIZE) | HAVE(JS_ALLOC_SIZE),
	[JFR_TLAB_OUTSIDE] = HAVE_KEYS | HAVE(JS_ALLOC_SIZE),
	[JFR_OLD_OBJECT] = HAVE_NEVER,
	[JFR_HEAP_SUMMARY] = HAVE_NEVER,
	[JFR_ACTIVE_SETTING] = HAVE_NEVER,
	[JFR_JVM_INFO] = HAVE_NEVER,
	[JFR_GC] = HAVE_NEVER,
	[JFR_G1_GC] = HAVE_NEVER,
	[JFR_GC_FAILED] = HAVE_NEVER,
	[JFR_AP_LIVE] = HAVE_NEVER,
	[JFR_DD_OBJECT] = HAVE_NEVER,
	[JFR_DD_LIVE] = HAVE_NEVER,
	[JFR_ACTIVE_RECORDING] = HAVE_NEVER,
	[JFR_METADATA] = HAVE_NEVER,
	[JFR_CHECKPOINT] = HAVE_NEVER,
};
static const uint8_t heap_kind[] = {
	[JFR_ALLOC_SAMPLE] = SAMPLE_ALLOC,
	[JFR_TLAB_NEW] = SAMPLE_TLAB_NEW,
	[JFR_TLAB_OUTSIDE] = SAMPLE_TLAB_OUTSIDE,
};

/* An allocation event with every field of its kind (nearly all of a
 * heap recording's events): decode_sample()'s record, without a test a
 * field or a switch on kinds. */
static inline void decode_heap(struct jfr_job *j, const struct jfr_event *ev)
{
	struct jfr_rec r;
	int64_t tlab_alloc = REC_NONE;
	struct jfr_class *k;

	r.time_ns = jfr_timebase_epoch_ns(j->tb, ev->v[JS_START]);
	r.thread = thread_of(j, ev->v[JS_THREAD]);
	r.stack = stack_of(j, ev->v[JS_STACK]);
	k = class_of(j, ev->v[JS_CLASS]);
	r.kind = heap_kind[ev->kind];
	if (r.kind == SAMPLE_ALLOC) {
		r.a = size_of(ev->v[JS_WEIGHT]);
	} else if (r.kind == SAMPLE_TLAB_NEW) {
		r.a = size_of(ev->v[JS_TLAB_SIZE]);
		tlab_alloc = size_of(ev->v[JS_ALLOC_SIZE]);
	} else {
		r.a = size_of(ev->v[JS_ALLOC_SIZE]);
	}
	put_sample(j, &r, k, tlab_alloc);
}

/* A float field's value (ev->floats says which slots hold one), else
 * the integer's; NaN where the event lacks it. */
static double number_of(const struct jfr_event *ev, enum jfr_slot sl)
{
	if (!jfr_has(ev, sl))
		return NAN;
	if (ev->floats >> sl & 1) {
		uint32_t bits = (uint32_t)ev->v[sl];
		float f;

		memcpy(&f, &bits, sizeof(f));
		return (double)f;
	}
	return (double)(int64_t)ev->v[sl];
}

/* Datadog's bytes: the object's size times the sample's weight, which
 * its writer sets to 1 / (1 - exp(-size/interval)) at the interval of
 * the moment (its objectSampler.cpp), and for a live object to the
 * bytes its subsampling skipped too (its flightRecorder.cpp,
 * recordHeapLiveObject); REC_NONE where either is missing or absurd. */
static int64_t dd_bytes(int64_t size, double weight)
{
	double b;

	if (size == REC_NONE || !(weight >= 0) || isinf(weight))
		return REC_NONE;
	b = (double)size * weight;
	return b >= 9.2e18 ? INT64_MAX : (int64_t)llround(b);
}

/*
 * An event of another writer (docs/formats/jfr.md, "Other writers"), as
 * a whole record: async-profiler's InNewTLAB (JREC_AP_TLAB, for the
 * replay to tell its sampled allocations from its TLAB mode's events)
 * and LiveObject, Datadog's ObjectSample and HeapLiveObject.
 */
static void decode_other(struct jfr_job *j, const struct jfr_event *ev)
{
	const struct jfr_timebase *tb = j->tb;
	struct jfr_rec rec, *r = &rec;
	struct jfr_class *k = sample_fields(j, ev, r);
	struct rec_sample *s;
	struct jfr_seg *sg;

	s = arena_alloc(&j->arena, sizeof(*s));
	r->a = (int64_t)(intptr_t)s;
	r->kind = JREC_WHOLE;
	switch (ev->kind) {
	case JFR_TLAB_NEW:
		rec_sample_init(s, SAMPLE_TLAB_NEW);
		if (jfr_has(ev, JS_TLAB_SIZE))
			s->tlab_size = size_of(ev->v[JS_TLAB_SIZE]);
		if (jfr_has(ev, JS_ALLOC_SIZE))
			s->alloc_size = size_of(ev->v[JS_ALLOC_SIZE]);
		s->weight = j->ap_interval;
		r->kind = JREC_AP_TLAB;
		break;
	case JFR_AP_LIVE:
		/* the object's size, unweighted; the replay weighs it at the
		 * recording's interval, and its time is when it was sampled
		 * (startTime is the profiler's stop) */
		rec_sample_init(s, SAMPLE_AP_LIVE);
		if (jfr_has(ev, JS_ALLOC_SIZE))
			s->alloc_size = size_of(ev->v[JS_ALLOC_SIZE]);
		s->weight = j->ap_interval;
		s->liveness = LIVE_AT_END;
		if (jfr_has(ev, JS_ALLOC_TIME))
			r->time_ns =
				jfr_timebase_epoch_ns(tb, ev->v[JS_ALLOC_TIME]);
		r->kind = JREC_AP_TLAB;
		break;
	default: /* JFR_DD_OBJECT, JFR_DD_LIVE */
		rec_sample_init(s, ev->kind == JFR_DD_LIVE ? SAMPLE_DD_LIVE
							   : SAMPLE_DD_ALLOC);
		if (jfr_has(ev, JS_SIZE))
			s->alloc_size = size_of(ev->v[JS_SIZE]);
		s->weight = dd_bytes(s->alloc_size, number_of(ev, JS_WEIGHT));
		if (ev->kind == JFR_DD_LIVE)
			s->liveness = LIVE_AT_END;
		j->n_samples[s->kind]++;
		break;
	}
	/* counted by the replay, which settles its kind (JREC_AP_TLAB),
	 * or above */
	sample_class(j, r, k);
	sg = room(j);
	sg->recs[sg->n_recs++] = *r;
}

static void decode_heap_summary(struct jfr_job *j, const struct jfr_event *ev)
{
	struct jfr_chunk *c = j->c;
	struct rec_heap_summary *h;
	const char *when = NULL;

	h = arena_alloc(&j->arena, sizeof(*h));
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
	put_rec(j, JREC_HEAP, h, 0);
}

/* What a GC event says of its GC (sink.h's rec_gc_info): the collector
 * and cause (jdk.GarbageCollection), G1's young type
 * (jdk.G1GarbageCollection), or a failed copy (jdk.EvacuationFailed,
 * jdk.PromotionFailed).  The events of one GC share its gcId, which
 * jdk.GCHeapSummary carries too. */
static void decode_gc_info(struct jfr_job *j, const struct jfr_event *ev)
{
	struct jfr_chunk *c = j->c;
	struct rec_gc_info *g;

	if (!jfr_has(ev, JS_GC_ID))
		return;
	g = arena_calloc(&j->arena, 1, sizeof(*g));
	g->gc_id = (int64_t)(uint32_t)ev->v[JS_GC_ID];
	if (ev->kind == JFR_GC) {
		if (jfr_has(ev, JS_NAME))
			g->name = jfr_gc_name(c, ev->v[JS_NAME]);
		if (jfr_has(ev, JS_CAUSE))
			g->cause = jfr_gc_cause(c, ev->v[JS_CAUSE]);
	} else if (ev->kind == JFR_G1_GC) {
		if (jfr_has(ev, JS_G1_TYPE))
			g->phase = jfr_g1_yc_type(c, ev->v[JS_G1_TYPE]);
	} else {
		g->failed = true;
	}
	put_rec(j, JREC_GC, g, 0);
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
		"profiler.LiveObject",
		"datadog.ObjectSample",
		"datadog.HeapLiveObject",
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
	/* async-profiler's sampling interval: its "alloc" setting on the
	 * event it writes its samples as (flightRecorder.cpp,
	 * writeSettings), 0 for its default */
	if (j->writer == JFR_WRITER_ASYNC_PROFILER && !strcmp(name, "alloc") &&
	    !strcmp(event, "jdk.ObjectAllocationInNewTLAB")) {
		char *end;
		long long v = strtoll(value, &end, 10);

		if (end != value && !*end && v >= 0)
			j->ap_interval = v > 0 ? v : AP_DEFAULT_INTERVAL;
	}
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
	uint64_t dropped = 0; /* a spooled chunk's pages before it let go */
	int rc;
	const bool other = j->writer != JFR_WRITER_JDK;
	/* the kinds decode_other() reads in this chunk: other writers'
	 * events, and those of the JDK's names that mean other things
	 * there (async-profiler's InNewTLAB, docs/formats/jfr.md); one
	 * look-up an event */
	bool whole[JFR_KIND__COUNT] = {
		[JFR_AP_LIVE] = true,
		[JFR_DD_OBJECT] = true,
		[JFR_DD_LIVE] = true,
	};

	whole[JFR_TLAB_NEW] = j->writer == JFR_WRITER_ASYNC_PROFILER;
	/* what opening walked of a spooled chunk is read again as the
	 * events come: its resident pages follow the events */
	spool_drop(&j->spool, 0, j->take);

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
		if (whole[ev.kind]) {
			decode_other(j, &ev);
		} else if ((ev.have & heap_fields[ev.kind]) ==
			   heap_fields[ev.kind]) {
			decode_heap(j, &ev);
		} else {
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
			case JFR_GC:
			case JFR_G1_GC:
			case JFR_GC_FAILED:
				decode_gc_info(j, &ev);
				break;
			case JFR_ACTIVE_SETTING:
				note_setting(j, &ev);
				break;
			case JFR_ACTIVE_RECORDING:
				/* another writer names itself here:
				 * "async-profiler 4.5-b583d82" */
				if (other && jfr_has(&ev, JS_NAME) &&
				    ev.s[JS_NAME])
					j->recording_name = ev.s[JS_NAME];
				break;
			case JFR_JVM_INFO:
				if (jfr_has(&ev, JS_JVM_NAME) &&
				    ev.s[JS_JVM_NAME])
					j->jvm_name = ev.s[JS_JVM_NAME];
				if (jfr_has(&ev, JS_JVM_VERSION) &&
				    ev.s[JS_JVM_VERSION])
					j->jvm_version = ev.s[JS_JVM_VERSION];
				if (jfr_has(&ev, JS_PID) &&
				    ev.v[JS_PID] <= INT64_MAX)
					j->jvm_pid = (int64_t)ev.v[JS_PID];
				if (jfr_has(&ev, JS_JVM_START) &&
				    ev.v[JS_JVM_START] <= INT64_MAX)
					j->jvm_start_ms =
						(int64_t)ev.v[JS_JVM_START];
				break;
			default:
				break;
			}
		}
		if (j->flush && j->seg && j->seg->n_recs >= JFR_BATCH &&
		    j->flush(j->flush_ctx, j) < 0)
			break;
		/* a spooled chunk's pages behind the events: what is read
		 * again (constants) comes back from the file */
		if (j->spool.map && ev.offset >= dropped + SPOOL_DROP_STEP) {
			spool_drop(&j->spool, dropped, ev.offset);
			dropped = ev.offset;
		}
	}
}

static void reset_output(struct jfr_job *j)
{
	arena_reset(&j->arena);
	/* keys are the chunk's: what they meant in the last is gone */
	u64cache_clear(&j->fast_thread);
	u64cache_clear(&j->fast_stack);
	u64cache_clear(&j->fast_class);
	u64map_clear(&j->stack_ids);
	/* a chunk's frames: the set is rebuilt rather than cleared, which
	 * would need as many writes as it has slots */
	idxset_release(&j->frame_index);
	j->n_frames = 0;
	err_init(&j->open_err);
	j->n_settings = j->n_counts = 0;
	j->n_objs = j->n_stacks = 0;
	j->suppressed = 0;
	j->jvm_name = j->jvm_version = NULL;
	j->jvm_pid = j->jvm_start_ms = -1;
	memset(j->n_samples, 0, sizeof(j->n_samples));
	j->n_heap_summaries = 0;
	j->writer = JFR_WRITER_JDK;
	j->recording_name = NULL;
	j->ap_interval = REC_NONE;
	j->n_unread_ids = 0;
	j->last_event_ns = INT64_MIN;
	j->end = 0;
	j->why = NULL;
}

void jfr_job_decode(void *job)
{
	struct jfr_job *j = job;

	reset_output(j);
	j->orc = jfr_chunk_open(j->c, j->data, j->take, j->chunk_no, j->at,
				&j->open_err);
	if (j->orc >= 0) {
		j->tb = jfr_chunk_timebase(j->c);
		j->writer = jfr_chunk_writer(j->c);
		j->n_unread_ids = jfr_unread_heap_types(
			j->c, j->unread_ids,
			sizeof(j->unread_ids) / sizeof(j->unread_ids[0]));
		read_events(j);
		fold_counts(j);
		j->end = jfr_chunk_consistent_end(j->c);
		j->why = jfr_chunk_lost_reason(j->c);
	}
	if (j->feed)
		end_feed(j);
}
