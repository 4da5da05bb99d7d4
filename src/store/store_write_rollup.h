/*
 * The rollup builder (docs/formats/store.md, "rollups"): fed the samples
 * of a store in seq (time) order, it adds each into the open bucket of
 * its kind and recording under every projection, and writes a bucket's
 * rows out (sorted by key, with their checksum) as soon as a sample of
 * its series falls past its end.  Its memory therefore follows the
 * distinct keys of the open buckets, never the number of samples: the
 * closed rows go to a spill file (or to memory, for store_verify's
 * rebuild) and come back, bucket by bucket in the format's order, when
 * the section is written.
 *
 * The commit feeds it (store_write_commit.c: one rollup_add() per sample, in
 * seq order, on a thread beside the loop that encodes the blocks; one
 * thread at a time, as nothing here locks); store_verify() feeds it the
 * samples it read and compares what it builds with what the file holds.
 * Private to the store module.
 */
#ifndef HS_ROLLUP_H
#define HS_ROLLUP_H

#include <stddef.h>
#include <stdint.h>

#include "formats/store/store_format.h"
#include "record/record.h"
#include "store/store_block.h"
#include "util/err.h"

struct rollup_builder;

/*
 * A builder for a store whose recordings are recs[0..n_recs): each
 * recording's bucket width is chosen from its start and end
 * (rollup_width).  With recs NULL the recordings are not known yet (the
 * writer encodes samples as they arrive): each kind and recording's
 * width follows its samples' span so far, and rollup_finish() puts the
 * rows on the recordings' widths, given by then with
 * rollup_builder_set_recordings().  Closed rows are kept in memory up to 32 MiB; past
 * that, with spill_fd >= 0, they are written there (the caller's file,
 * read back by rollup_write_rows; it must be empty); with -1 they are
 * all kept in memory.
 */
struct rollup_builder *rollup_builder_new(const struct store_recording *recs,
					  uint32_t n_recs, int spill_fd);
void rollup_builder_free(struct rollup_builder *rb);

void rollup_builder_set_recordings(struct rollup_builder *rb,
				   const struct store_recording *recs,
				   uint32_t n_recs);

/* The samples given name their nodes by other ids (the writer's, 4.0):
 * map[id] (id < n) is the trie's id, which the rows hold once finished.
 * Borrowed until free; without it the ids are the trie's. */
void rollup_builder_set_node_map(struct rollup_builder *rb, const uint32_t *map,
				 uint32_t n);

/* The bucket width of a recording from start_ns to end_ns (either may
 * be REC_NONE): a width that every timeline width at least as wide is a
 * multiple of, giving at most 1024 buckets over the recording. */
int64_t rollup_width(int64_t start_ns, int64_t end_ns);

/* One sample of kind, after every sample of smaller seq.  Agent samples
 * are not rolled up, and are ignored. */
void rollup_add(struct rollup_builder *rb, int kind,
		const struct block_sample *s);

/*
 * No more samples: the open buckets are closed, their rows put on the
 * recordings' widths and the trie's node ids (rollup_builder_set_*),
 * the kinds with a negative byte count are dropped, and the buckets put
 * in the format's order.  <0 with e set when the spill file could not
 * be written; ROLLUP_AGAIN when rows built as the samples came cannot
 * be put on their recording's width (a sample outside its recording's
 * span made a bucket wider): the caller builds them again, from the
 * samples, with the recordings known.
 */
#define ROLLUP_AGAIN 1
int rollup_finish(struct rollup_builder *rb, struct err *e);

/*
 * After rollup_finish: the buckets of a level (borrowed, valid until
 * free): 0 the time buckets, 1 the whole recordings' (3.1: a kind,
 * projection and recording's rows merged over its buckets, where it has
 * two buckets or more and the merge halves its rows at least); then
 * their rows in the same order, len bytes at a time, to write.
 */
const struct store_rollup_bucket *
rollup_buckets(const struct rollup_builder *rb, int level, size_t *n);
typedef void rollup_write_fn(void *ctx, const void *p, size_t len);
int rollup_write_rows(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		      void *ctx, struct err *e);
/* The same for the rows' sums of squares (struct store_rollup_sq, 2.2),
 * in the same order. */
int rollup_write_squares(struct rollup_builder *rb, int level,
			 rollup_write_fn *fn, void *ctx, struct err *e);
/* The same for the rows' corrected-estimate sums (struct
 * store_rollup_est, 2.3): of ObjectAllocationSample's rows, from the
 * samples' rest; of OutsideTLAB events', their least bytes. */
int rollup_write_est(struct rollup_builder *rb, int level, rollup_write_fn *fn,
		     void *ctx, struct err *e);

#endif
