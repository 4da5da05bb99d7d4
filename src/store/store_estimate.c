/*
 * The corrected estimate's walk (store_estimate.h).  Per thread: its last
 * event, whether that was a sample still waiting, and the OutsideTLAB
 * bytes seen since its last sample, which its next sample's weight
 * holds.  Per recording: the sums of rests and a histogram of the
 * weights of samples of objects in TLABs, for the typical TLAB.
 */
#include "store/store_estimate.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "util/xalloc.h"

/* the weights' histogram: exact below 128, then 128 steps an octave
 * (1/128 relative), up to 2^63 */
#define HIST_N (128 + 56 * 128)

struct waiting {
	struct block_sample s;
	int64_t covered; /* OutsideTLAB bytes its weight holds */
	uint32_t slot;	 /* its thread's state */
	bool own;
};

struct thread_state {
	bool used;
	bool open; /* its last event is the sample at last */
	uint32_t recording;
	uint64_t last;	 /* the queue position of that sample */
	int64_t pending; /* outside bytes waiting for the next sample */
};

struct rec_facts {
	unsigned __int128 all, tlab;
	uint64_t own, negative, n_hist;
	uint64_t *hist; /* HIST_N, lazily */
};

struct est_walk {
	est_emit_fn *emit;
	void *ctx;
	uint32_t n_recs, n_slots;
	struct thread_state *ts; /* n_slots: 0 for none, thread t's t + 1 */
	struct rec_facts *rf;
	struct waiting *q;   /* a ring of EST_QUEUE_MAX */
	uint64_t head, tail; /* positions, head <= tail */
};

