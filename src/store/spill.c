/*
 * The spill of the store writer (spill.h): sorted runs of samples in an
 * unlinked file, and their merge in time order.
 *
 * A run's bytes are its samples in time order, each a run of LEB128
 * varints as sample blocks are (sample_block.c), with the writer's ids:
 *
 *   time gap from the previous sample (the first: from 0), mod 2^64
 *   head: kind | truncated << 3 | size mode << 4 (0: size follows,
 *         1: no size (REC_NONE), 2: size == bytes)
 *   thread + 1, class + 1 (0: none), node
 *   zigzag(bytes), then zigzag(size) when the mode says so
 *   position in the run's import order, for the kinds in sparse_kinds
 *
 * The recording and the import index of the run's first sample are the
 * run's (struct run).  The merge trusts nothing it reads back: a run
 * that decodes to other than its count is an error, not a crash.
 */
#include "store/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/store/store_format.h"
#include "importers/sink.h"
#include "store/time_sort.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/xalloc.h"

#define WBUF_LEN ((size_t)1 << 20)
#define RBUF_MIN ((size_t)4096)
#define RBUF_MAX ((size_t)256 << 10)

struct run {
	uint64_t off, len, n, import_base;
	uint32_t recording;
};

struct spill {
	size_t run_samples;
	unsigned sparse_kinds;
	char *dir;
	int fd; /* -1: not created yet */
	uint64_t file_len;
	/* the run being gathered, as columns */
	size_t n, alloc;
	int64_t *time;
	uint32_t *thread, *cls, *node, *order;
	int64_t *bytes, *size;
	uint8_t *kind, *flags;
	uint32_t recording;
	uint64_t import_base;
	struct run *runs;
	uint32_t n_runs, runs_alloc;
	unsigned char *wbuf;
	size_t wlen;
};

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

static inline bool get_uv(const unsigned char **pp, const unsigned char *end,
			  uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		unsigned char b;

		if (p == end || shift > 63)
			return false;
		b = *p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	*pp = p;
	*v = r;
	return true;
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
		    int64_t prev_time, uint64_t pos, unsigned sparse_kinds)
{
	unsigned char *q = p;
	unsigned mode = s->size == REC_NONE ? 1 : s->size == s->bytes ? 2 : 0;

	if (s->kind >= 8 || s->flags > 1)
		BUG("spill: kind %u, flags %u", s->kind, s->flags);
	q = put_uv(q, (uint64_t)s->time_ns - (uint64_t)prev_time);
	*q++ = (unsigned char)(s->kind | s->flags << 3 | mode << 4);
	q = put_uv(q, (uint32_t)(s->thread + 1));
	q = put_uv(q, (uint32_t)(s->cls + 1));
	q = put_uv(q, s->node);
	q = put_uv(q, zigzag(s->bytes));
	if (mode == 0)
		q = put_uv(q, zigzag(s->size));
	if (sparse_kinds >> s->kind & 1)
		q = put_uv(q, pos);
	return (size_t)(q - p);
}

