/*
 * The spill's merge (store_write_spill.h: spill_merge_*): the runs read
 * back, a buffer each, and their samples handed out in time order, ties
 * in import order, with the bytes read given back to the file system.
 * It is apart from the gathering of runs (store_write_spill.c) because
 * it runs at commit only, after every run is written, and shares with it
 * nothing but the runs' records and their encoding (spill_decode);
 * its per-sample functions (advance, before, the heap) call each other
 * here alone.  The merge trusts nothing it reads back: a run that
 * decodes to other than its count is an error, not a crash.
 */
#include "store/store_write_spill_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xalloc.h"

#define RBUF_MIN ((size_t)4096)
#define RBUF_MAX ((size_t)256 << 10)

struct cursor {
	const struct run *run;
	uint32_t idx;	   /* the run's number: ties go to the lower */
	uint64_t file_off; /* next byte to read */
	uint64_t punched;  /* the run's bytes given back up to here */
	uint64_t left;	   /* samples not decoded yet */
	unsigned char *buf;
	size_t cap, pos, len;
	/* the next sample, when has_head, is hs[h]; the run's sample before
	 * it, which the merge handed out last, is still hs[h ^ 1] (the next
	 * one is decoded there, and the one handed out stays put until the
	 * next call: no copy of a sample just written field by field, which
	 * stalled the reads that copied it whole) */
	struct spill_sample hs[2];
	unsigned h;
	bool has_head;
};
#define HEAD(c) (&(c)->hs[(c)->h])

struct spill_merge {
	struct spill *sp;
	bool no_punch; /* the file system cannot give bytes back */
	struct cursor *c;
	uint32_t n;
	uint32_t *heap, n_heap; /* cursors with a head, by (time, idx) */
	uint32_t cur;		/* the run being drained; UINT32_MAX: none */
};

static inline bool before(const struct cursor *a, const struct cursor *b)
{
	return HEAD(a)->time_ns < HEAD(b)->time_ns ||
	       (HEAD(a)->time_ns == HEAD(b)->time_ns && a->idx < b->idx);
}

/*
 * The pages of a run that the merge has read, given back to the file
 * system (a hole punched, a MiB at a time), so that the spill shrinks as
 * the store grows: at commit both were on disk at once (0.9 GB of spill
 * beside the 1.6 GB store of a 2 GB recording), and the store's pages
 * can reuse the spill's.  Only whole pages inside the run: its first and
 * last may hold the runs beside it.  Where the file system cannot, the
 * spill stays whole until the end, as before.
 */
#define PUNCH_MIN ((uint64_t)1 << 20)

static void give_back(struct spill_merge *m, struct cursor *c,
		      uint64_t consumed)
{
	uint64_t to = consumed & ~(uint64_t)4095;

	if (m->no_punch || to < c->punched + PUNCH_MIN)
		return;
#ifdef FALLOC_FL_PUNCH_HOLE
	if (fallocate(m->sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)c->punched, (off_t)(to - c->punched)) == 0) {
		c->punched = to;
		return;
	}
#endif
	m->no_punch = true; /* not a reason to stop the merge */
}

static int refill(struct spill_merge *m, struct cursor *c, struct err *e)
{
	uint64_t end = c->run->off + c->run->len;
	size_t keep = c->len - c->pos, want;

	give_back(m, c, c->file_off - keep);

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
			return spill_io_err(m->sp, e, "reading",
					    n < 0 ? errno : 0);
		c->len += (size_t)n;
		c->file_off += (uint64_t)n;
		want -= (size_t)n;
	}
	return 0;
}

/* Decode c's next sample, which becomes HEAD(c) (has_head false at the
 * run's end). */
static int advance(struct spill_merge *m, struct cursor *c, struct err *e)
{
	const unsigned char *p;
	/* the run's previous sample, which HEAD(c) still holds */
	const struct spill_sample *prev = c->has_head ? HEAD(c) : NULL;
	struct spill_sample *next = &c->hs[c->h ^ 1];
	uint64_t pos;

	c->has_head = false;
	if (!c->left)
		return 0;
	if (c->len - c->pos < SPILL_REC_MAX &&
	    c->file_off < c->run->off + c->run->len && refill(m, c, e) < 0)
		return ERR_FAIL;
	p = c->buf + c->pos;
	if (!spill_decode(&p, c->buf + c->len, next, prev, &pos,
			  m->sp->sparse_kinds) ||
	    (pos != SPILL_NO_IMPORT && pos >= c->run->n && !c->run->given_back))
		return err_set(e, ERR_FORMAT,
			       "store: the spill file in %s is damaged "
			       "(run %u)",
			       spill_dir(m->sp), c->idx);
	next->recording = c->run->recording;
	if (c->run->given_back) {
		uint64_t rec;

		if (!get_uv(&p, c->buf + c->len, &rec) || rec > UINT32_MAX)
			return err_set(e, ERR_FORMAT,
				       "store: the spill file in %s is damaged "
				       "(run %u)",
				       spill_dir(m->sp), c->idx);
		next->recording = (uint32_t)rec;
	}
	c->pos = (size_t)(p - c->buf);
	next->import = pos == SPILL_NO_IMPORT ? pos : c->run->import_base + pos;
	c->h ^= 1;
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
	if (sp->cur->n)
		BUG("spill: merged with samples buffered");
	if (spill_take_back(sp, e) < 0)
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
		c->punched = (c->run->off + 4095) & ~(uint64_t)4095;
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

int spill_merge_next(struct spill_merge *m, const struct spill_sample **out,
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
	*out = HEAD(c);
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
