/*
 * The rollup builder, inside (store_write_rollup.h is its contract): what
 * the builder fed a sample at a time (store_write_rollup.c) and its
 * finish at commit (store_write_rollup_finish.c: the rows put on the
 * recordings' widths and nodes, the whole recordings' rows, the rows
 * written out) share: the rows as they are built, the series, the
 * builder, and the few functions of the builder that the finish calls
 * again on rows instead of samples.  Private to src/store.
 */
#ifndef HS_STORE_WRITE_ROLLUP_INT_H
#define HS_STORE_WRITE_ROLLUP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store_write_rollup.h"

/* A row as it is built: the row, the sum of its samples' squared bytes
 * (2.2) and the corrected estimate's sums (2.3, struct store_rollup_est:
 * est_a, est_sq), which go to three sections. */
struct brow {
	struct store_rollup_row r; /* first: key_cmp() reads it */
	unsigned __int128 sq, est_sq;
	int64_t est_a;
};

/* What a run of samples adds to a row besides the row's own sums. */
struct est_add {
	int64_t a;	      /* rests (a sum), or the least bytes */
	unsigned __int128 sq; /* the rests' squares */
	bool least;	      /* a is a minimum (OutsideTLAB events) */
};

#define SQ_MAX (~(unsigned __int128)0)

struct proj_rows {
	struct brow *rows;
	uint32_t n, alloc;
	uint32_t *slots; /* row + 1; 0: empty */
	uint32_t mask;	 /* slots - 1, a power of two minus one */
};

struct series {
	bool open;
	int64_t start, end; /* the open bucket, end inclusive */
	int64_t width;
	int64_t origin; /* its first sample's time: widths as they go */
	struct proj_rows p[STORE_PROJ__COUNT];
	/* the full row the last sample went to (UINT32_MAX: none): the
	 * next sample of a series has its key 87% of the time (the 0.5 GB
	 * bench recording), and goes there without a hash */
	uint32_t last;
};

struct rollup_builder {
	const struct store_recording *recs;
	uint32_t n_recs;
	/* the recordings were not known when the samples came (the writer
	 * encodes them as they arrive): each series' width was chosen from
	 * its samples' span so far, and finish puts the rows on the
	 * recordings' own widths (normalize()) */
	bool as_they_come;
	const uint32_t *node_map; /* rollup_builder_set_node_map()'s */
	uint32_t n_map;
	struct series **s[SAMPLE__COUNT]; /* [kind][recording], lazily */
	uint32_t n_s[SAMPLE__COUNT];
	bool negative[SAMPLE__COUNT];
	/* closed buckets; first_row is the spill's row until finish */
	struct store_rollup_bucket *b;
	uint64_t *spill_row; /* after finish: each bucket's row in the spill */
	size_t n_b, alloc_b;
	/* the whole recordings' buckets (3.1), made by finish: the same */
	struct store_rollup_bucket *wb;
	uint64_t *w_spill_row;
	size_t n_wb, alloc_wb;
	int fd;
	/* the spilled rows: in mem while they fit ROLLUP_MEM_MAX (or when
	 * there is no fd), else in the file, written through wbuf */
	struct brow *mem;
	uint64_t n_rows, alloc_mem;
	bool in_file;
	uint64_t mem_max; /* ROLLUP_MEM_MAX, or the environment's */
	struct brow *wbuf;
	uint32_t wlen; /* rows in wbuf, not yet written */
	bool failed;
	int err_no;
};

/* Add to k's row of pr a run of samples (their count, bytes, squares,
 * the estimate's sums, first and last times): one sample as it arrives, a
 * full row folded into a narrower projection, or a row merged at finish.
 * The row's index (it stays until pr is emptied). */
uint32_t rollup_proj_add(struct proj_rows *pr, const struct store_rollup_row *k,
			 uint64_t samples, int64_t bytes, unsigned __int128 sq,
			 const struct est_add *ea, int64_t first, int64_t last);
/* qsort's order of rows by key: node, class, thread, flags. */
int rollup_key_cmp(const void *a, const void *b);
/* n rows closed, after every row before them: in memory while they fit
 * the budget, else to the spill file (a failure kept in rb). */
void rollup_spill_rows(struct rollup_builder *rb, const struct brow *r,
		       uint32_t n);
/* The rows rollup_spill_rows() buffers for the file, written. */
void rollup_spill_flush(struct rollup_builder *rb);
/* The open bucket of se (kind, recording) out: every projection's rows
 * sorted, checksummed, spilled. */
void rollup_close_bucket(struct rollup_builder *rb, struct series *se, int kind,
			 uint32_t rec);

#endif
