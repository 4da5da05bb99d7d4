/*
 * The rollup builder (store_write_rollup.h).  A series is one kind of one recording;
 * it has one open bucket at a time (samples come in time order), and
 * under each projection a small open-addressing table from key to row.
 * When a sample falls past the open bucket, each projection's rows are
 * sorted by key, checksummed and spilled, and only the bucket's record
 * stays in memory.  It does not choose what the readers do with the
 * rows, nor check them: store_read_rollup.c does.
 */
#include "store/store_write_rollup.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crc32c.h"
#include "util/xalloc.h"

/* A row as it is built: the row, the sum of its samples' squared bytes
 * (2.2) and the corrected estimate's sums (2.3, struct store_rollup_est:
 * est_a, est_sq), which go to three sections. */
struct brow {
	struct store_rollup_row r; /* first: key_cmp() reads it */
	unsigned __int128 sq, est_sq;
	int64_t est_a;
};

/* What a run of samples adds to a row besides the row's own sums. */
struct est_add {
	int64_t a;	      /* rests (a sum), or the least bytes */
	unsigned __int128 sq; /* the rests' squares */
	bool least;	      /* a is a minimum (OutsideTLAB events) */
};

#define SQ_MAX (~(unsigned __int128)0)

struct proj_rows {
	struct brow *rows;
	uint32_t n, alloc;
	uint32_t *slots; /* row + 1; 0: empty */
	uint32_t mask;	 /* slots - 1, a power of two minus one */
};

struct series {
	bool open;
	int64_t start, end; /* the open bucket, end inclusive */
	int64_t width;
	int64_t origin; /* its first sample's time: widths as they go */
	struct proj_rows p[STORE_PROJ__COUNT];
	/* the full row the last sample went to (UINT32_MAX: none): the
	 * next sample of a series has its key 87% of the time (the 0.5 GB
	 * bench recording), and goes there without a hash */
	uint32_t last;
};

struct rollup_builder {
	const struct store_recording *recs;
	uint32_t n_recs;
	/* the recordings were not known when the samples came (the writer
	 * encodes them as they arrive): each series' width was chosen from
	 * its samples' span so far, and finish puts the rows on the
	 * recordings' own widths (normalize()) */
	bool as_they_come;
	const uint32_t *node_map; /* rollup_builder_set_node_map()'s */
	uint32_t n_map;
	struct series **s[SAMPLE__COUNT]; /* [kind][recording], lazily */
	uint32_t n_s[SAMPLE__COUNT];
	bool negative[SAMPLE__COUNT];
	/* closed buckets; first_row is the spill's row until finish */
	struct store_rollup_bucket *b;
	uint64_t *spill_row; /* after finish: each bucket's row in the spill */
	size_t n_b, alloc_b;
	/* the whole recordings' buckets (3.1), made by finish: the same */
	struct store_rollup_bucket *wb;
	uint64_t *w_spill_row;
	size_t n_wb, alloc_wb;
	int fd;
	/* the spilled rows: in mem while they fit ROLLUP_MEM_MAX (or when
	 * there is no fd), else in the file, written through wbuf */
	struct brow *mem;
	uint64_t n_rows, alloc_mem;
	bool in_file;
	uint64_t mem_max; /* ROLLUP_MEM_MAX, or the environment's */
	struct brow *wbuf;
	uint32_t wlen; /* rows in wbuf, not yet written */
	bool failed;
	int err_no;
};

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

static int key_cmp(const void *a, const void *b)
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

/* Add to k's row a run of samples: one sample as it arrives, or a row of
 * the full projection folded into a narrower one when its bucket closes.
 * The row's index (it stays until the bucket closes). */
