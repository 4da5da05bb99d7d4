/*
 * The store writer's commit (store.h): the trie numbered depth first,
 * the spilled runs of samples merged in time order (spill.h) and encoded
 * into blocks of one kind, every
 * section laid out as docs/formats/store.md says, written to a temporary
 * file beside the target, synced, and renamed over it.
 */
#include "store/est_walk.h"
#include "store/rollup.h"
#include "store/sample_block.h"
#include "store/store.h"
#include "store/store_write_int.h"
#include "store/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "util/workq.h"

/* --- commit ---------------------------------------------------------------- */

struct out {
	int fd;
	uint64_t pos;
	struct store_toc_entry toc[32];
	uint32_t n_toc;
	const char *path;   /* the temporary file */
	const char *target; /* the store it becomes */
	struct err *e;
	bool failed;
	uint64_t synced; /* writeback started up to here */
	/* bytes before pos not written yet: the rollups' sections come a
	 * bucket at a time, a few hundred bytes each */
	unsigned char *wbuf;
	size_t wlen;
};

#define OUT_SYNC_STEP ((uint64_t)8 << 20)
#define OUT_WBUF      ((size_t)1 << 20)

/* len bytes at pos, straight to the file (pos moves past them). */
static void out_pwrite(struct out *o, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len && !o->failed) {
		ssize_t n = pwrite(o->fd, b, len, (off_t)o->pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_set(o->e, ERR_IO,
				"store: writing %s (its temporary file %s): "
				"%s",
				o->target, o->path,
				n < 0 ? err_io_reason(errno) : "short write");
			o->failed = true;
			return;
		}
		b += n;
		len -= (size_t)n;
		o->pos += (uint64_t)n;
	}
}

/* The buffered bytes, which end at pos, to the file. */
static void out_flush(struct out *o)
{
	size_t n = o->wlen;

	if (!n)
		return;
	o->wlen = 0;
	o->pos -= n;
	out_pwrite(o, o->wbuf, n);
}

static void out_write(struct out *o, const void *p, size_t len)
{
	if (o->failed || !len) /* an empty section's data may be NULL */
		return;
	if (len > OUT_WBUF - o->wlen)
		out_flush(o);
	if (len >= OUT_WBUF) {
		out_pwrite(o, p, len);
		return;
	}
	if (!o->wbuf)
		o->wbuf = xmalloc(OUT_WBUF);
	memcpy(o->wbuf + o->wlen, p, len);
	o->wlen += len;
	o->pos += len;
}

static void out_pad(struct out *o)
{
	static const unsigned char zeros[STORE_ALIGN];

	if (o->pos % STORE_ALIGN)
		out_write(o, zeros, STORE_ALIGN - o->pos % STORE_ALIGN);
}

/* A section is begun, fed its bytes (checksummed on the way), ended. */
static struct store_toc_entry *section_begin(struct out *o, uint32_t id,
					     size_t rec_len)
{
	struct store_toc_entry *t;

	out_pad(o);
	if (o->n_toc == sizeof(o->toc) / sizeof(o->toc[0]))
		BUG("store: too many sections");
	t = &o->toc[o->n_toc++];
	t->id = id;
	t->rec_len = (uint32_t)rec_len;
	t->offset = o->pos;
	t->length = 0;
	t->crc = 0;
	t->reserved = 0;
	return t;
}

static void section_add(struct out *o, struct store_toc_entry *t,
			const void *data, size_t len)
{
	t->crc = crc32c_update(t->crc, data, len);
	t->length += len;
	out_write(o, data, len);
#ifdef SYNC_FILE_RANGE_WRITE
	/* Start writing back what is complete while the rest is gathered:
	 * the fsync before the rename then waits for less.  Asynchronous,
	 * and only a hint: errors surface in that fsync. */
	if (o->pos - o->synced >= OUT_SYNC_STEP) {
		out_flush(o);
		(void)sync_file_range(o->fd, (off_t)o->synced,
				      (off_t)(o->pos - o->synced),
				      SYNC_FILE_RANGE_WRITE);
		o->synced = o->pos;
	}
#endif
}

