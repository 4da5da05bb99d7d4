/*
 * The spill of the store writer (store_write_spill.h): samples gathered
 * into runs, sorted and encoded on the writer thread, and written to an
 * unlinked file (or handed on to the stream).  Their merge in time order,
 * at commit, is store_write_spill_merge.c's; the two share
 * store_write_spill_int.h.
 *
 * A run's bytes are its samples in time order, each a run of LEB128
 * varints as sample blocks are (store_block.c), with the writer's ids:
 *
 *   time gap from the previous sample (the first: from 0), mod 2^64
 *   head: kind | truncated << 3 | size mode << 4 (0: size follows,
 *         1: no size (REC_NONE), 2: size == bytes) | same << 6
 *   thread + 1, class + 1 (0: none), node; none of the three when same
 *         is set: they are the previous sample's (a run sorted by time
 *         is mostly one thread's samples at one site after another)
 *   zigzag(bytes), then zigzag(size) when the mode says so
 *   position in the run's import order, for the kinds in sparse_kinds
 *
 * The recording and the import index of the run's first sample are the
 * run's (struct run).
 */
#include "store/store_write_spill_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "formats/store/store_format.h"
#include "record/record.h"
#include "store/store_write_sort.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/env.h"
#include "util/spool.h"
#include "util/workq.h"
#include "util/xalloc.h"

#define WBUF_LEN ((size_t)1 << 20)

void spill_set_stream(struct spill *sp, const struct spill_stream_ops *ops,
		      void *ctx)
{
	sp->ops = ops;
	sp->ops_ctx = ctx;
}

bool spill_streaming(const struct spill *sp)
{
	return sp->ops != NULL;
}

/* --- the encoding ---------------------------------------------------------- */

static inline unsigned char *put_uv(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* get_uv where at least 10 bytes are known to follow (the longest
 * varint): no bound checked a byte.  One byte, the common case for the
 * ids and time deltas, takes one test. */
static inline bool get_uv_unchecked(const unsigned char **pp, uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r;
	unsigned shift;

	if (!(*p & 0x80)) {
		*v = *p;
		*pp = p + 1;
		return true;
	}
	r = *p++ & 0x7f;
	for (shift = 7; shift <= 63; shift += 7) {
		unsigned char b = *p++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*v = r;
			return true;
		}
	}
	return false;
}

static inline uint64_t zigzag(int64_t v)
{
	return (uint64_t)v << 1 ^ -((uint64_t)v >> 63);
}

static inline int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1 ^ -(u & 1));
}

size_t spill_encode(unsigned char *p, const struct spill_sample *s,
		    const struct spill_sample *prev, uint64_t pos,
		    unsigned sparse_kinds)
{
	unsigned char *q = p;
	unsigned mode = s->size == REC_NONE ? 1 : s->size == s->bytes ? 2 : 0;
	bool same = prev && s->thread == prev->thread && s->cls == prev->cls &&
		    s->node == prev->node;

	if (s->kind >= 8 || s->flags > 1)
		BUG("spill: kind %u, flags %u", s->kind, s->flags);
	q = put_uv(q,
		   (uint64_t)s->time_ns - (uint64_t)(prev ? prev->time_ns : 0));
	*q++ = (unsigned char)(s->kind | s->flags << 3 | mode << 4 |
			       (unsigned)same << 6);
	if (!same) {
		q = put_uv(q, (uint32_t)(s->thread + 1));
		q = put_uv(q, (uint32_t)(s->cls + 1));
		q = put_uv(q, s->node);
	}
	q = put_uv(q, zigzag(s->bytes));
	if (mode == 0)
		q = put_uv(q, zigzag(s->size));
	if (sparse_kinds >> s->kind & 1)
		q = put_uv(q, pos);
	return (size_t)(q - p);
}

