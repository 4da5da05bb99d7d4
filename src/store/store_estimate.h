/*
 * The corrected estimate of jdk.ObjectAllocationSample's bytes, found at
 * import (docs/estimates.md): fed every sample of a store in seq (time)
 * order, it walks each thread's ObjectAllocationSample, OutsideTLAB and
 * InNewTLAB events and gives each sample's rest, the part of its weight
 * that no OutsideTLAB event accounts for, and each recording's facts
 * (struct store_estimate) at the end.
 *
 * A sample's weight is every byte its thread allocated since its
 * previous sample, large objects included; HotSpot sends a sample taken
 * at an allocation outside a TLAB just before that allocation's
 * OutsideTLAB event.  So each OutsideTLAB event belongs to one sample's
 * weight: the sample it follows at once, with its stack and class and
 * within EST_OWN_GAP_NS, when that sample is of its own object ("own"),
 * else the thread's next sample.  Its bytes are counted exactly at its
 * own stack (the readers do that, from the OutsideTLAB events); the
 * sample keeps the rest.  The rest of an own sample is TLAB bytes of
 * small objects of unknown stacks: the readers spread it over the
 * recording's other samples in proportion to theirs, by the facts'
 * all / tlab.
 *
 * Whether a sample is own is known only at its thread's next event or
 * EST_OWN_GAP_NS later, so samples of ObjectAllocationSample wait in a
 * queue until then (the others pass at once): the order of each kind's
 * samples is kept, and memory follows the samples of the last 50 us,
 * held at EST_QUEUE_MAX (past which the oldest is taken as not own).
 * Private to the store module; tests/unit/estimate_test.c.
 */
#ifndef HS_EST_WALK_H
#define HS_EST_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/store/store_format.h"
#include "store/store_block.h"

/* An OutsideTLAB event at most this long after a sample of its thread,
 * with the sample's stack and class, is the sampled object itself:
 * HotSpot (17 to 25) sends the sample, then the OutsideTLAB event of the
 * same allocation, a few microseconds apart (at most 4.6 us measured);
 * another allocation of a large object takes longer than this to clear
 * its memory.  InNewTLAB events, where recorded, settle it exactly. */
#define EST_OWN_GAP_NS 50000
#define EST_QUEUE_MAX  65536u

/* Where the samples go, in the walk's order: kind's sample s, with
 * s->rest set for ObjectAllocationSample. */
typedef void est_emit_fn(void *ctx, int kind, const struct block_sample *s);

struct est_walk;

/* For samples of recordings below n_recs and threads below n_threads
 * (or STORE_NONE), as far as known: the tables grow with the ids met. */
struct est_walk *est_walk_new(uint32_t n_recs, uint32_t n_threads,
			      est_emit_fn *emit, void *ctx);
/* The next sample in seq order. */
void est_walk_add(struct est_walk *w, int kind, const struct block_sample *s);
/* The same, but a sample that goes out at once is not emitted: true
 * says the caller emits it now, after whatever the call emitted; false,
 * that it waits and the walk emits it later.  The encoder's hot loop,
 * with no indirect call for most samples. */
bool est_walk_pass(struct est_walk *w, int kind, const struct block_sample *s);
/* No more samples: those waiting go out. */
void est_walk_finish(struct est_walk *w);
/* After finish: recording r's facts. */
void est_walk_facts(const struct est_walk *w, uint32_t r,
		    struct store_estimate *out);
void est_walk_free(struct est_walk *w);

#endif
