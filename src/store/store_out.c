/*
 * The store's file as the commit writes it (store_out.h): sections fed
 * a few bytes at a time, checksummed on the way, buffered a MiB at a
 * time and written back while the rest is gathered; the rollups' sections
 * from their builder.
 */
#include "store/store_out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/spill.h"
#include "util/crc32c.h"
#include "util/size.h"
#include "util/xalloc.h"

#define OUT_SYNC_STEP ((uint64_t)8 << 20)
#define OUT_WBUF      ((size_t)1 << 20)

/* len bytes at pos, straight to the file (pos moves past them). */
void out_pwrite(struct out *o, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len && !o->failed) {
		ssize_t n = pwrite(o->fd, b, len, (off_t)o->pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 && !o->path) {
			/* a file without a name yet (store_stream.c) */
			err_set(o->e, ERR_IO,
				"store: writing the new store in %s: %s",
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
	if (o->pos - o->synced >= OUT_SYNC_STEP) {
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
	int fd = spill_tmpfile(dir);

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
