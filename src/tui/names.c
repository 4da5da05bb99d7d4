/*
 * Shortening of Java names for narrow columns (names.h).  A package is a
 * dot-separated segment that starts with a lower-case letter and comes
 * before the first segment that does not (the class); such segments are
 * cut to their first letter one at a time, outermost first, because the
 * innermost package says the most about the code.
 */
#include "tui/names.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

size_t names_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* The byte offset of the last n columns of s. */
static size_t tail_offset(const char *s, size_t n)
{
	size_t len = strlen(s), w = 0, i = len;

	while (i > 0 && w < n) {
		i--;
		while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
			i--;
		w++;
	}
	return i;
}

char *names_shorten(const char *name, size_t width, const char *ellipsis,
		    char *out, size_t size)
{
	/* segment ends of the package part: at most a few dozen */
	size_t seg_start[64], seg_end[64], n_seg = 0, i, len = strlen(name);
	size_t w = names_width(name), cut, pos;
	const char *p = name;

	if (!size)
		return out;
	out[0] = '\0';
	if (w <= width) {
		snprintf(out, size, "%s", name);
		return out;
	}
	/* packages: lower-case segments followed by a dot, before a
	 * segment that starts otherwise */
	while (n_seg < 64) {
		const char *dot = strchr(p, '.');

		if (!dot || !islower((unsigned char)*p))
			break;
		if (memchr(p, '(', (size_t)(dot - p)) ||
		    memchr(p, '$', (size_t)(dot - p)))
			break;
		seg_start[n_seg] = (size_t)(p - name);
		seg_end[n_seg] = (size_t)(dot - name);
		n_seg++;
		p = dot + 1;
	}
	/* abbreviate outermost first until it fits */
	for (cut = 0; cut < n_seg && w > width; cut++)
		w -= seg_end[cut] - seg_start[cut] - 1;
	pos = 0;
	for (i = 0; i < cut && pos + 3 < size; i++) {
		out[pos++] = name[seg_start[i]];
		out[pos++] = '.';
	}
	out[pos] = '\0';
	snprintf(out + pos, size - pos, "%s",
		 cut ? name + seg_start[cut - 1] +
				 (seg_end[cut - 1] - seg_start[cut - 1]) + 1
		     : name);
	(void)len;
	if (w > width) {
		/* still too long: keep the end (class, method, line) */
		char tmp[1024];
		size_t ew = names_width(ellipsis);
		size_t keep = width > ew ? width - ew : 0;

		snprintf(tmp, sizeof(tmp), "%s", out);
		snprintf(out, size, "%s%s", width >= ew ? ellipsis : "",
			 tmp + tail_offset(tmp, keep));
	}
	return out;
}
