/*
 * The findings' rules (src/findings/rules.c) on rates past what int64
 * holds: the store fuzzer made stores (fixtures/store/fuzz/
 * crash-rate-rule-*.hsdb) whose bytes over a tiny span give an
 * allocation rate of 1e19 and a peak of 2.3e19 bytes/s, and converting
 * those for the sentence was undefined (UBSan under make check stops
 * there; x86 gave INT64_MIN, a negative rate).  They are held at the
 * top (i64_held, util/size.h), and the stores, damaged further on, are
 * refused with a message.
 */
#include <math.h>
#include <string.h>

#include "test.h"
#include "findings/findings.h"
#include "query/query.h"
#include "store/store.h"
#include "util/size.h"

TEST(rules_rates_past_int64_are_held)
{
	CHECK_INT(i64_held(2.29714e19), ==, INT64_MAX);
	CHECK_INT(i64_held(0x1p63), ==, INT64_MAX);
	CHECK_INT(i64_held(-1e30), ==, INT64_MIN);
	CHECK_INT(i64_held(NAN), ==, 0);
	CHECK_INT(i64_held(123.9), ==, 123);
	CHECK_INT(i64_held(-0x1p62), ==, -((int64_t)1 << 62));
}

/* The findings of store name after a view's top by site, as the
 * fuzzer's harness ran them (what the top checks lazily is what the
 * rules then read): the rate rule runs on the store's huge sums, then
 * a later rule finds the damage. */
static void refused(const char *name)
{
	struct query_options o;
	const struct query_row *rows;
	struct query_total t;
	struct findings fs;
	struct query *q;
	struct store *s;
	struct err e;
	size_t n;

	err_init(&e);
	CHECK_INT(store_open(test_fixture(name), &s, &e), ==, 0);
	if (!s)
		return;
	query_options_init(&o);
	if (query_open(s, &o, &q, &e) == 0) {
		(void)query_top(q, GROUP_SITE, &rows, &n, &t, &e);
		query_free(q);
	}
	err_init(&e);
	memset(&fs, 0, sizeof(fs));
	CHECK_INT(query_findings(s, &o, name, "", &fs, &e), ==, -1);
	CHECK(strstr(e.msg, "store: section 'rollup buckets'") != NULL);
	store_close(s);
}

TEST(rules_on_stores_the_fuzzer_made_refuse_them_cleanly)
{
	refused("store/fuzz/crash-rate-rule-mean.hsdb");
	refused("store/fuzz/crash-rate-rule-median.hsdb");
}
