/*
 * Numbers for people; see human.h.
 */
#include "util/human.h"

#include <stdio.h>
#include <string.h>

const char *human_bytes(int64_t n, char *out, size_t size)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB", "PB"};
	double v = (double)n;
	int u = 0;

	while ((v >= 1000 || v <= -1000) && u < 5) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(out, size, "%lld B", (long long)n);
	else
		snprintf(out, size, "%.2f %s", v, unit[u]);
	return out;
}

bool human_version_has_name(const char *name, const char *version)
{
	size_t n = name ? strlen(name) : 0;

	return n && version && strncmp(version, name, n) == 0 &&
	       (version[n] == ' ' || version[n] == '\0');
}
