/*
 * The JFR importer: reads a recording chunk by chunk from an input
 * (memory stays bounded by the largest chunk), decodes each with
 * src/formats/jfr, and emits the heap events as normalized records, with
 * their stacks, threads and classes resolved, into a sink.
 *
 * What it reads past, it reports through env->warn and goes on: an
 * unfinished chunk (JVM killed) up to its last flush, a file cut short
 * up to the last whole event, corrupt events one by one, bytes after
 * the last chunk.  Only a stream that is not JFR at all, or a first
 * chunk with nothing usable in it, is an error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/jfr/jfr.h"
#include "formats/jfr/jfr_magic.h"
#include "importers/import_jfr_int.h"
#include "importers/importer_list.h"
#include "record/sink.h"
#include "input/input.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/env.h"
#include "util/hash.h"
#include "util/spool.h"
#include "util/workq.h"
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
	/* majors 0 and 1 (JDK 7 to 10) are other formats: ours to refuse
	 * with a clear message */
	return major == JFR_MAJOR_SUPPORTED ? 100 : 80;
}

#define DEFAULT_MAX_CHUNK (1ull << 30)
#define MAX_JOBS	  64

/* The keyed samples written into the room lent, handed over: before
 * any other call, so that the sink sees every call in the records'
 * order. */
static int flush_keyed(struct jfr_import *im)
{
	const struct sink *sink = im->sink;
	size_t n = im->n_kc;

	im->n_kc = im->k_room = 0;
	return n ? sink->ops->keyed_added(sink->ctx, n) : 0;
}

static void warn(struct jfr_import *im, const struct err *e)
{
	struct err copy = *e;

	if (!copy.source[0])
		err_source(&copy, im->env->source);
	im->env->warn(im->env->ctx, &copy);
}

/* The sizes of a sample of kind, with record field a and tlab_alloc
 * (SAMPLE_TLAB_NEW's alloc_size), as struct rec_sample has them. */
static inline void sample_sizes(unsigned kind, int64_t a, int64_t tlab_alloc,
				int64_t *weight, int64_t *alloc_size,
				int64_t *tlab_size)
{
	*weight = *alloc_size = *tlab_size = REC_NONE;
	if (kind == SAMPLE_ALLOC)
		*weight = a;
	else if (kind == SAMPLE_TLAB_NEW)
		*tlab_size = a, *alloc_size = tlab_alloc;
	else
		*alloc_size = a;
}

/* Whether record r carries its sample whole, by pointer. */
static inline bool rec_whole(const struct jfr_rec *r)
{
	return r->kind == SAMPLE_OLD_OBJECT || r->kind == JREC_AP_TLAB ||
	       r->kind == JREC_WHOLE;
}

/*
 * The chunk's stack local as the sink's record, in the import's buffer:
 * valid until the next call, as a record is for the call it is passed
 * to.  The stack of the call before is reused as it is (a sink that
 * takes every sample whole meets the same stack many times in a row).
 */
static const struct rec_stack *
stack_rec(struct jfr_import *im, const struct jfr_job *j, uint32_t local)
{
	const struct jfr_cstack *cs;
	uint32_t i;

	if (!local)
		return NULL;
	if (im->xs_local == local && im->xs_chunk == j->chunk_no)
		return &im->xs;
	cs = j->stacks[local - 1];
	if (cs->n_frames > im->alloc_xs_frames) {
		im->alloc_xs_frames = cs->n_frames;
		im->xs_frames = xreallocarray(im->xs_frames, cs->n_frames,
					      sizeof(*im->xs_frames));
	}
	for (i = 0; i < cs->n_frames; i++) {
		im->xs_frames[i] = cs->frames[i]->rec;
		im->xs_frames[i].id += j->frame_base;
	}
	im->xs.id = j->stack_base + local;
	im->xs.frames = im->xs_frames;
	im->xs.n_frames = cs->n_frames;
	im->xs.truncated = cs->truncated;
	im->xs_chunk = j->chunk_no;
	im->xs_local = local;
	return &im->xs;
}