static void out_section(struct out *o, uint32_t id, const void *data,
			size_t rec_len, size_t n)
{
	struct store_toc_entry *t;
	size_t len;

	if (!size_mul(rec_len, n, &len))
		die("store: section too large");
	t = section_begin(o, id, rec_len);
	section_add(o, t, data, len);
}

/* Number the trie depth first; old -> new ids, and the new node table. */
static struct store_node *number_nodes(const struct store_writer *w,
				       uint32_t **renum_out)
{
	size_t n = w->node_parent.n, i;
	const uint32_t *parent = (const uint32_t *)w->node_parent.data;
	const uint32_t *frame = (const uint32_t *)w->node_frame.data;
	uint32_t *first_child = xmalloc(n * sizeof(uint32_t));
	uint32_t *next_sibling = xmalloc(n * sizeof(uint32_t));
	uint32_t *renum = xmalloc(n * sizeof(uint32_t));
	uint32_t *stack = xmalloc(n * sizeof(uint32_t));
	struct store_node *nodes = xmalloc(n * sizeof(struct store_node));
	uint32_t top = 0, next_id = 0;

	for (i = 0; i < n; i++)
		first_child[i] = next_sibling[i] = STORE_NONE;
	/* children in reverse so that the walk meets them in order */
	for (i = n; i-- > 1;) {
		next_sibling[i] = first_child[parent[i]];
		first_child[parent[i]] = (uint32_t)i;
	}
	/* pre-order walk; a node's end is known when its subtree is done */
	stack[top++] = 0;
	while (top) {
		uint32_t v = stack[top - 1];

		if (v & 0x80000000u) {
			/* second visit: close the subtree */
			v &= 0x7fffffffu;
			nodes[renum[v]].end = next_id;
			top--;
			continue;
		}
		renum[v] = next_id++;
		stack[top - 1] = v | 0x80000000u;
		{
			uint32_t c;

			for (c = first_child[v]; c != STORE_NONE;
			     c = next_sibling[c])
				stack[top++] = c;
		}
	}
	for (i = 0; i < n; i++) {
		struct store_node *nd = &nodes[renum[i]];

		nd->parent = i ? renum[parent[i]] : STORE_NONE;
		nd->frame = frame[i];
	}
	/* depth, parents first (parent < child after renumbering) */
	nodes[0].depth = 0;
	for (i = 1; i < n; i++)
		nodes[i].depth = nodes[nodes[i].parent].depth + 1;
	free(first_child);
	free(next_sibling);
	free(stack);
	*renum_out = renum;
	return nodes;
}

/* Sparse per-sample records (old objects, liveness) start with a u32
 * sample index. */
static int by_sample(const void *a, const void *b)
{
	uint32_t x, y;

	memcpy(&x, a, 4);
	memcpy(&y, b, 4);
	return x < y ? -1 : x > y;
}

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

/*
 * Sparse per-sample records (old-object details, liveness) point at
 * their samples: by import index until now, by seq from here, and
 * sorted that way, as the format says and readers rely on.  They are in
 * import order, and only samples of the kinds in kinds (a bit mask) have
 * them, so each such sample met in seq order finds its record by binary
 * search; no table as long as the samples is built.
 */
struct sparse_map {
	struct vec *v;
	unsigned kinds;
	uint32_t *pos; /* seq of each record, once found */
	size_t found;
};

static void sparse_init(struct sparse_map *sm, struct vec *v, unsigned kinds)
{
	sm->v = v;
	sm->kinds = kinds;
	sm->pos = xmalloc((v->n ? v->n : 1) * sizeof(*sm->pos));
	sm->found = 0;
}

static void sparse_note(struct sparse_map *sm, const struct spill_sample *x,
			uint32_t seq)
{
	size_t lo = 0, hi = sm->v->n;
	uint32_t at;

	if (!hi || !(sm->kinds >> x->kind & 1))
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&at, sm->v->data + mid * sm->v->size, 4);
		if (at < x->import)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sm->v->n)
		return;
	memcpy(&at, sm->v->data + lo * sm->v->size, 4);
	if (at != x->import)
		return; /* this sample has none */
	sm->pos[lo] = seq;
	sm->found++;
}

