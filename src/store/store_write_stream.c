/*
 * Samples encoded as they arrive (store_write_stream.h).
 *
 * Threads: run() and replay() are called on the spill's writer thread,
 * one run at a time; the encoder has its own (store_write_encode.h), fed from
 * here in batches; the commit runs on the owner's thread once every run
 * has been through run() (the spill's queue hands the stream over).
 */
#include "store/store_write_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store_block.h"
#include "store/store_write_spill.h"
#include "store/store_write_commit.h"
#include "store/store_write_encode.h"
#include "util/env.h"
#include "util/spool.h"
#include "util/xalloc.h"

/* A sorted run in the window: the spill's own columns, taken over
 * (struct spill_run); the samples order[pos..n) not released yet. */
struct wrun {
	struct spill_cols c;
	bool copy; /* c: a short run's copy, freed when released */
	size_t n, pos;
	uint32_t recording;
	uint64_t import_base;
	uint64_t last_batch; /* the encoder's batch its last slice is in */
};

/* The time of r's i-th sample in time order. */
static inline int64_t wtime(const struct wrun *r, size_t i)
{
	return r->c.time[r->c.order[i]];
}

/* A run's columns released whole but maybe still read by the encoder:
 * theirs until it has given back batch (pipe.done > batch). */
struct retired {
	struct spill_cols c;
	bool copy;
	uint64_t batch;
};

struct stream {
	struct store_writer *w;
	char *dir;
	struct newfile nf; /* the store's file, without a name */
	bool opened; /* the file and the encoder made (at the first run) */
	bool dead;   /* gave its samples back to the spill */
	struct out o;
	struct err oerr; /* o's errors until the commit */
	struct encoder en;
	struct enc_pipe pipe;
	struct vec index;
	int rollup_fd;
	struct rollup_builder *rb;
	struct wrun *runs;
	uint32_t n_runs, alloc_runs;
	struct spill_cols *spare; /* columns of runs released whole */
	uint32_t n_spare, alloc_spare;
	struct retired *retired; /* released whole, the encoder's still */
	uint32_t n_retired, alloc_retired;
	size_t pending, window;
	uint64_t seq;
	int64_t last_time; /* of the last sample released */
	/* the encoder's (struct enc_pair) until its thread has stopped */
	struct vec pairs;
};

static const struct spill_stream_ops stream_ops;

static size_t window_samples(void)
{
	return env_count("HEAPSIFT_STORE_WINDOW_SAMPLES", STREAM_WINDOW, 1,
			 (size_t)1 << 31);
}

struct stream *stream_new(struct store_writer *w, const char *dir)
{
	struct stream *st;
	struct newfile nf;

	/* only a file without a name will do: it is linked at commit */
	if (newfile_open_in(&nf, dir, 0600) < 0) {
		newfile_abandon(&nf);
		return NULL;
	}
	st = xcalloc(1, sizeof(*st));
	st->w = w;
	st->dir = xstrdup(dir);
	st->nf = nf;
	st->o.fd = nf.fd;
	st->o.path = NULL; /* no name: messages say the directory */
	st->o.target = st->dir;
	err_init(&st->oerr);
	st->o.e = &st->oerr;
	st->rollup_fd = -1;
	st->window = window_samples();
	st->last_time = INT64_MIN;
	vec_init(&st->pairs, sizeof(struct enc_pair));
	vec_init(&st->index, sizeof(struct store_block));
	spill_set_stream(w->spill, &stream_ops, st);
	return st;
}

bool stream_active(const struct stream *st)
{
	return st && !st->dead && spill_streaming(st->w->spill);
}

static int stream_open(struct stream *st, struct err *e)
{
	struct store_header h;

	st->rollup_fd = tmpfile_nameless(st->dir);
	if (st->rollup_fd < 0)
		return err_set(e, ERR_IO,
			       "store: cannot create a temporary file in %s: "
			       "%s",
			       st->dir, err_io_reason(errno));
	st->opened = true;
	st->rb = rollup_builder_new(NULL, 0, st->rollup_fd);
	(void)out_direct(&st->o);
	memset(&h, 0, sizeof(h));
	out_write(&st->o, &h, sizeof(h)); /* filled in at commit */
	encoder_begin(&st->en, &st->o, &st->index, st->rb, 0, 0);
	st->en.sparse_kinds = LIVENESS_KINDS;
	st->en.pairs = &st->pairs;
	pipe_init(&st->pipe, &st->en, true);
	/* buffered, so no write failed yet: from here o is the encoder
	 * thread's, whose failures en.failed says */
	return 0;
}

