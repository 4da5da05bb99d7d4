/*
 * The store's file as the commit writes it (store_write_out.h): sections fed
 * a few bytes at a time, checksummed on the way, buffered a MiB at a
 * time and written back while the rest is gathered; the rollups' sections
 * from their builder.
 */
#include "store/store_write_out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store_write_spill.h"
#include "util/crc32c.h"
#include "util/size.h"
#include "util/spool.h"
#include "util/workq.h"
#include "util/xalloc.h"

#define OUT_SYNC_STEP ((uint64_t)8 << 20)
#define OUT_WBUF      ((size_t)1 << 20)
/* what O_DIRECT asks of a write's buffer, offset and length (the most a
 * Linux file system does) */
#define OUT_DIRECT_ALIGN 4096

/* A write buffer, aligned as O_DIRECT asks. */
static unsigned char *out_buffer(void)
{
	unsigned char *b = aligned_alloc(OUT_DIRECT_ALIGN, OUT_WBUF);

	if (!b)
		die("out of memory for a buffer of %zu bytes", OUT_WBUF);
	return b;
}

/* One buffer's write at its place, on the writer's thread. */
struct out_wjob {
	int fd;
	unsigned char *buf;
	size_t len, done;
	uint64_t at;
	bool fail; /* a test's: as if the disk had refused it */
};

/* Direct mode's writes, OUT_AIO_DEPTH at a time on a thread of their
 * own: a direct write waits for the disk (1.1 ms a MiB here), and the
 * encoder need not.  Buffers: one being filled, the rest written or
 * free. */
#define OUT_AIO_DEPTH 3
struct out_aio {
	struct workq *q;
	struct out_wjob jobs[OUT_AIO_DEPTH];
	unsigned long long submitted;
	unsigned char *free[OUT_AIO_DEPTH];
	unsigned n_free;
	bool fell_back; /* a write failed: the page cache from here */
	unsigned long long fail_at; /* HEAPSIFT_STORE_DIRECT_FAIL: 1-based */
};

