/*
 * Shared parts of the store views (cli_view.h).
 */
#include "cli/cli_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cache.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/buf.h"

void view_filters_init(struct view_filters *f)
{
	query_options_init(&f->q);
	f->from = f->to = NULL;
	f->n_recs = 0;
}

void view_frames_init(struct view_filters *f)
{
	f->q.normalize = true;
}

/* --recording's list "N,N..": into f->recs; false when it is not one. */
static bool parse_recordings(const char *arg, struct view_filters *f)
{
	const char *p = arg;
	char num[24];
	uint64_t n;

	f->n_recs = 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(num) ||
		    f->n_recs == VIEW_MAX_RECORDINGS)
			return false;
		memcpy(num, p, len);
		num[len] = '\0';
		if (!cli_parse_count(num, &n) || n > UINT32_MAX)
			return false;
		f->recs[f->n_recs++] = (uint32_t)n;
		p += len;
		if (*p == ',' && !*++p)
			return false;
	}
	return f->n_recs > 0;
}

/* The recording --from and --to count from: --recording's, the first
 * listed, else -1 (the earliest). */
static int64_t origin_recording(const struct view_filters *f)
{
	return f->n_recs > 1 ? (int64_t)f->recs[0] : f->q.recording;
}

/* The first recording f names that the store has not; -1 none. */
static int64_t missing_recording(struct view_filters *f, uint32_t n)
{
	size_t i;

	if (f->n_recs > 1) {
		f->q.recordings = f->recs;
		f->q.n_recordings = f->n_recs;
		for (i = 0; i < f->n_recs; i++)
			if (f->recs[i] >= n)
				return f->recs[i];
		return -1;
	}
	return f->q.recording >= (int64_t)n ? f->q.recording : -1;
}

/* --leaf's values */
static const char *const leaf_words[] = {"class", "none"};

const char *view_leaf_word(size_t i)
{
	return i < sizeof(leaf_words) / sizeof(*leaf_words) ? leaf_words[i]
							    : NULL;
}

static bool view_leaf_word_known(const char *s)
{
	for (size_t i = 0; view_leaf_word(i); i++)
		if (!strcmp(s, view_leaf_word(i)))
			return true;
	return false;
}

const char *view_kind_word(size_t i)
{
	return i < SAMPLE__COUNT ? sample_kind_word((enum sample_kind)i) : NULL;
}

static bool parse_kind(const char *s, int *kind)
{
	int i;

	for (i = 0; i < SAMPLE__COUNT; i++)
		if (!strcmp(s, sample_kind_word(i)) ||
		    !strcmp(s, sample_kind_name(i))) {
			*kind = i;
			return true;
		}
	return false;
}

int view_filter_option(const char *cmd, int opt, const char *arg,
		       struct view_filters *f)
{
	switch (opt) {
	case OPT_FROM:
		f->from = arg;
		return 0;
	case OPT_TO:
		f->to = arg;
		return 0;
	case OPT_RECORDING:
		if (!parse_recordings(arg, f))
			return cli_usage_error(cmd,
					       "--recording: '%s' is not a "
					       "recording number (a whole "
					       "number from 0; see heapsift "
					       "info) or a list of at most "
					       "%d, N,N..",
					       arg, VIEW_MAX_RECORDINGS);
		/* one number: that recording; several: q.recordings */
		f->q.recording = f->n_recs == 1 ? (int64_t)f->recs[0] : -1;
		return 0;
	case OPT_THREAD:
		f->q.thread_re = arg;
		return 0;
	case OPT_KIND:
		if (!parse_kind(arg, &f->q.kind))
			return cli_usage_error(cmd,
					       "--kind: '%s' is not alloc, "
					       "tlab, outside, old, agent, "
					       "ap-alloc, ap-live, dd-alloc "
					       "or dd-live",
					       arg);
		return 0;
	case OPT_CLASS:
		f->q.class_re = arg;
		return 0;
	case OPT_INCLUDE:
		f->q.include_re = arg;
		return 0;
	case OPT_EXCLUDE:
		f->q.exclude_re = arg;
		return 0;
	case OPT_LIBRARY:
		f->q.library_re = arg;
		return 0;
	case OPT_FRAMES: {
		enum query_frames fr;

		if (!query_frames_parse(arg, &fr))
			return cli_usage_error(cmd,
					       "--frames: '%s' is not line or "
					       "method",
					       arg);
		f->q.frames = (int)fr;
		return 0;
	}
	case OPT_DROP_FRAMES:
		f->q.drop_re = arg;
		return 0;
	case OPT_NO_NORMALIZE:
		f->q.normalize = false;
		return 0;
	case OPT_LEAF:
		if (!view_leaf_word_known(arg))
			return cli_usage_error(cmd,
					       "--leaf: '%s' is not class or "
					       "none",
					       arg);
		f->q.leaf_class = !strcmp(arg, "class");
		return 0;
	case OPT_THREADS:
		f->q.threads = true;
		return 0;
	case OPT_ESTIMATE: {
		enum query_estimate est;

		if (!query_estimate_parse(arg, &est))
			return cli_usage_error(cmd,
					       "--estimate: '%s' is not jfr or "
					       "corrected",
					       arg);
		f->q.estimate = (int)est;
		return 0;
	}
	}
	return 1;
}

