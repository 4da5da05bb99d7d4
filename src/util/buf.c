/*
 * The growable buffer declared in buf.h.  Growth is geometric so that
 * appending n bytes one at a time costs O(n).
 */
#include "util/buf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/size.h"
#include "util/xalloc.h"

char buf_empty[1];

void buf_init(struct buf *b)
{
	b->data = buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void buf_release(struct buf *b)
{
	if (b->alloc)
		free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

char *buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (!b->alloc)
		buf_grow(b, 0);
	p = b->data;
	if (len)
		*len = b->len;
	buf_init(b);
	return p;
}

void buf_grow(struct buf *b, size_t extra)
{
	size_t need, alloc;
	bool fresh = !b->alloc;

	if (!size_add(b->len, extra, &need) || !size_add(need, 1, &need))
		die("buffer size overflows adding %zu bytes", extra);
	if (need <= b->alloc)
		return;
	alloc = b->alloc < 64 ? 64 : b->alloc;
	while (alloc < need) {
		if (!size_mul(alloc, 2, &alloc)) {
			alloc = need;
			break;
		}
	}
	if (fresh) {
		b->data = xmalloc(alloc);
		b->data[0] = '\0';
	} else {
		b->data = xrealloc(b->data, alloc);
	}
	b->alloc = alloc;
}

void buf_setlen(struct buf *b, size_t len)
{
	if (b->alloc ? len >= b->alloc : len != 0)
		BUG("buf_setlen(%zu) beyond allocation %zu", len, b->alloc);
	b->len = len;
	b->data[len] = '\0';
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	buf_grow(b, len);
	memcpy(b->data + b->len, data, len);
	buf_setlen(b, b->len + len);
}

void buf_add_u64(struct buf *b, uint64_t v)
{
	static const char pairs[] = "00010203040506070809"
				    "10111213141516171819"
				    "20212223242526272829"
				    "30313233343536373839"
				    "40414243444546474849"
				    "50515253545556575859"
				    "60616263646566676869"
				    "70717273747576777879"
				    "80818283848586878889"
				    "90919293949596979899";
	char tmp[20], *p = tmp + sizeof(tmp);

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (v >= 10) {
		*--p = pairs[v * 2 + 1];
		*--p = pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	buf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void buf_add_i64(struct buf *b, int64_t v)
{
	if (v < 0) {
		buf_addch(b, '-');
		/* -(INT64_MIN) in unsigned arithmetic */
		buf_add_u64(b, 0 - (uint64_t)v);
		return;
	}
	buf_add_u64(b, (uint64_t)v);
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addch(struct buf *b, int c)
{
	buf_grow(b, 1);
	b->data[b->len] = (char)c;
	buf_setlen(b, b->len + 1);
}

void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->data + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed for format '%s'", fmt);
	if ((size_t)n >= b->alloc - b->len) {
		buf_grow(b, (size_t)n);
		n = vsnprintf(b->data + b->len, b->alloc - b->len, fmt, ap);
		if (n < 0 || (size_t)n >= b->alloc - b->len)
			BUG("vsnprintf changed its mind for format '%s'", fmt);
	}
	buf_setlen(b, b->len + (size_t)n);
}

char *buf_strf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b, NULL);
}

void buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp_out)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80) {
		*cp_out = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	*cp_out = cp;
	return len;
}

size_t utf8_printable_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len = utf8_decode(s, n, &cp);

	/* controls (C0, DEL, C1); the line and paragraph separators, which
	 * end a line; and Unicode's Bidi_Control characters (PropList.txt:
	 * ALM, LRM, RLM, the embeddings and overrides, the isolates) */
	if (!len || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x061c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return len;
}

void buf_add_printable(struct buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == '\\') {
			buf_add(b, "\\\\", 2);
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			buf_addf(b, "\\x%02x", p[i]);
			i++;
		} else if ((n = utf8_printable_len(p + i, len - i)) != 0) {
			buf_add(b, p + i, n);
			i += n;
		} else {
			buf_addf(b, "\\x%02x", p[i]);
			i++;
		}
	}
}

void buf_add_json(struct buf *b, const char *s, size_t len, enum buf_json how)
{
	struct buf shown = BUF_INIT;
	const unsigned char *p;
	size_t i = 0, n;
	uint32_t cp;

	if (how == BUF_JSON_PRINTABLE) {
		buf_add_printable(&shown, s, len);
		s = shown.data;
		len = shown.len;
	}
	p = (const unsigned char *)s;
	buf_addch(b, '"');
	while (i < len) {
		unsigned char ch = p[i];

		if (ch == '"' || ch == '\\') {
			buf_addch(b, '\\');
			buf_addch(b, ch);
			i++;
		} else if (ch < 0x20 || ch == 0x7f) {
			buf_addf(b, "\\u%04x", ch);
			i++;
		} else if ((n = utf8_decode(p + i, len - i, &cp)) != 0) {
			/* C1 controls (U+009B is CSI to some terminals) and
			 * bidi controls would act on a terminal the JSON is
			 * printed on; U+2028 and U+2029 are valid JSON but
			 * end a line of JavaScript that embeds it.  The
			 * printable spelling has none of them left. */
			if (!utf8_printable_len(p + i, len - i))
				buf_addf(b, "\\u%04x", (unsigned)cp);
			else
				buf_add(b, p + i, n);
			i += n;
		} else {
			buf_addf(b, "\\\\x%02x", ch);
			i++;
		}
	}
	buf_addch(b, '"');
	buf_release(&shown);
}

void buf_add_csv(struct buf *b, const char *s, size_t len)
{
	/* one character alone runs nothing (stdin's "-" in scan) */
	bool formula = len > 1 && memchr("=+-@\t\r", s[0], 6);
	size_t i;

	if (!formula && !memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\r', len) && !memchr(s, '\n', len)) {
		buf_add(b, s, len);
		return;
	}
	buf_adds(b, formula ? "\"'" : "\"");
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			buf_addch(b, '"');
		buf_addch(b, s[i]);
	}
	buf_addch(b, '"');
}

void buf_add_csv_name(struct buf *b, const char *s, size_t len)
{
	struct buf p = BUF_INIT;

	buf_add_printable(&p, s, len);
	buf_add_csv(b, p.data, p.len);
	buf_release(&p);
}

void buf_add_xml(struct buf *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		switch (s[i]) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addch(b, s[i]);
		}
}
