/*
 * The store writer's spill: samples leave memory as they arrive, so that
 * an import's memory follows its largest chunk and its distinct keys,
 * never its number of samples.
 *
 * Samples are buffered up to a run's size (spill_run_samples():
 * SPILL_RUN_DEFAULT, or HEAPSIFT_STORE_RUN_SAMPLES), stably sorted by time
 * (time_sort) and appended to one spill file as a run, varint coded.  A
 * run holds the samples of one recording only (the writer ends a run at
 * each recording's end, and a sample of another recording ends it too).
 * The spill file is created, unlinked (O_TMPFILE where the file system
 * has it, else mkstemp and an unlink at once), in the directory the
 * writer is told (the store's, so that it fills that file system and not
 * /tmp), else $TMPDIR, else /tmp; it never outlives the process.
 *
 * Threads: a full run is sorted, encoded and written on a thread of the
 * spill's own while the caller gathers the next run into a second
 * buffer (so two runs' columns at most are in memory); spill_end_run
 * waits until every run is written.  Every call here is still the one
 * owner's (one thread), and the file's bytes and runs are those one
 * thread would give.
 *
 * At commit, spill_merge_*() reads the runs back, a buffer per run (all
 * buffers together about SPILL_MERGE_BUDGET bytes), and yields every
 * sample in time order, ties in import order (an earlier run first, then
 * run order): the order a stable sort of all samples would give.  Runs
 * of a recording follow each other in time, so the run in front is
 * drained with one comparison a sample against the next run's head; the
 * heap of runs is touched only where runs overlap.
 *
 * What a spilled sample keeps is what the writer knew when it arrived:
 * its own thread, class and node ids (the trie is numbered only at
 * commit), and, for the kinds in sparse_kinds, its import index (its
 * number among all samples in arrival order), by which old-object and
 * liveness records find their samples.
 *
 * Errors (creating, writing or reading the spill file) are returned with
 * e set, naming the file's directory and saying "no space left" for
 * ENOSPC; the writer keeps the first one.  Nothing here exits but on
 * out-of-memory.
 */
#ifndef HS_SPILL_H
#define HS_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* 2^15 samples, about 1.4 MB of columns a buffer: a run and its sort's
 * keys stay in the cache, the last run (sorted while nothing else can go
 * on before the commit) is short, and the window's runs are handed back
 * to the spill in small steps, so less fresh memory is touched.  2^18
 * was 5% slower on the 38 MB bench recording and the same on 512 MB;
 * 2^20 cost a third more wall time than 2^18. */
#define SPILL_RUN_DEFAULT  ((size_t)1 << 15)
#define SPILL_MERGE_BUDGET ((size_t)16 << 20)
#define SPILL_NO_IMPORT	   UINT64_MAX

struct spill_sample {
	int64_t time_ns;
	uint32_t recording;
	uint8_t kind, flags;	    /* flags: STORE_SAMPLE_* (one bit) */
	uint32_t thread, cls, node; /* the writer's ids; STORE_NONE: none */
	int64_t bytes, size;
	/* import index: set by the writer for every sample; spilled, and
	 * given back by the merge, only for the kinds in sparse_kinds
	 * (else SPILL_NO_IMPORT) */
	uint64_t import;
};

struct spill;

/* A spill whose runs hold at most run_samples samples (0: the default or
 * the environment's, spill_run_samples()).  Owned by the caller. */
struct spill *spill_new(size_t run_samples, unsigned sparse_kinds);
void spill_free(struct spill *sp);
/* Where the spill file is made; copied.  Only before the first run is
 * written (later calls are ignored). */
void spill_set_dir(struct spill *sp, const char *dir);
/* SPILL_RUN_DEFAULT, or HEAPSIFT_STORE_RUN_SAMPLES when it is a number
 * from 1 to 2^31. */
size_t spill_run_samples(void);

/*
 * Runs handed on instead of written (store_write_stream.c): the writer thread
 * still sorts each run, then gives it to ops->run, which takes it
 * (returns 0; the run needs no file) or finds it earlier than samples it
 * has handed on already (returns 1): then the spill goes back to its
 * file for good.  On that thread, ops->replay gives back every sample
 * taken so far and not yet encoded for good, in the order they are to
 * keep (spill_replay_add; s->import the sample's import index), as runs
 * written before that run, which is written after them; every later run
 * is written as without a stream.  <0 from either with e set is a write
 * error, as a run's.  Set before the first sample.
 */
