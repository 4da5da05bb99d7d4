/*
 * One readable byte stream: a file, standard input, or a member of an
 * archive, already decompressed.  Importers and probes read through it
 * and never do I/O themselves (libarchive's read-ahead model).
 *
 * A stream is either a borrowed memory buffer (tests, fuzzing, slurped
 * archive members) or pulled block by block from a callback (the
 * libarchive walker).  Either way it offers peek (look ahead without
 * consuming), consume, read and line iteration, and it tracks the byte
 * offset and, when asked, the line number, so that every error can say
 * where it happened.
 *
 * Errors are sticky: once the callback fails, every later call fails with
 * the same struct err, which names the stream (its display name).
 */
#ifndef HS_INPUT_H
#define HS_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct input;

/*
 * Pull up to room bytes into dst.  Store the count in *got; 0 with a
 * zero return means end of stream.  On failure fill e and return <0.
 */
typedef int (*input_pull_fn)(void *ctx, unsigned char *dst, size_t room,
			     size_t *got, struct err *e);

struct input {
	const char *name;	   /* display name, borrowed */
	const unsigned char *data; /* the window: data[pos..end) is buffered */
	size_t pos, end;
	unsigned char *own; /* owned buffer for pulled streams */
	size_t own_size;
	input_pull_fn pull; /* NULL for memory streams */
	void *pull_ctx;
	uint64_t offset; /* stream offset of data[pos] */
	bool eof;	 /* the pull said end of stream */
	bool failed;	 /* sticky; see err */
	bool reported;	 /* the walker has reported the failure */
	bool track_lines;
	unsigned line;	 /* 1-based line of data[pos], if tracked */
	size_t max_line; /* input_line() refuses longer lines */
	struct err err;
	void *map; /* input_init_mapped: the mapping, unmapped on release */
	size_t map_len;
	size_t dropped;	   /* pages before this offset have been let go */
	size_t prefetched; /* read ahead up to here (input_prefetch) */
	uint64_t pin;	   /* stream offset: pages from here on are kept */
	uint64_t limit;	   /* input_limit(): the stream ends here */
	bool over_limit;   /* bytes past limit are known to exist */
	struct err limit_err;
};

#define INPUT_BLOCK    (64 * 1024)
#define INPUT_MAX_LINE (1024 * 1024)

/* A stream over len borrowed bytes, which must outlive the input. */
void input_init_memory(struct input *in, const char *name, const void *data,
		       size_t len);
/*
 * A whole regular file mapped read-only (the walker maps plain files:
 * no copy through a buffer).  The input owns the mapping and unmaps it
 * on release; pages behind what is consumed are let go as it goes, so
 * resident memory follows the reader's window, not the file's size.
 */
void input_init_mapped(struct input *in, const char *name, void *map,
		       size_t len);
/* A stream pulled from fn, with a buffer of block bytes (0: default). */
void input_init_pull(struct input *in, const char *name, input_pull_fn fn,
		     void *ctx, size_t block);
void input_release(struct input *in);

/*
 * Whether the bytes input_peek() shows stay where they are, and keep
 * their values, after they are consumed: a memory or mapped stream
 * (until input_release()).  A pulled stream reuses its buffer.
 */
static inline bool input_is_stable(const struct input *in)
{
	return !in->pull;
}
/*
 * Keep the pages of a mapped stream from stream offset on (UINT64_MAX:
 * none), though consumed: bytes a thread still reads after the reader
 * has moved on (the JFR importer's chunks in flight).  Pages behind the
 * pin and the reader are let go as before.
 */
void input_pin(struct input *in, uint64_t offset);

/*
 * Ask for bytes [offset, offset + len) of a mapped stream to be read in
 * the background: a file that is not in the page cache is then read
 * while the bytes before it are decoded, not a page fault at a time by
 * the thread that needs them.  A hint: it does nothing for other streams
 * and nothing past the end.
 */
void input_prefetch(struct input *in, uint64_t offset, uint64_t len);

/*
 * Let the stream have at most at bytes (a stream offset, counted from its
 * start, however it is read): one longer ends there with failure e (its
 * source set to the stream's name if empty), sticky as any other,
 * after every byte before at has been read.  A stream of exactly at bytes
 * is whole.  A pulled stream pulls nothing past at but one look to see
 * whether there is more; a mapped one keeps its mapping, and its bytes
 * stay stable (input_is_stable).  Bytes already consumed past at, if
 * any, stay consumed: call it before reading.
 */
void input_limit(struct input *in, uint64_t at, const struct err *e);

/* Count lines from here on (text importers); costs a memchr per consume. */
void input_track_lines(struct input *in);

/*
 * Make up to want bytes visible without consuming them.  *p and *avail
 * describe what is buffered (borrowed, valid until the next call on in);
 * *avail < want only at end of stream.  Returns 0, or <0 on failure (see
 * input_error()).  Bytes already buffered are returned even when a later
 * pull failed; the failure shows on the call that needs more.
 */
int input_peek(struct input *in, size_t want, const unsigned char **p,
	       size_t *avail);
/* Drop n bytes that input_peek() made visible (n <= *avail). */
void input_consume(struct input *in, size_t n);

/* Copy up to len bytes; *got < len only at end of stream.  0 or <0. */
int input_read(struct input *in, void *dst, size_t len, size_t *got);
/* Skip up to n bytes; *skipped < n only at end of stream.  0 or <0. */
int input_skip(struct input *in, uint64_t n, uint64_t *skipped);

/*
 * Next line without its "\n" (and without a "\r" before it); *line is
 * borrowed until the next call.  Returns 0, 1 at end of stream, <0 on
 * failure or when a line exceeds max_line bytes.  Turns line tracking on.
 */
int input_line(struct input *in, const char **line, size_t *len);

static inline uint64_t input_offset(const struct input *in)
{
	return in->offset;
}
static inline const struct err *input_error(const struct input *in)
{
	return in->failed ? &in->err : NULL;
}

#endif
