/*
 * Error reports that say where.
 *
 * Functions that can fail return int: 0 on success, a negative status on
 * failure (the return value of err_set(), so that "return err_set(...)"
 * reads well, as git's error() does), a positive value for end of stream.
 * The details go into a caller-owned struct err: what kind of failure,
 * the message, the source (a display name such as
 * "case.tar.gz!logs/app.zip!rec.jfr"), and the byte offset or line.
 *
 * A struct err holds no heap memory; it can be copied and discarded.
 * Long messages and names are cut, with "..." marking the cut.
 */
#ifndef HS_ERR_H
#define HS_ERR_H

#include <stdbool.h>
#include <stdint.h>

struct buf;

enum err_code {
	ERR_NONE = 0,
	ERR_IO,	    /* the operating system said no: open, read, stat */
	ERR_FORMAT, /* the bytes are not what the format says: damaged input */
	ERR_TRUNC,  /* the input ends early: cut short, unfinished */
	ERR_LIMIT,  /* a safety limit was hit (size, ratio, depth, count) */
	ERR_USAGE,  /* the user asked for something impossible */
	ERR_UNSUPPORTED, /* valid, but not something heapsift reads */
	ERR_NOT_READ,	 /* data in a recording that no reader takes: said
			 once, a note, never damage (the exit status) */
};

/* Negative status values returned alongside an err. */
#define ERR_FAIL (-1)

#define ERR_MSG_MAX    512
#define ERR_SOURCE_MAX 1024
#define ERR_NO_OFFSET  UINT64_MAX

struct err {
	enum err_code code;
	uint64_t offset; /* ERR_NO_OFFSET when not known */
	unsigned line;	 /* 0 when not known; 1-based */
	unsigned column; /* 0 when not known; 1-based */
	char source[ERR_SOURCE_MAX];
	char msg[ERR_MSG_MAX];
};

void err_init(struct err *e);
static inline bool err_isset(const struct err *e)
{
	return e->code != ERR_NONE;
}

/* Record a failure and return ERR_FAIL.  Offset and line are cleared. */
int err_set(struct err *e, enum err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with a byte offset into the source. */
int err_set_at(struct err *e, enum err_code code, uint64_t offset,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The same with a line (and column, 0 if unknown) of a text source. */
int err_set_line(struct err *e, enum err_code code, unsigned line,
		 unsigned column, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Name the source the error happened in (copied, cut if too long). */
void err_source(struct err *e, const char *source);

/* Put "what was being done" in front of the message: "reading x: msg". */
void err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The one-line form every front end prints:
 *   "SOURCE: MESSAGE at offset N" / "SOURCE:LINE:COL: MESSAGE"
 * Appended to out, without a newline; control bytes escaped.
 */
void err_format(const struct err *e, struct buf *out);

const char *err_code_name(enum err_code code);

/* strerror(errnum), but for a full disk the words every message of a
 * failed write uses: "no space left on device", "disk quota exceeded".
 * Thread-safe (strerror_r for the others, into a thread-local buffer). */
const char *err_io_reason(int errnum);

#endif