static uint32_t proj_add(struct proj_rows *pr, const struct store_rollup_row *k,
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
			proj_add(&se->p[p], &k, r->samples, r->bytes,
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
static void wbuf_flush(struct rollup_builder *rb)
{
	if (rb->wlen)
		file_write(rb, rb->wbuf, rb->wlen, rb->n_rows - rb->wlen);
	rb->wlen = 0;
}

static void spill(struct rollup_builder *rb, const struct brow *r, uint32_t n)
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
			rb->alloc_mem = (rb->n_rows + n) * 2;
			rb->mem = xreallocarray(rb->mem, rb->alloc_mem,
						sizeof(*rb->mem));
		}
		memcpy(rb->mem + rb->n_rows, r, (size_t)n * sizeof(*r));
		rb->n_rows += n;
		return;
	}
	if (rb->wlen + n > ROLLUP_WBUF_ROWS)
		wbuf_flush(rb);
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
static void close_bucket(struct rollup_builder *rb, struct series *se, int kind,
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
		qsort(pr->rows, pr->n, sizeof(*pr->rows), key_cmp);
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
		spill(rb, pr->rows, pr->n);
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

	if (kind < 0 || kind >= SAMPLE__COUNT || kind == SAMPLE_AGENT)
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
		close_bucket(rb, se, kind, s->recording);
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
			se->last = proj_add(full, &k, 1, bytes, sq, &ea,
					    s->time_ns, s->time_ns);
	}
}

static int bucket_cmp(const void *a, const void *b)
{
	const struct store_rollup_bucket *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->proj != y->proj)
		return x->proj < y->proj ? -1 : 1;
	if (x->recording != y->recording)
		return x->recording < y->recording ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* n rows from the spill's row at: in memory, or read into *buf. */
