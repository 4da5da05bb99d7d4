/*
 * An ordered, bounded work queue: one thread (the owner) submits jobs in
 * order; up to n worker threads run them, concurrently and in any order;
 * the owner takes them back in the order it submitted them, each only
 * once its run has finished.  The JFR importer decodes chunks with it and
 * replays each chunk's records to the (single-threaded) sink in file
 * order, so that the output does not depend on the thread count or on
 * timing.
 *
 * The contract:
 *   - Every call but the job function is the owner's: one thread only.
 *   - At most `depth` jobs are submitted and not yet taken back; the
 *     owner takes one back (workq_next) before submitting more.  Memory
 *     is therefore bounded by depth jobs.
 *   - A job is the caller's memory, borrowed by the queue from submit
 *     until workq_next returns it.  The job function may touch only its
 *     job (and what is thread-safe: xalloc, the hash seed); the owner
 *     must not touch a submitted job until it is returned, but for what
 *     the job shares under a lock of its own (the JFR importer's
 *     records, handed over while the chunk is decoded: jfr_int.h).
 *     workq_next's return orders the run's writes before the owner's
 *     reads (a mutex).
 *   - With 1 thread the jobs run one at a time, in the order submitted
 *     (workers take the oldest waiting job): a pipeline stage whose state
 *     the jobs share (the commit's rollup builder) may rely on it.
 *   - With 0 threads the job runs inline in workq_submit, on the owner's
 *     thread, and nothing is started: the single-threaded case takes the
 *     same path through the caller's code.
 *   - workq_free waits for running jobs and starts no new ones; jobs not
 *     taken back are simply forgotten (the caller still owns them).
 *
 * It does not cancel a running job, nor let jobs depend on each other.
 */
#ifndef HS_WORKQ_H
#define HS_WORKQ_H

#include <stdbool.h>

typedef void (*workq_fn)(void *job);

struct workq;

/* n_threads 0: inline; depth >= 1 (more than n_threads keeps them
 * busy while the owner consumes a result). */
struct workq *workq_new(unsigned n_threads, unsigned depth, workq_fn fn);
void workq_free(struct workq *q);

/* Jobs submitted and not yet taken back; workq_submit needs fewer than
 * depth. */
unsigned workq_pending(const struct workq *q);
bool workq_full(const struct workq *q);

void workq_submit(struct workq *q, void *job);
/* The oldest job submitted and not taken back, once it has run; NULL
 * when none is pending.  Blocks until then. */
void *workq_next(struct workq *q);

#endif
