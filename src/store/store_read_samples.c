/*
 * The sample blocks of a store (store.h, docs/formats/store.md): the
 * index is checked as a whole the first time it is used (it is small:
 * 48 bytes a block of up to 4096 samples); a kind's blocks are read, each
 * checksummed and decoded with every value checked, the first time that
 * kind is asked for, into columns the store keeps until it is closed.
 * All samples together (export, --append, info --check) are the kinds'
 * columns scattered by seq.
 */
#include "store/store_int.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_block.h"
#include "util/bigmem.h"
#include "util/crc32c.h"
#include "util/size.h"
#include "util/xalloc.h"

struct cols {
	int state; /* 0 not read, 1 good, -1 bad (err kept) */
	struct err bad;
	uint64_t n;
	bool own_size; /* else size is bytes, or NULL */
	uint32_t *seq, *recording, *thread, *cls, *node;
	int64_t *time_ns, *bytes, *size;
	int64_t *rest; /* ObjectAllocationSample's, since 2.3; else NULL */
	uint8_t *kind, *flags;
};

struct store_sample_cache {
	uint64_t n_total;
	uint64_t kind_n[SAMPLE__COUNT];
	uint32_t first[SAMPLE__COUNT], n_blocks[SAMPLE__COUNT]; /* index runs */
	struct cols k[SAMPLE__COUNT];
	struct cols all;
	struct cols scratch; /* store_read_block()'s */
};

/* Columns of n samples; big ones on huge pages (util/bigmem.h): a
 * kind's columns are hundreds of MB, and faulting them in 4 KiB pages
 * cost more than decoding them.  With own_size false, size is not
 * allocated (the caller points it at bytes, or at nothing). */
static void cols_alloc(struct cols *c, uint64_t n, bool own_size, bool rest)
{
	size_t m = n ? (size_t)n : 1;

	c->n = n;
	c->own_size = own_size;
	c->seq = big_realloc(NULL, 0, m * sizeof(uint32_t));
	c->recording = big_realloc(NULL, 0, m * sizeof(uint32_t));
	c->thread = big_realloc(NULL, 0, m * sizeof(uint32_t));
	c->cls = big_realloc(NULL, 0, m * sizeof(uint32_t));
	c->node = big_realloc(NULL, 0, m * sizeof(uint32_t));
	c->time_ns = big_realloc(NULL, 0, m * sizeof(int64_t));
	c->bytes = big_realloc(NULL, 0, m * sizeof(int64_t));
	c->size = own_size ? big_realloc(NULL, 0, m * sizeof(int64_t)) : NULL;
	c->rest = rest ? big_realloc(NULL, 0, m * sizeof(int64_t)) : NULL;
	c->kind = big_realloc(NULL, 0, m);
	c->flags = big_realloc(NULL, 0, m);
}

static void cols_free(struct cols *c)
{
	size_t m = c->n ? (size_t)c->n : 1;

	if (c->seq) { /* allocated */
		big_free(c->seq, m * sizeof(uint32_t));
		big_free(c->recording, m * sizeof(uint32_t));
		big_free(c->thread, m * sizeof(uint32_t));
		big_free(c->cls, m * sizeof(uint32_t));
		big_free(c->node, m * sizeof(uint32_t));
		big_free(c->time_ns, m * sizeof(int64_t));
		big_free(c->bytes, m * sizeof(int64_t));
		if (c->own_size)
			big_free(c->size, m * sizeof(int64_t));
		if (c->rest)
			big_free(c->rest, m * sizeof(int64_t));
		big_free(c->kind, m);
		big_free(c->flags, m);
	}
	memset(c, 0, sizeof(*c));
}

void store_samples_free(struct store *s)
{
	int k;

	if (!s->samples)
		return;
	for (k = 0; k < SAMPLE__COUNT; k++)
		cols_free(&s->samples->k[k]);
	cols_free(&s->samples->all);
	cols_free(&s->samples->scratch);
	free(s->samples);
	s->samples = NULL;
}

