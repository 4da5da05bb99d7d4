/*
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

#endif
