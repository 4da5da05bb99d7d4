/*
 * The store reader's insides, shared by its files: store_read.c (opening,
 * the tables, their checks), store_read_samples.c (the sample blocks),
 * store_read_rollup.c (the rollups) and
 * store_write_append.c (copying a store into a writer).  Private to src/store.
 */
#ifndef HS_STORE_INT_H
#define HS_STORE_INT_H

#include "store/store.h"

enum sec_index {
	I_STRINGS,
	I_RECORDINGS,
	I_SETTINGS,
	I_COUNTS,
	I_THREADS,
	I_CLASSES,
	I_METHODS,
	I_FRAMES,
	I_NODES,
	I_S_INDEX,
	I_S_BLOCKS,
	I_OLD,
	I_HEAP,
	I_LIVE,
	I_GCS,
	I_CH_SNAPS,
	I_CH_HEAPS,
	I_CH_MAPS,
	I_CH_CELLS,
	I_CH_BLOCKS,
	I_CH_STATS,
	I_R_BUCKETS,
	I_R_ROWS,
	I_R_SQUARES,
	I_R_EST,
	I_ESTIMATES,
	I_W_BUCKETS,
	I_W_ROWS,
	I_W_SQUARES,
	I_W_EST,
	I_NODE_MAP,
	I_GC_INFO,
	I__COUNT
};

struct section {
	const unsigned char *p;
	uint64_t len;
	uint64_t n; /* records */
	uint32_t crc;
	bool present;
	int state; /* 0 unchecked, 1 good, -1 bad (err kept) */
};

struct store {
	char *path;
	struct store_sample_cache *samples; /* store_read_samples.c's */
	struct store_rollup_cache *rollups; /* store_read_rollup.c's */
	const unsigned char *map;
	size_t map_len;
	bool mapped;	/* else the caller's memory */
	uint16_t major; /* the header's */
	struct section sec[I__COUNT];
	struct err bad[I__COUNT];
	void *attached; /* store_attach()'s */
	void (*attached_release)(void *);
};

/* Section idx, its checksum and references checked on first use. */
int store_section(struct store *s, int idx, struct err *e);
const char *store_section_name(int idx);

/* store_read_samples.c: the checks of the sample index (a section's
 * check_refs), of the seqs old objects and liveness records refer to,
 * and the caches freed on close. */
const char *store_index_check(struct store *s, uint64_t *at);
int store_seqs_check(struct store *s, int idx, unsigned kinds, struct err *e);
int store_blocks_verify(struct store *s, struct err *e);
/* The sample blocks section's checksum alone (info --check's part that
 * needs no sample in memory). */
int store_blocks_crc_check(struct store *s, struct err *e);

/* A block's decoded columns owned by the caller, so that blocks of
 * several kinds can be open at once (store_write_append.c merges them by seq):
 * store_read_block() into bb, valid until the next read into bb. */
struct store_block_buf;
struct store_block_buf *store_block_buf_new(void);
void store_block_buf_free(struct store_block_buf *bb);
int store_read_block_buf(struct store *s, int kind, uint32_t b,
			 struct store_block_buf *bb, struct store_samples *out,
			 struct err *e);
void store_samples_free(struct store *s);

/* store_read_rollup.c: the check of the rollup buckets (a section's
 * check_refs), the rebuild store_verify() compares with, the cache. */
const char *store_rollup_index_check(struct store *s, uint64_t *at);
const char *store_whole_index_check(struct store *s, uint64_t *at);
int store_rollups_verify(struct store *s, struct err *e);
/* The corrected estimate walked again from the samples (store_estimate.c):
 * every rest and each recording's facts as the file holds them. */
int store_estimates_verify(struct store *s, struct err *e);
void store_rollups_free(struct store *s);

/*
 * store_read_seq.c: every sample in seq order, merging the kinds' blocks, one
 * decoded block per kind in memory.  seq_cursor_next() gives 1 and a sample,
 * 0 at the end, <0 on damage (a block's own checks); the first pass over
 * all samples notes which recordings each block holds, so that
 * seq_cursor_rewind(sc, rec) then reads only the blocks that hold rec.
 * seq_cursor_check() is that first pass, checking that the seqs are 0 to
 * N - 1 once each and the times in order (the rule across kinds).
 */
struct kind_cursor {
	uint32_t n_blocks, b; /* b: the next block to read */
	struct store_block_buf *bb;
	struct store_samples m;	   /* block b - 1, decoded */
	uint64_t i;		   /* the next sample of m */
	uint32_t *rec_lo, *rec_hi; /* recordings each block holds */
};

struct seq_cursor {
	struct store *s;
	struct kind_cursor k[SAMPLE__COUNT];
	uint32_t rec; /* only this recording's samples; UINT32_MAX: all */
};

int seq_cursor_init(struct seq_cursor *sc, struct store *s, struct err *e);
void seq_cursor_rewind(struct seq_cursor *sc, uint32_t rec);
void seq_cursor_release(struct seq_cursor *sc);
int seq_cursor_next(struct seq_cursor *sc, struct store_sample_row *x,
		    struct err *e);
int seq_cursor_check(struct seq_cursor *sc, struct err *e);

#endif