/* r as the sink's record; tlab_alloc: SAMPLE_TLAB_NEW's alloc_size. */
static void fill_sample(struct jfr_import *im, const struct jfr_job *j,
			const struct jfr_rec *r, int64_t tlab_alloc,
			struct rec_sample *s)
{
	if (rec_whole(r)) {
		*s = *(const struct rec_sample *)(intptr_t)r->a;
	} else {
		/* rec_sample_init()'s fields one by one: it memsets the
		 * whole record first, and this runs for every event */
		s->kind = r->kind;
		s->class_name = s->class_raw = s->gc_root = NULL;
		s->class_id = 0;
		s->alloc_time_ns = s->object_age_ns = s->object_size = REC_NONE;
		s->last_heap_used = s->array_elements = REC_NONE;
		s->liveness = LIVE_UNKNOWN;
		s->death_ns = s->alloc_gc = s->death_gc = REC_NONE;
		sample_sizes(r->kind, r->a, tlab_alloc, &s->weight,
			     &s->alloc_size, &s->tlab_size);
	}
	s->time_ns = r->time_ns;
	s->thread = r->thread ? j->objs[r->thread - 1] : NULL;
	s->stack = stack_rec(im, j, r->stack);
	if (r->cls) {
		const struct jfr_class *k = j->objs[r->cls - 1];

		/* the ids of the chunks before, then this chunk's */
		s->class_id = j->id_base + r->cls;
		s->class_name = k->display;
		s->class_raw = k->raw;
	}
}

/* The sink's keys for every local id so far, 0 (not asked) for the new
 * ones; index 0 is "none". */
static void keys_grow(struct jfr_job *j)
{
	size_t n = (size_t)j->r_objs + 1, m = (size_t)j->r_stacks + 1;

	if (n > j->alloc_keyed_objs) {
		j->alloc_keyed_objs = n + n / 2;
		j->key_thread = xreallocarray(
			j->key_thread, j->alloc_keyed_objs, sizeof(uint64_t));
		j->key_cls = xreallocarray(j->key_cls, j->alloc_keyed_objs,
					   sizeof(uint64_t));
	}
	if (n > j->n_keyed_objs) {
		memset(j->key_thread + j->n_keyed_objs, 0,
		       (n - j->n_keyed_objs) * sizeof(uint64_t));
		memset(j->key_cls + j->n_keyed_objs, 0,
		       (n - j->n_keyed_objs) * sizeof(uint64_t));
		j->n_keyed_objs = n;
	}
	if (m > j->alloc_keyed_stacks) {
		j->alloc_keyed_stacks = m + m / 2;
		j->key_stack = xreallocarray(
			j->key_stack, j->alloc_keyed_stacks, sizeof(uint64_t));
	}
	if (m > j->n_keyed_stacks) {
		memset(j->key_stack + j->n_keyed_stacks, 0,
		       (m - j->n_keyed_stacks) * sizeof(uint64_t));
		j->n_keyed_stacks = m;
	}
}

/* Record r as keyed sample i of the room c, with its keys (key_thread's,
 * key_cls's and key_stack's, KEY_SET) and SAMPLE_TLAB_NEW's alloc_size. */
static inline void put_keyed(const struct rec_keyed_cols *c, size_t i,
			     const struct jfr_rec *r, uint64_t thread,
			     uint64_t cls, uint64_t stack, int64_t tlab_alloc)
{
	int64_t weight, alloc_size, tlab_size;

	sample_sizes(r->kind, r->a, tlab_alloc, &weight, &alloc_size,
		     &tlab_size);
	rec_sample_bytes(r->kind, weight, alloc_size, tlab_size, REC_NONE,
			 &c->bytes[i], &c->size[i]);
	c->time_ns[i] = r->time_ns;
	c->kind[i] = r->kind;
	c->flags[i] = stack & KEY_TRUNCATED ? REC_KEYED_TRUNCATED : 0;
	c->thread[i] = (uint32_t)thread;
	c->cls[i] = (uint32_t)cls;
	c->stack[i] = (uint32_t)stack;
}