static int64_t add_hold(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static unsigned hist_of(int64_t w)
{
	unsigned e;

	if (w < 128)
		return w > 0 ? (unsigned)w : 0;
	e = 63u - (unsigned)__builtin_clzll((uint64_t)w); /* 7 to 62 */
	return 128 + (e - 7) * 128 + (unsigned)((uint64_t)w >> (e - 7) & 127);
}

/* the least weight of histogram bucket i */
static int64_t hist_floor(unsigned i)
{
	unsigned e;

	if (i < 128)
		return (int64_t)i;
	e = 7 + (i - 128) / 128;
	return (int64_t)((uint64_t)(128 + (i - 128) % 128) << (e - 7));
}

/* The tables as far as thread slot `slot` and recording rec (the
 * writer that encodes samples as they arrive knows neither count). */
static __attribute__((noinline)) void grow(struct est_walk *w, uint32_t slot,
					   uint32_t rec)
{
	if (slot >= w->n_slots) {
		uint32_t n = w->n_slots ? w->n_slots : 64;

		while (n <= slot)
			n = n > UINT32_MAX / 2 ? UINT32_MAX : n * 2;
		w->ts = xreallocarray(w->ts, n, sizeof(*w->ts));
		memset(w->ts + w->n_slots, 0,
		       (size_t)(n - w->n_slots) * sizeof(*w->ts));
		w->n_slots = n;
	}
	if (rec != STORE_NONE && rec >= w->n_recs) {
		w->rf = xreallocarray(w->rf, (size_t)rec + 1, sizeof(*w->rf));
		memset(w->rf + w->n_recs, 0,
		       (size_t)(rec + 1 - w->n_recs) * sizeof(*w->rf));
		w->n_recs = rec + 1;
	}
}

struct est_walk *est_walk_new(uint32_t n_recs, uint32_t n_threads,
			      est_emit_fn *emit, void *ctx)
{
	struct est_walk *w = xcalloc(1, sizeof(*w));

	w->emit = emit;
	w->ctx = ctx;
	w->n_recs = n_recs;
	w->n_slots = n_threads + 1;
	w->ts = xcalloc((size_t)n_threads + 1, sizeof(*w->ts));
	w->rf = xcalloc(n_recs ? n_recs : 1, sizeof(*w->rf));
	w->q = xmalloc(EST_QUEUE_MAX * sizeof(*w->q));
	return w;
}

void est_walk_free(struct est_walk *w)
{
	uint32_t r;

	if (!w)
		return;
	for (r = 0; r < w->n_recs; r++)
		free(w->rf[r].hist);
	free(w->rf);
	free(w->ts);
	free(w->q);
	free(w);
}

/* The oldest waiting sample out, its rest settled. */
static __attribute__((noinline)) void release(struct est_walk *w)
{
	struct waiting *x = &w->q[w->head % EST_QUEUE_MAX];
	struct thread_state *t = &w->ts[x->slot];
	int64_t weight = x->s.bytes > 0 ? x->s.bytes : 0, rest;

	if (t->open && t->last == w->head)
		t->open = false; /* nothing can make it own any more */
	rest = weight - x->covered;
	if (x->s.recording < w->n_recs) {
		struct rec_facts *f = &w->rf[x->s.recording];

		if (rest < 0) {
			f->negative++;
			rest = 0;
		}
		f->all += (uint64_t)rest;
		if (x->own) {
			f->own++;
		} else {
			f->tlab += (uint64_t)rest;
			if (!f->hist)
				f->hist = xcalloc(HIST_N, sizeof(uint64_t));
			f->hist[hist_of(weight)]++;
			f->n_hist++;
		}
	} else if (rest < 0) {
		rest = 0;
	}
	x->s.rest = x->own ? 0 : rest;
	w->head++;
	w->emit(w->ctx, SAMPLE_ALLOC, &x->s);
}

/* Out go the waiting samples that nothing can change any more: those
 * whose thread has moved on, or older than the gap at time now. */
static void settle(struct est_walk *w, int64_t now)
{
	while (w->head < w->tail) {
		const struct waiting *x = &w->q[w->head % EST_QUEUE_MAX];
		const struct thread_state *t = &w->ts[x->slot];

		/* the gap as unsigned: a time at the ends of int64 (a
		 * damaged recording's) must not overflow it */
		if (t->open && t->last == w->head && now >= x->s.time_ns &&
		    (uint64_t)now - (uint64_t)x->s.time_ns <= EST_OWN_GAP_NS)
			break;
		release(w);
	}
}

bool est_walk_pass(struct est_walk *w, int kind, const struct block_sample *s)
{
	uint32_t slot;
	struct thread_state *t;
	int64_t bytes;

	if (kind != SAMPLE_ALLOC && kind != SAMPLE_TLAB_OUTSIDE &&
	    kind != SAMPLE_TLAB_NEW)
		return true;
	settle(w, s->time_ns);
	slot = s->thread == STORE_NONE ? 0 : s->thread + 1;
	if (slot >= w->n_slots ||
	    (s->recording >= w->n_recs && s->recording != STORE_NONE))
		grow(w, slot, s->recording);
	t = &w->ts[slot];
	if (!t->used || t->recording != s->recording) {
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->recording = s->recording;
	}
	bytes = s->bytes > 0 ? s->bytes : 0;
	switch (kind) {
	case SAMPLE_ALLOC: {
		struct waiting *x;

		if (w->tail - w->head == EST_QUEUE_MAX)
			release(w); /* the oldest, as it stands */
		x = &w->q[w->tail % EST_QUEUE_MAX];
		x->s = *s;
		x->covered = t->pending;
		x->slot = slot;
		x->own = false;
		t->pending = 0;
		t->last = w->tail++;
		t->open = true;
		settle(w, s->time_ns); /* the thread's sample before it */
		return false;	       /* this one out when settled */
	}
	case SAMPLE_TLAB_OUTSIDE: {
		struct waiting *p =
			t->open ? &w->q[t->last % EST_QUEUE_MAX] : NULL;
		int64_t held = p ? (p->s.bytes > 0 ? p->s.bytes : 0) : 0;

		if (p && p->s.node == s->node && p->s.cls == s->cls &&
		    (s->time_ns < p->s.time_ns ||
		     (uint64_t)s->time_ns - (uint64_t)p->s.time_ns <=
			     EST_OWN_GAP_NS) &&
		    add_hold(p->covered, bytes) <= held) {
			p->covered += bytes;
			p->own = true;
		} else {
			t->pending = add_hold(t->pending, bytes);
		}
		t->open = false;
		break;
	}
	default: /* InNewTLAB: the sample before it was in a TLAB */
		t->open = false;
	}
	/* the thread's sample this event settled goes out at the next
	 * event's settle(): one pass over the queue an event */
	return true;
}

void est_walk_add(struct est_walk *w, int kind, const struct block_sample *s)
{
	if (est_walk_pass(w, kind, s))
		w->emit(w->ctx, kind, s);
}

void est_walk_finish(struct est_walk *w)
{
	while (w->head < w->tail)
		release(w);
}

void est_walk_facts(const struct est_walk *w, uint32_t r,
		    struct store_estimate *out)
{
	const struct rec_facts *f;

	memset(out, 0, sizeof(*out));
	if (r >= w->n_recs)
		return; /* no sample of it came */
	f = &w->rf[r];
	out->all_lo = (uint64_t)f->all;
	out->all_hi = (uint64_t)(f->all >> 64);
	out->tlab_lo = (uint64_t)f->tlab;
	out->tlab_hi = (uint64_t)(f->tlab >> 64);
	out->own = f->own;
	out->negative = f->negative;
	if (f->n_hist) {
		/* the median, as the sorted weights' element n / 2 */
		uint64_t want = f->n_hist / 2, seen = 0;
		unsigned i;

		for (i = 0; i < HIST_N; i++) {
			seen += f->hist[i];
			if (seen > want)
				break;
		}
		out->typical_tlab = hist_floor(i < HIST_N ? i : HIST_N - 1);
	}
}
