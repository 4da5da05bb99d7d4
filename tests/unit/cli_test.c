/*
 * Unit tests for the CLI's shared parsing (src/cli/cli.c, and the
 * options the store views share, src/cli/cli_view.c).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_view.h"
#include "input/walk.h"
#include "test.h"

TEST(cli_parse_size_suffixes)
{
	uint64_t v = 0;

	CHECK(cli_parse_size("0", &v) && v == 0);
	CHECK(cli_parse_size("123", &v) && v == 123);
	CHECK(cli_parse_size("4K", &v) && v == 4096);
	CHECK(cli_parse_size("4k", &v) && v == 4096);
	CHECK(cli_parse_size("512M", &v) && v == 512ull << 20);
	CHECK(cli_parse_size("4G", &v) && v == 4ull << 30);
	CHECK(cli_parse_size("4GiB", &v) && v == 4ull << 30);
	CHECK(cli_parse_size("2T", &v) && v == 2ull << 40);
	CHECK(cli_parse_size("1.5G", &v) && v == 3ull << 29);
	CHECK(!cli_parse_size("", &v));
	CHECK(!cli_parse_size("-1", &v));
	CHECK(!cli_parse_size("12X", &v));
	CHECK(!cli_parse_size("G", &v));
	CHECK(!cli_parse_size("99999999999T", &v)); /* overflows 64 bits */
	CHECK(!cli_parse_size("18446744073709551616", &v));
}

/* The decoders by default: the CPUs, at most 4, for dump; one less, at
 * least 1, where they feed a store; the option, then HEAPSIFT_JOBS,
 * first (docs/heapsift.1, ENVIRONMENT). */
TEST(cli_jobs_defaults_leave_a_cpu_to_the_store_writer)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned dump = n < 1 ? 1 : n > 4 ? 4 : (unsigned)n;
	unsigned store = n - 1 < 1 ? 1 : n - 1 > 4 ? 4 : (unsigned)(n - 1);
	char *old = getenv("HEAPSIFT_JOBS");
	char *saved = old ? strdup(old) : NULL;

	unsetenv("HEAPSIFT_JOBS");
	CHECK(cli_jobs(0) == dump);
	CHECK(cli_store_jobs(0) == store);
	CHECK(cli_jobs(7) == 7 && cli_store_jobs(7) == 7);
	setenv("HEAPSIFT_JOBS", "9", 1);
	CHECK(cli_jobs(0) == 9 && cli_store_jobs(0) == 9);
	CHECK(cli_store_jobs(2) == 2);
	setenv("HEAPSIFT_JOBS", "0", 1); /* not a count: the default */
	CHECK(cli_store_jobs(0) == store);
	setenv("HEAPSIFT_JOBS", "65", 1); /* past CLI_JOBS_MAX */
	CHECK(cli_jobs(0) == dump);
	if (saved) {
		setenv("HEAPSIFT_JOBS", saved, 1);
		free(saved);
	} else {
		unsetenv("HEAPSIFT_JOBS");
	}
}

TEST(cli_parse_count_rejects_junk)
{
	uint64_t v = 0;

	CHECK(cli_parse_count("10000", &v) && v == 10000);
	CHECK(!cli_parse_count("10k", &v));
	CHECK(!cli_parse_count(" 1", &v));
	CHECK(!cli_parse_count("-3", &v));
	CHECK(!cli_parse_count("", &v));
}

TEST(cli_limit_options_set_limits)
{
	struct input_limits lim;

	input_limits_default(&lim);
	CHECK_INT(cli_limit_option("t", OPT_MAX_MEMBER_SIZE, "1M", &lim), ==,
		  0);
	CHECK_UINT(lim.max_member_bytes, ==, 1 << 20);
	CHECK_INT(cli_limit_option("t", OPT_MAX_DEPTH, "3", &lim), ==, 0);
	CHECK_UINT(lim.max_depth, ==, 3);
	CHECK_INT(cli_limit_option("t", OPT_MAX_RATIO, "0", &lim), ==,
		  EXIT_USAGE);
	CHECK_INT(cli_limit_option("t", OPT_MAX_DEPTH, "65", &lim), ==,
		  EXIT_USAGE);
	CHECK_UINT(lim.max_ratio, ==, LIMIT_RATIO);
}

TEST(view_shared_options_parse_or_say_usage)
{
	enum query_group by = GROUP_CLASS;
	uint64_t limit = 7;

	CHECK_INT(view_group_option("t", "app-site", &by), ==, 0);
	CHECK_INT(by, ==, GROUP_APP_SITE);
	CHECK_INT(view_group_option("t", "age", &by), ==, EXIT_USAGE);
	CHECK_INT(view_limit_option("t", "0", &limit), ==, 0);
	CHECK_UINT(limit, ==, 0);
	CHECK_INT(view_limit_option("t", "12", &limit), ==, 0);
	CHECK_UINT(limit, ==, 12);
	CHECK_INT(view_limit_option("t", "-1", &limit), ==, EXIT_USAGE);
	CHECK_INT(view_limit_option("t", "1k", &limit), ==, EXIT_USAGE);
}

TEST(view_default_option_takes_filters_and_getopt_errors)
{
	char *argv[] = {"heapsift", "--nope", NULL};
	struct view_filters f;

	view_filters_init(&f);
	optarg = "java\\.util";
	CHECK_INT(view_default_option("t", OPT_CLASS, argv, &f), ==, 0);
	CHECK_STR(f.q.class_re, "java\\.util");
	optarg = "old";
	CHECK_INT(view_default_option("t", OPT_KIND, argv, &f), ==, 0);
	CHECK_INT(f.q.kind, ==, SAMPLE_OLD_OBJECT);
	optarg = "young";
	CHECK_INT(view_default_option("t", OPT_KIND, argv, &f), ==, EXIT_USAGE);
	optind = 2; /* getopt has just read argv[1] */
	CHECK_INT(view_default_option("t", '?', argv, &f), ==, EXIT_USAGE);
	CHECK_INT(view_default_option("t", ':', argv, &f), ==, EXIT_USAGE);
}