/* A sample by the sink's keys, asked for where one of its thread, class
 * and stack is new in the chunk (and so where sample() would have met
 * it first): the same interning, in the same order, as sample(). */
static int emit_keyed(struct jfr_import *im, struct jfr_job *j,
		      const struct jfr_rec *r, int64_t tlab_alloc)
{
	const struct sink *sink = im->sink;
	uint64_t *kt = &j->key_thread[r->thread], *kc = &j->key_cls[r->cls];
	uint64_t *ks = &j->key_stack[r->stack];
	struct rec_keyed_cols *c = &im->kc;

	if (!(*kt & *kc & *ks & KEY_SET)) {
		struct rec_sample s;
		struct rec_keys k;
		int rc;

		fill_sample(im, j, r, tlab_alloc, &s);
		rc = sink->ops->keys(sink->ctx, &s, &k);
		if (rc < 0)
			return rc;
		*kt = KEY_SET | k.thread;
		*kc = KEY_SET | k.cls;
		*ks = KEY_SET | k.stack;
		if (s.stack && s.stack->truncated)
			*ks |= KEY_TRUNCATED;
	}
	if (im->n_kc == im->k_room) {
		if (flush_keyed(im) < 0 ||
		    sink->ops->keyed_room(sink->ctx, c, &im->k_room) < 0)
			return ERR_FAIL;
	}
	put_keyed(c, im->n_kc++, r, *kt, *kc, *ks, tlab_alloc);
	return 0;
}

static int emit_sample(struct jfr_import *im, struct jfr_job *j,
		       const struct jfr_rec *r, const int64_t **extra)
{
	struct rec_sample s;
	int64_t tlab_alloc =
		r->kind == SAMPLE_TLAB_NEW ? *(*extra)++ : REC_NONE;

	if (im->keyed && !rec_whole(r))
		return emit_keyed(im, j, r, tlab_alloc);
	if (flush_keyed(im) < 0)
		return ERR_FAIL;
	fill_sample(im, j, r, tlab_alloc, &s);
	return im->sink->ops->sample ? im->sink->ops->sample(im->sink->ctx, &s)
				     : 0;
}

/* The chunk's start: what opening it said, and the ids before it. */
static void begin_chunk(struct jfr_import *im, struct jfr_job *j)
{
	j->begun = true;
	j->id_base = im->next_id;
	j->stack_base = im->next_stack_id;
	j->frame_base = im->next_frame_id;
	j->r_objs = j->r_stacks = 0;
	j->n_keyed_objs = j->n_keyed_stacks = 0; /* a new chunk's ids */
	if (im->keyed)
		keys_grow(j);
	if (j->orc < 0) {
		warn(im, &j->open_err);
		im->rec.bytes_skipped += j->take;
		return;
	}
	if (j->orc > 0)
		warn(im, &j->open_err);
	im->rec.n_chunks++;
	if (j->h.start_ns < im->rec.start_ns)
		im->rec.start_ns = j->h.start_ns;
}

/* A new thread or class of the chunk (JREC_OBJ), with the id the
 * single-threaded reader gave it. */
static void add_obj(struct jfr_import *im, struct jfr_job *j,
		    const struct jfr_rec *r)
{
	void *p = (void *)(intptr_t)r->a;

	if (j->r_objs == j->alloc_objs) {
		j->alloc_objs = j->alloc_objs ? 2 * j->alloc_objs : 256;
		j->objs =
			xreallocarray(j->objs, j->alloc_objs, sizeof(*j->objs));
	}
	if (r->thread)
		((struct rec_thread *)p)->id += j->id_base;
	j->objs[j->r_objs++] = p;
	if (im->keyed)
		keys_grow(j);
}

/* A new stack of the chunk (JREC_STACK), the same. */
static void add_stack(struct jfr_import *im, struct jfr_job *j,
		      const struct jfr_rec *r)
{
	const struct jfr_cstack *st = (const struct jfr_cstack *)(intptr_t)r->a;

	if (j->r_stacks == j->alloc_stacks) {
		j->alloc_stacks = j->alloc_stacks ? 2 * j->alloc_stacks : 256;
		j->stacks = xreallocarray(j->stacks, j->alloc_stacks,
					  sizeof(*j->stacks));
	}
	j->stacks[j->r_stacks++] = st;
	if (im->keyed)
		keys_grow(j);
}