struct spill_cols {
	int64_t *time, *bytes, *size;
	uint32_t *thread, *cls, *node;
	uint32_t *order; /* sorted: the i-th sample is at order[i] */
	uint8_t *kind, *flags;
	size_t alloc; /* samples each column holds (big_realloc'd) */
};
void spill_cols_free(struct spill_cols *c);
/* dst: src's first n samples, in columns of n (dst's old ones forgotten) */
void spill_cols_copy(struct spill_cols *dst, const struct spill_cols *src,
		     size_t n);
/* The memory c's columns take. */
size_t spill_cols_bytes(const struct spill_cols *c);
struct spill_run {
	size_t n;
	/* The run's columns.  ops->run may keep them (its to free with
	 * spill_cols_free) and leave others in their place, of any alloc,
	 * or zeroed: the spill fills the next run into those, and grows
	 * them as it needs.  Sparing the copy of each run, and the fresh
	 * pages of a window of copies, was worth 1 of 5 s of CPU. */
	struct spill_cols *cols;
	uint32_t recording;
	uint64_t import_base; /* the import index of the run's sample 0 */
};
struct spill_replay;
struct spill_stream_ops {
	int (*run)(void *ctx, const struct spill_run *r, struct err *e);
	int (*replay)(void *ctx, struct spill_replay *rp, struct err *e);
};
void spill_set_stream(struct spill *sp, const struct spill_stream_ops *ops,
		      void *ctx);
/* True while runs are handed on (after the last run's spill_end_run:
 * for the whole import). */
bool spill_streaming(const struct spill *sp);
/* One sample given back, after those given back before it: in time
 * order since the last spill_replay_cut(), which begins a new run (its
 * samples keep their recordings, which may alternate). */
int spill_replay_add(struct spill_replay *rp, const struct spill_sample *s);
void spill_replay_cut(struct spill_replay *rp);

/* Add one sample; a full run is handed to the writer thread.  An error
 * is the write of an earlier run's (or the file's creation). */
int spill_add(struct spill *sp, const struct spill_sample *s, struct err *e);
/* spill_add() of many samples, written by the caller straight into the
 * run's columns: room for samples of recording rec, the first with
 * import index import (the ones after it following), at index *at of
 * the columns returned, for at most *room (at least 1) of them; then
 * spill_added() with how many were written, every column of each.
 * NULL, or <0, with e set: spill_add()'s errors. */
struct spill_cols *spill_room(struct spill *sp, uint32_t rec, uint64_t import,
			      size_t *at, size_t *room, struct err *e);
int spill_added(struct spill *sp, size_t n, struct err *e);
/* Sort and write the buffered samples as a run (none: no run), and wait
 * until every run is on disk; an error is any run's. */
int spill_end_run(struct spill *sp, struct err *e);

/* Runs written so far; the buffered samples are not counted. */
uint32_t spill_n_runs(const struct spill *sp);
uint64_t spill_file_len(const struct spill *sp);
/* The bytes the file system holds for the spill file: the merge gives
 * back what it has read, a MiB at a time where the file system can
 * punch holes (tests). */
uint64_t spill_file_allocated(const struct spill *sp);

/* Forget every run after the first n_runs (a recording dropped as a
 * duplicate); nothing may be buffered (a run being written is waited
 * for). */
void spill_truncate(struct spill *sp, uint32_t n_runs);

/* The merge of every run written (end the last run first). */
struct spill_merge;
int spill_merge_new(struct spill *sp, struct spill_merge **out, struct err *e);
/* The next sample in time order, in *out (the merge's, good until the
 * next call): 1, 0 at the end, <0 on a read error or a damaged run (e
 * set). */
int spill_merge_next(struct spill_merge *m, const struct spill_sample **out,
		     struct err *e);
void spill_merge_free(struct spill_merge *m);

/* Exposed for the unit tests: one sample's bytes in a run (at most 56,
 * and a given-back sample's recording, 5 more). */
#define SPILL_REC_MAX 64
/* prev: the run's previous sample, NULL for its first (its time and
 * ids are what the record is coded against); spill_decode's prev may be
 * s itself */
size_t spill_encode(unsigned char *p, const struct spill_sample *s,
		    const struct spill_sample *prev, uint64_t pos,
		    unsigned sparse_kinds);
/* false when the bytes are not one whole sample */
bool spill_decode(const unsigned char **pp, const unsigned char *end,
		  struct spill_sample *s, const struct spill_sample *prev,
		  uint64_t *pos, unsigned sparse_kinds);

#endif