bool spill_decode(const unsigned char **pp, const unsigned char *end,
		  struct spill_sample *s, int64_t prev_time, uint64_t *pos,
		  unsigned sparse_kinds)
{
	uint64_t v[6];
	unsigned head, mode;

	if (!get_uv(pp, end, &v[0]) || *pp == end)
		return false;
	head = *(*pp)++;
	mode = head >> 4;
	if (mode > 2 || head >> 6 || !get_uv(pp, end, &v[1]) ||
	    !get_uv(pp, end, &v[2]) || !get_uv(pp, end, &v[3]) ||
	    !get_uv(pp, end, &v[4]) || v[1] > UINT32_MAX || v[2] > UINT32_MAX ||
	    v[3] > UINT32_MAX)
		return false;
	s->time_ns = (int64_t)((uint64_t)prev_time + v[0]);
	s->kind = head & 7;
	s->flags = head >> 3 & 1;
	s->thread = (uint32_t)v[1] - 1;
	s->cls = (uint32_t)v[2] - 1;
	s->node = (uint32_t)v[3];
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

static const char *spill_dir(const struct spill *sp)
{
	const char *t = getenv("TMPDIR");

	if (sp->dir)
		return sp->dir;
	return t && *t ? t : "/tmp";
}

static int io_err(const struct spill *sp, struct err *e, const char *doing,
		  int errnum)
{
	return err_set(e, ERR_IO, "store: %s the spill file in %s: %s", doing,
		       spill_dir(sp),
		       errnum == ENOSPC ? "no space left on device"
		       : errnum		? strerror(errnum)
					: "short read");
}

int spill_tmpfile(const char *dir)
{
	struct buf path = BUF_INIT;
	int fd;

#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0 ||
	    (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
#endif
	/* no O_TMPFILE here: a name, unlinked at once */
	buf_addf(&path, "%s/.heapsift-spill.XXXXXX", dir);
	fd = mkostemp(path.data, O_CLOEXEC);
	if (fd >= 0)
		unlink(path.data);
	buf_release(&path);
	return fd;
}

static int spill_open(struct spill *sp, struct err *e)
{
	sp->fd = spill_tmpfile(spill_dir(sp));
	return sp->fd < 0 ? io_err(sp, e, "creating", errno) : 0;
}

static int wbuf_flush(struct spill *sp, struct err *e)
{
	const unsigned char *p = sp->wbuf;
	size_t len = sp->wlen;

	while (len) {
		ssize_t n = pwrite(sp->fd, p, len, (off_t)sp->file_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sp->wlen = 0;
			return io_err(sp, e, "writing", n < 0 ? errno : ENOSPC);
		}
		p += n;
		len -= (size_t)n;
		sp->file_len += (uint64_t)n;
	}
	sp->wlen = 0;
	return 0;
}

/* --- gathering runs -------------------------------------------------------- */

size_t spill_run_samples(void)
{
	const char *v = getenv("HEAPSIFT_STORE_RUN_SAMPLES");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return SPILL_RUN_DEFAULT;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n < 1 || n > (1ull << 31))
		return SPILL_RUN_DEFAULT;
	return (size_t)n;
}

struct spill *spill_new(size_t run_samples, unsigned sparse_kinds)
{
	struct spill *sp = xcalloc(1, sizeof(*sp));

	sp->run_samples = run_samples ? run_samples : spill_run_samples();
	sp->sparse_kinds = sparse_kinds;
	sp->fd = -1;
	return sp;
}

static void cols_resize(struct spill *sp, size_t alloc)
{
	size_t old = sp->alloc;

	sp->time = big_realloc(sp->time, old * 8, alloc * 8);
	sp->bytes = big_realloc(sp->bytes, old * 8, alloc * 8);
	sp->size = big_realloc(sp->size, old * 8, alloc * 8);
	sp->thread = big_realloc(sp->thread, old * 4, alloc * 4);
	sp->cls = big_realloc(sp->cls, old * 4, alloc * 4);
	sp->node = big_realloc(sp->node, old * 4, alloc * 4);
	sp->order = big_realloc(sp->order, old * 4, alloc * 4);
	sp->kind = big_realloc(sp->kind, old, alloc);
	sp->flags = big_realloc(sp->flags, old, alloc);
	sp->alloc = alloc;
}

void spill_free(struct spill *sp)
{
	if (!sp)
		return;
	big_free(sp->time, sp->alloc * 8);
	big_free(sp->bytes, sp->alloc * 8);
	big_free(sp->size, sp->alloc * 8);
	big_free(sp->thread, sp->alloc * 4);
	big_free(sp->cls, sp->alloc * 4);
	big_free(sp->node, sp->alloc * 4);
	big_free(sp->order, sp->alloc * 4);
	big_free(sp->kind, sp->alloc);
	big_free(sp->flags, sp->alloc);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->runs);
	free(sp->wbuf);
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
	return sp->file_len + sp->wlen;
}

int spill_end_run(struct spill *sp, struct err *e)
{
	struct spill_sample s;
	struct run *r;
	int64_t prev = 0;
	size_t i;

	if (!sp->n)
		return 0;
	if (sp->fd < 0 && spill_open(sp, e) < 0)
		return ERR_FAIL;
	if (!sp->wbuf)
		sp->wbuf = xmalloc(WBUF_LEN);
	if (sp->n_runs == sp->runs_alloc) {
		sp->runs_alloc = sp->runs_alloc ? 2 * sp->runs_alloc : 64;
		sp->runs = xrealloc(sp->runs, sp->runs_alloc * sizeof(*r));
	}
	r = &sp->runs[sp->n_runs];
	r->off = spill_file_len(sp);
	r->n = sp->n;
	r->import_base = sp->import_base;
	r->recording = sp->recording;
	time_sort(sp->time, sp->order, sp->n);
	s.recording = sp->recording;
	for (i = 0; i < sp->n; i++) {
		uint32_t j = sp->order[i];

		if (sp->wlen > WBUF_LEN - SPILL_REC_MAX &&
		    wbuf_flush(sp, e) < 0) {
			sp->n = 0;
			return ERR_FAIL;
		}
		s.time_ns = sp->time[j];
		s.kind = sp->kind[j];
		s.flags = sp->flags[j];
		s.thread = sp->thread[j];
		s.cls = sp->cls[j];
		s.node = sp->node[j];
		s.bytes = sp->bytes[j];
		s.size = sp->size[j];
		sp->wlen += spill_encode(sp->wbuf + sp->wlen, &s, prev, j,
					 sp->sparse_kinds);
		prev = s.time_ns;
	}
	sp->n = 0;
	r->len = spill_file_len(sp) - r->off;
	sp->n_runs++;
	/* on disk now: a full disk is said during the import, and a
	 * dropped recording's runs are cut from the file alone */
	return wbuf_flush(sp, e);
}