/*
 * The segment's samples from record n on, by key, for as long as each
 * is a JFR heap sample whose keys are known and the room lent has space:
 * emit_keyed()'s work without its calls and tests, the first record
 * that needs more (a new thread, class or stack, a full room, any other
 * record) left to the general way.  Returns the record it stopped at.
 * Nearly every sample of a real recording goes this way: it took the
 * replay from 79 to 45 instructions a sample (cachegrind, the
 * 39 MB head of the bench recording).
 */
static size_t keyed_run(struct jfr_import *im, struct jfr_job *j,
			const struct jfr_seg *sg, size_t n,
			const int64_t **extra)
{
	const uint64_t *kt = j->key_thread, *kc = j->key_cls;
	const uint64_t *ks = j->key_stack;
	/* copies: the stores through them could alias im and sg, and the
	 * compiler loaded every pointer again for each sample */
	const struct rec_keyed_cols c = im->kc;
	const struct jfr_rec *recs = sg->recs;
	const int64_t *x = *extra;
	size_t i = im->n_kc, room = im->k_room, end = sg->n_recs;

	if (room - i < end - n)
		end = n + (room - i);
	for (; n < end; n++, i++) {
		const struct jfr_rec *r = &recs[n];
		uint64_t t, k, st;

		/* the kind first: another record's ids are not keys (a new
		 * object's is one past the tables, which grow when it is
		 * replayed) */
		if (r->kind > SAMPLE_TLAB_OUTSIDE)
			break;
		t = kt[r->thread], k = kc[r->cls], st = ks[r->stack];
		if (!(t & k & st & KEY_SET))
			break;
		put_keyed(&c, i, r, t, k, st,
			  r->kind == SAMPLE_TLAB_NEW ? *x++ : REC_NONE);
	}
	im->n_kc = i;
	*extra = x;
	return n;
}

/* A segment's records to the sink, in file order, with their damage
 * warnings where they were found. */
static int replay_seg(struct jfr_import *im, struct jfr_job *j,
		      const struct jfr_seg *sg)
{
	const struct sink *sink = im->sink;
	const int64_t *extra = sg->extra;
	size_t n;
	int rc = 0;

	for (n = 0; n < sg->n_recs && rc >= 0; n++) {
		const struct jfr_rec *r;
		const void *p;

		if (im->keyed &&
		    (n = keyed_run(im, j, sg, n, &extra)) == sg->n_recs)
			break;
		r = &sg->recs[n];
		p = (const void *)(intptr_t)r->a;

		switch (r->kind) {
		case JREC_OBJ:
			add_obj(im, j, r);
			break;
		case JREC_STACK:
			add_stack(im, j, r);
			break;
		case JREC_WARN:
			rc = flush_keyed(im);
			warn(im, p);
			break;
		case JREC_HEAP:
			rc = flush_keyed(im);
			if (rc >= 0 && sink->ops->heap_summary)
				rc = sink->ops->heap_summary(sink->ctx, p);
			break;
		case JREC_GC:
			if (sink->ops->gc_info)
				rc = sink->ops->gc_info(sink->ctx, p);
			break;
		case JREC_AP_TLAB:
			ap_settle(im, (struct rec_sample *)(intptr_t)r->a);
			rc = emit_sample(im, j, r, &extra);
			break;
		default:
			rc = emit_sample(im, j, r, &extra);
			break;
		}
	}
	return rc;
}

/* The records of the job's own segment (decoded on this thread) to the
 * sink; the segment is emptied. */
static int replay_records(struct jfr_import *im, struct jfr_job *j)
{
	int rc = 0;

	if (!j->begun)
		begin_chunk(im, j);
	if (j->seg) {
		rc = replay_seg(im, j, j->seg);
		j->seg->n_recs = j->seg->n_extra = 0;
	}
	/* none waits once the records are replayed: what comes between
	 * (the chunk's warnings, the recording) finds the sink up to date */
	if (rc >= 0)
		rc = flush_keyed(im);
	im->n_kc = im->k_room = 0;
	return rc;
}

