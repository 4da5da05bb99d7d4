/*
 * Helpers the subcommands share (cli.h): usage errors, the input-limit
 * options, number parsing, output flushing, and the progress line.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input/walk.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/size.h"
#include "util/term.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	/* the values are the user's, echoed: escaped like any name */
	term_addf(&b, "heapsift %s: ", cmd);
	va_start(ap, fmt);
	term_vaddf(&b, fmt, ap);
	va_end(ap);
	term_addf(&b, "\nsee 'heapsift %s --help'\n", cmd);
	fputs(b.data, stderr);
	buf_release(&b);
	return EXIT_USAGE;
}

void cli_getopt_begin(void)
{
	/* 0, not 1: glibc then forgets the last scan's permutation state
	 * (musl and the BSDs restart on 0 too) */
	optind = 0;
	opterr = 0;
}

int cli_help(const char *text)
{
	fputs(text, stdout);
	return cli_finish_output(EXIT_OK);
}

int cli_getopt_error(const char *cmd, int c, char **argv)
{
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value",
				       argv[optind - 1]);
	return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

void cli_problem(const char *cmd, const char *severity, const struct err *e)
{
	struct buf b = BUF_INIT;

	cli_progress_done();
	fflush(stdout);
	buf_addf(&b, "heapsift %s: %s: ", cmd, severity);
	err_format(e, &b);
	buf_addch(&b, '\n');
	fputs(b.data, stderr);
	buf_release(&b);
}

bool cli_parse_count(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long whole;
	uint64_t mult = 1, v, frac = 0, frac_div = 1;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	whole = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	if (*end == '.') {
		end++;
		while (*end >= '0' && *end <= '9') {
			if (frac_div < 1000000) {
				frac = frac * 10 + (uint64_t)(*end - '0');
				frac_div *= 10;
			}
			end++;
		}
	}
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1ull << 40;
		end++;
		break;
	default:
		return false;
	}
	if (*end == 'i' && mult > 1)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return false;
	if (!u64_mul(whole, mult, &v))
		return false;
	if (frac && !u64_add(v, frac * mult / frac_div, &v))
		return false;
	*out = v;
	return true;
}

int cli_limit_option(const char *cmd, int opt, const char *arg,
		     struct input_limits *lim)
{
	uint64_t v;

	switch (opt) {
	case OPT_MAX_MEMBER_SIZE:
		if (!cli_parse_size(arg, &v) || !v)
			return cli_usage_error(cmd,
					       "--max-member-size: '%s' is "
					       "not a size like 512M or 4G",
					       arg);
		lim->max_member_bytes = v;
		return 0;
	case OPT_MAX_INPUT_SIZE:
		if (!cli_parse_size(arg, &v) || !v)
			return cli_usage_error(cmd,
					       "--max-input-size: '%s' is "
					       "not a size like 512M or 16G",
					       arg);
		lim->max_input_bytes = v;
		return 0;
	case OPT_MAX_RATIO:
		if (!cli_parse_count(arg, &v) || !v)
			return cli_usage_error(cmd,
					       "--max-ratio: '%s' is not a "
					       "positive whole number",
					       arg);
		lim->max_ratio = v;
		return 0;
	case OPT_MAX_DEPTH:
		if (!cli_parse_count(arg, &v) || v > 64)
			return cli_usage_error(cmd,
					       "--max-depth: '%s' is not a "
					       "number from 0 to 64",
					       arg);
		lim->max_depth = (unsigned)v;
		return 0;
	case OPT_MAX_MEMBERS:
		if (!cli_parse_count(arg, &v) || !v)
			return cli_usage_error(cmd,
					       "--max-members: '%s' is not a "
					       "positive whole number",
					       arg);
		lim->max_members = v;
		return 0;
	}
	return cli_usage_error(cmd, "unhandled option");
}

int cli_jobs_option(const char *cmd, const char *arg, unsigned *jobs)
{
	uint64_t v;

	if (!cli_parse_count(arg, &v) || !v || v > CLI_JOBS_MAX)
		return cli_usage_error(cmd,
				       "--jobs: '%s' is not a number from 1 "
				       "to %d",
				       arg, CLI_JOBS_MAX);
	*jobs = (unsigned)v;
	return 0;
}

