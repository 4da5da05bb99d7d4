/*
 * The byte stream declared in input.h.  A pulled stream keeps one buffer;
 * peeking more than is buffered moves the unread bytes to the front and
 * pulls behind them, growing the buffer only when a caller asks to see
 * more than a block at once.
 */
#include "input/input.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/size.h"
#include "util/xalloc.h"

static void init_common(struct input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->name = name;
	in->line = 1;
	in->max_line = INPUT_MAX_LINE;
	in->pin = UINT64_MAX;
	in->limit = UINT64_MAX;
	err_init(&in->err);
	err_init(&in->limit_err);
}

void input_init_memory(struct input *in, const char *name, const void *data,
		       size_t len)
{
	init_common(in, name);
	in->data = data;
	in->end = len;
	in->eof = true;
}

void input_init_mapped(struct input *in, const char *name, void *map,
		       size_t len)
{
	input_init_memory(in, name, map, len);
	in->map = map;
	in->map_len = len;
}

/* Consumed pages of a mapping are dropped in steps of this much. */
#define DROP_STEP ((size_t)4 << 20)

static size_t page_size(void)
{
	static size_t page;

	if (!page) {
		long ps = sysconf(_SC_PAGESIZE);

		page = ps > 0 ? (size_t)ps : 4096;
	}
	return page;
}

static void drop_consumed(struct input *in)
{
	size_t page = page_size(), upto;

	upto = in->pos;
	/* the pin is a stream offset; pos is offset less what came before
	 * the mapping (nothing, for a mapped file) */
	if (in->pin < in->offset) {
		uint64_t behind = in->offset - in->pin;

		upto = behind > in->pos ? 0 : in->pos - (size_t)behind;
	}
	upto -= upto % page;
	if (upto > in->dropped) {
		/* a private read-only mapping: the pages stay in the page
		 * cache, and a later touch would just map them again */
		(void)madvise((char *)in->map + in->dropped, upto - in->dropped,
			      MADV_DONTNEED);
		in->dropped = upto;
	}
}

/* The most one read-ahead request reads: Linux caps a WILLNEED at the
 * device's read-ahead size (8 MB here), from the start of the range. */
#define PREFETCH_STEP ((size_t)2 << 20)

void input_prefetch(struct input *in, uint64_t offset, uint64_t len)
{
	size_t at, end;

	/* a mapped file's stream offsets are its own: nothing before; and
	 * nothing past its end, or its limit (input_limit) */
	if (!in->map || offset >= in->end)
		return;
	if (len > in->end - offset)
		len = in->end - offset;
	end = (size_t)(offset + len);
	at = (size_t)offset > in->prefetched ? (size_t)offset : in->prefetched;
	at -= at % page_size();
	for (; at < end; at += PREFETCH_STEP) {
		size_t n = end - at < PREFETCH_STEP ? end - at : PREFETCH_STEP;

#ifdef MADV_WILLNEED
		(void)madvise((char *)in->map + at, n, MADV_WILLNEED);
#endif
	}
	if (end > in->prefetched)
		in->prefetched = end;
}

void input_pin(struct input *in, uint64_t offset)
{
	bool later = offset > in->pin;

	in->pin = offset;
	if (later && in->map && in->pos - in->dropped >= DROP_STEP)
		drop_consumed(in);
}

void input_init_pull(struct input *in, const char *name, input_pull_fn fn,
		     void *ctx, size_t block)
{
	init_common(in, name);
	in->pull = fn;
	in->pull_ctx = ctx;
	in->own_size = block ? block : INPUT_BLOCK;
	in->own = xmalloc(in->own_size);
	in->data = in->own;
}

void input_release(struct input *in)
{
	if (in->map)
		munmap(in->map, in->map_len);
	in->map = NULL;
	free(in->own);
	in->own = NULL;
	in->data = NULL;
	in->pos = in->end = 0;
}

void input_track_lines(struct input *in)
{
	in->track_lines = true;
}

static int fail(struct input *in)
{
	in->failed = true;
	if (!in->err.source[0])
		err_source(&in->err, in->name);
	return ERR_FAIL;
}

void input_limit(struct input *in, uint64_t at, const struct err *e)
{
	size_t have = in->end - in->pos;

	if (at < in->offset)
		at = in->offset;
	in->limit = at;
	in->limit_err = *e;
	if (in->failed || (uint64_t)have <= at - in->offset)
		return;
	/* buffered (or mapped) bytes past at: cut off, and known to be
	 * there, so asking for more fails at once */
	in->end = in->pos + (size_t)(at - in->offset);
	in->over_limit = true;
	in->eof = false;
}