bool spill_decode(const unsigned char **pp, const unsigned char *end,
		  struct spill_sample *s, const struct spill_sample *prev,
		  uint64_t *pos, unsigned sparse_kinds)
{
	/* a whole record's longest is there: the merge keeps its buffers
	 * so (advance), and no varint needs its bounds checked */
	bool room = end - *pp >= SPILL_REC_MAX;
	uint64_t v[6];
	unsigned head, mode, i;
	bool same;

	if (room ? !get_uv_unchecked(pp, &v[0]) : !get_uv(pp, end, &v[0]))
		return false;
	if (*pp == end)
		return false;
	head = *(*pp)++;
	mode = head >> 4 & 3;
	same = head >> 6 & 1;
	if (mode > 2 || head >> 7 || (same && !prev))
		return false;
	for (i = same ? 4 : 1; i <= 4; i++)
		if (room ? !get_uv_unchecked(pp, &v[i])
			 : !get_uv(pp, end, &v[i]))
			return false;
	if (!same &&
	    (v[1] > UINT32_MAX || v[2] > UINT32_MAX || v[3] > UINT32_MAX))
		return false;
	/* prev may be s itself (the merge's cursor): its time is read
	 * before s is written */
	s->time_ns = (int64_t)((uint64_t)(prev ? prev->time_ns : 0) + v[0]);
	s->kind = head & 7;
	s->flags = head >> 3 & 1;
	if (same) {
		s->thread = prev->thread;
		s->cls = prev->cls;
		s->node = prev->node;
	} else {
		s->thread = (uint32_t)v[1] - 1;
		s->cls = (uint32_t)v[2] - 1;
		s->node = (uint32_t)v[3];
	}
	s->bytes = unzigzag(v[4]);
	if (mode == 0) {
		if (!get_uv(pp, end, &v[5]))
			return false;
		s->size = unzigzag(v[5]);
	} else {
		s->size = mode == 1 ? REC_NONE : s->bytes;
	}
	*pos = SPILL_NO_IMPORT;
	if (sparse_kinds >> s->kind & 1 && !get_uv(pp, end, pos))
		return false;
	return true;
}

/* --- the file -------------------------------------------------------------- */

const char *spill_dir(const struct spill *sp)
{
	const char *t = getenv("TMPDIR");

	if (sp->dir)
		return sp->dir;
	return t && *t ? t : "/tmp";
}

static int dir_err(const char *dir, struct err *e, const char *doing,
		   int errnum)
{
	/* err_io_reason is thread-safe: the writer thread says its
	 * errors too */
	return err_set(e, ERR_IO, "store: %s the spill file in %s: %s", doing,
		       dir, errnum ? err_io_reason(errnum) : "short read");
}

int spill_io_err(const struct spill *sp, struct err *e, const char *doing,
		 int errnum)
{
	return dir_err(spill_dir(sp), e, doing, errnum);
}

static int spill_open(struct spill *sp, struct err *e)
{
	sp->fd = tmpfile_nameless(spill_dir(sp));
	return sp->fd < 0 ? spill_io_err(sp, e, "creating", errno) : 0;
}

/* The job's buffered bytes, to the file after what it wrote. */
static int wbuf_flush(struct runbuf *rb, size_t *wlen)
{
	const unsigned char *p = rb->wbuf;
	size_t len = *wlen;

	*wlen = 0;
	while (len) {
		ssize_t n = pwrite(rb->fd, p, len, (off_t)(rb->off + rb->len));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return dir_err(rb->dir, &rb->err, "writing",
				       n < 0 ? errno : ENOSPC);
		p += n;
		len -= (size_t)n;
		rb->len += (uint64_t)n;
	}
	return 0;
}

/* --- gathering runs -------------------------------------------------------- */

size_t spill_run_samples(void)
{
	return env_count("HEAPSIFT_STORE_RUN_SAMPLES", SPILL_RUN_DEFAULT, 1,
			 (size_t)1 << 31);
}

struct spill *spill_new(size_t run_samples, unsigned sparse_kinds)
{
	struct spill *sp = xcalloc(1, sizeof(*sp));

	sp->run_samples = run_samples ? run_samples : spill_run_samples();
	sp->sparse_kinds = sparse_kinds;
	sp->fd = -1;
	sp->cur = &sp->buf[0];
	err_init(&sp->werr);
	return sp;
}

static void cols_resize(struct spill_cols *c, size_t alloc)
{
	size_t old = c->alloc;

	c->time = big_realloc(c->time, old * 8, alloc * 8);
	c->bytes = big_realloc(c->bytes, old * 8, alloc * 8);
	c->size = big_realloc(c->size, old * 8, alloc * 8);
	c->thread = big_realloc(c->thread, old * 4, alloc * 4);
	c->cls = big_realloc(c->cls, old * 4, alloc * 4);
	c->node = big_realloc(c->node, old * 4, alloc * 4);
	c->order = big_realloc(c->order, old * 4, alloc * 4);
	c->kind = big_realloc(c->kind, old, alloc);
	c->flags = big_realloc(c->flags, old, alloc);
	c->alloc = alloc;
}

