/*
 * The encoder (store_write_encode.h): samples in seq order through the
 * corrected estimate's walk into one open block per kind, written out
 * when full, and into the rollup builder, on a thread of its own fed in
 * batches.
 */
#include "store/store_write_encode.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/crc32c.h"
#include "util/xalloc.h"

static int by_kind_seq(const void *a, const void *b)
{
	const struct store_block *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->first_seq < y->first_seq ? -1 : x->first_seq > y->first_seq;
}

/* A full (or last) block of enc goes out, and into the index. */
static void block_flush(struct out *o, struct store_toc_entry *t,
			struct block_enc *enc, struct vec *index)
{
	struct store_block *h = vec_push(index);

	*h = enc->head;
	h->offset = t->length;
	h->length = (uint32_t)enc->len;
	h->crc = crc32c_update(0, enc->buf, enc->len);
	section_add(o, t, enc->buf, enc->len);
	block_enc_begin(enc, enc->head.kind, enc->head.flags, enc->buf);
}

/* One sample into its kind's open block (written out when full) and
 * the rollup builder: the walk's est_emit_fn. */
/* A sample into its kind's block and the rollups: inline in the loops
 * below (the call cost 14 instructions a sample), a function for the
 * est walk's callback. */
static inline __attribute__((always_inline)) void
encode_one(struct encoder *en, int kind, const struct block_sample *bs)
{
	struct block_enc *b = &en->enc[kind];

	block_enc_add(b, bs);
	if (!sample_kind_ht((enum sample_kind)kind)) /* no rollups */
		rollup_add(en->rb, kind, bs);
	if (b->head.n == STORE_BLOCK_SAMPLES)
		block_flush(en->o, en->t, b, en->index);
}

static void encode_sample(void *ctx, int kind, const struct block_sample *bs)
{
	encode_one(ctx, kind, bs);
}

/*
 * A slice's samples read where they lie in the window's columns.  The
 * window's copy of each into a batch, written on one core and read on
 * the other, cost more than these reads: -3.1% wall (-5.2..-0.9) on
 * scale-512M.jfr, 24 rounds.  Prefetching the columns 16 samples ahead
 * gave back half of that.
 */
static void encode_slice(struct encoder *en, const struct enc_slice *sl)
{
	const struct spill_cols c = sl->c;
	const uint32_t *order = c.order + sl->pos;
	const unsigned sparse = en->sparse_kinds;
	struct block_sample s;
	uint32_t k;

	s.recording = sl->recording;
	s.rest = 0;
	for (k = 0; k < sl->n; k++) {
		uint32_t j = order[k];
		uint8_t kind = c.kind[j];

		s.seq = sl->seq + k;
		s.time_ns = c.time[j];
		s.flags = c.flags[j];
		s.thread = c.thread[j];
		s.cls = c.cls[j];
		s.node = c.node[j];
		s.bytes = c.bytes[j];
		s.size = c.size[j];
		if (sparse >> kind & 1) {
			struct enc_pair *p = vec_push(en->pairs);

			p->import = sl->import_base + j;
			p->seq = s.seq;
		}
		if (est_walk_pass(en->walk, kind, &s))
			encode_one(en, kind, &s);
	}
}

static void encode_batch(void *job)
{
	struct enc_batch *b = job;
	struct encoder *en = b->en;
	uint32_t i;

	if (en->o->failed)
		return;	   /* the file could not be written: the rest is moot */
	if (b->n_slices) { /* a pipe of slices: no room for samples */
		for (i = 0; i < b->n_slices; i++)
			encode_slice(en, &b->sl[i]);
	} else {
		for (i = 0; i < b->n; i++) {
			/* the batch was written on the other core: its
			 * lines come over one by one unless asked for
			 * ahead */
			if (i + ENC_AHEAD < b->n)
				__builtin_prefetch(&b->s[i + ENC_AHEAD]);
			if (est_walk_pass(en->walk, b->kind[i], &b->s[i]))
				encode_one(en, b->kind[i], &b->s[i]);
		}
	}
	if (en->o->failed)
		__atomic_store_n(&en->failed, 1, __ATOMIC_RELAXED);
}