static void sparse_finish(struct sparse_map *sm)
{
	size_t i, n = sm->v->n;

	if (sm->found != n)
		BUG("store: %zu per-sample records, %zu found", n, sm->found);
	for (i = 0; i < n; i++)
		memcpy(sm->v->data + i * sm->v->size, &sm->pos[i], 4);
	free(sm->pos);
	if (n > 1)
		qsort(sm->v->data, n, sm->v->size, by_sample);
}

/*
 * The commit's one pass over the samples runs as two stages on two
 * threads, as nothing else runs at commit: this one merges the spilled
 * runs and checks each sample (and finds the sparse records' seqs); the encoder
 * fills the blocks, writes them out and feeds the rollup builder.  The
 * two cost about the same per sample.  The samples go over in batches,
 * through a queue of one thread, which runs them one at a time in the
 * order given (workq.h): the encoder sees exactly the sequence it would
 * see inline, so the file's bytes are the same.
 */
/* 32768 samples a batch (about 2 MB; three in flight): batches of 8192 were
 * handed over every millisecond or so, and where other work shares the
 * cores each hand-over can wait for a thread to be scheduled; on
 * scale-512M.jfr beside two fuzzers at nice 19, 8 alternating runs
 * each: import median 4.05 s (2.87-5.91) with 8192, 3.4 s (2.97-4.07)
 * with 32768 */
#define ENC_BATCH 32768u
#define ENC_DEPTH 3u
#define ENC_AHEAD 8u

/* The encoder's state: its thread's alone while the pass runs.  The
 * corrected estimate's walk (est_walk.h) comes first: it hands the
 * samples on to the blocks and the rollups, those of
 * ObjectAllocationSample with their rests, once settled. */
struct encoder {
	struct est_walk *walk;
	struct out *o;
	struct store_toc_entry *t; /* the sample blocks' section */
	struct block_enc enc[SAMPLE__COUNT];
	unsigned char *bufs;
	struct vec *index;
	struct rollup_builder *rb;
	int failed; /* o->failed, for the other thread (atomic) */
};

struct enc_batch {
	struct encoder *en;
	uint32_t n;
	uint8_t kind[ENC_BATCH];
	struct block_sample s[ENC_BATCH];
};

/* One sample into its kind's open block (written out when full) and
 * the rollup builder: the walk's est_emit_fn. */
static void encode_sample(void *ctx, int kind, const struct block_sample *bs)
{
	struct encoder *en = ctx;
	struct block_enc *b = &en->enc[kind];

	block_enc_add(b, bs);
	if (kind != SAMPLE_AGENT) /* agent samples have no rollups */
		rollup_add(en->rb, kind, bs);
	if (b->head.n == STORE_BLOCK_SAMPLES)
		block_flush(en->o, en->t, b, en->index);
}

static void encode_batch(void *job)
{
	struct enc_batch *b = job;
	struct encoder *en = b->en;
	uint32_t i;

	if (en->o->failed)
		return; /* the file could not be written: the rest is moot */
	for (i = 0; i < b->n; i++) {
		/* the batch was written on the other core: its lines come
		 * over one by one unless asked for ahead */
		if (i + ENC_AHEAD < b->n)
			__builtin_prefetch(&b->s[i + ENC_AHEAD]);
		est_walk_add(en->walk, b->kind[i], &b->s[i]);
	}
	if (en->o->failed)
		__atomic_store_n(&en->failed, 1, __ATOMIC_RELAXED);
}

struct enc_pipe {
	struct workq *q;
	struct enc_batch *batch[ENC_DEPTH];
	struct enc_batch *fill;
	unsigned submitted;
};

static void pipe_init(struct enc_pipe *p, struct encoder *en)
{
	unsigned i;

	p->q = workq_new(1, ENC_DEPTH, encode_batch);
	for (i = 0; i < ENC_DEPTH; i++) {
		p->batch[i] = xmalloc(sizeof(*p->batch[i]));
		p->batch[i]->en = en;
		p->batch[i]->n = 0;
	}
	p->fill = p->batch[0];
	p->submitted = 0;
}

static void pipe_submit(struct enc_pipe *p)
{
	workq_submit(p->q, p->fill);
	p->submitted++;
	if (p->submitted < ENC_DEPTH) {
		p->fill = p->batch[p->submitted];
	} else {
		p->fill = workq_next(p->q); /* the oldest, encoded */
		p->fill->n = 0;
	}
}

