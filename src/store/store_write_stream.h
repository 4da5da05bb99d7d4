/*
 * Samples encoded as they arrive (docs/design/store-writer.md, "The
 * stream"): the spill's sorted runs are kept in a window in memory and
 * released from it in time order, ties in import order, straight into
 * the encoder (the corrected estimate's walk, the blocks, written into
 * the store's own file, and the rollups), on the spill's writer thread,
 * while the importer goes on.  The commit then writes only what follows
 * the blocks.  The store is byte for byte the one the spill's merge at
 * commit writes.
 *
 * A run whose first sample is earlier than one already released (the
 * window was too small: recordings given out of time order, or overlap)
 * ends the stream: the samples released are read back from the blocks
 * and given to the spill with the window's, and the import goes on and
 * commits as without a stream (store_write_spill.h).
 *
 * The store's file is made without a name (O_TMPFILE) in the target's
 * directory, and linked under a temporary name only at commit, so that
 * a kill leaves nothing behind.  Where the file system cannot, there is
 * no stream.  Private to the store module.
 */
#ifndef HS_STORE_STREAM_H
#define HS_STORE_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store_write_rollup.h"
#include "store/store_write_out.h"
#include "store/store_write_int.h"

struct stream;

/* A stream for w's samples whose file goes in dir; NULL where dir's file
 * system cannot make a file without a name.  Its window holds
 * HEAPSIFT_STORE_WINDOW_SAMPLES samples (a number from 1), else
 * STREAM_WINDOW.  It hands itself to w's spill. */
#define STREAM_WINDOW ((size_t)1 << 20)
struct stream *stream_new(struct store_writer *w, const char *dir);
void stream_free(struct stream *st);

/* The memory of the window's runs, the samples they came with
 * (*samples, released ones too) and the spare columns kept for the
 * spill (*spares); read only once the spill has handed every run on
 * (spill_end_run: at a recording's end).  The memory is at most 4 times
 * the samples' columns, and the spares no more than the spill's runs
 * that were in the window at once. */
size_t stream_window_bytes(const struct stream *st, size_t *samples,
			   uint32_t *spares);

/* Still streaming: the spill never gave its runs back to the file. */
bool stream_active(const struct stream *st);

/* The commit of a stream still active, every run ended (spill_end_run):
 * what is in the window released and encoded, the sections after the
 * blocks, then the file linked beside path's target and renamed over
 * it. */
int stream_commit(struct stream *st, struct store_writer *w, const char *path,
		  struct err *e);

/* The rollups built again from the blocks in o's file (blocks_at,
 * index), for the recordings w knows, nodes by renum: where those built
 * as the samples came cannot be put on their recordings' widths
 * (ROLLUP_AGAIN).  NULL with o->failed set on a read error. */
struct rollup_builder *stream_rollups_again(struct out *o,
					    struct store_writer *w,
					    const struct vec *index,
					    uint64_t blocks_at,
					    const uint32_t *renum);

#endif
