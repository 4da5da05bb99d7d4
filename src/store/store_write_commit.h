/*
 * The commit's parts that both ways of writing the sample blocks share:
 * the spill's merge at commit (store_write_commit.c) and the blocks written as
 * the samples came (store_write_stream.c).  Private to the store module.
 */
#ifndef HS_STORE_COMMIT_H
#define HS_STORE_COMMIT_H

#include <sys/types.h>

#include "store/store_estimate.h"
#include "store/store_write_rollup.h"
#include "store/store_write_out.h"
#include "store/store_write_int.h"
#include "util/buf.h"
#include "util/newfile.h"

/* Number the trie depth first: the new node table, and in *renum_out
 * each writer id's new id (both malloc'ed). */
struct store_node *number_nodes(const struct store_writer *w,
				uint32_t **renum_out);
/* Sparse per-sample records (old objects, liveness), by their u32
 * sample number (qsort). */
int by_sample(const void *a, const void *b);

/* Every section after the sample blocks (which start at blocks_at in
 * o's file and are indexed by index), then the table of sections and the
 * header: the file is whole, not synced.  <0 with o->failed. */
int commit_sections(struct out *o, struct store_writer *w,
		    const struct vec *index, struct rollup_builder *rb,
		    const struct est_walk *walk, uint64_t blocks_at);

/* The file a commit to path replaces (a link's target), malloc'ed, and
 * the mode it keeps (0644 for a new store). */
char *commit_target(const char *path, mode_t *mode);
/* o's file, nf's (newfile.h), synced, given its temporary name (a link,
 * or a copy with HEAPSIFT_STORE_NO_LINK=1), renamed over target and
 * closed, and the directory synced; removed on failure, nf released
 * either way.  <0 with e set. */
int commit_replace(struct out *o, struct newfile *nf, const char *target,
		   struct err *e);

#endif