/*
 * The job being decoded by a worker, replayed as its segments arrive
 * (and dropped, once the sink has failed), until its decode is over;
 * each segment goes back to be filled again.
 */
static void replay_feed(struct jfr_import *im, struct jfr_job *j)
{
	struct jfr_feed *f = &im->feed;
	struct jfr_seg *list, *sg, *last;
	unsigned n;

	pthread_mutex_lock(&f->lock);
	j->replaying = true; /* its decoder waits no more */
	pthread_cond_broadcast(&f->cond);
	for (;;) {
		while (!j->pub && !j->fin)
			pthread_cond_wait(&f->cond, &f->lock);
		if (!j->pub)
			break; /* over, and everything replayed */
		list = j->pub;
		j->pub = NULL;
		j->pub_tail = &j->pub;
		pthread_mutex_unlock(&f->lock);
		/* the open's result was set before the first record; once
		 * the sink has failed, nothing more is said */
		if (!j->begun && im->rc >= 0)
			begin_chunk(im, j);
		n = 0;
		for (sg = list; sg; sg = sg->next) {
			if (im->rc >= 0 && j->orc >= 0)
				im->rc = replay_seg(im, j, sg);
			last = sg;
			n++;
		}
		pthread_mutex_lock(&f->lock);
		last->next = f->free;
		f->free = list;
		j->n_held -= n;
	}
	pthread_mutex_unlock(&f->lock);
}

/* A batch of a chunk decoded on this thread (struct jfr_job's flush). */
static int flush_batch(void *ctx, struct jfr_job *j)
{
	struct jfr_import *im = ctx;

	im->rc = replay_records(im, j);
	return im->rc;
}

/* The end of a chunk: what was lost, and the header's end time. */
static void chunk_end(struct jfr_import *im, const struct jfr_job *j)
{
	const struct jfr_header *h = &j->h;

	if (j->suppressed)
		import_warnf(im->env, ERR_FORMAT, j->at,
			     "jfr: %llu more damaged events in chunk %u",
			     (unsigned long long)j->suppressed, j->chunk_no);
	/* the header's duration holds for a whole chunk, finished or
	 * not: since JDK 14 the JVM rewrites the header at every flush,
	 * the duration up to that flush with it (JfrChunkWriter::
	 * flush_chunk() and JfrChunkHeadWriter::write_time() in
	 * jfrChunkWriter.cpp, JfrChunk::duration() in jfrChunk.cpp), and
	 * the size it gives ends there too: an unfinished chunk, read up to
	 * its size, covers up to its last flush.  A chunk cut short in
	 * transit (why) ends where its events say; older JDKs leave 0 in
	 * an unfinished chunk's duration, and then the events say too */
	{
		int64_t end;

		/* a forged header's sum may overflow: then it says nothing */
		if (!j->why &&
		    !__builtin_add_overflow(h->start_ns, h->duration_ns,
					    &end) &&
		    end > im->rec.end_ns)
			im->rec.end_ns = end;
	}
	if (j->why) {
		import_warnf(im->env, j->cut ? ERR_TRUNC : ERR_FORMAT,
			     j->at + j->end,
			     "jfr: chunk %u: %s; %llu bytes from here "
			     "skipped, events before kept",
			     j->chunk_no, j->why,
			     (unsigned long long)(j->take - j->end));
		im->rec.bytes_skipped += j->take - j->end;
	} else if (h->state != 0) {
		import_warnf(im->env, ERR_TRUNC, j->at,
			     "jfr: chunk %u was still being written (state "
			     "%u: the JVM died or is running); read up to "
			     "its last flush, %llu bytes",
			     j->chunk_no, h->state,
			     (unsigned long long)h->size);
	}
}

/* One decoded chunk to the sink and the recording's facts, as the
 * single-threaded reader would have met it. */
