#include "util/env.h"

#include <errno.h>
#include <stdlib.h>

size_t env_count(const char *name, size_t def, size_t min, size_t max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v || *v < '0' || *v > '9')
		return def; /* strtoull would take "-1" and " 5" */
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return def;
	return (size_t)n;
}
