/*
 * The rules of normalize.h, in one place, each with why the part it
 * removes changes between two runs of the same program.  Two names that
 * a rule makes equal are one key: their samples add up (query_top's
 * rows, the trees' and the exports' frames).  docs/export.md,
 * "Normalised names", states them for users.
 *
 * Classes (their display form, dotted, arrays as "[]" after the name):
 *
 *  1. A hidden class's suffix goes: from a '/' followed by a digit, or
 *     from "+0x", to the end of the name.  HotSpot names a hidden class
 *     by its class file's name, '+' and the address of its metadata
 *     (ClassFileParser::mangle_hidden_class_name; Class.getName() shows
 *     the '+' as '/'), and JFR adds '/' and a number of its own to the
 *     name it records: JDK 17 writes Foo$$Lambda$93+0x00007f4e94017000/
 *     1016925085, JDK 21 and later Foo$$Lambda/0x0000000801001800.
 *     Before JDK 15 a VM-anonymous class was named Foo$$Lambda$1/
 *     1234567 (an identity hash).  Addresses and hashes differ in each
 *     JVM.  A display name holds no '/' otherwise (packages are dotted).
 *  2. A lambda's counter goes: "$$Lambda$123" -> "$$Lambda".
 *     InnerClassLambdaMetafactory names the class of each lambda
 *     targetClass + "$$Lambda$" + a counter shared by the whole JVM
 *     (before JDK 21; since JDK-8292914 "$$Lambda" alone, and the hidden
 *     suffix tells them apart), so the number depends on how many
 *     lambdas were spun before, in any class.
 *  3. A proxy's number goes: "$Proxy12" -> "$Proxy", and with it the
 *     package java.lang.reflect.Proxy makes up, "jdk.proxyN." (JDK 16+:
 *     a dynamic module per class loader, numbered in order of use) and
 *     "com.sun.proxy." (JDK 8 to 15), so that jdk.proxy2.$Proxy26 and
 *     com.sun.proxy.$Proxy7 are both "$Proxy".  A proxy of a
 *     package-private interface lives in that interface's package,
 *     which stays.  The number counts proxies made so far in the JVM.
 *  4. The number of reflection's generated accessors goes:
 *     GeneratedMethodAccessor12, GeneratedConstructorAccessor3,
 *     GeneratedSerializationConstructorAccessor5 (JDK 8 to 17, after a
 *     method was called reflectively 15 times): numbered in order of
 *     generation.
 *  5. Code generators' suffixes go: "$$EnhancerByCGLIB$$1a2b3c",
 *     "$$EnhancerBySpringCGLIB$$1a2b3c", "$$FastClassByCGLIB$$..",
 *     "$$SpringCGLIB$$0" (any "$$...CGLIB$$" marker) keep the marker and
 *     lose the "$$id" after it; "$ByteBuddy$aBc12" and
 *     "$HibernateProxy$aBc12" lose the "$id".  The ids are hashes or
 *     counters of one JVM.
 *
 * Threads: every maximal run of decimal digits that does not directly
 * follow an ASCII letter becomes "N": pool-3-thread-17 ->
 * pool-N-thread-N, ForkJoinPool-1-worker-3 -> ForkJoinPool-N-worker-N,
 * Thread-12 -> Thread-N, http-nio-8080-exec-4 -> http-nio-N-exec-N, GC
 * Thread#0 -> GC Thread#N.  Executors, ForkJoinPool and Thread number
 * their threads (and pools) in order of creation, so the numbers say
 * when a thread was made, not what it does, and threads of one pool
 * become one key.  A run right after a letter is part of a word (C1 and
 * C2 CompilerThread0, G1 Main Marker, worker1 of a program that names
 * its threads itself), and stays, so that different kinds of thread are
 * not merged.  The port of http-nio-8080 goes too: one rule that needs
 * no list of server names.
 */
#include "query/normalize.h"

#include <string.h>

#include "util/buf.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_digit(c) || is_alpha(c);
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Rule 1: where the hidden suffix of base[0, len) starts; len: none. */
static size_t hidden_suffix(const char *base, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (base[i] == '/' && i + 1 < len && is_digit(base[i + 1]))
			return i;
		if (base[i] == '+' && i + 3 < len && base[i + 1] == '0' &&
		    base[i + 2] == 'x' && is_hex(base[i + 3]))
			return i;
	}
	return len;
}

/* Whether b's data ends with "$" + digits of which the "$" is at
 * *at, the digits being the last; its length to keep in *keep. */
static bool ends_counter(const struct buf *b, const char *marker, size_t *keep)
{
	size_t n = b->len, m = strlen(marker);

	while (n > 0 && is_digit(b->data[n - 1]))
		n--;
	if (n == b->len || n < m || memcmp(b->data + n - m, marker, m))
		return false;
	*keep = n - 1; /* the marker's last '$' goes with the number */
	return true;
}

