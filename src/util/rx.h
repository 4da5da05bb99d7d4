/*
 * PCRE2, the two ways heapsift uses it: tables of fixed patterns, and a
 * user's regex (below).
 *
 * Tables of fixed PCRE2 patterns for the text grammars (code-heap
 * reports, javacores): compiled once per process, JIT-enabled, and
 * shared read-only by every parse.  Each parse owns a match block (the
 * match data is per thread of use, the compiled code is not).
 *
 * A table is a static struct rx_table naming its patterns; the first
 * rx_match() compiles all of them under a pthread_once.  A pattern that
 * does not compile is a programming error and aborts with its text: the
 * tables are constants, checked by the unit tests.
 */
#ifndef HS_RX_H
#define HS_RX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RX_MAX_GROUPS 16

struct rx_table {
	const char *const *patterns; /* n of them */
	size_t n;
	/* filled on first use */
	pthread_once_t once;
	void **codes; /* pcre2_code * */
};

#define RX_TABLE(pats)                                                       \
	{                                                                    \
		(pats), sizeof(pats) / sizeof((pats)[0]), PTHREAD_ONCE_INIT, \
			NULL                                                 \
	}

/* A match: group i is s[start[i], end[i]); start[i] == -1 if unset. */
struct rx_match {
	void *md; /* pcre2_match_data * */
	const char *s;
	int n; /* groups matched, 0 = the whole match */
	long start[RX_MAX_GROUPS], end[RX_MAX_GROUPS];
};

void rx_match_init(struct rx_match *m);
void rx_match_release(struct rx_match *m);

/* Match pattern idx of t against s[0..len) (anchoring is the pattern's). */
bool rx_match(struct rx_table *t, size_t idx, const char *s, size_t len,
	      struct rx_match *m);

/* Group i as a slice, a decimal or hex integer; false when unset or out
 * of range (an integer over INT64_MAX, say). */
bool rx_group(const struct rx_match *m, int i, const char **p, size_t *len);
bool rx_int(const struct rx_match *m, int i, int64_t *v);
bool rx_hex(const struct rx_match *m, int i, uint64_t *v); /* "0x" optional */

/*
 * A user's regex: the query engine's filters (the CLI's --class,
 * --thread, --include, --exclude) and the browser's search and filter.
 * One wrapper, so that the CLI and the browser give the same answer for
 * the same pattern and name, and the same message for a pattern that
 * does not compile.  Names come from files: invalid UTF-8 in them is
 * matched safely rather than refused.
 *
 * A pathological pattern ("(a+)+$") backtracks exponentially, so a match
 * stops after RX_USER_MATCH_LIMIT steps and counts as no match.  The
 * browser filters and searches thousands of rows while the user waits:
 * 100,000 steps take about a tenth of a millisecond under PCRE2's JIT (a
 * millisecond interpreted), so ten thousand rows hold it about a second,
 * where 1,000,000 held it ten.  A pattern that is not pathological stays
 * far below it even on names of hundreds of characters, so the CLI's
 * batch filters lose nothing they should find.  The depth limit bounds
 * the interpreter's memory, its nested backtracking frames (a few MB at
 * 10,000; the JIT ignores it): at 1,000 the interpreter gave up on a
 * plain "(a|b)*x" over a name of 800 characters.
 */
#define RX_USER_MATCH_LIMIT 100000
#define RX_USER_DEPTH_LIMIT 10000

struct err;
struct rx_user;

/* pattern compiled, to rx_user_free(); NULL when it does not compile,
 * with e set (ERR_USAGE: "'PATTERN' is not a valid regex: WHY at offset
 * N"). */
struct rx_user *rx_user_new(const char *pattern, struct err *e);
void rx_user_free(struct rx_user *re); /* NULL: nothing to do */

/* Whether re matches somewhere in the string s.  re holds the match's
 * scratch space: one thread at a time. */
bool rx_user_match(const struct rx_user *re, const char *s);

#endif