int spill_add(struct spill *sp, const struct spill_sample *s, struct err *e)
{
	size_t i;

	/* a run is one recording's, and its import indexes follow */
	if (sp->n &&
	    (s->recording != sp->recording ||
	     s->import != sp->import_base + sp->n) &&
	    spill_end_run(sp, e) < 0)
		return ERR_FAIL;
	if (!sp->n) {
		sp->recording = s->recording;
		sp->import_base = s->import;
	}
	if (sp->n == sp->alloc) {
		size_t a = sp->alloc ? 2 * sp->alloc : 1024;

		cols_resize(sp, a < sp->run_samples ? a : sp->run_samples);
	}
	i = sp->n++;
	sp->time[i] = s->time_ns;
	sp->kind[i] = s->kind;
	sp->flags[i] = s->flags;
	sp->thread[i] = s->thread;
	sp->cls[i] = s->cls;
	sp->node[i] = s->node;
	sp->bytes[i] = s->bytes;
	sp->size[i] = s->size;
	if (sp->n == sp->run_samples)
		return spill_end_run(sp, e);
	return 0;
}

void spill_truncate(struct spill *sp, uint32_t n_runs)
{
	uint64_t len;

	if (sp->n)
		BUG("spill: truncated with samples buffered");
	if (n_runs >= sp->n_runs)
		return;
	/* every run is on disk (spill_end_run): give the space back */
	len = sp->runs[n_runs].off;
	sp->n_runs = n_runs;
	sp->wlen = 0;
	sp->file_len = len;
	if (ftruncate(sp->fd, (off_t)len) < 0)
		(void)0; /* only space: the next runs overwrite them */
}

/* --- the merge ------------------------------------------------------------- */

struct cursor {
	const struct run *run;
	uint32_t idx;	   /* the run's number: ties go to the lower */
	uint64_t file_off; /* next byte to read */
	uint64_t left;	   /* samples not decoded yet */
	unsigned char *buf;
	size_t cap, pos, len;
	struct spill_sample head; /* the next sample, when has_head */
	bool has_head;
};

struct spill_merge {
	struct spill *sp;
	struct cursor *c;
	uint32_t n;
	uint32_t *heap, n_heap; /* cursors with a head, by (time, idx) */
	uint32_t cur;		/* the run being drained; UINT32_MAX: none */
};

static inline bool before(const struct cursor *a, const struct cursor *b)
{
	return a->head.time_ns < b->head.time_ns ||
	       (a->head.time_ns == b->head.time_ns && a->idx < b->idx);
}