/*
 * The checks of the index (check_refs() of I_S_INDEX; the tables it
 * depends on are checked): blocks by kind, then seq; each inside the
 * blocks section; seqs and times of a kind's blocks increasing; at most
 * 2^32 - 1 samples.  Fills the cache's runs and counts.
 */
const char *store_index_check(struct store *s, uint64_t *at)
{
	const struct section *ix = &s->sec[I_S_INDEX];
	const struct store_block *b = (const void *)ix->p;
	uint64_t blocks_len = s->sec[I_S_BLOCKS].len, total = 0, i;
	struct store_sample_cache *c;

	if (!s->samples)
		s->samples = xcalloc(1, sizeof(*s->samples));
	c = s->samples;
	for (i = 0; i < ix->n; i++) {
		*at = i;
		if (b[i].kind >= SAMPLE__COUNT)
			return "holds an unknown sample kind";
		/* the rest column: every ObjectAllocationSample block of a
		 * store with estimates (2.3) has it, and no other block */
		if (b[i].reserved[0] || b[i].reserved[1] ||
		    b[i].flags != (b[i].kind == SAMPLE_ALLOC &&
						   s->sec[I_ESTIMATES].present
					   ? STORE_BLOCK_REST
					   : 0))
			return "holds flags its kind or version has not";
		/* a sample takes 7 bytes at least: a block is never empty,
		 * so it lies in a present blocks section */
		if (!b[i].n || b[i].n > STORE_BLOCK_SAMPLES ||
		    b[i].length < 7 * (uint64_t)b[i].n ||
		    b[i].length > SAMPLE_BLOCK_MAX ||
		    !range_ok(b[i].offset, b[i].length, blocks_len))
			return "describes a block outside the sample blocks";
		if (b[i].first_ns > b[i].last_ns)
			return "ends before it starts";
		if (i && b[i].kind < b[i - 1].kind)
			return "is not in kind order";
		if (i && b[i].kind == b[i - 1].kind &&
		    (b[i].first_seq < b[i - 1].first_seq + b[i - 1].n ||
		     b[i].first_ns < b[i - 1].last_ns))
			return "is not in sample order";
		if (b[i].first_seq > UINT32_MAX)
			return "refers to no sample";
		total += b[i].n;
		if (!c->n_blocks[b[i].kind])
			c->first[b[i].kind] = (uint32_t)i;
		c->n_blocks[b[i].kind]++;
		c->kind_n[b[i].kind] += b[i].n;
	}
	if (total > UINT32_MAX)
		return "holds more than 2^32 - 1 samples";
	for (i = 0; i < ix->n; i++)
		if (b[i].first_seq + b[i].n > total) {
			*at = i;
			return "refers to no sample";
		}
	c->n_total = total;
	return NULL;
}

/* The index checked and its runs known. */
static int indexed(struct store *s, struct err *e)
{
	if (store_section(s, I_S_INDEX, e) < 0 ||
	    store_section(s, I_S_BLOCKS, e) < 0 ||
	    store_section(s, I_NODE_MAP, e) < 0)
		return ERR_FAIL;
	if (!s->samples) /* no index section: no samples */
		s->samples = xcalloc(1, sizeof(*s->samples));
	return 0;
}

static int block_err(struct store *s, struct err *e, uint32_t bi,
		     const struct store_block *b, const char *what)
{
	err_set_at(e, ERR_FORMAT,
		   (uint64_t)(s->sec[I_S_BLOCKS].p - s->map) + b->offset,
		   "store: section 'sample blocks'%s block %u (%s, from "
		   "sample %llu)%s",
		   what ? "," : " checksum mismatch in", bi,
		   sample_kind_name((enum sample_kind)b->kind),
		   (unsigned long long)b->first_seq,
		   what ? what : ": the file is damaged");
	err_source(e, s->path);
	return ERR_FAIL;
}

/* Blocks [from, to) of the index into d, from sample at; the first
 * error in e. */
