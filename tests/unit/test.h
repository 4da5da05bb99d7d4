/*
 * The unit-test harness: one binary, cases found by the TEST() marker.
 *
 * The Makefile greps the .c files in tests/unit for lines that start with
 * "TEST(" and generates the table the runner walks, so a case exists by
 * being written; nothing registers it by hand.  A failed CHECK prints
 * file:line and both values, marks the case failed and goes on, so one
 * run shows every broken assertion.
 */
#ifndef HS_TEST_H
#define HS_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int test_failures;	 /* failed checks in the current case */
extern const char *test_skipped; /* why the current case skipped, or NULL */

#define TEST(name)              \
	void test_##name(void); \
	void test_##name(void)

/*
 * TEST_ON_REQUEST(name): a case that needs what only a CLI suite can
 * provide (a library it finds or installs), run only when an argument
 * of the runner selects it, never by the plain run, which would have to
 * skip it every time.  The suite that provides the thing runs it
 * (tests/cli/duckdb_dl.sh: `$UNIT duckdb_dl_lib_` with the library), so
 * it is counted, or skipped visibly, there.
 */
#define TEST_ON_REQUEST(name) TEST(name)

void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * SKIP("why"): end the current case as skipped, visibly ("skip NAME: why",
 * counted, never a pass), for a case that needs something optional that
 * this machine lacks.  Only before the first CHECK: checks already failed
 * still fail the case.
 */
#define SKIP(why)                     \
	do {                          \
		test_skipped = (why); \
		return;               \
	} while (0)

/* Path of a file under fixtures/ (HS_FIXTURES, default "fixtures"). */
const char *test_fixture(const char *name);

/* The whole file at path, NUL-terminated (*len not counting the NUL), to
 * free(); NULL when it cannot be opened. */
char *test_read_file(const char *path, size_t *len);

/*
 * The store tests build by hand through a writer's sink: commit w to
 * DIR/NAME, free w, and open the result (NULL after a test_fail naming
 * the caller's line).  test_store_remove() deletes DIR/NAME and DIR.
 */
struct store;
struct store_writer;
#define test_store_commit(w, dir, name) \
	test_store_commit_at(__FILE__, __LINE__, (w), (dir), (name))
struct store *test_store_commit_at(const char *file, int line,
				   struct store_writer *w, const char *dir,
				   const char *name);
void test_store_remove(const char *dir, const char *name);

/* End the samples sent to w's sink as one JFR recording, r.jfr, of one
 * chunk from start to end. */
void test_recording_end(struct store_writer *w, int64_t start, int64_t end);

/* test_recording_end(), then w committed as test_store_commit() does. */
#define test_recording_commit(w, start, end, dir, name)                   \
	test_recording_commit_at(__FILE__, __LINE__, (w), (start), (end), \
				 (dir), (name))
struct store *test_recording_commit_at(const char *file, int line,
				       struct store_writer *w, int64_t start,
				       int64_t end, const char *dir,
				       const char *name);

/* A xorshift64 step of *state (not 0): the tests' reproducible draws. */
uint64_t test_rand(uint64_t *state);

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond))                                               \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
	} while (0)

#define CHECK_INT(a, op, b)                                                   \
	do {                                                                  \
		intmax_t a_ = (intmax_t)(a), b_ = (intmax_t)(b);              \
		if (!(a_ op b_))                                              \
			test_fail(__FILE__, __LINE__, "%s %s %s: %jd vs %jd", \
				  #a, #op, #b, a_, b_);                       \
	} while (0)

#define CHECK_UINT(a, op, b)                                                  \
	do {                                                                  \
		uintmax_t a_ = (uintmax_t)(a), b_ = (uintmax_t)(b);           \
		if (!(a_ op b_))                                              \
			test_fail(__FILE__, __LINE__,                         \
				  "%s %s %s: %ju (0x%jx) vs %ju (0x%jx)", #a, \
				  #op, #b, a_, a_, b_, b_);                   \
	} while (0)

#define CHECK_STR(a, b)                                               \
	do {                                                          \
		const char *a_ = (a), *b_ = (b);                      \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                \
			test_fail(__FILE__, __LINE__,                 \
				  "%s == %s:\n  actual:   \"%s\"\n  " \
				  "expected: \"%s\"",                 \
				  #a, #b, a_ ? a_ : "(null)",         \
				  b_ ? b_ : "(null)");                \
	} while (0)

/* Like CHECK_STR, for a string that must contain a fragment. */
#define CHECK_CONTAINS(hay, needle)                                       \
	do {                                                              \
		const char *h_ = (hay), *n_ = (needle);                   \
		if (!h_ || !strstr(h_, n_))                               \
			test_fail(__FILE__, __LINE__,                     \
				  "%s contains %s:\n  actual: \"%s\"\n  " \
				  "missing: \"%s\"",                      \
				  #hay, #needle, h_ ? h_ : "(null)", n_); \
	} while (0)

#endif