static int replay_chunk(struct jfr_import *im, struct jfr_job *j)
{
	int rc;

	if (!j->begun)
		begin_chunk(im, j);
	if (j->orc < 0)
		return 0;
	rc = replay_records(im, j);
	im->next_id = j->id_base + j->n_objs;
	im->next_stack_id = j->stack_base + j->n_stacks;
	im->next_frame_id = j->frame_base + j->n_frames;
	merge_facts(im, j);
	chunk_end(im, j);
	return rc;
}

/* The oldest chunk in flight, decoded, replayed (unless the sink has
 * failed); its bytes may go. */
static void replay_next(struct jfr_import *im)
{
	struct jfr_job *j;

	if (im->submitted == im->replayed)
		return;
	if (im->fed)
		replay_feed(im, &im->jobs[im->replayed % im->depth]);
	j = workq_next(im->q);
	im->replayed++;
	if (im->rc >= 0)
		im->rc = replay_chunk(im, j);
	/* nothing points into a chunk's bytes once it is decoded: a
	 * spooled file goes now, not when the job is used again */
	if (spool_fd(&j->spool) >= 0)
		spool_reset(&j->spool);
	if (im->submitted > im->replayed)
		input_pin(im->in, im->jobs[im->replayed % im->depth].at);
	else
		input_pin(im->in, UINT64_MAX);
}

static void drain(struct jfr_import *im)
{
	while (im->submitted > im->replayed)
		replay_next(im);
}

/*
 * A chunk of a pulled stream into the job's spool: *take bytes, fewer
 * than size only where the stream ends.  The chunk's size is the file's
 * word, so the spool grows with the bytes that come, never by the size
 * declared; past the spool's threshold they go to a temporary file,
 * mapped for the decode (docs/design/memory.md).  <0 where the spool
 * failed (e says why).
 */
static int copy_chunk(struct input *in, struct jfr_job *j, uint64_t size,
		      size_t *take, struct err *e)
{
	spool_reset(&j->spool);
	*take = 0;
	while (*take < size) {
		const unsigned char *p;
		size_t avail;

		/* what the stream has buffered: a block at a time */
		if (input_peek(in, 1, &p, &avail) < 0 || !avail)
			break; /* the stream ended (or failed: the walker
				  reports) */
		if (avail > size - *take)
			avail = (size_t)(size - *take);
		if (spool_add(&j->spool, p, avail, e) < 0)
			return ERR_FAIL;
		input_consume(in, avail);
		*take += avail;
	}
	return spool_map(&j->spool, &j->data, e);
}

/* The next job slot, replaying the oldest chunk when all are busy. */
static struct jfr_job *free_job(struct jfr_import *im)
{
	struct jfr_job *j;

	if (workq_full(im->q))
		replay_next(im);
	j = &im->jobs[im->submitted % im->depth];
	if (im->submitted % im->depth >= im->n_inited) {
		jfr_job_init(&im->jobs[im->n_inited++]);
		if (im->fed)
			j->feed = &im->feed;
		if (im->depth == 1) {
			/* no workers: decoded here, replayed as it goes */
			j->flush = flush_batch;
			j->flush_ctx = im;
		}
	}
	return j;
}

/* Hand the chunk at the input's position (header h) to a decoder; it
 * stays where it is (memory, mapping: pinned until replayed) or is
 * copied.  Returns false when the stream ends inside it, or when it
 * could not be copied (warned: the rest of the input is skipped). */
