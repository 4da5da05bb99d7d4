/*
 * struct err, declared in err.h.
 */
#include "util/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"

void err_init(struct err *e)
{
	e->code = ERR_NONE;
	e->offset = ERR_NO_OFFSET;
	e->line = 0;
	e->column = 0;
	e->source[0] = '\0';
	e->msg[0] = '\0';
}

/* Copy with "..." at the end when src does not fit. */
static void copy_cut(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);

	if (len < size) {
		memcpy(dst, src, len + 1);
		return;
	}
	memcpy(dst, src, size - 4);
	memcpy(dst + size - 4, "...", 4);
}

static void vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void vset(struct err *e, enum err_code code, const char *fmt, va_list ap)
{
	int n;

	e->code = code;
	e->offset = ERR_NO_OFFSET;
	e->line = 0;
	e->column = 0;
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	if (n >= (int)sizeof(e->msg))
		memcpy(e->msg + sizeof(e->msg) - 4, "...", 4);
}

int err_set(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, code, fmt, ap);
	va_end(ap);
	return ERR_FAIL;
}

int err_set_at(struct err *e, enum err_code code, uint64_t offset,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, code, fmt, ap);
	va_end(ap);
	e->offset = offset;
	return ERR_FAIL;
}

int err_set_line(struct err *e, enum err_code code, unsigned line,
		 unsigned column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, code, fmt, ap);
	va_end(ap);
	e->line = line;
	e->column = column;
	return ERR_FAIL;
}

void err_source(struct err *e, const char *source)
{
	copy_cut(e->source, sizeof(e->source), source ? source : "");
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	struct buf all = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&all, fmt, ap);
	va_end(ap);
	buf_addf(&all, ": %s", e->msg);
	copy_cut(e->msg, sizeof(e->msg), all.data);
	buf_release(&all);
}

void err_format(const struct err *e, struct buf *out)
{
	if (e->source[0]) {
		buf_add_printable(out, e->source, strlen(e->source));
		if (e->line) {
			buf_addf(out, ":%u", e->line);
			if (e->column)
				buf_addf(out, ":%u", e->column);
		}
		buf_adds(out, ": ");
	}
	buf_add_printable(out, e->msg, strlen(e->msg));
	if (e->offset != ERR_NO_OFFSET)
		buf_addf(out, " at offset %llu", (unsigned long long)e->offset);
	else if (e->line && !e->source[0])
		buf_addf(out, " at line %u", e->line);
}

const char *err_code_name(enum err_code code)
{
	switch (code) {
	case ERR_NONE:
		return "none";
	case ERR_IO:
		return "io";
	case ERR_FORMAT:
		return "format";
	case ERR_TRUNC:
		return "truncated";
	case ERR_LIMIT:
		return "limit";
	case ERR_USAGE:
		return "usage";
	case ERR_UNSUPPORTED:
		return "unsupported";
	case ERR_NOT_READ:
		return "not read";
	}
	return "unknown";
}

const char *err_io_reason(int errnum)
{
	static _Thread_local char msg[128];

	if (errnum == ENOSPC)
		return "no space left on device";
	if (errnum == EDQUOT)
		return "disk quota exceeded";
	/* GNU's strerror_r, which returns the message */
	return strerror_r(errnum, msg, sizeof(msg));
}