void spill_cols_free(struct spill_cols *c)
{
	big_free(c->time, c->alloc * 8);
	big_free(c->bytes, c->alloc * 8);
	big_free(c->size, c->alloc * 8);
	big_free(c->thread, c->alloc * 4);
	big_free(c->cls, c->alloc * 4);
	big_free(c->node, c->alloc * 4);
	big_free(c->order, c->alloc * 4);
	big_free(c->kind, c->alloc);
	big_free(c->flags, c->alloc);
	memset(c, 0, sizeof(*c));
}

void spill_cols_copy(struct spill_cols *dst, const struct spill_cols *src,
		     size_t n)
{
	memset(dst, 0, sizeof(*dst));
	cols_resize(dst, n);
	memcpy(dst->time, src->time, n * 8);
	memcpy(dst->bytes, src->bytes, n * 8);
	memcpy(dst->size, src->size, n * 8);
	memcpy(dst->thread, src->thread, n * 4);
	memcpy(dst->cls, src->cls, n * 4);
	memcpy(dst->node, src->node, n * 4);
	memcpy(dst->order, src->order, n * 4);
	memcpy(dst->kind, src->kind, n);
	memcpy(dst->flags, src->flags, n);
}

size_t spill_cols_bytes(const struct spill_cols *c)
{
	/* a sample's width in every column cols_resize() keeps */
	return c->alloc *
	       (sizeof(*c->time) + sizeof(*c->bytes) + sizeof(*c->size) +
		sizeof(*c->thread) + sizeof(*c->cls) + sizeof(*c->node) +
		sizeof(*c->order) + sizeof(*c->kind) + sizeof(*c->flags));
}

static void runbuf_release(struct runbuf *rb)
{
	spill_cols_free(&rb->c);
	free(rb->wbuf);
	free(rb->back);
}

void spill_free(struct spill *sp)
{
	if (!sp)
		return;
	workq_free(sp->q); /* waits for a write under way */
	runbuf_release(&sp->buf[0]);
	runbuf_release(&sp->buf[1]);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->runs);
	free(sp->dir);
	free(sp);
}

void spill_set_dir(struct spill *sp, const char *dir)
{
	if (sp->fd >= 0)
		return;
	free(sp->dir);
	sp->dir = dir ? xstrdup(dir) : NULL;
}

uint32_t spill_n_runs(const struct spill *sp)
{
	return sp->n_runs;
}

uint64_t spill_file_len(const struct spill *sp)
{
	return sp->file_len;
}

uint64_t spill_file_allocated(const struct spill *sp)
{
	struct stat st;

	if (sp->fd < 0 || fstat(sp->fd, &st) < 0)
		return 0;
	return (uint64_t)st.st_blocks * 512;
}

/* The samples a stream gives back, written as runs at the job's place
 * in the file before its own run (run_write). */
struct spill_replay {
	struct runbuf *rb;
	size_t wlen;
	struct run *cur; /* the run being written; NULL: none */
	struct spill_sample prev;
};

void spill_replay_cut(struct spill_replay *rp)
{
	rp->cur = NULL;
}

int spill_replay_add(struct spill_replay *rp, const struct spill_sample *s)
{
	struct runbuf *rb = rp->rb;
	struct run *r = rp->cur;

	if (!r) {
		if (rb->n_back == rb->back_alloc) {
			rb->back_alloc =
				rb->back_alloc ? 2 * rb->back_alloc : 16;
			rb->back = xreallocarray(rb->back, rb->back_alloc,
						 sizeof(*rb->back));
		}
		r = rp->cur = &rb->back[rb->n_back++];
		r->off = rb->off + rb->len + rp->wlen;
		r->len = 0;
		r->n = 0;
		r->import_base = 0; /* each sample's import is its own */
		r->recording = s->recording;
		r->given_back = true;
	}
	if (rp->wlen > WBUF_LEN - SPILL_REC_MAX &&
	    (rb->rc = wbuf_flush(rb, &rp->wlen)) < 0)
		return ERR_FAIL;
	rp->wlen +=
		spill_encode(rb->wbuf + rp->wlen, s, r->n ? &rp->prev : NULL,
			     s->import, rb->sparse_kinds);
	rp->wlen =
		(size_t)(put_uv(rb->wbuf + rp->wlen, s->recording) - rb->wbuf);
	r->n++;
	r->len = rb->off + rb->len + rp->wlen - r->off;
	rp->prev = *s;
	return 0;
}

/* The stream's answer to a run: 0 taken, 1 written after what the stream
 * gave back (at rb->run_at), <0 an error. */
