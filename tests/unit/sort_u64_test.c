/*
 * sort_u64() against qsort on the same keys: sizes on both sides of the
 * insertion and radix cut-offs, keys that share their high or low
 * halves (the digits the radix sort skips), many equal keys, runs
 * already sorted and reversed.
 */
#include <stdlib.h>

#include "test.h"
#include "util/sort_u64.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

TEST(sort_u64_sorts_as_qsort_does)
{
	static const size_t sizes[] = {0,  1,  2,    3,	   15,	 16,   17,
				       33, 64, 1000, 1024, 1025, 4099, 100000};
	uint64_t rng = 0x1234567887654321ull;
	size_t s, i;
	int shape;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (shape = 0; shape < 6; shape++) {
			size_t n = sizes[s];
			uint64_t *k = malloc((n ? n : 1) * sizeof(*k));
			uint64_t *want = malloc((n ? n : 1) * sizeof(*want));

			for (i = 0; i < n; i++) {
				uint64_t x = test_rand(&rng);

				switch (shape) {
				case 0: /* anything */
					k[i] = x;
					break;
				case 1: /* a site and a node: low bits vary */
					k[i] = (uint64_t)7 << 32 | (x % 5000);
					break;
				case 2: /* few distinct keys */
					k[i] = (x % 3) << 40 | (x >> 62);
					break;
				case 3: /* sorted already */
					k[i] = (uint64_t)i << 20;
					break;
				case 4: /* reversed */
					k[i] = (uint64_t)(n - i) << 33 | 5;
					break;
				default: /* all equal */
					k[i] = 42;
				}
				want[i] = k[i];
			}
			qsort(want, n, sizeof(*want), u64_cmp);
			sort_u64(k, n);
			for (i = 0; i < n; i++)
				if (k[i] != want[i]) {
					test_fail(__FILE__, __LINE__,
						  "%zu keys, shape %d: key %zu "
						  "is %llx, not %llx",
						  n, shape, i,
						  (unsigned long long)k[i],
						  (unsigned long long)want[i]);
					break;
				}
			free(k);
			free(want);
		}
}
