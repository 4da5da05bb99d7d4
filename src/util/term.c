/*
 * printf for a terminal (term.h): the format's own text as it is, each
 * conversion's output through buf_add_printable().  It reads the format
 * itself, one conversion at a time, so that it knows which argument is
 * a string to escape before padding; the compiler still checks the
 * arguments against the format (the format attribute), and each number
 * is written by the C library from the conversion as written.  It does
 * not take %n, nor positional arguments (%1$s): a format that holds one
 * is a bug.
 */
#include "util/term.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

enum len_mod {
	LEN_NONE,
	LEN_HH,
	LEN_H,
	LEN_L,
	LEN_LL,
	LEN_J,
	LEN_Z,
	LEN_T,
	LEN_BIG_L,
};

/* One conversion as written: "%-*.3llu" and what it takes. */
struct conv {
	char spec[32];	     /* '%' to the letter, for the C library */
	bool star_width;     /* the width is an int argument */
	bool star_prec;	     /* the precision is an int argument */
	int width;	     /* -1: none; '*': the argument as given */
	int prec;	     /* -1: none */
	bool left;	     /* '-': pad on the right */
	enum len_mod length; /* hh h l ll j z t L */
	char letter;
};

static int parse_num(const char **p)
{
	long v = 0;

	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return (int)v;
}

/* Read the conversion at fmt ('%' first); returns the byte after it. */
static const char *parse_conv(const char *fmt, struct conv *c)
{
	const char *p = fmt + 1;
	size_t n;

	memset(c, 0, sizeof(*c));
	c->width = -1;
	c->prec = -1;
	for (; *p && strchr("-+ #0'", *p); p++)
		if (*p == '-')
			c->left = true;
	if (*p == '*') {
		c->star_width = true;
		p++;
	} else if (*p >= '1' && *p <= '9') {
		c->width = parse_num(&p);
	}
	if (*p == '.') {
		p++;
		if (*p == '*') {
			c->star_prec = true;
			p++;
		} else {
			c->prec = parse_num(&p);
		}
	}
	switch (*p) {
	case 'h':
		c->length = p[1] == 'h' ? LEN_HH : LEN_H;
		p += c->length == LEN_HH ? 2 : 1;
		break;
	case 'l':
		c->length = p[1] == 'l' ? LEN_LL : LEN_L;
		p += c->length == LEN_LL ? 2 : 1;
		break;
	case 'j':
		c->length = LEN_J;
		p++;
		break;
	case 'z':
		c->length = LEN_Z;
		p++;
		break;
	case 't':
		c->length = LEN_T;
		p++;
		break;
	case 'L':
		c->length = LEN_BIG_L;
		p++;
		break;
	default:
		break;
	}
	if (!*p || !strchr("diouxXeEfFgGaAcsp", *p))
		BUG("term: conversion '%.*s' in format '%s' is not one it "
		    "takes",
		    (int)(p - fmt + (*p != 0)), fmt, fmt);
	c->letter = *p++;
	n = (size_t)(p - fmt);
	if (n >= sizeof(c->spec))
		BUG("term: conversion too long in format '%s'", fmt);
	memcpy(c->spec, fmt, n);
	c->spec[n] = '\0';
	return p;
}

/* The string shown: cut to the precision, escaped, padded to the width. */
static void add_string(struct buf *b, const struct conv *c, const char *s)
{
	size_t start = b->len, n, shown;
	long width = c->width;
	bool left = c->left;

	if (c->star_width && width < 0) { /* as printf: '-' and the width */
		left = true;
		width = -width;
	}
	if (!s)
		s = "(null)";
	n = c->prec >= 0 ? strnlen(s, (size_t)c->prec) : strlen(s);
	buf_add_printable(b, s, n);
	shown = b->len - start;
	if (width < 0 || shown >= (size_t)width)
		return;
	n = (size_t)width - shown;
	buf_grow(b, n);
	if (!left) {
		memmove(b->data + start + n, b->data + start, shown);
		memset(b->data + start, ' ', n);
	} else {
		memset(b->data + b->len, ' ', n);
	}
	buf_setlen(b, b->len + n);
}

