/*
 * The rollup builder (store_write_rollup.h), fed a sample at a time.  A
 * series is one kind of one recording; it has one open bucket at a time
 * (samples come in time order), and under each projection a small
 * open-addressing table from key to row.  When a sample falls past the
 * open bucket, each projection's rows are sorted by key, checksummed and
 * spilled, and only the bucket's record stays in memory.  What is done
 * with the buckets once the samples end is store_write_rollup_finish.c's:
 * apart, so that this file holds the import's per-sample path
 * (rollup_add, its row's sums, the table) and nothing else calls into it
 * but through store_write_rollup_int.h.  It does not choose what the
 * readers do with the rows, nor check them: store_read_rollup.c does.
 */
#include "store/store_write_rollup_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "util/xalloc.h"

/*
 * The closed buckets' rows stay in memory up to 32 MiB, and only past
 * that go to the spill file, a MiB at a time: a bucket's rows are a few
 * hundred bytes, and a write and three reads of each (one per section)
 * were 43,000 system calls on a 22 MB recording, a third of its import's
 * CPU time in the kernel.  The rows of a 2 GB recording's rollups are
 * far more than 32 MiB, and keep memory bounded by going to the file.
 * HEAPSIFT_STORE_ROLLUP_MEM=BYTES sets the budget, for the tests
 * (tests/cli/stream.sh) to write the file at every size.
 */
#define ROLLUP_MEM_MAX	 ((uint64_t)32 << 20)
#define ROLLUP_WBUF_ROWS ((uint32_t)((1u << 20) / sizeof(struct brow)))

int64_t rollup_width(int64_t start_ns, int64_t end_ns)
{
	static const int64_t ladder[] = {
		1000000ll,     10000000ll,	100000000ll,	  1000000000ll,
		60000000000ll, 3600000000000ll, 86400000000000ll,
	};
	uint64_t span;
	size_t i;

	if (start_ns == INT64_MIN || end_ns == INT64_MIN || end_ns < start_ns)
		return 1000000000ll;
	span = (uint64_t)end_ns - (uint64_t)start_ns;
	for (i = 0; i < sizeof(ladder) / sizeof(ladder[0]); i++)
		if (span / (uint64_t)ladder[i] < 1024)
			return ladder[i];
	return ladder[sizeof(ladder) / sizeof(ladder[0]) - 1];
}

struct rollup_builder *rollup_builder_new(const struct store_recording *recs,
					  uint32_t n_recs, int spill_fd)
{
	struct rollup_builder *rb = xcalloc(1, sizeof(*rb));
	const char *v = getenv("HEAPSIFT_STORE_ROLLUP_MEM");
	char *end;

	rb->recs = recs;
	rb->n_recs = n_recs;
	rb->as_they_come = !recs;
	rb->fd = spill_fd;
	rb->mem_max = ROLLUP_MEM_MAX;
	if (v && *v) {
		unsigned long long m;

		errno = 0;
		m = strtoull(v, &end, 10);
		if (!errno && !*end)
			rb->mem_max = m;
	}
	return rb;
}

void rollup_builder_set_recordings(struct rollup_builder *rb,
				   const struct store_recording *recs,
				   uint32_t n_recs)
{
	rb->recs = recs;
	rb->n_recs = n_recs;
}

void rollup_builder_set_node_map(struct rollup_builder *rb, const uint32_t *map,
				 uint32_t n)
{
	rb->node_map = map;
	rb->n_map = n;
}

void rollup_builder_free(struct rollup_builder *rb)
{
	int k, p;
	uint32_t r;

	if (!rb)
		return;
	for (k = 0; k < SAMPLE__COUNT; k++) {
		for (r = 0; r < rb->n_s[k]; r++) {
			if (!rb->s[k][r])
				continue;
			for (p = 0; p < STORE_PROJ__COUNT; p++) {
				free(rb->s[k][r]->p[p].rows);
				free(rb->s[k][r]->p[p].slots);
			}
			free(rb->s[k][r]);
		}
		free(rb->s[k]);
	}
	free(rb->b);
	free(rb->spill_row);
	free(rb->wb);
	free(rb->w_spill_row);
	free(rb->mem);
	free(rb->wbuf);
	free(rb);
}

static uint64_t key_hash(const struct store_rollup_row *k)
{
	uint64_t x = ((uint64_t)k->node << 32 | k->cls) * 0x9e3779b97f4a7c15ull;

	x ^= ((uint64_t)k->thread << 1 | k->flags) * 0xbf58476d1ce4e5b9ull;
	return x ^ x >> 29;
}

