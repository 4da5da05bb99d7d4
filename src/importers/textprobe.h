/*
 * Small helpers the heuristic text probes share: walking the lines of a
 * peeked prefix without copying, and telling text from binary.  Probes
 * see at most PROBE_PREFIX bytes and the last line may be cut short.
 */
#ifndef HS_TEXTPROBE_H
#define HS_TEXTPROBE_H

#include <stdbool.h>
#include <stddef.h>

struct text_lines {
	const char *p, *end;
};

static inline void text_lines_init(struct text_lines *t, const unsigned char *p,
				   size_t len)
{
	t->p = (const char *)p;
	t->end = t->p + len;
}

/* Next line (without "\n" or "\r\n"); false when none is left. */
bool text_lines_next(struct text_lines *t, const char **line, size_t *len);

/* A NUL or many control bytes in the first 4 KiB: not text. */
bool text_is_binary(const unsigned char *p, size_t len);

bool text_starts(const char *line, size_t len, const char *prefix);
bool text_contains(const char *hay, size_t len, const char *needle);

#endif