static int refill(struct spill_merge *m, struct cursor *c, struct err *e)
{
	uint64_t end = c->run->off + c->run->len;
	size_t keep = c->len - c->pos, want;

	memmove(c->buf, c->buf + c->pos, keep);
	c->pos = 0;
	c->len = keep;
	want = c->cap - keep;
	if (want > end - c->file_off)
		want = (size_t)(end - c->file_off);
	while (want) {
		ssize_t n = pread(m->sp->fd, c->buf + c->len, want,
				  (off_t)c->file_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return io_err(m->sp, e, "reading", n < 0 ? errno : 0);
		c->len += (size_t)n;
		c->file_off += (uint64_t)n;
		want -= (size_t)n;
	}
	return 0;
}

/* Decode c's next sample into c->head (has_head false at the run's end). */
static int advance(struct spill_merge *m, struct cursor *c, struct err *e)
{
	const unsigned char *p;
	int64_t prev = c->has_head ? c->head.time_ns : 0;
	uint64_t pos;

	c->has_head = false;
	if (!c->left)
		return 0;
	if (c->len - c->pos < SPILL_REC_MAX &&
	    c->file_off < c->run->off + c->run->len && refill(m, c, e) < 0)
		return ERR_FAIL;
	p = c->buf + c->pos;
	if (!spill_decode(&p, c->buf + c->len, &c->head, prev, &pos,
			  m->sp->sparse_kinds) ||
	    (pos != SPILL_NO_IMPORT && pos >= c->run->n))
		return err_set(e, ERR_FORMAT,
			       "store: the spill file in %s is damaged "
			       "(run %u)",
			       spill_dir(m->sp), c->idx);
	c->pos = (size_t)(p - c->buf);
	c->head.recording = c->run->recording;
	c->head.import =
		pos == SPILL_NO_IMPORT ? pos : c->run->import_base + pos;
	c->has_head = true;
	c->left--;
	if (!c->left && c->pos != c->len)
		return err_set(e, ERR_FORMAT,
			       "store: the spill file in %s is damaged "
			       "(run %u is longer than its samples)",
			       spill_dir(m->sp), c->idx);
	return 0;
}

static void heap_down(struct spill_merge *m, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, best = i, t;

		if (l < m->n_heap &&
		    before(&m->c[m->heap[l]], &m->c[m->heap[best]]))
			best = l;
		if (l + 1 < m->n_heap &&
		    before(&m->c[m->heap[l + 1]], &m->c[m->heap[best]]))
			best = l + 1;
		if (best == i)
			return;
		t = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = t;
		i = best;
	}
}

static void heap_push(struct spill_merge *m, uint32_t ci)
{
	uint32_t i = m->n_heap++;

	m->heap[i] = ci;
	while (i) {
		uint32_t p = (i - 1) / 2, t;

		if (!before(&m->c[m->heap[i]], &m->c[m->heap[p]]))
			break;
		t = m->heap[i];
		m->heap[i] = m->heap[p];
		m->heap[p] = t;
		i = p;
	}
}

static uint32_t heap_pop(struct spill_merge *m)
{
	uint32_t top = m->heap[0];

	m->heap[0] = m->heap[--m->n_heap];
	heap_down(m, 0);
	return top;
}

int spill_merge_new(struct spill *sp, struct spill_merge **out, struct err *e)
{
	struct spill_merge *m = xcalloc(1, sizeof(*m));
	size_t each;
	uint32_t i;

	*out = m;
	m->sp = sp;
	m->cur = UINT32_MAX;
	if (sp->n)
		BUG("spill: merged with samples buffered");
	if (sp->wlen && wbuf_flush(sp, e) < 0)
		return ERR_FAIL;
	m->n = sp->n_runs;
	m->c = xcalloc(m->n ? m->n : 1, sizeof(*m->c));
	m->heap = xmalloc((m->n ? m->n : 1) * sizeof(*m->heap));
	each = SPILL_MERGE_BUDGET / (m->n ? m->n : 1);
	each = each < RBUF_MIN ? RBUF_MIN : each > RBUF_MAX ? RBUF_MAX : each;
	for (i = 0; i < m->n; i++) {
		struct cursor *c = &m->c[i];

		c->run = &sp->runs[i];
		c->idx = i;
		c->file_off = c->run->off;
		c->left = c->run->n;
		c->cap = c->run->len < each ? (size_t)c->run->len : each;
		if (c->cap < SPILL_REC_MAX)
			c->cap = SPILL_REC_MAX;
		c->buf = xmalloc(c->cap);
		if (advance(m, c, e) < 0)
			return ERR_FAIL;
		if (c->has_head)
			heap_push(m, i);
	}
	return 0;
}

int spill_merge_next(struct spill_merge *m, struct spill_sample *out,
		     struct err *e)
{
	struct cursor *c;

	/* the run in front stays in front until the next run's head */
	if (m->cur != UINT32_MAX) {
		c = &m->c[m->cur];
		if (c->has_head && (!m->n_heap || before(c, &m->c[m->heap[0]])))
			goto emit;
		if (c->has_head)
			heap_push(m, m->cur);
		m->cur = UINT32_MAX;
	}
	if (!m->n_heap)
		return 0;
	m->cur = heap_pop(m);
	c = &m->c[m->cur];
emit:
	*out = c->head;
	if (c->left) {
		if (advance(m, c, e) < 0)
			return ERR_FAIL;
	} else {
		c->has_head = false;
		free(c->buf);
		c->buf = NULL;
	}
	return 1;
}

void spill_merge_free(struct spill_merge *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->c[i].buf);
	free(m->c);
	free(m->heap);
	free(m);
}