static bool submit_chunk(struct jfr_import *im, const struct jfr_header *h)
{
	struct input *in = im->in;
	struct jfr_job *j = free_job(im);
	size_t take;
	uint64_t skipped;
	struct err se;

	j->at = input_offset(in);
	j->h = *h;
	j->chunk_no = ++im->chunk_no;
	/* the replay's side, and what the replay and the decoder share,
	 * before the job is the decoder's */
	j->begun = false;
	j->id_base = j->stack_base = j->frame_base = 0;
	j->pub = NULL;
	j->pub_tail = &j->pub;
	j->n_held = 0;
	j->fin = j->replaying = false;
	if (input_is_stable(in)) {
		const unsigned char *p;
		size_t avail;

		/* a file not in the page cache is read a chunk ahead of the
		 * decoders: two of them at two places in one file defeat the
		 * kernel's own read-ahead, and each page fault waited for
		 * the disk (280 on a 512 MB recording, 20 with this) */
		input_prefetch(in, j->at, 2 * h->size);
		input_peek(in, (size_t)h->size, &p, &avail);
		take = avail < h->size ? avail : (size_t)h->size;
		j->data = p;
		if (im->submitted == im->replayed)
			input_pin(in, j->at);
		input_consume(in, take);
	} else if (copy_chunk(in, j, h->size, &take, &se) < 0) {
		spool_reset(&j->spool);
		drain(im);
		input_skip(in, UINT64_MAX, &skipped);
		import_warnf(im->env, ERR_IO, j->at,
			     "jfr: chunk %u (%llu bytes) cannot be held for "
			     "decoding: %s; it and the %llu bytes after it "
			     "skipped",
			     j->chunk_no, (unsigned long long)h->size, se.msg,
			     (unsigned long long)(take + skipped));
		return false;
	}
	j->take = take;
	j->cut = take < h->size;
	workq_submit(im->q, j);
	im->submitted++;
	return !j->cut;
}

/* Frame the chunks one after another; false at the end.  What is not
 * a chunk ends the recording with a warning, after every chunk before
 * it has been replayed. */
static bool next_chunk(struct jfr_import *im, uint64_t max_chunk, struct err *e)
{
	struct input *in = im->in;
	const unsigned char *p;
	size_t avail;
	uint64_t at = input_offset(in), skipped;
	struct jfr_header h;
	struct err ce;

	err_init(&ce);
	if (input_peek(in, JFR_HEADER_LEN, &p, &avail) < 0 && !avail)
		return false; /* the input's own failure: the walker reports */
	if (!avail)
		return false;
	if (jfr_header_parse_frame(p, avail, &h, &ce) < 0) {
		if (!im->chunk_no) {
			im->rc = err_set_at(e, ce.code, at, "%s", ce.msg);
			return false;
		}
		drain(im);
		input_skip(in, UINT64_MAX, &skipped);
		import_warnf(im->env, ERR_FORMAT, at,
			     "jfr: %llu bytes after chunk %u are not a chunk "
			     "(%s); skipped",
			     (unsigned long long)skipped, im->chunk_no, ce.msg);
		return false;
	}
	if (h.size > max_chunk) {
		drain(im);
		input_skip(in, UINT64_MAX, &skipped);
		import_warnf(im->env, ERR_LIMIT, at,
			     "jfr: chunk %u claims %llu bytes, more than the "
			     "%llu allowed; it and the %llu bytes after it "
			     "skipped",
			     im->chunk_no + 1, (unsigned long long)h.size,
			     (unsigned long long)max_chunk,
			     (unsigned long long)skipped);
		return false;
	}
	return submit_chunk(im, &h);
}

/* Threads from env->jobs: 1 (or 0) decodes on this thread. */
static void start_jobs(struct jfr_import *im)
{
	unsigned n = im->env->jobs > MAX_JOBS ? MAX_JOBS : im->env->jobs;

	/* n + 1 chunks in flight: while the sink takes the oldest, every
	 * decoder works ahead.  With n, a decoder waited for the sink to
	 * finish a chunk before it could start the next (on a file of four
	 * chunks, one core idle for a chunk's replay): 6.3% faster on the
	 * 38 MB bench recording, 2.0% on 512 MB, for a chunk's records
	 * and pages more (peak RSS 172 -> 227 MB on 512 MB) */
	im->depth = n > 1 ? n + 1 : 1;
	im->q = workq_new(n > 1 ? n : 0, im->depth, jfr_job_decode);
	im->jobs = xcalloc(im->depth, sizeof(*im->jobs));
	im->fed = n > 1;
	/* Only the chunk being replayed is decoded freely; a decoder of a
	 * later one stops JFR_AHEAD segments in until the replay reaches it,
	 * so with two decoders one of them decodes at a time, and the other
	 * core runs the sink and the store.  With more, they may each fill
	 * a chunk's worth ahead, as before segments: the decoding is then
	 * spread over the cores, and the memory is what it was. */
	if (im->fed)
		jfr_feed_init(
			&im->feed,
			(unsigned)env_count("HEAPSIFT_JFR_SEGMENT",
					    JFR_SEG_RECS, 1, 1u << 24),
			(unsigned)env_count("HEAPSIFT_JFR_AHEAD",
					    n > 2 ? JFR_AHEAD_MANY : JFR_AHEAD,
					    0, 1u << 24));
}

