/*
 * Numbers for people; see human.h.
 */
#include "util/human.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

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

const char *human_time(int64_t ns, int digits, const char *unset, char *out,
		       size_t size)
{
	int64_t secs = ns / 1000000000, frac = ns % 1000000000;
	time_t t;
	struct tm tm;
	char s[64];

	if (ns == INT64_MIN && unset) {
		snprintf(out, size, "%s", unset);
		return out;
	}
	if (frac < 0) { /* floor: C division truncates toward zero */
		frac += 1000000000;
		secs--;
	}
	t = (time_t)secs;
	/* every int64_t of ns is a year from 1677 to 2262, which a 64-bit
	 * gmtime_r takes: this is for a time_t that cannot hold it */
	if (!gmtime_r(&t, &tm)) {
		snprintf(out, size, "%llds", (long long)secs);
		return out;
	}
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	if (digits == 9)
		snprintf(out, size, "%s.%09lldZ", s, (long long)frac);
	else
		snprintf(out, size, "%s.%03lldZ", s,
			 (long long)(frac / 1000000));
	return out;
}

bool human_version_has_name(const char *name, const char *version)
{
	size_t n = name ? strlen(name) : 0;

	return n && version && strncmp(version, name, n) == 0 &&
	       (version[n] == ' ' || version[n] == '\0');
}