static int run_hand_on(struct runbuf *rb, size_t *wlen)
{
	struct spill_run r = {rb->n, &rb->c, rb->recording, rb->import_base};
	struct spill_replay rp;
	int rc = rb->ops->run(rb->ops_ctx, &r, &rb->err);

	if (rc <= 0)
		return rc;
	memset(&rp, 0, sizeof(rp));
	rp.rb = rb;
	rb->gave_back = true;
	if (rb->ops->replay(rb->ops_ctx, &rp, &rb->err) < 0 || rb->rc < 0)
		return ERR_FAIL;
	*wlen = rp.wlen;
	rb->run_at = rb->len + rp.wlen;
	return 1;
}

/* The writer thread's job: sort a run by time, encode it, write it at
 * rb->off (or hand it on to the stream).  Touches nothing but rb and its
 * bytes of the file. */
static void run_write(void *job)
{
	struct runbuf *rb = job;
	struct spill_sample s, prev;
	size_t i, wlen = 0;

	rb->len = 0;
	rb->rc = 0;
	rb->gave_back = false;
	rb->n_back = 0;
	rb->run_at = 0;
	err_init(&rb->err);
	if (!rb->wbuf)
		rb->wbuf = xmalloc(WBUF_LEN);
	time_sort(rb->c.time, rb->c.order, rb->n);
	if (rb->ops) {
		rb->rc = run_hand_on(rb, &wlen);
		if (rb->rc <= 0)
			return;
		rb->rc = 0;
	}
	s.recording = 0; /* the run's, not spilled per sample */
	s.import = 0;
	for (i = 0; i < rb->n; i++) {
		uint32_t j = rb->c.order[i];

		if (wlen > WBUF_LEN - SPILL_REC_MAX &&
		    (rb->rc = wbuf_flush(rb, &wlen)) < 0)
			return;
		s.time_ns = rb->c.time[j];
		s.kind = rb->c.kind[j];
		s.flags = rb->c.flags[j];
		s.thread = rb->c.thread[j];
		s.cls = rb->c.cls[j];
		s.node = rb->c.node[j];
		s.bytes = rb->c.bytes[j];
		s.size = rb->c.size[j];
		wlen += spill_encode(rb->wbuf + wlen, &s, i ? &prev : NULL, j,
				     rb->sparse_kinds);
		prev = s;
	}
	/* on disk when the job ends: a full disk is said during the import,
	 * and a dropped recording's runs are cut from the file alone */
	rb->rc = wbuf_flush(rb, &wlen);
}

/* store_write_spill_int.h */
int spill_take_back(struct spill *sp, struct err *e)
{
	struct runbuf *rb = sp->busy;

	if (err_isset(&sp->werr)) {
		*e = sp->werr;
		return ERR_FAIL;
	}
	if (!rb)
		return 0;
	if (workq_next(sp->q) != rb)
		BUG("spill: the writer gave back another run");
	sp->busy = NULL;
	rb->n = 0;
	if (rb->rc < 0) {
		sp->n_runs--; /* the last one: submitted after every other */
		sp->werr = rb->err;
		*e = rb->err;
		return ERR_FAIL;
	}
	if (rb->gave_back) {
		/* the stream's runs (none in the file) give way to what it
		 * gave back, then this run; the file from now on */
		struct run last = sp->runs[sp->n_runs - 1];
		uint32_t i;

		sp->ops = NULL;
		sp->n_runs = 0;
		for (i = 0; i <= rb->n_back; i++) {
			if (sp->n_runs == sp->runs_alloc) {
				sp->runs_alloc = 2 * sp->runs_alloc + 64;
				sp->runs = xrealloc(sp->runs,
						    sp->runs_alloc *
							    sizeof(*sp->runs));
			}
			if (i < rb->n_back) {
				sp->runs[sp->n_runs++] = rb->back[i];
				continue;
			}
			last.off = rb->off + rb->run_at;
			last.len = rb->len - rb->run_at;
			sp->runs[sp->n_runs++] = last;
		}
		sp->file_len = rb->off + rb->len;
		return 0;
	}
	if (!rb->ops) {
		sp->runs[sp->n_runs - 1].len = rb->len;
		sp->file_len += rb->len;
	}
	return 0;
}

/* Hand the run gathered to the writer thread (after the one before has
 * been written: the file's runs are in order), and gather into the other
 * buffer; wait when asked to, so that every run is on disk. */
