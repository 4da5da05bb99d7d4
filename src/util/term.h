/*
 * printf for text a person reads on a terminal: the messages, summaries
 * and headings of the commands.  The format is the program's own; what
 * every conversion writes (a path, an argument of the user's, a name
 * from a file or a store, a number) goes through the one escaper,
 * buf_add_printable(), so that no byte of it can move the cursor, set
 * the window's title, end the line or reorder it (docs/inputs.md,
 * "Names on a terminal").  A %s's width pads what is shown, escapes
 * included; its precision cuts the bytes given.
 *
 * Not for text that is already escaped (err_format()'s, a view's line
 * built with buf_add_printable()): write that as it is, or its
 * backslashes double.  Not for files in a syntax of their own (CSV,
 * JSON, HTML, SVG, pprof): buf.h has their escapes.
 */
#ifndef HS_TERM_H
#define HS_TERM_H

#include <stdarg.h>
#include <stdio.h>

struct buf;

void term_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void term_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* fprintf's return: the bytes written, or -1 on a write error. */
int term_fprintf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int term_vfprintf(FILE *f, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