int rollup_key_cmp(const void *a, const void *b)
{
	const struct store_rollup_row *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

static bool same_key(const struct store_rollup_row *x,
		     const struct store_rollup_row *y)
{
	return x->node == y->node && x->cls == y->cls &&
	       x->thread == y->thread && x->flags == y->flags;
}

static void rehash(struct proj_rows *pr, uint32_t n_slots)
{
	uint32_t i;

	free(pr->slots);
	pr->slots = xcalloc(n_slots, sizeof(uint32_t));
	pr->mask = n_slots - 1;
	for (i = 0; i < pr->n; i++) {
		uint32_t h = (uint32_t)key_hash(&pr->rows[i].r) & pr->mask;

		while (pr->slots[h])
			h = (h + 1) & pr->mask;
		pr->slots[h] = i + 1;
	}
}

/* A row's count, bytes and times, for row_add() and row_add_one(). */
static inline void row_add_counts(struct store_rollup_row *r, uint64_t samples,
				  int64_t bytes, int64_t first, int64_t last)
{
	r->samples += samples;
	/* never negative (a kind with a negative count has no rollups):
	 * held at the top, which any order of additions reaches alike */
	if (__builtin_add_overflow(r->bytes, bytes, &r->bytes))
		r->bytes = INT64_MAX;
	if (first < r->first_ns)
		r->first_ns = first;
	if (last > r->last_ns)
		r->last_ns = last;
}

/* Add a run of samples to a row: its sums, held at the top, any order
 * giving them alike. */
static inline void row_add(struct brow *br, uint64_t samples, int64_t bytes,
			   unsigned __int128 sq, const struct est_add *ea,
			   int64_t first, int64_t last)
{
	br->sq = br->sq > SQ_MAX - sq ? SQ_MAX : br->sq + sq;
	br->est_sq =
		br->est_sq > SQ_MAX - ea->sq ? SQ_MAX : br->est_sq + ea->sq;
	if (ea->least)
		br->est_a = ea->a < br->est_a ? ea->a : br->est_a;
	else if (__builtin_add_overflow(br->est_a, ea->a, &br->est_a))
		br->est_a = INT64_MAX;
	row_add_counts(&br->r, samples, bytes, first, last);
}

/* store_write_rollup_int.h */
uint32_t rollup_proj_add(struct proj_rows *pr, const struct store_rollup_row *k,
			 uint64_t samples, int64_t bytes, unsigned __int128 sq,
			 const struct est_add *ea, int64_t first, int64_t last)
{
	struct store_rollup_row *r;
	uint32_t h;

	if (!pr->slots || (uint64_t)pr->n * 2 >= (uint64_t)pr->mask + 1)
		rehash(pr, pr->slots ? (pr->mask + 1) * 2 : 256);
	for (h = (uint32_t)key_hash(k) & pr->mask; pr->slots[h];
	     h = (h + 1) & pr->mask) {
		r = &pr->rows[pr->slots[h] - 1].r;
		if (same_key(r, k)) {
			row_add(&pr->rows[pr->slots[h] - 1], samples, bytes, sq,
				ea, first, last);
			return pr->slots[h] - 1;
		}
	}
	if (pr->n == pr->alloc) {
		pr->alloc = pr->alloc ? pr->alloc * 2 : 64;
		pr->rows =
			xreallocarray(pr->rows, pr->alloc, sizeof(*pr->rows));
	}
	pr->rows[pr->n].sq = sq;
	pr->rows[pr->n].est_sq = ea->sq;
	pr->rows[pr->n].est_a = ea->a;
	r = &pr->rows[pr->n].r;
	*r = *k;
	r->samples = samples;
	r->bytes = bytes;
	r->first_ns = first;
	r->last_ns = last;
	pr->slots[h] = ++pr->n;
	return pr->n - 1;
}

/* The narrower projections of a closing bucket, from its full rows: one
 * table insert a sample instead of four, and the same sums (counts,
 * sums held at the top, minima and maxima do not depend on order). */
static void fold_projections(struct series *se, int kind)
{
	const struct proj_rows *full = &se->p[STORE_PROJ_FULL];
	uint32_t i;
	int p;

	for (i = 0; i < full->n; i++) {
		const struct store_rollup_row *r = &full->rows[i].r;
		struct est_add ea = {full->rows[i].est_a, full->rows[i].est_sq,
				     kind == SAMPLE_TLAB_OUTSIDE};

		for (p = STORE_PROJ_FULL + 1; p < STORE_PROJ__COUNT; p++) {
			struct store_rollup_row k;

			memset(&k, 0, sizeof(k));
			if (p == STORE_PROJ_NODE)
				k.node = r->node;
			else if (p == STORE_PROJ_CLASS)
				k.cls = r->cls;
			else
				k.thread = r->thread;
			rollup_proj_add(&se->p[p], &k, r->samples, r->bytes,
					full->rows[i].sq, &ea, r->first_ns,
					r->last_ns);
		}
	}
}

/* Write rows to the spill file at row `at` (failures kept in rb). */
static void file_write(struct rollup_builder *rb, const struct brow *r,
		       uint64_t n, uint64_t at_row)
{
	const char *p = (const char *)r;
	size_t len = (size_t)n * sizeof(*r);
	off_t at = (off_t)(at_row * sizeof(*r));

	while (len && !rb->failed) {
		ssize_t w = pwrite(rb->fd, p, len, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rb->failed = true;
			rb->err_no = w < 0 ? errno : ENOSPC;
			break;
		}
		p += w;
		at += w;
		len -= (size_t)w;
	}
}

/* wbuf's rows out: they are the last rows, ending at n_rows. */
void rollup_spill_flush(struct rollup_builder *rb)
{
	if (rb->wlen)
		file_write(rb, rb->wbuf, rb->wlen, rb->n_rows - rb->wlen);
	rb->wlen = 0;
}

void rollup_spill_rows(struct rollup_builder *rb, const struct brow *r,
		       uint32_t n)
{
	if (!rb->in_file && rb->fd >= 0 &&
	    (rb->n_rows + n) * sizeof(*r) > rb->mem_max) {
		/* past the budget: what memory holds goes first */
		file_write(rb, rb->mem, rb->n_rows, 0);
		free(rb->mem);
		rb->mem = NULL;
		rb->alloc_mem = 0;
		rb->in_file = true;
		rb->wbuf = xreallocarray(NULL, ROLLUP_WBUF_ROWS, sizeof(*r));
	}
	if (!rb->in_file) {
		if (rb->n_rows + n > rb->alloc_mem) {
			size_t cap = rb->mem_max / sizeof(*r) + 1;

			rb->alloc_mem = (rb->n_rows + n) * 2;
			/* doubled, but not past the budget where the file
			 * takes what comes after it: 32 MiB, not 64 */
			if (rb->fd >= 0 && rb->alloc_mem > cap)
				rb->alloc_mem = cap;
			rb->mem = xreallocarray(rb->mem, rb->alloc_mem,
						sizeof(*rb->mem));
		}
		memcpy(rb->mem + rb->n_rows, r, (size_t)n * sizeof(*r));
		rb->n_rows += n;
		return;
	}
	if (rb->wlen + n > ROLLUP_WBUF_ROWS)
		rollup_spill_flush(rb);
	if (n > ROLLUP_WBUF_ROWS) {
		file_write(rb, r, n, rb->n_rows);
	} else {
		memcpy(rb->wbuf + rb->wlen, r, (size_t)n * sizeof(*r));
		rb->wlen += n;
	}
	rb->n_rows += n;
}

/* The open bucket of se (kind, recording) out: every projection's rows
 * sorted, checksummed, spilled. */
void rollup_close_bucket(struct rollup_builder *rb, struct series *se, int kind,
			 uint32_t rec)
{
	int p;

	fold_projections(se, kind);
	for (p = 0; p < STORE_PROJ__COUNT; p++) {
		struct proj_rows *pr = &se->p[p];
		struct store_rollup_bucket *b;
		uint32_t i;

		if (!pr->n)
			continue;
		qsort(pr->rows, pr->n, sizeof(*pr->rows), rollup_key_cmp);
		if (rb->n_b == rb->alloc_b) {
			rb->alloc_b = rb->alloc_b ? rb->alloc_b * 2 : 256;
			rb->b = xreallocarray(rb->b, rb->alloc_b,
					      sizeof(*rb->b));
		}
		b = &rb->b[rb->n_b++];
		memset(b, 0, sizeof(*b));
		b->kind = (uint8_t)kind;
		b->proj = (uint8_t)p;
		b->recording = rec;
		b->start_ns = se->start;
		b->end_ns = se->end;
		b->first_row = rb->n_rows;
		b->n_rows = pr->n;
		b->crc = 0;
		for (i = 0; i < pr->n; i++) {
			b->crc = crc32c_update(b->crc, &pr->rows[i].r,
					       sizeof(pr->rows[i].r));
			b->samples += pr->rows[i].r.samples;
		}
		rollup_spill_rows(rb, pr->rows, pr->n);
		pr->n = 0;
		memset(pr->slots, 0, ((size_t)pr->mask + 1) * sizeof(uint32_t));
	}
	se->open = false;
	se->last = UINT32_MAX;
}

/* One sample into a row of its key: row_add() for a run of one, the sums
 * of its kind's estimate alone, each held at the top as there. */
static inline void row_add_one(struct brow *br, int kind, int64_t bytes,
			       int64_t rest, int64_t t)
{
	unsigned __int128 sq = (unsigned __int128)(uint64_t)bytes *
			       (uint64_t)bytes,
			  v = br->sq + sq;

	br->sq = v < sq ? SQ_MAX : v; /* the carry out */
	if (kind == SAMPLE_ALLOC) {
		int64_t a = rest > 0 ? rest : 0;
		unsigned __int128 asq =
			(unsigned __int128)(uint64_t)a * (uint64_t)a;

		v = br->est_sq + asq;
		br->est_sq = v < asq ? SQ_MAX : v;
		if (__builtin_add_overflow(br->est_a, a, &br->est_a))
			br->est_a = INT64_MAX;
	} else if (kind == SAMPLE_TLAB_OUTSIDE && bytes < br->est_a) {
		br->est_a = bytes;
	}
	row_add_counts(&br->r, 1, bytes, t, t);
}

static __attribute__((noinline)) void add_slow(struct rollup_builder *rb,
					       int kind,
					       const struct block_sample *s,
					       int64_t bytes);

void rollup_add(struct rollup_builder *rb, int kind,
		const struct block_sample *s)
{
	struct series *se;
	int64_t bytes = s->bytes == INT64_MIN ? 0 : s->bytes;

	if (kind < 0 || kind >= SAMPLE__COUNT ||
	    sample_kind_ht((enum sample_kind)kind))
		return;
	if (bytes < 0)
		rb->negative[kind] = true;
	/* 87% of samples (the 0.5 GB bench recording): the key of the
	 * series' last sample, in its open bucket; one row's sums, with no
	 * key built and no table */
	if (s->recording < rb->n_s[kind] && (se = rb->s[kind][s->recording]) &&
	    se->open && s->time_ns <= se->end && se->last != UINT32_MAX) {
		struct brow *br = &se->p[STORE_PROJ_FULL].rows[se->last];

		if (br->r.node == s->node && br->r.cls == s->cls &&
		    br->r.thread == s->thread && br->r.flags == s->flags) {
			row_add_one(br, kind, bytes, s->rest, s->time_ns);
			return;
		}
	}
	add_slow(rb, kind, s, bytes);
}

/* The rest: a new series, a bucket to close or open, a key to find. */
static __attribute__((noinline)) void add_slow(struct rollup_builder *rb,
					       int kind,
					       const struct block_sample *s,
					       int64_t bytes)
{
	struct series *se;

	if (s->recording >= rb->n_s[kind]) {
		uint32_t n = s->recording + 1, r;

		rb->s[kind] = xreallocarray(rb->s[kind], n, sizeof(void *));
		for (r = rb->n_s[kind]; r < n; r++)
			rb->s[kind][r] = NULL;
		rb->n_s[kind] = n;
	}
	se = rb->s[kind][s->recording];
	if (!se) {
		se = xcalloc(1, sizeof(*se));
		se->last = UINT32_MAX;
		se->origin = s->time_ns;
		se->width =
			s->recording < rb->n_recs
				? rollup_width(rb->recs[s->recording].start_ns,
					       rb->recs[s->recording].end_ns)
				: 1000000000ll;
		rb->s[kind][s->recording] = se;
	}
	if (se->open && s->time_ns > se->end)
		rollup_close_bucket(rb, se, kind, s->recording);
	if (!se->open) {
		int64_t w, m;

		/* the span so far gives a width no wider than the
		 * recording's, whose buckets it divides (the ladder) */
		if (rb->as_they_come)
			se->width = rollup_width(se->origin, s->time_ns);
		w = se->width;
		m = s->time_ns % w;

		if (m < 0)
			m += w;
		if (__builtin_sub_overflow(s->time_ns, m, &se->start))
			se->start = INT64_MIN;
		if (__builtin_add_overflow(se->start, w - 1, &se->end))
			se->end = INT64_MAX;
		se->open = true;
	}
	{
		struct store_rollup_row k;
		struct est_add ea = {0, 0, false};

		/* the corrected estimate's (struct store_rollup_est) */
		if (kind == SAMPLE_ALLOC) {
			int64_t r = s->rest > 0 ? s->rest : 0;

			ea.a = r;
			ea.sq = (unsigned __int128)(uint64_t)r * (uint64_t)r;
		} else if (kind == SAMPLE_TLAB_OUTSIDE) {
			ea.a = bytes;
			ea.least = true;
		}
		struct proj_rows *full = &se->p[STORE_PROJ_FULL];
		unsigned __int128 sq =
			(unsigned __int128)(uint64_t)bytes * (uint64_t)bytes;

		memset(&k, 0, sizeof(k));
		k.node = s->node; /* the trie's id at finish (normalize) */
		k.cls = s->cls;
		k.thread = s->thread;
		k.flags = s->flags;
		if (se->last != UINT32_MAX &&
		    same_key(&full->rows[se->last].r, &k))
			row_add(&full->rows[se->last], 1, bytes, sq, &ea,
				s->time_ns, s->time_ns);
		else
			se->last = rollup_proj_add(full, &k, 1, bytes, sq, &ea,
						   s->time_ns, s->time_ns);
	}
}