static void stop_jobs(struct jfr_import *im)
{
	unsigned i;

	if (im->fed) {
		/* every job is replayed by now; were one not, its decoder
		 * must not wait for a replay that will not come */
		pthread_mutex_lock(&im->feed.lock);
		im->feed.stop = true;
		pthread_cond_broadcast(&im->feed.cond);
		pthread_mutex_unlock(&im->feed.lock);
	}
	workq_free(im->q);
	for (i = 0; i < im->n_inited; i++)
		jfr_job_release(&im->jobs[i]);
	if (im->fed)
		jfr_feed_release(&im->feed);
	free(im->jobs);
	input_pin(im->in, UINT64_MAX);
}

static int count_cmp(const void *a, const void *b)
{
	const struct rec_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The recording's facts, once every chunk is in. */
static int send_recording(struct jfr_import *im, struct err *e)
{
	struct rec_recording *r = &im->rec;

	if (im->n_counts)
		qsort(im->counts, im->n_counts, sizeof(*im->counts), count_cmp);
	other_facts(im);
	r->settings = im->settings;
	r->n_settings = (uint32_t)im->n_settings;
	r->event_types = im->counts;
	r->n_event_types = (uint32_t)im->n_counts;
	if (r->start_ns == INT64_MAX)
		r->start_ns = 0;
	if (im->last_event_ns > r->end_ns)
		r->end_ns = im->last_event_ns;
	if (r->n_chunks && im->sink->ops->recording &&
	    im->sink->ops->recording(im->sink->ctx, r) < 0)
		return err_set(e, ERR_IO, "output failed");
	return 0;
}

static int jfr_import(struct input *in, const struct sink *sink,
		      const struct import_env *env, struct err *e)
{
	struct jfr_import im;
	uint64_t max_chunk =
		env->max_chunk_bytes ? env->max_chunk_bytes : DEFAULT_MAX_CHUNK;
	int rc;

	memset(&im, 0, sizeof(im));
	im.sink = sink;
	im.env = env;
	im.in = in;
	arena_init(&im.keep, 0);
	hmap_init(&im.setting_index);
	hmap_init(&im.count_index);
	hmap_init(&im.unread_index);
	im.ap_interval = REC_NONE;
	im.rec.source = env->source;
	im.rec.format = "jfr";
	im.rec.start_ns = INT64_MAX;
	im.keyed = sink->ops->keys && sink->ops->keyed_room &&
		   sink->ops->keyed_added;
	im.last_event_ns = INT64_MIN;
	start_jobs(&im);

	while (im.rc >= 0 && next_chunk(&im, max_chunk, e))
		;
	drain(&im);
	rc = im.rc;
	if (rc >= 0)
		rc = send_recording(&im, e);
	else if (!err_isset(e))
		rc = err_set(e, ERR_IO, "output failed");
	stop_jobs(&im);
	arena_release(&im.keep);
	hmap_release(&im.setting_index);
	hmap_release(&im.count_index);
	hmap_release(&im.unread_index);
	free(im.unread);
	free(im.settings);
	free(im.setting_src);
	free(im.setting_chunk);
	free(im.counts);
	free(im.xs_frames);
	return rc < 0 ? rc : 0;
}

const struct importer_ops importer_jfr = {
	.name = "jfr",
	.kind = KIND_JFR,
	.probe_class = PROBE_SIGNATURE,
	.probe = jfr_probe,
	.import = jfr_import,
};
