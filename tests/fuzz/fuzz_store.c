/*
 * libFuzzer harness for opening and reading a store: any bytes as an
 * .hsdb, every section asked for, and a query with every group-by, a
 * tree and a timeline run over whatever was accepted.  A store that
 * passes its checks must never make a query read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "query/query.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* aligned copy of exactly size bytes: ASan sees any over-read */
	void *copy = aligned_alloc(8, (size + 7) / 8 * 8 + 8);
	struct store *s;
	struct query *q;
	struct query_options o;
	struct err e;

	memcpy(copy, data, size);
	err_init(&e);
	if (store_open_memory("fuzz.hsdb", copy, size, &s, &e) == 0) {
		if (store_verify(s, &e) == 0) {
			query_options_init(&o);
			o.include_re = "a";
			if (query_open(s, &o, &q, &e) == 0) {
				const struct query_row *rows;
				const struct query_tree_node *nodes;
				const struct query_bucket *b;
				struct query_total t;
				size_t n;
				int64_t w = 0;
				int g;

				for (g = GROUP_CLASS; g <= GROUP_RECORDING; g++)
					query_top(q, g, &rows, &n, &t, &e);
				query_tree(q, false, 0, &nodes, &n, &t, &e);
				query_tree(q, true, 8, &nodes, &n, &t, &e);
				query_timeline(q, &w, &b, &n, &t, &e);
				query_free(q);
			}
		}
		store_close(s);
	}
	free(copy);
	return 0;
}