/* Whether r's i-th sample in time order stays in the window: later
 * than lim, or as late without tie. */
static inline bool held(const struct wrun *r, size_t i, int64_t lim, bool tie)
{
	int64_t t = wtime(r, i);

	return t > lim || (t == lim && !tie);
}

/*
 * The end of r's samples from r->pos on, before stop, that are earlier
 * than lim (or as early, with tie): they are in time order, so a gallop
 * and a bisection find it in a few reads where a test of each sample
 * would read every sample's time.
 */
static size_t release_end(const struct wrun *r, size_t stop, int64_t lim,
			  bool tie)
{
	size_t lo = r->pos, step = 1, hi;

	/* the samples in [r->pos, lo) go; find an hi whose last is held */
	for (;;) {
		if (lo >= stop)
			return stop;
		hi = lo + step <= stop ? lo + step : stop;
		if (held(r, hi - 1, lim, tie))
			break;
		lo = hi;
		step *= 2;
	}
	/* [.., lo) go, hi - 1 is held: the first held is in [lo, hi) */
	hi--;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (held(r, mid, lim, tie))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * r's samples from r->pos on, before stop, while they are earlier than
 * lim (or as early, with tie), to the encoder in order, each with the
 * next seq: as slices of r's columns, which the encoder reads where
 * they lie.
 */
static void release_run(struct stream *st, struct wrun *r, size_t stop,
			int64_t lim, bool tie)
{
	size_t end = release_end(r, stop, lim, tie);

	while (r->pos < end) {
		struct enc_slice sl;
		size_t n = end - r->pos;

		if (n > ENC_BATCH)
			n = ENC_BATCH;
		sl.c = r->c;
		sl.pos = (uint32_t)r->pos;
		sl.n = (uint32_t)n;
		sl.recording = r->recording;
		sl.seq = (uint32_t)st->seq;
		sl.import_base = r->import_base;
		r->last_batch = pipe_slice(&st->pipe, &sl);
		st->seq += n;
		r->pos += n;
		st->last_time = wtime(r, r->pos - 1);
	}
}

/* Retired columns the encoder is done with: spares (the spill's own
 * columns, for its next runs) or, copies, freed. */
static void reclaim(struct stream *st)
{
	uint32_t i, kept = 0;

	for (i = 0; i < st->n_retired; i++) {
		struct retired *x = &st->retired[i];

		if (x->batch >= st->pipe.done) {
			st->retired[kept++] = *x;
		} else if (x->copy) {
			/* spares are the spill's own columns, as few as its
			 * runs that were in the window at once: a copy is
			 * freed */
			spill_cols_free(&x->c);
		} else {
			if (st->n_spare == st->alloc_spare) {
				st->alloc_spare = st->alloc_spare
							  ? 2 * st->alloc_spare
							  : 8;
				st->spare = xreallocarray(st->spare,
							  st->alloc_spare,
							  sizeof(*st->spare));
			}
			st->spare[st->n_spare++] = x->c;
		}
	}
	st->n_retired = kept;
}

/* A run released whole: its columns kept for the next, once the
 * encoder is done with them. */
static void run_done(struct stream *st, uint32_t i)
{
	struct wrun *r = &st->runs[i];
	struct retired *x;

	if (st->n_retired == st->alloc_retired) {
		st->alloc_retired =
			st->alloc_retired ? 2 * st->alloc_retired : 8;
		st->retired = xreallocarray(st->retired, st->alloc_retired,
					    sizeof(*st->retired));
	}
	x = &st->retired[st->n_retired++];
	x->c = r->c;
	x->copy = r->copy;
	x->batch = r->last_batch;
	memmove(r, r + 1, (st->n_runs - i - 1) * sizeof(*r));
	st->n_runs--;
}

/* Release k samples (at most those pending), earliest first, ties to the
 * earlier run (runs are in import order): a stable sort's order.  The
 * run in front is drained with one comparison a sample against the best
 * head of the others. */
static void release(struct stream *st, size_t k)
{
	while (k && st->n_runs) {
		int best = -1, second = -1;
		uint32_t i;
		struct wrun *r;
		size_t before, stop;

		for (i = 0; i < st->n_runs; i++) {
			int64_t t = wtime(&st->runs[i], st->runs[i].pos);

			if (best < 0 ||
			    t < wtime(&st->runs[best], st->runs[best].pos)) {
				second = best;
				best = (int)i;
			} else if (second < 0 ||
				   t < wtime(&st->runs[second],
					     st->runs[second].pos)) {
				second = (int)i;
			}
		}
		r = &st->runs[best];
		before = r->pos;
		stop = r->n - r->pos < k ? r->n : r->pos + k;
		if (second < 0) {
			release_run(st, r, stop, INT64_MAX, true);
		} else {
			const struct wrun *o = &st->runs[second];

			/* equal times: the earlier run's first */
			release_run(st, r, stop, wtime(o, o->pos),
				    best < second);
		}
		k -= r->pos - before;
		st->pending -= r->pos - before;
		if (r->pos == r->n)
			run_done(st, (uint32_t)best);
	}
}

/* The encoder's write error, once its thread has stopped. */
static int encoder_failed(struct stream *st, struct err *e)
{
	/* en.failed only: o.failed is the encoder thread's until it stops
	 * (encode_batch sets en.failed whenever it set o.failed) */
	if (!__atomic_load_n(&st->en.failed, __ATOMIC_RELAXED))
		return 0;
	pipe_end(&st->pipe, false);
	reclaim(st);			     /* the batch numbers start again */
	pipe_init(&st->pipe, &st->en, true); /* for stream_free's pipe_end */
	*e = st->oerr;
	return ERR_FAIL;
}

/* The spill's writer thread: one sorted run, its columns kept. */
static int stream_run(void *ctx, const struct spill_run *c, struct err *e)
{
	struct stream *st = ctx;
	struct wrun *r;

	if (!c->n)
		return 0;
	if (!st->opened && stream_open(st, e) < 0)
		return ERR_FAIL;
	if (encoder_failed(st, e) < 0)
		return ERR_FAIL;
	reclaim(st);
	/* a sample earlier than one released: the window was too small */
	if (st->seq && c->cols->time[c->cols->order[0]] < st->last_time)
		return 1;
	if (st->n_runs == st->alloc_runs) {
		st->alloc_runs = st->alloc_runs ? 2 * st->alloc_runs : 16;
		st->runs = xreallocarray(st->runs, st->alloc_runs,
					 sizeof(*st->runs));
	}
	r = &st->runs[st->n_runs++];
	if (c->n < c->cols->alloc / 4) {
		/* a short run (a recording's last, a small recording) in
		 * columns made for a whole one: copied, so that the window's
		 * memory follows its samples, however many runs it holds */
		spill_cols_copy(&r->c, c->cols, c->n);
		r->copy = true;
	} else {
		r->c = *c->cols;
		r->copy = false;
		/* the spill fills its next run into a spare, or grows new
		 * ones */
		if (st->n_spare)
			*c->cols = st->spare[--st->n_spare];
		else
			memset(c->cols, 0, sizeof(*c->cols));
	}
	r->n = c->n;
	r->pos = 0;
	r->last_batch = 0;
	r->recording = c->recording;
	r->import_base = c->import_base;
	st->pending += c->n;
	if (st->pending > st->window)
		release(st, st->pending - st->window);
	return 0;
}

/* Everything but the file and the directory's name freed: the window,
 * the encoder's walk and buffers, the rollups and their spill, the index
 * and the sparse pairs (the encoder's thread gone). */
static void stream_drop(struct stream *st)
{
	uint32_t i;

	encoder_free(&st->en);
	out_end_direct(&st->o);
	free(st->o.wbuf);
	st->o.wbuf = NULL;
	rollup_builder_free(st->rb);
	st->rb = NULL;
	if (st->rollup_fd >= 0)
		close(st->rollup_fd);
	st->rollup_fd = -1;
	for (i = 0; i < st->n_runs; i++)
		spill_cols_free(&st->runs[i].c);
	for (i = 0; i < st->n_spare; i++)
		spill_cols_free(&st->spare[i]);
	for (i = 0; i < st->n_retired; i++)
		spill_cols_free(&st->retired[i].c);
	free(st->runs);
	free(st->spare);
	free(st->retired);
	st->runs = NULL;
	st->spare = NULL;
	st->retired = NULL;
	st->n_runs = st->alloc_runs = st->n_spare = st->alloc_spare = 0;
	st->n_retired = st->alloc_retired = 0;
	vec_release(&st->pairs);
	vec_release(&st->index);
}

/* Kind k's blocks of the index, one at a time, decoded: a cursor of the
 * merge by seq that gives the blocks' samples back. */
struct bcur {
	const struct store_block *b; /* the next block; end: none */
	const struct store_block *end;
	size_t n, i;
	uint32_t seq[STORE_BLOCK_SAMPLES];
	int64_t time[STORE_BLOCK_SAMPLES], bytes[STORE_BLOCK_SAMPLES];
	int64_t size[STORE_BLOCK_SAMPLES], rest[STORE_BLOCK_SAMPLES];
	uint32_t rec[STORE_BLOCK_SAMPLES], thread[STORE_BLOCK_SAMPLES];
	uint32_t cls[STORE_BLOCK_SAMPLES], node[STORE_BLOCK_SAMPLES];
	uint8_t flags[STORE_BLOCK_SAMPLES];
};

/* The next block of c into its columns: 1, 0 at the end, <0 on a read
 * error (e set) or a block that does not decode (a bug: it was just
 * written). */
static int bcur_next(struct bcur *c, int fd, uint64_t blocks_at,
		     unsigned char *buf, struct err *e)
{
	struct block_cols cols = {c->seq,    c->time, c->rec,  c->flags,
				  c->thread, c->cls,  c->node, c->bytes,
				  c->size,   c->rest};
	struct block_limits lim = {(uint64_t)UINT32_MAX + 1, UINT32_MAX,
				   UINT32_MAX, UINT32_MAX, UINT32_MAX};
	size_t done = 0;
	uint32_t bad;
	const char *why;

	if (c->b == c->end)
		return 0;
	while (done < c->b->length) {
		ssize_t got = pread(fd, buf + done, c->b->length - done,
				    (off_t)(blocks_at + c->b->offset + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return err_set(e, ERR_IO,
				       "store: reading back the samples' "
				       "blocks: %s",
				       got < 0 ? err_io_reason(errno)
					       : "short read");
		done += (size_t)got;
	}
	if (!(c->b->flags & STORE_BLOCK_REST))
		cols.rest = NULL;
	why = block_decode(c->b, buf, &lim, &cols, 0, &bad);
	if (why)
		BUG("store: a block just written does not decode: sample %u "
		    "%s",
		    bad, why);
	c->n = c->b->n;
	c->i = 0;
	c->b++;
	return 1;
}

/* The cursors of every kind over index (by kind, then seq). */
static struct bcur *bcur_all(const struct vec *index)
{
	const struct store_block *ix = (const void *)index->data;
	struct bcur *c = xcalloc(SAMPLE__COUNT, sizeof(*c));
	size_t i = 0;
	int k;

	for (k = 0; k < SAMPLE__COUNT; k++) {
		c[k].b = ix + i;
		while (i < index->n && ix[i].kind == k)
			i++;
		c[k].end = ix + i;
	}
	return c;
}

/*
 * The spill's writer thread, after stream_run() said 1: every sample
 * released, back from the blocks written (by seq, merging the kinds),
 * then the window's, each run's rest in turn; the stream is done.
 */
static int stream_replay(void *ctx, struct spill_replay *rp, struct err *e)
{
	struct stream *st = ctx;
	const struct enc_pair *pair;
	size_t next_pair = 0;
	struct bcur *c;
	unsigned char *buf;
	uint32_t i;
	int rc = 0, k;

	st->dead = true;
	pipe_end(&st->pipe, true);
	encoder_end(&st->en);
	pair = (const void *)st->pairs.data;
	out_flush(&st->o);
	if (st->o.failed) {
		*e = st->oerr;
		return ERR_FAIL;
	}
	c = bcur_all(&st->index);
	buf = xmalloc(SAMPLE_BLOCK_MAX);
	for (k = 0; k < SAMPLE__COUNT && rc >= 0; k++)
		rc = bcur_next(&c[k], st->o.fd, st->en.t->offset, buf, e);
	while (rc >= 0) {
		struct spill_sample s;
		struct bcur *m = NULL;

		for (k = 0; k < SAMPLE__COUNT; k++)
			if (c[k].i < c[k].n &&
			    (!m || c[k].seq[c[k].i] < m->seq[m->i]))
				m = &c[k];
		if (!m)
			break;
		i = (uint32_t)m->i++;
		s.time_ns = m->time[i];
		s.recording = m->rec[i];
		s.kind = (uint8_t)(m - c);
		s.flags = m->flags[i];
		s.thread = m->thread[i];
		s.cls = m->cls[i];
		s.node = m->node[i];
		s.bytes = m->bytes[i];
		s.size = STORE_KIND_HAS_SIZE(s.kind) ? m->size[i] : REC_NONE;
		s.import = 0;
		if (LIVENESS_KINDS >> s.kind & 1) {
			if (next_pair == st->pairs.n ||
			    pair[next_pair].seq != m->seq[i])
				BUG("store: sample %u has no import index",
				    m->seq[i]);
			s.import = pair[next_pair++].import;
		}
		rc = spill_replay_add(rp, &s);
		if (rc >= 0 && m->i == m->n)
			rc = bcur_next(m, st->o.fd, st->en.t->offset, buf, e);
	}
	free(buf);
	free(c);
	/* each of the window's runs is in time order on its own */
	for (i = 0; i < st->n_runs && rc >= 0; i++) {
		struct wrun *r = &st->runs[i];

		spill_replay_cut(rp);

		for (; r->pos < r->n && rc >= 0; r->pos++) {
			const struct spill_cols *x = &r->c;
			uint32_t j = x->order[r->pos];
			struct spill_sample s = {
				x->time[j],	   r->recording, x->kind[j],
				x->flags[j],	   x->thread[j], x->cls[j],
				x->node[j],	   x->bytes[j],	 x->size[j],
				r->import_base + j};

			rc = spill_replay_add(rp, &s);
		}
	}
	/* the file and the rest are of no more use: the commit writes a
	 * file of its own, and the spill's merge wants the memory */
	newfile_abandon(&st->nf);
	st->o.fd = -1;
	stream_drop(st);
	return rc < 0 ? ERR_FAIL : 0;
}

static const struct spill_stream_ops stream_ops = {stream_run, stream_replay};

size_t stream_window_bytes(const struct stream *st, size_t *samples,
			   uint32_t *spares)
{
	size_t b = 0;
	uint32_t i;

	*samples = 0;
	*spares = st ? st->n_spare : 0;
	for (i = 0; st && i < st->n_runs; i++) {
		b += spill_cols_bytes(&st->runs[i].c);
		*samples += st->runs[i].n;
	}
	for (i = 0; st && i < st->n_retired; i++)
		b += spill_cols_bytes(&st->retired[i].c);
	return b;
}

void stream_free(struct stream *st)
{
	if (!st)
		return;
	if (st->opened && !st->dead)
		pipe_end(&st->pipe, false);
	out_end_direct(&st->o);
	newfile_abandon(&st->nf); /* a no-op once committed */
	st->o.fd = -1;
	stream_drop(st);
	free(st->dir);
	free(st);
}

static int by_import(const void *a, const void *b)
{
	const struct enc_pair *x = a, *y = b;

	return x->import < y->import ? -1 : x->import > y->import;
}

/* The sparse records' import indexes to the seqs their samples got, and
 * into seq order, as the format wants (pairs sorted by import). */
static void sparse_remap(struct vec *v, const struct vec *pairs)
{
	const struct enc_pair *p = (const void *)pairs->data;
	size_t i;

	for (i = 0; i < v->n; i++) {
		uint32_t at;
		size_t lo = 0, hi = pairs->n;

		memcpy(&at, v->data + i * v->size, 4);
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p[mid].import < at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == pairs->n || p[lo].import != at)
			BUG("store: per-sample record %zu names sample %u, "
			    "which was not released",
			    i, at);
		memcpy(v->data + i * v->size, &p[lo].seq, 4);
	}
	if (v->n > 1)
		qsort(v->data, v->n, v->size, by_sample);
}

int stream_commit(struct stream *st, struct store_writer *w, const char *path,
		  struct err *e)
{
	struct out *o = &st->o;
	char *target;
	mode_t mode;
	int rc;

	if (!st->opened && stream_open(st, e) < 0)
		return ERR_FAIL;
	release(st, st->pending);
	pipe_end(&st->pipe, true);
	st->dead = true; /* nothing more from the spill */
	encoder_end(&st->en);
	if (o->failed) {
		*e = st->oerr;
		return ERR_FAIL;
	}
	if (st->seq != w->n_samples)
		BUG("store: %llu samples released of %llu",
		    (unsigned long long)st->seq,
		    (unsigned long long)w->n_samples);
	if (st->pairs.n > 1)
		qsort(st->pairs.data, st->pairs.n, st->pairs.size, by_import);
	sparse_remap(&w->old_objects, &st->pairs);
	sparse_remap(&w->liveness, &st->pairs);
	target = commit_target(path, &mode);
	o->e = e;
	o->path = NULL; /* until linked, messages say the directory */
	o->target = st->dir;
	commit_sections(o, w, &st->index, st->rb, st->en.walk,
			st->en.t->offset);
	if (!o->failed && fchmod(o->fd, mode) < 0) {
		err_set(e, ERR_IO, "store: cannot set the mode of %s: %s",
			target, strerror(errno));
		o->failed = true;
	}
	o->target = target;
	o->path = "";
	if (o->failed) {
		newfile_abandon(&st->nf);
		o->fd = -1;
		free(target);
		return ERR_FAIL;
	}
	rc = commit_replace(o, &st->nf, target, e);
	free(target);
	return rc;
}

/* rb fed kind by kind from the blocks (the builder's rows do not depend
 * on the order of the kinds). */
struct rollup_builder *stream_rollups_again(struct out *o,
					    struct store_writer *w,
					    const struct vec *index,
					    uint64_t blocks_at,
					    const uint32_t *renum)
{
	struct rollup_builder *rb = rollup_builder_new(
		(const struct store_recording *)w->recordings.data,
		(uint32_t)w->recordings.n, -1);
	struct bcur *c;
	unsigned char *buf;
	int k, rc = 0;

	rollup_builder_set_node_map(rb, renum, (uint32_t)w->nodes.n);
	out_flush(o);
	if (o->failed) {
		rollup_builder_free(rb);
		return NULL;
	}
	c = bcur_all(index);
	buf = xmalloc(SAMPLE_BLOCK_MAX);
	for (k = 0; k < SAMPLE__COUNT && rc >= 0; k++) {
		while ((rc = bcur_next(&c[k], o->fd, blocks_at, buf, o->e)) >
		       0) {
			size_t i;

			for (i = 0; i < c[k].n; i++) {
				struct block_sample s = {
					c[k].seq[i],	c[k].time[i],
					c[k].rec[i],	c[k].flags[i],
					c[k].thread[i], c[k].cls[i],
					c[k].node[i],	c[k].bytes[i],
					c[k].size[i],	c[k].rest[i]};

				rollup_add(rb, k, &s);
			}
		}
	}
	free(buf);
	free(c);
	if (rc < 0) {
		o->failed = true;
		rollup_builder_free(rb);
		return NULL;
	}
	return rb;
}
