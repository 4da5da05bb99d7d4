/*
 * sort_u64() of sort_u64.h.
 */
#include "util/sort_u64.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static void radix_keys(uint64_t *k, size_t n)
{
	uint64_t *tmp = xmalloc(n * sizeof(*tmp)), *from = k, *to = tmp;
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	size_t cnt[2048], i;
	unsigned shift;

	for (i = 0; i < n; i++) {
		all_or |= k[i];
		all_and &= k[i];
	}
	for (shift = 0; shift < 64; shift += 11) {
		uint64_t *swap;
		size_t sum = 0, c, d;

		if (!(((all_or ^ all_and) >> shift) & 2047))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(from[i] >> shift) & 2047]++;
		for (d = 0; d < 2048; d++) {
			c = cnt[d];
			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[cnt[(from[i] >> shift) & 2047]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
	free(tmp);
}

static void insertion_keys(uint64_t *k, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		uint64_t x = k[i];

		for (j = i; j > 0 && k[j - 1] > x; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

/* the median of three as the pivot, the smaller side first (so the
 * stack stays shallow), down to runs of 16, which insertion finishes */
static void quick_keys(uint64_t *k, size_t n)
{
	while (n > 16) {
		uint64_t a = k[0], b = k[n / 2], c = k[n - 1], p, t;
		size_t i = 0, j = n - 1;

		p = a < b ? (b < c   ? b
			     : a < c ? c
				     : a)
			  : (a < c   ? a
			     : b < c ? c
				     : b);
		for (;;) {
			while (k[i] < p)
				i++;
			while (k[j] > p)
				j--;
			if (i >= j)
				break;
			t = k[i];
			k[i++] = k[j];
			k[j--] = t;
		}
		/* k[0..j] <= p <= k[j+1..n) */
		if (j + 1 < n - j - 1) {
			quick_keys(k, j + 1);
			k += j + 1;
			n -= j + 1;
		} else {
			quick_keys(k + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	insertion_keys(k, n);
}

void sort_u64(uint64_t *k, size_t n)
{
	if (n > 1024)
		radix_keys(k, n);
	else
		quick_keys(k, n);
}