/* the option, else HEAPSIFT_JOBS, else 0 */
static unsigned jobs_asked(unsigned option)
{
	const char *env = getenv("HEAPSIFT_JOBS");
	uint64_t v;

	if (option)
		return option;
	/* a bad value is ignored, as an unset one: it is no command line */
	if (env && cli_parse_count(env, &v) && v && v <= CLI_JOBS_MAX)
		return (unsigned)v;
	return 0;
}

/* the online CPUs less `spare`, from 1 to CLI_JOBS_DEFAULT_MAX: each
 * thread holds a chunk or two (pools, records), and past a few more
 * memory buys nothing, as one thread feeds the sink */
static unsigned jobs_default(long spare)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN) - spare;

	return n < 1			  ? 1
	       : n > CLI_JOBS_DEFAULT_MAX ? CLI_JOBS_DEFAULT_MAX
					  : (unsigned)n;
}

unsigned cli_jobs(unsigned option)
{
	unsigned j = jobs_asked(option);

	return j ? j : jobs_default(0);
}

/*
 * An import's store writer runs three busy threads of its own beside the
 * decoders (the sink on the main thread, the sort and window, the
 * encoder: about 60% of an import's CPU), so by default one CPU is left
 * to it.  On two CPUs that makes one decoder, on the main thread with
 * the sink, whose records then never cross to another core: against
 * two decoders, in turns on the 2-core bench machine (ab_import.py,
 * 2026-11-29), 2.2 GB -3.9% (-4.8..-3.0, 8 rounds), CPU -3.1%; 0.58 GB
 * -5.3% (-6.6..-4.0, 12 rounds), CPU -4.9%; 40 MiB less at the peak.
 */
unsigned cli_store_jobs(unsigned option)
{
	unsigned j = jobs_asked(option);

	return j ? j : jobs_default(1);
}

static int inputs_status = EXIT_OK;

void cli_inputs_status(int status)
{
	if (status == EXIT_ERROR ||
	    (status == EXIT_WARNED && inputs_status == EXIT_OK))
		inputs_status = status;
}

int cli_exit_status(int status)
{
	if (status != EXIT_OK && status != EXIT_WARNED)
		return status; /* the command's own failure says more */
	if (inputs_status == EXIT_ERROR)
		return EXIT_ERROR;
	if (inputs_status == EXIT_WARNED)
		return EXIT_WARNED;
	return status;
}

int cli_finish_output(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		term_fprintf(stderr,
			     "heapsift: error: writing standard output: %s\n",
			     err_io_reason(errno ? errno : EIO));
		return EXIT_ERROR;
	}
	return status;
}

/* --- the progress line -------------------------------------------------- */

static int progress_state = -1; /* -1 unknown, 0 off, 1 on */
static struct timespec progress_last;
static bool progress_shown;

bool cli_progress_enabled(void)
{
	if (progress_state < 0) {
		const char *term = getenv("TERM");

		progress_state = isatty(2) && !(term && !strcmp(term, "dumb"));
	}
	return progress_state == 1;
}

void cli_progress(const char *fmt, ...)
{
	struct timespec now;
	va_list ap;
	long ms;

	if (!cli_progress_enabled())
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - progress_last.tv_sec) * 1000 +
	     (now.tv_nsec - progress_last.tv_nsec) / 1000000;
	if (progress_shown && ms < 200)
		return;
	progress_last = now;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	term_vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_shown = true;
}

void cli_progress_done(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		progress_shown = false;
	}
}

const char *cli_member_status(const struct err *e, uint64_t bytes)
{
	if (!e)
		return bytes ? "ok" : "empty";
	switch (e->code) {
	case ERR_TRUNC:
		return "truncated";
	case ERR_LIMIT:
		return "limit";
	case ERR_UNSUPPORTED:
		return "unsupported";
	case ERR_IO:
		return "error";
	default:
		return "damaged";
	}
}