/* Every sample given is encoded (drain) or dropped, and the thread gone:
 * the encoder is this thread's again. */
static void pipe_end(struct enc_pipe *p, bool drain)
{
	unsigned i;

	if (drain && p->fill->n)
		pipe_submit(p);
	while (drain && workq_next(p->q))
		;
	workq_free(p->q);
	for (i = 0; i < ENC_DEPTH; i++)
		free(p->batch[i]);
}

/* The merge's side: one sample, the seq-th, checked and handed to the
 * encoder; its sparse records told their seq.  The sample keeps the
 * writer's node id: the blocks hold it (4.0; the node map names its
 * depth-first id), and the rollups renumber it themselves. */
struct emit {
	struct err *e;
	struct enc_pipe pipe;
	struct sparse_map old, live;
	uint32_t n_nodes;
};

static int emit_sample(struct emit *em, const struct spill_sample *x,
		       uint32_t seq)
{
	struct enc_batch *b = em->pipe.fill;

	if (x->kind >= SAMPLE__COUNT || x->node >= em->n_nodes)
		return err_set(em->e, ERR_FORMAT,
			       "store: the spill file is damaged (sample %u)",
			       seq);
	b->kind[b->n] = x->kind;
	b->s[b->n++] = (struct block_sample){
		seq,	x->time_ns, x->recording, x->flags, x->thread,
		x->cls, x->node,    x->bytes,	  x->size,  0};
	if (b->n == ENC_BATCH)
		pipe_submit(&em->pipe);
	if (x->import != SPILL_NO_IMPORT) {
		sparse_note(&em->old, x, seq);
		sparse_note(&em->live, x, seq);
	}
	return 0;
}

/*
 * The samples in their final order: the merge of the spilled runs gives
 * them by time, ties in import order, and the i-th is seq i.  This is the
 * one pass over every sample at commit; work per sample in seq order
 * belongs in emit_sample() (this thread) or encode_sample() (the
 * encoder's).  Blocks are filled one per kind and go out when they hold
 * STORE_BLOCK_SAMPLES; the index (by kind, then seq) is returned in
 * index, for its own section; the sparse records are renumbered to seqs;
 * each recording's corrected-estimate facts go to est[].
 */
static int emit_samples(struct out *o, struct store_writer *w,
			struct vec *index, struct rollup_builder *rb,
			struct store_estimate *est)
{
	struct encoder en;
	struct emit em;
	struct err merr; /* the merge's own: the encoder may set o->e */
	struct spill_merge *m = NULL;
	const struct spill_sample *x;
	uint64_t seq = 0;
	int k, rc;