struct decode_job {
	struct store *s;
	struct cols *d;
	uint32_t from, to;
	uint64_t at;
	struct err e;
	int rc;
};

static void *decode_run(void *arg)
{
	struct decode_job *j = arg;
	struct store *s = j->s;
	struct store_sample_cache *c = s->samples;
	struct cols *d = j->d;
	const struct store_block *ix = (const void *)s->sec[I_S_INDEX].p;
	const unsigned char *blocks = s->sec[I_S_BLOCKS].p;
	struct block_limits lim = {
		c->n_total,
		(uint32_t)s->sec[I_RECORDINGS].n,
		(uint32_t)s->sec[I_THREADS].n,
		(uint32_t)s->sec[I_CLASSES].n,
		(uint32_t)s->sec[I_NODES].n,
	};
	struct block_cols bc = {d->seq,	   d->time_ns, d->recording, d->flags,
				d->thread, d->cls,     d->node,	     d->bytes,
				d->size,   d->rest};
	/* 4.x: the writer's node ids to the trie's (checked a permutation) */
	const uint32_t *map = s->sec[I_NODE_MAP].present
				      ? (const uint32_t *)s->sec[I_NODE_MAP].p
				      : NULL;
	uint64_t at = j->at;
	uint32_t i;

	for (i = j->from; i < j->to; i++) {
		const struct store_block *b = &ix[i];
		const unsigned char *p = blocks + b->offset;
		const char *why;
		uint32_t bad;

		if (crc32c_update(0, p, b->length) != b->crc) {
			j->rc = block_err(s, &j->e, i, b, NULL);
			return NULL;
		}
		why = block_decode(b, p, &lim, &bc, (size_t)at, &bad);
		if (why) {
			char msg[96];

			snprintf(msg, sizeof(msg), ", sample %u %s", bad, why);
			j->rc = block_err(s, &j->e, i, b, msg);
			return NULL;
		}
		if (map) {
			uint32_t *node = d->node + at, n = b->n, q;

			for (q = 0; q < n; q++)
				node[q] = map[node[q]];
		}
		at += b->n;
	}
	return NULL;
}

/*
 * Read kind k's blocks into its columns: checksums, then values.  The
 * blocks are independent and their places known from the index, so two
 * threads share them (the machines this runs on have two cores or more);
 * an error is the first block's that has one, as one thread would say.
 */
static int decode_kind(struct store *s, int k, struct cols *d, struct err *e)
{
	struct store_sample_cache *c = s->samples;
	const struct store_block *ix = (const void *)s->sec[I_S_INDEX].p;
	struct decode_job job[2];
	uint32_t first = c->first[k], n = c->n_blocks[k], half = n / 2, i;
	uint64_t at = 0;
	pthread_t helper;
	bool threaded = false;
	int t;

	/* outside-TLAB and old-object samples' size is their bytes, and
	 * ObjectAllocationSample has none: no column of their own */
	cols_alloc(d, c->kind_n[k], STORE_KIND_HAS_SIZE(k),
		   k == SAMPLE_ALLOC && s->sec[I_ESTIMATES].present);
	if (k == SAMPLE_TLAB_OUTSIDE || k == SAMPLE_OLD_OBJECT)
		d->size = d->bytes;
	for (i = first; i < first + half; i++)
		at += ix[i].n;
	job[0] = (struct decode_job){s, d, first, first + half, 0, {0}, 0};
	job[1] = (struct decode_job){s, d, first + half, first + n, at, {0}, 0};
	for (t = 0; t < 2; t++)
		err_init(&job[t].e);
	/* a few blocks are not worth a thread */
	if (c->kind_n[k] >= 8 * STORE_BLOCK_SAMPLES) {
		sigset_t old;

		/* the fatal signals stay the main thread's (xalloc.h) */
		die_signals_block(&old);
		threaded =
			pthread_create(&helper, NULL, decode_run, &job[1]) == 0;
		die_signals_restore(&old);
	}
	decode_run(&job[0]);
	if (threaded)
		pthread_join(helper, NULL);
	else
		decode_run(&job[1]);
	for (t = 0; t < 2; t++)
		if (job[t].rc < 0) {
			*e = job[t].e;
			return ERR_FAIL;
		}
	memset(d->kind, k, d->n ? (size_t)d->n : 1);
	return 0;
}

