/*
 * Option parsing declared in options.h.  Everything the JVM hands us is
 * copied, so that the caller's string may go away after Agent_OnLoad.
 */
#include "agent/options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	SEEN_FILE = 1,
	SEEN_INTERVAL = 2,
	SEEN_DEPTH = 4,
	SEEN_TRACKED = 8,
	SEEN_FLUSH = 16,
	SEEN_BUFFER = 32,
	SEEN_QUIET = 64
};

static int fail(char *why, size_t why_size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Digits, then at most one suffix among those allowed: k, m, g (powers
 * of 1024, either case).  No sign, no spaces, no fraction: a value that
 * is not exactly understood is refused rather than guessed.
 */
static bool parse_number(const char *s, size_t n, bool sizes, uint64_t max,
			 uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	size_t i;

	if (n && sizes) {
		switch (s[n - 1]) {
		case 'k':
		case 'K':
			mult = 1024;
			n--;
			break;
		case 'm':
		case 'M':
			mult = 1024 * 1024;
			n--;
			break;
		case 'g':
		case 'G':
			mult = 1024 * 1024 * 1024;
			n--;
			break;
		default:
			break;
		}
	}
	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > max / mult)
		return false;
	*out = v * mult;
	return true;
}

/* The file name with %p (pid) and %% expanded; NULL when out of memory. */
static char *expand_file(const char *s, size_t n, long pid)
{
	char pidtxt[24];
	size_t len = 0, i, pl;
	char *out;

	pl = (size_t)snprintf(pidtxt, sizeof(pidtxt), "%ld", pid);
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 1 < n && s[i + 1] == 'p') {
			len += pl;
			i++;
		} else if (s[i] == '%' && i + 1 < n && s[i + 1] == '%') {
			len++;
			i++;
		} else {
			len++;
		}
	}
	out = malloc(len + 1);
	if (!out)
		return NULL;
	len = 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 1 < n && s[i + 1] == 'p') {
			memcpy(out + len, pidtxt, pl);
			len += pl;
			i++;
		} else if (s[i] == '%' && i + 1 < n && s[i + 1] == '%') {
			out[len++] = '%';
			i++;
		} else {
			out[len++] = s[i];
		}
	}
	out[len] = '\0';
	return out;
}

struct numeric_key {
	const char *name;
	unsigned seen;
	bool sizes; /* takes k/m/g */
	uint64_t min, max;
	const char *hint; /* what a good value looks like */
};

static const struct numeric_key numeric_keys[] = {
	{"interval", SEEN_INTERVAL, true, 0, OPT_MAX_INTERVAL,
	 "a byte count up to 2147483647 such as 524288, 512k or 1m"},
	{"depth", SEEN_DEPTH, false, 1, OPT_MAX_DEPTH,
	 "a frame count from 1 to 2048"},
	{"max_tracked", SEEN_TRACKED, false, 0, OPT_MAX_MAX_TRACKED,
	 "a count from 0 (track nothing) to 2147483647"},
	{"flush_ms", SEEN_FLUSH, false, 1, OPT_MAX_FLUSH_MS,
	 "milliseconds from 1 to 3600000"},
	{"buffer", SEEN_BUFFER, true, 0, OPT_MAX_BUFFER,
	 "a byte count such as 64m or 1g"},
};

static void set_numeric(struct agent_options *o, unsigned seen, uint64_t v)
{
	switch (seen) {
	case SEEN_INTERVAL:
		o->interval = v;
		break;
	case SEEN_DEPTH:
		o->depth = (uint32_t)v;
		break;
	case SEEN_TRACKED:
		o->max_tracked = (uint32_t)v;
		break;
	case SEEN_FLUSH:
		o->flush_ms = (uint32_t)v;
		break;
	default:
		o->buffer = v;
		break;
	}
}

/* One "key=value" or "key" of length n. */
static int parse_one(const char *s, size_t n, long pid, unsigned *seen,
		     struct agent_options *o, char *why, size_t why_size)
{
	const char *eq = memchr(s, '=', n);
	size_t klen = eq ? (size_t)(eq - s) : n;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? n - klen - 1 : 0;
	size_t i;
	uint64_t v;

	if (klen == 4 && !memcmp(s, "file", 4)) {
		if (*seen & SEEN_FILE)
			return fail(why, why_size, "option file= given twice");
		if (!val || vlen == 0)
			return fail(why, why_size,
				    "option file= needs a path, as in "
				    "file=/tmp/app-%%p.hsa");
		o->file = expand_file(val, vlen, pid);
		if (!o->file)
			return -2;
		*seen |= SEEN_FILE;
		return 0;
	}
	if (klen == 5 && !memcmp(s, "quiet", 5)) {
		if (val)
			return fail(why, why_size,
				    "option quiet takes no value");
		if (*seen & SEEN_QUIET)
			return fail(why, why_size, "option quiet given twice");
		o->quiet = true;
		*seen |= SEEN_QUIET;
		return 0;
	}
	for (i = 0; i < sizeof(numeric_keys) / sizeof(numeric_keys[0]); i++) {
		const struct numeric_key *k = &numeric_keys[i];

		if (strlen(k->name) != klen || memcmp(s, k->name, klen))
			continue;
		if (*seen & k->seen)
			return fail(why, why_size, "option %s= given twice",
				    k->name);
		if (!val || !parse_number(val, vlen, k->sizes, k->max, &v) ||
		    v < k->min)
			return fail(why, why_size,
				    "bad value '%.*s' for %s=: expected %s",
				    (int)(val ? vlen : 0), val ? val : "",
				    k->name, k->hint);
		set_numeric(o, k->seen, v);
		*seen |= k->seen;
		return 0;
	}
	return fail(why, why_size,
		    "unknown option '%.*s' (known: file, interval, depth, "
		    "max_tracked, flush_ms, buffer, quiet)",
		    (int)klen, s);
}

int options_parse(const char *s, long pid, struct agent_options *o, char *why,
		  size_t why_size)
{
	unsigned seen = 0;
	const char *p, *end;
	int rc;

	memset(o, 0, sizeof(*o));
	o->interval = OPT_DEFAULT_INTERVAL;
	o->depth = OPT_DEFAULT_DEPTH;
	o->max_tracked = OPT_DEFAULT_MAX_TRACKED;
	o->flush_ms = OPT_DEFAULT_FLUSH_MS;
	o->buffer = OPT_DEFAULT_BUFFER;
	if (why_size)
		why[0] = '\0';
	if (!s)
		s = "";
	o->given = strdup(s);
	if (!o->given)
		return -2;
	for (p = s; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (end == p) {
			rc = fail(why, why_size,
				  "empty option in '%s' (options are "
				  "separated by single commas)",
				  s);
			goto bad;
		}
		rc = parse_one(p, (size_t)(end - p), pid, &seen, o, why,
			       why_size);
		if (rc < 0)
			goto bad;
	}
	if (!(seen & SEEN_FILE)) {
		rc = fail(why, why_size,
			  "option file= is required, as in "
			  "-agentpath:libheapsift-agent.so=file=app-%%p.hsa");
		goto bad;
	}
	return 0;
bad:
	options_release(o);
	return rc;
}

void options_release(struct agent_options *o)
{
	free(o->file);
	free(o->given);
	o->file = o->given = NULL;
}
