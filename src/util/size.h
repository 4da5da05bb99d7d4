/*
 * Overflow-checked size arithmetic.
 *
 * Every size read from a file is combined with others before it is used to
 * allocate or index; these helpers make the overflow check the only way to
 * do that.  Each returns true and stores the result when it fits, false
 * (leaving *out untouched) when it does not.  Both gcc and clang provide
 * the builtins.
 */
#ifndef HS_SIZE_H
#define HS_SIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool size_add(size_t a, size_t b, size_t *out)
{
	size_t r;

	if (__builtin_add_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

static inline bool size_mul(size_t a, size_t b, size_t *out)
{
	size_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

static inline bool u64_add(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

static inline bool u64_mul(uint64_t a, uint64_t b, uint64_t *out)
{
	uint64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return false;
	*out = r;
	return true;
}

/*
 * Does the range [off, off + len) lie inside a buffer of total bytes?
 * The question every reader of a length field must ask; it cannot
 * overflow whatever the three values are.
 */
static inline bool range_ok(uint64_t off, uint64_t len, uint64_t total)
{
	return off <= total && len <= total - off;
}

/* Round up to a multiple of align (a power of two); false on overflow. */
static inline bool size_align(size_t n, size_t align, size_t *out)
{
	size_t r;

	if (!size_add(n, align - 1, &r))
		return false;
	*out = r & ~(align - 1);
	return true;
}

/* A double as int64, held at int64's ends (NaN: 0): converting one
 * past them is undefined.  For rates, slopes and means made of a damaged
 * store's sums over a tiny span, which can be any double. */
static inline int64_t i64_held(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 0x1p63)
		return INT64_MAX;
	if (v <= -0x1p63)
		return INT64_MIN;
	return (int64_t)v;
}

#endif