static const struct brow *spilled_rows(struct rollup_builder *rb, uint64_t at,
				       uint32_t n, struct brow **buf,
				       uint32_t *alloc)
{
	size_t len = (size_t)n * sizeof(**buf), done = 0;

	if (!rb->in_file)
		return rb->mem + at;
	if (n > *alloc) {
		*alloc = n;
		*buf = xreallocarray(*buf, n, sizeof(**buf));
	}
	while (done < len) {
		ssize_t got = pread(rb->fd, (char *)*buf + done, len - done,
				    (off_t)(at * sizeof(**buf) + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rb->failed = true;
			rb->err_no = got < 0 ? errno : EIO;
			return NULL;
		}
		done += (size_t)got;
	}
	return *buf;
}

/* Bucket b's rows added into pr, their nodes through map (NULL: as
 * they are); false when they could not be read back. */
static bool merge_rows(struct rollup_builder *rb, struct proj_rows *pr,
		       const struct store_rollup_bucket *b, const uint32_t *map,
		       uint32_t n_map, struct brow **buf, uint32_t *alloc)
{
	const struct brow *r =
		spilled_rows(rb, b->first_row, b->n_rows, buf, alloc);
	uint32_t k;

	if (!r)
		return false;
	for (k = 0; k < b->n_rows; k++) {
		struct est_add ea = {r[k].est_a, r[k].est_sq,
				     b->kind == SAMPLE_TLAB_OUTSIDE};
		struct store_rollup_row key = r[k].r;

		if (map && key.node < n_map)
			key.node = map[key.node];
		proj_add(pr, &key, key.samples, key.bytes, r[k].sq, &ea,
			 key.first_ns, key.last_ns);
	}
	return true;
}

/* pr's rows, sorted and checksummed, spilled as the bucket *b (whose
 * kind, projection, recording, times and samples the caller set); pr
 * emptied for the next. */
static void spill_merged(struct rollup_builder *rb, struct proj_rows *pr,
			 struct store_rollup_bucket *b)
{
	uint32_t k;

	qsort(pr->rows, pr->n, sizeof(*pr->rows), key_cmp);
	b->first_row = rb->n_rows;
	b->n_rows = pr->n;
	b->crc = 0;
	for (k = 0; k < pr->n; k++)
		b->crc = crc32c_update(b->crc, &pr->rows[k].r,
				       sizeof(pr->rows[k].r));
	spill(rb, pr->rows, pr->n);
	pr->n = 0;
	if (pr->slots)
		memset(pr->slots, 0, ((size_t)pr->mask + 1) * sizeof(uint32_t));
}

/*
 * The whole recordings' rollups (3.1): the rows of each kind, projection
 * and recording merged over its buckets, which a window holding the
 * whole recording reads instead of a row per key and bucket (on the
 * synthetic store of store_bench, 3.38 M rows of the node projection
 * against 667,000).  Rows of every bucket are sums and extremes that do
 * not depend on order (proj_add), so a view that adds up the whole
 * recording's row gets what it got from the buckets' rows.  A recording
 * with one bucket, or whose rows would merge to more than half of them,
 * gets none: readers take the buckets.  The memory is one recording's
 * distinct keys under one projection at a time; the rows go to the
 * spill after the buckets'.
 */
static void build_whole(struct rollup_builder *rb)
{
	struct proj_rows pr;
	struct brow *buf = NULL;
	uint32_t alloc = 0;
	size_t i = 0, j, n_fine = rb->n_b;

	memset(&pr, 0, sizeof(pr));
	while (i < n_fine && !rb->failed) {
		const struct store_rollup_bucket g = rb->b[i];
		uint64_t fine_rows = 0, samples = 0;

		for (j = i; j < n_fine && rb->b[j].kind == g.kind &&
			    rb->b[j].proj == g.proj &&
			    rb->b[j].recording == g.recording;
		     j++) {
			if (!merge_rows(rb, &pr, &rb->b[j], NULL, 0, &buf,
					&alloc))
				break;
			fine_rows += rb->b[j].n_rows;
			samples += rb->b[j].samples;
		}
		if (j - i > 1 && (uint64_t)pr.n * 2 <= fine_rows &&
		    !rb->failed) {
			struct store_rollup_bucket *w;

			if (rb->n_wb == rb->alloc_wb) {
				rb->alloc_wb =
					rb->alloc_wb ? rb->alloc_wb * 2 : 64;
				rb->wb = xreallocarray(rb->wb, rb->alloc_wb,
						       sizeof(*rb->wb));
			}
			w = &rb->wb[rb->n_wb++];
			memset(w, 0, sizeof(*w));
			w->kind = g.kind;
			w->proj = g.proj;
			w->recording = g.recording;
			w->start_ns = g.start_ns;
			w->end_ns = rb->b[j - 1].end_ns;
			w->samples = samples;
			spill_merged(rb, &pr, w);
		}
		pr.n = 0;
		if (pr.slots)
			memset(pr.slots, 0,
			       ((size_t)pr.mask + 1) * sizeof(uint32_t));
		i = j;
	}
	free(pr.rows);
	free(pr.slots);
	free(buf);
	if (rb->in_file)
		wbuf_flush(rb);
}

/* The bucket of width w that holds t, as rollup_add() opens it. */
static void bucket_of(int64_t t, int64_t w, int64_t *start, int64_t *end)
{
	int64_t m = t % w;

	if (m < 0)
		m += w;
	if (__builtin_sub_overflow(t, m, start))
		*start = INT64_MIN;
	if (__builtin_add_overflow(*start, w - 1, end))
		*end = INT64_MAX;
}

static int bucket_key_cmp(const void *a, const void *b)
{
	const struct store_rollup_bucket *x = a, *y = b;
	int c = x->kind != y->kind   ? (x->kind < y->kind ? -1 : 1)
		: x->proj != y->proj ? (x->proj < y->proj ? -1 : 1)
		: x->recording != y->recording
			? (x->recording < y->recording ? -1 : 1)
			: 0;

	if (c)
		return c;
	/* buckets of one cell may overlap (widths grew as samples came):
	 * by start, then by end, so that the order is a total one */
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

/*
 * Rows built before the recordings were known (as_they_come) or keyed
 * by the writer's node ids (a node map): each kind, projection and
 * recording's buckets are put on the recording's own width, the rows of
 * the buckets that fall in one of its buckets merged by key (sums and
 * extremes, which do not depend on order: the rows are those the samples
 * would have made there), their nodes mapped.  A bucket that is already
 * one of the recording's, whose rows need no map, stays as it is.
 * 1 when a bucket is wider than its recording's (a sample outside the
 * recording's span widened it): the rows cannot be split, and the
 * caller builds them again from the samples.
 */
static int normalize(struct rollup_builder *rb)
{
	struct store_rollup_bucket *nb = NULL;
	size_t n_nb = 0, alloc_nb = 0, i = 0, j, n = rb->n_b;
	struct proj_rows pr;
	struct brow *buf = NULL;
	uint32_t alloc = 0;
	int rc = 0;

	if (!rb->as_they_come && !rb->node_map)
		return 0;
	if (n > 1)
		qsort(rb->b, n, sizeof(*rb->b), bucket_key_cmp);
	memset(&pr, 0, sizeof(pr));
	while (i < n && !rb->failed && !rc) {
		const struct store_rollup_bucket g = rb->b[i];
		int64_t w =
			g.recording < rb->n_recs
				? rollup_width(rb->recs[g.recording].start_ns,
					       rb->recs[g.recording].end_ns)
				: 1000000000ll;
		int64_t start, end;
		bool map = rb->node_map && (g.proj == STORE_PROJ_FULL ||
					    g.proj == STORE_PROJ_NODE);
		uint64_t samples = 0;

		bucket_of(g.start_ns, w, &start, &end);
		for (j = i; j < n && rb->b[j].kind == g.kind &&
			    rb->b[j].proj == g.proj &&
			    rb->b[j].recording == g.recording &&
			    rb->b[j].start_ns <= end;
		     j++)
			if (rb->b[j].end_ns > end) {
				rc = 1;
				break;
			}
		if (rc)
			break;
		if (n_nb == alloc_nb) {
			alloc_nb = alloc_nb ? alloc_nb * 2 : 256;
			nb = xreallocarray(nb, alloc_nb, sizeof(*nb));
		}
		if (j == i + 1 && g.start_ns == start && g.end_ns == end &&
		    !map) {
			nb[n_nb++] = g;
			i = j;
			continue;
		}
		for (; i < j; i++) {
			if (!merge_rows(rb, &pr, &rb->b[i],
					map ? rb->node_map : NULL, rb->n_map,
					&buf, &alloc))
				break;
			samples += rb->b[i].samples;
		}
		if (rb->failed)
			break;
		{
			struct store_rollup_bucket *b = &nb[n_nb++];

			memset(b, 0, sizeof(*b));
			b->kind = g.kind;
			b->proj = g.proj;
			b->recording = g.recording;
			b->start_ns = start;
			b->end_ns = end;
			b->samples = samples;
			spill_merged(rb, &pr, b);
		}
	}
	free(pr.rows);
	free(pr.slots);
	free(buf);
	if (rc || rb->failed) {
		free(nb);
		return rc;
	}
	free(rb->b);
	rb->b = nb;
	rb->n_b = n_nb;
	rb->alloc_b = alloc_nb;
	return 0;
}

int rollup_finish(struct rollup_builder *rb, struct err *e)
{
	size_t i, n = 0;
	uint64_t row = 0;
	int k;
	uint32_t r;

	for (k = 0; k < SAMPLE__COUNT; k++)
		for (r = 0; r < rb->n_s[k]; r++)
			if (rb->s[k][r] && rb->s[k][r]->open)
				close_bucket(rb, rb->s[k][r], k, r);
	if (rb->in_file)
		wbuf_flush(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: writing the rollups: %s",
			       strerror(rb->err_no));
	if (normalize(rb) > 0)
		return ROLLUP_AGAIN;
	if (rb->in_file)
		wbuf_flush(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: writing the rollups: %s",
			       strerror(rb->err_no));
	/* a projection with more rows than half its samples (keys that
	 * hardly repeat, as in a synthetic store of random ones) would
	 * make the store bigger for little gain: left out, its views read
	 * the samples or another projection */
	{
		uint64_t rows[SAMPLE__COUNT][STORE_PROJ__COUNT] = {{0}};
		uint64_t smp[SAMPLE__COUNT][STORE_PROJ__COUNT] = {{0}};

		for (i = 0; i < rb->n_b; i++) {
			rows[rb->b[i].kind][rb->b[i].proj] += rb->b[i].n_rows;
			smp[rb->b[i].kind][rb->b[i].proj] += rb->b[i].samples;
		}
		for (i = 0; i < rb->n_b; i++) {
			const struct store_rollup_bucket *x = &rb->b[i];

			if (!rb->negative[x->kind] &&
			    rows[x->kind][x->proj] * 2 <= smp[x->kind][x->proj])
				rb->b[n++] = *x;
		}
	}
	rb->n_b = n;
	if (n > 1)
		qsort(rb->b, n, sizeof(*rb->b), bucket_cmp);
	build_whole(rb);
	if (rb->failed)
		return err_set(e, ERR_IO, "store: the rollups' spill file: %s",
			       strerror(rb->err_no));
	rb->spill_row = xmalloc((n ? n : 1) * sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		rb->spill_row[i] = rb->b[i].first_row;
		rb->b[i].first_row = row;
		row += rb->b[i].n_rows;
	}
	rb->w_spill_row = xmalloc((rb->n_wb ? rb->n_wb : 1) * sizeof(uint64_t));
	for (i = 0, row = 0; i < rb->n_wb; i++) {
		rb->w_spill_row[i] = rb->wb[i].first_row;
		rb->wb[i].first_row = row;
		row += rb->wb[i].n_rows;
	}
	return 0;
}

const struct store_rollup_bucket *
rollup_buckets(const struct rollup_builder *rb, int level, size_t *n)
{
	*n = level ? rb->n_wb : rb->n_b;
	return level ? rb->wb : rb->b;
}

enum part { PART_ROWS, PART_SQUARES, PART_EST };

static size_t part_len(enum part what)
{
	switch (what) {
	case PART_SQUARES:
		return sizeof(struct store_rollup_sq);
	case PART_EST:
		return sizeof(struct store_rollup_est);
	default:
		return sizeof(struct store_rollup_row);
	}
}

/* Each bucket's rows, their squares or their estimate sums, in the
 * buckets' order, a bucket at a time. */
static int write_part(struct rollup_builder *rb, int level, enum part what,
		      rollup_write_fn *fn, void *ctx, struct err *e)
{
	const struct store_rollup_bucket *b = level ? rb->wb : rb->b;
	const uint64_t *spill_row = level ? rb->w_spill_row : rb->spill_row;
	size_t n_b = level ? rb->n_wb : rb->n_b;
	struct brow *buf = NULL;
	unsigned char *part = NULL;
	uint32_t buf_alloc = 0;
	size_t alloc = 0, i;

	for (i = 0; i < n_b; i++) {
		const struct brow *from;
		uint32_t j;

		if (b[i].n_rows > alloc) {
			alloc = b[i].n_rows;
			part = xreallocarray(part, alloc,
					     sizeof(struct store_rollup_row));
			static_assert(sizeof(struct store_rollup_row) >=
					      sizeof(struct store_rollup_est),
				      "a part's record fits a row's room");
		}
		from = spilled_rows(rb, spill_row[i], b[i].n_rows, &buf,
				    &buf_alloc);
		if (!from) {
			free(buf);
			free(part);
			return err_set(e, ERR_IO,
				       "store: reading the rollups back: %s",
				       strerror(rb->err_no));
		}
		for (j = 0; j < b[i].n_rows; j++) {
			if (what == PART_SQUARES) {
				struct store_rollup_sq q = {
					(uint64_t)from[j].sq,
					(uint64_t)(from[j].sq >> 64)};

				memcpy(part + (size_t)j * sizeof(q), &q,
				       sizeof(q));
			} else if (what == PART_EST) {
				struct store_rollup_est q = {
					from[j].est_a, (uint64_t)from[j].est_sq,
					(uint64_t)(from[j].est_sq >> 64)};

				memcpy(part + (size_t)j * sizeof(q), &q,
				       sizeof(q));
			} else {
				memcpy(part + (size_t)j * sizeof(from[j].r),
				       &from[j].r, sizeof(from[j].r));
			}
		}
		fn(ctx, part, (size_t)b[i].n_rows * part_len(what));
	}
	free(buf);
	free(part);
	return 0;
}

int rollup_write_rows(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		      void *ctx, struct err *e)
{
	return write_part(rb, level, PART_ROWS, fn, ctx, e);
}

int rollup_write_squares(struct rollup_builder *rb, int level,
			 rollup_write_fn *fn, void *ctx, struct err *e)
{
	return write_part(rb, level, PART_SQUARES, fn, ctx, e);
}

int rollup_write_est(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		     void *ctx, struct err *e)
{
	return write_part(rb, level, PART_EST, fn, ctx, e);
}
