/*
 * The time sort declared in store_write_sort.h.
 */
#include "store/store_write_sort.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/bigmem.h"
#include "util/xalloc.h"

/*
 * order[] = the sample indices sorted by time, ties in import order.
 *
 * Imports are bound by memory, and on virtual machines first-touched
 * memory is the dearest part of it: an LSD radix sort of packed keys
 * needs 16 bytes a sample of fresh buffers, and on the bench file's
 * 2.5 million samples took 50 to 140 ms, mostly page faults.  So:
 *
 * - already sorted (synthetic and agent data often are): one pass;
 * - otherwise one MSD pass on the top 12 bits of time - min scatters
 *   the indices straight into order[] (stable: import order within a
 *   bucket), and each bucket, a few hundred samples for any real
 *   recording, is finished by an insertion sort when it is nearly
 *   sorted (insertion_sort), else by an LSD radix sort on the remaining
 *   bits in 8-bit digits, in scratch arrays the size of the largest
 *   bucket that stay in the cache.
 *
 * Skewed times (two recordings hours apart) make big buckets; the
 * scratch then grows to fit them, which is still linear.
 */
#define TOP_BITS 12
#define LOW_BITS 8

static inline uint64_t time_key(int64_t t)
{
	return (uint64_t)t ^ (1ull << 63); /* signed order as unsigned */
}

struct bucket_sort {
	uint64_t *k1, *k2;
	uint32_t *i1, *i2;
	size_t alloc;
};

/* Sort idx[0..m) by (time - lo) & ((1 << bits) - 1), stably. */
static void sort_bucket(struct bucket_sort *b, uint32_t *idx, size_t m,
			const int64_t *time, uint64_t lo, unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1, *kt;
	uint32_t count[1u << LOW_BITS], *it;
	unsigned shift;
	size_t j;

	if (m > b->alloc) {
		size_t na = m > 2 * b->alloc ? m : 2 * b->alloc;

		b->k1 = big_realloc(b->k1, b->alloc * 8, na * 8);
		b->k2 = big_realloc(b->k2, b->alloc * 8, na * 8);
		b->i1 = big_realloc(b->i1, b->alloc * 4, na * 4);
		b->i2 = big_realloc(b->i2, b->alloc * 4, na * 4);
		b->alloc = na;
	}
	for (j = 0; j < m; j++) {
		b->k1[j] = (time_key(time[idx[j]]) - lo) & mask;
		b->i1[j] = idx[j];
	}
	for (shift = 0; shift < bits; shift += LOW_BITS) {
		uint32_t sum = 0, c;
		unsigned d;
		bool moves = true;

		memset(count, 0, sizeof(count));
		for (j = 0; j < m; j++)
			count[(b->k1[j] >> shift) & ((1u << LOW_BITS) - 1)]++;
		for (d = 0; d < (1u << LOW_BITS); d++) {
			c = count[d];
			if (c == m)
				moves = false;
			count[d] = sum;
			sum += c;
		}
		if (!moves)
			continue;
		for (j = 0; j < m; j++) {
			uint32_t at = count[(b->k1[j] >> shift) &
					    ((1u << LOW_BITS) - 1)]++;

			b->k2[at] = b->k1[j];
			b->i2[at] = b->i1[j];
		}
		kt = b->k1, b->k1 = b->k2, b->k2 = kt;
		it = b->i1, b->i1 = b->i2, b->i2 = it;
	}
	memcpy(idx, b->i1, m * sizeof(uint32_t));
}

/*
 * Sort idx[0..m) by time, stably, by insertion, if that takes at most
 * 2m moves; else leave it partly sorted (still stable: equal times keep
 * their order) and return false, for sort_bucket to finish.  JFR's
 * buckets are nearly sorted: on the bench recording 82% of them were
 * sorted already and the rest had 0.2 descents on average, since a
 * bucket (under a millisecond) mostly holds one thread's buffer.
 */
static bool insertion_sort(uint32_t *idx, size_t m, const int64_t *time)
{
	size_t i, budget = 2 * m;

	for (i = 1; i < m; i++) {
		uint32_t x = idx[i];
		int64_t t = time[x];
		size_t j = i;

		while (j > 0 && t < time[idx[j - 1]]) {
			if (!budget) {
				idx[j] = x;
				return false;
			}
			budget--;
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = x;
	}
	return true;
}

void time_sort(const int64_t *time, uint32_t *order, size_t n)
{
	struct bucket_sort b = {NULL, NULL, NULL, NULL, 0};
	uint64_t lo, hi, span, t;
	uint32_t *count, sum = 0, c;
	unsigned bits = 0, shift;
	size_t i, d, start;
	bool sorted = true;

	if (n < 2 || !time) {
		for (i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		return;
	}
	lo = hi = time_key(time[0]);
	for (i = 1; i < n; i++) {
		t = time_key(time[i]);
		if (time[i] < time[i - 1])
			sorted = false;
		if (t < lo)
			lo = t;
		if (t > hi)
			hi = t;
	}
	if (sorted) {
		for (i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		return;
	}
	span = hi - lo;
	while (bits < 64 && (span >> bits))
		bits++;
	shift = bits > TOP_BITS ? bits - TOP_BITS : 0;
	/* n <= UINT32_MAX: the counts fit 32 bits; one extra for the end */
	count = xcalloc((1u << TOP_BITS) + 1, sizeof(uint32_t));
	for (i = 0; i < n; i++)
		count[(time_key(time[i]) - lo) >> shift]++;
	for (d = 0; d <= (1u << TOP_BITS); d++) {
		c = count[d];
		count[d] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		order[count[(time_key(time[i]) - lo) >> shift]++] = (uint32_t)i;
	/* count[d] is now bucket d's end, and the start of bucket d + 1 */
	for (d = 0, start = 0; d < (1u << TOP_BITS); d++) {
		size_t end = count[d];

		if (end - start > 1 && shift &&
		    !insertion_sort(order + start, end - start, time))
			sort_bucket(&b, order + start, end - start, time, lo,
				    shift);
		start = end;
	}
	free(count);
	big_free(b.k1, b.alloc * 8);
	big_free(b.k2, b.alloc * 8);
	big_free(b.i1, b.alloc * 4);
	big_free(b.i2, b.alloc * 4);
}
