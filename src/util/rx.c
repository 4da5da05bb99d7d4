/*
 * Fixed-pattern tables and users' regexes over PCRE2; see rx.h.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "util/rx.h"

#include <pcre2.h>
#include <stdlib.h>

#include "util/err.h"
#include "util/xalloc.h"

/* pthread_once takes no argument: the table being compiled is passed
 * through this, under rx_lock. */
static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rx_table *rx_compiling;

static void compile_table(void)
{
	struct rx_table *t = rx_compiling;
	void **codes = xcalloc(t->n, sizeof(*codes));
	size_t i;

	for (i = 0; i < t->n; i++) {
		int code;
		PCRE2_SIZE at;
		pcre2_code *c = pcre2_compile(
			(PCRE2_SPTR)t->patterns[i], PCRE2_ZERO_TERMINATED,
			PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &at, NULL);

		if (!c) {
			PCRE2_UCHAR msg[160];

			pcre2_get_error_message(code, msg, sizeof(msg));
			BUG("bad built-in pattern %s: %s", t->patterns[i],
			    (const char *)msg);
		}
		/* without JIT (some platforms) the interpreter still works */
		pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
		codes[i] = c;
	}
	/* published whole: rx_match() reads it without the lock */
	__atomic_store_n(&t->codes, codes, __ATOMIC_RELEASE);
}

static void ensure_compiled(struct rx_table *t)
{
	pthread_mutex_lock(&rx_lock);
	rx_compiling = t;
	pthread_once(&t->once, compile_table);
	pthread_mutex_unlock(&rx_lock);
}

void rx_match_init(struct rx_match *m)
{
	m->md = pcre2_match_data_create(RX_MAX_GROUPS, NULL);
	if (!m->md)
		die("out of memory");
	m->s = NULL;
	m->n = 0;
}

void rx_match_release(struct rx_match *m)
{
	pcre2_match_data_free(m->md);
	m->md = NULL;
}

bool rx_match(struct rx_table *t, size_t idx, const char *s, size_t len,
	      struct rx_match *m)
{
	PCRE2_SIZE *ov;
	int rc, i;

	/* published by pthread_once; the acquire pairs with it */
	if (!__atomic_load_n(&t->codes, __ATOMIC_ACQUIRE))
		ensure_compiled(t);
	rc = pcre2_match(t->codes[idx], (PCRE2_SPTR)s, len, 0, 0, m->md, NULL);
	if (rc <= 0)
		return false;
	ov = pcre2_get_ovector_pointer(m->md);
	m->s = s;
	m->n = rc;
	for (i = 0; i < RX_MAX_GROUPS; i++) {
		if (i < rc && ov[2 * i] != PCRE2_UNSET) {
			m->start[i] = (long)ov[2 * i];
			m->end[i] = (long)ov[2 * i + 1];
		} else {
			m->start[i] = m->end[i] = -1;
		}
	}
	return true;
}

bool rx_group(const struct rx_match *m, int i, const char **p, size_t *len)
{
	if (i < 0 || i >= RX_MAX_GROUPS || m->start[i] < 0)
		return false;
	*p = m->s + m->start[i];
	*len = (size_t)(m->end[i] - m->start[i]);
	return true;
}

bool rx_int(const struct rx_match *m, int i, int64_t *v)
{
	const char *p;
	size_t n, k;
	uint64_t x = 0;
	bool neg = false;

	if (!rx_group(m, i, &p, &n) || !n)
		return false;
	k = 0;
	if (p[0] == '-') {
		neg = true;
		k = 1;
	}
	if (k == n)
		return false;
	for (; k < n; k++) {
		if (p[k] < '0' || p[k] > '9' || x > (UINT64_C(1) << 62))
			return false;
		x = x * 10 + (uint64_t)(p[k] - '0');
	}
	if (x > INT64_MAX)
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

bool rx_hex(const struct rx_match *m, int i, uint64_t *v)
{
	const char *p;
	size_t n, k = 0;
	uint64_t x = 0;

	if (!rx_group(m, i, &p, &n))
		return false;
	if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		k = 2;
	if (k == n || n - k > 16)
		return false;
	for (; k < n; k++) {
		int d;
		char c = p[k];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

/* --- a user's regex ------------------------------------------------------ */

struct rx_user {
	pcre2_code *code;
	pcre2_match_data *md;
	pcre2_match_context *mc;
};

struct rx_user *rx_user_new(const char *pattern, struct err *e)
{
	struct rx_user *re;
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile(
		(PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
		PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);

	if (!c) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(code, msg, sizeof(msg));
		err_set(e, ERR_USAGE,
			"'%s' is not a valid regex: %s at offset %zu", pattern,
			(const char *)msg, (size_t)off);
		return NULL;
	}
	re = xcalloc(1, sizeof(*re));
	re->code = c;
	pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* else interpreted */
	re->md = pcre2_match_data_create_from_pattern(c, NULL);
	re->mc = pcre2_match_context_create(NULL);
	if (!re->md || !re->mc)
		die("out of memory for a regex");
	pcre2_set_match_limit(re->mc, RX_USER_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mc, RX_USER_DEPTH_LIMIT);
	return re;
}

void rx_user_free(struct rx_user *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mc);
	pcre2_code_free(re->code);
	free(re);
}

bool rx_user_match(const struct rx_user *re, const char *s)
{
	/* an error (a limit hit) is a negative status: no match */
	return pcre2_match(re->code, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0,
			   re->md, re->mc) >= 0;
}