static void cols_out(const struct cols *d, struct store_samples *out)
{
	out->n = d->n;
	out->seq = d->seq;
	out->time_ns = d->time_ns;
	out->recording = d->recording;
	out->kind = d->kind;
	out->flags = d->flags;
	out->thread = d->thread;
	out->cls = d->cls;
	out->node = d->node;
	out->bytes = d->bytes;
	out->size = d->size;
	out->rest = d->rest;
}

int store_kind_samples(struct store *s, int kind, struct store_samples *out,
		       struct err *e)
{
	struct cols *d;

	if (kind < 0 || kind >= SAMPLE__COUNT)
		BUG("store: sample kind %d", kind);
	if (indexed(s, e) < 0)
		return ERR_FAIL;
	d = &s->samples->k[kind];
	if (d->state == 0) {
		err_init(&d->bad);
		d->state = decode_kind(s, kind, d, &d->bad) < 0 ? -1 : 1;
		if (d->state < 0) {
			struct err keep = d->bad;

			cols_free(d); /* clears state and the error */
			d->state = -1;
			d->bad = keep;
		}
	}
	if (d->state < 0) {
		*e = d->bad;
		return ERR_FAIL;
	}
	cols_out(d, out);
	return 0;
}

bool store_kind_decoded(const struct store *s, int kind)
{
	return s->samples && kind >= 0 && kind < SAMPLE__COUNT &&
	       s->samples->k[kind].state == 1;
}

int store_kind_blocks(struct store *s, int kind, const struct store_block **out,
		      uint32_t *n, struct err *e)
{
	if (kind < 0 || kind >= SAMPLE__COUNT)
		BUG("store: sample kind %d", kind);
	if (indexed(s, e) < 0)
		return ERR_FAIL;
	*n = s->samples->n_blocks[kind];
	/* no index section at all: its pointer is NULL, and NULL + 0 is
	 * undefined */
	*out = *n ? (const struct store_block *)s->sec[I_S_INDEX].p +
			       s->samples->first[kind]
		  : NULL;
	return 0;
}

/* Block b of kind into d (STORE_BLOCK_SAMPLES long), checked. */
static int read_block(struct store *s, int kind, uint32_t b, struct cols *d,
		      struct store_samples *out, struct err *e)
{
	struct store_sample_cache *c;
	struct decode_job job;

	if (kind < 0 || kind >= SAMPLE__COUNT)
		BUG("store: sample kind %d", kind);
	if (indexed(s, e) < 0)
		return ERR_FAIL;
	c = s->samples;
	if (b >= c->n_blocks[kind])
		BUG("store: block %u of %u", b, c->n_blocks[kind]);
	if (!d->seq)
		cols_alloc(d, STORE_BLOCK_SAMPLES, true, true);
	job = (struct decode_job){
		s, d, c->first[kind] + b, c->first[kind] + b + 1, 0, {0}, 0};
	err_init(&job.e);
	decode_run(&job);
	if (job.rc < 0) {
		*e = job.e;
		return ERR_FAIL;
	}
	cols_out(d, out);
	out->n = ((const struct store_block *)s->sec[I_S_INDEX].p)[job.from].n;
	memset(d->kind, kind, (size_t)out->n);
	if (!STORE_KIND_HAS_SIZE(kind))
		out->size = kind == SAMPLE_ALLOC ? NULL : out->bytes;
	if (kind != SAMPLE_ALLOC || !s->sec[I_ESTIMATES].present)
		out->rest = NULL;
	return 0;
}

int store_read_block(struct store *s, int kind, uint32_t b,
		     struct store_samples *out, struct err *e)
{
	if (indexed(s, e) < 0)
		return ERR_FAIL;
	return read_block(s, kind, b, &s->samples->scratch, out, e);
}