	memset(&en, 0, sizeof(en));
	en.o = o;
	en.index = index;
	en.rb = rb;
	en.bufs = xmalloc(SAMPLE__COUNT * SAMPLE_BLOCK_MAX);
	en.t = section_begin(o, SEC_SAMPLE_BLOCKS, 1);
	en.walk = est_walk_new((uint32_t)w->recordings.n,
			       (uint32_t)w->threads.n, encode_sample, &en);
	for (k = 0; k < SAMPLE__COUNT; k++)
		block_enc_begin(&en.enc[k], (uint8_t)k,
				k == SAMPLE_ALLOC ? STORE_BLOCK_REST : 0,
				en.bufs + (size_t)k * SAMPLE_BLOCK_MAX);
	memset(&em, 0, sizeof(em));
	memset(&merr, 0, sizeof(merr));
	em.e = &merr;
	em.n_nodes = (uint32_t)w->node_parent.n;
	sparse_init(&em.old, &w->old_objects, 1u << SAMPLE_OLD_OBJECT);
	sparse_init(&em.live, &w->liveness, LIVENESS_KINDS);
	pipe_init(&em.pipe, &en);
	rc = spill_merge_new(w->spill, &m, &merr);
	while (rc >= 0 && !__atomic_load_n(&en.failed, __ATOMIC_RELAXED) &&
	       (rc = spill_merge_next(m, &x, &merr)) > 0) {
		if (seq >= w->n_samples) {
			rc = err_set(&merr, ERR_FORMAT,
				     "store: the spill file holds more than "
				     "%llu samples",
				     (unsigned long long)w->n_samples);
			break;
		}
		rc = emit_sample(&em, x, (uint32_t)seq++);
	}
	spill_merge_free(m);
	pipe_end(&em.pipe, rc >= 0);
	if (rc < 0 && !o->failed && o->e)
		*o->e = merr;
	if (rc >= 0 && !o->failed && seq != w->n_samples)
		rc = err_set(o->e, ERR_FORMAT,
			     "store: the spill file holds %llu samples, "
			     "not %llu",
			     (unsigned long long)seq,
			     (unsigned long long)w->n_samples);
	if (rc >= 0 && !o->failed)
		est_walk_finish(en.walk); /* the samples still waiting */
	if (rc < 0 || o->failed) {
		o->failed = true;
		free(em.old.pos);
		free(em.live.pos);
		free(en.bufs);
		est_walk_free(en.walk);
		return ERR_FAIL;
	}
	for (k = 0; k < (int)w->recordings.n; k++)
		est_walk_facts(en.walk, (uint32_t)k, &est[k]);
	est_walk_free(en.walk);
	for (k = 0; k < SAMPLE__COUNT; k++)
		if (en.enc[k].head.n)
			block_flush(o, en.t, &en.enc[k], index);
	free(en.bufs);
	if (index->n > 1)
		qsort(index->data, index->n, index->size, by_kind_seq);
	sparse_finish(&em.old);
	sparse_finish(&em.live);
	return 0;
}

static void rows_out(void *ctx, const void *p, size_t len)
{
	struct out *o = ctx;

	section_add(o, &o->toc[o->n_toc - 1], p, len);
}

/* The rollups: their buckets, then their rows, which the builder spilled
 * bucket by bucket while the blocks were written and now copies into
 * their section in the format's order; then the whole recordings' the
 * same way (3.1). */
