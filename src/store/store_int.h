/*
 * The store reader's insides, shared by its files: store_read.c (opening,
 * the tables, their checks), store_samples.c (the sample blocks),
 * store_rollup.c (the rollups) and
 * store_append.c (copying a store into a writer).  Private to src/store.
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
	struct store_sample_cache *samples; /* store_samples.c's */
	struct store_rollup_cache *rollups; /* store_rollup.c's */
	const unsigned char *map;
	size_t map_len;
	bool mapped; /* else the caller's memory */
	struct section sec[I__COUNT];
	struct err bad[I__COUNT];
};

/* Section idx, its checksum and references checked on first use. */
int store_section(struct store *s, int idx, struct err *e);
const char *store_section_name(int idx);

/* store_samples.c: the checks of the sample index (a section's
 * check_refs), of the seqs old objects and liveness records refer to,
 * and the caches freed on close. */
const char *store_index_check(struct store *s, uint64_t *at);
int store_seqs_check(struct store *s, int idx, unsigned kinds, struct err *e);
int store_blocks_verify(struct store *s, struct err *e);
/* The sample blocks section's checksum alone (info --check's part that
 * needs no sample in memory). */
int store_blocks_crc_check(struct store *s, struct err *e);

/* A block's decoded columns owned by the caller, so that blocks of
 * several kinds can be open at once (store_append.c merges them by seq):
 * store_read_block() into bb, valid until the next read into bb. */
struct store_block_buf;
struct store_block_buf *store_block_buf_new(void);
void store_block_buf_free(struct store_block_buf *bb);
int store_read_block_buf(struct store *s, int kind, uint32_t b,
			 struct store_block_buf *bb, struct store_samples *out,
			 struct err *e);
void store_samples_free(struct store *s);

/* store_rollup.c: the check of the rollup buckets (a section's
 * check_refs), the rebuild store_verify() compares with, the cache. */
const char *store_rollup_index_check(struct store *s, uint64_t *at);
int store_rollups_verify(struct store *s, struct err *e);
void store_rollups_free(struct store *s);

#endif
