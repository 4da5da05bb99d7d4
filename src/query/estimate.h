/*
 * The corrected estimate of jdk.ObjectAllocationSample's bytes
 * (docs/estimates.md), on a stream of events in time order, free of the
 * store so that it can be tested on streams written by hand
 * (tests/unit/estimate_test.c).  query.c feeds it the samples of a store
 * through estimate_build() and reads the result as samples of its own.
 * Private to the query module and its tests.
 */
#ifndef HS_ESTIMATE_H
#define HS_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "importers/sink.h"

/* An OutsideTLAB event at most this long after a sample of its thread,
 * with the sample's stack and class, is the sampled object itself:
 * HotSpot (17 to 25) sends the sample, then the OutsideTLAB event of the
 * same allocation, a few microseconds apart (at most 4.6 us measured);
 * another allocation of a large object takes longer than this to clear
 * its memory.  InNewTLAB events, where recorded, settle it exactly. */
#define ESTIMATE_OWN_GAP_NS 50000

struct est_event {
	int64_t time_ns;
	uint32_t recording, thread, cls, node; /* thread STORE_NONE: none */
	uint8_t kind;  /* SAMPLE_ALLOC, SAMPLE_TLAB_NEW, SAMPLE_TLAB_OUTSIDE */
	int64_t bytes; /* weight, tlabSize, allocationSize; <0 as 0 */
};

struct est_stats {
	uint64_t own;	   /* samples whose object was outside a TLAB */
	uint64_t negative; /* samples whose outside bytes exceeded their
			      weight (their remainder is 0) */
};

/*
 * ev[0..n) in time order (ties in the order the recording wrote them).
 * out[i] is event i's corrected bytes: an OutsideTLAB event's own; a
 * sample's remainder (its weight less the OutsideTLAB bytes it covers),
 * 0 when the sample was of an object allocated outside a TLAB, whose
 * remainder is spread over the recording's other samples in proportion
 * to theirs; an InNewTLAB event's 0 (it only tells how a sample was
 * taken).  var[i] is what event i adds to the variance's sum of squares
 * as a value (its squared value is added): the sample's corrected bytes,
 * 0 for exact OutsideTLAB bytes, and -1 for those of an object smaller
 * than its recording's typical TLAB (the median weight of its samples
 * taken in a new TLAB), objects of whose size some were allocated in
 * TLABs, unseen.  n_threads: thread indices are below it, or
 * STORE_NONE.
 */
void estimate_correct(const struct est_event *ev, size_t n, uint32_t n_threads,
		      int64_t *out, int64_t *var, struct est_stats *st);

#endif
