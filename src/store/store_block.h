/*
 * One block of samples, as docs/formats/store.md lays it out: the
 * encoder the writer feeds sample by sample in time order, and the
 * decoder the reader runs on a block the first time it is read, which
 * checks every value against the tables it refers to before anything is
 * handed out.  Shared by store_write.c and store_read_samples.c; private to
 * the store module.
 */
#ifndef HS_SAMPLE_BLOCK_H
#define HS_SAMPLE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/store/store_format.h"

/* the longest a block's bytes can be: 9 varints of 10 bytes a sample */
#define SAMPLE_BLOCK_MAX ((size_t)STORE_BLOCK_SAMPLES * 90)

struct block_sample {
	uint32_t seq;
	int64_t time_ns;
	uint32_t recording;
	uint8_t flags;
	uint32_t thread, cls, node; /* STORE_NONE: none (not node) */
	int64_t bytes, size;
	/* ObjectAllocationSample: the rest of its weight under the
	 * corrected estimate (store_estimate.h); else unused */
	int64_t rest;
};

/* A block being filled; buf holds SAMPLE_BLOCK_MAX bytes. */
struct block_enc {
	struct store_block head; /* n, first/last, kind: kept up to date */
	unsigned char *buf;
	size_t len;
	uint32_t last_seq;
};

/* Start an empty block of kind in b (buf is the caller's); flags
 * STORE_BLOCK_REST: with the rest column. */
void block_enc_begin(struct block_enc *b, uint8_t kind, uint8_t flags,
		     unsigned char *buf);
/* Append s, whose seq and time are past the block's last ones. */
void block_enc_add(struct block_enc *b, const struct block_sample *s);

/* The columns a block decodes into, at index at onwards; size is only
 * written for the kinds that store one (STORE_KIND_HAS_SIZE), rest only
 * where the block has the column and rest is not NULL. */
struct block_cols {
	uint32_t *seq;
	int64_t *time_ns;
	uint32_t *recording;
	uint8_t *flags;
	uint32_t *thread, *cls, *node;
	int64_t *bytes, *size, *rest;
};

/* What decoded values must lie below. */
struct block_limits {
	uint64_t n_samples; /* seqs */
	uint32_t n_recordings, n_threads, n_classes, n_nodes;
};

/*
 * Decode the block h describes from its bytes p (h->length of them,
 * checksum already verified) into c[at, at + h->n).  NULL when every
 * value is in range and the block agrees with h; else what is wrong, and
 * *bad_sample says which of its samples.
 */
const char *block_decode(const struct store_block *h, const unsigned char *p,
			 const struct block_limits *lim,
			 const struct block_cols *c, size_t at,
			 uint32_t *bad_sample);

#endif
