/*
 * The helpers declared in textprobe.h.
 */
#include "importers/textprobe.h"

#include <string.h>

bool text_lines_next(struct text_lines *t, const char **line, size_t *len)
{
	const char *nl;
	size_t n;

	if (t->p >= t->end)
		return false;
	nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
	n = nl ? (size_t)(nl - t->p) : (size_t)(t->end - t->p);
	*line = t->p;
	*len = n && t->p[n - 1] == '\r' ? n - 1 : n;
	t->p = nl ? nl + 1 : t->end;
	return true;
}

bool text_is_binary(const unsigned char *p, size_t len)
{
	size_t i, ctl = 0, n = len < 4096 ? len : 4096;

	for (i = 0; i < n; i++) {
		if (p[i] == 0)
			return true;
		if (p[i] < 0x20 && p[i] != '\n' && p[i] != '\r' &&
		    p[i] != '\t' && p[i] != '\f')
			ctl++;
	}
	return ctl * 20 > n; /* more than 5% control bytes */
}

bool text_starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0;
}

bool text_contains(const char *hay, size_t len, const char *needle)
{
	return memmem(hay, len, needle, strlen(needle)) != NULL;
}