int view_default_option(const char *cmd, int c, char **argv,
			struct view_filters *f)
{
	if (c == '?' || c == ':')
		return cli_getopt_error(cmd, c, argv);
	return view_filter_option(cmd, c, optarg, f) ? EXIT_USAGE : 0;
}

int view_group_option(const char *cmd, const char *arg, enum query_group *by)
{
	if (!query_group_parse(arg, by))
		return cli_usage_error(cmd,
				       "--by: '%s' is not class, site, "
				       "app-site, thread or recording",
				       arg);
	return 0;
}

int view_limit_option(const char *cmd, const char *arg, uint64_t *limit)
{
	if (!cli_parse_count(arg, limit))
		return cli_usage_error(cmd,
				       "--limit: '%s' is not a whole number "
				       "from 0 (0: no limit)",
				       arg);
	return 0;
}

/*
 * "30s", "1m30s", "500ms", "1.5h", or plain seconds.  Digits and one
 * point only (no signs, exponents, hex, inf or nan), and the result
 * must fit in int64 nanoseconds (about 292 years).
 */
bool view_parse_duration(const char *s, int64_t *ns)
{
	int64_t total = 0;
	bool any = false;

	while (*s) {
		const char *start = s;
		double v = 0, scale = 1, unit;
		bool point = false;

		for (; (*s >= '0' && *s <= '9') || (*s == '.' && !point); s++) {
			if (*s == '.') {
				point = true;
				continue;
			}
			if (point) {
				scale /= 10;
				v += (*s - '0') * scale;
			} else {
				v = v * 10 + (*s - '0');
			}
		}
		if (s == start || (point && s == start + 1))
			return false;
		if (!strncmp(s, "ms", 2)) {
			unit = 1e6;
			s += 2;
		} else if (!strncmp(s, "us", 2)) {
			unit = 1e3;
			s += 2;
		} else if (!strncmp(s, "ns", 2)) {
			unit = 1;
			s += 2;
		} else if (*s == 's') {
			unit = 1e9;
			s++;
		} else if (*s == 'm') {
			unit = 60e9;
			s++;
		} else if (*s == 'h') {
			unit = 3600e9;
			s++;
		} else if (!*s) {
			unit = 1e9; /* plain seconds */
		} else {
			return false;
		}
		v *= unit;
		/* below 9.2e18 the cast to int64 is defined */
		if (!(v < 9.2e18) || (double)total + v >= 9.2e18)
			return false;
		total += (int64_t)v;
		any = true;
	}
	*ns = total;
	return any;
}

/* 2026-11-21T23:17:12[.123]Z (UTC), years 1970 to 2261 (what int64
 * nanoseconds since 1970 can hold); false otherwise. */
static bool parse_iso(const char *s, int64_t *ns)
{
	struct tm tm;
	const char *p;
	int64_t frac = 0, scale = 100000000;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p || tm.tm_year < 70 || tm.tm_year > 2261 - 1900)
		return false;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			frac += (*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p)
		return false;
	{
		struct tm back;
		int mday = tm.tm_mday, mon = tm.tm_mon;

		t = timegm(&tm);
		/* timegm moves Feb 31 to March: such a date is not a date */
		if (t < 0 || t > 9223372035 || !gmtime_r(&t, &back) ||
		    back.tm_mday != mday || back.tm_mon != mon)
			return false;
	}
	*ns = (int64_t)t * 1000000000 + frac;
	return true;
}

static int parse_time(const char *cmd, const char *what, const char *s,
		      int64_t start, int64_t *out)
{
	int64_t off;

	if (parse_iso(s, out))
		return 0;
	if (*s == '+')
		s++;
	if (view_parse_duration(s, &off)) {
		/* past the largest time: as good as "the end" */
		if (__builtin_add_overflow(start, off, out))
			*out = INT64_MAX;
		return 0;
	}
	return cli_usage_error(cmd,
			       "%s: '%s' is neither a time like "
			       "2026-11-21T23:17:12Z (years 1970 to 2261) nor "
			       "an offset like 30s",
			       what, s);
}

void view_error(const char *cmd, const struct err *e)
{
	cli_problem(cmd, "error", e);
}

void view_close(struct store *s, struct query *q)
{
	query_free(q);
	store_close(s);
}

