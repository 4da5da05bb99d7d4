/*
 * Messages declared in msg.h.  Formatted into a local buffer first so
 * that a message from one thread is written in one piece.
 */
#include "agent/msg.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_bool quiet_mode;

void msg_set_quiet(bool quiet)
{
	atomic_store(&quiet_mode, quiet);
}

static void emit(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static void emit(const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "heapsift-agent: %s\n", line);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;

	if (atomic_load(&quiet_mode))
		return;
	va_start(ap, fmt);
	emit(fmt, ap);
	va_end(ap);
}
