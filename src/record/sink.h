/*
 * The record sink: the interface importers call and a sink implements
 * (ncdu's dir.h holds the same place between its readers and writers).
 * The store writer is one sink, `heapsift dump`'s text printer another,
 * tests a third.  The records are record.h's.
 *
 * Every pointer in a record is borrowed: valid only during the call.  A
 * sink that keeps anything copies it (the store interns names).  Ids
 * (stack, thread, class) are the importer's: stable within one recording
 * and one chunk-independent namespace, meant only for caching; a sink
 * must not assume they are dense or global.
 *
 * Each callback returns 0, or <0 to stop the import (output error).
 */
#ifndef HS_SINK_H
#define HS_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/*
 * Samples by key, for importers whose samples name the same threads,
 * classes and stacks many times (a JFR chunk: millions of samples, a few
 * thousand stacks).  keys() gives the sink's own keys for a sample's
 * thread, class and stack, doing exactly what sample() would do with
 * them, in the same order.  Keyed samples are then written by the
 * importer straight into columns the sink lends (keyed_room(), room for
 * at least one), and handed over by keyed_added(), which does what
 * sample() would do with each sample written, in order.  An importer
 * asks keys() where it would first have passed the thing in a sample,
 * and keeps the keys only as long as the things themselves (their ids
 * are no key: a sink's keys are its own, valid for its life).  keys()
 * may come while the importer holds lent room (it adds no sample), but
 * no other call until keyed_added(): sample() comes only after the
 * keyed samples before it were handed over.  Only for samples with
 * nothing but these fields: not SAMPLE_OLD_OBJECT, liveness unknown.
 * (Before, keyed samples were records of their own that the sink
 * copied into its columns: 3.7% of a JFR import's instructions, and 7
 * to 8.5% of its time.)
 */
struct rec_keys {
	uint32_t thread, cls, stack; /* the sink's; "none" is a key too */
};

#define REC_KEYED_TRUNCATED 1u /* flags: the stack's root end is missing */

/* Sample i of the lent room is element i of each column. */
struct rec_keyed_cols {
	int64_t *time_ns;
	int64_t *bytes, *size;		/* rec_sample_bytes()'s */
	uint32_t *thread, *cls, *stack; /* struct rec_keys */
	uint8_t *kind;			/* enum sample_kind */
	uint8_t *flags;			/* REC_KEYED_* */
};

struct sink_ops {
	int (*sample)(void *ctx, const struct rec_sample *s);
	int (*heap_summary)(void *ctx, const struct rec_heap_summary *h);
	int (*recording)(void *ctx, const struct rec_recording *r);
	int (*gc)(void *ctx, const struct rec_gc *g); /* NULL: ignored */
	int (*gc_info)(void *ctx,
		       const struct rec_gc_info *g); /* NULL: ignored */
	int (*codeheap)(void *ctx,
			const struct rec_codeheap *c); /* NULL: ignored */
	/* all three or none (NULL: every sample through sample()) */
	int (*keys)(void *ctx, const struct rec_sample *s, struct rec_keys *k);
	/* columns for at most *room (at least 1) keyed samples */
	int (*keyed_room)(void *ctx, struct rec_keyed_cols *c, size_t *room);
	/* the first n samples of the room lent last, written */
	int (*keyed_added)(void *ctx, size_t n);
};

struct sink {
	const struct sink_ops *ops;
	void *ctx;
};

#endif