static void wjob_run(void *p)
{
	struct out_wjob *j = p;

	if (j->fail)
		return;
	while (j->done < j->len) {
		ssize_t n = pwrite(j->fd, j->buf + j->done, j->len - j->done,
				   (off_t)(j->at + j->done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* written again by the owner, who says why */
		j->done += (size_t)n;
	}
}

/* O_DIRECT on or off for fd; false when the file system refuses it
 * (tmpfs and others: the page cache, as before) or there is none. */
static bool fd_direct(int fd, bool on)
{
#ifdef O_DIRECT
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 &&
	       fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) == 0;
#else
	(void)fd;
	(void)on;
	return false;
#endif
}

bool out_direct(struct out *o)
{
#ifdef O_DIRECT
	const char *v = getenv("HEAPSIFT_STORE_DIRECT");
	struct out_aio *a;
	unsigned i;

	/* HEAPSIFT_STORE_DIRECT=0: through the page cache (measurements) */
	if ((v && !strcmp(v, "0")) || o->direct || o->pos % OUT_DIRECT_ALIGN ||
	    o->wlen)
		return false;
	if (!fd_direct(o->fd, true))
		return false;
	a = xcalloc(1, sizeof(*a));
	a->q = workq_new(1, OUT_AIO_DEPTH, wjob_run);
	/* HEAPSIFT_STORE_DIRECT_FAIL=N: the Nth direct write fails as a
	 * disk's would, once (tests: it is written again, and the store is
	 * whole) */
	v = getenv("HEAPSIFT_STORE_DIRECT_FAIL");
	a->fail_at = v ? strtoull(v, NULL, 10) : 0;
	for (i = 0; i < OUT_AIO_DEPTH; i++)
		a->free[a->n_free++] = out_buffer();
	o->aio = a;
	o->direct = true;
	return true;
#else
	(void)o;
	return false;
#endif
}

/* The oldest write back; one that failed is written again through the
 * page cache, which sets o->failed with the reason. */
static void take_back(struct out *o)
{
	struct out_aio *a = o->aio;
	struct out_wjob *j = workq_next(a->q);

	if (j->done != j->len) {
		uint64_t pos = o->pos;

		a->fell_back = true;
		(void)fd_direct(o->fd, false);
		o->direct = false;
		o->pos = j->at + j->done;
		out_pwrite(o, j->buf + j->done, j->len - j->done);
		if (!o->failed)
			o->pos = pos;
		o->direct = true; /* until out_end_direct */
	}
	a->free[a->n_free++] = j->buf;
}

void out_end_direct(struct out *o)
{
	struct out_aio *a = o->aio;

	if (!o->direct)
		return;
	while (workq_pending(a->q))
		take_back(o);
	workq_free(a->q);
	while (a->n_free)
		free(a->free[--a->n_free]);
	free(a);
	o->aio = NULL;
	o->direct = false;
	(void)fd_direct(o->fd, false);
}

/* The full buffer, at a multiple of its size, to the writer; an empty
 * one in its place. */
static void submit_direct(struct out *o)
{
	struct out_aio *a = o->aio;
	struct out_wjob *j;

	if (workq_full(a->q))
		take_back(o);
	j = &a->jobs[a->submitted++ % OUT_AIO_DEPTH];
	j->fd = o->fd;
	j->buf = o->wbuf;
	j->len = o->wlen;
	j->done = 0;
	j->at = o->pos - o->wlen;
	j->fail = a->submitted == a->fail_at;
	workq_submit(a->q, j);
	o->wbuf = a->free[--a->n_free];
	o->wlen = 0;
}

/* len bytes at pos, straight to the file (pos moves past them). */
void out_pwrite(struct out *o, const void *p, size_t len)
{
	const unsigned char *b = p;

	out_end_direct(o);
	while (len && !o->failed) {
		ssize_t n = pwrite(o->fd, b, len, (off_t)o->pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && !o->path) {
			/* a file without a name yet (store_write_stream.c) */
			err_set(o->e, ERR_IO,
				"store: writing the new store in %s: %s",
				o->target,
				n < 0 ? err_io_reason(errno) : "short write");
			o->failed = true;
			return;
		}
		if (n <= 0 && !*o->path) {
			/* a file without a name yet, its target known */
			err_set(o->e, ERR_IO,
				"store: writing %s (its new file, not named "
				"yet): %s",
				o->target,
				n < 0 ? err_io_reason(errno) : "short write");
			o->failed = true;
			return;
		}
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
void out_flush(struct out *o)
{
	size_t n = o->wlen;

	/* the file may be read after this, or closed */
	out_end_direct(o);
	if (!n)
		return;
	o->wlen = 0;
	o->pos -= n;
	out_pwrite(o, o->wbuf, n);
}

void out_write(struct out *o, const void *p, size_t len)
{
	if (o->failed || !len) /* an empty section's data may be NULL */
		return;
	if (!o->wbuf)
		o->wbuf = out_buffer();
	if (o->direct) {
		/* whole buffers only, each at a multiple of its size */
		const unsigned char *b = p;

		while (len && !o->failed) {
			size_t k = OUT_WBUF - o->wlen < len ? OUT_WBUF - o->wlen
							    : len;

			memcpy(o->wbuf + o->wlen, b, k);
			o->wlen += k;
			o->pos += k;
			b += k;
			len -= k;
			if (o->wlen < OUT_WBUF)
				continue;
			if (!o->aio->fell_back) {
				submit_direct(o);
				continue;
			}
			/* a write failed: the page cache from here */
			out_flush(o);
			out_write(o, b, len);
			return;
		}
		return;
	}
	if (len > OUT_WBUF - o->wlen)
		out_flush(o);
	if (len >= OUT_WBUF) {
		out_pwrite(o, p, len);
		return;
	}
	memcpy(o->wbuf + o->wlen, p, len);
	o->wlen += len;
	o->pos += len;
}

void out_pad(struct out *o)
{
	static const unsigned char zeros[STORE_ALIGN];

	if (o->pos % STORE_ALIGN)
		out_write(o, zeros, STORE_ALIGN - o->pos % STORE_ALIGN);
}

/* A section is begun, fed its bytes (checksummed on the way), ended. */
struct store_toc_entry *section_begin(struct out *o, uint32_t id,
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

void section_add(struct out *o, struct store_toc_entry *t, const void *data,
		 size_t len)
{
	t->crc = crc32c_update(t->crc, data, len);
	t->length += len;
	out_write(o, data, len);
#ifdef SYNC_FILE_RANGE_WRITE
	/* Start writing back what is complete while the rest is gathered:
	 * the fsync before the rename then waits for less.  Asynchronous,
	 * and only a hint: errors surface in that fsync. */
	if (!o->direct && o->pos - o->synced >= OUT_SYNC_STEP) {
		out_flush(o);
		(void)sync_file_range(o->fd, (off_t)o->synced,
				      (off_t)(o->pos - o->synced),
				      SYNC_FILE_RANGE_WRITE);
		o->synced = o->pos;
	}
#endif
}

void out_section(struct out *o, uint32_t id, const void *data, size_t rec_len,
		 size_t n)
{
	struct store_toc_entry *t;
	size_t len;

	if (!size_mul(rec_len, n, &len))
		die("store: section too large");
	t = section_begin(o, id, rec_len);
	section_add(o, t, data, len);
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
int out_rollups(struct out *o, struct rollup_builder *rb)
{
	static const uint32_t ids[2][4] = {
		{SEC_ROLLUP_BUCKETS, SEC_ROLLUP_ROWS, SEC_ROLLUP_SQUARES,
		 SEC_ROLLUP_EST},
		{SEC_WHOLE_BUCKETS, SEC_WHOLE_ROWS, SEC_WHOLE_SQUARES,
		 SEC_WHOLE_EST},
	};
	const struct store_rollup_bucket *b;
	size_t n;
	int level, rc;

	if (o->failed)
		return ERR_FAIL;
	rc = rollup_finish(rb, o->e);
	if (rc == ROLLUP_AGAIN)
		return rc;
	if (rc < 0) {
		o->failed = true;
		return ERR_FAIL;
	}
	for (level = 0; level < 2 && !o->failed; level++) {
		b = rollup_buckets(rb, level, &n);
		out_section(o, ids[level][0], b, sizeof(*b), n);
		section_begin(o, ids[level][1],
			      sizeof(struct store_rollup_row));
		if (rollup_write_rows(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
		if (o->failed)
			return ERR_FAIL;
		section_begin(o, ids[level][2], sizeof(struct store_rollup_sq));
		if (rollup_write_squares(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
		if (o->failed)
			return ERR_FAIL;
		section_begin(o, ids[level][3],
			      sizeof(struct store_rollup_est));
		if (rollup_write_est(rb, level, rows_out, o, o->e) < 0)
			o->failed = true;
	}
	return o->failed ? ERR_FAIL : 0;
}

void out_finish(struct out *o)
{
	struct store_header h;

	out_pad(o);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, STORE_MAGIC, STORE_MAGIC_LEN);
	h.major = STORE_MAJOR;
	h.minor = STORE_MINOR;
	h.header_len = STORE_HEADER_LEN;
	h.toc_offset = o->pos;
	h.n_sections = o->n_toc;
	h.toc_crc = crc32c_update(0, o->toc, o->n_toc * sizeof(o->toc[0]));
	out_write(o, o->toc, o->n_toc * sizeof(o->toc[0]));
	h.file_len = o->pos;
	h.header_crc = 0;
	h.header_crc = crc32c_update(0, &h, sizeof(h));
	out_flush(o);
	free(o->wbuf);
	o->wbuf = NULL;
	o->pos = 0; /* the header, over its room */
	out_pwrite(o, &h, sizeof(h));
}

/* The rollup builder's spill: a file with no name beside the store. */
int rollup_spill_open(const char *target, struct err *e)
{
	char *copy = xstrdup(target);
	const char *dir = dirname(copy);
	int fd = tmpfile_nameless(dir);

	if (fd < 0)
		err_set(e, ERR_IO,
			"store: cannot create a temporary file in %s: %s", dir,
			err_io_reason(errno));
	free(copy);
	return fd;
}

int fsync_dir(const char *path)
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
