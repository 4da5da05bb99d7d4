/*
 * The store's file as the commit writes it: the header's room, then
 * sections, each begun, fed its bytes (checksummed on the way) and ended
 * by the next; the table of sections and the header last.  Bytes are
 * buffered a MiB at a time, and written back to disk while the rest is
 * gathered.  Shared by store_write_commit.c (the spill's path), store_write_encode.c
 * (the sample blocks) and store_write_stream.c (the blocks as samples come);
 * private to the store module.
 */
#ifndef HS_STORE_OUT_H
#define HS_STORE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/store/store_format.h"
#include "store/store_write_rollup.h"
#include "util/err.h"

struct out {
	int fd;
	uint64_t pos;
	struct store_toc_entry toc[32];
	uint32_t n_toc;
	const char *path;   /* the temporary file (for messages); "": no
			     * name yet; NULL: none, and no target yet
			     * either: target is its directory */
	const char *target; /* the store it becomes */
	struct err *e;
	bool failed;
	uint64_t synced; /* writeback started up to here */
	/* bytes before pos not written yet: the rollups' sections come a
	 * bucket at a time, a few hundred bytes each */
	unsigned char *wbuf;
	size_t wlen;
	bool direct; /* O_DIRECT: whole buffers, at multiples of their size */
	struct out_aio *aio; /* direct mode's writer thread */
};

/* Write o's file with O_DIRECT from here (o at its start, nothing
 * buffered), where the file system allows it: the bytes go from the
 * buffer to the disk, not copied into the page cache.  That copy, into
 * pages the kernel takes fresh, was 39% of the encoder thread's time on
 * a 512 MB import.  Any write that is not a whole buffer at a multiple
 * of its size (out_flush before the file is read or ended) goes back to
 * the page cache, as does a write that fails.  false: not in direct
 * mode. */
bool out_direct(struct out *o);
/* Back to the page cache: every direct write waited for (one that failed
 * written again, setting o->failed), the writer's thread gone.  Any
 * write but a full buffer's does this first; so must whoever reads or
 * closes the file while in direct mode.  Direct mode's writes are made
 * by a thread of their own; the calls that make them (out_write,
 * out_flush) may move from one thread to another, never run on two. */
void out_end_direct(struct out *o);

/* len bytes at pos, straight to the file (pos moves past them); the
 * buffered ones first with out_flush.  Failures set o->failed and o->e. */
void out_pwrite(struct out *o, const void *p, size_t len);
void out_flush(struct out *o);
void out_write(struct out *o, const void *p, size_t len);
void out_pad(struct out *o);

struct store_toc_entry *section_begin(struct out *o, uint32_t id,
				      size_t rec_len);
void section_add(struct out *o, struct store_toc_entry *t, const void *data,
		 size_t len);
void out_section(struct out *o, uint32_t id, const void *data, size_t rec_len,
		 size_t n);

/* The rollups' eight sections from rb (rollup_finish first); its
 * result: 0, ROLLUP_AGAIN (nothing written), or <0 with o->failed. */
int out_rollups(struct out *o, struct rollup_builder *rb);

/* The table of sections and the header (over its room at 0), then the
 * buffer freed: the file is whole but not synced. */
void out_finish(struct out *o);

/* A file with no name in target's directory (the rollups' spill). */
int rollup_spill_open(const char *target, struct err *e);
/* fsync of path's directory: <0 with errno. */
int fsync_dir(const char *path);

#endif
