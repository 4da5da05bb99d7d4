/*
 * The store writer's spill, inside (store_write_spill.h is its contract):
 * what the gathering of runs (store_write_spill.c) and their merge
 * (store_write_spill_merge.c) share.  The spill's state and the runs'
 * records are written by the one and read back by the other; a run's
 * bytes are spill_encode()'s (store_write_spill.c says their layout).
 * Private to src/store.
 */
#ifndef HS_STORE_WRITE_SPILL_INT_H
#define HS_STORE_WRITE_SPILL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_write_spill.h"
#include "util/err.h"

struct run {
	uint64_t off, len, n, import_base;
	uint32_t recording;
	/* a stream's samples given back: each keeps its own import index
	 * (import_base 0), not its place in the run, and its recording
	 * (recordings that overlap in time alternate in it) */
	bool given_back;
};

/*
 * A run's columns: gathered by the owner (the thread calling spill_add),
 * then sorted, encoded and written by the writer thread (run_write), a
 * workq of one thread and depth one.  There are two: the owner fills one
 * while the other is written, and waits for that write only when the
 * one it fills is full.  The job reads nothing but itself and writes
 * nothing but itself and its bytes of the file, at an offset the owner
 * gave it (the file's length with the runs before), so the file is what
 * one thread writing the runs in order would make.
 */
struct runbuf {
	size_t n;
	struct spill_cols c;
	/* the owner's, set before the job is submitted */
	int fd;
	uint64_t off;
	unsigned sparse_kinds;
	const char *dir; /* for messages: spill_dir(), stable */
	unsigned char *wbuf;
	/* the owner's too: runs handed on instead of written */
	const struct spill_stream_ops *ops;
	void *ops_ctx;
	uint32_t recording;
	uint64_t import_base;
	/* the job's answer: bytes written, and the error if any; when the
	 * stream gave its samples back, the runs written before this one
	 * and where this one starts */
	uint64_t len;
	int rc;
	struct err err;
	bool gave_back;
	struct run *back;
	uint32_t n_back, back_alloc;
	uint64_t run_at; /* this run's offset from off */
};

struct spill {
	size_t run_samples;
	unsigned sparse_kinds;
	char *dir;
	int fd;		   /* -1: not created yet */
	uint64_t file_len; /* with every run taken back from the writer */
	struct runbuf buf[2];
	struct runbuf *cur;  /* being gathered */
	struct runbuf *busy; /* submitted, not taken back; NULL: none */
	struct workq *q;     /* the writer thread, made at the first run */
	struct err werr;     /* a write that failed: every later call fails */
	uint32_t recording;
	uint64_t import_base;
	bool filled; /* a run has been full: new columns are made full */
	struct run *runs;
	uint32_t n_runs, runs_alloc;
	const struct spill_stream_ops *ops; /* NULL: runs go to the file */
	void *ops_ctx;
};

/* One LEB128 varint, bounded by end: false when it runs past end or past
 * 64 bits (spill_decode, and a given-back sample's recording in the
 * merge). */
static inline bool get_uv(const unsigned char **pp, const unsigned char *end,
			  uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		unsigned char b;

		if (p == end || shift > 63)
			return false;
		b = *p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	*pp = p;
	*v = r;
	return true;
}

/* Where the spill file is: spill_set_dir()'s, else $TMPDIR, else /tmp. */
const char *spill_dir(const struct spill *sp);
/* e set for a failure doing ("creating", "writing", "reading") the spill
 * file; errnum 0: a short read.  ERR_FAIL. */
int spill_io_err(const struct spill *sp, struct err *e, const char *doing,
		 int errnum);
/* Take the run being written back from the writer thread: its length
 * into its struct run, or its error (the run is then forgotten, and
 * every later call fails with it). */
int spill_take_back(struct spill *sp, struct err *e);

#endif