static int submit_run(struct spill *sp, bool wait, struct err *e)
{
	struct runbuf *rb = sp->cur;
	struct run *r;
	int rc;

	if (!rb->n)
		return wait ? spill_take_back(sp, e) : 0;
	if (sp->fd < 0 && spill_open(sp, e) < 0) {
		rb->n = 0;
		return ERR_FAIL;
	}
	if (spill_take_back(sp, e) < 0) {
		rb->n = 0;
		return ERR_FAIL;
	}
	if (!sp->q)
		sp->q = workq_new(1, 1, run_write);
	if (sp->n_runs == sp->runs_alloc) {
		sp->runs_alloc = sp->runs_alloc ? 2 * sp->runs_alloc : 64;
		sp->runs = xrealloc(sp->runs, sp->runs_alloc * sizeof(*r));
	}
	r = &sp->runs[sp->n_runs++];
	r->off = sp->file_len;
	r->len = 0;
	r->n = rb->n;
	r->import_base = sp->import_base;
	r->recording = sp->recording;
	r->given_back = false;
	rb->fd = sp->fd;
	rb->off = sp->file_len;
	rb->sparse_kinds = sp->sparse_kinds;
	rb->dir = spill_dir(sp);
	rb->ops = sp->ops;
	rb->ops_ctx = sp->ops_ctx;
	rb->recording = sp->recording;
	rb->import_base = sp->import_base;
	sp->busy = rb;
	sp->cur = rb == &sp->buf[0] ? &sp->buf[1] : &sp->buf[0];
	workq_submit(sp->q, rb);
	rc = wait ? spill_take_back(sp, e) : 0;
	return rc;
}

int spill_end_run(struct spill *sp, struct err *e)
{
	return submit_run(sp, true, e);
}

struct spill_cols *spill_room(struct spill *sp, uint32_t recording,
			      uint64_t import, size_t *at, size_t *room,
			      struct err *e)
{
	struct runbuf *rb = sp->cur;

	/* a run is one recording's, and its import indexes follow */
	if (rb->n &&
	    (recording != sp->recording || import != sp->import_base + rb->n)) {
		if (submit_run(sp, false, e) < 0)
			return NULL;
		rb = sp->cur;
	}
	if (!rb->n) {
		sp->recording = recording;
		sp->import_base = import;
	}
	if (rb->n == rb->c.alloc) {
		/* doubled for a small recording; once a run has been full,
		 * the columns the stream hands back empty are made whole at
		 * once (growing them cost 1% of a large import's CPU) */
		size_t a = rb->c.alloc	? 2 * rb->c.alloc
			   : sp->filled ? sp->run_samples
					: 1024;

		cols_resize(&rb->c, a < sp->run_samples ? a : sp->run_samples);
	}
	/* columns handed back by the stream may hold more than a run */
	*at = rb->n;
	*room = (rb->c.alloc < sp->run_samples ? rb->c.alloc
					       : sp->run_samples) -
		rb->n;
	return &rb->c;
}

int spill_added(struct spill *sp, size_t n, struct err *e)
{
	struct runbuf *rb = sp->cur;

	rb->n += n;
	if (rb->n == sp->run_samples) {
		sp->filled = true;
		return submit_run(sp, false, e);
	}
	return 0;
}

int spill_add(struct spill *sp, const struct spill_sample *s, struct err *e)
{
	size_t i, room;
	struct spill_cols *c =
		spill_room(sp, s->recording, s->import, &i, &room, e);

	if (!c)
		return ERR_FAIL;
	c->time[i] = s->time_ns;
	c->kind[i] = s->kind;
	c->flags[i] = s->flags;
	c->thread[i] = s->thread;
	c->cls[i] = s->cls;
	c->node[i] = s->node;
	c->bytes[i] = s->bytes;
	c->size[i] = s->size;
	return spill_added(sp, 1, e);
}

void spill_truncate(struct spill *sp, uint32_t n_runs)
{
	uint64_t len;
	struct err e;

	if (sp->cur->n)
		BUG("spill: truncated with samples buffered");
	/* the run being written is one of those to keep or to cut: a
	 * failure to write a run that is cut is no failure */
	err_init(&e);
	if (spill_take_back(sp, &e) < 0) {
		if (sp->n_runs < n_runs)
			return;
		err_init(&sp->werr);
	}
	if (n_runs >= sp->n_runs)
		return;
	/* every run is on disk (spill_end_run): give the space back */
	len = sp->runs[n_runs].off;
	sp->n_runs = n_runs;
	sp->file_len = len;
	if (ftruncate(sp->fd, (off_t)len) < 0)
		(void)0; /* only space: the next runs overwrite them */
}