/* Rule 5's generated suffixes: "$$<word with CGLIB>$$<id>" keeps the
 * marker, "$ByteBuddy$<id>" and "$HibernateProxy$<id>" too. */
static void generator_suffix(struct buf *b)
{
	static const char *const single[] = {"$ByteBuddy$", "$HibernateProxy$"};
	size_t n = b->len, i;

	while (n > 0 && (is_alnum(b->data[n - 1]) || b->data[n - 1] == '_'))
		n--;
	if (n == b->len || n < 2)
		return;
	for (i = 0; i < sizeof(single) / sizeof(single[0]); i++) {
		size_t m = strlen(single[i]);

		if (n >= m && !memcmp(b->data + n - m, single[i], m)) {
			buf_setlen(b, n - 1);
			return;
		}
	}
	if (b->data[n - 1] == '$' && b->data[n - 2] == '$') {
		/* the marker before: "$$" letters "$$" */
		size_t w = n - 2;

		while (w > 0 && is_alpha(b->data[w - 1]))
			w--;
		if (w >= 2 && b->data[w - 1] == '$' && b->data[w - 2] == '$' &&
		    memmem(b->data + w, n - 2 - w, "CGLIB", 5))
			buf_setlen(b, n - 2);
	}
}

/* Rules 3 and 4 on the simple name, which starts at b->data[s]. */
static void numbered_simple_name(struct buf *b, size_t s)
{
	static const char *const accessors[] = {
		"GeneratedMethodAccessor", "GeneratedConstructorAccessor",
		"GeneratedSerializationConstructorAccessor"};
	size_t n = b->len, i;

	while (n > s && is_digit(b->data[n - 1]))
		n--;
	if (n == b->len)
		return;
	if (n - s == 6 && !memcmp(b->data + s, "$Proxy", 6)) {
		static const char *const made_up[] = {"com.sun.proxy.",
						      "jdk.proxy"};

		buf_setlen(b, n);
		for (i = 0; i < 2; i++) {
			size_t m = strlen(made_up[i]), p = m;

			if (s < m || memcmp(b->data, made_up[i], m))
				continue;
			while (p < s && is_digit(b->data[p]))
				p++;
			/* the whole package, and nothing but it */
			if (p + 1 == s || (i == 0 && p == s)) {
				memmove(b->data, b->data + s, b->len - s);
				buf_setlen(b, b->len - s);
			}
		}
		return;
	}
	for (i = 0; i < sizeof(accessors) / sizeof(accessors[0]); i++)
		if (n - s == strlen(accessors[i]) &&
		    !memcmp(b->data + s, accessors[i], n - s)) {
			buf_setlen(b, n);
			return;
		}
}

bool normalize_class(const char *s, struct buf *out)
{
	size_t len = strlen(s), base = len, keep, simple, start = out->len;
	struct buf b = BUF_INIT;
	bool changed;

	/* an array's "[]"s stay at the end */
	while (base >= 2 && s[base - 2] == '[' && s[base - 1] == ']')
		base -= 2;
	buf_add(&b, s, hidden_suffix(s, base));
	if (ends_counter(&b, "$$Lambda$", &keep))
		buf_setlen(&b, keep);
	generator_suffix(&b);
	simple = b.len;
	while (simple > 0 && b.data[simple - 1] != '.')
		simple--;
	numbered_simple_name(&b, simple);
	buf_add(out, b.data, b.len);
	buf_add(out, s + base, len - base);
	changed = out->len - start != len || memcmp(out->data + start, s, len);
	buf_release(&b);
	return changed;
}

bool normalize_frame(const char *s, struct buf *out)
{
	size_t end = strlen(s), dot, line = end;
	struct buf cls = BUF_INIT;
	bool changed;

	/* ":line" at the end, digits only */
	while (line > 0 && is_digit(s[line - 1]))
		line--;
	if (line < end && line > 0 && s[line - 1] == ':')
		end = line - 1;
	dot = end;
	while (dot > 0 && s[dot - 1] != '.')
		dot--;
	if (dot < 2) {
		buf_adds(out, s);
		return false;
	}
	buf_add(&cls, s, dot - 1);
	changed = normalize_class(cls.data, out);
	buf_adds(out, s + dot - 1);
	buf_release(&cls);
	return changed;
}

bool normalize_thread(const char *s, struct buf *out)
{
	bool changed = false;
	size_t i = 0;

	while (s[i]) {
		if (is_digit(s[i]) && !(i > 0 && is_alpha(s[i - 1]))) {
			while (is_digit(s[i]))
				i++;
			buf_addch(out, 'N');
			changed = true;
			continue;
		}
		buf_addch(out, s[i++]);
	}
	return changed;
}