void pipe_init(struct enc_pipe *p, struct encoder *en, bool slices)
{
	unsigned i;

	_Static_assert(ENC_DEPTH <= ENC_DEPTH_MAX &&
			       ENC_DEPTH_SLICES <= ENC_DEPTH_MAX,
		       "a pipe's batches fit its array");
	p->depth = slices ? ENC_DEPTH_SLICES : ENC_DEPTH;
	p->q = workq_new(1, p->depth, encode_batch);
	for (i = 0; i < p->depth; i++) {
		p->batch[i] = xmalloc(slices ? offsetof(struct enc_batch, kind)
					     : sizeof(*p->batch[i]));
		p->batch[i]->en = en;
		p->batch[i]->n = 0;
		p->batch[i]->n_slices = 0;
	}
	p->fill = p->batch[0];
	p->submitted = p->done = 0;
}

void pipe_submit(struct enc_pipe *p)
{
	workq_submit(p->q, p->fill);
	p->submitted++;
	if (p->submitted < p->depth) {
		p->fill = p->batch[p->submitted];
	} else {
		p->fill = workq_next(p->q); /* the oldest, encoded */
		p->fill->n = 0;
		p->fill->n_slices = 0;
		p->done++;
	}
}

uint64_t pipe_slice(struct enc_pipe *p, const struct enc_slice *sl)
{
	struct enc_batch *b = p->fill;
	uint64_t at = p->submitted;

	b->sl[b->n_slices++] = *sl;
	b->n += sl->n;
	if (b->n >= ENC_BATCH || b->n_slices == ENC_SLICES)
		pipe_submit(p);
	return at;
}

void pipe_end(struct enc_pipe *p, bool drain)
{
	unsigned i;

	if (drain && p->fill->n)
		pipe_submit(p);
	while (drain && workq_next(p->q))
		;
	workq_free(p->q);
	/* nothing runs any more: every batch is as good as taken back */
	p->done = p->submitted;
	for (i = 0; i < p->depth; i++)
		free(p->batch[i]);
}

void encoder_begin(struct encoder *en, struct out *o, struct vec *index,
		   struct rollup_builder *rb, uint32_t n_recs,
		   uint32_t n_threads)
{
	int k;

	memset(en, 0, sizeof(*en));
	en->o = o;
	en->index = index;
	en->rb = rb;
	en->bufs = xmalloc(SAMPLE__COUNT * SAMPLE_BLOCK_MAX);
	en->t = section_begin(o, SEC_SAMPLE_BLOCKS, 1);
	en->walk = est_walk_new(n_recs, n_threads, encode_sample, en);
	for (k = 0; k < SAMPLE__COUNT; k++)
		block_enc_begin(&en->enc[k], (uint8_t)k,
				k == SAMPLE_ALLOC ? STORE_BLOCK_REST : 0,
				en->bufs + (size_t)k * SAMPLE_BLOCK_MAX);
}

void encoder_end(struct encoder *en)
{
	int k;

	if (!en->o->failed)
		est_walk_finish(en->walk); /* the samples still waiting */
	for (k = 0; k < SAMPLE__COUNT && !en->o->failed; k++)
		if (en->enc[k].head.n)
			block_flush(en->o, en->t, &en->enc[k], en->index);
	free(en->bufs);
	en->bufs = NULL;
	if (en->index->n > 1)
		qsort(en->index->data, en->index->n, en->index->size,
		      by_kind_seq);
}

void encoder_free(struct encoder *en)
{
	free(en->bufs);
	en->bufs = NULL;
	est_walk_free(en->walk);
	en->walk = NULL;
}
