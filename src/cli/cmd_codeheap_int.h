/*
 * heapsift codeheap's inside (cmd_codeheap.c, the command, its CSV and
 * its comparison; cmd_codeheap_text.c, the text it prints of each
 * snapshot and heap): the options both read, and the text's two entry
 * points.  Private to src/cli.
 */
#ifndef HS_CMD_CODEHEAP_INT_H
#define HS_CMD_CODEHEAP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "query/query_codeheap.h"
#include "util/buf.h"

/* The command's options, as codeheap_parse() reads them. */
struct codeheap_options {
	const char *heap;
	int64_t snapshot; /* -1: all */
	enum chq_flavour flavour;
	uint32_t width;
	bool csv, granules;
	int64_t cmp_a, cmp_b; /* --compare, -1: not given */
	int n_operands;
	char **operands;
};

/* Snapshot sn's heading, its facts, a javacore's memory and a codelist's
 * methods by state, as text, appended to b. */
void codeheap_text_snapshot(const struct chq *q, uint32_t sn, struct buf *b);
/* Heap h's facts, its largest blocks, its blocks by type and age, and
 * its granule map in o's flavour and width, as text, appended to b. */
void codeheap_text_heap(const struct chq *q, uint32_t h,
			const struct codeheap_options *o, struct buf *b);

#endif