struct store_block_buf {
	struct cols d;
};

struct store_block_buf *store_block_buf_new(void)
{
	return xcalloc(1, sizeof(struct store_block_buf));
}

void store_block_buf_free(struct store_block_buf *bb)
{
	if (!bb)
		return;
	cols_free(&bb->d);
	free(bb);
}

int store_read_block_buf(struct store *s, int kind, uint32_t b,
			 struct store_block_buf *bb, struct store_samples *out,
			 struct err *e)
{
	return read_block(s, kind, b, &bb->d, out, e);
}

int store_kind_counts(struct store *s, uint64_t counts[SAMPLE__COUNT],
		      struct err *e)
{
	if (indexed(s, e) < 0)
		return ERR_FAIL;
	memcpy(counts, s->samples->kind_n, sizeof(s->samples->kind_n));
	return 0;
}

/* m's samples, of kind k, into a at their seqs; false when one is there
 * already. */
static bool scatter_cols(struct cols *a, const struct store_samples *m, int k)
{
	uint64_t i;

	for (i = 0; i < m->n; i++) {
		uint32_t j = m->seq[i];

		if (a->kind[j] != 0xff)
			return false;
		a->seq[j] = j;
		a->time_ns[j] = m->time_ns[i];
		a->recording[j] = m->recording[i];
		a->kind[j] = (uint8_t)k;
		a->flags[j] = m->flags[i];
		a->thread[j] = m->thread[i];
		a->cls[j] = m->cls[i];
		a->node[j] = m->node[i];
		a->bytes[j] = m->bytes[i];
		a->size[j] = m->size ? m->size[i] : INT64_MIN;
	}
	return true;
}

/*
 * Every kind's samples scattered by seq; each seq once, times in order.
 * A kind no view has read is decoded a block at a time into scratch
 * columns and not kept: export and --append would otherwise hold every
 * sample twice.
 */
static int scatter(struct store *s, struct cols *a, struct err *e)
{
	struct store_sample_cache *c = s->samples;
	struct cols scratch;
	uint64_t i;
	int k;
	bool ok = true;

	cols_alloc(a, c->n_total, true, false);
	memset(a->kind, 0xff, c->n_total ? (size_t)c->n_total : 1);
	cols_alloc(&scratch, STORE_BLOCK_SAMPLES, true, false);
	for (k = 0; k < SAMPLE__COUNT && ok; k++) {
		struct store_samples m;
		uint32_t b;

		if (c->k[k].state != 0) {
			if (store_kind_samples(s, k, &m, e) < 0)
				goto fail;
			ok = scatter_cols(a, &m, k);
			continue;
		}
		for (b = c->first[k]; b < c->first[k] + c->n_blocks[k] && ok;
		     b++) {
			struct decode_job job = {s, &scratch, b, b + 1,
						 0, {0},      0};

			err_init(&job.e);
			decode_run(&job);
			if (job.rc < 0) {
				*e = job.e;
				goto fail;
			}
			cols_out(&scratch, &m);
			m.n = ((const struct store_block *)s->sec[I_S_INDEX]
				       .p)[b]
				      .n;
			if (!STORE_KIND_HAS_SIZE(k))
				m.size = k == SAMPLE_ALLOC ? NULL : m.bytes;
			ok = scatter_cols(a, &m, k);
		}
	}
	cols_free(&scratch);
	if (!ok) {
		err_set(e, ERR_FORMAT,
			"store: section 'sample blocks' holds a sample twice");
		err_source(e, s->path);
		return ERR_FAIL;
	}
	/* n_total seqs below n_total, none twice: every one is there */
	for (i = 1; i < a->n; i++)
		if (a->time_ns[i] < a->time_ns[i - 1]) {
			err_set(e, ERR_FORMAT,
				"store: section 'sample blocks', sample %llu "
				"is not in time order",
				(unsigned long long)i);
			err_source(e, s->path);
			return ERR_FAIL;
		}
	return 0;
fail:
	cols_free(&scratch);
	return ERR_FAIL;
}