/* The format is one of the program's, read above; the compiler has
 * checked the arguments against it at the caller. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#define ADD_ONE(out, c, v)                                                  \
	do {                                                                \
		if ((c)->star_width && (c)->star_prec)                      \
			buf_addf(out, (c)->spec, (c)->width, (c)->prec, v); \
		else if ((c)->star_width)                                   \
			buf_addf(out, (c)->spec, (c)->width, v);            \
		else if ((c)->star_prec)                                    \
			buf_addf(out, (c)->spec, (c)->prec, v);             \
		else                                                        \
			buf_addf(out, (c)->spec, v);                        \
	} while (0)

/* A number, a character or a pointer, as the C library writes it. */
static void add_other(struct buf *out, const struct conv *c, va_list *ap)
{
	bool is_signed = c->letter == 'd' || c->letter == 'i';

	switch (c->letter) {
	case 'c':
		ADD_ONE(out, c, va_arg(*ap, int));
		return;
	case 'p':
		ADD_ONE(out, c, va_arg(*ap, void *));
		return;
	case 'e':
	case 'E':
	case 'f':
	case 'F':
	case 'g':
	case 'G':
	case 'a':
	case 'A':
		if (c->length == LEN_BIG_L)
			ADD_ONE(out, c, va_arg(*ap, long double));
		else
			ADD_ONE(out, c, va_arg(*ap, double));
		return;
	default:
		break;
	}
	switch (c->length) {
	case LEN_NONE:
	case LEN_HH:
	case LEN_H: /* promoted to int */
		if (is_signed)
			ADD_ONE(out, c, va_arg(*ap, int));
		else
			ADD_ONE(out, c, va_arg(*ap, unsigned));
		break;
	case LEN_L:
		if (is_signed)
			ADD_ONE(out, c, va_arg(*ap, long));
		else
			ADD_ONE(out, c, va_arg(*ap, unsigned long));
		break;
	case LEN_LL:
	case LEN_BIG_L:
		if (is_signed)
			ADD_ONE(out, c, va_arg(*ap, long long));
		else
			ADD_ONE(out, c, va_arg(*ap, unsigned long long));
		break;
	case LEN_J:
		if (is_signed)
			ADD_ONE(out, c, va_arg(*ap, intmax_t));
		else
			ADD_ONE(out, c, va_arg(*ap, uintmax_t));
		break;
	case LEN_Z: /* %zd takes the signed type of size_t's width */
		ADD_ONE(out, c, va_arg(*ap, size_t));
		break;
	case LEN_T:
		ADD_ONE(out, c, va_arg(*ap, ptrdiff_t));
		break;
	}
}

#pragma GCC diagnostic pop

void term_vaddf(struct buf *b, const char *fmt, va_list ap_in)
{
	struct buf one = BUF_INIT;
	struct conv c;
	const char *p = fmt, *pct;
	va_list ap;

	va_copy(ap, ap_in);
	while ((pct = strchr(p, '%')) != NULL) {
		buf_add(b, p, (size_t)(pct - p));
		if (pct[1] == '%') {
			buf_addch(b, '%');
			p = pct + 2;
			continue;
		}
		p = parse_conv(pct, &c);
		if (c.star_width)
			c.width = va_arg(ap, int);
		if (c.star_prec)
			c.prec = va_arg(ap, int); /* < 0: as if none */
		if (c.letter == 's') {
			add_string(b, &c, va_arg(ap, const char *));
		} else {
			buf_reset(&one);
			add_other(&one, &c, &ap);
			buf_add_printable(b, one.data, one.len);
		}
	}
	buf_adds(b, p);
	va_end(ap);
	buf_release(&one);
}

void term_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	term_vaddf(b, fmt, ap);
	va_end(ap);
}

int term_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	struct buf b = BUF_INIT;
	int n;

	term_vaddf(&b, fmt, ap);
	n = fwrite(b.data, 1, b.len, f) == b.len && b.len <= INT32_MAX
		    ? (int)b.len
		    : -1;
	buf_release(&b);
	return n;
}

int term_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = term_vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}
