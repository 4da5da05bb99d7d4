/*
 * What jdk.OldObjectSample events prove (old_emissions.c), for the query
 * engine's survivors and evidence (not for front ends nor the report's
 * rules: they read the results through query.h).
 *
 * The JVM writes these events only when asked: at a recording's stop
 * and at each dump of a running recording (PlatformRecorder.stop() and
 * fillWithRecordedData() call OldObjectSample.emit(); jcmd JFR.dump,
 * Recording.dump(), and JDK 21+'s JFR.view), never at a plain chunk
 * rotation.  Each such "emission" writes every sample still held by the
 * sampler whose object the GC has not cleared and that was allocated
 * before the sampler's last sweep (EventEmitter::write_events():
 * is_alive_and_older_than(ObjectSampler::last_sweep())), all with one
 * start time.  So an event proves that its object was not yet collected
 * at its emission, nothing after it; the same object is written again
 * by every later emission that still holds it, and one that a later
 * emission leaves out was collected or replaced in the sampler's
 * fixed-size queue (ObjectSampler::add(): the smallest span is popped),
 * which the events cannot tell apart.  docs/report.md has the rules
 * built on this.
 */
#ifndef HS_QUERY_OLD_EMISSIONS_H
#define HS_QUERY_OLD_EMISSIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "query/query_int.h"

/* One event of an old object, against the other emissions. */
struct old_sighting {
	int64_t born;	  /* allocationTime; else the event's time less
			     objectAge; else the event's time */
	int64_t first_ns; /* the first emission that shows its object */
	int64_t last_ns;  /* the last one that shows it */
	int64_t size;	  /* objectSize; REC_NONE where absent (JDK 17) */
	uint32_t root;	  /* the root string of this event, 0: none */
	uint32_t n_shown; /* emissions that show its object */
	bool repeat;	  /* a later event shows the same object: this one
			     is not counted, that one stands for it */
	bool in_last;	  /* its object is shown by its recording's last
			     emission: the only ones known alive at the end */
	bool searched;	  /* this event's emission found a root for some
			     object: roots were searched for (cutoff > 0) */
};

struct old_emissions {
	struct old_sighting *s; /* [q->sm.n]; zero for other kinds */
	/* per recording [q->n_recs]: emissions, the last one's time
	 * (INT64_MIN: none), and whether it searched for roots */
	uint32_t *n_emissions;
	int64_t *last_ns;
	bool *last_searched;
	uint64_t n_events, n_objects; /* all of the kind's, unfiltered */
};

/*
 * The sightings of every jdk.OldObjectSample event of q, whose kind must
 * be SAMPLE_OLD_OBJECT and whose samples must be materialized
 * (query_materialize()); filters and the window's start are not
 * applied, since which emission is a recording's last does not depend
 * on them, but the window's end is: events after it are left out, and
 * the last emission is the last before it.  An
 * object is the same in two events of one recording when they have the
 * same allocation time, thread, class, stack, size and array length:
 * eventEmitter.cpp writes the object's id per emission (EdgeStore ids),
 * so the id cannot tell.  Everything is malloc'ed into *o; release it
 * with query_old_emissions_release().
 */
int query_old_emissions(struct query *q, struct old_emissions *o,
			struct err *e);
void query_old_emissions_release(struct old_emissions *o);

/* The heap used after the last GC of recording rec that ended at or
 * before t ("After GC" summaries), or -1 where none is known.  Every
 * object an emission shows was allocated before the GC it follows and
 * not cleared by it, so their sizes' sum cannot exceed this. */
int64_t query_heap_after_gc_before(struct query *q, uint32_t rec, int64_t t);

#endif
