/*
 * A growable byte buffer, after git's strbuf.
 *
 * Invariants, true after buf_init() and after every call below:
 *   - data is never NULL; it points at a shared empty string until the
 *     first byte is added, so an untouched buf costs no allocation;
 *   - data[len] == '\0', so data is always a valid C string (the content
 *     itself may contain NUL bytes);
 *   - len < alloc whenever alloc != 0.
 * The buffer owns data; buf_detach() hands it over to the caller.
 */
#ifndef HS_BUF_H
#define HS_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	char *data;
	size_t len;
	size_t alloc;
};

extern char buf_empty[];
#define BUF_INIT                \
	{                       \
		buf_empty, 0, 0 \
	}

void buf_init(struct buf *b);
void buf_release(struct buf *b); /* frees, then re-inits */
void buf_reset(struct buf *b);	 /* len = 0, keeps the allocation */
char *buf_detach(struct buf *b, size_t *len); /* owned by the caller */

/* Make room for extra more bytes (plus the NUL). */
void buf_grow(struct buf *b, size_t extra);
void buf_setlen(struct buf *b, size_t len); /* len <= alloc - 1 */

void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addch(struct buf *b, int c);
/* v in decimal, as "%llu" and "%lld" write it, without printf: the CSV
 * export writes ten numbers a sample, and printf was most of its time */
void buf_add_u64(struct buf *b, uint64_t v);
void buf_add_i64(struct buf *b, int64_t v);
void buf_addf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vaddf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* A new string, printf-formatted: the caller frees it. */
char *buf_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The length of the valid UTF-8 sequence at s (at most n bytes, n >= 1)
 * and its code point in *cp; 0 when there is none: a stray or truncated
 * byte, an overlong form, a surrogate, a value past U+10FFFF.  Which valid
 * code points are safe to show (C1 controls, bidi overrides) is the
 * caller's policy.
 */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/*
 * The length of the sequence at s (at most n bytes, n >= 1) when it is
 * valid UTF-8 that is safe to show on a terminal as it is, else 0: the
 * one rule of what reaches a terminal (docs/inputs.md, "Names on a
 * terminal").  Refused: a C0 control or DEL; a C1 control (U+0080 to
 * U+009F, which some terminals take as ESC + a letter: U+009B is CSI);
 * the line and paragraph separators U+2028 and U+2029, which end a line
 * (of a listing, of JavaScript); and Unicode's Bidi_Control characters,
 * which reorder what a line shows ("Trojan Source"): U+061C, U+200E,
 * U+200F, the embeddings and overrides U+202A to U+202E, the isolates
 * U+2066 to U+2069.
 */
size_t utf8_printable_len(const unsigned char *s, size_t n);

/*
 * The one escaper: append s (len bytes) with every byte that could
 * disturb a terminal or a one-line listing (controls, DEL, bytes that are
 * not valid UTF-8, and each byte of the code points utf8_printable_len()
 * refuses: U+2028 is \xe2\x80\xa8) written as \xNN, and backslash as
 * \\.  Names come from hostile files.  term.h formats messages with it.
 */
void buf_add_printable(struct buf *b, const char *s, size_t len);

/*
 * Append s (len bytes) as one JSON string, quotes included, spelt one of
 * two ways:
 *   BUF_JSON_TEXT      the file's spelling, where it is valid UTF-8:
 *                      what utf8_printable_len() refuses (controls,
 *                      U+2028, U+2029, bidi controls) as \uXXXX, so
 *                      that JSON printed on a terminal or embedded in
 *                      JavaScript stays inert; a byte that is not valid
 *                      UTF-8, which JSON cannot carry, as the text \xNN
 *                      (the report's);
 *   BUF_JSON_PRINTABLE what buf_add_printable() shows, quoted: the names
 *                      as a one-line listing spells them (speedscope's,
 *                      which are folded's), U+2028 as the text
 *                      \xe2\x80\xa8 as a newline is \x0a.
 */
enum buf_json {
	BUF_JSON_TEXT,
	BUF_JSON_PRINTABLE,
};
void buf_add_json(struct buf *b, const char *s, size_t len, enum buf_json how);

/*
 * Append s as one text cell of a CSV file, the one way every CSV
 * heapsift writes (export's tables and fleet, and every view's --csv:
 * top, tree, survivors, diff, codeheap, scan) writes text: an RFC 4180
 * field, quoted when it holds , " CR or LF; and a cell that begins with
 * = + - @, a tab or a CR, which a spreadsheet would run as a formula
 * ("CSV injection"), gets a ' in front and is quoted, as OWASP advises
 * (docs/export.md, "Formulas"); one such character alone, which runs
 * nothing, is left as it is (stdin's "-").  Numbers are not text cells: they are
 * written as numbers, and a negative one keeps its sign.
 */
void buf_add_csv(struct buf *b, const char *s, size_t len);

/* A name from a file (or a store) as a CSV text cell: spelt as
 * buf_add_printable() spells it, then written by buf_add_csv(). */
void buf_add_csv_name(struct buf *b, const char *s, size_t len);

/* Append s (len bytes) escaped for XML text and attributes: the five
 * entities only, so the same escaping serves HTML and inline SVG. */
void buf_add_xml(struct buf *b, const char *s, size_t len);

#endif