static void out_rollups(struct out *o, struct rollup_builder *rb)
{
	static const uint32_t ids[2][4] = {
		{SEC_ROLLUP_BUCKETS, SEC_ROLLUP_ROWS, SEC_ROLLUP_SQUARES,
		 SEC_ROLLUP_EST},
		{SEC_WHOLE_BUCKETS, SEC_WHOLE_ROWS, SEC_WHOLE_SQUARES,
		 SEC_WHOLE_EST},
	};
	const struct store_rollup_bucket *b;
	size_t n;
	int level;

	if (o->failed)
		return;
	if (rollup_finish(rb, o->e) < 0) {
		o->failed = true;
		return;
	}
	for (level = 0; level < 2 && !o->failed; level++) {
		b = rollup_buckets(rb, level, &n);
		out_section(o, ids[level][0], b, sizeof(*b), n);
		section_begin(o, ids[level][1],
			      sizeof(struct store_rollup_row));
		if (rollup_write_rows(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
		if (o->failed)
			return;
		section_begin(o, ids[level][2], sizeof(struct store_rollup_sq));
		if (rollup_write_squares(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
		if (o->failed)
			return;
		section_begin(o, ids[level][3],
			      sizeof(struct store_rollup_est));
		if (rollup_write_est(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
	}
}

/* The rollup builder's spill: a file with no name beside the store. */
static int rollup_spill_open(const char *target, struct err *e)
{
	char *copy = xstrdup(target);
	const char *dir = dirname(copy);
	int fd = spill_tmpfile(dir);

	if (fd < 0)
		err_set(e, ERR_IO,
			"store: cannot create a temporary file in %s: %s", dir,
			err_io_reason(errno));
	free(copy);
	return fd;
}

static int fsync_dir(const char *path)
{
	char *copy = xstrdup(path);
	int fd, rc = 0;

	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = -1;
	} else {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int store_writer_commit(struct store_writer *w, const char *path, struct err *e)
{
	struct store_header h;
	struct out o;
	struct buf tmp = BUF_INIT;
	uint32_t *renum;
	struct store_node *nodes;
	struct vec index;
	struct rollup_builder *rb;
	struct store_estimate *est;
	uint64_t n = w->n_samples;
	int rollup_fd;
	char *dir_copy, *base_copy, *target;
	mode_t mode;
	unsigned attempt;

	if (n > UINT32_MAX)
		return err_set(e, ERR_LIMIT,
			       "store: %llu samples, more than "
			       "the 4 billion a store holds",
			       (unsigned long long)n);
	/* a spill that failed fails the commit, before any file is made */
	if (err_isset(&w->spill_err) ||
	    spill_end_run(w->spill, &w->spill_err) < 0) {
		*e = w->spill_err;
		return ERR_FAIL;
	}
	/* A symbolic link is followed: the store it points at is replaced,
	 * in its own directory, and the link stays. */
	{
		char *real = realpath(path, NULL);

		if (real)
			target = real;
		else
			target = xstrdup(path); /* a new store */
	}
	/* the file being replaced keeps its permissions */
	mode = 0644;
	{
		struct stat st;

		if (stat(target, &st) == 0)
			mode = st.st_mode & 07777;
	}
	memset(&o, 0, sizeof(o));
	o.e = e;
	/* a unique name: pid, time and a counter, retried if taken (a
	 * crash can leave one behind, and pids are reused) */
	for (attempt = 0; attempt < 100; attempt++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		dir_copy = xstrdup(target);
		base_copy = xstrdup(target);
		buf_reset(&tmp);
		buf_addf(&tmp, "%s/.%s.tmp%ld.%lx.%u", dirname(dir_copy),
			 basename(base_copy), (long)getpid(),
			 (unsigned long)ts.tv_nsec, attempt);
		free(dir_copy);
		free(base_copy);
		o.fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    0600);
		if (o.fd >= 0 || errno != EEXIST)
			break;
	}
	o.path = tmp.data;
	o.target = target;
	if (o.fd >= 0)
		die_unlink_add(tmp.data); /* out of memory: not left behind */
	if (o.fd < 0) {
		err_set(e, ERR_IO,
			"store: writing %s (creating its temporary file %s): "
			"%s",
			target, tmp.data, err_io_reason(errno));
		buf_release(&tmp);
		free(target);
		return ERR_FAIL;
	}
	if (fchmod(o.fd, mode) < 0) {
		err_set(e, ERR_IO, "store: cannot set the mode of %s: %s",
			tmp.data, strerror(errno));
		close(o.fd);
		unlink(tmp.data);
		die_unlink_remove(tmp.data);
		buf_release(&tmp);
		free(target);
		return ERR_FAIL;
	}

	rollup_fd = rollup_spill_open(target, e);
	if (rollup_fd < 0) {
		close(o.fd);
		unlink(tmp.data);
		die_unlink_remove(tmp.data);
		buf_release(&tmp);
		free(target);
		return ERR_FAIL;
	}
	rb = rollup_builder_new(
		(const struct store_recording *)w->recordings.data,
		(uint32_t)w->recordings.n, rollup_fd);
	vec_init(&index, sizeof(struct store_block));
	nodes = number_nodes(w, &renum);

	memset(&h, 0, sizeof(h));
	out_write(&o, &h, sizeof(h)); /* filled in last */
	out_section(&o, SEC_STRINGS, w->strings.data, 1, w->strings.len);
	out_section(&o, SEC_RECORDINGS, w->recordings.data, w->recordings.size,
		    w->recordings.n);
	out_section(&o, SEC_SETTINGS, w->settings.data, w->settings.size,
		    w->settings.n);
	out_section(&o, SEC_EVENT_COUNTS, w->counts.data, w->counts.size,
		    w->counts.n);
	out_section(&o, SEC_THREADS, w->threads.data, w->threads.size,
		    w->threads.n);
	out_section(&o, SEC_CLASSES, w->classes.data, w->classes.size,
		    w->classes.n);
	out_section(&o, SEC_METHODS, w->methods.data, w->methods.size,
		    w->methods.n);
	out_section(&o, SEC_FRAMES, w->frames.data, w->frames.size,
		    w->frames.n);
	out_section(&o, SEC_NODES, nodes, sizeof(struct store_node),
		    w->node_parent.n);
	/* the blocks name nodes by the writer's ids (4.0), these rows and
	 * the rollups by the trie's */
	out_section(&o, SEC_NODE_MAP, renum, sizeof(uint32_t),
		    w->node_parent.n);
	rollup_builder_set_node_map(rb, renum, (uint32_t)w->node_parent.n);
	est = xcalloc(w->recordings.n ? w->recordings.n : 1, sizeof(*est));
	if (!o.failed)
		emit_samples(&o, w, &index, rb, est);
	out_section(&o, SEC_SAMPLE_INDEX, index.data, index.size, index.n);
	out_section(&o, SEC_ESTIMATES, est, sizeof(*est), w->recordings.n);
	free(est);
	out_rollups(&o, rb);
	rollup_builder_free(rb);
	close(rollup_fd);
	vec_release(&index);
	out_section(&o, SEC_OLD_OBJECTS, w->old_objects.data,
		    w->old_objects.size, w->old_objects.n);
	out_section(&o, SEC_HEAP, w->heap.data, w->heap.size, w->heap.n);
	out_section(&o, SEC_LIVENESS, w->liveness.data, w->liveness.size,
		    w->liveness.n);
	out_section(&o, SEC_GCS, w->gcs.data, w->gcs.size, w->gcs.n);
	out_section(&o, SEC_CH_SNAPSHOTS, w->ch_snaps.data, w->ch_snaps.size,
		    w->ch_snaps.n);
	out_section(&o, SEC_CH_HEAPS, w->ch_heaps.data, w->ch_heaps.size,
		    w->ch_heaps.n);
	out_section(&o, SEC_CH_MAPS, w->ch_maps.data, w->ch_maps.size,
		    w->ch_maps.n);
	out_section(&o, SEC_CH_CELLS, w->ch_cells.data, 1, w->ch_cells.len);
	out_section(&o, SEC_CH_BLOCKS, w->ch_blocks.data, w->ch_blocks.size,
		    w->ch_blocks.n);
	out_section(&o, SEC_CH_STATS, w->ch_stats.data, w->ch_stats.size,
		    w->ch_stats.n);
	free(renum);
	free(nodes);

	out_pad(&o);
	memcpy(h.magic, STORE_MAGIC, STORE_MAGIC_LEN);
	h.major = STORE_MAJOR;
	h.minor = STORE_MINOR;
	h.header_len = STORE_HEADER_LEN;
	h.toc_offset = o.pos;
	h.n_sections = o.n_toc;
	h.toc_crc = crc32c_update(0, o.toc, o.n_toc * sizeof(o.toc[0]));
	out_write(&o, o.toc, o.n_toc * sizeof(o.toc[0]));
	h.file_len = o.pos;
	h.header_crc = 0;
	h.header_crc = crc32c_update(0, &h, sizeof(h));
	out_flush(&o);
	free(o.wbuf);
	o.pos = 0; /* the header, over its placeholder */
	out_pwrite(&o, &h, sizeof(h));
	if (!o.failed && fsync(o.fd) < 0) {
		err_set(e, ERR_IO, "store: writing %s (fsync of %s): %s",
			target, tmp.data, err_io_reason(errno));
		o.failed = true;
	}
	if (close(o.fd) < 0 && !o.failed) {
		err_set(e, ERR_IO, "store: writing %s (closing %s): %s", target,
			tmp.data, err_io_reason(errno));
		o.failed = true;
	}
	if (!o.failed && rename(tmp.data, target) < 0) {
		err_set(e, ERR_IO, "store: cannot replace %s: %s", target,
			err_io_reason(errno));
		o.failed = true;
	}
	if (o.failed)
		unlink(tmp.data);
	die_unlink_remove(tmp.data); /* renamed, or removed */
	if (o.failed) {
		buf_release(&tmp);
		free(target);
		return ERR_FAIL;
	}
	/* the rename is durable once the directory is: if this fails the
	 * new store is in place, but a power cut could still undo it */
	if (fsync_dir(target) < 0) {
		err_set(e, ERR_IO,
			"store: %s written, but syncing its "
			"directory failed: %s",
			target, strerror(errno));
		buf_release(&tmp);
		free(target);
		return ERR_FAIL;
	}
	buf_release(&tmp);
	free(target);
	return 0;
}
