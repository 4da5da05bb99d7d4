/*
 * GC start and finish times, from the JVMTI GarbageCollectionStart and
 * GarbageCollectionFinish events to the writer thread's GCS records.
 *
 * Those events run inside the GC pause, where neither JNI nor most of
 * JVMTI may be called and nothing may block, so the recording side is
 * atomics only: a fixed ring of slots, each published with its GC number
 * last.  GCs are numbered from 1 in finishing order.  The ring is
 * bounded: when the writer thread falls more than GCRING_SIZE GCs
 * behind, the oldest times are lost (their GCS entries are missing, the
 * numbering and the counts stay exact).
 */
#ifndef HS_AGENT_GCRING_H
#define HS_AGENT_GCRING_H

#include <stdint.h>

#include "agent/recbuf.h"

#define GCRING_SIZE 4096u

/* The two event bodies (async-signal-safe). */
void gcring_start(int64_t now_ns);
/* Returns the number of the GC that just finished. */
uint32_t gcring_finish(int64_t now_ns);

/* GCs finished so far (any thread). */
uint32_t gcring_finished(void);

/*
 * Writer thread: append a GCS record to out with the GCs numbered after
 * *drained up to those finished now, and move *drained on.  Appends
 * nothing when there is none.
 */
void gcring_drain(uint32_t *drained, struct recbuf *out);

#endif