int store_samples(struct store *s, struct store_samples *out, struct err *e)
{
	struct cols *a;

	if (indexed(s, e) < 0)
		return ERR_FAIL;
	a = &s->samples->all;
	if (a->state == 0) {
		err_init(&a->bad);
		if (scatter(s, a, &a->bad) < 0) {
			struct err keep = a->bad;

			cols_free(a);
			a->state = -1;
			a->bad = keep;
		} else {
			a->state = 1;
		}
	}
	if (a->state < 0) {
		*e = a->bad;
		return ERR_FAIL;
	}
	cols_out(a, out);
	return 0;
}

/*
 * The records of section idx (old objects, liveness: a u32 seq first,
 * strictly increasing, checked) each name a sample of one of kinds.
 */
int store_seqs_check(struct store *s, int idx, unsigned kinds, struct err *e)
{
	const struct section *sec = &s->sec[idx];
	size_t rec_len = sec->n ? (size_t)(sec->len / sec->n) : 1;
	struct store_samples m[SAMPLE__COUNT];
	uint64_t pos[SAMPLE__COUNT] = {0}, i;
	int k;

	if (!sec->n)
		return 0;
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (kinds >> k & 1 && store_kind_samples(s, k, &m[k], e) < 0)
			return ERR_FAIL;
	for (i = 0; i < sec->n; i++) {
		uint32_t want;
		bool found = false;

		memcpy(&want, sec->p + i * rec_len, 4);
		for (k = 0; k < SAMPLE__COUNT && !found; k++) {
			if (!(kinds >> k & 1))
				continue;
			while (pos[k] < m[k].n && m[k].seq[pos[k]] < want)
				pos[k]++;
			found = pos[k] < m[k].n && m[k].seq[pos[k]] == want;
		}
		if (!found) {
			err_set_at(e, ERR_FORMAT,
				   (uint64_t)(sec->p - s->map) + i * rec_len,
				   "store: section '%s', record %llu is for no "
				   "sample of a kind that has one",
				   store_section_name(idx),
				   (unsigned long long)i);
			err_source(e, s->path);
			return ERR_FAIL;
		}
	}
	return 0;
}

int store_blocks_crc_check(struct store *s, struct err *e)
{
	const struct section *sec = &s->sec[I_S_BLOCKS];

	if (sec->present &&
	    crc32c_update(0, sec->p, (size_t)sec->len) != sec->crc) {
		struct err ie;

		/* the block that holds the damage, named as a command that
		 * reads it names it, where the index can be trusted: not
		 * the section's start (issue 39) */
		err_init(&ie);
		if (indexed(s, &ie) == 0) {
			const struct store_block *ix =
				(const void *)s->sec[I_S_INDEX].p;
			uint32_t i, n = (uint32_t)s->sec[I_S_INDEX].n;

			for (i = 0; i < n; i++)
				if (crc32c_update(0, sec->p + ix[i].offset,
						  ix[i].length) != ix[i].crc)
					return block_err(s, e, i, &ix[i], NULL);
		}
		err_set_at(e, ERR_FORMAT, (uint64_t)(sec->p - s->map),
			   "store: section 'sample blocks' checksum "
			   "mismatch: the file is damaged");
		err_source(e, s->path);
		return ERR_FAIL;
	}
	return 0;
}

int store_blocks_verify(struct store *s, struct err *e)
{
	struct seq_cursor sc;
	int rc;

	if (store_blocks_crc_check(s, e) < 0)
		return ERR_FAIL;
	/* every block's values, and the order across kinds, a block of each
	 * kind at a time: info --check on a store of any size stays small */
	rc = seq_cursor_init(&sc, s, e);
	if (rc >= 0)
		rc = seq_cursor_check(&sc, e);
	seq_cursor_release(&sc);
	return rc < 0 ? ERR_FAIL : 0;
}