/* A store view_open() closes on failure is NULL to its caller, which
 * may close what it holds (report did, twice). */
static void view_drop(struct store **s)
{
	store_close(*s);
	*s = NULL;
}

int view_open(const char *cmd, int argc, char **argv, struct view_filters *f,
	      struct store **s, struct query **q)
{
	/* GNU getopt has moved the operands behind the options */
	return view_open_operands(cmd, argc - optind, argv + optind, f, s, q);
}

int view_open_operands(const char *cmd, int n_operands, char **operands,
		       struct view_filters *f, struct store **s,
		       struct query **q)
{
	const struct store_recording *recs;
	uint32_t n;
	int64_t start, bad;
	char *path;
	struct err e;
	int rc, status;

	/* one store, or the inputs to read into the cache store */
	*q = NULL;
	rc = cli_store_open(cmd, n_operands, operands, s, &path, &status);
	if (rc)
		return rc;
	free(path);
	err_init(&e);
	if (store_recordings(*s, &recs, &n, &e) < 0) {
		view_error(cmd, &e);
		goto fail;
	}
	if ((bad = missing_recording(f, n)) >= 0) {
		view_drop(s);
		return cli_usage_error(cmd,
				       "--recording %lld: the store holds "
				       "%u recording%s (0 to %u)",
				       (long long)bad, n, n == 1 ? "" : "s",
				       n ? n - 1 : 0);
	}
	if (query_time_origin(*s, origin_recording(f), &start, &e) < 0) {
		view_error(cmd, &e);
		goto fail;
	}
	if ((f->from &&
	     parse_time(cmd, "--from", f->from, start, &f->q.from_ns)) ||
	    (f->to && parse_time(cmd, "--to", f->to, start, &f->q.to_ns))) {
		view_drop(s);
		return EXIT_USAGE;
	}
	/* an empty window answers nothing: a mistake, not a question */
	if (f->from && f->to && f->q.from_ns >= f->q.to_ns) {
		view_drop(s);
		return cli_usage_error(cmd,
				       "--from %s is not before --to %s: the "
				       "time window is empty",
				       f->from, f->to);
	}
	if (query_open(*s, &f->q, q, &e) < 0) {
		rc = view_query_failed(cmd, &e, *s, NULL);
		*s = NULL;
		return rc;
	}
	return 0;
fail:
	view_drop(s);
	return EXIT_ERROR;
}

int view_query_failed(const char *cmd, const struct err *e, struct store *s,
		      struct query *q)
{
	int rc = e->code == ERR_USAGE ? EXIT_USAGE : EXIT_ERROR;

	if (rc == EXIT_USAGE)
		cli_usage_error(cmd, "%s", e->msg);
	else
		view_error(cmd, e);
	view_close(s, q);
	return rc;
}

int view_bucket_option(const char *cmd, const char *arg, int64_t *out)
{
	if (!view_parse_duration(arg, out) || *out <= 0)
		return cli_usage_error(cmd,
				       "--bucket: '%s' is not a duration like "
				       "1s or 500ms",
				       arg);
	return 0;
}

void view_add_rel_err(struct buf *b, double rel, bool csv)
{
	if (isnan(rel)) {
		if (!csv)
			buf_addf(b, "%7s", "-");
	} else if (csv) {
		buf_addf(b, "%.4f", rel);
	} else {
		buf_addf(b, "%6.*f%%", rel * 100.0 < 9.95 ? 1 : 0, rel * 100.0);
	}
}

int view_resolve(const char *cmd, struct store *s, struct view_filters *f)
{
	const struct store_recording *recs;
	uint32_t n;
	int64_t start, bad;
	struct err e;

	err_init(&e);
	if (store_recordings(s, &recs, &n, &e) < 0) {
		view_error(cmd, &e);
		return EXIT_ERROR;
	}
	if ((bad = missing_recording(f, n)) >= 0)
		return cli_usage_error(cmd,
				       "recording %lld: the store holds "
				       "%u recording%s (0 to %u)",
				       (long long)bad, n, n == 1 ? "" : "s",
				       n ? n - 1 : 0);
	if (query_time_origin(s, origin_recording(f), &start, &e) < 0) {
		view_error(cmd, &e);
		return EXIT_ERROR;
	}
	if ((f->from &&
	     parse_time(cmd, "--from", f->from, start, &f->q.from_ns)) ||
	    (f->to && parse_time(cmd, "--to", f->to, start, &f->q.to_ns)))
		return EXIT_USAGE;
	if (f->from && f->to && f->q.from_ns >= f->q.to_ns)
		return cli_usage_error(cmd,
				       "--from %s is not before --to %s: the "
				       "time window is empty",
				       f->from, f->to);
	return 0;
}