/* The stream's end at its limit, with bytes past it. */
static int over_limit(struct input *in)
{
	in->err = in->limit_err;
	return fail(in);
}

int input_peek(struct input *in, size_t want, const unsigned char **p,
	       size_t *avail)
{
	while (in->end - in->pos < want && !in->eof && !in->failed) {
		size_t have = in->end - in->pos, got = 0, room;
		/* room left before the limit (none set: UINT64_MAX) */
		uint64_t left = in->limit - in->offset - have;

		if (in->over_limit || !in->pull) {
			/* a memory stream is eof unless cut by its limit */
			over_limit(in);
			break;
		}

		/* Unread bytes to the front when what is asked would not fit
		 * behind them, or when too little room is left to pull. */
		if (in->pos && (in->own_size - in->pos < want ||
				in->own_size - in->end < INPUT_BLOCK / 4)) {
			memmove(in->own, in->own + in->pos, have);
			in->pos = 0;
			in->end = have;
		}
		if (in->own_size < want || in->own_size == in->end) {
			size_t size = in->own_size > want ? in->own_size : want;

			if (!size_add(size, INPUT_BLOCK, &size))
				die("input buffer of %zu bytes overflows",
				    want);
			in->own = xrealloc(in->own, size);
			in->own_size = size;
			in->data = in->own;
		}
		room = in->own_size - in->end;
		/* at the limit, one more pull says whether there is more */
		if (left && room > left)
			room = (size_t)left;
		if (in->pull(in->pull_ctx, in->own + in->end, room, &got,
			     &in->err) < 0) {
			fail(in);
			break;
		}
		if (got && !left) {
			over_limit(in);
			break;
		}
		if (!got)
			in->eof = true;
		in->end += got;
	}
	*p = in->data + in->pos;
	*avail = in->end - in->pos;
	if (in->failed && *avail < want)
		return ERR_FAIL;
	return 0;
}

void input_consume(struct input *in, size_t n)
{
	if (n > in->end - in->pos)
		BUG("input_consume(%zu) beyond %zu buffered bytes", n,
		    in->end - in->pos);
	if (in->track_lines) {
		const unsigned char *s = in->data + in->pos, *e = s + n;

		while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
			in->line++;
			s++;
		}
	}
	in->pos += n;
	in->offset += n;
	if (in->map && in->pos - in->dropped >= DROP_STEP)
		drop_consumed(in);
}

int input_read(struct input *in, void *dst, size_t len, size_t *got)
{
	unsigned char *d = dst;
	size_t done = 0;

	while (done < len) {
		const unsigned char *p;
		size_t avail, n;

		if (input_peek(in, 1, &p, &avail) < 0) {
			*got = done;
			return ERR_FAIL;
		}
		if (!avail)
			break;
		n = avail < len - done ? avail : len - done;
		memcpy(d + done, p, n);
		input_consume(in, n);
		done += n;
	}
	*got = done;
	return 0;
}

int input_skip(struct input *in, uint64_t n, uint64_t *skipped)
{
	uint64_t done = 0;

	while (done < n) {
		const unsigned char *p;
		size_t avail, k;

		if (input_peek(in, 1, &p, &avail) < 0) {
			*skipped = done;
			return ERR_FAIL;
		}
		if (!avail)
			break;
		k = n - done < avail ? (size_t)(n - done) : avail;
		input_consume(in, k);
		done += k;
	}
	*skipped = done;
	return 0;
}

int input_line(struct input *in, const char **line, size_t *len)
{
	size_t scanned = 0;

	in->track_lines = true;
	for (;;) {
		const unsigned char *p, *nl;
		size_t avail, n;

		if (input_peek(in, scanned + 1, &p, &avail) < 0)
			return ERR_FAIL;
		if (!avail)
			return 1;
		nl = memchr(p + scanned, '\n', avail - scanned);
		if (nl || in->eof) {
			n = nl ? (size_t)(nl - p) : avail;
			if (n > in->max_line) {
				err_set_line(&in->err, ERR_FORMAT, in->line, 0,
					     "line longer than %zu bytes",
					     in->max_line);
				return fail(in);
			}
			*line = (const char *)p;
			*len = n && p[n - 1] == '\r' ? n - 1 : n;
			/* consume counts the newline itself */
			input_consume(in, nl ? n + 1 : n);
			return 0;
		}
		scanned = avail;
		if (scanned > in->max_line) {
			err_set_line(&in->err, ERR_FORMAT, in->line, 0,
				     "line longer than %zu bytes",
				     in->max_line);
			return fail(in);
		}
	}
}
